//! x402 pay-per-call end to end: the real server (in process on the fixture, or the
//! binary on real SQLite and PostgreSQL ledgers), the stand-in facilitator, payments
//! signed with throwaway keys. Terms both ways; a payment serves exactly one answer
//! whatever the concurrency and however many replicas; every bad payment is refused
//! with the reason, serves nothing and settles nothing; the ledger, its read model and
//! `ledger verify` agree.

use manabi_tests as common;

use common::ledger::{Backend, fresh_db, store, verified_when_caught_up};
use common::x402::{Authorization, FakeFacilitator, Payer, SettleMode, decode};
use common::{TestApp, assert_error, spawn_app_with};
use manabi_ledger::{EventStore, StreamName};
use serde_json::{Value, json};

const PAY_TO: &str = "0x2222222222222222222222222222222222222222";
const SEARCH: &str = "/x402/api/v1/learnables?query=taberu";
const READ: &str = "/x402/api/v1/learnables/vocab-taberu";

/// A server on the fixture with x402 paid to [`PAY_TO`] through `facilitator`.
async fn serve(facilitator: &FakeFacilitator, extra: &[(&str, &str)]) -> TestApp {
    let mut env = vec![
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
        ("MANABI_X402_PAY_TO", PAY_TO),
        ("MANABI_X402_FACILITATOR_URL", facilitator.url.as_str()),
        ("MANABI_X402_JPY_PER_USD", "150"),
    ];
    env.extend_from_slice(extra);
    spawn_app_with(&env).await
}

/// The answer to `path` with `headers`: status, headers, JSON body.
async fn get(
    app: &TestApp,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut request = app.client.get(format!("{}{path}", app.address));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, headers, body)
}

/// The v2 and v1 terms of an unpaid call of `path`.
async fn terms(app: &TestApp, path: &str) -> (Value, Value) {
    let (status, headers, body) = get(app, path, &[]).await;
    assert_eq!(status, 402, "{body}");
    let header = headers
        .get("payment-required")
        .and_then(|value| value.to_str().ok())
        .expect("PAYMENT-REQUIRED");
    let v2 = decode(header);
    (v2["accepts"][0].clone(), body["accepts"][0].clone())
}

/// A fresh v2 payment header for the call of `path`, built by `tweak` from the terms.
async fn paid_header(
    app: &TestApp,
    payer: &Payer,
    path: &str,
    tweak: impl FnOnce(&mut Value, &mut Authorization),
) -> String {
    let (mut accepted, _) = terms(app, path).await;
    let mut authorization = payer.authorization_for(&accepted);
    tweak(&mut accepted, &mut authorization);
    payer.header_v2(&accepted, &authorization)
}

/// `manabi admin statement --x402` for this month.
fn x402_statement(database_url: &str) -> Value {
    let month = chrono::Utc::now().format("%Y-%m").to_string();
    common::admin(
        database_url,
        &["statement", "--x402", "--month", &month, "--catch-up"],
    )
}

fn no_tweak(_: &mut Value, _: &mut Authorization) {}

#[tokio::test]
async fn unpaid_calls_get_the_terms_both_ways_and_free_ones_pass() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let (status, headers, body) = get(&app, SEARCH, &[]).await;
    assert_eq!(status, 402, "{body}");
    assert_eq!(body["ok"], false);
    assert_eq!(body["code"], "PAYMENT_REQUIRED");
    assert_eq!(body["x402Version"], 1);
    assert!(body["error"].as_str().is_some_and(|e| e.contains("5 JPY")));
    let v1 = &body["accepts"][0];
    assert_eq!(v1["scheme"], "exact");
    assert_eq!(v1["network"], "base-sepolia");
    // 5 JPY at 150 JPY/USD = 0.0333… USD, rounded up to the next millionth.
    assert_eq!(v1["maxAmountRequired"], "33334");
    assert_eq!(v1["payTo"], PAY_TO);
    assert_eq!(v1["asset"], common::x402::USDC_BASE_SEPOLIA);
    assert_eq!(v1["extra"], json!({"name": "USDC", "version": "2"}));
    assert_eq!(v1["resource"], format!("{}{SEARCH}", app.address));
    let v2 = decode(
        headers
            .get("payment-required")
            .and_then(|v| v.to_str().ok())
            .expect("header"),
    );
    assert_eq!(v2["x402Version"], 2);
    assert_eq!(v2["resource"]["url"], format!("{}{SEARCH}", app.address));
    let accepted = &v2["accepts"][0];
    assert_eq!(accepted["network"], "eip155:84532");
    assert_eq!(accepted["amount"], "33334");
    assert_eq!(accepted["maxTimeoutSeconds"], 300);
    let (read, _) = terms(&app, READ).await;
    assert_eq!(read["amount"], "6667", "1 JPY");
    // Free operations are served without payment; bad requests are refused before any
    // terms are offered.
    let (status, _, body) = get(&app, "/x402/api/v1", &[]).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.get("sample").is_none(),
        "x402 callers get the full data"
    );
    // Discovery publishes the terms with the rate and the time it was taken.
    let published = &body["data"]["x402"];
    assert_eq!(published["jpy_per_usd"], "150", "{body}");
    assert!(
        published["rate_at"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z'))
    );
    assert_eq!(published["network"], "eip155:84532");
    assert_eq!(published["pay_to"], PAY_TO);
    assert_eq!(published["search_amount"], "33334");
    assert_eq!(published["read_amount"], "6667");
    // The facilitator was asked at start what it settles: our terms, in both versions.
    let mut metrics = String::new();
    for _ in 0..50 {
        metrics = app.get("/metrics").await.text().await.expect("metrics");
        if metrics.contains("manabi_x402_facilitator_ready") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        metrics.contains("manabi_x402_facilitator_ready 1"),
        "{metrics}"
    );
    let (status, headers, body) = get(&app, "/x402/api/v1/learnables/no-such-entry", &[]).await;
    assert_error(status, &body, 404, "NOT_FOUND");
    assert!(headers.get("payment-required").is_none());
    let (status, _, body) = get(&app, "/x402/api/v1/learnables?query=a&limit=0", &[]).await;
    assert_error(status, &body, 400, "INVALID_PARAMETER");
    assert_eq!(facilitator.verifies() + facilitator.settles(), 0);
}

#[tokio::test]
async fn without_a_recipient_x402_is_unavailable() {
    let app = spawn_app_with(&[("MANABI_KEYLESS_RATE_PER_SEC", "0")]).await;
    let (status, _, body) = get(&app, SEARCH, &[]).await;
    assert_error(status, &body, 503, "SERVICE_UNAVAILABLE");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MANABI_X402_PAY_TO")
    );
}

#[tokio::test]
async fn a_payment_serves_one_answer_and_the_ledger_records_it() {
    let facilitator = FakeFacilitator::start().await;
    let db = fresh_db(Backend::Sqlite).await;
    let app = serve(&facilitator, &[("MANABI_DATABASE_URL", db.url.as_str())]).await;
    let payer = Payer::new();
    // v2, a search.
    let header = paid_header(&app, &payer, SEARCH, no_tweak).await;
    let (status, headers, body) = get(&app, SEARCH, &[("payment-signature", &header)]).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body["data"]["results"].as_array().unwrap().is_empty());
    assert_eq!(body["data"]["billing"]["points_charged"], 5);
    let response = decode(headers["payment-response"].to_str().unwrap());
    assert_eq!(response["success"], true);
    assert_eq!(response["network"], "eip155:84532");
    assert_eq!(headers["x-payment-response"], headers["payment-response"]);
    // The same payment again, in order: refused by the ledger, nothing served, nothing
    // settled, and the facilitator not asked again.
    let verifies = facilitator.verifies();
    let (status, _, body) = get(&app, SEARCH, &[("payment-signature", &header)]).await;
    assert_eq!(status, 402, "{body}");
    assert_eq!(body["code"], "PAYMENT_INVALID");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("already paid")),
        "{body}"
    );
    assert_eq!(facilitator.verifies(), verifies);
    // v1, a read.
    let (_, requirement) = terms(&app, READ).await;
    let authorization = payer.authorization_for(&requirement);
    let v1 = payer.header_v1(&requirement, &authorization);
    let (status, headers, body) = get(&app, READ, &[("x-payment", &v1)]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["id"], "vocab-taberu");
    assert!(headers.contains_key("x-payment-response"));
    assert_eq!(facilitator.settlements().len(), 2);
    // The ledger: a claimed-then-settled stream per payment, the read model, verify.
    let store = store(&db).await;
    let stream = StreamName::new(format!(
        "x402-{:#x}-{:#x}",
        payer.address, authorization.nonce
    ));
    let events = store.read_stream(&stream, 0, 10).await.expect("stream");
    let types: Vec<_> = events.iter().map(|e| e.event.event_type()).collect();
    assert_eq!(types, ["X402PaymentClaimed", "X402PaymentSettled"]);
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
    let statement = x402_statement(&db.url);
    assert_eq!(statement["settled"]["payments"], 2, "{statement}");
    assert_eq!(statement["settled"]["price_jpy"], 6, "{statement}");
    assert_eq!(statement["settled"]["amount_atomic"], 33_334 + 6_667);
    let metrics = app.get("/metrics").await.text().await.expect("metrics");
    assert!(metrics.contains("manabi_x402_payments_total"), "{metrics}");
    assert!(
        metrics.contains("manabi_x402_revenue_jpy_total"),
        "{metrics}"
    );
}

/// 50 copies of one signed payment at once, split over `servers` servers on one ledger:
/// exactly one answer, one claim, one settlement (the facilitator is asked to settle
/// once: the ledger's claim refused the 49 others before it).
async fn one_payment_fifty_times(backend: Backend, servers: usize) {
    let facilitator = FakeFacilitator::start().await;
    let db = fresh_db(backend).await;
    let env = [
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
        ("MANABI_X402_PAY_TO", PAY_TO),
        ("MANABI_X402_FACILITATOR_URL", facilitator.url.as_str()),
    ];
    let mut apps = Vec::new();
    for _ in 0..servers {
        apps.push(common::spawn_binary_with(&env).await);
    }
    let payer = Payer::new();
    let header = paid_header(&apps[0], &payer, READ, no_tweak).await;
    let headers = [("payment-signature", header.as_str())];
    let calls = (0..50).map(|n| get(&apps[n % servers], READ, &headers));
    let answers = futures::future::join_all(calls).await;
    let served = answers
        .iter()
        .filter(|(status, _, _)| *status == 200)
        .count();
    assert_eq!(served, 1, "exactly one answer");
    for (status, _, body) in answers.iter().filter(|(status, _, _)| *status != 200) {
        assert_eq!(*status, 402, "{body}");
        assert_eq!(body["code"], "PAYMENT_INVALID", "{body}");
    }
    assert_eq!(facilitator.settles(), 1, "one settlement attempted");
    assert_eq!(facilitator.settlements().len(), 1);
    let store = store(&db).await;
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
    let statement = x402_statement(&db.url);
    assert_eq!(statement["settled"]["payments"], 1, "{statement}");
    assert_eq!(statement["lines"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn one_payment_sent_fifty_times_serves_once_on_sqlite() {
    one_payment_fifty_times(Backend::Sqlite, 1).await;
}

#[tokio::test]
async fn one_payment_sent_fifty_times_to_two_replicas_serves_once_on_postgres() {
    one_payment_fifty_times(Backend::Postgres, 2).await;
}

/// A bad payment for a read: the status and code, nothing served or settled, and
/// nothing recorded as paid in the ledger (no claim on the statement).
async fn refused(
    tweak: impl FnOnce(&mut Value, &mut Authorization),
    want_status: u16,
    want_code: &str,
    want_reason: &str,
) {
    let facilitator = FakeFacilitator::start().await;
    let db = fresh_db(Backend::Sqlite).await;
    let app = serve(&facilitator, &[("MANABI_DATABASE_URL", db.url.as_str())]).await;
    let payer = Payer::new();
    let header = paid_header(&app, &payer, READ, tweak).await;
    refused_header(
        &app,
        &facilitator,
        ("payment-signature", &header),
        want_status,
        want_code,
        want_reason,
    )
    .await;
    let statement = x402_statement(&db.url);
    assert_eq!(statement["lines"], json!([]), "{statement}");
}

async fn refused_header(
    app: &TestApp,
    facilitator: &FakeFacilitator,
    header: (&str, &str),
    want_status: u16,
    want_code: &str,
    want_reason: &str,
) {
    let (status, headers, body) = get(app, READ, &[header]).await;
    assert_eq!(status, want_status, "{body}");
    let (code, message) = if want_status == 402 {
        assert!(
            headers.contains_key("payment-required"),
            "terms come with a 402"
        );
        (body["code"].clone(), body["error"].clone())
    } else {
        (
            body["error"]["code"].clone(),
            body["error"]["message"].clone(),
        )
    };
    assert_eq!(code, want_code, "{body}");
    let message = message.as_str().unwrap_or_default();
    assert!(
        message.contains(want_reason),
        "{message:?} lacks {want_reason:?}"
    );
    assert!(body.get("data").is_none(), "nothing served");
    assert!(facilitator.settlements().is_empty(), "nothing settled");
}

#[tokio::test]
async fn a_header_that_is_not_base64_is_a_400() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    refused_header(
        &app,
        &facilitator,
        ("payment-signature", "%%%not base64%%%"),
        400,
        "PAYMENT_MALFORMED",
        "base64",
    )
    .await;
}

#[tokio::test]
async fn a_header_that_is_not_json_is_a_400() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let header = common::x402::encode(&json!("just a string"));
    refused_header(
        &app,
        &facilitator,
        ("x-payment", &header[..]),
        400,
        "PAYMENT_MALFORMED",
        "x402Version",
    )
    .await;
    let header = base64_of("{not json");
    refused_header(
        &app,
        &facilitator,
        ("x-payment", &header),
        400,
        "PAYMENT_MALFORMED",
        "JSON",
    )
    .await;
}

fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[tokio::test]
async fn an_unknown_protocol_version_is_refused() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let header = common::x402::encode(&json!({"x402Version": 3, "payload": {}}));
    refused_header(
        &app,
        &facilitator,
        ("payment-signature", &header),
        402,
        "PAYMENT_INVALID",
        "x402Version 3",
    )
    .await;
}

#[tokio::test]
async fn a_wrong_amount_is_refused() {
    refused(
        |_, a| a.value = "6666".to_owned(),
        402,
        "PAYMENT_INVALID",
        "costs exactly 6667",
    )
    .await;
}

#[tokio::test]
async fn a_wrong_amount_in_the_accepted_terms_is_refused() {
    refused(
        |accepted, a| {
            accepted["amount"] = json!("1");
            a.value = "1".to_owned();
        },
        402,
        "PAYMENT_INVALID",
        "costs exactly 6667",
    )
    .await;
}

#[tokio::test]
async fn a_wrong_recipient_is_refused() {
    refused(
        |_, a| a.to = "0x3333333333333333333333333333333333333333".to_owned(),
        402,
        "PAYMENT_INVALID",
        "not the recipient",
    )
    .await;
}

#[tokio::test]
async fn an_expired_authorization_is_refused() {
    let now = u64::try_from(chrono::Utc::now().timestamp()).unwrap();
    refused(
        move |_, a| a.valid_before = now - 1,
        402,
        "PAYMENT_INVALID",
        "expired",
    )
    .await;
}

#[tokio::test]
async fn a_not_yet_valid_authorization_is_refused() {
    let now = u64::try_from(chrono::Utc::now().timestamp()).unwrap();
    refused(
        move |_, a| a.valid_after = now + 600,
        402,
        "PAYMENT_INVALID",
        "not valid yet",
    )
    .await;
}

#[tokio::test]
async fn a_signature_by_someone_else_is_refused() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let (payer, impostor) = (Payer::new(), Payer::new());
    let (accepted, _) = terms(&app, READ).await;
    let authorization = payer.authorization_for(&accepted);
    let mut payment = payer.payment_v2(&accepted, &authorization);
    payment["payload"]["signature"] = impostor.sign(&authorization)["signature"].clone();
    let header = common::x402::encode(&payment);
    refused_header(
        &app,
        &facilitator,
        ("payment-signature", &header),
        402,
        "PAYMENT_INVALID",
        "signature is not from",
    )
    .await;
}

#[tokio::test]
async fn a_signature_under_another_token_domain_is_refused() {
    refused(
        |_, a| a.domain.0 = "USD Coin".to_owned(),
        402,
        "PAYMENT_INVALID",
        "signature is not from",
    )
    .await;
}

#[tokio::test]
async fn an_unknown_network_is_refused() {
    refused(
        |accepted, _| accepted["network"] = json!("eip155:1"),
        402,
        "PAYMENT_INVALID",
        "network `eip155:1`",
    )
    .await;
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let payer = Payer::new();
    let (_, mut requirement) = terms(&app, READ).await;
    let authorization = payer.authorization_for(&requirement);
    requirement["network"] = json!("solana");
    let header = payer.header_v1(&requirement, &authorization);
    refused_header(
        &app,
        &facilitator,
        ("x-payment", &header),
        402,
        "PAYMENT_INVALID",
        "network `solana`",
    )
    .await;
}

#[tokio::test]
async fn a_refused_settlement_serves_nothing_and_is_recorded() {
    let facilitator = FakeFacilitator::start().await;
    let db = fresh_db(Backend::Sqlite).await;
    let app = serve(&facilitator, &[("MANABI_DATABASE_URL", db.url.as_str())]).await;
    facilitator.set_mode(SettleMode::Refuse);
    let payer = Payer::new();
    let header = paid_header(&app, &payer, READ, no_tweak).await;
    refused_header(
        &app,
        &facilitator,
        ("payment-signature", &header),
        402,
        "SETTLEMENT_FAILED",
        "could not be settled",
    )
    .await;
    let store = store(&db).await;
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
    let statement = x402_statement(&db.url);
    assert_eq!(statement["settled"]["payments"], 0, "{statement}");
    assert_eq!(statement["failed"]["payments"], 1, "{statement}");
    // The authorization stays spent here: the same header is not tried again.
    facilitator.set_mode(SettleMode::Ok);
    let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
    assert_eq!(status, 402, "{body}");
    assert!(facilitator.settlements().is_empty());
}

/// A settlement that gives no answer is not called failed: the money may have moved.
/// It is answered 503 and recorded as unknown; the same payment presented again is
/// settled again, served once if that settles it, and never served twice.
#[tokio::test]
async fn a_settlement_without_an_answer_is_unknown_and_the_same_payment_settles_it() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        // The facilitator answered nothing and moved nothing: the retry settles and serves.
        let facilitator = FakeFacilitator::start().await;
        let db = fresh_db(backend).await;
        let app = serve(&facilitator, &[("MANABI_DATABASE_URL", db.url.as_str())]).await;
        facilitator.set_mode(SettleMode::Broken);
        let payer = Payer::new();
        let header = paid_header(&app, &payer, READ, no_tweak).await;
        let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(
            body["error"]["code"], "SETTLEMENT_OUTCOME_UNKNOWN",
            "{body}"
        );
        assert!(body.get("data").is_none(), "{body}");
        let ledger = store(&db).await;
        assert!(verified_when_caught_up(&ledger).await.ok);
        let statement = x402_statement(&db.url);
        assert_eq!(statement["unsettled"]["payments"], 1, "{statement}");
        assert_eq!(statement["failed"]["payments"], 0, "{statement}");
        facilitator.set_mode(SettleMode::Ok);
        let (status, headers, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        assert_eq!(status, 200, "{body}");
        assert!(headers.contains_key("payment-response"));
        assert_eq!(facilitator.settlements().len(), 1);
        // Settled now: a third presentation is refused.
        let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        assert_eq!(status, 402, "{body}");
        assert_eq!(facilitator.settlements().len(), 1);
        let report = verified_when_caught_up(&ledger).await;
        assert!(report.ok, "{report:?}");
        let statement = x402_statement(&db.url);
        assert_eq!(statement["settled"]["payments"], 1, "{statement}");
        assert_eq!(statement["unsettled"]["payments"], 0, "{statement}");

        // The facilitator moved the money and lost its answer: the retry cannot settle it
        // again, so it stays unknown for the operator to reconcile, and nothing is served.
        let facilitator = FakeFacilitator::start().await;
        let db = fresh_db(backend).await;
        let app = serve(&facilitator, &[("MANABI_DATABASE_URL", db.url.as_str())]).await;
        facilitator.set_mode(SettleMode::LostAnswer);
        let header = paid_header(&app, &payer, READ, no_tweak).await;
        let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        assert_eq!(status, 503, "{body}");
        facilitator.set_mode(SettleMode::Ok);
        let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(
            body["error"]["code"], "SETTLEMENT_OUTCOME_UNKNOWN",
            "{body}"
        );
        assert_eq!(facilitator.settlements().len(), 1);
        let ledger = store(&db).await;
        let report = verified_when_caught_up(&ledger).await;
        assert!(report.ok, "{report:?}");
        let statement = x402_statement(&db.url);
        assert_eq!(statement["unsettled"]["payments"], 1, "{statement}");
        assert_eq!(statement["settled"]["payments"], 0, "{statement}");
    }
}

/// x402's MCP transport at `/x402/mcp`: the terms as an isError result, the payment in
/// `_meta`, the settlement in the result's `_meta`.
#[tokio::test]
async fn mcp_tool_calls_are_paid_through_meta() {
    let facilitator = FakeFacilitator::start().await;
    let app = serve(&facilitator, &[]).await;
    let call = |meta: Option<Value>| {
        let mut params = json!({"name": "get_learnable", "arguments": {"id": "vocab-taberu"}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        app.client
            .post(format!("{}/x402/mcp", app.address))
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&request)
            .send()
    };
    let answer: Value = call(None).await.unwrap().json().await.unwrap();
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let terms = &result["structuredContent"];
    assert_eq!(terms["x402Version"], 2);
    assert_eq!(terms["resource"]["url"], "mcp://tool/get_learnable");
    let accepted = terms["accepts"][0].clone();
    assert_eq!(accepted["amount"], "6667");
    let payer = Payer::new();
    let authorization = payer.authorization_for(&accepted);
    let payment = payer.payment_v2(&accepted, &authorization);
    let answer: Value = call(Some(json!({"x402/payment": payment.clone()})))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let result = &answer["result"];
    assert!(result.get("isError").is_none_or(|e| e == false), "{answer}");
    assert_eq!(result["structuredContent"]["id"], "vocab-taberu");
    assert_eq!(result["_meta"]["x402/payment-response"]["success"], true);
    let answer: Value = call(Some(json!({"x402/payment": payment})))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["result"]["isError"], true, "a replay is refused");
    assert_eq!(
        answer["result"]["structuredContent"]["code"],
        "PAYMENT_INVALID"
    );
    assert_eq!(facilitator.settlements().len(), 1);
}

/// A localized version not generated yet costs the generation price, paid per call;
/// once stored, anyone reads it for the read price and nothing is translated again.
#[tokio::test]
async fn a_localized_generation_is_paid_at_its_own_price() {
    let Some(artifact) = common::committed_artifact() else {
        return;
    };
    let facilitator = FakeFacilitator::start().await;
    let deepl = common::deepl::FakeDeepl::start().await;
    let db = fresh_db(Backend::Sqlite).await;
    let env = [
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_X402_PAY_TO", PAY_TO),
        ("MANABI_X402_FACILITATOR_URL", facilitator.url.as_str()),
        ("MANABI_TRANSLATION_PROVIDER_URL", deepl.url.as_str()),
        (
            "MANABI_TRANSLATION_PROVIDER_KEY",
            common::deepl::FakeDeepl::AUTH_KEY,
        ),
    ];
    let app = common::spawn_app_on_committed_artifact_with(artifact, &env).await;
    let path = "/x402/api/v1/learnables/grammar-dake?locale=pt";
    let (accepted, _) = terms(&app, path).await;
    // 25 JPY at 150 JPY/USD.
    assert_eq!(accepted["amount"], "166667");
    assert_eq!(deepl.calls(), 0, "nothing is translated before a payment");
    let payer = Payer::new();
    let header = payer.header_v2(&accepted, &payer.authorization_for(&accepted));
    let (status, headers, body) = get(&app, path, &[("payment-signature", &header)]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["billing"]["points_charged"], 25);
    assert!(headers.contains_key("payment-response"));
    // Generated by whichever generator comes first (the embedded engine when
    // MANABI_TRANSLATION_MODELS is set, else the provider).
    assert_eq!(body["data"]["localization"]["locale"], "pt", "{body}");
    let meaning = body["data"]["grammar"]["meaning"].clone();
    let (accepted, _) = terms(&app, path).await;
    assert_eq!(accepted["amount"], "6667", "stored: the read price");
    let header = payer.header_v2(&accepted, &payer.authorization_for(&accepted));
    let (status, _, body) = get(&app, path, &[("payment-signature", &header)]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["billing"]["points_charged"], 1);
    assert_eq!(
        body["data"]["grammar"]["meaning"], meaning,
        "the stored version"
    );
    assert!(deepl.calls() <= 1, "generated once");
    assert_eq!(facilitator.settlements().len(), 2);
    let store = store(&db).await;
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
}

/// The ledger partitioned away (PostgreSQL behind a proxy that is cut) while a paid
/// call comes in: the answer is a 503 saying nothing was charged, and indeed nothing is
/// settled; once the database is back the same signed payment pays for one answer, and
/// `ledger verify` agrees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ledger_outage_settles_nothing_and_the_payment_stays_good() {
    use common::proxy::TcpProxy;
    let facilitator = FakeFacilitator::start().await;
    let db = fresh_db(Backend::Postgres).await;
    let (head, tail) = db.url.split_once('@').expect("user@host");
    let (host, path) = tail.split_once('/').expect("host/db");
    let proxy = TcpProxy::start(host).await;
    let proxied = format!("{head}@{}/{path}", proxy.address);
    let app = common::spawn_binary_with(&[
        ("MANABI_DATABASE_URL", proxied.as_str()),
        ("MANABI_RUN_PROJECTOR", "false"),
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
        ("MANABI_X402_PAY_TO", PAY_TO),
        ("MANABI_X402_FACILITATOR_URL", facilitator.url.as_str()),
    ])
    .await;
    let payer = Payer::new();
    let header = paid_header(&app, &payer, READ, no_tweak).await;
    proxy.stop();
    let (status, _, body) = get(&app, READ, &[("payment-signature", &header)]).await;
    assert_eq!(status, 503, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("nothing was charged"), "{body}");
    assert!(facilitator.settlements().is_empty(), "nothing settled");
    assert_eq!(facilitator.settles(), 0);
    proxy.resume().await;
    let started = std::time::Instant::now();
    loop {
        let (status, headers, body) = get(&app, READ, &[("payment-signature", &header)]).await;
        if status == 200 {
            assert!(headers.contains_key("payment-response"));
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "not recovered"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(facilitator.settlements().len(), 1);
    let store = store(&db).await;
    let report = verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
}
