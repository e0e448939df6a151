//! A lock shared by every replica on the same database, held while one replica does work
//! that must happen once (generating a locale version of an entry).
//!
//! On PostgreSQL it is a transaction-level advisory lock: taken inside a transaction the
//! guard keeps open, released when the guard ends the transaction — or when the replica
//! dies and its connection goes, so a crashed holder never blocks the others for longer
//! than the server takes to notice. SQLite serves one process, whose callers are already
//! serialised in memory, so there the guard holds nothing.

use std::time::Duration;

use sqlx::{Postgres, Transaction};
use xxhash_rust::xxh3::xxh3_64;

use super::{Store, StoreError};

/// How often a waiting replica asks for the lock again.
const RETRY_EVERY: Duration = Duration::from_millis(20);

/// Holds the lock until dropped or [`Lease::release`]d.
pub struct Lease {
    transaction: Option<Transaction<'static, Postgres>>,
}

impl Lease {
    /// Ends the transaction, and with it the lock.
    pub async fn release(mut self) {
        if let Some(transaction) = self.transaction.take() {
            // A failed rollback leaves the lock to the connection's end: same outcome.
            let _ = transaction.rollback().await;
        }
    }
}

impl Store {
    /// Takes the lock named `name`, waiting at most `wait`; `Ok(None)` when it stayed
    /// taken that long.
    pub async fn lease(&self, name: &str, wait: Duration) -> Result<Option<Lease>, StoreError> {
        let Store::Postgres(store) = self else {
            return Ok(Some(Lease { transaction: None }));
        };
        // Advisory locks are named by a 64-bit number; a hash collision only makes two
        // names wait for each other.
        let id = xxh3_64(name.as_bytes()) as i64;
        let deadline = tokio::time::Instant::now() + wait;
        let mut transaction = store.pool().begin().await?;
        loop {
            let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_xact_lock($1)")
                .bind(id)
                .fetch_one(&mut *transaction)
                .await?;
            if taken {
                return Ok(Some(Lease {
                    transaction: Some(transaction),
                }));
            }
            if tokio::time::Instant::now() + RETRY_EVERY > deadline {
                return Ok(None);
            }
            tokio::time::sleep(RETRY_EVERY).await;
        }
    }
}
