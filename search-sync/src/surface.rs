//! The search surface of one entry, as stored in the dataset artifact.

use serde::{Deserialize, Serialize};

/// Everything a query can match for one entry, already normalised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surface {
    /// Written forms as written (kanji, kana, pattern, canonical name).
    pub forms: Vec<String>,
    /// Readings normalised to hiragana.
    pub readings: Vec<String>,
    /// Romaji spellings (lowercase ASCII).
    pub romaji: Vec<String>,
    /// English meaning words (lowercase).
    pub meanings: Vec<String>,
    /// Other names (history aliases).
    pub aliases: Vec<String>,
    /// Ranking tie-breaker: lower is more frequent; None when unknown.
    pub frequency: Option<u32>,
}
