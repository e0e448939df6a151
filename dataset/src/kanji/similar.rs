//! Visually similar kanji ("look-alikes"): kanjium's curated pairs, plus pairs the
//! editors' rules derive from KanjiVG's decomposition of each kanji into top-level parts
//! (see [`Rule`] and `docs/dataset.md`, "similar kanji"). Pairs are symmetric, never
//! join a kanji to itself or to one of its variant forms, and name their basis:
//! `kanjium` or `derived: <rule>`.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::kanji::SimilarKanji;

use super::KanjiSources;
use crate::kanjivg::{Layout, Part};

pub const KANJIUM: &str = "kanjium";
/// The basis of the pairs in the editors' table (`content/lookalikes.tsv`).
pub const EDITORS: &str = "editors";
/// The basis prefix of derived pairs: `derived: <rule>`.
pub const DERIVED: &str = "derived";
/// `verify` fails when fewer JLPT kanji than this have a look-alike.
pub const JLPT_WITH_SIMILAR_PERCENT_MIN: usize = 80;
/// Look-alikes listed per kanji; kanjium's pairs are kept even beyond it.
const LOOKALIKES_MAX: usize = 5;
/// Stroke counts of two look-alikes differ by at most this much ...
const STROKE_GAP_MAX: u8 = 2;
/// ... except for two kanji sharing their body, whose radicals may differ more.
const BODY_STROKE_GAP_MAX: u8 = 5;
/// A shared body has at least this many strokes ...
const BODY_STROKES_MIN: usize = 3;
/// ... and is at most this many strokes smaller than either radical.
const BODY_SMALLER_MAX: usize = 3;
/// A radical added to a whole kanji has at most this many strokes, and the kanji at
/// least twice as many.
const ADDED_RADICAL_STROKES_MAX: usize = 4;
/// Strokes added to a whole kanji in `stroke-added` (1) and `two-strokes-added` (2).
const ADDED_STROKES_MAX: usize = 2;
/// The shared parts make up at least this share (numerator, denominator) of both kanji.
const DOMINANT_SHARE: (usize, usize) = (3, 5);
/// Positions KanjiVG gives an enclosing part: kamae (門, 囗) for `same-enclosure`,
/// tare and nyō (广, 辶) for the fallback `same-frame`.
const ENCLOSURES: [&str; 3] = ["kamae", "tare", "nyo"];
const KAMAE: &str = "kamae";
/// Right-hand radicals (tsukuri) that KanjiVG can see as the body of a kanji: sharing
/// one of them says little (所/祈, 牧/赦), so such pairs are only the fallback.
const TSUKURI: [&str; 13] = [
    "攵", "攴", "斤", "欠", "殳", "戈", "力", "又", "寸", "卩", "⻏", "刂", "彡",
];
/// A body seen on another side must make up at least this share of both kanji.
const MOVED_BODY_SHARE: (usize, usize) = (3, 5);

/// The editors' look-alike rules. The fallback rules ([`Rule::is_fallback`]) only give a
/// JLPT kanji that has no look-alike yet its first one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The same stroke types in the same order (土/士, 未/末).
    SameStrokes,
    /// One kanji is a part of the other, plus one stroke that is not a side of its own
    /// (大/太, 白/百; not 日/旧).
    StrokeAdded,
    /// Radical + body, the same body on the same side, another radical (待/持, 低/抵).
    SameBodyOtherRadical,
    /// The same layout with one part swapped for a look-alike part (汗/汁, 苦/草).
    SimilarPartSwapped,
    /// The same enclosing kamae around another content (間/問, 困/固).
    SameEnclosure,
    /// One kanji is the body of the other, which adds a small radical (度/渡, 列/烈).
    RadicalAdded,
    /// Fallback: the same layout with one part swapped, the shared parts at least 3/5 of
    /// both kanji (飯/飲, 順/須).
    DominantPartShared,
    /// Fallback: the same body with another radical, on another side where the body is
    /// 3/5 of both kanji (偏/遍, 感/減), or on the same side but small (素/責) or a
    /// right-hand radical (所/祈).
    SameBodyLoose,
    /// Fallback: the same tare or nyō around another content (遠/違, 庁/広).
    SameFrame,
    /// One kanji is a part of the other, plus two strokes (巾/市): only makes two parts
    /// alike for `similar-part-swapped`, never pairs two kanji (企/止 are not alike).
    TwoStrokesAdded,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::SameStrokes => "same-strokes",
            Rule::StrokeAdded => "stroke-added",
            Rule::SameBodyOtherRadical => "same-body-other-radical",
            Rule::SimilarPartSwapped => "similar-part-swapped",
            Rule::SameEnclosure => "same-enclosure",
            Rule::RadicalAdded => "radical-added",
            Rule::DominantPartShared => "dominant-part-shared",
            Rule::SameBodyLoose => "same-body-loose",
            Rule::SameFrame => "same-frame",
            Rule::TwoStrokesAdded => "two-strokes-added",
        }
    }

    /// Closer likeness first when a kanji has more candidates than it may list.
    fn rank(self) -> u8 {
        match self {
            Rule::SameStrokes => 0,
            Rule::StrokeAdded => 1,
            Rule::SameBodyOtherRadical | Rule::SimilarPartSwapped | Rule::SameEnclosure => 2,
            Rule::RadicalAdded
            | Rule::DominantPartShared
            | Rule::SameBodyLoose
            | Rule::SameFrame
            | Rule::TwoStrokesAdded => 3,
        }
    }

    pub fn is_fallback(self) -> bool {
        matches!(
            self,
            Rule::RadicalAdded
                | Rule::DominantPartShared
                | Rule::SameBodyLoose
                | Rule::SameFrame
                | Rule::TwoStrokesAdded
        )
    }
}

/// What the rules see of one kanji.
pub struct Shape<'a> {
    pub literal: &'a str,
    /// KANJIDIC2's stroke count.
    pub strokes: u8,
    /// KANJIDIC2's classical radical number.
    pub radical: Option<u8>,
    pub jlpt: bool,
    pub layout: &'a Layout,
}

fn part_strokes(part: &Part) -> usize {
    part.strokes.len()
}

/// Two parts are the same component: the same named element drawn with as many strokes
/// (州's three dots are not 刃's one), or (when either is unnamed) the same strokes.
fn same_part(a: &Part, b: &Part) -> bool {
    match (&a.element, &b.element) {
        (Some(x), Some(y)) => x == y && a.strokes.len() == b.strokes.len(),
        _ => a.strokes == b.strokes,
    }
}

/// (radical, body) of a kanji of exactly two parts, one of them marked radical.
fn radical_and_body(layout: &Layout) -> Option<(&Part, &Part)> {
    let [first, second] = layout.parts.as_slice() else {
        return None;
    };
    match (first.radical, second.radical) {
        (true, false) => Some((first, second)),
        (false, true) => Some((second, first)),
        _ => None,
    }
}

/// The side a body sits on; a body on a nyō or under a tare is not one right of a hen
/// (延/柾, 庄/吐 do not look alike), and an enclosure or other position is no side.
fn side(position: Option<&str>) -> Option<char> {
    match position {
        None => Some('-'),
        Some("right") => Some('r'),
        Some("nyoc") => Some('n'),
        Some("tarec") => Some('u'),
        Some("left") => Some('l'),
        Some("top") => Some('t'),
        Some("bottom") => Some('b'),
        Some(_) => None,
    }
}

/// How many strokes `larger` adds to `whole` when `whole` is one of its parts and the
/// rest is no side of its own (肌 is 月 and 几 side by side: a new kanji, not a new look).
fn strokes_added(whole: &Shape<'_>, larger: &Shape<'_>) -> Option<usize> {
    let parts = &larger.layout.parts;
    let total: usize = parts.iter().map(part_strokes).sum();
    let found = parts
        .iter()
        .find(|part| part.element.as_deref() == Some(whole.literal))?;
    let side_by_side = parts
        .iter()
        .any(|part| matches!(part.position.as_deref(), Some("left" | "right")));
    (parts.len() >= 2 && !side_by_side).then(|| total - part_strokes(found))
}

/// The rules that need no other pair: also what makes two parts look alike.
fn base_rule(a: &Shape<'_>, b: &Shape<'_>) -> Option<Rule> {
    if a.strokes.abs_diff(b.strokes) > STROKE_GAP_MAX {
        None
    } else if a.layout.strokes == b.layout.strokes {
        Some(Rule::SameStrokes)
    } else {
        match strokes_added(a, b).or_else(|| strokes_added(b, a)) {
            Some(1) => Some(Rule::StrokeAdded),
            Some(ADDED_STROKES_MAX) => Some(Rule::TwoStrokesAdded),
            _ => None,
        }
    }
}

/// A body right of a hen and one on a nyō or under a tare (低/底, 偏/遍): alike, but
/// less than two bodies on the same side.
fn near_sides(a: Option<char>, b: Option<char>) -> bool {
    matches!(
        (a, b),
        (Some('r'), Some('n' | 'u')) | (Some('n' | 'u'), Some('r'))
    )
}

/// Radical + body with the same body and another radical. On the same side the body is
/// at least [`BODY_STROKES_MIN`] strokes and, beside a hen, at most
/// [`BODY_SMALLER_MAX`] strokes smaller than either radical (above or below one, no
/// smaller): the main rule. A smaller body, a body right of a hen against one on a nyō
/// or under a tare, or the body on another side making up 3/5 of both kanji, is the
/// fallback `same-body-loose`.
fn same_body(a: &Shape<'_>, b: &Shape<'_>) -> Option<Rule> {
    let (Some((radical_a, body_a)), Some((radical_b, body_b))) =
        (radical_and_body(a.layout), radical_and_body(b.layout))
    else {
        return None;
    };
    let body = part_strokes(body_a);
    // A body is a named component (昌, 㑒): unnamed strokes of the same kinds (the
    // 丨丨 left of 井's 二, the strokes of 在 beside 土) are no shared body.
    let named = body_a.element.is_some() && body_b.element.is_some();
    let fits = a.strokes.abs_diff(b.strokes) <= BODY_STROKE_GAP_MAX
        && named
        && same_part(body_a, body_b)
        && !same_part(radical_a, radical_b)
        && body >= BODY_STROKES_MIN;
    if !fits {
        return None;
    }
    let side_a = side(body_a.position.as_deref());
    let same_side = side_a.is_some() && side(body_b.position.as_deref()) == side_a;
    let smaller_max = if side_a == Some('r') {
        BODY_SMALLER_MAX
    } else {
        0
    };
    let tsukuri = body_a
        .element
        .as_deref()
        .is_some_and(|element| TSUKURI.contains(&element));
    let big_enough = body + smaller_max >= part_strokes(radical_a)
        && body + smaller_max >= part_strokes(radical_b)
        && !tsukuri;
    let (share, of) = MOVED_BODY_SHARE;
    let dominant = |strokes: u8| body * of >= usize::from(strokes) * share;
    let near = near_sides(side_a, side(body_b.position.as_deref()));
    if same_side && big_enough {
        Some(Rule::SameBodyOtherRadical)
    } else if same_side || near || (dominant(a.strokes) && dominant(b.strokes)) {
        Some(Rule::SameBodyLoose)
    } else {
        None
    }
}

fn radical_added(whole: &Shape<'_>, larger: &Shape<'_>) -> bool {
    let Some((radical, body)) = radical_and_body(larger.layout) else {
        return false;
    };
    let radical = part_strokes(radical);
    body.element.as_deref() == Some(whole.literal)
        && radical <= ADDED_RADICAL_STROKES_MAX
        && usize::from(whole.strokes) >= 2 * radical
}

fn enclosure(layout: &Layout) -> Option<&Part> {
    layout.parts.iter().find(|part| {
        part.element.is_some()
            && part
                .position
                .as_deref()
                .is_some_and(|position| ENCLOSURES.contains(&position))
    })
}

fn same_enclosure(a: &Shape<'_>, b: &Shape<'_>) -> Option<Rule> {
    let two_parts = a.layout.parts.len() == 2 && b.layout.parts.len() == 2;
    let (Some(x), Some(y)) = (enclosure(a.layout), enclosure(b.layout)) else {
        return None;
    };
    let same = x.element == y.element && x.position == y.position;
    if a.strokes.abs_diff(b.strokes) > STROKE_GAP_MAX || !two_parts || !same {
        None
    } else if x.position.as_deref() == Some(KAMAE) {
        Some(Rule::SameEnclosure)
    } else {
        Some(Rule::SameFrame)
    }
}

/// The same layout with exactly one part swapped: for a look-alike part, or keeping the
/// dominant shared parts.
fn one_part_swapped(
    a: &Shape<'_>,
    b: &Shape<'_>,
    similar_parts: &BTreeSet<(String, String)>,
) -> Option<Rule> {
    let (parts_a, parts_b) = (&a.layout.parts, &b.layout.parts);
    let same_layout = parts_a.len() == parts_b.len()
        && parts_a.len() >= 2
        && parts_a
            .iter()
            .zip(parts_b)
            .all(|(x, y)| x.position == y.position);
    if a.strokes.abs_diff(b.strokes) > STROKE_GAP_MAX || !same_layout {
        return None;
    }
    let differing: Vec<usize> = (0..parts_a.len())
        .filter(|&i| !same_part(&parts_a[i], &parts_b[i]))
        .collect();
    let [swapped] = differing.as_slice() else {
        return None;
    };
    let (x, y) = (&parts_a[*swapped], &parts_b[*swapped]);
    if let (Some(x), Some(y)) = (&x.element, &y.element)
        && similar_parts.contains(&(x.clone(), y.clone()))
    {
        return Some(Rule::SimilarPartSwapped);
    }
    // Two parts, one of them the radical both kanji are classed under: what they share
    // is only that radical (訪/訟 share 言, 針/釣 share 金), no likeness.
    if parts_a.len() == 2 && a.radical.is_some() && a.radical == b.radical {
        return None;
    }
    let shared: usize = parts_a.iter().map(part_strokes).sum::<usize>() - part_strokes(x);
    let (share, of) = DOMINANT_SHARE;
    let dominant = |strokes: u8| shared * of >= usize::from(strokes) * share;
    (dominant(a.strokes) && dominant(b.strokes)).then_some(Rule::DominantPartShared)
}

/// The first rule that makes `a` and `b` look-alikes, if any.
pub fn rule_for(
    a: &Shape<'_>,
    b: &Shape<'_>,
    similar_parts: &BTreeSet<(String, String)>,
) -> Option<Rule> {
    let base = base_rule(a, b).filter(|rule| *rule != Rule::TwoStrokesAdded);
    if let Some(rule) = base.or_else(|| same_body(a, b)) {
        Some(rule)
    } else if radical_added(a, b) || radical_added(b, a) {
        Some(Rule::RadicalAdded)
    } else {
        same_enclosure(a, b).or_else(|| one_part_swapped(a, b, similar_parts))
    }
}

/// CJK compatibility ideographs are duplicates of unified kanji, never look-alikes.
fn is_compatibility_form(literal: &str) -> bool {
    literal
        .chars()
        .any(|c| matches!(c, '\u{F900}'..='\u{FAFF}' | '\u{2F800}'..='\u{2FA1F}'))
}

fn shapes(sources: &KanjiSources) -> Vec<Shape<'_>> {
    sources
        .entries
        .iter()
        .filter(|entry| !is_compatibility_form(&entry.literal))
        .filter_map(|entry| {
            let literal = entry.literal.chars().next()?;
            Some(Shape {
                literal: &entry.literal,
                strokes: entry.stroke_count?,
                radical: entry.radical,
                jlpt: sources.level_of(entry, literal).level.is_some(),
                layout: sources.layouts.get(&literal)?,
            })
        })
        .collect()
}

fn is_variant(sources: &KanjiSources, a: &str, b: &str) -> bool {
    let listed = |x: &str, y: &str| {
        sources
            .kanjium
            .variants
            .get(x)
            .is_some_and(|forms| forms.iter().any(|form| form == y))
    };
    a == b || listed(a, b) || listed(b, a)
}

/// Pairs of parts that look alike: kanjium's pairs and the base rules' pairs.
fn similar_parts(sources: &KanjiSources, shapes: &[Shape<'_>]) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    for (kanji, others) in &sources.kanjium.lookalikes {
        for other in others {
            pairs.insert((kanji.clone(), other.clone()));
            pairs.insert((other.clone(), kanji.clone()));
        }
    }
    for (i, a) in shapes.iter().enumerate() {
        for b in &shapes[i + 1..] {
            if !is_variant(sources, a.literal, b.literal) && base_rule(a, b).is_some() {
                pairs.insert((a.literal.to_string(), b.literal.to_string()));
                pairs.insert((b.literal.to_string(), a.literal.to_string()));
            }
        }
    }
    pairs
}

struct Derived<'a> {
    a: &'a str,
    b: &'a str,
    /// Which ends are JLPT kanji.
    jlpt: (bool, bool),
    rule: Rule,
    /// Both ends JLPT kanji, stroke gap, rule rank: the order pairs are taken in.
    order: (Reverse<u8>, u8, u8),
}

fn derived_pairs<'a>(sources: &KanjiSources, shapes: &'a [Shape<'a>]) -> Vec<Derived<'a>> {
    let parts = similar_parts(sources, shapes);
    let mut found = Vec::new();
    for (i, a) in shapes.iter().enumerate() {
        for b in &shapes[i + 1..] {
            if a.strokes.abs_diff(b.strokes) > BODY_STROKE_GAP_MAX
                || is_variant(sources, a.literal, b.literal)
            {
                continue;
            }
            if let Some(rule) = rule_for(a, b, &parts) {
                let jlpt = u8::from(a.jlpt) + u8::from(b.jlpt);
                found.push(Derived {
                    a: a.literal,
                    b: b.literal,
                    jlpt: (a.jlpt, b.jlpt),
                    rule,
                    order: (Reverse(jlpt), a.strokes.abs_diff(b.strokes), rule.rank()),
                });
            }
        }
    }
    found.sort_by(|x, y| (x.order, x.a, x.b).cmp(&(y.order, y.a, y.b)));
    found
}

type Lists = BTreeMap<String, Vec<SimilarKanji>>;

fn listed(lists: &Lists, a: &str, b: &str) -> bool {
    lists
        .get(a)
        .is_some_and(|list| list.iter().any(|known| known.literal == b))
}

fn count(lists: &Lists, a: &str) -> usize {
    lists.get(a).map_or(0, Vec::len)
}

/// Adds the pair both ways, unless it is already listed.
fn add_pair(lists: &mut Lists, a: &str, b: &str, basis: &str) {
    for (from, to) in [(a, b), (b, a)] {
        if !listed(lists, from, to) {
            lists
                .entry(from.to_string())
                .or_default()
                .push(SimilarKanji {
                    literal: to.to_string(),
                    basis: basis.to_string(),
                });
        }
    }
}

/// Whether a derived pair is taken in this pass: the first pass gives kanji without a
/// look-alike their first one (a fallback rule only for a JLPT kanji), the second fills
/// each list up to [`LOOKALIKES_MAX`] from the main rules.
fn takes(lists: &Lists, pair: &Derived<'_>, first_pass: bool) -> bool {
    let (a, b) = (count(lists, pair.a), count(lists, pair.b));
    let lacking_jlpt = (a == 0 && pair.jlpt.0) || (b == 0 && pair.jlpt.1);
    let wanted = match (first_pass, pair.rule.is_fallback()) {
        (true, false) => a == 0 || b == 0,
        (true, true) => lacking_jlpt,
        (false, false) => true,
        (false, true) => false,
    };
    wanted && a < LOOKALIKES_MAX && b < LOOKALIKES_MAX && !listed(lists, pair.a, pair.b)
}

/// The editors' table of look-alike pairs no rule derives (温/湿, 馬/鳥, 験/検), each row
/// `kanji, kanji, why a learner mixes them up`.
const EDITORS_TABLE: &str = include_str!("../../content/lookalikes.tsv");

fn editors_pairs() -> impl Iterator<Item = (&'static str, &'static str)> {
    crate::editors::rows(EDITORS_TABLE)
        .filter_map(|columns| Some((*columns.first()?, *columns.get(1)?)))
}

/// Similar kanji per kanji: kanjium's pairs first, then the editors' table (both ways, both ends built), then
/// derived pairs in [`Derived::order`], as [`takes`] allows.
pub fn similar_kanji(sources: &KanjiSources) -> Lists {
    let built: BTreeSet<&str> = sources.entries.iter().map(|e| e.literal.as_str()).collect();
    let mut lists = Lists::new();
    for (kanji, others) in &sources.kanjium.lookalikes {
        for other in others {
            if kanji != other && built.contains(kanji.as_str()) && built.contains(other.as_str()) {
                add_pair(&mut lists, kanji, other, KANJIUM);
            }
        }
    }
    for (kanji, other) in editors_pairs() {
        if built.contains(kanji) && built.contains(other) {
            add_pair(&mut lists, kanji, other, EDITORS);
        }
    }
    let shapes = shapes(sources);
    let derived = derived_pairs(sources, &shapes);
    for first_pass in [true, false] {
        for pair in &derived {
            if takes(&lists, pair, first_pass) {
                let basis = format!("{DERIVED}: {}", pair.rule.name());
                add_pair(&mut lists, pair.a, pair.b, &basis);
            }
        }
    }
    lists
}

#[cfg(test)]
mod tests;
