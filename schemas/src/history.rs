//! Japanese-history entity bodies: eras, periods, persons, events, places and historical
//! terms, with their names, timespans and the facts the sources state about them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What kind of history entity an entry is. Mirrors the history variants of
/// [`crate::LearnableType`] so the body can be read on its own.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HistoryType {
    /// A named Japanese era (nengō), e.g. Meiji; both courts of the Nanboku-chō period.
    Era,
    /// A historical period, e.g. the Edo period (1603–1868).
    Period,
    /// A historical person.
    Person,
    /// A war, battle, incident, rebellion, reform or treaty.
    Event,
    /// A former province, castle, archaeological site, tumulus or grave.
    Place,
    /// A historical term: an office, institution, practice or object of a past period.
    Term,
}

/// A history entity. Every field is built from the cited sources; the description is
/// generated from those facts and adds nothing they do not state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryDetail {
    pub history_type: HistoryType,
    /// The English name the entity is best known by, e.g. `Tokugawa Ieyasu`.
    pub canonical_name: String,
    /// Other names, deduplicated, each with its script.
    pub aliases: Vec<Alias>,
    /// When the entity existed or happened; null when no source dates it.
    pub timespan: Option<Timespan>,
    /// Where: `Japan`, a province or prefecture, or what the source names.
    pub geographic_scope: Option<String>,
    /// One paragraph of English, generated from the facts below.
    pub description: String,
    /// Offices and occupations the sources give, e.g. `shogun`, `emperor`, `poet`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Era facts (eras only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<EraFacts>,
    /// Reigns and terms of office (emperors and shoguns).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offices: Vec<OfficeTerm>,
    /// The entity's name by locale (two-letter or CLDR locale id), e.g. CLDR era names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub localized_names: BTreeMap<String, String>,
}

/// One name of an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Alias {
    pub text: String,
    pub script: AliasScript,
}

/// The script of an alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AliasScript {
    /// Written with kanji (possibly mixed with kana).
    Kanji,
    /// Hiragana or katakana only.
    Kana,
    /// Latin letters.
    Romaji,
}

/// A start and an end, and the calendar convention their values are written in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Timespan {
    pub start: Option<HistoricalDate>,
    /// Null while ongoing (the current era) or when the source gives no end.
    pub end: Option<HistoricalDate>,
    /// How the values are to be read, as the source uses them, e.g. "proleptic Gregorian
    /// (japanera day dates)".
    pub calendar: String,
}

/// A date known to some precision. `value` is ISO 8601-like: `1543-01-31`, `1543-01`,
/// `1543`, with a leading `-` for years before the common era (astronomical: 1 BCE = 0000).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HistoricalDate {
    pub value: String,
    pub precision: DatePrecision,
    /// True when the source marks the date as uncertain (`?`, `c.`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approximate: bool,
}

/// How much of a date is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatePrecision {
    Day,
    Month,
    Year,
    Decade,
    Century,
}

/// Facts about an era (nengō).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EraFacts {
    /// The era name in kanji, e.g. 明治.
    pub kanji: String,
    /// The reading in hiragana (jeraconv), e.g. めいじ.
    pub reading: Option<String>,
    /// Which line of eras: `general`, or during the Nanboku-chō period `southern`
    /// (Daikakuji line) or `northern` (Jimyōin line).
    pub court: EraCourt,
    /// How many calendar years the era was counted over (japanera end − start + 1).
    pub years_counted: Option<u32>,
    /// The reigning monarch at the era's proclamation, as sanmiao records it (kanji).
    pub ruler: Option<String>,
    /// Position in CLDR's list of Japanese-calendar eras, when CLDR lists it.
    pub cldr_index: Option<u32>,
}

/// Which court proclaimed an era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EraCourt {
    General,
    Southern,
    Northern,
}

/// A reign or term of office, in years.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OfficeTerm {
    /// `emperor`, `shogun`, …
    pub office: String,
    pub start_year: Option<i32>,
    pub end_year: Option<i32>,
    /// Position in the succession order this dataset derives (1 = first listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordinal: Option<u32>,
    /// The source of the term, e.g. `sanmiao` or `jmnedict`.
    pub source: String,
}

impl Alias {
    /// The alias text, for search surfaces.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}
