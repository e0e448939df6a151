//! Citations for what manabi's own editors supply: authored tables (the 214 Kangxi
//! radicals, the kana inventory) and rules that derive fields from other sources.

use manabi_schemas::Citation;

/// Source key of the editors' own work.
pub const EDITORS: &str = "manabi";

/// The rows of an editors' table in `content/` (a header line, then tab-separated
/// columns), each split into its columns.
pub fn rows(table: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    table.lines().skip(1).map(|line| line.split('\t').collect())
}

/// The first row of an editors' table whose first two columns are `first` and `second`
/// (a word and its reading, a point and its sentence).
pub fn row_of(table: &'static str, first: &str, second: &str) -> Option<Vec<&'static str>> {
    rows(table).find(|columns| columns.first() == Some(&first) && columns.get(1) == Some(&second))
}

/// The first row of an editors' table keyed by a record number (its first column, a JMdict
/// sequence number): the editors' label or lead sense of a word.
pub fn row_for_record(table: &'static str, seq: u32) -> Option<Vec<&'static str>> {
    rows(table).find(|columns| columns.first().and_then(|s| s.parse().ok()) == Some(seq))
}

/// Whether an editors' table has a row whose first two columns are `first` and `second`.
pub fn has_pair(table: &'static str, first: &str, second: &str) -> bool {
    row_of(table, first, second).is_some()
}

/// The record numbers an editors' table refuses: the rows `seq, name, refused, reason`
/// (the history tables of JMdict terms and JMnedict works).
pub fn refused_records(table: &'static str) -> std::collections::HashSet<u32> {
    rows(table)
        .filter_map(|row| match row.as_slice() {
            [seq, _name, "refused", _reason] => seq.parse().ok(),
            _ => None,
        })
        .collect()
}

/// A citation of the manabi editors for the given fields.
pub fn cite(record_id: Option<String>, fields: &[&str]) -> Citation {
    Citation {
        source: EDITORS.to_string(),
        name: "manabi editors".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        licence: "CC BY-SA 4.0".to_string(),
        licence_url: Some("https://creativecommons.org/licenses/by-sa/4.0/".to_string()),
        record_id,
        fields: fields.iter().map(|field| field.to_string()).collect(),
    }
}
