//! `searchLearnables`, `getLearnable` and `getRelatedLearnables`: the learnables resource.

use axum::extract::State;
use manabi_schemas::{Learnable, RelatedLearnables, SearchResults, Success};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::answer::Answer;
use crate::billing::serve_call;
use crate::error::ApiError;
use crate::extract::{Call, IdPath};
use crate::operations::{GET_LEARNABLE, GET_RELATED_LEARNABLES, SEARCH_LEARNABLES};
use crate::params::{
    LearnableParams, LocaleQueryString, RelatedParams, RelatedQueryString, SearchParams,
    SearchQueryString, WithId,
};
use crate::reads;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search_learnables))
        .routes(routes!(get_learnable))
        .routes(routes!(get_related))
}

#[utoipa::path(
    get, path = "/api/v1/learnables", operation_id = "searchLearnables", tag = "learnables",
    summary = "Search learnables",
    description = "Matches the query against written forms (in the query's own script first), \
        readings in kana or any romaji spelling (macrons, doubled vowels, ou/oh, n', wo), \
        English meanings, grammar patterns with or without 〜 and names in any order. Ranked in \
        tiers: exact written form, exact reading, loose romaji, English meaning (first sense \
        first), then prefixes of the last word and, only when nothing matched, typos; ties go \
        to common words, then easier JLPT levels, then more frequent entries. Keyless callers \
        search the sample.",
    params(SearchQueryString),
    responses((status = 200, description = "Ranked summaries", body = Success<SearchResults>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn search_learnables(
    State(state): State<AppState>,
    call: Call,
) -> Result<Answer, ApiError> {
    let params = SearchParams::parse(call.query(&SEARCH_LEARNABLES)?)?;
    serve_call(&state, call, &SEARCH_LEARNABLES, None, |caller| {
        reads::search(&state, &params, caller)
    })
    .await
}

#[utoipa::path(
    get, path = "/api/v1/learnables/{id}", operation_id = "getLearnable", tag = "learnables",
    summary = "One full learnable with its cited sources",
    description = "The entry in English, or with `locale` (an ISO 639-1 code, any case) in \
        another language: its English free text (meanings, glosses, notes, explanations, \
        descriptions, example translations) localized, Japanese and link markup kept byte for \
        byte, each localized field citing its generator in `sources` and `localization`. \
        Dictionary text already in the dataset (JMdict glosses in de/es/fr/hu/nl/ru/sl/sv, \
        KANJIDIC2 meanings in es/fr/pt, Tatoeba translations) comes first, then the embedded \
        translation engine, then the translation provider; discovery lists the locales. The \
        first keyed request of an (entry, locale) pays the generation (25 points by default), \
        every later request by anyone the read price (1). A code that is not ISO 639-1 is \
        400; a locale no generator serves for the entry is 422; keyless callers read only \
        versions already generated of sample entries (401 API_KEY_REQUIRED otherwise); \
        a translator failure is 503. None of these is charged.",
    params(
        ("id" = String, Path, description = "Learnable id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
            example = json!("vocab-1358280")),
        LocaleQueryString,
    ),
    responses((status = 200, description = "The learnable", body = Success<Learnable>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_learnable(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    call: Call,
) -> Result<Answer, ApiError> {
    let query = call.query(&GET_LEARNABLE)?;
    let params = LearnableParams::parse(&WithId { id: &id, query })?;
    serve_call(
        &state,
        call,
        &GET_LEARNABLE,
        Some(params.id.as_str()),
        |caller| reads::learnable(&state, &params, caller),
    )
    .await
}

#[utoipa::path(
    get, path = "/api/v1/learnables/{id}/related", operation_id = "getRelatedLearnables",
    tag = "learnables", summary = "Related learnables, each once with its relationship kinds",
    description = "The entries related to one entry, a page at a time. Each related entry is \
        listed once, with every kind that links it (read from the requested entry: `used-in` \
        on a kanji, `uses-kanji` on a word) and each kind's basis. Most useful first: by \
        the entry's first kind in the order of the `RelationshipKind` enum (meaning, kana, \
        grammar and word links before history's broad period links, components last), then \
        easier JLPT level, common words, more frequent entries. `kind` keeps only entries \
        linked by the named kinds; `totals_by_kind` counts every kind before that filter. \
        `next_cursor`, passed as `cursor`, reads the next page; each page is a billed read. \
        Keyless callers see (and count) only related entries of the sample.",
    params(
        ("id" = String, Path, description = "Learnable id", min_length = 1, max_length = 128,
            pattern = r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
            example = json!("vocab-1358280")),
        RelatedQueryString,
    ),
    responses((status = 200, description = "Related entries", body = Success<RelatedLearnables>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_related(
    State(state): State<AppState>,
    IdPath(id): IdPath,
    call: Call,
) -> Result<Answer, ApiError> {
    let query = call.query(&GET_RELATED_LEARNABLES)?;
    let params = RelatedParams::parse(&WithId { id: &id, query })?;
    let operation = &GET_RELATED_LEARNABLES;
    serve_call(
        &state,
        call,
        operation,
        Some(params.id.as_str()),
        |caller| reads::related(&state, &params, caller),
    )
    .await
}
