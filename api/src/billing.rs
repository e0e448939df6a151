//! The billing seam: the one place where a read is authenticated, limited, resolved,
//! charged and answered, in the order of DESIGN §3. Every REST handler and every MCP tool
//! goes through [`serve_call`].
//!
//! A key names its account, so it is checked against the ledger's in-memory account
//! aggregate without any read-model lookup. The charge is appended only after the answer
//! is resolved, and the answer leaves only once the charge is durable: a refused or failed
//! charge turns into the error, never into data.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use governor::NotUntil;
use governor::clock::{Clock, DefaultClock};
use manabi_ledger::account::Points;
use manabi_ledger::{AuthError, ChargeRequest, ChargeTicket, Receipt, Refusal};
use manabi_schemas::events::Transport;
use manabi_schemas::{Billing, ErrorCode};
use secrecy::{ExposeSecret, SecretString};

use crate::answer::Answer;
use crate::error::ApiError;
use crate::state::AppState;

/// Who is calling, once authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No key: served the evaluation sample, limited per client address.
    Keyless { client: IpAddr },
    /// A live key: served the full dataset, billed to the key's account.
    Keyed(manabi_ledger::Caller),
}

impl Caller {
    /// Keyless callers only see entries of the evaluation sample.
    pub fn sample_only(&self) -> bool {
        matches!(self, Caller::Keyless { .. })
    }
}

/// What a call costs, looked up in the live price list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Price {
    /// Discovery and the credit-pack list.
    Free,
    Read,
    Search,
}

impl Price {
    /// The operation name recorded when a caller names only the price.
    fn generic_operation(self) -> &'static str {
        match self {
            Price::Free => "free",
            Price::Read => "read",
            Price::Search => "search",
        }
    }
}

/// What an invoice line says about a call: the operation, the entry read, the price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub name: &'static str,
    pub resource_id: Option<String>,
    pub price: Price,
}

impl Operation {
    pub fn new(name: &'static str, price: Price) -> Operation {
        Operation {
            name,
            resource_id: None,
            price,
        }
    }

    /// The entry the call reads, recorded on its invoice line.
    pub fn on(mut self, resource_id: impl Into<String>) -> Operation {
        self.resource_id = Some(resource_id.into());
        self
    }
}

impl From<Price> for Operation {
    fn from(price: Price) -> Operation {
        Operation::new(price.generic_operation(), price)
    }
}

/// What a request's headers say about its caller: the API key, if any, kept secret so it
/// never reaches a log, and the request id its charge is recorded under.
#[derive(Debug, Default)]
pub struct Credential {
    key: Option<SecretString>,
    request_id: Option<String>,
}

impl Credential {
    /// `Authorization: Bearer …` first, then `X-API-Key`. Any other Authorization
    /// scheme is kept as given, so it is refused as an invalid key rather than ignored.
    pub fn from_headers(headers: &HeaderMap) -> Credential {
        let authorization = headers.get(header::AUTHORIZATION).map(|value| {
            let text = value.to_str().unwrap_or_default();
            text.strip_prefix("Bearer ")
                .unwrap_or(text)
                .trim()
                .to_owned()
        });
        let api_key = || {
            headers
                .get("x-api-key")
                .map(|value| value.to_str().unwrap_or_default().trim().to_owned())
        };
        let request_id = headers
            .get("x-request-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        Credential {
            key: authorization.or_else(api_key).map(SecretString::from),
            request_id,
        }
    }

    pub fn is_present(&self) -> bool {
        self.key.is_some()
    }

    pub fn key(&self) -> Option<&SecretString> {
        self.key.as_ref()
    }

    /// The request id as the caller can look it up, if one was set.
    pub fn request_id_for_display(&self) -> &str {
        self.request_id.as_deref().unwrap_or("(none)")
    }

    /// The request id (set by the request-id layer), else a fresh one for the charge.
    fn request_id(&self) -> String {
        self.request_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::now_v7().to_string())
    }
}

/// The credential and client address of one request.
#[derive(Debug)]
pub struct Call {
    pub credential: Credential,
    pub client: IpAddr,
    /// Recorded on the charge event, so invoices tell REST and MCP calls apart.
    pub transport: Transport,
    /// Shared with the request-timeout layer: a charge is written only if the biller
    /// claims it before the request gives up (see `manabi_ledger::ticket`).
    pub ticket: ChargeTicket,
}

/// The ticket the timeout layer put on the request, else one nobody abandons.
pub fn ticket_of(extensions: &axum::http::Extensions) -> ChargeTicket {
    extensions
        .get::<ChargeTicket>()
        .cloned()
        .unwrap_or_default()
}

impl<S: Send + Sync> FromRequestParts<S> for Call {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        let client = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip());
        Ok(Call {
            credential: Credential::from_headers(&parts.headers),
            client,
            transport: Transport::Rest,
            ticket: ticket_of(&parts.extensions),
        })
    }
}

/// Steps 2 to 6 of a billed call; step 1 (parsing the parameters) happened before.
/// `operation` is a full [`Operation`] or just a [`Price`].
pub async fn serve_call(
    state: &AppState,
    call: Call,
    operation: impl Into<Operation>,
    resolve: impl FnOnce(&Caller) -> Result<Answer, ApiError>,
) -> Result<Answer, ApiError> {
    let operation = operation.into();
    let caller = authenticate(state, &call, operation.price).await?;
    limit_burst(state, &caller)?;
    let answer = resolve(&caller)?;
    debit(state, &caller, &call, operation, answer).await
}

/// Step 2. A key that is sent must be good, whatever the endpoint. A free call is never
/// charged, so it is checked against the end of the account's stream: a key revoked a
/// moment ago elsewhere is refused there too (a billed call learns it from its append).
async fn authenticate(state: &AppState, call: &Call, price: Price) -> Result<Caller, ApiError> {
    let Some(key) = call.credential.key() else {
        return Ok(Caller::Keyless {
            client: call.client,
        });
    };
    authenticate_key(state, key, price == Price::Free)
        .await
        .map(Caller::Keyed)
}

/// The ledger caller of a raw key; `fresh` checks against the stream, not the cache.
pub async fn authenticate_key(
    state: &AppState,
    key: &SecretString,
    fresh: bool,
) -> Result<manabi_ledger::Caller, ApiError> {
    let biller = &state.ledger.biller;
    let checked = if fresh {
        biller.authenticate_fresh(key.expose_secret()).await
    } else {
        biller.authenticate(key.expose_secret()).await
    };
    checked.map_err(auth_error)
}

fn auth_error(error: AuthError) -> ApiError {
    match error {
        AuthError::Malformed => ApiError::with_message(
            ErrorCode::InvalidApiKey,
            "the API key is malformed: keys look like `svc_ak_…`",
        ),
        AuthError::Unknown => ApiError::new(ErrorCode::InvalidApiKey),
        AuthError::Revoked => {
            ApiError::with_message(ErrorCode::RevokedApiKey, "the API key has been revoked")
        }
        AuthError::Expired => {
            ApiError::with_message(ErrorCode::RevokedApiKey, "the API key has expired")
        }
        AuthError::LedgerUnavailable { reason } => ledger_unavailable(&reason),
    }
}

fn ledger_unavailable(reason: &str) -> ApiError {
    tracing::error!(reason, "the billing ledger is unavailable");
    ApiError::with_message(
        ErrorCode::Unavailable,
        "billing is unavailable for a moment; nothing was charged, retry shortly",
    )
    .retry_after(1)
}

/// Step 3: the token bucket of the caller's key, or of its address when keyless.
pub fn limit_burst(state: &AppState, caller: &Caller) -> Result<(), ApiError> {
    match caller {
        Caller::Keyless { client } => {
            let Some(limiter) = &state.keyless_limiter else {
                return Ok(());
            };
            let rate = state.settings.keyless_rate;
            limiter.check_key(client).map_err(|not_until| {
                let secs = wait_secs(&not_until);
                let message = format!(
                    "keyless requests are limited to {} per second per address; retry after \
                     {secs} s or use an API key",
                    rate.per_sec
                );
                rate_limited(message, secs)
            })
        }
        Caller::Keyed(keyed) => {
            let Some(limiter) = &state.key_limiter else {
                return Ok(());
            };
            let rate = state.settings.key_rate;
            limiter.check_key(&keyed.key_id).map_err(|not_until| {
                let secs = wait_secs(&not_until);
                let message = format!(
                    "this key may make {} requests per second (bursts of {}); retry after \
                     {secs} s",
                    rate.per_sec, rate.burst
                );
                rate_limited(message, secs)
            })
        }
    }
}

/// Whole seconds until the bucket has a token again, rounded up: retrying a fraction of
/// a second early would be refused again.
fn wait_secs(not_until: &NotUntil<<DefaultClock as Clock>::Instant>) -> u64 {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

/// 429 `RATE_LIMITED` with `Retry-After`; the error adds the IETF `RateLimit` header and
/// the router the `RateLimit-Policy` of the caller's bucket.
fn rate_limited(message: String, secs: u64) -> ApiError {
    ApiError::with_message(ErrorCode::RateLimited, message).retry_after(secs)
}

/// Steps 5 and 6. Keyless calls are free and carry no Billing object; a keyed free call
/// carries one for 0 points; a keyed priced call is answered only with its receipt.
async fn debit(
    state: &AppState,
    caller: &Caller,
    call: &Call,
    operation: Operation,
    mut answer: Answer,
) -> Result<Answer, ApiError> {
    let Caller::Keyed(keyed) = caller else {
        return Ok(answer);
    };
    let Some(points) = points_of(state, operation.price) else {
        answer.billing = Some(billing(0, None));
        return Ok(answer);
    };
    let request = ChargeRequest {
        operation: operation.name.to_owned(),
        resource_id: operation.resource_id,
        points,
        price_list_version: state.settings.prices.list_version,
        request_id: call.credential.request_id(),
        transport: call.transport,
    };
    let receipt = state
        .ledger
        .biller
        .charge_with_ticket(keyed, request, call.ticket.clone())
        .await
        .map_err(|refusal| refusal_error(state, call, refusal))?;
    answer.billing = Some(receipt_billing(&receipt));
    Ok(answer)
}

/// The live price of a call; `None` for a free one (a price list may also set 0).
fn points_of(state: &AppState, price: Price) -> Option<Points> {
    let prices = state.settings.prices;
    match price {
        Price::Free => None,
        Price::Read => Points::new(prices.read_jpy),
        Price::Search => Points::new(prices.search_jpy),
    }
}

fn receipt_billing(receipt: &Receipt) -> Billing {
    billing(receipt.points_charged, Some(receipt.invoice_id.to_string()))
}

fn billing(points_charged: i64, invoice_id: Option<String>) -> Billing {
    Billing {
        points_charged,
        currency: "JPY".to_owned(),
        invoice_id,
        free_tier: Some(false),
    }
}

/// A charge the ledger refused, after it caught up with the account's stream.
fn refusal_error(state: &AppState, call: &Call, refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::InsufficientPoints { required, balance } => {
            let top_up_url = &state.settings.top_up_url;
            let mut error = ApiError::with_message(
                ErrorCode::InsufficientPoints,
                format!(
                    "this call costs {required} points and the balance is {balance}; buy \
                     points at {top_up_url} and retry"
                ),
            );
            error.body.required = Some(required);
            error.body.balance = Some(balance);
            error.body.top_up_url = Some(top_up_url.clone());
            error
        }
        Refusal::QuotaExceeded {
            scope,
            retry_after_secs,
        } => {
            let whose = match scope {
                manabi_ledger::QuotaScope::Key => "this key",
                manabi_ledger::QuotaScope::Account => "this account",
            };
            ApiError::with_message(
                ErrorCode::QuotaExceeded,
                format!(
                    "{whose} has reached its daily call cap; it resets at 00:00 UTC, in \
                     {retry_after_secs} s"
                ),
            )
            .retry_after(retry_after_secs.max(1))
        }
        Refusal::Revoked => auth_error(AuthError::Revoked),
        Refusal::Expired => auth_error(AuthError::Expired),
        Refusal::UnknownKey => auth_error(AuthError::Unknown),
        Refusal::LedgerUnavailable { reason } => ledger_unavailable(&reason),
        Refusal::Abandoned => ApiError::new(ErrorCode::Timeout),
        Refusal::OutcomeUnknown { reason } => {
            tracing::error!(reason, "a charge's outcome is unknown");
            ApiError::with_message(
                ErrorCode::ChargeOutcomeUnknown,
                format!(
                    "the ledger failed while recording this call's charge, so whether it was \
                     recorded is not known yet; look for request id {} in \
                     /api/v1/account/charges before retrying",
                    call.credential.request_id_for_display()
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_key_and_request_id_come_from_the_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static(" svc_ak_x "));
        headers.insert("x-request-id", HeaderValue::from_static("r-1"));
        let credential = Credential::from_headers(&headers);
        assert_eq!(
            credential.key().map(|k| k.expose_secret()),
            Some("svc_ak_x")
        );
        assert_eq!(credential.request_id(), "r-1");
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer svc_ak_y"),
        );
        let credential = Credential::from_headers(&headers);
        assert_eq!(
            credential.key().map(|k| k.expose_secret()),
            Some("svc_ak_y")
        );
        assert!(!format!("{credential:?}").contains("svc_ak_y"));
    }

    #[test]
    fn a_price_alone_names_a_generic_operation() {
        let operation = Operation::from(Price::Search);
        assert_eq!(operation.name, "search");
        assert_eq!(
            Operation::new("getLearnable", Price::Read)
                .on("k")
                .resource_id
                .as_deref(),
            Some("k")
        );
    }
}
