//! The developer portal over HTTP, against the real server and a real SMTP client (the
//! server's) talking to a local mail sink: sign in with the mailed link, keys created
//! and revoked as ledger events naming their actor, and each attack refused — a
//! forged form (CSRF), a planted session cookie (fixation), another account's key id,
//! an expired link, a reused link.

use manabi_tests as common;

use chrono::{Duration, Utc};
use common::ledger::{Backend, fresh_db, store};
use common::portal::{
    Portal, account_id, authorize_path, code_in, cookie_value, csrf_field, grant_points, key_id,
    key_secret, location, verifier,
};
use common::proxy::TcpProxy;
use common::stripe::FakeStripe;
use manabi_api::portal::session::link_stream;
use manabi_ledger::store::{AppendCommand, ExpectedVersion, NewEvent};
use manabi_ledger::{EventStore, StreamName};
use manabi_schemas::events::{EventMetadata, LedgerEvent, SignInLinkIssued, StripePaymentLinked};
use reqwest::header::{COOKIE, LOCATION};

#[tokio::test]
async fn a_mailed_link_signs_in_once_and_keys_are_created_and_revoked() {
    let portal = Portal::start(&[]).await;
    let secret = portal.mailed_link("Dev@Example.com").await;
    let message = portal.sink.messages().pop().unwrap();
    assert!(message.contains("To: Dev@Example.com") || message.contains("Dev@Example.com"));
    // The mailed address gets a confirmation page (a GET uses nothing up).
    let page = portal
        .http
        .get(portal.url(&format!("/developers/sign-in/{secret}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("Sign in as Dev@Example.com")
    );
    let session = portal.confirm(&secret, None).await.expect("signed in");
    assert_eq!(
        portal.confirm(&secret, None).await,
        Err(410),
        "a link works once"
    );
    let html = portal.dashboard(&session).await;
    assert!(html.contains("Hello, Dev@Example.com"));
    assert!(html.contains("no subscription"));
    let csrf = csrf_field(&html);
    let created = portal
        .post(
            &session,
            "/developers/keys",
            &[
                ("csrf", &csrf),
                ("name", "flashcards"),
                ("expires_in_days", ""),
            ],
        )
        .await;
    assert_eq!(created.status(), 200);
    assert_eq!(created.headers()["cache-control"], "no-store");
    let key = key_secret(&created.text().await.unwrap());
    // The key works: a free call answers 200 for it.
    let account = portal.get_with_key("/api/v1/account", &key).await;
    assert_eq!(account.status(), 200);
    let account: serde_json::Value = account.json().await.unwrap();
    let account_id = account["data"]["account_id"]
        .as_str()
        .expect("account id")
        .to_owned();
    // The ledger recorded who created it.
    let store = store(portal.db()).await;
    let events = store
        .read_stream(&StreamName::new(format!("account-{account_id}")), 0, 10)
        .await
        .unwrap();
    let issued = events
        .iter()
        .find(|e| matches!(e.event, LedgerEvent::ApiKeyIssued(_)))
        .expect("ApiKeyIssued");
    assert_eq!(
        issued.metadata.actor.as_deref(),
        Some("portal:Dev@Example.com")
    );
    // Revoke it from the page: the next call is refused.
    let key_id = key_id(&portal.dashboard(&session).await);
    let revoked = portal.revoke_key(&session, &csrf, &key_id).await;
    assert_eq!(revoked.status(), 303);
    let refused = portal.get_with_key("/api/v1/account", &key).await;
    assert_eq!(refused.status(), 401);
    // Signing out ends the session.
    let out = portal
        .post(&session, "/developers/sign-out", &[("csrf", &csrf)])
        .await;
    assert_eq!(out.status(), 303);
    let html = portal.get_signed_in(&session, "/developers").await;
    let html = html.text().await.unwrap();
    assert!(html.contains("Email me a sign-in link"), "signed out");
}

/// The read models are not projected at all here (no projector runs), as when a sign-in
/// comes before the projector has caught up: the account is found in the ledger anyway.
async fn an_operator_made_account_is_claimed_by_its_email(backend: Backend) {
    let portal = Portal::start_on(backend, &[("MANABI_RUN_PROJECTOR", "false")]).await;
    let made = common::admin(
        &portal.database_url,
        &["account", "create", "--email", "ops@example.com"],
    );
    let account_id = made["account_id"].as_str().unwrap().to_owned();
    grant_points(&portal.database_url, &account_id, 42, "t1");
    let session = portal.sign_in("OPS@example.com").await;
    let html = portal.dashboard(&session).await;
    assert!(
        html.contains("42 points"),
        "the operator's account, with its balance"
    );
    assert!(html.contains(&account_id));
    // Signing in again reaches the same account.
    let again = portal.sign_in("ops@example.com").await;
    assert!(portal.dashboard(&again).await.contains(&account_id));
    // Another address gets an account of its own.
    let other = portal.sign_in("someone@example.com").await;
    assert!(!portal.dashboard(&other).await.contains(&account_id));
}

#[tokio::test]
async fn an_operator_made_account_is_claimed_by_its_email_before_any_projection_sqlite() {
    an_operator_made_account_is_claimed_by_its_email(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_operator_made_account_is_claimed_by_its_email_before_any_projection_postgres() {
    an_operator_made_account_is_claimed_by_its_email(Backend::Postgres).await;
}

#[tokio::test]
async fn a_sign_in_link_records_the_client_that_asked_for_it() {
    let portal = Portal::start(&[]).await;
    let secret = portal.mailed_link("who@example.com").await;
    let store = store(portal.db()).await;
    let events = store
        .read_stream(&link_stream(&secret), 0, 1)
        .await
        .unwrap();
    assert!(matches!(events[0].event, LedgerEvent::SignInLinkIssued(_)));
    assert_eq!(
        events[0].metadata.actor.as_deref(),
        Some("client:127.0.0.1")
    );
}

#[tokio::test]
async fn a_link_confirmed_from_another_site_signs_nobody_in() {
    let portal = Portal::start(&[]).await;
    let secret = portal.mailed_link("victim@example.com").await;
    // No form token (a cross-site form post carries none of our cookies).
    let response = portal
        .http
        .post(portal.url("/developers/sign-in/confirm"))
        .header("origin", "https://evil.example")
        .form(&[("token", secret.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert!(cookie_value(&response, "manabi_session").is_none());
    // The link is still good for its owner.
    assert!(portal.confirm(&secret, None).await.is_ok());
}

#[tokio::test]
async fn forms_without_the_session_token_are_refused() {
    let portal = Portal::start(&[]).await;
    let session = portal.sign_in("a@example.com").await;
    for csrf in [
        "",
        "0000000000000000000000000000000000000000000000000000000000000000",
    ] {
        let response = portal
            .post(
                &session,
                "/developers/keys",
                &[("csrf", csrf), ("name", "x")],
            )
            .await;
        assert_eq!(response.status(), 403, "csrf {csrf:?}");
    }
    // The sign-in form needs its cookie's token too.
    let response = portal
        .http
        .post(portal.url("/developers/sign-in"))
        .form(&[("email", "a@example.com"), ("csrf", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn a_planted_session_cookie_is_never_promoted() {
    let portal = Portal::start(&[]).await;
    let planted = "a".repeat(64);
    let secret = portal.mailed_link("b@example.com").await;
    let session = portal
        .confirm(&secret, Some(&planted))
        .await
        .expect("signed in");
    assert_ne!(session, planted, "a fresh session secret at sign-in");
    let html = portal.get_signed_in(&planted, "/developers").await;
    let html = html.text().await.unwrap();
    assert!(
        html.contains("Email me a sign-in link"),
        "the planted cookie signs nobody in"
    );
}

#[tokio::test]
async fn nobody_revokes_another_accounts_key() {
    let portal = Portal::start(&[]).await;
    let owner = portal.sign_in("owner@example.com").await;
    let html = portal.dashboard(&owner).await;
    portal.create_key(&owner, &csrf_field(&html), "mine").await;
    let key_id = key_id(&portal.dashboard(&owner).await);
    let intruder = portal.sign_in("intruder@example.com").await;
    let intruder_csrf = csrf_field(&portal.dashboard(&intruder).await);
    let response = portal.revoke_key(&intruder, &intruder_csrf, &key_id).await;
    assert_eq!(response.status(), 404);
    assert!(
        portal.dashboard(&owner).await.contains("active"),
        "still live"
    );
}

#[tokio::test]
async fn an_expired_or_unknown_link_signs_nobody_in() {
    let portal = Portal::start(&[]).await;
    let store = store(portal.db()).await;
    let secret = "b".repeat(64);
    let issued = LedgerEvent::SignInLinkIssued(SignInLinkIssued {
        email: "late@example.com".to_owned(),
        expires_at: Utc::now() - Duration::minutes(1),
    });
    store
        .append(AppendCommand::single(
            link_stream(&secret),
            ExpectedVersion::NoStream,
            vec![NewEvent::new(issued, EventMetadata::default(), Utc::now())],
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(portal.confirm(&secret, None).await, Err(410));
    let page = portal
        .http
        .get(portal.url(&format!("/developers/sign-in/{secret}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 410);
    assert!(page.text().await.unwrap().contains("expired"));
    assert_eq!(portal.confirm(&"c".repeat(64), None).await, Err(404));
}

/// The balance shown on the dashboard.
fn balance_of(html: &str) -> i64 {
    let marker = "id=\"balance\">";
    let start = html.find(marker).expect("a balance") + marker.len();
    html[start..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .expect("points")
}

/// A portal with the Stripe stand-in wired both ways.
async fn with_stripe() -> (Portal, FakeStripe) {
    let stripe = FakeStripe::start().await;
    let portal = Portal::start(&stripe_settings(&stripe)).await;
    stripe.set_webhook(&portal.url("/stripe/webhook"));
    (portal, stripe)
}

/// The settings that point a server at the Stripe stand-in.
fn stripe_settings(stripe: &FakeStripe) -> [(&str, &str); 3] {
    [
        ("MANABI_STRIPE_API_URL", stripe.url.as_str()),
        ("MANABI_STRIPE_SECRET_KEY", common::stripe::SECRET_KEY),
        (
            "MANABI_STRIPE_WEBHOOK_SECRET",
            common::stripe::WEBHOOK_SECRET,
        ),
    ]
}

/// Starts the checkout of `pack`: the Stripe session id it redirects to.
async fn checkout(portal: &Portal, session: &str, pack: &str) -> String {
    let csrf = csrf_field(&portal.dashboard(session).await);
    let response = portal
        .post(
            session,
            "/developers/credits/checkout",
            &[("csrf", &csrf), ("pack", pack)],
        )
        .await;
    assert_eq!(response.status(), 303, "{}", response.text().await.unwrap());
    location(&response).rsplit('/').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_pack_bought_through_checkout_is_credited_once() {
    let (portal, stripe) = with_stripe().await;
    let session = portal.sign_in("buyer@example.com").await;
    assert_eq!(balance_of(&portal.dashboard(&session).await), 0);
    let id = checkout(&portal, &session, "starter").await;
    let created = stripe.session(&id).expect("a checkout session");
    assert_eq!(created["currency"], "jpy");
    assert_eq!(created["customer_email"], "buyer@example.com");
    let price = created["amount_total"].as_i64().unwrap();
    assert_eq!(stripe.pay(&id).await, 200);
    let credited = balance_of(&portal.dashboard(&session).await);
    assert!(
        credited >= price,
        "the pack's points (bonus included): {credited}"
    );
    // Stripe delivers again (a retry, a duplicate): nothing more.
    let (body, _) = stripe.delivered().pop().unwrap();
    assert_eq!(stripe.redeliver(&body).await, 200);
    assert_eq!(balance_of(&portal.dashboard(&session).await), credited);
    // A forged delivery (another secret) is refused and credits nothing.
    let forged = body.replace(&id, "cs_test_forged");
    assert_eq!(stripe.deliver_forged(&forged).await, 400);
    assert_eq!(stripe.deliver_forged(&body).await, 400);
    assert_eq!(balance_of(&portal.dashboard(&session).await), credited);
    // A full refund takes the points back, once.
    assert_eq!(stripe.refund(&id).await, 200);
    assert_eq!(stripe.refund(&id).await, 200);
    assert_eq!(balance_of(&portal.dashboard(&session).await), 0);
    let store = store(portal.db()).await;
    let report = common::ledger::verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
}

#[tokio::test]
async fn a_session_paid_for_another_amount_credits_nothing() {
    let (portal, stripe) = with_stripe().await;
    let session = portal.sign_in("tamper@example.com").await;
    let id = checkout(&portal, &session, "starter").await;
    stripe.pay(&id).await;
    let (body, _) = stripe.delivered().pop().unwrap();
    // The same session reported as paid for 1 yen, properly signed: not credited.
    let fresh = checkout(&portal, &session, "starter").await;
    let altered = body.replace(&id, &fresh).replace(
        &format!(
            "\"amount_total\":{}",
            stripe.session(&id).unwrap()["amount_total"]
        ),
        "\"amount_total\":1",
    );
    assert_eq!(stripe.redeliver(&altered).await, 200);
    let credited = balance_of(&portal.dashboard(&session).await);
    let price = stripe.session(&id).unwrap()["amount_total"]
        .as_i64()
        .unwrap();
    assert!(
        credited >= price && credited < 2 * price,
        "only the first session: {credited}"
    );
}

/// A refusal of the credit other than "this session was credited already" (here the
/// payment already points at another session) is answered 503, so Stripe delivers again;
/// nothing is credited.
#[tokio::test]
async fn a_credit_the_ledger_refuses_for_another_reason_is_retried_by_stripe() {
    let (portal, stripe) = with_stripe().await;
    let session = portal.sign_in("clash@example.com").await;
    let id = checkout(&portal, &session, "starter").await;
    let store = store(portal.db()).await;
    let linked = LedgerEvent::StripePaymentLinked(StripePaymentLinked {
        session_id: "cs_test_another".to_owned(),
    });
    store
        .append(AppendCommand::single(
            StreamName::new(format!("stripe-payment-pi_{id}")),
            ExpectedVersion::NoStream,
            vec![NewEvent::new(linked, EventMetadata::default(), Utc::now())],
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stripe.pay(&id).await, 503, "not \"already credited\"");
    assert_eq!(balance_of(&portal.dashboard(&session).await), 0);
    let checkout_events = store
        .read_stream(&StreamName::new(format!("stripe-checkout-{id}")), 0, 10)
        .await
        .unwrap();
    assert_eq!(checkout_events.len(), 1, "no completion recorded");
}

/// While the ledger cannot be reached a paid session's webhook is answered 503 (Stripe
/// retries); delivered again once the ledger is back, it is credited, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_the_ledger_cannot_record_is_credited_when_stripe_retries() {
    let stripe = FakeStripe::start().await;
    let db = fresh_db(Backend::Postgres).await;
    let (head, tail) = db.url.split_once('@').expect("user@host");
    let (host, path) = tail.split_once('/').expect("host/db");
    let proxy = TcpProxy::start(host).await;
    let proxied = format!("{head}@{}/{path}", proxy.address);
    let portal = Portal::serve(Some(db), proxied, &stripe_settings(&stripe)).await;
    stripe.set_webhook(&portal.url("/stripe/webhook"));
    let session = portal.sign_in("outage@example.com").await;
    let id = checkout(&portal, &session, "starter").await;
    proxy.stop();
    let status = stripe.pay(&id).await;
    assert!(
        (500..600).contains(&status),
        "a 5xx Stripe retries: {status}"
    );
    proxy.resume().await;
    let (body, _) = stripe.delivered().pop().unwrap();
    let mut retried = 0;
    for _ in 0..50 {
        retried = stripe.redeliver(&body).await;
        if retried == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(retried, 200, "credited once the ledger is back");
    assert_eq!(stripe.redeliver(&body).await, 200);
    let price = stripe.session(&id).unwrap()["amount_total"]
        .as_i64()
        .unwrap();
    assert_eq!(balance_of(&portal.dashboard(&session).await), price);
}

/// A partial refund takes back its share of the pack's points (rounded down), the full
/// refund after it the rest: the pack's points in all, once, however often Stripe
/// delivers either. Points credited otherwise stay.
#[tokio::test]
async fn partial_refunds_take_back_their_share_once() {
    let (portal, stripe) = with_stripe().await;
    let session = portal.sign_in("refunds@example.com").await;
    let id = checkout(&portal, &session, "standard").await;
    assert_eq!(stripe.pay(&id).await, 200);
    let account_id = stripe.session(&id).unwrap()["client_reference_id"]
        .as_str()
        .unwrap()
        .to_owned();
    grant_points(&portal.database_url, &account_id, 100, "extra");
    // The standard pack: 5000 points and 250 bonus for 5000 yen.
    let (portal, session) = (&portal, session.as_str());
    let balance = move || async move { balance_of(&portal.dashboard(session).await) };
    assert_eq!(balance().await, 5_350);
    assert_eq!(stripe.refund_up_to(&id, 1_234).await, 200);
    assert_eq!(
        balance().await,
        5_350 - 1_295,
        "⌊5250 × 1234 / 5000⌋ taken back"
    );
    let (partial, _) = stripe.delivered().pop().unwrap();
    assert_eq!(stripe.redeliver(&partial).await, 200);
    assert_eq!(
        balance().await,
        5_350 - 1_295,
        "a replay takes nothing more"
    );
    assert_eq!(stripe.refund_up_to(&id, 5_000).await, 200);
    assert_eq!(balance().await, 100, "the rest of the pack");
    let (full, _) = stripe.delivered().pop().unwrap();
    for body in [&full, &partial, &full] {
        assert_eq!(stripe.redeliver(body).await, 200);
    }
    assert_eq!(balance().await, 100, "the pack's points in all, once");
    let store = store(portal.db()).await;
    let report = common::ledger::verified_when_caught_up(&store).await;
    assert!(report.ok, "{report:?}");
}

#[tokio::test]
async fn without_stripe_purchases_are_disabled_and_say_how_to_get_points() {
    let portal = Portal::start(&[]).await;
    let session = portal.sign_in("free@example.com").await;
    let html = portal.dashboard(&session).await;
    assert!(html.contains("Card payments are not enabled"));
    assert!(html.contains("manabi admin topup"));
    let csrf = csrf_field(&html);
    let response = portal
        .post(
            &session,
            "/developers/credits/checkout",
            &[("csrf", &csrf), ("pack", "starter")],
        )
        .await;
    assert_eq!(response.status(), 503);
}

#[tokio::test]
async fn invoice_lines_and_statements_are_the_signed_in_accounts() {
    let portal = Portal::start(&[]).await;
    let session = portal.sign_in("calls@example.com").await;
    let html = portal.dashboard(&session).await;
    let csrf = csrf_field(&html);
    grant_points(&portal.database_url, &account_id(&html), 50, "g");
    let key = portal.create_key(&session, &csrf, "calls").await;
    let answer = portal
        .get_with_key("/api/v1/learnables?query=taberu", &key)
        .await;
    assert_eq!(answer.status(), 200);
    let month = Utc::now().format("%Y-%m").to_string();
    let mut page = String::new();
    for _ in 0..50 {
        let invoices = portal.get_signed_in(&session, "/developers/invoices").await;
        page = invoices.text().await.unwrap();
        if page.contains("searchLearnables") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(page.contains("searchLearnables"), "{page}");
    let statement = format!("/developers/statements/{month}.csv");
    let csv = portal.get_signed_in(&session, &statement).await;
    assert_eq!(csv.headers()["content-type"], "text/csv; charset=utf-8");
    let csv = csv.text().await.unwrap();
    assert!(
        csv.lines()
            .any(|line| line.starts_with("charge,") && line.contains("searchLearnables")),
        "{csv}"
    );
    assert!(csv.lines().any(|line| line.starts_with("credit,")), "{csv}");
    // The charts: per key (calls and points), and the balance at the end of today.
    let html = portal.dashboard(&session).await;
    assert!(
        html.contains("Calls per day with the key “calls”"),
        "a chart per key"
    );
    let today = Utc::now().format("%Y-%m-%d").to_string();
    assert!(
        html.contains(&format!("{today}: 45 points")),
        "the balance chart ends at 45"
    );
    // The key's points per day: a chart of its own, today's bar the search's 5 points.
    let title = "Points spent per day with the key “calls”";
    let start = html.find(title).expect("a points chart per key");
    let end = start + html[start..].find("</svg>").expect("the chart's end");
    let chart = &html[start..end];
    assert!(chart.contains(&format!("{today}: 5 points")), "{chart}");
    assert!(
        chart.contains("5 points from "),
        "described in words: {chart}"
    );
    // Without a session: back to the sign-in page.
    let anonymous = portal
        .http
        .get(portal.url(&statement))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 303);
}

#[tokio::test]
async fn an_mcp_client_authorized_with_oauth_calls_like_a_key_until_revoked() {
    let portal = Portal::start(&[]).await;
    let base = portal.app.address.clone();
    let (_, metadata) = portal
        .app
        .get_json("/.well-known/oauth-authorization-server")
        .await;
    assert_eq!(metadata["issuer"], base);
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    let client_id = portal.register_client("Test Agent").await;
    let session = portal.sign_in("agent-owner@example.com").await;
    let html = portal.dashboard(&session).await;
    grant_points(&portal.database_url, &account_id(&html), 20, "o");
    // A token for another resource is never issued.
    let evil = authorize_path(&client_id, "https://evil.example/mcp");
    let elsewhere = portal.get_signed_in(&session, &evil).await;
    assert_eq!(elsewhere.status(), 303);
    assert!(location(&elsewhere).contains("error=invalid_target"));
    // The consent page names the client; allowing sends a code back.
    let (_, page) = portal.authorize(Some(&session), &client_id).await;
    assert!(page.contains("Test Agent"), "{page}");
    let location = portal.allow(&session, &page).await;
    assert!(
        location.starts_with("http://127.0.0.1:9/cb?code="),
        "{location}"
    );
    assert!(location.ends_with("&state=xyz"));
    let code = code_in(&location);
    let resource = format!("{base}/mcp");
    let wrong = "w".repeat(50);
    let (status, _) = portal.exchange(&client_id, &code, &wrong, &resource).await;
    assert_eq!(status, 400, "a wrong verifier");
    let (_, tokens) = portal
        .exchange(&client_id, &code, &verifier(), &resource)
        .await;
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    // The token calls /mcp like a key: billed to the account.
    let answer: serde_json::Value = portal.mcp_call("/mcp", &access).await.json().await.unwrap();
    assert_eq!(
        answer["result"]["structuredContent"]["billing"]["points_charged"], 5,
        "{answer}"
    );
    // It is for /mcp only.
    let rest = portal.get_with_key("/api/v1/account", &access).await;
    assert_eq!(rest.status(), 401);
    // Refresh tokens rotate: each works once.
    let refreshed = |token: String| {
        portal
            .http
            .post(portal.url("/oauth/token"))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", token.as_str()),
                ("client_id", client_id.as_str()),
            ])
            .send()
    };
    let rotated: serde_json::Value = refreshed(refresh.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(rotated["access_token"].is_string(), "{rotated}");
    let rotated_access = rotated["access_token"].as_str().unwrap().to_owned();
    assert_eq!(portal.mcp_call("/mcp", &rotated_access).await.status(), 200);
    // Revoking the client's key in the portal stops its tokens on the next call.
    let html = portal.dashboard(&session).await;
    assert!(html.contains("OAuth: Test Agent"));
    portal
        .revoke_key(&session, &csrf_field(&html), &key_id(&html))
        .await;
    let refused = portal.mcp_call("/mcp", &rotated_access).await;
    assert_eq!(refused.status(), 401);
    assert!(
        refused.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("oauth-protected-resource/mcp")
    );
    // A rotated-out refresh token, or a code, presented again is refused.
    let reused: serde_json::Value = refreshed(refresh).await.unwrap().json().await.unwrap();
    assert_eq!(reused["error"], "invalid_grant");
    let (_, again) = portal
        .exchange(&client_id, &code, &verifier(), &resource)
        .await;
    assert_eq!(again["error"], "invalid_grant", "a code works once");
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session() {
    let portal = Portal::start(&[]).await;
    let laptop = portal.sign_in("everywhere@example.com").await;
    let phone = portal.sign_in("everywhere@example.com").await;
    let html = portal.dashboard(&phone).await;
    assert!(html.contains("Sign out everywhere"));
    let csrf = csrf_field(&html);
    let ended = portal
        .post(
            &phone,
            "/developers/sign-out-everywhere",
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(ended.status(), 303);
    for session in [&laptop, &phone] {
        let page = portal.get_signed_in(session, "/developers").await;
        let page = page.text().await.unwrap();
        assert!(
            page.contains("Email me a sign-in link"),
            "every session ended"
        );
    }
    // Signing in again works.
    let again = portal.sign_in("everywhere@example.com").await;
    assert!(
        portal
            .dashboard(&again)
            .await
            .contains("Hello, everywhere@example.com")
    );
}

/// The signed-in person allows `client_id` on the consent page: the access token the
/// code is exchanged for.
async fn allowed_access_token(portal: &Portal, session: &str, client_id: &str) -> String {
    let (_, page) = portal.authorize(Some(session), client_id).await;
    let code = code_in(&portal.allow(session, &page).await);
    let resource = portal.url("/mcp");
    let (_, tokens) = portal
        .exchange(client_id, &code, &verifier(), &resource)
        .await;
    tokens["access_token"]
        .as_str()
        .expect("an access token")
        .to_owned()
}

/// The state column of the dashboard's row of the key named `name`.
fn key_state<'a>(html: &'a str, name: &str) -> &'a str {
    let row = html
        .split("<tr>")
        .find(|row| row.starts_with(&format!("<td>{name}</td>")))
        .unwrap_or_else(|| panic!("a row for the key {name}"));
    row.split("<td>")
        .nth(6)
        .and_then(|cell| cell.split("</td>").next())
        .expect("a state cell")
}

/// Signing out everywhere revokes the keys OAuth grants act as, found by the grants'
/// records; a key the person named like a grant's is theirs and stays.
#[tokio::test]
async fn signing_out_everywhere_revokes_the_grants_keys_and_no_other() {
    let portal = Portal::start(&[]).await;
    let session = portal.sign_in("grants@example.com").await;
    let csrf = csrf_field(&portal.dashboard(&session).await);
    portal.create_key(&session, &csrf, "OAuth: mine").await;
    let client_id = portal.register_client("Test Agent").await;
    let access = allowed_access_token(&portal, &session, &client_id).await;
    assert_ne!(portal.mcp_call("/mcp", &access).await.status(), 401);
    let ended = portal
        .post(
            &session,
            "/developers/sign-out-everywhere",
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(ended.status(), 303);
    assert_eq!(portal.mcp_call("/mcp", &access).await.status(), 401);
    let again = portal.sign_in("grants@example.com").await;
    let html = portal.dashboard(&again).await;
    assert_eq!(key_state(&html, "OAuth: Test Agent"), "revoked");
    assert_eq!(
        key_state(&html, "OAuth: mine"),
        "active",
        "the person's own key"
    );
}

/// Fetches a URL the server handed out: its status, after one redirect at most.
async fn landing_status(portal: &Portal, url: &str) -> u16 {
    assert!(
        url.starts_with(&portal.app.address),
        "a URL of this server: {url}"
    );
    let response = portal.http.get(url).send().await.unwrap();
    if !response.status().is_redirection() {
        return response.status().as_u16();
    }
    let location = location(&response);
    let next = if location.starts_with('/') {
        portal.url(&location)
    } else {
        location
    };
    portal
        .http
        .get(next)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Discovery's `signup_url`, a 402's `top_up_url` and every pack's `purchase_url` open a
/// portal page.
#[tokio::test]
async fn every_url_that_sends_a_developer_to_the_portal_opens_a_page() {
    let portal = Portal::start(&[]).await;
    let (_, discovery) = portal.app.get_json("/api/v1").await;
    let mut urls = vec![discovery["data"]["signup_url"].as_str().unwrap().to_owned()];
    let (_, packs) = portal.app.get_json("/api/v1/credit-packs").await;
    for pack in packs["data"]["packs"].as_array().unwrap() {
        urls.push(pack["purchase_url"].as_str().unwrap().to_owned());
    }
    let session = portal.sign_in("broke@example.com").await;
    let csrf = csrf_field(&portal.dashboard(&session).await);
    let key = portal.create_key(&session, &csrf, "k").await;
    let refused = portal
        .get_with_key("/api/v1/learnables?query=taberu", &key)
        .await;
    assert_eq!(refused.status(), 402);
    let refused: serde_json::Value = refused.json().await.unwrap();
    urls.push(refused["error"]["top_up_url"].as_str().unwrap().to_owned());
    assert_eq!(urls.len(), 5, "signup, three packs, top-up: {urls:?}");
    for url in &urls {
        assert_eq!(landing_status(&portal, url).await, 200, "{url}");
    }
}

/// A pack's `purchase_url` chooses that pack: signed out, through the sign-in (the pack
/// comes back after it); signed in, at once. Nothing else rides the sign-in.
#[tokio::test]
async fn a_purchase_url_chooses_its_pack_through_the_sign_in() {
    let portal = Portal::start(&[]).await;
    let (_, packs) = portal.app.get_json("/api/v1/credit-packs").await;
    let purchase_url = |id: &str| {
        packs["data"]["packs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|pack| pack["id"] == id)
            .and_then(|pack| pack["purchase_url"].as_str())
            .unwrap()
            .to_owned()
    };
    let chosen = |id: &str| format!("id=\"chosen-pack\" aria-current=\"true\"><td>{id}</td>");
    let page = portal
        .http
        .get(purchase_url("standard"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let next = cookie_value(&page, "manabi_next").expect("the pack kept for after sign-in");
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("Sign in to buy the standard pack.")
    );
    let secret = portal.mailed_link("picker@example.com").await;
    let confirmed = portal
        .confirm_with(&secret, Some(&format!("manabi_next={next}")))
        .await;
    assert_eq!(confirmed.status(), 303);
    let location = location(&confirmed);
    assert_eq!(location, "/developers/credits?pack=standard");
    let session = cookie_value(&confirmed, "manabi_session").expect("signed in");
    let open = |url: String| {
        portal
            .http
            .get(url)
            .header(COOKIE, format!("manabi_session={session}"))
            .send()
    };
    let html = open(portal.url(&location))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains(&chosen("standard")), "{html}");
    assert!(html.contains("You chose the standard pack"));
    assert!(!html.contains(&chosen("starter")));
    let html = open(purchase_url("starter"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains(&chosen("starter")), "signed in: at once");
    // An unknown pack chooses nothing, and a sign-in goes nowhere else.
    let unknown = portal
        .http
        .get(portal.url("/developers/credits?pack=none"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 200);
    assert!(cookie_value(&unknown, "manabi_next").is_none());
    let secret = portal.mailed_link("picker@example.com").await;
    let elsewhere = "manabi_next=https%3A%2F%2Fevil.example%2F";
    let confirmed = portal.confirm_with(&secret, Some(elsewhere)).await;
    assert_eq!(confirmed.headers()[LOCATION], "/developers");
}
