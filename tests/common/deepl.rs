//! A stand-in for DeepL's API v2 on a loopback port, for the tests of the translation
//! provider. It speaks the documented protocol: `POST /v2/translate` with a JSON or a
//! form-encoded body and the key in `Authorization: DeepL-Auth-Key …`, answering
//! `{"translations": [{"detected_source_language", "text"}]}`; `GET /v2/languages`.
//! Its "translation" prefixes each text with the target's language in lowercase
//! (`[pt] Hello`), so a test sees which texts went where. [`Mode`] makes it fail.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// DeepL's documented translation target languages ("Languages supported",
/// developers.deepl.com, 2025), beta languages left out. The source languages are the
/// ones without a variant (`EN`, `PT`, `ZH`, …).
pub const TARGET_LANGUAGES: [(&str, &str); 39] = [
    ("AR", "Arabic"),
    ("BG", "Bulgarian"),
    ("CS", "Czech"),
    ("DA", "Danish"),
    ("DE", "German"),
    ("EL", "Greek"),
    ("EN", "English"),
    ("EN-GB", "English (British)"),
    ("EN-US", "English (American)"),
    ("ES", "Spanish"),
    ("ET", "Estonian"),
    ("FI", "Finnish"),
    ("FR", "French"),
    ("HE", "Hebrew"),
    ("HU", "Hungarian"),
    ("ID", "Indonesian"),
    ("IT", "Italian"),
    ("JA", "Japanese"),
    ("KO", "Korean"),
    ("LT", "Lithuanian"),
    ("LV", "Latvian"),
    ("NB", "Norwegian Bokmål"),
    ("NL", "Dutch"),
    ("PL", "Polish"),
    ("PT", "Portuguese"),
    ("PT-BR", "Portuguese (Brazilian)"),
    ("PT-PT", "Portuguese (European)"),
    ("RO", "Romanian"),
    ("RU", "Russian"),
    ("SK", "Slovak"),
    ("SL", "Slovenian"),
    ("SV", "Swedish"),
    ("TH", "Thai"),
    ("TR", "Turkish"),
    ("UK", "Ukrainian"),
    ("VI", "Vietnamese"),
    ("ZH", "Chinese"),
    ("ZH-HANS", "Chinese (simplified)"),
    ("ZH-HANT", "Chinese (traditional)"),
];

/// Texts in one request, as DeepL documents it.
const TEXTS_PER_REQUEST_MAX: usize = 50;
/// Bytes of one request body, as DeepL documents it (128 KiB); larger bodies get 413.
const REQUEST_BODY_BYTES_MAX: usize = 128 * 1024;
/// How long [`Mode::Hang`] holds a request: longer than any client timeout in the tests.
const HANG: Duration = Duration::from_secs(60);

/// How the stand-in answers a translation from an accepted key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Translates.
    Ok,
    /// Answers this status (429, 456, 503, …) with a DeepL-style `{"message"}`; a 429
    /// carries `Retry-After: FakeDeepl::RETRY_AFTER_SECS`.
    Status(u16),
    /// Holds the request without answering, longer than any client waits.
    Hang,
    /// Translates but leaves the last translation out of the answer.
    DropLast,
}

/// A running stand-in; stops listening when dropped.
pub struct FakeDeepl {
    /// `http://127.0.0.1:<port>`, the base URL a client is configured with.
    pub url: String,
    state: Arc<FakeState>,
    _stop: oneshot::Sender<()>,
}

struct FakeState {
    auth_key: String,
    mode: Mutex<Mode>,
    calls: AtomicUsize,
    texts: AtomicUsize,
}

impl FakeDeepl {
    /// The key the stand-in accepts when started with [`FakeDeepl::start`].
    pub const AUTH_KEY: &'static str = "3f1c9a52-7d0e-4b8e-a6f1-0c2d4e6f8a9b:fx";
    /// The `Retry-After` of a 429.
    pub const RETRY_AFTER_SECS: u64 = 7;

    pub async fn start() -> FakeDeepl {
        FakeDeepl::start_with_key(Self::AUTH_KEY).await
    }

    /// A stand-in that accepts only `auth_key`, in [`Mode::Ok`].
    pub async fn start_with_key(auth_key: &str) -> FakeDeepl {
        let state = Arc::new(FakeState {
            auth_key: auth_key.to_owned(),
            mode: Mutex::new(Mode::Ok),
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/v2/translate", post(translate))
            .route("/v2/languages", get(languages))
            .layer(DefaultBodyLimit::max(REQUEST_BODY_BYTES_MAX))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let address = listener.local_addr().expect("bound address");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await;
        });
        FakeDeepl {
            url: format!("http://{address}"),
            state,
            _stop: stop,
        }
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.state.mode.lock().expect("fake DeepL mode") = mode;
    }

    /// Requests to `/v2/translate` received, whatever their answer.
    pub fn calls(&self) -> usize {
        self.state.calls.load(Ordering::SeqCst)
    }

    /// Texts translated (answered with 200).
    pub fn texts(&self) -> usize {
        self.state.texts.load(Ordering::SeqCst)
    }
}

impl FakeState {
    fn authorized(&self, headers: &HeaderMap) -> bool {
        let expected = format!("DeepL-Auth-Key {}", self.auth_key);
        headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value == expected)
    }

    fn mode(&self) -> Mode {
        *self.mode.lock().expect("fake DeepL mode")
    }
}

/// What a translation request asks, from either body encoding.
struct TranslateRequest {
    texts: Vec<String>,
    target_lang: String,
    source_lang: Option<String>,
}

async fn translate(
    State(state): State<Arc<FakeState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    state.calls.fetch_add(1, Ordering::SeqCst);
    if !state.authorized(&headers) {
        return refusal(StatusCode::FORBIDDEN, "Authorization failed");
    }
    let request = match parse_request(&headers, &body) {
        Ok(request) => request,
        Err((status, message)) => return refusal(status, message),
    };
    let mode = state.mode();
    match mode {
        Mode::Ok | Mode::DropLast => {}
        Mode::Status(code) => return failure(code),
        Mode::Hang => {
            tokio::time::sleep(HANG).await;
            return failure(504);
        }
    }
    let language = request.target_lang.split('-').next().unwrap_or_default();
    let prefix = format!("[{}] ", language.to_ascii_lowercase());
    let detected = request.source_lang.unwrap_or_else(|| "EN".to_owned());
    let mut translations: Vec<Value> = request
        .texts
        .iter()
        .map(
            |text| json!({"detected_source_language": detected, "text": format!("{prefix}{text}")}),
        )
        .collect();
    if mode == Mode::DropLast {
        translations.pop();
    }
    state.texts.fetch_add(translations.len(), Ordering::SeqCst);
    axum::Json(json!({ "translations": translations })).into_response()
}

/// The request, or DeepL's status and message refusing it.
type Refused = (StatusCode, &'static str);

fn parse_request(headers: &HeaderMap, body: &[u8]) -> Result<TranslateRequest, Refused> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let request = if content_type.starts_with("application/json") {
        parse_json(body)
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        Some(parse_form(body))
    } else {
        None
    };
    let Some(request) = request else {
        return Err((StatusCode::BAD_REQUEST, "Bad request"));
    };
    if request.texts.is_empty() {
        return Err((StatusCode::BAD_REQUEST, "Parameter 'text' not specified."));
    }
    if request.texts.len() > TEXTS_PER_REQUEST_MAX {
        return Err((StatusCode::PAYLOAD_TOO_LARGE, "Too many texts."));
    }
    let target = request.target_lang.to_ascii_uppercase();
    if !TARGET_LANGUAGES.iter().any(|(code, _)| *code == target) {
        return Err((
            StatusCode::BAD_REQUEST,
            "Value for 'target_lang' not supported.",
        ));
    }
    Ok(TranslateRequest {
        target_lang: target,
        ..request
    })
}

fn parse_json(body: &[u8]) -> Option<TranslateRequest> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let texts = value["text"]
        .as_array()?
        .iter()
        .map(|text| text.as_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()?;
    Some(TranslateRequest {
        texts,
        target_lang: value["target_lang"].as_str()?.to_owned(),
        source_lang: value["source_lang"].as_str().map(str::to_ascii_uppercase),
    })
}

fn parse_form(body: &[u8]) -> TranslateRequest {
    let mut request = TranslateRequest {
        texts: Vec::new(),
        target_lang: String::new(),
        source_lang: None,
    };
    for (name, value) in form_urlencoded::parse(body) {
        match name.as_ref() {
            "text" => request.texts.push(value.into_owned()),
            "target_lang" => request.target_lang = value.into_owned(),
            "source_lang" => request.source_lang = Some(value.to_ascii_uppercase()),
            _ => {}
        }
    }
    request
}

async fn languages(
    State(state): State<Arc<FakeState>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if !state.authorized(&headers) {
        return refusal(StatusCode::FORBIDDEN, "Authorization failed");
    }
    let targets = match query.get("type").map(String::as_str) {
        Some("target") => true,
        None | Some("source") => false,
        Some(_) => return refusal(StatusCode::BAD_REQUEST, "Value for 'type' not supported."),
    };
    let list: Vec<Value> = TARGET_LANGUAGES
        .iter()
        .filter(|(code, _)| targets || !code.contains('-'))
        .map(|(code, name)| json!({"language": code, "name": name, "supports_formality": false}))
        .collect();
    axum::Json(Value::Array(list)).into_response()
}

/// The answer of [`Mode::Status`].
fn failure(code: u16) -> Response {
    let status = StatusCode::from_u16(code).expect("a status code in 100..=999");
    let message = match code {
        429 => "Too many requests",
        456 => "Quota exceeded",
        _ => "Internal error",
    };
    let mut response = refusal(status, message);
    if code == 429 {
        let seconds = FakeDeepl::RETRY_AFTER_SECS.to_string();
        let value = header::HeaderValue::from_str(&seconds).expect("digits");
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

fn refusal(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "message": message }))).into_response()
}
