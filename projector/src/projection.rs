//! What each ledger event changes in the read models, as SQL statements. Pure: the
//! projector runs them in the transaction that also moves the checkpoint.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use manabi_ledger::store::RecordedEvent;
use manabi_schemas::events::{
    ApiKeyIssued, CallCharged, CapScope, CreditKind, DailyCapChanged, LedgerEvent, PointsCredited,
};
use uuid::Uuid;

use crate::sql::{Statement, Value};

/// The read models' text form of an instant: RFC 3339, UTC, microseconds (sortable).
pub fn instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub fn day(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

pub fn month_of_day(day: NaiveDate) -> String {
    day.format("%Y-%m").to_string()
}

pub fn credit_kind(kind: CreditKind) -> &'static str {
    match kind {
        CreditKind::Purchase => "purchase",
        CreditKind::Grant => "grant",
        CreditKind::Refund => "refund",
        CreditKind::Adjustment => "adjustment",
    }
}

fn text(value: impl ToString) -> Value {
    Value::Text(value.to_string())
}

/// The statements that project `recorded`; none for streams without read models.
pub fn statements(recorded: &RecordedEvent) -> Vec<Statement> {
    let Some(account_id) = recorded.stream.account_id() else {
        return Vec::new();
    };
    let at = recorded.recorded_at;
    match &recorded.event {
        LedgerEvent::AccountOpened(e) => vec![Statement {
            sql: "INSERT INTO rm_accounts (account_id, email, balance, daily_calls_cap, \
                  opened_at) VALUES ($1, $2, 0, $3, $4)",
            values: vec![
                text(account_id),
                text(&e.email),
                Value::Int(i64::from(
                    manabi_ledger::account::ACCOUNT_DAILY_CALLS_DEFAULT,
                )),
                text(instant(at)),
            ],
        }],
        LedgerEvent::PointsCredited(e) => credited(account_id, recorded.id, at, e),
        LedgerEvent::ApiKeyIssued(e) => vec![issued(account_id, at, e)],
        LedgerEvent::ApiKeyRevoked(e) => vec![Statement {
            sql: "UPDATE rm_api_keys SET revoked = 1 WHERE key_id = $1",
            values: vec![text(e.key_id)],
        }],
        LedgerEvent::DailyCapChanged(e) => vec![cap_changed(account_id, e)],
        LedgerEvent::CallCharged(e) => charged(account_id, recorded.id, at, e),
    }
}

fn credited(account_id: Uuid, id: Uuid, at: DateTime<Utc>, e: &PointsCredited) -> Vec<Statement> {
    vec![
        Statement {
            sql: "UPDATE rm_accounts SET balance = balance + $2 WHERE account_id = $1",
            values: vec![text(account_id), Value::Int(e.points)],
        },
        Statement {
            sql: "INSERT INTO rm_credits (event_id, account_id, kind, points, \
                  idempotency_key, credited_at) VALUES ($1, $2, $3, $4, $5, $6)",
            values: vec![
                text(id),
                text(account_id),
                text(credit_kind(e.kind)),
                Value::Int(e.points),
                text(&e.idempotency_key),
                text(instant(at)),
            ],
        },
        statement_line(account_id, at.format("%Y-%m").to_string(), e.points, 0, 0),
    ]
}

fn issued(account_id: Uuid, at: DateTime<Utc>, e: &ApiKeyIssued) -> Statement {
    Statement {
        sql: "INSERT INTO rm_api_keys (key_id, account_id, name, daily_calls_cap, expires_at, \
              revoked, issued_at) VALUES ($1, $2, $3, $4, $5, 0, $6)",
        values: vec![
            text(e.key_id),
            text(account_id),
            Value::OptText(e.name.clone()),
            Value::Int(i64::from(manabi_ledger::account::KEY_DAILY_CALLS_DEFAULT)),
            Value::OptText(e.expires_at.map(instant)),
            text(instant(at)),
        ],
    }
}

fn cap_changed(account_id: Uuid, e: &DailyCapChanged) -> Statement {
    match e.scope {
        CapScope::Account => Statement {
            sql: "UPDATE rm_accounts SET daily_calls_cap = $2 WHERE account_id = $1",
            values: vec![text(account_id), Value::Int(i64::from(e.daily_calls))],
        },
        CapScope::Key { key_id } => Statement {
            sql: "UPDATE rm_api_keys SET daily_calls_cap = $2 WHERE key_id = $1",
            values: vec![text(key_id), Value::Int(i64::from(e.daily_calls))],
        },
    }
}

fn charged(account_id: Uuid, id: Uuid, at: DateTime<Utc>, e: &CallCharged) -> Vec<Statement> {
    let points = Value::Int(e.points);
    vec![
        Statement {
            sql: "UPDATE rm_accounts SET balance = balance - $2 WHERE account_id = $1",
            values: vec![text(account_id), points.clone()],
        },
        Statement {
            sql: "INSERT INTO rm_charges (invoice_id, account_id, key_id, operation, \
                  resource_id, points, price_list_version, day, request_id, transport, \
                  charged_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            values: vec![
                text(id),
                text(account_id),
                text(e.key_id),
                text(&e.operation),
                Value::OptText(e.resource_id.clone()),
                points.clone(),
                Value::Int(i64::from(e.price_list_version)),
                text(day(e.day)),
                text(&e.request_id),
                text(e.transport.as_str()),
                text(instant(at)),
            ],
        },
        Statement {
            sql: "INSERT INTO rm_usage_key (key_id, day, account_id, calls, points) \
                  VALUES ($1, $2, $3, 1, $4) ON CONFLICT (key_id, day) DO UPDATE SET \
                  calls = rm_usage_key.calls + 1, points = rm_usage_key.points + excluded.points",
            values: vec![
                text(e.key_id),
                text(day(e.day)),
                text(account_id),
                points.clone(),
            ],
        },
        Statement {
            sql: "INSERT INTO rm_usage_account (account_id, day, calls, points) \
                  VALUES ($1, $2, 1, $3) ON CONFLICT (account_id, day) DO UPDATE SET \
                  calls = rm_usage_account.calls + 1, \
                  points = rm_usage_account.points + excluded.points",
            values: vec![text(account_id), text(day(e.day)), points],
        },
        statement_line(account_id, month_of_day(e.day), 0, e.points, 1),
    ]
}

fn statement_line(
    account_id: Uuid,
    month: String,
    credited: i64,
    charged: i64,
    calls: i64,
) -> Statement {
    Statement {
        sql: "INSERT INTO rm_statements (account_id, month, credited_points, charged_points, \
              calls) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, month) DO UPDATE SET \
              credited_points = rm_statements.credited_points + excluded.credited_points, \
              charged_points = rm_statements.charged_points + excluded.charged_points, \
              calls = rm_statements.calls + excluded.calls",
        values: vec![
            text(account_id),
            text(month),
            Value::Int(credited),
            Value::Int(charged),
            Value::Int(calls),
        ],
    }
}
