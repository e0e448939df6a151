//! The developer portal at `/developers`: sign in with a one-time email link (or through
//! the operator's OpenID Connect provider, `oidc.rs`), see the balance, the packs and the
//! usage of the last 30 days, create and revoke API keys. Server-rendered (askama
//! templates compiled into the binary, no script needed but the optional copy button),
//! every asset inline.
//!
//! Security: the session cookie holds a random secret (`HttpOnly`, `Secure`,
//! `SameSite=Lax`), the ledger only its digest (`session.rs`); a new one is made at each
//! sign-in, so a planted cookie is never promoted (no fixation). Every form carries a
//! CSRF token: a signed-in form the session's (derived from the cookie's secret), a
//! signed-out form (sign-in, link confirmation) a double-submit cookie. A link is
//! confirmed with a POST, so a mail scanner fetching it does not use it up. A person
//! sees and changes only their own account: every key action checks the key is theirs.
//! Sign-in links are limited per address and per client. Every action is a ledger
//! event recording its actor (`portal:<email>`; `client:<address>` for a link asked for
//! before anyone is signed in). Logged paths never hold a link's secret
//! ([`path_for_logs`]).

mod capped;
mod mail;
pub mod oauth;
pub mod oidc;
pub mod session;
pub mod stripe;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use governor::{Quota, RateLimiter};
use manabi_ledger::operator::{Email, Operator};
use manabi_ledger::repository::load_account;
use manabi_ledger::{EventStore, Position, Store, StreamName};
use manabi_schemas::events::LedgerEvent;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use uuid::Uuid;

pub use mail::{Delivery, Mailer};
use session::{LinkRefusal, Session};

use crate::extract::client_of;
use crate::state::AppState;

/// Where a mailed sign-in link points: this, then the link's secret.
const SIGN_IN_LINK_PATH: &str = "/developers/sign-in/";
/// The one path under [`SIGN_IN_LINK_PATH`] that carries no secret.
const SIGN_IN_CONFIRM_PATH: &str = "/developers/sign-in/confirm";
/// Where the 402s' `top_up_url` and the packs' `purchase_url` (`?pack=<id>`) lead.
const CREDITS_PATH: &str = "/developers/credits";
const SESSION_COOKIE: &str = "manabi_session";
const CSRF_COOKIE: &str = "manabi_csrf";
/// Where to go after signing in (an OAuth authorization waiting for consent, or the pack
/// a `purchase_url` chose).
const NEXT_COOKIE: &str = "manabi_next";

/// The portal's own state: the mailer, the sign-in limits and what the OpenID Connect
/// provider (if any) last published.
pub struct Portal {
    pub mailer: Mailer,
    oidc: oidc::ProviderCache,
    per_address: RateLimiter<
        String,
        governor::state::keyed::DefaultKeyedStateStore<String>,
        governor::clock::DefaultClock,
    >,
    per_client: RateLimiter<
        IpAddr,
        governor::state::keyed::DefaultKeyedStateStore<IpAddr>,
        governor::clock::DefaultClock,
    >,
}

/// Links an address may be sent at once, then one every three minutes.
const LINKS_PER_ADDRESS: u32 = 5;
/// Links a client may ask for at once, then one every three minutes.
const LINKS_PER_CLIENT: u32 = 20;

impl Portal {
    pub fn new(mailer: Mailer) -> Portal {
        let every = Duration::from_secs(180);
        let quota = |burst: u32| {
            Quota::with_period(every)
                .expect("a non-zero period")
                .allow_burst(NonZeroU32::new(burst).expect("a non-zero burst"))
        };
        Portal {
            mailer,
            oidc: oidc::ProviderCache::default(),
            per_address: RateLimiter::keyed(quota(LINKS_PER_ADDRESS)),
            per_client: RateLimiter::keyed(quota(LINKS_PER_CLIENT)),
        }
    }
}

impl std::fmt::Debug for Portal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Portal")
            .field("mailer", &self.mailer)
            .finish()
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/developers", get(home))
        .route(CREDITS_PATH, get(home))
        .route("/developers/sign-in", post(send_link))
        .route("/developers/sign-in/{token}", get(confirm_page))
        .route(SIGN_IN_CONFIRM_PATH, post(confirm))
        .route(oidc::START_PATH, post(oidc::start))
        .route(oidc::CALLBACK_PATH, get(oidc::callback))
        .route("/developers/sign-out", post(sign_out))
        .route("/developers/sign-out-everywhere", post(sign_out_everywhere))
        .route("/developers/keys", post(create_key))
        .route("/developers/keys/{key_id}/revoke", post(revoke_key))
        .route("/developers/credits/checkout", post(checkout))
        .route("/developers/invoices", get(invoices))
        .route("/developers/statements/{file}", get(statement_csv))
        .route("/stripe/webhook", post(stripe::webhook))
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::metadata),
        )
        .route("/oauth/register", post(oauth::register))
        .route(
            "/oauth/authorize",
            get(oauth::authorize_page).post(oauth::decide),
        )
        .route("/oauth/token", post(oauth::token))
}

/// A request path fit for the logs: the secret of a sign-in link (it signs in until it is
/// used) replaced by `<secret>`. No other route carries a secret in its path: OAuth codes,
/// tokens and PKCE values travel in queries and bodies, which are not logged; key ids,
/// statement months and Stripe's checkout ids are no secrets.
pub fn path_for_logs(path: &str) -> Cow<'_, str> {
    // ASCII lowercase keeps every byte where it was, so `start` indexes `path` too.
    let lowercase = path.to_ascii_lowercase();
    match lowercase.find(SIGN_IN_LINK_PATH) {
        Some(start) if lowercase[start..] != *SIGN_IN_CONFIRM_PATH => {
            Cow::Owned(format!("{}{SIGN_IN_LINK_PATH}<secret>", &path[..start]))
        }
        _ => Cow::Borrowed(path),
    }
}

// ---- pages ------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "portal/signin.html")]
struct SignInPage {
    csrf: String,
    /// Why signing in is asked for (an application waiting, a pack chosen).
    note: Option<String>,
    error: Option<String>,
    console: bool,
    /// The OpenID Connect provider's name on its button, when one is configured.
    oidc_name: Option<String>,
    link_minutes: i64,
    read_jpy: i64,
    search_jpy: i64,
}

#[derive(Template)]
#[template(path = "portal/message.html")]
struct MessagePage {
    title: String,
    message: String,
    error: bool,
    next_url: String,
    next_label: String,
}

#[derive(Template)]
#[template(path = "portal/confirm.html")]
struct ConfirmPage {
    email: String,
    token: String,
    csrf: String,
}

#[derive(Template)]
#[template(path = "portal/key_created.html")]
struct KeyCreatedPage {
    name: Option<String>,
    api_key: String,
    base_url: String,
}

#[derive(Template)]
#[template(path = "portal/dashboard.html")]
struct DashboardPage {
    email: String,
    account_id: Uuid,
    csrf: String,
    notice: Option<String>,
    balance: i64,
    calls_today: u32,
    daily_cap: u32,
    purchases_enabled: bool,
    packs: Vec<PackRow>,
    keys: Vec<KeyRow>,
    usage: Vec<manabi_projector::queries::DayUsage>,
    charts: Vec<Chart>,
    charted_keys_max: usize,
    /// Keys that made calls in the 30 days beyond the [`CHARTED_KEYS_MAX`] charted.
    uncharted_keys: usize,
    months: Vec<String>,
}

struct PackRow {
    id: String,
    points: i64,
    bonus: i64,
    price_jpy: i64,
    /// The pack a `purchase_url` led here for: highlighted, its Buy button focused.
    chosen: bool,
}

struct KeyRow {
    key_id: Uuid,
    name: String,
    created: String,
    expires: String,
    last_used: String,
    calls_today: u32,
    state: &'static str,
    live: bool,
}

/// One bar chart of the last 30 days, laid out here so the template only places
/// rectangles.
struct Chart {
    id: String,
    title: String,
    /// The chart in words (a screen reader's `<desc>`): the total or the levels, the peak.
    desc: String,
    colour: &'static str,
    width: u32,
    height: u32,
    max: i64,
    first_day: String,
    last_day: String,
    bars: Vec<Bar>,
}

struct Bar {
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    label: String,
}

/// A page with the portal's headers: never cached, never framed.
pub(crate) fn page(status: StatusCode, template: &impl Template) -> Response {
    let body = match template.render() {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(%error, "a portal page failed to render");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the page failed to render",
            )
                .into_response();
        }
    };
    let mut response = (status, axum::response::Html(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
             img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

pub(crate) fn message(status: StatusCode, title: &str, text: impl Into<String>) -> Response {
    page(
        status,
        &MessagePage {
            title: title.to_owned(),
            message: text.into(),
            error: status.is_client_error() || status.is_server_error(),
            next_url: "/developers".to_owned(),
            next_label: "Back to the developer page".to_owned(),
        },
    )
}

fn unavailable(error: session::LedgerDown) -> Response {
    tracing::error!(%error, "the portal could not reach the ledger");
    message(
        StatusCode::SERVICE_UNAVAILABLE,
        "Please retry",
        "The service could not record this just now; nothing was changed. Retry in a moment.",
    )
}

// ---- cookies and CSRF -------------------------------------------------------------

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

fn set_cookie(response: &mut Response, name: &str, value: &str, max_age_secs: i64) {
    let text =
        format!("{name}={value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age={max_age_secs}");
    if let Ok(value) = HeaderValue::from_str(&text) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

fn same(a: &str, b: &str) -> bool {
    !a.is_empty() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// The signed-out form token: the one in the cookie, or a new one to set.
fn signed_out_csrf(headers: &HeaderMap) -> (String, bool) {
    match cookie(headers, CSRF_COOKIE) {
        Some(token) if token.len() == 64 => (token.to_owned(), false),
        _ => (session::new_secret(), true),
    }
}

fn with_csrf_cookie(mut response: Response, token: &str, fresh: bool) -> Response {
    if fresh {
        set_cookie(&mut response, CSRF_COOKIE, token, 3600);
    }
    response
}

fn csrf_refused() -> Response {
    message(
        StatusCode::FORBIDDEN,
        "Form expired",
        "This form was not sent from this page (or it is too old). Reload the page and try \
         again.",
    )
}

pub(crate) async fn current_session(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Option<Session>, Response> {
    let Some(secret) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    session::session_of(&state.ledger.store, secret)
        .await
        .map_err(unavailable)
}

/// The session of a signed-in form whose CSRF token matches; else the refusal page.
pub(crate) async fn form_session(
    state: &AppState,
    headers: &HeaderMap,
    csrf: &str,
) -> Result<Session, Response> {
    let Some(session) = current_session(state, headers).await? else {
        return Err(message(
            StatusCode::UNAUTHORIZED,
            "Signed out",
            "Your session has ended. Sign in again to continue.",
        ));
    };
    if !same(csrf, &session.csrf) {
        return Err(csrf_refused());
    }
    Ok(session)
}

// ---- handlers ---------------------------------------------------------------------

#[derive(Deserialize)]
struct HomeQuery {
    notice: Option<String>,
    /// The pack a `purchase_url` names.
    pack: Option<String>,
}

async fn home(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<HomeQuery>,
) -> Response {
    let chosen = query
        .pack
        .as_deref()
        .and_then(|id| pack_on_sale(&state, id));
    match current_session(&state, &headers).await {
        Err(response) => response,
        Ok(Some(session)) => dashboard(&state, &session, query.notice, chosen).await,
        Ok(None) => match chosen {
            Some(pack) => {
                let note = format!("Sign in to buy the {} pack.", pack.id);
                sign_in_then(&state, &headers, note, &pack_path(&pack.id))
            }
            None => sign_in_page(&state, &headers, None, None, StatusCode::OK),
        },
    }
}

fn pack_on_sale<'a>(state: &'a AppState, id: &str) -> Option<&'a crate::settings::PackConfig> {
    state
        .settings
        .credit_packs
        .iter()
        .find(|pack| pack.id == id)
}

/// The credits page with `pack` chosen, as its `purchase_url` names it on this server.
fn pack_path(pack: &str) -> String {
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("pack", pack)
        .finish();
    format!("{CREDITS_PATH}?{query}")
}

/// Whether signing in may end at `next`: an OAuth authorization waiting for consent, or a
/// pack on sale. Nothing else, so the cookie cannot send anyone off this server.
fn may_continue_to(state: &AppState, next: &str) -> bool {
    next.starts_with("/oauth/authorize?")
        || state
            .settings
            .credit_packs
            .iter()
            .any(|pack| next == pack_path(&pack.id))
}

/// The sign-in page, coming back to `next` (a path of this server) once signed in.
pub(crate) fn sign_in_to_continue(state: &AppState, headers: &HeaderMap, next: &str) -> Response {
    let note = "Sign in to continue: an application asks to use manabi for you.".to_owned();
    sign_in_then(state, headers, note, next)
}

fn sign_in_then(state: &AppState, headers: &HeaderMap, note: String, next: &str) -> Response {
    let mut response = sign_in_page(state, headers, Some(note), None, StatusCode::OK);
    let encoded: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
    set_cookie(&mut response, NEXT_COOKIE, &encoded, 1800);
    response
}

fn sign_in_page(
    state: &AppState,
    headers: &HeaderMap,
    note: Option<String>,
    error: Option<String>,
    status: StatusCode,
) -> Response {
    let (csrf, fresh) = signed_out_csrf(headers);
    let prices = state.settings.prices;
    let template = SignInPage {
        csrf: csrf.clone(),
        note,
        error,
        console: matches!(state.portal.mailer, Mailer::Console),
        oidc_name: state
            .settings
            .portal
            .oidc
            .as_ref()
            .map(|oidc| oidc.name.clone()),
        link_minutes: session::LINK_MINUTES,
        read_jpy: prices.read_jpy,
        search_jpy: prices.search_jpy,
    };
    with_csrf_cookie(page(status, &template), &csrf, fresh)
}

#[derive(Deserialize)]
struct SignInForm {
    email: String,
    csrf: String,
}

async fn send_link(
    State(state): State<AppState>,
    headers: HeaderMap,
    request: axum::extract::Request,
) -> Response {
    let client = client_of(request.extensions());
    let Ok(Form(form)) = Form::<SignInForm>::from_request(request, &state).await else {
        return message(
            StatusCode::BAD_REQUEST,
            "Sign in",
            "The form was incomplete.",
        );
    };
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default();
    if !same(&form.csrf, expected) {
        return csrf_refused();
    }
    let Ok(email) = Email::parse(&form.email) else {
        let error = format!("`{}` is not an email address.", form.email.trim());
        return sign_in_page(&state, &headers, None, Some(error), StatusCode::BAD_REQUEST);
    };
    let portal = &state.portal;
    let address = email.as_str().to_lowercase();
    if portal.per_client.check_key(&client).is_err()
        || portal.per_address.check_key(&address).is_err()
    {
        return message(
            StatusCode::TOO_MANY_REQUESTS,
            "Slow down",
            "Too many sign-in links were asked for from here or for this address. Use the \
             last link you received, or wait a few minutes.",
        );
    }
    let secret = match session::issue_link(&state.ledger.store, &email, client).await {
        Ok(secret) => secret,
        Err(error) => return unavailable(error),
    };
    let link = format!("{}{SIGN_IN_LINK_PATH}{secret}", state.settings.base_url);
    match portal.mailer.send_link(email.as_str(), &link).await {
        Ok(Delivery::Mailed) => message(
            StatusCode::OK,
            "Check your inbox",
            format!(
                "We sent a sign-in link to {}. It works once, for {} minutes.",
                email.as_str(),
                session::LINK_MINUTES
            ),
        ),
        Ok(Delivery::Console) => message(
            StatusCode::OK,
            "Link written to the console",
            format!(
                "This server sends no mail: the sign-in link for {} is on the server's console \
                 (its standard output). It works once, for {} minutes.",
                email.as_str(),
                session::LINK_MINUTES
            ),
        ),
        Err(error) => {
            tracing::warn!(%error, "a sign-in link could not be mailed");
            message(
                StatusCode::BAD_GATEWAY,
                "Mail not sent",
                "The sign-in mail could not be sent; try again in a moment.",
            )
        }
    }
}

use axum::extract::FromRequest;

fn link_refused(refusal: LinkRefusal) -> Response {
    let (status, text) = match refusal {
        LinkRefusal::Unknown => (
            StatusCode::NOT_FOUND,
            "This sign-in link is not valid. Ask for a new one.",
        ),
        LinkRefusal::Expired => (
            StatusCode::GONE,
            "This sign-in link has expired (links work for 15 minutes). Ask for a new one.",
        ),
        LinkRefusal::Used => (
            StatusCode::GONE,
            "This sign-in link was already used; each link signs in once. Ask for a new one.",
        ),
    };
    message(status, "Sign-in link", text)
}

async fn confirm_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> Response {
    match session::check_link(&state.ledger.store, &token).await {
        Err(error) => unavailable(error),
        Ok(Err(refusal)) => link_refused(refusal),
        Ok(Ok(email)) => {
            let (csrf, fresh) = signed_out_csrf(&headers);
            let template = ConfirmPage {
                email,
                token,
                csrf: csrf.clone(),
            };
            let response = page(StatusCode::OK, &template);
            with_csrf_cookie(response, &csrf, fresh)
        }
    }
}

#[derive(Deserialize)]
struct ConfirmForm {
    token: String,
    #[serde(default)]
    csrf: String,
}

async fn confirm(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<ConfirmForm>,
) -> Response {
    // The link's secret proves the mailbox; the form token proves the confirmation was
    // sent from our page, so another site cannot sign a visitor into its own account
    // (login CSRF) with a link of its own.
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default();
    if !same(&form.csrf, expected) {
        return csrf_refused();
    }
    let signed_in = session::sign_in(&state.ledger.store, form.token.trim()).await;
    match signed_in {
        Err(error) => unavailable(error),
        Ok(Err(refusal)) => link_refused(refusal),
        Ok(Ok(session)) => signed_in_redirect(&state, &headers, &session),
    }
}

/// The answer to a sign-in (a link's or a provider's): on to where signing in was asked
/// for (`manabi_next`, then cleared) or the dashboard, with the new session's cookie.
fn signed_in_redirect(state: &AppState, headers: &HeaderMap, session: &Session) -> Response {
    let next = cookie(headers, NEXT_COOKIE)
        .and_then(|next| {
            form_urlencoded::parse(format!("n={next}").as_bytes())
                .next()
                .map(|(_, value)| value.into_owned())
        })
        .filter(|next| may_continue_to(state, next));
    let mut response = Redirect::to(next.as_deref().unwrap_or("/developers")).into_response();
    if next.is_some() {
        set_cookie(&mut response, NEXT_COOKIE, "", 0);
    }
    let max_age = session::SESSION_DAYS * 86_400;
    set_cookie(&mut response, SESSION_COOKIE, session.secret(), max_age);
    response
}

/// Back to the sign-in page, the session cookie cleared.
fn signed_out() -> Response {
    let mut response = Redirect::to("/developers").into_response();
    set_cookie(&mut response, SESSION_COOKIE, "", 0);
    response
}

#[derive(Deserialize)]
struct CsrfForm {
    csrf: String,
}

async fn sign_out(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    if let Err(error) = session::close(&state.ledger.store, &session).await {
        return unavailable(error);
    }
    signed_out()
}

/// Ends every session of the address and revokes every OAuth client's key: each is
/// refused on its next request.
async fn sign_out_everywhere(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let store = &state.ledger.store;
    if let Err(error) = session::end_all(store, &session).await {
        return unavailable(error);
    }
    let grants = match grant_keys(store, session.account_id).await {
        Ok(grants) => grants,
        Err(error) => return unavailable(error),
    };
    let operator = Operator::new(store).acting_as(session.actor());
    for key_id in grants {
        if let Err(error) = operator.revoke_key(key_id).await {
            tracing::error!(%error, "signing out everywhere could not revoke a key");
            return unavailable(session::LedgerDown(error.to_string()));
        }
    }
    signed_out()
}

/// Ledger events read at a time while looking for OAuth grants.
const GRANT_PAGE_EVENTS: u32 = 1_000;
/// Events read at most while looking for OAuth grants; a key still unplaced then is
/// taken for a grant (revoked), since leaving a client able to call is the worse mistake.
const GRANT_SCAN_EVENTS_MAX: usize = 1_000_000;

/// The live keys of the account that OAuth grants act as. A grant is the key its
/// `OAuthCodeIssued` names (on the code's own stream, appended just after the key was
/// issued), so the ledger is read from the first candidate's `ApiKeyIssued` on until
/// every candidate is placed. Only keys with the grants' name are candidates: the name
/// narrows the search, the grant's record decides (a person may name a key that way).
async fn grant_keys(
    store: &Store,
    account_id: Uuid,
) -> Result<BTreeSet<Uuid>, session::LedgerDown> {
    let account = load_account(store, account_id)
        .await
        .map_err(session::down)?;
    let mut unplaced: BTreeSet<Uuid> = account
        .keys
        .iter()
        .filter(|(_, key)| !key.revoked)
        .filter(|(_, key)| {
            let name = key.name.as_deref().unwrap_or_default();
            name.starts_with(oauth::KEY_NAME_PREFIX)
        })
        .map(|(key_id, _)| *key_id)
        .collect();
    let mut grants = BTreeSet::new();
    let Some(mut after) = first_issued(store, account_id, &unplaced).await? else {
        return Ok(grants);
    };
    let mut read = 0;
    while !unplaced.is_empty() {
        if read >= GRANT_SCAN_EVENTS_MAX {
            tracing::warn!(
                keys = unplaced.len(),
                "OAuth-named keys taken for grants unread"
            );
            grants.append(&mut unplaced);
            break;
        }
        let page = store
            .read_all_after(after, GRANT_PAGE_EVENTS)
            .await
            .map_err(session::down)?;
        let Some(last) = page.last() else {
            break;
        };
        after = last.position;
        read += page.len();
        for recorded in &page {
            if let LedgerEvent::OAuthCodeIssued(code) = &recorded.event
                && code.account_id == account_id
                && unplaced.remove(&code.key_id)
            {
                grants.insert(code.key_id);
            }
        }
    }
    Ok(grants)
}

/// Where the first of `keys` was issued in the ledger's global order.
async fn first_issued(
    store: &Store,
    account_id: Uuid,
    keys: &BTreeSet<Uuid>,
) -> Result<Option<Position>, session::LedgerDown> {
    if keys.is_empty() {
        return Ok(None);
    }
    let stream = StreamName::account(account_id);
    let mut version = 0;
    loop {
        let page = store
            .read_stream(&stream, version, GRANT_PAGE_EVENTS)
            .await
            .map_err(session::down)?;
        let Some(last) = page.last() else {
            return Ok(None);
        };
        version = last.version + 1;
        let issued = page.iter().find(|recorded| {
            matches!(&recorded.event, LedgerEvent::ApiKeyIssued(key) if keys.contains(&key.key_id))
        });
        if let Some(issued) = issued {
            return Ok(Some(issued.position));
        }
    }
}

#[derive(Deserialize)]
struct KeyForm {
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    expires_in_days: String,
}

async fn create_key(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<KeyForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let name = Some(form.name.trim().to_owned()).filter(|name| !name.is_empty());
    if name.as_ref().is_some_and(|name| name.chars().count() > 80) {
        return message(
            StatusCode::BAD_REQUEST,
            "Key name",
            "A key name has at most 80 characters.",
        );
    }
    let days = form.expires_in_days.trim();
    let expires_at = if days.is_empty() {
        None
    } else {
        match days.parse::<i64>() {
            Ok(days) if (1..=3650).contains(&days) => {
                Some(chrono::Utc::now() + chrono::Duration::days(days))
            }
            _ => {
                return message(
                    StatusCode::BAD_REQUEST,
                    "Key expiry",
                    "The expiry is a number of days from 1 to 3650, or empty for none.",
                );
            }
        }
    };
    let operator = Operator::new(&state.ledger.store).acting_as(session.actor());
    match operator
        .issue_key(session.account_id, name.clone(), expires_at)
        .await
    {
        Ok(issued) => page(
            StatusCode::OK,
            &KeyCreatedPage {
                name,
                api_key: secrecy::ExposeSecret::expose_secret(&issued.api_key).to_owned(),
                base_url: state.settings.base_url.clone(),
            },
        ),
        Err(error) => {
            tracing::error!(%error, "the portal could not issue a key");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Please retry",
                "The key could not be created just now; nothing was changed.",
            )
        }
    }
}

async fn revoke_key(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let not_yours = || {
        message(
            StatusCode::NOT_FOUND,
            "No such key",
            "Your account has no key with this id.",
        )
    };
    let Ok(key_id) = key_id.parse::<Uuid>() else {
        return not_yours();
    };
    let account = match load_account(&state.ledger.store, session.account_id).await {
        Ok(account) => account,
        Err(error) => return unavailable(session::LedgerDown(error.to_string())),
    };
    if !account.keys.contains_key(&key_id) {
        return not_yours();
    }
    let operator = Operator::new(&state.ledger.store).acting_as(session.actor());
    match operator.revoke_key(key_id).await {
        Ok(_) => Redirect::to("/developers?notice=revoked").into_response(),
        Err(error) => {
            tracing::error!(%error, "the portal could not revoke a key");
            message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Please retry",
                "The key could not be revoked just now; nothing was changed.",
            )
        }
    }
}

/// Invoice lines per page.
const LINES_PER_PAGE: u32 = 50;

#[derive(Template)]
#[template(path = "portal/invoices.html")]
struct InvoicesPage {
    month: String,
    months: Vec<String>,
    lines: Vec<manabi_projector::queries::ChargeLine>,
    next: Option<String>,
    has_cursor: bool,
    page_size: u32,
}

#[derive(Deserialize)]
struct InvoicesQuery {
    month: Option<String>,
    after: Option<String>,
}

/// The last `count` months, newest first.
fn recent_months(count: u32) -> Vec<String> {
    let mut month = chrono::Utc::now()
        .date_naive()
        .with_day(1)
        .unwrap_or_default();
    let mut out = Vec::new();
    for _ in 0..count {
        out.push(month.format("%Y-%m").to_string());
        month = (month - chrono::Duration::days(1))
            .with_day(1)
            .unwrap_or(month);
    }
    out
}

use chrono::Datelike;

async fn signed_in(state: &AppState, headers: &HeaderMap) -> Result<Session, Response> {
    match current_session(state, headers).await? {
        Some(session) => Ok(session),
        None => Err(Redirect::to("/developers").into_response()),
    }
}

/// `GET /developers/invoices?month=YYYY-MM[&after=<at>|<id>]`: a month's invoice lines,
/// oldest first, a page at a time.
async fn invoices(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<InvoicesQuery>,
) -> Response {
    let session = match signed_in(&state, &headers).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let months = recent_months(12);
    let month_text = query.month.unwrap_or_else(|| months[0].clone());
    let Ok(month) = manabi_projector::queries::Month::parse(&month_text) else {
        return message(
            StatusCode::BAD_REQUEST,
            "Invoice lines",
            "The month is YYYY-MM.",
        );
    };
    let first = chrono::NaiveDate::parse_from_str(&format!("{}-01", month.as_text()), "%Y-%m-%d")
        .unwrap_or_default();
    let last = first
        .checked_add_months(chrono::Months::new(1))
        .map_or(first, |next| next - chrono::Duration::days(1));
    let after = query
        .after
        .as_deref()
        .and_then(|cursor| cursor.split_once('|'))
        .map(|(at, id)| (at.to_owned(), id.to_owned()));
    let has_cursor = after.is_some();
    let lines = match manabi_projector::queries::charges_page(
        &state.ledger.store,
        session.account_id,
        first,
        last,
        after,
        LINES_PER_PAGE,
    )
    .await
    {
        Ok(lines) => lines,
        Err(error) => return unavailable(session::LedgerDown(error.to_string())),
    };
    let next = (lines.len() == LINES_PER_PAGE as usize)
        .then(|| lines.last())
        .flatten()
        .map(|line| {
            let cursor = format!("{}|{}", line.charged_at, line.invoice_id);
            let cursor: String = form_urlencoded::byte_serialize(cursor.as_bytes()).collect();
            format!(
                "/developers/invoices?month={}&after={cursor}",
                month.as_text()
            )
        });
    page(
        StatusCode::OK,
        &InvoicesPage {
            month: month.as_text(),
            months,
            lines,
            next,
            has_cursor,
            page_size: LINES_PER_PAGE,
        },
    )
}

/// `GET /developers/statements/YYYY-MM.csv`: the month's statement to download.
async fn statement_csv(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(file): Path<String>,
) -> Response {
    let session = match signed_in(&state, &headers).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let month = file
        .strip_suffix(".csv")
        .and_then(|month| manabi_projector::queries::Month::parse(month).ok());
    let Some(month) = month else {
        return message(
            StatusCode::NOT_FOUND,
            "Statement",
            "Statements are at YYYY-MM.csv.",
        );
    };
    let statement = match manabi_projector::queries::monthly_statement(
        &state.ledger.store,
        session.account_id,
        month,
    )
    .await
    {
        Ok(statement) => statement,
        Err(error) => return unavailable(session::LedgerDown(error.to_string())),
    };
    let csv = manabi_projector::queries::statement_csv(&statement);
    let disposition = format!(
        "attachment; filename=\"manabi-statement-{}.csv\"",
        month.as_text()
    );
    let mut response = (StatusCode::OK, csv).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

#[derive(Deserialize)]
struct CheckoutForm {
    csrf: String,
    pack: String,
}

async fn checkout(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<CheckoutForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(response) => return response,
    };
    let Some(stripe) = &state.settings.portal.stripe else {
        return message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Purchases disabled",
            "Card payments are not enabled on this server; an operator grants points.",
        );
    };
    let packs = &state.settings.credit_packs;
    let Some(pack) = packs.iter().find(|pack| pack.id == form.pack) else {
        return message(
            StatusCode::NOT_FOUND,
            "No such pack",
            "This pack is not on sale.",
        );
    };
    match stripe::start_checkout(&state, stripe, session.account_id, &session.email, pack).await {
        Ok(checkout) => {
            tracing::info!(session = checkout.id, pack = pack.id, "a checkout started");
            Redirect::to(&checkout.url).into_response()
        }
        Err(error) => {
            tracing::error!(%error, "a checkout could not start");
            message(
                StatusCode::BAD_GATEWAY,
                "Payment unavailable",
                "The payment page could not be opened just now; nothing was charged. Try again \
                 in a moment.",
            )
        }
    }
}

/// The signed-in page; `chosen` is the pack a `purchase_url` led here for.
async fn dashboard(
    state: &AppState,
    session: &Session,
    notice: Option<String>,
    chosen: Option<&crate::settings::PackConfig>,
) -> Response {
    let store = &state.ledger.store;
    let account = match load_account(store, session.account_id).await {
        Ok(account) => account,
        Err(error) => return unavailable(session::LedgerDown(error.to_string())),
    };
    let today = chrono::Utc::now().date_naive();
    let from = today - chrono::Duration::days(29);
    let usage = manabi_projector::queries::daily_usage(
        store,
        account.id,
        &from.format("%Y-%m-%d").to_string(),
    )
    .await
    .unwrap_or_default();
    let issued = manabi_projector::queries::keys_of(store, account.id)
        .await
        .unwrap_or_default();
    let from_text = from.format("%Y-%m-%d").to_string();
    let credits = manabi_projector::queries::daily_credits(store, account.id, &from_text)
        .await
        .unwrap_or_default();
    let mut key_usage: Vec<(String, Vec<manabi_projector::queries::DayUsage>)> =
        manabi_projector::queries::daily_key_usage(store, account.id, &from_text)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|(key_id, rows)| {
                let name = key_id
                    .parse::<Uuid>()
                    .ok()
                    .and_then(|id| account.keys.get(&id))
                    .and_then(|key| key.name.clone())
                    .unwrap_or_else(|| "(unnamed)".to_owned());
                (name, rows)
            })
            .collect();
    // The busiest keys first: those are the ones charted.
    key_usage.sort_by_key(|(_, rows)| {
        let calls: i64 = rows.iter().map(|row| row.calls).sum();
        let points: i64 = rows.iter().map(|row| row.points).sum();
        std::cmp::Reverse((calls, points))
    });
    let uncharted_keys = key_usage.len().saturating_sub(CHARTED_KEYS_MAX);
    let counted_today = account.usage.day == Some(today);
    let keys = account
        .keys
        .iter()
        .rev()
        .map(|(key_id, key)| {
            let known = issued.iter().find(|row| row.key_id == key_id.to_string());
            let expired = key.expires_at.is_some_and(|at| at <= chrono::Utc::now());
            KeyRow {
                key_id: *key_id,
                name: key.name.clone().unwrap_or_else(|| "(unnamed)".to_owned()),
                created: known.map_or_else(
                    || "just now".to_owned(),
                    |row| row.issued_at.chars().take(10).collect(),
                ),
                expires: key.expires_at.map_or_else(
                    || "never".to_owned(),
                    |at| at.format("%Y-%m-%d").to_string(),
                ),
                last_used: known
                    .and_then(|row| row.last_used.clone())
                    .unwrap_or_else(|| "never".to_owned()),
                calls_today: if counted_today {
                    account.usage.key_calls.get(key_id).copied().unwrap_or(0)
                } else {
                    0
                },
                state: if key.revoked {
                    "revoked"
                } else if expired {
                    "expired"
                } else {
                    "active"
                },
                live: !key.revoked && !expired,
            }
        })
        .collect();
    let notice = notice.and_then(|notice| match notice.as_str() {
        "revoked" => Some("The key is revoked: its next call is refused.".to_owned()),
        "paid" => Some(
            "Thank you: the points are credited as soon as Stripe confirms the payment \
             (usually within seconds; reload to see them)."
                .to_owned(),
        ),
        "cancelled" => Some("The purchase was cancelled; nothing was charged.".to_owned()),
        _ => None,
    });
    let notice = notice.or_else(|| chosen.map(chosen_notice));
    let packs = state
        .settings
        .credit_packs
        .iter()
        .map(|pack| PackRow {
            id: pack.id.clone(),
            points: pack.points,
            bonus: pack.bonus,
            price_jpy: pack.price_jpy,
            chosen: chosen.is_some_and(|chosen| chosen.id == pack.id),
        })
        .collect();
    page(
        StatusCode::OK,
        &DashboardPage {
            email: session.email.clone(),
            account_id: account.id,
            csrf: session.csrf.clone(),
            notice,
            balance: account.balance,
            calls_today: if counted_today {
                account.usage.account_calls
            } else {
                0
            },
            daily_cap: account.daily_calls_cap,
            purchases_enabled: state.settings.portal.stripe.is_some(),
            packs,
            keys,
            charts: charts(from, account.balance, &usage, &credits, &key_usage),
            charted_keys_max: CHARTED_KEYS_MAX,
            uncharted_keys,
            usage,
            months: recent_months(3),
        },
    )
}

fn chosen_notice(pack: &crate::settings::PackConfig) -> String {
    let bonus = if pack.bonus > 0 {
        format!(" (+{} bonus)", pack.bonus)
    } else {
        String::new()
    };
    format!(
        "You chose the {} pack: {} points{bonus} for ¥{}. Buy it below.",
        pack.id, pack.points, pack.price_jpy
    )
}

/// Keys charted at most, each with two charts (calls and points per day): the keys that
/// made the most calls in the 30 days. Ten keys are twenty charts of thirty bars under
/// the account's three, as long as the page stays readable (and quick to render on a
/// phone); the page says how many more keys made calls.
const CHARTED_KEYS_MAX: usize = 10;

/// What a chart's bars measure, for its description.
#[derive(Clone, Copy)]
enum Measure {
    /// A count per day (calls, points spent): described by its total and busiest day.
    PerDay,
    /// A level at the end of each day (the balance): described by its first and last.
    EndOfDay,
}

/// 30 bars, one per day from `from`, scaled to the largest value; `value` gives a day's
/// value (by `YYYY-MM-DD`), `unit` names it in the bars' titles.
fn chart(
    id: String,
    title: String,
    colour: &'static str,
    from: chrono::NaiveDate,
    value: impl Fn(&str) -> i64,
    (unit, measure): (&str, Measure),
) -> Chart {
    const BAR: u32 = 18;
    const GAP: u32 = 4;
    const PLOT: u32 = 120;
    let days: Vec<String> = (0..30)
        .map(|n| {
            (from + chrono::Duration::days(n))
                .format("%Y-%m-%d")
                .to_string()
        })
        .collect();
    let values: Vec<i64> = days.iter().map(|day| value(day).max(0)).collect();
    let max = values.iter().copied().max().unwrap_or(0);
    let desc = describe(&days, &values, unit, measure);
    let bars = days
        .into_iter()
        .zip(values)
        .zip(0u32..)
        .map(|((day, value), n)| {
            let height = if max == 0 {
                0
            } else {
                u32::try_from(value * i64::from(PLOT) / max)
                    .unwrap_or(PLOT)
                    .max(u32::from(value > 0))
            };
            Bar {
                x: n * (BAR + GAP),
                y: PLOT - height,
                width: BAR,
                height,
                label: format!("{day}: {value} {unit}"),
            }
        })
        .collect();
    Chart {
        id,
        title,
        desc,
        colour,
        width: 30 * (BAR + GAP),
        height: PLOT + 16,
        max,
        first_day: from.format("%m-%d").to_string(),
        last_day: (from + chrono::Duration::days(29))
            .format("%m-%d")
            .to_string(),
        bars,
    }
}

/// A chart in one sentence, for those who cannot see its bars.
fn describe(days: &[String], values: &[i64], unit: &str, measure: Measure) -> String {
    let (Some(first), Some(last)) = (days.first(), days.last()) else {
        return String::new();
    };
    let peak = values
        .iter()
        .zip(days)
        .max_by_key(|(value, _)| **value)
        .filter(|(value, _)| **value > 0);
    match measure {
        Measure::PerDay => match peak {
            None => format!("No {unit} from {first} to {last}."),
            Some((max, day)) => format!(
                "{} {unit} from {first} to {last}; the most in one day: {max}, on {day}.",
                values.iter().sum::<i64>()
            ),
        },
        Measure::EndOfDay => format!(
            "{} {unit} at the end of {first}, {} at the end of {last}; the most: {}.",
            values.first().copied().unwrap_or(0),
            values.last().copied().unwrap_or(0),
            peak.map_or(0, |(max, _)| *max),
        ),
    }
}

/// The usage charts: calls and points per day, the balance at the end of each day
/// (walked back from today's balance through the credits and charges of each day), and
/// calls and points per day of the [`CHARTED_KEYS_MAX`] first `keys` (busiest first).
fn charts(
    from: chrono::NaiveDate,
    balance: i64,
    usage: &[manabi_projector::queries::DayUsage],
    credits: &[manabi_projector::queries::DayUsage],
    keys: &[(String, Vec<manabi_projector::queries::DayUsage>)],
) -> Vec<Chart> {
    let on = |rows: &[manabi_projector::queries::DayUsage], day: &str, points: bool| {
        rows.iter()
            .find(|row| row.day == day)
            .map_or(0, |row| if points { row.points } else { row.calls })
    };
    const CALLS: (&str, Measure) = ("calls", Measure::PerDay);
    const POINTS: (&str, Measure) = ("points", Measure::PerDay);
    const CALLS_COLOUR: &str = "#0b57d0";
    const POINTS_COLOUR: &str = "#7a3cc2";
    let mut charts = vec![
        chart(
            "calls".to_owned(),
            "Calls per day".to_owned(),
            CALLS_COLOUR,
            from,
            |day| on(usage, day, false),
            CALLS,
        ),
        chart(
            "points".to_owned(),
            "Points spent per day".to_owned(),
            POINTS_COLOUR,
            from,
            |day| on(usage, day, true),
            POINTS,
        ),
    ];
    // The balance at the end of `day`: today's, minus what came in after it, plus what
    // was spent after it.
    let end_of = |day: &str| {
        let after = |rows: &[manabi_projector::queries::DayUsage]| -> i64 {
            rows.iter()
                .filter(|row| row.day.as_str() > day)
                .map(|row| row.points)
                .sum()
        };
        balance - after(credits) + after(usage)
    };
    charts.push(chart(
        "balance".to_owned(),
        "Balance at the end of each day".to_owned(),
        "#1e7b34",
        from,
        end_of,
        ("points", Measure::EndOfDay),
    ));
    for (n, (name, rows)) in keys.iter().take(CHARTED_KEYS_MAX).enumerate() {
        charts.push(chart(
            format!("key{n}-calls"),
            format!("Calls per day with the key “{name}”"),
            CALLS_COLOUR,
            from,
            |day| on(rows, day, false),
            CALLS,
        ));
        charts.push(chart(
            format!("key{n}-points"),
            format!("Points spent per day with the key “{name}”"),
            POINTS_COLOUR,
            from,
            |day| on(rows, day, true),
            POINTS,
        ));
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sign_in_links_secret_never_reaches_the_logs() {
        let secret = "ab".repeat(32);
        let link = format!("/developers/sign-in/{secret}");
        assert_eq!(path_for_logs(&link), "/developers/sign-in/<secret>");
        let odd = [
            format!("/DEVELOPERS/Sign-In/{secret}"),
            format!("/developers/sign-in/{secret}/more"),
            format!("//developers/sign-in/{secret}"),
            format!("/x402/developers/sign-in/{secret}"),
        ];
        for path in &odd {
            let logged = path_for_logs(path);
            assert!(!logged.contains(&secret), "{path} logged as {logged}");
            assert!(logged.ends_with("<secret>"), "{logged}");
        }
    }

    #[test]
    fn paths_without_a_secret_are_logged_as_they_are() {
        for path in [
            "/developers",
            "/developers/sign-in",
            "/developers/sign-in/confirm",
            "/developers/credits/checkout",
            "/developers/keys/0192d5c4-0000-7000-8000-000000000000/revoke",
            "/oauth/authorize",
            "/oauth/token",
            "/api/v1/learnables",
        ] {
            assert!(matches!(path_for_logs(path), Cow::Borrowed(p) if p == path));
        }
    }

    #[test]
    fn each_charted_key_has_a_calls_and_a_points_chart_up_to_the_cap() {
        use manabi_projector::queries::DayUsage;
        let from = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date");
        let day = |day: &str, calls, points| DayUsage {
            day: day.to_owned(),
            calls,
            points,
        };
        let keys: Vec<(String, Vec<DayUsage>)> = (0..12)
            .map(|n| (format!("k{n}"), vec![day("2026-01-03", 2, 10)]))
            .collect();
        let charts = charts(from, 0, &[], &[], &keys);
        assert_eq!(charts.len(), 3 + 2 * CHARTED_KEYS_MAX);
        let points = charts
            .iter()
            .find(|chart| chart.id == "key0-points")
            .expect("the first key's points");
        assert_eq!(points.title, "Points spent per day with the key “k0”");
        assert_eq!(points.bars[2].label, "2026-01-03: 10 points");
        assert_eq!(
            points.desc,
            "10 points from 2026-01-01 to 2026-01-30; the most in one day: 10, on 2026-01-03."
        );
        let calls = charts
            .iter()
            .find(|chart| chart.id == "calls")
            .expect("calls");
        assert_eq!(calls.desc, "No calls from 2026-01-01 to 2026-01-30.");
        let balance = charts
            .iter()
            .find(|chart| chart.id == "balance")
            .expect("balance");
        assert!(
            balance
                .desc
                .starts_with("0 points at the end of 2026-01-01")
        );
    }

    #[test]
    fn a_pack_is_chosen_by_its_encoded_id() {
        let pack = pack_path("starter");
        assert_eq!(pack, "/developers/credits?pack=starter");
        assert_eq!(pack_path("a b&c"), "/developers/credits?pack=a+b%26c");
    }
}
