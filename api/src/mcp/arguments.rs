//! Tool arguments into the typed parameters of the REST reads. The JSON arguments are
//! first decoded into the very query-string structs REST fills, then parsed by the same
//! `…Params::parse`, so both transports accept the same values and refuse the others
//! with the same message.

use manabi_schemas::params::LearnableId;
use rmcp::model::{ErrorData, JsonObject};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::answer::Answer;
use crate::billing::{Caller, Operation, Price};
use crate::error::ApiError;
use crate::params::{
    LearnableParams, LessonParams, LessonQueryString, LocaleQueryString, RelatedParams,
    RelatedQueryString, SearchParams, SearchQueryString, parse_id,
};
use crate::reads;
use crate::state::AppState;

/// One parsed tool call: which read, with its typed parameters.
#[derive(Debug, Clone)]
pub enum ToolCall {
    Search(SearchParams),
    Learnable(LearnableParams),
    Related(RelatedParams),
    Lesson(LessonParams),
    Journey(LearnableId),
    Worlds,
}

impl ToolCall {
    /// Unknown tools and invalid arguments are JSON-RPC `-32602` errors: the call never
    /// reaches the billing seam, so nothing is charged.
    pub fn parse(name: &str, arguments: Option<JsonObject>) -> Result<ToolCall, ErrorData> {
        let arguments = arguments.unwrap_or_default();
        let call = match name {
            "search_learnables" => ToolCall::Search(
                SearchParams::parse(&decode::<SearchArguments>(arguments)?.into())
                    .map_err(invalid)?,
            ),
            "get_learnable" => {
                let args = decode::<LearnableArguments>(arguments)?;
                let raw = LocaleQueryString {
                    locale: args.locale,
                };
                ToolCall::Learnable(
                    LearnableParams::parse(&required_id(args.id)?, &raw).map_err(invalid)?,
                )
            }
            "get_related_learnables" => {
                let args = decode::<RelatedArguments>(arguments)?;
                let raw = RelatedQueryString {
                    limit: args.limit.map(|limit| limit.to_string()),
                };
                ToolCall::Related(
                    RelatedParams::parse(&required_id(args.id)?, &raw).map_err(invalid)?,
                )
            }
            "get_lesson" => {
                let args = decode::<LessonArguments>(arguments)?;
                let raw = LessonQueryString {
                    render: args.render,
                    locale: args.locale,
                };
                ToolCall::Lesson(
                    LessonParams::parse(&required_id(args.id)?, &raw).map_err(invalid)?,
                )
            }
            "get_journey" => {
                let args = decode::<IdArguments>(arguments)?;
                ToolCall::Journey(parse_id(&required_id(args.id)?).map_err(invalid)?)
            }
            "list_worlds" => {
                decode::<NoArguments>(arguments)?;
                ToolCall::Worlds
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`; tools/list names the six tools"),
                    None,
                ));
            }
        };
        Ok(call)
    }

    /// What the invoice line records: the REST twin's operation, entry and price, so a
    /// statement reads the same whichever transport the call came through.
    pub fn operation(&self) -> Operation {
        match self {
            ToolCall::Search(_) => Operation::new("searchLearnables", Price::Search),
            ToolCall::Learnable(params) => {
                Operation::new("getLearnable", Price::Read).on(params.id.as_str())
            }
            ToolCall::Related(params) => {
                Operation::new("getRelatedLearnables", Price::Read).on(params.id.as_str())
            }
            ToolCall::Lesson(params) => {
                Operation::new("getLesson", Price::Read).on(params.id.as_str())
            }
            ToolCall::Journey(id) => Operation::new("getJourney", Price::Read).on(id.as_str()),
            ToolCall::Worlds => Operation::new("listWorlds", Price::Read),
        }
    }

    /// The read itself: the same function the REST handler calls.
    pub fn read(&self, state: &AppState, caller: &Caller) -> Result<Answer, ApiError> {
        match self {
            ToolCall::Search(params) => reads::search(state, params, caller),
            ToolCall::Learnable(params) => reads::learnable(state, params, caller),
            ToolCall::Related(params) => reads::related(state, params, caller),
            ToolCall::Lesson(params) => reads::lesson(state, params, caller),
            ToolCall::Journey(id) => reads::journey(state, id, caller),
            ToolCall::Worlds => reads::worlds(state, caller),
        }
    }
}

/// Arguments are strict: a misspelt name is refused rather than silently ignored, so an
/// agent learns of its mistake instead of paying for an unfiltered answer.
fn decode<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, ErrorData> {
    serde_json::from_value(serde_json::Value::Object(arguments)).map_err(|error| {
        let message = format!("invalid arguments: {error}");
        ErrorData::invalid_params(message.clone(), Some(error_object(&message)))
    })
}

fn required_id(id: Option<String>) -> Result<String, ErrorData> {
    id.ok_or_else(|| invalid(ApiError::missing_parameter("id")))
}

/// A refused parameter, with the same message and code REST answers with.
fn invalid(error: ApiError) -> ErrorData {
    let data = serde_json::to_value(&error.body).ok();
    ErrorData::invalid_params(error.body.message, data)
}

fn error_object(message: &str) -> serde_json::Value {
    serde_json::json!({ "code": "INVALID_PARAMETER", "message": message })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArguments {
    query: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    jlpt_level: Option<i64>,
    limit: Option<i64>,
}

impl From<SearchArguments> for SearchQueryString {
    fn from(args: SearchArguments) -> SearchQueryString {
        SearchQueryString {
            query: args.query,
            kind: args.kind,
            jlpt_level: args.jlpt_level.map(|level| level.to_string()),
            limit: args.limit.map(|limit| limit.to_string()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LearnableArguments {
    id: Option<String>,
    locale: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RelatedArguments {
    id: Option<String>,
    limit: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonArguments {
    id: Option<String>,
    render: Option<String>,
    locale: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdArguments {
    id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArguments {}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: serde_json::Value) -> Option<JsonObject> {
        value.as_object().cloned()
    }

    #[test]
    fn arguments_parse_into_the_rest_parameters() {
        let call = ToolCall::parse(
            "search_learnables",
            args(serde_json::json!({"query": "taberu", "jlpt_level": 5, "limit": 20})),
        )
        .unwrap();
        let ToolCall::Search(params) = call else {
            panic!("not a search")
        };
        assert_eq!(params.limit.get(), 20);
        assert_eq!(params.jlpt_level.map(|l| l.get()), Some(5));
        assert_eq!(call_price("search_learnables"), Price::Search);
        assert_eq!(call_price("list_worlds"), Price::Read);
    }

    fn call_price(name: &str) -> Price {
        let arguments = match name {
            "search_learnables" => args(serde_json::json!({"query": "a"})),
            _ => None,
        };
        ToolCall::parse(name, arguments).unwrap().operation().price
    }

    #[test]
    fn out_of_range_values_get_the_rest_message() {
        let error = ToolCall::parse(
            "search_learnables",
            args(serde_json::json!({"query": "a", "limit": 21})),
        )
        .unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(
            error.message,
            "parameter `limit` must be an integer from 1 to 20"
        );
        let data = error.data.unwrap();
        assert_eq!(data["code"], "INVALID_PARAMETER");
    }

    #[test]
    fn missing_unknown_and_mistyped_arguments_are_refused() {
        let missing = ToolCall::parse("get_learnable", None).unwrap_err();
        assert_eq!(missing.message, "parameter `id` is required");
        let unknown = ToolCall::parse("get_journey", args(serde_json::json!({"id": "j", "x": 1})));
        assert!(unknown.unwrap_err().message.contains("unknown field `x`"));
        let mistyped = ToolCall::parse(
            "get_related_learnables",
            args(serde_json::json!({"id": "a", "limit": "3"})),
        );
        assert_eq!(
            mistyped.unwrap_err().code,
            rmcp::model::ErrorCode::INVALID_PARAMS
        );
        let tool = ToolCall::parse("delete_everything", None).unwrap_err();
        assert!(tool.message.contains("unknown tool"));
        let locale = ToolCall::parse(
            "get_lesson",
            args(serde_json::json!({"id": "l", "locale": "EN"})),
        );
        assert_eq!(
            locale.unwrap_err().message,
            "parameter `locale` must be exactly two lowercase letters, e.g. en"
        );
    }
}
