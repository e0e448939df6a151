//! The reads themselves, one plain function each: `(state, typed params, caller) ->
//! Answer`. The REST handlers wrap them in the billing seam; the MCP tools call the same
//! functions, so both transports answer identically.

use bytes::{BufMut, Bytes, BytesMut};
use manabi_schemas::params::Locale;
use manabi_schemas::{ErrorCode, Mode};
use manabi_search::SearchRequest;

use crate::answer::Answer;
use crate::billing::Caller;
use crate::catalog::Catalog;
use crate::error::ApiError;
use crate::params::{JourneyParams, LearnableParams, LessonParams, RelatedParams, SearchParams};
use crate::render::render_lesson;
use crate::state::AppState;

/// A JSON string literal (quoted and escaped).
fn json_string(text: &str) -> String {
    // Serializing a &str cannot fail.
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

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

/// Only the canonical locale is served until localized generation exists.
fn check_locale(locale: Locale) -> Result<(), ApiError> {
    if locale.is_canonical() {
        return Ok(());
    }
    Err(ApiError::with_message(
        ErrorCode::LocaleUnavailable,
        format!("locale `{locale}` cannot be served yet; `en` is available. Nothing was charged."),
    ))
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
    check_locale(params.locale)?;
    Ok(Answer::new(entry.json.clone(), caller.sample_only()))
}

/// `GET /api/v1/learnables/{id}/related`: both directions of every relation, the
/// sample's only for keyless callers.
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
    let visible: Vec<_> = catalog
        .edges(position)
        .iter()
        .filter(|edge| !caller.sample_only() || catalog.entries[edge.target].sample)
        .collect();
    Ok(Answer::new(
        related_json(catalog, id, &visible, params.limit.get()),
        caller.sample_only(),
    ))
}

fn related_json(
    catalog: &Catalog,
    id: &str,
    edges: &[&crate::catalog::Edge],
    limit: usize,
) -> Bytes {
    let mut data = BytesMut::with_capacity(256 * limit.min(edges.len()) + 64);
    data.put_slice(format!("{{\"id\":{},\"related\":[", json_string(id)).as_bytes());
    for (at, edge) in edges.iter().take(limit).enumerate() {
        if at > 0 {
            data.put_u8(b',');
        }
        let head = format!(
            "{{\"relationship\":{},\"basis\":{},\"learnable\":",
            json_string(&edge.relationship),
            json_string(&edge.basis)
        );
        data.put_slice(head.as_bytes());
        data.put_slice(&catalog.entries[edge.target].summary_json);
        data.put_u8(b'}');
    }
    data.put_slice(format!("],\"total\":{},\"limit\":{}}}", edges.len(), limit).as_bytes());
    data.freeze()
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
    check_locale(params.locale)?;
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
