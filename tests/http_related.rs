//! `getRelatedLearnables` against the real server: each related entry once with every kind
//! linking it, the kind filter and `totals_by_kind`, cursor paging to the end, the keyless
//! view, refusals charged nothing while each page is billed, and every answer valid
//! against the schema the OpenAPI description publishes. The fixture covers each rule on
//! a few entries; the committed dataset's 日 pages through hundreds.

use manabi_tests as common;

use std::collections::{BTreeMap, HashSet};

use common::ledger::{TestDb, fresh_sqlite_db};
use common::{TestApp, assert_error};
use serde_json::{Value, json};

/// A related entry as a test compares it: its id and its kinds, in order.
type Listed = (String, Vec<String>);

/// The published schema of the answer's `data`.
fn data_validator() -> jsonschema::Validator {
    let (_, openapi) = manabi_api::routes::api_with_description();
    let openapi = serde_json::to_value(&openapi).expect("the description serializes");
    let schema = json!({
        "$ref": "#/components/schemas/RelatedLearnables",
        "components": openapi["components"],
    });
    jsonschema::validator_for(&schema).expect("the published schema compiles")
}

/// GET `path`, keyless or with `key`: the status and the body.
async fn get(app: &TestApp, key: Option<&str>, path: &str) -> (u16, Value) {
    let mut request = app.client.get(format!("{}{path}", app.address));
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON body"))
}

/// A page that must answer: its `data`, checked against the published schema.
async fn related(app: &TestApp, key: Option<&str>, path: &str) -> Value {
    let (status, body) = get(app, key, path).await;
    assert_eq!(status, 200, "{path}: {body}");
    let data = body["data"].clone();
    let errors: Vec<String> = data_validator()
        .iter_errors(&data)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{path}: {errors:?} in {data}");
    data
}

/// The entries of a page with their kinds.
fn listed(data: &Value) -> Vec<Listed> {
    let entries = data["related"].as_array().expect("related");
    entries
        .iter()
        .map(|entry| {
            let kinds = entry["relationships"].as_array().expect("relationships");
            let kinds = kinds.iter().map(|r| text(&r["kind"])).collect();
            (text(&entry["learnable"]["id"]), kinds)
        })
        .collect()
}

fn text(value: &Value) -> String {
    value.as_str().expect("a string").to_owned()
}

fn expect(rows: &[(&str, &[&str])]) -> Vec<Listed> {
    rows.iter()
        .map(|(id, kinds)| {
            (
                id.to_string(),
                kinds.iter().map(|k| k.to_string()).collect(),
            )
        })
        .collect()
}

/// Every page of `path` with the query parameters `filter` (`&kind=…` or nothing),
/// `limit` at a time, from the first page to the one whose `next_cursor` is null: the
/// entries in order. Each page says the same `total` and holds at most `limit` entries.
async fn all_pages(
    app: &TestApp,
    key: Option<&str>,
    path: &str,
    filter: &str,
    limit: usize,
) -> Vec<Listed> {
    let path = format!("{path}?limit={limit}{filter}");
    let first = related(app, key, &path).await;
    let total = first["total"].as_u64().expect("total") as usize;
    let mut entries = listed(&first);
    let mut cursor = first["next_cursor"].clone();
    while let Some(next) = cursor.as_str() {
        let page = related(app, key, &format!("{path}&cursor={next}")).await;
        assert_eq!(page["total"], total, "{page}");
        let on_page = listed(&page);
        assert!(!on_page.is_empty() && on_page.len() <= limit, "{page}");
        entries.extend(on_page);
        cursor = page["next_cursor"].clone();
        assert!(
            entries.len() <= total,
            "more entries than the total: {page}"
        );
    }
    assert_eq!(entries.len(), total, "{path}");
    let ids: HashSet<&String> = entries.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), entries.len(), "an entry listed twice in {path}");
    entries
}

/// A server on the fixture billing to a ledger of its own, and a key holding `points`.
async fn keyed_server(points: i64) -> (TestApp, TestDb, String) {
    let db = fresh_sqlite_db();
    let app = common::spawn_app_with(&[
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
    ])
    .await;
    let (_, _, key) = common::funded_key(&db.url, points);
    (app, db, key)
}

async fn balance(app: &TestApp, key: &str) -> i64 {
    let (status, body) = get(app, Some(key), "/api/v1/account").await;
    assert_eq!(status, 200, "{body}");
    body["data"]["balance"].as_i64().expect("balance")
}

#[tokio::test]
async fn each_related_entry_is_listed_once_with_every_kind_linking_it() {
    let app = common::spawn_app().await;
    // 水 and its radical are linked by has-component and has-radical, each stored from
    // both ends: one entry with two kinds, after the word (used-in ranks first).
    let data = related(&app, None, "/api/v1/learnables/kanji-mizu/related").await;
    let want: &[(&str, &[&str])] = &[
        ("vocab-mizu", &["used-in"]),
        ("radical-water", &["has-radical", "has-component"]),
    ];
    assert_eq!(listed(&data), expect(want));
    assert_eq!(data["id"], "kanji-mizu");
    assert_eq!(data["related"][1]["relationship"], "has-radical");
    assert_eq!(data["related"][1]["basis"], "fixture");
    assert_eq!(
        data["related"][1]["relationships"][1],
        json!({"kind": "has-component", "basis": "fixture"})
    );
    let totals = json!({"used-in": 1, "has-radical": 1, "has-component": 1});
    assert_eq!(data["totals_by_kind"], totals);
    assert_eq!((&data["total"], &data["limit"]), (&json!(2), &json!(10)));
    assert_eq!(
        (&data["kind"], &data["next_cursor"]),
        (&Value::Null, &Value::Null)
    );
    // From the other end each kind has its inverse name.
    let data = related(&app, None, "/api/v1/learnables/radical-water/related").await;
    let want: &[(&str, &[&str])] = &[("kanji-mizu", &["radical-of", "component-of"])];
    assert_eq!(listed(&data), expect(want));
    for (id, other, kind) in [
        ("char-a", "char-katakana-a", "hiragana-of"),
        ("char-katakana-a", "char-a", "katakana-of"),
    ] {
        let data = related(&app, None, &format!("/api/v1/learnables/{id}/related")).await;
        assert_eq!(listed(&data), expect(&[(other, &[kind])]), "{id}");
    }
}

#[tokio::test]
async fn the_kind_filter_keeps_the_named_kinds_and_totals_count_every_kind() {
    let app = common::spawn_app().await;
    let path = "/api/v1/learnables/kanji-mizu/related";
    let data = related(&app, None, &format!("{path}?kind=has-component")).await;
    assert_eq!(
        listed(&data),
        expect(&[("radical-water", &["has-component"])])
    );
    assert_eq!(data["related"][0]["relationship"], "has-component");
    assert_eq!(
        (&data["kind"], &data["total"]),
        (&json!(["has-component"]), &json!(1))
    );
    let totals = json!({"used-in": 1, "has-radical": 1, "has-component": 1});
    assert_eq!(data["totals_by_kind"], totals, "before the filter");
    // Several kinds, in any order and repeated, are one set.
    let data = related(
        &app,
        None,
        &format!("{path}?kind=has-component,used-in,has-component"),
    )
    .await;
    let want: &[(&str, &[&str])] = &[
        ("vocab-mizu", &["used-in"]),
        ("radical-water", &["has-component"]),
    ];
    assert_eq!(listed(&data), expect(want));
    assert_eq!(data["kind"], json!(["used-in", "has-component"]));
    // A known kind that links nothing is an empty listing, not an error.
    let data = related(&app, None, &format!("{path}?kind=antonym")).await;
    assert_eq!((&data["related"], &data["total"]), (&json!([]), &json!(0)));
    for query in [
        "kind=antonym-of",
        "kind=",
        "kind=used-in,",
        "kind=Used-in",
        "kind=used-in,%20antonym",
        "kind=used-in&kind=antonym",
    ] {
        let (status, body) = get(&app, None, &format!("{path}?{query}")).await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
        let message = text(&body["error"]["message"]);
        assert!(message.contains("`kind`"), "{query}: {message}");
    }
}

#[tokio::test]
async fn pages_follow_the_cursor_to_the_end_and_foreign_cursors_are_refused() {
    let app = common::spawn_app().await;
    let path = "/api/v1/learnables/kanji-hi/related";
    // All three words are N5 and common: the more frequent first.
    let want: &[(&str, &[&str])] = &[
        ("vocab-nihon", &["used-in"]),
        ("vocab-nihongo", &["used-in"]),
        ("vocab-nichiyoubi", &["used-in"]),
    ];
    for limit in [1, 2, 3, 20] {
        let entries = all_pages(&app, None, path, "&kind=used-in", limit).await;
        assert_eq!(entries, expect(want), "limit {limit}");
    }
    let first = related(&app, None, &format!("{path}?limit=1")).await;
    let cursor = text(&first["next_cursor"]);
    for (query, why) in [
        ("cursor=nope".to_owned(), "is not a cursor"),
        (
            format!("cursor={}", cursor.to_uppercase()),
            "is not a cursor",
        ),
        (format!("cursor={cursor}0"), "is not a cursor"),
        (format!("cursor={cursor}&kind=used-in"), "another listing"),
        (format!("cursor=000000ff{}", &cursor[8..]), "past the end"),
    ] {
        let (status, body) = get(&app, None, &format!("{path}?{query}")).await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
        let message = text(&body["error"]["message"]);
        assert!(message.contains(why), "{query}: {message}");
    }
    let other = format!("/api/v1/learnables/kanji-hon/related?cursor={cursor}");
    let (status, body) = get(&app, None, &other).await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    for bad in ["0", "21", "x", "-3"] {
        let (status, body) = get(&app, None, &format!("{path}?limit={bad}")).await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
    }
    let (status, body) = get(&app, None, "/api/v1/learnables/vocab-kuu/related").await;
    assert_error(status, &body, 404, "NOT_IN_SAMPLE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyless_callers_see_and_count_only_the_sample() {
    let (app, _db, key) = keyed_server(100).await;
    let path = "/api/v1/learnables/vocab-taberu/related";
    // 食う (vocab-kuu) is outside the sample: hidden from the list and from the totals.
    let keyless = related(&app, None, path).await;
    let want: &[(&str, &[&str])] = &[
        ("vocab-tabemono", &["see-also"]),
        ("kanji-shoku", &["uses-kanji"]),
    ];
    assert_eq!(listed(&keyless), expect(want));
    let totals = json!({"see-also": 1, "uses-kanji": 1});
    assert_eq!(
        (&keyless["totals_by_kind"], &keyless["total"]),
        (&totals, &json!(2))
    );
    let keyed = related(&app, Some(&key), path).await;
    let want: &[(&str, &[&str])] = &[
        ("vocab-kuu", &["synonym"]),
        ("vocab-tabemono", &["see-also"]),
        ("kanji-shoku", &["uses-kanji"]),
    ];
    assert_eq!(listed(&keyed), expect(want));
    let totals = json!({"synonym": 1, "see-also": 1, "uses-kanji": 1});
    assert_eq!(
        (&keyed["totals_by_kind"], &keyed["total"]),
        (&totals, &json!(3))
    );
    // A keyless cursor does not continue the keyed listing.
    let keyless = related(&app, None, &format!("{path}?limit=1")).await;
    let cursor = text(&keyless["next_cursor"]);
    let (status, body) = get(&app, Some(&key), &format!("{path}?cursor={cursor}")).await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_page_is_a_billed_read_and_refusals_charge_nothing() {
    let (app, _db, key) = keyed_server(100).await;
    let path = "/api/v1/learnables/kanji-shoku/related";
    let mut invoices = HashSet::new();
    let mut next = format!("{path}?limit=1");
    let mut ids = Vec::new();
    loop {
        let (status, body) = get(&app, Some(&key), &next).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["billing"]["points_charged"], 1, "{body}");
        invoices.insert(text(&body["billing"]["invoice_id"]));
        ids.extend(listed(&body["data"]).into_iter().map(|(id, _)| id));
        match body["data"]["next_cursor"].as_str() {
            Some(cursor) => next = format!("{path}?limit=1&cursor={cursor}"),
            None => break,
        }
    }
    // The N1 word that is not common comes last.
    assert_eq!(ids, ["vocab-taberu", "vocab-tabemono", "vocab-kuu"]);
    assert_eq!(invoices.len(), 3, "one charge per page");
    assert_eq!(balance(&app, &key).await, 97);
    let cursor = next.rsplit_once('=').expect("a cursor").1.to_owned();
    for query in [
        "kind=nope".to_owned(),
        "cursor=xyz".to_owned(),
        format!("kind=used-in&cursor={cursor}"),
        format!("cursor=00000063{}", &cursor[8..]),
    ] {
        let (status, body) = get(&app, Some(&key), &format!("{path}?{query}")).await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
        assert!(body.get("billing").is_none(), "{body}");
    }
    assert_eq!(balance(&app, &key).await, 97, "refusals are free");
}

/// The published order of the kinds: the enum of `RelationshipKind`.
fn kind_order() -> BTreeMap<String, usize> {
    let (_, openapi) = manabi_api::routes::api_with_description();
    let openapi = serde_json::to_value(&openapi).expect("the description serializes");
    let names = openapi["components"]["schemas"]["RelationshipKind"]["enum"]
        .as_array()
        .expect("the enum of kinds")
        .clone();
    names
        .iter()
        .enumerate()
        .map(|(at, name)| (text(name), at))
        .collect()
}

/// Every entry's first kind ranks no better than the one before it, and the kinds of an
/// entry are in the published order.
fn assert_ordered(entries: &[Listed]) {
    let order = kind_order();
    let rank = |kind: &String| order.get(kind).copied().expect("a published kind");
    for pair in entries.windows(2) {
        assert!(rank(&pair[0].1[0]) <= rank(&pair[1].1[0]), "{pair:?}");
    }
    for (id, kinds) in entries {
        let ranks: Vec<usize> = kinds.iter().map(rank).collect();
        assert!(ranks.is_sorted(), "{id}: {kinds:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_through_kanji_nichi_lists_each_related_entry_once() {
    let Some(artifact) = common::committed_artifact() else {
        eprintln!("no committed artifact at data/manabi-dataset.jsonl.zst; skipped");
        return;
    };
    let db = fresh_sqlite_db();
    let env = [
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
    ];
    let app = common::spawn_app_on_committed_artifact_with(artifact, &env).await;
    let (_, _, key) = common::funded_key(&db.url, 1_000);
    let path = "/api/v1/learnables/kanji-65e5/related";
    let first = related(&app, Some(&key), path).await;
    let first_kinds: HashSet<String> = listed(&first).into_iter().map(|e| e.1[0].clone()).collect();
    assert!(
        first_kinds.len() > 1,
        "the first page of 日 is not one kind: {first_kinds:?}"
    );
    assert_eq!(first["related"][0]["relationship"], "antonym", "{first}");

    let entries = all_pages(&app, Some(&key), path, "", 20).await;
    assert!(
        entries.len() > 100,
        "日 relates to hundreds of entries: {}",
        entries.len()
    );
    assert_ordered(&entries);
    let mut counted: BTreeMap<String, usize> = BTreeMap::new();
    for kind in entries.iter().flat_map(|(_, kinds)| kinds) {
        *counted.entry(kind.clone()).or_default() += 1;
    }
    let totals: BTreeMap<String, usize> =
        serde_json::from_value(first["totals_by_kind"].clone()).expect("counts by kind");
    assert_eq!(counted, totals);
    let pages = entries.len().div_ceil(20) as i64;

    let used_in = all_pages(&app, Some(&key), path, "&kind=used-in", 20).await;
    assert_eq!(used_in.len(), totals["used-in"]);
    assert!(used_in.iter().all(|(_, kinds)| kinds == &["used-in"]));
    let used_in_pages = used_in.len().div_ceil(20) as i64;
    assert_eq!(balance(&app, &key).await, 1_000 - 1 - pages - used_in_pages);

    // Keyless: only sample entries, each of which a keyless caller can read.
    let sample = all_pages(&app, None, path, "", 20).await;
    assert!(!sample.is_empty() && sample.len() < entries.len());
    let all_ids: HashSet<&String> = entries.iter().map(|(id, _)| id).collect();
    for (id, _) in &sample {
        assert!(all_ids.contains(id), "{id}");
        let (status, body) = get(&app, None, &format!("/api/v1/learnables/{id}")).await;
        assert_eq!(status, 200, "{id} is in the sample: {body}");
    }
}
