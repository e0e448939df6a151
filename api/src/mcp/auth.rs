//! The Bearer-key gate in front of `/mcp`, and the OAuth protected-resource document
//! (RFC 9728) its refusals point to. The gate answers before any JSON-RPC is read, so
//! an agent without a key learns it from the HTTP status, as MCP's authorization
//! section asks, and keyless evaluation stays a REST-only offer.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use manabi_schemas::ErrorCode;
use serde::Serialize;

use crate::answer::json_response;
use crate::billing::authenticate_key;
use crate::error::ApiError;
use crate::extract::Credential;
use crate::state::AppState;

/// Where the protected-resource document is served (RFC 9728 §3).
pub const PROTECTED_RESOURCE_PATH: &str = "/.well-known/oauth-protected-resource";

/// The scope an API key or an OAuth token grants on this resource: calling the
/// read-only tools.
const SCOPE_TOOLS_READ: &str = crate::portal::oauth::SCOPE;

/// The caller an OAuth access token acts as, found by the gate for the billing seam.
#[derive(Debug, Clone, Copy)]
pub struct OAuthCaller(pub manabi_ledger::Caller);

/// Refuses a request without a usable key with 401 and a `WWW-Authenticate` challenge
/// naming the protected-resource document; lets the others through to the transport.
/// The key is checked by the billing seam's own authentication (the cached account,
/// constant time); each tool call is then authenticated again by the seam, so a key
/// revoked between the two is still refused.
pub async fn require_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let credential = Credential::from_headers(request.headers());
    let Some(key) = credential.key() else {
        let message = format!(
            "MCP requires an API key sent as `Authorization: Bearer svc_ak_…`; get one at {} \
             (keyless evaluation is offered on the REST API only)",
            state.settings.signup_url
        );
        drained(&state, request).await;
        return challenge(
            &state,
            ApiError::with_message(ErrorCode::InvalidApiKey, message),
        );
    };
    let raw = secrecy::ExposeSecret::expose_secret(key);
    if crate::portal::oauth::is_access_token(raw) {
        return match crate::portal::oauth::access_caller(&state, raw).await {
            Ok(caller) => {
                request.extensions_mut().insert(OAuthCaller(caller));
                next.run(request).await
            }
            Err(reason) => {
                drained(&state, request).await;
                challenge(
                    &state,
                    ApiError::with_message(
                        ErrorCode::InvalidApiKey,
                        format!("{reason}; authorize again (OAuth) or use an API key"),
                    ),
                )
            }
        };
    }
    match authenticate_key(&state, key, false).await {
        Ok(_) => next.run(request).await,
        Err(error) => {
            drained(&state, request).await;
            if error.status() == StatusCode::UNAUTHORIZED {
                challenge(&state, error)
            } else {
                error.into_response()
            }
        }
    }
}

/// Reads what is left of a refused request's body (up to the body limit), so the
/// connection stays usable: a client that sent its body after its headers reuses the
/// connection for its next request (the metadata lookup), which hyper would otherwise
/// close with the body unread.
async fn drained(state: &AppState, request: Request) {
    let limit = state.settings.limits.body_bytes_max;
    let _ = axum::body::to_bytes(request.into_body(), limit).await;
}

/// A 401 in the error envelope, with the challenge that tells an MCP client where to
/// find out how to get a credential.
pub fn challenge(state: &AppState, error: ApiError) -> Response {
    let mut response = error.into_response();
    let value = format!(
        "Bearer resource_metadata=\"{}{PROTECTED_RESOURCE_PATH}{}\", scope=\"{SCOPE_TOOLS_READ}\"",
        state.settings.base_url,
        super::MCP_PATH
    );
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The RFC 9728 metadata of the `/mcp` resource.
#[derive(Debug, Serialize)]
struct ProtectedResource<'a> {
    resource: String,
    resource_name: &'a str,
    /// Manabi itself, always: `/mcp` accepts only the tokens manabi issued.
    authorization_servers: [&'a str; 1],
    bearer_methods_supported: [&'a str; 1],
    scopes_supported: [&'a str; 1],
    resource_documentation: String,
}

/// `GET /.well-known/oauth-protected-resource`.
pub async fn protected_resource(State(state): State<AppState>) -> Response {
    let base = &state.settings.base_url;
    let document = ProtectedResource {
        resource: format!("{base}{}", super::MCP_PATH),
        resource_name: "manabi",
        authorization_servers: [base.as_str()],
        bearer_methods_supported: ["header"],
        scopes_supported: [SCOPE_TOOLS_READ],
        resource_documentation: format!("{base}/docs"),
    };
    match serde_json::to_vec(&document) {
        Ok(body) => json_response(Bytes::from(body)),
        Err(_) => ApiError::new(ErrorCode::Internal).into_response(),
    }
}
