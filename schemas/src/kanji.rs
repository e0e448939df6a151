//! Type-specific bodies of the language learnables: kanji, kana and radicals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
/// The readings of a kanji.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KanjiReadings {
    /// On'yomi in katakana.
    pub on: Vec<String>,
    /// Kun'yomi in hiragana; `.` separates the okurigana (KANJIDIC2 convention).
    pub kun: Vec<String>,
    /// Name readings.
    pub nanori: Vec<String>,
}

/// A look-alike character and where the similarity comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SimilarKanji {
    pub literal: String,
    /// `kanjium` (curated pair) or `derived: <rule>` (KanjiVG parts and stroke counts; the
    /// rules are listed in docs/dataset.md).
    pub basis: String,
}

/// One dictionary cross-reference (KANJIDIC2 `dic_ref`, `q_code`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DictionaryRef {
    /// Reference type, e.g. `nelson_c`, `heisig6`, `skip`.
    pub kind: String,
    pub value: String,
}

/// One stroke of a character as an SVG path (KanjiVG, 109×109 viewbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Stroke {
    /// SVG path data.
    pub path: String,
    /// KanjiVG stroke type, e.g. `㇐`.
    pub stroke_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct KanjiDetail {
    pub literal: String,
    pub codepoint: String,
    pub readings: KanjiReadings,
    pub stroke_count: Option<u8>,
    /// School grade (1–6 kyōiku, 8 other jōyō, 9–10 jinmeiyō), KANJIDIC2 2020 allocation.
    pub grade: Option<u8>,
    /// Newspaper frequency rank (1 = most frequent) of the 2,500 most used kanji.
    pub frequency_rank: Option<u32>,
    /// `joyo`, `jinmeiyo` or null.
    pub list: Option<String>,
    /// Classical (Kangxi) radical number, 1..214.
    pub radical_number: Option<u8>,
    /// The radical's character.
    pub radical: Option<String>,
    /// Component characters (KRADFILE-u).
    pub components: Vec<String>,
    pub similar: Vec<SimilarKanji>,
    pub synonyms: Vec<String>,
    pub antonyms: Vec<String>,
    pub dictionary_refs: Vec<DictionaryRef>,
    /// English meanings.
    pub meanings: Vec<String>,
    /// Meanings in other languages by two-letter locale (fr, es, pt), kept for localization.
    pub meanings_by_locale: BTreeMap<String, Vec<String>>,
    /// Stroke order paths (JLPT kanji), empty when unavailable.
    pub strokes: Vec<Stroke>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CharacterDetail {
    pub character: String,
    /// `hiragana` or `katakana`.
    pub script: String,
    /// Modified Hepburn romanization in ASCII (long vowels doubled); for writing marks,
    /// the romanized Japanese name of the mark (`chouonpu` for ー).
    pub romaji: String,
    /// `basic`, `dakuten`, `handakuten`, `small`, `digraph` (yōon and the ligatures ゟ ヿ),
    /// `extended` (loanword combinations such as ファ) or `mark` (ー, ゝ, ゛, ...).
    pub group: String,
    /// The same sound in the other script.
    pub counterpart: Option<String>,
    pub stroke_count: Option<u8>,
    pub strokes: Vec<Stroke>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RadicalDetail {
    /// Kangxi radical number, 1..214.
    pub number: u8,
    pub character: String,
    /// Variant forms (e.g. 氵 for 水).
    pub variants: Vec<String>,
    /// Japanese name(s) of the radical.
    pub names: Vec<String>,
    pub meaning: String,
    pub stroke_count: u8,
    /// Example kanji using this radical (JLPT kanji first).
    pub example_kanji: Vec<String>,
}
