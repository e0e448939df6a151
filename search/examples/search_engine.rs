//! Engine micro-benchmark: µs per search for a mix of queries (romaji, kana, kanji,
//! English, prefixes, typos) against the full index (callers with a key) and the sample
//! index (keyless callers), on one thread, with no HTTP in between.
//!
//! `cargo run --release -p manabi-search --example search_engine [artifact]`
//! (or `bash bench/search_engine.sh`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use manabi_artifact::{Artifact, LoadedLearnable};
use manabi_search::{EmbeddedIndex, IndexEntry, SearchIndex, SearchRequest};

/// The mix: what learners type, misspellings included.
const QUERIES: &[&str] = &[
    "taberu",
    "gakkou",
    "nihon",
    "たべる",
    "がっこう",
    "コーヒー",
    "食べる",
    "日本",
    "学校",
    "eat",
    "school",
    "to eat",
    "coffee shop",
    "tabe",
    "shcool",
    "teachr",
    "mountian",
    "cofee",
    "internationl",
    "たべろ",
    "xyzzyq",
];
/// Each query runs at least this long, and at least `RUNS_MIN` times.
const QUERY_TIME_MIN: Duration = Duration::from_millis(200);
const RUNS_MIN: u32 = 50;
/// Runs of each relevance-suite query, and how many of the slowest are listed.
const SUITE_RUNS: u32 = 20;
const SLOWEST_SHOWN: usize = 12;

fn main() {
    let path = std::env::args().nth(1).map_or_else(
        || PathBuf::from("data/manabi-dataset.jsonl.zst"),
        PathBuf::from,
    );
    let started = Instant::now();
    let artifact = Artifact::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let loaded = started.elapsed();
    let entries: Vec<IndexEntry<'_>> = artifact
        .learnables
        .iter()
        .map(LoadedLearnable::index_entry)
        .collect();
    let started = Instant::now();
    let index = SearchIndex::build(&entries).expect("index builds");
    let built = started.elapsed();
    println!(
        "{}: loaded in {} ms; both indexes built in {} ms",
        path.display(),
        loaded.as_millis(),
        built.as_millis()
    );
    for (name, part) in [("full", index.full()), ("sample", index.sample())] {
        println!(
            "  {name:6} index: {:>6} entries, {:>6} terms, typo table {:.1} MB",
            part.len(),
            part.term_count(),
            part.typo_table_bytes() as f64 / 1e6
        );
    }
    println!(
        "\n{:<14} {:>12} {:>8} {:>12} {:>8}",
        "query (limit 10)", "full µs", "total", "sample µs", "total"
    );
    let (mut full_sum, mut sample_sum) = (0.0, 0.0);
    for query in QUERIES {
        let (full_us, full_total) = time(index.full(), query, false);
        let (sample_us, sample_total) = time(index.sample(), query, true);
        full_sum += full_us;
        sample_sum += sample_us;
        println!("{query:<16} {full_us:>12.1} {full_total:>8} {sample_us:>12.1} {sample_total:>8}");
    }
    let count = QUERIES.len() as f64;
    println!(
        "{:<16} {:>12.1} {:>8} {:>12.1}",
        "mean",
        full_sum / count,
        "",
        sample_sum / count
    );
    suite(index.full());
}

/// Every query of the relevance suite on the full index, with its `type` filter: the
/// mean, the 99th percentile of the per-query means, and the slowest queries.
fn suite(index: &EmbeddedIndex) {
    let Ok(text) = std::fs::read_to_string("tests/relevance/queries.tsv") else {
        return;
    };
    let mut timed: Vec<(f64, String)> = Vec::new();
    for line in text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let kind = (fields.get(2) != Some(&"-"))
            .then(|| fields.get(2))
            .flatten()
            .and_then(|name| serde_json::from_value(serde_json::Value::from(*name)).ok());
        let request = SearchRequest {
            query: fields[1],
            kind,
            jlpt_level: None,
            sample_only: false,
            limit: 10,
        };
        let started = Instant::now();
        for _ in 0..SUITE_RUNS {
            std::hint::black_box(index.search(std::hint::black_box(&request)));
        }
        let micros = started.elapsed().as_secs_f64() * 1e6 / f64::from(SUITE_RUNS);
        timed.push((micros, fields[1].to_owned()));
    }
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mean = timed.iter().map(|(us, _)| us).sum::<f64>() / timed.len() as f64;
    let p99 = timed[(timed.len() * 99 / 100).min(timed.len() - 1)].0;
    println!(
        "\nrelevance suite, full index: {} queries, mean {mean:.1} µs, p99 {p99:.1} µs; slowest:",
        timed.len()
    );
    for (us, query) in timed.iter().rev().take(SLOWEST_SHOWN) {
        println!("  {us:>9.1} µs  {query}");
    }
}

/// Mean µs of one search, and its `total_candidates`.
fn time(index: &EmbeddedIndex, query: &str, sample_only: bool) -> (f64, usize) {
    let request = SearchRequest {
        query,
        kind: None,
        jlpt_level: None,
        sample_only,
        limit: 10,
    };
    let total = index.search(&request).total_candidates;
    let started = Instant::now();
    let mut runs = 0u32;
    while runs < RUNS_MIN || started.elapsed() < QUERY_TIME_MIN {
        std::hint::black_box(index.search(std::hint::black_box(&request)));
        runs += 1;
    }
    (
        started.elapsed().as_secs_f64() * 1e6 / f64::from(runs),
        total,
    )
}
