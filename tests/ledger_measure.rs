//! Measurements, ignored by default (they take tens of seconds):
//!
//! `cargo test -p manabi --test ledger_measure -- --ignored --nocapture --test-threads 1`
//!
//! - cold-loading an account with 1,000,000 events, by full replay and by snapshot + tail;
//! - Biller throughput: 64 concurrent callers over 100 accounts, 1 point per call.

use manabi_tests::ledger as support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use manabi_ledger::repository::{load_account, save_snapshot};
use manabi_ledger::store::{AppendCommand, ExpectedVersion, NewEvent};
use manabi_ledger::{EventStore, Store, StreamName};
use manabi_schemas::events::{CallCharged, EventMetadata, LedgerEvent, Transport};
use support::{Backend, biller, caller, fresh_db, funded_account, read_request, store};
use uuid::Uuid;

const EVENTS: i64 = 1_000_000;
const CHUNK_EVENTS: i64 = 10_000;
const TAIL_EVENTS: i64 = 999;

fn charge_event(key_id: Uuid) -> NewEvent {
    let event = LedgerEvent::CallCharged(CallCharged {
        key_id,
        operation: "getLearnable".into(),
        resource_id: Some("kanji-1".into()),
        points: 1,
        price_list_version: 1,
        day: Utc::now().date_naive(),
        request_id: Uuid::now_v7().to_string(),
        transport: Transport::Rest,
        idempotency: None,
    });
    NewEvent::new(event, EventMetadata::default(), Utc::now())
}

async fn append_charges(store: &Store, account_id: Uuid, key_id: Uuid, count: i64) {
    let stream = StreamName::account(account_id);
    let mut left = count;
    while left > 0 {
        let n = left.min(CHUNK_EVENTS);
        let events = (0..n).map(|_| charge_event(key_id)).collect();
        let command = AppendCommand::single(stream.clone(), ExpectedVersion::Any, events);
        store
            .append(command)
            .await
            .expect("answers")
            .expect("appended");
        left -= n;
    }
}

async fn cold_load(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 2 * EVENTS).await;
    let started = Instant::now();
    append_charges(
        &store,
        funded.account_id,
        funded.key_id,
        EVENTS - TAIL_EVENTS,
    )
    .await;
    println!(
        "{backend:?}: appended {} events in {:?}",
        EVENTS - TAIL_EVENTS,
        started.elapsed()
    );

    let started = Instant::now();
    let replayed = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    let full = started.elapsed();
    save_snapshot(&store, &replayed).await.expect("snapshot");
    append_charges(&store, funded.account_id, funded.key_id, TAIL_EVENTS).await;

    let started = Instant::now();
    let loaded = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    let with_snapshot = started.elapsed();
    assert_eq!(loaded.balance, 2 * EVENTS - EVENTS);
    assert!(loaded.version >= EVENTS);
    println!(
        "{backend:?}: cold load of {} events: full replay {full:?}; \
         snapshot + {TAIL_EVENTS}-event tail {with_snapshot:?}",
        loaded.version + 1
    );
    let tail = store
        .read_stream(
            &StreamName::account(funded.account_id),
            replayed.version + 1,
            10_000,
        )
        .await
        .expect("reads");
    assert_eq!(tail.len() as i64, TAIL_EVENTS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: a million events"]
async fn cold_load_a_million_events_sqlite() {
    cold_load(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: a million events"]
async fn cold_load_a_million_events_postgres() {
    cold_load(Backend::Postgres).await;
}

async fn throughput(backend: Backend) {
    const ACCOUNTS: usize = 100;
    const CALLERS: usize = 64;
    const SECONDS: u64 = 10;
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let biller = biller(store.clone());
    let mut callers = Vec::new();
    for _ in 0..ACCOUNTS {
        let funded = funded_account(&store, 10_000_000).await;
        callers.push(caller(&biller, &funded).await);
    }
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let tasks = (0..CALLERS).map(|n| {
        let (biller, done) = (biller.clone(), done.clone());
        let callers = callers.clone();
        tokio::spawn(async move {
            let mut i = n;
            while Instant::now() < deadline {
                let caller = callers[i % ACCOUNTS];
                biller
                    .charge(&caller, read_request(i))
                    .await
                    .expect("charged");
                done.fetch_add(1, Ordering::Relaxed);
                i += CALLERS;
            }
        })
    });
    futures::future::join_all(tasks).await;
    let charges = done.load(Ordering::Relaxed);
    println!(
        "{backend:?}: {charges} charges in {SECONDS} s by {CALLERS} callers over {ACCOUNTS} \
         accounts = {} charges/s",
        charges / SECONDS
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: ten seconds of load"]
async fn biller_throughput_sqlite() {
    throughput(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: ten seconds of load"]
async fn biller_throughput_postgres() {
    throughput(Backend::Postgres).await;
}
