//! The `fetch | build | stats | verify` subcommands, shared by `manabi dataset` and the
//! standalone `manabi-dataset` binary.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::build::{self, ARTIFACT_BYTES_MAX, ARTIFACT_FILE, BuildOptions, Builder};
use crate::fetch::{self, FetchOutcome};
use crate::pins::Sources;
use crate::{stats, verify};
use manabi_artifact::Artifact;

fn default_sources() -> PathBuf {
    PathBuf::from("var/sources")
}

fn default_artifact() -> PathBuf {
    build::default_out_dir().join(ARTIFACT_FILE)
}

#[derive(Debug, clap::Subcommand)]
pub enum DatasetCommand {
    /// Download the pinned upstream sources and unpack the files the build reads.
    Fetch {
        /// Directory the sources are unpacked into (one folder per source key).
        #[arg(long, default_value_os_t = default_sources())]
        sources: PathBuf,
        /// Pin list to use instead of the one compiled in (dataset/sources.toml).
        #[arg(long)]
        pins: Option<PathBuf>,
    },
    /// Build the dataset artifact and its manifest from the unpacked sources.
    Build {
        #[arg(long, default_value_os_t = default_sources())]
        sources: PathBuf,
        /// Output directory for manabi-dataset.jsonl.zst and manifest.json.
        #[arg(long, default_value_os_t = build::default_out_dir())]
        out: PathBuf,
        /// Run only these builders (default: all).
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<Builder>,
    },
    /// Counts per type and JLPT level, and the coverage of optional fields.
    Stats {
        #[arg(long, default_value_os_t = default_artifact())]
        artifact: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check ids, relations, citations, levels and summaries; non-zero exit on a problem.
    Verify {
        #[arg(long, default_value_os_t = default_artifact())]
        artifact: PathBuf,
    },
    /// Check grammar content files: Tatoeba matches, chosen example ids, format and level
    /// errors; non-zero exit when a point would be left out of the build.
    GrammarCheck {
        /// Content files to check (default: every file in dataset/content/grammar).
        files: Vec<PathBuf>,
        #[arg(long, default_value_os_t = default_sources())]
        sources: PathBuf,
    },
}

pub fn run(command: DatasetCommand) -> anyhow::Result<ExitCode> {
    match command {
        DatasetCommand::Fetch { sources, pins } => run_fetch(&sources, pins.as_deref()),
        DatasetCommand::Build { sources, out, only } => run_build(sources, out, only),
        DatasetCommand::Stats { artifact, json } => run_stats(&artifact, json),
        DatasetCommand::Verify { artifact } => run_verify(&artifact),
        DatasetCommand::GrammarCheck { files, sources } => {
            crate::grammar::run_check(&files, &sources)
        }
    }
}

fn run_fetch(sources_dir: &Path, pins: Option<&Path>) -> anyhow::Result<ExitCode> {
    let sources = match pins {
        Some(path) => Sources::load(path)?,
        None => Sources::pinned()?,
    };
    fetch::fetch_all(&sources, sources_dir, |pin, outcome| match outcome {
        FetchOutcome::AlreadyPresent => println!("{:<20} {} already present", pin.key, pin.version),
        FetchOutcome::Unpacked { files } => {
            println!("{:<20} {} unpacked {files} files", pin.key, pin.version);
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn run_build(
    sources_dir: PathBuf,
    out_dir: PathBuf,
    only: Vec<Builder>,
) -> anyhow::Result<ExitCode> {
    let builders = if only.is_empty() {
        Builder::ALL.to_vec()
    } else {
        only
    };
    let started = Instant::now();
    let options = BuildOptions {
        sources_dir,
        out_dir,
        builders,
        progress: true,
    };
    let report = build::build(&options)?;
    for (kind, count) in &report.manifest.counts {
        println!("{kind:<20} {count}");
    }
    println!(
        "relations dropped (an end does not exist): {}",
        report.relations_dropped
    );
    println!(
        "wrote {} ({:.2} MB) in {:.1} s",
        report.artifact.display(),
        report.artifact_bytes as f64 / 1_048_576.0,
        started.elapsed().as_secs_f64()
    );
    if report.artifact_bytes > ARTIFACT_BYTES_MAX {
        eprintln!("error: the artifact is larger than {ARTIFACT_BYTES_MAX} bytes");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Peak resident set size of this process in kB (Linux), for the load measurement.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run_stats(path: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let artifact = Artifact::load(path)?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let rss_kb = peak_rss_kb();
    let report = stats::stats(&artifact)?;
    if json {
        let mut value = serde_json::to_value(&report)?;
        if let Some(object) = value.as_object_mut() {
            object.insert(
                "load".to_string(),
                serde_json::json!({ "ms": load_ms.round(), "peak_rss_kb": rss_kb }),
            );
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", stats::render(&report));
        let rss = rss_kb.map_or_else(|| "unknown".to_string(), |kb| format!("{} MB", kb / 1024));
        println!("loaded in {load_ms:.0} ms, peak RSS {rss}");
    }
    Ok(ExitCode::SUCCESS)
}

fn run_verify(path: &Path) -> anyhow::Result<ExitCode> {
    let artifact = Artifact::load(path)?;
    let problems = verify::verify(&artifact);
    if problems.is_empty() {
        println!(
            "ok: {} learnables, {} relations, {} lessons, {} journeys, {} worlds",
            artifact.learnables.len(),
            artifact.relations.len(),
            artifact.lessons.len(),
            artifact.journeys.len(),
            artifact.worlds.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for line in problems.lines() {
        eprintln!("{line}");
    }
    eprintln!("{} problems", problems.len());
    Ok(ExitCode::FAILURE)
}
