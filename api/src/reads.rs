//! The reads themselves, one plain function each: `(state, typed params, caller) ->
//! Answer`. The REST handlers wrap them in the billing seam; the MCP tools call the same
//! functions, so both transports answer identically.

use bytes::{BufMut, BytesMut};
use manabi_localize::DocumentKind;
use manabi_schemas::params::{Locale, Render};
use manabi_schemas::{ErrorCode, Mode};
use manabi_search::SearchRequest;

use crate::answer::Answer;
use crate::billing::Caller;
use crate::error::ApiError;
use crate::localization::LocalizeRequest;
use crate::params::{JourneyParams, LearnableParams, LessonParams, RelatedParams, SearchParams};
use crate::related::{self, ListingKey};
use crate::render::render_lesson;
use crate::state::AppState;

/// Refuses a keyless caller an entry outside the sample.
fn check_sample(
    state: &AppState,
    caller: &Caller,
    sample: bool,
    what: &str,
    id: &str,
) -> Result<(), ApiError> {
    if caller.sample_only() && !sample {
        return Err(ApiError::not_in_sample(
            what,
            id,
            &state.settings.signup_url,
        ));
    }
    Ok(())
}

/// An answer in another locale than English: checked here that a generator serves it
/// (422 otherwise, before anything is charged), served by the billing seam.
fn localized(
    state: &AppState,
    mut answer: Answer,
    id: &str,
    kind: DocumentKind,
    locale: Locale,
    render: Render,
) -> Result<Answer, ApiError> {
    if locale.is_canonical() {
        return Ok(answer);
    }
    state.localization.check(id, &answer.data, kind, locale)?;
    answer.localize = Some(LocalizeRequest {
        kind,
        locale,
        render,
    });
    Ok(answer)
}

/// `GET /api/v1`.
pub fn discovery(state: &AppState, caller: &Caller) -> Result<Answer, ApiError> {
    let mode = if caller.sample_only() {
        Mode::Sample
    } else {
        Mode::Full
    };
    Ok(Answer::new(
        state.discovery_json(mode),
        caller.sample_only(),
    ))
}

/// `GET /api/v1/credit-packs`.
pub fn credit_packs(state: &AppState, caller: &Caller) -> Result<Answer, ApiError> {
    Ok(Answer::new(
        state.credit_packs_json.clone(),
        caller.sample_only(),
    ))
}

/// `GET /api/v1/learnables`: ranked summaries; keyless callers search the sample only.
pub fn search(
    state: &AppState,
    params: &SearchParams,
    caller: &Caller,
) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    let request = SearchRequest {
        query: params.query.as_str(),
        kind: params.kind.map(|kind| kind.learnable_type()),
        jlpt_level: params.jlpt_level.map(|level| level.get()),
        sample_only: caller.sample_only(),
        limit: params.limit.get(),
    };
    let hits = catalog.index.search(&request);
    let mut data = BytesMut::with_capacity(256 * hits.hits.len() + 64);
    data.put_slice(b"{\"results\":[");
    for (at, hit) in hits.hits.iter().enumerate() {
        if at > 0 {
            data.put_u8(b',');
        }
        data.put_slice(&catalog.entries[*hit].summary_json);
    }
    let tail = format!(
        "],\"total_candidates\":{},\"limit\":{}}}",
        hits.total_candidates, request.limit
    );
    data.put_slice(tail.as_bytes());
    Ok(Answer::new(data.freeze(), caller.sample_only()).with_billing_in_data())
}

/// `GET /api/v1/learnables/{id}`: the stored document, spliced as is.
pub fn learnable(
    state: &AppState,
    params: &LearnableParams,
    caller: &Caller,
) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    let id = params.id.as_str();
    let entry = catalog
        .learnable(id)
        .ok_or_else(|| ApiError::not_found("learnable", id))?;
    check_sample(state, caller, entry.sample, "learnable", id)?;
    let answer = Answer::new(entry.json.clone(), caller.sample_only());
    localized(
        state,
        answer,
        id,
        DocumentKind::Learnable,
        params.locale,
        Render::default(),
    )
}

/// `GET /api/v1/learnables/{id}/related`: one page of the entry's related entries, each
/// once with the kinds linking it; the sample's only for keyless callers.
pub fn related(
    state: &AppState,
    params: &RelatedParams,
    caller: &Caller,
) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    let id = params.id.as_str();
    let position = catalog
        .position(id)
        .ok_or_else(|| ApiError::not_found("learnable", id))?;
    check_sample(
        state,
        caller,
        catalog.entries[position].sample,
        "learnable",
        id,
    )?;
    let key = ListingKey {
        dataset_version: &catalog.dataset_version,
        id,
        kinds: params.kinds,
        sample_only: caller.sample_only(),
    };
    let visible = |target: usize| !caller.sample_only() || catalog.entries[target].sample;
    let neighbours = catalog.neighbours(position);
    let page = related::page(
        catalog,
        &key,
        neighbours,
        visible,
        params.cursor,
        params.limit.get(),
    )?;
    Ok(Answer::new(
        related::to_json(catalog, &page),
        caller.sample_only(),
    ))
}

/// `GET /api/v1/lessons/{id}`, with its link markup rendered as asked.
pub fn lesson(
    state: &AppState,
    params: &LessonParams,
    caller: &Caller,
) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    let id = params.id.as_str();
    let lesson = catalog
        .lesson(id)
        .ok_or_else(|| ApiError::not_found("lesson", id))?;
    check_sample(state, caller, lesson.sample, "lesson", id)?;
    if !params.locale.is_canonical() {
        let answer = Answer::new(lesson.json.clone(), caller.sample_only());
        return localized(
            state,
            answer,
            id,
            DocumentKind::Lesson,
            params.locale,
            params.render,
        );
    }
    let label = |id: &str| catalog.label(id).map(str::to_owned);
    let json = render_lesson(&lesson.json, params.render, &label).map_err(|error| {
        tracing::error!(%error, lesson = id, "stored lesson is not valid JSON");
        ApiError::new(ErrorCode::Internal)
    })?;
    Ok(Answer::new(json, caller.sample_only()))
}

/// `GET /api/v1/journeys/{id}`.
pub fn journey(
    state: &AppState,
    params: &JourneyParams,
    caller: &Caller,
) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    let id = params.id.as_str();
    let journey = catalog
        .journey(id)
        .ok_or_else(|| ApiError::not_found("journey", id))?;
    check_sample(state, caller, journey.sample, "journey", id)?;
    Ok(Answer::new(journey.json.clone(), caller.sample_only()))
}

/// `GET /api/v1/worlds`: every world, public to all callers.
pub fn worlds(state: &AppState, caller: &Caller) -> Result<Answer, ApiError> {
    let catalog = state.catalog()?;
    Ok(Answer::new(
        catalog.worlds_json.clone(),
        caller.sample_only(),
    ))
}
