//! What every request shares: the settings, the dataset once it is loaded, the billing
//! ledger, the keyless and per-key rate limiters and the pre-built documents (discovery,
//! and the OpenAPI description, docs page and MCP tool list that `startup` builds).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use governor::clock::DefaultClock;
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use manabi_ledger::{Biller, Store};
use manabi_schemas::Mode;
use metrics_exporter_prometheus::PrometheusHandle;
use uuid::Uuid;

use crate::catalog::Catalog;
use crate::error::ApiError;
use crate::localization::Localization;
use crate::settings::{KeyRate, KeylessRate, Settings};

/// Keyed token buckets that say how many tokens are left after each check.
pub type BucketLimiter<K> =
    RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;

/// A token bucket per client address for keyless callers.
pub type KeylessLimiter = BucketLimiter<IpAddr>;

/// A token bucket per API key id for keyed callers.
pub type KeyLimiter = BucketLimiter<Uuid>;

/// The billing ledger as the server uses it: the store (read models, readiness) and the
/// biller that authenticates keys and charges calls.
#[derive(Clone)]
pub struct Ledger {
    pub store: Store,
    pub biller: Biller,
    /// The projector task of this process, if it runs one (the embedded default).
    pub projector: Option<manabi_projector::ProjectorHealth>,
}

/// The documents derived from the router's OpenAPI description, built once at start.
#[derive(Debug, Clone)]
pub struct Documents {
    pub openapi_json: Bytes,
    pub docs_html: Bytes,
    /// `tools/list` of the MCP endpoint.
    pub mcp_tools: Arc<Vec<rmcp::model::Tool>>,
}

/// Makes the docs page with its examples from the loaded dataset. `startup` hands over
/// `docs_page::page_with_examples`, so `state` builds no document itself.
pub type DocsMaker = fn(&AppState) -> Bytes;

/// Cheap to clone: every handler gets the same shared value.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub settings: Settings,
    catalog: OnceLock<Catalog>,
    load_error: OnceLock<String>,
    pub keyless_limiter: Option<KeylessLimiter>,
    pub key_limiter: Option<KeyLimiter>,
    pub ledger: Ledger,
    pub localization: Localization,
    /// Pay-per-call under `/x402/`, when configured.
    pub x402: Option<crate::x402::X402>,
    /// The developer portal's mailer and sign-in limits.
    pub portal: crate::portal::Portal,
    pub metrics: PrometheusHandle,
    discovery_sample: Bytes,
    discovery_full: Bytes,
    pub credit_packs_json: Bytes,
    pub documents: Documents,
    started: Instant,
    ready_after: OnceLock<Duration>,
    docs_maker: OnceLock<DocsMaker>,
    /// The docs page with examples from the dataset, made once as soon as it is loaded.
    docs_with_examples: OnceLock<Bytes>,
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// `started` is when the server began to start: the dataset load starts before the
    /// state exists, and the ready time counts from there.
    pub fn new(
        settings: Settings,
        metrics: PrometheusHandle,
        ledger: Ledger,
        documents: Documents,
        localization: Localization,
        portal: crate::portal::Portal,
        started: Instant,
    ) -> AppState {
        let locales = crate::discovery::locales(&localization.localizer);
        let discovery =
            |mode| Bytes::from(crate::discovery::discovery_json(&settings, &locales, mode));
        AppState(Arc::new(Shared {
            discovery_sample: discovery(Mode::Sample),
            discovery_full: discovery(Mode::Full),
            credit_packs_json: Bytes::from(crate::discovery::credit_packs_json(&settings)),
            documents,
            keyless_limiter: keyless_limiter(settings.keyless_rate),
            key_limiter: key_limiter(settings.key_rate),
            ledger,
            localization,
            x402: settings.x402.clone().map(crate::x402::X402::new),
            portal,
            settings,
            catalog: OnceLock::new(),
            load_error: OnceLock::new(),
            metrics,
            started,
            ready_after: OnceLock::new(),
            docs_maker: OnceLock::new(),
            docs_with_examples: OnceLock::new(),
        }))
    }

    /// The dataset, or 503 while it is still loading (or failed to load).
    pub fn catalog(&self) -> Result<&Catalog, ApiError> {
        self.catalog.get().ok_or_else(ApiError::unavailable)
    }

    pub fn is_ready(&self) -> bool {
        self.catalog.get().is_some()
    }

    /// Installs the loaded dataset; the server is ready from here on.
    pub fn set_catalog(&self, catalog: Catalog) {
        if self.catalog.set(catalog).is_ok() {
            let _ = self.ready_after.set(self.started.elapsed());
        }
    }

    pub fn set_load_error(&self, error: String) {
        let _ = self.load_error.set(error);
    }

    pub fn load_error(&self) -> Option<&str> {
        self.load_error.get().map(String::as_str)
    }

    /// Time from the start of the server to the dataset being servable.
    pub fn ready_after(&self) -> Option<Duration> {
        self.ready_after.get().copied()
    }

    /// The `/docs` page: with its examples once the dataset is loaded, the page without
    /// them before (and when the dataset failed to load).
    pub fn docs_html(&self) -> Bytes {
        match self.docs_with_examples() {
            Some(page) => page.clone(),
            None => self.documents.docs_html.clone(),
        }
    }

    /// What makes the docs page's examples once the dataset is in (set once).
    pub fn set_docs_maker(&self, maker: DocsMaker) {
        let _ = self.docs_maker.set(maker);
    }

    /// The docs page with its examples, `None` until the dataset is loaded. Made once:
    /// `startup` asks for it as soon as the dataset is in, so no visitor waits for it (one
    /// asking meanwhile waits for that page, not a second one).
    pub fn docs_with_examples(&self) -> Option<&Bytes> {
        let make = self.docs_maker.get().filter(|_| self.is_ready())?;
        Some(self.docs_with_examples.get_or_init(|| make(self)))
    }

    pub fn discovery_json(&self, mode: Mode) -> Bytes {
        match mode {
            Mode::Sample => self.discovery_sample.clone(),
            Mode::Full => self.discovery_full.clone(),
        }
    }
}

fn keyless_limiter(rate: KeylessRate) -> Option<KeylessLimiter> {
    let per_sec = NonZeroU32::new(rate.per_sec)?;
    let burst = NonZeroU32::new(rate.burst).unwrap_or(per_sec);
    Some(
        RateLimiter::keyed(Quota::per_second(per_sec).allow_burst(burst))
            .with_middleware::<StateInformationMiddleware>(),
    )
}

fn key_limiter(rate: KeyRate) -> Option<KeyLimiter> {
    let per_sec = NonZeroU32::new(rate.per_sec)?;
    let burst = NonZeroU32::new(rate.burst).unwrap_or(per_sec);
    Some(
        RateLimiter::keyed(Quota::per_second(per_sec).allow_burst(burst))
            .with_middleware::<StateInformationMiddleware>(),
    )
}
