//! `manabi serve` and `manabi search-index`. Every option is declared in
//! `manabi_api::settings`; this file only runs the server with them.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use manabi_api::Application;
use manabi_api::settings::{ArtifactSource, ServeOptions};

/// The dataset artifact built into the binary, served when `MANABI_ARTIFACT` names no
/// other: `manabi serve` works from any directory.
pub static BUILT_IN_ARTIFACT: &[u8] = include_bytes!("../../data/manabi-dataset.jsonl.zst");

/// Run the HTTP server. Every option can also be set by the environment variable shown.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    // Boxed: the options are many, and the command enum should stay small.
    #[command(flatten)]
    options: Box<ServeOptions>,
}

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let args = args.options;
    crate::logging::init(&args.log.filter);
    if let Some(path) = &args.artifact {
        anyhow::ensure!(
            path.is_file(),
            "the dataset artifact {} does not exist (MANABI_ARTIFACT; without it the \
             artifact built into the binary is served)",
            path.display()
        );
    }
    let data_dir = &args.ledger.data_dir;
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("creating {}", data_dir.display()))?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("binding {}", args.bind))?;
        let bound = listener.local_addr()?;
        let settings = args.settings(bound, ArtifactSource::Embedded(BUILT_IN_ARTIFACT))?;
        let application = Application::build(settings, listener)
            .await
            .context("starting the server")?;
        println!("manabi listening on http://{bound}");
        tracing::info!(address = %bound, "listening");
        application.run_until_stopped().await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Build the embedded search index from the dataset artifact once. The index lives in
/// the server's memory and is rebuilt by `manabi serve` at every start; this command
/// builds it to check an artifact and report the index's size and build time.
#[derive(Debug, clap::Args)]
pub struct SearchIndexArgs {
    /// The dataset artifact to index (default: the one built into the binary).
    #[arg(long, env = "MANABI_ARTIFACT")]
    artifact: Option<PathBuf>,
}

pub fn search_index(args: SearchIndexArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let source = args.artifact.map_or(
        ArtifactSource::Embedded(BUILT_IN_ARTIFACT),
        ArtifactSource::File,
    );
    let catalog =
        manabi_api::catalog::Catalog::load(&source).with_context(|| format!("loading {source}"))?;
    println!(
        "embedded index: {} entries, {} terms, built from {source} in {} ms",
        catalog.index.len(),
        catalog.index.term_count(),
        started.elapsed().as_millis()
    );
    Ok(ExitCode::SUCCESS)
}
