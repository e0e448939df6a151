//! Shared helpers of the ledger tests: a fresh database per test (a temporary SQLite file,
//! or a new schema on the test PostgreSQL), and a funded account with one key.

use std::path::PathBuf;
use std::sync::Arc;

use manabi_ledger::account::Points;
use manabi_ledger::operator::{Email, Operator};
use manabi_ledger::{Biller, BillerConfig, Caller, Store, SystemClock};
use manabi_schemas::events::CreditKind;
use secrecy::{ExposeSecret, SecretString};
use sqlx::Connection;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database of its own for one test.
pub struct TestDb {
    pub url: String,
    dir: Option<PathBuf>,
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

pub fn pg_base_url() -> String {
    std::env::var("MANABI_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A ledger file in a temporary directory of its own.
pub fn fresh_sqlite_db() -> TestDb {
    let tag = Uuid::now_v7().simple().to_string();
    let dir = std::env::temp_dir().join(format!("manabi-ledger-test-{tag}"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    TestDb {
        url: format!("sqlite://{}/ledger.sqlite", dir.display()),
        dir: Some(dir),
    }
}

/// A fresh database: a SQLite file, or a new schema on the test PostgreSQL
/// (`MANABI_TEST_PG_URL`).
pub async fn fresh_db(backend: Backend) -> TestDb {
    let tag = Uuid::now_v7().simple().to_string();
    match backend {
        Backend::Sqlite => fresh_sqlite_db(),
        Backend::Postgres => {
            let base = pg_base_url();
            let schema = format!("ledger_test_{tag}");
            let mut conn = sqlx::PgConnection::connect(&base)
                .await
                .expect("PostgreSQL answers at MANABI_TEST_PG_URL");
            sqlx::query(&format!("CREATE SCHEMA {schema}"))
                .execute(&mut conn)
                .await
                .expect("create schema");
            let sep = if base.contains('?') { '&' } else { '?' };
            TestDb {
                url: format!("{base}{sep}options[search_path]={schema}"),
                dir: None,
            }
        }
    }
}

pub async fn store(db: &TestDb) -> Store {
    Store::connect(&db.url).await.expect("ledger opens")
}

/// An open account credited with `points`, and one key.
pub struct Funded {
    pub account_id: Uuid,
    pub key_id: Uuid,
    pub api_key: SecretString,
}

pub async fn funded_account(store: &Store, points: i64) -> Funded {
    let operator = Operator::new(store);
    let email = Email::parse("buyer@example.com").expect("valid");
    let account_id = operator.open_account(&email).await.expect("opens");
    if let Some(points) = Points::new(points) {
        let key = format!("seed-{account_id}");
        operator
            .credit(account_id, CreditKind::Purchase, points, &key)
            .await
            .expect("credits");
    }
    let issued = operator
        .issue_key(account_id, None, None)
        .await
        .expect("key");
    Funded {
        account_id,
        key_id: issued.key_id,
        api_key: issued.api_key,
    }
}

pub fn biller(store: Store) -> Biller {
    let config = BillerConfig::for_store(&store);
    Biller::start(store, Arc::new(SystemClock), config)
}

pub async fn caller(biller: &Biller, funded: &Funded) -> Caller {
    biller
        .authenticate(funded.api_key.expose_secret())
        .await
        .expect("the key authenticates")
}

pub fn read_request(n: usize) -> manabi_ledger::ChargeRequest {
    manabi_ledger::ChargeRequest {
        operation: "getLearnable".into(),
        resource_id: Some(format!("kanji-{n}")),
        points: Points::new(1).expect("positive"),
        price_list_version: 1,
        request_id: format!("req-{n}"),
        transport: manabi_schemas::events::Transport::Rest,
        idempotency: None,
    }
}

/// Runs each named `async fn(Backend)` of the calling file as two tests, `sqlite::name`
/// and `postgres::name`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Backend::Postgres).await;
                }
            )*
        }
    };
}
pub use on_both_backends;

/// Projects until the read models have every event, then `ledger verify`, which must
/// find no difference. On PostgreSQL the projector stops at the oldest transaction still
/// running anywhere in the cluster (other tests' too), so one catch-up may not be all.
pub async fn verified_when_caught_up(store: &Store) -> manabi_projector::verify::VerifyReport {
    let projector = manabi_projector::Projector::new(store.clone())
        .await
        .expect("projector");
    for _ in 0..200 {
        projector.catch_up().await.expect("projects");
        let report = manabi_projector::verify::verify(store)
            .await
            .expect("verifies");
        assert!(report.differences.is_empty(), "{:?}", report.differences);
        if report.events_behind_checkpoint == 0 {
            return report;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the projector never caught up");
}
