//! The embedded search engine: an in-memory term dictionary (an `fst` map from every
//! normalised search term to its postings) with exact, prefix and typo lookups.
//!
//! The ranking contract is tiered (exact written form > exact reading or romaji > exact
//! English meaning word > prefix or typo), then ties are broken by the common-word flag,
//! the JLPT level (easier first) and the frequency rank. A tier is a property of *which
//! field* matched *how*, so the index keeps the field on every posting and ranks by a
//! sort key instead of a relevance score; see docs/search.md for why this is not BM25.

use fst::automaton::Str;
use fst::{Automaton, IntoStreamer, Map, Streamer};
use manabi_schemas::{LearnableSummary, LearnableType};

use crate::Surface;
use crate::query::{QueryKeys, normalize_term, words};
use crate::typo::{TypoTable, typo_distance};

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
/// Entries handed to one index-building thread at least; below this a second thread
/// costs more than it saves.
const BUILD_CHUNK_MIN: usize = 4_096;

/// Matches of one word (or of the whole query) as `(entry, tier)` pairs. Sparse on
/// purpose: a query touches a few hundred of the ~20k entries, so a dense per-entry
/// table would cost more to clear and scan than the lookups themselves.
#[derive(Debug, Default, Clone)]
struct Matches(Vec<(u32, u8)>);

impl Matches {
    fn push(&mut self, doc: u32, tier: Tier) {
        self.0.push((doc, tier as u8));
    }

    /// Sorts by entry and keeps the best tier of each; every merge below expects this.
    fn settle(&mut self) {
        self.0.sort_unstable();
        self.0.dedup_by_key(|(doc, _)| *doc);
    }

    /// Entries in both, at the weaker of their two tiers (every word must match).
    fn intersect(&self, other: &Matches) -> Matches {
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        let mut out = Vec::new();
        while let (Some(&&(da, ta)), Some(&&(db, tb))) = (a.peek(), b.peek()) {
            match da.cmp(&db) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    out.push((da, ta.max(tb)));
                    a.next();
                    b.next();
                }
            }
        }
        Matches(out)
    }

    /// Entries in either, at the better tier.
    fn union(mut self, other: &Matches) -> Matches {
        self.0.extend_from_slice(&other.0);
        self.settle();
        self
    }
}

/// One query word with its lookup keys, worked out once per search.
struct WordKeys {
    keys: QueryKeys,
    latin: bool,
}

impl WordKeys {
    fn of(word: &str) -> WordKeys {
        let keys = QueryKeys::of(word);
        let latin = keys.is_latin();
        WordKeys { keys, latin }
    }
}

/// The in-memory index over every learnable of the artifact.
pub struct EmbeddedIndex {
    docs: Vec<Doc>,
    /// Term → its number; that term's postings are `postings[starts[n]..starts[n + 1]]`.
    terms: Map<Vec<u8>>,
    starts: Vec<u32>,
    postings: Vec<Posting>,
    /// The deletion variants of every term a typo can reach, by the same term numbers.
    typos: TypoTable,
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
    /// Builds the index; hit positions refer to the order of `entries`. Term extraction
    /// (normalisation is the costly part) runs on every available core.
    pub fn build(entries: &[IndexEntry<'_>]) -> Result<EmbeddedIndex, IndexError> {
        u32::try_from(entries.len()).map_err(|_| IndexError::TooManyEntries)?;
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let chunk = entries.len().div_ceil(threads).max(BUILD_CHUNK_MIN);
        let mut triples: Vec<(String, u32, Field)> = std::thread::scope(|scope| {
            let workers: Vec<_> = entries
                .chunks(chunk)
                .enumerate()
                .map(|(at, part)| scope.spawn(move || sorted_terms(part, at * chunk)))
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e))
                })
                .collect()
        });
        // The chunks arrive sorted, so this stable sort only merges runs.
        triples.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        let Dictionary {
            terms,
            starts,
            postings,
            typos,
        } = dictionary_of(triples)?;
        Ok(EmbeddedIndex {
            docs: entries.iter().map(|entry| doc_of(*entry)).collect(),
            terms,
            starts,
            postings,
            typos,
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

    /// Bytes the typo table holds (the largest part of the index).
    pub fn typo_table_bytes(&self) -> usize {
        self.typos.heap_bytes()
    }

    /// Ranks every matching entry and returns the best `limit` of them.
    ///
    /// Typo-tolerant lookups run only when exact and prefix matches do not fill the
    /// page, so `total_candidates` counts typo matches only in that case. The second
    /// pass adds typo matches to the first pass's lists instead of starting over.
    pub fn search(&self, request: &SearchRequest<'_>) -> SearchHits {
        let words: Vec<WordKeys> = words(request.query)
            .iter()
            .map(|w| WordKeys::of(w))
            .collect();
        let mut phrase = Matches::default();
        if words.len() > 1 {
            self.exact_into(&normalize_term(request.query), Tier::ExactForm, &mut phrase);
            phrase.settle();
        }
        let mut per_word: Vec<Matches> = words.iter().map(|word| self.match_word(word)).collect();
        let mut candidates = self.candidates(&phrase, &per_word, request);
        if candidates.len() < request.limit {
            for (word, matches) in words.iter().zip(&mut per_word) {
                self.typos_into(word, matches);
            }
            candidates = self.candidates(&phrase, &per_word, request);
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

    /// Every entry that matches the whole query and passes the filters, with its sort
    /// key: the whole text as one term, or every word matching at the tier of its
    /// weakest word.
    fn candidates(
        &self,
        phrase: &Matches,
        per_word: &[Matches],
        request: &SearchRequest<'_>,
    ) -> Vec<(RankKey, usize)> {
        let combined;
        let matches = match per_word {
            [] => return Vec::new(),
            [only] => only,
            [first, rest @ ..] => {
                let all = rest
                    .iter()
                    .fold(first.clone(), |all, next| all.intersect(next));
                combined = all.union(phrase);
                &combined
            }
        };
        matches
            .0
            .iter()
            .map(|&(doc, tier)| (doc as usize, tier))
            .filter(|(doc, _)| self.passes(*doc, request))
            .map(|(doc, tier)| (self.rank_key(doc, tier), doc))
            .collect()
    }

    /// Exact and prefix matches of one word, settled.
    fn match_word(&self, word: &WordKeys) -> Matches {
        let keys = &word.keys;
        let mut matches = Matches::default();
        self.exact_into(&keys.text, Tier::ExactForm, &mut matches);
        if let Some(kana) = &keys.kana {
            // Romaji typed for a reading: an exact hit is a reading match at best.
            self.exact_into(kana, Tier::ExactReading, &mut matches);
        }
        if !word.latin || keys.text.chars().count() >= LATIN_PREFIX_CHARS_MIN {
            self.prefix_into(&keys.text, &mut matches);
        }
        if let Some(kana) = &keys.kana {
            self.prefix_into(kana, &mut matches);
        }
        matches.settle();
        matches
    }

    /// Adds the typo matches of one word to its settled matches.
    fn typos_into(&self, word: &WordKeys, matches: &mut Matches) {
        let keys = &word.keys;
        self.typo_into(&keys.text, typo_distance(&keys.text, word.latin), matches);
        if let Some(kana) = &keys.kana {
            self.typo_into(kana, typo_distance(kana, false), matches);
        }
        matches.settle();
    }

    fn record(&self, term: u64, tier_of: impl Fn(Field) -> Tier, matches: &mut Matches) {
        let Some(list) = usize::try_from(term).ok().and_then(|n| self.postings_of(n)) else {
            return;
        };
        for posting in list {
            matches.push(posting.doc, tier_of(posting.field));
        }
    }

    fn postings_of(&self, term: usize) -> Option<&[Posting]> {
        let start = *self.starts.get(term)? as usize;
        let end = *self.starts.get(term + 1)? as usize;
        self.postings.get(start..end)
    }

    /// Exact hits, at the field's own tier but never better than `floor`.
    fn exact_into(&self, key: &str, floor: Tier, matches: &mut Matches) {
        if let Some(term) = self.terms.get(key) {
            self.record(term, |field| field.exact_tier().max(floor), matches);
        }
    }

    fn prefix_into(&self, key: &str, matches: &mut Matches) {
        if key.is_empty() {
            return;
        }
        let automaton = Str::new(key).starts_with();
        let mut stream = self.terms.search(automaton).into_stream();
        while let Some((_, term)) = stream.next() {
            self.record(term, |_| Tier::Prefix, matches);
        }
    }

    fn typo_into(&self, key: &str, distance: u8, matches: &mut Matches) {
        if distance == 0 {
            return;
        }
        self.transpositions_into(key, matches);
        self.typos.within(key, distance, |term| {
            self.record(u64::from(term), |_| Tier::Typo, matches);
        });
    }

    /// Two swapped neighbours (`shcool`) are two edits for Levenshtein but one slip of
    /// the fingers, so every single swap of the key is looked up as a typo match too.
    fn transpositions_into(&self, key: &str, matches: &mut Matches) {
        let chars: Vec<char> = key.chars().collect();
        let mut variant = String::with_capacity(key.len());
        for at in 1..chars.len() {
            if chars[at - 1] == chars[at] {
                continue;
            }
            variant.clear();
            variant.extend(&chars[..at - 1]);
            variant.push(chars[at]);
            variant.push(chars[at - 1]);
            variant.extend(&chars[at + 1..]);
            if let Some(term) = self.terms.get(&variant) {
                self.record(term, |_| Tier::Typo, matches);
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

/// The terms of a run of entries as `(term, entry, field)`, sorted by term then entry;
/// `first` is the position of the run's first entry.
fn sorted_terms(entries: &[IndexEntry<'_>], first: usize) -> Vec<(String, u32, Field)> {
    let mut triples = Vec::with_capacity(entries.len() * 12);
    for (offset, entry) in entries.iter().enumerate() {
        // `build` checked that every position fits in a u32.
        let doc = (first + offset) as u32;
        let terms = terms_of(entry.surface, entry.summary.meaning.as_deref());
        triples.extend(terms.into_iter().map(|(term, field)| (term, doc, field)));
    }
    // Unstable is enough: of one term's fields in one entry only the best tier is kept.
    triples.sort_unstable_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    triples
}

/// The parts of [`EmbeddedIndex`] that `dictionary_of` builds.
struct Dictionary {
    terms: Map<Vec<u8>>,
    starts: Vec<u32>,
    postings: Vec<Posting>,
    typos: TypoTable,
}

/// The term dictionary from sorted triples. A term repeated in one entry keeps its best
/// field only (ties keep the first, as the field matters only through its tier). The
/// `fst` map and the typo table need only the distinct terms, so they are built on two
/// threads at once.
fn dictionary_of(triples: Vec<(String, u32, Field)>) -> Result<Dictionary, IndexError> {
    let mut distinct: Vec<String> = Vec::new();
    let mut starts = Vec::new();
    let mut postings: Vec<Posting> = Vec::with_capacity(triples.len());
    for (term, doc, field) in triples {
        if distinct.last() != Some(&term) {
            distinct.push(term);
            starts.push(u32::try_from(postings.len()).map_err(|_| IndexError::TooManyEntries)?);
        } else if let Some(last) = postings.last_mut().filter(|last| last.doc == doc) {
            if field.exact_tier() < last.field.exact_tier() {
                last.field = field;
            }
            continue;
        }
        postings.push(Posting { doc, field });
    }
    starts.push(u32::try_from(postings.len()).map_err(|_| IndexError::TooManyEntries)?);
    let numbered = || distinct.iter().map(String::as_str).zip(0u32..);
    let (terms, typos) = std::thread::scope(|scope| {
        let typos = scope.spawn(|| TypoTable::build(numbered()));
        // Term numbers are positions in `distinct`, which is sorted and free of repeats.
        let terms = Map::from_iter(numbered().map(|(term, number)| (term, u64::from(number))));
        let typos = typos
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (terms, typos)
    });
    Ok(Dictionary {
        terms: terms?,
        starts,
        postings,
        typos,
    })
}

/// The sort key of one candidate; derives `Ord` field by field, in contract order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RankKey {
    tier: u8,
    uncommon: bool,
    difficulty: u8,
    frequency: u32,
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
        let entries: Vec<IndexEntry<'_>> = summaries
            .iter()
            .zip(surfaces)
            .map(|(summary, surface)| IndexEntry {
                summary,
                surface,
                sample: true,
            })
            .collect();
        EmbeddedIndex::build(&entries).unwrap()
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
    fn edit_distance_agrees_with_the_levenshtein_dfa() {
        let mut words = vec![
            "taberu",
            "tabero",
            "taberru",
            "tabru",
            "ttaberu",
            "たべる",
            "たべもの",
            "たべ",
            "しょく",
            "食べる",
            "食べ物",
            "school",
            "schol",
            "shcool",
            "eat",
            "food",
            "foood",
        ];
        words.sort_unstable();
        words.dedup();
        let set = fst::Set::from_iter(words.iter()).unwrap();
        let table = TypoTable::build(words.iter().copied().zip(0..));
        let within = |key: &str, distance: u8| {
            let mut found = Vec::new();
            table.within(key, distance, |number| found.push(words[number as usize]));
            found
        };
        for (key, distance) in [("taberu", 1), ("taberu", 2), ("food", 1), ("school", 2)] {
            let ours = within(key, distance);
            let dfa = fst::automaton::Levenshtein::new(key, u32::from(distance)).unwrap();
            let theirs: Vec<_> = set.search(dfa).into_stream().into_strs().unwrap();
            assert_eq!(ours, theirs, "{key} within {distance}");
        }
        // The DFA misses multi-byte neighbours (here even the key itself); the table
        // counts edits per character.
        let kana = within("たべる", 1);
        assert_eq!(kana, ["たべ", "たべる", "食べる"]);
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
