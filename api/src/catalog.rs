//! The dataset as the server holds it: every document as JSON text, looked up by id,
//! the relation graph, and the embedded search index.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use manabi_artifact::{Artifact, ArtifactError, LoadedLearnable, RawDoc};
use manabi_schemas::{LearnableSummary, RelationshipKind, RelationshipKinds};
use manabi_search::{IndexEntry, IndexError, SearchIndex};

use crate::settings::ArtifactSource;

/// One learnable: its summary (parsed, for search and related answers), the summary
/// and full document as JSON text, and its sample membership.
#[derive(Debug)]
pub struct Entry {
    pub summary: LearnableSummary,
    pub summary_json: Bytes,
    pub json: Bytes,
    pub sample: bool,
}

/// A lesson or journey document.
#[derive(Debug)]
pub struct Document {
    pub json: Bytes,
    pub sample: bool,
}

/// An entry related to another, with every kind that links the two, read from the
/// other entry.
#[derive(Debug, Clone)]
pub struct Neighbour {
    pub target: usize,
    /// One per kind, most useful kind first; never empty.
    pub links: Vec<Link>,
}

/// One kind of relationship to a neighbour and its basis (several joined by `; `).
#[derive(Debug, Clone)]
pub struct Link {
    pub kind: RelationshipKind,
    pub basis: Arc<str>,
}

impl Neighbour {
    /// The most useful of its kinds, or of those `kinds` keeps.
    pub fn first_kind(&self, kinds: Option<RelationshipKinds>) -> Option<RelationshipKind> {
        self.links_of(kinds).next().map(|link| link.kind)
    }

    /// Its links of the kinds in `kinds` (all of them without a filter).
    pub fn links_of(&self, kinds: Option<RelationshipKinds>) -> impl Iterator<Item = &Link> {
        self.links
            .iter()
            .filter(move |link| kinds.is_none_or(|kinds| kinds.contains(link.kind)))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("serializing a summary: {0}")]
    Summary(#[from] serde_json::Error),
}

/// The loaded dataset; immutable once built, shared by every request.
#[derive(Debug)]
pub struct Catalog {
    pub entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Per entry, its neighbours in the order related answers list them.
    neighbours: Vec<Vec<Neighbour>>,
    /// Per entry, its place in the order of usefulness within one kind (see
    /// [`usefulness_ranks`]).
    usefulness: Vec<u32>,
    lessons: HashMap<String, Document>,
    journeys: HashMap<String, Document>,
    /// `{"worlds":[…],"total":n}`, built once: worlds are public and never change.
    pub worlds_json: Bytes,
    pub index: SearchIndex,
    pub dataset_version: String,
    /// How long loading and indexing took.
    pub load_time: Duration,
    /// Where that time went.
    pub load_steps: LoadSteps,
}

/// The steps of a load, in the order they run, for the start-up log.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadSteps {
    /// Decompressing and parsing the artifact.
    pub artifact: Duration,
    /// Both search indexes, with the summary texts, the id map, the relation graph and
    /// the documents built alongside.
    pub index: Duration,
    /// Putting the entries together.
    pub assemble: Duration,
}

impl Catalog {
    pub fn load(source: &ArtifactSource) -> Result<Catalog, CatalogError> {
        let started = Instant::now();
        let artifact = match source {
            ArtifactSource::Embedded(bytes) => Artifact::from_reader(*bytes)?,
            ArtifactSource::File(path) => Artifact::load(path)?,
        };
        let parsed = started.elapsed();
        let mut catalog = Catalog::from_artifact(artifact)?;
        catalog.load_time = started.elapsed();
        catalog.load_steps.artifact = parsed;
        Ok(catalog)
    }

    pub fn from_artifact(artifact: Artifact) -> Result<Catalog, CatalogError> {
        let started = Instant::now();
        let Artifact {
            manifest,
            learnables,
            relations,
            lessons,
            journeys,
            worlds,
        } = artifact;
        // The index needs only the learnables' surfaces; everything else (summary texts,
        // the id map, the relation graph, the documents) is built on the other core
        // meanwhile.
        let (index, rest) = std::thread::scope(|scope| {
            let index = scope.spawn(|| index_of(&learnables));
            let rest = summary_texts(&learnables).map(|summaries| {
                let by_id: HashMap<String, usize> = learnables
                    .iter()
                    .enumerate()
                    .map(|(at, learnable)| (learnable.summary.id.clone(), at))
                    .collect();
                let usefulness = usefulness_ranks(&learnables);
                let neighbours = neighbours_of(&relations, &by_id, &usefulness);
                let documents = (documents(lessons), documents(journeys));
                (summaries, by_id, (neighbours, usefulness), documents)
            });
            let index = index
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (index, rest)
        });
        let (index, (summaries, by_id, (neighbours, usefulness), (lessons, journeys))) =
            (index?, rest?);
        let indexed = started.elapsed();
        let entries: Vec<Entry> = learnables
            .into_iter()
            .zip(summaries)
            .map(|(learnable, summary_json)| Entry {
                summary: learnable.summary,
                summary_json,
                json: Bytes::from(String::from(learnable.json)),
                sample: learnable.sample,
            })
            .collect();
        Ok(Catalog {
            entries,
            by_id,
            neighbours,
            usefulness,
            lessons,
            journeys,
            worlds_json: worlds_json(&worlds),
            index,
            dataset_version: manifest.map(|m| m.dataset_version).unwrap_or_default(),
            load_time: Duration::ZERO,
            load_steps: LoadSteps {
                artifact: Duration::ZERO,
                index: indexed,
                assemble: started.elapsed() - indexed,
            },
        })
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    pub fn learnable(&self, id: &str) -> Option<&Entry> {
        self.position(id).map(|at| &self.entries[at])
    }

    /// The entries related to the one at `position`, most useful first: by their first
    /// kind in the order of [`RelationshipKind`], then by [`Catalog::usefulness`].
    pub fn neighbours(&self, position: usize) -> &[Neighbour] {
        self.neighbours
            .get(position)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Where the entry at `position` stands among all entries: easier JLPT level, common
    /// word, more frequent, id; lower is more useful.
    pub fn usefulness(&self, position: usize) -> u32 {
        self.usefulness.get(position).copied().unwrap_or(u32::MAX)
    }

    pub fn lesson(&self, id: &str) -> Option<&Document> {
        self.lessons.get(id)
    }

    /// Every journey id, sorted.
    pub fn journey_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.journeys.keys().map(String::as_str).collect();
        ids.sort_unstable();
        ids
    }

    pub fn journey(&self, id: &str) -> Option<&Document> {
        self.journeys.get(id)
    }

    /// The display label of a learnable, for resolved lesson links.
    pub fn label(&self, id: &str) -> Option<&str> {
        let summary = &self.learnable(id)?.summary;
        summary
            .label
            .as_deref()
            .or(summary.canonical_name.as_deref())
    }
}

fn index_of(learnables: &[LoadedLearnable]) -> Result<SearchIndex, IndexError> {
    let entries: Vec<IndexEntry<'_>> = learnables
        .iter()
        .map(LoadedLearnable::index_entry)
        .collect();
    SearchIndex::build(&entries)
}

fn summary_texts(learnables: &[LoadedLearnable]) -> Result<Vec<Bytes>, serde_json::Error> {
    learnables
        .iter()
        .map(|learnable| serde_json::to_vec(&learnable.summary).map(Bytes::from))
        .collect()
}

fn documents(docs: Vec<RawDoc>) -> HashMap<String, Document> {
    docs.into_iter()
        .map(|doc| {
            let json = Bytes::from(String::from(doc.json));
            (
                doc.id,
                Document {
                    json,
                    sample: doc.sample,
                },
            )
        })
        .collect()
}

fn worlds_json(worlds: &[RawDoc]) -> Bytes {
    let mut sorted: Vec<&RawDoc> = worlds.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let list: Vec<&str> = sorted.iter().map(|doc| &*doc.json).collect();
    Bytes::from(format!(
        r#"{{"worlds":[{}],"total":{}}}"#,
        list.join(","),
        list.len()
    ))
}

/// Each entry's place in the order in which a learner meets entries: easier JLPT level
/// first (ungraded last), common words first, more frequent first (per the dataset's
/// frequency rank), then by id so the order is total.
fn usefulness_ranks(learnables: &[LoadedLearnable]) -> Vec<u32> {
    let key = |learnable: &LoadedLearnable| {
        let summary = &learnable.summary;
        (
            // N5 (5) first, N1 (1) last, ungraded (None) after them.
            Reverse(summary.jlpt_level),
            summary.is_common_word != Some(true),
            learnable.surface.frequency.unwrap_or(u32::MAX),
        )
    };
    let mut order: Vec<usize> = (0..learnables.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&learnables[a], &learnables[b]);
        key(a)
            .cmp(&key(b))
            .then_with(|| a.summary.id.cmp(&b.summary.id))
    });
    let mut ranks = vec![0; learnables.len()];
    for (rank, at) in order.into_iter().enumerate() {
        ranks[at] = u32::try_from(rank).unwrap_or(u32::MAX);
    }
    ranks
}

/// One end of a relation: `(entry, the other entry, the kind read from the entry, basis)`.
type End<'a> = (usize, usize, RelationshipKind, &'a str);

/// Every relation read from both of its ends, so an entry lists what points to it as well
/// as what it points to; the dataset often stores a relation and its inverse both, which
/// read the same from each end and so meet here as one link. Relations of a kind the
/// table does not know are left out (and logged): `tests/dataset_schema.rs` keeps the
/// committed dataset free of them.
fn neighbours_of(
    relations: &[manabi_schemas::Relation],
    by_id: &HashMap<String, usize>,
    usefulness: &[u32],
) -> Vec<Vec<Neighbour>> {
    let mut ends: Vec<End<'_>> = Vec::with_capacity(relations.len() * 2);
    let mut unknown = 0_usize;
    for relation in relations {
        let (Some(&from), Some(&to)) = (by_id.get(&relation.from), by_id.get(&relation.to)) else {
            continue;
        };
        if from == to {
            continue;
        }
        let Some(kind) = RelationshipKind::named(&relation.kind) else {
            unknown += 1;
            continue;
        };
        ends.push((from, to, kind, &relation.basis));
        ends.push((to, from, kind.inverse(), &relation.basis));
    }
    if unknown > 0 {
        tracing::warn!(
            unknown,
            "relations of a kind the API does not know were left out"
        );
    }
    ends.sort_unstable();
    ends.dedup();
    let mut neighbours = vec![Vec::new(); usefulness.len()];
    let mut bases: HashMap<String, Arc<str>> = HashMap::new();
    for group in ends.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (entry, target) = (group[0].0, group[0].1);
        let links = group
            .chunk_by(|a, b| a.2 == b.2)
            .map(|same_kind| {
                let joined = same_kind
                    .iter()
                    .map(|end| end.3)
                    .collect::<Vec<_>>()
                    .join("; ");
                let basis = bases
                    .entry(joined)
                    .or_insert_with_key(|text| Arc::from(text.as_str()));
                Link {
                    kind: same_kind[0].2,
                    basis: Arc::clone(basis),
                }
            })
            .collect();
        neighbours[entry].push(Neighbour { target, links });
    }
    for list in &mut neighbours {
        list.sort_by_key(|neighbour| (neighbour.links[0].kind, usefulness[neighbour.target]));
    }
    neighbours
}

#[cfg(test)]
mod tests {
    use manabi_schemas::Relation;

    use super::*;

    fn relation(from: &str, to: &str, kind: &str, basis: &str) -> Relation {
        Relation {
            from: from.to_owned(),
            to: to.to_owned(),
            kind: kind.to_owned(),
            basis: basis.to_owned(),
        }
    }

    /// `(target, [(kind, basis)])` of each neighbour of `entry`, in order.
    fn listed(neighbours: &[Vec<Neighbour>], entry: usize) -> Vec<(usize, Vec<(&str, &str)>)> {
        neighbours[entry]
            .iter()
            .map(|n| {
                let links = n.links.iter().map(|l| (l.kind.name(), &*l.basis)).collect();
                (n.target, links)
            })
            .collect()
    }

    #[test]
    fn a_relation_and_its_stored_inverse_are_one_link_and_kinds_of_a_pair_meet() {
        let by_id: HashMap<String, usize> = ["kanji-a", "radical-b", "word-c", "kanji-d"]
            .into_iter()
            .enumerate()
            .map(|(at, id)| (id.to_owned(), at))
            .collect();
        let relations = [
            relation("kanji-a", "radical-b", "has-component", "kradfile"),
            relation("radical-b", "kanji-a", "component-of", "kradfile"),
            relation("kanji-a", "radical-b", "has-radical", "kanjidic2"),
            relation("word-c", "kanji-a", "uses-kanji", "jmdict"),
            relation("kanji-a", "kanji-d", "antonym", "kanjium"),
            relation("kanji-d", "kanji-a", "antonym", "jmdict ant"),
            relation("kanji-a", "kanji-a", "synonym", "a loop"),
            relation("kanji-a", "word-c", "no-such-kind", "unknown"),
            relation("kanji-a", "gone", "antonym", "a missing end"),
        ];
        // kanji-d is the least useful entry, word-c the most.
        let neighbours = neighbours_of(&relations, &by_id, &[1, 2, 0, 3]);
        let want = vec![
            (3, vec![("antonym", "jmdict ant; kanjium")]),
            (2, vec![("used-in", "jmdict")]),
            (
                1,
                vec![("has-radical", "kanjidic2"), ("has-component", "kradfile")],
            ),
        ];
        assert_eq!(listed(&neighbours, 0), want);
        let radical = vec![(
            0,
            vec![("radical-of", "kanjidic2"), ("component-of", "kradfile")],
        )];
        assert_eq!(listed(&neighbours, 1), radical);
        assert_eq!(
            listed(&neighbours, 2),
            vec![(0, vec![("uses-kanji", "jmdict")])]
        );
    }
}
