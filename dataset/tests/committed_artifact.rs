//! Checks the committed artifact (`data/manabi-dataset.jsonl.zst`) the server ships with:
//! it passes `verify`, stays within its size budget, loads fast enough, and meets the
//! dataset's content goals for the language entries.

use std::path::PathBuf;
use std::time::Instant;

use manabi_artifact::Artifact;
use manabi_dataset::build::ARTIFACT_BYTES_MAX;
use manabi_dataset::{stats, verify};

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/manabi-dataset.jsonl.zst")
}

#[test]
fn the_committed_artifact_verifies_and_meets_the_goals() {
    let path = committed();
    let bytes = std::fs::metadata(&path)
        .expect("data/manabi-dataset.jsonl.zst is committed")
        .len();
    assert!(
        bytes <= ARTIFACT_BYTES_MAX,
        "{bytes} bytes is over the budget"
    );

    let started = Instant::now();
    let artifact = Artifact::load(&path).expect("loads");
    // Generous bound for unoptimised test builds on a busy machine; the release
    // measurement is bench/dataset_load.sh.
    assert!(started.elapsed().as_secs() < 10);

    let problems = verify::verify(&artifact);
    assert!(problems.is_empty(), "{:#?}", problems.lines());

    let report = stats::stats(&artifact).expect("stats");
    assert!(report.counts["kanji"] >= 2_375);
    assert!(report.counts["character"] + report.counts["radical"] >= 579);
    assert_eq!(report.counts["radical"], 214);
    assert!(report.coverage["kanji.dic_refs_avg"] >= 19.0);
    let quality = &report.quality;
    assert_eq!(quality["kanji_joyo"], 2_136, "every jōyō kanji is built");
    assert_eq!(
        quality["kanji_joyo_graded"] + quality["kanji_joyo_ungraded_with_reason"],
        2_136,
        "every jōyō kanji has a level or a recorded reason"
    );
    assert!(quality["kanji_joyo_graded"] >= 1_979);
    assert_eq!(
        quality["kanji_not_joyo_graded"], 0,
        "name-only kanji are not JLPT kanji"
    );
    assert_eq!(
        quality["beginner_core_present"], quality["beginner_core_rows"],
        "the beginner core is present at its level"
    );
    assert!(report.counts["vocabulary"] >= 7_700);
    assert!(
        report.coverage["vocabulary.frequency_rank"] >= 0.9,
        "most words have a corpus frequency rank"
    );
    assert!(
        report.coverage["vocabulary.frequent_content_words_present"] >= 0.97,
        "the frequent content words of wordfreq's list are entries"
    );
    assert_eq!(
        quality["beginner_core_ungraded_present"], quality["beginner_core_ungraded_rows"],
        "the beginner words no list grades are present"
    );
}
