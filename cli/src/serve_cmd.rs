//! `manabi serve` and `manabi search-sync`.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {}

#[derive(Debug, clap::Args)]
pub struct SearchSyncArgs {}

pub fn serve(_args: ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("serve is not built yet")
}

pub fn search_sync(_args: SearchSyncArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("search-sync is not built yet")
}
