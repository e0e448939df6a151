//! The committed artifact and its search index, for the tests that read the real dataset.

use std::path::{Path, PathBuf};

use manabi_artifact::{Artifact, LoadedLearnable};
use manabi_search::{IndexEntry, SearchIndex};

/// The repository's root.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The committed artifact, or `None` (with a note saying the test is skipped) while no
/// artifact is committed.
pub fn committed_artifact() -> Option<Artifact> {
    let path = repository().join("data/manabi-dataset.jsonl.zst");
    if !path.is_file() {
        eprintln!("no committed artifact at data/manabi-dataset.jsonl.zst; skipped");
        return None;
    }
    Some(Artifact::load(&path).expect("the committed artifact loads"))
}

/// Both indexes over every entry of the artifact, as a server builds them.
pub fn index_of(artifact: &Artifact) -> SearchIndex {
    let entries: Vec<IndexEntry<'_>> = artifact
        .learnables
        .iter()
        .map(LoadedLearnable::index_entry)
        .collect();
    SearchIndex::build(&entries).expect("the index builds")
}
