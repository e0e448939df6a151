//! Tool arguments into the typed parameters of the REST reads: the JSON arguments are
//! parsed by the same `…Params::parse` as a REST query string (numbers stay numbers), so
//! both transports accept the same values and refuse the others with the same message.
//! Which tool serves which operation, and which arguments it takes, is the operation
//! table's.

use rmcp::model::{ErrorData, JsonObject};

use crate::answer::Answer;
use crate::billing::Caller;
use crate::error::ApiError;
use crate::extract::check_known;
use crate::operations::{self, OperationSpec};
use crate::params::{JourneyParams, LearnableParams, LessonParams, RelatedParams, SearchParams};
use crate::reads;
use crate::state::AppState;

/// One parsed tool call: which read, with its typed parameters.
#[derive(Debug, Clone)]
pub enum ToolCall {
    Search(SearchParams),
    Learnable(LearnableParams),
    Related(RelatedParams),
    Lesson(LessonParams),
    Journey(JourneyParams),
    Worlds,
}

impl ToolCall {
    /// Unknown tools and invalid arguments are JSON-RPC `-32602` errors: the call never
    /// reaches the billing seam, so nothing is charged. Arguments are strict: a misspelt
    /// name is refused rather than ignored, so an agent learns of its mistake instead of
    /// paying for an unfiltered answer.
    pub fn parse(name: &str, arguments: Option<&JsonObject>) -> Result<ToolCall, ErrorData> {
        let none = JsonObject::new();
        let arguments = arguments.unwrap_or(&none);
        let Some(operation) = operations::by_tool(name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`; tools/list names the six tools"),
                None,
            ));
        };
        let known: Vec<&str> = operation.arguments().collect();
        check_known(arguments.keys().map(String::as_str), &known, "field").map_err(invalid)?;
        let call = match operation.id {
            id if id == operations::SEARCH_LEARNABLES.id => {
                ToolCall::Search(SearchParams::parse(arguments).map_err(invalid)?)
            }
            id if id == operations::GET_LEARNABLE.id => {
                ToolCall::Learnable(LearnableParams::parse(arguments).map_err(invalid)?)
            }
            id if id == operations::GET_RELATED_LEARNABLES.id => {
                ToolCall::Related(RelatedParams::parse(arguments).map_err(invalid)?)
            }
            id if id == operations::GET_LESSON.id => {
                ToolCall::Lesson(LessonParams::parse(arguments).map_err(invalid)?)
            }
            id if id == operations::GET_JOURNEY.id => {
                ToolCall::Journey(JourneyParams::parse(arguments).map_err(invalid)?)
            }
            id if id == operations::LIST_WORLDS.id => ToolCall::Worlds,
            _ => {
                return Err(ErrorData::internal_error(
                    format!("tool `{name}` has no parser"),
                    None,
                ));
            }
        };
        Ok(call)
    }

    /// The REST twin's operation and the entry read, recorded on the invoice line, so a
    /// statement reads the same whichever transport the call came through.
    pub fn operation(&self) -> (&'static OperationSpec, Option<&str>) {
        match self {
            ToolCall::Search(_) => (&operations::SEARCH_LEARNABLES, None),
            ToolCall::Learnable(params) => (&operations::GET_LEARNABLE, Some(params.id.as_str())),
            ToolCall::Related(params) => (
                &operations::GET_RELATED_LEARNABLES,
                Some(params.id.as_str()),
            ),
            ToolCall::Lesson(params) => (&operations::GET_LESSON, Some(params.id.as_str())),
            ToolCall::Journey(params) => (&operations::GET_JOURNEY, Some(params.id.as_str())),
            ToolCall::Worlds => (&operations::LIST_WORLDS, None),
        }
    }

    /// The read itself: the same function the REST handler calls.
    pub fn read(&self, state: &AppState, caller: &Caller) -> Result<Answer, ApiError> {
        match self {
            ToolCall::Search(params) => reads::search(state, params, caller),
            ToolCall::Learnable(params) => reads::learnable(state, params, caller),
            ToolCall::Related(params) => reads::related(state, params, caller),
            ToolCall::Lesson(params) => reads::lesson(state, params, caller),
            ToolCall::Journey(params) => reads::journey(state, params, caller),
            ToolCall::Worlds => reads::worlds(state, caller),
        }
    }
}

/// A refused argument, with the same message and code REST answers with.
fn invalid(error: ApiError) -> ErrorData {
    let data = serde_json::to_value(&error.body).ok();
    ErrorData::invalid_params(error.body.message, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::Price;

    fn args(value: serde_json::Value) -> JsonObject {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn arguments_parse_into_the_rest_parameters() {
        let call = ToolCall::parse(
            "search_learnables",
            Some(&args(
                serde_json::json!({"query": "taberu", "jlpt_level": 5, "limit": 20}),
            )),
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
            "search_learnables" => Some(args(serde_json::json!({"query": "a"}))),
            _ => None,
        };
        ToolCall::parse(name, arguments.as_ref())
            .unwrap()
            .operation()
            .0
            .price
    }

    #[test]
    fn out_of_range_values_get_the_rest_message() {
        let error = ToolCall::parse(
            "search_learnables",
            Some(&args(serde_json::json!({"query": "a", "limit": 21}))),
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
        let unknown = ToolCall::parse(
            "get_journey",
            Some(&args(serde_json::json!({"id": "j", "x": 1}))),
        );
        assert!(unknown.unwrap_err().message.contains("unknown field `x`"));
        let mistyped = ToolCall::parse(
            "get_related_learnables",
            Some(&args(serde_json::json!({"id": "a", "limit": "3"}))),
        );
        assert_eq!(
            mistyped.unwrap_err().code,
            rmcp::model::ErrorCode::INVALID_PARAMS
        );
        let tool = ToolCall::parse("delete_everything", None).unwrap_err();
        assert!(tool.message.contains("unknown tool"));
        let locale = ToolCall::parse(
            "get_lesson",
            Some(&args(serde_json::json!({"id": "l", "locale": "QQ"}))),
        );
        assert_eq!(
            locale.unwrap_err().message,
            "parameter `locale` `qq` is not an ISO 639-1 language code (e.g. en, pt, de)"
        );
    }
}
