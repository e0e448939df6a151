//! Readers of the upstream files that more than one subject is built from. Each file has
//! exactly one reader here, which returns the file's records as the upstream writes them;
//! what a record means to vocabulary, grammar or history is decided by those builders.

pub mod jmdict;
pub mod tatoeba;
