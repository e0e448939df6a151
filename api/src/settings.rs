//! Everything the server is configured with, as one value built by the binary (from
//! `MANABI_*` variables and flags) or by a test.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Prices in yen points (1 point = 1 JPY).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prices {
    pub read_jpy: i64,
    pub search_jpy: i64,
    pub localized_generation_jpy: i64,
    /// Recorded on every charge, so an invoice line says which price list it was billed by.
    pub list_version: u32,
}

impl Default for Prices {
    fn default() -> Self {
        Self {
            read_jpy: 1,
            search_jpy: 5,
            localized_generation_jpy: 25,
            list_version: 1,
        }
    }
}

/// Daily fair-use call caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FairUseCaps {
    pub daily_calls_per_key_max: u32,
    pub daily_calls_per_account_max: u32,
}

impl Default for FairUseCaps {
    fn default() -> Self {
        Self {
            daily_calls_per_key_max: 2000,
            daily_calls_per_account_max: 5000,
        }
    }
}

/// Keyless fair use: a token bucket per client address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeylessRate {
    /// Sustained requests per second per client address; 0 turns the limit off.
    pub per_sec: u32,
    /// Requests a client may make at once before the rate applies.
    pub burst: u32,
}

impl Default for KeylessRate {
    fn default() -> Self {
        Self {
            per_sec: 5,
            burst: 20,
        }
    }
}

/// The per-key burst limit: a token bucket per API key, checked before anything is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRate {
    /// Sustained requests per second per key; 0 turns the limit off.
    pub per_sec: u32,
    /// Requests a key may make at once before the rate applies.
    pub burst: u32,
}

impl Default for KeyRate {
    fn default() -> Self {
        Self {
            per_sec: 10,
            burst: 20,
        }
    }
}

/// Where the billing ledger lives and whether this process keeps its read models.
#[derive(Clone, PartialEq, Eq)]
pub struct LedgerSettings {
    /// `sqlite://…` (embedded default) or `postgres://…`. Holds a password in production,
    /// so it is never logged.
    pub database_url: String,
    /// Run the projector as a task of the server (the embedded default); production runs
    /// `manabi projector` on its own instead.
    pub run_projector: bool,
}

impl std::fmt::Debug for LedgerSettings {
    // The URL may carry a password: only its scheme is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.database_url.split(':').next().unwrap_or_default();
        f.debug_struct("LedgerSettings")
            .field("database_url", &format_args!("{scheme}://[redacted]"))
            .field("run_projector", &self.run_projector)
            .finish()
    }
}

impl LedgerSettings {
    /// The embedded default: a SQLite file in the data directory, projected in-process.
    pub fn embedded(data_dir: &Path) -> LedgerSettings {
        LedgerSettings {
            database_url: format!("sqlite://{}", data_dir.join("ledger.sqlite").display()),
            run_projector: true,
        }
    }

    /// The default for a database URL: in-process projection on SQLite only, where the
    /// server is the one writer anyway; on PostgreSQL `manabi projector` runs alone.
    pub fn for_url(database_url: &str) -> LedgerSettings {
        LedgerSettings {
            database_url: database_url.to_owned(),
            run_projector: database_url.starts_with("sqlite:"),
        }
    }
}

/// Bounds on what a request may carry and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Path plus query, in bytes (414 beyond).
    pub uri_bytes_max: usize,
    /// The query string alone, in bytes (414 beyond).
    pub query_bytes_max: usize,
    /// All header names and values together, in bytes (431 beyond).
    pub header_bytes_max: usize,
    /// Request body, in bytes (413 beyond). REST reads are GETs; the bound is sized for
    /// MCP JSON-RPC messages, whose `initialize` carries client capabilities and `_meta`.
    pub body_bytes_max: usize,
    /// Whole request handling time (504 beyond).
    pub request_timeout_ms: u64,
}

impl Default for RequestLimits {
    fn default() -> Self {
        Self {
            uri_bytes_max: 2048,
            query_bytes_max: 1024,
            header_bytes_max: 8192,
            body_bytes_max: 65_536,
            request_timeout_ms: 10_000,
        }
    }
}

/// The MCP endpoint's guards against DNS rebinding and cross-site calls, and where its
/// OAuth protected-resource document sends clients to sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSettings {
    /// `Host` values accepted on `/mcp` (`name` or `name:port`).
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin` values accepted on `/mcp` (`scheme://host[:port|:*]`); a request
    /// without `Origin` (any non-browser agent) always passes.
    pub allowed_origins: Vec<String>,
    /// Authorization servers named by `/.well-known/oauth-protected-resource`.
    pub authorization_servers: Vec<String>,
}

impl McpSettings {
    /// Loopback names plus the host of the public base address, so both a local run and
    /// a public deployment answer; browser origins only from the base address itself.
    pub fn for_base_url(base_url: &str) -> McpSettings {
        let mut allowed_hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|host| (*host).to_owned())
            .collect();
        let uri = base_url.parse::<http::Uri>().ok();
        let host = uri.as_ref().and_then(http::Uri::host);
        if let Some(host) = host.map(|host| host.trim_matches(['[', ']']).to_owned())
            && !allowed_hosts.contains(&host)
        {
            allowed_hosts.push(host);
        }
        McpSettings {
            allowed_hosts,
            allowed_origins: uri.as_ref().and_then(origin_of).into_iter().collect(),
            authorization_servers: vec![base_url.to_owned()],
        }
    }
}

/// `scheme://host:port` of an absolute address, the port spelled out so an origin
/// check matches exactly that port.
fn origin_of(uri: &http::Uri) -> Option<String> {
    let scheme = uri.scheme_str()?;
    let port = uri.port_u16().or(match scheme {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    })?;
    Some(format!("{scheme}://{}:{port}", uri.host()?))
}

/// One pack of prepaid points on sale.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PackConfig {
    pub id: String,
    pub points: i64,
    pub price_jpy: i64,
    #[serde(default)]
    pub bonus: i64,
}

impl PackConfig {
    /// The packs sold when the configuration file names none.
    pub fn defaults() -> Vec<PackConfig> {
        let pack = |id: &str, points, price_jpy, bonus| PackConfig {
            id: id.to_owned(),
            points,
            price_jpy,
            bonus,
        };
        vec![
            pack("starter", 1_000, 1_000, 0),
            pack("standard", 5_000, 5_000, 250),
            pack("pro", 20_000, 20_000, 2_000),
        ]
    }
}

/// The part of the optional TOML configuration file the server reads.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub credit_packs: Vec<PackConfig>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("parsing {path}: {source}")]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("credit pack {id}: points and price must be positive and bonus not negative")]
    Pack { id: String },
}

impl ConfigFile {
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })?;
        for pack in &file.credit_packs {
            if pack.points <= 0 || pack.price_jpy <= 0 || pack.bonus < 0 {
                return Err(ConfigError::Pack {
                    id: pack.id.clone(),
                });
            }
        }
        Ok(file)
    }
}

/// The whole configuration of `manabi serve`.
#[derive(Debug, Clone)]
pub struct Settings {
    pub data_dir: PathBuf,
    /// The dataset artifact to serve.
    pub artifact: PathBuf,
    /// Public address of the service, printed in discovery (no trailing `/`).
    pub base_url: String,
    /// Direct alternative address of the same REST API.
    pub direct_url: String,
    /// Where to sign in, buy points and create a key.
    pub signup_url: String,
    /// Where to buy points (carried by 402 answers).
    pub top_up_url: String,
    pub prices: Prices,
    pub fair_use: FairUseCaps,
    pub keyless_rate: KeylessRate,
    pub key_rate: KeyRate,
    pub limits: RequestLimits,
    pub credit_packs: Vec<PackConfig>,
    pub mcp: McpSettings,
    pub ledger: LedgerSettings,
}

impl Settings {
    /// Settings for a server at `base_url` serving `artifact`, everything else default.
    pub fn new(base_url: &str, artifact: PathBuf, data_dir: PathBuf) -> Settings {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let mcp = McpSettings::for_base_url(&base_url);
        let ledger = LedgerSettings::embedded(&data_dir);
        Settings {
            data_dir,
            artifact,
            direct_url: base_url.clone(),
            signup_url: format!("{base_url}/developers"),
            top_up_url: format!("{base_url}/developers/credits"),
            base_url,
            prices: Prices::default(),
            fair_use: FairUseCaps::default(),
            keyless_rate: KeylessRate::default(),
            key_rate: KeyRate::default(),
            limits: RequestLimits::default(),
            credit_packs: PackConfig::defaults(),
            mcp,
            ledger,
        }
    }
}
