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
//!   price; a refused append is answered 200 only when that version 1 is on record,
//!   anything else a 503 Stripe retries. `charge.refunded` takes back the refunded share
//!   of the purchase's points (`points × amount_refunded / amount`, rounded down, at most
//!   the balance; `amount_refunded` is the charge's running total), less what earlier
//!   refunds of the payment took: one adjustment per step, keyed
//!   `stripe-refund:{pi}[:{step}]`, so a replayed delivery takes nothing more.

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
            Ok(Err(rejection)) => return credited_before(store, session_id, &rejection).await,
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("the account kept changing".to_owned())
}

/// After the credit of a session was refused: answered 200 only when the session's
/// completion is on record (another delivery credited it, in the same append); any other
/// refusal is an error, so Stripe delivers again.
async fn credited_before(
    store: &Store,
    session_id: &str,
    rejection: &AppendRejection,
) -> Result<&'static str, String> {
    let (_, completed) = started(store, session_id).await?;
    if completed {
        Ok("already credited")
    } else {
        Err(format!("the credit was refused: {rejection}"))
    }
}

/// Takes back the refunded share of a purchase's points, once per share refunded.
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
    let (Some(paid), Some(refunded)) = (
        charge["amount"].as_i64().filter(|paid| *paid > 0),
        charge["amount_refunded"].as_i64(),
    ) else {
        tracing::warn!(payment_intent, "a Stripe refund without its amounts");
        return Ok("no amounts");
    };
    let taking = TakeBack {
        account_id: started.account_id,
        payment_intent,
        points: refunded_points(started.points, refunded, paid),
        metadata: stripe_metadata(event_id),
    };
    take_back(store, &taking).await
}

/// The points a refund of `refunded` of `paid` yen takes back of a pack of `points`:
/// its share, rounded down (`refunded` is Stripe's running total for the charge).
fn refunded_points(points: i64, refunded: i64, paid: i64) -> i64 {
    assert!(paid > 0, "a refund of a paid charge");
    let refunded = refunded.clamp(0, paid);
    // i128: points times yen cannot overflow; the share is at most `points`.
    let share = i128::from(points) * i128::from(refunded) / i128::from(paid);
    i64::try_from(share).unwrap_or(points)
}

/// Refund adjustments of one payment a delivery walks at most.
const REFUND_STEPS_MAX: u32 = 1_000;

/// What the refunds of a payment should have taken back in all.
struct TakeBack<'a> {
    account_id: uuid::Uuid,
    payment_intent: &'a str,
    points: i64,
    metadata: EventMetadata,
}

/// The idempotency key of the `step`-th adjustment of a payment's refunds (the first is
/// the key a full refund has always had).
fn refund_key(payment_intent: &str, step: u32) -> String {
    match step {
        0 => format!("stripe-refund:{payment_intent}"),
        step => format!("stripe-refund:{payment_intent}:{step}"),
    }
}

/// Takes back what the payment's earlier refunds left of `taking.points`, at most the
/// balance. Each take is an adjustment keyed by its step: the ledger refuses a step on
/// record as a duplicate and hands it back, which says what it took, so the steps are
/// walked in order and a replayed or reordered delivery takes nothing twice.
async fn take_back(store: &Store, taking: &TakeBack<'_>) -> Result<&'static str, String> {
    let mut taken = 0;
    let mut step = 0;
    let mut clashes = 0;
    while step < REFUND_STEPS_MAX && clashes < ATTEMPTS {
        let wanted = taking.points - taken;
        if wanted <= 0 {
            return Ok("already taken back");
        }
        let account = load_account(store, taking.account_id)
            .await
            .map_err(|error| error.to_string())?;
        let key = refund_key(taking.payment_intent, step);
        let Some(debit) = account
            .decide_refund_debit(wanted, &key)
            .map_err(|error| error.to_string())?
        else {
            return Ok("nothing left to take back");
        };
        let command = AppendCommand::single(
            StreamName::account(account.id),
            ExpectedVersion::Exact(account.version),
            vec![NewEvent::new(
                debit,
                taking.metadata.clone(),
                chrono::Utc::now(),
            )],
        );
        match store.append(command).await {
            Ok(Ok(_)) => return Ok("points taken back"),
            Ok(Err(AppendRejection::DuplicateIdempotencyKey { existing, .. })) => {
                taken += earlier_take(&existing, account.id)?;
                step += 1;
            }
            Ok(Err(
                AppendRejection::WrongVersion { .. }
                | AppendRejection::EarlierCommandRejected { .. },
            )) => clashes += 1,
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("the refund could not be recorded: the account kept changing".to_owned())
}

/// The points an earlier refund step took back.
fn earlier_take(
    existing: &manabi_ledger::store::RecordedEvent,
    account_id: uuid::Uuid,
) -> Result<i64, String> {
    match &existing.event {
        LedgerEvent::PointsCredited(credited)
            if existing.stream == StreamName::account(account_id) && credited.points < 0 =>
        {
            Ok(-credited.points)
        }
        _ => Err(format!(
            "the refund key is already used by event {} on {}",
            existing.id, existing.stream
        )),
    }
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

    #[test]
    fn a_refund_takes_back_its_share_rounded_down() {
        assert_eq!(
            refunded_points(5_250, 1_234, 5_000),
            1_295,
            "5250 × 1234 / 5000"
        );
        assert_eq!(refunded_points(5_250, 5_000, 5_000), 5_250, "all of it");
        assert_eq!(refunded_points(1_000, 0, 1_000), 0);
        assert_eq!(refunded_points(1_000, 1, 3), 333);
        assert_eq!(
            refunded_points(1_000, 9_999, 1_000),
            1_000,
            "never more than the pack"
        );
        assert_eq!(refunded_points(1_000, -5, 1_000), 0);
        assert_eq!(refunded_points(i64::MAX, 7, 7), i64::MAX, "no overflow");
    }

    #[test]
    fn the_first_refund_step_keeps_the_key_full_refunds_always_had() {
        assert_eq!(refund_key("pi_1", 0), "stripe-refund:pi_1");
        assert_eq!(refund_key("pi_1", 2), "stripe-refund:pi_1:2");
    }
}
