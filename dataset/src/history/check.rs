//! The history checks `manabi dataset verify` runs on a built artifact: every canon entity
//! is present with its dates and at least one relation (a foreign one marked so), every
//! history entity carries a fact beyond its name and a relation, every history date
//! parses, nothing ends before it starts, and no person may be living; every correction
//! the editors made to a dictionary record is applied.

use std::collections::{HashMap, HashSet};

use manabi_artifact::Artifact;
use manabi_schemas::history::{DatePrecision, HistoricalDate, HistoryDetail, HistoryType};
use manabi_schemas::{Domain, Learnable, LearnableBody};

use super::canon::{self, BIRTH_YEAR_MAX_WITHOUT_DEATH, Canon, Record};
use super::canon_entity;
use super::dates::Date;

/// Every problem of the history domain of `artifact`, against the canon in `content/`.
pub fn artifact(artifact: &Artifact) -> Vec<String> {
    let mut problems = Vec::new();
    let mut history: HashMap<String, Learnable> = HashMap::new();
    for loaded in artifact
        .learnables
        .iter()
        .filter(|l| l.summary.domain == Domain::History)
    {
        match serde_json::from_str::<Learnable>(&loaded.json) {
            Ok(learnable) => {
                history.insert(learnable.id.clone(), learnable);
            }
            Err(error) => problems.push(format!("{}: does not parse: {error}", loaded.summary.id)),
        }
    }
    let linked = super::coverage::related_ids(&artifact.relations);
    for learnable in history.values() {
        if let LearnableBody::History(detail) = &learnable.body {
            problems.extend(date_problems(&learnable.id, detail));
            problems.extend(teaching_problems(&learnable.id, detail, &linked));
            let foreign = learnable.tags.iter().any(|t| t == "foreign");
            if foreign && !detail.description.contains(RELEVANCE) {
                problems.push(format!(
                    "{}: foreign without its relevance to Japanese history",
                    learnable.id
                ));
            }
        }
    }
    problems.extend(relation_problems(&history, &artifact.relations));
    problems.extend(super::corrections::problems(history.values()));
    let related: HashSet<&str> = artifact.relations.iter().map(|r| r.from.as_str()).collect();
    match canon::load(&canon::content_dir()) {
        Ok(canon) => problems.extend(canon_problems(&canon, &history, &related)),
        Err(error) => problems.push(format!("history canon: {error}")),
    }
    problems.sort();
    problems
}

/// Relations the reviews found false, by their rule: a foreign person dated by Japan's
/// eras or placed in its periods by lifespan; a person known by a birth year alone placed in
/// a period; an era said to precede another across a gap of more than a year.
pub fn relation_problems(
    history: &HashMap<String, Learnable>,
    relations: &[manabi_schemas::Relation],
) -> Vec<String> {
    let years = |id: &str| -> (Option<i32>, Option<i32>) {
        let Some(LearnableBody::History(detail)) = history.get(id).map(|l| &l.body) else {
            return (None, None);
        };
        let Some(span) = &detail.timespan else {
            return (None, None);
        };
        let year = |date: &Option<HistoricalDate>| {
            date.as_ref()
                .and_then(|d| parse_value(d).ok())
                .map(|d| d.year)
        };
        (year(&span.start), year(&span.end))
    };
    let foreign = |id: &str| {
        history
            .get(id)
            .is_some_and(|l| l.tags.iter().any(|t| t == "foreign"))
    };
    let mut problems = Vec::new();
    for r in relations.iter().filter(|r| history.contains_key(&r.from)) {
        let dated_by_life = matches!(r.kind.as_str(), "born-during" | "died-during")
            || (r.kind == "active-during" && r.basis == "lifespan-overlaps-period");
        if dated_by_life && foreign(&r.from) {
            problems.push(format!(
                "{}: a foreign person {} {} by their life",
                r.from, r.kind, r.to
            ));
        }
        if r.kind == "active-during"
            && r.basis == "lifespan-overlaps-period"
            && let ((Some(born), Some(died)), (Some(start), Some(end))) =
                (years(&r.from), years(&r.to))
            && let age = super::relations::active_age(born)
            && (born + age).max(start) >= died.min(end)
        {
            problems.push(format!(
                "{}: active during {} though not {age} years old in it",
                r.from, r.to
            ));
        }
        if r.kind == "active-during"
            && r.basis == "known-year-in-period"
            && matches!(years(&r.from), (Some(_), None))
        {
            problems.push(format!(
                "{}: placed in {} by a birth year alone",
                r.from, r.to
            ));
        }
        if r.kind == "precedes"
            && r.from.starts_with("history-era-")
            && let ((_, Some(end)), (Some(start), _)) = (years(&r.from), years(&r.to))
            && start > end + 1
        {
            problems.push(format!("{}: precedes {} across a gap", r.from, r.to));
        }
    }
    problems
}

/// Dates parse and agree with their precision; the end is not before the start; a person
/// without a death was not born in or after 1900.
pub fn date_problems(id: &str, detail: &HistoryDetail) -> Vec<String> {
    let Some(timespan) = &detail.timespan else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    let mut parse = |date: &Option<HistoricalDate>| {
        let date = date.as_ref()?;
        parse_value(date)
            .map_err(|e| problems.push(format!("{id}: {e}")))
            .ok()
    };
    let (start, end) = (parse(&timespan.start), parse(&timespan.end));
    if let (Some(start), Some(end)) = (start, end)
        && end.key() < start.key()
    {
        problems.push(format!(
            "{id}: ends ({}) before it starts ({})",
            end.display(),
            start.display()
        ));
    }
    let living = detail.history_type == HistoryType::Person
        && end.is_none()
        && start.is_some_and(|d| d.year >= BIRTH_YEAR_MAX_WITHOUT_DEATH);
    if living {
        problems.push(format!(
            "{id}: born after 1900 with no death: may be living"
        ));
    }
    problems
}

/// How a foreign entity's description states what it means to Japanese history (the
/// canon's foreign persons, the editors' foreign JMdict events).
pub const RELEVANCE: &str = "in Japanese history: ";

/// Rule `teaches-something`: a fact beyond the name (`coverage::is_name_only`) and at
/// least one relation, at either end.
pub fn teaching_problems(id: &str, detail: &HistoryDetail, linked: &HashSet<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    if super::coverage::is_name_only(detail) {
        problems.push(format!("{id}: nothing beyond its name"));
    }
    if !linked.contains(id) {
        problems.push(format!("{id}: no relation"));
    }
    problems
}

/// Reads a `value` of the schema (`1543-01-31`, `1543-01`, `1543`, `-0299`) and checks it
/// against its `precision`.
pub fn parse_value(date: &HistoricalDate) -> Result<Date, String> {
    let value = date.value.as_str();
    let (sign, rest) = match value.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, value),
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let well_formed = parts.len() <= 3
        && parts[0].len() >= 4
        && parts[1..].iter().all(|p| p.len() == 2)
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()));
    let number = |i: usize| parts.get(i).and_then(|p| p.parse::<u32>().ok());
    let (Some(year), true) = (number(0), well_formed) else {
        return Err(format!("date {value:?} does not parse"));
    };
    let year = sign * year as i32;
    let (month, day) = (number(1), number(2));
    let month_ok = month.is_none_or(|m| (1..=12).contains(&m));
    let day_ok = match (month, day) {
        (Some(m), Some(d)) => (1..=canon::days_in_month(year, m)).contains(&d),
        _ => true,
    };
    if !month_ok || !day_ok {
        return Err(format!("date {value:?} is not a calendar date"));
    }
    let precision = match (month, day) {
        (Some(_), Some(_)) => DatePrecision::Day,
        (Some(_), None) => DatePrecision::Month,
        _ => DatePrecision::Year,
    };
    let year_like = matches!(
        date.precision,
        DatePrecision::Year | DatePrecision::Decade | DatePrecision::Century
    );
    if precision != date.precision && !(precision == DatePrecision::Year && year_like) {
        return Err(format!(
            "date {value:?} is not of precision {:?}",
            date.precision
        ));
    }
    Ok(Date {
        year,
        month: month.map(|m| m as u8),
        day: day.map(|d| d as u8),
        approximate: date.approximate,
    })
}

/// Figures for `stats`: `history_canon` (entities of the canon), `history_foreign` (marked
/// foreign) and `history_related` (history entities with at least one outgoing relation).
pub fn counts(artifact: &Artifact) -> Vec<(String, usize)> {
    let history = || {
        artifact
            .learnables
            .iter()
            .filter(|l| l.summary.domain == Domain::History)
    };
    let tagged = |tag: &str| {
        history()
            .filter(|l| l.summary.tags.iter().any(|t| t == tag))
            .count()
    };
    let related: HashSet<&str> = artifact.relations.iter().map(|r| r.from.as_str()).collect();
    vec![
        ("history_canon".into(), tagged(canon_entity::CANON_TAG)),
        ("history_foreign".into(), tagged("foreign")),
        (
            "history_related".into(),
            history()
                .filter(|l| related.contains(l.summary.id.as_str()))
                .count(),
        ),
    ]
}

fn canon_problems(
    canon: &Canon,
    history: &HashMap<String, Learnable>,
    related: &HashSet<&str>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for record in &canon.records {
        let id = &record.id;
        let Some(learnable) = history.get(id) else {
            problems.push(format!("{id}: canon entity missing from the artifact"));
            continue;
        };
        if !related.contains(id.as_str()) {
            problems.push(format!("{id}: canon entity without a relation"));
        }
        if record.foreign.is_some() && !learnable.tags.iter().any(|t| t == "foreign") {
            problems.push(format!("{id}: foreign canon person not tagged foreign"));
        }
        if let LearnableBody::History(detail) = &learnable.body {
            problems.extend(canon_date_problems(record, detail));
        }
    }
    problems
}

/// The artifact's timespan carries exactly the canon's dates, with their precision.
fn canon_date_problems(record: &Record, detail: &HistoryDetail) -> Vec<String> {
    let timespan = detail.timespan.as_ref();
    let start = timespan.and_then(|t| t.start.clone());
    let end = timespan.and_then(|t| t.end.clone());
    let mut problems = Vec::new();
    for (which, expected, found) in [("start", record.start, start), ("end", record.end, end)] {
        let expected = expected.map(|d| d.to_schema());
        if expected != found {
            problems.push(format!(
                "{}: {which} is {found:?}, the canon has {expected:?}",
                record.id
            ));
        }
    }
    problems
}
