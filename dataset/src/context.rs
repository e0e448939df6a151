//! What every content builder receives and returns.

use std::path::{Path, PathBuf};

use manabi_schemas::{Learnable, Relation};

/// Where the unpacked sources are, for the builders of one `dataset build` run.
#[derive(Debug, Clone)]
pub struct BuildContext {
    sources_dir: PathBuf,
}

impl BuildContext {
    pub fn new(sources_dir: impl Into<PathBuf>) -> Self {
        Self { sources_dir: sources_dir.into() }
    }

    /// The directory a source was unpacked into: `<sources>/<key>/`.
    pub fn source_dir(&self, key: &str) -> PathBuf {
        self.sources_dir.join(key)
    }

    /// A file inside a source's directory.
    pub fn source_file(&self, key: &str, relative: impl AsRef<Path>) -> PathBuf {
        self.source_dir(key).join(relative)
    }
}

/// One learnable as a builder produced it, with its evaluation-sample membership.
#[derive(Debug, Clone)]
pub struct BuiltLearnable {
    pub learnable: Learnable,
    /// True when keyless callers may see this entry.
    pub sample: bool,
}

/// What one builder contributes to the artifact. The orchestrator keeps only relations
/// whose two ends exist, and sorts everything by id so builds are reproducible.
#[derive(Debug, Clone, Default)]
pub struct Part {
    pub learnables: Vec<BuiltLearnable>,
    pub relations: Vec<Relation>,
}
