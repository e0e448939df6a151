//! Buying a pack through Stripe Checkout, and Stripe's webhooks crediting it.
//!
//! - **Checkout**: the portal creates a Checkout Session (`POST /v1/checkout/sessions`,
//!   form-encoded, the secret key as Bearer) for the pack's yen price, records
//!   `CheckoutStarted` on `stripe-checkout-{session}` (who, which pack, how many points)
//!   and sends the browser to Stripe's page.
//! - **Webhook** (`POST /stripe/webhook`): the `Stripe-Signature` header is checked
//!   (HMAC-SHA256 of `{t}.{body}` with the endpoint secret, `t` within five minutes)
//!   before anything is read. `checkout.session.completed` (or
//!   `…async_payment_succeeded`) of a paid session credits the recorded points in one
//!   append with `CheckoutCompleted` at version 1 of the session's stream, so a replayed
//!   or duplicated delivery credits once; the amount and currency must be the recorded
//!   price. `charge.refunded` of a fully refunded purchase takes its points back (at most
//!   the balance) as an adjustment, once per payment.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use manabi_ledger::account::Points;
use manabi_ledger::repository::load_account;
use manabi_ledger::store::{
    AppendCommand, AppendRejection, ExpectedVersion, NewEvent, StreamAppend,
};
use manabi_ledger::{EventStore, Store, StreamName};
use manabi_schemas::events::{
    CheckoutCompleted, CheckoutStarted, CreditKind, EventMetadata, LedgerEvent, StripePaymentLinked,
};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use sha2::Sha256;

use crate::settings::PackConfig;
use crate::state::AppState;

/// How old a webhook's timestamp may be.
const SIGNATURE_TOLERANCE_SECS: i64 = 300;
/// Attempts at an append that raced another change of the account.
const ATTEMPTS: usize = 5;

/// Stripe as configured.
#[derive(Clone)]
pub struct StripeSettings {
    /// `https://api.stripe.com`, or a stand-in speaking its protocol.
    pub api_url: String,
    pub secret_key: SecretString,
    pub webhook_secret: SecretString,
}

impl std::fmt::Debug for StripeSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeSettings")
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

/// A created Checkout Session: where to send the buyer.
pub struct Checkout {
    pub id: String,
    pub url: String,
}

fn checkout_stream(session_id: &str) -> StreamName {
    StreamName::new(format!("stripe-checkout-{session_id}"))
}

fn payment_stream(payment_intent: &str) -> StreamName {
    StreamName::new(format!("stripe-payment-{payment_intent}"))
}

/// Creates the Checkout Session of `pack` for the signed-in `account_id` and records it.
pub async fn start_checkout(
    state: &AppState,
    stripe: &StripeSettings,
    account_id: uuid::Uuid,
    email: &str,
    pack: &PackConfig,
) -> Result<Checkout, String> {
    let base = &state.settings.base_url;
    let points = pack.points + pack.bonus;
    let name = format!("manabi {} pack: {points} points", pack.id);
    let account = account_id.to_string();
    let price = pack.price_jpy.to_string();
    let success_url = format!("{base}/developers?notice=paid");
    let cancel_url = format!("{base}/developers?notice=cancelled");
    let pairs = [
        ("mode", "payment"),
        ("success_url", success_url.as_str()),
        ("cancel_url", cancel_url.as_str()),
        ("client_reference_id", account.as_str()),
        ("customer_email", email),
        ("line_items[0][quantity]", "1"),
        ("line_items[0][price_data][currency]", "jpy"),
        ("line_items[0][price_data][unit_amount]", price.as_str()),
        (
            "line_items[0][price_data][product_data][name]",
            name.as_str(),
        ),
        ("metadata[account_id]", account.as_str()),
        ("metadata[pack]", pack.id.as_str()),
    ];
    let response = reqwest::Client::new()
        .post(format!("{}/v1/checkout/sessions", stripe.api_url))
        .bearer_auth(stripe.secret_key.expose_secret())
        .header("Idempotency-Key", uuid::Uuid::now_v7().to_string())
        .form(&pairs)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .map_err(|_| "Stripe could not be reached".to_owned())?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|_| format!("Stripe answered {status} without JSON"))?;
    if !status.is_success() {
        let reason = body["error"]["message"]
            .as_str()
            .unwrap_or("no reason given");
        return Err(format!("Stripe refused the checkout ({status}): {reason}"));
    }
    let (Some(id), Some(url)) = (body["id"].as_str(), body["url"].as_str()) else {
        return Err("Stripe's checkout answer has no id or url".to_owned());
    };
    let started = LedgerEvent::CheckoutStarted(CheckoutStarted {
        account_id,
        pack: pack.id.clone(),
        points,
        price_jpy: pack.price_jpy,
    });
    let metadata = EventMetadata {
        actor: Some(format!("portal:{email}")),
        ..EventMetadata::default()
    };
    let command = AppendCommand::single(
        checkout_stream(id),
        ExpectedVersion::NoStream,
        vec![NewEvent::new(started, metadata, chrono::Utc::now())],
    );
    match state.ledger.store.append(command).await {
        Ok(Ok(_)) => Ok(Checkout {
            id: id.to_owned(),
            url: url.to_owned(),
        }),
        Ok(Err(rejection)) => Err(format!("the checkout could not be recorded: {rejection}")),
        Err(error) => Err(format!("the checkout could not be recorded: {error}")),
    }
}

/// `Stripe-Signature: t=…,v1=…[,v1=…]` matches `body` under `secret`, recently.
pub fn signature_holds(header: &str, body: &[u8], secret: &str, now: i64) -> bool {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.push(value.to_owned()),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return false;
    };
    if (now - timestamp).abs() > SIGNATURE_TOLERANCE_SECS {
        return false;
    }
    signatures.iter().any(|signature| {
        let Ok(expected) = hex::decode(signature) else {
            return false;
        };
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
            return false;
        };
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.verify_slice(&expected).is_ok()
    })
}

/// `POST /stripe/webhook`.
pub async fn webhook(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(stripe) = &state.settings.portal.stripe else {
        return (StatusCode::NOT_FOUND, "Stripe is not configured").into_response();
    };
    let signature = headers
        .get("stripe-signature")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let now = chrono::Utc::now().timestamp();
    if !signature_holds(signature, &body, stripe.webhook_secret.expose_secret(), now) {
        tracing::warn!("a Stripe webhook with a bad signature was refused");
        return (StatusCode::BAD_REQUEST, "bad signature").into_response();
    }
    let Ok(event) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let event_id = event["id"].as_str().unwrap_or_default();
    let object = &event["data"]["object"];
    let outcome = match event["type"].as_str().unwrap_or_default() {
        "checkout.session.completed" | "checkout.session.async_payment_succeeded"
            if object["payment_status"] == "paid" =>
        {
            complete(&state.ledger.store, object, event_id).await
        }
        "charge.refunded" => refund(&state.ledger.store, object, event_id).await,
        _ => Ok("ignored"),
    };
    match outcome {
        Ok(what) => (StatusCode::OK, what).into_response(),
        // Stripe retries a failed delivery; nothing was credited.
        Err(error) => {
            tracing::error!(%error, "a Stripe webhook could not be recorded");
            (StatusCode::SERVICE_UNAVAILABLE, "retry").into_response()
        }
    }
}

async fn started(
    store: &Store,
    session_id: &str,
) -> Result<(Option<CheckoutStarted>, bool), String> {
    let events = store
        .read_stream(&checkout_stream(session_id), 0, 2)
        .await
        .map_err(|error| error.to_string())?;
    let started = events.first().and_then(|recorded| match &recorded.event {
        LedgerEvent::CheckoutStarted(started) => Some(started.clone()),
        _ => None,
    });
    Ok((started, events.len() > 1))
}

fn stripe_metadata(event_id: &str) -> EventMetadata {
    EventMetadata {
        actor: Some(format!("stripe:{event_id}")),
        ..EventMetadata::default()
    }
}

/// Credits a paid session's points, once.
async fn complete(store: &Store, session: &Value, event_id: &str) -> Result<&'static str, String> {
    let session_id = session["id"].as_str().unwrap_or_default();
    let (Some(started), completed) = started(store, session_id).await? else {
        tracing::warn!(
            session_id,
            "a completed Stripe session this portal did not open"
        );
        return Ok("unknown session");
    };
    if completed {
        return Ok("already credited");
    }
    let amount = session["amount_total"].as_i64();
    let currency = session["currency"].as_str().unwrap_or_default();
    if amount != Some(started.price_jpy) || !currency.eq_ignore_ascii_case("jpy") {
        tracing::error!(
            session_id,
            ?amount,
            currency,
            "a paid session's amount differs from its pack"
        );
        return Ok("amount differs; not credited");
    }
    let points = Points::new(started.points).ok_or("a pack of no points")?;
    let payment_intent = session["payment_intent"].as_str().map(str::to_owned);
    let now = chrono::Utc::now();
    let metadata = stripe_metadata(event_id);
    for _ in 0..ATTEMPTS {
        let account = load_account(store, started.account_id)
            .await
            .map_err(|error| error.to_string())?;
        let key = format!("stripe-checkout:{session_id}");
        let credit = account
            .decide_credit(CreditKind::Purchase, points, &key)
            .map_err(|error| error.to_string())?;
        let mut appends = vec![
            StreamAppend {
                stream: StreamName::account(account.id),
                expected: ExpectedVersion::Exact(account.version),
                events: vec![NewEvent::new(credit, metadata.clone(), now)],
            },
            StreamAppend {
                stream: checkout_stream(session_id),
                expected: ExpectedVersion::Exact(0),
                events: vec![NewEvent::new(
                    LedgerEvent::CheckoutCompleted(CheckoutCompleted {
                        payment_intent: payment_intent.clone(),
                        stripe_event: event_id.to_owned(),
                    }),
                    metadata.clone(),
                    now,
                )],
            },
        ];
        if let Some(payment_intent) = &payment_intent {
            appends.push(StreamAppend {
                stream: payment_stream(payment_intent),
                expected: ExpectedVersion::NoStream,
                events: vec![NewEvent::new(
                    LedgerEvent::StripePaymentLinked(StripePaymentLinked {
                        session_id: session_id.to_owned(),
                    }),
                    metadata.clone(),
                    now,
                )],
            });
        }
        match store.append(AppendCommand { appends }).await {
            Ok(Ok(_)) => return Ok("credited"),
            Ok(Err(AppendRejection::WrongVersion { stream, .. }))
                if stream == StreamName::account(account.id) => {}
            Ok(Err(AppendRejection::DuplicateIdempotencyKey { .. })) => {
                return Ok("already credited");
            }
            Ok(Err(_)) => return Ok("already credited"),
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("the account kept changing".to_owned())
}

/// Takes back a fully refunded purchase's points, once.
async fn refund(store: &Store, charge: &Value, event_id: &str) -> Result<&'static str, String> {
    let Some(payment_intent) = charge["payment_intent"].as_str() else {
        return Ok("no payment intent");
    };
    let events = store
        .read_stream(&payment_stream(payment_intent), 0, 1)
        .await
        .map_err(|error| error.to_string())?;
    let Some(LedgerEvent::StripePaymentLinked(linked)) = events.first().map(|e| e.event.clone())
    else {
        return Ok("unknown payment");
    };
    let (Some(started), _) = started(store, &linked.session_id).await? else {
        return Ok("unknown session");
    };
    let (amount, refunded) = (
        charge["amount"].as_i64(),
        charge["amount_refunded"].as_i64(),
    );
    if amount.is_none() || refunded < amount {
        tracing::warn!(
            payment_intent,
            ?amount,
            ?refunded,
            "a partial Stripe refund: adjust the points by hand (manabi admin topup)"
        );
        return Ok("partial refund: left to the operator");
    }
    let key = format!("stripe-refund:{payment_intent}");
    for _ in 0..ATTEMPTS {
        let account = load_account(store, started.account_id)
            .await
            .map_err(|error| error.to_string())?;
        let Some(debit) = account
            .decide_refund_debit(started.points, &key)
            .map_err(|error| error.to_string())?
        else {
            return Ok("nothing left to take back");
        };
        let command = AppendCommand::single(
            StreamName::account(account.id),
            ExpectedVersion::Exact(account.version),
            vec![NewEvent::new(
                debit,
                stripe_metadata(event_id),
                chrono::Utc::now(),
            )],
        );
        match store.append(command).await {
            Ok(Ok(_)) => return Ok("points taken back"),
            Ok(Err(AppendRejection::DuplicateIdempotencyKey { .. })) => {
                return Ok("already taken back");
            }
            Ok(Err(_)) => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("the account kept changing".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(body: &[u8], secret: &str, t: i64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
    }

    #[test]
    fn signatures_are_checked_with_their_time() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(body, "whsec_x", 1_000);
        assert!(signature_holds(&header, body, "whsec_x", 1_100));
        assert!(
            !signature_holds(&header, body, "whsec_y", 1_100),
            "another secret"
        );
        assert!(
            !signature_holds(&header, b"{}", "whsec_x", 1_100),
            "another body"
        );
        assert!(!signature_holds(&header, body, "whsec_x", 2_000), "too old");
        assert!(!signature_holds("v1=00", body, "whsec_x", 1_000), "no time");
        assert!(!signature_holds("", body, "whsec_x", 1_000));
    }
}
