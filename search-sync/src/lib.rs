//! manabi search-sync: builds the search surface of every entry (written forms, readings
//! normalised to hiragana, romaji, English meaning tokens, aliases) and loads it into a
//! search engine: the embedded index by default, Meilisearch in production.

pub mod index;
pub mod kana;
pub mod query;
mod search_index;
pub mod surface;
mod typo;

pub use index::{EmbeddedIndex, IndexEntry, IndexError, SearchHits, SearchRequest, Tier};
pub use search_index::SearchIndex;
pub use surface::Surface;
