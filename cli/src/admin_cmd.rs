//! `manabi admin …`: operators' commands. stdout is one JSON object (or the CSV asked
//! for); errors go to stderr with a non-zero exit. Same `MANABI_DATABASE_URL` as serve.

use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};
use manabi_api::settings::LedgerOptions;
use manabi_ledger::account::Points;
use manabi_ledger::operator::{Email, Operator};
use manabi_ledger::repository::load_account;
use manabi_ledger::{Account, Store};
use manabi_projector::Projector;
use manabi_projector::queries::{
    Month, monthly_statement, statement_csv, x402_statement, x402_statement_csv,
};
use manabi_schemas::events::CreditKind;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use uuid::Uuid;

#[derive(Debug, clap::Subcommand)]
pub enum AdminCommand {
    /// Open and inspect accounts.
    #[command(subcommand)]
    Account(AccountCommand),
    /// Credit prepaid points to an account (once per idempotency key, forever).
    Topup(TopupArgs),
    /// Issue and revoke API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Set daily call caps.
    #[command(subcommand)]
    Caps(CapsCommand),
    /// Check the ledger against the read models.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// A month's statement: an account's (`--account`), or the x402 payments (`--x402`).
    Statement(StatementArgs),
}

#[derive(Debug, clap::Subcommand)]
pub enum AccountCommand {
    /// Open an account → {"account_id"}.
    Create {
        #[arg(long)]
        email: String,
    },
    /// Balance, caps, today's usage and keys of an account.
    Show {
        #[arg(long)]
        account: Uuid,
    },
}

#[derive(Debug, clap::Args)]
pub struct TopupArgs {
    #[arg(long)]
    account: Uuid,
    #[arg(long)]
    points: i64,
    /// Unique forever: a retry with the same key credits nothing more.
    #[arg(long)]
    idempotency_key: String,
    #[arg(long, value_enum, default_value = "purchase")]
    kind: KindArg,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum KindArg {
    Purchase,
    Grant,
    Refund,
    Adjustment,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeyCommand {
    /// Issue a key → {key_id, api_key}; the only time the secret is shown.
    Create {
        #[arg(long)]
        account: Uuid,
        #[arg(long)]
        name: Option<String>,
        /// RFC 3339 instant after which the key stops working.
        #[arg(long)]
        expires_at: Option<DateTime<Utc>>,
    },
    /// Revoke a key; effective on its next call.
    Revoke {
        #[arg(long)]
        key_id: Uuid,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum CapsCommand {
    /// Set the daily call cap of an account, or of one of its keys.
    Set {
        #[arg(long)]
        account: Uuid,
        #[arg(long)]
        key_id: Option<Uuid>,
        #[arg(long)]
        daily_calls: u32,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum LedgerCommand {
    /// Replay every stream and compare with the read models.
    Verify {
        /// Bring the read models up to date first (instead of comparing at their
        /// checkpoint).
        #[arg(long)]
        catch_up: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct StatementArgs {
    #[arg(long, required_unless_present = "x402", conflicts_with = "x402")]
    account: Option<Uuid>,
    /// The x402 payments of the month (revenue from callers without an account).
    #[arg(long)]
    x402: bool,
    /// YYYY-MM
    #[arg(long)]
    month: String,
    #[arg(long, value_enum, default_value = "json")]
    format: FormatArg,
    /// Bring the read models up to date first.
    #[arg(long)]
    catch_up: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    Json,
    Csv,
}

/// `manabi admin`: the ledger it works on, and the command.
#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    #[command(flatten)]
    ledger: LedgerOptions,
    #[command(subcommand)]
    command: AdminCommand,
}

pub fn run(args: AdminArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(execute(&args.ledger, args.command))
}

async fn connect(ledger: &LedgerOptions) -> anyhow::Result<Store> {
    Store::connect(ledger.database_url().expose_secret())
        .await
        .context("opening the ledger database (MANABI_DATABASE_URL)")
}

fn print(value: &Value) -> ExitCode {
    println!("{value}");
    ExitCode::SUCCESS
}

async fn execute(ledger: &LedgerOptions, command: AdminCommand) -> anyhow::Result<ExitCode> {
    let store = connect(ledger).await?;
    let operator = Operator::new(&store);
    match command {
        AdminCommand::Account(AccountCommand::Create { email }) => {
            let account_id = operator.open_account(&Email::parse(&email)?).await?;
            Ok(print(&json!({ "account_id": account_id })))
        }
        AdminCommand::Account(AccountCommand::Show { account }) => {
            let account = load_account(&store, account).await?;
            anyhow::ensure!(account.is_open(), "account {} does not exist", account.id);
            Ok(print(&show_account(&account, Utc::now())))
        }
        AdminCommand::Topup(args) => topup(&operator, args).await,
        AdminCommand::Key(command) => key(&operator, command).await,
        AdminCommand::Caps(CapsCommand::Set {
            account,
            key_id,
            daily_calls,
        }) => {
            operator.set_daily_cap(account, key_id, daily_calls).await?;
            let scope = if key_id.is_some() { "key" } else { "account" };
            Ok(print(&json!({
                "account_id": account, "key_id": key_id, "scope": scope,
                "daily_calls": daily_calls,
            })))
        }
        AdminCommand::Ledger(LedgerCommand::Verify { catch_up }) => verify(store, catch_up).await,
        AdminCommand::Statement(args) => statement(store, args).await,
    }
}

async fn topup(operator: &Operator<'_>, args: TopupArgs) -> anyhow::Result<ExitCode> {
    let points = Points::new(args.points).with_context(|| {
        format!(
            "--points must be a whole number from 1 to {}",
            manabi_ledger::account::EVENT_POINTS_MAX
        )
    })?;
    anyhow::ensure!(
        !args.idempotency_key.trim().is_empty(),
        "--idempotency-key is empty"
    );
    let kind = match args.kind {
        KindArg::Purchase => CreditKind::Purchase,
        KindArg::Grant => CreditKind::Grant,
        KindArg::Refund => CreditKind::Refund,
        KindArg::Adjustment => CreditKind::Adjustment,
    };
    let outcome = operator
        .credit(args.account, kind, points, &args.idempotency_key)
        .await?;
    Ok(print(&json!({
        "balance": outcome.balance,
        "event_id": outcome.event_id,
        "duplicate": outcome.duplicate,
    })))
}

async fn key(operator: &Operator<'_>, command: KeyCommand) -> anyhow::Result<ExitCode> {
    match command {
        KeyCommand::Create {
            account,
            name,
            expires_at,
        } => {
            let issued = operator.issue_key(account, name, expires_at).await?;
            Ok(print(&json!({
                "key_id": issued.key_id,
                "api_key": issued.api_key.expose_secret(),
            })))
        }
        KeyCommand::Revoke { key_id } => {
            let account_id = operator.revoke_key(key_id).await?;
            Ok(print(
                &json!({ "key_id": key_id, "account_id": account_id, "revoked": true }),
            ))
        }
    }
}

fn show_account(account: &Account, now: DateTime<Utc>) -> Value {
    let today = now.date_naive();
    let keys: Vec<Value> = account
        .keys
        .iter()
        .map(|(key_id, key)| {
            let status = if key.revoked {
                "revoked"
            } else if key.expires_at.is_some_and(|at| at <= now) {
                "expired"
            } else {
                "active"
            };
            json!({
                "key_id": key_id,
                "name": key.name,
                "status": status,
                "expires_at": key.expires_at,
                "daily_calls_cap": key.daily_calls_cap,
                "calls_today": account.calls_on(today, Some(*key_id)),
            })
        })
        .collect();
    json!({
        "account_id": account.id,
        "email": account.email,
        "balance": account.balance,
        "currency": "JPY",
        "caps": {
            "daily_calls_per_account": account.daily_calls_cap,
            "daily_calls_per_key_default": manabi_ledger::account::KEY_DAILY_CALLS_DEFAULT,
        },
        "usage_today": {
            "day": today.to_string(),
            "calls": account.calls_on(today, None),
        },
        "keys": keys,
    })
}

/// Catches up, then verifies. On PostgreSQL a catch-up stops at the oldest transaction
/// still running in the cluster; such transactions end in milliseconds, so it is tried
/// again until nothing is behind, for at most [`CATCH_UP_WAIT_MS`]. Events still behind
/// then were not compared, so the report is not ok.
async fn caught_up_report(
    projector: &Projector,
) -> anyhow::Result<manabi_projector::verify::VerifyReport> {
    let started = std::time::Instant::now();
    loop {
        projector.catch_up().await?;
        let mut report = manabi_projector::verify::verify(projector.store()).await?;
        let waited = started.elapsed() > std::time::Duration::from_millis(CATCH_UP_WAIT_MS);
        if report.events_behind_checkpoint == 0 || waited {
            report.require_caught_up();
            return Ok(report);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// How long `ledger verify --catch-up` keeps catching up while events are behind.
const CATCH_UP_WAIT_MS: u64 = 30_000;

async fn verify(store: Store, catch_up: bool) -> anyhow::Result<ExitCode> {
    let projector = Projector::new(store).await?;
    let report = if catch_up {
        caught_up_report(&projector).await?
    } else {
        manabi_projector::verify::verify(projector.store()).await?
    };
    println!("{}", serde_json::to_string(&report)?);
    if report.ok {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("ledger verify: {} difference(s)", report.differences.len());
        Ok(ExitCode::FAILURE)
    }
}

async fn statement(store: Store, args: StatementArgs) -> anyhow::Result<ExitCode> {
    let month = Month::parse(&args.month)?;
    let projector = Projector::new(store).await?;
    if args.catch_up {
        projector.catch_up().await?;
    }
    let Some(account) = args.account else {
        let statement = x402_statement(projector.store(), month).await?;
        match args.format {
            FormatArg::Json => println!("{}", serde_json::to_string(&statement)?),
            FormatArg::Csv => print!("{}", x402_statement_csv(&statement)),
        }
        return Ok(ExitCode::SUCCESS);
    };
    let statement = monthly_statement(projector.store(), account, month).await?;
    match args.format {
        FormatArg::Json => println!("{}", serde_json::to_string(&statement)?),
        FormatArg::Csv => print!("{}", statement_csv(&statement)),
    }
    Ok(ExitCode::SUCCESS)
}
