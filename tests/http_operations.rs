//! The operation table against every view derived from it, on a running server: the
//! OpenAPI paths and their query parameters, discovery's `endpoints`, the MCP tool list,
//! the router (every operation answers), the invoice line each billed call writes, and
//! the parameters each operation refuses. A piece forgotten when an operation is added
//! fails here.

use std::collections::BTreeSet;

use manabi_api::operations::{Access, OPERATIONS, OperationSpec, Price, discovery_endpoints};
use manabi_tests::ledger::fresh_sqlite_db;
use manabi_tests::{TestApp, assert_error, funded_key, spawn_app_with};
use serde_json::{Value, json};

/// A real id for each path with an `{id}` (entries of the fixture artifact).
fn example_path(operation: &OperationSpec) -> String {
    let id = match operation.path {
        path if path.starts_with("/api/v1/lessons/") => "lesson-drinks",
        path if path.starts_with("/api/v1/journeys/") => "journey-izakaya",
        _ => "vocab-sake",
    };
    let query = if operation.id == "searchLearnables" {
        "?query=sake"
    } else {
        ""
    };
    format!("{}{query}", operation.path.replace("{id}", id))
}

async fn keyed_get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .header("authorization", format!("bearer {key}"))
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_view_agrees_with_the_operation_table() {
    let db = fresh_sqlite_db();
    let app = spawn_app_with(&[
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
    ])
    .await;

    // OpenAPI: exactly the table's paths, each with its id and query parameters.
    let (_, openapi) = app.get_json("/api/v1/openapi.json").await;
    let documented: BTreeSet<&str> = openapi["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect();
    let table: BTreeSet<&str> = OPERATIONS.iter().map(|op| op.path).collect();
    assert_eq!(documented, table, "OpenAPI paths");
    for operation in OPERATIONS {
        let get = &openapi["paths"][operation.path]["get"];
        assert_eq!(get["operationId"], operation.id, "{}", operation.path);
        let query: Vec<&str> = get["parameters"]
            .as_array()
            .map(|params| {
                params
                    .iter()
                    .filter(|param| param["in"] == "query")
                    .map(|param| param["name"].as_str().expect("name"))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            query, operation.query,
            "query parameters of {}",
            operation.id
        );
    }

    // Discovery: the public operations, with their parameters.
    let (_, discovery) = app.get_json("/api/v1").await;
    assert_eq!(discovery["data"]["endpoints"], json!(discovery_endpoints()));

    // Every operation answers a keyed call; each billed one writes its own invoice line.
    let (_, _, key) = funded_key(&db.url, 1_000);
    let mut billed = Vec::new();
    for operation in OPERATIONS {
        let (status, body) = keyed_get(&app, &key, &example_path(operation)).await;
        assert_eq!(status, 200, "{}: {body}", operation.id);
        if operation.price != Price::Free {
            billed.push(operation);
        }
    }
    let charges = wait_for_charges(&app, &key, billed.len()).await;
    let lines: Vec<(&str, i64)> = charges
        .iter()
        .map(|line| {
            (
                line["operation"].as_str().unwrap(),
                line["points"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, i64)> = billed
        .iter()
        .map(|op| (op.id, if op.price == Price::Search { 5 } else { 1 }))
        .collect();
    assert_eq!(lines, expected, "invoice lines");

    // Operations that need a key refuse keyless callers; the others serve the sample.
    for operation in OPERATIONS {
        let (status, body) = app.get_json(&example_path(operation)).await;
        match operation.access {
            Access::KeyRequired => assert_error(status, &body, 401, "INVALID_API_KEY"),
            Access::Public if operation.id == "getOpenApi" => assert_eq!(status, 200),
            Access::Public => assert!(
                status == 200 || body["error"]["code"] == "NOT_IN_SAMPLE",
                "{}: {status} {body}",
                operation.id
            ),
        }
    }
}

/// A parameter an operation does not take is a 400 naming it, before any charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_parameters_and_non_canonical_numbers_are_refused_uncharged() {
    let db = fresh_sqlite_db();
    let app = spawn_app_with(&[
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
    ])
    .await;
    let (_, _, key) = funded_key(&db.url, 100);
    for path in [
        "/api/v1/learnables/vocab-sake/related?limt=5",
        "/api/v1/learnables?query=sake&limit=+5",
        "/api/v1/learnables?query=sake&limit=05",
        "/api/v1/learnables?query=%FF%FE",
        "/api/v1/learnables?query=a&query=b",
        "/api/v1/worlds?page=2",
        "/api/v1/journeys/journey-izakaya?render=raw",
    ] {
        let (status, body) = keyed_get(&app, &key, path).await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("`")),
            "{path}: the message names the parameter: {body}"
        );
    }
    let (status, body) = keyed_get(&app, &key, "/api/v1/worlds?page=2").await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (
            400,
            Some("unknown parameter `page`: this operation takes none")
        )
    );
    let (_, account) = keyed_get(&app, &key, "/api/v1/account").await;
    assert_eq!(
        account["data"]["balance"], 100,
        "nothing was charged: {account}"
    );
}

/// A HEAD request gets no body, so it is answered without a charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyed_head_is_not_charged() {
    let db = fresh_sqlite_db();
    let app = spawn_app_with(&[
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
    ])
    .await;
    let (_, _, key) = funded_key(&db.url, 10);
    let response = app
        .client
        .head(format!("{}/api/v1/learnables/vocab-sake", app.address))
        .header("x-api-key", &key)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let (status, _) = keyed_get(&app, "svc_ak_not-a-real-key", "/api/v1/worlds").await;
    assert_eq!(status, 401);
    let (_, account) = keyed_get(&app, &key, "/api/v1/account").await;
    assert_eq!(account["data"]["balance"], 10, "{account}");
    assert_eq!(account["data"]["usage_today"]["calls"], 0, "{account}");
}

/// The invoice lines once the in-process projector has passed `n` charges.
async fn wait_for_charges(app: &TestApp, key: &str, n: usize) -> Vec<Value> {
    let started = std::time::Instant::now();
    loop {
        let (status, body) = keyed_get(app, key, "/api/v1/account/charges").await;
        assert_eq!(status, 200, "{body}");
        let lines = body["data"]["charges"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if lines.len() >= n || started.elapsed() > std::time::Duration::from_secs(10) {
            return lines;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
