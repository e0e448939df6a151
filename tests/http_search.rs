//! The search contract over HTTP: parameters and their bounds, filters, the keyless
//! sample, `total_candidates`, and the ranking contract of DESIGN §5 on romaji, kana,
//! katakana, kanji, English and misspelled queries.

use manabi_tests as common;

use common::{TestApp, assert_error, spawn_app};

/// `query` → the id that must rank first.
const FIRST: &[(&str, &str)] = &[
    ("食べる", "vocab-taberu"),
    ("たべる", "vocab-taberu"),
    ("タベル", "vocab-taberu"),
    ("taberu", "vocab-taberu"),
    ("ＴＡＢＥＲＵ", "vocab-taberu"),
    ("eat", "vocab-taberu"),
    ("日本", "vocab-nihon"),
    ("nihon", "vocab-nihon"),
    ("にっぽん", "vocab-nihon"),
    ("日", "kanji-hi"),
    ("water", "vocab-mizu"),
    ("みず", "vocab-mizu"),
    ("mizu", "vocab-mizu"),
    ("gakkou", "vocab-gakkou"),
    ("ガッコウ", "vocab-gakkou"),
    ("school", "vocab-gakkou"),
    ("shcool", "vocab-gakkou"),
    ("teacher", "vocab-sensei"),
    ("teachr", "vocab-sensei"),
    ("コーヒー", "vocab-koohii"),
    ("珈琲", "vocab-koohii"),
    ("koohii", "vocab-koohii"),
    ("coffee", "vocab-koohii"),
    ("cofee", "vocab-koohii"),
    ("nobunaga", "person-oda-nobunaga"),
    ("織田信長", "person-oda-nobunaga"),
    ("てから", "grammar-te-kara"),
    ("本", "kanji-hon"),
    ("hon", "vocab-hon"),
    ("sunday", "vocab-nichiyoubi"),
];

#[tokio::test]
async fn ranking_contract_puts_the_expected_entry_first() {
    let app = spawn_app().await;
    let mut failures = Vec::new();
    for (query, want) in FIRST {
        let ids = app.search_ids(&format!("query={query}")).await;
        if ids.first().map(String::as_str) != Some(*want) {
            failures.push(format!("{query}: want {want} first, got {ids:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

async fn position(app: &TestApp, query: &str, id: &str) -> usize {
    let ids = app.search_ids(&format!("query={query}&limit=20")).await;
    ids.iter()
        .position(|found| found == id)
        .unwrap_or_else(|| panic!("{id} missing for {query}: {ids:?}"))
}

#[tokio::test]
async fn tiers_order_exact_form_reading_meaning_then_prefix() {
    let app = spawn_app().await;
    // Exact written form (日) before the entries that only start with it (日本, 日曜日).
    assert!(position(&app, "日", "kanji-hi").await < position(&app, "日", "vocab-nihon").await);
    // Exact reading before a reading that only starts with it (にほん before にほんご).
    assert!(
        position(&app, "にほん", "vocab-nihon").await
            < position(&app, "にほん", "vocab-nihongo").await
    );
    // An English word is not a prefix of longer English words: "japan" is a meaning
    // of 日本, and "japanese" (日本語) only starts with it (as "catch" with "cat").
    assert_eq!(position(&app, "japan", "vocab-nihon").await, 0);
    let ids = app.search_ids("query=japan&limit=20").await;
    assert!(!ids.contains(&"vocab-nihongo".to_owned()), "{ids:?}");
    // Reading prefixes still count: にほ → 日本 and 日本語.
    assert!(position(&app, "にほ", "vocab-nihongo").await < 20);
    // Among equal tiers the common word wins: food → 食べ物 before the kanji 食.
    assert!(
        position(&app, "food", "vocab-tabemono").await
            < position(&app, "food", "kanji-shoku").await
    );
    // Prefix: tabe → both たべ… words; the more frequent first.
    let ids = app.search_ids("query=tabe").await;
    assert_eq!(ids[..2], ["vocab-taberu", "vocab-tabemono"]);
    // Ties: common words before uncommon, easier levels first (water: the word, then the kanji).
    assert!(
        position(&app, "water", "vocab-mizu").await < position(&app, "water", "kanji-mizu").await
    );
}

#[tokio::test]
async fn katakana_and_hiragana_forms_match_each_other() {
    let app = spawn_app().await;
    let ids = app.search_ids("query=あ").await;
    assert!(
        ids.contains(&"char-a".to_owned()) && ids.contains(&"char-katakana-a".to_owned()),
        "{ids:?}"
    );
}

#[tokio::test]
async fn filters_limit_and_total_candidates() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/learnables?query=water").await;
    assert_eq!(status, 200);
    assert_eq!(body["sample"], true);
    assert_eq!(body["data"]["limit"], 10);
    assert_eq!(body["data"]["total_candidates"], 3);
    let (_, body) = app.get_json("/api/v1/learnables?query=water&limit=1").await;
    assert_eq!(body["data"]["results"].as_array().unwrap().len(), 1);
    assert_eq!(body["data"]["total_candidates"], 3);
    assert_eq!(body["data"]["limit"], 1);
    let ids = app.search_ids("query=water&type=kanji").await;
    assert_eq!(ids, ["kanji-mizu"]);
    let ids = app.search_ids("query=日&type=vocabulary").await;
    assert!(ids.iter().all(|id| id.starts_with("vocab-")), "{ids:?}");
    let ids = app.search_ids("query=eat&jlpt_level=4").await;
    assert_eq!(ids, ["kanji-shoku"]);
    let summary = &body["data"]["results"][0];
    for member in [
        "id",
        "label",
        "type",
        "domain",
        "jlpt_level",
        "is_common_word",
        "meaning",
        "writing_forms",
        "tags",
    ] {
        assert!(summary.get(member).is_some(), "summary lacks {member}");
    }
}

#[tokio::test]
async fn keyless_search_sees_the_sample_only() {
    let app = spawn_app().await;
    let ids = app.search_ids("query=eat&limit=20").await;
    assert!(!ids.contains(&"vocab-kuu".to_owned()), "{ids:?}");
    let ids = app.search_ids("query=sake").await;
    assert!(ids.is_empty(), "{ids:?}");
}

#[tokio::test]
async fn every_search_parameter_is_checked() {
    let app = spawn_app().await;
    for query_string in [
        "",
        "query=",
        "query=%20%20",
        "query=a&limit=0",
        "query=a&limit=21",
        "query=a&limit=ten",
        "query=a&type=person",
        "query=a&type=KANJI",
        "query=a&jlpt_level=0",
        "query=a&jlpt_level=6",
        "query=a&jlpt_level=N5",
        "query=a&limit=1&limit=2",
    ] {
        let (status, body) = app
            .get_json(&format!("/api/v1/learnables?{query_string}"))
            .await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
    }
    let long = "a".repeat(101);
    let (status, body) = app
        .get_json(&format!("/api/v1/learnables?query={long}"))
        .await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    let (_, body) = app.get_json("/api/v1/learnables?query=a&limit=21").await;
    assert!(
        body["error"]["message"].as_str().unwrap().contains("limit"),
        "{body}"
    );
}

#[tokio::test]
async fn no_match_is_an_empty_result_not_an_error() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/learnables?query=zzzzqqq").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["results"], serde_json::json!([]));
    assert_eq!(body["data"]["total_candidates"], 0);
}
