//! Fail fast while the database does not answer. After a failure that says the database
//! is unreachable (no connection to be had, a connection lost), the biller refuses new
//! work at once for [`COOL_DOWN_MS`] instead of letting every call wait for its own
//! connection timeout; the first call after the pause probes the database again, and a
//! success closes the circuit. Nothing here ever writes: a refusal charges nothing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::store::StoreError;

/// How long calls are refused after the database failed to answer, in milliseconds.
pub const COOL_DOWN_MS: u64 = 1_000;

/// Whether the database answered lately; shared by the biller and its handles.
#[derive(Debug, Default)]
pub struct LedgerHealth {
    down_until_ms: AtomicU64,
    reason: Mutex<String>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

impl LedgerHealth {
    /// `Err(reason)` while the circuit is open.
    pub fn check(&self) -> Result<(), String> {
        if now_ms() < self.down_until_ms.load(Ordering::Acquire) {
            let reason = self.reason.lock().map(|r| r.clone()).unwrap_or_default();
            return Err(format!(
                "the ledger database did not answer a moment ago: {reason}"
            ));
        }
        Ok(())
    }

    /// Notes the outcome of a database call: an unreachable database opens the circuit.
    pub fn record<T>(&self, outcome: &Result<T, StoreError>) {
        match outcome {
            Ok(_) => self.down_until_ms.store(0, Ordering::Release),
            Err(error) if error.is_unreachable() => {
                if let Ok(mut reason) = self.reason.lock() {
                    *reason = error.to_string();
                }
                self.down_until_ms
                    .store(now_ms() + COOL_DOWN_MS, Ordering::Release);
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_database_opens_the_circuit_and_a_success_closes_it() {
        let health = LedgerHealth::default();
        assert!(health.check().is_ok());
        let down: Result<(), StoreError> = Err(StoreError::Database(sqlx::Error::PoolTimedOut));
        health.record(&down);
        assert!(health.check().is_err());
        health.record(&Ok::<(), StoreError>(()));
        assert!(health.check().is_ok());
        let refused: Result<(), StoreError> = Err(StoreError::UnsupportedUrl("mysql://".into()));
        health.record(&refused);
        assert!(
            health.check().is_ok(),
            "only an unreachable database opens it"
        );
    }
}
