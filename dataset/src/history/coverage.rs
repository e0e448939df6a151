//! What each history entity carries beyond its name, counted per type for `stats`
//! (`quality.history_<type>_*`): dates, a role, a location, an alias, a relation, and a
//! description that says more than the builder's templates. The rules are in
//! `docs/dataset.md` ("stats and verify"); the figures on the artifact in `docs/history.md`.

use std::collections::{BTreeMap, HashSet};
use std::iter;
use std::sync::LazyLock;

use manabi_artifact::Artifact;
use manabi_schemas::history::{HistoryDetail, HistoryType};
use manabi_schemas::{Domain, Relation};
use regex::Regex;
use serde::Deserialize;

use super::model::type_name;

/// The scope the builder gives every entity no source places more precisely: not a location.
pub const COUNTRY_SCOPE: &str = "Japan";

/// The history types, each reported even when the artifact has none of it.
pub const TYPES: [HistoryType; 6] = [
    HistoryType::Era,
    HistoryType::Event,
    HistoryType::Period,
    HistoryType::Person,
    HistoryType::Place,
    HistoryType::Term,
];

/// The sentences the builder generates from an entity's name, written forms, dates, roles,
/// offices and relations, so a description made only of them states no further fact.
/// Each matches one sentence at the start of what is left of the description.
const TEMPLATE_SENTENCES: [&str; 20] = [
    // persons.rs: `<name> (<kanji>, <kana>) was a Japanese <roles or "historical figure">,
    // born … and died … (dates as JMnedict gives them).`
    r".+? was a Japanese .+? \(dates as JMnedict gives them\)\.",
    r".+? is listed by sanmiao as a Japanese monarch who reigned from -?\d+ to -?\d+\.",
    r"They held the office of .+? from -?\d+ to -?\d+\.",
    // eras.rs
    concat!(
        r".+? is a Japanese era name \(nengō\).*?, in use (?:from .+? to|since) .+? ",
        r"\(proleptic Gregorian dates as given by japanera\)\."
    ),
    // places.rs: `<name> (<kanji>, <kana>) is a Shinto shrine in Japan, as named in …`
    r".+? in Japan, as named in the Japanese proper-name dictionary JMnedict\.",
    // describe.rs: one sentence per kind of relation.
    r"It followed .+?\.",
    r"It was followed by .+?\.",
    r"According to sanmiao it was proclaimed in the reign of .+?\.",
    r"Its years fall within .+?\.",
    r"It ran concurrently with .+? of the rival court\.",
    r"Their birth falls in .+?\.",
    r"Their death falls in .+?\.",
    r"They were active in .+?\.",
    r"In the order of office they succeeded .+?\.",
    r"JMnedict names their grave: .+?\.",
    r"By its year it falls in .+?\.",
    r"It ends in the year .+? begins\.",
    r"It is the grave of .+?\.",
    r"It belongs to .+?\.",
    // jmdict.rs: the headword's other senses are other words, not facts about the entity.
    r#"Other senses: ".*?"\."#,
];

static TEMPLATE: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives = TEMPLATE_SENTENCES.join("|");
    Regex::new(&format!(r"^(?:{alternatives})(?:\s+|$)")).expect("template sentences")
});

/// jmdict.rs's sentence quoting the entry's first gloss, which is a template when the gloss
/// holds only names and dates (see [`gloss_only_names`]).
static JMDICT_GLOSS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^.+? is (?:a former province of Japan|a period of history|a historical event",
        r#"|a historical term); JMdict glosses it as "(.*?)"\.(?:\s+|$)"#
    ))
    .expect("JMdict gloss sentence")
});

/// A bracket holding only a date, a year range or a list of years: `(1866)`, `(approx.
/// 1804-1830 CE)`, `(Sept. 8, 1951)`, `(1652-1654, 1665-1667)`.
static DATE_BRACKET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\s*\((?:[\d\s,.?~/:–-]|approx|ca|c|BCE|CE|AD|BC",
        r"|Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?",
        r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)*\)"
    ))
    .expect("date bracket")
});

/// Lower-case words a title-case English name may contain (`Battle of the Bulge`).
const NAME_CONNECTORS: [&str; 10] = ["of", "the", "and", "on", "in", "for", "to", "a", "an", "at"];

/// The entity has a start or an end date.
pub fn has_timespan(detail: &HistoryDetail) -> bool {
    detail
        .timespan
        .as_ref()
        .is_some_and(|t| t.start.is_some() || t.end.is_some())
}

/// The entity has a role or a term of office.
pub fn has_role(detail: &HistoryDetail) -> bool {
    !detail.roles.is_empty() || !detail.offices.is_empty()
}

/// The entity's geographic scope names somewhere more precise than the country (a
/// province, a prefecture, what the source names). The schema has no coordinates.
pub fn has_location(detail: &HistoryDetail) -> bool {
    detail
        .geographic_scope
        .as_deref()
        .map(str::trim)
        .is_some_and(|scope| !scope.is_empty() && scope != COUNTRY_SCOPE)
}

/// The entity has a name other than its canonical name.
pub fn has_alias(detail: &HistoryDetail) -> bool {
    detail
        .aliases
        .iter()
        .any(|alias| alias.text != detail.canonical_name)
}

/// What the description says beyond the builder's template sentences, from the first
/// sentence that is not one; `None` when every sentence is a template (or there is none).
pub fn beyond_template(detail: &HistoryDetail) -> Option<&str> {
    let names: HashSet<String> = iter::once(&detail.canonical_name)
        .chain(detail.aliases.iter().map(|alias| &alias.text))
        .map(|name| name.to_lowercase())
        .collect();
    let mut rest = detail.description.trim();
    while !rest.is_empty() {
        let template = TEMPLATE.find(rest).or_else(|| {
            let captures = JMDICT_GLOSS.captures(rest)?;
            if gloss_only_names(&captures[1], &names) {
                captures.get(0)
            } else {
                None
            }
        });
        match template {
            Some(sentence) if sentence.end() > 0 => rest = &rest[sentence.end()..],
            _ => return Some(rest),
        }
    }
    None
}

/// The description states a fact beyond the templates (see [`beyond_template`]).
pub fn has_real_description(detail: &HistoryDetail) -> bool {
    beyond_template(detail).is_some()
}

/// No fact beyond the name: no dates, no role, no location and no real description.
/// Aliases and relations are not facts about the entity itself, so they do not count.
pub fn is_name_only(detail: &HistoryDetail) -> bool {
    !has_timespan(detail)
        && !has_role(detail)
        && !has_location(detail)
        && !has_real_description(detail)
}

/// True when every `;`-separated part of a JMdict gloss, without its date brackets, is a
/// name: one of the entity's names, or an English name in title case with no bracket left
/// (`Battle of Anegawa (1570)`, `World War I; First World War`, `Imperial Court`).
fn gloss_only_names(gloss: &str, names: &HashSet<String>) -> bool {
    gloss.split(';').all(|part| {
        let part = DATE_BRACKET.replace_all(part, "");
        let part = part.trim();
        part.is_empty() || names.contains(&part.to_lowercase()) || is_title_case_name(part)
    })
}

fn is_title_case_name(part: &str) -> bool {
    !part.contains(['(', ')'])
        && part.split_whitespace().all(|word| {
            NAME_CONNECTORS.contains(&word)
                || word
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
}

/// The counts of one history type.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TypeCoverage {
    pub entities: usize,
    pub with_timespan: usize,
    pub with_role: usize,
    pub with_location: usize,
    pub with_alias: usize,
    pub with_relation: usize,
    pub with_real_description: usize,
    pub name_only: usize,
}

impl TypeCoverage {
    /// Counts one entity; `related` when a relation of the artifact starts or ends at it.
    pub fn add(&mut self, detail: &HistoryDetail, related: bool) {
        self.entities += 1;
        self.with_timespan += usize::from(has_timespan(detail));
        self.with_role += usize::from(has_role(detail));
        self.with_location += usize::from(has_location(detail));
        self.with_alias += usize::from(has_alias(detail));
        self.with_relation += usize::from(related);
        self.with_real_description += usize::from(has_real_description(detail));
        self.name_only += usize::from(is_name_only(detail));
    }

    /// `history_<type>_entities`, `history_<type>_with_timespan`, … for `stats`.
    pub fn figures(&self, kind: HistoryType) -> Vec<(String, usize)> {
        let figures = [
            ("entities", self.entities),
            ("with_timespan", self.with_timespan),
            ("with_role", self.with_role),
            ("with_location", self.with_location),
            ("with_alias", self.with_alias),
            ("with_relation", self.with_relation),
            ("with_real_description", self.with_real_description),
            ("name_only", self.name_only),
        ];
        figures
            .into_iter()
            .map(|(figure, count)| (format!("history_{}_{figure}", type_name(kind)), count))
            .collect()
    }
}

/// The part of an artifact document this module reads.
#[derive(Deserialize)]
struct HistoryDocument {
    history: HistoryDetail,
}

/// The ids at either end of a relation: what "has a relation" means for the history
/// figures, `verify` and the build's rule `teaches-something`.
pub fn related_ids(relations: &[Relation]) -> HashSet<&str> {
    relations
        .iter()
        .flat_map(|r| [r.from.as_str(), r.to.as_str()])
        .collect()
}

/// The coverage figures of every history type of `artifact`. A document that does not
/// parse is left out here; `verify` reports it.
pub fn measure(artifact: &Artifact) -> BTreeMap<String, usize> {
    let related = related_ids(&artifact.relations);
    let mut by_type: BTreeMap<HistoryType, TypeCoverage> = TYPES
        .iter()
        .map(|kind| (*kind, TypeCoverage::default()))
        .collect();
    for loaded in artifact
        .learnables
        .iter()
        .filter(|l| l.summary.domain == Domain::History)
    {
        let Ok(document) = serde_json::from_str::<HistoryDocument>(&loaded.json) else {
            continue;
        };
        let detail = &document.history;
        let related = related.contains(loaded.summary.id.as_str());
        by_type
            .entry(detail.history_type)
            .or_default()
            .add(detail, related);
    }
    by_type
        .iter()
        .flat_map(|(kind, coverage)| coverage.figures(*kind))
        .collect()
}

#[cfg(test)]
mod tests {
    use manabi_artifact::LoadedLearnable;
    use manabi_schemas::history::{Alias, AliasScript, DatePrecision, HistoricalDate, Timespan};
    use manabi_schemas::{LearnableSummary, LearnableType, Relation};

    use super::*;

    fn entity(kind: HistoryType, name: &str, description: &str) -> HistoryDetail {
        HistoryDetail {
            history_type: kind,
            canonical_name: name.to_owned(),
            aliases: Vec::new(),
            timespan: None,
            geographic_scope: Some(COUNTRY_SCOPE.to_owned()),
            description: description.to_owned(),
            roles: Vec::new(),
            era: None,
            offices: Vec::new(),
            localized_names: BTreeMap::new(),
        }
    }

    fn alias(text: &str, script: AliasScript) -> Alias {
        Alias {
            text: text.to_owned(),
            script,
        }
    }

    fn years(start: &str, end: &str) -> Option<Timespan> {
        let date = |value: &str| HistoricalDate {
            value: value.to_owned(),
            precision: DatePrecision::Year,
            approximate: false,
        };
        Some(Timespan {
            start: Some(date(start)),
            end: Some(date(end)),
            calendar: "as given by JMnedict: Julian before 1582-10-15, Gregorian after".into(),
        })
    }

    const FUMAI: &str = "Matsudaira Fumai (松平不昧, まつだいらふまい) was a Japanese historical \
        figure, born 1751 and died 1818 (dates as JMnedict gives them). Their death falls in \
        the Bunsei era. They were active in the Edo period.";

    #[test]
    fn a_site_known_only_by_its_jmnedict_sentence_is_name_only() {
        let mut shrine = entity(
            HistoryType::Place,
            "Achi Shrine",
            "Achi Shrine (阿智神社, あちじんじゃ) is a Shinto shrine in Japan, as named in the \
             Japanese proper-name dictionary JMnedict.",
        );
        shrine.aliases = vec![alias("阿智神社", AliasScript::Kanji)];
        assert_eq!(beyond_template(&shrine), None);
        assert!(has_alias(&shrine));
        assert!(!has_location(&shrine), "`Japan` is no location");
        assert!(is_name_only(&shrine));
    }

    #[test]
    fn a_person_sentence_with_relation_sentences_is_a_template_but_dates_are_a_fact() {
        let mut fumai = entity(HistoryType::Person, "Matsudaira Fumai", FUMAI);
        assert!(!has_real_description(&fumai));
        assert!(is_name_only(&fumai), "without dates nothing is left");
        fumai.timespan = years("1751", "1818");
        assert!(has_timespan(&fumai));
        assert!(!is_name_only(&fumai));
    }

    #[test]
    fn a_jmnedict_note_or_the_editors_text_is_a_real_description() {
        let noted = format!("{FUMAI} JMnedict describes them as: tea master.");
        let fumai = entity(HistoryType::Person, "Matsudaira Fumai", &noted);
        assert_eq!(
            beyond_template(&fumai),
            Some("JMnedict describes them as: tea master.")
        );
        assert!(!is_name_only(&fumai));
        let editors = "Unifier of Japan; kanpaku but never shogun.";
        let hideyoshi = entity(HistoryType::Person, "Toyotomi Hideyoshi", editors);
        assert_eq!(beyond_template(&hideyoshi), Some(editors));
    }

    #[test]
    fn a_gloss_of_names_and_dates_is_a_template_and_one_with_facts_is_not() {
        let event = |name: &str, gloss: &str| {
            let description = format!(
                "{name} (戦, いくさ) is a historical event; JMdict glosses it as \"{gloss}\". \
                 By its year it falls in the Meiji era."
            );
            has_real_description(&entity(HistoryType::Event, name, &description))
        };
        assert!(!event("Battle of Anegawa", "Battle of Anegawa (1570)"));
        assert!(!event(
            "Battle of Okinawa",
            "Battle of Okinawa (April, 1945)"
        ));
        assert!(!event(
            "Second World War",
            "Second World War; World War II; WWII"
        ));
        assert!(!event("Cold War", "cold war; the Cold War"));
        assert!(event(
            "Tonghak Rebellion",
            "Tonghak Rebellion (Korea, 1894)"
        ));
        assert!(event(
            "Battle of Hakodate",
            "Battle of Hakodate (battle of the Boshin War, 1868-1869)"
        ));
        let term = |gloss: &str| {
            let description = format!(
                "被官 (ひかん) is a historical term; JMdict glosses it as \"{gloss}\". \
                 Other senses: \"servant; retainer\"."
            );
            has_real_description(&entity(HistoryType::Term, "被官", &description))
        };
        assert!(
            !term("Imperial Court"),
            "an English name; other senses do not count"
        );
        assert!(term("lower government office (ritsuryo system)"));
    }

    #[test]
    fn a_location_is_a_scope_finer_than_the_country_and_an_alias_differs_from_the_name() {
        let mut owari = entity(HistoryType::Place, "Owari Province", "Province of Nagoya.");
        owari.geographic_scope = Some("Owari Province; Aichi Prefecture".into());
        assert!(has_location(&owari));
        assert!(!is_name_only(&owari));
        let mut court = entity(HistoryType::Term, "朝廷", "");
        court.aliases = vec![alias("朝廷", AliasScript::Kanji)];
        assert!(!has_alias(&court));
        assert!(
            is_name_only(&court),
            "an empty description is no description"
        );
    }

    fn loaded(id: &str, detail: &HistoryDetail) -> LoadedLearnable {
        let kind = LearnableType::parse(type_name(detail.history_type)).expect("history type");
        let json = serde_json::json!({ "history": detail }).to_string();
        LoadedLearnable {
            sample: false,
            summary: LearnableSummary {
                id: id.to_owned(),
                label: None,
                kind,
                domain: Domain::History,
                jlpt_level: None,
                is_common_word: None,
                canonical_name: Some(detail.canonical_name.clone()),
                pattern: None,
                meaning: None,
                writing_forms: Vec::new(),
                tags: Vec::new(),
            },
            surface: Default::default(),
            json: json.into(),
        }
    }

    #[test]
    fn measure_counts_relations_at_either_end_and_reports_every_type() {
        let mut fumai = entity(HistoryType::Person, "Matsudaira Fumai", FUMAI);
        fumai.timespan = years("1751", "1818");
        let grave = entity(HistoryType::Place, "Fumai (grave)", "");
        let loner = entity(HistoryType::Person, "Nobody", "");
        let artifact = Artifact {
            manifest: None,
            learnables: vec![
                loaded("history-person-fumai", &fumai),
                loaded("history-place-grave", &grave),
                loaded("history-person-nobody", &loner),
            ],
            relations: vec![Relation {
                from: "history-place-grave".into(),
                to: "history-person-fumai".into(),
                kind: "grave-of".into(),
                basis: "grave-name".into(),
            }],
            lessons: Vec::new(),
            journeys: Vec::new(),
            worlds: Vec::new(),
        };
        let figures = measure(&artifact);
        assert_eq!(figures.len(), TYPES.len() * 8);
        assert_eq!(figures["history_person_entities"], 2);
        assert_eq!(figures["history_person_with_timespan"], 1);
        assert_eq!(
            figures["history_person_with_relation"], 1,
            "the relation's end"
        );
        assert_eq!(figures["history_person_name_only"], 1);
        assert_eq!(
            figures["history_place_with_relation"], 1,
            "the relation's start"
        );
        assert_eq!(figures["history_place_name_only"], 1);
        assert_eq!(figures["history_term_entities"], 0);
    }
}
