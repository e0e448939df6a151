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
use common::ledger::{Backend, TestDb, fresh_db};
use common::smtp::SmtpSink;
use common::x402::FakeFacilitator;
use common::{TestApp, spawn_app_with};
use manabi_ledger::account::Points;
use manabi_ledger::operator::Operator;
use manabi_schemas::events::CreditKind;
use reqwest::header::{COOKIE, LOCATION, RETRY_AFTER, SET_COOKIE};
use serde_json::{Value, json};

const REDIRECT_URI: &str = "http://127.0.0.1:9/cb";
const LOOPBACK_ALLOWED: (&str, &str) = ("MANABI_OAUTH_CLIENT_METADATA_LOOPBACK", "true");

/// A server with the portal's mail going to a sink, and a browser that shows redirects.
struct Server {
    app: TestApp,
    sink: SmtpSink,
    database_url: String,
    /// The database this server made, removed with it (none when it shares another's).
    _db: Option<TestDb>,
    http: reqwest::Client,
}

impl Server {
    async fn start(extra: &[(&str, &str)]) -> Server {
        let db = fresh_db(Backend::Sqlite).await;
        let url = db.url.clone();
        Server::start_on(url, Some(db), extra).await
    }

    /// Another server on `self`'s ledger (its own address, so its own `/mcp` resource).
    async fn beside(&self, extra: &[(&str, &str)]) -> Server {
        Server::start_on(self.database_url.clone(), None, extra).await
    }

    async fn start_on(database_url: String, db: Option<TestDb>, extra: &[(&str, &str)]) -> Server {
        let sink = SmtpSink::start().await;
        let mut env = vec![
            ("MANABI_SMTP_URL", sink.url.as_str()),
            ("MANABI_DATABASE_URL", database_url.as_str()),
            ("MANABI_KEY_RATE_PER_SEC", "0"),
        ];
        env.extend_from_slice(extra);
        let app = spawn_app_with(&env).await;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Server {
            app,
            sink,
            database_url,
            _db: db,
            http,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.app.address)
    }

    /// Signs in by the mailed link, as the portal's form does; the session cookie.
    async fn sign_in(&self, email: &str) -> String {
        let home = self.http.get(self.url("/developers")).send().await.unwrap();
        let csrf = cookie_value(&home, "manabi_csrf").expect("a CSRF cookie");
        let asked = self
            .http
            .post(self.url("/developers/sign-in"))
            .header(COOKIE, format!("manabi_csrf={csrf}"))
            .form(&[("email", email), ("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(asked.status(), 200);
        let link = self.sink.last_link().await;
        let secret = link.rsplit('/').next().expect("a secret");
        let confirmed = self
            .http
            .post(self.url("/developers/sign-in/confirm"))
            .header(COOKIE, format!("manabi_csrf={csrf}"))
            .form(&[("token", secret), ("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(confirmed.status(), 303);
        cookie_value(&confirmed, "manabi_session").expect("a session cookie")
    }

    async fn dashboard(&self, session: &str) -> String {
        let page = self.get_signed_in(session, "/developers").await;
        assert_eq!(page.status(), 200);
        page.text().await.unwrap()
    }

    async fn get_signed_in(&self, session: &str, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .header(COOKIE, format!("manabi_session={session}"))
            .send()
            .await
            .unwrap()
    }

    async fn register(&self, name: &str) -> reqwest::Response {
        let metadata = json!({"client_name": name, "redirect_uris": [REDIRECT_URI]});
        let request = self.http.post(self.url("/oauth/register")).json(&metadata);
        request.send().await.unwrap()
    }

    /// `GET /oauth/authorize` for `client_id` and this server's `/mcp`: status and page.
    async fn authorize(&self, session: Option<&str>, client_id: &str) -> (StatusCode, String) {
        let path = authorize_path(client_id, &format!("{}/mcp", self.app.address));
        let mut request = self.http.get(self.url(&path));
        if let Some(session) = session {
            request = request.header(COOKIE, format!("manabi_session={session}"));
        }
        let response = request.send().await.unwrap();
        (response.status(), response.text().await.unwrap())
    }

    /// Allow on the consent page: the code sent back to the client.
    async fn allow(&self, session: &str, consent_page: &str) -> String {
        let mut form = consent_fields(consent_page);
        form.push(("decision".to_owned(), "allow".to_owned()));
        let allowed = self
            .http
            .post(self.url("/oauth/authorize"))
            .header(COOKIE, format!("manabi_session={session}"))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(allowed.status(), 303);
        let location = allowed.headers()[LOCATION].to_str().unwrap().to_owned();
        let query = location
            .strip_prefix(&format!("{REDIRECT_URI}?"))
            .unwrap_or_else(|| panic!("{location}"));
        form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "code")
            .map(|(_, code)| code.into_owned())
            .expect("a code")
    }

    /// `POST /oauth/token` for a code, asking for `resource`.
    async fn exchange(&self, client_id: &str, code: &str, resource: &str) -> (u16, Value) {
        let response = self
            .http
            .post(self.url("/oauth/token"))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT_URI),
                ("client_id", client_id),
                ("code_verifier", &verifier()),
                ("resource", resource),
            ])
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// A billed `search_learnables` tool call at `path` with `token`.
    async fn mcp_call(&self, path: &str, token: &str) -> (u16, String) {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search_learnables", "arguments": {"query": "taberu"}}});
        let response = self
            .http
            .post(self.url(path))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&request)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }
}

fn cookie_value(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(|value| {
            let (key, value) = value.split(';').next()?.split_once('=')?;
            (key == name).then(|| value.to_owned())
        })
}

fn verifier() -> String {
    "v".repeat(50)
}

fn authorize_path(client_id: &str, resource: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier().as_bytes()));
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("response_type", "code")
        .append_pair("client_id", client_id)
        .append_pair("redirect_uri", REDIRECT_URI)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "xyz")
        .append_pair("resource", resource)
        .finish();
    format!("/oauth/authorize?{query}")
}

/// The hidden fields of the consent form.
fn consent_fields(html: &str) -> Vec<(String, String)> {
    let unescape = |value: &str| {
        value
            .replace("&#x2f;", "/")
            .replace("&#x3a;", ":")
            .replace("&amp;", "&")
    };
    html.split("<input type=\"hidden\" name=\"")
        .skip(1)
        .map(|chunk| {
            let (name, rest) = chunk.split_once('"').unwrap();
            let value = rest.split("value=\"").nth(1).unwrap().split('"').next();
            (name.to_owned(), unescape(value.unwrap()))
        })
        .collect()
}

/// The hidden `csrf` field of a page.
fn csrf_field(html: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).expect("a csrf field") + marker.len();
    html[start..start + 64].to_owned()
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
    let server = Server::start(&[LOOPBACK_ALLOWED]).await;
    let session = server.sign_in("documents@example.com").await;
    let (status, page) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200, "{page}");
    // The name without its control character, cut at 100 characters.
    assert!(page.contains(&shown_name()), "{page}");
    assert!(!page.contains(&format!("{}x", shown_name())));
    let (status, _) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200);
    assert_eq!(documents.hits("/client.json"), 1, "kept, not fetched again");
    let code = server.allow(&session, &page).await;
    let resource = format!("{}/mcp", server.app.address);
    let (status, tokens) = server.exchange(&client_id, &code, &resource).await;
    assert_eq!(status, 200, "{tokens}");
    assert!(server.dashboard(&session).await.contains(&shown_name()));

    // By default nothing on loopback is fetched: not over http, not as an https URL naming
    // a loopback address or a name resolving to one.
    let guarded = Server::start(&[]).await;
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
    let server = Server::start(&[LOOPBACK_ALLOWED]).await;
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
    let server = Server::start(&[]).await;
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
async fn fund(server: &Server, session: &str, points: i64) {
    let html = server.dashboard(session).await;
    let marker = "--account ";
    let start = html.find(marker).expect("the account id") + marker.len();
    let account_id = html[start..start + 36].parse().unwrap();
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
    let server = Server::start(&x402).await;
    let resource = format!("{}/mcp", server.app.address);
    let registered: Value = server.register("Audience").await.json().await.unwrap();
    let client_id = registered["client_id"].as_str().unwrap().to_owned();
    let session = server.sign_in("audience@example.com").await;
    fund(&server, &session, 20).await;
    let (status, page) = server.authorize(Some(&session), &client_id).await;
    assert_eq!(status, 200, "{page}");
    let code = server.allow(&session, &page).await;
    // The token endpoint issues tokens for this /mcp only: no token for another resource
    // can be had, so the refusal below is shown with a second deployment instead.
    let (status, refused) = server
        .exchange(&client_id, &code, "https://elsewhere.example/mcp")
        .await;
    assert_eq!(status, 400);
    assert_eq!(refused["error"], "invalid_target");
    let (status, tokens) = server.exchange(&client_id, &code, &resource).await;
    assert_eq!(status, 200, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let (status, answer) = server.mcp_call("/mcp", &access).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"points_charged\":5"), "{answer}");

    // Another deployment on the same ledger (its own address, so its own /mcp resource)
    // knows the token and its grant, and refuses it: it was not issued for this /mcp.
    let other = server.beside(&[("MANABI_RUN_PROJECTOR", "false")]).await;
    let (status, answer) = other.mcp_call("/mcp", &access).await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("for another resource"), "{answer}");

    // Pay-per-call MCP takes no bearer token: the call is asked for a payment.
    let (status, answer) = server.mcp_call("/x402/mcp", &access).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"isError\":true"), "{answer}");
    assert!(answer.contains("\"x402Version\":2"), "{answer}");
    assert_eq!(facilitator.verifies(), 0);
    // Nor does the REST API.
    let rest = server
        .http
        .get(server.url("/api/v1/account"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 401);

    // Revoking the grant's key in the portal stops the token on /mcp.
    let html = server.dashboard(&session).await;
    let marker = "/developers/keys/";
    let start = html.find(marker).expect("the client's key") + marker.len();
    let key_id = &html[start..start + 36];
    let revoked = server
        .http
        .post(server.url(&format!("/developers/keys/{key_id}/revoke")))
        .header(COOKIE, format!("manabi_session={session}"))
        .form(&[("csrf", csrf_field(&html))])
        .send()
        .await
        .unwrap();
    assert!(revoked.status().is_success() || revoked.status().is_redirection());
    let (status, answer) = server.mcp_call("/mcp", &access).await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("the grant was revoked"), "{answer}");
}
