//! The editors' removals from KANJIDIC2's meaning and reading lists: a meaning or a
//! reading a review found to belong to another kanji (享 "answer (phone)" is 受's; 葦's
//! しお.れる is 萎's), listed in `content/kanji_refused.tsv` by kanji, list (a locale,
//! `en` for the English meanings, or `on`/`kun` for the readings) and the entry as
//! KANJIDIC2 writes it, each with its reason.

use super::kanjidic::KanjidicEntry;

/// The table, one removal a row after the header.
pub const TABLE: &str = include_str!("../../content/kanji_refused.tsv");

/// The list of KANJIDIC2's English meanings in the table.
const ENGLISH: &str = "en";

/// (kanji, list, entry) of every row.
fn rows() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    crate::editors::rows(TABLE).filter_map(|columns| match columns[..] {
        [kanji, list, entry, ..] => Some((kanji, list, entry)),
        _ => None,
    })
}

/// Whether the editors removed `entry` of `literal` from `list` (a locale, `en` for
/// English, or `on`/`kun`).
pub fn refused(literal: &str, list: &str, entry: &str) -> bool {
    rows().any(|row| row == (literal, list, entry))
}

/// Whether the editors removed any meaning or reading of `literal`, and so which fields
/// they edited.
pub fn refused_fields(literal: &str) -> Vec<&'static str> {
    let lists: Vec<&str> = rows()
        .filter(|(kanji, _, _)| *kanji == literal)
        .map(|(_, list, _)| list)
        .collect();
    let mut fields = Vec::new();
    if lists.iter().any(|l| !is_reading(l)) {
        fields.push("meanings");
    }
    if lists.iter().any(|l| is_reading(l)) {
        fields.push("readings");
    }
    fields
}

fn is_reading(list: &str) -> bool {
    matches!(list, "on" | "kun")
}

/// Removes the refused meanings and readings from the entry's lists.
pub fn remove_refused(entry: &mut KanjidicEntry) {
    for (_, list, refused) in rows().filter(|(kanji, _, _)| *kanji == entry.literal) {
        let list = match list {
            ENGLISH => Some(&mut entry.meanings),
            "on" => Some(&mut entry.on),
            "kun" => Some(&mut entry.kun),
            locale => entry.meanings_by_locale.get_mut(locale),
        };
        if let Some(list) = list {
            list.retain(|known| known != refused);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_a_kanji_a_list_an_entry_and_a_reason() {
        for line in TABLE.lines().skip(1) {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 4, "{line}");
            assert_eq!(columns[0].chars().count(), 1, "{line}");
            assert!((2..=3).contains(&columns[1].len()), "{line}");
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
        assert_eq!(refused_fields("享"), ["meanings"]);
        assert!(refused_fields("日").is_empty());
        let mut reed = KanjidicEntry {
            literal: "葦".to_owned(),
            kun: vec!["あし".to_owned(), "しお.れる".to_owned()],
            ..Default::default()
        };
        remove_refused(&mut reed);
        assert_eq!(reed.kun, ["あし"]);
        assert_eq!(refused_fields("葦"), ["readings"]);
    }
}
