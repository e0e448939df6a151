//! The projector: killed with SIGKILL mid-batch it converges to the replay on restart,
//! and for random event sequences the read models equal the fold of the events.

use manabi_tests::ledger as support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, TimeZone, Utc};
use manabi_ledger::account::Points;
use manabi_ledger::operator::Operator;
use manabi_ledger::repository::load_account;
use manabi_ledger::store::{AppendCommand, ExpectedVersion, NewEvent};
use manabi_ledger::{Store, StreamName};
use manabi_projector::Projector;
use manabi_schemas::events::{CallCharged, CreditKind, EventMetadata, LedgerEvent, Transport};
use proptest::prelude::*;
use support::{Backend, biller, caller, fresh_db, funded_account, read_request, store};
use uuid::Uuid;

fn manabi(url: &str, args: &[&str]) -> Command {
    let mut command = Command::new(manabi_tests::manabi_binary());
    command
        .args(args)
        .env("MANABI_DATABASE_URL", url)
        .env("MANABI_LOG", "warn")
        .stdin(Stdio::null());
    command
}

async fn kill_mid_batch_and_restart(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let funded = funded_account(&store, 100_000).await;
    let biller = biller(store.clone());
    let caller = caller(&biller, &funded).await;
    let charges = (0..1_500).map(|n| {
        let biller = biller.clone();
        tokio::spawn(async move { biller.charge(&caller, read_request(n)).await })
    });
    for charged in futures::future::join_all(charges).await {
        charged.expect("task").expect("charged");
    }
    Projector::new(store.clone())
        .await
        .expect("read-model migrations");

    let mut child = manabi(&db.url, &["projector", "--batch-events", "3"])
        .stderr(Stdio::null())
        .spawn()
        .expect("projector starts");
    let started = Instant::now();
    let mut progressed = false;
    while !progressed && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let checkpoint = manabi_projector::checkpoint(&store).await;
        progressed = checkpoint.is_ok_and(|c| c.global_position > 0);
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(progressed, "the projector made no progress");
    let killed_at = manabi_projector::checkpoint(&store).await.expect("reads");
    let report = verify(&db.url);
    assert!(
        report["events_behind_checkpoint"].as_u64() > Some(0),
        "killed mid-way: {killed_at:?}"
    );
    assert_eq!(
        report["ok"], true,
        "a partial projection is consistent: {report}"
    );

    // A commit on PostgreSQL joins the global order once older transactions end.
    for _ in 0..50 {
        let status = manabi(&db.url, &["projector", "--once"])
            .stdout(Stdio::null())
            .status()
            .expect("runs");
        assert!(status.success());
        let report = verify(&db.url);
        assert_eq!(report["ok"], true, "{report}");
        if report["events_behind_checkpoint"] == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the restarted projector never caught up");
}

fn verify(url: &str) -> serde_json::Value {
    let output = manabi(url, &["admin", "ledger", "verify"])
        .output()
        .expect("verify runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    assert_eq!(output.status.success(), report["ok"] == true);
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_projector_killed_mid_batch_converges() {
    kill_mid_batch_and_restart(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_projector_killed_mid_batch_converges() {
    kill_mid_batch_and_restart(Backend::Postgres).await;
}

/// One step of a random history.
#[derive(Debug, Clone)]
enum Step {
    Credit {
        account: usize,
        points: i64,
    },
    IssueKey {
        account: usize,
    },
    Revoke {
        account: usize,
        key: usize,
    },
    Cap {
        account: usize,
        key: Option<usize>,
        calls: u32,
    },
    Charge {
        account: usize,
        key: usize,
        points: i64,
        day: u64,
    },
    Project {
        batch_events: u32,
    },
}

const ACCOUNTS: usize = 3;

fn step() -> impl Strategy<Value = Step> {
    let account = 0..ACCOUNTS;
    prop_oneof![
        (account.clone(), 1..500i64).prop_map(|(account, points)| Step::Credit { account, points }),
        account
            .clone()
            .prop_map(|account| Step::IssueKey { account }),
        (account.clone(), 0..3usize).prop_map(|(account, key)| Step::Revoke { account, key }),
        (account.clone(), proptest::option::of(0..3usize), 0..10u32).prop_map(
            |(account, key, calls)| Step::Cap {
                account,
                key,
                calls
            }
        ),
        (account.clone(), 0..3usize, 1..30i64, 0..70u64).prop_map(|(account, key, points, day)| {
            Step::Charge {
                account,
                key,
                points,
                day,
            }
        }),
        (1..7u32).prop_map(|batch_events| Step::Project { batch_events }),
    ]
}

struct World {
    store: Store,
    accounts: Vec<Uuid>,
    keys: Vec<Vec<Uuid>>,
    credits: usize,
}

impl World {
    async fn run(&mut self, step: Step) {
        let operator = Operator::new(&self.store);
        match step {
            Step::Credit { account, points } => {
                self.credits += 1;
                let key = format!("credit-{}", self.credits);
                let points = Points::new(points).expect("positive");
                let id = self.accounts[account];
                operator
                    .credit(id, CreditKind::Grant, points, &key)
                    .await
                    .expect("credit");
            }
            Step::IssueKey { account } => {
                let issued = operator.issue_key(self.accounts[account], None, None).await;
                self.keys[account].push(issued.expect("key").key_id);
            }
            Step::Revoke { account, key } => {
                if let Some(key_id) = self.keys[account].get(key) {
                    // Revoking twice is refused; that is part of the history too.
                    let _ = operator.revoke_key(*key_id).await;
                }
            }
            Step::Cap {
                account,
                key,
                calls,
            } => {
                let key_id = key.and_then(|k| self.keys[account].get(k).copied());
                if key.is_none() || key_id.is_some() {
                    let id = self.accounts[account];
                    operator
                        .set_daily_cap(id, key_id, calls)
                        .await
                        .expect("cap");
                }
            }
            Step::Charge {
                account,
                key,
                points,
                day,
            } => {
                if let Some(key_id) = self.keys[account].get(key).copied() {
                    self.charge(self.accounts[account], key_id, points, day)
                        .await;
                }
            }
            Step::Project { batch_events } => {
                let projector = Projector::new(self.store.clone()).await.expect("projector");
                let projector = projector.with_batch_events_max(batch_events);
                projector.run_once().await.expect("projects");
            }
        }
    }

    /// A charge written straight to the stream, on any day, when the balance allows.
    async fn charge(&self, account_id: Uuid, key_id: Uuid, points: i64, day: u64) {
        let account = load_account(&self.store, account_id).await.expect("loads");
        if account.balance < points {
            return;
        }
        let first = NaiveDate::from_ymd_opt(2026, 1, 20).expect("date");
        let day = first + chrono::Days::new(day);
        let at = Utc.from_utc_datetime(&day.and_hms_opt(12, 0, 0).expect("noon"));
        let event = LedgerEvent::CallCharged(CallCharged {
            key_id,
            operation: "searchLearnables".into(),
            resource_id: None,
            points,
            price_list_version: 1,
            day,
            request_id: Uuid::now_v7().to_string(),
            transport: Transport::Mcp,
            idempotency: None,
        });
        let command = AppendCommand::single(
            StreamName::account(account_id),
            ExpectedVersion::Exact(account.version),
            vec![NewEvent::new(event, EventMetadata::default(), at)],
        );
        self.store
            .append(command)
            .await
            .expect("answers")
            .expect("appended");
    }
}

async fn read_models_equal_the_fold(backend: Backend, steps: Vec<Step>) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let mut world = World {
        store: store.clone(),
        accounts: Vec::new(),
        keys: vec![Vec::new(); ACCOUNTS],
        credits: 0,
    };
    for _ in 0..ACCOUNTS {
        world
            .accounts
            .push(funded_account(&store, 0).await.account_id);
    }
    for step in steps {
        world.run(step).await;
    }
    let report = manabi_tests::ledger::verified_when_caught_up(&store).await;
    assert!(report.ok, "{:?}", report.differences);
}

fn run_history(backend: Backend, steps: Vec<Step>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(read_models_equal_the_fold(backend, steps));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn sqlite_for_random_histories_the_read_models_equal_the_fold(
        steps in proptest::collection::vec(step(), 1..30)
    ) {
        run_history(Backend::Sqlite, steps);
    }

    #[test]
    fn postgres_for_random_histories_the_read_models_equal_the_fold(
        steps in proptest::collection::vec(step(), 1..30)
    ) {
        run_history(Backend::Postgres, steps);
    }
}

/// Runs `sql` on the read models (their own SQLite file, or the PostgreSQL schema).
async fn tamper(store: &Store, sql: &str) {
    let done = match store {
        Store::Sqlite(s) => sqlx::query(sql)
            .execute(s.read_models_writer())
            .await
            .map(|_| ()),
        Store::Postgres(s) => sqlx::query(sql).execute(s.pool()).await.map(|_| ()),
    };
    done.unwrap_or_else(|error| panic!("{sql}: {error}"));
}

/// `ledger verify` is trusted by operators: each kind of damage to a read model, every
/// column of an invoice line included, must show as a difference naming its table.
async fn verify_finds_every_tampered_column(backend: Backend) {
    let db = fresh_db(backend).await;
    let untouched = store_with_history(&db).await;
    let report = manabi_projector::verify::verify(&untouched)
        .await
        .expect("verifies");
    assert!(report.ok, "{:?}", report.differences);
    let damages = [
        (
            "rm_charges",
            "UPDATE rm_charges SET operation = 'searchLearnables'",
        ),
        (
            "rm_charges",
            "UPDATE rm_charges SET resource_id = 'kanji-x'",
        ),
        ("rm_charges", "UPDATE rm_charges SET price_list_version = 9"),
        ("rm_charges", "UPDATE rm_charges SET request_id = 'forged'"),
        ("rm_charges", "UPDATE rm_charges SET transport = 'mcp'"),
        (
            "rm_charges",
            "UPDATE rm_charges SET charged_at = '2020-01-01T00:00:00.000000Z'",
        ),
        ("rm_charges", "UPDATE rm_charges SET points = 2"),
        (
            "rm_accounts",
            "UPDATE rm_accounts SET balance = balance + 1",
        ),
        ("rm_credits", "DELETE FROM rm_credits"),
        ("rm_usage_key", "UPDATE rm_usage_key SET calls = calls + 1"),
        (
            "rm_statements",
            "UPDATE rm_statements SET calls = calls + 1",
        ),
    ];
    for (table, damage) in damages {
        let fresh = fresh_db(backend).await;
        let copy = store_with_history(&fresh).await;
        tamper(&copy, damage).await;
        let report = manabi_projector::verify::verify(&copy)
            .await
            .expect("verifies");
        assert!(!report.ok, "{damage}: not found");
        assert!(
            report.differences.iter().any(|d| d.starts_with(table)),
            "{damage}: {:?}",
            report.differences
        );
    }
}

/// A fresh ledger with three charges, projected.
async fn store_with_history(db: &manabi_tests::ledger::TestDb) -> Store {
    let store = store(db).await;
    let funded = funded_account(&store, 100).await;
    let biller = biller(store.clone());
    let caller = caller(&biller, &funded).await;
    for n in 0..3 {
        biller
            .charge(&caller, read_request(n))
            .await
            .expect("charged");
    }
    manabi_tests::ledger::verified_when_caught_up(&store).await;
    store
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_verify_finds_every_tampered_column() {
    verify_finds_every_tampered_column(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_verify_finds_every_tampered_column() {
    verify_finds_every_tampered_column(Backend::Postgres).await;
}

/// The projector running while two billers (two servers' worth) write 2,000 charges over
/// a few accounts: afterwards nothing is behind, the read models verify, and there is
/// one invoice line per receipt.
async fn projection_raced_by_two_billers(backend: Backend) {
    let db = fresh_db(backend).await;
    let store = store(&db).await;
    let mut callers = Vec::new();
    let (first, second) = (biller(store.clone()), biller(store.clone()));
    for _ in 0..4 {
        let funded = funded_account(&store, 10_000).await;
        callers.push((
            caller(&first, &funded).await,
            caller(&second, &funded).await,
        ));
    }
    let projector = Projector::new(store.clone()).await.expect("projector");
    let health = manabi_projector::spawn(projector.clone());
    let charges = (0..2_000).map(|n| {
        let (on_first, on_second) = callers[n % callers.len()];
        let (biller, caller) = if n % 2 == 0 {
            (first.clone(), on_first)
        } else {
            (second.clone(), on_second)
        };
        tokio::spawn(async move { biller.charge(&caller, read_request(n)).await })
    });
    let mut receipts = std::collections::HashSet::new();
    for charged in futures::future::join_all(charges).await {
        receipts.insert(
            charged
                .expect("task")
                .expect("charged")
                .invoice_id
                .to_string(),
        );
    }
    assert_eq!(receipts.len(), 2_000);
    let report = manabi_tests::ledger::verified_when_caught_up(&store).await;
    assert!(report.ok, "{:?}", report.differences);
    assert!(health.stopped().is_none());
    let lines: Vec<String> = match &store {
        Store::Sqlite(s) => {
            sqlx::query_scalar("SELECT invoice_id FROM rm_charges")
                .fetch_all(s.read_models_reader())
                .await
        }
        Store::Postgres(s) => {
            sqlx::query_scalar("SELECT invoice_id FROM rm_charges")
                .fetch_all(s.pool())
                .await
        }
    }
    .expect("invoice lines");
    let lines: std::collections::HashSet<String> = lines.into_iter().collect();
    assert_eq!(lines, receipts);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_projection_raced_by_two_billers() {
    projection_raced_by_two_billers(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_projection_raced_by_two_billers() {
    projection_raced_by_two_billers(Backend::Postgres).await;
}
