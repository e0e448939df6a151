//! The editors' corrections of the JMdict and JMnedict records the history domain keeps
//! (`content/history/dictionary_corrections.tsv`: seq, headword, field, value, reason),
//! where the dictionary's gloss or reading is wrong but the entry itself is history: 大名
//! 火消 "local fire brigade" (the shogunate's order to daimyo to fight the fires of Edo),
//! 卿 read けい in the ritsuryo sense (きょう), 吾輩は猫である dated 1906 (serialised
//! 1905–1906). Each correction names the record by its sequence number; the entity shows
//! the corrected text, says it is the editors', and cites them beside the dictionary.
//!
//! Fields: `gloss` (the English of the sense the entity stands for, replacing all its
//! glosses), `reading` (the readings of that sense, separated by `、`), `others` (the
//! dictionary's other senses as the description quotes them, separated by ` | `; `-` for
//! none).

use std::collections::HashMap;
use std::sync::LazyLock;

use manabi_schemas::{Citation, Learnable, LearnableBody};

const TABLE: &str = include_str!("../../content/history/dictionary_corrections.tsv");

/// The fields a correction may set.
pub const FIELDS: &[&str] = &["gloss", "reading", "others"];

fn value(seq: u32, field: &str) -> Option<&'static str> {
    static VALUES: LazyLock<HashMap<(u32, &'static str), &'static str>> = LazyLock::new(|| {
        crate::editors::rows(TABLE)
            .filter_map(|row| match row.as_slice() {
                [seq, _headword, field, value, ..] => Some(((seq.parse().ok()?, *field), *value)),
                _ => None,
            })
            .collect()
    });
    VALUES.get(&(seq, field)).copied()
}

/// The editors' English for the record's history sense.
pub fn gloss(seq: u32) -> Option<&'static str> {
    value(seq, "gloss")
}

/// The editors' readings of the record's history sense.
pub fn readings(seq: u32) -> Option<Vec<&'static str>> {
    value(seq, "reading").map(|v| v.split('、').collect())
}

/// The editors' wording of the record's other senses (empty for none).
pub fn other_senses(seq: u32) -> Option<Vec<&'static str>> {
    value(seq, "others").map(|v| {
        if v == "-" {
            Vec::new()
        } else {
            v.split(" | ").collect()
        }
    })
}

/// Whether the editors corrected anything of the record.
pub fn corrected(seq: u32) -> bool {
    FIELDS.iter().any(|field| value(seq, field).is_some())
}

/// The fields of the record the editors corrected, as citation fields.
pub fn cited_fields(seq: u32) -> Vec<&'static str> {
    let mut fields = Vec::new();
    if gloss(seq).is_some() {
        fields.extend(["meaning", "timespan", "description"]);
    }
    if readings(seq).is_some() {
        fields.push("aliases");
    }
    if other_senses(seq).is_some() && !fields.contains(&"description") {
        fields.push("description");
    }
    fields
}

/// The corrections `verify` finds not applied to the artifact's history entities: each
/// corrected record stands with the editors' citation, its corrected gloss or other senses
/// in a description, and its corrected readings among the aliases of an entity citing it.
pub fn problems<'a>(history: impl Iterator<Item = &'a Learnable> + Clone) -> Vec<String> {
    let details = || {
        history
            .clone()
            .filter_map(|learnable| match &learnable.body {
                LearnableBody::History(detail) => Some((learnable, detail)),
                _ => None,
            })
    };
    let mut problems = Vec::new();
    for row in crate::editors::rows(TABLE) {
        let [seq, headword, field, value, _reason] = row.as_slice() else {
            problems.push(format!("dictionary correction {row:?}: not five columns"));
            continue;
        };
        let record = |source: &Citation| {
            source.source == crate::editors::EDITORS
                && source
                    .record_id
                    .as_deref()
                    .is_some_and(|id| id.ends_with(&format!(" ent_seq {seq}")))
        };
        let mut citing = details().filter(|(learnable, _)| learnable.sources.iter().any(record));
        let applied = match *field {
            "gloss" => details().any(|(_, detail)| detail.description.contains(value)),
            "others" if *value == "-" => true,
            "others" => value
                .split(" | ")
                .all(|sense| details().any(|(_, detail)| detail.description.contains(sense))),
            "reading" => citing.clone().any(|(_, detail)| {
                value
                    .split('、')
                    .all(|reading| detail.aliases.iter().any(|alias| alias.text == reading))
            }),
            _ => false,
        };
        if citing.next().is_none() && !applied {
            problems.push(format!(
                "{headword} ({seq}): the editors' correction is not in the artifact"
            ));
        } else if !applied {
            problems.push(format!(
                "{headword} ({seq}): the editors' {field} is not applied"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_correction_names_a_record_a_known_field_a_value_and_a_reason() {
        for row in crate::editors::rows(TABLE) {
            let [seq, headword, field, value, reason] = row.as_slice() else {
                panic!("a correction has five columns: {row:?}");
            };
            assert!(seq.parse::<u32>().is_ok(), "{row:?}");
            assert!(!headword.is_empty() && !value.is_empty(), "{row:?}");
            assert!(FIELDS.contains(field), "unknown field {field}");
            assert!(reason.len() > 10, "a correction gives its reason: {row:?}");
        }
    }

    #[test]
    fn a_corrected_record_gives_its_fields() {
        assert_eq!(readings(1235870), Some(vec!["きょう"]));
        assert!(gloss(2827929).is_some_and(|g| g.contains("Edo")));
        assert!(corrected(2827929) && !corrected(1));
    }
}
