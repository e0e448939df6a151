//! What an operator configures for x402: the network and its stablecoin, the address
//! paid, the facilitator, and the yen→dollar rate that turns the JPY price list into
//! atomic units of the coin.

use alloy_primitives::Address;
use chrono::{DateTime, Utc};

/// The x402 options of `manabi serve`; none is needed unless `pay_to` is set.
#[derive(Debug, Clone, clap::Args)]
pub struct X402Options {
    /// The address x402 payments go to. Without it every `/x402/` path answers 503.
    #[arg(long = "x402-pay-to", env = "MANABI_X402_PAY_TO")]
    pub pay_to: Option<String>,
    /// `base` (Base mainnet) or `base-sepolia` (the test network), or their CAIP-2 ids.
    #[arg(
        long = "x402-network",
        env = "MANABI_X402_NETWORK",
        default_value = "base-sepolia"
    )]
    pub network: String,
    /// The token contract paid in (default: the network's USDC).
    #[arg(long = "x402-asset", env = "MANABI_X402_ASSET")]
    pub asset: Option<String>,
    /// The token's EIP-712 domain name (default: the network's USDC: `USD Coin` on Base,
    /// `USDC` on Base Sepolia).
    #[arg(long = "x402-asset-name", env = "MANABI_X402_ASSET_NAME")]
    pub asset_name: Option<String>,
    /// The token's EIP-712 domain version.
    #[arg(
        long = "x402-asset-version",
        env = "MANABI_X402_ASSET_VERSION",
        default_value = "2"
    )]
    pub asset_version: String,
    /// The token's decimals.
    #[arg(long = "x402-asset-decimals", env = "MANABI_X402_ASSET_DECIMALS", default_value_t = 6,
        value_parser = clap::value_parser!(u32).range(0..=18))]
    pub asset_decimals: u32,
    /// The facilitator that verifies and settles payments (x402 facilitator protocol).
    #[arg(
        long = "x402-facilitator-url",
        env = "MANABI_X402_FACILITATOR_URL",
        default_value = "https://x402.org/facilitator"
    )]
    pub facilitator_url: String,
    /// Yen per US dollar, a decimal such as `151.37`: prices are the JPY list price
    /// divided by it, in the token's atomic units, rounded up.
    #[arg(
        long = "x402-jpy-per-usd",
        env = "MANABI_X402_JPY_PER_USD",
        default_value = "150"
    )]
    pub jpy_per_usd: String,
    /// When the rate was taken (RFC 3339); published with it. Default: the server's start.
    #[arg(long = "x402-rate-at", env = "MANABI_X402_RATE_AT")]
    pub rate_at: Option<String>,
    /// Longest validity a payer should give an authorization, in seconds.
    #[arg(
        long = "x402-max-timeout-seconds",
        env = "MANABI_X402_MAX_TIMEOUT_SECONDS",
        default_value_t = 300
    )]
    pub max_timeout_seconds: u64,
}

/// x402 as the server runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct X402Settings {
    pub pay_to: Address,
    pub network: Network,
    pub asset: Asset,
    pub facilitator_url: String,
    pub rate: Rate,
    pub max_timeout_seconds: u64,
}

/// An EVM network by its x402 v1 name and chain id (v2 names it `eip155:<id>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    pub name: &'static str,
    pub chain_id: u64,
    /// The network's USDC contract and EIP-712 name.
    usdc: (&'static str, &'static str),
}

/// The networks served: Base for production, Base Sepolia for staging.
const NETWORKS: [Network; 2] = [
    Network {
        name: "base",
        chain_id: 8453,
        usdc: ("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USD Coin"),
    },
    Network {
        name: "base-sepolia",
        chain_id: 84532,
        usdc: ("0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC"),
    },
];

impl Network {
    /// A v1 name or a CAIP-2 id of a served network.
    pub fn parse(text: &str) -> Option<Network> {
        NETWORKS
            .iter()
            .find(|network| network.name == text || network.caip2() == text)
            .copied()
    }

    /// The CAIP-2 id, e.g. `eip155:84532`.
    pub fn caip2(&self) -> String {
        format!("eip155:{}", self.chain_id)
    }
}

/// The token paid in: its contract and the EIP-712 domain its authorizations are
/// signed under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    pub address: Address,
    pub name: String,
    pub version: String,
    pub decimals: u32,
}

/// Yen per US dollar as a decimal (`mantissa / 10^scale`), and when it was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    /// As configured, e.g. `151.37`.
    pub text: String,
    mantissa: u128,
    scale: u32,
    pub at: DateTime<Utc>,
}

impl Rate {
    pub fn parse(text: &str, at: DateTime<Utc>) -> Result<Rate, String> {
        let text = text.trim();
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = format!("{whole}{fraction}");
        let valid = !whole.is_empty()
            && digits.bytes().all(|byte| byte.is_ascii_digit())
            && fraction.len() <= 12;
        let mantissa: u128 = digits.parse().ok().filter(|_| valid).unwrap_or(0);
        if mantissa == 0 {
            return Err(format!(
                "the yen per dollar rate `{text}` must be a positive decimal such as 151.37"
            ));
        }
        Ok(Rate {
            text: text.to_owned(),
            mantissa,
            scale: u32::try_from(fraction.len()).unwrap_or(0),
            at,
        })
    }

    /// `jpy` yen in atomic units of a token of `decimals` decimals pegged to the dollar,
    /// rounded up (never below the list price).
    pub fn atomic(&self, jpy: i64, decimals: u32) -> u128 {
        let jpy = u128::try_from(jpy.max(0)).unwrap_or(0);
        let numerator = jpy * 10u128.pow(decimals) * 10u128.pow(self.scale);
        numerator.div_ceil(self.mantissa)
    }
}

impl X402Options {
    /// The settings, or `None` when x402 is off (no `pay_to`).
    pub fn settings(&self, started: DateTime<Utc>) -> Result<Option<X402Settings>, String> {
        let Some(pay_to) = self.pay_to.as_deref().map(str::trim) else {
            return Ok(None);
        };
        let address = |what: &str, text: &str| {
            text.parse::<Address>()
                .map_err(|_| format!("{what} `{text}` is not a 0x-prefixed 20-byte address"))
        };
        let pay_to = address("MANABI_X402_PAY_TO", pay_to)?;
        let network = Network::parse(self.network.trim()).ok_or_else(|| {
            format!(
                "MANABI_X402_NETWORK `{}` is not served; use base or base-sepolia",
                self.network
            )
        })?;
        let asset = Asset {
            address: address(
                "MANABI_X402_ASSET",
                self.asset.as_deref().unwrap_or(network.usdc.0),
            )?,
            name: self
                .asset_name
                .clone()
                .unwrap_or_else(|| network.usdc.1.to_owned()),
            version: self.asset_version.clone(),
            decimals: self.asset_decimals,
        };
        let at = match &self.rate_at {
            Some(text) => DateTime::parse_from_rfc3339(text.trim())
                .map_err(|error| format!("MANABI_X402_RATE_AT `{text}`: {error}"))?
                .with_timezone(&Utc),
            None => started,
        };
        Ok(Some(X402Settings {
            pay_to,
            network,
            asset,
            facilitator_url: self.facilitator_url.trim_end_matches('/').to_owned(),
            rate: Rate::parse(&self.jpy_per_usd, at)?,
            max_timeout_seconds: self.max_timeout_seconds.max(1),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_convert_rounding_up() {
        let rate = Rate::parse("150", Utc::now()).expect("rate");
        assert_eq!(rate.atomic(1, 6), 6_667);
        assert_eq!(rate.atomic(5, 6), 33_334);
        assert_eq!(rate.atomic(150, 6), 1_000_000);
        let rate = Rate::parse("151.37", Utc::now()).expect("rate");
        // 25 / 151.37 = 0.16515822...
        assert_eq!(rate.atomic(25, 6), 165_159);
        for bad in ["", "0", "abc", "-1", "1.2.3", ".5", "0.000"] {
            assert!(Rate::parse(bad, Utc::now()).is_err(), "{bad}");
        }
    }

    #[test]
    fn networks_by_either_name() {
        assert_eq!(Network::parse("base").map(|n| n.chain_id), Some(8453));
        assert_eq!(
            Network::parse("eip155:84532").map(|n| n.name),
            Some("base-sepolia")
        );
        assert!(Network::parse("solana").is_none());
    }
}
