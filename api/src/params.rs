//! The typed parameters of each read, parsed from where they arrive: a REST query string
//! (with the `{id}` of the path) or the JSON arguments of an MCP tool call. One parser
//! per operation serves both transports, so they accept the same values and refuse the
//! others with the same message. The `…QueryString` structs only document the query
//! parameters for OpenAPI.

use manabi_schemas::params::{
    JlptLevel, LearnableId, Locale, ParamError, RelatedLimit, Render, SearchLimit, SearchQuery,
    SearchType,
};
use manabi_schemas::{RelationshipKind, RelationshipKinds};
use serde_json::Value;
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::related::RelatedCursor;

/// One parameter as it arrived: query-string text (typed by the parameter), or a JSON
/// string, integer or other value (typed by JSON: `"3"` is not an integer there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawParam<'a> {
    Text(&'a str),
    JsonString(&'a str),
    Integer(i64),
    /// A JSON array (MCP arguments only).
    List(&'a [Value]),
    Other,
}

/// Where an operation's parameters come from.
pub trait ParamSource {
    fn raw(&self, name: &str) -> Option<RawParam<'_>>;
}

impl ParamSource for QueryParams {
    fn raw(&self, name: &str) -> Option<RawParam<'_>> {
        self.get(name).map(RawParam::Text)
    }
}

/// MCP tool arguments. A JSON null is an absent argument.
impl ParamSource for serde_json::Map<String, Value> {
    fn raw(&self, name: &str) -> Option<RawParam<'_>> {
        match self.get(name)? {
            Value::Null => None,
            Value::String(text) => Some(RawParam::JsonString(text)),
            Value::Number(number) => {
                Some(number.as_i64().map_or(RawParam::Other, RawParam::Integer))
            }
            Value::Array(items) => Some(RawParam::List(items)),
            _ => Some(RawParam::Other),
        }
    }
}

/// A REST request's query parameters with the `{id}` of its path.
pub struct WithId<'a> {
    pub id: &'a str,
    pub query: &'a QueryParams,
}

impl ParamSource for WithId<'_> {
    fn raw(&self, name: &str) -> Option<RawParam<'_>> {
        if name == "id" {
            return Some(RawParam::Text(self.id));
        }
        self.query.raw(name)
    }
}

/// A typed parameter built from its raw form.
pub trait FromParam: Sized {
    fn from_param(raw: RawParam<'_>) -> Result<Self, ParamError>;
}

/// Text parameters: a string, parsed by the type.
macro_rules! from_text {
    ($($kind:ty),*) => {$(
        impl FromParam for $kind {
            fn from_param(raw: RawParam<'_>) -> Result<Self, ParamError> {
                match raw {
                    RawParam::Text(text) | RawParam::JsonString(text) => <$kind>::parse(text),
                    RawParam::Integer(_) | RawParam::List(_) | RawParam::Other => {
                        Err(ParamError::not_a_string())
                    }
                }
            }
        }
    )*};
}

from_text!(
    SearchQuery,
    SearchType,
    LearnableId,
    Locale,
    Render,
    RelatedCursor
);

/// The `kind` filter: comma-separated text (REST) or an array of strings (MCP).
impl FromParam for RelationshipKinds {
    fn from_param(raw: RawParam<'_>) -> Result<Self, ParamError> {
        match raw {
            RawParam::Text(text) => RelationshipKinds::parse(text),
            RawParam::List(items) => {
                let names: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                RelationshipKinds::from_names(names.ok_or_else(RelationshipKinds::not_a_list)?)
            }
            RawParam::JsonString(_) | RawParam::Integer(_) | RawParam::Other => {
                Err(RelationshipKinds::not_a_list())
            }
        }
    }
}

/// Integer parameters: a JSON integer, or text in canonical decimal form.
macro_rules! from_integer {
    ($($kind:ty),*) => {$(
        impl FromParam for $kind {
            fn from_param(raw: RawParam<'_>) -> Result<Self, ParamError> {
                match raw {
                    RawParam::Text(text) => <$kind>::parse(text),
                    RawParam::Integer(value) => <$kind>::from_integer(value),
                    RawParam::JsonString(_) | RawParam::List(_) | RawParam::Other => {
                        Err(<$kind>::out_of_range())
                    }
                }
            }
        }
    )*};
}

from_integer!(SearchLimit, RelatedLimit, JlptLevel);

/// An optional parameter, named in the error.
pub fn optional<T: FromParam>(
    source: &impl ParamSource,
    name: &str,
) -> Result<Option<T>, ApiError> {
    source
        .raw(name)
        .map(|raw| T::from_param(raw).map_err(|error| ApiError::invalid_parameter(name, error)))
        .transpose()
}

/// A required parameter, named in the error.
pub fn required<T: FromParam>(source: &impl ParamSource, name: &str) -> Result<T, ApiError> {
    optional(source, name)?.ok_or_else(|| ApiError::missing_parameter(name))
}

/// A path id, named in the error.
pub fn parse_id(text: &str) -> Result<LearnableId, ApiError> {
    LearnableId::parse(text).map_err(|error| ApiError::invalid_parameter("id", error))
}

/// `searchLearnables`.
#[derive(Debug, Clone)]
pub struct SearchParams {
    pub query: SearchQuery,
    pub kind: Option<SearchType>,
    pub jlpt_level: Option<JlptLevel>,
    pub limit: SearchLimit,
}

impl SearchParams {
    pub fn parse(source: &impl ParamSource) -> Result<SearchParams, ApiError> {
        Ok(SearchParams {
            query: required(source, "query")?,
            kind: optional(source, "type")?,
            jlpt_level: optional(source, "jlpt_level")?,
            limit: optional(source, "limit")?.unwrap_or(SearchLimit::DEFAULT),
        })
    }
}

/// `getLearnable`.
#[derive(Debug, Clone)]
pub struct LearnableParams {
    pub id: LearnableId,
    pub locale: Locale,
}

impl LearnableParams {
    pub fn parse(source: &impl ParamSource) -> Result<LearnableParams, ApiError> {
        Ok(LearnableParams {
            id: required(source, "id")?,
            locale: optional(source, "locale")?.unwrap_or(Locale::ENGLISH),
        })
    }
}

/// `getRelatedLearnables`.
#[derive(Debug, Clone)]
pub struct RelatedParams {
    pub id: LearnableId,
    pub limit: RelatedLimit,
    /// Only entries linked by one of these kinds; every kind when absent.
    pub kinds: Option<RelationshipKinds>,
    /// Where the page starts: the previous page's `next_cursor`; the first page without.
    pub cursor: Option<RelatedCursor>,
}

impl RelatedParams {
    pub fn parse(source: &impl ParamSource) -> Result<RelatedParams, ApiError> {
        Ok(RelatedParams {
            id: required(source, "id")?,
            limit: optional(source, "limit")?.unwrap_or(RelatedLimit::DEFAULT),
            kinds: optional(source, "kind")?,
            cursor: optional(source, "cursor")?,
        })
    }
}

/// `getLesson`.
#[derive(Debug, Clone)]
pub struct LessonParams {
    pub id: LearnableId,
    pub render: Render,
    pub locale: Locale,
}

impl LessonParams {
    pub fn parse(source: &impl ParamSource) -> Result<LessonParams, ApiError> {
        Ok(LessonParams {
            id: required(source, "id")?,
            render: optional(source, "render")?.unwrap_or_default(),
            locale: optional(source, "locale")?.unwrap_or(Locale::ENGLISH),
        })
    }
}

/// `getJourney`.
#[derive(Debug, Clone)]
pub struct JourneyParams {
    pub id: LearnableId,
}

impl JourneyParams {
    pub fn parse(source: &impl ParamSource) -> Result<JourneyParams, ApiError> {
        Ok(JourneyParams {
            id: required(source, "id")?,
        })
    }
}

/// Query string of `GET /api/v1/learnables` (documentation).
#[derive(Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQueryString {
    /// Japanese (kanji, kana, romaji) or English text to look for.
    #[param(
        required = true,
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "taberu"
    )]
    pub query: Option<String>,
    /// Only entries of this type.
    #[param(rename = "type", value_type = Option<SearchType>)]
    pub kind: Option<String>,
    /// Only entries of this JLPT level (5 = N5 beginner .. 1 = N1 advanced).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 5)]
    pub jlpt_level: Option<String>,
    /// How many results, at most 20.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20, default = 10)]
    pub limit: Option<String>,
}

/// Query string of `GET /api/v1/learnables/{id}` (documentation).
#[derive(Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocaleQueryString {
    /// ISO 639-1 content locale, any case; `en` (the default) is canonical. Another locale
    /// is generated on the first keyed request (25 points, once), then read for 1.
    #[param(min_length = 2, max_length = 2, pattern = "^[A-Za-z]{2}$")]
    pub locale: Option<String>,
}

/// Query string of `GET /api/v1/learnables/{id}/related` (documentation).
#[derive(Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RelatedQueryString {
    /// How many related entries per page, at most 20.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20, default = 10)]
    pub limit: Option<String>,
    /// Only entries linked by one of these kinds, comma-separated
    /// (`kind=synonym,antonym`); every kind when absent. An unknown kind is a 400.
    #[param(
        value_type = Option<Vec<RelationshipKind>>,
        style = Form,
        explode = false,
        min_items = 1,
        max_items = 63,
        example = json!(["antonym", "used-in"])
    )]
    pub kind: Option<String>,
    /// The `next_cursor` of the previous page, to read the next one; only valid for the
    /// same entry, `kind` filter and caller (key or keyless).
    #[param(min_length = 24, max_length = 24, pattern = "^[0-9a-f]{24}$")]
    pub cursor: Option<String>,
}

/// Query string of `GET /api/v1/lessons/{id}` (documentation).
#[derive(Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LessonQueryString {
    /// How `[[learnable-id|text]]` link markup is returned (default `raw`).
    #[param(value_type = Option<Render>)]
    pub render: Option<String>,
    /// ISO 639-1 content locale, any case; `en` (the default) is canonical. Another locale
    /// is generated on the first keyed request (25 points, once), then read for 1.
    #[param(min_length = 2, max_length = 2, pattern = "^[A-Za-z]{2}$")]
    pub locale: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn query(text: &str) -> QueryParams {
        QueryParams::decode(text).expect("decodes")
    }

    fn arguments(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn both_transports_parse_into_the_same_parameters() {
        let rest = SearchParams::parse(&query("query=taberu&jlpt_level=5&limit=20")).unwrap();
        let mcp = SearchParams::parse(&arguments(
            json!({"query": "taberu", "jlpt_level": 5, "limit": 20}),
        ))
        .unwrap();
        for params in [rest, mcp] {
            assert_eq!(params.query.as_str(), "taberu");
            assert_eq!(params.jlpt_level.map(JlptLevel::get), Some(5));
            assert_eq!(params.limit.get(), 20);
        }
    }

    #[test]
    fn both_transports_refuse_with_the_same_message() {
        let expected = "parameter `limit` must be an integer from 1 to 20";
        for error in [
            SearchParams::parse(&query("query=a&limit=21")).unwrap_err(),
            SearchParams::parse(&arguments(json!({"query": "a", "limit": 21}))).unwrap_err(),
            SearchParams::parse(&query("query=a&limit=+5")).unwrap_err(),
            SearchParams::parse(&query("query=a&limit=05")).unwrap_err(),
            SearchParams::parse(&arguments(json!({"query": "a", "limit": 2.5}))).unwrap_err(),
            SearchParams::parse(&arguments(json!({"query": "a", "limit": "5"}))).unwrap_err(),
        ] {
            assert_eq!(error.body.message, expected);
        }
        let missing = SearchParams::parse(&query("type=kanji")).unwrap_err();
        assert_eq!(missing.body.message, "parameter `query` is required");
        let mistyped = LearnableParams::parse(&arguments(json!({"id": 7}))).unwrap_err();
        assert_eq!(mistyped.body.message, "parameter `id` must be a string");
    }

    #[test]
    fn the_path_id_joins_the_query() {
        let query = query("render=plain");
        let params = LessonParams::parse(&WithId {
            id: "lesson-1",
            query: &query,
        })
        .unwrap();
        assert_eq!(params.id.as_str(), "lesson-1");
        assert_eq!(params.render, Render::Plain);
        assert_eq!(params.locale, Locale::ENGLISH);
    }
}
