//! The kana characters: every hiragana and katakana letter (with dakuten, handakuten and
//! the small letters), the yōon digraphs, the extended combinations of loanword
//! spelling (ファ, ティ, ヴァ, ...) in both scripts, the two digraph ligatures ゟ and ヿ,
//! and the small katakana of Ainu transcription. The inventory and romaji are the
//! editors' (romaji through the search crate's Hepburn rules); stroke counts and paths
//! come from KanjiVG where it has the character.

use manabi_schemas::kanji::CharacterDetail;
use manabi_schemas::{
    Domain, Learnable, LearnableBody, LearnableType, Relation, Script, WritingForm,
};
use manabi_search::kana;

use crate::context::{BuildContext, BuiltLearnable, Part};
use crate::{editors, ids, kanjivg};

/// The i-row kana that take small ゃ/ゅ/ょ to form yōon.
const YOON_BASES: [char; 12] = [
    'き', 'ぎ', 'し', 'じ', 'ち', 'ぢ', 'に', 'ひ', 'び', 'ぴ', 'み', 'り',
];
const SMALL_Y: [char; 3] = ['ゃ', 'ゅ', 'ょ'];
/// Two-letter combinations of loanword spelling, written here in hiragana.
#[rustfmt::skip]
const EXTENDED: [&str; 48] = [
    "ふぁ", "ふぃ", "ふぇ", "ふぉ", "ふゃ", "ふゅ", "ふょ", "てぃ", "てゅ", "でぃ", "でゅ",
    "とぅ", "どぅ", "うぃ", "うぇ", "うぉ", "ゔぁ", "ゔぃ", "ゔぇ", "ゔぉ", "ゔゅ", "しぇ",
    "じぇ", "ちぇ", "つぁ", "つぃ", "つぇ", "つぉ", "いぇ", "くぁ", "くぃ", "くぇ", "くぉ",
    "ぐぁ", "すぃ", "ずぃ", "きぇ", "ぎぇ", "にぇ", "ひぇ", "びぇ", "ぴぇ", "みぇ", "りぇ",
    "ゔゃ", "ゔょ", "くゎ", "ぐゎ",
];
/// The combinations of the Cabinet's 1991 notice on writing loanwords (外来語の表記), in
/// katakana: its first table (spellings in general use) and its second (for writing
/// closer to the original sound; its ヴ alone is a letter here, not a combination). Every other extended combination (ギェ, ヴャ, クヮ) is
/// outside the official spellings and says so.
#[rustfmt::skip]
const LOANWORD_TABLE_1: [&str; 13] = [
    "シェ", "チェ", "ツァ", "ツェ", "ツォ", "ティ", "ファ", "フィ", "フェ", "フォ", "ジェ", "ディ",
    "デュ",
];
#[rustfmt::skip]
const LOANWORD_TABLE_2: [&str; 19] = [
    "イェ", "ウィ", "ウェ", "ウォ", "クァ", "クィ", "クェ", "クォ", "ツィ", "トゥ", "グァ", "ドゥ",
    "ヴァ", "ヴィ", "ヴェ", "ヴォ", "テュ", "フュ", "ヴュ",
];

/// The tag of an extended combination by the 1991 loanword tables: `loanword-table-1`,
/// `loanword-table-2`, or `loanword-unofficial` for a combination neither table has.
pub fn loanword_tag(text: &str) -> &'static str {
    let katakana = kana::hiragana_to_katakana(text);
    if LOANWORD_TABLE_1.contains(&katakana.as_str()) {
        "loanword-table-1"
    } else if LOANWORD_TABLE_2.contains(&katakana.as_str()) {
        "loanword-table-2"
    } else {
        UNOFFICIAL
    }
}

/// The tag of an extended combination outside the official loanword spellings.
pub const UNOFFICIAL: &str = "loanword-unofficial";

/// Writing marks used with kana, with their romanized Japanese names (they have no
/// sound of their own) and their counterpart in the other script.
#[rustfmt::skip]
const MARKS: [(char, &str, &str, Option<char>, &str); 8] = [
    ('゛', "hiragana", "dakuten", None, "voicing mark"),
    ('゜', "hiragana", "handakuten", None, "semi-voicing mark"),
    ('ゝ', "hiragana", "ichinojiten", Some('ヽ'), "hiragana iteration mark"),
    ('ゞ', "hiragana", "ichinojiten", Some('ヾ'), "voiced hiragana iteration mark"),
    ('・', "katakana", "nakaguro", None, "middle dot"),
    ('ー', "katakana", "chouonpu", None, "long vowel mark"),
    ('ヽ', "katakana", "ichinojiten", Some('ゝ'), "katakana iteration mark"),
    ('ヾ', "katakana", "ichinojiten", Some('ゞ'), "voiced katakana iteration mark"),
];
/// Digraph ligatures with their readings.
const LIGATURES: [(char, &str); 2] = [('ゟ', "yori"), ('ヿ', "koto")];
/// Small katakana used in Ainu transcription (Katakana Phonetic Extensions).
#[rustfmt::skip]
const AINU_SMALL: [(char, &str); 16] = [
    ('ㇰ', "ku"), ('ㇱ', "shi"), ('ㇲ', "su"), ('ㇳ', "to"), ('ㇴ', "nu"), ('ㇵ', "ha"),
    ('ㇶ', "hi"), ('ㇷ', "fu"), ('ㇸ', "he"), ('ㇹ', "ho"), ('ㇺ', "mu"), ('ㇻ', "ra"),
    ('ㇼ', "ri"), ('ㇽ', "ru"), ('ㇾ', "re"), ('ㇿ', "ro"),
];

/// One character entry before it becomes a learnable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KanaSpec {
    pub text: String,
    pub script: &'static str,
    pub group: &'static str,
    pub romaji: String,
    pub counterpart: Option<String>,
    /// English description for marks; letters are described by script and romaji.
    pub meaning: Option<&'static str>,
}

fn is_small(c: char) -> bool {
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ".contains(c)
}

fn is_handakuten(c: char) -> bool {
    "ぱぴぷぺぽパピプペポ".contains(c)
}

fn is_dakuten(c: char) -> bool {
    let base = kana::katakana_to_hiragana(&c.to_string());
    "がぎぐげござじずぜぞだぢづでどばびぶべぼゔ".contains(base.as_str())
        || ('ヷ'..='ヺ').contains(&c)
}

/// The kana of wi and we, obsolete since the 1946 spelling reform (read i and e today).
const OBSOLETE: [(char, &str); 4] = [
    (
        'ゐ',
        "hiragana wi (obsolete since 1946; read i, written い today)",
    ),
    (
        'ゑ',
        "hiragana we (obsolete since 1946; read e, written え today)",
    ),
    (
        'ヰ',
        "katakana wi (obsolete since 1946; read i, written イ today)",
    ),
    (
        'ヱ',
        "katakana we (obsolete since 1946; read e, written エ today)",
    ),
];

fn obsolete_meaning(text: &str) -> Option<&'static str> {
    let c = only_char(text)?;
    OBSOLETE.iter().find(|(k, _)| *k == c).map(|(_, m)| *m)
}

/// The character `text` consists of, when it is exactly one.
fn only_char(text: &str) -> Option<char> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// The small katakana ヵ and ヶ are not letters read ka and ke in words: they are signs
/// written for the counter 箇 and the linking が, read か or が (3ヶ月 さんかげつ, 関ヶ原
/// せきがはら). Their romaji is the reading, and the description says so.
const COUNTER_SIGNS: [(char, &str, &str); 2] = [
    (
        'ヵ',
        "ka",
        "small katakana ka, written for the counter 箇 and read か (3ヵ月, さんかげつ)",
    ),
    (
        'ヶ',
        "ka",
        "small katakana ke, written for the counter 箇 and the linking が and read か or が, never ke (3ヶ月 さんかげつ, 関ヶ原 せきがはら)",
    ),
];

fn counter_sign(text: &str) -> Option<(&'static str, &'static str)> {
    let c = only_char(text)?;
    COUNTER_SIGNS
        .iter()
        .find(|(k, _, _)| *k == c)
        .map(|(_, romaji, meaning)| (*romaji, *meaning))
}

fn letter_group(c: char) -> &'static str {
    if obsolete_meaning(&c.to_string()).is_some() {
        "obsolete"
    } else if is_small(c) {
        "small"
    } else if is_handakuten(c) {
        "handakuten"
    } else if is_dakuten(c) {
        "dakuten"
    } else {
        "basic"
    }
}

/// The same kana in the other script, when that script has it.
fn counterpart(text: &str, script: &str) -> Option<String> {
    let other = if script == "hiragana" {
        kana::hiragana_to_katakana(text)
    } else {
        kana::katakana_to_hiragana(text)
    };
    (other != text).then_some(other)
}

fn spec(text: String, script: &'static str, group: &'static str) -> KanaSpec {
    // A lone sokuon has no Hepburn spelling of its own; it is named as the small つ it is.
    let sign = counter_sign(&text);
    let romaji = if matches!(text.as_str(), "っ" | "ッ") {
        "tsu".to_string()
    } else if let Some((romaji, _)) = sign {
        romaji.to_string()
    } else {
        kana::to_romaji(&text)
    };
    let counterpart = counterpart(&text, script);
    let meaning = obsolete_meaning(&text).or(sign.map(|(_, meaning)| meaning));
    KanaSpec {
        text,
        script,
        group,
        romaji,
        counterpart,
        meaning,
    }
}

/// The whole inventory, hiragana then katakana.
pub fn inventory() -> Vec<KanaSpec> {
    let mut specs = Vec::new();
    for (script, range) in [
        ("hiragana", '\u{3041}'..='\u{3096}'),
        ("katakana", '\u{30A1}'..='\u{30FA}'),
    ] {
        specs.extend(range.map(|c| spec(c.to_string(), script, letter_group(c))));
    }
    let hiragana_digraphs = YOON_BASES
        .iter()
        .flat_map(|base| SMALL_Y.map(|y| format!("{base}{y}")));
    for text in hiragana_digraphs {
        specs.push(spec(
            kana::hiragana_to_katakana(&text),
            "katakana",
            "digraph",
        ));
        specs.push(spec(text, "hiragana", "digraph"));
    }
    for text in EXTENDED {
        specs.push(spec(
            kana::hiragana_to_katakana(text),
            "katakana",
            "extended",
        ));
        specs.push(spec(text.to_string(), "hiragana", "extended"));
    }
    for (c, romaji) in LIGATURES {
        let script = if c == 'ゟ' { "hiragana" } else { "katakana" };
        let text = c.to_string();
        specs.push(KanaSpec {
            text,
            script,
            group: "digraph",
            romaji: romaji.to_string(),
            counterpart: None,
            meaning: None,
        });
    }
    for (c, script, name, other, meaning) in MARKS {
        specs.push(KanaSpec {
            text: c.to_string(),
            script,
            group: "mark",
            romaji: name.to_string(),
            counterpart: other.map(String::from),
            meaning: Some(meaning),
        });
    }
    for (c, romaji) in AINU_SMALL {
        let text = c.to_string();
        let romaji = romaji.to_string();
        specs.push(KanaSpec {
            text,
            script: "katakana",
            group: "small",
            romaji,
            counterpart: None,
            meaning: None,
        });
    }
    specs
}

fn learnable(ctx: &BuildContext, spec: &KanaSpec) -> anyhow::Result<Learnable> {
    let mut chars = spec.text.chars();
    let single = chars.next().filter(|_| chars.next().is_none());
    let strokes = match single {
        Some(c) => kanjivg::strokes_of(&ctx.source_dir("kanjivg"), c)?,
        None => Vec::new(),
    };
    let mut sources = vec![editors::cite(
        Some(spec.text.clone()),
        &["character", "script", "romaji", "group", "counterpart"],
    )];
    if let (Some(c), false) = (single, strokes.is_empty()) {
        let record = Some(format!("kanji/{:05x}.svg", c as u32));
        sources.push(
            ctx.pin("kanjivg")?
                .cite(record, &["stroke_count", "strokes"]),
        );
    }
    let script = if spec.script == "hiragana" {
        Script::Hiragana
    } else {
        Script::Katakana
    };
    Ok(Learnable {
        id: ids::kana(&spec.text),
        kind: LearnableType::Character,
        domain: Domain::Language,
        label: Some(spec.text.clone()),
        jlpt_level: None,
        is_common_word: None,
        canonical_name: None,
        pattern: None,
        meaning: Some(meaning(spec)),
        writing_forms: vec![WritingForm {
            text: spec.text.clone(),
            script,
        }],
        tags: tags(spec),
        body: LearnableBody::Character(CharacterDetail {
            character: spec.text.clone(),
            script: spec.script.to_string(),
            romaji: spec.romaji.clone(),
            group: spec.group.to_string(),
            counterpart: spec.counterpart.clone(),
            stroke_count: (!strokes.is_empty()).then(|| strokes.len().min(255) as u8),
            strokes,
        }),
        sources,
        cross_checks: Vec::new(),
    })
}

/// The script, the group, and for an extended combination its standing in the loanword
/// tables.
fn tags(spec: &KanaSpec) -> Vec<String> {
    let mut tags = vec![spec.script.to_string(), spec.group.to_string()];
    if spec.group == "extended" {
        tags.push(loanword_tag(&spec.text).to_string());
    }
    tags
}

/// A mark's description, or a letter's script and romaji; a combination outside the
/// official loanword spellings, or one written in hiragana, says how it is used.
fn meaning(spec: &KanaSpec) -> String {
    if let Some(meaning) = spec.meaning {
        return meaning.to_string();
    }
    let letter = format!("{} {}", spec.script, spec.romaji);
    if spec.group == "small" {
        small_meaning(spec)
    } else if spec.group != "extended" {
        letter
    } else if loanword_tag(&spec.text) == UNOFFICIAL {
        format!(
            "{letter} (outside the official loanword spellings of 1991; met in transcribed foreign names)"
        )
    } else if spec.script == "hiragana" {
        format!("{letter} (loanword sounds are written in katakana; in hiragana only for effect)")
    } else {
        letter
    }
}

/// A small letter says it is small and what it does: ゃ is no や.
fn small_meaning(spec: &KanaSpec) -> String {
    let c = spec.text.chars().next().unwrap_or_default();
    let hiragana = kana::katakana_to_hiragana(&spec.text);
    let use_of = if ('\u{31F0}'..='\u{31FF}').contains(&c) {
        "in Ainu transcription"
    } else {
        match hiragana.as_str() {
            "ゃ" => "joins the kana before it: きゃ kya",
            "ゅ" => "joins the kana before it: きゅ kyu",
            "ょ" => "joins the kana before it: きょ kyo",
            "っ" => "doubles the next consonant: きって kitte",
            "ぁ" => "joins the kana before it in extended sounds: ファ fa",
            "ぃ" => "joins the kana before it in extended sounds: ティ ti",
            "ぅ" => "joins the kana before it in extended sounds: トゥ tu",
            "ぇ" => "joins the kana before it in extended sounds: シェ she",
            "ぉ" => "joins the kana before it in extended sounds: フォ fo",
            "ゎ" => "joins く or ぐ in old spellings: くゎ kwa",
            _ => "a counter sign or a small letter of old texts",
        }
    };
    format!("small {} {} ({use_of})", spec.script, spec.romaji)
}

fn edge(from: String, to: String, kind: &str) -> Relation {
    Relation {
        from,
        to,
        kind: kind.to_string(),
        basis: editors::EDITORS.to_string(),
    }
}

/// Counterpart edges (`hiragana-of` from the hiragana, `katakana-of` from the katakana)
/// and, for two-letter kana, the letters they are written with.
fn relations(spec: &KanaSpec) -> Vec<Relation> {
    let id = ids::kana(&spec.text);
    let mut edges = Vec::new();
    if let Some(other) = &spec.counterpart {
        let kind = if spec.script == "hiragana" {
            "hiragana-of"
        } else {
            "katakana-of"
        };
        edges.push(edge(id.clone(), ids::kana(other), kind));
    }
    if spec.text.chars().count() > 1 {
        for letter in spec.text.chars() {
            let letter_id = ids::kana(&letter.to_string());
            edges.push(edge(id.clone(), letter_id.clone(), "has-component"));
            edges.push(edge(letter_id, id.clone(), "component-of"));
        }
    }
    edges
}

/// Builds every kana entry; all of them are in the evaluation sample.
pub fn build(ctx: &BuildContext) -> anyhow::Result<Part> {
    let mut part = Part::default();
    for spec in inventory() {
        part.relations.extend(relations(&spec));
        part.learnables.push(BuiltLearnable {
            learnable: learnable(ctx, &spec)?,
            sample: true,
        });
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_signs_are_read_as_they_are_used() {
        let specs = inventory();
        let ke = specs
            .iter()
            .find(|spec| spec.text == "ヶ")
            .expect("in the inventory");
        assert_eq!(ke.romaji, "ka");
        assert!(
            ke.meaning
                .is_some_and(|m| m.contains("関ヶ原") && m.contains("never ke"))
        );
        let ku = specs
            .iter()
            .find(|spec| spec.text == "ク")
            .expect("in the inventory");
        assert_eq!((ku.romaji.as_str(), ku.meaning), ("ku", None));
    }

    #[test]
    fn extended_kana_say_where_the_official_spellings_stand() {
        assert_eq!(loanword_tag("ファ"), "loanword-table-1");
        assert_eq!(loanword_tag("ゔぁ"), "loanword-table-2");
        assert_eq!(loanword_tag("ギェ"), UNOFFICIAL);
        let specs = inventory();
        let spec = |text: &str| specs.iter().find(|s| s.text == text).expect(text);
        assert_eq!(meaning(spec("ティ")), "katakana ti");
        assert!(meaning(spec("ヴャ")).contains("outside the official"));
        assert!(meaning(spec("ふぁ")).contains("written in katakana"));
        assert_eq!(meaning(spec("か")), "hiragana ka");
        assert_eq!(
            meaning(spec("ゃ")),
            "small hiragana ya (joins the kana before it: きゃ kya)"
        );
        assert!(meaning(spec("ッ")).starts_with("small katakana"));
        // Each small letter's example is of that letter.
        for small in ["ゃ", "ゅ", "ょ", "ぁ", "ぃ", "ぅ", "ぇ", "ぉ"] {
            let said = meaning(spec(small));
            let example = said.split(": ").nth(1).expect("an example");
            let shown = kana::katakana_to_hiragana(example);
            assert!(shown.contains(small), "{small}: {said}");
        }
        assert!(tags(spec("クヮ")).contains(&UNOFFICIAL.to_string()));
        let table: usize = LOANWORD_TABLE_1.len() + LOANWORD_TABLE_2.len();
        let official = EXTENDED
            .iter()
            .filter(|t| loanword_tag(t) != UNOFFICIAL)
            .count();
        assert_eq!(
            official, table,
            "every combination of the tables is an entry"
        );
    }

    #[test]
    fn inventory_covers_letters_digraphs_and_extended_kana() {
        let specs = inventory();
        let find = |text: &str| specs.iter().find(|spec| spec.text == text).cloned();
        let kya = find("きゃ").expect("yōon");
        assert_eq!((kya.romaji.as_str(), kya.group), ("kya", "digraph"));
        assert_eq!(kya.counterpart.as_deref(), Some("キャ"));
        let fa = find("ファ").expect("extended");
        assert_eq!(fa.romaji, "fa");
        assert_eq!(find("ヴ").expect("vu").group, "dakuten");
        assert_eq!(find("ぱ").expect("pa").group, "handakuten");
        assert_eq!(find("ゃ").expect("small ya").group, "small");
        let we = find("ゑ").expect("we");
        assert_eq!(we.group, "obsolete");
        assert!(we.meaning.is_some_and(|m| m.contains("obsolete")));
        assert_eq!(find("ヺ").expect("vo").counterpart, None);
        let mut texts: Vec<&str> = specs.iter().map(|spec| spec.text.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), specs.len(), "no character twice");
    }
}
