//! In front of the SDK's transport: every refusal on `/mcp` is a JSON-RPC error object.
//!
//! A body that is not one well-formed JSON-RPC message is answered here with the error
//! JSON-RPC 2.0 names for it (−32700 parse error, −32600 invalid request, −32602 invalid
//! params), with the message's id when it has one; the transport itself answers unknown
//! methods with −32601. The transport's own plain-text refusals (403 for a host or origin
//! not allowed, 406 for an `Accept` without JSON, 415 for a body that is not JSON) are
//! rewritten into the same JSON-RPC error shape, keeping their HTTP status.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Value, json};

/// JSON-RPC 2.0 error codes.
pub const PARSE_ERROR: i64 = -32_700;
pub const INVALID_REQUEST: i64 = -32_600;
pub const INVALID_PARAMS: i64 = -32_602;

/// The longest plain-text refusal of the transport read to rewrite, in bytes.
const REFUSAL_BYTES_MAX: usize = 4_096;

/// The guard, as an axum middleware on the `/mcp` route. A message is read up to the
/// server's body limit (`MANABI_BODY_BYTES_MAX`), which a chunked body cannot bypass.
pub async fn guard(State(body_bytes_max): State<usize>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, body_bytes_max).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!("the message is larger than {body_bytes_max} bytes");
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                INVALID_REQUEST,
                &message,
                Value::Null,
            );
        }
    };
    if let Err((code, message, id)) = check_message(&bytes) {
        return error_response(StatusCode::BAD_REQUEST, code, &message, id);
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    rewrite_plain_refusal(response).await
}

/// Why a body is not one JSON-RPC message: the code, a message, and its id if known.
type Refusal = (i64, String, Value);

fn check_message(bytes: &Bytes) -> Result<(), Refusal> {
    let message: Value = serde_json::from_slice(bytes)
        .map_err(|error| (PARSE_ERROR, format!("parse error: {error}"), Value::Null))?;
    let invalid = |why: &str, id: &Value| (INVALID_REQUEST, why.to_owned(), id.clone());
    let object = match &message {
        Value::Array(_) => {
            return Err(invalid(
                "batches are not supported: send one message per request",
                &Value::Null,
            ));
        }
        Value::Object(object) => object,
        _ => return Err(invalid("a JSON-RPC message is an object", &Value::Null)),
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return Err(invalid("`id` must be a string or a number", &Value::Null));
    }
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\"", &id));
    }
    if object.contains_key("result") || object.contains_key("error") {
        return Ok(()); // a response to a request of the server's
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return Err(invalid("`method` must be a string", &id));
    };
    match object.get("params") {
        None | Some(Value::Object(_)) => {}
        Some(_) => {
            return Err((INVALID_PARAMS, "`params` must be an object".to_owned(), id));
        }
    }
    if method == "tools/call"
        && object
            .get("params")
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .is_none()
    {
        return Err((
            INVALID_PARAMS,
            "tools/call needs `params.name`, a tool name".to_owned(),
            id,
        ));
    }
    Ok(())
}

/// A refusal of the transport in plain text becomes a JSON-RPC error with its status.
async fn rewrite_plain_refusal(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !status.is_client_error() || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, REFUSAL_BYTES_MAX)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("refused").to_owned()
    } else {
        text
    };
    let mut rewritten = error_response(status, INVALID_REQUEST, &message, Value::Null);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rewritten
}

fn error_response(status: StatusCode, code: i64, message: &str, id: Value) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<i64> {
        check_message(&Bytes::from(body.to_owned()))
            .err()
            .map(|(code, _, _)| code)
    }

    #[test]
    fn each_malformed_message_gets_its_json_rpc_code() {
        assert_eq!(code("{not json"), Some(PARSE_ERROR));
        assert_eq!(code(&"[".repeat(10_000)), Some(PARSE_ERROR));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(r#""ping""#), Some(INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), Some(INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}"#),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#),
            Some(INVALID_PARAMS)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
    }

    #[test]
    fn the_id_is_echoed_when_the_message_has_one() {
        let refusal = check_message(&Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":"a-7","method":"tools/call","params":[]}"#,
        ))
        .unwrap_err();
        assert_eq!(refusal.2, json!("a-7"));
    }
}
