//! Localized reads of `getLearnable` and `getLesson` (DESIGN §6, docs/localization.md).
//!
//! A locale version of an entry is generated once, on the first keyed request, and kept
//! in the ledger on the stream `localization-{entry}-{locale}`: the event holding the
//! document is appended in the same transaction as that caller's 25-point charge, so the
//! version exists exactly when it was paid for, on every replica, after any restart.
//! Every later request reads it from there (then from memory) and pays the read price.
//!
//! Concurrent first requests generate once: in a process they queue on one lock per
//! version; across replicas the one that holds the database lease for the version
//! generates while the others wait for it, then find the version stored. A generation
//! that fails or times out is neither charged nor kept; the next request tries again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use manabi_ledger::{
    ChargeRequest, EventStore, ExpectedVersion, NewEvent, Points, Refusal, StreamAppend, StreamName,
};
use manabi_localize::{DocumentKind, FieldsBy, LocalizeError, Localizer, TranslateError};
use manabi_schemas::events::{EventMetadata, LedgerEvent, LocalizationGenerated};
use manabi_schemas::params::{Locale, Render};
use manabi_schemas::{ErrorCode, LocalizedFields};
use serde_json::{Value, json};

use crate::answer::Answer;
use crate::billing::{Caller, ledger_unavailable, receipt_billing, refusal_error};
use crate::error::ApiError;
use crate::extract::Call;
use crate::render::render_lesson;
use crate::state::AppState;

/// How long a request waits for another replica's generation of the same version.
const LEASE_WAIT: Duration = Duration::from_secs(90);

/// What a read asks to have localized; set on its answer by the read, served by the
/// billing seam.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalizeRequest {
    pub kind: DocumentKind,
    pub locale: Locale,
    /// How a lesson's links are rendered once it is localized.
    pub render: Render,
}

/// How a localized read was served.
pub enum Served {
    /// The stored version, rendered; the caller pays the read price.
    Stored(Bytes),
    /// Generated now, with its 25-point charge already durable.
    Generated(Answer),
}

type Version = (String, Locale);

/// The generators and the versions this process has seen.
pub struct Localization {
    pub localizer: Localizer,
    /// Each version seen, as JSON text (a lesson in its raw markup).
    stored: RwLock<HashMap<Version, Bytes>>,
    generating: Mutex<HashMap<Version, Arc<tokio::sync::Mutex<()>>>>,
}

impl Localization {
    pub fn new(localizer: Localizer) -> Self {
        Localization {
            localizer,
            stored: RwLock::new(HashMap::new()),
            generating: Mutex::new(HashMap::new()),
        }
    }

    /// Whether this process already holds the version (no ledger read needed).
    pub fn is_cached(&self, id: &str, locale: Locale) -> bool {
        let stored = self.stored.read().unwrap_or_else(|p| p.into_inner());
        stored.contains_key(&(id.to_owned(), locale))
    }

    fn cached(&self, id: &str, locale: Locale) -> Option<Bytes> {
        let stored = self.stored.read().unwrap_or_else(|p| p.into_inner());
        stored.get(&(id.to_owned(), locale)).cloned()
    }

    fn keep(&self, id: &str, locale: Locale, content: Bytes) {
        let mut stored = self.stored.write().unwrap_or_else(|p| p.into_inner());
        stored.insert((id.to_owned(), locale), content);
    }

    /// The in-process lock of one version.
    fn lock_of(&self, id: &str, locale: Locale) -> Arc<tokio::sync::Mutex<()>> {
        let mut generating = self.generating.lock().unwrap_or_else(|p| p.into_inner());
        generating
            .entry((id.to_owned(), locale))
            .or_default()
            .clone()
    }

    /// Checks before anything is charged that `locale` can be served for the document
    /// `json` (422 otherwise). A version already generated is servable.
    pub fn check(
        &self,
        id: &str,
        json: &[u8],
        kind: DocumentKind,
        locale: Locale,
    ) -> Result<(), ApiError> {
        if self.is_cached(id, locale) {
            return Ok(());
        }
        let doc = parse_stored(json)?;
        self.localizer
            .plan(&doc, kind, locale)
            .map(drop)
            .map_err(localize_error)
    }
}

/// The ledger stream of one version.
pub fn stream_of(id: &str, locale: Locale) -> StreamName {
    StreamName::new(format!("localization-{id}-{locale}"))
}

/// The version, from memory or the ledger; `None` while it was never generated.
async fn find(state: &AppState, id: &str, locale: Locale) -> Result<Option<Bytes>, ApiError> {
    let service = &state.localization;
    if let Some(content) = service.cached(id, locale) {
        return Ok(Some(content));
    }
    let events = state
        .ledger
        .store
        .read_stream(&stream_of(id, locale), 0, 1)
        .await
        .map_err(|error| ledger_unavailable(&error.to_string()))?;
    let Some(LedgerEvent::LocalizationGenerated(generated)) =
        events.into_iter().next().map(|recorded| recorded.event)
    else {
        return Ok(None);
    };
    let content = to_json(&generated.content)?;
    service.keep(id, locale, content.clone());
    Ok(Some(content))
}

/// Serves a localized read: the stored version when there is one; else, for a keyed
/// caller, generates it and charges the generation with its claim.
pub async fn serve(
    state: &AppState,
    caller: &Caller,
    call: &Call,
    id: &str,
    english: &[u8],
    request: LocalizeRequest,
) -> Result<Served, ApiError> {
    let locale = request.locale;
    if let Some(content) = find(state, id, locale).await? {
        return Ok(Served::Stored(render(state, &content, request)?));
    }
    let payer = match (caller, &call.paid) {
        (Caller::Keyed(keyed), _) => Payer::Account(keyed),
        (Caller::Paying { .. }, Some(paid)) => Payer::X402(paid),
        _ => {
            return Err(ApiError::with_message(
                ErrorCode::ApiKeyRequired,
                format!(
                    "`{id}` has not been generated in `{locale}` yet, and generating a locale \
                 needs an API key (it costs {} points once, then everyone reads it for {}); \
                 get a key at {}. Nothing was charged.",
                    state.settings.prices.localized_generation_jpy,
                    state.settings.prices.read_jpy,
                    state.settings.signup_url
                ),
            ));
        }
    };
    if call.head {
        return Err(ApiError::with_message(
            ErrorCode::LocaleUnavailable,
            format!("`{id}` has not been generated in `{locale}` yet; a GET generates it"),
        ));
    }
    let lock = state.localization.lock_of(id, locale);
    let _in_process = lock.lock().await;
    if let Some(content) = find(state, id, locale).await? {
        return Ok(Served::Stored(render(state, &content, request)?));
    }
    let stream = stream_of(id, locale);
    let lease = state
        .ledger
        .store
        .lease(stream.as_str(), LEASE_WAIT)
        .await
        .map_err(|error| ledger_unavailable(&error.to_string()))?
        .ok_or_else(|| {
            ApiError::with_message(
                ErrorCode::Unavailable,
                "another server is still generating this locale; retry shortly. Nothing was \
                 charged.",
            )
            .retry_after(5)
        })?;
    let outcome = generate(state, payer, call, id, english, request, stream).await;
    lease.release().await;
    match outcome? {
        Some(answer) => Ok(Served::Generated(answer)),
        // Another server's claim landed first: its version is the one served.
        None => match find(state, id, locale).await? {
            Some(content) => Ok(Served::Stored(render(state, &content, request)?)),
            None => Err(ApiError::unavailable()),
        },
    }
}

/// Who pays for a generation: an account's key, or an x402 payment per call.
#[derive(Clone, Copy)]
enum Payer<'a> {
    Account(&'a manabi_ledger::Caller),
    X402(&'a crate::x402::PaidRequest),
}

/// Generates the version and appends it with the caller's charge. `None` when another
/// server's claim was found first.
async fn generate(
    state: &AppState,
    payer: Payer<'_>,
    call: &Call,
    id: &str,
    english: &[u8],
    request: LocalizeRequest,
    stream: StreamName,
) -> Result<Option<Answer>, ApiError> {
    let locale = request.locale;
    if find(state, id, locale).await?.is_some() {
        return Ok(None);
    }
    let price = state.settings.prices.localized_generation_jpy;
    let resource = resource_of(id, locale);
    // Nothing is translated for a caller who cannot pay: the balance, or the payment
    // checked and verified (it is taken only once the version exists).
    let verified = match payer {
        Payer::Account(keyed) => {
            check_balance(state, keyed, call, price).await?;
            None
        }
        Payer::X402(paid) => {
            let operation = generation_operation(request.kind);
            let resource = Some(resource.as_str());
            Some(crate::x402::prepare(state, call, paid, operation, resource, price).await?)
        }
    };
    let english = parse_stored(english)?;
    let localizer = &state.localization.localizer;
    let plan = localizer
        .plan(&english, request.kind, locale)
        .map_err(localize_error)?;
    let generated = localizer
        .generate(&english, &plan, locale)
        .await
        .map_err(localize_error)?;
    let content = with_citations(generated.content, locale, &generated.fields_by);
    let keyed = match (payer, verified) {
        (Payer::Account(keyed), _) => keyed,
        (_, Some(verified)) => {
            let answer = paid_generation(state, call, id, request, content, verified).await?;
            return Ok(Some(answer));
        }
        (Payer::X402(_), None) => return Err(ApiError::new(ErrorCode::Internal)),
    };
    let request_id = call.credential.request_id();
    let event = LocalizationGenerated {
        document: match request.kind {
            DocumentKind::Learnable => "learnable",
            DocumentKind::Lesson => "lesson",
        }
        .to_owned(),
        entry_id: id.to_owned(),
        locale: locale.to_string(),
        account_id: keyed.account_id,
        request_id: request_id.clone(),
        content: content.clone(),
        generation_ms: u64::try_from(generated.elapsed.as_millis()).unwrap_or(u64::MAX),
        x402_payment: None,
    };
    let metadata = EventMetadata {
        request_id: Some(request_id.clone()),
        key_id: Some(keyed.key_id),
        transport: Some(call.transport),
        actor: None,
    };
    let claim = StreamAppend {
        stream,
        expected: ExpectedVersion::NoStream,
        events: vec![NewEvent::new(
            LedgerEvent::LocalizationGenerated(event),
            metadata,
            chrono::Utc::now(),
        )],
    };
    let points = Points::new(price).ok_or_else(|| ApiError::new(ErrorCode::Internal))?;
    let charge = ChargeRequest {
        operation: generation_operation(request.kind).to_owned(),
        resource_id: Some(resource_of(id, locale)),
        points,
        price_list_version: state.settings.prices.list_version,
        request_id,
        transport: call.transport,
        idempotency: None,
    };
    let charged = state
        .ledger
        .biller
        .charge_with_claim(keyed, charge, call.ticket.clone(), claim)
        .await;
    match charged {
        Ok(receipt) => {
            let content = to_json(&content)?;
            state.localization.keep(id, locale, content.clone());
            metrics::counter!("manabi_localizations_generated_total").increment(1);
            let mut answer = Answer::new(render(state, &content, request)?, false);
            answer.billing = Some(receipt_billing(&receipt));
            Ok(Some(answer))
        }
        Err(Refusal::ClaimTaken) => Ok(None),
        Err(refusal) => Err(refusal_error(state, call, refusal)),
    }
}

/// A generation paid per call: the answer is made, the payment is settled, then the
/// version is stored on its stream naming the payment. The lease is held, so no other server stores one
/// meanwhile; should the store fail after settlement, the paid answer is still served
/// (and `ledger verify` reports the settled generation payment without its version).
async fn paid_generation(
    state: &AppState,
    call: &Call,
    id: &str,
    request: LocalizeRequest,
    content: Value,
    verified: crate::x402::Verified,
) -> Result<Answer, ApiError> {
    let locale = request.locale;
    let payment_stream = verified.stream();
    // Everything that can fail is done before the payment is settled: once it is, the
    // answer must leave.
    let bytes = to_json(&content)?;
    let body = render(state, &bytes, request)?;
    let settled = verified.settle(state).await?;
    let request_id = call.credential.request_id();
    let event = LocalizationGenerated {
        document: match request.kind {
            DocumentKind::Learnable => "learnable",
            DocumentKind::Lesson => "lesson",
        }
        .to_owned(),
        entry_id: id.to_owned(),
        locale: locale.to_string(),
        account_id: uuid::Uuid::nil(),
        request_id: request_id.clone(),
        content: content.clone(),
        generation_ms: 0,
        x402_payment: Some(payment_stream.to_string()),
    };
    let metadata = EventMetadata {
        request_id: Some(request_id),
        key_id: None,
        transport: Some(call.transport),
        actor: None,
    };
    let stored = state
        .ledger
        .store
        .append(manabi_ledger::store::AppendCommand::single(
            stream_of(id, locale),
            ExpectedVersion::NoStream,
            vec![NewEvent::new(
                LedgerEvent::LocalizationGenerated(event),
                metadata,
                chrono::Utc::now(),
            )],
        ))
        .await;
    match stored {
        Ok(Ok(_)) => {
            state.localization.keep(id, locale, bytes);
            metrics::counter!("manabi_localizations_generated_total").increment(1);
        }
        Ok(Err(rejection)) => {
            tracing::error!(%rejection, "a paid localization could not be stored");
        }
        Err(error) => tracing::error!(%error, "a paid localization could not be stored"),
    }
    let price = state.settings.prices.localized_generation_jpy;
    let mut answer = Answer::new(body, false);
    answer.billing = Some(manabi_schemas::Billing {
        points_charged: price,
        currency: "JPY".to_owned(),
        invoice_id: Some(settled.invoice_id.to_string()),
        free_tier: Some(false),
    });
    answer.payment = Some(Box::new(settled));
    Ok(answer)
}

/// The operation a generation is charged as, on invoices and statements.
pub fn generation_operation(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Learnable => "localizeLearnable",
        DocumentKind::Lesson => "localizeLesson",
    }
}

/// The resource of a localized call on its invoice line: the entry and the locale.
pub fn resource_of(id: &str, locale: Locale) -> String {
    format!("{id}@{locale}")
}

/// Refuses a generation the balance cannot pay before any translation is done; the
/// charge itself decides again.
async fn check_balance(
    state: &AppState,
    keyed: &manabi_ledger::Caller,
    call: &Call,
    price: i64,
) -> Result<(), ApiError> {
    let account = state
        .ledger
        .biller
        .account(keyed.account_id)
        .await
        .map_err(|refusal| refusal_error(state, call, refusal))?;
    let balance = account.map_or(0, |account| account.balance);
    if balance < price {
        let refusal = Refusal::InsufficientPoints {
            required: price,
            balance,
        };
        return Err(refusal_error(state, call, refusal));
    }
    Ok(())
}

fn parse_stored(json: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(json).map_err(|error| {
        tracing::error!(%error, "a stored document is not valid JSON");
        ApiError::new(ErrorCode::Internal)
    })
}

/// The localized document with its generators cited: in `sources` (learnables) and in
/// a `localization` member (both kinds).
fn with_citations(mut content: Value, locale: Locale, fields_by: &[FieldsBy]) -> Value {
    if let Some(sources) = content.get_mut("sources").and_then(Value::as_array_mut) {
        for by in fields_by {
            let generator = &by.generator;
            sources.push(json!({
                "source": format!("localization-{}", generator.kind.as_str()),
                "name": generator.name,
                "version": generator.version,
                "licence": "as the entry: a localization of its English text",
                "licence_url": null,
                "record_id": generator.model,
                "fields": by.fields,
            }));
        }
    }
    if let Some(object) = content.as_object_mut() {
        let localization =
            json!({ "locale": locale.as_str(), "generators": generators_json(fields_by) });
        object.insert("localization".to_owned(), localization);
    }
    content
}

fn generators_json(fields_by: &[FieldsBy]) -> Value {
    let generators: Vec<LocalizedFields> = fields_by
        .iter()
        .map(|by| LocalizedFields {
            kind: by.generator.kind.as_str().to_owned(),
            name: by.generator.name.clone(),
            version: by.generator.version.clone(),
            model: by.generator.model.clone(),
            fields: by.fields.clone(),
        })
        .collect();
    serde_json::to_value(generators).unwrap_or_default()
}

/// The stored version as the caller asked for it: a lesson's links rendered.
fn to_json(content: &Value) -> Result<Bytes, ApiError> {
    serde_json::to_vec(content)
        .map(Bytes::from)
        .map_err(|_| ApiError::new(ErrorCode::Internal))
}

fn render(state: &AppState, json: &Bytes, request: LocalizeRequest) -> Result<Bytes, ApiError> {
    match request.kind {
        DocumentKind::Learnable => Ok(json.clone()),
        DocumentKind::Lesson => {
            let catalog = state.catalog()?;
            let label = |id: &str| catalog.label(id).map(str::to_owned);
            render_lesson(json, request.render, &label).map_err(|error| {
                tracing::error!(%error, "a localized lesson is not valid JSON");
                ApiError::new(ErrorCode::Internal)
            })
        }
    }
}

fn localize_error(error: LocalizeError) -> ApiError {
    match error {
        LocalizeError::Unservable(message) => {
            ApiError::with_message(ErrorCode::LocaleUnavailable, message)
        }
        LocalizeError::Failed(TranslateError::Unsupported(locale)) => ApiError::with_message(
            ErrorCode::LocaleUnavailable,
            format!("no generator serves `{locale}` any more. Nothing was charged."),
        ),
        LocalizeError::Failed(TranslateError::Unavailable {
            reason,
            retry_after,
        }) => {
            tracing::warn!(reason, "a localization could not be generated");
            ApiError::with_message(
                ErrorCode::Unavailable,
                "the translation service is unavailable for a moment; nothing was charged \
                 and nothing was kept, so a later request generates the locale afresh",
            )
            .retry_after(retry_after.unwrap_or(5).max(1))
        }
    }
}
