//! Reads of the read models: invoice lines and monthly statements.

use chrono::NaiveDate;
use manabi_ledger::Store;
use serde::Serialize;
use uuid::Uuid;

use crate::ProjectorError;
use crate::sql::fetch_all;

pub const CHARGES_PAGE_MAX: u32 = 200;

/// A calendar month, `YYYY-MM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Month(NaiveDate);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid month {0:?}: expected YYYY-MM")]
pub struct InvalidMonth(String);

impl Month {
    pub fn parse(text: &str) -> Result<Self, InvalidMonth> {
        let first = NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d")
            .map_err(|_| InvalidMonth(text.to_owned()))?;
        if text.len() != 7 {
            return Err(InvalidMonth(text.to_owned()));
        }
        Ok(Month(first))
    }

    pub fn as_text(self) -> String {
        self.0.format("%Y-%m").to_string()
    }
}

/// One invoice line: a charged call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct ChargeLine {
    pub invoice_id: String,
    pub key_id: String,
    pub operation: String,
    pub resource_id: Option<String>,
    pub points: i64,
    pub price_list_version: i64,
    pub day: String,
    pub request_id: String,
    pub transport: String,
    pub charged_at: String,
}

/// One credit line: points added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct CreditLine {
    pub event_id: String,
    pub kind: String,
    pub points: i64,
    pub idempotency_key: String,
    pub credited_at: String,
}

/// An account's month: opening and closing balance, totals and every line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MonthlyStatement {
    pub account_id: Uuid,
    pub month: String,
    pub currency: &'static str,
    pub opening_balance: i64,
    pub credited_points: i64,
    pub charged_points: i64,
    pub calls: i64,
    pub closing_balance: i64,
    pub credits: Vec<CreditLine>,
    pub charges: Vec<ChargeLine>,
}

pub(crate) const CHARGE_COLUMNS: &str = "invoice_id, key_id, operation, resource_id, points, \
     price_list_version, day, request_id, transport, charged_at";

/// The statement of `account_id` for `month`, from the read models.
pub async fn monthly_statement(
    store: &Store,
    account_id: Uuid,
    month: Month,
) -> Result<MonthlyStatement, ProjectorError> {
    let account = account_id.to_string();
    let month_text = month.as_text();
    let totals = fetch_all!(
        store,
        (String, i64, i64, i64),
        "SELECT month, credited_points, charged_points, calls FROM rm_statements \
         WHERE account_id = $1 AND month <= $2",
        &account,
        &month_text
    )?;
    let opening_balance: i64 = totals
        .iter()
        .filter(|(m, ..)| *m < month_text)
        .map(|(_, credited, charged, _)| credited - charged)
        .sum();
    let (credited_points, charged_points, calls) = totals
        .iter()
        .find(|(m, ..)| *m == month_text)
        .map(|(_, a, b, c)| (*a, *b, *c))
        .unwrap_or_default();
    let sql = format!(
        "SELECT {CHARGE_COLUMNS} FROM rm_charges WHERE account_id = $1 \
         AND substr(day, 1, 7) = $2 ORDER BY charged_at, invoice_id"
    );
    let charges = fetch_all!(store, ChargeLine, &sql, &account, &month_text)?;
    let credits = fetch_all!(
        store,
        CreditLine,
        "SELECT event_id, kind, points, idempotency_key, credited_at FROM rm_credits \
         WHERE account_id = $1 AND substr(credited_at, 1, 7) = $2 ORDER BY credited_at",
        &account,
        &month_text
    )?;
    Ok(MonthlyStatement {
        account_id,
        month: month_text,
        currency: "JPY",
        opening_balance,
        credited_points,
        charged_points,
        calls,
        closing_balance: opening_balance + credited_points - charged_points,
        credits,
        charges,
    })
}

/// The statement as CSV: one row per line, credits and charges.
pub fn statement_csv(statement: &MonthlyStatement) -> String {
    let mut out = String::from(
        "line,id,at,day,key_id,operation,resource_id,points,price_list_version,request_id,transport\n",
    );
    for c in &statement.credits {
        let row = [
            "credit",
            &c.event_id,
            &c.credited_at,
            "",
            "",
            &c.kind,
            "",
            &c.points.to_string(),
            "",
            &c.idempotency_key,
            "",
        ];
        push_csv_row(&mut out, &row);
    }
    for c in &statement.charges {
        let row = [
            "charge",
            &c.invoice_id,
            &c.charged_at,
            &c.day,
            &c.key_id,
            &c.operation,
            c.resource_id.as_deref().unwrap_or(""),
            &format!("-{}", c.points),
            &c.price_list_version.to_string(),
            &c.request_id,
            &c.transport,
        ];
        push_csv_row(&mut out, &row);
    }
    out
}

/// One x402 payment: a call paid in the stablecoin, by a payer without an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct X402Line {
    pub claim_id: String,
    pub claimed_at: String,
    pub payer: String,
    pub network: String,
    pub asset: String,
    pub amount_atomic: i64,
    pub operation: String,
    pub resource_id: Option<String>,
    pub price_jpy: i64,
    pub price_list_version: i64,
    pub jpy_per_usd: String,
    pub rate_at: String,
    pub status: String,
    pub transaction_hash: Option<String>,
    pub failure: Option<String>,
    pub request_id: String,
    pub transport: String,
}

/// Payments of one outcome summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct X402Totals {
    pub payments: i64,
    pub price_jpy: i64,
    pub amount_atomic: i64,
}

/// A month of x402 revenue: settled payments are revenue; failed ones served nothing;
/// unsettled ones were claimed and their outcome is not known: not recorded (a crash
/// between the settlement and its record, status `claimed`) or not answered by the
/// facilitator (status `unknown`). Both served nothing and may have moved money: look the
/// transaction up by payer and nonce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct X402Statement {
    pub month: String,
    pub settled: X402Totals,
    pub failed: X402Totals,
    pub unsettled: X402Totals,
    pub lines: Vec<X402Line>,
}

/// The x402 payments claimed in `month`, from the read model.
pub async fn x402_statement(store: &Store, month: Month) -> Result<X402Statement, ProjectorError> {
    let month_text = month.as_text();
    let lines = fetch_all!(
        store,
        X402Line,
        "SELECT claim_id, claimed_at, payer, network, asset, amount_atomic, operation, \
         resource_id, price_jpy, price_list_version, jpy_per_usd, rate_at, status, \
         transaction_hash, failure, request_id, transport FROM rm_x402_payments \
         WHERE month = $1 ORDER BY claimed_at, claim_id",
        &month_text
    )?;
    let totals = |statuses: &[&str]| {
        lines
            .iter()
            .filter(|line| statuses.contains(&line.status.as_str()))
            .fold(X402Totals::default(), |sum, line| X402Totals {
                payments: sum.payments + 1,
                price_jpy: sum.price_jpy + line.price_jpy,
                amount_atomic: sum.amount_atomic + line.amount_atomic,
            })
    };
    Ok(X402Statement {
        month: month_text,
        settled: totals(&["settled"]),
        failed: totals(&["failed"]),
        unsettled: totals(&["claimed", "unknown"]),
        lines,
    })
}

/// The x402 statement as CSV: one row per payment.
pub fn x402_statement_csv(statement: &X402Statement) -> String {
    let mut out = String::from(
        "claim_id,claimed_at,status,payer,network,asset,amount_atomic,operation,resource_id,\
         price_jpy,price_list_version,jpy_per_usd,rate_at,transaction,failure,request_id,\
         transport\n",
    );
    for l in &statement.lines {
        let row = [
            l.claim_id.as_str(),
            &l.claimed_at,
            &l.status,
            &l.payer,
            &l.network,
            &l.asset,
            &l.amount_atomic.to_string(),
            &l.operation,
            l.resource_id.as_deref().unwrap_or(""),
            &l.price_jpy.to_string(),
            &l.price_list_version.to_string(),
            &l.jpy_per_usd,
            &l.rate_at,
            l.transaction_hash.as_deref().unwrap_or(""),
            l.failure.as_deref().unwrap_or(""),
            &l.request_id,
            &l.transport,
        ];
        push_csv_row(&mut out, &row);
    }
    out
}

fn push_csv_row(out: &mut String, fields: &[&str]) {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| {
            if f.contains([',', '"', '\n']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                (*f).to_owned()
            }
        })
        .collect();
    out.push_str(&quoted.join(","));
    out.push('\n');
}

/// Invoice lines of an account between two UTC days (inclusive), oldest first, after
/// the `(charged_at, invoice_id)` cursor of the previous page.
pub async fn charges_page(
    store: &Store,
    account_id: Uuid,
    from: NaiveDate,
    to: NaiveDate,
    after: Option<(String, String)>,
    limit: u32,
) -> Result<Vec<ChargeLine>, ProjectorError> {
    let (after_at, after_id) = after.unwrap_or_default();
    let sql = format!(
        "SELECT {CHARGE_COLUMNS} FROM rm_charges WHERE account_id = $1 AND day >= $2 \
         AND day <= $3 AND (charged_at > $4 OR (charged_at = $4 AND invoice_id > $5)) \
         ORDER BY charged_at, invoice_id LIMIT $6"
    );
    let limit = i64::from(limit.clamp(1, CHARGES_PAGE_MAX));
    let from = crate::projection::day(from);
    let to = crate::projection::day(to);
    Ok(fetch_all!(
        store,
        ChargeLine,
        &sql,
        account_id.to_string(),
        from,
        to,
        &after_at,
        &after_id,
        limit
    )?)
}

/// Calls and points per key of an account on one UTC day.
pub async fn usage_by_key(
    store: &Store,
    account_id: Uuid,
    day: NaiveDate,
) -> Result<Vec<(String, i64, i64)>, ProjectorError> {
    Ok(fetch_all!(
        store,
        (String, i64, i64),
        "SELECT key_id, calls, points FROM rm_usage_key WHERE account_id = $1 AND day = $2 \
         ORDER BY key_id",
        account_id.to_string(),
        crate::projection::day(day)
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_parsed() {
        assert_eq!(
            Month::parse("2026-03").map(Month::as_text),
            Ok("2026-03".into())
        );
        for bad in ["2026-3", "2026-13", "26-03", "2026-03-01", ""] {
            assert!(Month::parse(bad).is_err(), "{bad}");
        }
    }
}

/// The earliest account opened with `email` (compared without case), if any.
pub async fn account_by_email(store: &Store, email: &str) -> Result<Option<Uuid>, ProjectorError> {
    let rows = fetch_all!(
        store,
        (String,),
        "SELECT account_id FROM rm_accounts WHERE lower(email) = lower($1) \
         ORDER BY opened_at, account_id LIMIT 1",
        email
    )?;
    Ok(rows.into_iter().next().and_then(|(id,)| id.parse().ok()))
}

/// Calls and points of one UTC day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct DayUsage {
    pub day: String,
    pub calls: i64,
    pub points: i64,
}

/// An account's calls and points per day from `from` (YYYY-MM-DD) on, oldest first.
pub async fn daily_usage(
    store: &Store,
    account_id: Uuid,
    from: &str,
) -> Result<Vec<DayUsage>, ProjectorError> {
    Ok(fetch_all!(
        store,
        DayUsage,
        "SELECT day, calls, points FROM rm_usage_account WHERE account_id = $1 AND day >= $2 \
         ORDER BY day",
        &account_id.to_string(),
        from
    )?)
}

/// When a key was issued and the last day it made a charged call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct KeyInfo {
    pub key_id: String,
    pub issued_at: String,
    pub last_used: Option<String>,
}

/// Every key of an account, from the read models.
pub async fn keys_of(store: &Store, account_id: Uuid) -> Result<Vec<KeyInfo>, ProjectorError> {
    Ok(fetch_all!(
        store,
        KeyInfo,
        "SELECT k.key_id, k.issued_at, (SELECT max(u.day) FROM rm_usage_key u \
         WHERE u.key_id = k.key_id) AS last_used FROM rm_api_keys k WHERE k.account_id = $1 \
         ORDER BY k.issued_at",
        &account_id.to_string()
    )?)
}

/// Points credited (or taken back) per day from `from` on, as `points` (`calls` counts
/// the credits).
pub async fn daily_credits(
    store: &Store,
    account_id: Uuid,
    from: &str,
) -> Result<Vec<DayUsage>, ProjectorError> {
    Ok(fetch_all!(
        store,
        DayUsage,
        "SELECT substr(credited_at, 1, 10) AS day, count(*) AS calls, \
         CAST(sum(points) AS BIGINT) AS points \
         FROM rm_credits WHERE account_id = $1 AND substr(credited_at, 1, 10) >= $2 \
         GROUP BY substr(credited_at, 1, 10) ORDER BY day",
        &account_id.to_string(),
        from
    )?)
}

/// Calls and points per key and day from `from` on: each key with its days, oldest first.
pub async fn daily_key_usage(
    store: &Store,
    account_id: Uuid,
    from: &str,
) -> Result<Vec<(String, Vec<DayUsage>)>, ProjectorError> {
    let rows = fetch_all!(
        store,
        (String, String, i64, i64),
        "SELECT key_id, day, calls, points FROM rm_usage_key WHERE account_id = $1 \
         AND day >= $2 ORDER BY key_id, day",
        &account_id.to_string(),
        from
    )?;
    let mut keys: Vec<(String, Vec<DayUsage>)> = Vec::new();
    for (key_id, day, calls, points) in rows {
        let usage = DayUsage { day, calls, points };
        match keys.last_mut() {
            Some((last, days)) if *last == key_id => days.push(usage),
            _ => keys.push((key_id, vec![usage])),
        }
    }
    Ok(keys)
}
