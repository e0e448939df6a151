//! Operators' endpoints, outside the API description: liveness, readiness, metrics.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use manabi_ledger::{EventStore, StreamName};
use manabi_schemas::ErrorCode;

use crate::answer::json_response;
use crate::error::ApiError;
use crate::state::AppState;

/// How long `/readyz` waits for the ledger to answer its probe, in milliseconds: a load
/// balancer hears "not ready" promptly, not a hang.
const READYZ_PROBE_MS: u64 = 1_000;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    json_response(Bytes::from_static(br#"{"ok":true,"data":{"status":"up"}}"#))
}

/// `GET /readyz`: 200 once the ledger answers a read and the dataset is loaded; 503 with
/// the reason before (a dataset still loading is expected at start, so not an error).
pub async fn readyz(State(state): State<AppState>) -> Response {
    if let Err(reason) = state.ledger.biller.health().check() {
        return ApiError::with_message(ErrorCode::Unavailable, reason)
            .retry_after(1)
            .into_response();
    }
    let probe = StreamName::new("readyz-probe");
    let wait = Duration::from_millis(READYZ_PROBE_MS);
    let answered = tokio::time::timeout(wait, state.ledger.store.read_stream(&probe, 0, 1)).await;
    let failure = match answered {
        Ok(Ok(_)) => None,
        Ok(Err(error)) => Some(format!("the ledger does not answer: {error}")),
        Err(_) => Some(format!(
            "the ledger did not answer within {READYZ_PROBE_MS} ms"
        )),
    };
    if let Some(reason) = failure {
        tracing::warn!(reason, "readiness");
        return ApiError::with_message(ErrorCode::Unavailable, reason)
            .retry_after(1)
            .into_response();
    }
    let stopped = state.ledger.projector.as_ref().and_then(|p| p.stopped());
    if let Some(stopped) = stopped {
        return ApiError::with_message(ErrorCode::Unavailable, stopped.to_string()).into_response();
    }
    let Ok(catalog) = state.catalog() else {
        let message = match state.load_error() {
            Some(reason) => format!("the dataset failed to load: {reason}"),
            None => "the dataset is still loading".to_owned(),
        };
        return ApiError::with_message(ErrorCode::Unavailable, message)
            .retry_after(1)
            .into_response();
    };
    let body = format!(
        r#"{{"ok":true,"data":{{"status":"ready","learnables":{},"dataset_version":{},"ready_after_ms":{}}}}}"#,
        catalog.entries.len(),
        serde_json::to_string(&catalog.dataset_version).unwrap_or_default(),
        state.ready_after().map_or(0, |after| after.as_millis()),
    );
    json_response(Bytes::from(body))
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}
