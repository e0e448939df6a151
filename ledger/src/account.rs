//! The Account aggregate: the fold of one `account-<id>` stream, and the pure decisions
//! taken on it. A decision returns the event to append or a typed refusal; it never
//! does I/O, so the caller chooses the expected version and the clock.

use std::collections::BTreeMap;

use chrono::{DateTime, Days, NaiveDate, Utc};
use manabi_schemas::events::{
    AccountOpened, ApiKeyIssued, ApiKeyRevoked, CallCharged, CapScope, ChargeIdempotency,
    CreditKind, DailyCapChanged, LedgerEvent, PointsCredited, Transport,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api_key::{ApiKey, SecretHash};

pub const KEY_DAILY_CALLS_DEFAULT: u32 = 2_000;
pub const ACCOUNT_DAILY_CALLS_DEFAULT: u32 = 5_000;
/// Bumped whenever [`Account`]'s serialized shape changes; older snapshots are ignored.
pub const SNAPSHOT_FORMAT: i32 = 2;
/// How long an `Idempotency-Key` is remembered: charges of this UTC day and the one
/// before, so at least 24 hours.
pub const IDEMPOTENCY_DAYS_KEPT: u64 = 1;

/// The most points one event may move: a top-up of ¥100,000,000 or a price that high.
pub const EVENT_POINTS_MAX: i64 = 100_000_000;
/// The most points an account may hold: ¥1,000,000,000,000. Far below `i64::MAX`, so no
/// sum of a balance and one event can overflow, and below 2^53, so every read model
/// (including a SQLite REAL) holds it exactly.
pub const BALANCE_POINTS_MAX: i64 = 1_000_000_000_000;

/// A positive number of points, at most [`EVENT_POINTS_MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Points(i64);

impl Points {
    pub fn new(points: i64) -> Option<Self> {
        (1..=EVENT_POINTS_MAX)
            .contains(&points)
            .then_some(Points(points))
    }

    pub fn get(self) -> i64 {
        self.0
    }
}

/// One API key as the account sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyState {
    pub secret_sha256: String,
    pub name: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked: bool,
    pub daily_calls_cap: u32,
}

/// Calls counted against the caps on the latest UTC day seen in the stream.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyUsage {
    pub day: Option<NaiveDate>,
    pub account_calls: u32,
    pub key_calls: BTreeMap<Uuid, u32>,
}

impl DailyUsage {
    fn on(&self, day: NaiveDate) -> (u32, Option<&BTreeMap<Uuid, u32>>) {
        match self.day {
            Some(counted) if counted == day => (self.account_calls, Some(&self.key_calls)),
            _ => (0, None),
        }
    }

    fn key_calls_on(&self, day: NaiveDate, key_id: Uuid) -> u32 {
        self.on(day)
            .1
            .and_then(|keys| keys.get(&key_id).copied())
            .unwrap_or(0)
    }

    fn tick(&mut self, day: NaiveDate, key_id: Uuid) {
        match self.day {
            // A charge decided just before midnight may land after one of the new day.
            Some(counted) if day < counted => return,
            Some(counted) if day == counted => {}
            _ => {
                *self = DailyUsage {
                    day: Some(day),
                    ..DailyUsage::default()
                }
            }
        }
        self.account_calls += 1;
        *self.key_calls.entry(key_id).or_insert(0) += 1;
    }
}

/// The folded state of one account stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: Uuid,
    /// Version of the last folded event; -1 before the first.
    pub version: i64,
    pub email: String,
    pub balance: i64,
    pub daily_calls_cap: u32,
    pub keys: BTreeMap<Uuid, KeyState>,
    pub usage: DailyUsage,
    /// Charges made with an `Idempotency-Key`, by key, while they are remembered.
    #[serde(default)]
    pub idempotent_charges: BTreeMap<String, KeyedCharge>,
}

/// A charge made with an `Idempotency-Key`: what a retry is answered with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedCharge {
    pub request_digest: String,
    /// The stream version of the charge (its event is the invoice).
    pub version: i64,
    pub points: i64,
    pub day: NaiveDate,
}

/// What a billed call asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeRequest {
    pub operation: String,
    pub resource_id: Option<String>,
    pub points: Points,
    pub price_list_version: u32,
    pub request_id: String,
    pub transport: Transport,
    pub idempotency: Option<ChargeIdempotency>,
}

/// Which daily cap was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuotaScope {
    Key,
    Account,
}

/// Why a call is not charged (and so not answered).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("insufficient points: {required} required, balance {balance}")]
    InsufficientPoints { required: i64, balance: i64 },
    #[error("daily {scope:?} call cap reached; resets in {retry_after_secs} s")]
    QuotaExceeded {
        scope: QuotaScope,
        retry_after_secs: u64,
    },
    #[error("the API key is revoked")]
    Revoked,
    #[error("the API key has expired")]
    Expired,
    #[error("unknown API key")]
    UnknownKey,
    #[error("the ledger is unavailable: {reason}")]
    LedgerUnavailable { reason: String },
    /// The request gave up (deadline or disconnect) before its charge was written; it
    /// never will be.
    #[error("the request gave up before its charge was written")]
    Abandoned,
    /// The append failed and the ledger could not be read back to tell whether the
    /// charge was written: the answer must not say that nothing was charged.
    #[error("the outcome of the charge is not known: {reason}")]
    OutcomeUnknown { reason: String },
    /// The same request was charged before under the same `Idempotency-Key`: answer it
    /// with that charge (at `version` of the stream), charge nothing now.
    #[error("already charged under this idempotency key")]
    AlreadyCharged { version: i64, points: i64 },
    /// The stream the charge was to claim at once (a localization) was claimed first by
    /// another request; nothing was charged.
    #[error("the claim made with this charge was taken by another request")]
    ClaimTaken,
    /// The `Idempotency-Key` was used for a different request.
    #[error("the idempotency key was used for a different request")]
    IdempotencyKeyReused,
}

impl Refusal {
    /// Refusals that a newer event in the stream could overturn: decide again after
    /// catching up before answering with them.
    pub fn may_be_stale(&self) -> bool {
        !matches!(
            self,
            Refusal::LedgerUnavailable { .. }
                | Refusal::Abandoned
                | Refusal::OutcomeUnknown { .. }
                | Refusal::AlreadyCharged { .. }
                | Refusal::IdempotencyKeyReused
                | Refusal::ClaimTaken
        )
    }
}

/// An operator command that cannot be applied to this account.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("account {0} does not exist")]
    AccountNotFound(Uuid),
    #[error("account {0} already exists")]
    AccountExists(Uuid),
    #[error("key {0} does not belong to this account")]
    KeyNotFound(Uuid),
    #[error("key {0} is already revoked")]
    KeyAlreadyRevoked(Uuid),
    #[error(
        "crediting {points} points to a balance of {balance} would pass the most an \
         account may hold ({BALANCE_POINTS_MAX})"
    )]
    BalanceLimit { balance: i64, points: i64 },
}

impl Account {
    /// The state before any event.
    pub fn empty(id: Uuid) -> Self {
        Account {
            id,
            version: -1,
            email: String::new(),
            balance: 0,
            daily_calls_cap: ACCOUNT_DAILY_CALLS_DEFAULT,
            keys: BTreeMap::new(),
            usage: DailyUsage::default(),
            idempotent_charges: BTreeMap::new(),
        }
    }

    pub fn is_open(&self) -> bool {
        self.version >= 0
    }

    /// Folds one event that the stream recorded at `version`.
    pub fn apply(&mut self, event: &LedgerEvent, version: i64) {
        debug_assert_eq!(version, self.version + 1, "events fold in stream order");
        self.version = version;
        match event {
            LedgerEvent::AccountOpened(e) => self.email.clone_from(&e.email),
            LedgerEvent::PointsCredited(e) => {
                // Bounded by `decide_credit`; a stored event past the bounds (written
                // before they existed) saturates instead of wrapping the balance.
                self.balance = self.balance.saturating_add(e.points);
            }
            LedgerEvent::ApiKeyIssued(e) => {
                self.keys.insert(e.key_id, KeyState::issued(e));
            }
            LedgerEvent::ApiKeyRevoked(e) => {
                if let Some(key) = self.keys.get_mut(&e.key_id) {
                    key.revoked = true;
                }
            }
            LedgerEvent::DailyCapChanged(e) => self.apply_cap(e),
            LedgerEvent::CallCharged(e) => {
                self.balance = self.balance.saturating_sub(e.points);
                self.usage.tick(e.day, e.key_id);
                self.remember_idempotent(e, version);
            }
            // Recorded on its own stream, never on an account's.
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

    /// Keeps the charge's `Idempotency-Key`, and forgets those of older days.
    fn remember_idempotent(&mut self, charge: &CallCharged, version: i64) {
        if let Some(oldest) = charge
            .day
            .checked_sub_days(Days::new(IDEMPOTENCY_DAYS_KEPT))
        {
            self.idempotent_charges.retain(|_, kept| kept.day >= oldest);
        }
        if let Some(idempotency) = &charge.idempotency {
            let kept = KeyedCharge {
                request_digest: idempotency.request_digest.clone(),
                version,
                points: charge.points,
                day: charge.day,
            };
            self.idempotent_charges
                .insert(idempotency.key.clone(), kept);
        }
    }

    fn apply_cap(&mut self, change: &DailyCapChanged) {
        match change.scope {
            CapScope::Account => self.daily_calls_cap = change.daily_calls,
            CapScope::Key { key_id } => {
                if let Some(key) = self.keys.get_mut(&key_id) {
                    key.daily_calls_cap = change.daily_calls;
                }
            }
        }
    }

    /// The key may be used now: it exists, its secret matches, it is live.
    pub fn check_key(&self, key: &ApiKey, now: DateTime<Utc>) -> Result<(), Refusal> {
        let state = self.keys.get(&key.key_id).ok_or(Refusal::UnknownKey)?;
        let stored = SecretHash::from_hex(&state.secret_sha256).ok_or(Refusal::UnknownKey)?;
        if key.account_id != self.id || !stored.matches(&key.secret_hash()) {
            return Err(Refusal::UnknownKey);
        }
        state.check_live(now)
    }

    /// Decides one billed call made with `key_id` at `now`.
    pub fn decide_charge(
        &self,
        key_id: Uuid,
        request: &ChargeRequest,
        now: DateTime<Utc>,
    ) -> Result<LedgerEvent, Refusal> {
        let key = self.keys.get(&key_id).ok_or(Refusal::UnknownKey)?;
        key.check_live(now)?;
        if let Some(idempotency) = &request.idempotency
            && let Some(kept) = self.idempotent_charges.get(&idempotency.key)
        {
            return Err(if kept.request_digest == idempotency.request_digest {
                Refusal::AlreadyCharged {
                    version: kept.version,
                    points: kept.points,
                }
            } else {
                Refusal::IdempotencyKeyReused
            });
        }
        let day = now.date_naive();
        let retry_after_secs = seconds_until_next_day(now);
        if self.usage.key_calls_on(day, key_id) >= key.daily_calls_cap {
            return Err(Refusal::QuotaExceeded {
                scope: QuotaScope::Key,
                retry_after_secs,
            });
        }
        if self.usage.on(day).0 >= self.daily_calls_cap {
            return Err(Refusal::QuotaExceeded {
                scope: QuotaScope::Account,
                retry_after_secs,
            });
        }
        let required = request.points.get();
        if self.balance < required {
            return Err(Refusal::InsufficientPoints {
                required,
                balance: self.balance,
            });
        }
        assert!(self.balance - required >= 0, "a charge never overdraws");
        Ok(LedgerEvent::CallCharged(CallCharged {
            key_id,
            operation: request.operation.clone(),
            resource_id: request.resource_id.clone(),
            points: required,
            price_list_version: request.price_list_version,
            day,
            request_id: request.request_id.clone(),
            transport: request.transport,
            idempotency: request.idempotency.clone(),
        }))
    }

    /// Calls made today with `key_id`, and by the whole account.
    pub fn calls_on(&self, day: NaiveDate, key_id: Option<Uuid>) -> u32 {
        match key_id {
            Some(key_id) => self.usage.key_calls_on(day, key_id),
            None => self.usage.on(day).0,
        }
    }

    pub fn decide_open(&self, email: &str) -> Result<LedgerEvent, CommandError> {
        if self.is_open() {
            return Err(CommandError::AccountExists(self.id));
        }
        Ok(LedgerEvent::AccountOpened(AccountOpened {
            account_id: self.id,
            email: email.to_owned(),
        }))
    }

    pub fn decide_credit(
        &self,
        kind: CreditKind,
        points: Points,
        idempotency_key: &str,
    ) -> Result<LedgerEvent, CommandError> {
        self.require_open()?;
        let after = self.balance.checked_add(points.get());
        if after.is_none_or(|after| after > BALANCE_POINTS_MAX) {
            return Err(CommandError::BalanceLimit {
                balance: self.balance,
                points: points.get(),
            });
        }
        Ok(LedgerEvent::PointsCredited(PointsCredited {
            kind,
            points: points.get(),
            idempotency_key: idempotency_key.to_owned(),
        }))
    }

    /// Takes back up to `points` (a refunded purchase): at most the balance, so the
    /// balance never goes below zero; `None` when there is nothing left to take.
    pub fn decide_refund_debit(
        &self,
        points: i64,
        idempotency_key: &str,
    ) -> Result<Option<LedgerEvent>, CommandError> {
        self.require_open()?;
        let taken = points.min(self.balance);
        if taken <= 0 {
            return Ok(None);
        }
        Ok(Some(LedgerEvent::PointsCredited(PointsCredited {
            kind: CreditKind::Adjustment,
            points: -taken,
            idempotency_key: idempotency_key.to_owned(),
        })))
    }

    pub fn decide_issue_key(
        &self,
        key: &ApiKey,
        name: Option<String>,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<LedgerEvent, CommandError> {
        self.require_open()?;
        Ok(LedgerEvent::ApiKeyIssued(ApiKeyIssued {
            key_id: key.key_id,
            secret_sha256: key.secret_hash().to_hex(),
            name,
            expires_at,
        }))
    }

    pub fn decide_revoke(&self, key_id: Uuid) -> Result<LedgerEvent, CommandError> {
        let key = self
            .keys
            .get(&key_id)
            .ok_or(CommandError::KeyNotFound(key_id))?;
        if key.revoked {
            return Err(CommandError::KeyAlreadyRevoked(key_id));
        }
        Ok(LedgerEvent::ApiKeyRevoked(ApiKeyRevoked { key_id }))
    }

    pub fn decide_cap(
        &self,
        scope: CapScope,
        daily_calls: u32,
    ) -> Result<LedgerEvent, CommandError> {
        self.require_open()?;
        if let CapScope::Key { key_id } = scope
            && !self.keys.contains_key(&key_id)
        {
            return Err(CommandError::KeyNotFound(key_id));
        }
        Ok(LedgerEvent::DailyCapChanged(DailyCapChanged {
            scope,
            daily_calls,
        }))
    }

    fn require_open(&self) -> Result<(), CommandError> {
        if self.is_open() {
            Ok(())
        } else {
            Err(CommandError::AccountNotFound(self.id))
        }
    }
}

impl KeyState {
    fn issued(event: &ApiKeyIssued) -> Self {
        KeyState {
            secret_sha256: event.secret_sha256.clone(),
            name: event.name.clone(),
            expires_at: event.expires_at,
            revoked: false,
            daily_calls_cap: KEY_DAILY_CALLS_DEFAULT,
        }
    }

    pub fn check_live(&self, now: DateTime<Utc>) -> Result<(), Refusal> {
        if self.revoked {
            return Err(Refusal::Revoked);
        }
        match self.expires_at {
            Some(expires_at) if expires_at <= now => Err(Refusal::Expired),
            _ => Ok(()),
        }
    }
}

/// Seconds from `now` to the next 00:00 UTC (at least 1).
pub fn seconds_until_next_day(now: DateTime<Utc>) -> u64 {
    let midnight = now
        .date_naive()
        .checked_add_days(Days::new(1))
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc());
    match midnight {
        Some(midnight) => u64::try_from((midnight - now).num_seconds())
            .unwrap_or(1)
            .max(1),
        None => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};
    use secrecy::ExposeSecret;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, h, m, 0)
            .single()
            .expect("valid time")
    }

    fn request(points: i64) -> ChargeRequest {
        ChargeRequest {
            operation: "getLearnable".into(),
            resource_id: None,
            points: Points::new(points).expect("positive"),
            price_list_version: 1,
            request_id: "req".into(),
            transport: Transport::Rest,
            idempotency: None,
        }
    }

    #[test]
    fn a_retry_under_the_same_idempotency_key_is_answered_with_the_first_charge() {
        let now = at(12, 0);
        let (mut account, key) = account(10, None);
        let keyed = |digest: &str| ChargeRequest {
            idempotency: Some(ChargeIdempotency {
                key: "retry-1".into(),
                request_digest: digest.into(),
            }),
            ..request(3)
        };
        let event = account
            .decide_charge(key.key_id, &keyed("a"), now)
            .expect("charged");
        let version = account.version + 1;
        account.apply(&event, version);
        assert_eq!(account.balance, 7);
        assert_eq!(
            account.decide_charge(key.key_id, &keyed("a"), now),
            Err(Refusal::AlreadyCharged { version, points: 3 })
        );
        assert_eq!(
            account.decide_charge(key.key_id, &keyed("b"), now),
            Err(Refusal::IdempotencyKeyReused)
        );
        // Two days later the key is forgotten.
        let later = now + Duration::days(2);
        let other = account
            .decide_charge(key.key_id, &request(1), later)
            .expect("charged");
        account.apply(&other, account.version + 1);
        assert!(
            account
                .decide_charge(key.key_id, &keyed("b"), later)
                .is_ok()
        );
    }

    #[test]
    fn points_are_bounded_per_event_and_per_balance() {
        assert!(Points::new(EVENT_POINTS_MAX).is_some());
        assert!(Points::new(EVENT_POINTS_MAX + 1).is_none());
        assert!(Points::new(9_223_372_036_854_775_000).is_none());
        assert!(Points::new(0).is_none());
        let (mut account, _) = account(BALANCE_POINTS_MAX - 10, None);
        let ten = Points::new(10).expect("in range");
        let credit = account
            .decide_credit(CreditKind::Grant, ten, "k1")
            .expect("up to the maximum");
        account.apply(&credit, account.version + 1);
        assert_eq!(account.balance, BALANCE_POINTS_MAX);
        let one = Points::new(1).expect("in range");
        assert_eq!(
            account.decide_credit(CreditKind::Grant, one, "k2"),
            Err(CommandError::BalanceLimit {
                balance: BALANCE_POINTS_MAX,
                points: 1
            })
        );
    }

    #[test]
    fn a_stored_event_past_the_bounds_saturates_instead_of_wrapping() {
        let (mut account, _) = account(10_000, None);
        let huge = LedgerEvent::PointsCredited(PointsCredited {
            kind: CreditKind::Grant,
            points: i64::MAX,
            idempotency_key: "legacy".into(),
        });
        account.apply(&huge, account.version + 1);
        assert_eq!(account.balance, i64::MAX);
    }

    /// An open account with `balance` points and one key that expires at `expires_at`.
    fn account(balance: i64, expires_at: Option<DateTime<Utc>>) -> (Account, ApiKey) {
        let mut account = Account::empty(Uuid::now_v7());
        let key = ApiKey::generate(account.id);
        let events = [
            account.decide_open("a@example.com").expect("opens"),
            LedgerEvent::PointsCredited(PointsCredited {
                kind: CreditKind::Grant,
                points: balance,
                idempotency_key: "k".into(),
            }),
            LedgerEvent::ApiKeyIssued(ApiKeyIssued {
                key_id: key.key_id,
                secret_sha256: key.secret_hash().to_hex(),
                name: None,
                expires_at,
            }),
        ];
        for event in events {
            account.apply(&event, account.version + 1);
        }
        (account, key)
    }

    fn charge(account: &mut Account, key: &ApiKey, now: DateTime<Utc>) -> Result<(), Refusal> {
        let event = account.decide_charge(key.key_id, &request(1), now)?;
        account.apply(&event, account.version + 1);
        Ok(())
    }

    #[test]
    fn the_key_cap_resets_at_midnight_utc() {
        let (mut account, key) = account(10_000, None);
        account.apply(
            &account
                .decide_cap(CapScope::Key { key_id: key.key_id }, 3)
                .expect("cap"),
            account.version + 1,
        );
        for _ in 0..3 {
            charge(&mut account, &key, at(23, 58)).expect("under the cap");
        }
        let refused = charge(&mut account, &key, at(23, 59));
        assert_eq!(
            refused,
            Err(Refusal::QuotaExceeded {
                scope: QuotaScope::Key,
                retry_after_secs: 60
            })
        );
        let next_day = at(23, 59) + Duration::minutes(1);
        charge(&mut account, &key, next_day).expect("a new day");
        assert_eq!(account.calls_on(next_day.date_naive(), Some(key.key_id)), 1);
        assert_eq!(account.balance, 10_000 - 4);
    }

    #[test]
    fn the_account_cap_counts_every_key() {
        let (mut account, key) = account(100, None);
        let second = ApiKey::generate(account.id);
        let issued = account
            .decide_issue_key(&second, None, None)
            .expect("issue");
        account.apply(&issued, account.version + 1);
        let cap = account.decide_cap(CapScope::Account, 2).expect("cap");
        account.apply(&cap, account.version + 1);
        charge(&mut account, &key, at(10, 0)).expect("first");
        charge(&mut account, &second, at(10, 0)).expect("second");
        assert!(matches!(
            charge(&mut account, &key, at(10, 1)),
            Err(Refusal::QuotaExceeded {
                scope: QuotaScope::Account,
                ..
            })
        ));
    }

    #[test]
    fn a_key_expires_at_its_expiry_instant() {
        let (mut account, key) = account(100, Some(at(12, 0)));
        charge(&mut account, &key, at(11, 59)).expect("still live");
        assert_eq!(charge(&mut account, &key, at(12, 0)), Err(Refusal::Expired));
        assert_eq!(account.check_key(&key, at(12, 0)), Err(Refusal::Expired));
    }

    #[test]
    fn insufficient_points_reports_required_and_balance() {
        let (account, key) = account(2, None);
        let refused = account.decide_charge(key.key_id, &request(5), at(9, 0));
        assert_eq!(
            refused,
            Err(Refusal::InsufficientPoints {
                required: 5,
                balance: 2
            })
        );
    }

    #[test]
    fn a_revoked_or_foreign_key_is_refused() {
        let (mut account, key) = account(100, None);
        let stranger = ApiKey::generate(account.id);
        assert_eq!(
            account.check_key(&stranger, at(9, 0)),
            Err(Refusal::UnknownKey)
        );
        let text = key.reveal();
        let forged = text.expose_secret().replace(
            &key.account_id.simple().to_string(),
            &Uuid::nil().simple().to_string(),
        );
        let forged = ApiKey::parse(&forged).expect("well formed");
        assert_eq!(
            account.check_key(&forged, at(9, 0)),
            Err(Refusal::UnknownKey)
        );
        let revoke = account.decide_revoke(key.key_id).expect("revoke");
        account.apply(&revoke, account.version + 1);
        assert_eq!(account.check_key(&key, at(9, 0)), Err(Refusal::Revoked));
        assert_eq!(charge(&mut account, &key, at(9, 0)), Err(Refusal::Revoked));
    }

    #[test]
    fn a_late_charge_of_yesterday_does_not_reset_today() {
        let (mut account, key) = account(100, None);
        let today = at(0, 1);
        charge(&mut account, &key, today).expect("today");
        charge(&mut account, &key, today - Duration::minutes(2)).expect("yesterday's, late");
        assert_eq!(account.calls_on(today.date_naive(), None), 1);
    }
}
