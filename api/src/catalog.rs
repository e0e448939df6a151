//! The dataset as the server holds it: every document as JSON text, looked up by id,
//! the relation graph, and the embedded search index.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use manabi_artifact::{Artifact, ArtifactError, LoadedLearnable, RawDoc};
use manabi_schemas::LearnableSummary;
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

/// One edge of the relation graph, read from the entry that holds it.
#[derive(Debug, Clone)]
pub struct Edge {
    pub relationship: String,
    pub basis: String,
    pub target: usize,
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
    edges: Vec<Vec<Edge>>,
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
                let edges = edges_of(&relations, &by_id, learnables.len());
                let documents = (documents(lessons), documents(journeys));
                (summaries, by_id, edges, documents)
            });
            let index = index
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (index, rest)
        });
        let (index, (summaries, by_id, edges, (lessons, journeys))) = (index?, rest?);
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
            edges,
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

    /// Edges out of the entry at `position`, in a stable order.
    pub fn edges(&self, position: usize) -> &[Edge] {
        self.edges
            .get(position)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    pub fn lesson(&self, id: &str) -> Option<&Document> {
        self.lessons.get(id)
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

/// The name of an edge read backwards (`has-component` seen from the component).
fn inverse(kind: &str) -> String {
    let known = [
        ("has-component", "component-of"),
        ("uses-kanji", "used-in"),
        ("precedes", "follows"),
        ("causes", "caused-by"),
        ("part-of", "has-part"),
        ("basis-for", "builds-on"),
        ("parent-of", "child-of"),
        ("predecessor-of", "successor-of"),
    ];
    for (forward, backward) in known {
        if kind == forward {
            return backward.to_owned();
        }
        if kind == backward {
            return forward.to_owned();
        }
    }
    let symmetric = [
        "similar-to",
        "synonym-of",
        "antonym-of",
        "related-to",
        "contemporary-of",
    ];
    if symmetric.contains(&kind) {
        kind.to_owned()
    } else {
        format!("{kind}-inverse")
    }
}

/// Every relation as an edge from both of its ends, so each entry lists what points to
/// it as well as what it points to.
fn edges_of(
    relations: &[manabi_schemas::Relation],
    by_id: &HashMap<String, usize>,
    count: usize,
) -> Vec<Vec<Edge>> {
    let mut edges = vec![Vec::new(); count];
    for relation in relations {
        let (Some(&from), Some(&to)) = (by_id.get(&relation.from), by_id.get(&relation.to)) else {
            continue;
        };
        edges[from].push(Edge {
            relationship: relation.kind.clone(),
            basis: relation.basis.clone(),
            target: to,
        });
        edges[to].push(Edge {
            relationship: inverse(&relation.kind),
            basis: relation.basis.clone(),
            target: from,
        });
    }
    edges
}
