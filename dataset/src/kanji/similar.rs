//! Visually similar kanji: kanjium's curated look-alike pairs, plus pairs the editors'
//! rule derives: the two kanji share most of their KRADFILE components (Jaccard index of
//! the component sets at least 2/3) and their stroke counts differ by at most one.

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::kanji::SimilarKanji;

use super::KanjiSources;

pub const KANJIUM: &str = "kanjium";
pub const DERIVED: &str = "derived";
/// Derived look-alikes listed per kanji, best first.
const DERIVED_MAX: usize = 5;
/// Components shared by more kanji than this (口, 一, ...) say little about likeness
/// and are not used to find candidates.
const COMMON_COMPONENT_KANJI_MAX: usize = 200;

struct Shape<'a> {
    literal: &'a str,
    strokes: u8,
    components: BTreeSet<&'a str>,
}

fn shapes(sources: &KanjiSources) -> Vec<Shape<'_>> {
    sources
        .entries
        .iter()
        .filter_map(|entry| {
            let literal = entry.literal.chars().next()?;
            let components = sources.components.get(&literal)?;
            Some(Shape {
                literal: &entry.literal,
                strokes: entry.stroke_count?,
                components: components.iter().map(String::as_str).collect(),
            })
        })
        .filter(|shape| shape.components.len() >= 2)
        .collect()
}

/// Jaccard index as a fraction (shared, union) to stay in integers.
fn overlap(a: &Shape<'_>, b: &Shape<'_>) -> (usize, usize) {
    let shared = a.components.intersection(&b.components).count();
    (shared, a.components.len() + b.components.len() - shared)
}

fn derived_pairs(sources: &KanjiSources) -> BTreeMap<String, Vec<String>> {
    let shapes = shapes(sources);
    let mut by_component: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, shape) in shapes.iter().enumerate() {
        for component in &shape.components {
            by_component.entry(component).or_default().push(index);
        }
    }
    let mut found = BTreeMap::new();
    for (index, shape) in shapes.iter().enumerate() {
        let candidates: BTreeSet<usize> = shape
            .components
            .iter()
            .filter_map(|component| by_component.get(component))
            .filter(|kanji| kanji.len() <= COMMON_COMPONENT_KANJI_MAX)
            .flatten()
            .copied()
            .filter(|other| *other != index)
            .collect();
        let mut scored: Vec<(usize, usize, &str)> = candidates
            .into_iter()
            .map(|other| &shapes[other])
            .filter(|other| shape.strokes.abs_diff(other.strokes) <= 1)
            .filter_map(|other| {
                let (shared, union) = overlap(shape, other);
                (shared * 3 >= union * 2).then_some((shared, union, other.literal))
            })
            .collect();
        // Best overlap first (compare shared/union by cross-multiplying), then by literal.
        scored.sort_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)).then(a.2.cmp(b.2)));
        let best = scored
            .into_iter()
            .take(DERIVED_MAX)
            .map(|(_, _, k)| k.to_string())
            .collect();
        found.insert(shape.literal.to_string(), best);
    }
    found
}

/// Similar kanji per kanji: curated pairs first, then derived ones not already listed.
pub fn similar_kanji(sources: &KanjiSources) -> BTreeMap<String, Vec<SimilarKanji>> {
    let mut similar: BTreeMap<String, Vec<SimilarKanji>> = BTreeMap::new();
    for (kanji, others) in &sources.kanjium.lookalikes {
        let list = similar.entry(kanji.clone()).or_default();
        for other in others {
            list.push(SimilarKanji {
                literal: other.clone(),
                basis: KANJIUM.to_string(),
            });
        }
    }
    for (kanji, others) in derived_pairs(sources) {
        let list = similar.entry(kanji).or_default();
        for other in others {
            if !list.iter().any(|known| known.literal == other) {
                list.push(SimilarKanji {
                    literal: other,
                    basis: DERIVED.to_string(),
                });
            }
        }
    }
    similar.retain(|_, list| !list.is_empty());
    similar
}
