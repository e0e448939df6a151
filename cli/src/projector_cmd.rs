//! `manabi projector`: the read-model projector as its own process (production). Stops
//! on SIGINT/SIGTERM; an interrupted batch is rolled back whole, and the next start
//! resumes from the checkpoint.

use std::process::ExitCode;

use anyhow::Context;
use manabi_ledger::Store;
use manabi_projector::{BATCH_EVENTS_DEFAULT, Projector};

#[derive(Debug, clap::Args)]
pub struct ProjectorArgs {
    /// Events projected per transaction.
    #[arg(long, env = "MANABI_PROJECTOR_BATCH_EVENTS", default_value_t = BATCH_EVENTS_DEFAULT)]
    batch_events: u32,
    /// Project what is there, then exit (instead of following the ledger).
    #[arg(long)]
    once: bool,
}

pub fn run(args: ProjectorArgs) -> anyhow::Result<ExitCode> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MANABI_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(project(args))
}

async fn project(args: ProjectorArgs) -> anyhow::Result<ExitCode> {
    let url = manabi_ledger::database_url_from_env();
    let store = Store::connect(&url)
        .await
        .context("opening the ledger database (MANABI_DATABASE_URL)")?;
    let projector = Projector::new(store)
        .await?
        .with_batch_events_max(args.batch_events);
    if args.once {
        let events = projector.catch_up().await?;
        println!("{}", serde_json::json!({ "events_projected": events }));
        return Ok(ExitCode::SUCCESS);
    }
    tracing::info!("projector following the ledger");
    projector.run_until(shutdown_signal()).await;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
