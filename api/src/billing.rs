//! The billing seam: the one place where a read is authenticated, limited, resolved,
//! charged and answered, in the order of DESIGN §3. Every REST handler and every MCP tool
//! goes through [`serve_call`].
//!
//! A key names its account, so it is checked against the ledger's in-memory account
//! aggregate without any read-model lookup. The charge is appended only after the answer
//! is resolved, and the answer leaves only once the charge is durable: a refused or failed
//! charge turns into the error, never into data.

use std::net::IpAddr;

use governor::NotUntil;
use governor::clock::{Clock, DefaultClock};
use manabi_ledger::account::Points;
use manabi_ledger::{AuthError, ChargeRequest, EventStore, Receipt, Refusal, StreamName};
use manabi_schemas::events::Transport;
use manabi_schemas::{Billing, ErrorCode};
use secrecy::{ExposeSecret, SecretString};

use crate::answer::Answer;
use crate::error::ApiError;
use crate::extract::Call;
use crate::localization::{self, Served};
use crate::operations::{OperationSpec, Price};
use crate::state::AppState;

/// Who is calling, once authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No key: served the evaluation sample, limited per client address.
    Keyless { client: IpAddr },
    /// A live key: served the full dataset, billed to the key's account.
    Keyed(manabi_ledger::Caller),
    /// A call under `/x402/`: served the full dataset, each priced call paid on its own.
    Paying { client: IpAddr },
}

impl Caller {
    /// Keyless callers only see entries of the evaluation sample.
    pub fn sample_only(&self) -> bool {
        matches!(self, Caller::Keyless { .. })
    }
}

/// Steps 2 to 6 of a call of `operation` on the entry `resource_id` (recorded on its
/// invoice line). Step 1, parsing the parameters, happened before; the query is checked
/// against the operation's parameters here again, so no handler can skip it.
pub async fn serve_call(
    state: &AppState,
    call: Call,
    operation: &'static OperationSpec,
    resource_id: Option<&str>,
    resolve: impl FnOnce(&Caller) -> Result<Answer, ApiError>,
) -> Result<Answer, ApiError> {
    call.query(operation)?;
    call.credential.idempotency_key()?;
    let caller = authenticate(state, &call, operation.price).await?;
    // A paid call carries a signed authorization (checked, and a replay refused by the
    // ledger, before the facilitator is asked); unpaid x402 calls (answered with terms)
    // and unreadable payments share the keyless bucket of their address.
    let paid = call
        .paid
        .as_ref()
        .is_some_and(|paid| matches!(paid.payment, Some(Ok(_))));
    let tokens_left = if paid {
        None
    } else {
        limit_burst(state, &caller)?
    };
    let mut answer = resolve(&caller)?;
    let localized_resource;
    let mut resource_id = resource_id;
    if let Some(request) = answer.localize.take() {
        let id = resource_id.unwrap_or_default();
        localized_resource = localization::resource_of(id, request.locale);
        match localization::serve(state, &caller, &call, id, &answer.data, request).await? {
            Served::Stored(data) => answer.data = data,
            Served::Generated(mut generated) => {
                generated.tokens_left = tokens_left;
                return Ok(generated);
            }
        }
        resource_id = Some(&localized_resource);
    }
    answer.tokens_left = tokens_left;
    if call.transport == Transport::Rest {
        let etag = answer.entity_tag();
        answer.not_modified = call.already_has(&etag);
        answer.etag = Some(etag);
    }
    if answer.not_modified {
        // A 304 carries no data, so it is never charged (docs/api.md, "Caching").
        return Ok(answer);
    }
    debit(state, &caller, &call, operation, resource_id, answer).await
}

/// Step 2. A key that is sent must be good, whatever the endpoint. A free call is never
/// charged, so it is checked against the end of the account's stream: a key revoked a
/// moment ago elsewhere is refused there too (a billed call learns it from its append).
async fn authenticate(state: &AppState, call: &Call, price: Price) -> Result<Caller, ApiError> {
    if call.paid.is_some() {
        return Ok(Caller::Paying {
            client: call.client,
        });
    }
    if let Some(oauth) = call.credential.oauth() {
        // The token was checked at the gate; its grant's key is checked here again, so
        // a key revoked in between is refused.
        return state
            .ledger
            .biller
            .authenticate_key_id(oauth.account_id, oauth.key_id)
            .await
            .map(Caller::Keyed)
            .map_err(auth_error);
    }
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

pub(crate) fn ledger_unavailable(reason: &str) -> ApiError {
    tracing::error!(reason, "the billing ledger is unavailable");
    ApiError::with_message(
        ErrorCode::Unavailable,
        "billing is unavailable for a moment; nothing was charged, retry shortly",
    )
    .retry_after(1)
}

/// Step 3: the token bucket of the caller's key, or of its address when keyless; the
/// tokens left in it, for the `RateLimit` header of the answer.
pub fn limit_burst(state: &AppState, caller: &Caller) -> Result<Option<u32>, ApiError> {
    let snapshot = match caller {
        Caller::Keyless { client } | Caller::Paying { client } => {
            let Some(limiter) = &state.keyless_limiter else {
                return Ok(None);
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
            })?
        }
        Caller::Keyed(keyed) => {
            let Some(limiter) = &state.key_limiter else {
                return Ok(None);
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
            })?
        }
    };
    Ok(Some(snapshot.remaining_burst_capacity()))
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
/// carries one for 0 points; a keyed priced call is answered only with its receipt. A
/// HEAD request gets no body, so it is never charged.
async fn debit(
    state: &AppState,
    caller: &Caller,
    call: &Call,
    operation: &'static OperationSpec,
    resource_id: Option<&str>,
    mut answer: Answer,
) -> Result<Answer, ApiError> {
    if call.head {
        return Ok(answer);
    }
    let keyed = match caller {
        Caller::Keyless { .. } => return Ok(answer),
        Caller::Paying { .. } => return pay(state, call, operation, resource_id, answer).await,
        Caller::Keyed(keyed) => keyed,
    };
    let Some(points) = points_of(state, operation.price) else {
        answer.billing = Some(billing(0, None));
        return Ok(answer);
    };
    let request = ChargeRequest {
        operation: operation.id.to_owned(),
        resource_id: resource_id.map(str::to_owned),
        points,
        price_list_version: state.settings.prices.list_version,
        request_id: call.credential.request_id(),
        transport: call.transport,
        idempotency: call.idempotency(operation, resource_id)?,
    };
    let charged = state
        .ledger
        .biller
        .charge_with_ticket(keyed, request, call.ticket.clone())
        .await;
    answer.billing = Some(match charged {
        Ok(receipt) => receipt_billing(&receipt),
        Err(Refusal::AlreadyCharged { version, points }) => {
            first_charge(state, keyed.account_id, version, points).await?
        }
        Err(refusal) => return Err(refusal_error(state, call, refusal)),
    });
    Ok(answer)
}

/// A call under `/x402/`: a free one is answered as it is; a priced one only once its
/// payment is settled, with the settlement in the answer's headers.
async fn pay(
    state: &AppState,
    call: &Call,
    operation: &'static OperationSpec,
    resource_id: Option<&str>,
    mut answer: Answer,
) -> Result<Answer, ApiError> {
    let (Some(paid), Some(points)) = (&call.paid, points_of(state, operation.price)) else {
        return Ok(answer);
    };
    let settled =
        crate::x402::pay(state, call, paid, operation.id, resource_id, points.get()).await?;
    answer.billing = Some(Billing {
        points_charged: points.get(),
        currency: "JPY".to_owned(),
        invoice_id: Some(settled.invoice_id.to_string()),
        free_tier: Some(false),
    });
    answer.payment = Some(Box::new(settled));
    Ok(answer)
}

/// The Billing object of the charge an idempotent retry repeats: the same points and
/// invoice id as the first answer.
async fn first_charge(
    state: &AppState,
    account_id: uuid::Uuid,
    version: i64,
    points: i64,
) -> Result<Billing, ApiError> {
    let stream = StreamName::account(account_id);
    let events = state
        .ledger
        .store
        .read_stream(&stream, version, 1)
        .await
        .map_err(|error| ledger_unavailable(&error.to_string()))?;
    let first = events
        .into_iter()
        .next()
        .filter(|event| event.version == version)
        .ok_or_else(|| ledger_unavailable("the charge of an idempotency key is missing"))?;
    Ok(billing(points, Some(first.id.to_string())))
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

pub(crate) fn receipt_billing(receipt: &Receipt) -> Billing {
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
pub(crate) fn refusal_error(state: &AppState, call: &Call, refusal: Refusal) -> ApiError {
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
        Refusal::IdempotencyKeyReused => ApiError::new(ErrorCode::IdempotencyKeyReused),
        // Answered with the first charge by `debit`, and a taken claim with the version
        // that took it (`localization`); neither reaches here.
        Refusal::AlreadyCharged { .. } | Refusal::ClaimTaken => ApiError::new(ErrorCode::Internal),
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
