//! The discovery document (`data` of `GET /api/v1`) and the credit packs on sale.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a caller learns from `GET /api/v1`: where everything is, what it costs, and the
/// mode it is being served in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Discovery {
    pub name: String,
    pub description: String,
    /// Path of the MCP tool endpoint.
    pub mcp_endpoint: String,
    /// Path of the OpenAPI 3.1 description.
    pub openapi: String,
    /// Address of the human documentation page.
    pub docs_url: String,
    /// Every REST read, as `METHOD path?params`.
    pub endpoints: Vec<String>,
    /// Which credentials are accepted and how to send them.
    pub auth: String,
    pub pricing: Pricing,
    pub fair_use: FairUse,
    /// Hard cap of the search `limit` parameter.
    pub search_limit_max: u8,
    /// Where to sign up, buy points and create a key.
    pub signup_url: String,
    pub mode: Mode,
    /// Every locale content can be read in besides the canonical `en`, with the
    /// generators that serve it in the order they are tried.
    pub locales: Vec<LocaleSupport>,
    /// Pay-per-call without an account, when the server takes x402 payments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x402: Option<X402Terms>,
}

/// How to pay per call with x402 under `/x402/`: the network, the coin, the recipient,
/// the yen→dollar rate and what each price comes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct X402Terms {
    /// Prefix every operation is mirrored under (`/x402/api/v1/…`).
    pub prefix: String,
    /// The MCP endpoint paid through `_meta` (x402's MCP transport).
    pub mcp_endpoint: String,
    /// Always `exact` (EIP-3009 `transferWithAuthorization`).
    pub scheme: String,
    /// CAIP-2 network id, e.g. `eip155:8453` (x402 v2).
    pub network: String,
    /// The same network's x402 v1 name, e.g. `base`.
    pub network_v1: String,
    /// The token contract.
    pub asset: String,
    /// The token's EIP-712 domain name and version.
    pub asset_name: String,
    pub asset_version: String,
    pub asset_decimals: u32,
    pub pay_to: String,
    /// Yen per US dollar the JPY prices are converted at.
    pub jpy_per_usd: String,
    /// When that rate was taken (RFC 3339).
    pub rate_at: String,
    /// The prices in the token's atomic units (rounded up).
    pub read_amount: String,
    pub search_amount: String,
    pub localized_generation_amount: String,
}

/// One locale of localized reads (`locale=` on `getLearnable` and `getLesson`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LocaleSupport {
    /// ISO 639-1 code.
    pub locale: String,
    /// The language's English name.
    pub language: String,
    /// `dictionary-native` (JMdict, KANJIDIC2 and Tatoeba text already in the dataset;
    /// other English fields of an entry then need one of the next two),
    /// `embedded` (the in-process translation engine) or `provider` (a translation
    /// service over HTTP).
    pub generators: Vec<String>,
}

/// The live price list, in yen points (1 point = 1 JPY).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Pricing {
    /// Always `JPY`.
    pub currency: String,
    pub note: String,
    pub read_jpy: i64,
    pub search_jpy: i64,
    pub localized_generation_jpy: i64,
}

/// The daily fair-use call caps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FairUse {
    pub daily_call_cap_per_key: u32,
    pub daily_call_cap_per_account: u32,
    pub note: String,
}

/// How the caller is being served: the evaluation sample without a key, the whole
/// dataset with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Sample,
    Full,
}

/// A pack of prepaid points (`GET /api/v1/credit-packs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CreditPack {
    pub id: String,
    /// Points credited, before the bonus.
    pub points: i64,
    pub price_jpy: i64,
    /// Extra points credited on top of `points`.
    pub bonus: i64,
    /// Where to buy this pack.
    pub purchase_url: String,
}

/// The `data` of `GET /api/v1/credit-packs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CreditPacks {
    pub currency: String,
    pub packs: Vec<CreditPack>,
}

/// How a localized document was made (`localization` of a learnable or lesson read with
/// `locale`): which generator produced which fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Localization {
    /// The ISO 639-1 code of the document's language.
    pub locale: String,
    pub generators: Vec<LocalizedFields>,
}

/// One generator of a localized document and the fields it produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LocalizedFields {
    /// `dictionary-native`, `embedded` or `provider`.
    pub kind: String,
    pub name: String,
    pub version: String,
    /// The model, dictionary or provider language code used, when there is one.
    pub model: Option<String>,
    /// Dotted field paths, e.g. `grammar.examples.english`.
    pub fields: Vec<String>,
}
