//! The canon reader, its rules, and the merge with the dictionary-built graph: on
//! hand-written records, on the fixtures, and on the real canon files.

use std::path::PathBuf;

use manabi_schemas::LearnableBody;
use manabi_schemas::history::{DatePrecision, HistoryType};

use super::canon::{self, Canon, Table};
use super::canon_entity;
use super::dates::{Date, Span};
use super::merge::{self, record_numbers};
use super::model::Entity;
use super::*;

const PERSONS: &str = r#"
[[person]]
id = "history-person-toyotomi-hideyoshi-5640527"
name = "豊臣秀吉"
reading = "とよとみ ひでよし"
romaji = "Toyotomi Hideyoshi"
ascii = "Toyotomi Hideyoshi"
wapuro = "Toyotomi Hideyoshi"
checked = [{ source = "JMnedict", record = 5640527 }]
aliases = ["Hideyoshi"]
born = "1537"
died = "1598"
roles = ["kanpaku", "daimyo"]
scope = ["history-place-owari-province-2845162"]
description = "Unifier of Japan; kanpaku but never shogun."
relations = [{ kind = "born-in", to = "history-place-owari-province-2845162", basis = "born in Owari" }]
"#;

const PROVINCES: &str = r#"
[[circuit]]
id = "history-place-tokaido-circuit-1447620"
name = "東海道"
reading = "とうかいどう"
romaji = "Tōkaidō"
ascii = "Tokaido"
wapuro = "Toukaidou"
description = "Circuit along the Pacific coast."

[[province]]
id = "history-place-owari-province-2845162"
name = "尾張"
reading = "おわり"
romaji = "Owari"
ascii = "Owari"
wapuro = "Owari"
checked = [{ source = "JMdict", record = 2845162 }]
circuit = "history-place-tokaido-circuit-1447620"
prefectures = ["history-place-aichi-prefecture-1150730"]
description = "Province around present-day Nagoya."
"#;

const PREFECTURES: &str = r#"
[[region]]
id = "history-place-chubu-2150690"
name = "中部地方"
reading = "ちゅうぶ ちほう"
romaji = "Chūbu Chihō"
ascii = "Chubu Chiho"
label = "Chūbu region"
description = "Central Honshū."

[[prefecture]]
id = "history-place-aichi-prefecture-1150730"
name = "愛知県"
reading = "あいち けん"
romaji = "Aichi Ken"
ascii = "Aichi Ken"
jis_code = 23
region = "history-place-chubu-2150690"
seat = { name = "名古屋市", romaji = "Nagoya" }
description = "Prefecture of Nagoya."
"#;

const PERIODS: &str = r#"
[[period]]
id = "history-period-edo-1279890"
name = "江戸時代"
reading = "えど じだい"
romaji = "Edo Jidai"
ascii = "Edo Jidai"
label = "Edo period"
start = "1603"
end = "1867"
description = "The Tokugawa shogunate's period."
"#;

fn canon_of(files: &[(&'static str, &str)]) -> (Canon, Vec<String>) {
    let mut problems = Vec::new();
    let mut records = Vec::new();
    for (file, text) in files {
        records.extend(canon::parse_file(file, text, &mut problems).expect("TOML parses"));
    }
    let canon = Canon { records };
    problems.extend(canon::check(&canon));
    (canon, problems)
}

fn sample_canon() -> Canon {
    let (canon, problems) = canon_of(&[
        ("persons.toml", PERSONS),
        ("provinces.toml", PROVINCES),
        ("prefectures.toml", PREFECTURES),
        ("periods.toml", PERIODS),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    canon
}

#[test]
fn dates_keep_their_precision_and_circa() {
    let circa = canon::parse_date("~0248").expect("parses");
    assert_eq!((circa.year, circa.approximate), (248, true));
    assert_eq!(circa.to_schema().precision, DatePrecision::Year);
    let day = canon::parse_date("1868-10-23").expect("parses");
    assert_eq!(day.to_schema().value, "1868-10-23");
    assert_eq!(day.to_schema().precision, DatePrecision::Day);
    for bad in ["1543-13", "1543-02-30", "868", "1868/10", "2999"] {
        assert!(canon::parse_date(bad).is_err(), "{bad} should not parse");
    }
}

#[test]
fn unknown_and_misplaced_fields_are_rejected() {
    let unknown = PERSONS.replace("roles =", "role =");
    let mut problems = Vec::new();
    assert!(canon::parse_file("persons.toml", &unknown, &mut problems).is_err());
    let misplaced = PERSONS.replace("born = ", "start = ");
    let records = canon::parse_file("persons.toml", &misplaced, &mut problems).expect("parses");
    assert!(records.is_empty());
    assert!(
        problems.iter().any(|p| p.contains("may not have `start`")),
        "{problems:?}"
    );
}

#[test]
fn an_event_abroad_is_placed_where_it_happened_and_only_an_event_may_say_so() {
    let event = r#"
[[event]]
id = "history-event-siberian-intervention-2834883"
name = "シベリア出兵"
reading = "シベリア しゅっぺい"
romaji = "Shiberia Shuppei"
ascii = "Shiberia Shuppei"
label = "Siberian Intervention"
start = "1918"
end = "1922"
kinds = ["war"]
abroad = "Siberia and the Russian Far East"
description = "Japan sent troops into Siberia."
"#;
    let (canon, problems) = canon_of(&[("events.toml", event)]);
    assert!(problems.is_empty(), "{problems:?}");
    let entities = canon_entity::entities(&canon);
    assert_eq!(
        entities[0].scope.as_deref(),
        Some("Siberia and the Russian Far East")
    );
    let person_abroad = PERSONS.replace("born = ", "abroad = \"Korea\"\nborn = ");
    let mut problems = Vec::new();
    let records = canon::parse_file("persons.toml", &person_abroad, &mut problems).expect("parses");
    assert!(records.is_empty());
    assert!(
        problems.iter().any(|p| p.contains("may not have `abroad`")),
        "{problems:?}"
    );
}

#[test]
fn death_before_birth_living_persons_and_dangling_references_are_problems() {
    let reversed = PERSONS.replace("died = \"1598\"", "died = \"1501\"");
    let (_, problems) = canon_of(&[("persons.toml", &reversed)]);
    assert!(
        problems.iter().any(|p| p.contains("before it starts")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("relation target")),
        "{problems:?}"
    );
    let living = PERSONS
        .replace("born = \"1537\"", "born = \"1937\"")
        .replace("died = \"1598\"\n", "");
    let (_, problems) = canon_of(&[("persons.toml", &living)]);
    assert!(
        problems.iter().any(|p| p.contains("living")),
        "{problems:?}"
    );
}

#[test]
fn the_canon_files_read_and_pass_their_rules() {
    let canon = canon::load(&canon::content_dir()).expect("the canon files are valid");
    let count = |table: Table| canon.records.iter().filter(|r| r.table == table).count();
    assert_eq!(count(Table::Province), 68);
    assert_eq!(count(Table::Prefecture), 47);
    assert!(count(Table::Person) >= 200);
    assert!(canon.records.len() >= 585);
    // Each written relation and its inverse; persons without one get theirs from the
    // dictionary rules (verify checks the built graph).
    let written: usize = canon.records.iter().map(|r| r.relations.len()).sum();
    assert!(canon_entity::relations(&canon).len() >= 2 * written);
}

#[test]
fn a_canon_record_becomes_an_entity_with_names_dates_scope_and_citations() {
    let canon = sample_canon();
    let entities = canon_entity::entities(&canon);
    let hideyoshi = &entities[0];
    assert_eq!(hideyoshi.name, "Toyotomi Hideyoshi");
    let names: Vec<&str> = hideyoshi.aliases.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(names, ["豊臣秀吉", "とよとみひでよし", "Hideyoshi"]);
    assert_eq!(hideyoshi.span.start, Some(Date::year(1537)));
    assert_eq!(hideyoshi.scope.as_deref(), Some("Owari Province"));
    assert_eq!(hideyoshi.summary, "Japanese kanpaku, daimyo (1537–1598)");
    let records: Vec<Option<&str>> = hideyoshi
        .citations
        .iter()
        .map(|c| c.record_id.as_deref())
        .collect();
    assert_eq!(
        records,
        [
            Some("content/history/persons.toml history-person-toyotomi-hideyoshi-5640527"),
            Some("JMnedict ent_seq 5640527")
        ]
    );
    assert!(hideyoshi.cross_checks[0].agree);
}

#[test]
fn canon_relations_get_inverses_and_derived_locations() {
    let relations = canon_entity::relations(&sample_canon());
    let has = |from: &str, kind: &str, to: &str, basis: &str| {
        relations.iter().any(|r| {
            r.from.starts_with(from) && r.kind == kind && r.to.starts_with(to) && r.basis == basis
        })
    };
    let hideyoshi = "history-person-toyotomi-hideyoshi";
    let owari = "history-place-owari-province";
    assert!(has(hideyoshi, "born-in", owari, "canon: born in Owari"));
    assert!(has(
        owari,
        "birthplace-of",
        hideyoshi,
        "canon: born in Owari"
    ));
    assert!(has(hideyoshi, "located-in", owari, "canon-scope"));
    assert!(has(
        owari,
        "located-in",
        "history-place-tokaido-circuit",
        "canon-circuit"
    ));
    assert!(has(
        "history-place-tokaido-circuit",
        "location-of",
        owari,
        "canon-circuit"
    ));
}

fn generated(id: &str, kind: HistoryType, name: &str, forms: &[&str]) -> Entity {
    let mut entity = Entity::new(id.into(), kind, name.into());
    for form in forms {
        entity.add_alias(form);
    }
    entity
}

#[test]
fn the_canon_replaces_the_entity_of_its_record_and_keeps_its_names() {
    let mut shogun = generated(
        "history-person-toyotomi-hideyoshi-5640527",
        HistoryType::Person,
        "Toyotomi Hideyoshi",
        &["豊臣秀吉", "Toyotomi Hideyoshi", "Hashiba Hideyoshi"],
    );
    shogun.add_role("shogun");
    shogun
        .citations
        .push(cite::jmnedict(5640527, &["timespan"]));
    let mut owari = generated(
        "history-place-owari-2845162",
        HistoryType::Place,
        "Owari",
        &["尾張"],
    );
    owari
        .citations
        .push(cite::jmdict(2845162, &["canonical_name"]));
    assert_eq!(record_numbers(&owari), [2845162]);
    let mut caliphate = generated(
        "history-period-rashidun-period-2205560",
        HistoryType::Period,
        "Rashidun period",
        &["正統カリフ時代"],
    );
    caliphate.span = Span {
        start: Some(Date::year(632)),
        end: Some(Date::year(661)),
    };
    let keep = generated(
        "history-person-other-5000001",
        HistoryType::Person,
        "Other",
        &["他"],
    );
    let (merged, report) = merge::merge(vec![shogun, owari, caliphate, keep], &sample_canon());
    let ids: Vec<&str> = merged.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "history-person-toyotomi-hideyoshi-5640527",
            "history-place-tokaido-circuit-1447620",
            "history-place-owari-province-2845162",
            "history-place-chubu-2150690",
            "history-place-aichi-prefecture-1150730",
            "history-period-edo-1279890",
            "history-person-other-5000001",
        ]
    );
    assert_eq!(report.replaced.len(), 2);
    assert_eq!(report.dropped, ["history-period-rashidun-period-2205560"]);
    let hideyoshi = &merged[0];
    assert_eq!(
        hideyoshi.roles,
        ["kanpaku", "daimyo"],
        "the canon's roles, no shogun"
    );
    assert!(
        hideyoshi
            .aliases
            .iter()
            .any(|a| a.text == "Hashiba Hideyoshi")
    );
    assert_eq!(
        hideyoshi.citations.len(),
        2,
        "the same JMnedict record is cited once"
    );
}

#[test]
fn a_duplicate_under_another_record_merges_by_name_and_dates_or_period_years() {
    let mut teika = generated(
        "history-person-fujiwara-no-sadaie-5561590",
        HistoryType::Person,
        "Fujiwara no Sadaie",
        &["豊臣秀吉"],
    );
    teika.span.start = Some(Date::year(1537));
    let mut namesake = teika.clone();
    namesake.id = "history-person-namesake-5000002".into();
    namesake.span.start = Some(Date::year(1800));
    let (merged, report) = merge::merge(vec![teika, namesake], &sample_canon());
    assert_eq!(report.replaced[0].2, "same-name-and-dates");
    assert!(
        merged
            .iter()
            .any(|e| e.id == "history-person-namesake-5000002"),
        "the namesake born 1800 stays"
    );

    let period = |id: &str, from: i32, to: i32| {
        let mut p = generated(id, HistoryType::Period, id, &[]);
        p.span = Span {
            start: Some(Date::year(from)),
            end: Some(Date::year(to)),
        };
        p
    };
    let tokugawa = period("history-period-tokugawa-period-2205650", 1600, 1867);
    let genroku = period("history-period-genroku-period-1", 1688, 1704);
    let (_, report) = merge::merge(vec![tokugawa, genroku], &sample_canon());
    assert_eq!(
        report.replaced,
        [(
            "history-period-tokugawa-period-2205650".to_string(),
            "history-period-edo-1279890".to_string(),
            "period-same-years"
        )]
    );
}

#[test]
fn the_fixtures_with_the_canon_keep_one_entity_per_record() {
    let fixtures =
        BuildContext::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/history"));
    let canon = canon::load(&canon::content_dir()).expect("canon loads");
    let part = build_with(&fixtures, &canon).expect("builds");
    let ieyasu: Vec<_> = part
        .learnables
        .iter()
        .map(|b| &b.learnable)
        .filter(|l| l.id.starts_with("history-person-tokugawa-ieyasu"))
        .collect();
    assert_eq!(ieyasu.len(), 1);
    let LearnableBody::History(detail) = &ieyasu[0].body else {
        panic!("history body");
    };
    assert!(ieyasu[0].tags.iter().any(|t| t == "canon"));
    assert_eq!(
        detail
            .timespan
            .as_ref()
            .and_then(|t| t.start.clone())
            .map(|d| d.value),
        Some("1542".to_string()),
        "the canon's textbook year replaces JMnedict's Julian day"
    );
    let ids: std::collections::HashSet<&str> = part
        .learnables
        .iter()
        .map(|b| b.learnable.id.as_str())
        .collect();
    assert!(
        part.relations
            .iter()
            .all(|r| ids.contains(r.from.as_str()) && ids.contains(r.to.as_str())),
        "no relation points at a replaced id"
    );
}

#[test]
fn a_summary_is_the_first_sentence_not_the_text_up_to_an_initial() {
    let cases = [
        (
            "Jōmon shell mound noticed by the zoologist Edward S. Morse, who dug it in 1877. \
             It began archaeology in Japan.",
            "Jōmon shell mound noticed by the zoologist Edward S. Morse, who dug it in 1877.",
        ),
        ("Born c. 1122 in Mutsu. Lord.", "Born c. 1122 in Mutsu."),
        ("No stop at all", "No stop at all"),
    ];
    for (text, first) in cases {
        assert_eq!(canon_entity::first_sentence(text), first);
    }
}
