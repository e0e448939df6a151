//! kanjium's curated kanji pairs (look-alikes, synonyms, antonyms), as JSON objects
//! mapping a kanji to the kanji it is paired with.

use std::collections::BTreeMap;

/// One kanjium pair file: kanji → paired kanji, in the file's order.
pub type Pairs = BTreeMap<String, Vec<String>>;

/// The pair lists the kanji builder uses.
#[derive(Debug, Clone, Default)]
pub struct Kanjium {
    pub lookalikes: Pairs,
    pub synonyms: Pairs,
    pub antonyms: Pairs,
    /// Variant forms (旧字体, 異体字): never offered as look-alikes of each other.
    pub variants: Pairs,
}

pub fn parse_pairs(json: &str) -> serde_json::Result<Pairs> {
    serde_json::from_str(json)
}

/// The pairs a teacher's reading of every kanjium antonym and synonym refused
/// (`content/kanji_pairs_refused.tsv`: kind, kanji, kanji, reason): meanings not opposite
/// or not alike (寒–涼 as antonyms, 保–宝 as synonyms), the wrong partner (決–信; 信's
/// opposite is 疑), or a pairing that holds through one obscure compound only (顕–密).
pub const REFUSED: &str = include_str!("../../content/kanji_pairs_refused.tsv");

/// Whether the editors refused `a` and `b` as a pair of `kind` (`antonym`, `synonym`), in
/// either order.
pub fn refused(kind: &str, a: &str, b: &str) -> bool {
    crate::editors::rows(REFUSED).any(|row| match row.as_slice() {
        [k, x, y, _reason] => *k == kind && ((*x == a && *y == b) || (*x == b && *y == a)),
        _ => false,
    })
}

/// Whether the editors refused any pair of `kanji`.
pub fn any_refused(kanji: &str) -> bool {
    crate::editors::rows(REFUSED)
        .any(|row| row.get(1) == Some(&kanji) || row.get(2) == Some(&kanji))
}

/// `pairs` without the pairs of `kind` the editors refused.
pub fn without_refused(mut pairs: Pairs, kind: &str) -> Pairs {
    for (kanji, others) in &mut pairs {
        others.retain(|other| !refused(kind, kanji, other));
    }
    pairs.retain(|_, others| !others.is_empty());
    pairs
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_a_pair_file() {
        let pairs = super::parse_pairs(r#"{"会":["今","令"],"入":["八","人"]}"#).expect("parses");
        assert_eq!(pairs["会"], ["今", "令"]);
    }

    #[test]
    fn refused_pairs_go_both_ways_and_the_table_parses() {
        for (line, row) in crate::editors::rows(super::REFUSED).enumerate() {
            assert!(
                matches!(row.as_slice(), [kind, a, b, reason]
                    if ["antonym", "synonym"].contains(kind)
                        && a.chars().count() == 1
                        && b.chars().count() == 1
                        && !reason.is_empty()),
                "kanji_pairs_refused.tsv line {}: {row:?}",
                line + 2
            );
        }
        let pairs = super::parse_pairs(r#"{"決":["信"],"信":["偽","決"]}"#).expect("parses");
        let kept = super::without_refused(pairs, "antonym");
        assert!(!kept.contains_key("決"));
        assert_eq!(kept["信"], ["偽"]);
    }
}
