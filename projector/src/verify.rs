//! `ledger verify`: replays every stream and compares the fold with the read models.
//!
//! The expected models are computed here in Rust, independently of the projector's SQL,
//! from the events up to the read models' checkpoint; account balances, caps and keys
//! come from the ledger's own Account aggregate, so the domain fold and the projection
//! check each other. Events past the checkpoint are replayed for integrity only.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;

use manabi_ledger::account::Account;
use manabi_ledger::store::RecordedEvent;
use manabi_ledger::{EventStore, Position, Store};
use manabi_schemas::events::LedgerEvent;
use serde::Serialize;
use uuid::Uuid;

use crate::projection::{day, instant, month_of_day};
use crate::queries::{CHARGE_COLUMNS, ChargeLine};
use crate::sql::fetch_all;
use crate::{ProjectorError, checkpoint};

const PAGE_EVENTS_MAX: u32 = 10_000;
const DIFFERENCES_MAX: usize = 100;

type AccountRow = (String, i64, i64);
/// payer, nonce, amount, operation, JPY price, status, transaction.
type X402Row = (String, String, i64, String, i64, String, Option<String>);
type KeyRow = (String, Option<String>, i64, Option<String>, i64);
/// An invoice line with the account it bills: every column of `rm_charges`.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
struct AccountCharge {
    account_id: String,
    #[sqlx(flatten)]
    line: ChargeLine,
}

/// The read models reduced to what verify compares.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Models {
    accounts: BTreeMap<String, AccountRow>,
    keys: BTreeMap<String, KeyRow>,
    usage_key: BTreeMap<(String, String), (i64, i64)>,
    usage_account: BTreeMap<(String, String), (i64, i64)>,
    charges: BTreeMap<String, AccountCharge>,
    credits: BTreeMap<String, (String, i64)>,
    statements: BTreeMap<(String, String), (i64, i64, i64)>,
    x402: BTreeMap<String, X402Row>,
}

/// What `manabi admin ledger verify` prints.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub events_replayed: u64,
    pub streams: usize,
    pub accounts: usize,
    pub checkpoint: Position,
    /// Events the projector has not reached yet (not compared).
    pub events_behind_checkpoint: u64,
    pub differences: Vec<String>,
}

impl VerifyReport {
    /// Counts events the read models have not reached as a difference.
    pub fn require_caught_up(&mut self) {
        if self.events_behind_checkpoint > 0 {
            self.differences.push(format!(
                "the read models are {} event(s) behind the ledger after the catch-up; \
                 those were not compared",
                self.events_behind_checkpoint
            ));
            self.ok = false;
        }
    }
}

/// Each localization stream against the charges that paid for them: a stream holds
/// exactly one `LocalizationGenerated`, and the account it names has exactly one
/// generation charge (`localize…`) for that entry and locale from the same request.
#[derive(Default)]
struct Localizations {
    /// (account, request id) → the resource `entry@locale`, per generated version.
    generated: BTreeMap<(Uuid, String), String>,
    /// (account, request id) → the resource of each generation charge.
    charged: BTreeMap<(Uuid, String), String>,
    /// x402 payment stream → (resource, request id), per version paid per call.
    paid_generated: BTreeMap<String, (String, String)>,
    /// The same, per settled x402 payment of a generation.
    paid_settled: BTreeMap<String, (String, String)>,
    /// Every x402 claim of a generation, until its outcome.
    paid_claims: HashMap<String, (String, String)>,
}

impl Localizations {
    fn differences(&self, out: &mut Vec<String>) {
        for (stream, version) in &self.paid_generated {
            if self.paid_settled.get(stream) != Some(version) {
                out.push(format!(
                    "localization {}: paid by {stream}, which is no settled generation \
                     payment of request {}",
                    version.0, version.1
                ));
            }
        }
        for (stream, version) in &self.paid_settled {
            if self.paid_generated.get(stream) != Some(version) {
                out.push(format!(
                    "{stream}: a settled generation payment of {} (request {}) without its \
                     localization",
                    version.0, version.1
                ));
            }
        }
        for (key, resource) in &self.generated {
            if self.charged.get(key) != Some(resource) {
                out.push(format!(
                    "localization {resource}: no generation charge of request {} on account-{}",
                    key.1, key.0
                ));
            }
        }
        for (key, resource) in &self.charged {
            if self.generated.get(key) != Some(resource) {
                out.push(format!(
                    "account-{}: generation charge of {resource} (request {}) without its \
                     localization",
                    key.0, key.1
                ));
            }
        }
    }
}

/// The replay's running state.
#[derive(Default)]
struct Replay {
    localizations: Localizations,
    /// x402 payment streams whose settlement outcome is unknown so far.
    x402_unknown: HashSet<String>,
    heads: HashMap<String, i64>,
    accounts: BTreeMap<Uuid, Account>,
    expected: Models,
    replayed: u64,
    behind: u64,
    problems: Vec<String>,
}

impl Replay {
    fn fold(&mut self, recorded: &RecordedEvent, checkpoint: Position) {
        self.replayed += 1;
        let stream = recorded.stream.as_str().to_owned();
        let head = self.heads.get(&stream).copied().unwrap_or(-1);
        if recorded.version != head + 1 {
            self.problem(format!(
                "{stream}: version {} follows {head}",
                recorded.version
            ));
        }
        self.heads.insert(stream, recorded.version);
        let Some(account_id) = recorded.stream.account_id() else {
            if recorded.stream.as_str().starts_with("x402-") {
                self.fold_x402(recorded, checkpoint);
                return;
            }
            if let LedgerEvent::LocalizationGenerated(e) = &recorded.event {
                if recorded.version != 0 {
                    self.problem(format!(
                        "{}: a second generation at version {}",
                        recorded.stream, recorded.version
                    ));
                }
                let resource = format!("{}@{}", e.entry_id, e.locale);
                if let Some(payment) = &e.x402_payment {
                    let paid = (resource, e.request_id.clone());
                    self.localizations
                        .paid_generated
                        .insert(payment.clone(), paid);
                } else {
                    let key = (e.account_id, e.request_id.clone());
                    self.localizations.generated.insert(key, resource);
                }
            }
            return;
        };
        if let LedgerEvent::CallCharged(e) = &recorded.event
            && e.operation.starts_with("localize")
        {
            let key = (account_id, e.request_id.clone());
            let resource = e.resource_id.clone().unwrap_or_default();
            self.localizations.charged.insert(key, resource);
        }
        let account = self
            .accounts
            .entry(account_id)
            .or_insert_with(|| Account::empty(account_id));
        // A gap was reported above; fold on from the version found.
        account.version = recorded.version - 1;
        account.apply(&recorded.event, recorded.version);
        let balance = account.balance;
        if balance < 0 {
            self.problem(format!("account-{account_id}: balance {balance} < 0"));
        }
        if recorded.position <= checkpoint {
            self.expected.fold(account_id, recorded);
        } else {
            self.behind += 1;
        }
    }

    /// An x402 payment stream: its claim at version 0, naming the stream's payer and
    /// nonce, then one outcome; only an unknown outcome may be followed, by the
    /// settlement of the same payment presented again (version 2). Nothing else.
    fn fold_x402(&mut self, recorded: &RecordedEvent, checkpoint: Position) {
        let stream = recorded.stream.as_str().to_owned();
        let fits = match (&recorded.event, recorded.version) {
            (LedgerEvent::X402PaymentClaimed(e), 0) => {
                stream == format!("x402-{}-{}", e.payer, e.nonce)
            }
            (
                LedgerEvent::X402PaymentSettled(_)
                | LedgerEvent::X402PaymentFailed(_)
                | LedgerEvent::X402SettlementUnknown(_),
                1,
            ) => true,
            (LedgerEvent::X402PaymentSettled(_), 2) => self.x402_unknown.contains(&stream),
            _ => false,
        };
        if !fits {
            self.problem(format!(
                "{stream}: {} at version {} does not belong on an x402 payment stream",
                recorded.event.event_type(),
                recorded.version
            ));
            return;
        }
        match &recorded.event {
            LedgerEvent::X402SettlementUnknown(_) => {
                self.x402_unknown.insert(stream.clone());
            }
            LedgerEvent::X402PaymentSettled(_) => {
                self.x402_unknown.remove(&stream);
            }
            _ => {}
        }
        let localizations = &mut self.localizations;
        match &recorded.event {
            LedgerEvent::X402PaymentClaimed(e) if e.operation.starts_with("localize") => {
                let version = (
                    e.resource_id.clone().unwrap_or_default(),
                    e.request_id.clone(),
                );
                localizations.paid_claims.insert(stream.clone(), version);
            }
            LedgerEvent::X402PaymentSettled(_) => {
                if let Some(version) = localizations.paid_claims.remove(&stream) {
                    localizations.paid_settled.insert(stream.clone(), version);
                }
            }
            _ => {}
        }
        if recorded.position > checkpoint {
            self.behind += 1;
            return;
        }
        let rows = &mut self.expected.x402;
        match &recorded.event {
            LedgerEvent::X402PaymentClaimed(e) => {
                let amount = e.amount.parse().unwrap_or(0);
                let row = (
                    e.payer.clone(),
                    e.nonce.clone(),
                    amount,
                    e.operation.clone(),
                    e.price_jpy,
                    "claimed".to_owned(),
                    None,
                );
                rows.insert(stream, row);
            }
            LedgerEvent::X402PaymentSettled(e) => {
                if let Some(row) = rows.get_mut(&stream) {
                    row.5 = "settled".to_owned();
                    row.6 = Some(e.transaction.clone());
                }
            }
            LedgerEvent::X402PaymentFailed(_) => {
                if let Some(row) = rows.get_mut(&stream) {
                    row.5 = "failed".to_owned();
                }
            }
            LedgerEvent::X402SettlementUnknown(_) => {
                if let Some(row) = rows.get_mut(&stream) {
                    row.5 = "unknown".to_owned();
                }
            }
            _ => {}
        }
    }

    fn problem(&mut self, text: String) {
        if self.problems.len() < DIFFERENCES_MAX {
            self.problems.push(text);
        }
    }
}

impl Models {
    /// Folds one event of `account_id` into the expected models.
    pub fn fold(&mut self, account_id: Uuid, recorded: &RecordedEvent) {
        let account = account_id.to_string();
        match &recorded.event {
            LedgerEvent::AccountOpened(e) => {
                let cap = i64::from(manabi_ledger::account::ACCOUNT_DAILY_CALLS_DEFAULT);
                self.accounts.insert(account, (e.email.clone(), 0, cap));
            }
            LedgerEvent::PointsCredited(e) => {
                if let Some(row) = self.accounts.get_mut(&account) {
                    row.1 += e.points;
                }
                self.credits
                    .insert(recorded.id.to_string(), (account.clone(), e.points));
                let month = recorded.recorded_at.format("%Y-%m").to_string();
                self.statements.entry((account, month)).or_default().0 += e.points;
            }
            LedgerEvent::ApiKeyIssued(e) => {
                let cap = i64::from(manabi_ledger::account::KEY_DAILY_CALLS_DEFAULT);
                let expires = e.expires_at.map(instant);
                let row = (account, e.name.clone(), cap, expires, 0);
                self.keys.insert(e.key_id.to_string(), row);
            }
            LedgerEvent::ApiKeyRevoked(e) => {
                if let Some(row) = self.keys.get_mut(&e.key_id.to_string()) {
                    row.4 = 1;
                }
            }
            LedgerEvent::DailyCapChanged(e) => self.fold_cap(&account, e),
            LedgerEvent::CallCharged(e) => {
                self.fold_charge(account, recorded.id, recorded.recorded_at, e);
            }
            // Kept on its own stream; checked against its charge by `Localizations`.
            LedgerEvent::LocalizationGenerated(_)
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

    fn fold_cap(&mut self, account: &str, e: &manabi_schemas::events::DailyCapChanged) {
        let cap = i64::from(e.daily_calls);
        match e.scope {
            manabi_schemas::events::CapScope::Account => {
                if let Some(row) = self.accounts.get_mut(account) {
                    row.2 = cap;
                }
            }
            manabi_schemas::events::CapScope::Key { key_id } => {
                if let Some(row) = self.keys.get_mut(&key_id.to_string()) {
                    row.2 = cap;
                }
            }
        }
    }

    fn fold_charge(
        &mut self,
        account: String,
        id: Uuid,
        recorded_at: chrono::DateTime<chrono::Utc>,
        e: &manabi_schemas::events::CallCharged,
    ) {
        if let Some(row) = self.accounts.get_mut(&account) {
            row.1 -= e.points;
        }
        let key = e.key_id.to_string();
        let usage = self.usage_key.entry((key.clone(), day(e.day))).or_default();
        *usage = (usage.0 + 1, usage.1 + e.points);
        let usage = self
            .usage_account
            .entry((account.clone(), day(e.day)))
            .or_default();
        *usage = (usage.0 + 1, usage.1 + e.points);
        let line = ChargeLine {
            invoice_id: id.to_string(),
            key_id: key,
            operation: e.operation.clone(),
            resource_id: e.resource_id.clone(),
            points: e.points,
            price_list_version: i64::from(e.price_list_version),
            day: day(e.day),
            request_id: e.request_id.clone(),
            transport: e.transport.as_str().to_owned(),
            charged_at: instant(recorded_at),
        };
        let charge = AccountCharge {
            account_id: account.clone(),
            line,
        };
        self.charges.insert(id.to_string(), charge);
        let totals = self
            .statements
            .entry((account, month_of_day(e.day)))
            .or_default();
        totals.1 += e.points;
        totals.2 += 1;
    }

    /// The read models as stored.
    pub async fn read(store: &Store) -> Result<Models, ProjectorError> {
        let accounts = fetch_all!(
            store,
            (String, String, i64, i64),
            "SELECT account_id, email, balance, daily_calls_cap FROM rm_accounts"
        )?;
        let keys = fetch_all!(
            store,
            (String, String, Option<String>, i64, Option<String>, i64),
            "SELECT key_id, account_id, name, daily_calls_cap, expires_at, revoked \
             FROM rm_api_keys"
        )?;
        let usage_key = fetch_all!(
            store,
            (String, String, i64, i64),
            "SELECT key_id, day, calls, points FROM rm_usage_key"
        )?;
        let usage_account = fetch_all!(
            store,
            (String, String, i64, i64),
            "SELECT account_id, day, calls, points FROM rm_usage_account"
        )?;
        let charges_sql = format!("SELECT account_id, {CHARGE_COLUMNS} FROM rm_charges");
        let charges = fetch_all!(store, AccountCharge, &charges_sql)?;
        let credits = fetch_all!(
            store,
            (String, String, i64),
            "SELECT event_id, account_id, points FROM rm_credits"
        )?;
        let statements = fetch_all!(
            store,
            (String, String, i64, i64, i64),
            "SELECT account_id, month, credited_points, charged_points, calls \
             FROM rm_statements"
        )?;
        let x402 = fetch_all!(
            store,
            (
                String,
                String,
                String,
                i64,
                String,
                i64,
                String,
                Option<String>
            ),
            "SELECT stream, payer, nonce, amount_atomic, operation, price_jpy, status, \
             transaction_hash FROM rm_x402_payments"
        )?;
        Ok(Models {
            x402: x402
                .into_iter()
                .map(|(s, p, n, a, o, j, st, t)| (s, (p, n, a, o, j, st, t)))
                .collect(),
            accounts: accounts
                .into_iter()
                .map(|(a, e, b, c)| (a, (e, b, c)))
                .collect(),
            keys: keys
                .into_iter()
                .map(|(k, a, n, c, x, r)| (k, (a, n, c, x, r)))
                .collect(),
            usage_key: usage_key
                .into_iter()
                .map(|(k, d, c, p)| ((k, d), (c, p)))
                .collect(),
            usage_account: usage_account
                .into_iter()
                .map(|(a, d, c, p)| ((a, d), (c, p)))
                .collect(),
            charges: charges
                .into_iter()
                .map(|charge| (charge.line.invoice_id.clone(), charge))
                .collect(),
            credits: credits.into_iter().map(|(i, a, p)| (i, (a, p))).collect(),
            statements: statements
                .into_iter()
                .map(|(a, m, cr, ch, n)| ((a, m), (cr, ch, n)))
                .collect(),
        })
    }

    /// Every way `actual` differs from `self` (the expected models), bounded.
    pub fn differences(&self, actual: &Models) -> Vec<String> {
        let mut out = Vec::new();
        diff("rm_accounts", &self.accounts, &actual.accounts, &mut out);
        diff("rm_api_keys", &self.keys, &actual.keys, &mut out);
        diff("rm_usage_key", &self.usage_key, &actual.usage_key, &mut out);
        diff(
            "rm_usage_account",
            &self.usage_account,
            &actual.usage_account,
            &mut out,
        );
        diff("rm_charges", &self.charges, &actual.charges, &mut out);
        diff("rm_credits", &self.credits, &actual.credits, &mut out);
        diff(
            "rm_statements",
            &self.statements,
            &actual.statements,
            &mut out,
        );
        diff("rm_x402_payments", &self.x402, &actual.x402, &mut out);
        out.truncate(DIFFERENCES_MAX);
        out
    }
}

fn diff<K: Ord + Debug, V: PartialEq + Debug>(
    table: &str,
    expected: &BTreeMap<K, V>,
    actual: &BTreeMap<K, V>,
    out: &mut Vec<String>,
) {
    for (key, want) in expected {
        match actual.get(key) {
            Some(found) if found == want => {}
            Some(found) => out.push(format!(
                "{table} {key:?}: expected {want:?}, found {found:?}"
            )),
            None => out.push(format!("{table} {key:?}: expected {want:?}, missing")),
        }
    }
    for (key, found) in actual {
        if !expected.contains_key(key) {
            out.push(format!("{table} {key:?}: unexpected {found:?}"));
        }
    }
}

/// Replays every stream and compares the read models at their checkpoint.
pub async fn verify(store: &Store) -> Result<VerifyReport, ProjectorError> {
    let checkpoint = checkpoint(store).await?;
    let mut replay = Replay::default();
    let mut after = Position::default();
    loop {
        let page = store.read_all_after(after, PAGE_EVENTS_MAX).await?;
        for recorded in &page {
            replay.fold(recorded, checkpoint);
        }
        match page.last() {
            Some(last) if page.len() == PAGE_EVENTS_MAX as usize => after = last.position,
            _ => break,
        }
    }
    let actual = Models::read(store).await?;
    let mut differences = replay.problems.clone();
    replay.localizations.differences(&mut differences);
    differences.extend(replay.expected.differences(&actual));
    cross_check_aggregates(&replay, &mut differences);
    differences.truncate(DIFFERENCES_MAX);
    Ok(VerifyReport {
        ok: differences.is_empty(),
        events_replayed: replay.replayed,
        streams: replay.heads.len(),
        accounts: replay.accounts.len(),
        checkpoint,
        events_behind_checkpoint: replay.behind,
        differences,
    })
}

/// When the projector is fully caught up, the aggregate fold must agree with the models.
fn cross_check_aggregates(replay: &Replay, out: &mut Vec<String>) {
    if replay.behind > 0 {
        return;
    }
    for (id, account) in &replay.accounts {
        let Some(row) = replay.expected.accounts.get(&id.to_string()) else {
            continue;
        };
        if row.1 != account.balance || row.2 != i64::from(account.daily_calls_cap) {
            out.push(format!(
                "account-{id}: aggregate balance {} cap {}, model fold {row:?}",
                account.balance, account.daily_calls_cap
            ));
        }
    }
}
