//! The search surface of one entry, as stored in the dataset artifact.

use std::collections::BTreeSet;

use manabi_schemas::vocabulary::VocabularyDetail;
use manabi_schemas::{Learnable, LearnableBody};
use serde::{Deserialize, Serialize};

use crate::kana;

/// Everything a query can match for one entry, already normalised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surface {
    /// Written forms as written (kanji, kana, pattern, canonical name).
    pub forms: Vec<String>,
    /// Readings normalised to hiragana.
    pub readings: Vec<String>,
    /// Romaji spellings (lowercase ASCII).
    pub romaji: Vec<String>,
    /// English meaning words (lowercase).
    pub meanings: Vec<String>,
    /// Other names (history aliases).
    pub aliases: Vec<String>,
    /// Ranking tie-breaker: lower is more frequent; None when unknown.
    pub frequency: Option<u32>,
}

/// Collects values once each, in first-seen order, skipping empty strings.
#[derive(Default)]
struct Ordered {
    seen: BTreeSet<String>,
    values: Vec<String>,
}

impl Ordered {
    fn push(&mut self, value: impl Into<String>) {
        let value = value.into();
        if !value.is_empty() && self.seen.insert(value.clone()) {
            self.values.push(value);
        }
    }
}

impl Surface {
    /// Builds the surface of a learnable from its summary fields and its body.
    pub fn of(learnable: &Learnable) -> Surface {
        let mut forms = Ordered::default();
        let mut readings = Ordered::default();
        let mut meanings = Ordered::default();
        let mut aliases = Ordered::default();
        for form in &learnable.writing_forms {
            forms.push(form.text.as_str());
        }
        let named = [
            &learnable.label,
            &learnable.pattern,
            &learnable.canonical_name,
        ];
        for text in named.into_iter().flatten() {
            forms.push(text.as_str());
        }
        if let Some(meaning) = &learnable.meaning {
            meaning_words(meaning, &mut meanings);
        }
        let frequency = body_terms(&learnable.body, &mut readings, &mut meanings, &mut aliases);
        for form in &forms.values {
            if kana::is_kana(form) {
                readings.push(kana::to_hiragana(form));
            }
        }
        let mut romaji = Ordered::default();
        for reading in &readings.values {
            romaji.push(kana::to_romaji(reading));
        }
        Surface {
            forms: forms.values,
            readings: readings.values,
            romaji: romaji.values,
            meanings: meanings.values,
            aliases: aliases.values,
            frequency,
        }
    }
}

/// Lowercase English words of a meaning text (letters and digits; a word of one letter
/// carries no search value).
fn meaning_words(text: &str, out: &mut Ordered) {
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '\'') {
        let word = word.trim_matches('\'').to_lowercase();
        if word.chars().count() > 1 && word.is_ascii() {
            out.push(word);
        }
    }
}

/// A kanji reading as a plain hiragana word: KANJIDIC2 marks okurigana with `.` and
/// affixes with `-`.
fn plain_reading(reading: &str) -> String {
    kana::to_hiragana(&reading.replace(['.', '-'], ""))
}

/// Adds the body's readings, meanings and aliases; returns its frequency rank if it has one.
fn body_terms(
    body: &LearnableBody,
    readings: &mut Ordered,
    meanings: &mut Ordered,
    aliases: &mut Ordered,
) -> Option<u32> {
    match body {
        LearnableBody::Kanji(kanji) => {
            let all = kanji.readings.on.iter().chain(&kanji.readings.kun);
            for reading in all {
                readings.push(plain_reading(reading));
            }
            for meaning in &kanji.meanings {
                meaning_words(meaning, meanings);
            }
            kanji.frequency_rank
        }
        LearnableBody::Vocabulary(word) => {
            for reading in &word.readings {
                readings.push(kana::to_hiragana(&reading.text));
            }
            for gloss in word.senses.iter().flat_map(|sense| &sense.glosses) {
                meaning_words(gloss, meanings);
            }
            vocabulary_rank(word)
        }
        LearnableBody::Character(character) => {
            readings.push(kana::to_hiragana(&character.character));
            None
        }
        LearnableBody::Radical(radical) => {
            for name in &radical.names {
                readings.push(kana::to_hiragana(name));
            }
            meaning_words(&radical.meaning, meanings);
            None
        }
        LearnableBody::Grammar(grammar) => {
            for variant in &grammar.variants {
                aliases.push(variant.as_str());
            }
            meaning_words(&grammar.meaning, meanings);
            None
        }
        LearnableBody::History(history) => {
            for alias in &history.aliases {
                aliases.push(alias.as_str());
            }
            None
        }
    }
}

/// Words in JMdict's frequency bands: `nfXX` is the XX-th band of 500 words in the
/// newspaper corpus; the other priority lists mark common words without a rank.
const NF_BAND_WORDS: u32 = 500;
/// Rank given to a common word outside the `nf` bands: after the 24,000 banded words.
const COMMON_WITHOUT_BAND_RANK: u32 = 24_001;

/// The word's corpus rank (wordfreq), else its newspaper band.
fn vocabulary_rank(word: &VocabularyDetail) -> Option<u32> {
    word.frequency_rank
        .or_else(|| newspaper_band_rank(&word.priority))
}

/// A word's rank from JMdict's priority tags, for the few words whose forms are not in
/// wordfreq's list (`frequency_rank` null): the first word of its `nf` band. Both count
/// words from the most frequent, so the two scales sort together.
fn newspaper_band_rank(priority: &[String]) -> Option<u32> {
    let band = priority
        .iter()
        .filter_map(|tag| tag.strip_prefix("nf").and_then(|n| n.parse::<u32>().ok()))
        .min();
    match band {
        Some(band) => Some(band.saturating_sub(1) * NF_BAND_WORDS + 1),
        None if !priority.is_empty() => Some(COMMON_WITHOUT_BAND_RANK),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn word(frequency_rank: Option<u32>, priority: &[&str]) -> VocabularyDetail {
        VocabularyDetail {
            jmdict_id: None,
            readings: Vec::new(),
            senses: Vec::new(),
            glosses_by_locale: BTreeMap::new(),
            pitch_accent: Vec::new(),
            etymology: None,
            keigo: None,
            priority: priority.iter().map(|p| (*p).to_owned()).collect(),
            frequency_rank,
            conjugation: None,
            examples: Vec::new(),
            kanji: Vec::new(),
        }
    }

    #[test]
    fn the_corpus_rank_comes_first_and_the_newspaper_band_stands_in() {
        assert_eq!(vocabulary_rank(&word(Some(3421), &["nf10"])), Some(3421));
        assert_eq!(vocabulary_rank(&word(None, &["nf02", "ichi1"])), Some(501));
        assert_eq!(vocabulary_rank(&word(None, &["ichi1"])), Some(24_001));
        assert_eq!(vocabulary_rank(&word(None, &[])), None);
    }
}
