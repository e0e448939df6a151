//! manabi search-sync: builds the search surface of every entry (written forms, readings
//! normalised to hiragana, romaji, English meaning tokens, aliases) and loads it into a
//! search engine: the embedded index by default, Meilisearch in production.

pub mod index;
pub mod kana;
pub mod query;
pub mod surface;

pub use index::{EmbeddedIndex, IndexEntry, IndexError, SearchHits, SearchRequest, Tier};
pub use surface::Surface;
