//! `dataset verify`: the checks an artifact must pass before it ships. Every problem is
//! collected, not just the first, so one run shows everything to fix.

use std::collections::BTreeSet;

use manabi_schemas::Learnable;
use manabi_schemas::lesson::{Journey, Lesson, World};
use serde::de::DeserializeOwned;

use crate::ids::IdKind;
use manabi_artifact::{Artifact, RawDoc};

/// Problems listed per check are capped so a systematic fault does not flood the output.
const PROBLEMS_PER_CHECK_MAX: usize = 50;

#[derive(Debug, Default)]
pub struct Problems {
    list: Vec<String>,
    suppressed: usize,
}

impl Problems {
    fn push(&mut self, problem: String) {
        self.list.push(problem);
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.list.clone();
        if self.suppressed > 0 {
            lines.push(format!("... and {} more", self.suppressed));
        }
        lines
    }

    fn cap(&mut self, before: usize) {
        let added = self.list.len() - before;
        if added > PROBLEMS_PER_CHECK_MAX {
            self.suppressed += added - PROBLEMS_PER_CHECK_MAX;
            self.list.truncate(before + PROBLEMS_PER_CHECK_MAX);
        }
    }
}

fn check_ids(artifact: &Artifact, problems: &mut Problems) {
    let mut seen = BTreeSet::new();
    for learnable in &artifact.learnables {
        let id = &learnable.summary.id;
        if !seen.insert(id.as_str()) {
            problems.push(format!("{id}: id is not unique"));
        }
        match IdKind::classify(id) {
            Ok(kind) if kind.fits(learnable.summary.kind) => {}
            Ok(_) => problems.push(format!(
                "{id}: id does not fit type {}",
                learnable.summary.kind.as_str()
            )),
            Err(error) => problems.push(error.to_string()),
        }
    }
}

fn check_relations(artifact: &Artifact, problems: &mut Problems) {
    let ids: BTreeSet<&str> = artifact
        .learnables
        .iter()
        .map(|l| l.summary.id.as_str())
        .collect();
    for relation in &artifact.relations {
        for end in [&relation.from, &relation.to] {
            if !ids.contains(end.as_str()) {
                problems.push(format!(
                    "relation {} {} {}: {end} does not exist",
                    relation.from, relation.kind, relation.to
                ));
            }
        }
    }
}

fn check_documents(artifact: &Artifact, problems: &mut Problems) {
    for loaded in &artifact.learnables {
        let id = &loaded.summary.id;
        let learnable: Learnable = match serde_json::from_str(&loaded.json) {
            Ok(learnable) => learnable,
            Err(error) => {
                problems.push(format!("{id}: the document does not parse: {error}"));
                continue;
            }
        };
        if learnable.sources.is_empty() {
            problems.push(format!("{id}: no citation"));
        }
        if learnable
            .jlpt_level
            .is_some_and(|level| !(1..=5).contains(&level))
        {
            problems.push(format!(
                "{id}: JLPT level {:?} is not 1..5",
                learnable.jlpt_level
            ));
        }
        if learnable.summary() != loaded.summary {
            problems.push(format!("{id}: the summary differs from the full document"));
        }
        if learnable.id != *id {
            problems.push(format!("{id}: the document's id is {}", learnable.id));
        }
    }
}

/// Lessons, journeys and worlds must parse as their schema types and carry the id of
/// their record line, once each.
fn check_raw_docs<T: DeserializeOwned + HasId>(
    kind: &str,
    docs: &[RawDoc],
    problems: &mut Problems,
) {
    let mut seen = BTreeSet::new();
    for doc in docs {
        if !seen.insert(doc.id.as_str()) {
            problems.push(format!("{kind} {}: id is not unique", doc.id));
        }
        match serde_json::from_str::<T>(&doc.json) {
            Ok(parsed) if parsed.id() == doc.id => {}
            Ok(parsed) => problems.push(format!(
                "{kind} {}: the document's id is {}",
                doc.id,
                parsed.id()
            )),
            Err(error) => problems.push(format!("{kind} {}: does not parse: {error}", doc.id)),
        }
    }
}

/// The id of a teaching document.
trait HasId {
    fn id(&self) -> &str;
}

impl HasId for Lesson {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for Journey {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for World {
    fn id(&self) -> &str {
        &self.id
    }
}

/// Lesson links and references, questions, and journey graphs (see `lessons::check`).
fn check_teaching(artifact: &Artifact, problems: &mut Problems) {
    for problem in crate::lessons::check::artifact(artifact) {
        problems.push(problem);
    }
}

/// The level rules: beginner core present at its level, no name-only kanji graded, every
/// jōyō kanji graded or with a recorded reason (see `quality`); radicals' example kanji
/// easiest level first.
fn check_levels(artifact: &Artifact, problems: &mut Problems) {
    for problem in crate::quality::levels(artifact).problems {
        problems.push(problem);
    }
    for problem in crate::radicals::check_example_order(artifact) {
        problems.push(problem);
    }
}

/// Look-alike kanji: coverage of the JLPT kanji, symmetric pairs, no self pairs.
fn check_lookalikes(artifact: &Artifact, problems: &mut Problems) {
    for problem in crate::quality::lookalikes(artifact).problems {
        problems.push(problem);
    }
}

/// The seed fields: conjugation of inflecting grammar points and of verbs and
/// adjectives, keigo wherever JMdict marks the word's register (see `fields`).
fn check_fields(artifact: &Artifact, problems: &mut Problems) {
    for problem in crate::fields::measure(artifact).problems {
        problems.push(problem);
    }
}

/// Runs every check.
pub fn verify(artifact: &Artifact) -> Problems {
    let mut problems = Problems::default();
    if artifact.manifest.is_none() {
        problems.push("no manifest".to_string());
    }
    let checks: [&dyn Fn(&mut Problems); 11] = [
        &|p| check_fields(artifact, p),
        &|p| check_ids(artifact, p),
        &|p| check_relations(artifact, p),
        &|p| check_documents(artifact, p),
        &|p| check_raw_docs::<Lesson>("lesson", &artifact.lessons, p),
        &|p| check_raw_docs::<Journey>("journey", &artifact.journeys, p),
        &|p| check_raw_docs::<World>("world", &artifact.worlds, p),
        &|p| check_teaching(artifact, p),
        &|p| check_levels(artifact, p),
        &|p| check_lookalikes(artifact, p),
        &|p| {
            crate::history::check::artifact(artifact)
                .into_iter()
                .for_each(|x| p.push(x))
        },
    ];
    for check in checks {
        let before = problems.len();
        check(&mut problems);
        problems.cap(before);
    }
    problems
}
