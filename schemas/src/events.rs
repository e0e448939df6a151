//! Ledger event types: the facts the billing ledger records, one versioned payload each.
//!
//! An event is stored as `(event_type, schema_version, payload JSON, metadata JSON)`.
//! The payload structs below are version 1 of every type; a later version gets a new
//! struct and an upcast in [`LedgerEvent::from_parts`], old rows are never rewritten.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Why points were credited to an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreditKind {
    Purchase,
    Grant,
    Refund,
    Adjustment,
}

/// Which transport a billed call came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Rest,
    Mcp,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Rest => "rest",
            Transport::Mcp => "mcp",
        }
    }
}

/// What a daily call cap applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum CapScope {
    Account,
    Key { key_id: Uuid },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountOpened {
    pub account_id: Uuid,
    pub email: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsCredited {
    pub kind: CreditKind,
    pub points: i64,
    /// Unique forever across the whole ledger; a retry returns the first credit.
    pub idempotency_key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyIssued {
    pub key_id: Uuid,
    /// Hex SHA-256 of the key's secret part; the secret itself is never stored.
    pub secret_sha256: String,
    pub name: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyRevoked {
    pub key_id: Uuid,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyCapChanged {
    #[serde(flatten)]
    pub scope: CapScope,
    pub daily_calls: u32,
}

/// One billed call: the debit and the daily-quota tick at once. Its event id is the
/// invoice id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallCharged {
    pub key_id: Uuid,
    pub operation: String,
    pub resource_id: Option<String>,
    pub points: i64,
    pub price_list_version: u32,
    /// The UTC day the call counts against.
    pub day: NaiveDate,
    pub request_id: String,
    pub transport: Transport,
    /// The caller's `Idempotency-Key`, when it sent one, with a digest of the request it
    /// named: a retry of that request is answered with this charge instead of a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency: Option<ChargeIdempotency>,
}

/// An `Idempotency-Key` and the request it was first used for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeIdempotency {
    pub key: String,
    /// SHA-256 (hex) of the operation, the entry and the parameters.
    pub request_digest: String,
}

/// The one generation of a locale version of an entry, on its stream
/// `localization-{entry}-{locale}`. Appended only together with the 25-point charge of the
/// caller who asked first (the same request id), so the stream existing means the version
/// was paid for; the localized document itself is kept here, durably and for everyone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalizationGenerated {
    /// `learnable` or `lesson`.
    pub document: String,
    pub entry_id: String,
    pub locale: String,
    pub account_id: Uuid,
    /// The request whose charge paid for the generation.
    pub request_id: String,
    /// The localized document as stored (a lesson in its raw markup); its
    /// `localization` member names the generator of each field.
    pub content: serde_json::Value,
    /// How long the generation took.
    pub generation_ms: u64,
    /// The x402 payment stream (`x402-{payer}-{nonce}`) that paid for the generation
    /// when it was paid per call; `account_id` is then the nil id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x402_payment: Option<String>,
}

/// An x402 payment authorization claimed for one call, on its stream
/// `x402-{payer}-{nonce}` (appended `NoStream`, so a nonce pays for one answer only).
/// Written after the signature and the facilitator's verification, before settlement;
/// the outcome follows on the same stream ([`X402PaymentSettled`],
/// [`X402PaymentFailed`] or [`X402SettlementUnknown`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct X402PaymentClaimed {
    /// The paying address (`from` of the authorization), lowercase hex.
    pub payer: String,
    /// The authorization's 32-byte nonce, lowercase hex with `0x`.
    pub nonce: String,
    /// 1 (`X-PAYMENT`) or 2 (`PAYMENT-SIGNATURE`, MCP `_meta`).
    pub x402_version: u8,
    pub scheme: String,
    /// CAIP-2, e.g. `eip155:84532`.
    pub network: String,
    /// The token contract, lowercase hex.
    pub asset: String,
    pub pay_to: String,
    /// Atomic units of the asset (USDC: millionths of a dollar), as a decimal string.
    pub amount: String,
    pub operation: String,
    pub resource_id: Option<String>,
    /// The JPY list price the amount was converted from.
    pub price_jpy: i64,
    pub price_list_version: u32,
    /// The configured conversion rate, yen per US dollar, as configured (decimal text).
    pub jpy_per_usd: String,
    /// When that rate was taken.
    pub rate_at: DateTime<Utc>,
    /// The authorization's `validBefore` (Unix seconds).
    pub valid_before: u64,
    pub request_id: String,
    pub transport: Transport,
}

/// The facilitator settled a claimed payment on chain: the answer was served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct X402PaymentSettled {
    /// The settlement's transaction hash.
    pub transaction: String,
    pub network: String,
}

/// The facilitator refused to settle a claimed payment: nothing was served, nothing is
/// owed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct X402PaymentFailed {
    /// The facilitator's error reason.
    pub reason: String,
}

/// The settlement of a claimed payment gave no answer (the facilitator timed out, broke
/// off, or answered outside its protocol): the money may have moved. Nothing was served.
/// The same payment presented again is settled again (the chain takes an authorization
/// once), and a success then follows at version 2 ([`X402PaymentSettled`]); until then
/// the operator's statement lists the payment as unknown, to reconcile with the chain by
/// payer and nonce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct X402SettlementUnknown {
    /// Why the outcome is not known.
    pub reason: String,
}

/// A one-time sign-in link mailed to `email`, on its stream `portal-link-{sha256 of the
/// link's secret}`; used at most once ([`SignInLinkUsed`] at version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInLinkIssued {
    pub email: String,
    pub expires_at: DateTime<Utc>,
}

/// The link signed `account_id` in; the link cannot sign anyone in again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInLinkUsed {
    pub account_id: Uuid,
}

/// A portal session, on its stream `portal-session-{sha256 of the cookie's secret}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortalSessionOpened {
    pub account_id: Uuid,
    pub email: String,
    pub expires_at: DateTime<Utc>,
}

/// The developer portal's one account for an email address, on the stream
/// `portal-email-{sha256 of the lowercase address}` (appended `NoStream`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailBound {
    pub account_id: Uuid,
}

/// A pack's Stripe Checkout Session, opened from the portal, on the stream
/// `stripe-checkout-{session id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckoutStarted {
    pub account_id: Uuid,
    pub pack: String,
    /// Points the pack credits (its bonus included).
    pub points: i64,
    pub price_jpy: i64,
}

/// Stripe reported the session paid; appended once (version 1) with the credit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckoutCompleted {
    pub payment_intent: Option<String>,
    /// The Stripe event that reported it.
    pub stripe_event: String,
}

/// Points back to the checkout a Stripe payment paid for, on the stream
/// `stripe-payment-{payment intent}` (so a refund finds its purchase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripePaymentLinked {
    pub session_id: String,
}

/// An OAuth client registered itself (RFC 7591), on `oauth-client-{client id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthClientRegistered {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uris: Vec<String>,
}

/// An authorization code, on `oauth-code-{sha256 of the code}`: the person who consented,
/// the key their consent created for the client, and the PKCE challenge to meet. Used
/// once ([`OAuthConsumed`] at version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthCodeIssued {
    pub client_id: String,
    pub account_id: Uuid,
    /// The API key the grant acts as: billing, caps and revocation are the key's.
    pub key_id: Uuid,
    pub redirect_uri: String,
    /// Base64url SHA-256 of the verifier (S256).
    pub code_challenge: String,
    /// The resource the tokens are for (RFC 8707).
    pub resource: String,
    pub scope: String,
    pub expires_at: DateTime<Utc>,
}

/// An access or refresh token, on `oauth-token-{sha256 of the token}`. A refresh token
/// is used once ([`OAuthConsumed`] at version 1): each use rotates it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthTokenIssued {
    /// `access` or `refresh`.
    pub kind: String,
    pub client_id: String,
    pub account_id: Uuid,
    pub key_id: Uuid,
    pub resource: String,
    pub scope: String,
    pub expires_at: DateTime<Utc>,
}

/// A code or refresh token was used; it works no more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthConsumed {}

/// "Sign out everywhere": every portal session of the address opened before `at` ends,
/// on the address's stream `portal-email-{sha256 of the lowercase address}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortalSessionsEnded {
    pub at: DateTime<Utc>,
}

/// The session was signed out; its cookie no longer works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortalSessionClosed {}

/// Every event the ledger records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerEvent {
    AccountOpened(AccountOpened),
    PointsCredited(PointsCredited),
    ApiKeyIssued(ApiKeyIssued),
    ApiKeyRevoked(ApiKeyRevoked),
    DailyCapChanged(DailyCapChanged),
    CallCharged(CallCharged),
    LocalizationGenerated(LocalizationGenerated),
    X402PaymentClaimed(X402PaymentClaimed),
    X402PaymentSettled(X402PaymentSettled),
    X402PaymentFailed(X402PaymentFailed),
    X402SettlementUnknown(X402SettlementUnknown),
    SignInLinkIssued(SignInLinkIssued),
    SignInLinkUsed(SignInLinkUsed),
    PortalSessionOpened(PortalSessionOpened),
    PortalSessionClosed(PortalSessionClosed),
    EmailBound(EmailBound),
    CheckoutStarted(CheckoutStarted),
    CheckoutCompleted(CheckoutCompleted),
    StripePaymentLinked(StripePaymentLinked),
    OAuthClientRegistered(OAuthClientRegistered),
    OAuthCodeIssued(OAuthCodeIssued),
    OAuthTokenIssued(OAuthTokenIssued),
    OAuthConsumed(OAuthConsumed),
    PortalSessionsEnded(PortalSessionsEnded),
}

/// A stored event could not be read back as a [`LedgerEvent`].
#[derive(Debug, thiserror::Error)]
pub enum EventDecodeError {
    #[error("unknown event type {event_type} (schema version {schema_version})")]
    UnknownType {
        event_type: String,
        schema_version: i32,
    },
    #[error("payload of {event_type} does not match its schema: {source}")]
    Payload {
        event_type: String,
        source: serde_json::Error,
    },
}

impl LedgerEvent {
    /// The stored type name.
    pub fn event_type(&self) -> &'static str {
        match self {
            LedgerEvent::AccountOpened(_) => "AccountOpened",
            LedgerEvent::PointsCredited(_) => "PointsCredited",
            LedgerEvent::ApiKeyIssued(_) => "ApiKeyIssued",
            LedgerEvent::ApiKeyRevoked(_) => "ApiKeyRevoked",
            LedgerEvent::DailyCapChanged(_) => "DailyCapChanged",
            LedgerEvent::CallCharged(_) => "CallCharged",
            LedgerEvent::LocalizationGenerated(_) => "LocalizationGenerated",
            LedgerEvent::X402PaymentClaimed(_) => "X402PaymentClaimed",
            LedgerEvent::X402PaymentSettled(_) => "X402PaymentSettled",
            LedgerEvent::X402PaymentFailed(_) => "X402PaymentFailed",
            LedgerEvent::X402SettlementUnknown(_) => "X402SettlementUnknown",
            LedgerEvent::SignInLinkIssued(_) => "SignInLinkIssued",
            LedgerEvent::SignInLinkUsed(_) => "SignInLinkUsed",
            LedgerEvent::PortalSessionOpened(_) => "PortalSessionOpened",
            LedgerEvent::PortalSessionClosed(_) => "PortalSessionClosed",
            LedgerEvent::EmailBound(_) => "EmailBound",
            LedgerEvent::CheckoutStarted(_) => "CheckoutStarted",
            LedgerEvent::CheckoutCompleted(_) => "CheckoutCompleted",
            LedgerEvent::StripePaymentLinked(_) => "StripePaymentLinked",
            LedgerEvent::OAuthClientRegistered(_) => "OAuthClientRegistered",
            LedgerEvent::OAuthCodeIssued(_) => "OAuthCodeIssued",
            LedgerEvent::OAuthTokenIssued(_) => "OAuthTokenIssued",
            LedgerEvent::OAuthConsumed(_) => "OAuthConsumed",
            LedgerEvent::PortalSessionsEnded(_) => "PortalSessionsEnded",
        }
    }

    /// The payload schema version written today (every type is at version 1).
    pub fn schema_version(&self) -> i32 {
        1
    }

    /// The payload as JSON.
    pub fn payload(&self) -> serde_json::Value {
        // Serializing these plain structs cannot fail: no maps with non-string keys.
        let value = match self {
            LedgerEvent::AccountOpened(p) => serde_json::to_value(p),
            LedgerEvent::PointsCredited(p) => serde_json::to_value(p),
            LedgerEvent::ApiKeyIssued(p) => serde_json::to_value(p),
            LedgerEvent::ApiKeyRevoked(p) => serde_json::to_value(p),
            LedgerEvent::DailyCapChanged(p) => serde_json::to_value(p),
            LedgerEvent::CallCharged(p) => serde_json::to_value(p),
            LedgerEvent::LocalizationGenerated(p) => serde_json::to_value(p),
            LedgerEvent::X402PaymentClaimed(p) => serde_json::to_value(p),
            LedgerEvent::X402PaymentSettled(p) => serde_json::to_value(p),
            LedgerEvent::X402PaymentFailed(p) => serde_json::to_value(p),
            LedgerEvent::X402SettlementUnknown(p) => serde_json::to_value(p),
            LedgerEvent::SignInLinkIssued(p) => serde_json::to_value(p),
            LedgerEvent::SignInLinkUsed(p) => serde_json::to_value(p),
            LedgerEvent::PortalSessionOpened(p) => serde_json::to_value(p),
            LedgerEvent::PortalSessionClosed(p) => serde_json::to_value(p),
            LedgerEvent::EmailBound(p) => serde_json::to_value(p),
            LedgerEvent::CheckoutStarted(p) => serde_json::to_value(p),
            LedgerEvent::CheckoutCompleted(p) => serde_json::to_value(p),
            LedgerEvent::StripePaymentLinked(p) => serde_json::to_value(p),
            LedgerEvent::OAuthClientRegistered(p) => serde_json::to_value(p),
            LedgerEvent::OAuthCodeIssued(p) => serde_json::to_value(p),
            LedgerEvent::OAuthTokenIssued(p) => serde_json::to_value(p),
            LedgerEvent::OAuthConsumed(p) => serde_json::to_value(p),
            LedgerEvent::PortalSessionsEnded(p) => serde_json::to_value(p),
        };
        value.unwrap_or(serde_json::Value::Null)
    }

    /// Reads a stored event back, upcasting older schema versions when there are any.
    pub fn from_parts(
        event_type: &str,
        schema_version: i32,
        payload: serde_json::Value,
    ) -> Result<Self, EventDecodeError> {
        fn parse<T: serde::de::DeserializeOwned>(
            event_type: &str,
            payload: serde_json::Value,
        ) -> Result<T, EventDecodeError> {
            serde_json::from_value(payload).map_err(|source| EventDecodeError::Payload {
                event_type: event_type.to_owned(),
                source,
            })
        }
        match (event_type, schema_version) {
            ("AccountOpened", 1) => parse(event_type, payload).map(LedgerEvent::AccountOpened),
            ("PointsCredited", 1) => parse(event_type, payload).map(LedgerEvent::PointsCredited),
            ("ApiKeyIssued", 1) => parse(event_type, payload).map(LedgerEvent::ApiKeyIssued),
            ("ApiKeyRevoked", 1) => parse(event_type, payload).map(LedgerEvent::ApiKeyRevoked),
            ("DailyCapChanged", 1) => parse(event_type, payload).map(LedgerEvent::DailyCapChanged),
            ("CallCharged", 1) => parse(event_type, payload).map(LedgerEvent::CallCharged),
            ("LocalizationGenerated", 1) => {
                parse(event_type, payload).map(LedgerEvent::LocalizationGenerated)
            }
            ("X402PaymentClaimed", 1) => {
                parse(event_type, payload).map(LedgerEvent::X402PaymentClaimed)
            }
            ("X402PaymentSettled", 1) => {
                parse(event_type, payload).map(LedgerEvent::X402PaymentSettled)
            }
            ("X402PaymentFailed", 1) => {
                parse(event_type, payload).map(LedgerEvent::X402PaymentFailed)
            }
            ("X402SettlementUnknown", 1) => {
                parse(event_type, payload).map(LedgerEvent::X402SettlementUnknown)
            }
            ("SignInLinkIssued", 1) => {
                parse(event_type, payload).map(LedgerEvent::SignInLinkIssued)
            }
            ("SignInLinkUsed", 1) => parse(event_type, payload).map(LedgerEvent::SignInLinkUsed),
            ("PortalSessionOpened", 1) => {
                parse(event_type, payload).map(LedgerEvent::PortalSessionOpened)
            }
            ("PortalSessionClosed", 1) => {
                parse(event_type, payload).map(LedgerEvent::PortalSessionClosed)
            }
            ("EmailBound", 1) => parse(event_type, payload).map(LedgerEvent::EmailBound),
            ("CheckoutStarted", 1) => parse(event_type, payload).map(LedgerEvent::CheckoutStarted),
            ("CheckoutCompleted", 1) => {
                parse(event_type, payload).map(LedgerEvent::CheckoutCompleted)
            }
            ("StripePaymentLinked", 1) => {
                parse(event_type, payload).map(LedgerEvent::StripePaymentLinked)
            }
            ("OAuthClientRegistered", 1) => {
                parse(event_type, payload).map(LedgerEvent::OAuthClientRegistered)
            }
            ("OAuthCodeIssued", 1) => parse(event_type, payload).map(LedgerEvent::OAuthCodeIssued),
            ("OAuthTokenIssued", 1) => {
                parse(event_type, payload).map(LedgerEvent::OAuthTokenIssued)
            }
            ("OAuthConsumed", 1) => parse(event_type, payload).map(LedgerEvent::OAuthConsumed),
            ("PortalSessionsEnded", 1) => {
                parse(event_type, payload).map(LedgerEvent::PortalSessionsEnded)
            }
            _ => Err(EventDecodeError::UnknownType {
                event_type: event_type.to_owned(),
                schema_version,
            }),
        }
    }

    /// The idempotency key the ledger must hold unique forever, if this event has one.
    pub fn idempotency_key(&self) -> Option<&str> {
        match self {
            LedgerEvent::PointsCredited(p) => Some(&p.idempotency_key),
            _ => None,
        }
    }
}

/// Who and what caused an event; stored next to the payload.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// Who did it, for actions a person took: `portal:<email>` in the developer portal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_round_trips_through_its_stored_parts() {
        let key_id = Uuid::now_v7();
        let events = [
            LedgerEvent::DailyCapChanged(DailyCapChanged {
                scope: CapScope::Key { key_id },
                daily_calls: 7,
            }),
            LedgerEvent::DailyCapChanged(DailyCapChanged {
                scope: CapScope::Account,
                daily_calls: 9,
            }),
            LedgerEvent::CallCharged(CallCharged {
                key_id,
                operation: "getLearnable".into(),
                resource_id: Some("kanji-1".into()),
                points: 1,
                price_list_version: 1,
                day: NaiveDate::from_ymd_opt(2026, 1, 2).expect("valid date"),
                request_id: "r1".into(),
                transport: Transport::Mcp,
                idempotency: None,
            }),
        ];
        for event in events {
            let back = LedgerEvent::from_parts(
                event.event_type(),
                event.schema_version(),
                event.payload(),
            )
            .expect("decodes");
            assert_eq!(back, event);
        }
    }
}
