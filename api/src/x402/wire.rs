//! The x402 messages as they travel: payment requirements (v1 body, v2 header), payment
//! payloads (`X-PAYMENT` v1, `PAYMENT-SIGNATURE` v2, MCP `_meta`), the "exact" EVM
//! scheme's authorization, and the settlement response. Field names are the protocol's
//! camelCase.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `extra` of an "exact" EVM requirement: the token's EIP-712 domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenDomain {
    pub name: String,
    pub version: String,
}

/// What a v1 client is asked to pay (one entry of `accepts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV1 {
    pub scheme: String,
    pub network: String,
    pub max_amount_required: String,
    pub resource: String,
    pub description: String,
    pub mime_type: String,
    pub pay_to: String,
    pub max_timeout_seconds: u64,
    pub asset: String,
    pub extra: TokenDomain,
}

/// What a v2 client is asked to pay (one entry of `accepts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsV2 {
    pub scheme: String,
    pub network: String,
    pub amount: String,
    pub asset: String,
    pub pay_to: String,
    pub max_timeout_seconds: u64,
    pub extra: TokenDomain,
}

/// The resource a v2 requirement is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub url: String,
    pub description: String,
    pub mime_type: String,
}

/// The v1 402 body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV1 {
    pub x402_version: u8,
    pub error: String,
    pub accepts: Vec<RequirementsV1>,
}

/// The v2 402 terms (`PAYMENT-REQUIRED` header, MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredV2 {
    pub x402_version: u8,
    pub error: String,
    pub resource: ResourceInfo,
    pub accepts: Vec<RequirementsV2>,
}

/// EIP-3009 `TransferWithAuthorization` as signed by the payer; numbers are decimal
/// strings, the nonce 32 bytes of hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    pub from: String,
    pub to: String,
    pub value: String,
    pub valid_after: String,
    pub valid_before: String,
    pub nonce: String,
}

/// The "exact" EVM scheme's payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactPayload {
    pub signature: String,
    pub authorization: Authorization,
}

/// A v1 payment (`X-PAYMENT`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentV1 {
    pub x402_version: u8,
    pub scheme: String,
    pub network: String,
    pub payload: ExactPayload,
}

/// A v2 payment (`PAYMENT-SIGNATURE`, MCP `_meta["x402/payment"]`): the requirement it
/// accepts and the signed payload.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentV2 {
    pub x402_version: u8,
    pub accepted: AcceptedV2,
    pub payload: ExactPayload,
}

/// The requirement a v2 payment names; compared with ours member by member.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedV2 {
    pub scheme: String,
    pub network: String,
    pub amount: String,
    pub asset: String,
    pub pay_to: String,
}

/// The settlement answer (`PAYMENT-RESPONSE`, `X-PAYMENT-RESPONSE`, MCP `_meta`), and
/// the facilitator's `/settle` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettleResponse {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    #[serde(default)]
    pub transaction: String,
    #[serde(default)]
    pub network: String,
}

/// The facilitator's `/verify` answer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    pub is_valid: bool,
    #[serde(default)]
    pub invalid_reason: Option<String>,
    #[serde(default)]
    pub payer: Option<String>,
}

/// The body of the facilitator's `/verify` and `/settle`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorRequest<'a> {
    pub x402_version: u8,
    pub payment_payload: &'a Value,
    pub payment_requirements: Value,
}

/// Base64 (standard alphabet, padded) of a value's JSON.
pub fn encode(value: &impl Serialize) -> String {
    STANDARD.encode(serde_json::to_vec(value).unwrap_or_default())
}

/// JSON from base64, accepting the URL-safe alphabet and missing padding too.
pub fn decode(text: &str) -> Result<Value, String> {
    let text = text.trim();
    let bytes = STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(text))
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(text))
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text))
        .map_err(|_| "is not base64".to_owned())?;
    serde_json::from_slice(&bytes).map_err(|error| format!("is not JSON once decoded: {error}"))
}
