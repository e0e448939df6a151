//! `getLesson`, `getJourney` and `listWorlds`: the guided-study resources.

use axum::extract::State;
use manabi_schemas::{JourneyDocument, LessonDocument, Success, Worlds};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::answer::Answer;
use crate::billing::serve_call;
use crate::error::ApiError;
use crate::extract::{Call, IdPath};
use crate::operations::{GET_JOURNEY, GET_LESSON, LIST_WORLDS};
use crate::params::{JourneyParams, LessonParams, LessonQueryString, WithId};
use crate::reads;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_lesson))
        .routes(routes!(get_journey))
        .routes(routes!(list_worlds))
}

#[utoipa::path(
    get, path = "/api/v1/lessons/{id}", operation_id = "getLesson", tag = "lessons",
    summary = "One lesson, its link markup rendered as asked",
    description = "With `locale` (ISO 639-1, any case) the lesson's English (title, \
        objectives, body, question prompts, English choices and explanations) is localized \
        by the embedded translation engine or the provider; every `[[id|text]]` link and \
        every Japanese span is kept byte for byte, and `localization` names the generator. \
        The first keyed request of a (lesson, locale) pays the generation (25 points by \
        default), every later one the read price (1); 400 for a code that is not ISO 639-1, \
        422 when no generator serves it, 401 API_KEY_REQUIRED for a keyless caller before \
        the version exists, 503 when the translator fails. None of these is charged.",
    params(
        ("id" = String, Path, description = "Lesson id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
            example = json!("lesson-kana-foundations-n5-001")),
        LessonQueryString,
    ),
    responses((status = 200, description = "The lesson", body = Success<LessonDocument>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_lesson(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    call: Call,
) -> Result<Answer, ApiError> {
    let query = call.query(&GET_LESSON)?;
    let params = LessonParams::parse(&WithId { id: &id, query })?;
    serve_call(
        &state,
        call,
        &GET_LESSON,
        Some(params.id.as_str()),
        |caller| reads::lesson(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/journeys/{id}", operation_id = "getJourney", tag = "lessons",
    summary = "One journey: a lesson graph with branches and outcomes",
    params(("id" = String, Path, description = "Journey id", min_length = 1, max_length = 128,
        pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
            example = json!("journey-kana-foundations-n5-01"))),
    responses((status = 200, description = "The journey", body = Success<JourneyDocument>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_journey(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    call: Call,
) -> Result<Answer, ApiError> {
    let query = call.query(&GET_JOURNEY)?;
    let params = JourneyParams::parse(&WithId { id: &id, query })?;
    serve_call(
        &state,
        call,
        &GET_JOURNEY,
        Some(params.id.as_str()),
        |caller| reads::journey(&state, &params, caller),
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
    serve_call(&state, call, &LIST_WORLDS, None, |caller| {
        reads::worlds(&state, caller)
    })
    .await
}
