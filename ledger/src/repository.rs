//! Loading Account aggregates: the latest snapshot plus the tail of the stream.

use uuid::Uuid;

use crate::account::{Account, SNAPSHOT_FORMAT};
use crate::store::{EventStore, Snapshot, Store, StoreError, StreamName};

/// Events folded between two snapshots of one account.
pub const SNAPSHOT_EVERY_EVENTS: i64 = 1_000;
const TAIL_PAGE_EVENTS_MAX: u32 = 5_000;

/// The account as of the end of its stream (`is_open()` is false when it has none).
pub async fn load_account(store: &Store, account_id: Uuid) -> Result<Account, StoreError> {
    let stream = StreamName::account(account_id);
    let mut account = match store.load_snapshot(&stream).await? {
        Some(snapshot) if stream_reaches(store, &stream, snapshot.version).await? => {
            from_snapshot(account_id, snapshot)
        }
        Some(snapshot) => {
            tracing::warn!(
                %account_id,
                snapshot_version = snapshot.version,
                "account snapshot is ahead of its stream; replaying the stream instead"
            );
            Account::empty(account_id)
        }
        None => Account::empty(account_id),
    };
    catch_up(store, &mut account).await?;
    Ok(account)
}

/// Whether the stream holds an event at `version`: a snapshot claiming a version the
/// stream never reached (a restore of the events older than the snapshots, a bug) would
/// otherwise hide the real state and make every versioned append conflict.
async fn stream_reaches(
    store: &Store,
    stream: &StreamName,
    version: i64,
) -> Result<bool, StoreError> {
    if version < 0 {
        return Ok(true);
    }
    let at = store.read_stream(stream, version, 1).await?;
    Ok(at
        .first()
        .is_some_and(|recorded| recorded.version == version))
}

/// A snapshot of another format, or of another account, is ignored: replay from zero.
fn from_snapshot(account_id: Uuid, snapshot: Snapshot) -> Account {
    if snapshot.format != SNAPSHOT_FORMAT {
        return Account::empty(account_id);
    }
    match serde_json::from_value::<Account>(snapshot.state) {
        Ok(account) if account.id == account_id && account.version == snapshot.version => account,
        _ => Account::empty(account_id),
    }
}

/// Folds the events appended after `account.version`; returns how many.
pub async fn catch_up(store: &Store, account: &mut Account) -> Result<usize, StoreError> {
    let stream = StreamName::account(account.id);
    let mut folded = 0;
    loop {
        let page = store
            .read_stream(&stream, account.version + 1, TAIL_PAGE_EVENTS_MAX)
            .await?;
        for recorded in &page {
            account.apply(&recorded.event, recorded.version);
        }
        folded += page.len();
        if page.len() < TAIL_PAGE_EVENTS_MAX as usize {
            return Ok(folded);
        }
    }
}

/// Saves the folded state so the next cold load starts from here.
pub async fn save_snapshot(store: &Store, account: &Account) -> Result<(), StoreError> {
    let snapshot = Snapshot {
        version: account.version,
        format: SNAPSHOT_FORMAT,
        state: serde_json::to_value(account)?,
    };
    store
        .save_snapshot(&StreamName::account(account.id), &snapshot)
        .await
}
