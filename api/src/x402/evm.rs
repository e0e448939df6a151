//! The "exact" EVM scheme checked here, before any facilitator is asked: the payload is
//! an EIP-3009 `TransferWithAuthorization` of the asset, signed under the asset's
//! EIP-712 domain; its signature must recover to `from`, it must pay `pay_to` exactly
//! the price, and it must be valid now. alloy does the typed-data hashing and the
//! secp256k1 recovery.

use alloy_primitives::{Address, B256, Signature, U256};
use alloy_sol_types::{Eip712Domain, SolStruct, sol};

use super::config::{Asset, Network};
use super::wire::ExactPayload;

sol! {
    /// EIP-3009's signed transfer, as USDC defines it.
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
}

/// Seconds an authorization must stay valid after it arrives, so settlement can land
/// before it expires.
pub const SETTLEMENT_MARGIN_SECS: u64 = 6;

/// A payload whose signature and terms hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub payer: Address,
    pub nonce: B256,
    pub valid_before: u64,
}

/// What the payment must be.
pub struct Expected<'a> {
    pub network: Network,
    pub asset: &'a Asset,
    pub pay_to: Address,
    pub amount: u128,
    pub now: u64,
}

/// Checks `payload` against `expected`; the error says which term failed.
pub fn check(payload: &ExactPayload, expected: &Expected<'_>) -> Result<Checked, String> {
    let authorization = &payload.authorization;
    let address = |name: &str, text: &str| {
        text.parse::<Address>()
            .map_err(|_| format!("authorization.{name} `{text}` is not an address"))
    };
    let number = |name: &str, text: &str| {
        U256::from_str_radix(text, 10)
            .map_err(|_| format!("authorization.{name} `{text}` is not a decimal integer"))
    };
    let from = address("from", &authorization.from)?;
    let to = address("to", &authorization.to)?;
    let value = number("value", &authorization.value)?;
    let valid_after = number("validAfter", &authorization.valid_after)?;
    let valid_before = number("validBefore", &authorization.valid_before)?;
    let nonce = parse_nonce(&authorization.nonce)?;
    if to != expected.pay_to {
        return Err(format!(
            "the authorization pays {to}, not the recipient {}",
            expected.pay_to
        ));
    }
    if value != U256::from(expected.amount) {
        return Err(format!(
            "the authorization is for {value} atomic units; this call costs exactly {}",
            expected.amount
        ));
    }
    let now = U256::from(expected.now);
    if valid_after > now {
        return Err(format!(
            "the authorization is not valid yet (validAfter {valid_after}, now {now})"
        ));
    }
    if valid_before <= now + U256::from(SETTLEMENT_MARGIN_SECS) {
        return Err(format!(
            "the authorization has expired or expires within {SETTLEMENT_MARGIN_SECS} s \
             (validBefore {valid_before}, now {now})"
        ));
    }
    let signature = parse_signature(&payload.signature)?;
    let message = TransferWithAuthorization {
        from,
        to,
        value,
        validAfter: valid_after,
        validBefore: valid_before,
        nonce,
    };
    let hash = message.eip712_signing_hash(&domain(expected.network, expected.asset));
    let signer = signature
        .recover_address_from_prehash(&hash)
        .map_err(|_| "the signature does not recover to any address".to_owned())?;
    if signer != from {
        return Err(format!(
            "the signature is not from {from} (it recovers to {signer})"
        ));
    }
    Ok(Checked {
        payer: from,
        nonce,
        valid_before: u64::try_from(valid_before).unwrap_or(u64::MAX),
    })
}

/// The asset's EIP-712 domain on `network`.
pub fn domain(network: Network, asset: &Asset) -> Eip712Domain {
    Eip712Domain::new(
        Some(asset.name.clone().into()),
        Some(asset.version.clone().into()),
        Some(U256::from(network.chain_id)),
        Some(asset.address),
        None,
    )
}

fn parse_nonce(text: &str) -> Result<B256, String> {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    if hex.len() != 64 {
        return Err(format!(
            "authorization.nonce must be 32 bytes of hex, got `{text}`"
        ));
    }
    text.parse::<B256>()
        .map_err(|_| format!("authorization.nonce `{text}` is not hex"))
}

/// A 65-byte `r ‖ s ‖ v` signature; a high `s` (the malleable twin) is refused, as the
/// token contract refuses it.
fn parse_signature(text: &str) -> Result<Signature, String> {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    let bytes = hex::decode(hex).map_err(|_| "the signature is not hex".to_owned())?;
    if bytes.len() != 65 {
        return Err(format!(
            "the signature must be 65 bytes (r, s, v), got {}",
            bytes.len()
        ));
    }
    let signature = Signature::from_raw(&bytes)
        .map_err(|error| format!("the signature cannot be read: {error}"))?;
    if signature.normalize_s().is_some() {
        return Err("the signature has a high s value".to_owned());
    }
    Ok(signature)
}
