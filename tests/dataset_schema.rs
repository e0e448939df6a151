//! The committed dataset against the published contract: every document it holds — each
//! learnable of every type, each lesson, journey and world — is valid against the schema
//! the OpenAPI description publishes for it, so a client generated from the description
//! reads all of them; every example id in the description names a document of the
//! keyless sample, so the examples answer 200 with or without a key; and every relation
//! has a kind the API can name from both of its ends.

use std::collections::BTreeMap;
use std::path::Path;

use manabi_artifact::Artifact;
use serde_json::{Value, json};

fn committed_artifact() -> Artifact {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/manabi-dataset.jsonl.zst");
    Artifact::load(&path).expect("the committed artifact loads")
}

fn published_description() -> Value {
    let (_, openapi) = manabi_api::routes::api_with_description();
    serde_json::to_value(&openapi).expect("the description serializes")
}

/// A validator of the component `name`, its references resolved within the description.
fn validator(openapi: &Value, name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": openapi["components"],
    });
    jsonschema::validator_for(&schema).expect("the published schema compiles")
}

#[test]
fn every_document_matches_its_published_schema() {
    let artifact = committed_artifact();
    let openapi = published_description();
    let kinds: [(&str, Vec<&str>); 4] = [
        (
            "Learnable",
            artifact.learnables.iter().map(|l| &*l.json).collect(),
        ),
        (
            "LessonDocument",
            artifact.lessons.iter().map(|d| &*d.json).collect(),
        ),
        (
            "JourneyDocument",
            artifact.journeys.iter().map(|d| &*d.json).collect(),
        ),
        (
            "WorldDocument",
            artifact.worlds.iter().map(|d| &*d.json).collect(),
        ),
    ];
    // The validator bites: a learnable with a type the contract does not know is refused.
    let mut broken: Value = serde_json::from_str(&artifact.learnables[0].json).expect("JSON");
    broken["type"] = json!("spaceship");
    assert!(!validator(&openapi, "Learnable").is_valid(&broken));

    let mut checked = BTreeMap::new();
    let mut failures = Vec::new();
    for (name, documents) in kinds {
        let validator = validator(&openapi, name);
        for text in &documents {
            let document: Value = serde_json::from_str(text).expect("a document is JSON");
            for error in validator.iter_errors(&document).take(2) {
                failures.push(format!(
                    "{name} {}: {} at {}",
                    document["id"],
                    error,
                    error.instance_path()
                ));
            }
        }
        checked.insert(name, documents.len());
    }
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(20)]
    );
    for (name, count) in &checked {
        assert!(*count > 0, "no {name} checked: {checked:?}");
    }
    let by_type = artifact
        .learnables
        .iter()
        .fold(BTreeMap::new(), |mut counts, learnable| {
            *counts
                .entry(format!("{:?}", learnable.summary.kind))
                .or_insert(0) += 1;
            counts
        });
    assert!(by_type.len() >= 6, "every learnable type: {by_type:?}");
}

#[test]
fn every_example_id_names_a_sample_document() {
    let artifact = committed_artifact();
    let openapi = published_description();
    let sample: std::collections::HashSet<&str> = artifact
        .learnables
        .iter()
        .filter(|l| l.sample)
        .map(|l| l.summary.id.as_str())
        .chain(
            [&artifact.lessons, &artifact.journeys, &artifact.worlds]
                .into_iter()
                .flatten()
                .filter(|d| d.sample)
                .map(|d| d.id.as_str()),
        )
        .collect();
    let mut examples = Vec::new();
    for (path, item) in openapi["paths"].as_object().expect("paths") {
        let parameters = item["get"]["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for parameter in parameters {
            if parameter["in"] == "path"
                && let Some(id) = parameter["example"].as_str()
            {
                examples.push((path.clone(), id.to_owned()));
            }
        }
    }
    assert!(examples.len() >= 4, "examples: {examples:?}");
    for (path, id) in examples {
        assert!(
            sample.contains(id.as_str()),
            "{path}: example {id} is not in the sample"
        );
    }
}

/// Every relation of the dataset has a kind the relationship table knows, so related
/// answers leave none out (the catalog drops a relation of an unknown kind).
#[test]
fn every_relation_kind_is_in_the_relationship_table() {
    let artifact = committed_artifact();
    let unknown: std::collections::BTreeSet<&str> = artifact
        .relations
        .iter()
        .map(|relation| relation.kind.as_str())
        .filter(|kind| manabi_schemas::RelationshipKind::named(kind).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "add these kinds to schemas/src/relationship.rs: {unknown:?}"
    );
    assert!(!artifact.relations.is_empty());
}
