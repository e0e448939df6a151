//! The client of the configured x402 facilitator: `GET /supported` once at start (does
//! it settle our terms?), `POST /verify` before a payment is claimed, `POST /settle`
//! before the answer leaves.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::wire::{FacilitatorRequest, SettleResponse, VerifyResponse};

/// Longest a verification may take; the request timeout still bounds the whole call.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// Settlement waits for the chain, so it gets longer.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(8);

/// One kind of payment a facilitator settles.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupportedKind {
    pub x402_version: u8,
    pub scheme: String,
    pub network: String,
}

#[derive(Debug, serde::Deserialize)]
struct Supported {
    kinds: Vec<SupportedKind>,
}

#[derive(Debug, Clone)]
pub struct Facilitator {
    base_url: String,
    http: reqwest::Client,
}

/// Why the facilitator gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the facilitator {reason}")]
pub struct Unreachable {
    pub reason: String,
    /// False when the request never left (no connection): the facilitator did nothing.
    /// True when it may have acted on it (a time-out, a broken or unreadable answer).
    pub delivered: bool,
}

impl Unreachable {
    pub fn not_sent(reason: impl Into<String>) -> Unreachable {
        Unreachable {
            reason: reason.into(),
            delivered: false,
        }
    }

    fn no_answer(reason: String) -> Unreachable {
        Unreachable {
            reason,
            delivered: true,
        }
    }
}

impl Facilitator {
    pub fn new(base_url: &str) -> Facilitator {
        Facilitator {
            base_url: base_url.trim_end_matches('/').to_owned(),
            http: reqwest::Client::builder()
                .user_agent(concat!("manabi/", env!("CARGO_PKG_VERSION")))
                .build()
                .unwrap_or_default(),
        }
    }

    pub async fn verify(
        &self,
        x402_version: u8,
        payment: &Value,
        requirements: Value,
    ) -> Result<VerifyResponse, Unreachable> {
        self.post(
            "verify",
            x402_version,
            payment,
            requirements,
            VERIFY_TIMEOUT,
        )
        .await
    }

    pub async fn settle(
        &self,
        x402_version: u8,
        payment: &Value,
        requirements: Value,
    ) -> Result<SettleResponse, Unreachable> {
        self.post(
            "settle",
            x402_version,
            payment,
            requirements,
            SETTLE_TIMEOUT,
        )
        .await
    }

    /// `GET /supported`: the kinds (version, scheme, network) the facilitator settles.
    pub async fn supported(&self) -> Result<Vec<SupportedKind>, Unreachable> {
        let url = format!("{}/supported", self.base_url);
        let answer = self
            .http
            .get(&url)
            .timeout(VERIFY_TIMEOUT)
            .send()
            .await
            .map_err(|_| Unreachable::not_sent("could not be reached for /supported"))?;
        let supported: Supported = answer.json().await.map_err(|_| {
            Unreachable::no_answer("answered /supported outside its protocol".into())
        })?;
        Ok(supported.kinds)
    }

    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        x402_version: u8,
        payment: &Value,
        requirements: Value,
        timeout: Duration,
    ) -> Result<T, Unreachable> {
        let body = FacilitatorRequest {
            x402_version,
            payment_payload: payment,
            payment_requirements: requirements,
        };
        let url = format!("{}/{path}", self.base_url);
        let response = self
            .http
            .post(&url)
            .json(&body)
            .timeout(timeout)
            .send()
            .await
            .map_err(|error| {
                if error.is_connect() {
                    Unreachable::not_sent(format!("could not be reached for /{path}"))
                } else if error.is_timeout() {
                    Unreachable::no_answer(format!("did not answer /{path} within {timeout:?}"))
                } else {
                    Unreachable::no_answer(format!("broke off its /{path} answer"))
                }
            })?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|_| Unreachable::no_answer(format!("broke off its /{path} answer")))?;
        // Facilitators answer a refused payment with 400 and the same body shape.
        serde_json::from_str(&text).map_err(|_| {
            Unreachable::no_answer(format!(
                "answered /{path} with {status} and a body that is not its protocol"
            ))
        })
    }
}
