//! manabi search-sync: builds the search surface of every entry (written forms, readings
//! normalised to hiragana, romaji, English meaning tokens, aliases) and loads it into a
//! search engine: the embedded index by default, Meilisearch in production.

pub mod kana;
pub mod surface;

pub use surface::Surface;
