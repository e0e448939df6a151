//! OAuth 2.1 for MCP clients (MCP authorization, revisions 2025-06-18 and 2025-11-25):
//! manabi is the authorization server of its own `/mcp`, behind the portal's sign-in.
//!
//! - RFC 8414 metadata at `/.well-known/oauth-authorization-server`; RFC 9728
//!   protected-resource metadata (in `mcp/auth.rs`) names this server.
//! - Clients register themselves (RFC 7591, `POST /oauth/register`, public clients:
//!   `token_endpoint_auth_method` `none`; limited per client address with the sign-in
//!   links' bucket, since each registration is a ledger event) or are named by a client
//!   ID metadata document (an `https` URL as `client_id`, fetched when used: see
//!   [`client_document`] for the bounds on that fetch).
//! - `GET /oauth/authorize`: authorization code with PKCE S256 only; the `resource`
//!   (RFC 8707) must be this `/mcp`. A signed-out person is sent through the portal's
//!   sign-in and comes back; a signed-in one sees a consent page naming the client.
//!   Allowing creates an API key for the client on the person's account (named
//!   `OAuth: <client>`, listed and revocable with their other keys): the grant *is* that
//!   key, so billing, caps and errors are a key's, and revoking it stops the client's
//!   tokens on their next call.
//! - `POST /oauth/token`: the code once (its PKCE verifier must match), then rotating
//!   refresh tokens (each works once); access tokens last an hour and are accepted only
//!   by `/mcp`.
//!
//! Codes and tokens are random secrets kept in the ledger by their SHA-256 only, each on
//! its own stream, so a code or refresh token is spent by an optimistic append that only
//! one request — on any replica — can win.

use axum::Form;
use axum::Json;
use axum::extract::{FromRequest, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine;
use chrono::{Duration, Utc};
use governor::clock::{Clock, DefaultClock};
use manabi_ledger::operator::Operator;
use manabi_ledger::store::{AppendCommand, AppendRejection, ExpectedVersion, NewEvent};
use manabi_ledger::{EventStore, Store, StreamName};
use manabi_schemas::events::{
    EventMetadata, LedgerEvent, OAuthClientRegistered, OAuthCodeIssued, OAuthConsumed,
    OAuthTokenIssued,
};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::session::{LedgerDown, Session, new_secret};
use crate::extract::client_of;
use crate::state::AppState;

/// The one scope: the MCP tools.
pub const SCOPE: &str = "tools:read";
/// The name of an OAuth client's key: this, then the client's name.
pub const KEY_NAME_PREFIX: &str = "OAuth: ";
const ACCESS_PREFIX: &str = "mnb_at_";
const REFRESH_PREFIX: &str = "mnb_rt_";
const ACCESS_MINUTES: i64 = 60;
const REFRESH_DAYS: i64 = 30;
const CODE_MINUTES: i64 = 10;
/// The longest client name shown on the consent page and in the key's name.
const CLIENT_NAME_CHARS_MAX: usize = 100;

fn digest(kind: &str, secret: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_bytes());
    hasher.update(b"\n");
    hasher.update(secret.as_bytes());
    hex::encode(hasher.finalize())
}

fn code_stream(code: &str) -> StreamName {
    StreamName::new(format!("oauth-code-{}", digest("code", code)))
}

fn token_stream(token: &str) -> StreamName {
    StreamName::new(format!("oauth-token-{}", digest("token", token)))
}

fn client_stream(client_id: &str) -> StreamName {
    StreamName::new(format!("oauth-client-{client_id}"))
}

/// The `/mcp` resource tokens are issued for.
pub fn resource(state: &AppState) -> String {
    format!("{}{}", state.settings.base_url, crate::mcp::MCP_PATH)
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut response = (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// 429 in the OAuth error shape, with `Retry-After` in whole seconds (at least one).
fn slow_down(wait: std::time::Duration) -> Response {
    let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    let mut response = oauth_error(
        StatusCode::TOO_MANY_REQUESTS,
        "temporarily_unavailable",
        &format!("too many requests from this address; retry in {seconds} s"),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

fn down(error: impl std::fmt::Display) -> Response {
    tracing::error!(%error, "OAuth could not reach the ledger");
    oauth_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        "the service could not record this just now; retry",
    )
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414).
pub async fn metadata(State(state): State<AppState>) -> Response {
    let base = &state.settings.base_url;
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "scopes_supported": [SCOPE],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": true,
        "service_documentation": format!("{base}/docs"),
    }))
    .into_response()
}

/// A client as the authorization server knows it.
#[derive(Debug, Clone)]
struct Client {
    id: String,
    name: String,
    redirect_uris: Vec<String>,
}

/// A client's name as people are shown it: without control or bidirectional-override
/// characters (which could forge the consent page's text), trimmed, at most
/// [`CLIENT_NAME_CHARS_MAX`] characters; `None` when nothing is left.
fn client_name(raw: &str) -> Option<String> {
    let bidi = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    let kept: String = raw
        .chars()
        .filter(|&c| !c.is_control() && !bidi(c))
        .collect();
    let name: String = kept.trim().chars().take(CLIENT_NAME_CHARS_MAX).collect();
    let name = name.trim_end().to_owned();
    (!name.is_empty()).then_some(name)
}

/// A redirect URI a client may register: `https`, or `http` on a loopback host (native
/// apps, RFC 8252).
fn redirect_uri_allowed(uri: &str) -> bool {
    let Some((scheme, rest)) = uri.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // No user information: `http://localhost:80@elsewhere/` is not a loopback address.
    if authority.contains('@') {
        return false;
    }
    let host = authority;
    // Without the port (`[::1]` keeps its brackets).
    let host = match host.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    match scheme {
        "https" => !host.is_empty() && !uri.contains('#'),
        "http" => matches!(host, "127.0.0.1" | "localhost" | "[::1]") && !uri.contains('#'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_or_loopback() {
        for good in [
            "https://app.example/cb",
            "http://127.0.0.1:9/cb",
            "http://localhost/cb",
            "http://[::1]:8080/cb",
            "http://[::1]/cb",
        ] {
            assert!(redirect_uri_allowed(good), "{good}");
        }
        for bad in [
            "http://app.example/cb",
            "https://app.example/cb#frag",
            "javascript:alert(1)",
            "ftp://127.0.0.1/",
            "http://127.0.0.1.evil.example/cb",
            "http://localhost:80@evil.example/cb",
        ] {
            assert!(!redirect_uri_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn client_names_lose_control_characters_and_are_capped() {
        assert_eq!(
            client_name(" Agent\u{0}\n\u{1b}[31m ").as_deref(),
            Some("Agent[31m")
        );
        assert_eq!(
            client_name("evil\u{202E}gpj.exe").as_deref(),
            Some("evilgpj.exe")
        );
        assert_eq!(client_name("\u{7}\t "), None);
        let long = client_name(&"n".repeat(300)).unwrap();
        assert_eq!(long.chars().count(), CLIENT_NAME_CHARS_MAX);
    }
}

#[derive(Deserialize)]
pub struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
    token_endpoint_auth_method: Option<String>,
    grant_types: Option<Vec<String>>,
    response_types: Option<Vec<String>>,
}

/// `POST /oauth/register` (RFC 7591). Each registration is a ledger event, so a client
/// address gets the sign-in links' budget (`Portal::per_client`), shared with them.
pub async fn register(State(state): State<AppState>, request: axum::extract::Request) -> Response {
    let address = client_of(request.extensions());
    if let Err(refused) = state.portal.per_client.check_key(&address) {
        return slow_down(refused.wait_time_from(DefaultClock::default().now()));
    }
    let Ok(body) = axum::body::Bytes::from_request(request, &state).await else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body could not be read",
        );
    };
    let Ok(registration) = serde_json::from_slice::<Registration>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body must be a JSON client metadata document",
        );
    };
    if registration.redirect_uris.is_empty()
        || !registration
            .redirect_uris
            .iter()
            .all(|uri| redirect_uri_allowed(uri))
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris must be https, or http on a loopback address, without fragments",
        );
    }
    if registration
        .token_endpoint_auth_method
        .as_deref()
        .is_some_and(|method| method != "none")
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "only public clients are registered: token_endpoint_auth_method must be none",
        );
    }
    let grants_ok = registration.grant_types.as_ref().is_none_or(|grants| {
        grants
            .iter()
            .all(|grant| grant == "authorization_code" || grant == "refresh_token")
    });
    let responses_ok = registration
        .response_types
        .as_ref()
        .is_none_or(|types| types.iter().all(|kind| kind == "code"));
    if !grants_ok || !responses_ok {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "only the authorization_code and refresh_token grants (response type code) are served",
        );
    }
    let name = registration
        .client_name
        .as_deref()
        .and_then(client_name)
        .unwrap_or_else(|| "an unnamed MCP client".to_owned());
    let client_id = Uuid::now_v7().to_string();
    let event = LedgerEvent::OAuthClientRegistered(OAuthClientRegistered {
        client_id: client_id.clone(),
        client_name: name.clone(),
        redirect_uris: registration.redirect_uris.clone(),
    });
    let command = AppendCommand::single(
        client_stream(&client_id),
        ExpectedVersion::NoStream,
        vec![NewEvent::new(event, EventMetadata::default(), Utc::now())],
    );
    match state.ledger.store.append(command).await {
        Ok(Ok(_)) => {}
        Ok(Err(rejection)) => return down(rejection),
        Err(error) => return down(error),
    }
    let mut response = (
        StatusCode::CREATED,
        Json(json!({
            "client_id": client_id,
            "client_id_issued_at": Utc::now().timestamp(),
            "client_name": name,
            "redirect_uris": registration.redirect_uris,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": SCOPE,
        })),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Why a client id names no client this server serves.
enum ClientRefusal {
    /// Shown to the person (never sent to the unverified redirect URI).
    Unknown(String),
    Down(String),
}

/// The registered client, or the one its metadata document (an `https` client id)
/// describes.
async fn client(state: &AppState, client_id: &str) -> Result<Client, ClientRefusal> {
    if client_id.starts_with("https://") || client_id.starts_with("http://") {
        let loopback_allowed = state.settings.mcp.client_metadata_loopback_allowed;
        return client_document::client(client_id, loopback_allowed)
            .await
            .map_err(|refused| {
                ClientRefusal::Unknown(format!(
                    "This application's client ID metadata document cannot be used: {refused}."
                ))
            });
    }
    let unknown = || {
        ClientRefusal::Unknown(
            "This application is not registered here (its client_id is unknown).".to_owned(),
        )
    };
    if Uuid::parse_str(client_id).is_err() {
        return Err(unknown());
    }
    let events = state
        .ledger
        .store
        .read_stream(&client_stream(client_id), 0, 1)
        .await
        .map_err(|error| ClientRefusal::Down(error.to_string()))?;
    events
        .into_iter()
        .find_map(|recorded| match recorded.event {
            LedgerEvent::OAuthClientRegistered(registered) => Some(Client {
                id: registered.client_id,
                name: registered.client_name,
                redirect_uris: registered.redirect_uris,
            }),
            _ => None,
        })
        .ok_or_else(unknown)
}

/// The parameters of an authorization request (query of the GET, fields of the POST).
#[derive(Debug, Clone, Deserialize, Default)]
pub struct AuthorizeParams {
    #[serde(default)]
    response_type: String,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    code_challenge: String,
    #[serde(default)]
    code_challenge_method: String,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    resource: Option<String>,
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    decision: String,
}

/// What an authorization request asks, once checked.
struct Checked {
    client: Client,
    redirect_uri: String,
    resource: String,
}

/// Checks the client and redirect URI (an error is shown, never redirected), then the
/// rest (an error is sent back to the client's redirect URI).
async fn check_request(state: &AppState, params: &AuthorizeParams) -> Result<Checked, Response> {
    let client = match client(state, &params.client_id).await {
        Ok(client) => client,
        Err(ClientRefusal::Unknown(why)) => {
            return Err(super::message(
                StatusCode::BAD_REQUEST,
                "Unknown application",
                why,
            ));
        }
        Err(ClientRefusal::Down(error)) => return Err(down(error)),
    };
    if !client.redirect_uris.contains(&params.redirect_uri) {
        return Err(super::message(
            StatusCode::BAD_REQUEST,
            "Wrong return address",
            "This application asked to return to an address it did not register.",
        ));
    }
    let back = |error: &str, description: &str| {
        let mut url = params.redirect_uri.clone();
        url.push(if url.contains('?') { '&' } else { '?' });
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("error", error);
        query.append_pair("error_description", description);
        if let Some(state) = &params.state {
            query.append_pair("state", state);
        }
        url.push_str(&query.finish());
        Redirect::to(&url).into_response()
    };
    if params.response_type != "code" {
        return Err(back(
            "unsupported_response_type",
            "only response_type=code is served",
        ));
    }
    if params.code_challenge_method != "S256" || params.code_challenge.len() < 43 {
        return Err(back(
            "invalid_request",
            "PKCE is required: code_challenge with code_challenge_method=S256",
        ));
    }
    let ours = resource(state);
    let resource = params.resource.clone().unwrap_or_else(|| ours.clone());
    if resource.trim_end_matches('/') != ours {
        return Err(back(
            "invalid_target",
            "tokens are issued only for this server's /mcp resource",
        ));
    }
    if params
        .scope
        .as_deref()
        .is_some_and(|scope| scope.split_whitespace().any(|s| s != SCOPE))
    {
        return Err(back("invalid_scope", "the only scope is tools:read"));
    }
    Ok(Checked {
        redirect_uri: params.redirect_uri.clone(),
        client,
        resource: ours,
    })
}

#[derive(askama::Template)]
#[template(path = "portal/consent.html")]
struct ConsentPage {
    client_name: String,
    client_id: String,
    redirect_host: String,
    email: String,
    csrf: String,
    fields: Vec<(&'static str, String)>,
}

/// `GET /oauth/authorize`: the consent page, or the sign-in first.
pub async fn authorize_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Query(params): Query<AuthorizeParams>,
) -> Response {
    let checked = match check_request(&state, &params).await {
        Ok(checked) => checked,
        Err(response) => return response,
    };
    let session = match super::current_session(&state, &headers).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let Some(session) = session else {
        // Signed out: sign in, then come back here.
        let next = uri
            .path_and_query()
            .map_or("/oauth/authorize", |p| p.as_str());
        return super::sign_in_to_continue(&state, &headers, next);
    };
    consent(&checked, &params, &session)
}

fn consent(checked: &Checked, params: &AuthorizeParams, session: &Session) -> Response {
    let redirect_host = checked
        .redirect_uri
        .split_once("://")
        .map(|(_, rest)| rest.split('/').next().unwrap_or(rest).to_owned())
        .unwrap_or_default();
    let fields = vec![
        ("response_type", params.response_type.clone()),
        ("client_id", params.client_id.clone()),
        ("redirect_uri", params.redirect_uri.clone()),
        ("code_challenge", params.code_challenge.clone()),
        (
            "code_challenge_method",
            params.code_challenge_method.clone(),
        ),
        ("state", params.state.clone().unwrap_or_default()),
        (
            "scope",
            params.scope.clone().unwrap_or_else(|| SCOPE.to_owned()),
        ),
        ("resource", checked.resource.clone()),
    ];
    super::page(
        StatusCode::OK,
        &ConsentPage {
            client_name: checked.client.name.clone(),
            client_id: checked.client.id.clone(),
            redirect_host,
            email: session.email.clone(),
            csrf: session.csrf.clone(),
            fields,
        },
    )
}

/// `POST /oauth/authorize`: the person's decision.
pub async fn decide(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(params): Form<AuthorizeParams>,
) -> Response {
    let session = match super::form_session(&state, &headers, &params.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let checked = match check_request(&state, &params).await {
        Ok(checked) => checked,
        Err(response) => return response,
    };
    let code = if params.decision == "allow" {
        match grant(&state, &session, &checked, &params).await {
            Ok(code) => Some(code),
            Err(response) => return response,
        }
    } else {
        None
    };
    let mut query = form_urlencoded::Serializer::new(String::new());
    match &code {
        Some(code) => {
            query.append_pair("code", code);
        }
        None => {
            query.append_pair("error", "access_denied");
            query.append_pair("error_description", "the person declined");
        }
    }
    if let Some(client_state) = &params.state {
        query.append_pair("state", client_state);
    }
    let separator = if checked.redirect_uri.contains('?') {
        '&'
    } else {
        '?'
    };
    let url = format!("{}{separator}{}", checked.redirect_uri, query.finish());
    Redirect::to(&url).into_response()
}

/// Creates the client's key on the person's account and a code naming it.
async fn grant(
    state: &AppState,
    session: &Session,
    checked: &Checked,
    params: &AuthorizeParams,
) -> Result<String, Response> {
    let operator = Operator::new(&state.ledger.store).acting_as(session.actor());
    let name = format!("{KEY_NAME_PREFIX}{}", checked.client.name);
    let issued = operator
        .issue_key(session.account_id, Some(name), None)
        .await
        .map_err(down)?;
    let code = new_secret();
    let event = LedgerEvent::OAuthCodeIssued(OAuthCodeIssued {
        client_id: checked.client.id.clone(),
        account_id: session.account_id,
        key_id: issued.key_id,
        redirect_uri: checked.redirect_uri.clone(),
        code_challenge: params.code_challenge.clone(),
        resource: checked.resource.clone(),
        scope: SCOPE.to_owned(),
        expires_at: Utc::now() + Duration::minutes(CODE_MINUTES),
    });
    let metadata = EventMetadata {
        actor: Some(session.actor()),
        ..EventMetadata::default()
    };
    let command = AppendCommand::single(
        code_stream(&code),
        ExpectedVersion::NoStream,
        vec![NewEvent::new(event, metadata, Utc::now())],
    );
    match state.ledger.store.append(command).await {
        Ok(Ok(_)) => Ok(code),
        Ok(Err(rejection)) => Err(down(rejection)),
        Err(error) => Err(down(error)),
    }
}

#[derive(Deserialize)]
pub struct TokenRequest {
    #[serde(default)]
    grant_type: String,
    code: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
}

/// `POST /oauth/token`.
pub async fn token(State(state): State<AppState>, Form(request): Form<TokenRequest>) -> Response {
    if let Some(resource) = &request.resource
        && resource.trim_end_matches('/') != self::resource(&state)
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "tokens are issued only for this server's /mcp resource",
        );
    }
    match request.grant_type.as_str() {
        "authorization_code" => exchange_code(&state, &request).await,
        "refresh_token" => refresh(&state, &request).await,
        _ => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant_type is authorization_code or refresh_token",
        ),
    }
}

fn invalid_grant(description: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

/// Reads the single-use record on `stream`: its first event, and whether it was used.
async fn read_once(
    store: &Store,
    stream: &StreamName,
) -> Result<(Option<LedgerEvent>, bool), LedgerDown> {
    let events = store
        .read_stream(stream, 0, 2)
        .await
        .map_err(|error| LedgerDown(error.to_string()))?;
    let used = events.len() > 1;
    Ok((
        events.into_iter().next().map(|recorded| recorded.event),
        used,
    ))
}

/// Spends the record on `stream`; false when another request spent it first.
async fn spend(store: &Store, stream: StreamName) -> Result<bool, LedgerDown> {
    let command = AppendCommand::single(
        stream,
        ExpectedVersion::Exact(0),
        vec![NewEvent::new(
            LedgerEvent::OAuthConsumed(OAuthConsumed {}),
            EventMetadata::default(),
            Utc::now(),
        )],
    );
    match store.append(command).await {
        Ok(Ok(_)) => Ok(true),
        Ok(Err(AppendRejection::WrongVersion { .. })) => Ok(false),
        Ok(Err(rejection)) => Err(LedgerDown(rejection.to_string())),
        Err(error) => Err(LedgerDown(error.to_string())),
    }
}

async fn exchange_code(state: &AppState, request: &TokenRequest) -> Response {
    let (Some(code), Some(verifier)) = (&request.code, &request.code_verifier) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "code and code_verifier are required",
        );
    };
    let store = &state.ledger.store;
    let stream = code_stream(code);
    let (issued, used) = match read_once(store, &stream).await {
        Ok(found) => found,
        Err(error) => return down(error),
    };
    let Some(LedgerEvent::OAuthCodeIssued(issued)) = issued else {
        return invalid_grant("the code is unknown");
    };
    if used {
        // A code presented twice may have been stolen: its grant ends (RFC 9700 §4.2).
        revoke_grant(state, issued.account_id, issued.key_id).await;
        return invalid_grant("the code was already used");
    }
    if issued.expires_at <= Utc::now() {
        return invalid_grant("the code has expired");
    }
    if request.client_id.as_deref() != Some(issued.client_id.as_str()) {
        return invalid_grant("the code was issued to another client");
    }
    if request.redirect_uri.as_deref() != Some(issued.redirect_uri.as_str()) {
        return invalid_grant("redirect_uri differs from the authorization request's");
    }
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    if challenge != issued.code_challenge {
        return invalid_grant("the code_verifier does not match the code_challenge");
    }
    let grant = Grant {
        client_id: &issued.client_id,
        account_id: issued.account_id,
        key_id: issued.key_id,
        resource: &issued.resource,
    };
    spend_then_issue(state, stream, "the code was already used", grant).await
}

async fn refresh(state: &AppState, request: &TokenRequest) -> Response {
    let Some(refresh_token) = &request.refresh_token else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "refresh_token is required",
        );
    };
    let store = &state.ledger.store;
    let stream = token_stream(refresh_token);
    let (issued, used) = match read_once(store, &stream).await {
        Ok(found) => found,
        Err(error) => return down(error),
    };
    let Some(LedgerEvent::OAuthTokenIssued(issued)) =
        issued.filter(|_| refresh_token.starts_with(REFRESH_PREFIX))
    else {
        return invalid_grant("the refresh token is unknown");
    };
    if issued.kind != "refresh" {
        return invalid_grant("the refresh token is unknown");
    }
    if used {
        // A rotated-out refresh token presented again may have been stolen: the grant
        // ends, so neither holder keeps access (RFC 9700 §4.14).
        revoke_grant(state, issued.account_id, issued.key_id).await;
        return invalid_grant("the refresh token was already used (each works once)");
    }
    if issued.expires_at <= Utc::now() {
        return invalid_grant("the refresh token has expired");
    }
    if request
        .client_id
        .as_deref()
        .is_some_and(|client| client != issued.client_id)
    {
        return invalid_grant("the refresh token was issued to another client");
    }
    // A grant whose key was revoked refreshes no more.
    let biller = &state.ledger.biller;
    if biller
        .authenticate_key_id(issued.account_id, issued.key_id)
        .await
        .is_err()
    {
        return invalid_grant("the grant was revoked");
    }
    let grant = Grant {
        client_id: &issued.client_id,
        account_id: issued.account_id,
        key_id: issued.key_id,
        resource: &issued.resource,
    };
    let used = "the refresh token was already used (each works once)";
    spend_then_issue(state, stream, used, grant).await
}

/// Who a code or refresh token was issued to, and for what.
struct Grant<'a> {
    client_id: &'a str,
    account_id: Uuid,
    key_id: Uuid,
    resource: &'a str,
}

/// Spends the code or refresh token on `stream` (`used` says why when another request
/// spent it first), then issues a new access and refresh token pair.
async fn spend_then_issue(
    state: &AppState,
    stream: StreamName,
    used: &str,
    grant: Grant<'_>,
) -> Response {
    match spend(&state.ledger.store, stream).await {
        Ok(true) => {}
        Ok(false) => return invalid_grant(used),
        Err(error) => return down(error),
    }
    issue_tokens(state, grant).await
}

/// Ends a grant by revoking its key; every token of it stops on its next use.
async fn revoke_grant(state: &AppState, account_id: Uuid, key_id: Uuid) {
    let operator = Operator::new(&state.ledger.store).acting_as("oauth:reuse-detected");
    if let Err(error) = operator.revoke_key(key_id).await {
        tracing::warn!(%error, %account_id, "a reused OAuth grant could not be revoked");
    }
}

async fn issue_tokens(state: &AppState, grant: Grant<'_>) -> Response {
    let now = Utc::now();
    let access = format!("{ACCESS_PREFIX}{}", new_secret());
    let refresh = format!("{REFRESH_PREFIX}{}", new_secret());
    let record = |kind: &str, expires_at| {
        LedgerEvent::OAuthTokenIssued(OAuthTokenIssued {
            kind: kind.to_owned(),
            client_id: grant.client_id.to_owned(),
            account_id: grant.account_id,
            key_id: grant.key_id,
            resource: grant.resource.to_owned(),
            scope: SCOPE.to_owned(),
            expires_at,
        })
    };
    let new = |event| NewEvent::new(event, EventMetadata::default(), now);
    let command = AppendCommand {
        appends: vec![
            manabi_ledger::store::StreamAppend {
                stream: token_stream(&access),
                expected: ExpectedVersion::NoStream,
                events: vec![new(record(
                    "access",
                    now + Duration::minutes(ACCESS_MINUTES),
                ))],
            },
            manabi_ledger::store::StreamAppend {
                stream: token_stream(&refresh),
                expected: ExpectedVersion::NoStream,
                events: vec![new(record("refresh", now + Duration::days(REFRESH_DAYS)))],
            },
        ],
    };
    match state.ledger.store.append(command).await {
        Ok(Ok(_)) => {}
        Ok(Err(rejection)) => return down(rejection),
        Err(error) => return down(error),
    }
    let mut response = Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ACCESS_MINUTES * 60,
        "refresh_token": refresh,
        "scope": SCOPE,
    }))
    .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// Whether a bearer credential is an OAuth access token (rather than an API key).
pub fn is_access_token(credential: &str) -> bool {
    credential.starts_with(ACCESS_PREFIX)
}

/// The caller an access token acts as: its grant's key, if the token is live, for this
/// resource, and the key not revoked.
pub async fn access_caller(
    state: &AppState,
    token: &str,
) -> Result<manabi_ledger::Caller, &'static str> {
    let events = state
        .ledger
        .store
        .read_stream(&token_stream(token), 0, 1)
        .await
        .map_err(|_| "the ledger is unavailable")?;
    let Some(LedgerEvent::OAuthTokenIssued(issued)) = events.into_iter().next().map(|r| r.event)
    else {
        return Err("the access token is unknown");
    };
    if issued.kind != "access" {
        return Err("a refresh token is not an access token");
    }
    if issued.expires_at <= Utc::now() {
        return Err("the access token has expired");
    }
    if issued.resource != resource(state) {
        return Err("the access token is for another resource");
    }
    state
        .ledger
        .biller
        .authenticate_key_id(issued.account_id, issued.key_id)
        .await
        .map_err(|_| "the grant was revoked")
}

/// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP
/// authorization 2025-11-25): JSON at the client id's URL, naming itself. Anyone can
/// make the server fetch one with an unauthenticated `GET /oauth/authorize`, so each
/// fetch is bounded: no redirects, no proxy, no internal address (every address the
/// host resolves to is checked, and the connection is pinned to those addresses, so a
/// second DNS answer cannot rebind it), a body cap read in chunks, a timeout; and each
/// outcome is kept a few minutes by URL, so asking again fetches nothing.
mod client_document {
    use std::collections::HashMap;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
    use std::sync::{LazyLock, Mutex};
    use std::time::{Duration, Instant};

    use reqwest::Url;
    use serde_json::Value;

    use super::{Client, client_name, redirect_uri_allowed};
    use crate::portal::capped::{self, Uncapped};

    /// A longer document is refused once this much of it has arrived.
    const DOCUMENT_BYTES_MAX: usize = 64 * 1024;
    /// The whole fetch: resolution, connection, TLS, headers and body.
    const FETCH_TIMEOUT_MS: u64 = 3_000;
    /// How long a fetched document is used without fetching it again.
    const DOCUMENT_CACHE_SECONDS: u64 = 300;
    /// How long a refusal is remembered (shorter: a fixed document is seen soon).
    const REFUSAL_CACHE_SECONDS: u64 = 30;
    /// Outcomes kept; when full, the expired go, then all (a miss only fetches again).
    const CACHED_OUTCOMES_MAX: usize = 1_000;

    /// Why a client id's document is not used; shown on the error page.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    pub enum Refused {
        #[error(
            "the client id must be an https URL with a path, without user information or \
             fragment"
        )]
        NotAUrl,
        #[error("its host is not a public internet address")]
        InternalAddress,
        #[error("its host could not be resolved")]
        Unresolved,
        #[error("the document could not be fetched in time")]
        Unreachable,
        #[error("the document's address answered with a redirect, which is not followed")]
        Redirected,
        #[error("the document's address answered HTTP {0}")]
        Status(u16),
        #[error("the document is larger than 64 KiB")]
        TooLarge,
        #[error("the document is not a JSON object whose client_id is its own address")]
        Invalid,
        #[error("the document asks for client authentication; only public clients are served")]
        NotPublic,
        #[error("the document names no https or loopback redirect URI")]
        NoRedirectUri,
    }

    type Outcome = Result<Client, Refused>;
    /// (loopback allowed, client id): servers of one process may differ in the setting.
    type CacheKey = (bool, String);
    /// Each outcome with the instant it expires.
    type Cache = HashMap<CacheKey, (Instant, Outcome)>;

    /// Process-wide: the portal's state is built elsewhere, and the key carries what
    /// differs between servers.
    static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

    /// The client the document at `client_id` describes, from the cache or fetched.
    pub async fn client(client_id: &str, loopback_allowed: bool) -> Outcome {
        let key = (loopback_allowed, client_id.to_owned());
        if let Some(outcome) = cached(&key) {
            return outcome;
        }
        let outcome = fetch(client_id, loopback_allowed).await;
        remember(key, outcome.clone());
        outcome
    }

    fn cached(key: &CacheKey) -> Option<Outcome> {
        let cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (expires, outcome) = cache.get(key)?;
        (*expires > Instant::now()).then(|| outcome.clone())
    }

    fn remember(key: CacheKey, outcome: Outcome) {
        let seconds = match outcome {
            Ok(_) => DOCUMENT_CACHE_SECONDS,
            Err(_) => REFUSAL_CACHE_SECONDS,
        };
        let now = Instant::now();
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() >= CACHED_OUTCOMES_MAX {
            cache.retain(|_, (expires, _)| *expires > now);
        }
        if cache.len() >= CACHED_OUTCOMES_MAX {
            cache.clear();
        }
        cache.insert(key, (now + Duration::from_secs(seconds), outcome));
        debug_assert!(cache.len() <= CACHED_OUTCOMES_MAX);
    }

    async fn fetch(client_id: &str, loopback_allowed: bool) -> Outcome {
        let url = parse(client_id, loopback_allowed)?;
        let timeout = Duration::from_millis(FETCH_TIMEOUT_MS);
        let addresses = tokio::time::timeout(timeout, resolve(&url, loopback_allowed))
            .await
            .map_err(|_| Refused::Unresolved)??;
        let body = download(&url, &addresses, timeout).await?;
        document(client_id, &url, &body)
    }

    /// An `https` URL with a path (`http` too when loopback is allowed: it is then
    /// checked to be on loopback), without user information or fragment.
    fn parse(client_id: &str, loopback_allowed: bool) -> Result<Url, Refused> {
        let url = Url::parse(client_id).map_err(|_| Refused::NotAUrl)?;
        let scheme_ok = url.scheme() == "https" || (loopback_allowed && url.scheme() == "http");
        let shaped = url.host_str().is_some()
            && url.username().is_empty()
            && url.password().is_none()
            && url.fragment().is_none()
            && url.path() != "/";
        if !scheme_ok || !shaped {
            return Err(Refused::NotAUrl);
        }
        Ok(url)
    }

    /// Every address of the URL's host, all of them allowed.
    async fn resolve(url: &Url, loopback_allowed: bool) -> Result<Vec<SocketAddr>, Refused> {
        let port = url.port_or_known_default().ok_or(Refused::NotAUrl)?;
        let host = url.host_str().ok_or(Refused::NotAUrl)?;
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<SocketAddr> = match literal.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::net::lookup_host((host, port))
                .await
                .map_err(|_| Refused::Unresolved)?
                .collect(),
        };
        if addresses.is_empty() {
            return Err(Refused::Unresolved);
        }
        let allowed = |address: &SocketAddr| address_allowed(address.ip(), loopback_allowed);
        if !addresses.iter().all(allowed) {
            return Err(Refused::InternalAddress);
        }
        let on_loopback = addresses
            .iter()
            .all(|a| a.ip().to_canonical().is_loopback());
        if url.scheme() == "http" && !on_loopback {
            return Err(Refused::NotAUrl);
        }
        Ok(addresses)
    }

    /// Whether the server may connect to `ip` for a document: a public address, or a
    /// loopback one when allowed.
    pub fn address_allowed(ip: IpAddr, loopback_allowed: bool) -> bool {
        match ip.to_canonical() {
            ip if ip.is_loopback() => loopback_allowed,
            IpAddr::V4(ip) => public_v4(ip),
            IpAddr::V6(ip) => public_v6(ip),
        }
    }

    fn public_v4(ip: Ipv4Addr) -> bool {
        let [a, b, c, _] = ip.octets();
        let internal = ip.is_private()
            || ip.is_loopback()
            || ip.is_link_local()
            || ip.is_multicast()
            || ip.is_unspecified()
            || ip.is_broadcast()
            || a == 0 // "this network"
            || (a == 100 && (64..128).contains(&b)) // shared address space (carrier NAT)
            || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
            || (a == 198 && (b == 18 || b == 19)) // benchmarking
            || a >= 240; // reserved
        !internal
    }

    fn public_v6(ip: Ipv6Addr) -> bool {
        let segments = ip.segments();
        // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach an IPv4 address: judge that.
        if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
            let [.., high, low] = segments;
            return public_v4(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low)));
        }
        if segments[0] == 0x2002 {
            return public_v4(Ipv4Addr::from(
                (u32::from(segments[1]) << 16) | u32::from(segments[2]),
            ));
        }
        let internal = ip.is_unspecified()
            || ip.is_loopback()
            || ip.is_multicast()
            || segments[..6] == [0; 6] // IPv4-compatible (deprecated)
            || (segments[0] & 0xfe00) == 0xfc00 // unique local
            || (segments[0] & 0xffc0) == 0xfe80 // link-local
            || (segments[0] & 0xffc0) == 0xfec0; // site-local (deprecated)
        !internal
    }

    /// The body at `url`, from one of `addresses` only, at most [`DOCUMENT_BYTES_MAX`].
    async fn download(
        url: &Url,
        addresses: &[SocketAddr],
        timeout: Duration,
    ) -> Result<Vec<u8>, Refused> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(timeout);
        if let Some(domain) = url.domain() {
            // The connection goes to the addresses checked, never to a new lookup's.
            builder = builder.resolve_to_addrs(domain, addresses);
        }
        let http = builder.build().map_err(|_| Refused::Unreachable)?;
        let response = http
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|_| Refused::Unreachable)?;
        let status = response.status();
        if status.is_redirection() {
            return Err(Refused::Redirected);
        }
        if !status.is_success() {
            return Err(Refused::Status(status.as_u16()));
        }
        capped::body(response, DOCUMENT_BYTES_MAX)
            .await
            .map_err(|uncapped| match uncapped {
                Uncapped::TooLarge => Refused::TooLarge,
                Uncapped::Broken(_) => Refused::Unreachable,
            })
    }

    /// The client a document describes, if it names itself and a usable redirect URI.
    fn document(client_id: &str, url: &Url, body: &[u8]) -> Outcome {
        let document: Value = serde_json::from_slice(body).map_err(|_| Refused::Invalid)?;
        if document["client_id"].as_str() != Some(client_id) {
            return Err(Refused::Invalid);
        }
        let method = document["token_endpoint_auth_method"].as_str();
        if method.is_some_and(|method| method != "none") {
            return Err(Refused::NotPublic);
        }
        let redirect_uris: Vec<String> = document["redirect_uris"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|uri| redirect_uri_allowed(uri))
            .map(str::to_owned)
            .collect();
        if redirect_uris.is_empty() {
            return Err(Refused::NoRedirectUri);
        }
        let name = document["client_name"].as_str().and_then(client_name);
        Ok(Client {
            id: client_id.to_owned(),
            name: name.unwrap_or_else(|| url.host_str().unwrap_or(client_id).to_owned()),
            redirect_uris,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn internal_addresses_are_refused_and_loopback_only_when_allowed() {
            for internal in [
                "10.1.2.3",
                "172.16.0.1",
                "192.168.1.1",
                "169.254.169.254",
                "100.64.0.1",
                "0.0.0.0",
                "224.0.0.1",
                "255.255.255.255",
                "::",
                "fc00::1",
                "fd12:3456::1",
                "fe80::1",
                "ff02::1",
                "::ffff:10.0.0.1",
                "::ffff:169.254.169.254",
                "64:ff9b::a9fe:a9fe",
                "2002:c0a8:0101::1",
            ] {
                let ip: IpAddr = internal.parse().unwrap();
                assert!(!address_allowed(ip, true), "{internal}");
            }
            for loopback in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
                let ip: IpAddr = loopback.parse().unwrap();
                assert!(!address_allowed(ip, false), "{loopback}");
                assert!(address_allowed(ip, true), "{loopback}");
            }
            for public in ["93.184.216.34", "1.1.1.1", "2606:4700::1111"] {
                let ip: IpAddr = public.parse().unwrap();
                assert!(address_allowed(ip, false), "{public}");
            }
        }

        #[test]
        fn client_ids_are_https_urls_with_a_path() {
            assert!(parse("https://app.example/client.json", false).is_ok());
            assert!(parse("http://127.0.0.1:9/client.json", true).is_ok());
            for bad in [
                "http://app.example/client.json",
                "https://app.example/",
                "https://user@app.example/client.json",
                "https://app.example/client.json#x",
                "https:///client.json",
            ] {
                assert_eq!(parse(bad, false).err(), Some(Refused::NotAUrl), "{bad}");
            }
        }

        #[test]
        fn a_document_names_itself_and_a_redirect_uri() {
            let id = "https://app.example/client.json";
            let url = Url::parse(id).unwrap();
            let body = serde_json::json!({"client_id": id, "client_name": "App\u{7}\u{202E}x",
                "redirect_uris": ["http://127.0.0.1:9/cb", "http://app.example/cb"]});
            let client = document(id, &url, body.to_string().as_bytes()).unwrap();
            assert_eq!(client.name, "Appx");
            assert_eq!(client.redirect_uris, ["http://127.0.0.1:9/cb"]);
            let other = serde_json::json!({"client_id": "https://other.example/c",
                "redirect_uris": ["https://app.example/cb"]});
            let refused = document(id, &url, other.to_string().as_bytes());
            assert_eq!(refused.err(), Some(Refused::Invalid));
            let secret = serde_json::json!({"client_id": id, "redirect_uris":
                ["https://app.example/cb"], "token_endpoint_auth_method": "client_secret_basic"});
            let refused = document(id, &url, secret.to_string().as_bytes());
            assert_eq!(refused.err(), Some(Refused::NotPublic));
        }
    }
}
