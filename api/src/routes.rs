//! The REST handlers. Each one says what it takes in its signature (state, path, query,
//! caller), parses the query into typed parameters, and hands the read to the billing
//! seam. The `#[utoipa::path]` attributes are the OpenAPI description of each.

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use manabi_schemas::{
    CreditPacks, Discovery, ErrorCode, JourneyDocument, Learnable, LessonDocument,
    RelatedLearnables, SearchResults, Success, Worlds,
};
use serde::de::DeserializeOwned;

use crate::answer::{Answer, json_response};
use crate::billing::{Call, Operation, Price, serve_call};
use crate::error::ApiError;
use crate::params::{
    LearnableParams, LessonParams, LessonQueryString, LocaleQueryString, RelatedParams,
    RelatedQueryString, SearchParams, SearchQueryString, parse_id,
};
use crate::reads;
use crate::state::AppState;

/// A query string that fails to decode is the caller's fault: 400, in the envelope.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|query| ApiQuery(query.0))
            .map_err(|rejection| {
                ApiError::with_message(
                    ErrorCode::InvalidParameter,
                    format!("query string: {}", rejection.body_text()),
                )
            })
    }
}

/// The `{id}` path segment, percent-decoded; undecodable text is a 400.
pub struct IdPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|path| IdPath(path.0))
            .map_err(|rejection| {
                ApiError::with_message(
                    ErrorCode::InvalidParameter,
                    format!("parameter `id`: {}", rejection.body_text()),
                )
            })
    }
}

#[utoipa::path(
    get, path = "/api/v1", operation_id = "getDiscovery", tag = "discovery",
    summary = "Discovery: endpoints, live prices, fair use and the caller's mode",
    responses((status = 200, description = "The discovery document", body = Success<Discovery>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_discovery(State(state): State<AppState>, call: Call) -> Result<Answer, ApiError> {
    serve_call(&state, call, Price::Free, |caller| {
        reads::discovery(&state, caller)
    })
    .await
}

#[utoipa::path(
    get, path = "/api/v1/learnables", operation_id = "searchLearnables", tag = "learnables",
    summary = "Search learnables",
    description = "Matches the query against written forms, readings (kana or romaji), English \
        meaning words and other names. Ranked: exact written form, exact reading or romaji, \
        exact meaning word, then prefix and typo-tolerant matches; ties go to common words, \
        easier JLPT levels, then more frequent entries. Keyless callers search the sample.",
    params(SearchQueryString),
    responses((status = 200, description = "Ranked summaries", body = Success<SearchResults>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn search_learnables(
    State(state): State<AppState>,
    ApiQuery(raw): ApiQuery<SearchQueryString>,
    call: Call,
) -> Result<Answer, ApiError> {
    let params = SearchParams::parse(&raw)?;
    serve_call(
        &state,
        call,
        Operation::new("searchLearnables", Price::Search),
        |caller| reads::search(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/learnables/{id}", operation_id = "getLearnable", tag = "learnables",
    summary = "One full learnable with its cited sources",
    params(
        ("id" = String, Path, description = "Learnable id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$"),
        LocaleQueryString,
    ),
    responses((status = 200, description = "The learnable", body = Success<Learnable>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_learnable(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    ApiQuery(raw): ApiQuery<LocaleQueryString>,
    call: Call,
) -> Result<Answer, ApiError> {
    let params = LearnableParams::parse(&id, &raw)?;
    serve_call(
        &state,
        call,
        Operation::new("getLearnable", Price::Read).on(id.as_str()),
        |caller| reads::learnable(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/learnables/{id}/related", operation_id = "getRelatedLearnables",
    tag = "learnables", summary = "Summaries of related learnables with relationship types",
    params(
        ("id" = String, Path, description = "Learnable id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$"),
        RelatedQueryString,
    ),
    responses((status = 200, description = "Related entries", body = Success<RelatedLearnables>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_related(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    ApiQuery(raw): ApiQuery<RelatedQueryString>,
    call: Call,
) -> Result<Answer, ApiError> {
    let params = RelatedParams::parse(&id, &raw)?;
    serve_call(
        &state,
        call,
        Operation::new("getRelatedLearnables", Price::Read).on(id.as_str()),
        |caller| reads::related(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/lessons/{id}", operation_id = "getLesson", tag = "lessons",
    summary = "One lesson, its link markup rendered as asked",
    params(
        ("id" = String, Path, description = "Lesson id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$"),
        LessonQueryString,
    ),
    responses((status = 200, description = "The lesson", body = Success<LessonDocument>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_lesson(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    ApiQuery(raw): ApiQuery<LessonQueryString>,
    call: Call,
) -> Result<Answer, ApiError> {
    let params = LessonParams::parse(&id, &raw)?;
    serve_call(
        &state,
        call,
        Operation::new("getLesson", Price::Read).on(id.as_str()),
        |caller| reads::lesson(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/journeys/{id}", operation_id = "getJourney", tag = "lessons",
    summary = "One journey: a lesson graph with branches and outcomes",
    params(("id" = String, Path, description = "Journey id", min_length = 1, max_length = 128,
        pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$")),
    responses((status = 200, description = "The journey", body = Success<JourneyDocument>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_journey(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    call: Call,
) -> Result<Answer, ApiError> {
    let id = parse_id(&id)?;
    serve_call(
        &state,
        call,
        Operation::new("getJourney", Price::Read).on(id.as_str()),
        |caller| reads::journey(&state, &id, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/worlds", operation_id = "listWorlds", tag = "lessons",
    summary = "All themed worlds",
    responses((status = 200, description = "Every world", body = Success<Worlds>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn list_worlds(State(state): State<AppState>, call: Call) -> Result<Answer, ApiError> {
    serve_call(
        &state,
        call,
        Operation::new("listWorlds", Price::Read),
        |caller| reads::worlds(&state, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/credit-packs", operation_id = "listCreditPacks", tag = "billing",
    summary = "The packs of prepaid points on sale",
    responses((status = 200, description = "Credit packs", body = Success<CreditPacks>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn list_credit_packs(
    State(state): State<AppState>,
    call: Call,
) -> Result<Answer, ApiError> {
    serve_call(&state, call, Price::Free, |caller| {
        reads::credit_packs(&state, caller)
    })
    .await
}

#[utoipa::path(
    get, path = "/api/v1/openapi.json", operation_id = "getOpenApi", tag = "discovery",
    summary = "This OpenAPI 3.1 description",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json",
        body = Object)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_openapi(State(state): State<AppState>) -> Response {
    json_response(state.openapi_json.clone())
}

/// `GET /docs`: the human documentation page, rendered from the OpenAPI document.
pub async fn get_docs(State(state): State<AppState>) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        state.docs_html.clone(),
    )
        .into_response()
}
