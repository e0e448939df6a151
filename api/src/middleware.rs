//! Cross-cutting request handling: size limits, the request timeout, metrics, request
//! ids, panics and the 404/405 answers, each as a tower layer or fallback.

use std::any::Any;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, Response, header};
use axum::middleware::Next;
use axum::response::IntoResponse;
use manabi_ledger::ChargeTicket;
use manabi_schemas::ErrorCode;
use tower_http::request_id::{MakeRequestId, RequestId};

use crate::error::ApiError;
use crate::settings::RequestLimits;

/// Refuses requests whose URI, query string, headers or body exceed the configured
/// bounds, before any handler work is done.
pub async fn limit_request_size(
    State(limits): State<RequestLimits>,
    request: Request,
    next: Next,
) -> axum::response::Response {
    if let Err(error) = check_size(&limits, &request) {
        return error.into_response();
    }
    next.run(request).await
}

fn check_size(limits: &RequestLimits, request: &Request) -> Result<(), ApiError> {
    let uri = request.uri();
    let uri_bytes = uri.path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_bytes > limits.uri_bytes_max {
        let message = format!(
            "the URI is {uri_bytes} bytes; at most {} are accepted",
            limits.uri_bytes_max
        );
        return Err(ApiError::with_message(ErrorCode::UriTooLong, message));
    }
    let query_bytes = uri.query().map_or(0, str::len);
    if query_bytes > limits.query_bytes_max {
        let message = format!(
            "the query string is {query_bytes} bytes; at most {} are accepted",
            limits.query_bytes_max
        );
        return Err(ApiError::with_message(ErrorCode::UriTooLong, message));
    }
    // Name, value and the ": " and CRLF around them, as they travel on the wire.
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > limits.header_bytes_max {
        let message = format!(
            "the headers are {header_bytes} bytes; at most {} are accepted",
            limits.header_bytes_max
        );
        return Err(ApiError::with_message(ErrorCode::HeadersTooLarge, message));
    }
    let body_bytes = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok())
        .unwrap_or(0);
    if body_bytes > limits.body_bytes_max as u64 {
        let message = format!(
            "the body is {body_bytes} bytes; at most {} are accepted (every endpoint is a GET)",
            limits.body_bytes_max
        );
        return Err(ApiError::with_message(ErrorCode::PayloadTooLarge, message));
    }
    let carries_body = request.headers().contains_key(header::TRANSFER_ENCODING)
        || request
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0");
    if carries_body && matches!(*request.method(), Method::GET | Method::HEAD) {
        // A GET body is never read; refusing it keeps a chunked upload from tying up a
        // connection and makes the mistake visible.
        return Err(ApiError::with_message(
            ErrorCode::MalformedRequest,
            "a GET or HEAD request takes no body",
        ));
    }
    Ok(())
}

/// How long a request whose charge is being committed may wait past its timeout for the
/// commit's outcome. The stores' own bounds (SQLite's busy timeout, the PostgreSQL pool's
/// acquire timeout) end a stalled commit well before this.
const CHARGE_COMMIT_WAIT_MS_MAX: u64 = 30_000;

/// Answers 504 when handling takes longer than the configured bound — but only after
/// abandoning the request's charge ticket, so "nothing was charged" stays true: a charge
/// the biller already claimed is waited for (at most [`CHARGE_COMMIT_WAIT_MS_MAX`]) and
/// answered with its data or its real error.
pub async fn limit_time(
    State(timeout): State<Duration>,
    mut request: Request,
    next: Next,
) -> axum::response::Response {
    let ticket = ChargeTicket::new();
    request.extensions_mut().insert(ticket.clone());
    let handling = next.run(request);
    tokio::pin!(handling);
    if let Ok(response) = tokio::time::timeout(timeout, &mut handling).await {
        return response;
    }
    if ticket.abandon() {
        return ApiError::new(ErrorCode::Timeout).into_response();
    }
    let commit_wait = Duration::from_millis(CHARGE_COMMIT_WAIT_MS_MAX);
    match tokio::time::timeout(commit_wait, handling).await {
        Ok(response) => response,
        Err(_) => {
            tracing::error!("a charge was still committing {commit_wait:?} after the timeout");
            ApiError::with_message(
                ErrorCode::ChargeOutcomeUnknown,
                "the ledger is still recording this call's charge; whether it was recorded is \
                 not known yet: look for this request's x-request-id in \
                 /api/v1/account/charges before retrying",
            )
            .into_response()
        }
    }
}

/// Counts every answer and its latency by route template and status.
pub async fn record_metrics(request: Request, next: Next) -> axum::response::Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |path| path.as_str().to_owned());
    let method = request.method().to_string();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels[..2])
        .record(started.elapsed().as_secs_f64());
    response
}

/// Longest caller-sent `x-request-id` kept, in bytes.
pub const REQUEST_ID_BYTES_MAX: usize = 64;

/// A caller's `x-request-id` is kept (it is recorded on the permanent invoice line) only
/// if it is 1 to 64 characters of `A-Z a-z 0-9 . _ : -`; otherwise it is dropped and the
/// server makes one, which the answer carries back.
pub async fn sanitize_request_id(mut request: Request, next: Next) -> axum::response::Response {
    let usable = request.headers().get("x-request-id").is_none_or(|value| {
        let bytes = value.as_bytes();
        (1..=REQUEST_ID_BYTES_MAX).contains(&bytes.len())
            && bytes
                .iter()
                .all(|byte| byte.is_ascii_alphanumeric() || b"._:-".contains(byte))
    });
    if !usable {
        request.headers_mut().remove("x-request-id");
    }
    next.run(request).await
}

/// Request ids are UUIDv7: unique, and sortable by time when reading logs.
#[derive(Debug, Clone, Copy, Default)]
pub struct MakeUuidV7;

impl MakeRequestId for MakeUuidV7 {
    fn make_request_id<B>(&mut self, _request: &axum::http::Request<B>) -> Option<RequestId> {
        HeaderValue::from_str(&uuid::Uuid::now_v7().to_string())
            .ok()
            .map(RequestId::new)
    }
}

/// A handler panic becomes a 500 envelope; the panic itself is logged.
pub fn panic_answer(panic: Box<dyn Any + Send + 'static>) -> Response<axum::body::Body> {
    let detail = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic = detail, "handler panicked");
    ApiError::new(ErrorCode::Internal).into_response()
}

/// Unknown paths.
pub async fn not_found(request: Request) -> axum::response::Response {
    let message = format!(
        "no endpoint at {}; see GET /api/v1 for the list",
        request.uri().path()
    );
    ApiError::with_message(ErrorCode::NotFound, message).into_response()
}

/// Known paths with a method other than GET/HEAD.
pub async fn method_not_allowed(request: Request) -> axum::response::Response {
    let message = format!(
        "{} is not allowed here; every endpoint is a GET",
        request.method()
    );
    ApiError::with_message(ErrorCode::MethodNotAllowed, message).into_response()
}
