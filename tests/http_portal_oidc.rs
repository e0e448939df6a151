//! Signing in to the portal through an OpenID Connect provider, against the real server
//! and the stand-in provider of `common/oidc.rs` (discovery, a freshly generated key in
//! its JWKS, authorize, token): a browser goes to the provider and back, and lands on
//! the dashboard with a session, on the account an operator made for the address if
//! there is one. Every spoiled answer is refused with a page saying why and opens no
//! session: another nonce, another audience, an expired token, an unverified address, a
//! token signed by a key the provider does not publish, a callback of another attempt.

use std::collections::BTreeMap;

use manabi_tests as common;

use common::ledger::{Backend, TestDb, fresh_db, store};
use common::oidc::{CLIENT_ID, CLIENT_SECRET, ClientAuth, FakeOidc, Signing, Spoil};
use common::portal::{csrf_field, grant_points, location, set_cookies};
use common::{TestApp, spawn_app_with};
use manabi_ledger::{EventStore, Position};
use manabi_schemas::events::LedgerEvent;
use reqwest::header::COOKIE;

const NAME: &str = "Test IdP";

struct Portal {
    app: TestApp,
    idp: FakeOidc,
    db: TestDb,
}

impl Portal {
    async fn start(signing: Signing, auth: ClientAuth) -> Portal {
        let idp = FakeOidc::start(signing, auth).await;
        let db = fresh_db(Backend::Sqlite).await;
        let env = [
            ("MANABI_DATABASE_URL", db.url.as_str()),
            ("MANABI_OIDC_ISSUER", idp.issuer.as_str()),
            ("MANABI_OIDC_CLIENT_ID", CLIENT_ID),
            ("MANABI_OIDC_CLIENT_SECRET", CLIENT_SECRET),
            ("MANABI_OIDC_NAME", NAME),
        ];
        let app = spawn_app_with(&env).await;
        Portal { app, idp, db }
    }

    fn browser(&self) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()
                .expect("client"),
            portal: self.app.address.clone(),
            jar: BTreeMap::new(),
            attempt: None,
        }
    }

    /// Who opened portal sessions, as the ledger recorded them.
    async fn sessions_opened(&self) -> Vec<String> {
        let store = store(&self.db).await;
        let events = store
            .read_all_after(Position::default(), 10_000)
            .await
            .expect("the ledger reads");
        events
            .iter()
            .filter(|recorded| matches!(recorded.event, LedgerEvent::PortalSessionOpened(_)))
            .map(|recorded| recorded.metadata.actor.clone().unwrap_or_default())
            .collect()
    }
}

/// A browser without redirects followed, keeping the portal's cookies (the provider
/// sets none).
struct Browser {
    http: reqwest::Client,
    portal: String,
    jar: BTreeMap<String, String>,
    /// The sealed attempt of the last sign-in started.
    attempt: Option<String>,
}

impl Browser {
    async fn get(&mut self, url: &str) -> reqwest::Response {
        let request = self.http.get(url);
        self.send(url, request).await
    }

    async fn post(&mut self, url: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let request = self.http.post(url).form(form);
        self.send(url, request).await
    }

    async fn send(&mut self, url: &str, mut request: reqwest::RequestBuilder) -> reqwest::Response {
        let ours = url.starts_with(&self.portal);
        if ours && !self.jar.is_empty() {
            let cookies: Vec<String> = self
                .jar
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            request = request.header(COOKIE, cookies.join("; "));
        }
        let response = request.send().await.expect("request sent");
        if ours {
            for (name, value) in set_cookies(&response) {
                if value.is_empty() {
                    self.jar.remove(&name);
                } else {
                    self.jar.insert(name, value);
                }
            }
        }
        response
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.portal)
    }

    /// From the sign-in page's button to the provider and back: the portal's answer to
    /// the callback, whose URL `callback` may change first.
    async fn through_provider(
        &mut self,
        issuer: &str,
        callback: impl FnOnce(String) -> String,
    ) -> reqwest::Response {
        let page = self
            .get(&self.url("/developers"))
            .await
            .text()
            .await
            .unwrap();
        assert!(page.contains(&format!("Sign in with {NAME}")), "{page}");
        let csrf = csrf_field(&page);
        let started = self
            .post(&self.url("/developers/oidc/start"), &[("csrf", &csrf)])
            .await;
        assert_eq!(started.status(), 303);
        self.attempt = self.jar.get("manabi_oidc").cloned();
        assert!(self.attempt.is_some(), "the attempt is sealed in a cookie");
        let authorize = location(&started);
        assert!(authorize.starts_with(&format!("{issuer}/authorize?")));
        for parameter in [
            "code_challenge_method=S256",
            "scope=openid+email",
            "&nonce=",
            "&state=",
        ] {
            assert!(authorize.contains(parameter), "{authorize}");
        }
        assert!(!authorize.contains("code_verifier"));
        let back = self.get(&authorize).await;
        assert_eq!(back.status(), 303, "{}", back.text().await.unwrap());
        let answer = location(&back);
        assert!(answer.starts_with(&self.url("/developers/oidc/callback?")));
        self.get(&callback(answer)).await
    }
}

/// `url` with its `state` replaced.
fn with_state(url: &str, state: &str) -> String {
    let mut url = reqwest::Url::parse(url).expect("a URL");
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(name, value)| {
            let value = if name == "state" {
                state.to_owned()
            } else {
                value.into_owned()
            };
            (name.into_owned(), value)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    url.to_string()
}

#[tokio::test]
async fn a_sign_in_through_the_provider_lands_on_the_dashboard_once() {
    let portal = Portal::start(Signing::Rs256, ClientAuth::Basic).await;
    portal.idp.sign_in_as("Person@Example.com");
    let mut browser = portal.browser();
    let mut callback = String::new();
    let answer = browser
        .through_provider(&portal.idp.issuer, |url| {
            callback = url.clone();
            url
        })
        .await;
    assert_eq!(answer.status(), 303, "{}", answer.text().await.unwrap());
    assert_eq!(location(&answer), "/developers");
    assert!(browser.jar.contains_key("manabi_session"));
    assert!(
        !browser.jar.contains_key("manabi_oidc"),
        "the attempt is over"
    );
    let dashboard = browser.get(&browser.url("/developers")).await;
    assert_eq!(dashboard.status(), 200);
    let html = dashboard.text().await.unwrap();
    assert!(html.contains("Hello, Person@Example.com"), "{html}");
    assert_eq!(
        portal.sessions_opened().await,
        [format!(
            "portal:Person@Example.com via {}",
            portal.idp.issuer
        )],
        "the sign-in is on record, naming the address and the provider"
    );
    // The whole answer again, its attempt's cookie put back (a replay): the code was
    // spent at the provider, so nobody is signed in.
    let attempt = browser.attempt.clone().expect("the attempt's cookie");
    browser.jar.insert("manabi_oidc".to_owned(), attempt);
    browser.jar.remove("manabi_session");
    let replayed = browser.get(&callback).await;
    assert_eq!(replayed.status(), 401);
    assert!(!browser.jar.contains_key("manabi_session"));
    let text = replayed.text().await.unwrap();
    assert!(
        text.contains("did not sign you in (invalid_grant)"),
        "{text}"
    );
    assert_eq!(portal.sessions_opened().await.len(), 1);
}

#[tokio::test]
async fn es256_with_client_secret_post_continues_to_the_chosen_pack() {
    let portal = Portal::start(Signing::Es256, ClientAuth::Post).await;
    portal.idp.sign_in_as("buyer@example.com");
    let mut browser = portal.browser();
    let chosen = browser
        .get(&browser.url("/developers/credits?pack=standard"))
        .await;
    assert_eq!(chosen.status(), 200);
    assert!(browser.jar.contains_key("manabi_next"));
    let answer = browser
        .through_provider(&portal.idp.issuer, |url| url)
        .await;
    assert_eq!(answer.status(), 303, "{}", answer.text().await.unwrap());
    assert_eq!(location(&answer), "/developers/credits?pack=standard");
    assert!(!browser.jar.contains_key("manabi_next"), "used once");
    let html = browser
        .get(&browser.url("/developers/credits?pack=standard"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Hello, buyer@example.com"));
    assert!(html.contains("You chose the standard pack"));
}

/// The portal keeps the provider's keys a few minutes; a token signed with a key
/// published since is checked against the keys fetched again.
#[tokio::test]
async fn a_key_the_provider_rotated_in_is_fetched() {
    let portal = Portal::start(Signing::Es256, ClientAuth::Basic).await;
    let mut browser = portal.browser();
    let first = browser
        .through_provider(&portal.idp.issuer, |url| url)
        .await;
    assert_eq!(first.status(), 303);
    portal.idp.rotate_key();
    let mut browser = portal.browser();
    let second = browser
        .through_provider(&portal.idp.issuer, |url| url)
        .await;
    assert_eq!(second.status(), 303, "{}", second.text().await.unwrap());
    assert_eq!(portal.sessions_opened().await.len(), 2);
}

#[tokio::test]
async fn an_operator_made_account_is_claimed_by_its_email() {
    let portal = Portal::start(Signing::Es256, ClientAuth::Basic).await;
    let made = common::admin(
        &portal.db.url,
        &["account", "create", "--email", "ops@example.com"],
    );
    let account_id = made["account_id"].as_str().unwrap().to_owned();
    grant_points(&portal.db.url, &account_id, 42, "t1");
    portal.idp.sign_in_as("OPS@example.com");
    let mut browser = portal.browser();
    let answer = browser
        .through_provider(&portal.idp.issuer, |url| url)
        .await;
    assert_eq!(answer.status(), 303);
    let html = browser
        .get(&browser.url("/developers"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains(&account_id), "the operator's account");
    assert!(html.contains("42 points"), "with its balance");
}

/// A sign-in whose ID token is spoiled: refused with `status` and a page naming
/// `reason`, no session cookie, no session on record.
async fn refused(spoil: Spoil, reason: &str) {
    let portal = Portal::start(Signing::Es256, ClientAuth::Basic).await;
    portal.idp.spoil(spoil);
    let mut browser = portal.browser();
    let answer = browser
        .through_provider(&portal.idp.issuer, |url| url)
        .await;
    assert_eq!(portal.idp.token_requests(), 1);
    assert_refused(&portal, &mut browser, answer, 401, reason).await;
}

async fn assert_refused(
    portal: &Portal,
    browser: &mut Browser,
    answer: reqwest::Response,
    status: u16,
    reason: &str,
) {
    assert_eq!(answer.status(), status);
    assert_eq!(answer.headers()["cache-control"], "no-store");
    let text = answer.text().await.unwrap();
    assert!(text.contains(reason), "{text}");
    assert!(text.contains("You are not signed in"), "{text}");
    assert!(!browser.jar.contains_key("manabi_session"));
    assert!(
        !browser.jar.contains_key("manabi_oidc"),
        "the attempt is over"
    );
    let page = browser
        .get(&browser.url("/developers"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Email me a sign-in link"), "signed out");
    assert!(
        portal.sessions_opened().await.is_empty(),
        "no session on record"
    );
}

#[tokio::test]
async fn a_token_with_another_nonce_is_refused() {
    refused(Spoil::Nonce, "it does not belong to this sign-in (nonce)").await;
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    refused(
        Spoil::Audience,
        "it is meant for another application (audience)",
    )
    .await;
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    refused(Spoil::Expired, "it has expired").await;
}

#[tokio::test]
async fn an_unverified_address_is_refused() {
    refused(
        Spoil::Unverified,
        "the provider has not verified the email address",
    )
    .await;
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused() {
    refused(Spoil::OtherKey, "its signature does not match").await;
}

#[tokio::test]
async fn an_answer_with_another_state_is_refused_before_reaching_the_provider() {
    let portal = Portal::start(Signing::Es256, ClientAuth::Basic).await;
    let mut browser = portal.browser();
    let answer = browser
        .through_provider(&portal.idp.issuer, |url| with_state(&url, &"0".repeat(64)))
        .await;
    assert_refused(
        &portal,
        &mut browser,
        answer,
        400,
        "is not for a sign-in started in this browser",
    )
    .await;
    assert_eq!(portal.idp.token_requests(), 0, "the code was never sent");
}

#[tokio::test]
async fn without_a_provider_the_sign_in_page_is_unchanged() {
    let app = spawn_app_with(&[]).await;
    let http = reqwest::Client::new();
    let page = http
        .get(format!("{}/developers", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Email me a sign-in link"));
    assert!(
        !page.contains("/developers/oidc/start"),
        "no provider button: {page}"
    );
    let start = http
        .post(format!("{}/developers/oidc/start", app.address))
        .form(&[("csrf", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), 404);
}

/// The real binary refuses to start with part of the provider's settings, or an issuer
/// it would reach over plain http off this machine, and says which.
#[tokio::test]
async fn a_partial_or_plain_http_provider_setting_refuses_to_start() {
    let dir = std::env::temp_dir().join(format!("manabi-oidc-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let artifact = dir.join("artifact.jsonl.zst");
    common::fixture::write_artifact(&artifact);
    let cases: [(&[(&str, &str)], &str); 2] = [
        (
            &[
                ("MANABI_OIDC_ISSUER", "https://id.example.com"),
                ("MANABI_OIDC_CLIENT_ID", CLIENT_ID),
            ],
            "missing: MANABI_OIDC_CLIENT_SECRET",
        ),
        (
            &[
                ("MANABI_OIDC_ISSUER", "http://id.example.com"),
                ("MANABI_OIDC_CLIENT_ID", CLIENT_ID),
                ("MANABI_OIDC_CLIENT_SECRET", CLIENT_SECRET),
            ],
            "http is accepted on a loopback address only",
        ),
    ];
    for (env, said) in cases {
        let mut command = common::serve_command(&dir, &artifact);
        command.envs(env.iter().copied());
        let output = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            tokio::process::Command::from(command).output(),
        )
        .await
        .expect("the server stops by itself")
        .expect("the server ran");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
