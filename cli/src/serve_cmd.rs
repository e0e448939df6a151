//! `manabi serve` and `manabi search-sync`: configuration from flags and `MANABI_*`
//! variables, turned into one `Settings` value for the server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use manabi_api::Application;
use manabi_api::settings::{
    ConfigFile, FairUseCaps, KeyRate, KeylessRate, LedgerSettings, PackConfig, Prices,
    RequestLimits, Settings,
};

/// Run the HTTP server. Every option can also be set by the environment variable shown.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    // Boxed: the options are many, and the command enum should stay small.
    #[command(flatten)]
    options: Box<ServeOptions>,
}

#[derive(Debug, clap::Args)]
struct ServeOptions {
    /// Address and port to listen on (port 0 picks a free port; the chosen address is
    /// printed on standard output).
    #[arg(long, env = "MANABI_BIND", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Directory for the server's own files (the SQLite ledger and its read models).
    #[arg(long, env = "MANABI_DATA_DIR", default_value = "./var")]
    data_dir: PathBuf,
    /// The ledger database: `postgres://…` in production (default: the SQLite file
    /// `<data dir>/ledger.sqlite`). Migrations run at start.
    #[arg(long, env = "MANABI_DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    /// Project the ledger read models inside the server (`true`/`false`). Default: true on
    /// SQLite, false on PostgreSQL, where `manabi projector` runs as its own process.
    #[arg(long, env = "MANABI_RUN_PROJECTOR")]
    run_projector: Option<bool>,
    /// The dataset artifact to serve.
    #[arg(
        long,
        env = "MANABI_ARTIFACT",
        default_value = "data/manabi-dataset.jsonl.zst"
    )]
    artifact: PathBuf,
    /// Public base address printed in discovery (default: http://<bind>).
    #[arg(long, env = "MANABI_BASE_URL")]
    base_url: Option<String>,
    /// Direct alternative address of the same REST API (default: the base address).
    #[arg(long, env = "MANABI_DIRECT_URL")]
    direct_url: Option<String>,
    /// Where customers sign in, buy points and create keys (default: <base>/developers).
    #[arg(long, env = "MANABI_SIGNUP_URL")]
    signup_url: Option<String>,
    /// Where customers buy points; carried by 402 answers (default: <base>/developers/credits).
    #[arg(long, env = "MANABI_TOP_UP_URL")]
    top_up_url: Option<String>,
    /// Optional TOML configuration file; it holds the credit packs (`[[credit_packs]]`
    /// with id, points, price_jpy, bonus). Without it: starter, standard and pro packs.
    #[arg(long, env = "MANABI_CONFIG")]
    config: Option<PathBuf>,
    /// Keyless requests per second per client address; 0 turns the limit off.
    #[arg(long, env = "MANABI_KEYLESS_RATE_PER_SEC", default_value_t = KeylessRate::default().per_sec)]
    keyless_rate_per_sec: u32,
    /// Keyless requests a client address may make at once before the rate applies.
    #[arg(long, env = "MANABI_KEYLESS_BURST", default_value_t = KeylessRate::default().burst)]
    keyless_burst: u32,
    /// Requests per second per API key (token bucket); 0 turns the limit off.
    #[arg(long, env = "MANABI_KEY_RATE_PER_SEC", default_value_t = KeyRate::default().per_sec)]
    key_rate_per_sec: u32,
    /// Requests an API key may make at once before the rate applies.
    #[arg(long, env = "MANABI_KEY_BURST", default_value_t = KeyRate::default().burst)]
    key_burst: u32,
    /// Price of a content read, in yen points.
    #[arg(long, env = "MANABI_PRICE_READ_JPY", default_value_t = Prices::default().read_jpy)]
    price_read_jpy: i64,
    /// Price of a search, in yen points.
    #[arg(long, env = "MANABI_PRICE_SEARCH_JPY", default_value_t = Prices::default().search_jpy)]
    price_search_jpy: i64,
    /// Price of generating a localized version on a cache miss, in yen points.
    #[arg(long, env = "MANABI_PRICE_LOCALIZED_GENERATION_JPY",
        default_value_t = Prices::default().localized_generation_jpy)]
    price_localized_generation_jpy: i64,
    /// Version of the price list above, recorded on every charge; bump it with the prices.
    #[arg(long, env = "MANABI_PRICE_LIST_VERSION", default_value_t = Prices::default().list_version)]
    price_list_version: u32,
    /// Daily fair-use call cap per key.
    #[arg(long, env = "MANABI_DAILY_CALLS_PER_KEY_MAX",
        default_value_t = FairUseCaps::default().daily_calls_per_key_max)]
    daily_calls_per_key_max: u32,
    /// Daily fair-use call cap per account.
    #[arg(long, env = "MANABI_DAILY_CALLS_PER_ACCOUNT_MAX",
        default_value_t = FairUseCaps::default().daily_calls_per_account_max)]
    daily_calls_per_account_max: u32,
    /// Longest accepted request URI (path and query), in bytes (414 beyond).
    #[arg(long, env = "MANABI_URI_BYTES_MAX", default_value_t = RequestLimits::default().uri_bytes_max)]
    uri_bytes_max: usize,
    /// Longest accepted query string, in bytes (414 beyond).
    #[arg(long, env = "MANABI_QUERY_BYTES_MAX", default_value_t = RequestLimits::default().query_bytes_max)]
    query_bytes_max: usize,
    /// Largest accepted request headers, in bytes (431 beyond).
    #[arg(long, env = "MANABI_HEADER_BYTES_MAX", default_value_t = RequestLimits::default().header_bytes_max)]
    header_bytes_max: usize,
    /// Largest accepted request body, in bytes (413 beyond).
    #[arg(long, env = "MANABI_BODY_BYTES_MAX", default_value_t = RequestLimits::default().body_bytes_max)]
    body_bytes_max: usize,
    /// Longest time a request may take, in milliseconds (504 beyond).
    #[arg(long, env = "MANABI_REQUEST_TIMEOUT_MS",
        default_value_t = RequestLimits::default().request_timeout_ms)]
    request_timeout_ms: u64,
    /// `Host` values accepted on /mcp, comma-separated (`name` or `name:port`); default:
    /// localhost, 127.0.0.1, ::1 and the host of the base address.
    #[arg(long, env = "MANABI_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    mcp_allowed_hosts: Vec<String>,
    /// Browser `Origin` values accepted on /mcp, comma-separated
    /// (`scheme://host:port`, `:*` for any port); default: the base address. Requests
    /// without an Origin header (non-browser agents) always pass.
    #[arg(long, env = "MANABI_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    mcp_allowed_origins: Vec<String>,
    /// OAuth authorization server named by /.well-known/oauth-protected-resource
    /// (default: the base address).
    #[arg(long, env = "MANABI_OAUTH_AUTHORIZATION_SERVER")]
    oauth_authorization_server: Option<String>,
    /// Log filter (tracing syntax, e.g. `info` or `manabi_api=debug`).
    #[arg(long, env = "MANABI_LOG", default_value = "info")]
    log: String,
}

impl ServeOptions {
    fn settings(&self, bound: SocketAddr) -> anyhow::Result<Settings> {
        let base_url = self
            .base_url
            .clone()
            .unwrap_or_else(|| format!("http://{bound}"));
        let mut settings = Settings::new(&base_url, self.artifact.clone(), self.data_dir.clone());
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
        self.apply_mcp(&mut settings.mcp);
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
        Ok(settings)
    }
}

impl ServeOptions {
    /// Configured MCP hosts, origins and authorization server replace the defaults.
    fn apply_mcp(&self, mcp: &mut manabi_api::settings::McpSettings) {
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
        if let Some(server) = &self.oauth_authorization_server {
            mcp.authorization_servers = vec![server.trim_end_matches('/').to_owned()];
        }
    }
}

impl ServeOptions {
    fn ledger_settings(&self) -> LedgerSettings {
        let mut ledger = match self.database_url.as_deref().map(str::trim) {
            Some(url) if !url.is_empty() => LedgerSettings::for_url(url),
            _ => LedgerSettings::embedded(&self.data_dir),
        };
        if let Some(run) = self.run_projector {
            ledger.run_projector = run;
        }
        ledger
    }
}

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Logs go to standard error; standard output carries only the listening address.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let args = args.options;
    init_logging(&args.log);
    anyhow::ensure!(
        args.artifact.is_file(),
        "the dataset artifact {} does not exist (set MANABI_ARTIFACT)",
        args.artifact.display()
    );
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating {}", args.data_dir.display()))?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("binding {}", args.bind))?;
        let bound = listener.local_addr()?;
        let application = Application::build(args.settings(bound)?, listener)
            .await
            .context("starting the server")?;
        println!("manabi listening on http://{bound}");
        tracing::info!(address = %bound, "listening");
        application.run_until_stopped().await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Load the dataset artifact into the search engine. The embedded engine (the default)
/// lives in the server's memory and is rebuilt by `manabi serve` at every start; this
/// command builds it once from the artifact to check it and report its size and time.
#[derive(Debug, clap::Args)]
pub struct SearchSyncArgs {
    /// The dataset artifact to index.
    #[arg(
        long,
        env = "MANABI_ARTIFACT",
        default_value = "data/manabi-dataset.jsonl.zst"
    )]
    artifact: PathBuf,
    /// Search engine: `embedded` (the only one built so far).
    #[arg(long, env = "MANABI_SEARCH", default_value = "embedded")]
    search: String,
}

pub fn search_sync(args: SearchSyncArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.search == "embedded",
        "search engine `{}` is not available; only `embedded` is built",
        args.search
    );
    let started = Instant::now();
    let catalog = manabi_api::catalog::Catalog::load(&args.artifact)
        .with_context(|| format!("loading {}", args.artifact.display()))?;
    println!(
        "embedded index: {} entries, {} terms, built from {} in {} ms",
        catalog.index.len(),
        catalog.index.term_count(),
        args.artifact.display(),
        started.elapsed().as_millis()
    );
    Ok(ExitCode::SUCCESS)
}
