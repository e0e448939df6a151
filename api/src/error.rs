//! The one error type of every handler, and how it becomes a failure envelope.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use manabi_schemas::params::ParamError;
use manabi_schemas::{ErrorBody, ErrorCode, ErrorEnvelope};

/// The IETF `RateLimit` header of the burst bucket: tokens left, seconds to reset.
pub fn ratelimit_header(remaining: u32, reset_secs: u64) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!("\"burst\";r={remaining};t={reset_secs}")).ok()
}

/// A refused request: a code from the one table in `schemas`, a message for humans and,
/// where it applies, how long to wait before retrying.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {}", .body.code.code(), .body.message)]
pub struct ApiError {
    pub body: ErrorBody,
    pub retry_after_secs: Option<u64>,
    /// The x402 payment terms of a 402 under `/x402/`: the body is then the x402 v1
    /// answer and the v2 terms travel in `PAYMENT-REQUIRED` (see `crate::x402`).
    pub payment_terms: Option<std::sync::Arc<crate::x402::Terms>>,
}

impl ApiError {
    pub fn new(code: ErrorCode) -> ApiError {
        ApiError::with_message(code, code.default_message())
    }

    pub fn with_message(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            body: ErrorBody::new(code, message),
            retry_after_secs: None,
            payment_terms: None,
        }
    }

    /// A parameter failed to parse: the message names it and says why.
    pub fn invalid_parameter(name: &str, error: ParamError) -> ApiError {
        ApiError::with_message(
            ErrorCode::InvalidParameter,
            format!("parameter `{name}` {error}"),
        )
    }

    pub fn missing_parameter(name: &str) -> ApiError {
        ApiError::with_message(
            ErrorCode::InvalidParameter,
            format!("parameter `{name}` is required"),
        )
    }

    pub fn not_found(what: &str, id: &str) -> ApiError {
        ApiError::with_message(ErrorCode::NotFound, format!("no {what} has the id `{id}`"))
    }

    /// A real entry a keyless caller cannot see: says so and where to get a key.
    pub fn not_in_sample(what: &str, id: &str, signup_url: &str) -> ApiError {
        let mut error = ApiError::with_message(
            ErrorCode::NotInSample,
            format!(
                "the {what} `{id}` exists but is not part of the keyless evaluation sample; \
                 get an API key at {signup_url} for the full dataset"
            ),
        );
        error.body.top_up_url = Some(signup_url.to_owned());
        error
    }

    pub fn unavailable() -> ApiError {
        ApiError::new(ErrorCode::Unavailable).retry_after(1)
    }

    pub fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.body.code
    }

    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.body.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The failure envelope as JSON text; a 402 with x402 terms is the x402 answer.
    pub fn to_json(&self) -> String {
        if let Some(terms) = &self.payment_terms {
            return terms.body_v1(&self.body);
        }
        let envelope = ErrorEnvelope::new(self.body.clone());
        // Serializing plain strings and integers cannot fail.
        serde_json::to_string(&envelope).unwrap_or_else(|_| {
            r#"{"ok":false,"error":{"code":"INTERNAL_ERROR","message":"error"}}"#.to_owned()
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), self.to_json()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(secs) = self.retry_after_secs {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
            // A burst refusal also says it in the IETF RateLimit form (no token left, and
            // when one is back); the server adds the matching RateLimit-Policy.
            if self.body.code == ErrorCode::RateLimited
                && let Some(value) = ratelimit_header(0, secs)
            {
                headers.insert(HeaderName::from_static("ratelimit"), value);
            }
        }
        if let Some(terms) = &self.payment_terms
            && let Ok(value) = HeaderValue::from_str(&terms.header_v2(&self.body))
        {
            headers.insert(
                HeaderName::from_static(crate::x402::PAYMENT_REQUIRED),
                value,
            );
        }
        if self.status() == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(r#"Bearer realm="manabi""#),
            );
        }
        response
    }
}
