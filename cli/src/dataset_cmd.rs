//! `manabi dataset fetch|build|stats|verify`: the dataset crate's own commands.

pub use manabi_dataset::cli::{DatasetCommand, run};
