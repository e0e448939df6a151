//! Sentences that state, in the description, what the derived relations say: the era's
//! neighbours and proclaiming emperor, the eras a person was born and died in, and so on.
//! Each sentence restates an edge; none adds a fact the edges do not carry.

use std::collections::HashMap;

use manabi_schemas::Relation;
use manabi_schemas::history::HistoryType;

use super::model::Entity;

/// Most names listed in one sentence.
const NAMES_PER_SENTENCE_MAX: usize = 4;

/// Appends relation sentences to every entity's description.
pub fn add_relation_sentences(entities: &mut [Entity], relations: &[Relation]) {
    let names: HashMap<String, String> = entities
        .iter()
        .map(|e| (e.id.clone(), display_name(e)))
        .collect();
    let starts: HashMap<&str, i32> = entities
        .iter()
        .filter_map(|e| Some((e.id.as_str(), e.span.start?.year)))
        .collect();
    let mut outgoing: HashMap<&str, Vec<&Relation>> = HashMap::new();
    for relation in relations {
        outgoing
            .entry(relation.from.as_str())
            .or_default()
            .push(relation);
    }
    // Names are listed in time order (Meiji, Taishō, Shōwa), not in the order of ids.
    for edges in outgoing.values_mut() {
        edges.sort_by_key(|r| (starts.get(r.to.as_str()).copied(), r.to.as_str()));
    }
    // The canon's descriptions are the editors' text for learners; they stay as written.
    for entity in entities.iter_mut().filter(|e| !e.canon) {
        let edges = outgoing
            .get(entity.id.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        let targets = |kind: &str| -> Vec<&str> {
            let mut found: Vec<&str> = edges
                .iter()
                .filter(|r| r.kind == kind)
                .filter_map(|r| names.get(&r.to).map(String::as_str))
                .collect();
            found.dedup();
            found.truncate(NAMES_PER_SENTENCE_MAX);
            found
        };
        let sentences = match entity.kind {
            HistoryType::Era => era_sentences(entity, &targets),
            HistoryType::Person => person_sentences(&targets),
            HistoryType::Event => event_sentences(&targets),
            HistoryType::Period => period_sentences(&targets),
            HistoryType::Place => place_sentences(&targets),
            HistoryType::Term => term_sentences(&targets),
        };
        entity.sentences.extend(sentences);
    }
}

/// `Emperor Meiji (明治天皇)` for entities with both an English and a kanji name.
fn display_name(entity: &Entity) -> String {
    let with_kind = match entity.kind {
        HistoryType::Era => format!("the {} era", entity.name),
        HistoryType::Period if !entity.name.starts_with("the ") => format!("the {}", entity.name),
        _ => entity.name.clone(),
    };
    match entity.kanji() {
        Some(kanji) if entity.kind == HistoryType::Person && kanji != entity.name => {
            format!("{with_kind} ({kanji})")
        }
        _ => with_kind,
    }
}

fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

type Targets<'a> = dyn Fn(&str) -> Vec<&'a str> + 'a;

fn era_sentences(entity: &Entity, targets: &Targets) -> Vec<String> {
    let mut out = Vec::new();
    let (before, after) = (targets("follows"), targets("precedes"));
    match (before.first(), after.first()) {
        (Some(b), Some(a)) => out.push(format!("It followed {b} and was followed by {a}.")),
        (Some(b), None) => out.push(format!("It followed {b}.")),
        (None, Some(a)) => out.push(format!("It was followed by {a}.")),
        (None, None) => {}
    }
    let ruler = entity.era.as_ref().and_then(|e| e.ruler.clone());
    match (targets("during-reign-of").first(), ruler) {
        (Some(emperor), _) => out.push(format!(
            "According to sanmiao it was proclaimed in the reign of {emperor}."
        )),
        (None, Some(ruler)) => out.push(format!(
            "According to sanmiao it was proclaimed in the reign of {ruler}."
        )),
        _ => {}
    }
    let periods = targets("part-of");
    if !periods.is_empty() {
        out.push(format!("Its years fall within {}.", list(&periods)));
    }
    let rivals = targets("concurrent-with");
    if !rivals.is_empty() {
        out.push(format!(
            "It ran concurrently with {} of the rival court.",
            list(&rivals)
        ));
    }
    out
}

fn person_sentences(targets: &Targets) -> Vec<String> {
    let mut out = Vec::new();
    let (born, died) = (targets("born-during"), targets("died-during"));
    if !born.is_empty() {
        out.push(format!("Their birth falls in {}.", list(&born)));
    }
    if !died.is_empty() {
        out.push(format!("Their death falls in {}.", list(&died)));
    }
    let periods = targets("active-during");
    if !periods.is_empty() {
        out.push(format!("They were active in {}.", list(&periods)));
    }
    if let Some(previous) = targets("successor-of").first() {
        out.push(format!("In the order of office they succeeded {previous}."));
    }
    if let Some(grave) = targets("buried-at").first() {
        out.push(format!("JMnedict names their grave: {grave}."));
    }
    let works = targets("created");
    if !works.is_empty() {
        out.push(format!("Their works include {}.", list(&works)));
    }
    out
}

fn event_sentences(targets: &Targets) -> Vec<String> {
    let when: Vec<&str> = targets("occurred-during");
    if when.is_empty() {
        return Vec::new();
    }
    vec![format!("By its year it falls in {}.", list(&when))]
}

fn period_sentences(targets: &Targets) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(next) = targets("precedes").first() {
        out.push(format!("It ends in the year {next} begins."));
    }
    out
}

fn place_sentences(targets: &Targets) -> Vec<String> {
    targets("grave-of")
        .first()
        .map(|p| vec![format!("It is the grave of {p}.")])
        .unwrap_or_default()
}

fn term_sentences(targets: &Targets) -> Vec<String> {
    let mut out = Vec::new();
    let authors = targets("created-by");
    if !authors.is_empty() {
        out.push(format!("It is by {}.", list(&authors)));
    }
    let periods = targets("used-during");
    if !periods.is_empty() {
        out.push(format!("It belongs to {}.", list(&periods)));
    }
    out
}
