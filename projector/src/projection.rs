//! What ledger events change in the read models, as SQL statements. Pure: the projector
//! runs them in the transaction that also moves the checkpoint.
//!
//! Charges are most of the ledger and only ever add to sums, so a run of consecutive
//! charges is folded first and written as a few multi-row statements (one balance
//! update, one insert of invoice lines, one upsert per usage table and one for the
//! statements) instead of five statements per charge. Any other event ends the run, so
//! every statement still sees the read models as they were after the events before it.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use manabi_ledger::store::RecordedEvent;
use manabi_schemas::events::{
    ApiKeyIssued, CallCharged, CapScope, CreditKind, DailyCapChanged, LedgerEvent, PointsCredited,
};
use uuid::Uuid;

use crate::sql::{Statement, Value, multi_row};

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

/// The statements that project `events`, in their order.
pub fn statements(events: &[RecordedEvent]) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut run = ChargeRun::default();
    for recorded in events {
        // x402 payments have their own table; streams without read models
        // (localization, pricing) change nothing here.
        let Some(account_id) = recorded.stream.account_id() else {
            out.extend(x402_payment(recorded));
            continue;
        };
        let at = recorded.recorded_at;
        if let LedgerEvent::CallCharged(e) = &recorded.event {
            run.add(account_id, recorded.id, at, e);
            continue;
        }
        run.flush_into(&mut out);
        match &recorded.event {
            LedgerEvent::AccountOpened(e) => out.push(Statement::new(
                "INSERT INTO rm_accounts (account_id, email, balance, daily_calls_cap, \
                 opened_at) VALUES ($1, $2, 0, $3, $4)",
                vec![
                    text(account_id),
                    text(&e.email),
                    Value::Int(i64::from(
                        manabi_ledger::account::ACCOUNT_DAILY_CALLS_DEFAULT,
                    )),
                    text(instant(at)),
                ],
            )),
            LedgerEvent::PointsCredited(e) => out.extend(credited(account_id, recorded.id, at, e)),
            LedgerEvent::ApiKeyIssued(e) => out.push(issued(account_id, at, e)),
            LedgerEvent::ApiKeyRevoked(e) => out.push(Statement::new(
                "UPDATE rm_api_keys SET revoked = 1 WHERE key_id = $1",
                vec![text(e.key_id)],
            )),
            LedgerEvent::DailyCapChanged(e) => out.push(cap_changed(account_id, e)),
            LedgerEvent::CallCharged(_)
            | LedgerEvent::LocalizationGenerated(_)
            | LedgerEvent::X402PaymentClaimed(_)
            | LedgerEvent::X402PaymentSettled(_)
            | LedgerEvent::X402PaymentFailed(_)
            | LedgerEvent::X402SettlementUnknown(_)
            | LedgerEvent::SignInLinkIssued(_)
            | LedgerEvent::SignInLinkUsed(_)
            | LedgerEvent::PortalSessionOpened(_)
            | LedgerEvent::PortalSessionClosed(_)
            | LedgerEvent::EmailBound(_)
            | LedgerEvent::CheckoutStarted(_)
            | LedgerEvent::CheckoutCompleted(_)
            | LedgerEvent::StripePaymentLinked(_)
            | LedgerEvent::OAuthClientRegistered(_)
            | LedgerEvent::OAuthCodeIssued(_)
            | LedgerEvent::OAuthTokenIssued(_)
            | LedgerEvent::OAuthConsumed(_)
            | LedgerEvent::PortalSessionsEnded(_) => {}
        }
    }
    run.flush_into(&mut out);
    out
}

/// The row of an x402 payment: inserted when claimed, its outcome set when decided.
fn x402_payment(recorded: &RecordedEvent) -> Option<Statement> {
    let stream = text(&recorded.stream);
    match &recorded.event {
        LedgerEvent::X402PaymentClaimed(e) => Some(Statement::new(
            "INSERT INTO rm_x402_payments (stream, claim_id, payer, nonce, x402_version, \
             network, asset, pay_to, amount_atomic, operation, resource_id, price_jpy, \
             price_list_version, jpy_per_usd, rate_at, request_id, transport, status, \
             claimed_at, month) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
             $13, $14, $15, $16, $17, 'claimed', $18, $19)",
            vec![
                stream,
                text(recorded.id),
                text(&e.payer),
                text(&e.nonce),
                Value::Int(i64::from(e.x402_version)),
                text(&e.network),
                text(&e.asset),
                text(&e.pay_to),
                Value::Int(e.amount.parse().unwrap_or(0)),
                text(&e.operation),
                Value::OptText(e.resource_id.clone()),
                Value::Int(e.price_jpy),
                Value::Int(i64::from(e.price_list_version)),
                text(&e.jpy_per_usd),
                text(instant(e.rate_at)),
                text(&e.request_id),
                text(e.transport.as_str()),
                text(instant(recorded.recorded_at)),
                text(recorded.recorded_at.format("%Y-%m")),
            ],
        )),
        LedgerEvent::X402PaymentSettled(e) => Some(Statement::new(
            "UPDATE rm_x402_payments SET status = 'settled', transaction_hash = $2 \
             WHERE stream = $1",
            vec![stream, text(&e.transaction)],
        )),
        LedgerEvent::X402PaymentFailed(e) => Some(Statement::new(
            "UPDATE rm_x402_payments SET status = 'failed', failure = $2 WHERE stream = $1",
            vec![stream, text(&e.reason)],
        )),
        LedgerEvent::X402SettlementUnknown(e) => Some(Statement::new(
            "UPDATE rm_x402_payments SET status = 'unknown', failure = $2 WHERE stream = $1",
            vec![stream, text(&e.reason)],
        )),
        _ => None,
    }
}

fn credited(account_id: Uuid, id: Uuid, at: DateTime<Utc>, e: &PointsCredited) -> Vec<Statement> {
    let mut statements = vec![
        Statement::new(
            "UPDATE rm_accounts SET balance = balance + $2 WHERE account_id = $1",
            vec![text(account_id), Value::Int(e.points)],
        ),
        Statement::new(
            "INSERT INTO rm_credits (event_id, account_id, kind, points, \
             idempotency_key, credited_at) VALUES ($1, $2, $3, $4, $5, $6)",
            vec![
                text(id),
                text(account_id),
                text(credit_kind(e.kind)),
                Value::Int(e.points),
                text(&e.idempotency_key),
                text(instant(at)),
            ],
        ),
    ];
    let line = StatementLine {
        credited: e.points,
        ..StatementLine::default()
    };
    statements.extend(statement_lines([(
        (account_id, at.format("%Y-%m").to_string()),
        line,
    )]));
    statements
}

fn issued(account_id: Uuid, at: DateTime<Utc>, e: &ApiKeyIssued) -> Statement {
    Statement::new(
        "INSERT INTO rm_api_keys (key_id, account_id, name, daily_calls_cap, expires_at, \
         revoked, issued_at) VALUES ($1, $2, $3, $4, $5, 0, $6)",
        vec![
            text(e.key_id),
            text(account_id),
            Value::OptText(e.name.clone()),
            Value::Int(i64::from(manabi_ledger::account::KEY_DAILY_CALLS_DEFAULT)),
            Value::OptText(e.expires_at.map(instant)),
            text(instant(at)),
        ],
    )
}

fn cap_changed(account_id: Uuid, e: &DailyCapChanged) -> Statement {
    match e.scope {
        CapScope::Account => Statement::new(
            "UPDATE rm_accounts SET daily_calls_cap = $2 WHERE account_id = $1",
            vec![text(account_id), Value::Int(i64::from(e.daily_calls))],
        ),
        CapScope::Key { key_id } => Statement::new(
            "UPDATE rm_api_keys SET daily_calls_cap = $2 WHERE key_id = $1",
            vec![text(key_id), Value::Int(i64::from(e.daily_calls))],
        ),
    }
}

/// Calls and points summed over a run of charges.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    calls: i64,
    points: i64,
}

impl Usage {
    fn add(&mut self, points: i64) {
        self.calls += 1;
        self.points += points;
    }
}

/// What a run of events adds to one monthly statement.
#[derive(Debug, Clone, Copy, Default)]
struct StatementLine {
    credited: i64,
    charged: i64,
    calls: i64,
}

/// Consecutive charges, folded.
#[derive(Debug, Default)]
struct ChargeRun {
    debits: BTreeMap<Uuid, i64>,
    /// (key, day) → (account, usage).
    key_usage: BTreeMap<(Uuid, NaiveDate), (Uuid, Usage)>,
    account_usage: BTreeMap<(Uuid, NaiveDate), Usage>,
    months: BTreeMap<(Uuid, String), StatementLine>,
    invoice_lines: Vec<Vec<Value>>,
}

impl ChargeRun {
    fn add(&mut self, account_id: Uuid, id: Uuid, at: DateTime<Utc>, e: &CallCharged) {
        *self.debits.entry(account_id).or_default() += e.points;
        self.key_usage
            .entry((e.key_id, e.day))
            .or_insert((account_id, Usage::default()))
            .1
            .add(e.points);
        self.account_usage
            .entry((account_id, e.day))
            .or_default()
            .add(e.points);
        let line = self
            .months
            .entry((account_id, month_of_day(e.day)))
            .or_default();
        line.charged += e.points;
        line.calls += 1;
        self.invoice_lines.push(vec![
            text(id),
            text(account_id),
            text(e.key_id),
            text(&e.operation),
            Value::OptText(e.resource_id.clone()),
            Value::Int(e.points),
            Value::Int(i64::from(e.price_list_version)),
            text(day(e.day)),
            text(&e.request_id),
            text(e.transport.as_str()),
            text(instant(at)),
        ]);
    }

    /// Writes the run (if any) and starts a new one.
    fn flush_into(&mut self, out: &mut Vec<Statement>) {
        let run = std::mem::take(self);
        if run.invoice_lines.is_empty() {
            return;
        }
        let debits = run
            .debits
            .into_iter()
            .map(|(account_id, points)| vec![text(account_id), Value::Int(points)])
            .collect();
        out.extend(multi_row(
            "WITH debit (account_id, points) AS (",
            ") UPDATE rm_accounts SET balance = rm_accounts.balance - debit.points \
             FROM debit WHERE rm_accounts.account_id = debit.account_id",
            debits,
        ));
        out.extend(multi_row(
            "INSERT INTO rm_charges (invoice_id, account_id, key_id, operation, resource_id, \
             points, price_list_version, day, request_id, transport, charged_at)",
            "",
            run.invoice_lines,
        ));
        let key_rows = run
            .key_usage
            .into_iter()
            .map(|((key_id, on), (account_id, usage))| {
                vec![
                    text(key_id),
                    text(day(on)),
                    text(account_id),
                    Value::Int(usage.calls),
                    Value::Int(usage.points),
                ]
            })
            .collect();
        out.extend(multi_row(
            "INSERT INTO rm_usage_key (key_id, day, account_id, calls, points)",
            "ON CONFLICT (key_id, day) DO UPDATE SET \
             calls = rm_usage_key.calls + excluded.calls, \
             points = rm_usage_key.points + excluded.points",
            key_rows,
        ));
        let account_rows = run
            .account_usage
            .into_iter()
            .map(|((account_id, on), usage)| {
                vec![
                    text(account_id),
                    text(day(on)),
                    Value::Int(usage.calls),
                    Value::Int(usage.points),
                ]
            })
            .collect();
        out.extend(multi_row(
            "INSERT INTO rm_usage_account (account_id, day, calls, points)",
            "ON CONFLICT (account_id, day) DO UPDATE SET \
             calls = rm_usage_account.calls + excluded.calls, \
             points = rm_usage_account.points + excluded.points",
            account_rows,
        ));
        out.extend(statement_lines(run.months));
    }
}

fn statement_lines(
    lines: impl IntoIterator<Item = ((Uuid, String), StatementLine)>,
) -> Vec<Statement> {
    let rows = lines
        .into_iter()
        .map(|((account_id, month), line)| {
            vec![
                text(account_id),
                text(month),
                Value::Int(line.credited),
                Value::Int(line.charged),
                Value::Int(line.calls),
            ]
        })
        .collect();
    multi_row(
        "INSERT INTO rm_statements (account_id, month, credited_points, charged_points, calls)",
        "ON CONFLICT (account_id, month) DO UPDATE SET \
         credited_points = rm_statements.credited_points + excluded.credited_points, \
         charged_points = rm_statements.charged_points + excluded.charged_points, \
         calls = rm_statements.calls + excluded.calls",
        rows,
    )
}
