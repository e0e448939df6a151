//! The query strings of each read as they arrive (strings, documented with their bounds
//! for OpenAPI) and the typed parameters they parse into. A handler receives only the
//! typed form; MCP tools build the same typed form from their arguments.

use manabi_schemas::params::{
    JlptLevel, LearnableId, Locale, ParamError, RelatedLimit, Render, SearchLimit, SearchQuery,
    SearchType,
};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;

/// Parses an optional parameter, naming it in the error.
fn optional<T>(
    name: &str,
    value: Option<&str>,
    parse: impl Fn(&str) -> Result<T, ParamError>,
) -> Result<Option<T>, ApiError> {
    value
        .map(|text| parse(text).map_err(|error| ApiError::invalid_parameter(name, error)))
        .transpose()
}

/// A path id, named in the error.
pub fn parse_id(text: &str) -> Result<LearnableId, ApiError> {
    LearnableId::parse(text).map_err(|error| ApiError::invalid_parameter("id", error))
}

/// Query string of `GET /api/v1/learnables`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQueryString {
    /// Japanese (kanji, kana, romaji) or English text to look for.
    #[param(
        required = true,
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub query: Option<String>,
    /// Only entries of this type.
    #[serde(rename = "type")]
    #[param(value_type = Option<SearchType>)]
    pub kind: Option<String>,
    /// Only entries of this JLPT level (5 = N5 beginner .. 1 = N1 advanced).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 5)]
    pub jlpt_level: Option<String>,
    /// How many results, at most 20.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20, default = 10)]
    pub limit: Option<String>,
}

#[derive(Debug, Clone)]
pub struct SearchParams {
    pub query: SearchQuery,
    pub kind: Option<SearchType>,
    pub jlpt_level: Option<JlptLevel>,
    pub limit: SearchLimit,
}

impl SearchParams {
    pub fn parse(raw: &SearchQueryString) -> Result<SearchParams, ApiError> {
        let query = raw
            .query
            .as_deref()
            .ok_or_else(|| ApiError::missing_parameter("query"))?;
        Ok(SearchParams {
            query: SearchQuery::parse(query)
                .map_err(|error| ApiError::invalid_parameter("query", error))?,
            kind: optional("type", raw.kind.as_deref(), SearchType::parse)?,
            jlpt_level: optional("jlpt_level", raw.jlpt_level.as_deref(), JlptLevel::parse)?,
            limit: optional("limit", raw.limit.as_deref(), SearchLimit::parse)?
                .unwrap_or(SearchLimit::DEFAULT),
        })
    }
}

/// Query string of `GET /api/v1/learnables/{id}`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocaleQueryString {
    /// Two-letter content locale; `en` (the default) is canonical.
    #[param(min_length = 2, max_length = 2, pattern = "^[a-z]{2}$")]
    pub locale: Option<String>,
}

#[derive(Debug, Clone)]
pub struct LearnableParams {
    pub id: LearnableId,
    pub locale: Locale,
}

impl LearnableParams {
    pub fn parse(id: &str, raw: &LocaleQueryString) -> Result<LearnableParams, ApiError> {
        Ok(LearnableParams {
            id: parse_id(id)?,
            locale: optional("locale", raw.locale.as_deref(), Locale::parse)?
                .unwrap_or(Locale::ENGLISH),
        })
    }
}

/// Query string of `GET /api/v1/learnables/{id}/related`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RelatedQueryString {
    /// How many related entries, at most 20.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20, default = 10)]
    pub limit: Option<String>,
}

#[derive(Debug, Clone)]
pub struct RelatedParams {
    pub id: LearnableId,
    pub limit: RelatedLimit,
}

impl RelatedParams {
    pub fn parse(id: &str, raw: &RelatedQueryString) -> Result<RelatedParams, ApiError> {
        Ok(RelatedParams {
            id: parse_id(id)?,
            limit: optional("limit", raw.limit.as_deref(), RelatedLimit::parse)?
                .unwrap_or(RelatedLimit::DEFAULT),
        })
    }
}

/// Query string of `GET /api/v1/lessons/{id}`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LessonQueryString {
    /// How `[[learnable-id|text]]` link markup is returned (default `raw`).
    #[param(value_type = Option<Render>)]
    pub render: Option<String>,
    /// Two-letter content locale; `en` (the default) is canonical.
    #[param(min_length = 2, max_length = 2, pattern = "^[a-z]{2}$")]
    pub locale: Option<String>,
}

#[derive(Debug, Clone)]
pub struct LessonParams {
    pub id: LearnableId,
    pub render: Render,
    pub locale: Locale,
}

impl LessonParams {
    pub fn parse(id: &str, raw: &LessonQueryString) -> Result<LessonParams, ApiError> {
        Ok(LessonParams {
            id: parse_id(id)?,
            render: optional("render", raw.render.as_deref(), Render::parse)?.unwrap_or_default(),
            locale: optional("locale", raw.locale.as_deref(), Locale::parse)?
                .unwrap_or(Locale::ENGLISH),
        })
    }
}
