//! A successful read, and the success envelope written around it.
//!
//! Documents are held as JSON text; the envelope is spliced around that text instead of
//! parsing and re-serializing it, which keeps an entry read to one buffer copy.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::{BufMut, Bytes, BytesMut};
use manabi_schemas::Billing;

use crate::error::ratelimit_header;

/// Where a keyed answer carries its Billing object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BillingPlacement {
    /// Beside `data` in the envelope.
    Envelope,
    /// Inside the `data` object (search answers: `data.billing`).
    InData,
}

/// The `data` of a successful read, as JSON text, and how to wrap it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// JSON text of the `data` member.
    pub data: Bytes,
    /// The caller was served the evaluation sample.
    pub sample: bool,
    pub billing: Option<Billing>,
    pub placement: BillingPlacement,
    /// Tokens left in the caller's burst bucket, sent as the `RateLimit` header.
    pub tokens_left: Option<u32>,
    /// The `ETag` of `data`, set for REST answers (see [`Answer::entity_tag`]).
    pub etag: Option<HeaderValue>,
    /// The caller's `If-None-Match` named the current `data`: answered 304 with no body.
    pub not_modified: bool,
    /// The read asked for another locale than English: the billing seam serves the
    /// localized version instead of `data` (see `crate::localization`).
    pub localize: Option<crate::localization::LocalizeRequest>,
    /// The settled x402 payment of a call under `/x402/`, sent back as
    /// `PAYMENT-RESPONSE` and `X-PAYMENT-RESPONSE`.
    pub payment: Option<Box<crate::x402::Settled>>,
}

impl Answer {
    pub fn new(data: impl Into<Bytes>, sample: bool) -> Answer {
        Answer {
            data: data.into(),
            sample,
            billing: None,
            placement: BillingPlacement::Envelope,
            tokens_left: None,
            etag: None,
            not_modified: false,
            localize: None,
            payment: None,
        }
    }

    /// A weak entity tag of `data` and the sample flag: `W/"<xxh3-64 in hex>"`. Weak,
    /// because what a validator vouches for is the data; the Billing object around it
    /// differs from call to call.
    pub fn entity_tag(&self) -> HeaderValue {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&[u8::from(self.sample)]);
        hasher.update(&self.data);
        let tag = format!("W/\"{:016x}\"", hasher.digest());
        HeaderValue::from_str(&tag).expect("hex digits are a valid header value")
    }

    /// Who may store the answer: the keyless sample is the same for everyone; a keyed
    /// answer carries its caller's Billing object, so only the caller may keep it, and
    /// must revalidate it (a revalidation answered 304 is free).
    /// Account answers have no validator and are not stored at all.
    fn cache_control(&self) -> HeaderValue {
        HeaderValue::from_static(match (self.sample, &self.etag) {
            (true, _) => "public, max-age=300",
            (false, Some(_)) => "private, no-cache",
            (false, None) => "no-store",
        })
    }

    pub fn with_billing_in_data(mut self) -> Answer {
        self.placement = BillingPlacement::InData;
        self
    }

    /// The full envelope `{"ok":true[,"sample":true],"data":…[,"billing":…]}`.
    pub fn into_body(self) -> Bytes {
        let billing = self
            .billing
            .as_ref()
            .and_then(|b| serde_json::to_string(b).ok());
        let mut body = BytesMut::with_capacity(self.data.len() + 64);
        body.put_slice(if self.sample {
            br#"{"ok":true,"sample":true,"data":"#
        } else {
            br#"{"ok":true,"data":"#
        });
        match (&billing, self.placement) {
            (Some(billing), BillingPlacement::InData) if self.data.ends_with(b"}") => {
                let open = &self.data[..self.data.len() - 1];
                body.put_slice(open);
                body.put_slice(if open.ends_with(b"{") {
                    b"\"billing\":"
                } else {
                    b",\"billing\":"
                });
                body.put_slice(billing.as_bytes());
                body.put_slice(b"}}");
            }
            (Some(billing), _) => {
                body.put_slice(&self.data);
                body.put_slice(b",\"billing\":");
                body.put_slice(billing.as_bytes());
                body.put_u8(b'}');
            }
            (None, _) => {
                body.put_slice(&self.data);
                body.put_u8(b'}');
            }
        }
        body.freeze()
    }
}

/// A JSON response from ready-made JSON text.
pub fn json_response(body: Bytes) -> Response {
    let mut response = body.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

impl IntoResponse for Answer {
    /// The envelope, with the IETF `RateLimit` header of the caller's burst bucket (the
    /// server adds the matching `RateLimit-Policy`).
    fn into_response(mut self) -> Response {
        let tokens_left = self.tokens_left;
        let cache_control = self.cache_control();
        let etag = self.etag.take();
        let payment = self.payment.take();
        let mut response = if self.not_modified {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            json_response(self.into_body())
        };
        let headers = response.headers_mut();
        if let Some(value) = tokens_left.and_then(|left| ratelimit_header(left, 1)) {
            headers.insert("ratelimit", value);
        }
        if let Some(etag) = etag {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(header::CACHE_CONTROL, cache_control);
        if let Some(value) = payment.and_then(|paid| HeaderValue::from_str(&paid.header()).ok()) {
            headers.insert(crate::x402::PAYMENT_RESPONSE, value.clone());
            headers.insert(crate::x402::X_PAYMENT_RESPONSE, value);
        }
        // A keyless and a keyed answer to the same URL differ.
        headers.append(
            header::VARY,
            HeaderValue::from_static("authorization, x-api-key"),
        );
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn billing() -> Billing {
        Billing {
            points_charged: 5,
            currency: "JPY".into(),
            invoice_id: Some("e1".into()),
            free_tier: Some(false),
        }
    }

    #[test]
    fn keyless_answers_are_marked_sample() {
        let body = Answer::new(r#"{"id":"a"}"#, true).into_body();
        assert_eq!(&body[..], br#"{"ok":true,"sample":true,"data":{"id":"a"}}"#);
    }

    #[test]
    fn billing_goes_beside_or_inside_data() {
        let mut answer = Answer::new(r#"{"id":"a"}"#, false);
        answer.billing = Some(billing());
        let json: serde_json::Value = serde_json::from_slice(&answer.clone().into_body()).unwrap();
        assert_eq!(json["billing"]["points_charged"], 5);
        let inside = answer.with_billing_in_data().into_body();
        let json: serde_json::Value = serde_json::from_slice(&inside).unwrap();
        assert_eq!(json["data"]["billing"]["invoice_id"], "e1");
        assert_eq!(json["data"]["id"], "a");
    }
}
