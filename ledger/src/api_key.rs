//! API keys: `svc_ak_<account id>_<key id>_<secret>`, all lowercase hex. The key names
//! its account and key, so a caller is found without a read model; only the SHA-256 of
//! the secret is stored, and it is compared in constant time.

use std::fmt;

use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

pub const API_KEY_PREFIX: &str = "svc_ak_";
const SECRET_BYTES: usize = 32;

/// The raw text does not have the shape of a manabi API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("malformed API key")]
pub struct MalformedKey;

/// A parsed API key. The secret never prints (`Debug` redacts it).
#[derive(Clone)]
pub struct ApiKey {
    pub account_id: Uuid,
    pub key_id: Uuid,
    secret: SecretString,
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiKey")
            .field("account_id", &self.account_id)
            .field("key_id", &self.key_id)
            .field("secret", &"[redacted]")
            .finish()
    }
}

impl ApiKey {
    /// A new key with a random secret for `account_id`.
    pub fn generate(account_id: Uuid) -> Self {
        let mut secret = [0u8; SECRET_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut secret);
        ApiKey {
            account_id,
            key_id: Uuid::now_v7(),
            secret: SecretString::from(hex::encode(secret)),
        }
    }

    pub fn parse(raw: &str) -> Result<Self, MalformedKey> {
        let rest = raw
            .trim()
            .strip_prefix(API_KEY_PREFIX)
            .ok_or(MalformedKey)?;
        let mut parts = rest.split('_');
        let (Some(account), Some(key), Some(secret), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(MalformedKey);
        };
        let is_hex = |s: &str, len: usize| {
            s.len() == len
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !is_hex(account, 32) || !is_hex(key, 32) || !is_hex(secret, SECRET_BYTES * 2) {
            return Err(MalformedKey);
        }
        Ok(ApiKey {
            account_id: Uuid::try_parse(account).map_err(|_| MalformedKey)?,
            key_id: Uuid::try_parse(key).map_err(|_| MalformedKey)?,
            secret: SecretString::from(secret.to_owned()),
        })
    }

    /// The full key text, to be shown once to its owner.
    pub fn reveal(&self) -> SecretString {
        SecretString::from(format!(
            "{API_KEY_PREFIX}{}_{}_{}",
            self.account_id.simple(),
            self.key_id.simple(),
            self.secret.expose_secret()
        ))
    }

    pub fn secret_hash(&self) -> SecretHash {
        SecretHash(Sha256::digest(self.secret.expose_secret().as_bytes()).into())
    }
}

/// SHA-256 of a key's secret part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretHash([u8; 32]);

impl SecretHash {
    pub fn to_hex(self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(text: &str) -> Option<Self> {
        let bytes = hex::decode(text).ok()?;
        Some(SecretHash(bytes.try_into().ok()?))
    }

    /// Constant-time comparison, so response timing does not leak matching prefixes.
    pub fn matches(&self, other: &SecretHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_parses_back_to_the_same_ids_and_hash() {
        let key = ApiKey::generate(Uuid::now_v7());
        let text = key.reveal();
        let parsed = ApiKey::parse(text.expose_secret()).expect("parses");
        assert_eq!(parsed.account_id, key.account_id);
        assert_eq!(parsed.key_id, key.key_id);
        assert!(parsed.secret_hash().matches(&key.secret_hash()));
        assert!(!format!("{parsed:?}").contains(parsed.secret.expose_secret()));
    }

    #[test]
    fn malformed_keys_are_refused() {
        let good = ApiKey::generate(Uuid::now_v7()).reveal();
        let good = good.expose_secret();
        for bad in [
            "",
            "svc_ak_",
            "sk_live_abc",
            &good[..good.len() - 1],
            &good.to_uppercase(),
            &format!("{good}_x"),
        ] {
            assert_eq!(ApiKey::parse(bad).map(|_| ()), Err(MalformedKey), "{bad}");
        }
    }
}
