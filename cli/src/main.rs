//! The `manabi` binary: one entry point for the server, the background workers, the
//! dataset pipeline and the operators' admin commands.

mod admin_cmd;
mod dataset_cmd;
mod projector_cmd;
mod serve_cmd;

use clap::{Parser, Subcommand};

/// manabi: a JLPT-graded Japanese learning dataset served over REST and MCP, billed in
/// prepaid yen points.
#[derive(Debug, Parser)]
#[command(name = "manabi", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP server (REST under /api/v1, MCP at /mcp).
    Serve(serve_cmd::ServeArgs),
    /// Run the ledger projector alone (production deployments).
    Projector(projector_cmd::ProjectorArgs),
    /// Load the dataset artifact into the search engine.
    SearchSync(serve_cmd::SearchSyncArgs),
    /// Fetch sources, build, report on and verify the dataset artifact.
    #[command(subcommand)]
    Dataset(dataset_cmd::DatasetCommand),
    /// Operators' commands: accounts, keys, top-ups, caps, ledger checks, statements.
    #[command(subcommand)]
    Admin(admin_cmd::AdminCommand),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve_cmd::serve(args),
        Command::Projector(args) => projector_cmd::run(args),
        Command::SearchSync(args) => serve_cmd::search_sync(args),
        Command::Dataset(command) => dataset_cmd::run(command),
        Command::Admin(command) => admin_cmd::run(command),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
