//! hyper answers a request it cannot parse before any of our code sees it: a bodyless
//! 400 (a broken request line or header), 414 (a request line longer than its buffer) or
//! 431 (more headers than it parses). [`Enveloped`] wraps a connection's socket,
//! recognises that answer as hyper writes it, and writes the error envelope in its place,
//! so even these clients get `{"ok":false,"error":{…}}` and a request id.
//!
//! Our own handlers never send such an answer: every error of theirs has an envelope
//! body, so a 400, 414 or 431 head with `content-length: 0` and nothing after it can only
//! come from hyper. hyper closes the connection after it, and so does the replacement.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use manabi_schemas::{ErrorBody, ErrorCode, ErrorEnvelope};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest head hyper writes for a parse error (status line, length and date).
const REJECTION_BYTES_MAX: usize = 256;

/// A socket whose writes of hyper's bodyless parse-error answers become envelopes.
#[derive(Debug)]
pub struct Enveloped<S> {
    inner: S,
    replacing: Option<Replacement>,
}

/// An envelope being written in place of hyper's answer of `stands_for` bytes.
#[derive(Debug)]
struct Replacement {
    bytes: Bytes,
    written: usize,
    stands_for: usize,
}

impl<S> Enveloped<S> {
    pub fn new(inner: S) -> Enveloped<S> {
        Enveloped {
            inner,
            replacing: None,
        }
    }
}

impl<S: AsyncWrite + Unpin> Enveloped<S> {
    /// Writes the replacement to its end, then reports hyper's bytes as written. hyper
    /// offers the same bytes again after a `Pending`, so the replacement just goes on.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let Some(replacing) = self.replacing.as_mut() else {
            return Poll::Ready(Ok(0));
        };
        while replacing.written < replacing.bytes.len() {
            let rest = &replacing.bytes[replacing.written..];
            let written = ready!(Pin::new(&mut self.inner).poll_write(cx, rest))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            replacing.written += written;
        }
        let stands_for = replacing.stands_for;
        self.replacing = None;
        Poll::Ready(Ok(stands_for))
    }

    /// Starts replacing `buf` if it is hyper's parse-error answer.
    fn recognise(&mut self, buf: &[u8]) -> bool {
        if self.replacing.is_none() {
            self.replacing = envelope_for(buf).map(|bytes| Replacement {
                bytes,
                written: 0,
                stands_for: buf.len(),
            });
        }
        self.replacing.is_some()
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Enveloped<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Enveloped<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.recognise(buf) {
            return this.poll_replacement(cx);
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let mut filled = bufs.iter().filter(|buf| !buf.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next())
            && this.recognise(only)
        {
            return this.poll_replacement(cx);
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The envelope answer standing for `head`, if `head` is exactly one of hyper's
/// bodyless parse-error answers.
fn envelope_for(head: &[u8]) -> Option<Bytes> {
    if head.len() > REJECTION_BYTES_MAX || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let head = std::str::from_utf8(head).ok()?;
    let status_line_rest = head.strip_prefix("HTTP/1.1 ")?;
    let (code, message) = match status_line_rest.get(..3)? {
        "400" => (
            ErrorCode::MalformedRequest,
            "the request is not valid HTTP/1.1: check the request line and the header names \
             and values",
        ),
        "414" => (
            ErrorCode::UriTooLong,
            "the request line is longer than the server reads",
        ),
        "431" => (
            ErrorCode::HeadersTooLarge,
            "the request has more headers, or longer ones, than the server reads",
        ),
        _ => return None,
    };
    let lines: Vec<&str> = head.trim_end_matches("\r\n").split("\r\n").collect();
    let bodyless = lines
        .iter()
        .any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    if !bodyless || head.matches("\r\n\r\n").count() != 1 {
        return None;
    }
    let date = lines
        .iter()
        .find(|line| line.to_ascii_lowercase().starts_with("date:"));
    let body = serde_json::to_string(&ErrorEnvelope::new(ErrorBody::new(code, message))).ok()?;
    let mut answer = format!(
        "{}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-request-id: {}\r\n\
         connection: close\r\n",
        lines[0],
        body.len(),
        uuid::Uuid::now_v7(),
    );
    if let Some(date) = date {
        answer.push_str(date);
        answer.push_str("\r\n");
    }
    answer.push_str("\r\n");
    answer.push_str(&body);
    Some(Bytes::from(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_bodyless_rejections_become_envelopes() {
        let head = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 05:00:00 GMT\r\n\r\n";
        let answer = envelope_for(head).expect("replaced");
        let text = std::str::from_utf8(&answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
        assert!(
            head.contains("\r\ndate: Wed, 25 Nov 2026 05:00:00 GMT"),
            "{head}"
        );
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"]["code"], "MALFORMED_REQUEST");
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        assert!(envelope_for(head).is_some());
    }

    #[test]
    fn every_other_write_passes_through() {
        for write in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 304 Not Modified\r\netag: W/\"1\"\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}",
            b"{\"ok\":true}",
        ] {
            assert!(envelope_for(write).is_none(), "{write:?}");
        }
    }
}
