//! `manabi projector`: the read-model projector as its own process.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ProjectorArgs {}

pub fn run(_args: ProjectorArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("projector is not built yet")
}
