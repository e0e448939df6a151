//! The event store's contract, on SQLite and PostgreSQL: conditional appends, atomic
//! multi-stream appends, ordered reads, immutability, idempotent credits.

#[path = "ledger_support.rs"]
mod support;

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
    events_are_immutable,
    a_duplicate_top_up_credits_once,
);
