//! manabi's ledger projector: follows the ledger's global order from a checkpoint and
//! keeps the read models (balances, API-key index, daily usage, charges, statements) in
//! SQL, moving the checkpoint in the same transaction as the changes it covers.

pub mod projection;
pub mod queries;
mod sql;
pub mod verify;

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use manabi_ledger::{EventStore, Position, Store, StoreError};

use crate::sql::{Statement, Value, WriteTx};

pub const BATCH_EVENTS_DEFAULT: u32 = 1_000;
const IDLE_POLL_MS: u64 = 100;
const ERROR_BACKOFF_MS: u64 = 1_000;

#[derive(Debug, thiserror::Error)]
pub enum ProjectorError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("read-model database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("read-model migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// The projector over one ledger store; its read models live in the same database.
#[derive(Debug, Clone)]
pub struct Projector {
    store: Store,
    batch_events_max: u32,
}

impl Projector {
    /// Runs the read-model migrations and returns a projector.
    pub async fn new(store: Store) -> Result<Self, ProjectorError> {
        migrate(&store).await?;
        Ok(Projector {
            store,
            batch_events_max: BATCH_EVENTS_DEFAULT,
        })
    }

    pub fn with_batch_events_max(mut self, batch_events_max: u32) -> Self {
        self.batch_events_max = batch_events_max.max(1);
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Projects at most one batch; returns how many events it covered (0: caught up).
    ///
    /// The events are read and turned into statements before the write transaction
    /// begins, so the write lock (on SQLite, the one writer the charges also need) is
    /// held only for the writes. If another projector moved the checkpoint meanwhile, the
    /// work is thrown away and done again from the new checkpoint.
    #[tracing::instrument(skip(self))]
    pub async fn run_once(&self) -> Result<usize, ProjectorError> {
        self.run_batch(self.batch_events_max).await
    }

    /// Projects at most `events_max` events after the checkpoint, in one transaction.
    async fn run_batch(&self, events_max: u32) -> Result<usize, ProjectorError> {
        loop {
            let after = checkpoint(&self.store).await?;
            let events = self.store.read_all_after(after, events_max).await?;
            let Some(last) = events.last().map(|e| e.position) else {
                return Ok(0);
            };
            assert!(last > after, "the checkpoint only moves forward");
            let statements = projection::statements(&events);
            let started = std::time::Instant::now();
            let mut tx = WriteTx::begin_exclusive(&self.store).await?;
            let (transaction_id, global_position) = tx.checkpoint().await?;
            let current = Position {
                transaction_id,
                global_position,
            };
            if current != after {
                tracing::debug!(?current, ?after, "another projector moved the checkpoint");
                continue;
            }
            for statement in &statements {
                tx.execute(statement).await?;
            }
            tx.execute(&Statement::new(
                "UPDATE rm_checkpoint SET transaction_id = $1, global_position = $2 \
                 WHERE name = 'read_models'",
                vec![
                    Value::Int(last.transaction_id),
                    Value::Int(last.global_position),
                ],
            ))
            .await?;
            tx.commit().await?;
            tracing::debug!(
                events = events.len(),
                statements = statements.len(),
                write_us = started.elapsed().as_micros() as u64,
                "read models projected"
            );
            return Ok(events.len());
        }
    }

    /// Projects until no event is left; returns how many it covered.
    pub async fn catch_up(&self) -> Result<usize, ProjectorError> {
        let mut total = 0;
        loop {
            match self.run_once().await? {
                0 => return Ok(total),
                n => total += n,
            }
        }
    }

    /// Follows the ledger until `shutdown` completes, or until an event cannot be
    /// projected; then says which.
    pub async fn run_until(&self, shutdown: impl Future<Output = ()>) -> Result<(), Stopped> {
        tokio::select! {
            stopped = self.follow() => Err(stopped),
            () = shutdown => Ok(()),
        }
    }

    /// Projects until an event cannot be. A failing batch is retried one event at a
    /// time: a lost connection is retried after a pause, but an event the read models
    /// refuse whatever the retry (a value out of range, a constraint) stops the
    /// projector with that event named, instead of being retried forever while every
    /// account's invoice lines and statements freeze behind it.
    async fn follow(&self) -> Stopped {
        loop {
            // Only a full batch means more is waiting: after a partial one, let events
            // gather, so that under load each commit (an fsync, and on SQLite a turn of
            // the one writer the charges also need) covers many of them.
            let pause_ms = match self.run_once().await {
                Ok(n) if n >= self.batch_events_max as usize => 0,
                Ok(_) => IDLE_POLL_MS,
                Err(error) if is_transient(&error) => {
                    tracing::warn!(%error, "projector batch failed; retrying");
                    ERROR_BACKOFF_MS
                }
                Err(batch_error) => match self.run_batch(1).await {
                    Ok(_) => 0,
                    Err(error) if is_transient(&error) => ERROR_BACKOFF_MS,
                    Err(error) => return self.stopped_by(&error, &batch_error).await,
                },
            };
            if pause_ms > 0 {
                tokio::time::sleep(Duration::from_millis(pause_ms)).await;
            }
        }
    }

    async fn stopped_by(&self, error: &ProjectorError, batch_error: &ProjectorError) -> Stopped {
        let next = match checkpoint(&self.store).await {
            Ok(after) => self.store.read_all_after(after, 1).await.ok(),
            Err(_) => None,
        };
        let reason = match next.and_then(|events| events.into_iter().next()) {
            Some(event) => format!(
                "event {} ({}, stream {}, position {:?}) cannot be projected: {error}",
                event.id,
                event.event.event_type(),
                event.stream,
                event.position,
            ),
            None => format!("a batch cannot be projected: {batch_error}"),
        };
        tracing::error!(reason, "the read-model projector stopped");
        Stopped { reason }
    }
}

/// Why the projector stopped following the ledger.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the read-model projector stopped: {reason}")]
pub struct Stopped {
    pub reason: String,
}

/// Whether the projector task of this process still follows the ledger.
#[derive(Debug, Clone, Default)]
pub struct ProjectorHealth(Arc<OnceLock<Stopped>>);

impl ProjectorHealth {
    /// `None` while projecting; why it stopped otherwise.
    pub fn stopped(&self) -> Option<&Stopped> {
        self.0.get()
    }
}

/// Runs the projector as a task of the current runtime (`manabi serve` on the embedded
/// default); an interrupted batch is rolled back whole. The health says if it stops.
pub fn spawn(projector: Projector) -> ProjectorHealth {
    let health = ProjectorHealth::default();
    let recorded = health.clone();
    tokio::spawn(async move {
        let stopped = projector.follow().await;
        let _ = recorded.0.set(stopped);
    });
    health
}

/// Errors a retry may cure: the database was unreachable or busy, the data not wrong.
fn is_transient(error: &ProjectorError) -> bool {
    let sqlx_error = match error {
        ProjectorError::Database(error) | ProjectorError::Store(StoreError::Database(error)) => {
            error
        }
        _ => return false,
    };
    // Beyond an unreachable database, what a retry may cure: transaction rollbacks such
    // as deadlocks (SQLSTATE 40), insufficient resources (53); SQLite's busy and locked
    // codes (5, 6).
    manabi_ledger::store::is_unreachable(sqlx_error)
        || matches!(sqlx_error, sqlx::Error::Database(database)
        if database.code().is_some_and(|code| {
            code.starts_with("40") || code.starts_with("53") || code == "5" || code == "6"
        }))
}

async fn migrate(store: &Store) -> Result<(), ProjectorError> {
    match store {
        Store::Sqlite(s) => {
            // The read models have a file of their own on SQLite.
            let mut migrator = sqlx::migrate!("./migrations/sqlite");
            migrator.set_ignore_missing(true);
            migrator.run(s.read_models_writer()).await?;
        }
        Store::Postgres(s) => {
            let mut migrator = sqlx::migrate!("./migrations/postgres");
            migrator.set_ignore_missing(true);
            migrator.run(s.pool()).await?;
        }
    }
    Ok(())
}

/// Where the read models are in the global order.
pub async fn checkpoint(store: &Store) -> Result<Position, ProjectorError> {
    let rows = sql::fetch_all!(
        store,
        (i64, i64),
        "SELECT transaction_id, global_position FROM rm_checkpoint WHERE name = 'read_models'"
    )?;
    let (transaction_id, global_position) = rows.first().copied().unwrap_or((0, 0));
    Ok(Position {
        transaction_id,
        global_position,
    })
}
