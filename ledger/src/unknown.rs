//! Account ids a key named that have no stream: remembered, so a repeated key for an
//! account that does not exist is refused from memory instead of costing a database read
//! on the writer's queue each time.
//!
//! Safe to remember because an account id is made when the account is opened (UUIDv7,
//! 74 random bits): nobody holds a key naming it before it exists, so an id found absent
//! stays absent in practice. The entries still expire after [`UNKNOWN_TTL_SECS`], and at
//! most [`UNKNOWN_ACCOUNTS_MAX`] are kept, so the memory is bounded whatever a flood of
//! made-up keys sends.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

/// Account ids remembered as absent.
pub const UNKNOWN_ACCOUNTS_MAX: usize = 65_536;
/// How long an absent account id is remembered.
pub const UNKNOWN_TTL_SECS: u64 = 300;

#[derive(Debug, Default)]
pub struct UnknownAccounts {
    /// When each id was found absent.
    absent_since: Mutex<HashMap<Uuid, Instant>>,
}

impl UnknownAccounts {
    /// Whether `account_id` was found absent within the last [`UNKNOWN_TTL_SECS`].
    pub fn contains(&self, account_id: Uuid) -> bool {
        let absent_since = self.absent_since.lock().unwrap_or_else(|p| p.into_inner());
        absent_since
            .get(&account_id)
            .is_some_and(|found| found.elapsed() < Duration::from_secs(UNKNOWN_TTL_SECS))
    }

    /// Remembers `account_id` as absent. When full, expired entries go first, then all:
    /// forgetting only costs one database read per id.
    pub fn insert(&self, account_id: Uuid) {
        let mut absent_since = self.absent_since.lock().unwrap_or_else(|p| p.into_inner());
        if absent_since.len() >= UNKNOWN_ACCOUNTS_MAX {
            let ttl = Duration::from_secs(UNKNOWN_TTL_SECS);
            absent_since.retain(|_, found| found.elapsed() < ttl);
            if absent_since.len() >= UNKNOWN_ACCOUNTS_MAX {
                absent_since.clear();
            }
        }
        absent_since.insert(account_id, Instant::now());
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.absent_since
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_ids_are_remembered_within_a_bound() {
        let unknown = UnknownAccounts::default();
        let first = Uuid::now_v7();
        assert!(!unknown.contains(first));
        unknown.insert(first);
        assert!(unknown.contains(first));
        for _ in 0..UNKNOWN_ACCOUNTS_MAX + 10 {
            unknown.insert(Uuid::now_v7());
        }
        assert!(unknown.len() <= UNKNOWN_ACCOUNTS_MAX);
    }
}
