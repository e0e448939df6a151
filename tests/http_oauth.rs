//! OAuth for MCP against the real server, where it can be abused: client ID metadata
//! documents served by a small HTTP server of the test (used only when loopback is
//! allowed, never through a redirect, never past 64 KiB, fetched once while cached, the
//! client's name cleaned and capped), dynamic registration limited per client address,
//! and an access token refused everywhere but the `/mcp` it was issued for (RFC 8707):
//! by another deployment's `/mcp` on the same ledger, by `/x402/mcp`, by the REST API,
//! and by `/mcp` itself once its grant is revoked.

use manabi_tests as common;

use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use common::portal::{Portal, REDIRECT_URI, account_id, code_in, csrf_field, key_id, verifier};
use common::x402::FakeFacilitator;
use manabi_ledger::account::Points;
use manabi_ledger::operator::Operator;
use manabi_schemas::events::CreditKind;
use reqwest::header::RETRY_AFTER;
use serde_json::{Value, json};

const LOOPBACK_ALLOWED: (&str, &str) = ("MANABI_OAUTH_CLIENT_METADATA_LOOPBACK", "true");

/// A billed `search_learnables` tool call at `path` with `token`: status and body.
async fn mcp_answer(server: &Portal, path: &str, token: &str) -> (u16, String) {
    let response = server.mcp_call(path, token).await;
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The name a client ID metadata document gives: control characters and more than the
/// 100 characters shown.
fn unruly_name() -> String {
    format!("Doc\u{1b}Agent {}", "x".repeat(150))
}

/// What the consent page shows of [`unruly_name`].
fn shown_name() -> String {
    format!("DocAgent {}", "x".repeat(100 - "DocAgent ".len()))
}

/// The small HTTP server of client ID metadata documents, counting requests per path.
struct Documents {
    base: String,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Documents {
    async fn start() -> Documents {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}");
        let hits = Arc::new(Mutex::new(Vec::new()));
        let (served, kept) = (base.clone(), hits.clone());
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let (base, hits) = (served.clone(), kept.clone());
            async move {
                hits.lock().unwrap().push(uri.path().to_owned());
                document(&base, uri.path())
            }
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        Documents { base, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn hits(&self, path: &str) -> usize {
        self.hits
            .lock()
            .unwrap()
            .iter()
            .filter(|hit| *hit == path)
            .count()
    }
}

/// `/client.json` names itself; `/big.json` is 100 KiB with its length announced,
/// `/big-stream.json` the same streamed without one; `/moved.json` redirects to
/// `/target.json`, a document naming `/moved.json` (used only if the redirect were
/// followed).
fn document(base: &str, path: &str) -> Response {
    let naming = |client_id: String, name: String| {
        json!({"client_id": client_id, "client_name": name, "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none"})
    };
    let padded = || {
        let mut big = naming(format!("{base}{path}"), "Big".to_owned());
        big["padding"] = json!("p".repeat(100 * 1024));
        big.to_string()
    };
    match path {
        "/client.json" => {
            axum::Json(naming(format!("{base}{path}"), unruly_name())).into_response()
        }
        "/big.json" => padded().into_response(),
        "/big-stream.json" => {
            let body = padded().into_bytes();
            let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
                body.chunks(4096).map(|chunk| Ok(chunk.to_vec())).collect();
            axum::body::Body::from_stream(futures::stream::iter(chunks)).into_response()
        }
        "/moved.json" => Redirect::temporary("/target.json").into_response(),
        "/target.json" => {
            axum::Json(naming(format!("{base}/moved.json"), "Moved".to_owned())).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

#[tokio::test]
async fn a_metadata_document_on_loopback_names_the_client_only_when_allowed() {
    let documents = Documents::start().await;
    let client_id = documents.url("/client.json");
    let server = Portal::start(&[LOOPBACK_ALLOWED]).await;
    let session = server.sign_in("documents@example.com").await;
    let (status, page) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200, "{page}");
    // The name without its control character, cut at 100 characters.
    assert!(page.contains(&shown_name()), "{page}");
    assert!(!page.contains(&format!("{}x", shown_name())));
    let (status, _) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200);
    assert_eq!(documents.hits("/client.json"), 1, "kept, not fetched again");
    let code = code_in(&server.allow(&session, &page).await);
    let resource = format!("{}/mcp", server.app.address);
    let (status, tokens) = server
        .exchange(&client_id, &code, &verifier(), &resource)
        .await;
    assert_eq!(status, 200, "{tokens}");
    assert!(server.dashboard(&session).await.contains(&shown_name()));

    // By default nothing on loopback is fetched: not over http, not as an https URL naming
    // a loopback address or a name resolving to one.
    let guarded = Portal::start(&[]).await;
    let port = documents.base.rsplit(':').next().unwrap();
    for (refused_id, why) in [
        (client_id.clone(), "must be an https URL"),
        (
            format!("https://127.0.0.1:{port}/client.json"),
            "not a public internet address",
        ),
        (
            format!("https://localhost:{port}/client.json"),
            "not a public internet address",
        ),
    ] {
        let (status, page) = guarded.authorize(None, &refused_id).await;
        assert_eq!(status, 400, "{refused_id}: {page}");
        assert!(page.contains(why), "{refused_id}: {page}");
    }
    assert_eq!(documents.hits("/client.json"), 1, "no request was made");
}

#[tokio::test]
async fn an_oversized_or_redirecting_metadata_document_is_refused() {
    let documents = Documents::start().await;
    let server = Portal::start(&[LOOPBACK_ALLOWED]).await;
    for path in ["/big.json", "/big-stream.json"] {
        let (status, page) = server.authorize(None, &documents.url(path)).await;
        assert_eq!(status, 400, "{path}: {page}");
        assert!(page.contains("larger than 64 KiB"), "{path}: {page}");
    }
    let (status, page) = server.authorize(None, &documents.url("/moved.json")).await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("redirect, which is not followed"), "{page}");
    assert_eq!(documents.hits("/moved.json"), 1);
    assert_eq!(
        documents.hits("/target.json"),
        0,
        "the redirect was not followed"
    );
}

#[tokio::test]
async fn registration_is_limited_per_client_address() {
    let server = Portal::start(&[]).await;
    let mut registered = 0;
    let refused = loop {
        let response = server.register("Flood").await;
        if response.status() != 201 {
            break response;
        }
        registered += 1;
        assert!(registered < 100, "registration is never limited");
    };
    assert!(registered >= 5, "a few registrations pass: {registered}");
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["cache-control"], "no-store");
    let retry_after: u64 = refused.headers()[RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable", "{body}");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("retry")
    );
}

/// Grants `points` to the account signed in as `session`.
async fn fund(server: &Portal, session: &str, points: i64) {
    let html = server.dashboard(session).await;
    let account_id = account_id(&html).parse().unwrap();
    let store = manabi_ledger::Store::connect(&server.database_url)
        .await
        .expect("the ledger opens");
    let points = Points::new(points).unwrap();
    Operator::new(&store)
        .credit(account_id, CreditKind::Grant, points, "oauth-test")
        .await
        .unwrap();
}

#[tokio::test]
async fn an_access_token_is_refused_outside_the_mcp_it_was_issued_for() {
    let facilitator = FakeFacilitator::start().await;
    let x402 = [
        (
            "MANABI_X402_PAY_TO",
            "0x2222222222222222222222222222222222222222",
        ),
        ("MANABI_X402_FACILITATOR_URL", facilitator.url.as_str()),
        ("MANABI_X402_JPY_PER_USD", "150"),
    ];
    let server = Portal::start(&x402).await;
    let resource = format!("{}/mcp", server.app.address);
    let client_id = server.register_client("Audience").await;
    let session = server.sign_in("audience@example.com").await;
    fund(&server, &session, 20).await;
    let (status, page) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200, "{page}");
    let code = code_in(&server.allow(&session, &page).await);
    // The token endpoint issues tokens for this /mcp only: no token for another resource
    // can be had, so the refusal below is shown with a second deployment instead.
    let elsewhere = "https://elsewhere.example/mcp";
    let (status, refused) = server
        .exchange(&client_id, &code, &verifier(), elsewhere)
        .await;
    assert_eq!(status, 400);
    assert_eq!(refused["error"], "invalid_target");
    let (status, tokens) = server
        .exchange(&client_id, &code, &verifier(), &resource)
        .await;
    assert_eq!(status, 200, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let (status, answer) = mcp_answer(&server, "/mcp", &access).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"points_charged\":5"), "{answer}");

    // Another deployment on the same ledger (its own address, so its own /mcp resource)
    // knows the token and its grant, and refuses it: it was not issued for this /mcp.
    let other = server.beside(&[("MANABI_RUN_PROJECTOR", "false")]).await;
    let (status, answer) = mcp_answer(&other, "/mcp", &access).await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("for another resource"), "{answer}");

    // Pay-per-call MCP takes no bearer token: the call is asked for a payment.
    let (status, answer) = mcp_answer(&server, "/x402/mcp", &access).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"isError\":true"), "{answer}");
    assert!(answer.contains("\"x402Version\":2"), "{answer}");
    assert_eq!(facilitator.verifies(), 0);
    // Nor does the REST API.
    let rest = server.get_with_key("/api/v1/account", &access).await;
    assert_eq!(rest.status(), 401);

    // Revoking the grant's key in the portal stops the token on /mcp.
    let html = server.dashboard(&session).await;
    let revoked = server
        .revoke_key(&session, &csrf_field(&html), &key_id(&html))
        .await;
    assert!(revoked.status().is_success() || revoked.status().is_redirection());
    let (status, answer) = mcp_answer(&server, "/mcp", &access).await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("the grant was revoked"), "{answer}");
}
