//! Finding a point's example sentences in Tatoeba and picking the best few.
//!
//! All `match` regexes of all points are compiled into one `RegexSet`, so the ~200k
//! sentences are scanned once instead of once per regex.

use std::collections::BTreeSet;

use regex::RegexSet;

use super::content::{Jlpt, Point};
use super::levels::KanjiLevels;
use super::tatoeba::Sentence;

/// Examples kept per point.
pub const EXAMPLES_PER_POINT_MAX: usize = 3;
/// Examples a point needs to be published.
pub const EXAMPLES_PER_POINT_MIN: usize = 2;

/// Every sentence (by index into the sentence list) each point's regexes match.
#[derive(Debug, Clone)]
pub struct Matches {
    /// Same order as the points given to [`find_matches`].
    pub per_point: Vec<Vec<usize>>,
}

/// Scans the sentences once with every point's regexes.
pub fn find_matches(points: &[&Point], sentences: &[Sentence]) -> Result<Matches, regex::Error> {
    let mut owner = Vec::new();
    let mut patterns = Vec::new();
    for (index, point) in points.iter().enumerate() {
        for regex in &point.matchers {
            owner.push(index);
            patterns.push(regex.as_str());
        }
    }
    let set = RegexSet::new(&patterns)?;
    let mut per_point: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); points.len()];
    for (sentence_index, sentence) in sentences.iter().enumerate() {
        for pattern_index in set.matches(&sentence.japanese).iter() {
            per_point[owner[pattern_index]].insert(sentence_index);
        }
    }
    Ok(Matches {
        per_point: per_point
            .into_iter()
            .map(|s| s.into_iter().collect())
            .collect(),
    })
}

/// Picks up to [`EXAMPLES_PER_POINT_MAX`] sentences for a point of `level`, deterministically:
/// sentences with an English translation only; first those whose kanji are all at or
/// below the point's level, then shorter sentences, then lower Tatoeba ids. A Japanese
/// text that repeats an already chosen one is skipped.
pub fn choose<'s>(
    candidates: &[usize],
    sentences: &'s [Sentence],
    level: Jlpt,
    kanji: &KanjiLevels,
) -> Vec<&'s Sentence> {
    let mut ranked: Vec<(bool, usize, u64, &Sentence)> = candidates
        .iter()
        .map(|&index| &sentences[index])
        .filter(|sentence| sentence.english.is_some())
        .map(|sentence| {
            let too_hard = !kanji.within(&sentence.japanese, level);
            (
                too_hard,
                sentence.japanese.chars().count(),
                sentence.id,
                sentence,
            )
        })
        .collect();
    ranked.sort_by_key(|(too_hard, length, id, _)| (*too_hard, *length, *id));
    let mut seen = BTreeSet::new();
    ranked
        .into_iter()
        .map(|(_, _, _, sentence)| sentence)
        .filter(|sentence| seen.insert(sentence.japanese.as_str()))
        .take(EXAMPLES_PER_POINT_MAX)
        .collect()
}
