//! Finding a point's example sentences in Tatoeba and picking the best few.
//!
//! The `match` regexes of all points are compiled into a few `RegexSet`s, so the ~200k
//! sentences are scanned once per set instead of once per regex.

use std::collections::BTreeSet;

use regex::RegexSet;

use super::content::{Jlpt, Point};
use super::levels::KanjiLevels;
use crate::sources::tatoeba::Sentence;

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

/// Patterns per `RegexSet`. One set over every pattern of every file (well over a
/// thousand) overflows the lazy DFA's cache and falls back to a slow engine; small sets
/// stay in the fast path.
const SET_PATTERNS_MAX: usize = 48;

/// The editors' refusals of a point's example (`content/grammar_examples_refused.tsv`:
/// point slug, sentence, reason): sentences a point's match finds that are not examples of
/// it (ざわめく under 〜めく, 見ないで。 under "without ~ing"), read by a teacher in a sweep
/// of every point's examples. The sentence stays an example of other points and words.
pub const REFUSED: &str = include_str!("../../content/grammar_examples_refused.tsv");

pub(crate) fn refused_for(slug: &str, japanese: &str) -> bool {
    crate::editors::has_pair(REFUSED, slug, japanese)
}

/// Scans the sentences with every point's regexes, a few dozen patterns per pass; the
/// editors' refused pairs are left out.
pub fn find_matches(points: &[&Point], sentences: &[Sentence]) -> Result<Matches, regex::Error> {
    let mut owner = Vec::new();
    let mut patterns = Vec::new();
    for (index, point) in points.iter().enumerate() {
        for regex in &point.matchers {
            owner.push(index);
            patterns.push(regex.as_str());
        }
    }
    let mut per_point: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); points.len()];
    for (chunk_index, chunk) in patterns.chunks(SET_PATTERNS_MAX).enumerate() {
        let set = RegexSet::new(chunk)?;
        let first = chunk_index * SET_PATTERNS_MAX;
        for (sentence_index, sentence) in sentences.iter().enumerate() {
            for pattern_index in set.matches(&sentence.japanese).iter() {
                let point = owner[first + pattern_index];
                if !refused_for(points[point].slug.as_str(), &sentence.japanese) {
                    per_point[point].insert(sentence_index);
                }
            }
        }
    }
    Ok(Matches {
        per_point: per_point
            .into_iter()
            .map(|s| s.into_iter().collect())
            .collect(),
    })
}

/// How a candidate sentence ranks, best first: runs on, too hard, length, Tatoeba id.
type Rank = (bool, bool, usize, u64);

/// Picks up to [`EXAMPLES_PER_POINT_MAX`] sentences for a point of `level`, deterministically:
/// sentences with an English translation only; first those whose English says no more
/// than the Japanese (a translation that runs on into another sentence only when a point
/// has too few others: grammar patterns are rare enough that refusing them outright
/// would leave points without examples), then those whose kanji are all at or below the
/// point's level, then shorter sentences, then lower Tatoeba ids. A Japanese text that
/// repeats an already chosen one is skipped.
pub fn choose<'s>(
    candidates: &[usize],
    sentences: &'s [Sentence],
    level: Jlpt,
    kanji: &KanjiLevels,
) -> Vec<&'s Sentence> {
    let mut ranked: Vec<(Rank, &Sentence)> = candidates
        .iter()
        .map(|&index| &sentences[index])
        .filter(|sentence| sentence.english.is_some())
        .map(|sentence| {
            let runs_on = !sentence.has_matching_english();
            let too_hard = !kanji.within(&sentence.japanese, level);
            let length = sentence.japanese.chars().count();
            ((runs_on, too_hard, length, sentence.id), sentence)
        })
        .collect();
    ranked.sort_by_key(|(key, _)| *key);
    let mut seen = BTreeSet::new();
    ranked
        .into_iter()
        .map(|(_, sentence)| sentence)
        .filter(|sentence| seen.insert(sentence.japanese.as_str()))
        .take(EXAMPLES_PER_POINT_MAX)
        .collect()
}
