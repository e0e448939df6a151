//! `manabi dataset fetch|build|stats|verify`.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum DatasetCommand {
    /// Download the pinned upstream sources into var/sources/.
    Fetch,
}

pub fn run(_command: DatasetCommand) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dataset commands are not built yet")
}
