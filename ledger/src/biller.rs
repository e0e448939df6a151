//! The billing service the API calls: authenticate a key, charge a call.
//!
//! One writer task owns the in-memory aggregates. It collects the charges that arrive
//! while the previous batch commits, decides each against its account (later charges of
//! the same account see the earlier ones), and appends the whole batch in ONE transaction
//! with a version check per charge. A charge whose version check fails — another replica
//! or the admin CLI wrote to the account — is decided again after catching up, as is
//! every refusal before it is answered: a top-up, a new key or a revocation made a moment
//! ago elsewhere counts on the very next call.
//!
//! On PostgreSQL two batches may be committing at once (their fsyncs overlap and the
//! server groups them), but never two that touch the same account: a batch is decided on
//! the state its account's previous batch left, and that state is only known once that
//! batch has committed or failed. Charges of an account whose batch is still committing
//! wait for it. SQLite has one writer connection, so it keeps one batch at a time.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use futures::StreamExt;
use futures::stream::FuturesUnordered;

use manabi_schemas::events::EventMetadata;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::account::{Account, ChargeRequest, Refusal};
use crate::api_key::ApiKey;
use crate::clock::Clock;
use crate::health::LedgerHealth;
use crate::repository::{SNAPSHOT_EVERY_EVENTS, catch_up, load_account, save_snapshot};
use crate::store::{
    AppendCommand, AppendRejection, BatchResult, EventStore, ExpectedVersion, NewEvent, Store,
    StoreError, StreamAppend, StreamName,
};
use crate::ticket::ChargeTicket;
use crate::unknown::UnknownAccounts;

/// Bounds of the writer.
#[derive(Debug, Clone)]
pub struct BillerConfig {
    pub batch_charges_max: usize,
    pub queue_jobs_max: usize,
    pub accounts_cached_max: usize,
    pub charge_attempts_max: u32,
    pub snapshot_every_events: i64,
    /// Batches committing at once (over disjoint accounts); 1 = strictly one at a time.
    pub batches_in_flight_max: usize,
    /// How long a batch may wait for the callers of the previous one to call again.
    pub linger: std::time::Duration,
}

/// Far below one fsync (~3 ms here), so waiting costs less than the commit it saves.
const LINGER_MICROS: u64 = 1_000;

/// Batches in flight on PostgreSQL: two, so one commits while the next is decided and
/// sent; more only split the callers into smaller batches (docs/ledger.md has the
/// measurements).
const PG_BATCHES_IN_FLIGHT: usize = 2;

impl BillerConfig {
    /// The defaults for `store`'s backend.
    pub fn for_store(store: &Store) -> Self {
        BillerConfig {
            batches_in_flight_max: match store {
                Store::Sqlite(_) => 1,
                Store::Postgres(_) => PG_BATCHES_IN_FLIGHT,
            },
            ..BillerConfig::default()
        }
    }
}

impl Default for BillerConfig {
    fn default() -> Self {
        BillerConfig {
            batches_in_flight_max: 1,
            linger: std::time::Duration::from_micros(LINGER_MICROS),
            batch_charges_max: 512,
            queue_jobs_max: 8_192,
            accounts_cached_max: 100_000,
            charge_attempts_max: 32,
            snapshot_every_events: SNAPSHOT_EVERY_EVENTS,
        }
    }
}

/// An authenticated caller: the key and the account it bills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Caller {
    pub account_id: Uuid,
    pub key_id: Uuid,
}

/// A durable charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The `CallCharged` event id.
    pub invoice_id: Uuid,
    pub points_charged: i64,
    pub balance_after: i64,
}

/// Why a key was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("malformed API key")]
    Malformed,
    #[error("unknown API key")]
    Unknown,
    #[error("revoked API key")]
    Revoked,
    #[error("expired API key")]
    Expired,
    #[error("the ledger is unavailable: {reason}")]
    LedgerUnavailable { reason: String },
}

impl From<Refusal> for AuthError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Revoked => AuthError::Revoked,
            Refusal::Expired => AuthError::Expired,
            Refusal::LedgerUnavailable { reason } => AuthError::LedgerUnavailable { reason },
            _ => AuthError::Unknown,
        }
    }
}

/// The handle the API keeps; cheap to clone.
#[derive(Clone)]
pub struct Biller {
    jobs: mpsc::Sender<Job>,
    published: Arc<Published>,
    unknown: Arc<UnknownAccounts>,
    clock: Arc<dyn Clock>,
    health: Arc<LedgerHealth>,
}

/// The writer's latest view of each cached account, for lock-free-ish authentication.
type Published = RwLock<HashMap<Uuid, Arc<Account>>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Fresh,
    NeedsCatchUp,
    CaughtUp,
}

struct ChargeJob {
    caller: Caller,
    request: ChargeRequest,
    reply: oneshot::Sender<Result<Receipt, Refusal>>,
    /// Claimed when the charge joins a batch; a request that abandoned it first is
    /// answered "nothing charged" and the charge is dropped unwritten.
    ticket: ChargeTicket,
    /// Another stream appended in the same transaction as the charge (the claim of a
    /// localization); when it was taken first the charge is refused with `ClaimTaken`.
    attached: Option<Box<StreamAppend>>,
    stage: Stage,
    attempts: u32,
}

enum Job {
    Charge(ChargeJob),
    Refresh {
        account_id: Uuid,
        reply: oneshot::Sender<Result<Option<Arc<Account>>, String>>,
    },
}

impl Job {
    fn account_id(&self) -> Uuid {
        match self {
            Job::Charge(charge) => charge.caller.account_id,
            Job::Refresh { account_id, .. } => *account_id,
        }
    }
}

fn caller_of(key: &ApiKey) -> Caller {
    Caller {
        account_id: key.account_id,
        key_id: key.key_id,
    }
}

fn unavailable(reason: impl ToString) -> Refusal {
    Refusal::LedgerUnavailable {
        reason: reason.to_string(),
    }
}

impl Biller {
    /// Starts the writer task on the current tokio runtime.
    pub fn start(store: Store, clock: Arc<dyn Clock>, config: BillerConfig) -> Self {
        let (sender, receiver) = mpsc::channel(config.queue_jobs_max);
        let published = Arc::new(Published::default());
        let health = Arc::new(LedgerHealth::default());
        let writer = Writer {
            health: health.clone(),
            store,
            clock: clock.clone(),
            config,
            accounts: HashMap::new(),
            snapshot_versions: HashMap::new(),
            published: published.clone(),
            jobs: receiver,
            in_flight: FuturesUnordered::new(),
            busy: HashSet::new(),
            answered_last: 0,
        };
        tokio::spawn(writer.run());
        Biller {
            jobs: sender,
            published,
            unknown: Arc::new(UnknownAccounts::default()),
            clock,
            health,
        }
    }

    /// Whether the database answered lately: `Err(reason)` while calls fail fast.
    pub fn health(&self) -> &LedgerHealth {
        &self.health
    }

    /// Identifies the caller of `raw_key` from the cached account, in constant time. A key
    /// unknown or not live in the cache is checked again against the stream before it is
    /// refused. A revocation made elsewhere a moment ago is caught by [`Biller::charge`]
    /// (its versioned append fails, it catches up and refuses); unbilled calls that must
    /// see it use [`Biller::authenticate_fresh`].
    #[tracing::instrument(skip_all)]
    pub async fn authenticate(&self, raw_key: &str) -> Result<Caller, AuthError> {
        let key = ApiKey::parse(raw_key).map_err(|_| AuthError::Malformed)?;
        if let Some(account) = self.cached(key.account_id)
            && account.check_key(&key, self.clock.now()).is_ok()
        {
            return Ok(caller_of(&key));
        }
        self.check_against_stream(&key).await
    }

    /// Like [`Biller::authenticate`], but always against the end of the account's stream.
    #[tracing::instrument(skip_all)]
    pub async fn authenticate_fresh(&self, raw_key: &str) -> Result<Caller, AuthError> {
        let key = ApiKey::parse(raw_key).map_err(|_| AuthError::Malformed)?;
        self.check_against_stream(&key).await
    }

    /// The caller of a key known by its id alone (an OAuth grant's key, after its
    /// access token was checked), against the end of the account's stream.
    pub async fn authenticate_key_id(
        &self,
        account_id: Uuid,
        key_id: Uuid,
    ) -> Result<Caller, AuthError> {
        let account = self
            .account(account_id)
            .await
            .map_err(AuthError::from)?
            .ok_or(AuthError::Unknown)?;
        let key = account.keys.get(&key_id).ok_or(AuthError::Unknown)?;
        key.check_live(self.clock.now())?;
        Ok(Caller { account_id, key_id })
    }

    /// An account id found absent is remembered ([`UnknownAccounts`]): the next key
    /// naming it is refused without a database read.
    async fn check_against_stream(&self, key: &ApiKey) -> Result<Caller, AuthError> {
        if self.unknown.contains(key.account_id) {
            return Err(AuthError::Unknown);
        }
        let account = self
            .account(key.account_id)
            .await
            .map_err(AuthError::from)?;
        let Some(account) = account else {
            self.unknown.insert(key.account_id);
            return Err(AuthError::Unknown);
        };
        account.check_key(key, self.clock.now())?;
        Ok(caller_of(key))
    }

    /// Debits one call, durably, or says why not.
    pub async fn charge(
        &self,
        caller: &Caller,
        request: ChargeRequest,
    ) -> Result<Receipt, Refusal> {
        self.charge_with_ticket(caller, request, ChargeTicket::new())
            .await
    }

    /// Like [`Biller::charge`], for a request that may give up: the charge is written
    /// only if the biller claims `ticket` before the request abandons it.
    #[tracing::instrument(skip(self, request, ticket), fields(account = %caller.account_id))]
    pub async fn charge_with_ticket(
        &self,
        caller: &Caller,
        request: ChargeRequest,
        ticket: ChargeTicket,
    ) -> Result<Receipt, Refusal> {
        self.submit(caller, request, ticket, None).await
    }

    /// Like [`Biller::charge_with_ticket`], appending `claim` in the same transaction as
    /// the charge: both are written or neither. A claim whose stream is not at the version
    /// it expects is refused with [`Refusal::ClaimTaken`] and nothing is charged.
    #[tracing::instrument(skip(self, request, ticket, claim), fields(account = %caller.account_id))]
    pub async fn charge_with_claim(
        &self,
        caller: &Caller,
        request: ChargeRequest,
        ticket: ChargeTicket,
        claim: StreamAppend,
    ) -> Result<Receipt, Refusal> {
        self.submit(caller, request, ticket, Some(Box::new(claim)))
            .await
    }

    async fn submit(
        &self,
        caller: &Caller,
        request: ChargeRequest,
        ticket: ChargeTicket,
        attached: Option<Box<StreamAppend>>,
    ) -> Result<Receipt, Refusal> {
        self.health.check().map_err(unavailable)?;
        let (reply, answer) = oneshot::channel();
        let job = ChargeJob {
            caller: *caller,
            request,
            reply,
            ticket,
            attached,
            stage: Stage::Fresh,
            attempts: 0,
        };
        self.jobs
            .send(Job::Charge(job))
            .await
            .map_err(|_| unavailable("the ledger writer has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the ledger writer has stopped"))?
    }

    /// The account caught up with its stream (None when it was never opened).
    pub async fn account(&self, account_id: Uuid) -> Result<Option<Arc<Account>>, Refusal> {
        self.health.check().map_err(unavailable)?;
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Refresh { account_id, reply })
            .await
            .map_err(|_| unavailable("the ledger writer has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the ledger writer has stopped"))?
            .map_err(unavailable)
    }

    fn cached(&self, account_id: Uuid) -> Option<Arc<Account>> {
        let published = self.published.read().unwrap_or_else(|p| p.into_inner());
        published.get(&account_id).cloned()
    }
}

struct Writer {
    health: Arc<LedgerHealth>,
    store: Store,
    clock: Arc<dyn Clock>,
    config: BillerConfig,
    accounts: HashMap<Uuid, Account>,
    snapshot_versions: HashMap<Uuid, i64>,
    published: Arc<Published>,
    jobs: mpsc::Receiver<Job>,
    in_flight: FuturesUnordered<Committing>,
    /// Accounts of the batches in flight.
    busy: HashSet<Uuid>,
    /// Charges in the last batch that finished.
    answered_last: usize,
}

/// A batch whose append is under way, with everything needed to answer it.
type Committing = Pin<Box<dyn Future<Output = (Launched, Result<BatchResult, StoreError>)> + Send>>;

struct Launched {
    staged: Vec<Staged>,
    /// Each touched account as it was before this batch.
    originals: HashMap<Uuid, Account>,
    started: Instant,
}

/// A charge decided in this batch, waiting for the commit.
struct Staged {
    job: ChargeJob,
    receipt: Receipt,
}

impl Writer {
    async fn run(mut self) {
        let mut pending: Vec<Job> = Vec::new();
        let mut open = true;
        loop {
            if pending.is_empty() && self.in_flight.is_empty() {
                if !open {
                    return;
                }
                match self.jobs.recv().await {
                    Some(job) => pending.push(job),
                    None => return,
                }
            }
            while open && pending.len() < self.config.batch_charges_max {
                match self.jobs.try_recv() {
                    Ok(job) => pending.push(job),
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => open = false,
                }
            }
            if open && self.in_flight.is_empty() && pending.len() < self.answered_last {
                open = self.linger(&mut pending).await;
            }
            if self.in_flight.len() < self.config.batches_in_flight_max {
                let (ready, waiting): (Vec<Job>, Vec<Job>) = pending
                    .into_iter()
                    .partition(|job| !self.busy.contains(&job.account_id()));
                pending = waiting;
                if !ready.is_empty() {
                    let carried = self.process(ready).await;
                    pending.extend(carried.into_iter().map(Job::Charge));
                    continue;
                }
            }
            // Nothing can start: wait for a batch to finish or, with room, for new work.
            let room = self.in_flight.len() < self.config.batches_in_flight_max;
            tokio::select! {
                Some((launched, appended)) = self.in_flight.next(), if !self.in_flight.is_empty() => {
                    let carried = self.finish(launched, appended).await;
                    pending.extend(carried.into_iter().map(Job::Charge));
                }
                job = self.jobs.recv(), if room && open => match job {
                    Some(job) => pending.push(job),
                    None => open = false,
                },
                else => {}
            }
        }
    }

    /// Group commit: the callers just answered usually call again within a fraction of
    /// a millisecond, and a batch that waits for them shares one fsync with them instead
    /// of leaving them for the next commit. So while fewer charges are queued than the
    /// last batch answered, wait for more, at most [`BillerConfig::linger`]. A lone caller
    /// (last batch of one) never waits. Returns false once the queue has closed.
    async fn linger(&mut self, pending: &mut Vec<Job>) -> bool {
        let deadline = tokio::time::Instant::now() + self.config.linger;
        while pending.len() < self.answered_last {
            match tokio::time::timeout_at(deadline, self.jobs.recv()).await {
                Ok(Some(job)) => pending.push(job),
                Ok(None) => return false,
                Err(_) => break,
            }
        }
        true
    }

    /// One round: catch up where needed, decide, launch the append. Returns the charges
    /// to decide again in the next round.
    async fn process(&mut self, jobs: Vec<Job>) -> Vec<ChargeJob> {
        if let Err(reason) = self.health.check() {
            // Nothing is tried while the database is down: each job hears it at once.
            for job in jobs {
                match job {
                    Job::Charge(charge) => {
                        let _ = charge.reply.send(Err(unavailable(&reason)));
                    }
                    Job::Refresh { reply, .. } => {
                        let _ = reply.send(Err(reason.clone()));
                    }
                }
            }
            return Vec::new();
        }
        let mut charges = Vec::new();
        let mut refreshed = HashSet::new();
        for job in jobs {
            match job {
                Job::Charge(charge) => charges.push(charge),
                Job::Refresh { account_id, reply } => {
                    let result = self.refresh(account_id, &mut refreshed).await;
                    let _ = reply.send(result.map_err(|e| e.to_string()));
                }
            }
        }
        let charges = self.prepare(charges, &mut refreshed).await;
        let mut originals = HashMap::new();
        let mut carried = Vec::new();
        let mut staged = Vec::new();
        let mut commands = Vec::new();
        let now = self.clock.now();
        for job in charges {
            let Some(account) = self.accounts.get_mut(&job.caller.account_id) else {
                let _ = job.reply.send(Err(Refusal::UnknownKey));
                continue;
            };
            let decision = account.decide_charge(job.caller.key_id, &job.request, now);
            match decision {
                Ok(_) if !claim(&job) => {
                    let _ = job.reply.send(Err(Refusal::Abandoned));
                }
                Ok(event) => {
                    originals
                        .entry(account.id)
                        .or_insert_with(|| account.clone());
                    let command = stage_charge(account, &job, event, now);
                    staged.push(Staged {
                        receipt: command.1,
                        job,
                    });
                    commands.push(command.0);
                }
                // The same request under the same idempotency key, staged earlier in this
                // very batch: answer it once that charge has committed (or, should the
                // batch fail, decide it afresh).
                Err(Refusal::AlreadyCharged { version, .. })
                    if originals
                        .get(&account.id)
                        .is_some_and(|original: &Account| version > original.version) =>
                {
                    carried.push(job);
                }
                Err(refusal) if refusal.may_be_stale() && job.stage != Stage::CaughtUp => {
                    carried.push(ChargeJob {
                        stage: Stage::NeedsCatchUp,
                        ..job
                    });
                }
                Err(refusal) => {
                    let _ = job.reply.send(Err(refusal));
                }
            }
        }
        if !commands.is_empty() {
            self.busy.extend(originals.keys().copied());
            let store = self.store.clone();
            let launched = Launched {
                staged,
                originals,
                started: Instant::now(),
            };
            self.in_flight.push(Box::pin(async move {
                let appended = store.append_batch(commands).await;
                (launched, appended)
            }));
        }
        carried
    }

    /// Loads missing accounts and catches up those whose charges asked for it.
    async fn prepare(
        &mut self,
        charges: Vec<ChargeJob>,
        refreshed: &mut HashSet<Uuid>,
    ) -> Vec<ChargeJob> {
        let mut ready = Vec::with_capacity(charges.len());
        for mut job in charges {
            let account_id = job.caller.account_id;
            let must_refresh =
                job.stage == Stage::NeedsCatchUp || !self.accounts.contains_key(&account_id);
            if must_refresh {
                if let Err(error) = self.refresh(account_id, refreshed).await {
                    let _ = job.reply.send(Err(unavailable(error)));
                    continue;
                }
                job.stage = Stage::CaughtUp;
            }
            ready.push(job);
        }
        ready
    }

    /// Brings one account up to the end of its stream, once per round.
    async fn refresh(
        &mut self,
        account_id: Uuid,
        refreshed: &mut HashSet<Uuid>,
    ) -> Result<Option<Arc<Account>>, crate::store::StoreError> {
        if refreshed.insert(account_id) {
            self.health.check().map_err(StoreError::Unavailable)?;
            match self.accounts.get_mut(&account_id) {
                Some(account) => {
                    let caught_up = catch_up(&self.store, account).await;
                    self.health.record(&caught_up);
                    caught_up?;
                }
                None => {
                    let loaded = load_account(&self.store, account_id).await;
                    self.health.record(&loaded);
                    let account = loaded?;
                    self.snapshot_versions.insert(account_id, account.version);
                    if account.is_open() {
                        self.evict_if_full();
                        self.accounts.insert(account_id, account);
                    }
                }
            }
            self.publish(account_id);
        }
        Ok(self.accounts.get(&account_id).cloned().map(Arc::new))
    }

    /// Answers a batch whose append has finished; returns the charges to decide again.
    async fn finish(
        &mut self,
        launched: Launched,
        appended: Result<BatchResult, StoreError>,
    ) -> Vec<ChargeJob> {
        let Launched {
            staged,
            originals,
            started,
        } = launched;
        tracing::debug!(
            charges = staged.len(),
            elapsed_us = started.elapsed().as_micros() as u64,
            "ledger batch"
        );
        let touched: Vec<Uuid> = originals.keys().copied().collect();
        self.answered_last = staged.len();
        self.health.record(&appended);
        let mut carried = Vec::new();
        match appended {
            Ok(results) => {
                let mut conflicted = HashSet::new();
                for (staged, result) in staged.into_iter().zip(results) {
                    match result {
                        Ok(_) => {
                            debug_assert!(staged.receipt.balance_after >= 0);
                            let _ = staged.job.reply.send(Ok(staged.receipt));
                        }
                        Err(AppendRejection::WrongVersion { stream, .. })
                            if staged
                                .job
                                .attached
                                .as_ref()
                                .is_some_and(|claim| claim.stream == stream) =>
                        {
                            conflicted.insert(staged.job.caller.account_id);
                            let _ = staged.job.reply.send(Err(Refusal::ClaimTaken));
                        }
                        Err(_) => {
                            conflicted.insert(staged.job.caller.account_id);
                            self.retry_later(staged.job, &mut carried);
                        }
                    }
                }
                // The batch's own committed events come back with the next catch-up.
                for (account_id, original) in originals {
                    if conflicted.contains(&account_id) {
                        self.accounts.insert(account_id, original);
                    }
                }
            }
            Err(error) => {
                if error.is_before_write() {
                    tracing::error!(%error, "ledger batch not written");
                    for staged in staged {
                        let _ = staged.job.reply.send(Err(unavailable(&error)));
                    }
                } else {
                    tracing::error!(%error, "ledger batch failed");
                    self.settle_failed_batch(staged, &originals, &error).await;
                }
                // Whatever did commit comes back with the next catch-up.
                self.accounts.extend(originals);
            }
        }
        for account_id in touched {
            self.busy.remove(&account_id);
            self.publish(account_id);
            self.snapshot_if_due(account_id).await;
        }
        carried
    }

    /// A failed append may still have committed (a connection lost during COMMIT), so
    /// each charge is looked up in its stream before it is answered: found, it is served;
    /// absent, nothing was charged; unreadable, the outcome is unknown and the answer
    /// must not claim that nothing was charged.
    async fn settle_failed_batch(
        &mut self,
        staged: Vec<Staged>,
        originals: &HashMap<Uuid, Account>,
        error: &StoreError,
    ) {
        let mut written: HashMap<Uuid, Result<HashSet<Uuid>, String>> = HashMap::new();
        for (account_id, original) in originals {
            let stream = StreamName::account(*account_id);
            let after = self
                .store
                .read_stream(&stream, original.version + 1, u32::MAX)
                .await
                .map(|events| events.into_iter().map(|event| event.id).collect())
                .map_err(|read_error| read_error.to_string());
            written.insert(*account_id, after);
        }
        for staged in staged {
            let outcome = match written.get(&staged.job.caller.account_id) {
                Some(Ok(ids)) if ids.contains(&staged.receipt.invoice_id) => Ok(staged.receipt),
                Some(Ok(_)) => Err(unavailable(error)),
                Some(Err(read_error)) => Err(Refusal::OutcomeUnknown {
                    reason: format!("{error}; reading it back: {read_error}"),
                }),
                None => Err(Refusal::OutcomeUnknown {
                    reason: error.to_string(),
                }),
            };
            let _ = staged.job.reply.send(outcome);
        }
    }

    fn retry_later(&self, job: ChargeJob, carried: &mut Vec<ChargeJob>) {
        let attempts = job.attempts + 1;
        if attempts >= self.config.charge_attempts_max {
            let _ = job
                .reply
                .send(Err(unavailable("too much contention on the account")));
            return;
        }
        carried.push(ChargeJob {
            stage: Stage::NeedsCatchUp,
            attempts,
            ..job
        });
    }

    fn publish(&self, account_id: Uuid) {
        let mut published = self.published.write().unwrap_or_else(|p| p.into_inner());
        match self.accounts.get(&account_id) {
            Some(account) => published.insert(account_id, Arc::new(account.clone())),
            None => published.remove(&account_id),
        };
    }

    fn evict_if_full(&mut self) {
        if self.accounts.len() < self.config.accounts_cached_max {
            return;
        }
        // Any entry will do: an evicted account is simply loaded again from its snapshot.
        if let Some(victim) = self.accounts.keys().next().copied() {
            self.accounts.remove(&victim);
            self.snapshot_versions.remove(&victim);
            self.publish(victim);
        }
    }

    async fn snapshot_if_due(&mut self, account_id: Uuid) {
        let Some(account) = self.accounts.get(&account_id) else {
            return;
        };
        let last = self
            .snapshot_versions
            .get(&account_id)
            .copied()
            .unwrap_or(-1);
        if account.version - last < self.config.snapshot_every_events {
            return;
        }
        // A failed snapshot only makes a later cold load replay more; the charge stands.
        match save_snapshot(&self.store, account).await {
            Ok(()) => {
                self.snapshot_versions.insert(account_id, account.version);
            }
            Err(error) => tracing::warn!(%error, "could not save an account snapshot"),
        }
    }
}

/// Claims a decided charge for its batch. A request that is gone (its receiver dropped)
/// gives its ticket up first, so a client that left is not charged either.
fn claim(job: &ChargeJob) -> bool {
    if job.reply.is_closed() {
        job.ticket.abandon();
    }
    job.ticket.claim()
}

/// Applies a decided charge to the in-memory account and builds its append.
fn stage_charge(
    account: &mut Account,
    job: &ChargeJob,
    event: manabi_schemas::events::LedgerEvent,
    now: chrono::DateTime<chrono::Utc>,
) -> (AppendCommand, Receipt) {
    let metadata = EventMetadata {
        request_id: Some(job.request.request_id.clone()),
        key_id: Some(job.caller.key_id),
        transport: Some(job.request.transport),
        actor: None,
    };
    let expected = ExpectedVersion::Exact(account.version);
    account.apply(&event, account.version + 1);
    assert!(account.balance >= 0, "a staged charge never overdraws");
    let new_event = NewEvent::new(event, metadata, now);
    let receipt = Receipt {
        invoice_id: new_event.id,
        points_charged: job.request.points.get(),
        balance_after: account.balance,
    };
    let mut command =
        AppendCommand::single(StreamName::account(account.id), expected, vec![new_event]);
    command
        .appends
        .extend(job.attached.iter().map(|claim| StreamAppend::clone(claim)));
    (command, receipt)
}
