//! Black-box tests of every REST read against the real server: envelopes, the sample
//! flag, every 4xx path per parameter, discovery, OpenAPI and the docs page.

use manabi_tests as common;

use common::{assert_error, spawn_app};

#[tokio::test]
async fn health_and_readiness_answer() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/healthz").await;
    assert_eq!((status, &body["ok"]), (200, &serde_json::json!(true)));
    let (status, body) = app.get_json("/readyz").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["learnables"], 23);
}

#[tokio::test]
async fn discovery_lists_endpoints_prices_and_sample_mode() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1").await;
    assert_eq!(status, 200);
    assert_eq!(body["ok"], true);
    assert_eq!(body["sample"], true);
    let data = &body["data"];
    assert_eq!(data["mode"], "sample");
    assert_eq!(data["mcp_endpoint"], "/mcp");
    assert_eq!(data["openapi"], "/api/v1/openapi.json");
    assert_eq!(data["docs_url"], format!("{}/docs", app.address));
    assert_eq!(data["search_limit_max"], 20);
    assert_eq!(data["pricing"]["currency"], "JPY");
    assert_eq!(data["pricing"]["read_jpy"], 1);
    assert_eq!(data["pricing"]["search_jpy"], 5);
    assert_eq!(data["pricing"]["localized_generation_jpy"], 25);
    assert_eq!(data["fair_use"]["daily_call_cap_per_key"], 2000);
    assert_eq!(data["fair_use"]["daily_call_cap_per_account"], 5000);
    let endpoints: Vec<&str> = data["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(endpoints.contains(&"GET /api/v1/learnables?query&type&jlpt_level&limit"));
    for member in ["name", "description", "auth", "signup_url"] {
        assert!(
            data[member].as_str().is_some_and(|text| !text.is_empty()),
            "{member}"
        );
    }
}

#[tokio::test]
async fn prices_come_from_configuration() {
    let app = common::spawn_app_with(&[("MANABI_PRICE_SEARCH_JPY", "7")]).await;
    let (_, body) = app.get_json("/api/v1").await;
    assert_eq!(body["data"]["pricing"]["search_jpy"], 7);
}

#[tokio::test]
async fn learnable_in_the_sample_is_served_as_stored() {
    let app = spawn_app().await;
    let response = app.get("/api/v1/learnables/vocab-taberu").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["ok"], true);
    assert_eq!(body["sample"], true);
    assert_eq!(body["data"]["id"], "vocab-taberu");
    assert_eq!(body["data"]["sources"][0]["source"], "fixture");
    let (status, _) = app
        .get_json("/api/v1/learnables/vocab-taberu?locale=en")
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn japanese_ids_are_percent_decoded() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/learnables/%E9%A3%9F%E3%81%B9").await;
    assert_error(status, &body, 404, "NOT_FOUND");
}

#[tokio::test]
async fn unknown_and_out_of_sample_entries_are_404_with_distinct_codes() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/learnables/no-such-entry").await;
    assert_error(status, &body, 404, "NOT_FOUND");
    let (status, body) = app.get_json("/api/v1/learnables/vocab-kuu").await;
    assert_error(status, &body, 404, "NOT_IN_SAMPLE");
    let signup = format!("{}/developers", app.address);
    assert_eq!(body["error"]["top_up_url"], signup.as_str());
    assert!(body["error"]["message"].as_str().unwrap().contains(&signup));
}

#[tokio::test]
async fn locales_other_than_english_are_refused_clearly() {
    let app = spawn_app().await;
    let (status, body) = app
        .get_json("/api/v1/learnables/vocab-taberu?locale=fr")
        .await;
    assert_error(status, &body, 422, "LOCALE_UNAVAILABLE");
    let (status, body) = app
        .get_json("/api/v1/learnables/vocab-taberu?locale=EN")
        .await;
    assert_eq!(status, 200, "any case: {body}");
    for bad in ["e", "eng", "e1", "qq"] {
        let (status, body) = app
            .get_json(&format!("/api/v1/learnables/vocab-taberu?locale={bad}"))
            .await;
        assert_error(status, &body, 400, "INVALID_PARAMETER");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("locale"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_key_is_refused_until_keys_exist() {
    let app = spawn_app().await;
    let url = format!("{}/api/v1/learnables/vocab-taberu", app.address);
    let bearer = app
        .client
        .get(&url)
        .bearer_auth("svc_ak_unknown")
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 401);
    assert!(bearer.headers().contains_key("www-authenticate"));
    let body: serde_json::Value = bearer.json().await.unwrap();
    assert_error(401, &body, 401, "INVALID_API_KEY");
    let header = app
        .client
        .get(&url)
        .header("X-API-Key", "svc_ak_x")
        .send()
        .await
        .unwrap();
    assert_eq!(header.status(), 401);
    // Parameters are checked before the key (DESIGN §3): a bad limit is a 400 even with a key.
    let bad = app
        .client
        .get(format!(
            "{}/api/v1/learnables?query=a&limit=21",
            app.address
        ))
        .bearer_auth("svc_ak_unknown")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test]
async fn lessons_render_link_markup_three_ways() {
    let app = spawn_app().await;
    let (status, raw) = app.get_json("/api/v1/lessons/lesson-eating").await;
    assert_eq!(status, 200);
    assert_eq!(raw["sample"], true);
    let stored: serde_json::Value = serde_json::from_str(common::fixture::LESSON_SAMPLE).unwrap();
    assert_eq!(raw["data"], stored);
    let (_, plain) = app
        .get_json("/api/v1/lessons/lesson-eating?render=plain")
        .await;
    assert_eq!(
        plain["data"]["body_markdown"],
        "Say taberu for eating and tabemono for food."
    );
    assert_eq!(
        plain["data"]["questions"][0]["prompt"],
        "What does 食べる mean?"
    );
    let (_, resolved) = app
        .get_json("/api/v1/lessons/lesson-eating?render=resolved")
        .await;
    let body = resolved["data"]["body_markdown"].as_str().unwrap();
    assert!(
        body.starts_with("Say taberu") && !body.contains("[["),
        "{body}"
    );
    assert_eq!(resolved["data"]["learnable_refs"]["vocab-taberu"], "食べる");
    assert_eq!(
        resolved["data"]["learnable_refs"]["vocab-tabemono"],
        "食べ物"
    );
    let (status, body) = app
        .get_json("/api/v1/lessons/lesson-eating?render=html")
        .await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    let (status, body) = app.get_json("/api/v1/lessons/lesson-drinks").await;
    assert_error(status, &body, 404, "NOT_IN_SAMPLE");
    let (status, body) = app.get_json("/api/v1/lessons/nope").await;
    assert_error(status, &body, 404, "NOT_FOUND");
    let (status, body) = app
        .get_json("/api/v1/lessons/lesson-eating?locale=ja")
        .await;
    assert_error(status, &body, 422, "LOCALE_UNAVAILABLE");
}

#[tokio::test]
async fn journeys_worlds_and_credit_packs() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/journeys/journey-first-meal").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["lessons"][0], "lesson-eating");
    let (status, body) = app.get_json("/api/v1/journeys/journey-izakaya").await;
    assert_error(status, &body, 404, "NOT_IN_SAMPLE");
    let (status, body) = app.get_json("/api/v1/journeys/none").await;
    assert_error(status, &body, 404, "NOT_FOUND");
    let (status, body) = app.get_json("/api/v1/worlds").await;
    assert_eq!(status, 200);
    assert_eq!(body["sample"], true);
    assert_eq!(body["data"]["total"], 2);
    assert_eq!(body["data"]["worlds"][0]["id"], "world-castle");
    let (status, body) = app.get_json("/api/v1/credit-packs").await;
    assert_eq!(status, 200);
    let packs = body["data"]["packs"].as_array().unwrap();
    assert_eq!(packs.len(), 3);
    for member in ["id", "points", "price_jpy", "bonus", "purchase_url"] {
        assert!(packs[0].get(member).is_some(), "{member}");
    }
}

#[tokio::test]
async fn credit_packs_come_from_the_config_file() {
    let path = std::env::temp_dir().join(format!("manabi-packs-{}.toml", uuid::Uuid::now_v7()));
    std::fs::write(
        &path,
        "[[credit_packs]]\nid = \"tiny\"\npoints = 100\nprice_jpy = 100\n",
    )
    .unwrap();
    let app = common::spawn_app_with(&[("MANABI_CONFIG", path.to_str().unwrap())]).await;
    let (_, body) = app.get_json("/api/v1/credit-packs").await;
    assert_eq!(body["data"]["packs"][0]["id"], "tiny");
    assert_eq!(body["data"]["packs"][0]["bonus"], 0);
    assert_eq!(body["data"]["packs"].as_array().unwrap().len(), 1);
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn openapi_is_3_1_and_complete() {
    let app = spawn_app().await;
    let (status, doc) = app.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(doc["info"]["version"], "1.0.0");
    for path in [
        "/api/v1",
        "/api/v1/learnables",
        "/api/v1/learnables/{id}",
        "/api/v1/learnables/{id}/related",
        "/api/v1/lessons/{id}",
        "/api/v1/journeys/{id}",
        "/api/v1/worlds",
        "/api/v1/credit-packs",
        "/api/v1/openapi.json",
    ] {
        let operation = &doc["paths"][path]["get"];
        assert!(operation.is_object(), "{path}");
        for status in [
            "200", "400", "401", "414", "429", "431", "500", "503", "504",
        ] {
            assert!(
                operation["responses"][status].is_object(),
                "{path} {status}"
            );
        }
        // Only the statuses the operation can answer: a price, an id, a locale.
        let priced = !matches!(
            path,
            "/api/v1" | "/api/v1/credit-packs" | "/api/v1/openapi.json"
        );
        assert_eq!(
            operation["responses"]["402"].is_object(),
            priced,
            "{path} 402"
        );
        assert_eq!(
            operation["responses"]["404"].is_object(),
            path.contains("{id}"),
            "{path} 404"
        );
        let localized = matches!(path, "/api/v1/learnables/{id}" | "/api/v1/lessons/{id}");
        assert_eq!(
            operation["responses"]["422"].is_object(),
            localized,
            "{path} 422"
        );
        assert!(operation["responses"]["405"].is_null(), "{path} 405");
    }
    let limit = doc["paths"]["/api/v1/learnables"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap()
        .clone();
    assert_eq!(limit["schema"]["maximum"], 20);
    assert_eq!(limit["schema"]["minimum"], 1);
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    assert!(doc["components"]["securitySchemes"]["api_key"].is_object());
    assert!(doc["components"]["schemas"]["Learnable"].is_object());
    assert!(doc["components"]["schemas"]["SearchType"].is_object());
}

#[tokio::test]
async fn docs_page_is_self_contained_html() {
    let app = spawn_app().await;
    let response = app.get("/docs").await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = response.text().await.unwrap();
    assert!(page.contains("GET /api/v1/learnables/{id}/related"));
    assert!(!page.contains("<script"));
    assert!(!page.contains("https://"), "no asset from elsewhere");
    // A guide to start from, and examples made from the served dataset.
    assert!(page.contains("id=\"quickstart\""));
    assert!(page.contains("mcpServers"));
    assert!(page.contains(&format!("{}/api/v1/learnables?query=taberu", app.address)));
    assert!(
        page.contains("vocab-taberu"),
        "an example answer from the dataset"
    );
    // Markdown is rendered, not shown as backticks.
    assert!(!page.contains("`sample`") && page.contains("<code>"));
    // The MCP configuration is each host's own: Cursor's `mcpServers`, VS Code's
    // `servers` with a type, Claude Code's command, Claude Desktop's custom connector.
    assert!(page.contains("\"servers\": {") && page.contains("\"type\": \"http\""));
    assert!(page.contains(&format!(
        "claude mcp add --transport http manabi {}/mcp",
        app.address
    )));
    assert!(page.contains("custom connector"));
    // Every operation of the description has an example, there on the first request
    // after readiness: they are made at start, not by the first visitor.
    let (_, doc) = app.get_json("/api/v1/openapi.json").await;
    let operations = page
        .split_once("<h2 id=\"operations\">")
        .expect("operations")
        .1;
    let ids: Vec<&str> = doc["paths"]
        .as_object()
        .expect("paths")
        .values()
        .filter_map(|item| item["get"]["operationId"].as_str())
        .collect();
    assert_eq!(ids.len(), manabi_api::operations::OPERATIONS.len());
    for id in &ids {
        assert!(
            operation_section(operations, id).contains("<summary>Example</summary>"),
            "{id} has an example"
        );
    }
    // One keyed read shows the Billing object, and says its values are illustrative;
    // the account answers, which need a real account, say theirs are made up.
    let keyed = operation_section(operations, "getLearnable");
    assert!(keyed.contains("&quot;billing&quot;: {"), "{keyed}");
    assert!(keyed.contains("values are illustrative"), "{keyed}");
    assert!(
        !keyed.contains("&quot;sample&quot;"),
        "a keyed answer is not the sample"
    );
    for id in ["getAccount", "listAccountCharges"] {
        let section = operation_section(operations, id);
        assert!(section.contains("every value made up"), "{section}");
    }
    assert!(operation_section(operations, "getAccount").contains("&quot;balance&quot;"));
}

/// The part of the docs page about one operation: its heading up to the next one.
fn operation_section<'a>(operations: &'a str, id: &str) -> &'a str {
    let start = operations
        .split_once(&format!("<h3 id=\"{id}\">"))
        .unwrap_or_else(|| panic!("a section for {id}"))
        .1;
    start.split("<h3 ").next().unwrap_or(start)
}

/// The docs page's examples are made at start, as soon as the dataset is in, not by the
/// first visitor: with no request to `/docs`, the log says the page was made with an
/// example for every operation, and names none left without one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_examples_are_made_at_start() {
    let dir = std::env::temp_dir().join(format!("manabi-docs-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let artifact = dir.join("artifact.jsonl.zst");
    common::fixture::write_artifact(&artifact);
    let log = dir.join("stderr.log");
    let mut command = common::serve_command(&dir, &artifact);
    command
        .env("MANABI_LOG", "info")
        .stderr(std::fs::File::create(&log).expect("log file"));
    let app = common::start_binary(command, dir.clone());
    app.wait_ready().await;
    let text = log_with(&log, "docs page made with its examples").await;
    let count = manabi_api::operations::OPERATIONS.len();
    assert!(
        text.contains(&format!("examples={count} operations={count}")),
        "{text}"
    );
    assert!(!text.contains("no example"), "{text}");
}

/// The log at `path` once it has a line containing `needle` (the server writes it on a
/// task of its own, a moment after readiness).
async fn log_with(path: &std::path::Path, needle: &str) -> String {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) || started.elapsed() > std::time::Duration::from_secs(30) {
            assert!(text.contains(needle), "no {needle:?} in the log: {text}");
            return text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn unknown_paths_and_methods_answer_in_the_envelope() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/nothing-here").await;
    assert_error(status, &body, 404, "NOT_FOUND");
    let response = app
        .client
        .post(format!("{}/api/v1/learnables/vocab-taberu", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    assert!(
        response.headers()["allow"]
            .to_str()
            .unwrap()
            .contains("GET")
    );
    let body: serde_json::Value = response.json().await.unwrap();
    assert_error(405, &body, 405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn metrics_count_requests() {
    let app = spawn_app().await;
    app.get("/api/v1").await;
    let text = app.get("/metrics").await.text().await.unwrap();
    assert!(text.contains("http_requests_total"), "{text}");
    assert!(text.contains("route=\"/api/v1\""), "{text}");
}

#[tokio::test]
async fn a_broken_artifact_leaves_the_api_unavailable() {
    let app = common::spawn_app_with_artifact_bytes(b"not zstd at all").await;
    // healthz answers at once; the API and readyz say 503 in the envelope.
    let mut ready_status = 0;
    for _ in 0..100 {
        let (status, body) = app.get_json("/readyz").await;
        ready_status = status;
        if body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("failed to load"))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(ready_status, 503);
    assert_eq!(app.get("/healthz").await.status(), 200);
    let response = app.get("/api/v1/learnables/vocab-taberu").await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let body: serde_json::Value = response.json().await.unwrap();
    assert_error(503, &body, 503, "SERVICE_UNAVAILABLE");
}

/// Not a test: writes the fixture artifact to `$MANABI_FIXTURE_OUT` for the scripts that
/// need a dataset before the real artifact exists (`scripts/suites/schemathesis.sh`).
#[test]
#[ignore]
fn write_fixture_artifact() {
    let out = std::env::var("MANABI_FIXTURE_OUT").expect("MANABI_FIXTURE_OUT is set");
    common::fixture::write_artifact(std::path::Path::new(&out));
}

/// The binary carries its dataset: started from a directory without the repository,
/// and no `MANABI_ARTIFACT`, it serves the full built-in artifact. Its log, written to a
/// file, has no terminal colour codes, and the 503s of `/readyz` while the dataset loads
/// are not ERROR lines; the docs page gets an example for every operation from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_its_built_in_dataset_from_any_directory() {
    let dir = std::env::temp_dir().join(format!("manabi-anywhere-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("stderr.log");
    let mut command = std::process::Command::new(common::manabi_binary());
    command
        .arg("serve")
        .current_dir(&dir)
        .env("MANABI_BIND", "127.0.0.1:0")
        .env("MANABI_LOG", "info")
        .env_remove("MANABI_ARTIFACT")
        .env_remove("MANABI_DATA_DIR")
        .env_remove("MANABI_DATABASE_URL")
        .stderr(std::fs::File::create(&log).expect("log file"));
    let app = common::start_binary(command, dir.clone());
    app.wait_ready().await;
    let (status, body) = app.get_json("/readyz").await;
    assert_eq!(status, 200, "{body}");
    let learnables = body["data"]["learnables"].as_u64().expect("learnables");
    assert!(learnables > 10_000, "the full built-in dataset: {body}");
    assert!(
        dir.join("var/ledger.sqlite").is_file(),
        "the data dir is ./var"
    );
    // The docs page's examples come from the served dataset too: every operation has one.
    let text = log_with(&log, "docs page made with its examples").await;
    assert!(!text.contains("no example"), "{text}");
    let page = app.get("/docs").await.text().await.expect("the docs page");
    let operations = page
        .split_once("<h2 id=\"operations\">")
        .expect("operations")
        .1;
    let keyed = operation_section(operations, "getLearnable");
    assert!(
        keyed.contains("&quot;billing&quot;: {"),
        "a long answer keeps its billing"
    );
    assert!(
        !text.contains('\u{1b}'),
        "no colour codes in a log file: {text}"
    );
    assert!(!text.contains("ERROR"), "no ERROR line: {text}");
    assert!(text.contains("dataset loaded"), "{text}");
}
