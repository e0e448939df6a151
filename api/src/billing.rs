//! The billing seam: the one place where a read is authenticated, limited, resolved,
//! charged and answered, in the order of DESIGN §3. Every REST handler (and the MCP
//! tools) goes through [`serve_call`].
//!
//! Keys arrive with the ledger; until then any request that carries a key is refused
//! with 401 `INVALID_API_KEY`, and keyless callers are served the evaluation sample.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use governor::clock::{Clock, DefaultClock};
use manabi_schemas::ErrorCode;
use secrecy::SecretString;

use crate::answer::Answer;
use crate::error::ApiError;
use crate::state::AppState;

/// Who is calling, once authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No key: served the evaluation sample, limited per client address.
    Keyless { client: IpAddr },
}

impl Caller {
    /// Keyless callers only see entries of the evaluation sample.
    pub fn sample_only(&self) -> bool {
        matches!(self, Caller::Keyless { .. })
    }
}

/// What a call costs, looked up in the live price list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Price {
    /// Discovery and the credit-pack list.
    Free,
    Read,
    Search,
}

/// The API key a request carries, if any. Kept secret so it never reaches a log.
#[derive(Debug, Default)]
pub struct Credential(Option<SecretString>);

impl Credential {
    /// `Authorization: Bearer …` first, then `X-API-Key`. Any other Authorization
    /// scheme is kept as given, so it is refused as an invalid key rather than ignored.
    pub fn from_headers(headers: &HeaderMap) -> Credential {
        let authorization = headers.get(header::AUTHORIZATION).map(|value| {
            let text = value.to_str().unwrap_or_default();
            text.strip_prefix("Bearer ")
                .unwrap_or(text)
                .trim()
                .to_owned()
        });
        let api_key = || {
            headers
                .get("x-api-key")
                .map(|value| value.to_str().unwrap_or_default().trim().to_owned())
        };
        Credential(authorization.or_else(api_key).map(SecretString::from))
    }

    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }
}

/// The credential and client address of one request.
#[derive(Debug)]
pub struct Call {
    pub credential: Credential,
    pub client: IpAddr,
    /// Recorded on the charge event, so invoices tell REST and MCP calls apart.
    pub transport: manabi_schemas::events::Transport,
}

impl<S: Send + Sync> FromRequestParts<S> for Call {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        let client = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip());
        Ok(Call {
            credential: Credential::from_headers(&parts.headers),
            client,
            transport: manabi_schemas::events::Transport::Rest,
        })
    }
}

/// Steps 2 to 6 of a billed call; step 1 (parsing the parameters) happened before.
pub async fn serve_call(
    state: &AppState,
    call: Call,
    price: Price,
    resolve: impl FnOnce(&Caller) -> Result<Answer, ApiError>,
) -> Result<Answer, ApiError> {
    let caller = authenticate(&call)?;
    limit_burst(state, &caller)?;
    let answer = resolve(&caller)?;
    debit(state, &caller, price, answer)
}

/// Step 2. No key exists before the ledger, so any key is unknown.
fn authenticate(call: &Call) -> Result<Caller, ApiError> {
    if call.credential.is_present() {
        return Err(ApiError::new(ErrorCode::InvalidApiKey));
    }
    Ok(Caller::Keyless {
        client: call.client,
    })
}

/// Step 3: the keyless token bucket of the caller's address.
fn limit_burst(state: &AppState, caller: &Caller) -> Result<(), ApiError> {
    let Caller::Keyless { client } = caller;
    let Some(limiter) = &state.keyless_limiter else {
        return Ok(());
    };
    limiter.check_key(client).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        // Round up: retrying a fraction of a second early would be refused again.
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError::with_message(
            ErrorCode::RateLimited,
            format!(
                "keyless requests are limited to {} per second per address; retry after \
                 {secs} s or use an API key",
                state.settings.keyless_rate.per_sec
            ),
        )
        .retry_after(secs.max(1))
    })
}

/// Steps 5 and 6. Keyless calls are free and carry no Billing object.
fn debit(
    _state: &AppState,
    caller: &Caller,
    _price: Price,
    answer: Answer,
) -> Result<Answer, ApiError> {
    match caller {
        Caller::Keyless { .. } => Ok(answer),
    }
}
