//! `dataset stats`: counts per type and JLPT level, and how often each optional field is
//! filled, computed generically from the documents so new kinds report without changes.

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::{Domain, LearnableType};
use serde::Serialize;
use serde_json::{Map, Value};

use manabi_artifact::{Artifact, LoadedLearnable};

/// The report `stats --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub dataset_version: Option<String>,
    /// Entries per type, `history` (all history-domain entries), `relations`, `sample`,
    /// `lessons`, `journeys`, `worlds`.
    pub counts: BTreeMap<String, usize>,
    /// Entries per type and JLPT level (`n5`..`n1`, `none`).
    pub jlpt_levels: BTreeMap<String, BTreeMap<String, usize>>,
    /// `<type>.<field>`: fraction of entries of that type with the field filled (0..1), so
    /// `vocabulary.frequency_rank` is the share of words with a frequency rank;
    /// `kanji.dic_refs_avg`: distinct reference types per JLPT kanji on average;
    /// `vocabulary.frequent_content_words_present` (and `_listed`): the share of the
    /// frequent content words of wordfreq's list with an entry (that a graded list has).
    pub coverage: BTreeMap<String, f64>,
    /// Distinct relation kinds leaving language entries.
    pub relationship_types: Vec<String>,
    /// Distinct relation kinds leaving history entries.
    pub history_relationship_types: Vec<String>,
    /// The level figures `verify` also checks (`quality::levels`): `beginner_core_rows` and
    /// `_present`, jōyō kanji graded or with a reason, non-jōyō kanji graded (must be 0),
    /// vocabulary entries whose level lists disagree, `vocabulary_rows_unmatched`, the
    /// ungraded core rows present, entries with a frequency rank and without a level, and
    /// the frequent content words counted, present and listed; and the look-alike figures
    /// (`quality::lookalikes`): JLPT kanji with a look-alike, pairs one-way or self; and
    /// the seed fields (`fields`): grammar points that conjugate and with forms, verbs and
    /// adjectives with a table, keigo marked and given, loanwords with source language
    /// and word; lesson questions that give their answer away; and per history type
    /// (`history::coverage`) the entities and how many have dates, a role, a location, an
    /// alias, a relation and a description beyond the templates, and how many are name only
    /// (`history_person_entities`, `history_person_with_timespan`, …).
    pub quality: BTreeMap<String, usize>,
}

fn is_filled(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        Value::Bool(_) | Value::Number(_) => true,
    }
}

/// Counts filled fields of one body into `filled` (keyed by field name).
fn count_fields(body: &Map<String, Value>, filled: &mut BTreeMap<String, usize>) {
    for (field, value) in body {
        let slot = filled.entry(field.clone()).or_insert(0);
        if is_filled(value) {
            *slot += 1;
        }
    }
    if let Some(Value::Object(locales)) = body.get("glosses_by_locale") {
        for (locale, glosses) in locales {
            let slot = filled.entry(format!("gloss_{locale}")).or_insert(0);
            if is_filled(glosses) {
                *slot += 1;
            }
        }
    }
}

/// Distinct dictionary reference types of one kanji body.
fn reference_types(body: &Map<String, Value>) -> usize {
    let Some(Value::Array(refs)) = body.get("dictionary_refs") else {
        return 0;
    };
    refs.iter()
        .filter_map(|r| r.get("kind").and_then(Value::as_str))
        .collect::<BTreeSet<_>>()
        .len()
}

#[derive(Default)]
struct Tally {
    entries: BTreeMap<String, usize>,
    filled: BTreeMap<String, BTreeMap<String, usize>>,
    jlpt_kanji: usize,
    jlpt_kanji_refs: usize,
}

impl Tally {
    fn add(&mut self, learnable: &LoadedLearnable) -> serde_json::Result<()> {
        let kind = learnable.summary.kind;
        let body_key = if kind.domain() == Domain::History {
            "history"
        } else {
            kind.as_str()
        };
        let doc: Value = serde_json::from_str(&learnable.json)?;
        let filled = self.filled.entry(kind.as_str().to_string()).or_default();
        let body = doc.get(body_key).and_then(Value::as_object);
        if let Some(body) = body {
            count_fields(body, filled);
            if kind == LearnableType::Kanji && learnable.summary.jlpt_level.is_some() {
                self.jlpt_kanji += 1;
                self.jlpt_kanji_refs += reference_types(body);
            }
        }
        // Summary fields, unless the body has a field of the same name (counted above).
        let in_body = |field: &str| body.is_some_and(|body| body.contains_key(field));
        for field in ["jlpt_level", "meaning", "is_common_word"]
            .into_iter()
            .filter(|f| !in_body(f))
        {
            let slot = filled.entry(field.to_string()).or_insert(0);
            if doc.get(field).is_some_and(is_filled) {
                *slot += 1;
            }
        }
        *self.entries.entry(kind.as_str().to_string()).or_insert(0) += 1;
        Ok(())
    }

    fn coverage(&self) -> BTreeMap<String, f64> {
        let mut coverage = BTreeMap::new();
        for (kind, fields) in &self.filled {
            let total = self.entries.get(kind).copied().unwrap_or(0).max(1) as f64;
            for (field, count) in fields {
                coverage.insert(format!("{kind}.{field}"), round(*count as f64 / total));
            }
        }
        let average = self.jlpt_kanji_refs as f64 / self.jlpt_kanji.max(1) as f64;
        coverage.insert("kanji.dic_refs_avg".to_string(), round(average));
        coverage
    }
}

fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

fn level_key(level: Option<u8>) -> String {
    level.map_or_else(|| "none".to_string(), |level| format!("n{level}"))
}

fn relationship_types(artifact: &Artifact) -> (Vec<String>, Vec<String>) {
    let history: BTreeSet<&str> = artifact
        .learnables
        .iter()
        .filter(|l| l.summary.domain == Domain::History)
        .map(|l| l.summary.id.as_str())
        .collect();
    let mut language_kinds = BTreeSet::new();
    let mut history_kinds = BTreeSet::new();
    for relation in &artifact.relations {
        let kinds = if history.contains(relation.from.as_str()) {
            &mut history_kinds
        } else {
            &mut language_kinds
        };
        kinds.insert(relation.kind.clone());
    }
    (
        language_kinds.into_iter().collect(),
        history_kinds.into_iter().collect(),
    )
}

/// Computes the report for a loaded artifact.
pub fn stats(artifact: &Artifact) -> serde_json::Result<Stats> {
    let mut tally = Tally::default();
    let mut jlpt_levels: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for learnable in &artifact.learnables {
        tally.add(learnable)?;
        let per_type = jlpt_levels
            .entry(learnable.summary.kind.as_str().to_string())
            .or_default();
        *per_type
            .entry(level_key(learnable.summary.jlpt_level))
            .or_insert(0) += 1;
    }
    let mut counts = tally.entries.clone();
    for kind in ["kanji", "vocabulary", "character", "radical", "grammar"] {
        counts.entry(kind.to_string()).or_insert(0);
    }
    let history = artifact
        .learnables
        .iter()
        .filter(|l| l.summary.domain == Domain::History)
        .count();
    counts.insert("history".to_string(), history);
    counts.extend(crate::history::check::counts(artifact));
    counts.insert("relations".to_string(), artifact.relations.len());
    counts.insert(
        "sample".to_string(),
        artifact.learnables.iter().filter(|l| l.sample).count(),
    );
    counts.insert("lessons".to_string(), artifact.lessons.len());
    counts.insert("journeys".to_string(), artifact.journeys.len());
    counts.insert("worlds".to_string(), artifact.worlds.len());
    let (relationship_types, history_relationship_types) = relationship_types(artifact);
    let mut quality = crate::quality::levels(artifact).figures;
    quality.extend(crate::quality::lookalikes(artifact).figures);
    quality.extend(crate::fields::measure(artifact).figures);
    quality.extend(crate::history::coverage::measure(artifact));
    let mut coverage = tally.coverage();
    coverage.extend(frequent_shares(&quality));
    Ok(Stats {
        dataset_version: artifact
            .manifest
            .as_ref()
            .map(|m| m.dataset_version.clone()),
        counts,
        jlpt_levels,
        coverage,
        relationship_types,
        history_relationship_types,
        quality,
    })
}

/// The shares of the frequent content words present and listed, when recorded.
fn frequent_shares(quality: &BTreeMap<String, usize>) -> Vec<(String, f64)> {
    use crate::vocabulary::frequency::{CONTENT_WORDS_COUNT, LISTED_COUNT, PRESENT_COUNT};
    let Some(&words) = quality.get(CONTENT_WORDS_COUNT) else {
        return Vec::new();
    };
    [PRESENT_COUNT, LISTED_COUNT]
        .into_iter()
        .filter_map(|key| {
            let count = *quality.get(key)?;
            let share = round(count as f64 / words.max(1) as f64);
            Some((
                format!("vocabulary.{}", key.trim_start_matches("vocabulary_")),
                share,
            ))
        })
        .collect()
}

/// The human-readable form of the report.
pub fn render(stats: &Stats) -> String {
    let mut out = String::new();
    out.push_str("counts:\n");
    for (kind, count) in &stats.counts {
        out.push_str(&format!("  {kind:<22} {count}\n"));
    }
    out.push_str("jlpt levels:\n");
    for (kind, levels) in &stats.jlpt_levels {
        let line: Vec<String> = levels
            .iter()
            .map(|(level, n)| format!("{level}={n}"))
            .collect();
        out.push_str(&format!("  {kind:<22} {}\n", line.join(" ")));
    }
    out.push_str("coverage:\n");
    for (field, value) in &stats.coverage {
        out.push_str(&format!("  {field:<40} {value}\n"));
    }
    out.push_str("quality:\n");
    for (figure, value) in &stats.quality {
        out.push_str(&format!("  {figure:<40} {value}\n"));
    }
    out.push_str(&format!(
        "relationship types: {}\n",
        stats.relationship_types.join(", ")
    ));
    out.push_str(&format!(
        "history relationship types: {}\n",
        stats.history_relationship_types.join(", ")
    ));
    out
}
