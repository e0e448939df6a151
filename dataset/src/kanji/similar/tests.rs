//! The look-alike rules on hand-written KanjiVG layouts.

use std::collections::BTreeSet;

use super::{EDITORS_TABLE, Rule, Shape, editors_pairs, rule_for, similar_kanji};
use crate::kanji::KanjiSources;
use crate::kanji::kanjidic::KanjidicEntry;
use crate::kanjivg::{Layout, Part};

/// A part: element (or "" for unnamed), position (or ""), radical mark, stroke types.
fn part(element: &str, position: &str, radical: bool, strokes: &str) -> Part {
    let named = |text: &str| (!text.is_empty()).then(|| text.to_string());
    Part {
        element: named(element),
        position: named(position),
        radical,
        strokes: strokes.chars().collect(),
    }
}

fn layout(parts: Vec<Part>) -> Layout {
    let strokes = parts.iter().flat_map(|p| p.strokes.clone()).collect();
    Layout { parts, strokes }
}

fn shape<'a>(literal: &'a str, layout: &'a Layout) -> Shape<'a> {
    let strokes = u8::try_from(layout.strokes.len()).expect("a kanji has few strokes");
    Shape {
        literal,
        strokes,
        radical: None,
        jlpt: true,
        layout,
    }
}

fn rule(a: (&str, &Layout), b: (&str, &Layout)) -> Option<Rule> {
    rule_for(&shape(a.0, a.1), &shape(b.0, b.1), &BTreeSet::new())
}

const TERA: &str = "㇐㇑㇐㇐㇚㇔";

#[test]
fn same_body_with_another_radical() {
    let wait = layout(vec![
        part("彳", "left", true, "㇒㇒㇑"),
        part("寺", "right", false, TERA),
    ]);
    let hold = layout(vec![
        part("扌", "left", true, "㇐㇚㇀"),
        part("寺", "right", false, TERA),
    ]);
    assert_eq!(
        rule(("待", &wait), ("持", &hold)),
        Some(Rule::SameBodyOtherRadical)
    );
    // On another side the body must make up 2/3 of both kanji: 寺 above 口 does, above 言
    // it does not.
    let mouth = layout(vec![
        part("寺", "top", false, TERA),
        part("口", "bottom", true, "㇑㇕㇐"),
    ]);
    assert_eq!(
        rule(("待", &wait), ("x", &mouth)),
        Some(Rule::SameBodyLoose)
    );
    let words = "㇔㇐㇐㇐㇑㇕㇐";
    let speech = layout(vec![
        part("寺", "top", false, TERA),
        part("言", "bottom", true, words),
    ]);
    assert_eq!(rule(("待", &wait), ("y", &speech)), None);
}

#[test]
fn same_strokes_and_added_strokes() {
    let earth = layout(vec![part("", "", false, "㇐"), part("", "", false, "㇑㇐")]);
    let scholar = layout(vec![part("", "", false, "㇐㇑"), part("", "", false, "㇐")]);
    assert_eq!(
        rule(("土", &earth), ("士", &scholar)),
        Some(Rule::SameStrokes)
    );
    let big = layout(vec![part("", "", false, "㇐㇒㇏")]);
    let fat = layout(vec![
        part("大", "top", true, "㇐㇒㇏"),
        part("丶", "bottom", false, "㇔"),
    ]);
    assert_eq!(rule(("大", &big), ("太", &fat)), Some(Rule::StrokeAdded));
}

#[test]
fn same_enclosure_and_added_radical() {
    let gate = "㇑㇕㇐㇐㇑㇆㇐㇐";
    let between = layout(vec![
        part("門", "kamae", true, gate),
        part("日", "", false, "㇑㇕㇐㇐"),
    ]);
    let ask = layout(vec![
        part("門", "kamae", false, gate),
        part("口", "", true, "㇑㇕㇐"),
    ]);
    assert_eq!(
        rule(("間", &between), ("問", &ask)),
        Some(Rule::SameEnclosure)
    );
    let degree = layout(vec![
        part("广", "tare", true, "㇔㇐㇒"),
        part("", "tarec", false, "㇐㇑㇑㇐㇇㇏"),
    ]);
    let cross = layout(vec![
        part("氵", "left", true, "㇔㇔㇀"),
        part("度", "right", false, "㇔㇐㇒㇐㇑㇑㇐㇇㇏"),
    ]);
    assert_eq!(
        rule(("度", &degree), ("渡", &cross)),
        Some(Rule::RadicalAdded)
    );
}

#[test]
fn one_part_swapped_needs_a_dominant_or_look_alike_part() {
    let food = "㇒㇏㇔㇕㇐㇐㇙㇔";
    let rice = layout(vec![
        part("飠", "left", true, food),
        part("反", "right", false, "㇒㇒㇇㇏"),
    ]);
    let drink = layout(vec![
        part("飠", "left", true, food),
        part("欠", "right", false, "㇒㇇㇒㇏"),
    ]);
    assert_eq!(
        rule(("飯", &rice), ("飲", &drink)),
        Some(Rule::DominantPartShared)
    );
    // 宀 is too small a share of 家 and 宿 to make them look alike.
    let house = layout(vec![
        part("宀", "top", true, "㇑㇔㇖"),
        part("豕", "bottom", false, "㇐㇒㇁㇒㇒㇒㇏"),
    ]);
    let inn = layout(vec![
        part("宀", "top", true, "㇑㇔㇖"),
        part("佰", "bottom", false, "㇒㇑㇐㇔㇑㇕㇐㇐"),
    ]);
    assert_eq!(rule(("家", &house), ("宿", &inn)), None);
    let parts = BTreeSet::from([("豕".to_string(), "佰".to_string())]);
    let found = rule_for(&shape("家", &house), &shape("宿", &inn), &parts);
    assert_eq!(found, Some(Rule::SimilarPartSwapped));
}

fn entry(literal: &str, strokes: u8) -> KanjidicEntry {
    KanjidicEntry {
        literal: literal.to_string(),
        stroke_count: Some(strokes),
        ..Default::default()
    }
}

#[test]
fn pairs_are_symmetric_and_skip_variants_and_self() {
    let mut sources = KanjiSources::default();
    let body = part("寺", "right", false, TERA);
    let hen = [
        ("待", "彳", "㇒㇒㇑"),
        ("持", "扌", "㇐㇚㇀"),
        ("侍", "亻", "㇒㇑"),
    ];
    for (literal, radical, strokes) in hen {
        let found = layout(vec![part(radical, "left", true, strokes), body.clone()]);
        let c = literal.chars().next().expect("one kanji");
        sources.entries.push(entry(
            literal,
            u8::try_from(found.strokes.len()).expect("few"),
        ));
        sources.layouts.insert(c, found);
    }
    sources
        .kanjium
        .lookalikes
        .insert("待".into(), vec!["待".into(), "特".into()]);
    sources
        .kanjium
        .variants
        .insert("侍".into(), vec!["持".into()]);
    let lists = similar_kanji(&sources);
    let names = |k: &str| -> Vec<(String, String)> {
        lists[k]
            .iter()
            .map(|s| (s.literal.clone(), s.basis.clone()))
            .collect()
    };
    let derived = "derived: same-body-other-radical".to_string();
    // 特 is not built, 待/待 is itself, 侍/持 are variants: only the derived pairs stay.
    assert_eq!(
        names("待"),
        [
            ("持".into(), derived.clone()),
            ("侍".into(), derived.clone())
        ]
    );
    assert_eq!(names("持"), [("待".into(), derived.clone())]);
    assert_eq!(names("侍"), [("待".into(), derived)]);
}

#[test]
fn the_editors_table_pairs_two_different_kanji_once_each_with_a_reason() {
    let mut seen = BTreeSet::new();
    for line in EDITORS_TABLE.lines().skip(1) {
        let columns: Vec<&str> = line.split('\t').collect();
        let [a, b, why] = columns.as_slice() else {
            panic!("three columns: {line}");
        };
        assert_eq!(a.chars().count(), 1, "{line}");
        assert_eq!(b.chars().count(), 1, "{line}");
        assert_ne!(a, b, "{line}");
        assert!(!why.trim().is_empty(), "{line}");
        let pair = if a < b { (*a, *b) } else { (*b, *a) };
        assert!(seen.insert(pair), "listed twice: {line}");
    }
    assert_eq!(editors_pairs().count(), seen.len());
}
