//! Historical places named in JMnedict: castles and castle ruins, archaeological ruins,
//! tumuli, graves of historical persons, barriers, capital sites, temples and shrines.

use manabi_schemas::history::HistoryType;

use super::cite;
use super::jmnedict::NameEntry;
use super::model::Entity;
use super::persons::gloss_name;
use super::romaji::slug;

/// Words of a JMnedict place gloss and the kind of site they name, most specific first.
const SITE_KINDS: &[(&str, &str, &str)] = &[
    ("(grave)", "grave", "the grave of"),
    ("Castle Ruins", "castle", "the ruins of a castle"),
    ("Castle", "castle", "a castle"),
    (
        "Capital Site",
        "capital-site",
        "the site of a former capital",
    ),
    ("Tumulus", "tumulus", "a tumulus (burial mound)"),
    ("Kofun", "tumulus", "a tumulus (kofun)"),
    (
        "Ruins",
        "ruins",
        "an archaeological or historical ruins site",
    ),
    ("barrier", "barrier", "a barrier (checkpoint) site"),
    ("Temple", "temple", "a Buddhist temple"),
    ("Shrine", "shrine", "a Shinto shrine"),
];

fn site_kind(gloss: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    SITE_KINDS.iter().find(|(word, _, _)| gloss.contains(word))
}

/// The documented rule for a Japanese site: written in kanji with a reading that is not
/// katakana-only.
fn is_japanese_site(entry: &NameEntry) -> bool {
    let katakana_only =
        |kana: &String| kana.chars().all(|c| ('\u{30A0}'..='\u{30FF}').contains(&c));
    !entry.kanji.is_empty() && entry.kana.first().is_some_and(|k| !katakana_only(k))
}

pub fn build(entries: &[NameEntry]) -> Vec<Entity> {
    entries
        .iter()
        .filter(|e| is_japanese_site(e))
        .filter_map(place_entity)
        .collect()
}

fn place_entity(entry: &NameEntry) -> Option<Entity> {
    let gloss = entry.glosses.first()?;
    let (_, tag, phrase) = site_kind(gloss)?;
    let name = if *tag == "grave" {
        gloss.trim().to_string()
    } else {
        gloss_name(gloss).to_string()
    };
    if name.is_empty() {
        return None;
    }
    let id = format!("history-place-{}-{}", slug(&name), entry.seq);
    let mut place = Entity::new(id, HistoryType::Place, name.clone());
    for form in entry.kanji.iter().chain(&entry.kana) {
        place.add_alias(form);
    }
    place.scope = Some("Japan".into());
    place.add_tag("place");
    place.add_tag("site");
    place.add_tag(tag);
    let written: Vec<&str> = [place.kanji(), place.kana()]
        .into_iter()
        .flatten()
        .collect();
    let written = written.join(", ");
    let subject = if *tag == "grave" {
        let person = gloss.trim().trim_end_matches("(grave)").trim();
        place.summary = format!("Grave of {person}");
        format!("{phrase} {person}")
    } else {
        place.summary = format!("Historical site: {phrase}");
        phrase.to_string()
    };
    place.sentences.push(format!(
        "{name} ({written}) is {subject} in Japan, as named in the Japanese proper-name dictionary JMnedict."
    ));
    place
        .citations
        .push(cite::jmnedict(entry.seq, &["canonical_name", "aliases"]));
    Some(place)
}
