//! What every content builder receives and returns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use manabi_schemas::{Learnable, Relation};

use crate::pins::{SourcePin, Sources};

/// Where the unpacked sources are, for the builders of one `dataset build` run, and the
/// pins they cite.
#[derive(Debug, Clone)]
pub struct BuildContext {
    sources_dir: PathBuf,
    sources: Sources,
}

#[derive(Debug, thiserror::Error)]
#[error("source {0} is not in dataset/sources.toml")]
pub struct UnknownSource(pub String);

impl BuildContext {
    /// A context citing the pins compiled into this binary.
    pub fn new(sources_dir: impl Into<PathBuf>) -> Self {
        // The compiled-in pin list is checked by a unit test; an empty list would only
        // make every builder fail with UnknownSource, never build uncited entries.
        let sources = Sources::pinned().unwrap_or_default();
        Self {
            sources_dir: sources_dir.into(),
            sources,
        }
    }

    pub fn with_sources(sources_dir: impl Into<PathBuf>, sources: Sources) -> Self {
        Self {
            sources_dir: sources_dir.into(),
            sources,
        }
    }

    /// The directory a source was unpacked into: `<sources>/<key>/`.
    pub fn source_dir(&self, key: &str) -> PathBuf {
        self.sources_dir.join(key)
    }

    /// A file inside a source's directory.
    pub fn source_file(&self, key: &str, relative: impl AsRef<Path>) -> PathBuf {
        self.source_dir(key).join(relative)
    }

    /// The pin of a source, for its citations.
    pub fn pin(&self, key: &str) -> Result<&SourcePin, UnknownSource> {
        self.sources
            .get(key)
            .ok_or_else(|| UnknownSource(key.to_string()))
    }

    pub fn sources(&self) -> &Sources {
        &self.sources
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

/// The entries built so far, for builders that link to them (grammar examples, lessons).
#[derive(Debug, Default)]
pub struct BuildInputs<'a> {
    by_id: BTreeMap<&'a str, &'a BuiltLearnable>,
}

impl<'a> BuildInputs<'a> {
    pub fn new(parts: &'a [Part]) -> Self {
        let by_id = parts
            .iter()
            .flat_map(|part| &part.learnables)
            .map(|built| (built.learnable.id.as_str(), built))
            .collect();
        Self { by_id }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn get(&self, id: &str) -> Option<&'a Learnable> {
        self.by_id.get(id).map(|built| &built.learnable)
    }

    /// Every entry built so far, in id order.
    pub fn learnables(&self) -> impl Iterator<Item = &'a Learnable> + '_ {
        self.by_id.values().map(|built| &built.learnable)
    }
}
