//! The event store's contract, on SQLite and PostgreSQL: conditional appends, atomic
//! multi-stream appends, ordered reads, immutability, idempotent credits.

use manabi_tests::ledger as support;

use chrono::Utc;
use manabi_ledger::account::Points;
use manabi_ledger::operator::{Operator, OperatorError};
use manabi_ledger::repository::load_account;
use manabi_ledger::store::{
    AppendCommand, AppendRejection, ExpectedVersion, NewEvent, RecordedEvent, StreamAppend,
};
use manabi_ledger::{EventStore, Position, Store, StreamName};
use manabi_schemas::events::{ApiKeyRevoked, CreditKind, EventMetadata, LedgerEvent};
use support::{Backend, fresh_db, funded_account, store};
use uuid::Uuid;

fn event() -> NewEvent {
    let event = LedgerEvent::ApiKeyRevoked(ApiKeyRevoked {
        key_id: Uuid::now_v7(),
    });
    NewEvent::new(event, EventMetadata::default(), Utc::now())
}

async fn append(
    store: &Store,
    stream: &StreamName,
    expected: ExpectedVersion,
) -> Result<(), AppendRejection> {
    let command = AppendCommand::single(stream.clone(), expected, vec![event()]);
    store
        .append(command)
        .await
        .expect("store answers")
        .map(|_| ())
}

async fn conditional_appends(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let stream = StreamName::new(format!("pricing-{}", Uuid::now_v7()));
    append(&store, &stream, ExpectedVersion::NoStream)
        .await
        .expect("creates");
    assert_eq!(
        append(&store, &stream, ExpectedVersion::NoStream).await,
        Err(AppendRejection::WrongVersion {
            stream: stream.clone(),
            expected: ExpectedVersion::NoStream,
            actual: Some(0),
        })
    );
    append(&store, &stream, ExpectedVersion::Exact(0))
        .await
        .expect("v1");
    assert!(matches!(
        append(&store, &stream, ExpectedVersion::Exact(0)).await,
        Err(AppendRejection::WrongVersion {
            actual: Some(1),
            ..
        })
    ));
    append(&store, &stream, ExpectedVersion::Any)
        .await
        .expect("any");
    let events = store.read_stream(&stream, 1, 10).await.expect("reads");
    assert_eq!(
        events.iter().map(|e| e.version).collect::<Vec<_>>(),
        vec![1, 2]
    );
}

async fn atomic_multi_stream_appends(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let a = StreamName::new("localization-kanji-1-fr");
    let b = StreamName::new("pricing");
    append(&store, &b, ExpectedVersion::NoStream)
        .await
        .expect("b exists");
    let both = |expected_b| AppendCommand {
        appends: vec![
            StreamAppend {
                stream: a.clone(),
                expected: ExpectedVersion::NoStream,
                events: vec![event()],
            },
            StreamAppend {
                stream: b.clone(),
                expected: expected_b,
                events: vec![event(), event()],
            },
        ],
    };
    let refused = store
        .append(both(ExpectedVersion::NoStream))
        .await
        .expect("answers");
    assert!(refused.is_err());
    assert!(
        store
            .read_stream(&a, 0, 10)
            .await
            .expect("reads")
            .is_empty(),
        "all or nothing"
    );
    let written = store
        .append(both(ExpectedVersion::Exact(0)))
        .await
        .expect("answers");
    assert_eq!(written.expect("accepted").events.len(), 3);
    assert_eq!(store.read_stream(&b, 0, 10).await.expect("reads").len(), 3);
}

async fn batches_check_each_command(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let s = StreamName::new("pricing");
    let single = |expected| AppendCommand::single(s.clone(), expected, vec![event()]);
    let results = store
        .append_batch(vec![
            single(ExpectedVersion::NoStream),
            single(ExpectedVersion::Exact(0)),
            single(ExpectedVersion::Exact(7)),
            single(ExpectedVersion::Exact(2)),
        ])
        .await
        .expect("answers");
    assert!(results[0].is_ok() && results[1].is_ok());
    assert!(matches!(
        results[2],
        Err(AppendRejection::WrongVersion { .. })
    ));
    assert!(matches!(
        results[3],
        Err(AppendRejection::EarlierCommandRejected { .. })
    ));
    let all = read_all_settled(&store, Position::default(), 2).await;
    assert!(all[0].position < all[1].position);
    let rest = read_all_settled(&store, all[0].position, 1).await;
    assert_eq!(rest[0].id, all[1].id);
}

/// Batches of `Exact` appends (charges) on PostgreSQL go in with one statement when every
/// head is where the writer expected it; a stale expectation anywhere sends the batch down
/// the general path, which must give every command the same answer as a lone append
/// would. Same contract on SQLite.
async fn exact_batches_answer_per_command(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let tag = Uuid::now_v7().simple().to_string();
    let a = StreamName::new(format!("pricing-a-{tag}"));
    let b = StreamName::new(format!("pricing-b-{tag}"));
    for stream in [&a, &b] {
        append(&store, stream, ExpectedVersion::NoStream)
            .await
            .expect("creates");
    }
    let exact = |stream: &StreamName, version| {
        AppendCommand::single(
            stream.clone(),
            ExpectedVersion::Exact(version),
            vec![event()],
        )
    };
    // Every head as expected, two commands chained on `a`.
    let results = store
        .append_batch(vec![exact(&a, 0), exact(&b, 0), exact(&a, 1)])
        .await
        .expect("answers");
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let versions = |results: &[Result<manabi_ledger::store::Committed, AppendRejection>]| {
        results
            .iter()
            .map(|r| r.as_ref().ok().map(|c| c.events[0].2))
            .collect::<Vec<_>>()
    };
    assert_eq!(versions(&results), vec![Some(1), Some(1), Some(2)]);
    // `b` is stale (at 1, not 0): its command fails, `a`'s go in.
    let results = store
        .append_batch(vec![exact(&a, 2), exact(&b, 0), exact(&a, 3)])
        .await
        .expect("answers");
    assert_eq!(versions(&results), vec![Some(3), None, Some(4)]);
    assert!(matches!(
        results[1],
        Err(AppendRejection::WrongVersion {
            actual: Some(1),
            ..
        })
    ));
    let heads = |events: Vec<RecordedEvent>| events.last().map(|e| e.version);
    let a_events = store.read_stream(&a, 0, 100).await.expect("reads");
    let b_events = store.read_stream(&b, 0, 100).await.expect("reads");
    assert_eq!(
        a_events.iter().map(|e| e.version).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4]
    );
    assert_eq!(heads(b_events), Some(1));
    // The heads moved with the rows: the next expectations are the new heads.
    let results = store
        .append_batch(vec![exact(&a, 4), exact(&b, 1)])
        .await
        .expect("answers");
    assert_eq!(versions(&results), vec![Some(5), Some(2)]);
}

/// On PostgreSQL the global order shows a commit only once every older transaction of
/// the cluster has ended (other tests run concurrently), so wait for it.
async fn read_all_settled(store: &Store, after: Position, count: usize) -> Vec<RecordedEvent> {
    for _ in 0..200 {
        let events = store.read_all_after(after, 100).await.expect("reads");
        if events.len() >= count {
            assert_eq!(events.len(), count);
            return events;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{count} events never became visible in the global order");
}

async fn events_are_immutable(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    append(&store, &StreamName::new("pricing"), ExpectedVersion::Any)
        .await
        .expect("one");
    let statements = ["UPDATE events SET event_type = 'x'", "DELETE FROM events"];
    for sql in statements {
        let outcome = match &store {
            Store::Sqlite(s) => sqlx::query(sql).execute(s.writer()).await.map(|_| ()),
            Store::Postgres(s) => sqlx::query(sql).execute(s.pool()).await.map(|_| ()),
        };
        let error = outcome.expect_err("the ledger refuses changes");
        assert!(error.to_string().contains("append-only"), "{error}");
    }
}

async fn a_duplicate_top_up_credits_once(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 0).await;
    let points = Points::new(300).expect("positive");
    let credits = (0..8).map(|_| {
        let store = store.clone();
        tokio::spawn(async move {
            let operator = Operator::new(&store);
            operator
                .credit(funded.account_id, CreditKind::Purchase, points, "order-42")
                .await
        })
    });
    let outcomes = futures::future::join_all(credits).await;
    let outcomes: Vec<_> = outcomes
        .into_iter()
        .map(|o| o.expect("task").expect("credit answered"))
        .collect();
    assert_eq!(outcomes.iter().filter(|o| !o.duplicate).count(), 1);
    assert!(outcomes.iter().all(|o| o.event_id == outcomes[0].event_id));
    let account = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    assert_eq!(account.balance, 300);
    let operator = Operator::new(&store);
    let other = Points::new(5).expect("positive");
    let reused = operator
        .credit(funded.account_id, CreditKind::Purchase, other, "order-42")
        .await;
    assert!(matches!(
        reused,
        Err(OperatorError::IdempotencyKeyReused(_))
    ));
}

support::on_both_backends!(
    conditional_appends,
    atomic_multi_stream_appends,
    batches_check_each_command,
    exact_batches_answer_per_command,
    events_are_immutable,
    a_duplicate_top_up_credits_once,
);

/// Under sustained appends the SQLite WAL starts over instead of growing: a passive
/// checkpoint alone never catches up with a busy writer, so SQLite never rewinds the WAL
/// (it grew past a gigabyte in a 30 s benchmark before the writer finished the
/// checkpoints). Appends one event per commit, without pause, until well over the
/// restart threshold's worth of frames has been written, and checks that the WAL file
/// stayed far smaller than everything written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_starts_over_under_sustained_appends() {
    let db = fresh_db(Backend::Sqlite).await;
    let store = store(&db).await;
    let path = db
        .url
        .strip_prefix("sqlite://")
        .expect("a sqlite URL")
        .to_owned();
    let wal = std::path::PathBuf::from(format!("{path}-wal"));
    let stream = StreamName::new("pricing");
    let mut version = None;
    let started = std::time::Instant::now();
    let mut largest_wal = 0;
    let mut appended: u64 = 0;
    // About 160 MB of WAL frames without restarts; the restart threshold is 32 MiB.
    while appended < 20_000 && started.elapsed() < std::time::Duration::from_secs(60) {
        let expected = version.map_or(ExpectedVersion::NoStream, ExpectedVersion::Exact);
        let events = (0..4).map(|_| event()).collect();
        let command = AppendCommand::single(stream.clone(), expected, events);
        store
            .append(command)
            .await
            .expect("store answers")
            .expect("appends");
        version = Some(version.map_or(3, |v| v + 4));
        appended += 4;
        if appended.is_multiple_of(400) {
            let size = std::fs::metadata(&wal).map_or(0, |m| m.len());
            largest_wal = largest_wal.max(size);
        }
    }
    let written: i64 = {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&db.url)
            .await
            .expect("opens");
        sqlx::query_scalar("SELECT COUNT(*) FROM events")
            .fetch_one(&mut conn)
            .await
            .expect("counts")
    };
    assert_eq!(written as u64, appended);
    let limit = 64 * 1024 * 1024 + 8 * 1024 * 1024;
    assert!(
        largest_wal < limit,
        "the WAL reached {largest_wal} bytes after {appended} events in {:?}",
        started.elapsed()
    );
}

/// A ledger file from before the read models moved to their own file loses its old copies
/// of them when it is opened; its events stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_drops_read_models_left_in_the_ledger_file() {
    use sqlx::Connection;
    let db = fresh_db(Backend::Sqlite).await;
    let mut old = sqlx::SqliteConnection::connect(&format!("{}?mode=rwc", db.url))
        .await
        .expect("creates the old file");
    sqlx::query("CREATE TABLE rm_accounts (account_id TEXT PRIMARY KEY, balance INTEGER)")
        .execute(&mut old)
        .await
        .expect("old read model");
    old.close().await.expect("closes");

    let store = store(&db).await;
    funded_account(&store, 5).await;
    let mut ledger = sqlx::SqliteConnection::connect(&db.url)
        .await
        .expect("opens the ledger file");
    let left: Vec<(String,)> =
        sqlx::query_as("SELECT name FROM sqlite_master WHERE name LIKE 'rm\\_%' ESCAPE '\\'")
            .fetch_all(&mut ledger)
            .await
            .expect("lists tables");
    assert!(left.is_empty(), "{left:?}");
    let (events,): (i64,) = sqlx::query_as("SELECT count(*) FROM events")
        .fetch_one(&mut ledger)
        .await
        .expect("counts events");
    assert!(events > 0);
}
