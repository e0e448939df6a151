//! The client of the configured x402 facilitator: `POST /verify` before a payment is
//! claimed, `POST /settle` before the answer leaves (`GET /supported` is the
//! facilitator's own list of what it settles).

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::wire::{FacilitatorRequest, SettleResponse, VerifyResponse};

/// Longest a verification may take; the request timeout still bounds the whole call.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// Settlement waits for the chain, so it gets longer.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(8);

#[derive(Debug, Clone)]
pub struct Facilitator {
    base_url: String,
    http: reqwest::Client,
}

/// Why the facilitator gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the facilitator {0}")]
pub struct Unreachable(pub String);

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
                if error.is_timeout() {
                    Unreachable(format!("did not answer /{path} within {timeout:?}"))
                } else {
                    Unreachable(format!("could not be reached for /{path}"))
                }
            })?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|_| Unreachable(format!("broke off its /{path} answer")))?;
        // Facilitators answer a refused payment with 400 and the same body shape.
        serde_json::from_str(&text).map_err(|_| {
            Unreachable(format!(
                "answered /{path} with {status} and a body that is not its protocol"
            ))
        })
    }
}
