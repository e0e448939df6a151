//! The MCP endpoint: the six reads of the REST API as read-only tools at `POST /mcp`,
//! over the official SDK's Streamable HTTP transport, stateless and answering JSON.
//!
//! Nothing here reads the dataset or bills on its own: every tool parses its arguments
//! into the same typed parameters as its REST twin and calls the same `reads::*`
//! function through the same billing seam. This module only adds what MCP needs on
//! top: the tool catalogue with its schemas, the Bearer-key gate with its RFC 9728
//! document, and the translation of answers and refusals into tool results.

mod arguments;
mod auth;
mod catalogue;
mod jsonrpc;
mod outcome;
mod server;

use axum::Router;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post_service};
use manabi_schemas::ErrorCode;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::error::ApiError;
use crate::settings::McpSettings;
use crate::state::AppState;

pub use auth::{OAuthCaller, PROTECTED_RESOURCE_PATH};
pub use catalogue::tools;
pub use server::ManabiTools;

/// Where the endpoint is mounted.
pub const MCP_PATH: &str = "/mcp";

/// The routes of the MCP endpoint and its protected-resource document, to be merged
/// into the application router (whose layers then wrap them like every other route).
pub fn routes(state: &AppState) -> Router<AppState> {
    let endpoint = endpoint(state, false).route_layer(axum::middleware::from_fn_with_state(
        state.clone(),
        auth::require_key,
    ));
    Router::new()
        .route(MCP_PATH, endpoint)
        .route(PROTECTED_RESOURCE_PATH, get(auth::protected_resource))
        .route(
            &format!("{PROTECTED_RESOURCE_PATH}{MCP_PATH}"),
            get(auth::protected_resource),
        )
}

/// The endpoint as mirrored under `/x402/`: no key; each priced tool call is paid by
/// the x402 payment in its `_meta` (x402's MCP transport).
pub fn paying_routes(state: &AppState) -> Router<AppState> {
    Router::new().route(MCP_PATH, endpoint(state, true))
}

fn endpoint(state: &AppState, paying: bool) -> axum::routing::MethodRouter<AppState> {
    let service = StreamableHttpService::new(
        {
            let state = state.clone();
            move || Ok(ManabiTools::new(state.clone(), paying))
        },
        NeverSessionManager::default().into(),
        transport_config(&state.settings.mcp),
    );
    post_service(service)
        .route_layer(axum::middleware::from_fn_with_state(
            state.settings.limits.body_bytes_max,
            jsonrpc::guard,
        ))
        .fallback(method_not_allowed)
}

/// Stateless (no session id is ever issued), JSON answers, and the configured hosts and
/// origins instead of the SDK's loopback-only default.
fn transport_config(settings: &McpSettings) -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(settings.allowed_hosts.iter().cloned())
        .with_allowed_origins(settings.allowed_origins.iter().cloned())
        .enforce_origin_validation()
}

/// Any method but POST: a stateless server has no stream to offer on GET and no
/// session to end on DELETE.
async fn method_not_allowed(request: Request) -> Response {
    let message = format!(
        "{} is not allowed on {MCP_PATH}; send JSON-RPC messages with POST",
        request.method()
    );
    let mut response = ApiError::with_message(ErrorCode::MethodNotAllowed, message).into_response();
    response.headers_mut().insert(
        axum::http::header::ALLOW,
        axum::http::HeaderValue::from_static("POST"),
    );
    response
}
