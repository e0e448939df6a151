//! The embedded search engine: an in-memory term dictionary (an `fst` map from every
//! normalised search term to its postings) with exact, prefix and Levenshtein lookups.
//!
//! The ranking contract is tiered (exact written form > exact reading or romaji > exact
//! English meaning word > prefix or typo), then ties are broken by the common-word flag,
//! the JLPT level (easier first) and the frequency rank. A tier is a property of *which
//! field* matched *how*, so the index keeps the field on every posting and ranks by a
//! sort key instead of a relevance score; see docs/search.md for why this is not BM25.

use std::collections::BTreeMap;

use fst::automaton::{Levenshtein, Str};
use fst::{Automaton, IntoStreamer, Map, Streamer};
use manabi_schemas::{LearnableSummary, LearnableType};

use crate::Surface;
use crate::query::{QueryKeys, normalize_term, words};

/// How well one entry matched a query; lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// A written form (or another name of the entry) equals the query.
    ExactForm = 0,
    /// A reading or romaji spelling equals the query.
    ExactReading = 1,
    /// One of the entry's main meanings (a `;`-separated phrase of its summary meaning,
    /// without a leading "to ") equals the whole query: `eat` → 食べる "to eat".
    ExactMeaningPhrase = 2,
    /// A word of the main meaning equals the query: `coffee` → 喫茶店 "coffee shop".
    ExactMeaning = 3,
    /// A word of any other gloss equals the query (or a word of another name).
    ExactGlossWord = 4,
    /// A term starts with the query.
    Prefix = 5,
    /// A term is within a small edit distance of the query.
    Typo = 6,
}

/// Which part of the surface a term came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Form,
    Reading,
    Romaji,
    /// A whole main-meaning phrase (`eat`, `to eat`).
    MeaningPhrase,
    /// A word of the main meaning.
    PrimaryWord,
    /// A word of any gloss.
    Meaning,
    Alias,
    /// One word of a multi-word alias (`nobunaga` of `oda nobunaga`).
    AliasWord,
}

impl Field {
    fn exact_tier(self) -> Tier {
        match self {
            Field::Form | Field::Alias => Tier::ExactForm,
            Field::Reading | Field::Romaji => Tier::ExactReading,
            Field::MeaningPhrase => Tier::ExactMeaningPhrase,
            Field::PrimaryWord => Tier::ExactMeaning,
            Field::Meaning | Field::AliasWord => Tier::ExactGlossWord,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    field: Field,
}

/// What ranking and filtering need to know about one entry.
#[derive(Debug, Clone)]
struct Doc {
    kind: LearnableType,
    jlpt_level: Option<u8>,
    is_common: bool,
    frequency: Option<u32>,
    sample: bool,
}

/// One entry handed to [`EmbeddedIndex::build`].
#[derive(Debug, Clone, Copy)]
pub struct IndexEntry<'a> {
    pub summary: &'a LearnableSummary,
    pub surface: &'a Surface,
    /// Part of the keyless evaluation sample.
    pub sample: bool,
}

/// A search: the query text and its filters.
#[derive(Debug, Clone)]
pub struct SearchRequest<'a> {
    pub query: &'a str,
    pub kind: Option<LearnableType>,
    pub jlpt_level: Option<u8>,
    /// Only entries of the evaluation sample (keyless callers).
    pub sample_only: bool,
    pub limit: usize,
}

/// The ranked answer: positions in the slice given to `build`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHits {
    pub hits: Vec<usize>,
    /// Every entry that matched the query and the filters, before `limit`.
    pub total_candidates: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("building the term dictionary: {0}")]
    Fst(#[from] fst::Error),
    #[error("the index holds more than {max} entries", max = u32::MAX)]
    TooManyEntries,
}

/// Latin prefixes shorter than this match too much to be useful (`a` → every word).
const LATIN_PREFIX_CHARS_MIN: usize = 2;
/// Latin words from this length tolerate one typo, and from the second length two.
const LATIN_TYPO_ONE_CHARS_MIN: usize = 4;
const LATIN_TYPO_TWO_CHARS_MIN: usize = 8;
/// Kana words from this length tolerate one typo; shorter kana words are too dense.
const KANA_TYPO_ONE_CHARS_MIN: usize = 3;
/// Bound on the automaton size so a hostile query cannot make the server build a huge DFA.
const LEVENSHTEIN_STATES_MAX: usize = 10_000;
/// Marks "no match" in the per-entry tier table.
const NO_MATCH: u8 = u8::MAX;

/// The in-memory index over every learnable of the artifact.
pub struct EmbeddedIndex {
    docs: Vec<Doc>,
    terms: Map<Vec<u8>>,
    postings: Vec<Vec<Posting>>,
}

impl std::fmt::Debug for EmbeddedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedIndex")
            .field("entries", &self.docs.len())
            .field("terms", &self.terms.len())
            .finish()
    }
}

impl EmbeddedIndex {
    /// Builds the index; hit positions refer to the order of `entries`.
    pub fn build<'a>(
        entries: impl IntoIterator<Item = IndexEntry<'a>>,
    ) -> Result<EmbeddedIndex, IndexError> {
        let mut dictionary: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
        let mut docs = Vec::new();
        for (position, entry) in entries.into_iter().enumerate() {
            let doc = u32::try_from(position).map_err(|_| IndexError::TooManyEntries)?;
            for (term, field) in terms_of(entry.surface, entry.summary.meaning.as_deref()) {
                let postings = dictionary.entry(term).or_default();
                // A term repeated in one entry keeps its best field only.
                match postings.last_mut() {
                    Some(last) if last.doc == doc => {
                        if field.exact_tier() < last.field.exact_tier() {
                            last.field = field;
                        }
                    }
                    _ => postings.push(Posting { doc, field }),
                }
            }
            docs.push(doc_of(entry));
        }
        let mut postings = Vec::with_capacity(dictionary.len());
        let keys = dictionary.into_iter().map(|(term, list)| {
            postings.push(list);
            (term, (postings.len() - 1) as u64)
        });
        let terms = Map::from_iter(keys)?;
        Ok(EmbeddedIndex {
            docs,
            terms,
            postings,
        })
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Number of distinct terms in the dictionary.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Ranks every matching entry and returns the best `limit` of them.
    ///
    /// Typo-tolerant lookups (building a Levenshtein automaton is the costliest step of
    /// a search) run only when exact and prefix matches do not fill the page, so
    /// `total_candidates` counts typo matches only in that case.
    pub fn search(&self, request: &SearchRequest<'_>) -> SearchHits {
        let mut candidates = self.candidates(request, false);
        if candidates.len() < request.limit {
            candidates = self.candidates(request, true);
        }
        let total_candidates = candidates.len();
        let limit = request.limit.min(total_candidates);
        if limit > 0 && limit < candidates.len() {
            candidates.select_nth_unstable(limit - 1);
        }
        candidates.truncate(limit);
        candidates.sort_unstable();
        SearchHits {
            hits: candidates.into_iter().map(|(_, doc)| doc).collect(),
            total_candidates,
        }
    }

    /// Every entry that matches and passes the filters, with its sort key.
    fn candidates(&self, request: &SearchRequest<'_>, typos: bool) -> Vec<(RankKey, usize)> {
        let tiers = self.match_query(request.query, typos);
        tiers
            .iter()
            .enumerate()
            .filter(|(doc, tier)| **tier != NO_MATCH && self.passes(*doc, request))
            .map(|(doc, tier)| (self.rank_key(doc, *tier), doc))
            .collect()
    }

    /// The best tier of every entry for the whole query: the whole text as one term, or
    /// (for several words) every word matching, at the tier of its weakest word.
    fn match_query(&self, query: &str, typos: bool) -> Vec<u8> {
        let mut best = vec![NO_MATCH; self.docs.len()];
        let words = words(query);
        if words.len() > 1 {
            self.exact_into(&normalize_term(query), Tier::ExactForm, &mut best);
            let mut all = self.match_word(&words[0], typos);
            for word in &words[1..] {
                let next = self.match_word(word, typos);
                for (tier, other) in all.iter_mut().zip(next) {
                    *tier = if *tier == NO_MATCH || other == NO_MATCH {
                        NO_MATCH
                    } else {
                        (*tier).max(other)
                    };
                }
            }
            for (tier, word_tier) in best.iter_mut().zip(all) {
                *tier = (*tier).min(word_tier);
            }
        } else if let Some(word) = words.first() {
            best = self.match_word(word, typos);
        }
        best
    }

    /// The best tier of every entry for one word.
    fn match_word(&self, word: &str, typos: bool) -> Vec<u8> {
        let mut best = vec![NO_MATCH; self.docs.len()];
        let keys = QueryKeys::of(word);
        self.exact_into(&keys.text, Tier::ExactForm, &mut best);
        if let Some(kana) = &keys.kana {
            // Romaji typed for a reading: an exact hit is a reading match at best.
            self.exact_into(kana, Tier::ExactReading, &mut best);
        }
        let latin = keys.is_latin();
        if !latin || keys.text.chars().count() >= LATIN_PREFIX_CHARS_MIN {
            self.prefix_into(&keys.text, &mut best);
        }
        if let Some(kana) = &keys.kana {
            self.prefix_into(kana, &mut best);
        }
        if !typos {
            return best;
        }
        let text_distance = typo_distance(&keys.text, latin);
        self.typo_into(&keys.text, text_distance, &mut best);
        if let Some(kana) = &keys.kana {
            self.typo_into(kana, typo_distance(kana, false), &mut best);
        }
        best
    }

    fn record(&self, postings: u64, tier_of: impl Fn(Field) -> Tier, best: &mut [u8]) {
        let Some(list) = usize::try_from(postings)
            .ok()
            .and_then(|i| self.postings.get(i))
        else {
            return;
        };
        for posting in list {
            let tier = tier_of(posting.field) as u8;
            let slot = &mut best[posting.doc as usize];
            *slot = (*slot).min(tier);
        }
    }

    /// Exact hits, at the field's own tier but never better than `floor`.
    fn exact_into(&self, key: &str, floor: Tier, best: &mut [u8]) {
        if let Some(postings) = self.terms.get(key) {
            self.record(postings, |field| field.exact_tier().max(floor), best);
        }
    }

    fn prefix_into(&self, key: &str, best: &mut [u8]) {
        if key.is_empty() {
            return;
        }
        let automaton = Str::new(key).starts_with();
        let mut stream = self.terms.search(automaton).into_stream();
        while let Some((_, postings)) = stream.next() {
            self.record(postings, |_| Tier::Prefix, best);
        }
    }

    fn typo_into(&self, key: &str, distance: u32, best: &mut [u8]) {
        if distance == 0 {
            return;
        }
        self.transpositions_into(key, best);
        let Ok(automaton) = Levenshtein::new_with_limit(key, distance, LEVENSHTEIN_STATES_MAX)
        else {
            // Too large an automaton: the query simply gets no typo tolerance.
            return;
        };
        let mut stream = self.terms.search(automaton).into_stream();
        while let Some((_, postings)) = stream.next() {
            self.record(postings, |_| Tier::Typo, best);
        }
    }

    /// Two swapped neighbours (`shcool`) are two edits for Levenshtein but one slip of
    /// the fingers, so every single swap of the key is looked up as a typo match too.
    fn transpositions_into(&self, key: &str, best: &mut [u8]) {
        let chars: Vec<char> = key.chars().collect();
        for at in 1..chars.len() {
            if chars[at - 1] == chars[at] {
                continue;
            }
            let mut swapped = chars.clone();
            swapped.swap(at - 1, at);
            let variant: String = swapped.into_iter().collect();
            if let Some(postings) = self.terms.get(&variant) {
                self.record(postings, |_| Tier::Typo, best);
            }
        }
    }

    fn passes(&self, doc: usize, request: &SearchRequest<'_>) -> bool {
        let entry = &self.docs[doc];
        (!request.sample_only || entry.sample)
            && request.kind.is_none_or(|kind| kind == entry.kind)
            && request
                .jlpt_level
                .is_none_or(|level| entry.jlpt_level == Some(level))
    }

    fn rank_key(&self, doc: usize, tier: u8) -> RankKey {
        let entry = &self.docs[doc];
        RankKey {
            tier,
            uncommon: !entry.is_common,
            // N5 (level 5) first: easier entries are what most searchers want first.
            difficulty: entry
                .jlpt_level
                .map_or(u8::MAX, |level| 5u8.saturating_sub(level)),
            frequency: entry.frequency.unwrap_or(u32::MAX),
        }
    }
}

/// The sort key of one candidate; derives `Ord` field by field, in contract order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RankKey {
    tier: u8,
    uncommon: bool,
    difficulty: u8,
    frequency: u32,
}

fn typo_distance(key: &str, latin: bool) -> u32 {
    let chars = key.chars().count();
    if latin {
        match chars {
            n if n >= LATIN_TYPO_TWO_CHARS_MIN => 2,
            n if n >= LATIN_TYPO_ONE_CHARS_MIN => 1,
            _ => 0,
        }
    } else if chars >= KANA_TYPO_ONE_CHARS_MIN && crate::kana::is_kana(key) {
        1
    } else {
        0
    }
}

fn doc_of(entry: IndexEntry<'_>) -> Doc {
    Doc {
        kind: entry.summary.kind,
        jlpt_level: entry.summary.jlpt_level,
        is_common: entry.summary.is_common_word.unwrap_or(false),
        frequency: entry.surface.frequency,
        sample: entry.sample,
    }
}

/// A meaning phrase without its parenthesised notes: `student (esp. a university
/// student)` is the phrase `student`.
fn without_notes(phrase: &str) -> String {
    let mut out = String::with_capacity(phrase.len());
    let mut depth = 0usize;
    for c in phrase.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every (term, field) of a surface and of the main meaning, normalised the way queries
/// are.
fn terms_of(surface: &Surface, main_meaning: Option<&str>) -> Vec<(String, Field)> {
    let mut terms = Vec::new();
    let mut push = |text: &str, field: Field| {
        let term = normalize_term(text);
        if !term.is_empty() {
            terms.push((term, field));
        }
    };
    for form in &surface.forms {
        push(form, Field::Form);
    }
    for reading in &surface.readings {
        push(reading, Field::Reading);
    }
    for romaji in &surface.romaji {
        push(romaji, Field::Romaji);
    }
    for phrase in main_meaning
        .into_iter()
        .flat_map(|meaning| meaning.split(';'))
    {
        let phrase = without_notes(phrase).to_lowercase();
        let bare = phrase.strip_prefix("to ").unwrap_or(&phrase).to_owned();
        for word in words(&bare) {
            push(
                word.trim_matches(|c: char| !c.is_alphanumeric()),
                Field::PrimaryWord,
            );
        }
        push(&phrase, Field::MeaningPhrase);
        push(&bare, Field::MeaningPhrase);
    }
    for meaning in &surface.meanings {
        push(meaning, Field::Meaning);
    }
    for alias in &surface.aliases {
        push(alias, Field::Alias);
        for word in words(alias) {
            if word.chars().count() > 1 {
                push(&word, Field::AliasWord);
            }
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use manabi_schemas::Domain;

    use super::*;

    fn summary(id: &str, kind: LearnableType, level: Option<u8>, common: bool) -> LearnableSummary {
        LearnableSummary {
            id: id.to_owned(),
            label: Some(id.to_owned()),
            kind,
            domain: Domain::Language,
            jlpt_level: level,
            is_common_word: Some(common),
            canonical_name: None,
            pattern: None,
            meaning: None,
            writing_forms: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn surface(forms: &[&str], readings: &[&str], meanings: &[&str]) -> Surface {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Surface {
            forms: owned(forms),
            readings: owned(readings),
            romaji: readings.iter().map(|r| crate::kana::to_romaji(r)).collect(),
            meanings: owned(meanings),
            aliases: Vec::new(),
            frequency: None,
        }
    }

    fn fixture() -> (Vec<LearnableSummary>, Vec<Surface>) {
        let summaries = vec![
            summary("taberu", LearnableType::Vocabulary, Some(5), true),
            summary("tabemono", LearnableType::Vocabulary, Some(5), true),
            summary("kanji-eat", LearnableType::Kanji, Some(4), false),
            summary("kuu", LearnableType::Vocabulary, Some(1), false),
        ];
        let surfaces = vec![
            surface(&["食べる"], &["たべる"], &["eat"]),
            surface(&["食べ物"], &["たべもの"], &["food"]),
            surface(&["食"], &["しょく", "たべる"], &["eat", "food"]),
            surface(&["食う"], &["くう"], &["eat"]),
        ];
        (summaries, surfaces)
    }

    fn search(index: &EmbeddedIndex, query: &str) -> Vec<usize> {
        let request = SearchRequest {
            query,
            kind: None,
            jlpt_level: None,
            sample_only: false,
            limit: 20,
        };
        index.search(&request).hits
    }

    fn index_of(summaries: &[LearnableSummary], surfaces: &[Surface]) -> EmbeddedIndex {
        let entries = summaries
            .iter()
            .zip(surfaces)
            .map(|(summary, surface)| IndexEntry {
                summary,
                surface,
                sample: true,
            });
        EmbeddedIndex::build(entries).unwrap()
    }

    #[test]
    fn tiers_rank_form_then_reading_then_meaning() {
        let (summaries, surfaces) = fixture();
        let index = index_of(&summaries, &surfaces);
        assert_eq!(search(&index, "食べる")[0], 0);
        // Romaji and katakana reach the reading; the vocabulary word is common so it
        // outranks the kanji that shares the reading.
        assert_eq!(search(&index, "taberu")[..2], [0, 2]);
        assert_eq!(search(&index, "タベル")[..2], [0, 2]);
        // English: common N5 word first, then the kanji, then the rare N1 word.
        assert_eq!(search(&index, "eat")[..3], [0, 2, 3]);
    }

    #[test]
    fn prefix_and_typo_matches_come_last() {
        let (summaries, surfaces) = fixture();
        let index = index_of(&summaries, &surfaces);
        assert_eq!(search(&index, "tabe"), vec![0, 1, 2]);
        assert!(search(&index, "foood").contains(&1));
        assert!(search(&index, "fodo").contains(&1));
        assert!(search(&index, "xyzzy").is_empty());
    }

    #[test]
    fn the_main_meaning_outranks_a_word_deep_in_the_glosses() {
        let mut take = summary("toru", LearnableType::Vocabulary, Some(5), true);
        take.meaning = Some("to take; to pick up".to_owned());
        let mut eat = summary("taberu", LearnableType::Vocabulary, Some(5), true);
        eat.meaning = Some("to eat".to_owned());
        let mut cafe = summary("kissaten", LearnableType::Vocabulary, Some(5), true);
        cafe.meaning = Some("coffee shop; tearoom".to_owned());
        let mut coffee = summary("koohii", LearnableType::Vocabulary, Some(5), true);
        coffee.meaning = Some("coffee".to_owned());
        let mut toru = surface(&["取る"], &["とる"], &["to", "take", "eat", "coffee"]);
        toru.frequency = Some(1);
        let surfaces = vec![
            toru,
            surface(&["食べる"], &["たべる"], &["to", "eat"]),
            surface(&["喫茶店"], &["きっさてん"], &["coffee", "shop", "tearoom"]),
            surface(&["コーヒー"], &["こーひー"], &["coffee"]),
        ];
        let index = index_of(&[take, eat, cafe, coffee], &surfaces);
        assert_eq!(search(&index, "eat"), vec![1, 0]);
        assert_eq!(search(&index, "to eat")[0], 1);
        assert_eq!(search(&index, "coffee"), vec![3, 2, 0]);
    }

    #[test]
    fn filters_and_total_candidates() {
        let (summaries, surfaces) = fixture();
        let index = index_of(&summaries, &surfaces);
        let request = SearchRequest {
            query: "eat",
            kind: Some(LearnableType::Vocabulary),
            jlpt_level: None,
            sample_only: false,
            limit: 1,
        };
        let hits = index.search(&request);
        assert_eq!(hits.hits, vec![0]);
        assert_eq!(hits.total_candidates, 2);
    }
}
