//! The translation provider over HTTP: a client of DeepL's API v2 text translation
//! endpoint, `POST {base}/v2/translate` with a JSON body and the key in an
//! `Authorization: DeepL-Auth-Key …` header (developers.deepl.com, "Access and
//! authentication" and "Translate text"). Every failure is a [`TranslateError`] whose
//! reason never carries the key.
//!
//! TLS: DeepL is https only (`https://api.deepl.com`, `https://api-free.deepl.com`), so
//! the workspace's `reqwest` carries `rustls-tls` (with its bundled web PKI roots); the
//! tests' stand-in speaks plain http on loopback.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::generator::{GeneratorInfo, GeneratorKind, TranslateError};
use crate::locales::LocaleCode;

/// Texts in one request: DeepL's documented maximum for `/v2/translate`.
pub const TEXTS_PER_REQUEST_MAX: usize = 50;
/// Bytes of one request body: DeepL's documented maximum (128 KiB).
pub const REQUEST_BODY_BYTES_MAX: usize = 128 * 1024;
/// Bytes of a successful answer we read; far above what 128 KiB of English can become.
const RESPONSE_BODY_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Bytes of an error answer we read, for its `message`.
const ERROR_BODY_BYTES_MAX: usize = 4 * 1024;
/// Characters of DeepL's error message kept in a failure's reason.
const ERROR_MESSAGE_CHARS_MAX: usize = 200;
/// The API version this client speaks, reported in [`GeneratorInfo::version`].
const API_VERSION: &str = "v2";
/// Every text is English (the dataset's language); saying so spares DeepL a guess on
/// short glosses.
const SOURCE_LANG: &str = "EN";

const fn target(code: &[u8; 2], deepl: &'static str) -> (LocaleCode, &'static str) {
    (LocaleCode::from_table(*code), deepl)
}

/// The locales DeepL translates English into, each with the `target_lang` we send.
/// Source: the "Translation target languages" list of DeepL's API documentation
/// ("Languages supported", developers.deepl.com, as of 2025), without the beta languages
/// that need `enable_beta_languages` and without English (our source). Where DeepL
/// offers variants we pick one: `pt` → Brazilian Portuguese, `zh` → Simplified Chinese.
/// HE, TH and VI were listed as Pro-plan only (next-generation models); a Free key gets
/// an error for them, reported as `Unavailable`.
const DEEPL_TARGETS: [(LocaleCode, &str); 32] = [
    target(b"ar", "AR"),
    target(b"bg", "BG"),
    target(b"cs", "CS"),
    target(b"da", "DA"),
    target(b"de", "DE"),
    target(b"el", "EL"),
    target(b"es", "ES"),
    target(b"et", "ET"),
    target(b"fi", "FI"),
    target(b"fr", "FR"),
    target(b"he", "HE"),
    target(b"hu", "HU"),
    target(b"id", "ID"),
    target(b"it", "IT"),
    target(b"ja", "JA"),
    target(b"ko", "KO"),
    target(b"lt", "LT"),
    target(b"lv", "LV"),
    target(b"nb", "NB"),
    target(b"nl", "NL"),
    target(b"pl", "PL"),
    target(b"pt", "PT-BR"),
    target(b"ro", "RO"),
    target(b"ru", "RU"),
    target(b"sk", "SK"),
    target(b"sl", "SL"),
    target(b"sv", "SV"),
    target(b"th", "TH"),
    target(b"tr", "TR"),
    target(b"uk", "UK"),
    target(b"vi", "VI"),
    target(b"zh", "ZH-HANS"),
];

/// DeepL's `target_lang` for a locale, when DeepL serves it.
pub fn deepl_target_code(target: LocaleCode) -> Option<&'static str> {
    DEEPL_TARGETS
        .iter()
        .find(|(code, _)| *code == target)
        .map(|(_, deepl)| *deepl)
}

/// How to reach a DeepL account.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// `https://api.deepl.com` (Pro) or `https://api-free.deepl.com` (Free), without
    /// the `/v2/...` path.
    pub base_url: String,
    pub auth_key: SecretString,
    /// The bound on one request, from connecting to the last byte of the answer.
    pub timeout: Duration,
    /// The generator's name in the sources of what it translates, e.g. `deepl`.
    pub name: String,
}

/// A DeepL client; cheap to clone, one connection pool shared by the clones.
#[derive(Clone)]
pub struct Provider {
    inner: Arc<Inner>,
}

struct Inner {
    client: reqwest::Client,
    translate_url: String,
    base_url: String,
    auth_key: SecretString,
    timeout: Duration,
    name: String,
}

#[derive(Serialize)]
struct TranslateRequest<'a> {
    text: &'a [String],
    target_lang: &'a str,
    source_lang: &'a str,
}

#[derive(Deserialize)]
struct TranslateResponse {
    translations: Vec<Translation>,
}

#[derive(Deserialize)]
struct Translation {
    text: String,
}

#[derive(Deserialize)]
struct ErrorResponse {
    message: String,
}

impl Provider {
    pub fn new(config: ProviderConfig) -> Self {
        // Building fails only when a TLS backend or the system's resolver configuration
        // cannot be loaded, which is a broken installation, not a request-time condition.
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .expect("the HTTP client of the translation provider");
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        let inner = Inner {
            client,
            translate_url: format!("{base_url}/v2/translate"),
            base_url,
            auth_key: config.auth_key,
            timeout: config.timeout,
            name: config.name,
        };
        Provider {
            inner: Arc::new(inner),
        }
    }

    pub fn serves(&self, target: LocaleCode) -> bool {
        deepl_target_code(target).is_some()
    }

    /// The locales DeepL serves, in alphabetical order.
    pub fn targets(&self) -> Vec<LocaleCode> {
        DEEPL_TARGETS.iter().map(|(code, _)| *code).collect()
    }

    pub fn info(&self, target: LocaleCode) -> GeneratorInfo {
        GeneratorInfo {
            kind: GeneratorKind::Provider,
            name: self.inner.name.clone(),
            version: API_VERSION.to_owned(),
            model: deepl_target_code(target).map(str::to_owned),
        }
    }

    /// Translates each text into `target`, in order, in as few requests as DeepL's limits
    /// allow ([`TEXTS_PER_REQUEST_MAX`] texts and [`REQUEST_BODY_BYTES_MAX`] bytes each),
    /// one request after the other. Any failure fails the whole call: nothing partial is
    /// returned.
    #[tracing::instrument(
        name = "provider.translate",
        skip_all,
        fields(provider = %self.inner.name, target = %target, texts = texts.len())
    )]
    pub async fn translate(
        &self,
        target: LocaleCode,
        texts: &[String],
    ) -> Result<Vec<String>, TranslateError> {
        let Some(deepl_target) = deepl_target_code(target) else {
            return Err(TranslateError::Unsupported(target.to_string()));
        };
        let result = self.translate_batches(deepl_target, texts).await;
        if let Err(error) = &result {
            tracing::warn!(%error, "the translation provider gave no text");
        }
        result
    }

    async fn translate_batches(
        &self,
        deepl_target: &str,
        texts: &[String],
    ) -> Result<Vec<String>, TranslateError> {
        let ranges = batches(texts, request_overhead_bytes(deepl_target)).map_err(|index| {
            let reason = format!(
                "text {index} alone is over DeepL's request limit of \
                 {REQUEST_BODY_BYTES_MAX} bytes"
            );
            self.unavailable(reason, None)
        })?;
        let mut translated = Vec::with_capacity(texts.len());
        for range in ranges {
            let batch = &texts[range];
            let answer = self.send(deepl_target, batch).await?;
            assert_eq!(answer.len(), batch.len());
            translated.extend(answer);
        }
        assert_eq!(translated.len(), texts.len());
        Ok(translated)
    }

    /// One request: the texts of one batch, their translations in the same order.
    async fn send(
        &self,
        deepl_target: &str,
        texts: &[String],
    ) -> Result<Vec<String>, TranslateError> {
        let body = TranslateRequest {
            text: texts,
            target_lang: deepl_target,
            source_lang: SOURCE_LANG,
        };
        let response = self
            .inner
            .client
            .post(&self.inner.translate_url)
            .header(AUTHORIZATION, self.auth_header()?)
            .json(&body)
            .send()
            .await
            .map_err(|error| self.transport_error(&error))?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after_secs(response.headers());
            let message = error_message(response).await;
            return Err(self.unavailable(status_reason(status, message), retry_after));
        }
        let bytes = self.read_body(response).await?;
        let answer: TranslateResponse = serde_json::from_slice(&bytes).map_err(|_| {
            self.unavailable(
                "DeepL's answer is not a JSON list of translations".into(),
                None,
            )
        })?;
        if answer.translations.len() != texts.len() {
            let reason = format!(
                "DeepL answered {} translations for {} texts",
                answer.translations.len(),
                texts.len()
            );
            return Err(self.unavailable(reason, None));
        }
        Ok(answer.translations.into_iter().map(|t| t.text).collect())
    }

    fn auth_header(&self) -> Result<HeaderValue, TranslateError> {
        let text = format!("DeepL-Auth-Key {}", self.inner.auth_key.expose_secret());
        let mut value = HeaderValue::try_from(text).map_err(|_| {
            let reason = "the DeepL authentication key is not a valid HTTP header value";
            self.unavailable(reason.into(), None)
        })?;
        // Keeps the key out of the Debug output of the request and its headers.
        value.set_sensitive(true);
        Ok(value)
    }

    async fn read_body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, TranslateError> {
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| self.transport_error(&error))?
        {
            if body.len() + chunk.len() > RESPONSE_BODY_BYTES_MAX {
                let reason = format!("DeepL's answer is over {RESPONSE_BODY_BYTES_MAX} bytes");
                return Err(self.unavailable(reason, None));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    fn transport_error(&self, error: &reqwest::Error) -> TranslateError {
        let reason = if error.is_timeout() {
            format!(
                "DeepL did not answer within {} ms",
                self.inner.timeout.as_millis()
            )
        } else if error.is_connect() {
            format!("could not connect to DeepL: {}", error_chain(error))
        } else {
            format!("the request to DeepL failed: {}", error_chain(error))
        };
        self.unavailable(reason, None)
    }

    /// The one place a failure is made, so the one place the key is kept out of it.
    fn unavailable(&self, reason: String, retry_after: Option<u64>) -> TranslateError {
        TranslateError::Unavailable {
            reason: redact(reason, self.inner.auth_key.expose_secret()),
            retry_after,
        }
    }
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("name", &self.inner.name)
            .field("base_url", &self.inner.base_url)
            .field("timeout", &self.inner.timeout)
            .finish_non_exhaustive()
    }
}

/// The JSON bytes of a request with no text: what every batch carries besides its texts.
fn request_overhead_bytes(deepl_target: &str) -> usize {
    let empty = TranslateRequest {
        text: &[],
        target_lang: deepl_target,
        source_lang: SOURCE_LANG,
    };
    serde_json::to_vec(&empty).map_or(REQUEST_BODY_BYTES_MAX, |body| body.len())
}

/// The bytes a text adds to a request body: its JSON string and a separating comma.
fn text_bytes(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX, |json| json.len() + 1)
}

/// Splits `texts` into consecutive runs that each fit one request, filling each run as far
/// as the limits allow. `Err(index)` names a text too large to be sent even alone.
fn batches(texts: &[String], overhead_bytes: usize) -> Result<Vec<Range<usize>>, usize> {
    let mut ranges = Vec::new();
    let (mut start, mut body_bytes) = (0, overhead_bytes);
    for (index, text) in texts.iter().enumerate() {
        let bytes = text_bytes(text);
        if overhead_bytes.saturating_add(bytes) > REQUEST_BODY_BYTES_MAX {
            return Err(index);
        }
        let full = index - start == TEXTS_PER_REQUEST_MAX;
        if full || body_bytes + bytes > REQUEST_BODY_BYTES_MAX {
            ranges.push(start..index);
            (start, body_bytes) = (index, overhead_bytes);
        }
        body_bytes += bytes;
    }
    if start < texts.len() {
        ranges.push(start..texts.len());
    }
    Ok(ranges)
}

/// Seconds from a `Retry-After: <seconds>` header; the HTTP-date form is not read.
fn retry_after_secs(headers: &HeaderMap) -> Option<u64> {
    headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()
}

/// DeepL's own words on a refusal (`{"message": ...}`), shortened; none when the body is
/// not that JSON.
async fn error_message(mut response: reqwest::Response) -> Option<String> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() > ERROR_BODY_BYTES_MAX {
            return None;
        }
    }
    let error: ErrorResponse = serde_json::from_slice(&body).ok()?;
    Some(
        error
            .message
            .chars()
            .take(ERROR_MESSAGE_CHARS_MAX)
            .collect(),
    )
}

fn status_reason(status: StatusCode, message: Option<String>) -> String {
    let code = status.as_u16();
    let meaning = match code {
        403 => "DeepL refused the authentication key".to_owned(),
        413 => "DeepL found the request too large".to_owned(),
        429 => "DeepL is rate limiting: too many requests".to_owned(),
        456 => "the DeepL character quota is used up".to_owned(),
        529 => "DeepL is overloaded: too many requests".to_owned(),
        500..=599 => "DeepL failed".to_owned(),
        _ => "DeepL refused the request".to_owned(),
    };
    match message {
        Some(message) => format!("{meaning} (HTTP {code}): {message}"),
        None => format!("{meaning} (HTTP {code})"),
    }
}

/// A reqwest error with its causes (`connection refused`), without the URL.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn redact(reason: String, key: &str) -> String {
    if key.is_empty() || !reason.contains(key) {
        return reason;
    }
    reason.replace(key, "[redacted]")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(count: usize, bytes: usize) -> Vec<String> {
        (0..count).map(|_| "a".repeat(bytes)).collect()
    }

    #[test]
    fn the_target_table_is_iso_codes_in_order_without_english() {
        for (code, deepl) in DEEPL_TARGETS {
            assert_eq!(LocaleCode::parse(code.as_str()), Ok(code));
            assert!(!code.is_english());
            let primary = deepl.split('-').next().unwrap_or_default();
            assert_eq!(primary.to_ascii_lowercase(), code.as_str(), "{deepl}");
        }
        let codes: Vec<LocaleCode> = DEEPL_TARGETS.iter().map(|(code, _)| *code).collect();
        assert!(
            codes.windows(2).all(|pair| pair[0] < pair[1]),
            "sorted, unique"
        );
    }

    #[test]
    fn variants_are_chosen_for_portuguese_and_chinese() {
        let code = |raw| deepl_target_code(LocaleCode::parse(raw).unwrap());
        assert_eq!(code("pt"), Some("PT-BR"));
        assert_eq!(code("zh"), Some("ZH-HANS"));
        assert_eq!(code("de"), Some("DE"));
        assert_eq!(code("en"), None);
        assert_eq!(code("eo"), None);
    }

    #[test]
    fn batches_hold_at_most_fifty_texts() {
        let overhead = request_overhead_bytes("PT-BR");
        let split = |count| batches(&texts(count, 10), overhead).unwrap();
        assert_eq!(split(120), [0..50, 50..100, 100..120]);
        let one = split(50);
        assert_eq!((one.len(), one[0].clone()), (1, 0..50));
        assert_eq!(split(51), [0..50, 50..51]);
        assert!(split(0).is_empty());
    }

    #[test]
    fn batches_stay_under_the_body_limit() {
        let overhead = request_overhead_bytes("PT-BR");
        let big = texts(5, 50_000);
        let ranges = batches(&big, overhead).unwrap();
        assert_eq!(ranges, [0..2, 2..4, 4..5]);
        for range in ranges {
            let body = TranslateRequest {
                text: &big[range],
                target_lang: "PT-BR",
                source_lang: SOURCE_LANG,
            };
            let bytes = serde_json::to_vec(&body).unwrap().len();
            assert!(bytes <= REQUEST_BODY_BYTES_MAX, "{bytes}");
        }
    }

    #[test]
    fn the_size_estimate_covers_escapes() {
        let tricky = vec!["\"quoted\"\n\ttab \u{1} 日本語".to_owned(); 3];
        let estimate: usize =
            request_overhead_bytes("DE") + tricky.iter().map(|t| text_bytes(t)).sum::<usize>();
        let body = TranslateRequest {
            text: &tricky,
            target_lang: "DE",
            source_lang: SOURCE_LANG,
        };
        let actual = serde_json::to_vec(&body).unwrap().len();
        assert!(estimate >= actual, "{estimate} < {actual}");
        assert!(estimate <= actual + tricky.len(), "{estimate} vs {actual}");
    }

    #[test]
    fn a_text_too_large_alone_is_named() {
        let mut all = texts(3, 10);
        all.insert(1, "a".repeat(REQUEST_BODY_BYTES_MAX));
        assert_eq!(batches(&all, request_overhead_bytes("DE")), Err(1));
    }

    #[test]
    fn retry_after_reads_seconds_only() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after_secs(&headers), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after_secs(&headers), Some(7));
        let date = HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT");
        headers.insert(RETRY_AFTER, date);
        assert_eq!(retry_after_secs(&headers), None);
    }

    #[test]
    fn the_key_is_never_printed() {
        let key = "f63c02c5-f056-4a6b-9c1d-secret:fx";
        let config = ProviderConfig {
            base_url: "http://127.0.0.1:9/".into(),
            auth_key: SecretString::from(key.to_owned()),
            timeout: Duration::from_secs(1),
            name: "deepl".into(),
        };
        assert!(!format!("{config:?}").contains(key));
        let provider = Provider::new(config);
        assert!(!format!("{provider:?}").contains(key));
        let error = provider.unavailable(format!("echoed {key}"), None);
        assert!(!format!("{error} {error:?}").contains(key));
        assert_eq!(
            provider.inner.translate_url,
            "http://127.0.0.1:9/v2/translate"
        );
    }

    #[test]
    fn a_provider_and_its_translation_can_cross_tasks() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        fn send<T: Send>(_: &T) {}
        let provider = Provider::new(ProviderConfig {
            base_url: "http://127.0.0.1:9".into(),
            auth_key: SecretString::from("k".to_owned()),
            timeout: Duration::from_secs(1),
            name: "deepl".into(),
        });
        send_sync(&provider);
        send(&provider.translate(LocaleCode::ENGLISH, &[]));
    }

    #[test]
    fn info_names_the_deepl_code() {
        let config = ProviderConfig {
            base_url: "http://127.0.0.1:9".into(),
            auth_key: SecretString::from("k".to_owned()),
            timeout: Duration::from_secs(1),
            name: "deepl".into(),
        };
        let provider = Provider::new(config);
        let pt = LocaleCode::parse("pt").unwrap();
        let info = provider.info(pt);
        assert_eq!(info.kind, GeneratorKind::Provider);
        assert_eq!((info.name.as_str(), info.version.as_str()), ("deepl", "v2"));
        assert_eq!(info.model.as_deref(), Some("PT-BR"));
        assert!(provider.serves(pt));
        assert!(!provider.serves(LocaleCode::ENGLISH));
        assert_eq!(provider.targets().len(), DEEPL_TARGETS.len());
    }
}
