//! The one table of error codes: each code with its HTTP status and default message.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

macro_rules! error_codes {
    ($($variant:ident => $status:literal, $code:literal, $message:literal;)*) => {
        /// Every error the service can answer with. The wire name is `code()`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The HTTP status this code is answered with.
            pub fn status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            /// The stable machine-readable name, e.g. `INVALID_API_KEY`.
            pub fn code(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The message used when the caller has nothing more specific to say.
            pub fn default_message(self) -> &'static str {
                match self { $(ErrorCode::$variant => $message,)* }
            }
        }
    };
}

error_codes! {
    InvalidParameter => 400, "INVALID_PARAMETER", "A request parameter is missing or invalid.";
    MalformedRequest => 400, "MALFORMED_REQUEST", "The request could not be parsed.";
    InvalidApiKey => 401, "INVALID_API_KEY", "The API key is missing, malformed or unknown.";
    ApiKeyRequired => 401, "API_KEY_REQUIRED", "This request needs an API key; nothing was charged.";
    RevokedApiKey => 401, "REVOKED_API_KEY", "The API key has been revoked or has expired.";
    InsufficientPoints => 402, "INSUFFICIENT_POINTS", "The account balance cannot cover this call.";
    PaymentRequired => 402, "PAYMENT_REQUIRED", "This resource requires payment.";
    PaymentInvalid => 402, "PAYMENT_INVALID", "The x402 payment was refused; nothing was charged or served.";
    SettlementFailed => 402, "SETTLEMENT_FAILED", "The x402 payment could not be settled; nothing was served.";
    PaymentMalformed => 400, "PAYMENT_MALFORMED", "The x402 payment header could not be decoded; nothing was charged.";
    NotFound => 404, "NOT_FOUND", "No resource exists at this address.";
    NotInSample => 404, "NOT_IN_SAMPLE", "This entry exists but is not part of the keyless evaluation sample; use an API key for the full dataset.";
    MethodNotAllowed => 405, "METHOD_NOT_ALLOWED", "This method is not allowed on this path.";
    NotAcceptable => 406, "NOT_ACCEPTABLE", "The requested media type cannot be produced.";
    IdempotencyKeyReused => 409, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used for a different request; nothing was charged.";
    PayloadTooLarge => 413, "PAYLOAD_TOO_LARGE", "The request body is too large.";
    UriTooLong => 414, "URI_TOO_LONG", "The request URI is too long.";
    UnsupportedMediaType => 415, "UNSUPPORTED_MEDIA_TYPE", "The request body has an unsupported media type.";
    LocaleUnavailable => 422, "LOCALE_UNAVAILABLE", "This entry cannot be served in the requested locale.";
    RateLimited => 429, "RATE_LIMITED", "Too many requests; slow down and retry after the indicated delay.";
    QuotaExceeded => 429, "QUOTA_EXCEEDED", "The daily fair-use call cap is reached; it resets at 00:00 UTC.";
    HeadersTooLarge => 431, "HEADERS_TOO_LARGE", "The request headers are too large.";
    Internal => 500, "INTERNAL_ERROR", "An internal error occurred; nothing was charged.";
    Unavailable => 503, "SERVICE_UNAVAILABLE", "The service is not ready; retry shortly. Nothing was charged.";
    SettlementOutcomeUnknown => 503, "SETTLEMENT_OUTCOME_UNKNOWN", "The x402 settlement gave no answer; nothing was served. Retry with the same payment: it is settled at most once.";
    ChargeOutcomeUnknown => 503, "CHARGE_OUTCOME_UNKNOWN", "The ledger failed while recording this call's charge; check the account's charges before retrying.";
    Timeout => 504, "TIMEOUT", "The request took too long; nothing was charged.";
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|code| code.code() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {name}")))
    }
}

impl utoipa::PartialSchema for ErrorCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        // `enum_values` replaces the list, so every code goes in at once.
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("Machine-readable error code"))
            .enum_values(Some(ErrorCode::ALL.iter().map(|code| code.code())))
            .into()
    }
}

impl ToSchema for ErrorCode {}

/// The `error` member of a failure envelope.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    /// Points required by the refused call (set for `INSUFFICIENT_POINTS`).
    pub required: Option<i64>,
    /// The account's balance at the moment of refusal.
    pub balance: Option<i64>,
    /// Where to buy points.
    pub top_up_url: Option<String>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            required: None,
            balance: None,
            top_up_url: None,
        }
    }
}

/// The failure envelope: `{"ok": false, "error": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct ErrorEnvelope {
    /// Always false.
    pub ok: bool,
    pub error: ErrorBody,
}

impl ErrorEnvelope {
    pub fn new(error: ErrorBody) -> Self {
        Self { ok: false, error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_statuses_are_errors() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.code()), "duplicate {}", code.code());
            assert!(code.status() >= 400 && code.status() < 600);
        }
    }

    #[test]
    fn serializes_as_its_name() {
        let json = serde_json::to_string(&ErrorCode::QuotaExceeded).unwrap();
        assert_eq!(json, "\"QUOTA_EXCEEDED\"");
        let back: ErrorCode = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ErrorCode::QuotaExceeded);
    }
}
