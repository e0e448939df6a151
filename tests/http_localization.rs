//! Localized reads end to end: the real `manabi serve` on the committed dataset, the
//! DeepL stand-in as the provider (counting its calls), real SQLite and PostgreSQL
//! ledgers. One generation and one 25-point charge per (entry, locale), however many
//! first requests race on however many servers; failures charge and keep nothing; a
//! restart serves the stored version at the read price.

use manabi_tests as common;

use common::deepl::{FakeDeepl, Mode};
use common::ledger::{Backend, TestDb, fresh_db, store, verified_when_caught_up};
use common::{TestApp, admin, assert_error, committed_artifact, funded_key};
use serde_json::Value;

/// A grammar point of the keyless sample, with English examples and notes.
const GRAMMAR: &str = "grammar-dake";

/// `manabi serve` on the committed artifact and the ledger at `database_url`, with the
/// stand-in as its provider; `dir` holds its data directory (reused across a restart).
fn serve(database_url: &str, deepl: &FakeDeepl, dir: &std::path::Path) -> TestApp {
    let provider = [
        ("MANABI_TRANSLATION_PROVIDER_URL", deepl.url.as_str()),
        ("MANABI_TRANSLATION_PROVIDER_KEY", FakeDeepl::AUTH_KEY),
    ];
    serve_with(database_url, dir, &provider)
}

/// `manabi serve` on the committed artifact with no translator but what `env` adds.
fn serve_with(database_url: &str, dir: &std::path::Path, env: &[(&str, &str)]) -> TestApp {
    let artifact = committed_artifact().expect("the committed dataset artifact");
    std::fs::create_dir_all(dir).expect("data dir");
    let mut command = common::serve_command(dir, &artifact);
    command
        .env("MANABI_DATABASE_URL", database_url)
        .env("MANABI_KEY_RATE_PER_SEC", "0")
        .env("MANABI_KEYLESS_RATE_PER_SEC", "0")
        .env_remove("MANABI_TRANSLATION_MODELS")
        .env_remove("MANABI_TRANSLATION_PROVIDER_URL");
    command.envs(env.iter().copied());
    common::start_binary(command, dir.join("server"))
}

fn test_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "manabi-localization-{name}-{}",
        uuid::Uuid::now_v7()
    ))
}

async fn get_keyed(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .bearer_auth(key)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON body"))
}

fn balance(database_url: &str, account: &str) -> i64 {
    admin(database_url, &["account", "show", "--account", account])["balance"]
        .as_i64()
        .expect("balance")
}

/// One server on a fresh SQLite ledger with the stand-in as its provider, and the key of
/// an account holding `points`; its directory goes when it is dropped.
struct Setup {
    db: TestDb,
    deepl: FakeDeepl,
    dir: std::path::PathBuf,
    app: TestApp,
    account: String,
    key: String,
}

impl Setup {
    async fn start(name: &str, points: i64) -> Setup {
        let db = fresh_db(Backend::Sqlite).await;
        let deepl = FakeDeepl::start().await;
        let dir = test_dir(name);
        let app = serve(&db.url, &deepl, &dir);
        app.wait_ready().await;
        let (account, _, key) = funded_key(&db.url, points);
        Setup {
            db,
            deepl,
            dir,
            app,
            account,
            key,
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        get_keyed(&self.app, &self.key, path).await
    }

    fn balance(&self) -> i64 {
        balance(&self.db.url, &self.account)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// 100 first requests for the same (entry, pt) at once, split over `servers`: one
/// generation, one 25-point charge, 99 one-point charges, and `ledger verify` agrees.
async fn first_requests_generate_once(backend: Backend, servers: usize) {
    let db = fresh_db(backend).await;
    let deepl = FakeDeepl::start().await;
    let dir = test_dir("race");
    let apps: Vec<TestApp> = (0..servers)
        .map(|n| serve(&db.url, &deepl, &dir.join(format!("s{n}"))))
        .collect();
    for app in &apps {
        app.wait_ready().await;
    }
    let (account, _, key) = funded_key(&db.url, 1_000);
    let path = format!("/api/v1/learnables/{GRAMMAR}?locale=pt");
    let requests = (0..100).map(|n| get_keyed(&apps[n % servers], &key, &path));
    let answers = futures::future::join_all(requests).await;
    let mut charged: Vec<i64> = Vec::new();
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        assert!(
            body["data"]["grammar"]["meaning"]
                .as_str()
                .is_some_and(|meaning| meaning.starts_with("[pt] ")),
            "{body}"
        );
        charged.push(body["billing"]["points_charged"].as_i64().expect("points"));
    }
    charged.sort_unstable();
    assert_eq!(
        charged.iter().filter(|&&p| p == 25).count(),
        1,
        "{charged:?}"
    );
    assert_eq!(
        charged.iter().filter(|&&p| p == 1).count(),
        99,
        "{charged:?}"
    );
    assert_eq!(deepl.calls(), 1, "one generation, one provider call");
    assert_eq!(balance(&db.url, &account), 1_000 - 25 - 99);
    let store = store(&db).await;
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn first_requests_generate_once_on_sqlite() {
    first_requests_generate_once(Backend::Sqlite, 1).await;
}

#[tokio::test]
async fn first_requests_generate_once_over_two_servers_on_postgres() {
    first_requests_generate_once(Backend::Postgres, 2).await;
}

/// The provider down: 503, nothing charged, nothing kept; back up: the next request
/// generates and pays 25. Then a restart serves the stored version for 1, without the
/// provider.
#[tokio::test]
async fn failures_charge_nothing_and_a_restart_never_regenerates() {
    let mut setup = Setup::start("restart", 100).await;
    let path = format!("/api/v1/learnables/{GRAMMAR}?locale=pt");

    for mode in [
        Mode::Status(503),
        Mode::Status(456),
        Mode::Status(429),
        Mode::DropLast,
    ] {
        setup.deepl.set_mode(mode);
        let (status, body) = setup.get(&path).await;
        assert_error(status, &body, 503, "SERVICE_UNAVAILABLE");
        assert_eq!(setup.balance(), 100, "{mode:?} charged nothing");
    }
    setup.deepl.set_mode(Mode::Ok);
    let (status, body) = setup.get(&path).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["billing"]["points_charged"], 25);
    let calls = setup.deepl.calls();
    setup.app = serve(&setup.db.url, &setup.deepl, &setup.dir);
    setup.app.wait_ready().await;
    let (status, again) = setup.get(&path).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["billing"]["points_charged"], 1);
    assert_eq!(again["data"], body["data"], "the stored version, unchanged");
    assert_eq!(
        setup.deepl.calls(),
        calls,
        "no provider call after the restart"
    );
    assert_eq!(setup.balance(), 100 - 25 - 1);
}

/// Codes: any case is accepted, a non-ISO code is 400, a code nothing serves is 422,
/// keyless callers never generate; none of it is charged.
#[tokio::test]
async fn locales_are_checked_before_anything_is_charged() {
    let setup = Setup::start("codes", 100).await;

    let (status, english) = setup.get(&format!("/api/v1/learnables/{GRAMMAR}")).await;
    assert_eq!(status, 200);
    let (status, upper) = setup
        .get(&format!("/api/v1/learnables/{GRAMMAR}?locale=EN"))
        .await;
    assert_eq!(status, 200, "{upper}");
    assert_eq!(upper["data"], english["data"]);
    let spent = 2;

    let (status, body) = setup
        .get(&format!("/api/v1/learnables/{GRAMMAR}?locale=qq"))
        .await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    // Zulu is a real code that neither the dataset nor the provider serves.
    let (status, body) = setup
        .get(&format!("/api/v1/learnables/{GRAMMAR}?locale=zu"))
        .await;
    assert_error(status, &body, 422, "LOCALE_UNAVAILABLE");
    let (status, body) = setup
        .app
        .get_json(&format!("/api/v1/learnables/{GRAMMAR}?locale=pt"))
        .await;
    assert_error(status, &body, 401, "API_KEY_REQUIRED");
    assert_eq!(setup.deepl.calls(), 0, "a keyless caller never generates");
    assert_eq!(setup.balance(), 100 - spent);

    // Once a keyed caller generated it, the sample entry is free to keyless callers.
    let (status, generated) = setup
        .get(&format!("/api/v1/learnables/{GRAMMAR}?locale=pt"))
        .await;
    assert_eq!(status, 200, "{generated}");
    let (status, keyless) = setup
        .app
        .get_json(&format!("/api/v1/learnables/{GRAMMAR}?locale=PT"))
        .await;
    assert_eq!(status, 200, "{keyless}");
    assert_eq!(keyless["sample"], true);
    assert_eq!(keyless["data"], generated["data"]);

    let (_, discovery) = setup.app.get_json("/api/v1").await;
    let locales = discovery["data"]["locales"].as_array().expect("locales");
    let of = |code: &str| {
        locales
            .iter()
            .find(|locale| locale["locale"] == code)
            .map(|locale| locale["generators"].clone())
    };
    assert_eq!(
        of("de"),
        Some(serde_json::json!(["dictionary-native", "provider"]))
    );
    assert_eq!(
        of("pt"),
        Some(serde_json::json!(["dictionary-native", "provider"]))
    );
    assert_eq!(of("zu"), None);
}

/// Dictionary text first: a JMdict word in German takes its German glosses from the
/// dataset and only the rest from the provider, and cites both.
#[tokio::test]
async fn dictionary_text_comes_before_machine_translation() {
    let setup = Setup::start("native", 100).await;
    // 明白 (あからさま): one sense, German glosses in JMdict.
    let (status, body) = setup
        .get("/api/v1/learnables/vocab-1000225?locale=de")
        .await;
    assert_eq!(status, 200, "{body}");
    let glosses = &body["data"]["vocabulary"]["senses"][0]["glosses"];
    assert_eq!(glosses[0], "klar", "{glosses}");
    let sources = body["data"]["sources"].as_array().expect("sources");
    let generators: Vec<&str> = sources
        .iter()
        .filter_map(|source| source["source"].as_str())
        .filter(|source| source.starts_with("localization-"))
        .collect();
    assert!(
        generators.contains(&"localization-dictionary-native"),
        "{generators:?}"
    );
    assert_eq!(body["data"]["localization"]["locale"], "de");
}

/// The embedded engine with a real model (English→Portuguese, from the PyPI wheel that
/// `scripts/test` unpacks into `MANABI_TRANSLATION_MODELS`): real Portuguese for a grammar
/// explanation and a lesson, every link and every Japanese span as they were.
#[tokio::test]
async fn the_embedded_engine_translates_with_a_real_model() {
    let Ok(models) = std::env::var("MANABI_TRANSLATION_MODELS") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "MANABI_TRANSLATION_MODELS must name the models directory under CI"
        );
        eprintln!("skipped: MANABI_TRANSLATION_MODELS is not set (scripts/test sets it)");
        return;
    };
    let db = fresh_db(Backend::Sqlite).await;
    let dir = test_dir("embedded");
    let env = [
        ("MANABI_TRANSLATION_MODELS", models.as_str()),
        ("MANABI_TRANSLATION_TIMEOUT_MS", "120000"),
        ("MANABI_REQUEST_TIMEOUT_MS", "150000"),
    ];
    let app = serve_with(&db.url, &dir, &env);
    app.wait_ready().await;
    let (_, _, key) = funded_key(&db.url, 1_000);

    let (_, english) = get_keyed(&app, &key, &format!("/api/v1/learnables/{GRAMMAR}")).await;
    let (status, body) = get_keyed(
        &app,
        &key,
        &format!("/api/v1/learnables/{GRAMMAR}?locale=pt"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let meaning = body["data"]["grammar"]["meaning"]
        .as_str()
        .expect("meaning");
    assert_ne!(meaning, english["data"]["grammar"]["meaning"], "translated");
    assert_portuguese(&body["data"].to_string());
    assert_eq!(
        body["data"]["pattern"], english["data"]["pattern"],
        "Japanese kept"
    );
    let generator = &body["data"]["localization"]["generators"][0];
    assert_eq!(generator["kind"], "embedded", "{body}");
    assert_eq!(generator["name"], "fxtranslate", "{body}");

    let lesson = "lesson-ancient-japan-n1-001";
    let (_, english) = get_keyed(&app, &key, &format!("/api/v1/lessons/{lesson}")).await;
    let (status, body) =
        get_keyed(&app, &key, &format!("/api/v1/lessons/{lesson}?locale=pt")).await;
    assert_eq!(status, 200, "{body}");
    let before = english["data"]["body_markdown"].as_str().expect("body");
    let after = body["data"]["body_markdown"].as_str().expect("body");
    assert_ne!(before, after);
    assert_portuguese(after);
    for kept in links_and_japanese(before) {
        assert!(after.contains(&kept), "{kept:?} lost in:\n{after}");
    }
    assert_eq!(body["billing"]["points_charged"], 25);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `[[id|text]]` link and every run of Japanese script of a text.
fn links_and_japanese(text: &str) -> Vec<String> {
    let mut kept = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[[") {
        let Some(end) = rest[start..].find("]]") else {
            break;
        };
        kept.push(rest[start..start + end + 2].to_owned());
        rest = &rest[start + end + 2..];
    }
    let without_links = text
        .split("[[")
        .map(|part| part.split_once("]]").map_or(part, |(_, after)| after))
        .collect::<Vec<_>>()
        .join(" ");
    let mut run = String::new();
    for c in without_links.chars() {
        if manabi_localize::segment::is_japanese(c) {
            run.push(c);
        } else if !run.is_empty() {
            kept.push(std::mem::take(&mut run));
        }
    }
    kept.extend((!run.is_empty()).then_some(run));
    kept
}

fn assert_portuguese(text: &str) {
    let words = [
        " de ", " que ", " o ", " a ", " do ", " da ", " em ", " um ", " uma ", " para ",
    ];
    let found = words.iter().filter(|word| text.contains(*word)).count();
    assert!(found >= 3, "not Portuguese: {text}");
}

/// MCP's `locale` argument is the same read: the stored version once generated over REST,
/// at the read price, as the tool's structured result.
#[tokio::test]
async fn the_mcp_tools_take_a_locale_too() {
    let setup = Setup::start("mcp", 100).await;
    let call = |arguments: Value| {
        let request = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_learnable", "arguments": arguments},
        });
        setup
            .app
            .client
            .post(format!("{}/mcp", setup.app.address))
            .bearer_auth(&setup.key)
            .header("accept", "application/json, text/event-stream")
            .json(&request)
            .send()
    };
    let response = call(serde_json::json!({"id": GRAMMAR, "locale": "PT"}))
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("JSON-RPC answer");
    let mut result = body["result"]["structuredContent"].clone();
    assert!(
        result["grammar"]["meaning"]
            .as_str()
            .is_some_and(|meaning| meaning.starts_with("[pt] ")),
        "{body}"
    );
    assert_eq!(result["billing"]["points_charged"], 25, "{body}");
    let (status, rest) = setup
        .get(&format!("/api/v1/learnables/{GRAMMAR}?locale=pt"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(rest["billing"]["points_charged"], 1);
    result.as_object_mut().expect("an object").remove("billing");
    assert_eq!(rest["data"], result);
    let response = call(serde_json::json!({"id": GRAMMAR, "locale": "zu"}))
        .await
        .expect("sent");
    let body: Value = response.json().await.expect("JSON-RPC answer");
    assert_eq!(body["result"]["isError"], true, "{body}");
    assert_eq!(setup.balance(), 100 - 25 - 1);
    assert_eq!(setup.deepl.calls(), 1);
}
