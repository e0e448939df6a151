//! Builds the application from [`Settings`] and a bound listener, so the binary and the
//! tests start exactly the same server: opens the billing ledger (running its
//! migrations), starts the biller and, on the embedded default, the projector; builds the
//! OpenAPI description from the routes, and the docs page and MCP tool list from it.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use manabi_ledger::{Biller, BillerConfig, Store, StoreError, SystemClock};
use manabi_projector::{Projector, ProjectorError};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use secrecy::ExposeSecret;
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa::openapi::OpenApi;

use crate::catalog::{Catalog, CatalogError};
use crate::localization::Localization;
use crate::middleware::{self, MakeUuidV7};
use crate::settings::{LedgerSettings, Settings, TranslationSettings};
use crate::state::{AppState, Documents, Ledger};
use crate::{docs_page, mcp, routes};
use manabi_localize::Localizer;
use manabi_localize::embedded::EmbeddedEngine;
use manabi_localize::provider::{Provider, ProviderConfig};

/// How often idle keyless buckets are dropped, so the limiter's memory stays bounded.
const LIMITER_CLEANUP_INTERVAL: Duration = Duration::from_secs(60);
/// How often the metrics recorder folds its histograms.
const METRICS_UPKEEP_INTERVAL: Duration = Duration::from_secs(5);
/// Latency buckets, in seconds.
const LATENCY_BUCKETS: [f64; 10] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
];

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("opening the ledger database: {0}")]
    Ledger(#[from] StoreError),
    #[error("preparing the ledger read models: {0}")]
    ReadModels(#[from] ProjectorError),
    #[error("loading the translation models: {0}")]
    TranslationModels(String),
    #[error("the developer portal's mail: {0}")]
    Portal(String),
}

/// The configured generators: the embedded engine when a models directory is set (loaded
/// off the async threads), the provider when an address is.
async fn localizer(translation: &TranslationSettings) -> Result<Localizer, StartupError> {
    let embedded = match translation.models_dir.clone() {
        Some(dir) => {
            let loaded = tokio::task::spawn_blocking(move || EmbeddedEngine::load(&dir))
                .await
                .map_err(|error| StartupError::TranslationModels(error.to_string()))?;
            let engine =
                loaded.map_err(|error| StartupError::TranslationModels(error.to_string()))?;
            tracing::info!(pairs = ?engine.targets(), "translation models loaded");
            Some(engine)
        }
        None => None,
    };
    let provider = match (&translation.provider_url, &translation.provider_key) {
        (Some(url), Some(key)) => Some(Provider::new(ProviderConfig {
            base_url: url.clone(),
            auth_key: key.clone(),
            timeout: Duration::from_millis(translation.timeout_ms),
            name: "deepl".to_owned(),
        })),
        _ => None,
    };
    Ok(Localizer::new(
        embedded,
        provider,
        Duration::from_millis(translation.timeout_ms),
    ))
}

/// A server bound to its listener, not yet running.
pub struct Application {
    listener: TcpListener,
    router: Router,
    state: AppState,
}

impl Application {
    /// Starts loading the dataset in the background (it needs nothing from the ledger, so
    /// the ledger's migrations run meanwhile), opens the ledger and wires the router; the
    /// server answers `/healthz` at once and the API (503 until then) once the dataset is
    /// in.
    pub async fn build(
        settings: Settings,
        listener: TcpListener,
    ) -> Result<Application, StartupError> {
        let started = std::time::Instant::now();
        let artifact = settings.artifact.clone();
        let loading = tokio::task::spawn_blocking(move || Catalog::load(&artifact));
        let ledger = open_ledger(&settings.ledger).await?;
        let (api, openapi) = routes::api_with_description();
        let documents = documents(&openapi);
        let localization = Localization::new(localizer(&settings.translation).await?);
        let portal = &settings.portal;
        let mailer = crate::portal::Mailer::new(portal.smtp_url.as_ref(), &portal.smtp_from)
            .map_err(StartupError::Portal)?;
        let state = AppState::new(
            settings,
            metrics_handle(),
            ledger,
            documents,
            localization,
            crate::portal::Portal::new(mailer),
            started,
        );
        install_dataset(state.clone(), loading);
        spawn_housekeeping(state.clone());
        if let Some(x402) = state.x402.clone() {
            tokio::spawn(async move { crate::x402::check_facilitator(&x402).await });
        }
        Ok(Application {
            router: router(state.clone(), api),
            listener,
            state,
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until Ctrl-C or SIGTERM, then lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `stop` completes (tests stop their in-process servers this way).
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let limits = self.state.settings.connections;
        crate::server::serve(self.listener, self.router, limits, stop).await
    }
}

/// The documents derived from the finished OpenAPI description.
fn documents(openapi: &OpenApi) -> Documents {
    let value = serde_json::to_value(openapi).unwrap_or_default();
    Documents {
        openapi_json: Bytes::from(value.to_string()),
        docs_html: Bytes::from(docs_page::render(openapi)),
        mcp_tools: Arc::new(mcp::tools(&value)),
    }
}

/// Every route and every layer. Layers listed first wrap the ones after them.
fn router(state: AppState, api: Router<AppState>) -> Router {
    let limits = state.settings.limits;
    let policies = RateLimitPolicies::new(&state.settings);
    let timeout = Duration::from_millis(limits.request_timeout_ms);
    let cors = cors_layer(&state.settings.cors_allowed_origins);
    // Every operation and MCP again under /x402/, paid per call (crate::x402).
    let paying =
        api.clone()
            .merge(mcp::paying_routes(&state))
            .layer(axum::middleware::from_fn_with_state(
                std::sync::Arc::<str>::from(state.settings.base_url.as_str()),
                crate::x402::mount,
            ));
    let api = api
        .merge(routes::ops::routes())
        .merge(mcp::routes(&state))
        .merge(crate::portal::routes())
        .nest(crate::x402::PREFIX, paying)
        .fallback(middleware::not_found)
        .method_not_allowed_fallback(middleware::method_not_allowed)
        .with_state(state);
    api.layer(
        ServiceBuilder::new()
            .layer(cors)
            .layer(axum::middleware::from_fn(middleware::sanitize_request_id))
            .layer(SetRequestIdLayer::x_request_id(MakeUuidV7))
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_span)
                    .on_failure(log_failure),
            )
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(CompressionLayer::new())
            .layer(axum::middleware::from_fn(middleware::record_metrics))
            .layer(axum::middleware::from_fn_with_state(
                policies,
                add_rate_limit_policy,
            ))
            .layer(axum::middleware::from_fn_with_state(
                limits,
                middleware::limit_request_size,
            ))
            .layer(axum::middleware::from_fn_with_state(
                timeout,
                middleware::limit_time,
            ))
            .layer(CatchPanicLayer::custom(middleware::panic_answer)),
    )
}

/// Opens the store (its migrations run there), the read models (theirs run here, so the
/// account endpoints work even before a separate projector first starts) and the biller.
async fn open_ledger(settings: &LedgerSettings) -> Result<Ledger, StartupError> {
    let store = Store::connect(settings.database_url.expose_secret()).await?;
    let projector = Projector::new(store.clone()).await?;
    let projector = settings.run_projector.then(|| {
        tracing::info!("projecting the ledger read models in this process");
        manabi_projector::spawn(projector)
    });
    let biller = Biller::start(
        store.clone(),
        Arc::new(SystemClock),
        BillerConfig::for_store(&store),
    );
    Ok(Ledger {
        store,
        biller,
        projector,
    })
}

/// CORS for browser apps: the configured origins (any with `*`), the methods and the
/// headers a call uses, and the answer headers a client needs to read (request id, the
/// rate-limit pair, `Retry-After`). Preflights are answered here, before any route.
fn cors_layer(origins: &[String]) -> tower_http::cors::CorsLayer {
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let allow_origin = if origins.iter().any(|origin| origin == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|origin| HeaderValue::from_str(origin).ok()),
        )
    };
    let named = HeaderName::from_static;
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([
            axum::http::Method::GET,
            axum::http::Method::HEAD,
            axum::http::Method::POST,
        ])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            named("x-api-key"),
            named("idempotency-key"),
            named("x-request-id"),
            header::IF_NONE_MATCH,
            named("mcp-protocol-version"),
            named(crate::x402::PAYMENT_SIGNATURE),
            named(crate::x402::X_PAYMENT),
        ])
        .expose_headers([
            named("x-request-id"),
            named("ratelimit"),
            named("ratelimit-policy"),
            header::RETRY_AFTER,
            named(crate::x402::PAYMENT_REQUIRED),
            named(crate::x402::PAYMENT_RESPONSE),
            named(crate::x402::X_PAYMENT_RESPONSE),
            header::ETAG,
        ])
        .max_age(Duration::from_secs(86_400))
}

/// The `RateLimit-Policy` of each token bucket, in the IETF structured form (quota per
/// one-second window), for the burst refusals that carry a `RateLimit` header.
#[derive(Debug, Clone)]
struct RateLimitPolicies {
    keyed: Option<HeaderValue>,
    keyless: Option<HeaderValue>,
}

impl RateLimitPolicies {
    fn new(settings: &Settings) -> RateLimitPolicies {
        let policy = |per_sec: u32| {
            (per_sec > 0)
                .then(|| HeaderValue::from_str(&format!("\"burst\";q={per_sec};w=1")).ok())
                .flatten()
        };
        RateLimitPolicies {
            keyed: policy(settings.key_rate.per_sec),
            keyless: policy(settings.keyless_rate.per_sec),
        }
    }
}

/// Adds the policy of the caller's bucket (per key, or per address when keyless) to a
/// burst refusal; every other answer passes untouched.
async fn add_rate_limit_policy(
    State(policies): State<RateLimitPolicies>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let keyed = headers.contains_key(header::AUTHORIZATION) || headers.contains_key("x-api-key");
    let mut response = next.run(request).await;
    if response.headers().contains_key(RATELIMIT) {
        let policy = if keyed {
            &policies.keyed
        } else {
            &policies.keyless
        };
        if let Some(policy) = policy {
            response
                .headers_mut()
                .insert(RATELIMIT_POLICY, policy.clone());
        }
    }
    response
}

const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");

/// A 500 is an error of the server. A 503 (not ready yet, which a load balancer polling
/// `/readyz` sees at every start; or a dependency unavailable, which the billing seam
/// logs itself) is an expected state, answered in the envelope and counted in the
/// metrics: a debug line. A 504 is a warning.
fn log_failure(
    class: tower_http::classify::ServerErrorsFailureClass,
    latency: Duration,
    _span: &tracing::Span,
) {
    use tower_http::classify::ServerErrorsFailureClass;
    let latency_ms = latency.as_millis() as u64;
    match class {
        ServerErrorsFailureClass::StatusCode(status) if status.as_u16() == 503 => {
            tracing::debug!(%status, latency_ms, "not available");
        }
        ServerErrorsFailureClass::StatusCode(status) if status.as_u16() != 500 => {
            tracing::warn!(%status, latency_ms, "answered with a server-side refusal");
        }
        class => tracing::error!(%class, latency_ms, "response failed"),
    }
}

/// The span of one request carries its id, so every log line of it can be found, and
/// its path with any secret in it redacted (a sign-in link's).
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let path = crate::portal::path_for_logs(request.uri().path());
    tracing::info_span!("request", method = %request.method(), uri = %path, request_id = id)
}

/// One Prometheus recorder per process: the `metrics` facade has a single global slot.
fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("http_request_duration_seconds".to_owned()),
                    &LATENCY_BUCKETS,
                )
                .unwrap_or_else(|_| PrometheusBuilder::new());
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            // Fails only if another recorder is installed; this handle then renders
            // nothing, but serving goes on.
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed");
            }
            handle
        })
        .clone()
}

/// Hands the dataset to the state once it is loaded (or records why it failed), then
/// makes the docs page's examples from it.
fn install_dataset(
    state: AppState,
    loading: tokio::task::JoinHandle<Result<Catalog, CatalogError>>,
) {
    tokio::spawn(async move {
        match loading.await {
            Ok(Ok(catalog)) => {
                tracing::info!(
                    learnables = catalog.entries.len(),
                    terms = catalog.index.term_count(),
                    load_ms = catalog.load_time.as_millis() as u64,
                    artifact_ms = catalog.load_steps.artifact.as_millis() as u64,
                    index_ms = catalog.load_steps.index.as_millis() as u64,
                    assemble_ms = catalog.load_steps.assemble.as_millis() as u64,
                    "dataset loaded and indexed"
                );
                state.set_docs_maker(docs_page::page_with_examples);
                state.set_catalog(catalog);
                // The docs page's examples are the server's own reads of the dataset: made
                // now, once, so no visitor pays for them and a failure shows at start.
                let docs = state.clone();
                let made =
                    tokio::task::spawn_blocking(move || docs.docs_with_examples().is_some()).await;
                if let Err(error) = made {
                    tracing::error!(%error, "making the docs page's examples failed");
                }
            }
            Ok(Err(error)) => {
                tracing::error!(%error, artifact = %state.settings.artifact, "dataset load failed");
                state.set_load_error(error.to_string());
            }
            Err(error) => {
                tracing::error!(%error, "dataset load task failed");
                state.set_load_error(error.to_string());
            }
        }
    });
}

fn spawn_housekeeping(state: AppState) {
    tokio::spawn(async move {
        let mut limiter_tick = tokio::time::interval(LIMITER_CLEANUP_INTERVAL);
        let mut metrics_tick = tokio::time::interval(METRICS_UPKEEP_INTERVAL);
        loop {
            tokio::select! {
                _ = limiter_tick.tick() => {
                    if let Some(limiter) = &state.keyless_limiter {
                        limiter.retain_recent();
                        limiter.shrink_to_fit();
                    }
                }
                _ = metrics_tick.tick() => state.metrics.run_upkeep(),
            }
        }
    });
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down");
}
