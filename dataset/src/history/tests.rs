//! Tests on small real excerpts of each source (`dataset/fixtures/history/`), and a report
//! on the full sources behind `MANABI_HISTORY_SOURCES`.

use super::*;

/// Runs the whole history build on unpacked sources and prints the counts and ten
/// entities: `MANABI_HISTORY_SOURCES=var/sources cargo test -p manabi-dataset
/// history_report -- --nocapture`.
#[test]
fn history_report() {
    let Ok(dir) = std::env::var("MANABI_HISTORY_SOURCES") else {
        return;
    };
    let started = std::time::Instant::now();
    let part = build(&BuildContext::new(dir)).expect("history build");
    let elapsed = started.elapsed();
    let counts = counts(&part);
    println!("history build: {:.1} s", elapsed.as_secs_f64());
    println!(
        "entities: {}  sample: {}",
        part.learnables.len(),
        counts.sample
    );
    for (kind, n) in &counts.by_type {
        println!("  type {kind:<8} {n:>6}");
    }
    println!(
        "relations: {} of {} types",
        part.relations.len(),
        counts.by_relationship.len()
    );
    for (kind, n) in &counts.by_relationship {
        println!("  rel  {kind:<16} {n:>6}");
    }
    let step = part.learnables.len() / 10;
    for built in part.learnables.iter().step_by(step.max(1)).take(10) {
        let l = &built.learnable;
        println!(
            "  {}  {}: {}",
            l.id,
            l.label.clone().unwrap_or_default(),
            l.meaning.clone().unwrap_or_default()
        );
    }
}
