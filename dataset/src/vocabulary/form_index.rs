//! One index of JMdict entries by form, for every matcher of words to entries (the JLPT
//! list rows and the frequent tokens): by written form with kanji, by kana form for
//! entries written in kana, and by reading in hiragana.

use std::collections::HashMap;

use manabi_search::kana::katakana_to_hiragana;

use super::frequency::written_in_kana;
use super::text::is_kana;
use crate::sources::jmdict::Entry;

/// Entries by written form with kanji, entries written in kana by kana form, and every
/// entry by its readings in hiragana.
pub struct FormIndex {
    by_kanji: HashMap<String, Vec<usize>>,
    by_kana: HashMap<String, Vec<usize>>,
    by_reading: HashMap<String, Vec<usize>>,
}

impl FormIndex {
    pub fn new(entries: &[Entry]) -> Self {
        let mut by_kanji: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_kana: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_reading: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, entry) in entries.iter().enumerate() {
            for kanji in &entry.kanji {
                by_kanji.entry(kanji.text.clone()).or_default().push(index);
            }
            for reading in &entry.readings {
                for kana in kana_spellings(entry, &reading.text) {
                    by_kana.entry(kana).or_default().push(index);
                }
                let hiragana = katakana_to_hiragana(&reading.text);
                by_reading.entry(hiragana).or_default().push(index);
            }
        }
        Self {
            by_kanji,
            by_kana,
            by_reading,
        }
    }

    /// Every entry read as the kana token (either script), in entry order.
    pub fn read_as(&self, token: &str) -> &[usize] {
        self.by_reading
            .get(&katakana_to_hiragana(token))
            .map_or(&[], Vec::as_slice)
    }

    /// The entries a token is: by kanji form, or for a kana token by kana form.
    pub fn matches(&self, token: &str, entries: &[Entry]) -> Vec<usize> {
        let found = if is_kana(token) {
            self.by_kana.get(token)
        } else {
            self.by_kanji.get(token)
        };
        let mut found = found.cloned().unwrap_or_default();
        found.sort_unstable_by_key(|&e| entries[e].seq);
        found
    }

    /// The entries a list row's form can be: by kanji form, and a kana form also by
    /// reading, in entry order without repeats.
    pub fn candidates(&self, form: &str) -> Vec<usize> {
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

/// The kana spellings a word written in kana is matched by: a kana-only word by its
/// reading as JMdict writes it (the katakana token オブ is not the nursery word おぶ); a
/// word with kanji usually written in kana by its reading in either script (リス and りす
/// are both 栗鼠).
fn kana_spellings(entry: &Entry, reading: &str) -> Vec<String> {
    if !written_in_kana(entry) {
        return Vec::new();
    }
    if entry.kanji.is_empty() {
        return vec![reading.to_owned()];
    }
    let hiragana = katakana_to_hiragana(reading);
    let katakana = manabi_search::kana::hiragana_to_katakana(&hiragana);
    if hiragana == katakana {
        vec![hiragana]
    } else {
        vec![hiragana, katakana]
    }
}
