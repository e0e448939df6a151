//! manabi dataset: fetches the pinned upstream open sources, builds the learnable documents
//! with their citations and relationships, and writes the compressed artifact the server
//! loads; `stats` and `verify` report on and check an artifact.

pub mod boundary;
pub mod build;
pub mod characters;
pub mod cli;
pub mod conjugation;
pub mod context;
pub mod editors;
pub mod fetch;
pub mod fields;
pub mod grammar;
pub mod history;
pub mod ids;
pub mod kanji;
pub mod kanjivg;
pub mod lessons;
pub mod pins;
pub mod quality;
pub mod radicals;
pub mod sources;
pub mod stats;
pub mod translations;
pub mod verify;
pub mod vocabulary;
pub mod xml;

pub use context::{BuildContext, BuildInputs, BuiltLearnable, Part};
pub use manabi_artifact::{Artifact, ArtifactWriter, LoadedLearnable, Manifest, RawDoc, Record};
