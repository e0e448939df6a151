//! The key owner's own account, unbilled: `GET /api/v1/account` (balance, caps, today's
//! calls per key) and `GET /api/v1/account/charges` (invoice lines, a page at a time).
//!
//! The account summary comes from the account aggregate caught up with its stream, so
//! the balance and the calls counted against the caps are exact at the moment of the
//! call. Invoice lines come from the projector's read models and appear once the
//! projector has passed their charge (a fraction of a second on the embedded default).

use std::sync::Arc;

use axum::extract::State;
use chrono::{DateTime, Days, NaiveDate, Utc};
use manabi_ledger::account::{Account, KeyState};
use manabi_projector::queries::{ChargeLine, charges_page};
use manabi_schemas::ErrorCode;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::answer::Answer;
use crate::billing::{Caller, authenticate_key, limit_burst};
use crate::error::ApiError;
use crate::extract::{Call, QueryParams};
use crate::operations::{GET_ACCOUNT, LIST_ACCOUNT_CHARGES};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_account))
        .routes(routes!(list_charges))
}

/// Invoice lines per page when the caller names no `limit`.
const CHARGES_PAGE_DEFAULT: u32 = 50;
/// Most invoice lines per page.
const CHARGES_PAGE_MAX: u32 = 100;
/// Widest date range of one listing, in days; longer periods are read month by month.
const CHARGES_RANGE_DAYS_MAX: u64 = 366;
/// Range when the caller names no `from`: the 30 days up to `to`.
const CHARGES_RANGE_DAYS_DEFAULT: u64 = 30;

/// The caller's account, exact at the moment of the call.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountSummary {
    pub account_id: String,
    /// Prepaid points left (1 point = 1 JPY).
    pub balance: i64,
    /// Always `JPY`.
    pub currency: String,
    pub caps: AccountCaps,
    pub usage_today: UsageToday,
    /// Every key of the account, with its cap and its calls today.
    pub keys: Vec<KeySummary>,
    /// Where to buy points.
    pub top_up_url: String,
}

/// Daily fair-use caps of the whole account.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountCaps {
    pub daily_calls_per_account: u32,
}

/// Calls charged on the current UTC day.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageToday {
    /// The UTC day, `YYYY-MM-DD`; caps reset at its end (00:00 UTC).
    pub day: String,
    pub calls: u32,
}

/// One key of the account (never its secret).
#[derive(Debug, Serialize, ToSchema)]
pub struct KeySummary {
    pub key_id: String,
    pub name: Option<String>,
    /// `active`, `revoked` or `expired`.
    pub status: String,
    pub expires_at: Option<String>,
    pub daily_calls_cap: u32,
    pub calls_today: u32,
}

/// One page of invoice lines.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChargesPage {
    pub account_id: String,
    pub from: String,
    pub to: String,
    pub limit: u32,
    /// Always `JPY`.
    pub currency: String,
    /// Oldest first.
    pub charges: Vec<InvoiceLine>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// One charged call.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvoiceLine {
    /// The charge event's id, as in the call's Billing object.
    pub invoice_id: String,
    pub key_id: String,
    pub operation: String,
    pub resource_id: Option<String>,
    pub points: i64,
    pub price_list_version: i64,
    /// The UTC day the call counted against.
    pub day: String,
    pub request_id: String,
    /// `rest` or `mcp`.
    pub transport: String,
    pub charged_at: String,
}

impl From<ChargeLine> for InvoiceLine {
    fn from(line: ChargeLine) -> InvoiceLine {
        InvoiceLine {
            invoice_id: line.invoice_id,
            key_id: line.key_id,
            operation: line.operation,
            resource_id: line.resource_id,
            points: line.points,
            price_list_version: line.price_list_version,
            day: line.day,
            request_id: line.request_id,
            transport: line.transport,
            charged_at: line.charged_at,
        }
    }
}

/// Query string of `GET /api/v1/account/charges` (documentation).
#[derive(Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChargesQueryString {
    /// First UTC day, `YYYY-MM-DD` (default: 30 days before `to`).
    #[param(value_type = Option<String>, format = Date)]
    pub from: Option<String>,
    /// Last UTC day, inclusive, `YYYY-MM-DD` (default: today). At most 366 days after `from`.
    #[param(value_type = Option<String>, format = Date)]
    pub to: Option<String>,
    /// Lines per page, 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100, default = 50)]
    pub limit: Option<String>,
    /// `next_cursor` of the previous page (hex of a position: a time, a newline byte
    /// `0a`, an invoice id).
    #[param(pattern = "^(?:[0-9a-f]{2})*0a(?:[0-9a-f]{2})*$", max_length = 512)]
    pub cursor: Option<String>,
}

/// The checked parameters of a charges listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargesParams {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub limit: u32,
    pub after: Option<Cursor>,
}

/// Where the previous page ended: `(charged_at, invoice_id)` of its last line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    charged_at: String,
    invoice_id: String,
}

impl Cursor {
    /// Opaque to clients: the two values, hex-encoded so the cursor is URL-safe.
    pub fn encode(&self) -> String {
        format!("{}\n{}", self.charged_at, self.invoice_id)
            .bytes()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    pub fn decode(text: &str) -> Option<Cursor> {
        if !text.len().is_multiple_of(2) || text.len() > 512 {
            return None;
        }
        let bytes = (0..text.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        // Any bytes name a position in the (text) order of the lines; only the newline
        // between its two parts is required.
        let text = String::from_utf8_lossy(&bytes);
        let (charged_at, invoice_id) = text.split_once('\n')?;
        Some(Cursor {
            charged_at: charged_at.to_owned(),
            invoice_id: invoice_id.to_owned(),
        })
    }
}

impl ChargesParams {
    pub fn parse(raw: &QueryParams, today: NaiveDate) -> Result<ChargesParams, ApiError> {
        let to = raw.get("to").map(|t| parse_day("to", t)).transpose()?;
        let to = to.unwrap_or(today);
        let from = match raw.get("from") {
            Some(text) => parse_day("from", text)?,
            None => to
                .checked_sub_days(Days::new(CHARGES_RANGE_DAYS_DEFAULT))
                .unwrap_or(to),
        };
        if from > to {
            return Err(invalid("from", "must not be after `to`"));
        }
        if to.signed_duration_since(from).num_days() as u64 > CHARGES_RANGE_DAYS_MAX {
            return Err(invalid("from", "must be at most 366 days before `to`"));
        }
        let limit = match raw.get("limit") {
            None => CHARGES_PAGE_DEFAULT,
            Some(text) => text
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=CHARGES_PAGE_MAX).contains(n))
                // Canonical decimal only: `+5` and `05` are refused like everywhere else.
                .filter(|n| n.to_string() == text)
                .ok_or_else(|| invalid("limit", "must be a whole number from 1 to 100"))?,
        };
        let after = raw
            .get("cursor")
            .map(|text| Cursor::decode(text).ok_or_else(|| invalid("cursor", "is not a cursor")))
            .transpose()?;
        Ok(ChargesParams {
            from,
            to,
            limit,
            after,
        })
    }
}

fn parse_day(name: &str, text: &str) -> Result<NaiveDate, ApiError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .filter(|_| text.len() == 10)
        .ok_or_else(|| invalid(name, "must be a date YYYY-MM-DD"))
}

fn invalid(name: &str, why: &str) -> ApiError {
    ApiError::with_message(
        ErrorCode::InvalidParameter,
        format!("parameter `{name}` {why}"),
    )
}

#[utoipa::path(
    get, path = "/api/v1/account", operation_id = "getAccount", tag = "billing",
    summary = "The key owner's balance, caps and today's calls per key (not billed)",
    description = "Exact at the moment of the call: read from the account's ledger stream. \
        Needs a key; never charged, but counts against the key's burst limit.",
    responses((status = 200, description = "The account", body = manabi_schemas::Success<AccountSummary>)),
    security(("bearer" = []), ("api_key" = [])),
)]
pub async fn get_account(State(state): State<AppState>, call: Call) -> Result<Answer, ApiError> {
    let caller = authenticate(&state, &call).await?;
    call.query(&GET_ACCOUNT)?;
    let account = state
        .ledger
        .biller
        .account(caller.account_id)
        .await
        .map_err(|refusal| ApiError::with_message(ErrorCode::Unavailable, refusal.to_string()))?
        .ok_or_else(|| ApiError::new(ErrorCode::InvalidApiKey))?;
    let summary = summary(&state, &account, Utc::now());
    json_answer(&summary)
}

#[utoipa::path(
    get, path = "/api/v1/account/charges", operation_id = "listAccountCharges", tag = "billing",
    summary = "The key owner's invoice lines, oldest first, a page at a time (not billed)",
    description = "Read from the ledger's read models: a charge is listed once the projector \
        has passed it (a fraction of a second on the embedded default; on PostgreSQL, as \
        soon as `manabi projector` has). Needs a key; never charged.",
    params(ChargesQueryString),
    responses((status = 200, description = "A page of invoice lines", body = manabi_schemas::Success<ChargesPage>)),
    security(("bearer" = []), ("api_key" = [])),
)]
pub async fn list_charges(State(state): State<AppState>, call: Call) -> Result<Answer, ApiError> {
    // The caller first: these are the key owner's own records, so a request without a
    // valid key learns nothing, not even which of its parameters were wrong.
    let caller = authenticate(&state, &call).await?;
    let raw = call.query(&LIST_ACCOUNT_CHARGES)?;
    let params = ChargesParams::parse(raw, Utc::now().date_naive())?;
    let after = params
        .after
        .clone()
        .map(|cursor| (cursor.charged_at, cursor.invoice_id));
    let mut lines = charges_page(
        &state.ledger.store,
        caller.account_id,
        params.from,
        params.to,
        after,
        params.limit + 1,
    )
    .await
    .map_err(|error| {
        tracing::error!(%error, "reading invoice lines");
        ApiError::unavailable()
    })?;
    let more = lines.len() > params.limit as usize;
    lines.truncate(params.limit as usize);
    let next_cursor = lines.last().filter(|_| more).map(|last| {
        Cursor {
            charged_at: last.charged_at.clone(),
            invoice_id: last.invoice_id.clone(),
        }
        .encode()
    });
    json_answer(&ChargesPage {
        account_id: caller.account_id.to_string(),
        from: params.from.to_string(),
        to: params.to.to_string(),
        limit: params.limit,
        currency: "JPY".to_owned(),
        charges: lines.into_iter().map(InvoiceLine::from).collect(),
        next_cursor,
    })
}

/// A key is required, checked against the end of its account's stream (a revocation
/// made a moment ago counts), and the key's burst limit applies.
async fn authenticate(state: &AppState, call: &Call) -> Result<manabi_ledger::Caller, ApiError> {
    let key = call.credential.key().ok_or_else(|| {
        ApiError::with_message(
            ErrorCode::InvalidApiKey,
            "the account endpoints need an API key (Authorization: Bearer svc_ak_…)",
        )
    })?;
    let caller = authenticate_key(state, key, true).await?;
    limit_burst(state, &Caller::Keyed(caller))?;
    Ok(caller)
}

fn summary(state: &AppState, account: &Arc<Account>, now: DateTime<Utc>) -> AccountSummary {
    let today = now.date_naive();
    let keys = account
        .keys
        .iter()
        .map(|(key_id, key)| KeySummary {
            key_id: key_id.to_string(),
            name: key.name.clone(),
            status: key_status(key, now).to_owned(),
            expires_at: key.expires_at.map(|at| at.to_rfc3339()),
            daily_calls_cap: key.daily_calls_cap,
            calls_today: account.calls_on(today, Some(*key_id)),
        })
        .collect();
    AccountSummary {
        account_id: account.id.to_string(),
        balance: account.balance,
        currency: "JPY".to_owned(),
        caps: AccountCaps {
            daily_calls_per_account: account.daily_calls_cap,
        },
        usage_today: UsageToday {
            day: today.to_string(),
            calls: account.calls_on(today, None::<Uuid>),
        },
        keys,
        top_up_url: state.settings.top_up_url.clone(),
    }
}

fn key_status(key: &KeyState, now: DateTime<Utc>) -> &'static str {
    match key.expires_at {
        _ if key.revoked => "revoked",
        Some(at) if at <= now => "expired",
        _ => "active",
    }
}

fn json_answer(value: &impl Serialize) -> Result<Answer, ApiError> {
    let json = serde_json::to_vec(value).map_err(|error| {
        tracing::error!(%error, "serializing an account answer");
        ApiError::new(ErrorCode::Internal)
    })?;
    Ok(Answer::new(json, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let cursor = Cursor {
            charged_at: "2026-11-23T12:00:00.000000Z".into(),
            invoice_id: "0193-abc".into(),
        };
        assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        for bad in ["zz", "abc", "41", ""] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn charges_parameters_default_and_bound() {
        let today = day("2026-11-23");
        let params = ChargesParams::parse(&QueryParams::default(), today).expect("ok");
        assert_eq!(
            (params.from, params.to, params.limit),
            (day("2026-10-24"), today, 50)
        );
        let raw = |from: &str, to: &str, limit: &str| {
            QueryParams::decode(&format!("from={from}&to={to}&limit={limit}")).expect("decodes")
        };
        assert!(ChargesParams::parse(&raw("2026-11-01", "2026-11-02", "100"), today).is_ok());
        for bad in [
            raw("2026-11-03", "2026-11-02", "10"),
            raw("2024-01-01", "2026-11-02", "10"),
            raw("2026-11-01", "2026-11-02", "0"),
            raw("2026-11-01", "2026-11-02", "101"),
            raw("2026-11-1", "2026-11-02", "10"),
            raw("2026-11-01", "2026-11-02", "+5"),
            raw("2026-11-01", "2026-11-02", "05"),
        ] {
            let error = ChargesParams::parse(&bad, today).expect_err("refused");
            assert_eq!(error.code(), ErrorCode::InvalidParameter, "{bad:?}");
        }
    }
}
