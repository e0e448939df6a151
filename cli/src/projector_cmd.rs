//! `manabi projector`: the read-model projector as its own process (production). Stops
//! on SIGINT/SIGTERM; an interrupted batch is rolled back whole, and the next start
//! resumes from the checkpoint.

use std::process::ExitCode;

use anyhow::Context;
use manabi_api::settings::ProjectorOptions;
use manabi_ledger::Store;
use manabi_projector::Projector;
use secrecy::ExposeSecret;

pub fn run(args: ProjectorOptions) -> anyhow::Result<ExitCode> {
    crate::logging::init(&args.log.filter);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(project(args))
}

async fn project(args: ProjectorOptions) -> anyhow::Result<ExitCode> {
    let store = Store::connect(args.ledger.database_url().expose_secret())
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
    projector.run_until(shutdown_signal()).await?;
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
