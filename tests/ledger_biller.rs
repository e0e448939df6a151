//! The Biller under concurrency, on SQLite and on PostgreSQL with two Billers (two pools,
//! as two API replicas) sharing one database.

use manabi_tests::ledger as support;

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{Duration, TimeZone, Utc};
use manabi_ledger::account::Points;
use manabi_ledger::operator::Operator;
use manabi_ledger::repository::{load_account, save_snapshot};
use manabi_ledger::{
    AuthError, Biller, BillerConfig, Caller, EventStore, ManualClock, QuotaScope, Receipt, Refusal,
    Store,
};
use manabi_schemas::events::CreditKind;
use secrecy::ExposeSecret;
use support::{Backend, biller, caller, fresh_db, funded_account, read_request, store};

/// One Biller on SQLite (one writer); two on PostgreSQL, each with its own pool.
async fn billers(db: &support::TestDb, backend: Backend) -> (Store, Vec<Biller>) {
    let first = store(db).await;
    let mut billers = vec![biller(first.clone())];
    if backend == Backend::Postgres {
        billers.push(biller(store(db).await));
    }
    (first, billers)
}

/// Fires `calls` concurrent 1-point charges, spread over the billers.
async fn charge_concurrently(
    billers: &[Biller],
    caller: Caller,
    calls: usize,
) -> Vec<Result<Receipt, Refusal>> {
    let tasks = (0..calls).map(|n| {
        let biller = billers[n % billers.len()].clone();
        tokio::spawn(async move { biller.charge(&caller, read_request(n)).await })
    });
    futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect()
}

async fn verify_read_models(store: &Store) {
    support::verified_when_caught_up(store).await;
}

async fn six_hundred_calls_against_three_hundred_points(backend: Backend) {
    let db = fresh_db(backend).await;
    let (store, billers) = billers(&db, backend).await;
    let funded = funded_account(&store, 300).await;
    let caller = caller(&billers[0], &funded).await;
    let results = charge_concurrently(&billers, caller, 600).await;
    let receipts: Vec<&Receipt> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let refused = results
        .iter()
        .filter(|r| {
            matches!(
                r,
                Err(Refusal::InsufficientPoints {
                    required: 1,
                    balance: 0
                })
            )
        })
        .count();
    assert_eq!(
        receipts.len(),
        300,
        "{:?}",
        results.iter().find(|r| r.is_err())
    );
    assert_eq!(refused, 300);
    let invoices: HashSet<_> = receipts.iter().map(|r| r.invoice_id).collect();
    assert_eq!(invoices.len(), 300);
    let account = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    assert_eq!(account.balance, 0);
    verify_read_models(&store).await;
}

async fn the_daily_cap_is_exact_under_concurrency(backend: Backend) {
    let db = fresh_db(backend).await;
    let (store, billers) = billers(&db, backend).await;
    let funded = funded_account(&store, 1_000).await;
    let operator = Operator::new(&store);
    operator
        .set_daily_cap(funded.account_id, Some(funded.key_id), 50)
        .await
        .expect("cap");
    let caller = caller(&billers[0], &funded).await;
    let results = charge_concurrently(&billers, caller, 120).await;
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let capped = results
        .iter()
        .filter(|r| {
            matches!(r, Err(Refusal::QuotaExceeded { scope: QuotaScope::Key, retry_after_secs })
                if *retry_after_secs > 0 && *retry_after_secs <= 86_400)
        })
        .count();
    assert_eq!((ok, capped), (50, 70));
    let account = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    assert_eq!(account.balance, 950);
}

/// Many accounts charged at once: on PostgreSQL each Biller keeps several batches in
/// flight (over disjoint accounts) while the other Biller appends to the same streams.
/// Every account still ends exactly at zero with one receipt per point.
async fn many_accounts_overdrawn_at_once(backend: Backend) {
    const ACCOUNTS: usize = 24;
    const POINTS: i64 = 40;
    let db = fresh_db(backend).await;
    let (store, billers) = billers(&db, backend).await;
    let mut callers = Vec::new();
    for _ in 0..ACCOUNTS {
        let funded = funded_account(&store, POINTS).await;
        callers.push((funded.account_id, caller(&billers[0], &funded).await));
    }
    let tasks = (0..ACCOUNTS * POINTS as usize * 2).map(|n| {
        let biller = billers[n % billers.len()].clone();
        let caller = callers[n % ACCOUNTS].1;
        tokio::spawn(async move {
            (
                caller.account_id,
                biller.charge(&caller, read_request(n)).await,
            )
        })
    });
    let results: Vec<_> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    let mut invoices = HashSet::new();
    for (account_id, _) in &callers {
        let mine = results.iter().filter(|(id, _)| id == account_id);
        let receipts: Vec<&Receipt> = mine.clone().filter_map(|(_, r)| r.as_ref().ok()).collect();
        let refused = mine
            .filter(|(_, r)| matches!(r, Err(Refusal::InsufficientPoints { balance: 0, .. })))
            .count();
        assert_eq!(
            (receipts.len(), refused),
            (POINTS as usize, POINTS as usize)
        );
        invoices.extend(receipts.iter().map(|r| r.invoice_id));
        let account = load_account(&store, *account_id).await.expect("loads");
        assert_eq!(account.balance, 0);
    }
    assert_eq!(invoices.len(), ACCOUNTS * POINTS as usize);
    verify_read_models(&store).await;
}

/// Changes made by another process (the admin CLI) count on the very next call.
async fn operator_changes_count_on_the_next_call(backend: Backend) {
    let db = fresh_db(backend).await;
    let (store, billers) = billers(&db, backend).await;
    let biller = &billers[0];
    let funded = funded_account(&store, 1).await;
    let caller = caller(biller, &funded).await;
    biller
        .charge(&caller, read_request(1))
        .await
        .expect("first call");
    let refused = biller.charge(&caller, read_request(2)).await;
    assert!(matches!(refused, Err(Refusal::InsufficientPoints { .. })));

    let elsewhere = support::store(&db).await;
    let operator = Operator::new(&elsewhere);
    let five = Points::new(5).expect("positive");
    operator
        .credit(funded.account_id, CreditKind::Purchase, five, "topup-2")
        .await
        .expect("top-up");
    let receipt = biller
        .charge(&caller, read_request(3))
        .await
        .expect("spendable at once");
    assert_eq!(receipt.balance_after, 4);

    let second = operator
        .issue_key(funded.account_id, None, None)
        .await
        .expect("key");
    biller
        .authenticate(second.api_key.expose_secret())
        .await
        .expect("a new key works on its first call");
    operator.revoke_key(funded.key_id).await.expect("revoke");
    assert_eq!(
        biller.charge(&caller, read_request(4)).await,
        Err(Refusal::Revoked)
    );
    let auth = biller.authenticate(funded.api_key.expose_secret()).await;
    assert_eq!(
        auth,
        Err(AuthError::Revoked),
        "the refused charge refreshed the cache"
    );
    let third = operator
        .issue_key(funded.account_id, None, None)
        .await
        .expect("key");
    let third_caller = biller
        .authenticate(third.api_key.expose_secret())
        .await
        .expect("new");
    operator.revoke_key(third.key_id).await.expect("revoke");
    let auth = biller
        .authenticate_fresh(third.api_key.expose_secret())
        .await;
    assert_eq!(auth, Err(AuthError::Revoked));
    assert_eq!(
        biller.charge(&third_caller, read_request(5)).await,
        Err(Refusal::Revoked)
    );
    assert_eq!(
        biller.authenticate("svc_ak_nope").await,
        Err(AuthError::Malformed)
    );
}

/// A snapshot claiming versions the stream never reached is ignored: the account is
/// replayed from its events and still charges.
async fn a_snapshot_ahead_of_its_stream_is_ignored(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 10).await;
    let mut bogus = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    let head = bogus.version;
    bogus.version += 50;
    bogus.balance = 1_000_000;
    save_snapshot(&store, &bogus).await.expect("saves");

    let account = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    assert_eq!((account.version, account.balance), (head, 10));
    let biller = biller(store.clone());
    let caller = caller(&biller, &funded).await;
    let receipt = biller
        .charge(&caller, read_request(0))
        .await
        .expect("charges on the replayed state");
    assert_eq!(receipt.balance_after, 9);
}

/// 12,000 charges: the account loaded from its latest snapshot plus the tail equals a
/// full replay of its stream from the first event, and the snapshots were written on
/// the way (every 1,000 events).
async fn snapshot_and_tail_equal_a_full_replay(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 1_000_000).await;
    let operator = Operator::new(&store);
    for key in [None, Some(funded.key_id)] {
        operator
            .set_daily_cap(funded.account_id, key, 100_000)
            .await
            .expect("caps out of the way");
    }
    let biller = biller(store.clone());
    let caller = caller(&biller, &funded).await;
    for wave in 0..12 {
        let charges = (0..1_000).map(|n| {
            let biller = biller.clone();
            tokio::spawn(
                async move { biller.charge(&caller, read_request(wave * 1_000 + n)).await },
            )
        });
        for charged in futures::future::join_all(charges).await {
            charged.expect("task").expect("charged");
        }
    }
    let stream = manabi_ledger::StreamName::account(funded.account_id);
    let mut replayed = manabi_ledger::Account::empty(funded.account_id);
    let events = store.read_stream_to_end(&stream, 0).await.expect("reads");
    assert!(events.len() > 12_000, "{}", events.len());
    for event in &events {
        replayed.apply(&event.event, event.version);
    }
    let loaded = load_account(&store, funded.account_id)
        .await
        .expect("loads");
    assert_eq!(loaded, replayed);
    assert_eq!(loaded.balance, 1_000_000 - 12_000);
    let snapshot = store
        .load_snapshot(&stream)
        .await
        .expect("reads")
        .expect("a snapshot was saved");
    assert!(snapshot.version >= 11_000, "{}", snapshot.version);
}

/// Twenty charges from five accounts all claiming the same localization stream at once,
/// over every biller, with no lease in front: exactly one is written with its claim,
/// every other is refused `ClaimTaken` with nothing charged.
async fn one_claim_wins_and_the_others_charge_nothing(backend: Backend) {
    use manabi_ledger::{ChargeTicket, ExpectedVersion, NewEvent, StreamAppend, StreamName};
    use manabi_schemas::events::{EventMetadata, LedgerEvent, LocalizationGenerated};
    let db = fresh_db(backend).await;
    let (store, billers) = billers(&db, backend).await;
    let mut callers = Vec::new();
    for _ in 0..5 {
        let funded = funded_account(&store, 100).await;
        callers.push((funded.account_id, caller(&billers[0], &funded).await));
    }
    let stream = StreamName::new("localization-grammar-dake-pt");
    let tasks = (0..20).map(|n| {
        let biller = billers[n % billers.len()].clone();
        let (account_id, caller) = callers[n % callers.len()];
        let stream = stream.clone();
        tokio::spawn(async move {
            let request_id = format!("race-{n}");
            let event = LocalizationGenerated {
                document: "learnable".into(),
                entry_id: "grammar-dake".into(),
                locale: "pt".into(),
                account_id,
                request_id: request_id.clone(),
                content: serde_json::json!({"id": "grammar-dake", "n": n}),
                generation_ms: 1,
                x402_payment: None,
            };
            let claim = StreamAppend {
                stream,
                expected: ExpectedVersion::NoStream,
                events: vec![NewEvent::new(
                    LedgerEvent::LocalizationGenerated(event),
                    EventMetadata::default(),
                    Utc::now(),
                )],
            };
            let mut request = read_request(n);
            request.operation = "localizeLearnable".into();
            request.resource_id = Some("grammar-dake@pt".into());
            request.request_id = request_id;
            request.points = Points::new(25).expect("positive");
            biller
                .charge_with_claim(&caller, request, ChargeTicket::new(), claim)
                .await
        })
    });
    let outcomes: Vec<_> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    let won = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
    let taken = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Err(Refusal::ClaimTaken)))
        .count();
    assert_eq!((won, taken), (1, 19), "{outcomes:?}");
    let mut spent = 0;
    for (account_id, _) in &callers {
        spent += 100
            - load_account(&store, *account_id)
                .await
                .expect("loads")
                .balance;
    }
    assert_eq!(spent, 25, "one generation charge in all");
    let claims = store.read_stream(&stream, 0, 10).await.expect("reads");
    assert_eq!(claims.len(), 1);
    verify_read_models(&store).await;
}

support::on_both_backends!(
    one_claim_wins_and_the_others_charge_nothing,
    snapshot_and_tail_equal_a_full_replay,
    a_snapshot_ahead_of_its_stream_is_ignored,
    six_hundred_calls_against_three_hundred_points,
    the_daily_cap_is_exact_under_concurrency,
    operator_changes_count_on_the_next_call,
    many_accounts_overdrawn_at_once,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_resets_at_midnight_utc_and_keys_expire() {
    let db = fresh_db(Backend::Sqlite).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 100).await;
    let operator = Operator::new(&store);
    operator
        .set_daily_cap(funded.account_id, None, 2)
        .await
        .expect("cap");
    let start = Utc
        .with_ymd_and_hms(2026, 5, 1, 23, 59, 0)
        .single()
        .expect("time");
    let clock = Arc::new(ManualClock::new(start));
    let biller = Biller::start(store.clone(), clock.clone(), BillerConfig::default());
    let caller = caller(&biller, &funded).await;
    for n in 0..2 {
        biller
            .charge(&caller, read_request(n))
            .await
            .expect("under the cap");
    }
    let capped = biller.charge(&caller, read_request(3)).await;
    assert_eq!(
        capped,
        Err(Refusal::QuotaExceeded {
            scope: QuotaScope::Account,
            retry_after_secs: 60
        })
    );
    clock.advance(Duration::minutes(1));
    biller
        .charge(&caller, read_request(4))
        .await
        .expect("a new UTC day");
    let expiring = operator
        .issue_key(funded.account_id, None, Some(start + Duration::hours(1)))
        .await
        .expect("key");
    let expiring_caller = biller
        .authenticate(expiring.api_key.expose_secret())
        .await
        .expect("live");
    clock.advance(Duration::hours(1));
    assert_eq!(
        biller.charge(&expiring_caller, read_request(5)).await,
        Err(Refusal::Expired)
    );
    let auth = biller.authenticate(expiring.api_key.expose_secret()).await;
    assert_eq!(auth, Err(AuthError::Expired));
}
