//! `manabi admin …`: operators' commands; stdout is one JSON object.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum AdminCommand {
    /// Check the ledger against the read models.
    #[command(subcommand)]
    Ledger(LedgerCommand),
}

#[derive(Debug, clap::Subcommand)]
pub enum LedgerCommand {
    /// Replay every stream and compare with the read models.
    Verify,
}

pub fn run(_command: AdminCommand) -> anyhow::Result<ExitCode> {
    anyhow::bail!("admin commands are not built yet")
}
