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

#[cfg(test)]
mod tests {
    #[test]
    fn reads_a_pair_file() {
        let pairs = super::parse_pairs(r#"{"会":["今","令"],"入":["八","人"]}"#).expect("parses");
        assert_eq!(pairs["会"], ["今", "令"]);
    }
}
