//! manabi dataset: fetches the pinned upstream open sources, builds the learnable documents
//! with their citations and relationships, and writes the compressed artifact the server
//! loads; `stats` and `verify` report on and check an artifact.

pub mod artifact;
pub mod context;
pub mod grammar;
pub mod vocabulary;

pub use artifact::{Artifact, ArtifactWriter, LoadedLearnable, Manifest, RawDoc, Record};
pub use context::{BuildContext, BuiltLearnable, Part};
