//! Grammar point bodies: pattern, formation, conjugation, register, level provenance,
//! related points and Tatoeba examples.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::vocabulary::ExampleSentence;

/// The register a pattern belongs to, from most casual to most elevated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Register {
    Casual,
    Neutral,
    Polite,
    Formal,
    Written,
    Literary,
    Honorific,
    Humble,
}

impl Register {
    pub const ALL: [Register; 8] = [
        Register::Casual,
        Register::Neutral,
        Register::Polite,
        Register::Formal,
        Register::Written,
        Register::Literary,
        Register::Honorific,
        Register::Humble,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Register::Casual => "casual",
            Register::Neutral => "neutral",
            Register::Polite => "polite",
            Register::Formal => "formal",
            Register::Written => "written",
            Register::Literary => "literary",
            Register::Honorific => "honorific",
            Register::Humble => "humble",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Register::ALL
            .into_iter()
            .find(|register| register.as_str() == text)
    }
}

/// Who decided a point's JLPT level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LevelSource {
    /// The tanos.co.uk JLPT grammar lists (as shipped in PyPI `kotobase`).
    Tanos,
    /// The `hushigi-grammar` N4/N3 list.
    Hushigi,
    /// manabi's editors, with the reason recorded in `reason`.
    Editor,
}

impl LevelSource {
    pub fn as_str(self) -> &'static str {
        match self {
            LevelSource::Tanos => "tanos",
            LevelSource::Hushigi => "hushigi",
            LevelSource::Editor => "editor",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            LevelSource::Tanos,
            LevelSource::Hushigi,
            LevelSource::Editor,
        ]
        .into_iter()
        .find(|source| source.as_str() == text)
    }
}

/// A point's JLPT level and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GrammarLevel {
    /// 5 = N5 .. 1 = N1.
    pub jlpt_level: u8,
    pub source: LevelSource,
    /// Why the editors chose this level; empty when a list supplies it.
    pub reason: String,
}

/// How two grammar points relate, read from this point to the other.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum GrammarRelationKind {
    /// Close in meaning or use; learners compare them.
    Similar,
    /// Easily confused, but differ in a way worth teaching.
    Contrast,
    /// This point is formed from, or taught after, the other one.
    BuildsOn,
}

impl GrammarRelationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GrammarRelationKind::Similar => "similar",
            GrammarRelationKind::Contrast => "contrast",
            GrammarRelationKind::BuildsOn => "builds-on",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            GrammarRelationKind::Similar,
            GrammarRelationKind::Contrast,
            GrammarRelationKind::BuildsOn,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// Another grammar point this one is related to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RelatedPoint {
    /// Learnable id of the other point (`grammar-<slug>`).
    pub id: String,
    pub kind: GrammarRelationKind,
}

/// A grammar point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GrammarDetail {
    /// The canonical pattern as learners see it, e.g. `〜てから`.
    pub pattern: String,
    /// Other written forms of the pattern.
    pub variants: Vec<String>,
    /// Precise English meaning.
    pub meaning: String,
    /// What the pattern attaches to and how, one rule per entry (e.g. `V-te form + から`).
    pub formation: Vec<String>,
    /// Forms of the pattern itself where it conjugates; empty when it does not.
    pub conjugation: Vec<String>,
    pub register: Register,
    /// Nuance, register and contrast notes.
    pub notes: String,
    pub level: GrammarLevel,
    pub related: Vec<RelatedPoint>,
    /// Tatoeba sentences in which the pattern occurs (with sentence ids).
    pub examples: Vec<ExampleSentence>,
}
