//! The embedded search engine: an in-memory term dictionary (an `fst` map from every
//! normalised search term to its postings) with exact, prefix and typo lookups.
//!
//! The ranking contract is tiered (exact written form > exact reading or romaji > exact
//! English meaning word > prefix or typo), then ties are broken by the common-word flag,
//! the JLPT level (easier first) and the frequency rank. A tier is a property of *which
//! field* matched *how*, so the index keeps the field on every posting and ranks by a
//! sort key instead of a relevance score; see docs/search.md for why this is not BM25.

use fst::automaton::Str;
use std::sync::Arc;

use fst::{Automaton, IntoStreamer, Map, Set, Streamer};
use manabi_schemas::{Domain, LearnableSummary, LearnableType};

use crate::Surface;
use crate::kana;
use crate::loose::loose_key;
use crate::query::{
    NAME_MARK, QueryKeys, SURFACE_MARK, dictionary_forms, is_slot_mark, name_key, normalize_term,
    surface_key, without_slot_marks, words,
};
use crate::typo::{TypoTable, typo_distance};

/// How well one entry matched a query; lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// A written form equals the query in the query's own script: `ア` finds the
    /// katakana ア here and the hiragana あ one tier down.
    ExactSurface = 0,
    /// A written form (or another name of the entry) equals the query once katakana is
    /// folded to hiragana.
    ExactForm = 1,
    /// A reading, a romaji spelling or a romanised name equals the query.
    ExactReading = 2,
    /// The query's loose romaji key equals a reading's: `kōhī`, `koohii`, `kohi` →
    /// コーヒー; `ito hirobumi` → Itō Hirobumi.
    LooseReading = 3,
    /// A phrase of the entry's main meaning equals the whole query, with or without a
    /// leading "to ": `eat` → 食べる "to eat". The first phrase ranks before a later
    /// one among entries of the same standing (`day` → 日 "day; days").
    ExactMeaningPhrase = 4,
    /// One word of an entity's own name equals the query: `toyotomi` → Toyotomi
    /// Hideyoshi, before the events whose descriptions name him.
    NameWord = 5,
    /// A word of the main meaning equals the query: `coffee` → 喫茶店 "coffee shop".
    ExactMeaning = 6,
    /// A word of any other gloss (or of a history entity's description) equals the query.
    ExactGlossWord = 7,
    /// A term starts with the query.
    Prefix = 8,
    /// A term is one typo from the query.
    Typo = 9,
    /// A term is two typos from the query.
    TwoTypos = 10,
}

impl Tier {
    /// The smallest field detail of an exact match at this tier; 0 for the tiers that
    /// rank every field (prefix and typos).
    fn first_detail(self) -> u8 {
        match self {
            Tier::ExactSurface | Tier::Prefix | Tier::Typo | Tier::TwoTypos => 0,
            Tier::ExactForm => Field::Form.detail(),
            Tier::ExactReading => Field::Reading.detail(),
            Tier::LooseReading => Field::Romanised.detail(),
            Tier::ExactMeaningPhrase => Field::FirstMeaning.detail(),
            Tier::NameWord => Field::NameWord.detail(),
            Tier::ExactMeaning => Field::PrimaryWord.detail(),
            Tier::ExactGlossWord => Field::Meaning.detail(),
        }
    }
}

/// Which part of the surface a term came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A written form without katakana (kanji, hiragana, English names): its own
    /// surface key.
    Form,
    /// A written form holding katakana, under its hiragana-folded key.
    FoldedForm,
    /// A written form holding katakana, under its surface key ([`surface_key`]).
    Surface,
    Reading,
    /// A romaji spelling of a reading.
    Romaji,
    /// A name in romanised Latin letters (`Oda Nobunaga`, `Tōkyō`, the era `Tenki`), or
    /// the order-free key of one ([`name_key`]): a reading written by someone, ranked
    /// with loose readings, so the word 天気 read `tenki` comes before the era.
    Romanised,
    /// A loose romaji key ([`loose_key`]).
    Loose,
    /// The first phrase of the main meaning.
    FirstMeaning,
    /// Another main-meaning phrase (`eat`, `to eat`).
    MeaningPhrase,
    /// A word of the main meaning.
    PrimaryWord,
    /// A word of any gloss.
    Meaning,
    /// One word of a multi-word name (`nobunaga` of `oda nobunaga`).
    NameWord,
}

impl Field {
    /// The tier of an exact hit on this field, for a query word with or without
    /// katakana: a form without katakana is an exact surface match only for a query
    /// without katakana.
    fn exact_tier(self, katakana_query: bool) -> Tier {
        match self {
            Field::Surface => Tier::ExactSurface,
            Field::Form if !katakana_query => Tier::ExactSurface,
            Field::Form | Field::FoldedForm => Tier::ExactForm,
            Field::Reading | Field::Romaji => Tier::ExactReading,
            Field::Romanised | Field::Loose => Tier::LooseReading,
            Field::FirstMeaning | Field::MeaningPhrase => Tier::ExactMeaningPhrase,
            Field::NameWord => Tier::NameWord,
            Field::PrimaryWord => Tier::ExactMeaning,
            Field::Meaning => Tier::ExactGlossWord,
        }
    }

    /// The order of fields inside one tier, finer than the tier.
    fn detail(self) -> u8 {
        match self {
            Field::Surface => 0,
            Field::Form => 1,
            Field::FoldedForm => 2,
            Field::Reading => 3,
            Field::Romaji => 4,
            Field::Romanised => 5,
            Field::Loose => 6,
            Field::FirstMeaning => 7,
            Field::MeaningPhrase => 8,
            Field::NameWord => 9,
            Field::PrimaryWord => 10,
            Field::Meaning => 11,
        }
    }

    /// An English meaning (as opposed to a written form, reading or name).
    fn is_english(self) -> bool {
        matches!(
            self,
            Field::FirstMeaning | Field::MeaningPhrase | Field::PrimaryWord | Field::Meaning
        )
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
    /// A Japanese-history entity: below a common word in the same tier.
    history: bool,
    /// Part of the curated history canon (tag `canon`): before other history entities.
    canon: bool,
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

/// A history summary of at most this many words (notes aside) is a meaning, not a
/// description.
const HISTORY_MEANING_WORDS_MAX: usize = 8;
/// The tag of the curated history canon's entities.
const CANON_TAG: &str = "canon";
/// Latin prefixes shorter than this match too much to be useful (`a` → every word,
/// `ha` → every English word starting with it, where は was meant).
const LATIN_PREFIX_CHARS_MIN: usize = 3;
/// Kana prefixes shorter than this likewise (`お` → every reading starting with it); a
/// kanji is a prefix worth following from one character (`日` → 日本, 日曜日).
const KANA_PREFIX_CHARS_MIN: usize = 2;
/// Entries handed to one index-building thread at least; below this a second thread
/// costs more than it saves.
const BUILD_CHUNK_MIN: usize = 4_096;

/// Matches of one word (or of the whole query) as `(entry, tier)` pairs. Sparse on
/// purpose: a query touches a few hundred of the ~20k entries, so a dense per-entry
/// table would cost more to clear and scan than the lookups themselves.
#[derive(Debug, Default, Clone)]
struct Matches(Vec<(u32, Grade)>);

/// How one entry matched: its tier, then the field that matched (summed over the words
/// of a query), which orders the entries of one tier (a typo of a main meaning before a
/// typo of a gloss word; a name whose every word is in its own name before a
/// description that mentions them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Grade {
    tier: u8,
    detail: u8,
}

impl Matches {
    /// A match of `field` at `tier`; a field raised to a weaker tier (a romaji term
    /// hit by a loose key) ranks with that tier's own fields, not ahead of them.
    fn push(&mut self, doc: u32, tier: Tier, field: Field) {
        self.0.push((
            doc,
            Grade {
                tier: tier as u8,
                detail: field.detail().max(tier.first_detail()),
            },
        ));
    }

    /// Sorts by entry and keeps the best grade of each; every merge below expects this.
    fn settle(&mut self) {
        self.0.sort_unstable();
        self.0.dedup_by_key(|(doc, _)| *doc);
    }

    /// Entries in both, at the weaker of their two tiers (every word must match), with
    /// the details added up.
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
                    let grade = Grade {
                        tier: ta.tier.max(tb.tier),
                        detail: ta.detail.saturating_add(tb.detail),
                    };
                    out.push((da, grade));
                    a.next();
                    b.next();
                }
            }
        }
        Matches(out)
    }

    /// Every entry at `floor` at best, its detail that tier's first.
    fn raise_to(&mut self, floor: Tier) {
        for (_, grade) in &mut self.0 {
            if grade.tier < floor as u8 {
                grade.tier = floor as u8;
                grade.detail = grade.detail.max(floor.first_detail());
            }
        }
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
    katakana: bool,
}

impl WordKeys {
    fn of(word: &str) -> WordKeys {
        let keys = QueryKeys::of(word);
        let latin = keys.is_latin();
        let katakana = keys.surface.is_some();
        WordKeys {
            keys,
            latin,
            katakana,
        }
    }
}

/// What a query is, worked out once: its words, and the keys of the whole text for a
/// query of several words.
struct Parsed {
    words: Vec<WordKeys>,
    /// The whole query as one term (`oda nobunaga`, `ni taishite`), and its variants.
    whole: Option<WordKeys>,
    /// The words written together (`te kara` → `tekara`, read as `てから`).
    joined: Option<WordKeys>,
    /// The order-free name key (`nobunaga oda`).
    name: Option<String>,
    /// The text as typed, punctuation kept (`のに (purpose, use)`), when it differs
    /// from `whole`.
    typed: Option<WordKeys>,
    /// The best tier of a match by the words alone, when English function words were
    /// left out of them.
    floor: Option<Tier>,
}

impl Parsed {
    fn of(query: &str) -> Parsed {
        let text = without_slot_marks(query);
        let split = words(&text);
        let several = split.len() > 1;
        let spaced = split.join(" ");
        let content: Vec<String> = split
            .iter()
            .filter(|word| !is_function_word(word))
            .cloned()
            .collect();
        Parsed {
            typed: (several && text != spaced).then(|| WordKeys::of(&text)),
            // Joined by one space: punctuation and runs of spaces between words go.
            whole: several.then(|| WordKeys::of(&spaced)),
            joined: several.then(|| WordKeys::of(&split.concat())),
            name: name_key(&split),
            // English function words constrain nothing a phrase match has not already
            // matched (`to eat` is the phrase "to eat"; "to" is in every verb's glosses),
            // so a query of several words is intersected without them.
            // The words left stand for an English phrase: they match as gloss words at
            // best (`to go`: `go` is not the reading ご here).
            floor: (!content.is_empty() && content.len() < split.len())
                .then_some(Tier::ExactGlossWord),
            words: if content.is_empty() { &split } else { &content }
                .iter()
                .map(|word| WordKeys::of(word))
                .collect(),
        }
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
    /// Every term that is an English word or phrase of some meaning, in the whole
    /// dataset (shared with the sample's index).
    english: Arc<Set<Vec<u8>>>,
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
            english: own_english,
        } = dictionary_of(triples)?;
        Ok(EmbeddedIndex {
            docs: entries.iter().map(|entry| doc_of(*entry)).collect(),
            terms,
            starts,
            postings,
            typos,
            english: Arc::new(own_english),
        })
    }

    /// This index (of a part of the entries: the evaluation sample) telling English
    /// words apart by the whole dataset's lexicon, so it ranks its entries exactly as
    /// the index of every entry does.
    pub fn sharing_english_of(mut self, whole: &EmbeddedIndex) -> EmbeddedIndex {
        self.english = Arc::clone(&whole.english);
        self
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
    /// Typo-tolerant lookups run only when the exact and prefix lookups find nothing:
    /// an honest empty answer beats a page of near-misses, and a typo match never
    /// outranks a plausible exact one. `total_candidates` counts typo matches only then.
    pub fn search(&self, request: &SearchRequest<'_>) -> SearchHits {
        let parsed = Parsed::of(request.query);
        let mut phrase = Matches::default();
        if let Some(typed) = &parsed.typed {
            self.exact_word_into(typed, &mut phrase);
        }
        if let Some(whole) = &parsed.whole {
            self.exact_word_into(whole, &mut phrase);
            if let Some(joined) = &parsed.joined {
                self.joined_into(joined, whole, &mut phrase);
            }
        }
        if let Some(name) = &parsed.name {
            self.exact_into(name, Tier::ExactSurface, false, &mut phrase);
        }
        phrase.settle();
        // Only the last word is still being typed: the words before it are whole words,
        // so they match exactly (`to eat`: `to` is not every word starting with it).
        let last = parsed.words.len().saturating_sub(1);
        let mut per_word: Vec<Matches> = parsed
            .words
            .iter()
            .enumerate()
            .map(|(at, word)| self.match_word(word, at == last))
            .collect();
        let mut candidates = self.candidates(&phrase, &per_word, parsed.floor, request);
        if candidates.is_empty() {
            for (word, matches) in parsed.words.iter().zip(&mut per_word) {
                self.typos_into(word, matches);
            }
            candidates = self.candidates(&phrase, &per_word, parsed.floor, request);
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
        floor: Option<Tier>,
        request: &SearchRequest<'_>,
    ) -> Vec<(RankKey, usize)> {
        let Some((first, rest)) = per_word.split_first() else {
            return Vec::new();
        };
        let combined;
        let matches = if rest.is_empty() && phrase.0.is_empty() && floor.is_none() {
            first
        } else {
            let mut all = rest
                .iter()
                .fold(first.clone(), |all, next| all.intersect(next));
            if let Some(floor) = floor {
                all.raise_to(floor);
            }
            combined = all.union(phrase);
            &combined
        };
        matches
            .0
            .iter()
            .map(|&(doc, grade)| (doc as usize, grade))
            .filter(|(doc, _)| self.passes(*doc, request))
            .map(|(doc, grade)| (self.rank_key(doc, grade), doc))
            .collect()
    }

    /// The exact hits of one word (or of the whole query): its own script, its folded
    /// text, its reading if it is romaji, and its loose romaji key.
    fn exact_word_into(&self, word: &WordKeys, matches: &mut Matches) {
        let keys = &word.keys;
        if let Some(surface) = &keys.surface {
            self.exact_into(surface, Tier::ExactSurface, false, matches);
        }
        self.exact_into(&keys.text, Tier::ExactSurface, word.katakana, matches);
        for kana in keys.kana.iter().chain(&keys.kana_alt) {
            // Romaji typed for a reading: an exact hit is a reading match at best.
            self.exact_into(kana, Tier::ExactReading, false, matches);
        }
        let loose_floor = self.guess_floor(&keys.text, Tier::LooseReading);
        self.loose_into(word, loose_floor, matches);
    }

    /// The words of a query written together (`te kara` → `tekara` → てから): a guess,
    /// so it ranks as a reading only when the whole query is no English phrase (`to go`
    /// is not 都護 `togo`).
    fn joined_into(&self, joined: &WordKeys, whole: &WordKeys, matches: &mut Matches) {
        let keys = &joined.keys;
        let floor = self.guess_floor(&whole.keys.text, Tier::ExactSurface);
        self.exact_into(&keys.text, floor, joined.katakana, matches);
        if let Some(kana) = &keys.kana {
            self.exact_into(kana, floor.max(Tier::ExactReading), false, matches);
        }
        self.loose_into(joined, floor.max(Tier::LooseReading), matches);
    }

    /// True when the key is an English word or phrase of some entry's meaning.
    fn is_english(&self, key: &str) -> bool {
        self.english.contains(key)
    }

    /// The hits of an English key on English meanings only, at their own tiers.
    fn english_into(&self, key: &str, matches: &mut Matches) {
        let Some(list) = self.terms.get(key).and_then(|term| {
            usize::try_from(term)
                .ok()
                .and_then(|term| self.postings_of(term))
        }) else {
            return;
        };
        for posting in list.iter().filter(|posting| posting.field.is_english()) {
            matches.push(posting.doc, posting.field.exact_tier(false), posting.field);
        }
    }

    fn loose_into(&self, word: &WordKeys, floor: Tier, matches: &mut Matches) {
        if let Some(loose) = &word.keys.loose {
            self.exact_into(loose, floor, false, matches);
        }
    }

    /// The best tier a guessed reading of `text` may take: `floor`, unless the text is
    /// also an English word or phrase of some entry's meaning, which is then the likelier
    /// sense (`moon` is no loose spelling of もん 門), and the guess ranks with gloss
    /// words.
    fn guess_floor(&self, text: &str, floor: Tier) -> Tier {
        if self.is_english(text) {
            floor.max(Tier::ExactGlossWord)
        } else {
            floor
        }
    }

    /// Exact matches of one word, and prefix matches when `prefixes`, settled.
    fn match_word(&self, word: &WordKeys, prefixes: bool) -> Matches {
        let keys = &word.keys;
        let mut matches = Matches::default();
        self.exact_word_into(word, &mut matches);
        for base in dictionary_forms(&keys.text) {
            self.exact_into(&base, Tier::LooseReading, word.katakana, &mut matches);
        }
        if let Some(singular) = english_singular(&keys.text).filter(|_| word.latin) {
            self.english_into(singular, &mut matches);
        }
        if prefixes {
            if prefix_long_enough(&keys.text) {
                self.prefix_into(&keys.text, &mut matches);
            }
            if let Some(kana) = keys.kana.as_ref().filter(|kana| prefix_long_enough(kana)) {
                self.prefix_into(kana, &mut matches);
            }
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

    /// Records the postings of a term at the tier `tier_of` gives each field (none: the
    /// posting is skipped).
    fn record(&self, term: u64, tier_of: impl Fn(Field) -> Option<Tier>, matches: &mut Matches) {
        let Some(list) = usize::try_from(term).ok().and_then(|n| self.postings_of(n)) else {
            return;
        };
        for posting in list {
            if let Some(tier) = tier_of(posting.field) {
                matches.push(posting.doc, tier, posting.field);
            }
        }
    }

    fn postings_of(&self, term: usize) -> Option<&[Posting]> {
        let start = *self.starts.get(term)? as usize;
        let end = *self.starts.get(term + 1)? as usize;
        self.postings.get(start..end)
    }

    /// Exact hits, at the field's own tier for a query word with or without katakana,
    /// but never better than `floor`.
    fn exact_into(&self, key: &str, floor: Tier, katakana: bool, matches: &mut Matches) {
        if let Some(term) = self.terms.get(key) {
            self.record(
                term,
                |field| Some(field.exact_tier(katakana).max(floor)),
                matches,
            );
        }
    }

    /// Terms starting with the key. When the key is itself an English word of some
    /// meaning, English meanings that merely start with it are left out: `cat` is not
    /// `catch`.
    fn prefix_into(&self, key: &str, matches: &mut Matches) {
        if key.is_empty() {
            return;
        }
        let english_word = self.is_english(key);
        let automaton = Str::new(key).starts_with();
        let mut stream = self.terms.search(automaton).into_stream();
        while let Some((_, term)) = stream.next() {
            self.record(
                term,
                |field| (!english_word || !field.is_english()).then_some(Tier::Prefix),
                matches,
            );
        }
    }

    fn typo_into(&self, key: &str, distance: u8, matches: &mut Matches) {
        if distance == 0 {
            return;
        }
        self.transpositions_into(key, matches);
        self.typos.within(key, distance, |term, edits| {
            let tier = if edits > 1 {
                Tier::TwoTypos
            } else {
                Tier::Typo
            };
            // A loose key is no typo target (see `dictionary_of`): a term that another
            // entry holds in a typed field must not bring its loose postings along.
            let typed = |field: Field| (field != Field::Loose).then_some(tier);
            self.record(u64::from(term), typed, matches);
        });
    }

    /// Two swapped neighbours (`shcool`) are two edits for Levenshtein but one slip of
    /// the fingers, so every single swap of the key after its first letter is looked up
    /// as a typo match too (a changed first letter is too far, as in [`TypoTable`]).
    fn transpositions_into(&self, key: &str, matches: &mut Matches) {
        let chars: Vec<char> = key.chars().collect();
        let mut variant = String::with_capacity(key.len());
        for at in 2..chars.len() {
            if chars[at - 1] == chars[at] {
                continue;
            }
            variant.clear();
            variant.extend(&chars[..at - 1]);
            variant.push(chars[at]);
            variant.push(chars[at - 1]);
            variant.extend(&chars[at + 1..]);
            if let Some(term) = self.terms.get(&variant) {
                let typed = |field: Field| (field != Field::Loose).then_some(Tier::Typo);
                self.record(term, typed, matches);
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

    fn rank_key(&self, doc: usize, grade: Grade) -> RankKey {
        let entry = &self.docs[doc];
        // A graded word or pattern counts as common (the JLPT lists are of common
        // language), and so does a graded kanji found by its own character (`日`).
        let graded = entry.jlpt_level.is_some()
            && (entry.kind != LearnableType::Kanji || grade.tier == Tier::ExactSurface as u8);
        let standing = match (entry.history, entry.canon, entry.is_common || graded) {
            (false, _, true) => Standing::CommonWord,
            (true, true, _) => Standing::Canon,
            (true, false, _) => Standing::History,
            (false, _, false) => Standing::Other,
        };
        // One kanji typed: the kanji's own entry before the words written with it alone.
        let own_kanji =
            entry.kind == LearnableType::Kanji && grade.tier == Tier::ExactSurface as u8;
        RankKey {
            tier: grade.tier,
            standing,
            detail: if own_kanji { 0 } else { grade.detail },
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
        let grammar = entry.summary.kind == LearnableType::Grammar;
        // A history entity's summary is a description: a sentence's words count as gloss
        // words (they are in the surface's meanings), never as a main meaning; a short
        // one (`Kamakura shogunate (1185-1333 CE)`) is what the entity means.
        let main_meaning = entry.summary.meaning.as_deref().filter(|meaning| {
            entry.summary.domain != Domain::History
                || without_notes(meaning).split_whitespace().count() <= HISTORY_MEANING_WORDS_MAX
        });
        let mut terms = terms_of(entry.surface, main_meaning, grammar);
        // One entry repeats many terms (a reading as a form, its romaji from two
        // sources): only the best field of each is kept, here, before the run is sorted.
        terms.sort_unstable_by(|a, b| (&a.0, a.1.detail()).cmp(&(&b.0, b.1.detail())));
        terms.dedup_by(|later, first| later.0 == first.0);
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
    english: Set<Vec<u8>>,
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
            if field.detail() < last.field.detail() {
                last.field = field;
            }
            continue;
        }
        postings.push(Posting { doc, field });
    }
    starts.push(u32::try_from(postings.len()).map_err(|_| IndexError::TooManyEntries)?);
    let english = Set::from_iter(distinct.iter().enumerate().filter_map(|(at, term)| {
        let list = &postings[starts[at] as usize..starts[at + 1] as usize];
        list.iter()
            .any(|posting| posting.field.is_english())
            .then_some(term.as_str())
    }))?;
    let numbered = || distinct.iter().map(String::as_str).zip(0u32..);
    // Marked keys are never typed, and a loose key is already a forgiving spelling: no
    // typo needs to reach them (the table is the index's largest part).
    let only_loose = |number: u32| {
        let list =
            &postings[starts[number as usize] as usize..starts[number as usize + 1] as usize];
        list.iter().all(|posting| posting.field == Field::Loose)
    };
    let typed = || {
        numbered().filter(|&(term, number)| {
            !term.starts_with([SURFACE_MARK, NAME_MARK]) && !only_loose(number)
        })
    };
    let (terms, typos) = std::thread::scope(|scope| {
        let typos = scope.spawn(|| TypoTable::build(typed()));
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
        english,
    })
}

/// The sort key of one candidate; derives `Ord` field by field, in contract order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RankKey {
    tier: u8,
    standing: Standing,
    detail: u8,
    difficulty: u8,
    frequency: u32,
}

/// The first tie-breaker inside a tier: a common word, then a history entity of the
/// canon, then other history entities, then the rest. A history homograph of a common
/// word ranks after the word (`tenki`: 天気 before the era 天喜), but a history name
/// before a rare word (`meiji`: the era 明治 before 明示), and Toyotomi Hideyoshi before
/// Obata Hideyoshi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    CommonWord,
    Canon,
    History,
    Other,
}

fn doc_of(entry: IndexEntry<'_>) -> Doc {
    Doc {
        kind: entry.summary.kind,
        jlpt_level: entry.summary.jlpt_level,
        is_common: entry.summary.is_common_word.unwrap_or(false),
        frequency: entry.surface.frequency,
        sample: entry.sample,
        history: entry.summary.domain == Domain::History,
        canon: entry.summary.tags.iter().any(|tag| tag == CANON_TAG),
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
fn terms_of(surface: &Surface, main_meaning: Option<&str>, grammar: bool) -> Vec<(String, Field)> {
    let mut terms = Terms::default();
    for form in surface.forms.iter().chain(&surface.aliases) {
        terms.written(form, grammar);
    }
    for reading in &surface.readings {
        terms.reading(reading, false);
    }
    for romaji in &surface.romaji {
        terms.push(romaji, Field::Romaji);
    }
    let phrases = main_meaning
        .into_iter()
        .flat_map(|meaning| meaning.split([';', ',']))
        .map(|phrase| {
            let phrase = without_notes(phrase).to_lowercase();
            phrase
                .trim_matches(|c: char| c.is_ascii_punctuation() && c != '\'')
                .trim()
                .to_owned()
        })
        .filter(|phrase| !phrase.is_empty());
    for (at, phrase) in phrases.enumerate() {
        let bare = phrase.strip_prefix("to ").unwrap_or(&phrase).to_owned();
        for word in words(&bare) {
            terms.push(
                word.trim_matches(|c: char| !c.is_alphanumeric()),
                Field::PrimaryWord,
            );
        }
        let field = if at == 0 {
            Field::FirstMeaning
        } else {
            Field::MeaningPhrase
        };
        terms.push(&phrase, field);
        terms.push(&bare, field);
    }
    for meaning in &surface.meanings {
        terms.push(meaning, Field::Meaning);
    }
    terms.0
}

/// The terms of one entry as they are collected.
#[derive(Default)]
struct Terms(Vec<(String, Field)>);

impl Terms {
    fn push(&mut self, text: &str, field: Field) {
        let term = normalize_term(text);
        if !term.is_empty() {
            self.0.push((term, field));
        }
    }

    /// A key pushed as it is (already a key).
    fn push_key(&mut self, key: String, field: Field) {
        if !key.is_empty() {
            self.0.push((key, field));
        }
    }

    /// A written form or another name: in Japanese, under its own script and folded,
    /// with its pattern variants; in Latin letters, a romanised name (read as a reading)
    /// or an English one.
    fn written(&mut self, form: &str, grammar: bool) {
        if kana::is_latin_word(form) {
            self.latin_name(form, &words(form));
            return;
        }
        for note in notes_of(form) {
            for word in words(&note) {
                let word = word.trim_matches(|c: char| !c.is_alphanumeric());
                if word.chars().count() > 1 {
                    self.push(word, Field::Meaning);
                }
            }
        }
        let mut variants = pattern_variants(form);
        if grammar {
            variants.extend(
                variants
                    .iter()
                    .filter_map(|v| plain_form(v))
                    .collect::<Vec<_>>(),
            );
        }
        for variant in variants {
            match surface_key(&variant) {
                Some(surface) => {
                    self.push_key(surface, Field::Surface);
                    self.push(&variant, Field::FoldedForm);
                }
                None => self.push(&variant, Field::Form),
            }
            if kana::is_kana(&variant) {
                self.reading(&variant, grammar);
            }
        }
    }

    /// A name in Latin letters. Romanised (every word reads as romaji): a reading-tier
    /// name with its loose key and order-free key, as `Tenki` (the era) must not outrank
    /// the word 天気 read `tenki`. English (`Battle of Sekigahara`): a form.
    fn latin_name(&mut self, name: &str, words: &[String]) {
        let romanised = words.iter().all(|word| loose_key(word).is_some());
        if romanised {
            self.push(name, Field::Romanised);
            if let Some(loose) = loose_key(&words.concat()) {
                self.push_key(loose, Field::Loose);
            }
            if let Some(key) = name_key(words) {
                self.push_key(key, Field::Romanised);
            }
        } else {
            self.push(name, Field::Form);
        }
        if words.len() > 1 {
            for word in words.iter().filter(|word| word.chars().count() > 1) {
                self.push(word, Field::NameWord);
                if let Some(loose) = loose_key(word).filter(|_| romanised) {
                    self.push_key(loose, Field::NameWord);
                }
            }
        }
    }

    /// A kana reading, its romaji and its loose key. In grammar patterns は and へ after
    /// the first kana are particles, read わ and え (`ては` is typed `tewa`).
    fn reading(&mut self, reading: &str, grammar: bool) {
        let hiragana = kana::to_hiragana(reading);
        let mut spoken = vec![hiragana.clone()];
        // A pattern of one kana (`〜は`) is the particle itself.
        let skip = usize::from(hiragana.chars().count() > 1);
        let particles = hiragana
            .chars()
            .skip(skip)
            .any(|c| matches!(c, 'は' | 'へ'));
        if particles && (grammar || hiragana.ends_with('は')) {
            let mut as_said: String = hiragana.chars().take(skip).collect();
            as_said.extend(hiragana.chars().skip(skip).map(|c| match c {
                'は' => 'わ',
                'へ' => 'え',
                other => other,
            }));
            spoken.push(as_said);
        }
        for text in spoken {
            self.push(&text, Field::Reading);
            let romaji = kana::to_romaji(&text);
            if text.contains('を') {
                // Hepburn writes を `o`; learners and IMEs type `wo`.
                self.push(&kana::to_romaji(&text.replace('を', "うぉ")), Field::Romaji);
            }
            self.push(&romaji, Field::Romaji);
            if let Some(loose) = loose_key(&text) {
                self.push_key(loose, Field::Loose);
            }
        }
    }
}

/// English words too common in glosses to narrow a search of several words.
fn is_function_word(word: &str) -> bool {
    matches!(
        word,
        "to" | "a"
            | "an"
            | "the"
            | "of"
            | "in"
            | "on"
            | "at"
            | "for"
            | "by"
            | "with"
            | "and"
            | "or"
            | "is"
            | "be"
    )
}

/// Whether a key is long enough for its prefix matches to mean something.
fn prefix_long_enough(key: &str) -> bool {
    let chars = key.chars().count();
    if kana::is_latin_word(key) {
        chars >= LATIN_PREFIX_CHARS_MIN
    } else if kana::is_kana(key) {
        chars >= KANA_PREFIX_CHARS_MIN
    } else {
        chars >= 1
    }
}

/// The singular of an English plural of four letters or more (`shoes` → `shoe`), for
/// meaning lookups only: `shoes` finds 靴 "shoe; shoes" by its first phrase.
fn english_singular(word: &str) -> Option<&str> {
    word.strip_suffix('s')
        .filter(|stem| stem.len() >= 3 && !stem.ends_with('s') && word.is_ascii())
}

/// The texts of a form's spaced notes: `〜ために (purpose)` → `purpose`.
fn notes_of(form: &str) -> Vec<String> {
    form.split(" (")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(note, _)| note.to_owned()))
        .collect()
}

/// A polite pattern's plain form (`てはいけません` → `てはいけない`, `そうです` →
/// `そうだ`): learners type either.
fn plain_form(pattern: &str) -> Option<String> {
    const POLITE_PLAIN: &[(&str, &str)] = &[
        ("ませんでした", "なかった"),
        ("ません", "ない"),
        ("でした", "だった"),
        ("です", "だ"),
        ("ました", "た"),
    ];
    POLITE_PLAIN.iter().find_map(|(polite, plain)| {
        pattern
            .strip_suffix(polite)
            .filter(|stem| !stem.is_empty())
            .map(|stem| format!("{stem}{plain}"))
    })
}

/// The ways a written form is typed: the form itself, without slot marks (`〜ので` →
/// `ので`), each of its `/` alternatives (`〜ば/〜れば`) without a slot named before a
/// `+` (`N + ばかり`), without a spaced note
/// (`〜ために (purpose)` → `ために`), and with and without an optional part in
/// parentheses (`あくまで(も)` → `あくまで`, `あくまでも`).
fn pattern_variants(form: &str) -> Vec<String> {
    let plain = kana::normalize(form.trim());
    // Most forms (every word's) have no pattern marks: one variant, itself.
    if !plain.contains(|c: char| is_slot_mark(c) || matches!(c, '/' | '(' | '+')) {
        return vec![plain];
    }
    let mut out = vec![plain, without_slot_marks(form)];
    for part in form.split(['/', '／']) {
        // `N + ばかり`: the slot named before the pattern is not typed.
        let part = part.rsplit('+').next().unwrap_or(part);
        let part = without_slot_marks(part);
        let bare = without_notes(&part);
        out.push(part.clone());
        out.push(bare);
        if part.contains('(') && !part.contains(" (") {
            out.push(part.replace(['(', ')'], ""));
        }
    }
    out.retain(|variant| !variant.is_empty());
    out.sort_unstable();
    out.dedup();
    out
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
        // English: the N5 word first, then the graded N1 word (a JLPT word is common
        // language), then the kanji, which ranks as common only when its own character
        // is typed.
        assert_eq!(search(&index, "eat")[..3], [0, 3, 2]);
        assert_eq!(search(&index, "食")[0], 2);
    }

    #[test]
    fn prefix_and_typo_matches_come_last() {
        let (summaries, surfaces) = fixture();
        let index = index_of(&summaries, &surfaces);
        assert_eq!(search(&index, "tabe"), vec![0, 1, 2]);
        assert!(search(&index, "foood").contains(&1));
        // Four letters are too few for a typo: `fodo` is no word, not `food`.
        assert!(search(&index, "fodo").is_empty());
        assert!(search(&index, "fooda").contains(&1));
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
            table.within(key, distance, |number, _| {
                found.push(words[number as usize])
            });
            found
        };
        for (key, distance) in [("taberu", 1), ("taberu", 2), ("food", 1), ("school", 2)] {
            let ours = within(key, distance);
            let dfa = fst::automaton::Levenshtein::new(key, u32::from(distance)).unwrap();
            let mut theirs: Vec<_> = set.search(dfa).into_stream().into_strs().unwrap();
            // A changed first letter costs two edits in the table.
            theirs.retain(|term| term.starts_with(&key[..1]) || distance == 2);
            assert_eq!(ours, theirs, "{key} within {distance}");
        }
        // The DFA misses multi-byte neighbours (here even the key itself); the table
        // counts edits per character, and keeps no kana term under four characters
        // but the ones a key of four can reach by one deletion.
        assert_eq!(within("たべる", 1), ["たべる"]);
        assert_eq!(within("たべもの", 1), ["たべもの"]);
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
