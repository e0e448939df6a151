//! The ranking contract on the committed dataset artifact, as a keyless caller sees it
//! (the evaluation sample): romaji, hiragana, katakana, kanji, English and misspelled
//! queries must put the entry a learner means first. Skipped (with a note) while no
//! artifact is committed; the fixture-based contract tests in `http_search.rs` always run.

use manabi_tests as common;

/// `query` → the label of the entry that must rank first.
const FIRST: &[(&str, &str)] = &[
    ("食べる", "食べる"),
    ("たべる", "食べる"),
    ("タベル", "食べる"),
    ("taberu", "食べる"),
    ("ｔａｂｅｒｕ", "食べる"),
    ("eat", "食べる"),
    ("to eat", "食べる"),
    ("水", "水"),
    ("みず", "水"),
    ("mizu", "水"),
    ("water", "水"),
    ("学校", "学校"),
    ("がっこう", "学校"),
    ("ガッコウ", "学校"),
    ("gakkou", "学校"),
    ("school", "学校"),
    ("shcool", "学校"),
    ("先生", "先生"),
    ("sensei", "先生"),
    ("teacher", "先生"),
    ("teachr", "先生"),
    ("コーヒー", "コーヒー"),
    ("こーひー", "コーヒー"),
    ("koohii", "コーヒー"),
    ("coffee", "コーヒー"),
    ("学生", "学生"),
    ("student", "学生"),
    ("山", "山"),
    ("yama", "山"),
    ("mountain", "山"),
    ("mountian", "山"),
    ("大きい", "大きい"),
    ("ookii", "大きい"),
    ("人", "人"),
    ("hito", "人"),
];

#[tokio::test]
async fn the_sample_ranks_the_meant_entry_first() {
    let Some(artifact) = common::committed_artifact() else {
        eprintln!("no committed artifact at data/manabi-dataset.jsonl.zst; skipped");
        return;
    };
    let app = common::spawn_app_on_committed_artifact(artifact).await;
    let mut failures = Vec::new();
    for (query, want) in FIRST {
        let (status, body) = app
            .get_json(&format!("/api/v1/learnables?query={query}&limit=5"))
            .await;
        assert_eq!(status, 200, "{query}: {body}");
        let labels: Vec<&str> = body["data"]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|result| result["label"].as_str().unwrap_or(""))
            .collect();
        if labels.first() != Some(want) {
            failures.push(format!("{query}: want {want} first, got {labels:?}"));
        }
        assert_eq!(body["sample"], true);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn filters_hold_on_the_real_dataset() {
    let Some(artifact) = common::committed_artifact() else {
        return;
    };
    let app = common::spawn_app_on_committed_artifact(artifact).await;
    let (_, body) = app
        .get_json("/api/v1/learnables?query=water&type=kanji&limit=20")
        .await;
    let results = body["data"]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["type"] == "kanji"), "{body}");
    let (_, body) = app
        .get_json("/api/v1/learnables?query=water&jlpt_level=5&limit=20")
        .await;
    let results = body["data"]["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["jlpt_level"] == 5), "{body}");
    let total = body["data"]["total_candidates"].as_u64().unwrap();
    assert!(total >= results.len() as u64);
}
