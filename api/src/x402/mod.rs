//! x402 pay-per-call: every operation is mirrored under `/x402/` (and MCP at
//! `/x402/mcp`) for callers without an account. A priced call without a payment is
//! answered 402 with the terms, both ways (the v1 JSON body and the v2
//! `PAYMENT-REQUIRED` header); a call that carries one (`X-PAYMENT` v1,
//! `PAYMENT-SIGNATURE` v2, MCP `_meta["x402/payment"]`) is served once the payment is
//! checked here, verified by the facilitator, claimed in the ledger and settled.
//!
//! The order, inside the billing seam (after the answer is resolved, so an unknown
//! entry or a bad parameter is refused without asking for money):
//! 1. the terms: the operation's JPY list price at the configured rate, rounded up;
//! 2. the payment names our scheme, network, asset, recipient and amount;
//! 3. the "exact" EVM authorization holds (signature, recipient, amount, window: `evm`);
//! 4. the facilitator's `/verify` agrees;
//! 5. the nonce is claimed: `X402PaymentClaimed` appended `NoStream` on
//!    `x402-{payer}-{nonce}`, so one authorization pays for one answer, on every replica;
//! 6. the facilitator's `/settle`; its outcome is appended to the same stream, and only
//!    a settled payment is answered, with `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`. A
//!    settlement that gives no answer is recorded as unknown (503): the same payment
//!    presented again is settled again, since the chain takes an authorization once.
//!
//! Steps 5 and 6 run in a task of their own: once a nonce is claimed, the settlement
//! and its record finish even if the client goes away.

pub mod config;
mod evm;
mod facilitator;
pub mod wire;

use std::sync::Arc;

use axum::http::HeaderMap;
use manabi_ledger::StreamName;
use manabi_ledger::store::{AppendCommand, AppendRejection, ExpectedVersion, NewEvent};
use manabi_schemas::ErrorBody;
use manabi_schemas::ErrorCode;
use manabi_schemas::events::{
    EventMetadata, LedgerEvent, X402PaymentClaimed, X402PaymentFailed, X402PaymentSettled,
    X402SettlementUnknown,
};
use serde_json::{Value, json};

pub use config::{X402Options, X402Settings};
pub use facilitator::Facilitator;
use wire::{
    PaymentRequiredV1, PaymentRequiredV2, PaymentV1, PaymentV2, RequirementsV1, RequirementsV2,
    ResourceInfo, SettleResponse, TokenDomain,
};

use crate::error::ApiError;
use crate::extract::Call;
use crate::state::AppState;

/// Where every operation is mirrored.
pub const PREFIX: &str = "/x402";
/// The v2 terms of a 402.
pub const PAYMENT_REQUIRED: &str = "payment-required";
/// The v2 payment.
pub const PAYMENT_SIGNATURE: &str = "payment-signature";
/// The v1 payment.
pub const X_PAYMENT: &str = "x-payment";
/// The settlement, v2 and v1.
pub const PAYMENT_RESPONSE: &str = "payment-response";
pub const X_PAYMENT_RESPONSE: &str = "x-payment-response";
/// The MCP transport's `_meta` members.
pub const MCP_PAYMENT: &str = "x402/payment";
pub const MCP_PAYMENT_RESPONSE: &str = "x402/payment-response";

/// x402 as configured, with its facilitator client.
#[derive(Debug, Clone)]
pub struct X402 {
    pub settings: X402Settings,
    pub facilitator: Facilitator,
}

impl X402 {
    pub fn new(settings: X402Settings) -> X402 {
        X402 {
            facilitator: Facilitator::new(&settings.facilitator_url),
            settings,
        }
    }
}

/// Asks the facilitator once which payments it settles, and says on the log and on
/// `/metrics` (`manabi_x402_facilitator_ready`, 1 or 0) whether our terms are among them:
/// the exact scheme on the configured network, in x402 versions 1 and 2. The server
/// serves either way (a facilitator outage must not take the keyed API down); a payment
/// it cannot settle is refused at verification.
pub async fn check_facilitator(x402: &X402) {
    let network = x402.settings.network;
    let wanted = [(1, network.name.to_owned()), (2, network.caip2())];
    let ready = match x402.facilitator.supported().await {
        Ok(kinds) => {
            let missing: Vec<String> = wanted
                .iter()
                .filter(|(version, name)| {
                    !kinds.iter().any(|kind| {
                        kind.x402_version == *version
                            && kind.scheme == "exact"
                            && kind.network == *name
                    })
                })
                .map(|(version, name)| format!("v{version} exact on {name}"))
                .collect();
            if missing.is_empty() {
                tracing::info!(
                    network = network.name,
                    "the x402 facilitator settles our terms"
                );
            } else {
                tracing::error!(
                    missing = missing.join(", "),
                    "the x402 facilitator does not settle these terms; such payments will be refused"
                );
            }
            missing.is_empty()
        }
        Err(error) => {
            tracing::warn!(%error, "the x402 facilitator could not be asked what it settles");
            false
        }
    };
    metrics::gauge!("manabi_x402_facilitator_ready").set(if ready { 1.0 } else { 0.0 });
}

/// A request that came in under `/x402/`: its payment, if it carried one (or why it
/// could not be read), and the address of the resource it pays for.
#[derive(Debug, Clone)]
pub struct PaidRequest {
    pub payment: Option<Result<Payment, ApiError>>,
    pub resource_url: String,
}

/// Put on every request under [`PREFIX`] by [`mount`]: the public base address, for
/// the resource URL the terms name.
#[derive(Debug, Clone)]
pub struct Mounted(Arc<str>);

/// The layer of the `/x402/` mirror: marks its requests as paid per call. Its state is
/// the public base address, made once when the router is built.
pub async fn mount(
    axum::extract::State(base): axum::extract::State<Arc<str>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    request.extensions_mut().insert(Mounted(base));
    next.run(request).await
}

/// The payment of a REST request under [`PREFIX`], `None` for any other request.
pub fn paid_request(parts: &axum::http::request::Parts) -> Option<PaidRequest> {
    let Mounted(base) = parts.extensions.get::<Mounted>()?;
    let uri = parts
        .extensions
        .get::<axum::extract::OriginalUri>()
        .map_or(&parts.uri, |original| &original.0);
    let path = uri.path_and_query().map_or("/", |path| path.as_str());
    Some(PaidRequest::from_headers(
        &parts.headers,
        format!("{base}{path}"),
    ))
}

/// A payment as decoded, with its JSON as sent (forwarded to the facilitator).
#[derive(Debug, Clone)]
pub enum Payment {
    V1 { raw: Value, payment: PaymentV1 },
    V2 { raw: Value, payment: PaymentV2 },
}

impl Payment {
    fn version(&self) -> u8 {
        match self {
            Payment::V1 { .. } => 1,
            Payment::V2 { .. } => 2,
        }
    }

    fn raw(&self) -> &Value {
        match self {
            Payment::V1 { raw, .. } | Payment::V2 { raw, .. } => raw,
        }
    }

    fn exact(&self) -> &wire::ExactPayload {
        match self {
            Payment::V1 { payment, .. } => &payment.payload,
            Payment::V2 { payment, .. } => &payment.payload,
        }
    }
}

impl PaidRequest {
    /// The payment of an HTTP request: `PAYMENT-SIGNATURE` (v2), else `X-PAYMENT` (v1).
    pub fn from_headers(headers: &HeaderMap, resource_url: String) -> PaidRequest {
        let header = [PAYMENT_SIGNATURE, X_PAYMENT]
            .into_iter()
            .find_map(|name| headers.get(name).map(|value| (name, value)));
        let payment = header.map(|(name, value)| {
            let text = value
                .to_str()
                .map_err(|_| malformed(name, "is not ASCII"))?;
            let json = wire::decode(text).map_err(|reason| malformed(name, &reason))?;
            Payment::from_json(json, name)
        });
        PaidRequest {
            payment,
            resource_url,
        }
    }

    /// The payment of an MCP tool call: `_meta["x402/payment"]`, an object (or its JSON
    /// text).
    pub fn from_meta(meta: Option<&Value>, resource_url: String) -> PaidRequest {
        let payment = meta.map(|value| {
            let json = match value {
                Value::String(text) => serde_json::from_str(text)
                    .map_err(|_| malformed(MCP_PAYMENT, "is not a JSON payment"))?,
                other => other.clone(),
            };
            Payment::from_json(json, MCP_PAYMENT)
        });
        PaidRequest {
            payment,
            resource_url,
        }
    }
}

impl Payment {
    fn from_json(json: Value, carrier: &str) -> Result<Payment, ApiError> {
        let version = json.get("x402Version").and_then(Value::as_u64);
        let shape = |error: serde_json::Error| {
            malformed(
                carrier,
                &format!("is not an x402 payment of the exact scheme: {error}"),
            )
        };
        match version {
            Some(1) => Ok(Payment::V1 {
                payment: serde_json::from_value(json.clone()).map_err(shape)?,
                raw: json,
            }),
            Some(2) => Ok(Payment::V2 {
                payment: serde_json::from_value(json.clone()).map_err(shape)?,
                raw: json,
            }),
            Some(other) => Err(invalid_without_terms(format!(
                "x402Version {other} is not served; use 1 (X-PAYMENT) or 2 (PAYMENT-SIGNATURE)"
            ))),
            None => Err(malformed(carrier, "has no x402Version")),
        }
    }
}

fn malformed(carrier: &str, reason: &str) -> ApiError {
    ApiError::with_message(
        ErrorCode::PaymentMalformed,
        format!("the payment in `{carrier}` {reason}; nothing was charged"),
    )
}

/// A refusal decided before the terms are known; they are added by [`pay`].
fn invalid_without_terms(reason: String) -> ApiError {
    ApiError::with_message(
        ErrorCode::PaymentInvalid,
        format!("{reason}; nothing was charged"),
    )
}

/// The terms of one call, both ways.
#[derive(Debug, Clone, PartialEq)]
pub struct Terms {
    v1: RequirementsV1,
    v2: RequirementsV2,
    resource: ResourceInfo,
}

impl Terms {
    /// The v1 402 body: x402's `PaymentRequired` with our `ok` and `code` beside it.
    pub fn body_v1(&self, error: &ErrorBody) -> String {
        let mut body = json!(PaymentRequiredV1 {
            x402_version: 1,
            error: error.message.clone(),
            accepts: vec![self.v1.clone()],
        });
        if let Some(object) = body.as_object_mut() {
            object.insert("ok".to_owned(), json!(false));
            object.insert("code".to_owned(), json!(error.code));
        }
        body.to_string()
    }

    /// The v2 terms as MCP's `structuredContent` carries them, with our `code`.
    pub fn json_v2(&self, error: &ErrorBody) -> Value {
        let mut value = json!(PaymentRequiredV2 {
            x402_version: 2,
            error: error.message.clone(),
            resource: self.resource.clone(),
            accepts: vec![self.v2.clone()],
        });
        if let Some(object) = value.as_object_mut() {
            object.insert("code".to_owned(), json!(error.code));
        }
        value
    }

    /// The `PAYMENT-REQUIRED` header: base64 of the v2 terms.
    pub fn header_v2(&self, error: &ErrorBody) -> String {
        wire::encode(&self.json_v2(error))
    }

    fn requirements(&self, version: u8) -> Value {
        match version {
            1 => json!(self.v1),
            _ => json!(self.v2),
        }
    }
}

/// The terms of a call of `operation` at `price_jpy` for the resource at `url`.
fn terms(x402: &X402Settings, operation: &str, price_jpy: i64, url: &str) -> Terms {
    let amount = x402.rate.atomic(price_jpy, x402.asset.decimals).to_string();
    let description = format!(
        "manabi {operation} ({price_jpy} JPY at {} JPY/USD, rate of {})",
        x402.rate.text,
        x402.rate.at.format("%Y-%m-%dT%H:%M:%SZ")
    );
    let extra = TokenDomain {
        name: x402.asset.name.clone(),
        version: x402.asset.version.clone(),
    };
    let asset = x402.asset.address.to_checksum(None);
    let pay_to = x402.pay_to.to_checksum(None);
    let mime_type = "application/json".to_owned();
    Terms {
        v1: RequirementsV1 {
            scheme: "exact".to_owned(),
            network: x402.network.name.to_owned(),
            max_amount_required: amount.clone(),
            resource: url.to_owned(),
            description: description.clone(),
            mime_type: mime_type.clone(),
            pay_to: pay_to.clone(),
            max_timeout_seconds: x402.max_timeout_seconds,
            asset: asset.clone(),
            extra: extra.clone(),
        },
        v2: RequirementsV2 {
            scheme: "exact".to_owned(),
            network: x402.network.caip2(),
            amount,
            asset,
            pay_to,
            max_timeout_seconds: x402.max_timeout_seconds,
            extra,
        },
        resource: ResourceInfo {
            url: url.to_owned(),
            description,
            mime_type,
        },
    }
}

/// A settled payment: what the answer carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    pub response: SettleResponse,
    /// The claim's event id: the invoice id of the call.
    pub invoice_id: uuid::Uuid,
}

impl Settled {
    /// The `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE` value.
    pub fn header(&self) -> String {
        wire::encode(&self.response)
    }
}

/// x402 is not configured on this server.
fn disabled() -> ApiError {
    ApiError::with_message(
        ErrorCode::Unavailable,
        "x402 payments are not configured on this server (no MANABI_X402_PAY_TO); use an \
         API key instead. Nothing was charged.",
    )
}

/// Takes the payment of a call of `operation` at `price_jpy` yen: steps 1 to 6 of the
/// module documentation. Every refusal is a 402 carrying the terms, except a malformed
/// payment (400) and an unreachable facilitator or ledger (503).
pub async fn pay(
    state: &AppState,
    call: &Call,
    request: &PaidRequest,
    operation: &str,
    resource_id: Option<&str>,
    price_jpy: i64,
) -> Result<Settled, ApiError> {
    prepare(state, call, request, operation, resource_id, price_jpy)
        .await?
        .settle(state)
        .await
}

/// A payment checked and verified (steps 1 to 4), not yet claimed: nothing is taken
/// until [`Verified::settle`]. A localized generation is verified before it translates
/// and settled after.
#[derive(Debug)]
pub struct Verified {
    claim: X402PaymentClaimed,
    payment: Value,
    requirements: Value,
    terms: Arc<Terms>,
    ticket: manabi_ledger::ChargeTicket,
}

/// Steps 1 to 4: the terms, the payment against them, the authorization, the facilitator.
pub async fn prepare(
    state: &AppState,
    call: &Call,
    request: &PaidRequest,
    operation: &str,
    resource_id: Option<&str>,
    price_jpy: i64,
) -> Result<Verified, ApiError> {
    let x402 = state.x402.as_ref().ok_or_else(disabled)?;
    let settings = &x402.settings;
    let terms = Arc::new(terms(settings, operation, price_jpy, &request.resource_url));
    let payment = match &request.payment {
        None => {
            let message = format!(
                "this call costs {price_jpy} JPY, paid as {} atomic units of {} on {}; sign \
                 the terms and retry with PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1)",
                terms.v2.amount, settings.asset.name, terms.v2.network
            );
            return Err(with_terms(ErrorCode::PaymentRequired, message, &terms));
        }
        Some(Err(error)) if error.code() == ErrorCode::PaymentInvalid => {
            return Err(with_terms(error.code(), error.body.message.clone(), &terms));
        }
        Some(Err(error)) => return Err(error.clone()),
        Some(Ok(payment)) => payment,
    };
    matches_terms(payment, &terms).map_err(|reason| refused(reason, &terms))?;
    let expected = evm::Expected {
        network: settings.network,
        asset: &settings.asset,
        pay_to: settings.pay_to,
        amount: settings.rate.atomic(price_jpy, settings.asset.decimals),
        now: u64::try_from(chrono::Utc::now().timestamp()).unwrap_or(0),
    };
    let checked =
        evm::check(payment.exact(), &expected).map_err(|reason| refused(reason, &terms))?;
    let version = payment.version();
    let requirements = terms.requirements(version);
    let payer = format!("{:#x}", checked.payer);
    let nonce = format!("{:#x}", checked.nonce);
    // The ledger first: a replayed authorization is refused without asking the
    // facilitator again, and one whose settlement gave no answer is settled again
    // without its `/verify`, which refuses an authorization the chain already took.
    match claim_state(state, &payer, &nonce).await? {
        ClaimState::Taken => return Err(already_paid(&nonce, &terms)),
        ClaimState::SettlementUnknown => {}
        ClaimState::Free => {
            let verified = x402
                .facilitator
                .verify(version, payment.raw(), requirements.clone())
                .await
                .map_err(facilitator_unavailable)?;
            if !verified.is_valid {
                let reason = verified
                    .invalid_reason
                    .unwrap_or_else(|| "no reason given".to_owned());
                let reason = format!("the facilitator refused it ({reason})");
                return Err(refused(reason, &terms));
            }
        }
    }
    let claim = X402PaymentClaimed {
        payer,
        nonce,
        x402_version: version,
        scheme: "exact".to_owned(),
        network: settings.network.caip2(),
        asset: format!("{:#x}", settings.asset.address),
        pay_to: format!("{:#x}", settings.pay_to),
        amount: terms.v2.amount.clone(),
        operation: operation.to_owned(),
        resource_id: resource_id.map(str::to_owned),
        price_jpy,
        price_list_version: state.settings.prices.list_version,
        jpy_per_usd: settings.rate.text.clone(),
        rate_at: settings.rate.at,
        valid_before: checked.valid_before,
        request_id: call.credential.request_id(),
        transport: call.transport,
    };
    Ok(Verified {
        claim,
        payment: payment.raw().clone(),
        requirements,
        terms,
        ticket: call.ticket.clone(),
    })
}

impl Verified {
    /// The ledger stream the payment is claimed on.
    pub fn stream(&self) -> StreamName {
        StreamName::new(format!("x402-{}-{}", self.claim.payer, self.claim.nonce))
    }

    /// Steps 5 and 6: claims the nonce and settles, in a task of its own.
    pub async fn settle(self, state: &AppState) -> Result<Settled, ApiError> {
        if !self.ticket.claim() {
            return Err(ApiError::new(ErrorCode::Timeout));
        }
        let nonce = self.claim.nonce.clone();
        let terms = self.terms.clone();
        let settling = tokio::spawn(claim_and_settle(
            state.clone(),
            self.claim,
            self.payment,
            self.requirements,
        ));
        let outcome = settling
            .await
            .map_err(|_| ApiError::new(ErrorCode::Internal))?;
        match outcome {
            Outcome::Settled(response, invoice_id) => Ok(Settled {
                response,
                invoice_id,
            }),
            Outcome::Used => Err(already_paid(&nonce, &terms)),
            Outcome::Failed(reason) => Err(with_terms(
                ErrorCode::SettlementFailed,
                format!("the payment could not be settled ({reason}); nothing was served"),
                &terms,
            )),
            Outcome::Unknown(reason) => Err(ApiError::with_message(
                ErrorCode::SettlementOutcomeUnknown,
                format!(
                    "the settlement of this payment (nonce {nonce}) gave no answer ({reason}); \
                     nothing was served and the money may have moved. Retry with the same \
                     payment: it is settled at most once, and served once it is"
                ),
            )
            .retry_after(5)),
            Outcome::LedgerUnavailable(reason) => Err(crate::billing::ledger_unavailable(&reason)),
        }
    }
}

/// Where the authorization of `payer` and `nonce` stands in the ledger.
enum ClaimState {
    /// Never claimed.
    Free,
    /// Claimed, and its settlement gave no answer ([`X402SettlementUnknown`] last).
    SettlementUnknown,
    /// Claimed, and paid or refused: it pays for nothing more.
    Taken,
}

async fn claim_state(state: &AppState, payer: &str, nonce: &str) -> Result<ClaimState, ApiError> {
    let stream = StreamName::new(format!("x402-{payer}-{nonce}"));
    let events = state
        .ledger
        .store
        .read_stream_to_end(&stream, 0)
        .await
        .map_err(|error| crate::billing::ledger_unavailable(&error.to_string()))?;
    Ok(if events.is_empty() {
        ClaimState::Free
    } else if unknown_claim(&events).is_some() {
        ClaimState::SettlementUnknown
    } else {
        ClaimState::Taken
    })
}

/// The claim of a payment stream whose settlement gave no answer: the stream is the
/// claim and [`X402SettlementUnknown`], nothing after (`ledger verify` holds the shape).
fn unknown_claim(
    events: &[manabi_ledger::store::RecordedEvent],
) -> Option<(uuid::Uuid, &X402PaymentClaimed)> {
    match events {
        [first, second] => match (&first.event, &second.event) {
            (LedgerEvent::X402PaymentClaimed(claim), LedgerEvent::X402SettlementUnknown(_)) => {
                Some((first.id, claim))
            }
            _ => None,
        },
        _ => None,
    }
}

fn already_paid(nonce: &str, terms: &Arc<Terms>) -> ApiError {
    refused(
        format!("this authorization (nonce {nonce}) has already paid for a call"),
        terms,
    )
}

/// A refusal that offers the terms again.
fn with_terms(code: ErrorCode, message: String, terms: &Arc<Terms>) -> ApiError {
    let mut error = ApiError::with_message(code, message);
    error.payment_terms = Some(terms.clone());
    error
}

fn refused(reason: String, terms: &Arc<Terms>) -> ApiError {
    with_terms(
        ErrorCode::PaymentInvalid,
        format!("the payment was refused: {reason}; nothing was charged"),
        terms,
    )
}

/// The payment names the scheme, network, asset, recipient and amount of the terms.
fn matches_terms(payment: &Payment, terms: &Terms) -> Result<(), String> {
    let scheme_and_network = |scheme: &str, network: &str, ours: &str| {
        if scheme != "exact" {
            return Err(format!("scheme `{scheme}` is not served; use exact"));
        }
        if network != ours {
            return Err(format!("network `{network}` is not {ours}"));
        }
        Ok(())
    };
    let accepted = match payment {
        Payment::V1 { payment, .. } => {
            return scheme_and_network(&payment.scheme, &payment.network, &terms.v1.network);
        }
        Payment::V2 { payment, .. } => &payment.accepted,
    };
    scheme_and_network(&accepted.scheme, &accepted.network, &terms.v2.network)?;
    let same_address = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    if !same_address(&accepted.asset, &terms.v2.asset) {
        return Err(format!(
            "asset {} is not {}",
            accepted.asset, terms.v2.asset
        ));
    }
    if !same_address(&accepted.pay_to, &terms.v2.pay_to) {
        return Err(format!(
            "it accepts paying {}, not {}",
            accepted.pay_to, terms.v2.pay_to
        ));
    }
    if accepted.amount != terms.v2.amount {
        return Err(format!(
            "it accepts an amount of {}; this call costs exactly {}",
            accepted.amount, terms.v2.amount
        ));
    }
    Ok(())
}

fn facilitator_unavailable(error: facilitator::Unreachable) -> ApiError {
    tracing::warn!(%error, "the x402 facilitator gave no usable answer");
    ApiError::with_message(
        ErrorCode::Unavailable,
        format!("{error}; the payment was not taken and nothing was served, retry shortly"),
    )
    .retry_after(2)
}

enum Outcome {
    Settled(SettleResponse, uuid::Uuid),
    /// Another request claimed the nonce first.
    Used,
    /// The facilitator refused to settle: no money moved.
    Failed(String),
    /// The facilitator gave no answer: the money may have moved.
    Unknown(String),
    LedgerUnavailable(String),
}

/// Where a payment's outcome goes: the claim's event id (the invoice id) and the stream
/// version the outcome is appended after.
struct Claimed {
    invoice_id: uuid::Uuid,
    version: i64,
    /// True when the payment's first settlement gave no answer and this is the same
    /// payment presented again.
    resumed: bool,
}

/// Steps 5 and 6: claim the nonce, settle, record the outcome.
async fn claim_and_settle(
    state: AppState,
    claim: X402PaymentClaimed,
    payment: Value,
    requirements: Value,
) -> Outcome {
    let store = &state.ledger.store;
    let stream = StreamName::new(format!("x402-{}-{}", claim.payer, claim.nonce));
    let metadata = EventMetadata {
        request_id: Some(claim.request_id.clone()),
        key_id: None,
        transport: Some(claim.transport),
        actor: None,
    };
    let version = claim.x402_version;
    let operation = claim.operation.clone();
    let (price_jpy, amount) = (claim.price_jpy, claim.amount.parse::<u64>().unwrap_or(0));
    let claimed = match take_claim(&state, &stream, claim, &metadata).await {
        Ok(claimed) => claimed,
        Err(outcome) => return outcome,
    };
    let settled = match &state.x402 {
        Some(x402) => {
            x402.facilitator
                .settle(version, &payment, requirements)
                .await
        }
        None => Err(facilitator::Unreachable::not_sent("is not configured")),
    };
    let outcome = match settled {
        Ok(response) if response.success && !response.transaction.is_empty() => {
            Outcome::Settled(response, claimed.invoice_id)
        }
        Ok(response) if response.success => {
            Outcome::Unknown("the facilitator reported success without a transaction".to_owned())
        }
        // A refusal of the same payment presented again does not prove that its first
        // settlement moved nothing: the chain refuses an authorization it already took.
        Ok(response) if claimed.resumed => Outcome::Unknown(format!(
            "the facilitator refused to settle it again ({})",
            response.error_reason.unwrap_or_default()
        )),
        Ok(response) => Outcome::Failed(
            response
                .error_reason
                .unwrap_or_else(|| "no reason given".to_owned()),
        ),
        Err(error) if error.delivered || claimed.resumed => Outcome::Unknown(error.to_string()),
        Err(error) => Outcome::Failed(error.to_string()),
    };
    let event = match &outcome {
        Outcome::Settled(response, _) => {
            Some(LedgerEvent::X402PaymentSettled(X402PaymentSettled {
                transaction: response.transaction.clone(),
                network: response.network.clone(),
            }))
        }
        Outcome::Failed(reason) => Some(LedgerEvent::X402PaymentFailed(X402PaymentFailed {
            reason: reason.clone(),
        })),
        // An unknown outcome is recorded once; presented again, only a settlement is.
        Outcome::Unknown(reason) if !claimed.resumed => {
            Some(LedgerEvent::X402SettlementUnknown(X402SettlementUnknown {
                reason: reason.clone(),
            }))
        }
        _ => None,
    };
    let label = match &outcome {
        Outcome::Settled(..) => {
            // Revenue as operators read it on /metrics: the list price and what it came to.
            metrics::counter!("manabi_x402_revenue_jpy_total")
                .increment(u64::try_from(price_jpy).unwrap_or(0));
            metrics::counter!("manabi_x402_revenue_atomic_total").increment(amount);
            "settled"
        }
        Outcome::Unknown(_) => "unknown",
        _ => "failed",
    };
    metrics::counter!("manabi_x402_payments_total", "outcome" => label, "operation" => operation)
        .increment(1);
    let Some(event) = event else {
        return outcome;
    };
    let record = AppendCommand::single(
        stream,
        ExpectedVersion::Exact(claimed.version),
        vec![NewEvent::new(event, metadata, chrono::Utc::now())],
    );
    match store.append(record).await {
        Ok(Ok(_)) => {}
        // Only a second presentation of a payment whose outcome was unknown can meet
        // another outcome here; the chain took the authorization once, so that one stands.
        Ok(Err(AppendRejection::WrongVersion { .. })) if claimed.resumed => return Outcome::Used,
        Ok(Err(rejection)) => {
            tracing::error!(%rejection, "recording an x402 settlement outcome failed");
        }
        Err(error) => {
            // The money moved (or did not) whatever the record says; the claim stays, so
            // the nonce cannot pay twice, and the statement lists it as unsettled.
            tracing::error!(%error, "recording an x402 settlement outcome failed");
        }
    }
    outcome
}

/// Step 5: the nonce claimed `NoStream` with the payment record. A nonce already claimed
/// is refused, unless its settlement gave no answer and this is the same payment (the
/// same operation, resource and amount) presented again: then it is settled again.
async fn take_claim(
    state: &AppState,
    stream: &StreamName,
    claim: X402PaymentClaimed,
    metadata: &EventMetadata,
) -> Result<Claimed, Outcome> {
    let store = &state.ledger.store;
    let event = NewEvent::new(
        LedgerEvent::X402PaymentClaimed(claim.clone()),
        metadata.clone(),
        chrono::Utc::now(),
    );
    let invoice_id = event.id;
    let command = AppendCommand::single(stream.clone(), ExpectedVersion::NoStream, vec![event]);
    match store.append(command).await {
        Ok(Ok(_)) => {
            return Ok(Claimed {
                invoice_id,
                version: 0,
                resumed: false,
            });
        }
        Ok(Err(AppendRejection::WrongVersion { .. })) => {}
        Ok(Err(rejection)) => return Err(Outcome::LedgerUnavailable(format!("{rejection:?}"))),
        Err(error) => return Err(Outcome::LedgerUnavailable(error.to_string())),
    }
    let events = store
        .read_stream_to_end(stream, 0)
        .await
        .map_err(|error| Outcome::LedgerUnavailable(error.to_string()))?;
    let resumable = unknown_claim(&events)
        .filter(|(_, earlier)| {
            earlier.operation == claim.operation
                && earlier.resource_id == claim.resource_id
                && earlier.amount == claim.amount
        })
        .map(|(id, _)| id);
    match resumable {
        Some(invoice_id) => Ok(Claimed {
            invoice_id,
            version: 1,
            resumed: true,
        }),
        None => {
            metrics::counter!("manabi_x402_payments_total", "outcome" => "replayed").increment(1);
            Err(Outcome::Used)
        }
    }
}
