//! Every `MANABI_*` option of every command, in one place: the clap structs at the end
//! of this file declare each option once, with its flag, its variable, its default and
//! the help text `--help` prints; [`Settings`] is the value the server is built from
//! (by the binary from those options, or by a test).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use secrecy::{ExposeSecret, SecretString};
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
#[derive(Clone)]
pub struct LedgerSettings {
    /// `sqlite://…` (embedded default) or `postgres://…`. Holds a password in production,
    /// so it is a secret: never logged.
    pub database_url: SecretString,
    /// Run the projector as a task of the server (the embedded default); production runs
    /// `manabi projector` on its own instead.
    pub run_projector: bool,
}

impl std::fmt::Debug for LedgerSettings {
    // The URL may carry a password: only its scheme is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = self.database_url.expose_secret();
        let scheme = url.split(':').next().unwrap_or_default();
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
            database_url: embedded_database_url(data_dir),
            run_projector: true,
        }
    }

    /// The default for a database URL: in-process projection on SQLite only, where the
    /// server is the one writer anyway; on PostgreSQL `manabi projector` runs alone.
    pub fn for_url(database_url: &str) -> LedgerSettings {
        LedgerSettings {
            database_url: SecretString::from(database_url.to_owned()),
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

/// Bounds on what clients may hold open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once; kept below the file-descriptor limit at start.
    pub connections_max: usize,
    /// Time to receive a request's headers, counted from when the connection waits for
    /// them (a silent keep-alive connection too); the connection is closed past it.
    pub header_read_timeout_ms: u64,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            connections_max: 10_000,
            header_read_timeout_ms: 5_000,
        }
    }
}

/// The MCP endpoint's guards against DNS rebinding and cross-site calls, and where its
/// OAuth server may fetch client ID metadata documents from. Manabi is the only
/// authorization server of `/mcp`: it accepts no other server's tokens, so there is no
/// option naming another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSettings {
    /// `Host` values accepted on `/mcp` (`name` or `name:port`).
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin` values accepted on `/mcp` (`scheme://host[:port|:*]`); a request
    /// without `Origin` (any non-browser agent) always passes.
    pub allowed_origins: Vec<String>,
    /// Client ID metadata documents may be fetched from loopback addresses (over `http`
    /// too), for tests and local development; off by default, so an authorization
    /// request cannot make the server fetch from itself.
    pub client_metadata_loopback_allowed: bool,
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
            client_metadata_loopback_allowed: false,
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
    #[error("x402: {0}")]
    X402(String),
    #[error("OpenID Connect sign-in: {0}")]
    Oidc(#[from] crate::portal::oidc::OidcSettingsError),
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

/// The SQLite ledger file of a data directory.
fn embedded_database_url(data_dir: &Path) -> SecretString {
    SecretString::from(format!(
        "sqlite://{}",
        data_dir.join("ledger.sqlite").display()
    ))
}

/// Where the dataset artifact comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactSource {
    /// The artifact built into the binary (the default of `manabi serve`).
    Embedded(&'static [u8]),
    /// A file (`MANABI_ARTIFACT`).
    File(PathBuf),
}

impl std::fmt::Display for ArtifactSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArtifactSource::Embedded(bytes) => {
                write!(
                    f,
                    "the artifact built into the binary ({} bytes)",
                    bytes.len()
                )
            }
            ArtifactSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The whole configuration of `manabi serve`.
#[derive(Debug, Clone)]
pub struct Settings {
    pub data_dir: PathBuf,
    /// The dataset artifact to serve.
    pub artifact: ArtifactSource,
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
    pub connections: ConnectionLimits,
    /// Browser origins allowed by CORS; `["*"]` for any.
    pub cors_allowed_origins: Vec<String>,
    pub credit_packs: Vec<PackConfig>,
    pub mcp: McpSettings,
    pub ledger: LedgerSettings,
    pub translation: TranslationSettings,
    /// Pay-per-call under `/x402/`; `None` when no recipient is configured.
    pub x402: Option<crate::x402::X402Settings>,
    /// How the developer portal mails sign-in links.
    pub portal: PortalSettings,
}

/// The developer portal's mail, payments and sign-in provider (docs/portal.md).
#[derive(Clone, Default)]
pub struct PortalSettings {
    /// `smtp://host:port` or `smtps://user:password@host`; a secret (it may hold a
    /// password). Without it links are printed on standard output.
    pub smtp_url: Option<SecretString>,
    pub smtp_from: String,
    /// Card payments through Stripe Checkout; `None` when not configured.
    pub stripe: Option<crate::portal::stripe::StripeSettings>,
    /// Signing in through an OpenID Connect provider; `None` when not configured (the
    /// email link is then the one sign-in).
    pub oidc: Option<crate::portal::oidc::OidcSettings>,
}

impl std::fmt::Debug for PortalSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PortalSettings")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "(secret)"))
            .field("smtp_from", &self.smtp_from)
            .field("stripe", &self.stripe)
            .field("oidc", &self.oidc)
            .finish()
    }
}

/// The machine translators of localized reads (docs/localization.md).
#[derive(Clone, Default)]
pub struct TranslationSettings {
    /// Directory of the embedded engine's models, one `en<xx>` directory per pair.
    pub models_dir: Option<PathBuf>,
    /// Base address of a DeepL API v2 compatible provider, e.g. `https://api.deepl.com`.
    pub provider_url: Option<String>,
    pub provider_key: Option<SecretString>,
    /// Longest a generation may take; beyond it nothing is charged or kept.
    pub timeout_ms: u64,
}

impl std::fmt::Debug for TranslationSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranslationSettings")
            .field("models_dir", &self.models_dir)
            .field("provider_url", &self.provider_url)
            .field(
                "provider_key",
                &self.provider_key.as_ref().map(|_| "(secret)"),
            )
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// Below the default request timeout, so a slow generation is answered 503 (nothing
/// charged) rather than cut off.
pub const TRANSLATION_TIMEOUT_MS_DEFAULT: u64 = 8_000;

impl Settings {
    /// Settings for a server at `base_url` serving `artifact`, everything else default.
    pub fn new(base_url: &str, artifact: ArtifactSource, data_dir: PathBuf) -> Settings {
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
            connections: ConnectionLimits::default(),
            cors_allowed_origins: vec!["*".to_owned()],
            credit_packs: PackConfig::defaults(),
            mcp,
            ledger,
            translation: TranslationSettings {
                timeout_ms: TRANSLATION_TIMEOUT_MS_DEFAULT,
                ..TranslationSettings::default()
            },
            x402: None,
            portal: PortalSettings {
                smtp_url: None,
                smtp_from: SMTP_FROM_DEFAULT.to_owned(),
                stripe: None,
                oidc: None,
            },
        }
    }
}

/// The sender of sign-in mail unless `MANABI_SMTP_FROM` says otherwise.
pub const SMTP_FROM_DEFAULT: &str = "manabi <no-reply@manabi.invalid>";

/// Every option of `manabi serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// Address and port to listen on (port 0 picks a free port; the chosen address is
    /// printed on standard output).
    #[arg(long, env = "MANABI_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    #[command(flatten)]
    pub ledger: LedgerOptions,
    /// Project the ledger read models inside the server (`true`/`false`). Default: true on
    /// SQLite, false on PostgreSQL, where `manabi projector` runs as its own process.
    #[arg(long, env = "MANABI_RUN_PROJECTOR")]
    pub run_projector: Option<bool>,
    /// The dataset artifact to serve (default: the one built into the binary).
    #[arg(long, env = "MANABI_ARTIFACT")]
    pub artifact: Option<PathBuf>,
    /// Public base address printed in discovery (default: http://<bind>).
    #[arg(long, env = "MANABI_BASE_URL")]
    pub base_url: Option<String>,
    /// Direct alternative address of the same REST API (default: the base address).
    #[arg(long, env = "MANABI_DIRECT_URL")]
    pub direct_url: Option<String>,
    /// Where customers sign in, buy points and create keys (default: <base>/developers).
    #[arg(long, env = "MANABI_SIGNUP_URL")]
    pub signup_url: Option<String>,
    /// Where customers buy points; carried by 402 answers (default: <base>/developers/credits).
    #[arg(long, env = "MANABI_TOP_UP_URL")]
    pub top_up_url: Option<String>,
    /// Optional TOML configuration file; it holds the credit packs (`[[credit_packs]]`
    /// with id, points, price_jpy, bonus). Without it: starter, standard and pro packs.
    #[arg(long, env = "MANABI_CONFIG")]
    pub config: Option<PathBuf>,
    /// Keyless requests per second per client address; 0 turns the limit off.
    #[arg(long, env = "MANABI_KEYLESS_RATE_PER_SEC", default_value_t = KeylessRate::default().per_sec)]
    pub keyless_rate_per_sec: u32,
    /// Keyless requests a client address may make at once before the rate applies.
    #[arg(long, env = "MANABI_KEYLESS_BURST", default_value_t = KeylessRate::default().burst)]
    pub keyless_burst: u32,
    /// Requests per second per API key (token bucket); 0 turns the limit off.
    #[arg(long, env = "MANABI_KEY_RATE_PER_SEC", default_value_t = KeyRate::default().per_sec)]
    pub key_rate_per_sec: u32,
    /// Requests an API key may make at once before the rate applies.
    #[arg(long, env = "MANABI_KEY_BURST", default_value_t = KeyRate::default().burst)]
    pub key_burst: u32,
    /// Price of a content read, in yen points.
    #[arg(long, env = "MANABI_PRICE_READ_JPY", default_value_t = Prices::default().read_jpy)]
    pub price_read_jpy: i64,
    /// Price of a search, in yen points.
    #[arg(long, env = "MANABI_PRICE_SEARCH_JPY", default_value_t = Prices::default().search_jpy)]
    pub price_search_jpy: i64,
    /// Price of generating a localized version on a cache miss, in yen points (at least
    /// 1: the generation is recorded with its charge).
    #[arg(long, env = "MANABI_PRICE_LOCALIZED_GENERATION_JPY",
        default_value_t = Prices::default().localized_generation_jpy,
        value_parser = clap::value_parser!(i64).range(1..=1_000_000))]
    pub price_localized_generation_jpy: i64,
    /// Version of the price list above, recorded on every charge; bump it with the prices.
    #[arg(long, env = "MANABI_PRICE_LIST_VERSION", default_value_t = Prices::default().list_version)]
    pub price_list_version: u32,
    /// Daily fair-use call cap per key.
    #[arg(long, env = "MANABI_DAILY_CALLS_PER_KEY_MAX",
        default_value_t = FairUseCaps::default().daily_calls_per_key_max)]
    pub daily_calls_per_key_max: u32,
    /// Daily fair-use call cap per account.
    #[arg(long, env = "MANABI_DAILY_CALLS_PER_ACCOUNT_MAX",
        default_value_t = FairUseCaps::default().daily_calls_per_account_max)]
    pub daily_calls_per_account_max: u32,
    /// Longest accepted request URI (path and query), in bytes (414 beyond).
    #[arg(long, env = "MANABI_URI_BYTES_MAX", default_value_t = RequestLimits::default().uri_bytes_max)]
    pub uri_bytes_max: usize,
    /// Longest accepted query string, in bytes (414 beyond).
    #[arg(long, env = "MANABI_QUERY_BYTES_MAX", default_value_t = RequestLimits::default().query_bytes_max)]
    pub query_bytes_max: usize,
    /// Largest accepted request headers, in bytes (431 beyond).
    #[arg(long, env = "MANABI_HEADER_BYTES_MAX", default_value_t = RequestLimits::default().header_bytes_max)]
    pub header_bytes_max: usize,
    /// Largest accepted request body, in bytes (413 beyond).
    #[arg(long, env = "MANABI_BODY_BYTES_MAX", default_value_t = RequestLimits::default().body_bytes_max)]
    pub body_bytes_max: usize,
    /// Longest time a request may take, in milliseconds (504 beyond).
    #[arg(long, env = "MANABI_REQUEST_TIMEOUT_MS",
        default_value_t = RequestLimits::default().request_timeout_ms)]
    pub request_timeout_ms: u64,
    /// Most client connections open at once (kept below the file-descriptor limit).
    #[arg(long, env = "MANABI_CONNECTIONS_MAX",
        default_value_t = ConnectionLimits::default().connections_max)]
    pub connections_max: usize,
    /// Time a client has to send a request's headers, counted from when the connection
    /// waits for them (silent keep-alive connections too), in milliseconds.
    #[arg(long, env = "MANABI_HEADER_READ_TIMEOUT_MS",
        default_value_t = ConnectionLimits::default().header_read_timeout_ms)]
    pub header_read_timeout_ms: u64,
    /// Browser origins allowed to call the API (CORS), comma-separated
    /// `scheme://host[:port]`, or `*` for any. Keys travel in headers, never cookies, so
    /// `*` (the default) lets browser apps call with their own key without exposing
    /// anyone else's.
    #[arg(
        long,
        env = "MANABI_CORS_ALLOWED_ORIGINS",
        value_delimiter = ',',
        default_value = "*"
    )]
    pub cors_allowed_origins: Vec<String>,
    /// `Host` values accepted on /mcp, comma-separated (`name` or `name:port`); default:
    /// localhost, 127.0.0.1, ::1 and the host of the base address.
    #[arg(long, env = "MANABI_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub mcp_allowed_hosts: Vec<String>,
    /// Browser `Origin` values accepted on /mcp, comma-separated
    /// (`scheme://host:port`, `:*` for any port); default: the base address. Requests
    /// without an Origin header (non-browser agents) always pass.
    #[arg(long, env = "MANABI_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub mcp_allowed_origins: Vec<String>,
    /// Fetch OAuth client ID metadata documents from loopback addresses, over `http`
    /// too (`true`/`false`): for tests and local development only. Off, a client id
    /// whose host is a loopback, private, link-local or otherwise internal address is
    /// refused.
    #[arg(long, env = "MANABI_OAUTH_CLIENT_METADATA_LOOPBACK",
        default_value_t = false, action = clap::ArgAction::Set)]
    pub oauth_client_metadata_loopback: bool,
    /// Directory of the embedded translation engine's models (Firefox Translations
    /// models, one `en<xx>` directory per language pair); localized reads in those
    /// languages are generated in-process.
    #[arg(long, env = "MANABI_TRANSLATION_MODELS")]
    pub translation_models: Option<PathBuf>,
    /// Base address of a translation provider speaking the DeepL API v2
    /// (`https://api.deepl.com`, `https://api-free.deepl.com`), tried after the models.
    #[arg(long, env = "MANABI_TRANSLATION_PROVIDER_URL")]
    pub translation_provider_url: Option<String>,
    /// The provider's authentication key (`DeepL-Auth-Key`); never logged.
    #[arg(long, env = "MANABI_TRANSLATION_PROVIDER_KEY", hide_env_values = true)]
    pub translation_provider_key: Option<SecretString>,
    /// Longest a localized generation may take, in milliseconds; beyond it the request is
    /// answered 503 and nothing is charged or kept.
    #[arg(long, env = "MANABI_TRANSLATION_TIMEOUT_MS", default_value_t = TRANSLATION_TIMEOUT_MS_DEFAULT)]
    pub translation_timeout_ms: u64,
    /// SMTP server the developer portal mails sign-in links through (`smtp://host:port`,
    /// `smtps://user:password@host`); a secret. Without it links go to standard output.
    #[arg(long, env = "MANABI_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<SecretString>,
    /// The sender of sign-in mail.
    #[arg(long, env = "MANABI_SMTP_FROM", default_value = SMTP_FROM_DEFAULT)]
    pub smtp_from: String,
    /// Stripe secret key (`sk_live_…`); with the webhook secret it turns on buying packs
    /// by card in the portal. A secret.
    #[arg(long, env = "MANABI_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<SecretString>,
    /// The signing secret of the `/stripe/webhook` endpoint (`whsec_…`). A secret.
    #[arg(long, env = "MANABI_STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<SecretString>,
    /// Stripe's API address (a stand-in speaking its protocol in tests).
    #[arg(
        long,
        env = "MANABI_STRIPE_API_URL",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_url: String,
    /// Issuer of an OpenID Connect provider the portal also signs people in with
    /// (`https://…`, exactly as the provider names itself; `http` only on a loopback
    /// address). Set with the client id and secret, or not at all. Register
    /// `<base>/developers/oidc/callback` as the redirect URI with the provider.
    #[arg(long, env = "MANABI_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,
    /// The portal's client id at the OpenID Connect provider.
    #[arg(long, env = "MANABI_OIDC_CLIENT_ID")]
    pub oidc_client_id: Option<String>,
    /// The portal's client secret at the OpenID Connect provider. A secret.
    #[arg(long, env = "MANABI_OIDC_CLIENT_SECRET", hide_env_values = true)]
    pub oidc_client_secret: Option<SecretString>,
    /// The provider's name on the sign-in button, "Sign in with <name>" (default: the
    /// issuer's host).
    #[arg(long, env = "MANABI_OIDC_NAME")]
    pub oidc_name: Option<String>,
    #[command(flatten)]
    pub x402: crate::x402::X402Options,
    #[command(flatten)]
    pub log: LogOptions,
}

impl ServeOptions {
    /// The server's settings once it is bound to `bound`; `built_in` is the artifact
    /// served when `MANABI_ARTIFACT` names none.
    pub fn settings(
        &self,
        bound: SocketAddr,
        built_in: ArtifactSource,
    ) -> Result<Settings, ConfigError> {
        let base_url = self
            .base_url
            .clone()
            .unwrap_or_else(|| format!("http://{bound}"));
        let artifact = self.artifact.clone().map_or(built_in, ArtifactSource::File);
        let data_dir = self.ledger.data_dir.clone();
        let mut settings = Settings::new(&base_url, artifact, data_dir);
        if let Some(url) = &self.direct_url {
            settings.direct_url = url.trim_end_matches('/').to_owned();
        }
        if let Some(url) = &self.signup_url {
            settings.signup_url = url.clone();
        }
        if let Some(url) = &self.top_up_url {
            settings.top_up_url = url.clone();
        }
        settings.prices = Prices {
            read_jpy: self.price_read_jpy,
            search_jpy: self.price_search_jpy,
            localized_generation_jpy: self.price_localized_generation_jpy,
            list_version: self.price_list_version,
        };
        settings.fair_use = FairUseCaps {
            daily_calls_per_key_max: self.daily_calls_per_key_max,
            daily_calls_per_account_max: self.daily_calls_per_account_max,
        };
        settings.keyless_rate = KeylessRate {
            per_sec: self.keyless_rate_per_sec,
            burst: self.keyless_burst,
        };
        settings.key_rate = KeyRate {
            per_sec: self.key_rate_per_sec,
            burst: self.key_burst,
        };
        settings.ledger = self.ledger_settings();
        settings.limits = RequestLimits {
            uri_bytes_max: self.uri_bytes_max,
            query_bytes_max: self.query_bytes_max,
            header_bytes_max: self.header_bytes_max,
            body_bytes_max: self.body_bytes_max,
            request_timeout_ms: self.request_timeout_ms,
        };
        settings.cors_allowed_origins = self
            .cors_allowed_origins
            .iter()
            .map(|origin| origin.trim().to_owned())
            .filter(|origin| !origin.is_empty())
            .collect();
        settings.connections = ConnectionLimits {
            connections_max: self.connections_max,
            header_read_timeout_ms: self.header_read_timeout_ms,
        };
        self.apply_mcp(&mut settings.mcp);
        settings.translation = TranslationSettings {
            models_dir: self.translation_models.clone(),
            provider_url: self
                .translation_provider_url
                .as_ref()
                .map(|url| url.trim_end_matches('/').to_owned()),
            provider_key: self.translation_provider_key.clone(),
            timeout_ms: self.translation_timeout_ms,
        };
        settings.credit_packs = match &self.config {
            Some(path) => {
                let file = ConfigFile::load(path)?;
                if file.credit_packs.is_empty() {
                    PackConfig::defaults()
                } else {
                    file.credit_packs
                }
            }
            None => PackConfig::defaults(),
        };
        settings.portal = PortalSettings {
            smtp_url: self
                .smtp_url
                .clone()
                .filter(|url| !url.expose_secret().trim().is_empty()),
            smtp_from: self.smtp_from.clone(),
            stripe: match (&self.stripe_secret_key, &self.stripe_webhook_secret) {
                (Some(secret_key), Some(webhook_secret)) => {
                    Some(crate::portal::stripe::StripeSettings {
                        api_url: self.stripe_api_url.trim_end_matches('/').to_owned(),
                        secret_key: secret_key.clone(),
                        webhook_secret: webhook_secret.clone(),
                    })
                }
                _ => None,
            },
            oidc: crate::portal::oidc::OidcSettings::from_options(
                self.oidc_issuer.as_deref(),
                self.oidc_client_id.as_deref(),
                self.oidc_client_secret.as_ref(),
                self.oidc_name.as_deref(),
            )?,
        };
        settings.x402 = self
            .x402
            .settings(chrono::Utc::now())
            .map_err(ConfigError::X402)?;
        Ok(settings)
    }
}

impl ServeOptions {
    /// Configured MCP hosts and origins replace the defaults; the loopback switch of
    /// client ID metadata documents is taken as set.
    fn apply_mcp(&self, mcp: &mut McpSettings) {
        let listed = |values: &[String]| -> Vec<String> {
            values
                .iter()
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
                .collect()
        };
        let hosts = listed(&self.mcp_allowed_hosts);
        if !hosts.is_empty() {
            mcp.allowed_hosts = hosts;
        }
        let origins = listed(&self.mcp_allowed_origins);
        if !origins.is_empty() {
            mcp.allowed_origins = origins;
        }
        mcp.client_metadata_loopback_allowed = self.oauth_client_metadata_loopback;
    }
}

impl ServeOptions {
    fn ledger_settings(&self) -> LedgerSettings {
        let mut ledger = LedgerSettings::for_url(self.ledger.database_url().expose_secret());
        if let Some(run) = self.run_projector {
            ledger.run_projector = run;
        }
        ledger
    }
}

/// Where the ledger is: every command that opens it (`serve`, `projector`, `admin`).
#[derive(Debug, Clone, clap::Args)]
pub struct LedgerOptions {
    /// Directory for the server's own files (the SQLite ledger and its read models).
    #[arg(long, env = "MANABI_DATA_DIR", default_value = "./var")]
    pub data_dir: PathBuf,
    /// The ledger database: `postgres://…` in production (default: the SQLite file
    /// `<data dir>/ledger.sqlite`). Migrations run at start. May hold a password: a
    /// secret, never printed.
    #[arg(long, env = "MANABI_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<SecretString>,
}

impl LedgerOptions {
    /// The configured database, else the embedded SQLite file.
    pub fn database_url(&self) -> SecretString {
        match &self.database_url {
            Some(url) if !url.expose_secret().trim().is_empty() => {
                SecretString::from(url.expose_secret().trim().to_owned())
            }
            _ => embedded_database_url(&self.data_dir),
        }
    }
}

/// Logging of every long-running command.
#[derive(Debug, Clone, clap::Args)]
pub struct LogOptions {
    /// Log filter (tracing syntax, e.g. `info` or `manabi_api=debug`).
    #[arg(long = "log", env = "MANABI_LOG", default_value = "info")]
    pub filter: String,
}

/// Every option of `manabi projector`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProjectorOptions {
    #[command(flatten)]
    pub ledger: LedgerOptions,
    /// Events projected per transaction.
    #[arg(long, env = "MANABI_PROJECTOR_BATCH_EVENTS",
        default_value_t = manabi_projector::BATCH_EVENTS_DEFAULT)]
    pub batch_events: u32,
    /// Project what is there, then exit (instead of following the ledger).
    #[arg(long)]
    pub once: bool,
    #[command(flatten)]
    pub log: LogOptions,
}

/// `manabi serve`'s options from `MANABI_*` pairs instead of the environment: each
/// variable becomes its flag (`MANABI_REQUEST_TIMEOUT_MS` → `--request-timeout-ms`).
/// Tests build in-process servers this way, with the binary's parsing and defaults.
pub fn serve_options_from_pairs(pairs: &[(&str, &str)]) -> Result<ServeOptions, clap::Error> {
    #[derive(clap::Parser)]
    struct Serve {
        #[command(flatten)]
        options: ServeOptions,
    }
    let mut args = vec!["serve".to_owned()];
    // A later pair overrides an earlier one of the same name, as in an environment.
    let last = |at: usize, name: &str| !pairs[at + 1..].iter().any(|(later, _)| *later == name);
    for (_, (name, value)) in pairs
        .iter()
        .enumerate()
        .filter(|(at, (name, _))| last(*at, name))
    {
        let flag = name
            .strip_prefix("MANABI_")
            .unwrap_or(name)
            .to_ascii_lowercase()
            .replace('_', "-");
        args.push(format!("--{flag}={value}"));
    }
    <Serve as clap::Parser>::try_parse_from(args).map(|serve| serve.options)
}
