//! The editors' removals from KANJIDIC2's meaning lists: a meaning a review found to belong
//! to another kanji (享 "answer (phone)" is 受's), listed in
//! `content/kanji_meanings_refused.tsv` by kanji, locale (`en` for the English list) and
//! the meaning as KANJIDIC2 writes it, each with its reason.

use super::kanjidic::KanjidicEntry;

/// The table, one removal a row after the header.
pub const TABLE: &str = include_str!("../../content/kanji_meanings_refused.tsv");

/// The locale of KANJIDIC2's English meanings in the table.
const ENGLISH: &str = "en";

/// (kanji, locale, meaning) of every row.
fn rows() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    crate::editors::rows(TABLE).filter_map(|columns| match columns[..] {
        [kanji, locale, meaning, ..] => Some((kanji, locale, meaning)),
        _ => None,
    })
}

/// Whether the editors removed `meaning` of `literal` in `locale` (`en` for English).
pub fn refused(literal: &str, locale: &str, meaning: &str) -> bool {
    rows().any(|row| row == (literal, locale, meaning))
}

/// Whether the editors removed any meaning of `literal`.
pub fn any_refused(literal: &str) -> bool {
    rows().any(|(kanji, _, _)| kanji == literal)
}

/// Removes the refused meanings from the entry's lists.
pub fn remove_refused(entry: &mut KanjidicEntry) {
    for (_, locale, meaning) in rows().filter(|(kanji, _, _)| *kanji == entry.literal) {
        let list = if locale == ENGLISH {
            Some(&mut entry.meanings)
        } else {
            entry.meanings_by_locale.get_mut(locale)
        };
        if let Some(list) = list {
            list.retain(|known| known != meaning);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_a_kanji_a_locale_a_meaning_and_a_reason() {
        for line in TABLE.lines().skip(1) {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 4, "{line}");
            assert_eq!(columns[0].chars().count(), 1, "{line}");
            assert_eq!(columns[1].len(), 2, "{line}");
            assert!(columns.iter().all(|c| !c.trim().is_empty()), "{line}");
        }
    }

    #[test]
    fn a_refused_meaning_leaves_the_lists() {
        let mut entry = KanjidicEntry {
            literal: "享".to_owned(),
            meanings: vec!["enjoy".to_owned(), "answer (phone)".to_owned()],
            ..Default::default()
        };
        entry.meanings_by_locale.insert(
            "fr".to_owned(),
            vec!["répondre (téléphone)".to_owned(), "jouir".to_owned()],
        );
        remove_refused(&mut entry);
        assert_eq!(entry.meanings, ["enjoy"]);
        assert_eq!(entry.meanings_by_locale["fr"], ["jouir"]);
        assert!(any_refused("享"));
        assert!(!any_refused("日"));
    }
}
