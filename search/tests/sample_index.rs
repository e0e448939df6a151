//! On the committed artifact: a keyless search (the sample's own index) answers exactly
//! what the full index answers when filtered to the sample, for queries taken from the
//! data itself and misspelled versions of them. Skipped while no artifact is committed.

mod common;

use manabi_schemas::LearnableType;
use manabi_search::SearchRequest;

/// Every this many entries gives its written form, reading, romaji and meaning words.
const QUERY_ENTRY_STEP: usize = 97;

/// The text with one character dropped, one doubled, two neighbours swapped and one
/// replaced: what a hurried typist makes of it.
fn misspellings(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 3 {
        return Vec::new();
    }
    let middle = chars.len() / 2;
    let mut dropped = chars.clone();
    dropped.remove(middle);
    let mut doubled = chars.clone();
    doubled.insert(middle, chars[middle]);
    let mut swapped = chars.clone();
    swapped.swap(middle - 1, middle);
    let mut replaced = chars.clone();
    replaced[middle] = if chars[middle].is_ascii() { 'x' } else { 'ぬ' };
    [dropped, doubled, swapped, replaced]
        .into_iter()
        .map(|chars| chars.into_iter().collect())
        .collect()
}

#[test]
fn keyless_search_equals_the_full_index_filtered_to_the_sample() {
    let Some(artifact) = common::committed_artifact() else {
        return;
    };
    let index = common::index_of(&artifact);
    let mut queries: Vec<String> = ["to eat", "coffee shop", "mountian", "internationl", "a"]
        .map(str::to_owned)
        .to_vec();
    for learnable in artifact.learnables.iter().step_by(QUERY_ENTRY_STEP) {
        let surface = &learnable.surface;
        let picks = [
            surface.forms.first(),
            surface.readings.first(),
            surface.romaji.first(),
            surface.meanings.first(),
            surface.meanings.last(),
        ];
        for text in picks.into_iter().flatten() {
            queries.extend(misspellings(text));
            queries.push(text.clone());
        }
    }
    let filters = [
        (None, None, 10),
        (None, None, 1),
        (Some(LearnableType::Vocabulary), None, 20),
        (None, Some(5), 5),
    ];
    for query in &queries {
        for (kind, jlpt_level, limit) in filters {
            let request = SearchRequest {
                query,
                kind,
                jlpt_level,
                sample_only: true,
                limit,
            };
            let keyless = index.search(&request);
            let filtered = index.full().search(&request);
            assert_eq!(
                keyless, filtered,
                "{query:?} {kind:?} {jlpt_level:?} {limit}"
            );
        }
    }
    assert!(queries.len() > 1_000, "{} queries", queries.len());
}
