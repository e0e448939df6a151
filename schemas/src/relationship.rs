//! The relationship kinds a related answer names, one table: each kind with the name the
//! same relation has read from its other end, in teaching priority order. The `kind`
//! filter's parser, the enums of the OpenAPI description and of the MCP input schema, and
//! the order of `getRelatedLearnables` all come from it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::params::ParamError;

/// `(kind, the same relation read from its other end)`, most useful to a learner first:
/// meaning (synonyms, antonyms, look-alikes), then kana pairs, grammar steps and the words
/// of a kanji, then history's causal, sequential and spatial links with the broad "lived
/// in the same period" kinds last, then the structural kinds (radicals and components),
/// which are many and least useful on a first page. A symmetric kind is its own inverse;
/// the dataset stores no name for the other end of six history kinds, which are read
/// backwards as `<kind>-inverse`.
const KINDS: &[(&str, &str)] = &[
    ("synonym", "synonym"),
    ("antonym", "antonym"),
    ("similar", "similar"),
    ("contrast", "contrast"),
    ("see-also", "see-also"),
    ("visually-similar", "visually-similar"),
    ("hiragana-of", "katakana-of"),
    ("katakana-of", "hiragana-of"),
    ("builds-on", "basis-for"),
    ("basis-for", "builds-on"),
    ("uses-kanji", "used-in"),
    ("used-in", "uses-kanji"),
    ("causes", "caused-by"),
    ("caused-by", "causes"),
    ("precedes", "follows"),
    ("follows", "precedes"),
    ("predecessor-of", "successor-of"),
    ("successor-of", "predecessor-of"),
    ("part-of", "contains"),
    ("contains", "part-of"),
    ("includes-event", "occurred-during"),
    ("occurred-during", "includes-event"),
    ("participants", "participant-in"),
    ("participant-in", "participants"),
    ("founded", "founded-by"),
    ("founded-by", "founded"),
    ("created", "created-by"),
    ("created-by", "created"),
    ("ruled", "ruled-by"),
    ("ruled-by", "ruled"),
    ("teacher-of", "student-of"),
    ("student-of", "teacher-of"),
    ("same-family", "same-family"),
    ("during-reign-of", "reign-includes"),
    ("reign-includes", "during-reign-of"),
    ("had-capital", "capital-during"),
    ("capital-during", "had-capital"),
    ("took-place-at", "scene-of"),
    ("scene-of", "took-place-at"),
    ("born-in", "birthplace-of"),
    ("birthplace-of", "born-in"),
    ("located-in", "location-of"),
    ("location-of", "located-in"),
    ("buried-at", "grave-of"),
    ("grave-of", "buried-at"),
    ("named-after", "named-after-inverse"),
    ("named-after-inverse", "named-after"),
    ("concurrent-with", "concurrent-with"),
    ("contemporary-of", "contemporary-of"),
    ("reigned-during", "reigned-during-inverse"),
    ("reigned-during-inverse", "reigned-during"),
    ("born-during", "born-during-inverse"),
    ("born-during-inverse", "born-during"),
    ("died-during", "died-during-inverse"),
    ("died-during-inverse", "died-during"),
    ("used-during", "used-during-inverse"),
    ("used-during-inverse", "used-during"),
    ("active-during", "active-during-inverse"),
    ("active-during-inverse", "active-during"),
    ("has-radical", "radical-of"),
    ("radical-of", "has-radical"),
    ("has-component", "component-of"),
    ("component-of", "has-component"),
];

/// The names of the kind at `at`; only called with the index of a [`RelationshipKind`],
/// which is always a row of the table.
fn row(at: usize) -> (&'static str, &'static str) {
    KINDS.get(at).copied().unwrap_or(("", ""))
}

/// One relationship kind of the table. Kinds compare in teaching priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelationshipKind(u8);

impl RelationshipKind {
    /// How many kinds the table holds.
    pub const COUNT: usize = KINDS.len();

    /// Every kind, most useful first.
    pub fn all() -> impl Iterator<Item = RelationshipKind> {
        // COUNT fits a u8: `RelationshipKinds` asserts it is at most 64.
        (0..Self::COUNT as u8).map(RelationshipKind)
    }

    /// The kind named `name`, if the table has it.
    pub fn named(name: &str) -> Option<RelationshipKind> {
        Self::all().find(|kind| kind.name() == name)
    }

    pub fn parse(text: &str) -> Result<RelationshipKind, ParamError> {
        Self::named(text).ok_or_else(|| {
            ParamError::new(format!(
                "names an unknown relationship kind `{text}`; the kinds are {}",
                Self::all()
                    .map(RelationshipKind::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// Its place in the table (0 is the most useful kind), below [`Self::COUNT`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    pub fn name(self) -> &'static str {
        row(usize::from(self.0)).0
    }

    /// The same relation read from its other end (`has-component` ↔ `component-of`).
    pub fn inverse(self) -> RelationshipKind {
        let inverse = row(usize::from(self.0)).1;
        // Every inverse is a row of the table (checked by the tests).
        Self::named(inverse).unwrap_or(self)
    }
}

impl fmt::Display for RelationshipKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for RelationshipKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for RelationshipKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        RelationshipKind::parse(&name).map_err(serde::de::Error::custom)
    }
}

impl PartialSchema for RelationshipKind {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(RelationshipKind::all().map(RelationshipKind::name)))
            .description(Some(
                "A relationship kind, read from the requested entry to the related one; \
                 listed in the order related answers rank them (most useful to a learner \
                 first).",
            ))
            .into()
    }
}

impl ToSchema for RelationshipKind {}

/// The `kind` filter of a related listing: a non-empty set of kinds. REST sends them
/// comma-separated in one parameter (`kind=synonym,antonym`), MCP as a JSON array; a
/// kind named twice counts once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RelationshipKinds(u64);

const _: () = assert!(RelationshipKind::COUNT <= 64, "a kind set is 64 bits wide");

impl RelationshipKinds {
    /// Most names one filter may list: each kind once (a repeated name counts here too).
    pub const ITEMS_MAX: usize = RelationshipKind::COUNT;

    /// A comma-separated list (`synonym,antonym`).
    pub fn parse(text: &str) -> Result<RelationshipKinds, ParamError> {
        Self::from_names(text.split(','))
    }

    /// A list of names, each a kind of the table.
    pub fn from_names<'a>(
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<RelationshipKinds, ParamError> {
        let mut bits = 0_u64;
        let mut count = 0_usize;
        for name in names {
            count += 1;
            if count > Self::ITEMS_MAX {
                return Err(Self::too_many());
            }
            bits |= 1 << RelationshipKind::parse(name)?.0;
        }
        if bits == 0 {
            return Err(ParamError::new("must name at least one relationship kind"));
        }
        Ok(RelationshipKinds(bits))
    }

    fn too_many() -> ParamError {
        ParamError::new(format!(
            "must name at most {} relationship kinds",
            Self::ITEMS_MAX
        ))
    }

    /// The refusal of a value that is not a list of names (MCP: not an array of strings).
    pub fn not_a_list() -> ParamError {
        ParamError::new("must be an array of relationship kind names")
    }

    pub fn contains(self, kind: RelationshipKind) -> bool {
        self.0 & (1 << kind.0) != 0
    }

    /// The kinds of the set, most useful first.
    pub fn iter(self) -> impl Iterator<Item = RelationshipKind> {
        RelationshipKind::all().filter(move |kind| self.contains(*kind))
    }

    /// The set as one number, for fingerprints.
    pub fn bits(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_name_is_unique_and_every_inverse_reads_back() {
        let names: HashSet<&str> = RelationshipKind::all()
            .map(RelationshipKind::name)
            .collect();
        assert_eq!(names.len(), RelationshipKind::COUNT);
        for kind in RelationshipKind::all() {
            let inverse = row(usize::from(kind.0)).1;
            assert!(
                names.contains(inverse),
                "{kind}: inverse {inverse} is not a row"
            );
            assert_eq!(kind.inverse().inverse(), kind, "{kind}");
        }
        assert_eq!(
            RelationshipKind::named("has-component").map(RelationshipKind::inverse),
            RelationshipKind::named("component-of")
        );
        assert_eq!(
            RelationshipKind::named("antonym").map(RelationshipKind::inverse),
            RelationshipKind::named("antonym")
        );
    }

    #[test]
    fn meaning_kinds_rank_before_structural_ones() {
        let rank = |name: &str| RelationshipKind::named(name).expect(name);
        assert!(rank("synonym") < rank("antonym"));
        assert!(rank("antonym") < rank("used-in"));
        assert!(rank("used-in") < rank("has-radical"));
        assert!(rank("active-during-inverse") < rank("component-of"));
        assert_eq!(RelationshipKind::all().last(), Some(rank("component-of")));
    }

    #[test]
    fn filters_parse_from_text_and_refuse_unknown_or_empty_lists() {
        let kinds = RelationshipKinds::parse("component-of,antonym,antonym").unwrap();
        let names: Vec<&str> = kinds.iter().map(RelationshipKind::name).collect();
        assert_eq!(names, ["antonym", "component-of"]);
        for bad in [
            "",
            ",",
            "antonym,",
            "Antonym",
            "antonym-of",
            "antonym, synonym",
        ] {
            assert!(RelationshipKinds::parse(bad).is_err(), "{bad:?}");
        }
        let unknown = RelationshipKinds::parse("antonym-of").unwrap_err();
        assert!(unknown.message.contains("`antonym-of`"), "{unknown}");
        let every = vec!["synonym"; RelationshipKinds::ITEMS_MAX + 1];
        assert!(RelationshipKinds::from_names(every).is_err());
    }

    #[test]
    fn kinds_serialize_as_their_names() {
        let kind = RelationshipKind::named("used-in").unwrap();
        assert_eq!(serde_json::to_string(&kind).unwrap(), "\"used-in\"");
        let back: RelationshipKind = serde_json::from_str("\"used-in\"").unwrap();
        assert_eq!(back, kind);
        assert!(serde_json::from_str::<RelationshipKind>("\"nope\"").is_err());
    }
}
