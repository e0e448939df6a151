//! The `manabi` binary: one entry point for the server, the background workers, the
//! dataset pipeline and the operators' admin commands.

mod admin_cmd;
mod dataset_cmd;
mod logging;
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
    Projector(manabi_api::settings::ProjectorOptions),
    /// Build the embedded search index from the artifact once, to check it and time it.
    SearchIndex(serve_cmd::SearchIndexArgs),
    /// Fetch sources, build, report on and verify the dataset artifact.
    #[command(subcommand)]
    Dataset(dataset_cmd::DatasetCommand),
    /// Operators' commands: accounts, keys, top-ups, caps, ledger checks, statements.
    Admin(admin_cmd::AdminArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve_cmd::serve(args),
        Command::Projector(args) => projector_cmd::run(args),
        Command::SearchIndex(args) => serve_cmd::search_index(args),
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
