//! manabi search: the search surface of every entry (written forms, readings normalised to
//! hiragana, romaji, English meaning tokens, aliases), query normalisation, and the
//! embedded index every server replica builds in memory at start and ranks with.

pub mod index;
pub mod kana;
mod loose;
pub mod query;
mod search_index;
pub mod surface;
mod typo;

pub use index::{EmbeddedIndex, IndexEntry, IndexError, SearchHits, SearchRequest, Tier};
pub use search_index::SearchIndex;
pub use surface::Surface;
