//! Corpus frequency: each vocabulary entry's rank in wordfreq's Japanese word list, and
//! the frequent content words that must be vocabulary entries whether or not a JLPT list
//! grades them.
//!
//! The rules (`docs/dataset.md`, "Frequency"):
//! - an entry's rank is the best rank of its written forms with kanji and, when the word
//!   is written in kana (no kanji forms, or JMdict's `uk` on its first sense), of its kana
//!   forms; a kana token alone (`はし`, `かも`) is too often another word to rank a word
//!   written in kanji;
//! - among the [`FREQUENT_TOKENS`] most frequent tokens, a *frequent content word* is a
//!   token whose likeliest analysis in NAIST-JDIC (the IPADIC family that tokenised
//!   wordfreq; the analysis with the lowest word cost) is the dictionary form of a noun,
//!   verb, adjective or adverb, or that NAIST-JDIC does not know, and that matches a
//!   JMdict entry whose first sense is a noun, verb, adjective or adverb: by written form,
//!   or for a kana token by the kana form of a word written in kana, or as the kana
//!   spelling of a word already included (いま for 今). Proper names count only when a
//!   graded list or the editors already include them (日本, 東京, 英語);
//! - every frequent content word without an entry gets one (no JLPT level, tag
//!   [`FREQUENT_TAG`]) unless the editors exclude the token with a reason
//!   (`frequent_exclusions.tsv`); those are the missing ones.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use manabi_search::kana::katakana_to_hiragana;

use super::form_index::FormIndex;
use super::text::{is_hiragana, is_kana, is_kanji, is_katakana};
use super::wordfreq::WordFrequencies;
use crate::sources::jmdict::Entry;

/// How many of the most frequent tokens the coverage rule reads.
pub const FREQUENT_TOKENS: usize = 5_000;
/// The tag of an entry whose rank is within [`FREQUENT_TOKENS`].
pub const FREQUENT_TAG: &str = "frequent-word";
/// `verify` fails when fewer frequent content words than this (percent) have an entry.
pub const COVERAGE_PERCENT_MIN: usize = 97;
/// The editors' exclusions: `token<TAB>reason`, `#` lines are comments.
pub const EXCLUSIONS: &str = include_str!("frequent_exclusions.tsv");
/// The header of the decision report (`data/vocabulary-frequent.tsv`).
pub const REPORT_HEADER: &str = "rank\ttoken\tdecision\tentry\tdetail";
/// Manifest counts: frequent content words, those with an entry, and those a graded
/// list has (the coverage the lists alone give).
pub const CONTENT_WORDS_COUNT: &str = "vocabulary_frequent_content_words";
pub const PRESENT_COUNT: &str = "vocabulary_frequent_content_words_present";
pub const LISTED_COUNT: &str = "vocabulary_frequent_content_words_listed";

/// An entry's rank and the form that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub rank: u32,
    pub form: String,
}

/// True when JMdict writes the word in kana: no kanji forms, or `uk` on the first sense.
pub fn written_in_kana(entry: &Entry) -> bool {
    entry.kanji.is_empty()
        || entry
            .english_senses()
            .next()
            .is_some_and(|sense| super::entry::marks_usually_kana(&sense.misc))
}

/// The kanji spellings of JMdict's common words (any priority tag on the entry), and the
/// katakana spellings of its common loanwords (entries without kanji), with the entries
/// that have them.
///
/// A spelling an uncommon entry shares with a common one is, in running text, the common
/// word: 重 is heavy (じゅう, おも) far more often than the suffix 重 え, 的 the suffix
/// てき and not まと "target", 認める "to recognise" and not したためる "to write". Such a
/// spelling gives the uncommon entry neither a corpus rank nor example sentences. So is a
/// katakana spelling: シーン is "scene", not the sound word しーん that JMdict also writes
/// シーン.
#[derive(Debug, Default)]
pub struct CommonSpellings {
    spellings: HashMap<String, Vec<u32>>,
    /// The kanji spellings JMdict ranks (a priority tag on the spelling itself).
    ranked: HashMap<String, Vec<u32>>,
}

impl CommonSpellings {
    pub fn of(entries: &[Entry]) -> Self {
        let mut spellings: HashMap<String, Vec<u32>> = HashMap::new();
        let mut ranked: HashMap<String, Vec<u32>> = HashMap::new();
        for entry in entries.iter().filter(|entry| entry.is_common()) {
            for kanji in &entry.kanji {
                spellings
                    .entry(kanji.text.clone())
                    .or_default()
                    .push(entry.seq);
                if !kanji.priority.is_empty() {
                    ranked
                        .entry(kanji.text.clone())
                        .or_default()
                        .push(entry.seq);
                }
            }
            let loanwords = entry.readings.iter().filter(|_| entry.kanji.is_empty());
            for reading in loanwords.filter(|r| r.text.chars().all(is_katakana)) {
                spellings
                    .entry(reading.text.clone())
                    .or_default()
                    .push(entry.seq);
            }
        }
        Self { spellings, ranked }
    }

    /// True when another entry than `seq` ranks the kanji spelling `form`: 尤も, which
    /// JMdict also lists unranked under 最も "most", is the spelling of 尤も "reasonable".
    pub fn ranked_elsewhere(&self, seq: u32, form: &str) -> bool {
        self.ranked
            .get(form)
            .is_some_and(|seqs| seqs.iter().any(|&other| other != seq))
    }

    /// True when `entry` is uncommon and another, common entry is written `form` too.
    pub fn taken_from(&self, entry: &Entry, form: &str) -> bool {
        !entry.is_common()
            && self
                .spellings
                .get(form)
                .is_some_and(|seqs| seqs.iter().any(|&seq| seq != entry.seq))
    }
}

/// The entry's best-ranked form (ties: the first form in JMdict order); a spelling a
/// common entry shares with it does not rank an uncommon entry ([`CommonSpellings`]).
pub fn entry_rank(
    entry: &Entry,
    list: &WordFrequencies,
    common: &CommonSpellings,
) -> Option<Ranked> {
    let kanji = entry
        .kanji
        .iter()
        .map(|k| &k.text)
        .filter(|form| !common.taken_from(entry, form));
    let kana = entry
        .readings
        .iter()
        .map(|r| &r.text)
        .filter(|form| written_in_kana(entry) && !common.taken_from(entry, form));
    kanji
        .chain(kana)
        .filter_map(|form| {
            list.rank(form).map(|rank| Ranked {
                rank,
                form: form.clone(),
            })
        })
        .min_by_key(|ranked| ranked.rank)
}

/// What NAIST-JDIC's likeliest analysis says a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DictionaryClass {
    /// The dictionary form of a noun, verb, adjective or adverb.
    Content,
    /// A proper noun (名詞,固有名詞).
    ProperName,
    /// Anything else: particles, auxiliaries, conjugated forms, suffixes, pronouns,
    /// numbers, bound nouns, interjections.
    Other,
    /// Not in the dictionary (MeCab read it as an unknown word).
    Unknown,
}

/// NAIST-JDIC (IPADIC) feature columns.
const POS: usize = 0;
const POS1: usize = 1;
const BASE: usize = 6;
/// Noun subclasses that are content words.
const CONTENT_NOUNS: [&str; 5] = [
    "一般",
    "サ変接続",
    "形容動詞語幹",
    "副詞可能",
    "ナイ形容詞語幹",
];

/// Classifies a surface by the likeliest of the NAIST-JDIC tokens spelt so (word cost and
/// feature fields; the lowest cost wins, the first on a tie). Any analysis would be too
/// lenient: たい, ます and かも are also kana spellings of fish and birds (名詞,一般).
pub fn classify(surface: &str, analyses: &[(i16, Vec<String>)]) -> DictionaryClass {
    let Some((_, f)) = analyses.iter().min_by_key(|(cost, _)| *cost) else {
        return DictionaryClass::Unknown;
    };
    let field = |i: usize| f.get(i).map_or("", String::as_str);
    let base_form = field(BASE) == surface;
    let content = match field(POS) {
        "名詞" => CONTENT_NOUNS.contains(&field(POS1)),
        "動詞" | "形容詞" => field(POS1) == "自立" && base_form,
        "副詞" => base_form,
        _ => false,
    };
    if content {
        DictionaryClass::Content
    } else if field(POS) == "名詞" && field(POS1) == "固有名詞" {
        DictionaryClass::ProperName
    } else {
        DictionaryClass::Other
    }
}

/// Why a frequent token is not a content word the rule counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// No kana or kanji: numbers, Latin words, symbols.
    NoJapaneseLetter,
    SingleKana,
    /// NAIST-JDIC knows the token only as a proper noun, and no list includes it.
    ProperName,
    /// NAIST-JDIC knows the token only as a function word, bound noun or conjugated form.
    NotContentInNaist,
    /// No JMdict entry is written so (in kana: no entry written in kana reads so).
    NoJmdictEntry,
    /// Every JMdict entry written so is a function word or proper name.
    NotContentInJmdict,
    /// Every content entry written so is archaic, obsolete, rare, obscure, vulgar or rude
    /// in its first sense: the token is a piece of a longer word (婚 of 結婚 is not 婚
    /// よばい, an archaic night visit), or not a word to teach.
    OnlyMarkedSenses,
    /// The only content entries written so are uncommon words that share the token with a
    /// common word (冊 the counter さつ, not さく; クマ the bear 熊, not 隈): the token is
    /// the common word, which is no content word or not a word to teach.
    CommonWordsSpelling,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::NoJapaneseLetter => "no-japanese-letter",
            Skip::SingleKana => "single-kana",
            Skip::ProperName => "proper-name",
            Skip::NotContentInNaist => "not-content-in-naist-jdic",
            Skip::NoJmdictEntry => "no-jmdict-entry",
            Skip::NotContentInJmdict => "not-content-in-jmdict",
            Skip::OnlyMarkedSenses => "only-marked-senses",
            Skip::CommonWordsSpelling => "a-common-words-spelling",
        }
    }
}

/// The decision on one frequent token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A graded list already has the word (entry index).
    Listed(usize),
    /// The editors or an earlier token already include the word.
    Included(usize),
    /// A new entry without a JLPT level.
    Added(usize),
    /// A content word left out by the editors, with their reason.
    Missing {
        entry: usize,
        reason: String,
    },
    Skipped(Skip),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub rank: u32,
    pub token: String,
    pub outcome: Outcome,
}

/// The decisions on the frequent tokens and the figures `verify` checks.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub decisions: Vec<Decision>,
}

impl Selection {
    /// Entries to add, with the token that adds each, in rank order.
    pub fn added(&self) -> impl Iterator<Item = (usize, &Decision)> {
        self.decisions.iter().filter_map(|d| match d.outcome {
            Outcome::Added(entry) => Some((entry, d)),
            _ => None,
        })
    }

    /// Frequent content words (every decision but a skip).
    pub fn content_words(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| !matches!(d.outcome, Outcome::Skipped(_)))
            .count()
    }

    /// Frequent content words with an entry.
    pub fn present(&self) -> usize {
        let present = |d: &&Decision| {
            matches!(
                d.outcome,
                Outcome::Listed(_) | Outcome::Included(_) | Outcome::Added(_)
            )
        };
        self.decisions.iter().filter(present).count()
    }

    /// Frequent content words a graded list has: the coverage before this rule.
    pub fn listed(&self) -> usize {
        let listed = |d: &&Decision| matches!(d.outcome, Outcome::Listed(_));
        self.decisions.iter().filter(listed).count()
    }

    /// One tab-separated line per decision (see [`REPORT_HEADER`]).
    pub fn report(&self, entries: &[Entry]) -> Vec<String> {
        let id = |index: usize| super::vocabulary_id(entries[index].seq);
        let pos = |index: usize| first_pos(&entries[index]).join(",");
        self.decisions
            .iter()
            .map(|d| {
                let (decision, entry, detail) = match &d.outcome {
                    Outcome::Listed(e) => ("listed", id(*e), pos(*e)),
                    Outcome::Included(e) => ("included", id(*e), pos(*e)),
                    Outcome::Added(e) => ("added", id(*e), pos(*e)),
                    Outcome::Missing { entry, reason } => ("missing", id(*entry), reason.clone()),
                    Outcome::Skipped(skip) => ("skipped", String::new(), skip.as_str().to_owned()),
                };
                format!("{}\t{}\t{decision}\t{entry}\t{detail}", d.rank, d.token)
            })
            .collect()
    }
}

/// The manifest counts of a selection.
pub fn counts(selection: &Selection) -> BTreeMap<&'static str, usize> {
    BTreeMap::from([
        (CONTENT_WORDS_COUNT, selection.content_words()),
        (PRESENT_COUNT, selection.present()),
        (LISTED_COUNT, selection.listed()),
    ])
}

/// What the selection reads besides the list.
pub struct Inputs<'a> {
    pub entries: &'a [Entry],
    /// Entries a graded list has (index into `entries`).
    pub listed: &'a BTreeSet<usize>,
    /// Entries the editors include without a level.
    pub included: &'a BTreeSet<usize>,
    /// NAIST-JDIC's class of each frequent token (absent = unknown).
    pub classes: &'a HashMap<String, DictionaryClass>,
    /// Tokens the editors leave out, with the reason.
    pub exclusions: &'a HashMap<String, String>,
    /// The common words' kanji spellings ([`CommonSpellings`]).
    pub common: &'a CommonSpellings,
}

/// Decides every one of the [`FREQUENT_TOKENS`] most frequent tokens.
pub fn select(list: &WordFrequencies, inputs: &Inputs) -> Selection {
    let index = FormIndex::new(inputs.entries);
    let mut added: BTreeSet<usize> = BTreeSet::new();
    let decisions = list
        .most_frequent(FREQUENT_TOKENS)
        .map(|(rank, token)| {
            let outcome = decide(token, &index, inputs, &added);
            if let Outcome::Added(entry) = outcome {
                added.insert(entry);
            }
            Decision {
                rank,
                token: token.to_owned(),
                outcome,
            }
        })
        .collect();
    Selection { decisions }
}

fn decide(token: &str, index: &FormIndex, inputs: &Inputs, added: &BTreeSet<usize>) -> Outcome {
    if !token.chars().any(is_japanese_letter) {
        return Outcome::Skipped(Skip::NoJapaneseLetter);
    }
    if token.chars().count() == 1 && is_kana(token) {
        return Outcome::Skipped(Skip::SingleKana);
    }
    let class = inputs
        .classes
        .get(token)
        .copied()
        .unwrap_or(DictionaryClass::Unknown);
    let entries = inputs.entries;
    let matched = index.matches(token, entries);
    let present = |e: &usize| {
        if inputs.listed.contains(e) {
            Some(Outcome::Listed(*e))
        } else if inputs.included.contains(e) || added.contains(e) {
            Some(Outcome::Included(*e))
        } else {
            None
        }
    };
    match class {
        DictionaryClass::Other => return Outcome::Skipped(Skip::NotContentInNaist),
        DictionaryClass::ProperName => {
            return matched
                .iter()
                .find_map(present)
                .unwrap_or(Outcome::Skipped(Skip::ProperName));
        }
        DictionaryClass::Content | DictionaryClass::Unknown => {}
    }
    let content: Vec<usize> = matched
        .iter()
        .copied()
        .filter(|&e| is_content(&entries[e]))
        .collect();
    // A kana token may also be the kana spelling of an included word (いま for 今).
    let spelled: &[usize] = if is_kana(token) {
        index.read_as(token)
    } else {
        &[]
    };
    // A kana token a common word reads as is that word before an uncommon one written in
    // kana (クマ is the bear 熊, not 隈; リス the squirrel 栗鼠, not the lithograph).
    let read_as_common = spelled.iter().any(|&e| entries[e].is_common());
    // Only a katakana word of more than one mora stands for the common word: hiragana
    // tokens are mostly pieces of other words (ろう of だろう), and ジャ is no 蛇.
    let stands_for_a_word =
        token.chars().all(is_katakana) && crate::lessons::items::morae(token) > 1;
    let common_readers: Vec<usize> = spelled
        .iter()
        .copied()
        .filter(|&e| {
            let entry = &entries[e];
            stands_for_a_word && entry.is_common() && is_content(entry) && written_in_kana(entry)
        })
        .collect();
    let spelled = spelled.iter().filter(|&&e| is_content(&entries[e]));
    if let Some(outcome) = content.iter().chain(spelled).find_map(present) {
        return outcome;
    }
    let uncontested = |e: &usize| {
        let entry = &entries[*e];
        entry.is_common() || !(read_as_common || inputs.common.taken_from(entry, token))
    };
    let candidates: Vec<usize> = if content.iter().any(uncontested) {
        content.iter().copied().filter(uncontested).collect()
    } else if !common_readers.is_empty() {
        common_readers
    } else if !content.is_empty() {
        return Outcome::Skipped(Skip::CommonWordsSpelling);
    } else {
        Vec::new()
    };
    let teachable: Vec<usize> = candidates
        .into_iter()
        .filter(|&e| !has_marked_first_sense(&entries[e]))
        .collect();
    let best = teachable
        .into_iter()
        .min_by_key(|&e| (!entries[e].is_common(), entries[e].seq));
    match (best, inputs.exclusions.get(token)) {
        (None, _) if matched.is_empty() => Outcome::Skipped(Skip::NoJmdictEntry),
        (None, _) if !content.is_empty() => Outcome::Skipped(Skip::OnlyMarkedSenses),
        (None, _) => Outcome::Skipped(Skip::NotContentInJmdict),
        (Some(entry), Some(reason)) => Outcome::Missing {
            entry,
            reason: reason.clone(),
        },
        (Some(entry), None) => Outcome::Added(entry),
    }
}

fn is_japanese_letter(c: char) -> bool {
    is_kanji(c) || is_hiragana(c) || is_katakana(c)
}

/// JMdict's misc tags of senses a learner is not taught from a frequency list: archaic,
/// obsolete, rare, obscure, vulgar, rude or X-rated, derogatory.
pub const MARKED_SENSES: [&str; 7] = ["arch", "obs", "rare", "obsc", "vulg", "X", "derog"];

/// True when the entry's first English sense carries one of [`MARKED_SENSES`].
pub fn has_marked_first_sense(entry: &Entry) -> bool {
    entry.english_senses().next().is_some_and(|sense| {
        sense
            .misc
            .iter()
            .any(|m| MARKED_SENSES.contains(&m.as_str()))
    })
}

/// The parts of speech of the entry's first English sense.
fn first_pos(entry: &Entry) -> &[String] {
    entry.english_senses().next().map_or(&[], |s| &s.pos)
}

/// A noun, verb, adjective or adverb by its first sense; not a proper name, and not a
/// function word that also inflects (ちゃう is `aux-v` and `v5u`).
pub fn is_content(entry: &Entry) -> bool {
    let pos = first_pos(entry);
    let function = |p: &String| {
        matches!(
            p.as_str(),
            "n-pr" | "aux" | "aux-v" | "aux-adj" | "prt" | "conj" | "cop"
        )
    };
    !pos.iter().any(function) && pos.iter().any(|p| is_content_pos(p))
}

fn is_content_pos(code: &str) -> bool {
    matches!(
        code,
        "n" | "n-adv"
            | "n-t"
            | "vs"
            | "adj-i"
            | "adj-ix"
            | "adj-na"
            | "adj-no"
            | "adj-t"
            | "adv"
            | "adv-to"
            | "v1"
            | "v1-s"
            | "vk"
            | "vz"
            | "vs-i"
            | "vs-s"
    ) || code.starts_with("v5")
}

/// Every form an entry of the rule could be matched on: the frequent tokens themselves.
pub fn frequent_forms(list: &WordFrequencies) -> BTreeSet<String> {
    list.most_frequent(FREQUENT_TOKENS)
        .map(|(_, token)| token.to_owned())
        .collect()
}

/// The entry a word of the editors' tables is: written `written` (a kanji form, or the
/// kana form of a kana word) and read `reading` (empty for kana words). Among homographs,
/// the common one, then the lower `ent_seq`.
pub fn find_entry(entries: &[Entry], written: &str, reading: &str) -> Option<usize> {
    let reading = katakana_to_hiragana(reading);
    let fits = |entry: &Entry| {
        let readings = || entry.readings.iter().map(|r| katakana_to_hiragana(&r.text));
        let has_kanji = entry.kanji.iter().any(|k| k.text == written);
        let has_kana = readings().any(|r| r == katakana_to_hiragana(written));
        match (reading.is_empty(), has_kanji) {
            (true, _) => has_kana,
            (false, true) => readings().any(|r| r == reading),
            (false, false) => false,
        }
    };
    (0..entries.len())
        .filter(|&e| fits(&entries[e]))
        .min_by_key(|&e| (!entries[e].is_common(), entries[e].seq))
}

/// The editors' exclusions, by token.
pub fn exclusions() -> Result<HashMap<String, String>, String> {
    let mut table = HashMap::new();
    for (line, text) in (1..).zip(EXCLUSIONS.lines()) {
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let Some((token, reason)) = text.split_once('\t') else {
            return Err(format!(
                "frequent_exclusions.tsv line {line}: token<TAB>reason"
            ));
        };
        if reason.trim().is_empty() {
            return Err(format!("frequent_exclusions.tsv line {line}: no reason"));
        }
        table.insert(token.to_owned(), reason.to_owned());
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::jmdict::{Gloss, KanjiElement, ReadingElement, Sense};

    fn entry(seq: u32, kanji: &[&str], readings: &[&str], pos: &[&str], misc: &[&str]) -> Entry {
        Entry {
            seq,
            kanji: kanji
                .iter()
                .map(|k| KanjiElement {
                    text: (*k).to_owned(),
                    priority: vec!["ichi1".to_owned()],
                    ..Default::default()
                })
                .collect(),
            readings: readings
                .iter()
                .map(|r| ReadingElement {
                    text: (*r).to_owned(),
                    ..Default::default()
                })
                .collect(),
            senses: vec![Sense {
                pos: pos.iter().map(|p| (*p).to_owned()).collect(),
                misc: misc.iter().map(|m| (*m).to_owned()).collect(),
                glosses: vec![Gloss {
                    language: "eng".to_owned(),
                    text: "gloss".to_owned(),
                }],
                ..Default::default()
            }],
        }
    }

    fn analysis(cost: i16, line: &str) -> (i16, Vec<String>) {
        (cost, line.split(',').map(str::to_owned).collect())
    }

    #[test]
    fn a_kanji_word_is_not_ranked_by_its_reading_alone() {
        let list = WordFrequencies::from_ranked(["はし", "橋", "すごく"]);
        let none = CommonSpellings::default();
        let bridge = entry(1, &["橋"], &["はし"], &["n"], &[]);
        assert_eq!(entry_rank(&bridge, &list, &none).map(|r| r.rank), Some(2));
        let chopsticks = entry(2, &["箸"], &["はし"], &["n"], &[]);
        assert_eq!(entry_rank(&chopsticks, &list, &none), None);
        let awfully = entry(3, &["凄く"], &["すごく"], &["adv"], &["uk"]);
        let ranked = entry_rank(&awfully, &list, &none).expect("written in kana");
        assert_eq!((ranked.rank, ranked.form.as_str()), (3, "すごく"));
    }

    #[test]
    fn an_uncommon_word_is_not_ranked_by_a_common_words_spelling() {
        let list = WordFrequencies::from_ranked(["的", "まと"]);
        let suffix = entry(1, &["的"], &["てき"], &["suf"], &[]);
        let mut target = entry(2, &["的"], &["まと"], &["n"], &[]);
        target.kanji[0].priority.clear();
        let common = CommonSpellings::of(&[suffix.clone(), target.clone()]);
        assert_eq!(entry_rank(&suffix, &list, &common).map(|r| r.rank), Some(1));
        assert!(common.taken_from(&target, "的"));
        assert_eq!(entry_rank(&target, &list, &common), None);
    }

    #[test]
    fn a_sound_word_is_not_ranked_by_a_common_loanwords_spelling() {
        let list = WordFrequencies::from_ranked(["シーン", "しーん"]);
        let scene = entry(1, &[], &["シーン"], &["n"], &[]);
        let mut silence = entry(2, &[], &["しーん", "シーン"], &["adv"], &[]);
        silence.readings.iter_mut().for_each(|r| r.priority.clear());
        let mut scene_common = scene.clone();
        scene_common.readings[0].priority = vec!["gai1".to_owned()];
        let common = CommonSpellings::of(&[scene_common.clone(), silence.clone()]);
        assert_eq!(
            entry_rank(&scene_common, &list, &common).map(|r| r.rank),
            Some(1)
        );
        assert_eq!(
            entry_rank(&silence, &list, &common).map(|r| r.rank),
            Some(2)
        );
    }

    #[test]
    fn naist_jdic_tells_content_words_from_stems_and_particles() {
        let noun = analysis(5743, "名詞,一般,*,*,*,*,寿司,スシ,スシ");
        let stem = analysis(6403, "動詞,自立,*,*,一段,連用形,出る,デ,デ");
        let place = analysis(7696, "名詞,一般,*,*,*,*,出,デ,デ");
        let verb = analysis(5301, "動詞,自立,*,*,一段,基本形,見える,ミエル,ミエル");
        let tokyo = analysis(
            3188,
            "名詞,固有名詞,地域,一般,*,*,東京,トウキョウ,トーキョー",
        );
        let auxiliary = analysis(6921, "助動詞,*,*,*,特殊・タイ,基本形,たい,タイ,タイ");
        let sea_bream = analysis(8504, "名詞,一般,*,*,*,*,たい,タイ,タイ");
        assert_eq!(classify("寿司", &[noun]), DictionaryClass::Content);
        assert_eq!(classify("出", &[place, stem]), DictionaryClass::Other);
        assert_eq!(classify("見える", &[verb]), DictionaryClass::Content);
        assert_eq!(classify("東京", &[tokyo]), DictionaryClass::ProperName);
        assert_eq!(
            classify("たい", &[sea_bream, auxiliary]),
            DictionaryClass::Other
        );
        assert_eq!(classify("スマホ", &[]), DictionaryClass::Unknown);
    }

    #[test]
    fn frequent_content_words_are_listed_added_excluded_or_skipped() {
        let entries = vec![
            entry(10, &["東京"], &["とうきょう"], &["n"], &[]),
            entry(11, &["寿司"], &["すし"], &["n"], &[]),
            entry(12, &["鯛"], &["たい"], &["n"], &["uk"]),
            entry(13, &[], &["から"], &["prt"], &[]),
            entry(14, &["動画"], &["どうが"], &["n"], &[]),
            entry(15, &[], &["スマホ"], &["n"], &[]),
            entry(16, &["今"], &["いま"], &["n"], &[]),
        ];
        let list = WordFrequencies::from_ranked([
            "の",
            "から",
            "たい",
            "東京",
            "寿司",
            "動画",
            "スマホ",
            "00",
            "大阪",
            "いま",
        ]);
        let classes = HashMap::from([
            ("から".to_owned(), DictionaryClass::Other),
            ("たい".to_owned(), DictionaryClass::Other),
            ("東京".to_owned(), DictionaryClass::ProperName),
            ("大阪".to_owned(), DictionaryClass::ProperName),
            ("寿司".to_owned(), DictionaryClass::Content),
            ("動画".to_owned(), DictionaryClass::Content),
        ]);
        let listed = BTreeSet::from([0, 6]);
        let exclusions = HashMap::from([("動画".to_owned(), "a test reason".to_owned())]);
        let inputs = Inputs {
            entries: &entries,
            listed: &listed,
            included: &BTreeSet::new(),
            classes: &classes,
            exclusions: &exclusions,
            common: &CommonSpellings::of(&entries),
        };
        let selection = select(&list, &inputs);
        let outcomes: Vec<&Outcome> = selection.decisions.iter().map(|d| &d.outcome).collect();
        assert_eq!(
            outcomes,
            [
                &Outcome::Skipped(Skip::SingleKana),
                &Outcome::Skipped(Skip::NotContentInNaist),
                &Outcome::Skipped(Skip::NotContentInNaist),
                &Outcome::Listed(0),
                &Outcome::Added(1),
                &Outcome::Missing {
                    entry: 4,
                    reason: "a test reason".to_owned()
                },
                &Outcome::Added(5),
                &Outcome::Skipped(Skip::NoJapaneseLetter),
                &Outcome::Skipped(Skip::ProperName),
                &Outcome::Listed(6),
            ]
        );
        assert_eq!(selection.content_words(), 5);
        assert_eq!(selection.present(), 4);
        assert_eq!(selection.listed(), 2);
        assert_eq!(selection.report(&entries)[4], "5\t寿司\tadded\tvocab-11\tn");
    }

    #[test]
    fn editors_words_are_found_by_form_and_reading() {
        let entries = vec![
            entry(20, &["本屋"], &["ほんや"], &["n"], &[]),
            entry(21, &[], &["ただいま"], &["int"], &[]),
        ];
        assert_eq!(find_entry(&entries, "本屋", "ほんや"), Some(0));
        assert_eq!(find_entry(&entries, "本屋", "もとや"), None);
        assert_eq!(find_entry(&entries, "ただいま", ""), Some(1));
    }

    #[test]
    fn the_exclusions_table_parses() {
        assert!(exclusions().is_ok());
    }
}
