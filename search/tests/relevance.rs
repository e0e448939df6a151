//! The relevance suite: what learners and agents type (Japanese in every script, romaji
//! in every spelling, English words and phrases, grammar patterns, history names and
//! events, typos), each with the entry that must appear and the rank it must reach, on
//! the full index of the committed artifact (what paying callers search). The queries
//! are in `tests/relevance/queries.tsv`; `docs/search.md` reports the pass rate and the
//! mean reciprocal rank. Run with `--nocapture` to see every miss.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use manabi_schemas::LearnableType;
use manabi_search::SearchRequest;

/// The suite passes when this share of its rows pass…
const PASS_RATE_MIN: f64 = 0.97;
/// …and the mean reciprocal rank of the expected entries reaches this.
const MRR_MIN: f64 = 0.95;
/// Ranks are read from the longest page a caller can ask for.
const PAGE: usize = 20;
/// A noise row checks the default page.
const DEFAULT_PAGE: usize = 10;

/// One line of the suite.
struct Case {
    category: String,
    query: String,
    kind: Option<LearnableType>,
    expect: String,
    /// The rank the entry must reach at worst; 0: it must not appear at all.
    rank: usize,
}

fn kind_of(name: &str) -> LearnableType {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .unwrap_or_else(|_| panic!("unknown type {name:?} in the relevance suite"))
}

/// The suite's file; `MANABI_RELEVANCE_QUERIES` names another one (a few queries being
/// worked on).
fn suite_path() -> PathBuf {
    std::env::var_os("MANABI_RELEVANCE_QUERIES").map_or_else(
        || common::repository().join("tests/relevance/queries.tsv"),
        PathBuf::from,
    )
}

fn cases() -> Vec<Case> {
    let path = suite_path();
    let text = std::fs::read_to_string(&path).expect("tests/relevance/queries.tsv is readable");
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert!(fields.len() >= 5, "malformed line: {line:?}");
            Case {
                category: fields[0].to_owned(),
                query: fields[1].to_owned(),
                kind: (fields[2] != "-").then(|| kind_of(fields[2])),
                expect: fields[3].to_owned(),
                rank: fields[4].parse().expect("rank is a number"),
            }
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    rows: usize,
    passed: usize,
    reciprocal: f64,
    ranked: usize,
}

#[test]
fn learners_find_what_they_type() {
    let Some(artifact) = common::committed_artifact() else {
        return;
    };
    let index = common::index_of(&artifact);
    let position: BTreeMap<&str, usize> = artifact
        .learnables
        .iter()
        .enumerate()
        .map(|(at, learnable)| (learnable.summary.id.as_str(), at))
        .collect();
    let cases = cases();
    if std::env::var_os("MANABI_RELEVANCE_QUERIES").is_none() {
        assert!(
            cases.len() >= 300,
            "the suite holds {} queries",
            cases.len()
        );
    }
    let mut by_category: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    for case in &cases {
        let Some(&expected) = position.get(case.expect.as_str()) else {
            panic!(
                "{:?} expects {}, which is not in the artifact",
                case.query, case.expect
            );
        };
        let request = SearchRequest {
            query: &case.query,
            kind: case.kind,
            jlpt_level: None,
            sample_only: false,
            limit: if case.rank == 0 { DEFAULT_PAGE } else { PAGE },
        };
        let hits = index.search(&request).hits;
        let found = hits
            .iter()
            .position(|&hit| hit == expected)
            .map(|at| at + 1);
        let tally = by_category.entry(&case.category).or_default();
        tally.rows += 1;
        let passed = if case.rank == 0 {
            found.is_none()
        } else {
            tally.ranked += 1;
            tally.reciprocal += found.map_or(0.0, |rank| 1.0 / rank as f64);
            found.is_some_and(|rank| rank <= case.rank)
        };
        if passed {
            tally.passed += 1;
        } else {
            let top: Vec<&str> = hits
                .iter()
                .take(5)
                .map(|&hit| artifact.learnables[hit].summary.id.as_str())
                .collect();
            misses.push(format!(
                "{} {:?} expects {} at <= {} (0: absent), found {:?}; top: {}",
                case.category,
                case.query,
                case.expect,
                case.rank,
                found,
                top.join(" ")
            ));
        }
    }
    let total = by_category
        .values()
        .fold(Tally::default(), |all, one| Tally {
            rows: all.rows + one.rows,
            passed: all.passed + one.passed,
            reciprocal: all.reciprocal + one.reciprocal,
            ranked: all.ranked + one.ranked,
        });
    println!("| category | queries | passed | MRR |");
    println!("|---|---:|---:|---:|");
    let rows = by_category
        .iter()
        .map(|(category, tally)| (*category, tally));
    for (category, tally) in rows.chain([("all", &total)]) {
        let mrr = if tally.ranked == 0 {
            "—".to_owned()
        } else {
            format!("{:.3}", tally.reciprocal / tally.ranked as f64)
        };
        println!("| {category} | {} | {} | {mrr} |", tally.rows, tally.passed);
    }
    for miss in &misses {
        println!("miss: {miss}");
    }
    let pass_rate = total.passed as f64 / total.rows as f64;
    let mrr = total.reciprocal / total.ranked as f64;
    println!("pass rate {pass_rate:.3}, MRR {mrr:.3}");
    assert!(
        pass_rate >= PASS_RATE_MIN && mrr >= MRR_MIN,
        "pass rate {pass_rate:.3} (goal {PASS_RATE_MIN}), MRR {mrr:.3} (goal {MRR_MIN}); \
         misses above"
    );
}
