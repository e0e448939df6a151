//! The canon merged into the dictionary-built graph. A canon entity replaces every entity
//! the builder made from the same dictionary record (rule `same-record`) or, failing that,
//! of the same type, written form and dates (rule `same-name-and-dates`); it keeps their
//! aliases, citations, JMdict cross-references and sanmiao reigns. The schema has no place
//! for a replaced id, so only the canon id remains. Canon periods replace the JMdict
//! periods of Japan: a JMdict period covering nearly the same years as a canon period is
//! another name for it (`period-same-years`), and one written with katakana is foreign
//! (`foreign-period`) and dropped.

use std::collections::HashMap;

use manabi_schemas::history::{AliasScript, HistoryType};

use super::canon::Canon;
use super::canon_entity;
use super::model::Entity;

/// Dictionary sequence numbers start here; smaller id suffixes are era years or sanmiao
/// person ids. JMdict (1,000,000–2,999,999) and JMnedict (5,000,000 on) do not overlap.
pub const RECORD_NUMBER_MIN: u32 = 1_000_000;
/// Least share of both spans a JMdict period must share with a canon period to be
/// another name for it.
pub const PERIOD_OVERLAP_SHARE_MIN: f64 = 0.9;

/// What the merge did, for the report and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MergeReport {
    /// (replaced generated id, canon id, rule).
    pub replaced: Vec<(String, String, &'static str)>,
    /// Generated periods dropped as foreign.
    pub dropped: Vec<String>,
    pub canon: usize,
}

/// The canon, then the generated entities it neither replaces nor drops.
pub fn merge(generated: Vec<Entity>, canon: &Canon) -> (Vec<Entity>, MergeReport) {
    let mut canon_entities = canon_entity::entities(canon);
    let by_record = record_index(canon);
    let mut report = MergeReport {
        canon: canon_entities.len(),
        ..MergeReport::default()
    };
    let mut kept = Vec::with_capacity(generated.len());
    for entity in generated {
        let found = record_numbers(&entity)
            .iter()
            .find_map(|n| by_record.get(n).copied())
            .map(|i| (i, "same-record"))
            .or_else(|| {
                same_name_and_dates(&entity, &canon_entities).map(|i| (i, "same-name-and-dates"))
            })
            .or_else(|| {
                same_years_period(&entity, &canon_entities).map(|i| (i, "period-same-years"))
            });
        if let Some((index, rule)) = found {
            let target = &mut canon_entities[index];
            report
                .replaced
                .push((entity.id.clone(), target.id.clone(), rule));
            absorb(target, entity);
        } else if is_foreign_period(&entity) {
            report.dropped.push(entity.id);
        } else {
            kept.push(entity);
        }
    }
    // Canon first, so that `drop_duplicate_ids` keeps the canon entity on an id clash.
    canon_entities.extend(kept);
    (canon_entities, report)
}

/// Canon index by dictionary record number.
fn record_index(canon: &Canon) -> HashMap<u32, usize> {
    let mut index = HashMap::new();
    for (i, record) in canon.records.iter().enumerate() {
        for checked in &record.checked {
            index.entry(checked.record).or_insert(i);
        }
    }
    index
}

/// The dictionary records an entity was built from: its id's number suffix first, then the
/// `ent_seq` of every JMdict/JMnedict citation (merged duplicates cite several).
pub fn record_numbers(entity: &Entity) -> Vec<u32> {
    let suffix = entity
        .id
        .rsplit('-')
        .next()
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= RECORD_NUMBER_MIN);
    let cited = entity.citations.iter().filter_map(|c| {
        let record = c.record_id.as_deref()?;
        record.split("ent_seq ").nth(1)?.trim().parse::<u32>().ok()
    });
    let mut numbers: Vec<u32> = suffix.into_iter().chain(cited).collect();
    numbers.dedup();
    numbers
}

/// A canon entity of the same type that shares a written (kanji) form and whose dates agree:
/// persons the birth year, events the start year, other types a kana reading.
fn same_name_and_dates(entity: &Entity, canon: &[Entity]) -> Option<usize> {
    let forms = |e: &Entity| -> Vec<String> {
        e.aliases
            .iter()
            .filter(|a| a.script == AliasScript::Kanji)
            .map(|a| a.text.clone())
            .collect()
    };
    let generated_forms = forms(entity);
    if generated_forms.is_empty() || entity.kind == HistoryType::Era {
        return None;
    }
    canon.iter().position(|c| {
        // A person with the canon person's reading and both life years is the same
        // person under another spelling (JMnedict's 北條泰時 and 北条康時 for 北条泰時).
        let same_life = c.kind == HistoryType::Person
            && c.span.years().is_some()
            && c.span.years() == entity.span.years()
            && kana_forms(c)
                .iter()
                .any(|k| kana_forms(entity).iter().any(|g| same_reading(k, g)));
        let shared = same_life || forms(c).iter().any(|f| generated_forms.contains(f));
        let dates_agree = match c.kind {
            HistoryType::Person | HistoryType::Event => {
                let year = |e: &Entity| e.span.start.map(|d| d.year);
                year(c).is_some() && year(c) == year(entity)
            }
            _ => kana_forms(c).iter().any(|k| kana_forms(entity).contains(k)),
        };
        c.kind == entity.kind && shared && dates_agree
    })
}

/// Two readings of one name, spaces and the particle の aside (みなもとの よりとも and
/// JMnedict's みなもとよりとも for 源の頼朝, both 1147–1199).
fn same_reading(a: &str, b: &str) -> bool {
    let bare = |s: &str| {
        s.chars()
            .filter(|c| *c != ' ' && *c != 'の')
            .collect::<String>()
    };
    bare(a) == bare(b)
}

fn kana_forms(entity: &Entity) -> Vec<&str> {
    entity
        .aliases
        .iter()
        .filter(|a| a.script == AliasScript::Kana)
        .map(|a| a.text.as_str())
        .collect()
}

/// A canon period sharing at least [`PERIOD_OVERLAP_SHARE_MIN`] of both spans' years.
fn same_years_period(entity: &Entity, canon: &[Entity]) -> Option<usize> {
    if entity.kind != HistoryType::Period {
        return None;
    }
    let (from, to) = entity.span.years()?;
    canon.iter().position(|c| {
        let Some((c_from, c_to)) = c.span.years().filter(|_| c.kind == HistoryType::Period) else {
            return false;
        };
        let shared = (to.min(c_to) - from.max(c_from)) as f64;
        let share = |length: i32| shared / f64::from(length.max(1));
        share(to - from) >= PERIOD_OVERLAP_SHARE_MIN
            && share(c_to - c_from) >= PERIOD_OVERLAP_SHARE_MIN
    })
}

/// A JMdict period written with katakana names a foreign period (正統カリフ時代), the
/// same rule the JMdict event selection uses.
fn is_foreign_period(entity: &Entity) -> bool {
    let katakana = |c: char| ('\u{30A1}'..='\u{30FA}').contains(&c);
    entity.kind == HistoryType::Period
        && !entity.canon
        && entity
            .aliases
            .iter()
            .any(|a| a.script != AliasScript::Romaji && a.text.chars().any(katakana))
}

/// Keeps what the replaced entity adds to the canon one: its names, citations, JMdict
/// cross-references and sanmiao reigns (which order the emperors). Its roles, dates and
/// description are not kept: the canon corrects them.
fn absorb(target: &mut Entity, replaced: Entity) {
    for alias in &replaced.aliases {
        target.add_alias(&alias.text);
    }
    for citation in replaced.citations {
        let known = target
            .citations
            .iter()
            .any(|c| c.source == citation.source && c.record_id == citation.record_id);
        if !known {
            target.citations.push(citation);
        }
    }
    target.xrefs.extend(replaced.xrefs);
    for office in replaced
        .offices
        .into_iter()
        .filter(|o| o.source == "sanmiao")
    {
        target.offices.push(office);
    }
    for (locale, name) in replaced.localized {
        target.localized.entry(locale).or_insert(name);
    }
}
