//! Signing in to the portal through the operator's OpenID Connect provider
//! (`MANABI_OIDC_ISSUER` with a client id and secret): the authorization code flow with
//! PKCE S256, ending in the same account and session as a mailed link
//! ([`session::sign_in_verified`]).
//!
//! - **Start** (`POST /developers/oidc/start`, with the signed-out form token): a random
//!   attempt secret goes into the `manabi_oidc` cookie (`HttpOnly`, 10 minutes), sealed
//!   with an HMAC keyed by a digest of the client secret, so any replica can open it and
//!   nobody without the secret can make one. `state`, `nonce` and the PKCE verifier are
//!   digests of the attempt secret: the provider and the browser's history see `state`,
//!   `nonce` and the challenge, never the verifier.
//! - **Callback** (`GET /developers/oidc/callback`): the cookie's seal and age and
//!   `state` are checked before anything reaches the provider; the code is exchanged at
//!   the token endpoint with the verifier (`client_secret_basic`, or `_post` when the
//!   provider takes only that); the ID token's signature is checked against the
//!   provider's JWKS with an algorithm the provider announces (RSA, ECDSA or EdDSA, never
//!   an HMAC), then `iss`, `aud` (and `azp`), `exp`, `iat` and `nonce`; the email is
//!   taken only when `email_verified` is true. The cookie is cleared either way, so an
//!   attempt is finished once.
//! - The discovery document (which must name the configured issuer) and the JWKS are
//!   kept five minutes; a token naming a key not in the kept set fetches them again,
//!   once. Each fetch: no redirects followed, 3 s, 64 KiB. Endpoints are `https`, or
//!   `http` on a loopback address (a provider on the same machine, as in the tests).

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine;
use hmac::{Hmac, Mac};
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use manabi_ledger::operator::Email;
use reqwest::Url;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::capped::{self, Uncapped};
use super::session::{self, Session};
use super::{CSRF_COOKIE, CsrfForm, cookie, csrf_refused, message, same, set_cookie};
use crate::state::AppState;

/// Where the sign-in page's provider button posts.
pub const START_PATH: &str = "/developers/oidc/start";
/// Where the provider sends the browser back (register `<base>` + this as the redirect
/// URI with the provider).
pub const CALLBACK_PATH: &str = "/developers/oidc/callback";
/// The cookie holding the sealed attempt between start and callback.
const ATTEMPT_COOKIE: &str = "manabi_oidc";
/// How long an attempt may take at the provider.
const ATTEMPT_SECONDS: i64 = 600;
/// The scopes asked for: the ID token, and the email in it.
const SCOPE: &str = "openid email";
/// Each fetch from the provider as a whole (three in a row stay below the request timeout).
const FETCH_TIMEOUT_MS: u64 = 3_000;
/// A larger discovery document, key set or token answer is refused.
const BODY_BYTES_MAX: usize = 64 * 1024;
/// How long the discovery document and key set are used without fetching them again.
const PROVIDER_CACHE_SECONDS: u64 = 300;
/// Clock difference allowed between the provider and this server, for `exp` and `iat`.
const CLOCK_SKEW_SECS: u64 = 60;
/// The longest `error` code of a provider's answer shown on the page.
const ERROR_CODE_CHARS_MAX: usize = 64;
/// The algorithms an ID token may be signed with, if the provider announces them: public
/// keys only (an HMAC would make the client secret a signing key).
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

// ---- settings ---------------------------------------------------------------------

/// The provider as configured: all of issuer, client id and secret, or no provider.
#[derive(Clone)]
pub struct OidcSettings {
    /// Exactly as the provider names itself (`iss`); `https`, or `http` on loopback.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: SecretString,
    /// On the sign-in button: "Sign in with {name}" (default: the issuer's host).
    pub name: String,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"(secret)")
            .field("name", &self.name)
            .finish()
    }
}

/// Why the OpenID Connect options do not make a provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OidcSettingsError {
    #[error(
        "MANABI_OIDC_ISSUER, MANABI_OIDC_CLIENT_ID and MANABI_OIDC_CLIENT_SECRET are set \
         together or not at all; missing: {0}"
    )]
    Partial(String),
    #[error(
        "MANABI_OIDC_ISSUER `{0}` is not an https URL without query or fragment (http is \
         accepted on a loopback address only)"
    )]
    Issuer(String),
}

impl OidcSettings {
    /// The provider of the options (empty values count as unset): `None` without any of
    /// the three, an error with only some of them or an issuer that is not a URL fit for
    /// one.
    pub fn from_options(
        issuer: Option<&str>,
        client_id: Option<&str>,
        client_secret: Option<&SecretString>,
        name: Option<&str>,
    ) -> Result<Option<OidcSettings>, OidcSettingsError> {
        fn given(value: Option<&str>) -> Option<&str> {
            value.map(str::trim).filter(|value| !value.is_empty())
        }
        let issuer = given(issuer);
        let client_id = given(client_id);
        let client_secret = client_secret.filter(|secret| !secret.expose_secret().is_empty());
        let (Some(issuer), Some(client_id), Some(client_secret)) =
            (issuer, client_id, client_secret)
        else {
            let missing: Vec<&str> = [
                (issuer.is_none(), "MANABI_OIDC_ISSUER"),
                (client_id.is_none(), "MANABI_OIDC_CLIENT_ID"),
                (client_secret.is_none(), "MANABI_OIDC_CLIENT_SECRET"),
            ]
            .into_iter()
            .filter_map(|(missing, name)| missing.then_some(name))
            .collect();
            if missing.len() == 3 {
                return Ok(None);
            }
            return Err(OidcSettingsError::Partial(missing.join(", ")));
        };
        let url = Url::parse(issuer)
            .ok()
            .filter(|url| endpoint_allowed(url) && url.query().is_none())
            .ok_or_else(|| OidcSettingsError::Issuer(issuer.to_owned()))?;
        let name = given(name)
            .map(str::to_owned)
            .or_else(|| url.host_str().map(str::to_owned))
            .unwrap_or_else(|| issuer.to_owned());
        Ok(Some(OidcSettings {
            issuer: issuer.to_owned(),
            client_id: client_id.to_owned(),
            client_secret: client_secret.clone(),
            name,
        }))
    }
}

/// Whether the server may talk to `url` as the provider: `https`, or `http` on a
/// loopback address; no user information, no fragment.
fn endpoint_allowed(url: &Url) -> bool {
    let shaped = url.host_str().is_some()
        && url.username().is_empty()
        && url.password().is_none()
        && url.fragment().is_none();
    shaped && (url.scheme() == "https" || (url.scheme() == "http" && on_loopback(url)))
}

fn on_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || literal.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

// ---- the attempt ------------------------------------------------------------------

/// One sign-in through the provider, from the button to the callback.
struct Attempt {
    secret: String,
}

impl Attempt {
    fn new() -> Attempt {
        Attempt {
            secret: session::new_secret(),
        }
    }

    fn state(&self) -> String {
        session::digest(&["oidc-state", &self.secret])
    }

    fn nonce(&self) -> String {
        session::digest(&["oidc-nonce", &self.secret])
    }

    /// 64 hex characters: within PKCE's 43 to 128 unreserved ones.
    fn verifier(&self) -> String {
        session::digest(&["oidc-pkce", &self.secret])
    }

    fn challenge(&self) -> String {
        let hash = Sha256::digest(self.verifier().as_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(hash)
    }

    /// The cookie's value: `{expires}.{secret}.{hmac}`.
    fn sealed(&self, settings: &OidcSettings, expires_at: i64) -> String {
        let body = format!("{expires_at}.{}", self.secret);
        let mut mac = seal(settings);
        mac.update(body.as_bytes());
        format!("{body}.{}", hex::encode(mac.finalize().into_bytes()))
    }

    /// The attempt of a cookie this server sealed, before it expires.
    fn unsealed(settings: &OidcSettings, value: &str, now: i64) -> Option<Attempt> {
        let (body, tag) = value.rsplit_once('.')?;
        let tag = hex::decode(tag).ok()?;
        let mut mac = seal(settings);
        mac.update(body.as_bytes());
        mac.verify_slice(&tag).ok()?;
        let (expires_at, secret) = body.split_once('.')?;
        let expires_at: i64 = expires_at.parse().ok()?;
        (now < expires_at).then(|| Attempt {
            secret: secret.to_owned(),
        })
    }
}

/// The HMAC sealing attempts: keyed by a digest of the client secret, which every
/// replica has and the browser does not.
fn seal(settings: &OidcSettings) -> Hmac<Sha256> {
    let mut key = Sha256::new();
    key.update(b"manabi-oidc-attempt\n");
    key.update(settings.client_secret.expose_secret().as_bytes());
    // HMAC takes a key of any length: this cannot fail.
    Hmac::<Sha256>::new_from_slice(&key.finalize()).expect("an HMAC key")
}

fn redirect_uri(state: &AppState) -> String {
    format!("{}{CALLBACK_PATH}", state.settings.base_url)
}

// ---- the provider -----------------------------------------------------------------

/// What the provider publishes, as used here.
struct Provider {
    authorization_endpoint: Url,
    token_endpoint: Url,
    client_auth: ClientAuth,
    /// [`ALGORITHMS`] the provider announces for ID tokens.
    algorithms: Vec<Algorithm>,
    /// Its signing keys (keys of kinds this crate cannot read are left out).
    keys: Vec<Jwk>,
    fetched: Instant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientAuth {
    /// `client_secret_basic`: the id and secret, form-encoded, in `Authorization: Basic`.
    Basic,
    /// `client_secret_post`: the id and secret in the form.
    Post,
}

/// The provider last fetched, kept [`PROVIDER_CACHE_SECONDS`].
#[derive(Default)]
pub(crate) struct ProviderCache(Mutex<Option<Arc<Provider>>>);

impl ProviderCache {
    fn fresh(&self) -> Option<Arc<Provider>> {
        let kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let max_age = Duration::from_secs(PROVIDER_CACHE_SECONDS);
        kept.clone()
            .filter(|provider| provider.fetched.elapsed() < max_age)
    }

    fn keep(&self, provider: Arc<Provider>) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(provider);
    }
}

/// Why the provider could not be used; logged, while the page says it is unavailable.
#[derive(Debug, thiserror::Error)]
enum ProviderError {
    #[error("{0} could not be reached: {1}")]
    Unreachable(String, String),
    #[error("{0} answered with a redirect, which is not followed")]
    Redirected(String),
    #[error("{0} answered HTTP {1}")]
    Status(String, u16),
    #[error("{0} answered more than 64 KiB")]
    TooLarge(String),
    #[error("{0} answered something else than its JSON document: {1}")]
    Invalid(String, String),
    #[error("the discovery document names the issuer `{0}`, not the configured one")]
    Issuer(String),
    #[error("the provider's endpoint `{0}` is neither https nor http on loopback")]
    Endpoint(String),
    #[error("the provider does not take PKCE S256")]
    NoPkce,
    #[error("the provider takes neither client_secret_basic nor client_secret_post")]
    NoClientAuth,
    #[error("the provider announces no ID token algorithm this server verifies")]
    NoAlgorithm,
    #[error("the token endpoint's answer holds no id_token")]
    NoIdToken,
}

#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    jwks_uri: String,
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    id_token_signing_alg_values_supported: Vec<String>,
    code_challenge_methods_supported: Option<Vec<String>>,
}

/// The provider, kept or fetched (`refetch`: fetched even when one is kept).
async fn provider(
    state: &AppState,
    settings: &OidcSettings,
    refetch: bool,
) -> Result<Arc<Provider>, ProviderError> {
    let cache = &state.portal.oidc;
    if !refetch && let Some(provider) = cache.fresh() {
        return Ok(provider);
    }
    let provider = Arc::new(discover(settings).await?);
    cache.keep(provider.clone());
    Ok(provider)
}

/// `{issuer}/.well-known/openid-configuration` and the key set it names.
async fn discover(settings: &OidcSettings) -> Result<Provider, ProviderError> {
    let http = http_client(settings)?;
    let address = format!(
        "{}/.well-known/openid-configuration",
        settings.issuer.trim_end_matches('/')
    );
    let discovery: Discovery = get_json(&http, &endpoint(&address)?).await?;
    if discovery.issuer != settings.issuer {
        return Err(ProviderError::Issuer(discovery.issuer));
    }
    let methods = discovery.code_challenge_methods_supported.as_deref();
    if methods.is_some_and(|methods| !methods.iter().any(|method| method == "S256")) {
        return Err(ProviderError::NoPkce);
    }
    let algorithms: Vec<Algorithm> = discovery
        .id_token_signing_alg_values_supported
        .iter()
        .filter_map(|name| name.parse::<Algorithm>().ok())
        .filter(|algorithm| ALGORITHMS.contains(algorithm))
        .collect();
    if algorithms.is_empty() {
        return Err(ProviderError::NoAlgorithm);
    }
    let key_set: Value = get_json(&http, &endpoint(&discovery.jwks_uri)?).await?;
    Ok(Provider {
        authorization_endpoint: endpoint(&discovery.authorization_endpoint)?,
        token_endpoint: endpoint(&discovery.token_endpoint)?,
        client_auth: client_auth(discovery.token_endpoint_auth_methods_supported.as_deref())?,
        algorithms,
        keys: signing_keys(&key_set),
        fetched: Instant::now(),
    })
}

fn endpoint(address: &str) -> Result<Url, ProviderError> {
    Url::parse(address)
        .ok()
        .filter(endpoint_allowed)
        .ok_or_else(|| ProviderError::Endpoint(address.to_owned()))
}

/// `client_secret_basic` unless the provider names only `client_secret_post` (no list
/// means basic, OpenID Connect Discovery §3).
fn client_auth(methods: Option<&[String]>) -> Result<ClientAuth, ProviderError> {
    let Some(methods) = methods else {
        return Ok(ClientAuth::Basic);
    };
    let takes = |name: &str| methods.iter().any(|method| method == name);
    if takes("client_secret_basic") {
        Ok(ClientAuth::Basic)
    } else if takes("client_secret_post") {
        Ok(ClientAuth::Post)
    } else {
        Err(ProviderError::NoClientAuth)
    }
}

/// The keys of a JWKS this server can read and that may sign: a key of another kind
/// (or for encryption) is skipped rather than failing the whole set.
fn signing_keys(key_set: &Value) -> Vec<Jwk> {
    let keys = key_set["keys"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    keys.iter()
        .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
        .filter(|key| {
            matches!(
                key.common.public_key_use,
                None | Some(PublicKeyUse::Signature)
            )
        })
        .collect()
}

fn http_client(settings: &OidcSettings) -> Result<reqwest::Client, ProviderError> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_millis(FETCH_TIMEOUT_MS));
    if Url::parse(&settings.issuer).is_ok_and(|url| on_loopback(&url)) {
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|error| ProviderError::Unreachable(settings.issuer.clone(), error.to_string()))
}

async fn get_json<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &Url,
) -> Result<T, ProviderError> {
    let response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| ProviderError::Unreachable(url.to_string(), error.to_string()))?;
    let status = response.status();
    if status.is_redirection() {
        return Err(ProviderError::Redirected(url.to_string()));
    }
    if !status.is_success() {
        return Err(ProviderError::Status(url.to_string(), status.as_u16()));
    }
    let body = body_of(url, response).await?;
    serde_json::from_slice(&body)
        .map_err(|error| ProviderError::Invalid(url.to_string(), error.to_string()))
}

/// The body, at most [`BODY_BYTES_MAX`], read in chunks and stopped past the cap.
async fn body_of(url: &Url, response: reqwest::Response) -> Result<Vec<u8>, ProviderError> {
    capped::body(response, BODY_BYTES_MAX)
        .await
        .map_err(|uncapped| match uncapped {
            Uncapped::TooLarge => ProviderError::TooLarge(url.to_string()),
            Uncapped::Broken(error) => {
                ProviderError::Unreachable(url.to_string(), error.to_string())
            }
        })
}

// ---- handlers ---------------------------------------------------------------------

fn not_configured() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "Sign in",
        "This server has no sign-in provider configured; sign in with an email link.",
    )
}

fn provider_unavailable(settings: &OidcSettings, error: &ProviderError) -> Response {
    tracing::error!(%error, issuer = settings.issuer, "the OpenID Connect provider is unusable");
    message(
        StatusCode::BAD_GATEWAY,
        "Sign-in unavailable",
        format!(
            "{} could not be used just now; you are not signed in. Try again in a moment, or \
             sign in with an email link.",
            settings.name
        ),
    )
}

/// `POST /developers/oidc/start`: off to the provider, the attempt sealed in a cookie.
pub(super) async fn start(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    let Some(settings) = &state.settings.portal.oidc else {
        return not_configured();
    };
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default();
    if !same(&form.csrf, expected) {
        return csrf_refused();
    }
    let provider = match provider(&state, settings, false).await {
        Ok(provider) => provider,
        Err(error) => return provider_unavailable(settings, &error),
    };
    let attempt = Attempt::new();
    let mut url = provider.authorization_endpoint.clone();
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &settings.client_id)
        .append_pair("redirect_uri", &redirect_uri(&state))
        .append_pair("scope", SCOPE)
        .append_pair("state", &attempt.state())
        .append_pair("nonce", &attempt.nonce())
        .append_pair("code_challenge", &attempt.challenge())
        .append_pair("code_challenge_method", "S256");
    let expires_at = chrono::Utc::now().timestamp() + ATTEMPT_SECONDS;
    let mut response = Redirect::to(url.as_str()).into_response();
    let sealed = attempt.sealed(settings, expires_at);
    set_cookie(&mut response, ATTEMPT_COOKIE, &sealed, ATTEMPT_SECONDS);
    response
}

#[derive(Deserialize)]
pub(super) struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider says.
    iss: Option<String>,
    error: Option<String>,
}

/// Why a callback signs nobody in.
#[derive(Debug)]
enum Failure {
    /// The callback is not of an attempt this browser started (no cookie, another
    /// `state`, too late): nothing was sent to the provider.
    Attempt,
    /// The provider answered with an error (`access_denied`, `invalid_grant`, …).
    Refused(String),
    /// The ID token failed a check.
    Token(TokenRefusal),
    Provider(ProviderError),
    Ledger(session::LedgerDown),
}

/// Why an ID token is refused; each shown on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum TokenRefusal {
    #[error("it is not a well-formed ID token")]
    Malformed,
    #[error("it is signed with an algorithm the provider does not announce")]
    Algorithm,
    #[error("it is signed with a key the provider does not publish")]
    UnknownKey,
    #[error("its signature does not match the provider's key")]
    Signature,
    #[error("it was issued by another issuer")]
    Issuer,
    #[error("it is meant for another application (audience)")]
    Audience,
    #[error("it has expired")]
    Expired,
    #[error("it is dated in the future")]
    Future,
    #[error("it does not belong to this sign-in (nonce)")]
    Nonce,
    #[error("it carries no email address")]
    NoEmail,
    #[error("the provider has not verified the email address")]
    Unverified,
}

/// `GET /developers/oidc/callback`: the provider's answer; signed in, or a page saying
/// why not. The attempt's cookie is cleared either way.
pub(super) async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let Some(settings) = &state.settings.portal.oidc else {
        return not_configured();
    };
    let mut response = match finish(&state, settings, &headers, &query).await {
        Ok(session) => super::signed_in_redirect(&state, &headers, &session),
        Err(failure) => failure_page(settings, failure),
    };
    set_cookie(&mut response, ATTEMPT_COOKIE, "", 0);
    response
}

async fn finish(
    state: &AppState,
    settings: &OidcSettings,
    headers: &HeaderMap,
    query: &CallbackQuery,
) -> Result<Session, Failure> {
    let now = chrono::Utc::now().timestamp();
    let attempt = cookie(headers, ATTEMPT_COOKIE)
        .and_then(|value| Attempt::unsealed(settings, value, now))
        .ok_or(Failure::Attempt)?;
    if !same(query.state.as_deref().unwrap_or_default(), &attempt.state()) {
        return Err(Failure::Attempt);
    }
    if query
        .iss
        .as_ref()
        .is_some_and(|iss| *iss != settings.issuer)
    {
        return Err(Failure::Token(TokenRefusal::Issuer));
    }
    if let Some(error) = &query.error {
        return Err(Failure::Refused(error_code(error)));
    }
    let code = query.code.as_deref().ok_or(Failure::Attempt)?;
    let published = provider(state, settings, false)
        .await
        .map_err(Failure::Provider)?;
    let id_token = exchange(state, settings, &published, code, &attempt).await?;
    let nonce = attempt.nonce();
    let mut verified = verify(settings, &published, &id_token, &nonce, now);
    if verified == Err(TokenRefusal::UnknownKey) {
        // The provider may have rotated its keys since they were fetched.
        let refetched = provider(state, settings, true)
            .await
            .map_err(Failure::Provider)?;
        verified = verify(settings, &refetched, &id_token, &nonce, now);
    }
    let email = verified.map_err(Failure::Token)?;
    session::sign_in_verified(&state.ledger.store, &email, &settings.issuer)
        .await
        .map_err(Failure::Ledger)
}

/// A provider's `error` code fit for the page: its first characters of `[A-Za-z0-9_.-]`.
fn error_code(error: &str) -> String {
    error
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_.-".contains(*c))
        .take(ERROR_CODE_CHARS_MAX)
        .collect()
}

fn failure_page(settings: &OidcSettings, failure: Failure) -> Response {
    let name = &settings.name;
    let (status, title, text) = match failure {
        Failure::Attempt => (
            StatusCode::BAD_REQUEST,
            "Sign-in expired",
            format!(
                "This answer from {name} is not for a sign-in started in this browser, or the \
                 sign-in took longer than 10 minutes or was already finished. You are not \
                 signed in; start again."
            ),
        ),
        Failure::Refused(error) => (
            StatusCode::UNAUTHORIZED,
            "Not signed in",
            format!("{name} did not sign you in ({error}). Start again, or use an email link."),
        ),
        Failure::Token(refusal) => {
            tracing::warn!(%refusal, issuer = settings.issuer, "an ID token was refused");
            (
                StatusCode::UNAUTHORIZED,
                "Sign-in refused",
                format!(
                    "The answer from {name} was refused: {refusal}. You are not signed in; \
                     start again, or use an email link."
                ),
            )
        }
        Failure::Provider(error) => return provider_unavailable(settings, &error),
        Failure::Ledger(error) => return super::unavailable(error),
    };
    message(status, title, text)
}

/// The code for the ID token at the token endpoint, with the PKCE verifier.
async fn exchange(
    state: &AppState,
    settings: &OidcSettings,
    provider: &Provider,
    code: &str,
    attempt: &Attempt,
) -> Result<String, Failure> {
    let http = http_client(settings).map_err(Failure::Provider)?;
    let (redirect_uri, verifier) = (redirect_uri(state), attempt.verifier());
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri.as_str()),
        ("code_verifier", verifier.as_str()),
    ];
    let secret = settings.client_secret.expose_secret();
    let mut request = http
        .post(provider.token_endpoint.clone())
        .header(reqwest::header::ACCEPT, "application/json");
    match provider.client_auth {
        // RFC 6749 §2.3.1: each form-encoded before they are joined.
        ClientAuth::Basic => {
            let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect();
            let id: String = encode(&settings.client_id);
            request = request.basic_auth(id, Some(encode(secret)));
        }
        ClientAuth::Post => {
            form.push(("client_id", settings.client_id.as_str()));
            form.push(("client_secret", secret));
        }
    }
    let url = &provider.token_endpoint;
    let unreachable = |error: reqwest::Error| {
        Failure::Provider(ProviderError::Unreachable(
            url.to_string(),
            error.to_string(),
        ))
    };
    let response = request.form(&form).send().await.map_err(unreachable)?;
    let status = response.status();
    let body = body_of(url, response).await.map_err(Failure::Provider)?;
    let answer: Value = serde_json::from_slice(&body).unwrap_or_default();
    if status.is_client_error()
        && let Some(error) = answer["error"].as_str()
    {
        return Err(Failure::Refused(error_code(error)));
    }
    if !status.is_success() {
        let error = ProviderError::Status(url.to_string(), status.as_u16());
        return Err(Failure::Provider(error));
    }
    answer["id_token"]
        .as_str()
        .map(str::to_owned)
        .ok_or(Failure::Provider(ProviderError::NoIdToken))
}

// ---- the ID token -----------------------------------------------------------------

/// The claims read from an ID token beyond those `jsonwebtoken` checks (`exp`, `iss`,
/// `aud`, and `sub` present: the account is the email's, not the subject's).
#[derive(Deserialize)]
struct IdClaims {
    aud: Value,
    azp: Option<String>,
    iat: Option<f64>,
    nonce: Option<String>,
    email: Option<String>,
    /// `true`; the string `"true"` too, as some providers send it.
    email_verified: Option<Value>,
}

/// The verified email of a token the provider signed for this client and attempt.
fn verify(
    settings: &OidcSettings,
    provider: &Provider,
    token: &str,
    nonce: &str,
    now: i64,
) -> Result<Email, TokenRefusal> {
    let header = jsonwebtoken::decode_header(token).map_err(|_| TokenRefusal::Malformed)?;
    if !provider.algorithms.contains(&header.alg) {
        return Err(TokenRefusal::Algorithm);
    }
    let jwk = key_for(&provider.keys, &header).ok_or(TokenRefusal::UnknownKey)?;
    let key = DecodingKey::from_jwk(jwk).map_err(|_| TokenRefusal::UnknownKey)?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[&settings.issuer]);
    validation.set_audience(&[&settings.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.leeway = CLOCK_SKEW_SECS;
    let claims = jsonwebtoken::decode::<IdClaims>(token, &key, &validation)
        .map_err(|error| refusal_of(error.kind()))?
        .claims;
    check_claims(&claims, &settings.client_id, nonce, now)
}

/// The key the token names (`kid`), or the provider's one key for its algorithm when it
/// names none; a key announcing another algorithm is not used.
fn key_for<'a>(keys: &'a [Jwk], header: &jsonwebtoken::Header) -> Option<&'a Jwk> {
    let fits = |key: &&Jwk| {
        key.common
            .key_algorithm
            .is_none_or(|algorithm| algorithm.to_string().parse().ok() == Some(header.alg))
    };
    let mut candidates = keys.iter().filter(fits);
    match &header.kid {
        Some(kid) => candidates.find(|key| key.common.key_id.as_ref() == Some(kid)),
        None => {
            let only = candidates.next();
            if candidates.next().is_some() {
                None
            } else {
                only
            }
        }
    }
}

fn refusal_of(kind: &jsonwebtoken::errors::ErrorKind) -> TokenRefusal {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidKeyFormat
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_) => TokenRefusal::Signature,
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => TokenRefusal::Algorithm,
        ErrorKind::ExpiredSignature => TokenRefusal::Expired,
        ErrorKind::ImmatureSignature => TokenRefusal::Future,
        ErrorKind::InvalidIssuer => TokenRefusal::Issuer,
        ErrorKind::InvalidAudience => TokenRefusal::Audience,
        _ => TokenRefusal::Malformed,
    }
}

/// The checks of OpenID Connect Core §3.1.3.7 the signature check leaves: the nonce of
/// this attempt, `azp` (required with several audiences), `iat` not ahead of the
/// clock, and a verified email.
fn check_claims(
    claims: &IdClaims,
    client_id: &str,
    nonce: &str,
    now: i64,
) -> Result<Email, TokenRefusal> {
    if !same(claims.nonce.as_deref().unwrap_or_default(), nonce) {
        return Err(TokenRefusal::Nonce);
    }
    let several_audiences = claims.aud.as_array().is_some_and(|aud| aud.len() > 1);
    match claims.azp.as_deref() {
        Some(azp) if azp != client_id => return Err(TokenRefusal::Audience),
        None if several_audiences => return Err(TokenRefusal::Audience),
        _ => {}
    }
    let latest = (now + CLOCK_SKEW_SECS as i64) as f64;
    match claims.iat {
        Some(iat) if iat <= latest => {}
        Some(_) => return Err(TokenRefusal::Future),
        None => return Err(TokenRefusal::Malformed),
    }
    let email = claims.email.as_deref().ok_or(TokenRefusal::NoEmail)?;
    let verified = match &claims.email_verified {
        Some(Value::Bool(verified)) => *verified,
        Some(Value::String(verified)) => verified == "true",
        _ => false,
    };
    if !verified {
        return Err(TokenRefusal::Unverified);
    }
    Email::parse(email).map_err(|_| TokenRefusal::NoEmail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> OidcSettings {
        let secret = SecretString::from("s3cret".to_owned());
        OidcSettings::from_options(
            Some("https://id.example.com"),
            Some("manabi"),
            Some(&secret),
            None,
        )
        .expect("valid")
        .expect("configured")
    }

    #[test]
    fn the_three_options_come_together_or_not_at_all() {
        let secret = SecretString::from("s".to_owned());
        let none = OidcSettings::from_options(None, Some(" "), None, Some("Corp"));
        assert!(matches!(none, Ok(None)));
        let partial = OidcSettings::from_options(Some("https://id.example.com"), None, None, None);
        let Err(OidcSettingsError::Partial(missing)) = partial else {
            panic!("a partial set is refused");
        };
        assert_eq!(missing, "MANABI_OIDC_CLIENT_ID, MANABI_OIDC_CLIENT_SECRET");
        let no_secret = OidcSettings::from_options(None, None, Some(&secret), None);
        assert!(matches!(no_secret, Err(OidcSettingsError::Partial(_))));
        assert_eq!(
            settings().name,
            "id.example.com",
            "the issuer's host by default"
        );
    }

    #[test]
    fn http_issuers_are_accepted_on_loopback_only() {
        let secret = SecretString::from("s".to_owned());
        let issuer = |issuer: &str| {
            OidcSettings::from_options(Some(issuer), Some("c"), Some(&secret), None).is_ok()
        };
        assert!(issuer("https://id.example.com/realms/main"));
        assert!(issuer("http://127.0.0.1:8081"));
        assert!(issuer("http://[::1]:8081/"));
        assert!(issuer("http://localhost:8081"));
        assert!(!issuer("http://id.example.com"));
        assert!(!issuer("http://10.0.0.7"));
        assert!(!issuer("https://id.example.com/?tenant=x"));
        assert!(!issuer("https://user:pw@id.example.com"));
        assert!(!issuer("id.example.com"));
    }

    #[test]
    fn an_attempt_is_opened_only_sealed_by_this_secret_and_in_time() {
        let settings = settings();
        let attempt = Attempt::new();
        let sealed = attempt.sealed(&settings, 1_000);
        let opened = Attempt::unsealed(&settings, &sealed, 999).expect("opened");
        assert_eq!(opened.state(), attempt.state());
        assert!(
            Attempt::unsealed(&settings, &sealed, 1_000).is_none(),
            "expired"
        );
        let later = sealed.replacen("1000.", "9000.", 1);
        assert!(
            Attempt::unsealed(&settings, &later, 999).is_none(),
            "tampered"
        );
        let mut other = settings.clone();
        other.client_secret = SecretString::from("another".to_owned());
        assert!(
            Attempt::unsealed(&other, &sealed, 999).is_none(),
            "another key"
        );
        assert_ne!(attempt.state(), attempt.nonce());
        assert_eq!(attempt.verifier().len(), 64);
        assert_eq!(attempt.challenge().len(), 43);
    }

    fn claims(extra: serde_json::Value) -> IdClaims {
        let mut claims = serde_json::json!({
            "sub": "1", "aud": "manabi", "iat": 100, "nonce": "n",
            "email": "dev@example.com", "email_verified": true,
        });
        for (name, value) in extra.as_object().expect("an object") {
            claims[name] = value.clone();
        }
        serde_json::from_value(claims).expect("claims")
    }

    #[test]
    fn the_claims_name_this_attempt_and_a_verified_address() {
        let check = |extra| check_claims(&claims(extra), "manabi", "n", 100);
        let email = check(serde_json::json!({})).expect("accepted");
        assert_eq!(email.as_str(), "dev@example.com");
        let refused = [
            (serde_json::json!({"nonce": "other"}), TokenRefusal::Nonce),
            (serde_json::json!({"nonce": null}), TokenRefusal::Nonce),
            (serde_json::json!({"azp": "else"}), TokenRefusal::Audience),
            (
                serde_json::json!({"aud": ["manabi", "b"]}),
                TokenRefusal::Audience,
            ),
            (serde_json::json!({"iat": 500}), TokenRefusal::Future),
            (
                serde_json::json!({"email_verified": false}),
                TokenRefusal::Unverified,
            ),
            (
                serde_json::json!({"email_verified": null}),
                TokenRefusal::Unverified,
            ),
            (serde_json::json!({"email": null}), TokenRefusal::NoEmail),
        ];
        for (extra, refusal) in refused {
            assert_eq!(check(extra.clone()).err(), Some(refusal), "{extra}");
        }
        let several = serde_json::json!({"aud": ["manabi", "b"], "azp": "manabi"});
        assert!(check(several).is_ok());
        assert!(check(serde_json::json!({"email_verified": "true"})).is_ok());
    }

    #[test]
    fn basic_client_authentication_unless_only_post_is_taken() {
        let list = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        assert_eq!(client_auth(None).ok(), Some(ClientAuth::Basic));
        let both = list(&["client_secret_post", "client_secret_basic"]);
        assert_eq!(client_auth(Some(&both)).ok(), Some(ClientAuth::Basic));
        let post = list(&["client_secret_post"]);
        assert_eq!(client_auth(Some(&post)).ok(), Some(ClientAuth::Post));
        assert!(client_auth(Some(&list(&["private_key_jwt"]))).is_err());
    }

    #[test]
    fn provider_error_codes_are_cut_to_plain_characters() {
        assert_eq!(error_code("access_denied"), "access_denied");
        assert_eq!(error_code("<b>x</b>"), "bxb");
        assert_eq!(error_code(&"a".repeat(500)).len(), ERROR_CODE_CHARS_MAX);
    }
}
