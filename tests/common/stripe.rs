//! A stand-in for the part of Stripe the portal uses, on a loopback port, speaking its
//! protocol: `POST /v1/checkout/sessions` (form-encoded, the secret key as Bearer) and
//! `GET /v1/checkout/sessions/{id}` answer Checkout Session objects; `GET /pay/{id}` is
//! the hosted payment page, whose button (`POST /pay/{id}`) marks the session paid,
//! delivers a signed `checkout.session.completed` to the webhook endpoint (the
//! `Stripe-Signature` scheme: HMAC-SHA256 of `{t}.{body}`) and sends the browser to the
//! session's `success_url`. Tests can replay a delivery, forge one, and refund (in full
//! or in part).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

pub const SECRET_KEY: &str = "sk_test_manabi";
pub const WEBHOOK_SECRET: &str = "whsec_manabi_test";

struct Stripe {
    base: String,
    sessions: Mutex<HashMap<String, Value>>,
    webhook_url: Mutex<Option<String>>,
    delivered: Mutex<Vec<(String, u16)>>,
    counter: AtomicUsize,
}

/// A running stand-in.
#[derive(Clone)]
pub struct FakeStripe {
    pub url: String,
    state: Arc<Stripe>,
}

impl FakeStripe {
    pub async fn start() -> FakeStripe {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        FakeStripe::start_on(listener)
    }

    pub fn start_on(listener: tokio::net::TcpListener) -> FakeStripe {
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let state = Arc::new(Stripe {
            base: url.clone(),
            sessions: Mutex::new(HashMap::new()),
            webhook_url: Mutex::new(None),
            delivered: Mutex::new(Vec::new()),
            counter: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/v1/checkout/sessions", post(create))
            .route("/v1/checkout/sessions/{id}", get(retrieve))
            .route("/pay/{id}", get(hosted_page).post(pay))
            .with_state(state.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeStripe { url, state }
    }

    /// Where webhooks go (the server's `/stripe/webhook`).
    pub fn set_webhook(&self, url: &str) {
        *self.state.webhook_url.lock().expect("url") = Some(url.to_owned());
    }

    pub fn session(&self, id: &str) -> Option<Value> {
        self.state
            .sessions
            .lock()
            .expect("sessions")
            .get(id)
            .cloned()
    }

    /// Every delivery made: the body and the status the endpoint answered.
    pub fn delivered(&self) -> Vec<(String, u16)> {
        self.state.delivered.lock().expect("delivered").clone()
    }

    /// Delivers `body` again, signed afresh (Stripe retries and duplicates deliveries).
    pub async fn redeliver(&self, body: &str) -> u16 {
        deliver(&self.state, body.to_owned(), WEBHOOK_SECRET).await
    }

    /// Delivers `body` signed with another secret.
    pub async fn deliver_forged(&self, body: &str) -> u16 {
        deliver(&self.state, body.to_owned(), "whsec_someone_else").await
    }

    /// Pays the session as the hosted page's button does; the webhook's status.
    pub async fn pay(&self, id: &str) -> u16 {
        let event = mark_paid(&self.state, id).expect("a known session");
        deliver(&self.state, event, WEBHOOK_SECRET).await
    }

    /// Refunds a paid session in full: `charge.refunded`.
    pub async fn refund(&self, id: &str) -> u16 {
        let session = self.session(id).expect("a known session");
        let amount = session["amount_total"].as_i64().expect("an amount");
        self.refund_up_to(id, amount).await
    }

    /// Refunds the session's charge until `amount_refunded` yen are refunded in all (a
    /// partial refund when less than the amount paid): `charge.refunded`, whose
    /// `amount_refunded` is the charge's running total, as Stripe sends it.
    pub async fn refund_up_to(&self, id: &str, amount_refunded: i64) -> u16 {
        let session = self.session(id).expect("a known session");
        let amount = session["amount_total"].as_i64().expect("an amount");
        let event = json!({
            "id": format!("evt_refund_{id}_{amount_refunded}"),
            "object": "event",
            "type": "charge.refunded",
            "data": {"object": {
                "id": format!("ch_{id}"),
                "object": "charge",
                "payment_intent": session["payment_intent"],
                "amount": amount,
                "amount_refunded": amount_refunded,
                "currency": "jpy",
                "refunded": amount_refunded >= amount,
            }},
        });
        deliver(&self.state, event.to_string(), WEBHOOK_SECRET).await
    }
}

fn stripe_error(status: StatusCode, message: &str) -> Response {
    let body = json!({"error": {"type": "invalid_request_error", "message": message}});
    (status, Json(body)).into_response()
}

async fn create(State(state): State<Arc<Stripe>>, headers: HeaderMap, body: String) -> Response {
    let authorized = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value == format!("Bearer {SECRET_KEY}"));
    if !authorized {
        return stripe_error(StatusCode::UNAUTHORIZED, "Invalid API Key provided");
    }
    let form: HashMap<String, String> = form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let field = |name: &str| form.get(name).cloned();
    let required = [
        "mode",
        "success_url",
        "line_items[0][price_data][currency]",
        "line_items[0][price_data][unit_amount]",
        "line_items[0][quantity]",
    ];
    if let Some(missing) = required.iter().find(|name| field(name).is_none()) {
        return stripe_error(
            StatusCode::BAD_REQUEST,
            &format!("Missing required param: {missing}."),
        );
    }
    let Some(amount) =
        field("line_items[0][price_data][unit_amount]").and_then(|a| a.parse::<i64>().ok())
    else {
        return stripe_error(StatusCode::BAD_REQUEST, "Invalid integer: unit_amount");
    };
    let n = state.counter.fetch_add(1, Ordering::SeqCst);
    let id = format!("cs_test_{n}");
    let metadata: serde_json::Map<String, Value> = form
        .iter()
        .filter_map(|(key, value)| {
            let name = key.strip_prefix("metadata[")?.strip_suffix(']')?;
            Some((name.to_owned(), json!(value)))
        })
        .collect();
    let session = json!({
        "id": id,
        "object": "checkout.session",
        "mode": field("mode"),
        "url": format!("{}/pay/{id}", state.base),
        "amount_total": amount,
        "currency": field("line_items[0][price_data][currency]"),
        "client_reference_id": field("client_reference_id"),
        "customer_email": field("customer_email"),
        "metadata": metadata,
        "payment_status": "unpaid",
        "status": "open",
        "payment_intent": null,
        "success_url": field("success_url"),
        "cancel_url": field("cancel_url"),
    });
    state
        .sessions
        .lock()
        .expect("sessions")
        .insert(id, session.clone());
    Json(session).into_response()
}

async fn retrieve(State(state): State<Arc<Stripe>>, Path(id): Path<String>) -> Response {
    match state.sessions.lock().expect("sessions").get(&id) {
        Some(session) => Json(session.clone()).into_response(),
        None => stripe_error(StatusCode::NOT_FOUND, "No such checkout.session"),
    }
}

async fn hosted_page(State(state): State<Arc<Stripe>>, Path(id): Path<String>) -> Response {
    let Some(session) = state.sessions.lock().expect("sessions").get(&id).cloned() else {
        return (StatusCode::NOT_FOUND, "no such session").into_response();
    };
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><title>Pay — test checkout</title></head><body>\
         <h1>Test checkout</h1><p>Pay ¥{} to manabi.</p>\
         <form method=\"post\" action=\"/pay/{id}\"><button type=\"submit\">Pay</button></form>\
         </body></html>",
        session["amount_total"]
    ))
    .into_response()
}

async fn pay(State(state): State<Arc<Stripe>>, Path(id): Path<String>) -> Response {
    let Some(event) = mark_paid(&state, &id) else {
        return (StatusCode::NOT_FOUND, "no such session").into_response();
    };
    deliver(&state, event, WEBHOOK_SECRET).await;
    let success = state.sessions.lock().expect("sessions")[&id]["success_url"]
        .as_str()
        .unwrap_or("/")
        .to_owned();
    Redirect::to(&success).into_response()
}

/// Marks the session paid; the `checkout.session.completed` event to deliver.
fn mark_paid(state: &Stripe, id: &str) -> Option<String> {
    let mut sessions = state.sessions.lock().expect("sessions");
    let session = sessions.get_mut(id)?;
    session["payment_status"] = json!("paid");
    session["status"] = json!("complete");
    session["payment_intent"] = json!(format!("pi_{id}"));
    let event = json!({
        "id": format!("evt_paid_{id}"),
        "object": "event",
        "type": "checkout.session.completed",
        "data": {"object": session.clone()},
    });
    Some(event.to_string())
}

async fn deliver(state: &Stripe, body: String, secret: &str) -> u16 {
    let Some(url) = state.webhook_url.lock().expect("url").clone() else {
        return 0;
    };
    let t = chrono::Utc::now().timestamp();
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("a key");
    mac.update(format!("{t}.{body}").as_bytes());
    let signature = format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()));
    let status = reqwest::Client::new()
        .post(url)
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await
        .map_or(0, |response| response.status().as_u16());
    state
        .delivered
        .lock()
        .expect("delivered")
        .push((body, status));
    status
}
