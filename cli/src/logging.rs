//! Logging of the long-running commands: to standard error (standard output carries
//! only what a command prints for scripts), with terminal colours only on a terminal.

use std::io::IsTerminal;

pub fn init(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}
