//! Tests on small real excerpts of each source (`dataset/fixtures/history/`), and a report
//! on the full sources behind `MANABI_HISTORY_SOURCES`.

use std::path::PathBuf;

use manabi_schemas::history::{DatePrecision, EraCourt};
use manabi_schemas::{Learnable, LearnableBody};

use super::dates::Date;

use super::*;

fn fixtures() -> BuildContext {
    BuildContext::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/history"))
}

/// The dictionary rules on their own: the fixtures without the canon (`canon_tests` merges
/// it in).
fn built() -> Part {
    build_with(&fixtures(), &canon::Canon::default()).expect("history fixtures build")
}

fn find<'a>(part: &'a Part, id_prefix: &str) -> &'a Learnable {
    part.learnables
        .iter()
        .map(|b| &b.learnable)
        .find(|l| l.id.starts_with(id_prefix))
        .unwrap_or_else(|| panic!("no entity {id_prefix}"))
}

fn detail(learnable: &Learnable) -> &manabi_schemas::history::HistoryDetail {
    match &learnable.body {
        LearnableBody::History(detail) => detail,
        other => panic!("not a history body: {other:?}"),
    }
}

fn has_edge(part: &Part, from: &str, kind: &str, to: &str) -> bool {
    part.relations
        .iter()
        .any(|r| r.from.starts_with(from) && r.kind == kind && r.to.starts_with(to))
}

#[test]
fn eras_carry_dates_readings_rulers_and_cldr_names() {
    let part = built();
    let meiji = find(&part, "history-era-meiji-1868");
    let history = detail(meiji);
    assert_eq!(history.canonical_name, "Meiji");
    let timespan = history.timespan.as_ref().unwrap();
    assert_eq!(timespan.start.as_ref().unwrap().value, "1868-01-23");
    assert_eq!(
        timespan.start.as_ref().unwrap().precision,
        DatePrecision::Day
    );
    let era = history.era.as_ref().unwrap();
    assert_eq!(era.reading.as_deref(), Some("めいじ"));
    assert_eq!(era.ruler.as_deref(), Some("明治天皇"));
    assert_eq!(
        history.localized_names.get("ja").map(String::as_str),
        Some("明治")
    );
    assert!(
        meiji
            .sources
            .iter()
            .any(|c| c.source == "cldr_cal_japanese")
    );
    let reiwa = detail(find(&part, "history-era-reiwa-2019"));
    assert!(
        reiwa.timespan.as_ref().unwrap().end.is_none(),
        "the current era is open"
    );
    let shohei = detail(find(&part, "history-era-shohei-1347"));
    assert_eq!(shohei.era.as_ref().unwrap().court, EraCourt::Southern);
}

#[test]
fn era_relations_follow_their_rules() {
    let part = built();
    assert!(has_edge(
        &part,
        "history-era-meiji-1868",
        "precedes",
        "history-era-taisho-1912"
    ));
    assert!(has_edge(
        &part,
        "history-era-taisho-1912",
        "follows",
        "history-era-meiji-1868"
    ));
    assert!(has_edge(
        &part,
        "history-era-meiji-1868",
        "during-reign-of",
        "history-person-emperor-meiji"
    ));
    assert!(has_edge(
        &part,
        "history-person-emperor-meiji",
        "named-after",
        "history-era-meiji-1868"
    ));
    assert!(has_edge(
        &part,
        "history-era-meiji-1868",
        "part-of",
        "history-period-meiji-period"
    ));
    assert!(has_edge(
        &part,
        "history-era-shohei-1347",
        "concurrent-with",
        "history-era-jowa-1345"
    ));
    // Kaei and Meiji are not adjacent in the excerpt's general line: the years between
    // them are a gap, and no era precedes another across a gap.
    assert!(!has_edge(
        &part,
        "history-era-kaei-1848",
        "precedes",
        "history-era-meiji-1868"
    ));
}

#[test]
fn persons_are_japanese_dated_and_historical() {
    let part = built();
    let ieyasu = find(&part, "history-person-tokugawa-ieyasu-");
    let history = detail(ieyasu);
    assert!(history.roles.contains(&"shogun".to_string()));
    assert_eq!(
        history
            .timespan
            .as_ref()
            .unwrap()
            .end
            .as_ref()
            .unwrap()
            .value,
        "1616",
        "a JMnedict day date before 1873 keeps its year only"
    );
    assert!(history.aliases.iter().any(|a| a.text == "徳川家康"));
    assert!(history.description.contains("born 1543"));
    assert!(has_edge(
        &part,
        "history-person-tokugawa-ieyasu-",
        "born-during",
        "history-era-tenbun-"
    ));
    assert!(has_edge(
        &part,
        "history-person-tokugawa-ieyasu-",
        "died-during",
        "history-era-genna-"
    ));
    assert!(has_edge(
        &part,
        "history-person-tokugawa-ieyasu-",
        "active-during",
        "history-period-edo-period"
    ));
    let ids: Vec<&str> = part
        .learnables
        .iter()
        .map(|b| b.learnable.id.as_str())
        .collect();
    assert!(
        !ids.iter().any(|id| id.contains("deng")),
        "a Chinese reading is not a Japanese name"
    );
    assert!(
        !ids.iter().any(|id| id.contains("aika-shun")),
        "a living person is not historical"
    );
}

#[test]
fn emperors_merge_sanmiao_reigns_and_succeed_by_contiguous_reigns() {
    let part = built();
    let meiji = detail(find(&part, "history-person-emperor-meiji-"));
    let reign = meiji
        .offices
        .iter()
        .find(|o| o.source == "sanmiao")
        .unwrap();
    assert_eq!((reign.start_year, reign.end_year), (Some(1867), Some(1912)));
    assert!(has_edge(
        &part,
        "history-person-emperor-meiji-",
        "successor-of",
        "history-person-emperor-koumei-"
    ));
    // Sukō (Northern Court, from 1348) follows Kōmyō (Northern, to 1348), not Go-Murakami.
    assert!(has_edge(
        &part,
        "history-person-emperor-sukou-",
        "successor-of",
        "history-person-emperor-koumyou-"
    ));
    assert!(!has_edge(
        &part,
        "history-person-emperor-sukou-",
        "successor-of",
        "history-person-emperor-go-murakami-"
    ));
    // Yoshiaki's term ended in 1573, Ieyasu's began in 1603: no succession is invented.
    assert!(!has_edge(
        &part,
        "history-person-tokugawa-ieyasu-",
        "successor-of",
        "history-person-ashikaga"
    ));
}

#[test]
fn places_periods_events_and_terms_come_from_their_glosses() {
    let part = built();
    // A former province is read with its scope; without the canon (which it merges into)
    // it has no relation, so it is not in the part (rule `teaches-something`).
    let from_jmdict = load_jmdict(&fixtures()).expect("JMdict excerpt");
    let iga = from_jmdict
        .iter()
        .find(|e| e.id.starts_with("history-place-iga-"))
        .expect("Iga");
    assert_eq!(
        iga.scope.as_deref(),
        Some("west of present-day Mie Prefecture, Japan")
    );
    assert!(!part.learnables.iter().any(|b| b.learnable.id == iga.id));
    let edo = detail(find(&part, "history-period-edo-period-"));
    let span = edo.timespan.as_ref().unwrap();
    assert_eq!(
        (
            span.start.as_ref().unwrap().value.as_str(),
            span.end.as_ref().unwrap().value.as_str()
        ),
        ("1603", "1868")
    );
    let rebellion = from_jmdict
        .iter()
        .find(|e| e.id.starts_with("history-event-hamaguri-rebellion-"))
        .expect("Hamaguri Rebellion");
    assert_eq!(rebellion.kind, HistoryType::Event);
    let ids: Vec<&str> = part
        .learnables
        .iter()
        .map(|b| b.learnable.id.as_str())
        .collect();
    assert!(
        !ids.iter().any(|id| id.contains("persian")),
        "a katakana-named war is foreign"
    );
    assert!(
        !ids.iter().any(|id| id.ends_with("-1358280")),
        "an ordinary word is not history"
    );
    let roju = from_jmdict
        .iter()
        .find(|e| e.id == "history-term-roujuu-1840420")
        .expect("老中");
    assert_eq!(roju.name, "老中");
    // Rule `teaches-something`: JMnedict's sites are their names only (a shrine, castle
    // ruins, a grave named after its person), so they are not entities.
    for site in [
        "history-place-minamoto-no-yoritomo-grave-",
        "history-place-nagashino-castle-ruins-",
        "history-place-kuzu-shrine-",
    ] {
        assert!(!ids.iter().any(|id| id.starts_with(site)), "{site}");
    }
}

#[test]
fn every_entity_is_complete_and_every_edge_has_a_rule() {
    let part = built();
    for built in &part.learnables {
        let l = &built.learnable;
        let history = detail(l);
        assert!(l.id.is_ascii() && l.id.starts_with("history-"), "{}", l.id);
        assert!(l.jlpt_level.is_none());
        assert!(!history.description.is_empty(), "{}", l.id);
        assert!(!l.sources.is_empty(), "{}", l.id);
        assert!(l.sources.iter().all(|c| c.record_id.is_some()), "{}", l.id);
    }
    let ids: std::collections::HashSet<&str> = part
        .learnables
        .iter()
        .map(|b| b.learnable.id.as_str())
        .collect();
    for relation in &part.relations {
        assert!(!relation.basis.is_empty());
        assert!(ids.contains(relation.from.as_str()) && ids.contains(relation.to.as_str()));
    }
    let linked: std::collections::HashSet<&str> = part
        .relations
        .iter()
        .flat_map(|r| [r.from.as_str(), r.to.as_str()])
        .collect();
    for built in &part.learnables {
        let l = &built.learnable;
        assert_eq!(
            check::teaching_problems(&l.id, detail(l), &linked),
            Vec::<String>::new()
        );
    }
    assert!(
        part.learnables
            .iter()
            .any(|b| b.sample && b.learnable.id == "history-era-meiji-1868")
    );
}

/// Runs the whole history build on unpacked sources and prints the counts and ten
/// entities: `MANABI_HISTORY_SOURCES=var/sources cargo test -p manabi-dataset
/// history_report -- --nocapture`.
#[test]
fn history_report() {
    let Ok(dir) = std::env::var("MANABI_HISTORY_SOURCES") else {
        return;
    };
    let started = std::time::Instant::now();
    let part = build(&BuildContext::new(dir)).expect("history build");
    let elapsed = started.elapsed();
    let counts = counts(&part);
    println!("history build: {:.1} s", elapsed.as_secs_f64());
    println!(
        "entities: {}  sample: {}",
        part.learnables.len(),
        counts.sample
    );
    for (kind, n) in &counts.by_type {
        println!("  type {kind:<8} {n:>6}");
    }
    println!(
        "relations: {} of {} types",
        part.relations.len(),
        counts.by_relationship.len()
    );
    for (kind, n) in &counts.by_relationship {
        println!("  rel  {kind:<16} {n:>6}");
    }
    let json: Vec<String> = part
        .learnables
        .iter()
        .map(|b| serde_json::to_string(&b.learnable).expect("serializes"))
        .collect();
    let json = json.join("\n");
    let compressed = zstd::encode_all(json.as_bytes(), 19).expect("compresses");
    println!(
        "learnables JSON: {} bytes, zstd -19: {} bytes",
        json.len(),
        compressed.len()
    );
    let sample: Vec<&str> = part
        .learnables
        .iter()
        .filter(|b| b.sample)
        .map(|b| b.learnable.id.as_str())
        .collect();
    println!("sample: {}", sample.join(" "));
    if let Ok(path) = std::env::var("MANABI_HISTORY_DUMP") {
        std::fs::write(path, &json).expect("dump written");
    }
}

/// What the canon merge did on the real sources:
/// `MANABI_HISTORY_SOURCES=/abs/var/sources cargo test -p manabi-dataset --lib
/// canon_merge_report -- --nocapture`.
#[test]
fn canon_merge_report() {
    let Ok(dir) = std::env::var("MANABI_HISTORY_SOURCES") else {
        return;
    };
    let canon = super::canon::load(&super::canon::content_dir()).expect("canon loads");
    let (entities, relations, report) =
        super::build_graph_with(&BuildContext::new(dir), &canon).expect("history build");
    let mut by_rule: std::collections::BTreeMap<&str, usize> = Default::default();
    for (old, new, rule) in &report.replaced {
        *by_rule.entry(rule).or_default() += 1;
        if *rule != "same-record" {
            println!("  {rule}: {old} -> {new}");
        }
    }
    println!("canon {} entities; replaced {by_rule:?}", report.canon);
    println!("dropped: {:?}", report.dropped);
    println!("entities {} relations {}", entities.len(), relations.len());
}

#[test]
fn an_era_starts_no_earlier_than_its_predecessor_ends() {
    let row = |kanji: &str, start: Date, end: Option<Date>| eras::EraRow {
        kanji: kanji.into(),
        romaji: kanji.into(),
        start,
        end,
        court: EraCourt::General,
    };
    let rows = [
        row("明治", Date::day(1868, 1, 23), Some(Date::day(1912, 7, 30))),
        row("慶応", Date::day(1865, 5, 1), Some(Date::day(1868, 10, 23))),
    ];
    let fixed = eras::start_after_predecessor(&rows);
    assert_eq!(fixed[0].start, Date::day(1868, 10, 23));
    assert_eq!(fixed[1].start, Date::day(1865, 5, 1));
}

#[test]
fn a_birth_year_alone_of_few_digits_is_no_date_of_a_historical_person() {
    let born = |year: i32| super::dates::Span {
        start: Some(Date {
            year,
            month: None,
            day: None,
            approximate: false,
        }),
        end: None,
    };
    assert!(!persons::is_historical(&born(24)));
    assert!(!persons::is_historical(&born(1950)));
    assert!(persons::is_historical(&born(1850)));
}

#[test]
fn a_princes_titles_leave_his_name() {
    let name = |gloss: &str, kanji: &str| persons::princely_name(gloss, kanji);
    assert_eq!(
        name("Toshihitoshinnou", "智仁親王").as_deref(),
        Some("Prince Toshihito")
    );
    assert_eq!(
        name("Kuninomiya Asahikoshinnou", "久邇宮朝彦親王").as_deref(),
        Some("Prince Kuni Asahiko")
    );
    assert_eq!(
        name("Kachounomiya Hirotadaou", "華頂宮博忠王").as_deref(),
        Some("Prince Kachou Hirotada")
    );
    assert_eq!(
        name("Kazunomiyashinnou", "和宮親子内親王").as_deref(),
        None,
        "the spelling does not end in the title read"
    );
    assert_eq!(name("Miyazaki Naoshi", "宮崎尚志"), None);
}

#[test]
fn a_term_of_chinas_past_is_not_japanese_history() {
    use super::jmdict::is_foreign_term;
    assert!(is_foreign_term(
        "position at the imperial court in ancient China"
    ));
    assert!(is_foreign_term(
        "Protector General (Tang-period Chinese official)"
    ));
    assert!(is_foreign_term(
        "Protectorate General (Han and Tang-period Chinese office)"
    ));
    assert!(!is_foreign_term(
        "interpreter (esp. of Dutch and Chinese during the Edo period)"
    ));
    assert!(!is_foreign_term(
        "journeying to Song China during the Heian and Kamakura periods"
    ));
    assert!(!is_foreign_term("member of shogun's council of elders"));
}

#[test]
fn the_particle_no_stays_lowercase() {
    assert_eq!(
        persons::particles_lowercase("Taira No Sadafun"),
        "Taira no Sadafun"
    );
    assert_eq!(
        persons::particles_lowercase("Minamoto no Yoritomo"),
        "Minamoto no Yoritomo"
    );
    assert_eq!(persons::particles_lowercase("No Sadafun"), "No Sadafun");
}

#[test]
fn a_life_counts_in_a_period_from_the_age_of_coming_of_age_of_its_time() {
    use super::relations::active_age;
    assert_eq!(active_age(1543), 15, "Ieyasu came of age by genpuku");
    assert_eq!(active_age(1852), 15);
    assert_eq!(
        active_age(1853),
        20,
        "fifteen in 1868: the modern age of majority"
    );
    // Kurosawa Akira (1910) turns twenty in 1930, after Taishō (to 1926) ended.
    assert!(1910 + active_age(1910) > 1926);
}

#[test]
fn a_shortened_summary_ends_on_a_whole_word() {
    let text = "The occupation's breaking up of the conglomerates, whose holding companies were dissolved.";
    let short = super::model::shortened(text, 82);
    assert_eq!(
        short,
        "The occupation's breaking up of the conglomerates, whose holding companies were…"
    );
    assert_eq!(super::model::shortened("Short.", 80), "Short.");
}
