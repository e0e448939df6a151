//! `manabi-dataset`: the dataset pipeline (fetch, build, stats, verify) without the server,
//! e.g. `cargo run -p manabi-dataset --bin manabi-dataset -- build`.

use std::process::ExitCode;

use clap::Parser;
use manabi_dataset::cli::{self, DatasetCommand};

/// Fetch the pinned sources, build, report on and verify the manabi dataset artifact.
#[derive(Debug, Parser)]
#[command(name = "manabi-dataset", version, about)]
struct Args {
    #[command(subcommand)]
    command: DatasetCommand,
}

fn main() -> ExitCode {
    match cli::run(Args::parse().command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
