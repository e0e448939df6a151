//! What a handler takes from a request: the caller's credential and address ([`Call`]),
//! the `{id}` path segment ([`IdPath`]) and the query parameters, decoded strictly
//! ([`QueryParams`]). Extraction never fails on its own: a query string that cannot be
//! decoded is kept as its error and answered as a 400 when the operation reads it.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use manabi_ledger::ChargeTicket;
use manabi_schemas::ErrorCode;
use manabi_schemas::events::{ChargeIdempotency, Transport};
use percent_encoding::percent_decode_str;
use secrecy::SecretString;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::operations::OperationSpec;

/// What a request's headers say about its caller: the API key, if any, kept secret so it
/// never reaches a log, and the request id its charge is recorded under.
#[derive(Debug, Default)]
pub struct Credential {
    key: Option<SecretString>,
    request_id: Option<String>,
    /// The `Idempotency-Key` header as sent (checked when a charge needs it).
    idempotency_key: Option<Result<String, ()>>,
    /// The key an OAuth access token acts as, once `/mcp`'s gate checked the token.
    oauth: Option<manabi_ledger::Caller>,
}

/// Longest accepted `Idempotency-Key`, in characters.
pub const IDEMPOTENCY_KEY_CHARS_MAX: usize = 255;

impl Credential {
    /// `Authorization: Bearer …` first (the scheme in any case, as HTTP says), then
    /// `X-API-Key`. Any other Authorization scheme is kept whole, so it is refused as an
    /// invalid key rather than ignored.
    pub fn from_headers(headers: &HeaderMap) -> Credential {
        let authorization = headers.get(header::AUTHORIZATION).map(|value| {
            let text = value.to_str().unwrap_or_default().trim();
            match text.split_once(' ') {
                Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
                    token.trim().to_owned()
                }
                _ => text.to_owned(),
            }
        });
        let api_key = || {
            headers
                .get("x-api-key")
                .map(|value| value.to_str().unwrap_or_default().trim().to_owned())
        };
        let request_id = headers
            .get("x-request-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let idempotency_key = headers.get("idempotency-key").map(|value| {
            value
                .to_str()
                .ok()
                .filter(|text| {
                    (1..=IDEMPOTENCY_KEY_CHARS_MAX).contains(&text.len())
                        && text.bytes().all(|byte| byte.is_ascii_graphic())
                })
                .map(str::to_owned)
                .ok_or(())
        });
        Credential {
            key: authorization.or_else(api_key).map(SecretString::from),
            request_id,
            idempotency_key,
            oauth: None,
        }
    }

    /// The credential of a call an OAuth access token authorized.
    pub fn with_oauth(mut self, caller: manabi_ledger::Caller) -> Credential {
        self.oauth = Some(caller);
        self
    }

    pub fn oauth(&self) -> Option<manabi_ledger::Caller> {
        self.oauth
    }

    /// The caller's `Idempotency-Key`, if it sent a well-formed one; 400 otherwise.
    pub fn idempotency_key(&self) -> Result<Option<&str>, ApiError> {
        match &self.idempotency_key {
            None => Ok(None),
            Some(Ok(key)) => Ok(Some(key)),
            Some(Err(())) => Err(ApiError::with_message(
                ErrorCode::InvalidParameter,
                format!(
                    "header `Idempotency-Key` must be 1 to {IDEMPOTENCY_KEY_CHARS_MAX} visible \
                     ASCII characters"
                ),
            )),
        }
    }

    pub fn is_present(&self) -> bool {
        self.key.is_some()
    }

    pub fn key(&self) -> Option<&SecretString> {
        self.key.as_ref()
    }

    /// The request id as the caller can look it up, if one was set.
    pub fn request_id_for_display(&self) -> &str {
        self.request_id.as_deref().unwrap_or("(none)")
    }

    /// The request id (set by the request-id layer), else a fresh one for the charge.
    pub fn request_id(&self) -> String {
        self.request_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::now_v7().to_string())
    }
}

/// The credential, client address and query of one request.
#[derive(Debug)]
pub struct Call {
    pub credential: Credential,
    pub client: IpAddr,
    /// Recorded on the charge event, so invoices tell REST and MCP calls apart.
    pub transport: Transport,
    /// Shared with the request-timeout layer: a charge is written only if the biller
    /// claims it before the request gives up (see `manabi_ledger::ticket`).
    pub ticket: ChargeTicket,
    /// A HEAD request is answered without a body, so it is never charged.
    pub head: bool,
    /// The `If-None-Match` header: the entity tags of the copies the caller holds.
    if_none_match: Option<String>,
    query: Result<QueryParams, ApiError>,
    /// The parameters in a canonical form, for telling an idempotent retry from another
    /// request: the sorted query pairs, or an MCP call's sorted JSON arguments.
    shape: String,
    /// The call came in under `/x402/`: paid per call instead of by key or sample.
    pub paid: Option<crate::x402::PaidRequest>,
}

impl Call {
    /// A call that arrived another way than a REST request (an MCP tool call).
    pub fn new(credential: Credential, client: IpAddr, transport: Transport) -> Call {
        Call {
            credential,
            client,
            transport,
            ticket: ChargeTicket::new(),
            head: false,
            if_none_match: None,
            query: Ok(QueryParams::default()),
            shape: String::new(),
            paid: None,
        }
    }

    /// The call is paid by x402 (an MCP tool call under `/x402/mcp`).
    pub fn with_payment(mut self, paid: crate::x402::PaidRequest) -> Call {
        self.paid = Some(paid);
        self
    }

    /// The caller's `If-None-Match` names `etag` (or is `*`): its copy is current. Entity
    /// tags compare weakly (RFC 9110 §13.1.2), so `W/"x"` and `"x"` are the same tag.
    pub fn already_has(&self, etag: &HeaderValue) -> bool {
        let Some(listed) = &self.if_none_match else {
            return false;
        };
        let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
        let ours = opaque(etag.to_str().unwrap_or(""));
        listed
            .split(',')
            .any(|tag| tag.trim() == "*" || opaque(tag) == ours)
    }

    /// The canonical form of an MCP call's arguments.
    pub fn with_arguments(
        mut self,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Call {
        let sorted: std::collections::BTreeMap<_, _> = arguments.iter().collect();
        self.shape = serde_json::to_string(&sorted).unwrap_or_default();
        self
    }

    /// The `Idempotency-Key` of this call with the digest of the request it names.
    pub fn idempotency(
        &self,
        operation: &OperationSpec,
        resource_id: Option<&str>,
    ) -> Result<Option<ChargeIdempotency>, ApiError> {
        let Some(key) = self.credential.idempotency_key()? else {
            return Ok(None);
        };
        let mut digest = Sha256::new();
        for part in [operation.id, resource_id.unwrap_or(""), self.shape.as_str()] {
            digest.update(part.as_bytes());
            digest.update(b"\n");
        }
        Ok(Some(ChargeIdempotency {
            key: key.to_owned(),
            request_digest: hex::encode(digest.finalize()),
        }))
    }

    pub fn with_ticket(mut self, ticket: ChargeTicket) -> Call {
        self.ticket = ticket;
        self
    }

    /// The query parameters, if they decoded and `operation` knows every one of them.
    pub fn query(&self, operation: &OperationSpec) -> Result<&QueryParams, ApiError> {
        let query = self.query.as_ref().map_err(Clone::clone)?;
        check_known(query.names(), operation.query, "parameter")?;
        Ok(query)
    }
}

/// The ticket the timeout layer put on the request, else one nobody abandons.
pub fn ticket_of(extensions: &axum::http::Extensions) -> ChargeTicket {
    extensions
        .get::<ChargeTicket>()
        .cloned()
        .unwrap_or_default()
}

/// The client address the server recorded for the connection.
pub fn client_of(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip())
}

impl<S: Send + Sync> FromRequestParts<S> for Call {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        let query = QueryParams::decode(parts.uri.query().unwrap_or(""));
        let shape = query
            .as_ref()
            .map(QueryParams::canonical)
            .unwrap_or_default();
        Ok(Call {
            credential: Credential::from_headers(&parts.headers),
            client: client_of(&parts.extensions),
            transport: Transport::Rest,
            ticket: ticket_of(&parts.extensions),
            head: parts.method == Method::HEAD,
            if_none_match: parts
                .headers
                .get(header::IF_NONE_MATCH)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
            query,
            shape,
            paid: crate::x402::paid_request(parts),
        })
    }
}

/// Refuses a name the operation does not take, so a misspelt filter is a 400 instead of
/// a charged, unfiltered answer. `noun` is what the transport calls them.
pub fn check_known<'a>(
    names: impl Iterator<Item = &'a str>,
    known: &[&str],
    noun: &str,
) -> Result<(), ApiError> {
    for name in names {
        if !known.contains(&name) {
            let takes = if known.is_empty() {
                "this operation takes none".to_owned()
            } else {
                format!("this operation takes {}", known.join(", "))
            };
            return Err(ApiError::with_message(
                ErrorCode::InvalidParameter,
                format!("unknown {noun} `{name}`: {takes}"),
            ));
        }
    }
    Ok(())
}

/// The query string's parameters, each name at most once, percent-decoded into valid
/// UTF-8 (`+` is a space, as in HTML forms).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    pub fn decode(query: &str) -> Result<QueryParams, ApiError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decode_component(name, "a parameter name")?;
            let value = decode_component(value, &format!("parameter `{name}`"))?;
            if pairs.iter().any(|(seen, _)| *seen == name) {
                return Err(ApiError::with_message(
                    ErrorCode::InvalidParameter,
                    format!("parameter `{name}` is given more than once"),
                ));
            }
            pairs.push((name, value));
        }
        Ok(QueryParams(pairs))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(name, _)| name.as_str())
    }

    /// The pairs sorted by name, as one string: the same parameters in any order give
    /// the same text.
    pub fn canonical(&self) -> String {
        let mut pairs: Vec<&(String, String)> = self.0.iter().collect();
        pairs.sort();
        serde_json::to_string(&pairs).unwrap_or_default()
    }
}

fn decode_component(text: &str, what: &str) -> Result<String, ApiError> {
    let spaced = text.replace('+', " ");
    percent_decode_str(&spaced)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| {
            ApiError::with_message(
                ErrorCode::InvalidParameter,
                format!("{what} is not valid UTF-8 once percent-decoded"),
            )
        })
}

/// The `{id}` path segment, percent-decoded; undecodable text is a 400.
pub struct IdPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|path| IdPath(path.0))
            .map_err(|rejection| {
                ApiError::with_message(
                    ErrorCode::InvalidParameter,
                    format!("parameter `id`: {}", rejection.body_text()),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    #[test]
    fn the_key_and_request_id_come_from_the_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static(" svc_ak_x "));
        headers.insert("x-request-id", HeaderValue::from_static("r-1"));
        let credential = Credential::from_headers(&headers);
        assert_eq!(
            credential.key().map(|k| k.expose_secret()),
            Some("svc_ak_x")
        );
        assert_eq!(credential.request_id(), "r-1");
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer svc_ak_y"),
        );
        let credential = Credential::from_headers(&headers);
        assert_eq!(
            credential.key().map(|k| k.expose_secret()),
            Some("svc_ak_y")
        );
        assert!(!format!("{credential:?}").contains("svc_ak_y"));
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for value in ["bearer svc_ak_z", "BEARER svc_ak_z", "Bearer  svc_ak_z"] {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
            let credential = Credential::from_headers(&headers);
            assert_eq!(
                credential.key().map(|k| k.expose_secret()),
                Some("svc_ak_z"),
                "{value}"
            );
        }
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        let credential = Credential::from_headers(&headers);
        assert_eq!(
            credential.key().map(|k| k.expose_secret()),
            Some("Basic abc")
        );
    }

    #[test]
    fn queries_decode_strictly() {
        let query = QueryParams::decode("query=%E9%A3%9F+x&limit=5&&flag").expect("decodes");
        assert_eq!(query.get("query"), Some("食 x"));
        assert_eq!(query.get("flag"), Some(""));
        assert_eq!(
            query.names().collect::<Vec<_>>(),
            ["query", "limit", "flag"]
        );
        for bad in ["query=%FF%FE", "%FF=1", "limit=1&limit=2"] {
            let error = QueryParams::decode(bad).expect_err(bad);
            assert_eq!(error.code(), ErrorCode::InvalidParameter, "{bad}");
        }
    }

    #[test]
    fn unknown_names_are_refused_with_what_is_known() {
        let error = check_known(["limt"].into_iter(), &["limit"], "parameter").unwrap_err();
        assert_eq!(
            error.body.message,
            "unknown parameter `limt`: this operation takes limit"
        );
        assert!(check_known(["limit"].into_iter(), &["limit"], "parameter").is_ok());
        let none = check_known(["x"].into_iter(), &[], "parameter").unwrap_err();
        assert!(none.body.message.ends_with("takes none"), "{none:?}");
    }
}
