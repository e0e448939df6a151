//! The history canon (`dataset/content/history`) as it ships in the committed artifact
//! (`data/manabi-dataset.jsonl.zst`): canonical entities with their dates, roles, names,
//! places and relations, and the history checks of `verify`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::LazyLock;

use manabi_artifact::Artifact;
use manabi_schemas::history::HistoryDetail;
use manabi_schemas::{Learnable, LearnableBody, Relation};

const ITO: &str = "history-person-ito-hirobumi-5115618";
const HIDEYOSHI: &str = "history-person-toyotomi-hideyoshi-5640527";
const SEKIGAHARA: &str = "history-event-battle-of-sekigahara-2437960";
const HORYUJI: &str = "history-place-horyu-ji-5638290";
const YAMATO: &str = "history-place-yamato-province-1585330";
const NARA_PREFECTURE: &str = "history-place-nara-prefecture-1457700";
const PERRY: &str = "history-person-matthew-perry";

static ARTIFACT: LazyLock<Artifact> = LazyLock::new(|| {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/manabi-dataset.jsonl.zst");
    Artifact::load(&path).expect("the committed artifact loads")
});

fn learnable(id: &str) -> Learnable {
    let loaded = ARTIFACT
        .learnables
        .iter()
        .find(|l| l.summary.id == id)
        .unwrap_or_else(|| panic!("{id} is in the artifact"));
    serde_json::from_str(&loaded.json).expect("the document parses")
}

fn history(learnable: &Learnable) -> &HistoryDetail {
    match &learnable.body {
        LearnableBody::History(detail) => detail,
        other => panic!("{} is not a history entity: {other:?}", learnable.id),
    }
}

fn years(detail: &HistoryDetail) -> (Option<String>, Option<String>) {
    let span = detail.timespan.as_ref().expect("dated");
    let value =
        |d: &Option<manabi_schemas::history::HistoricalDate>| d.as_ref().map(|d| d.value.clone());
    (value(&span.start), value(&span.end))
}

fn aliases(detail: &HistoryDetail) -> Vec<&str> {
    detail.aliases.iter().map(|a| a.text.as_str()).collect()
}

fn relations_from(id: &str) -> Vec<&'static Relation> {
    ARTIFACT.relations.iter().filter(|r| r.from == id).collect()
}

#[test]
fn ito_hirobumi_carries_the_canon_facts() {
    let ito = learnable(ITO);
    let detail = history(&ito);
    assert_eq!(detail.canonical_name, "Itō Hirobumi");
    assert_eq!(
        years(detail),
        (Some("1841".to_string()), Some("1909".to_string()))
    );
    assert!(detail.roles.iter().any(|r| r == "statesman"));
    let names = aliases(detail);
    for name in [
        "伊藤博文",
        "Ito Hirobumi",
        "Itou Hirobumi",
        "いとうひろぶみ",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let sources: Vec<&str> = ito.sources.iter().map(|c| c.source.as_str()).collect();
    assert!(sources.contains(&"manabi"), "cited as editorial");
    assert!(
        ito.sources
            .iter()
            .any(|c| c.record_id.as_deref() == Some("JMnedict ent_seq 5115618")),
        "cites the checked JMnedict record"
    );
    assert!(!relations_from(ITO).is_empty());
}

#[test]
fn search_surface_finds_the_canon_by_its_names() {
    let by_form: HashMap<&str, Vec<&str>> =
        ARTIFACT
            .learnables
            .iter()
            .fold(HashMap::new(), |mut map, loaded| {
                for form in loaded.surface.forms.iter().chain(&loaded.surface.aliases) {
                    map.entry(form.as_str())
                        .or_default()
                        .push(loaded.summary.id.as_str());
                }
                map
            });
    for (name, id) in [
        ("Itō Hirobumi", ITO),
        ("Ito Hirobumi", ITO),
        ("Itou Hirobumi", ITO),
        ("Hideyoshi", HIDEYOSHI),
    ] {
        let found = by_form.get(name).cloned().unwrap_or_default();
        assert!(found.contains(&id), "{name} finds {found:?}, not {id}");
    }
}

#[test]
fn sekigahara_is_dated_1600_and_placed() {
    let battle = learnable(SEKIGAHARA);
    let detail = history(&battle);
    assert_eq!(years(detail).0.as_deref(), Some("1600"));
    let kinds: Vec<&str> = relations_from(SEKIGAHARA)
        .iter()
        .map(|r| r.kind.as_str())
        .collect();
    assert!(kinds.contains(&"participants"), "{kinds:?}");
}

#[test]
fn horyu_ji_lies_in_yamato_province_and_nara_prefecture() {
    let temple = learnable(HORYUJI);
    let scope = history(&temple)
        .geographic_scope
        .clone()
        .unwrap_or_default();
    assert!(scope.contains("Yamato Province"), "{scope}");
    assert!(scope.contains("Nara Prefecture"), "{scope}");
    let located: Vec<&str> = relations_from(HORYUJI)
        .iter()
        .filter(|r| r.kind == "located-in")
        .map(|r| r.to.as_str())
        .collect();
    assert!(located.contains(&YAMATO), "{located:?}");
    assert!(located.contains(&NARA_PREFECTURE), "{located:?}");
}

#[test]
fn perry_is_foreign_with_his_relevance() {
    let perry = learnable(PERRY);
    assert!(perry.tags.iter().any(|t| t == "foreign"));
    let detail = history(&perry);
    assert!(
        detail.description.contains("in Japanese history:") && detail.description.contains("Uraga"),
        "{}",
        detail.description
    );
    assert_eq!(
        years(detail),
        (Some("1794".to_string()), Some("1858".to_string()))
    );
}

#[test]
fn hideyoshi_is_not_called_shogun() {
    let hideyoshi = learnable(HIDEYOSHI);
    let detail = history(&hideyoshi);
    assert!(!detail.roles.iter().any(|r| r.contains("shogun")));
    assert!(!detail.offices.iter().any(|o| o.office.contains("shogun")));
    assert!(!hideyoshi.tags.iter().any(|t| t.contains("shogun")));
    assert!(detail.roles.iter().any(|r| r == "kanpaku"));
}

#[test]
fn the_history_checks_of_verify_pass() {
    let problems = manabi_dataset::history::check::artifact(&ARTIFACT);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn no_generated_duplicate_of_a_canon_entity_remains() {
    // The JMnedict entries the canon replaced (same record, other slug) are gone.
    for replaced in [
        "history-person-emperor-meiji-5663043",
        "history-person-sakamoto-ryouma-5310497",
        "history-event-shimabara-rebellion-2511280",
        "history-period-rashidun-period-2205560",
    ] {
        assert!(
            !ARTIFACT.learnables.iter().any(|l| l.summary.id == replaced),
            "{replaced} is still in the artifact"
        );
    }
}
