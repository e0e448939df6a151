//! Billing over HTTP against the real `manabi serve`: exact debits under concurrency on
//! SQLite and on PostgreSQL with two servers, daily caps, revocation, top-ups made with
//! the admin CLI, burst limits, nothing charged for refusals, and the Billing object.

use manabi_tests as common;

use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};

use common::ledger::{Backend, TestDb, fresh_db, fresh_sqlite_db};
use common::{TestApp, assert_error, spawn_app_with};
use futures::future::join_all;
use serde_json::Value;
use sqlx::Connection;

/// An entry outside the keyless sample: keyed callers must see it.
const FULL_ONLY_ID: &str = "vocab-sake";

/// A ledger database of its own for one test (a SQLite file or a PostgreSQL schema).
struct Ledger {
    url: String,
    sqlite: bool,
    _db: TestDb,
}

fn sqlite_ledger() -> Ledger {
    Ledger::on(fresh_sqlite_db(), true)
}

async fn pg_ledger() -> Ledger {
    Ledger::on(fresh_db(Backend::Postgres).await, false)
}

impl Ledger {
    fn on(db: TestDb, sqlite: bool) -> Ledger {
        Ledger {
            url: db.url.clone(),
            sqlite,
            _db: db,
        }
    }

    /// Runs `manabi admin …` on this ledger; its stdout is one JSON object.
    fn admin(&self, args: &[&str]) -> Value {
        common::admin(&self.url, args)
    }

    /// An account with `points` and one key.
    fn funded(&self, points: i64) -> Funded {
        let (account_id, key_id, api_key) = common::funded_key(&self.url, points);
        Funded {
            account_id,
            key_id,
            api_key,
        }
    }

    /// Runs `manabi admin …` that must fail; its standard error.
    fn admin_refused(&self, args: &[&str]) -> String {
        let output = Command::new(common::manabi_binary())
            .arg("admin")
            .args(args)
            .env("MANABI_DATABASE_URL", &self.url)
            .env("MANABI_LOG", "warn")
            .output()
            .expect("run manabi admin");
        assert!(!output.status.success(), "admin {args:?} must be refused");
        String::from_utf8_lossy(&output.stderr).into_owned()
    }

    fn top_up(&self, account_id: &str, points: i64, idempotency_key: &str) -> Value {
        self.admin(&[
            "topup",
            "--account",
            account_id,
            "--points",
            &points.to_string(),
            "--idempotency-key",
            idempotency_key,
        ])
    }

    /// `ledger verify` after the read models caught up, which must find no difference.
    fn assert_verified(&self) {
        let report = self.admin(&["ledger", "verify", "--catch-up"]);
        assert_eq!(report["ok"], true, "{report}");
    }

    /// A server on this ledger; key and keyless limits off unless `env` sets them.
    async fn serve(&self, env: &[(&str, &str)]) -> TestApp {
        let mut all = vec![
            ("MANABI_DATABASE_URL", self.url.as_str()),
            ("MANABI_KEY_RATE_PER_SEC", "0"),
            ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
        ];
        all.extend_from_slice(env);
        spawn_app_with(&all).await
    }
}

struct Funded {
    account_id: String,
    key_id: String,
    api_key: String,
}

fn text(value: &Value) -> String {
    value.as_str().expect("a string").to_owned()
}

/// GET with the key in `X-API-Key`; the status, the body and the response headers.
async fn keyed_get(
    app: &TestApp,
    key: &str,
    path: &str,
) -> (u16, Value, reqwest::header::HeaderMap) {
    keyed_request(app.client.get(format!("{}{path}", app.address)), key).await
}

/// Sends `request` with the key in `X-API-Key`; the status, the body and the headers.
async fn keyed_request(
    request: reqwest::RequestBuilder,
    key: &str,
) -> (u16, Value, reqwest::header::HeaderMap) {
    let response = request
        .header("x-api-key", key)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, response.json().await.expect("JSON body"), headers)
}

async fn balance(app: &TestApp, key: &str) -> i64 {
    let (status, body, _) = keyed_get(app, key, "/api/v1/account").await;
    assert_eq!(status, 200, "{body}");
    body["data"]["balance"].as_i64().expect("balance")
}

/// `n` concurrent 1-point reads spread over `apps`; statuses and invoice ids.
async fn concurrent_reads(apps: &[&TestApp], key: &str, n: usize) -> (Vec<u16>, Vec<String>) {
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let calls = (0..n).map(|i| keyed_get(apps[i % apps.len()], key, &path));
    let answers = join_all(calls).await;
    let statuses = answers.iter().map(|(status, _, _)| *status).collect();
    let invoices = answers
        .iter()
        .filter(|(status, _, _)| *status == 200)
        .map(|(_, body, _)| text(&body["billing"]["invoice_id"]))
        .collect();
    (statuses, invoices)
}

fn count(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|&&s| s == status).count()
}

/// 600 concurrent reads against 300 points: exactly 300 answered, each with its own
/// invoice, the other 300 refused with 402, and the ledger verifies.
async fn exactly_the_balance_is_spent(ledger: &Ledger, apps: &[&TestApp]) {
    let funded = ledger.funded(300);
    let (statuses, invoices) = concurrent_reads(apps, &funded.api_key, 600).await;
    assert_eq!(count(&statuses, 200), 300, "answered");
    assert_eq!(count(&statuses, 402), 300, "refused");
    let distinct: HashSet<&String> = invoices.iter().collect();
    assert_eq!(distinct.len(), 300, "distinct invoice ids");
    for app in apps {
        assert_eq!(balance(app, &funded.api_key).await, 0);
    }
    ledger.assert_verified();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daily_caps_are_exact_under_concurrency() {
    let ledger = sqlite_ledger();
    let app = ledger.serve(&[]).await;
    let funded = ledger.funded(1_000);
    let account = funded.account_id.as_str();
    ledger.admin(&[
        "caps",
        "set",
        "--account",
        account,
        "--key-id",
        &funded.key_id,
        "--daily-calls",
        "20",
    ]);
    let (statuses, _) = concurrent_reads(&[&app], &funded.api_key, 50).await;
    assert_eq!((count(&statuses, 200), count(&statuses, 429)), (20, 30));

    // A second key of the same account, under an account cap of 30: 10 calls are left.
    let second = ledger.admin(&["key", "create", "--account", account]);
    ledger.admin(&["caps", "set", "--account", account, "--daily-calls", "30"]);
    let (statuses, _) = concurrent_reads(&[&app], &text(&second["api_key"]), 40).await;
    assert_eq!((count(&statuses, 200), count(&statuses, 429)), (10, 30));

    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let (status, body, headers) = keyed_get(&app, &funded.api_key, &path).await;
    assert_error(status, &body, 429, "QUOTA_EXCEEDED");
    let retry_after: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=86_400).contains(&retry_after), "{retry_after}");
    assert_eq!(balance(&app, &funded.api_key).await, 1_000 - 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_is_refused_on_the_very_next_call() {
    let ledger = sqlite_ledger();
    let app = ledger.serve(&[]).await;
    let funded = ledger.funded(10);
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let (status, body, _) = keyed_get(&app, &funded.api_key, &path).await;
    assert_eq!(status, 200, "{body}");
    ledger.admin(&["key", "revoke", "--key-id", &funded.key_id]);
    let (status, body, _) = keyed_get(&app, &funded.api_key, &path).await;
    assert_error(status, &body, 401, "REVOKED_API_KEY");
    let (status, body, _) = keyed_get(&app, &funded.api_key, "/api/v1/account").await;
    assert_error(status, &body, 401, "REVOKED_API_KEY");
    let (status, body, _) = keyed_get(&app, &funded.api_key, "/api/v1").await;
    assert_error(status, &body, 401, "REVOKED_API_KEY");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_top_up_is_spendable_on_the_next_call_and_credited_once() {
    let ledger = sqlite_ledger();
    let app = ledger.serve(&[]).await;
    let funded = ledger.funded(1);
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let (status, _, _) = keyed_get(&app, &funded.api_key, &path).await;
    assert_eq!(status, 200);
    let (status, body, _) = keyed_get(&app, &funded.api_key, &path).await;
    assert_error(status, &body, 402, "INSUFFICIENT_POINTS");
    assert_eq!(body["error"]["required"], 1, "{body}");
    assert_eq!(body["error"]["balance"], 0, "{body}");
    assert!(
        body["error"]["top_up_url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http"))
    );

    let first = ledger.top_up(&funded.account_id, 5, "order-42");
    let again = ledger.top_up(&funded.account_id, 5, "order-42");
    assert_eq!(
        (first["balance"].as_i64(), again["balance"].as_i64()),
        (Some(5), Some(5))
    );
    let (status, body, _) = keyed_get(&app, &funded.api_key, &path).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(balance(&app, &funded.api_key).await, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_beyond_its_burst_is_rate_limited_with_headers_and_not_charged() {
    let ledger = sqlite_ledger();
    let app = ledger
        .serve(&[("MANABI_KEY_RATE_PER_SEC", "1"), ("MANABI_KEY_BURST", "2")])
        .await;
    let funded = ledger.funded(10);
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    for _ in 0..2 {
        let (status, body, _) = keyed_get(&app, &funded.api_key, &path).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body, headers) = keyed_get(&app, &funded.api_key, &path).await;
    assert_error(status, &body, 429, "RATE_LIMITED");
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(headers["ratelimit"], "\"burst\";r=0;t=1");
    assert_eq!(headers["ratelimit-policy"], "\"burst\";q=1;w=1");
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(balance(&app, &funded.api_key).await, 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_and_bad_keys_charge_nothing() {
    let ledger = sqlite_ledger();
    let app = ledger.serve(&[]).await;
    let funded = ledger.funded(10);
    let key = funded.api_key.as_str();
    for (path, want_status, code) in [
        ("/api/v1/learnables/kanji-nope", 404, "NOT_FOUND"),
        (
            "/api/v1/learnables/vocab-sake?locale=english",
            400,
            "INVALID_PARAMETER",
        ),
        (
            "/api/v1/learnables?query=sake&limit=99",
            400,
            "INVALID_PARAMETER",
        ),
        ("/api/v1/lessons/lesson-nope", 404, "NOT_FOUND"),
    ] {
        let (status, body, _) = keyed_get(&app, key, path).await;
        assert_error(status, &body, want_status, code);
    }
    let unknown = format!(
        "svc_ak_{}_{}_{}",
        uuid::Uuid::now_v7().simple(),
        uuid::Uuid::now_v7().simple(),
        "ab".repeat(32)
    );
    for bad in ["svc_ak_short", "sk_live_1", unknown.as_str()] {
        let (status, body, _) = keyed_get(&app, bad, "/api/v1/worlds").await;
        assert_error(status, &body, 401, "INVALID_API_KEY");
    }
    let (status, body) = app.get_json("/api/v1/account").await;
    assert_error(status, &body, 401, "INVALID_API_KEY");
    assert_eq!(balance(&app, key).await, 10);
    let (_, charges, _) = keyed_get(&app, key, "/api/v1/account/charges").await;
    assert_eq!(
        charges["data"]["charges"],
        serde_json::json!([]),
        "{charges}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_answers_carry_the_billing_object_and_the_full_dataset() {
    let ledger = sqlite_ledger();
    let app = ledger.serve(&[]).await;
    let funded = ledger.funded(100);
    let key = funded.api_key.as_str();

    let (status, read, _) =
        keyed_get(&app, key, &format!("/api/v1/learnables/{FULL_ONLY_ID}")).await;
    assert_eq!(status, 200, "{read}");
    assert!(read.get("sample").is_none(), "{read}");
    assert_eq!(read["data"]["id"], FULL_ONLY_ID);
    let billing = &read["billing"];
    assert_eq!(billing["points_charged"], 1);
    assert_eq!(billing["currency"], "JPY");
    assert_eq!(billing["free_tier"], false);
    let read_invoice = text(&billing["invoice_id"]);
    assert!(
        uuid::Uuid::parse_str(&read_invoice).is_ok(),
        "{read_invoice}"
    );

    let (status, search, _) = keyed_get(&app, key, "/api/v1/learnables?query=sake").await;
    assert_eq!(status, 200, "{search}");
    assert!(
        search.get("billing").is_none(),
        "search bills in data: {search}"
    );
    assert_eq!(search["data"]["billing"]["points_charged"], 5);
    let search_invoice = text(&search["data"]["billing"]["invoice_id"]);

    let (_, discovery, _) = keyed_get(&app, key, "/api/v1").await;
    assert_eq!(discovery["data"]["mode"], "full");
    assert_eq!(discovery["billing"]["points_charged"], 0);
    assert_eq!(balance(&app, key).await, 94);

    let listed = wait_for_charges(&app, key, 2).await;
    let lines = listed["data"]["charges"].as_array().expect("lines");
    let ids: Vec<String> = lines.iter().map(|l| text(&l["invoice_id"])).collect();
    assert_eq!(ids, vec![read_invoice, search_invoice]);
    assert_eq!(lines[0]["operation"], "getLearnable");
    assert_eq!(lines[0]["resource_id"], FULL_ONLY_ID);
    assert_eq!(lines[1]["operation"], "searchLearnables");
    assert_eq!(lines[1]["points"], 5);
    assert_eq!(lines[1]["transport"], "rest");

    // Paging: one line per page, the cursor leads to the second, then the end.
    let (_, page, _) = keyed_get(&app, key, "/api/v1/account/charges?limit=1").await;
    let cursor = text(&page["data"]["next_cursor"]);
    let next = format!("/api/v1/account/charges?limit=1&cursor={cursor}");
    let (_, page, _) = keyed_get(&app, key, &next).await;
    assert_eq!(page["data"]["charges"][0]["points"], 5, "{page}");
    assert_eq!(page["data"]["next_cursor"], Value::Null, "{page}");
}

/// The invoice lines once the in-process projector has passed `n` charges.
async fn wait_for_charges(app: &TestApp, key: &str, n: usize) -> Value {
    let started = Instant::now();
    loop {
        let (status, body, _) = keyed_get(app, key, "/api/v1/account/charges").await;
        assert_eq!(status, 200, "{body}");
        let listed = body["data"]["charges"].as_array().map_or(0, Vec::len);
        if listed >= n || started.elapsed() > Duration::from_secs(5) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Holds the ledger's write lock from a connection of its own for `hold`, so the
/// biller's commits stall: SQLite's `BEGIN IMMEDIATE`, PostgreSQL's `LOCK TABLE events`.
async fn stall_ledger_writes(ledger: &Ledger, hold: Duration) {
    if ledger.sqlite {
        let mut conn = sqlx::SqliteConnection::connect(&ledger.url)
            .await
            .expect("open the ledger file");
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut conn)
            .await
            .expect("lock");
        tokio::time::sleep(hold).await;
        sqlx::query("ROLLBACK")
            .execute(&mut conn)
            .await
            .expect("unlock");
    } else {
        let mut conn = sqlx::PgConnection::connect(&ledger.url)
            .await
            .expect("connect");
        sqlx::query("BEGIN")
            .execute(&mut conn)
            .await
            .expect("begin");
        sqlx::query("LOCK TABLE events IN EXCLUSIVE MODE")
            .execute(&mut conn)
            .await
            .expect("lock");
        tokio::time::sleep(hold).await;
        sqlx::query("ROLLBACK")
            .execute(&mut conn)
            .await
            .expect("unlock");
    }
}

/// The ledger stalls across the request timeout while keyed reads keep arriving: each
/// answer is either data with its invoice, or a 504 that says nothing was charged — and
/// once the ledger moves again, exactly the answered calls are in it, no 504 among them.
async fn a_timeout_is_never_charged_later(ledger: &Ledger) {
    let app = ledger.serve(&[("MANABI_REQUEST_TIMEOUT_MS", "1000")]).await;
    let funded = ledger.funded(100);
    let key = funded.api_key.as_str();
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    // Warm the account into the biller, so the stall is the only thing that waits.
    let (status, body, _) = keyed_get(&app, key, &path).await;
    assert_eq!(status, 200, "{body}");

    let stall = stall_ledger_writes(ledger, Duration::from_millis(3_000));
    let calls = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let staggered = (0..12u64).map(|i| {
            let (app, path) = (&app, &path);
            async move {
                tokio::time::sleep(Duration::from_millis(150 * i)).await;
                keyed_get(app, key, path).await
            }
        });
        join_all(staggered).await
    };
    let ((), answers) = tokio::join!(stall, calls);

    let mut invoices = vec![text(&body["billing"]["invoice_id"])];
    let mut timed_out = 0;
    for (status, body, _) in &answers {
        match status {
            200 => invoices.push(text(&body["billing"]["invoice_id"])),
            504 => {
                assert_error(*status, body, 504, "TIMEOUT");
                timed_out += 1;
            }
            other => panic!("unexpected answer {other}: {body}"),
        }
    }
    assert!(
        timed_out > 0,
        "the stall must outlast the timeout: {answers:?}"
    );

    // Any charge still queued behind the stall has had time to be (wrongly) written.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let answered = invoices.len() as i64;
    assert_eq!(
        balance(&app, key).await,
        100 - answered,
        "504s were charged"
    );
    // Projects the charges (PostgreSQL servers leave that to `manabi projector`).
    ledger.assert_verified();
    let listed = wait_for_charges(&app, key, invoices.len() + 1).await;
    let mut listed: Vec<String> = listed["data"]["charges"]
        .as_array()
        .expect("charges")
        .iter()
        .map(|charge| text(&charge["invoice_id"]))
        .collect();
    listed.sort();
    invoices.sort();
    assert_eq!(
        listed, invoices,
        "the charges are exactly the answered calls"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_timeout_is_never_charged_later() {
    a_timeout_is_never_charged_later(&sqlite_ledger()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_timeout_is_never_charged_later() {
    a_timeout_is_never_charged_later(&pg_ledger().await).await;
}

/// Points are bounded: a top-up past the per-event maximum, or one that would take the
/// balance past the account maximum, is refused before anything is written, so the
/// balance never wraps and `ledger verify` keeps passing (an outside test once made the
/// balance −9,223,372,036,854,766,616 this way).
async fn points_are_bounded(ledger: &Ledger) {
    let funded = ledger.funded(10_000);
    let account = funded.account_id.as_str();
    let huge = ledger.admin_refused(&[
        "topup",
        "--account",
        account,
        "--points",
        "9223372036854775000",
        "--idempotency-key",
        "huge",
    ]);
    assert!(
        huge.contains("--points must be a whole number from 1 to"),
        "{huge}"
    );
    let max = manabi_ledger::account::BALANCE_POINTS_MAX;
    let per_event = manabi_ledger::account::EVENT_POINTS_MAX;
    let mut balance = 10_000;
    let mut n = 0;
    while balance + per_event <= max && n < 3 {
        ledger.top_up(account, per_event, &format!("big-{n}"));
        balance += per_event;
        n += 1;
    }
    let app = ledger.serve(&[]).await;
    assert_eq!(self::balance(&app, &funded.api_key).await, balance);
    ledger.assert_verified();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_points_are_bounded() {
    points_are_bounded(&sqlite_ledger()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_points_are_bounded() {
    points_are_bounded(&pg_ledger().await).await;
}

/// 600 concurrent calls of mixed prices (searches at 5 points, reads at 1) against 301
/// points: a `balance > 0` check in place of `balance >= price` would overdraw here. The
/// balance never goes below 0, and the points charged plus the balance left are 301.
async fn mixed_prices_never_overdraw(ledger: &Ledger, apps: &[&TestApp]) {
    let funded = ledger.funded(301);
    let key = funded.api_key.as_str();
    let calls = (0..600).map(|i| {
        let app = apps[i % apps.len()];
        let path = if i % 2 == 0 {
            "/api/v1/learnables?query=sake".to_owned()
        } else {
            format!("/api/v1/learnables/{FULL_ONLY_ID}")
        };
        async move { keyed_get(app, key, &path).await }
    });
    let answers = join_all(calls).await;
    let mut charged = 0;
    for (status, body, _) in &answers {
        match status {
            200 => {
                let billing = body["billing"]
                    .as_object()
                    .or(body["data"]["billing"].as_object())
                    .expect("a Billing object");
                charged += billing["points_charged"].as_i64().expect("points");
            }
            402 => assert_error(*status, body, 402, "INSUFFICIENT_POINTS"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    let left = balance(apps[0], key).await;
    assert!(left >= 0, "{left}");
    assert!(
        left < 5,
        "a call is refused only when the balance is below its price: {left}"
    );
    assert_eq!(charged + left, 301);
    ledger.assert_verified();
}

/// GET with the key and an `Idempotency-Key`.
async fn keyed_get_once(app: &TestApp, key: &str, path: &str, once: &str) -> (u16, Value) {
    let request = app.client.get(format!("{}{path}", app.address));
    let (status, body, _) = keyed_request(request.header("idempotency-key", once), key).await;
    (status, body)
}

/// A retry under the same `Idempotency-Key` is answered with the first charge and
/// charged nothing more, however many arrive at once and on whichever server; the same
/// key with another request is a 409, uncharged; a malformed key is a 400.
async fn a_retry_under_the_same_key_is_charged_once(ledger: &Ledger, apps: &[&TestApp]) {
    let funded = ledger.funded(100);
    let key = funded.api_key.as_str();
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let retries = (0..20).map(|i| keyed_get_once(apps[i % apps.len()], key, &path, "retry-7"));
    let answers = join_all(retries).await;
    let invoices: HashSet<String> = answers
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, 200, "{body}");
            assert_eq!(body["billing"]["points_charged"], 1, "{body}");
            text(&body["billing"]["invoice_id"])
        })
        .collect();
    assert_eq!(
        invoices.len(),
        1,
        "one charge for every retry: {invoices:?}"
    );
    let (status, body) = keyed_get_once(apps[0], key, &path, "retry-7").await;
    assert_eq!(status, 200, "{body}");
    assert!(invoices.contains(&text(&body["billing"]["invoice_id"])));

    let (status, body) = keyed_get_once(apps[0], key, "/api/v1/worlds", "retry-7").await;
    assert_error(status, &body, 409, "IDEMPOTENCY_KEY_REUSED");
    let (status, body) = keyed_get_once(apps[0], key, "/api/v1/worlds", "bad key").await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    let (status, body) = keyed_get_once(apps[0], key, "/api/v1/worlds", "fresh-1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(balance(apps[0], key).await, 100 - 2);
    ledger.assert_verified();
}

/// Reads carry a weak `ETag`; a revalidation naming it is answered 304 with no body and
/// is not charged, on whichever server; a stale tag gets the data and its charge. The
/// keyless sample may be stored by anyone, a keyed answer by its caller only, an account
/// answer by no one.
async fn a_revalidated_read_is_304_and_free(ledger: &Ledger, apps: &[&TestApp]) {
    let funded = ledger.funded(100);
    let key = funded.api_key.as_str();
    let path = format!("/api/v1/learnables/{FULL_ONLY_ID}");
    let (status, body, headers) = keyed_get(apps[0], key, &path).await;
    assert_eq!(status, 200, "{body}");
    let header = |headers: &reqwest::header::HeaderMap, name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let etag = header(&headers, "etag");
    assert!(etag.starts_with("W/\""), "a weak tag: {etag:?}");
    assert_eq!(header(&headers, "cache-control"), "private, no-cache");

    for (i, tag) in [
        etag.clone(),
        etag.trim_start_matches("W/").to_owned(),
        "*".into(),
    ]
    .iter()
    .enumerate()
    {
        let request = apps[i % apps.len()]
            .client
            .get(format!("{}{path}", apps[i % apps.len()].address));
        let response = request
            .header("x-api-key", key)
            .header("if-none-match", format!("\"other\", {tag}"))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status().as_u16(), 304, "If-None-Match: {tag}");
        assert_eq!(header(response.headers(), "etag"), etag);
        assert!(response.bytes().await.expect("body").is_empty());
    }
    assert_eq!(
        balance(apps[0], key).await,
        99,
        "only the first read is charged"
    );

    let stale = apps[0]
        .client
        .get(format!("{}{path}", apps[0].address))
        .header("if-none-match", "W/\"0000000000000000\"");
    let (status, body, _) = keyed_request(stale, key).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["billing"]["points_charged"], 1);
    assert_eq!(balance(apps[0], key).await, 98);

    let keyless = apps[0]
        .client
        .get(format!(
            "{}/api/v1/learnables/vocab-taberu",
            apps[0].address
        ))
        .send()
        .await
        .expect("sent");
    assert_eq!(keyless.status().as_u16(), 200);
    assert_eq!(
        header(keyless.headers(), "cache-control"),
        "public, max-age=300"
    );
    let keyless_tag = header(keyless.headers(), "etag");
    let again = apps[0]
        .client
        .get(format!(
            "{}/api/v1/learnables/vocab-taberu",
            apps[0].address
        ))
        .header("if-none-match", &keyless_tag)
        .send()
        .await
        .expect("sent");
    assert_eq!(again.status().as_u16(), 304);

    let (_, _, headers) = keyed_get(apps[0], key, "/api/v1/account").await;
    assert_eq!(header(&headers, "cache-control"), "no-store");
    assert!(headers.get("etag").is_none());
    ledger.assert_verified();
}

/// A stored event the read models cannot take (written before points were bounded: two
/// credits near `i64::MAX`) stops `manabi projector` with that event named, instead of
/// retrying it forever while every account's invoice lines freeze behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_projector_stops_on_an_event_it_cannot_project_and_names_it() {
    let ledger = pg_ledger().await;
    let funded = ledger.funded(10);
    let stream = format!("account-{}", funded.account_id);
    let mut conn = sqlx::PgConnection::connect(&ledger.url)
        .await
        .expect("connect");
    let head: i64 = sqlx::query_scalar("SELECT max(version) FROM events WHERE stream = $1")
        .bind(&stream)
        .fetch_one(&mut conn)
        .await
        .expect("head");
    let mut legacy_ids = Vec::new();
    for n in 1..=2_i64 {
        let id = uuid::Uuid::now_v7();
        let payload = format!(
            r#"{{"kind":"grant","points":9223372036854775000,"idempotency_key":"legacy-{n}-{id}"}}"#
        );
        sqlx::query(
            "INSERT INTO events (id, stream, version, event_type, schema_version, payload, \
             metadata, recorded_at) VALUES ($1, $2, $3, 'PointsCredited', 1, $4::jsonb, \
             '{}'::jsonb, now())",
        )
        .bind(id)
        .bind(&stream)
        .bind(head + n)
        .bind(payload)
        .execute(&mut conn)
        .await
        .expect("a legacy event");
        legacy_ids.push(id.to_string());
    }
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(common::manabi_binary())
            .arg("projector")
            .env("MANABI_DATABASE_URL", &ledger.url)
            .env("MANABI_LOG", "warn")
            .output(),
    )
    .await
    .expect("the projector stops by itself")
    .expect("the projector ran");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains(&legacy_ids[1]), "names the event: {stderr}");
    assert!(stderr.contains("cannot be projected"), "{stderr}");
}

/// Runs each named `async fn(&Ledger, &[&TestApp])` as `sqlite::name`, one server on a
/// SQLite ledger, and `postgres::name`, two servers on one PostgreSQL ledger.
macro_rules! on_one_and_two_servers {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let ledger = super::sqlite_ledger();
                    let app = ledger.serve(&[]).await;
                    super::$name(&ledger, &[&app]).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let ledger = super::pg_ledger().await;
                    let first = ledger.serve(&[]).await;
                    let second = ledger.serve(&[]).await;
                    super::$name(&ledger, &[&first, &second]).await;
                }
            )*
        }
    };
}

on_one_and_two_servers!(
    exactly_the_balance_is_spent,
    mixed_prices_never_overdraw,
    a_retry_under_the_same_key_is_charged_once,
    a_revalidated_read_is_304_and_free,
);
