//! A small dataset artifact written with the real `ArtifactWriter`, covering every kind
//! of document, the sample flag and the relation graph. Entries are realistic enough for
//! the ranking contract: written forms, kana readings, romaji, English meanings.

use std::path::Path;

use manabi_artifact::{ARTIFACT_FORMAT, ArtifactWriter, Manifest, Record};
use manabi_schemas::{Domain, LearnableSummary, LearnableType, Relation, Script, WritingForm};
use manabi_search::Surface;
use manabi_search::kana;
use serde_json::value::RawValue;

/// One fixture learnable.
pub struct Fixture {
    pub id: &'static str,
    pub kind: LearnableType,
    pub level: Option<u8>,
    pub common: bool,
    pub forms: &'static [&'static str],
    pub readings: &'static [&'static str],
    pub meanings: &'static [&'static str],
    pub aliases: &'static [&'static str],
    pub frequency: Option<u32>,
    pub sample: bool,
}

// One row of the fixture table: positional on purpose, so the table reads as a table.
#[allow(clippy::too_many_arguments)]
const fn entry(
    id: &'static str,
    kind: LearnableType,
    level: Option<u8>,
    common: bool,
    forms: &'static [&'static str],
    readings: &'static [&'static str],
    meanings: &'static [&'static str],
    frequency: Option<u32>,
) -> Fixture {
    Fixture {
        id,
        kind,
        level,
        common,
        forms,
        readings,
        meanings,
        aliases: &[],
        frequency,
        sample: true,
    }
}

use LearnableType::{Character, Grammar, Kanji, Person, Radical, Vocabulary};

/// Every learnable of the fixture. `kanji-shoku`'s partner word `vocab-kuu` and the N1
/// word `vocab-sake` are outside the sample.
pub fn learnables() -> Vec<Fixture> {
    let mut list = vec![
        entry(
            "kanji-hi",
            Kanji,
            Some(5),
            false,
            &["日"],
            &["にち", "じつ", "ひ", "か"],
            &["day", "sun", "japan"],
            Some(1),
        ),
        entry(
            "kanji-hon",
            Kanji,
            Some(5),
            false,
            &["本"],
            &["ほん", "もと"],
            &["book", "origin", "main"],
            Some(10),
        ),
        entry(
            "kanji-shoku",
            Kanji,
            Some(4),
            false,
            &["食"],
            &["しょく", "じき", "く", "たべる"],
            &["eat", "food"],
            Some(328),
        ),
        entry(
            "kanji-mizu",
            Kanji,
            Some(5),
            false,
            &["水"],
            &["すい", "みず"],
            &["water"],
            Some(223),
        ),
        entry(
            "vocab-nihon",
            Vocabulary,
            Some(5),
            true,
            &["日本"],
            &["にほん", "にっぽん"],
            &["japan"],
            Some(1),
        ),
        entry(
            "vocab-nihongo",
            Vocabulary,
            Some(5),
            true,
            &["日本語"],
            &["にほんご"],
            &["japanese", "language"],
            Some(1501),
        ),
        entry(
            "vocab-hon",
            Vocabulary,
            Some(5),
            true,
            &["本"],
            &["ほん"],
            &["book", "volume"],
            Some(501),
        ),
        entry(
            "vocab-taberu",
            Vocabulary,
            Some(5),
            true,
            &["食べる"],
            &["たべる"],
            &["to", "eat"],
            Some(1001),
        ),
        entry(
            "vocab-tabemono",
            Vocabulary,
            Some(5),
            true,
            &["食べ物"],
            &["たべもの"],
            &["food"],
            Some(2001),
        ),
        entry(
            "vocab-mizu",
            Vocabulary,
            Some(5),
            true,
            &["水"],
            &["みず"],
            &["water"],
            Some(1501),
        ),
        entry(
            "vocab-gakkou",
            Vocabulary,
            Some(5),
            true,
            &["学校"],
            &["がっこう"],
            &["school"],
            Some(501),
        ),
        entry(
            "vocab-sensei",
            Vocabulary,
            Some(5),
            true,
            &["先生"],
            &["せんせい"],
            &["teacher", "instructor"],
            Some(501),
        ),
        entry(
            "vocab-koohii",
            Vocabulary,
            Some(5),
            true,
            &["コーヒー", "珈琲"],
            &["こーひー"],
            &["coffee"],
            Some(4001),
        ),
        entry(
            "vocab-nomu",
            Vocabulary,
            Some(5),
            true,
            &["飲む"],
            &["のむ"],
            &["to", "drink"],
            Some(1501),
        ),
        entry(
            "vocab-nichiyoubi",
            Vocabulary,
            Some(5),
            true,
            &["日曜日"],
            &["にちようび"],
            &["sunday"],
            Some(3001),
        ),
        entry(
            "vocab-ookii",
            Vocabulary,
            Some(5),
            true,
            &["大きい"],
            &["おおきい"],
            &["big", "large"],
            Some(1001),
        ),
        entry(
            "vocab-kuu",
            Vocabulary,
            Some(1),
            false,
            &["食う"],
            &["くう"],
            &["to", "eat"],
            Some(9001),
        ),
        entry(
            "vocab-sake",
            Vocabulary,
            Some(1),
            true,
            &["酒"],
            &["さけ"],
            &["alcohol", "sake"],
            Some(2001),
        ),
        entry(
            "grammar-te-kara",
            Grammar,
            Some(5),
            false,
            &["てから"],
            &["てから"],
            &["after", "doing"],
            None,
        ),
        entry(
            "char-a",
            Character,
            None,
            false,
            &["あ"],
            &["あ"],
            &[],
            None,
        ),
        entry(
            "char-katakana-a",
            Character,
            None,
            false,
            &["ア"],
            &["あ"],
            &[],
            None,
        ),
        entry(
            "radical-water",
            Radical,
            None,
            false,
            &["氵"],
            &["さんずい"],
            &["water"],
            None,
        ),
    ];
    for fixture in &mut list {
        if matches!(fixture.id, "vocab-kuu" | "vocab-sake") {
            fixture.sample = false;
        }
    }
    list.push(Fixture {
        id: "person-oda-nobunaga",
        kind: Person,
        level: None,
        common: false,
        forms: &["織田信長"],
        readings: &["おだのぶなが"],
        meanings: &["warlord"],
        aliases: &["Oda Nobunaga", "Kipōshi"],
        frequency: None,
        sample: true,
    });
    list
}

fn script_of(text: &str) -> Script {
    if kana::is_kana(text) {
        if text.chars().any(|c| ('\u{30A0}'..='\u{30FF}').contains(&c)) {
            Script::Katakana
        } else {
            Script::Hiragana
        }
    } else {
        Script::Kanji
    }
}

fn summary(fixture: &Fixture) -> LearnableSummary {
    LearnableSummary {
        id: fixture.id.to_owned(),
        label: fixture.forms.first().map(|form| form.to_string()),
        kind: fixture.kind,
        domain: if fixture.kind == Person {
            Domain::History
        } else {
            Domain::Language
        },
        jlpt_level: fixture.level,
        is_common_word: Some(fixture.common),
        canonical_name: (fixture.kind == Person).then(|| fixture.forms[0].to_owned()),
        pattern: (fixture.kind == Grammar).then(|| fixture.forms[0].to_owned()),
        meaning: (!fixture.meanings.is_empty()).then(|| fixture.meanings.join(" ")),
        writing_forms: fixture
            .forms
            .iter()
            .map(|form| WritingForm {
                text: form.to_string(),
                script: script_of(form),
            })
            .collect(),
        tags: Vec::new(),
    }
}

fn surface(fixture: &Fixture) -> Surface {
    let owned = |list: &[&str]| list.iter().map(|text| text.to_string()).collect::<Vec<_>>();
    Surface {
        forms: owned(fixture.forms),
        readings: fixture
            .readings
            .iter()
            .map(|r| kana::to_hiragana(r))
            .collect(),
        romaji: fixture
            .readings
            .iter()
            .map(|r| kana::to_romaji(r))
            .collect(),
        meanings: owned(fixture.meanings),
        aliases: owned(fixture.aliases),
        frequency: fixture.frequency,
    }
}

/// The stored full document: the summary plus its sources.
fn document(fixture: &Fixture) -> String {
    let mut doc = serde_json::to_value(summary(fixture)).expect("summary serializes");
    doc["sources"] = serde_json::json!([{
        "source": "fixture", "name": "Test fixture", "version": "1", "licence": "CC0",
        "licence_url": null, "record_id": null, "fields": ["label"]
    }]);
    doc.to_string()
}

fn relations() -> Vec<Relation> {
    let edge = |from: &str, to: &str, kind: &str| Relation {
        from: from.to_owned(),
        to: to.to_owned(),
        kind: kind.to_owned(),
        basis: "fixture".to_owned(),
    };
    // As in the dataset, some relations are stored from both ends (a kind and its
    // inverse, a symmetric kind twice), and one pair is linked by two kinds.
    vec![
        edge("vocab-nihon", "kanji-hi", "uses-kanji"),
        edge("vocab-nihon", "kanji-hon", "uses-kanji"),
        edge("vocab-nihongo", "kanji-hi", "uses-kanji"),
        edge("vocab-nihongo", "kanji-hon", "uses-kanji"),
        edge("vocab-nichiyoubi", "kanji-hi", "uses-kanji"),
        edge("vocab-taberu", "kanji-shoku", "uses-kanji"),
        edge("vocab-kuu", "kanji-shoku", "uses-kanji"),
        edge("vocab-tabemono", "kanji-shoku", "uses-kanji"),
        edge("vocab-mizu", "kanji-mizu", "uses-kanji"),
        edge("vocab-taberu", "vocab-kuu", "synonym"),
        edge("vocab-kuu", "vocab-taberu", "synonym"),
        edge("vocab-tabemono", "vocab-taberu", "see-also"),
        edge("kanji-mizu", "radical-water", "has-component"),
        edge("radical-water", "kanji-mizu", "component-of"),
        edge("kanji-mizu", "radical-water", "has-radical"),
        edge("radical-water", "kanji-mizu", "radical-of"),
        edge("char-a", "char-katakana-a", "hiragana-of"),
        edge("char-katakana-a", "char-a", "katakana-of"),
    ]
}

/// The lesson documents: one in the sample, one outside.
pub const LESSON_SAMPLE: &str = r#"{"id":"lesson-eating","title":"Eating","body_markdown":"Say [[vocab-taberu|taberu]] for eating and [[vocab-tabemono|tabemono]] for food.","questions":[{"prompt":"What does [[vocab-taberu|食べる]] mean?","answers":["to eat"]}]}"#;
const LESSON_FULL: &str =
    r#"{"id":"lesson-drinks","title":"Drinks","body_markdown":"[[vocab-sake|sake]]"}"#;

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).expect("fixture JSON is valid")
}

/// Writes the fixture artifact to `path`.
pub fn write_artifact(path: &Path) {
    let manifest = Manifest {
        format: ARTIFACT_FORMAT.to_owned(),
        dataset_version: "fixture-1".to_owned(),
        sources: Vec::new(),
        counts: Default::default(),
    };
    let file = std::fs::File::create(path).expect("create artifact");
    let mut writer = ArtifactWriter::new(file, &manifest).expect("artifact writer");
    for fixture in learnables() {
        let doc = raw(&document(&fixture));
        let record = Record::Learnable {
            sample: fixture.sample,
            summary: summary(&fixture),
            surface: surface(&fixture),
            doc: &doc,
        };
        writer.record(&record).expect("write learnable");
    }
    for relation in relations() {
        writer
            .record(&Record::Relation(relation))
            .expect("write relation");
    }
    let lessons = [
        ("lesson-eating", true, LESSON_SAMPLE),
        ("lesson-drinks", false, LESSON_FULL),
    ];
    for (id, sample, json) in lessons {
        let doc = raw(json);
        writer
            .record(&Record::Lesson {
                id: id.to_owned(),
                sample,
                doc: &doc,
            })
            .expect("lesson");
    }
    let journeys = [
        (
            "journey-first-meal",
            true,
            r#"{"id":"journey-first-meal","lessons":["lesson-eating"]}"#,
        ),
        (
            "journey-izakaya",
            false,
            r#"{"id":"journey-izakaya","lessons":["lesson-drinks"]}"#,
        ),
    ];
    for (id, sample, json) in journeys {
        let doc = raw(json);
        writer
            .record(&Record::Journey {
                id: id.to_owned(),
                sample,
                doc: &doc,
            })
            .expect("journey");
    }
    for (id, json) in [
        (
            "world-kitchen",
            r#"{"id":"world-kitchen","name":"Kitchen","jlpt_range":[5,4]}"#,
        ),
        (
            "world-castle",
            r#"{"id":"world-castle","name":"Castle","jlpt_range":[3,1]}"#,
        ),
    ] {
        let doc = raw(json);
        writer
            .record(&Record::World {
                id: id.to_owned(),
                doc: &doc,
            })
            .expect("world");
    }
    writer.finish().expect("finish artifact");
}
