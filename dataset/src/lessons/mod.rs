//! Lessons, journeys and worlds: the teaching layer built on the learnables.
//!
//! Each learnable with a level is filed under one of the 20 hand-written worlds
//! (`content/worlds.toml`), a JLPT level and a track; each (world, level, track) run is cut
//! into lessons in a fixed order, and each (world, level) into journeys whose two tracks
//! branch after a shared first lesson. Everything is derived from the entries and the
//! worlds file, so equal inputs give equal documents. See `docs/lessons.md`.

pub mod check;
pub mod items;
pub mod journeys;
pub mod questions;
pub mod text;
pub mod worlds;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::lesson::{JlptRange, Journey, Lesson, World};
use manabi_schemas::{Learnable, LearnableBody, LearnableType};

use items::Track;
use journeys::LessonInfo;
use questions::Pools;
use worlds::WorldSpec;

/// A document and whether keyless callers may read it.
#[derive(Debug, Clone)]
pub struct Built<T> {
    pub doc: T,
    pub sample: bool,
}

/// Everything the teaching layer adds to the artifact, each list in id order.
#[derive(Debug, Clone, Default)]
pub struct Content {
    pub worlds: Vec<World>,
    pub lessons: Vec<Built<Lesson>>,
    pub journeys: Vec<Built<Journey>>,
}

/// How many entries one lesson teaches, by type: fewer when each takes longer to learn.
fn lesson_size(kind: LearnableType) -> usize {
    match kind {
        LearnableType::Vocabulary => 8,
        LearnableType::Kanji => 6,
        LearnableType::Grammar => 3,
        LearnableType::Character => 10,
        LearnableType::Radical => 8,
        _ => 6,
    }
}

/// Builds the content from the worlds file and every built learnable.
pub fn build<'a>(learnables: impl Iterator<Item = &'a Learnable>) -> anyhow::Result<Content> {
    let specs = worlds::load(&worlds::worlds_file())?;
    worlds::check_count(&specs)?;
    Ok(build_from(&specs, learnables.collect()))
}

/// One (world, level, track) run of entries, in teaching order.
type Runs<'a> = BTreeMap<(usize, std::cmp::Reverse<u8>, Track), Vec<&'a Learnable>>;

/// The order entries are taught in: common and frequent first, then by id.
fn teaching_order(learnable: &Learnable) -> (u8, u32, i32, String) {
    let common = u8::from(learnable.is_common_word != Some(true));
    let (rank, year) = match &learnable.body {
        LearnableBody::Kanji(detail) => (detail.frequency_rank.unwrap_or(u32::MAX), 0),
        LearnableBody::History(detail) => (0, items::placed_year(detail).unwrap_or(i32::MAX)),
        _ => (0, 0),
    };
    (common, rank, year, learnable.id.clone())
}

/// [`build`] over given worlds and entries.
pub fn build_from(specs: &[WorldSpec], mut all: Vec<&Learnable>) -> Content {
    all.sort_by(|a, b| a.id.cmp(&b.id));
    let kanji_levels = items::kanji_levels(all.iter().copied());
    let ids: BTreeSet<&str> = all.iter().map(|l| l.id.as_str()).collect();
    let exists = |id: &str| ids.contains(id);
    let mut runs: Runs<'_> = BTreeMap::new();
    let mut pools = Pools::default();
    for learnable in &all {
        pools.add_word(learnable);
    }
    let mut levels = BTreeMap::new();
    for learnable in &all {
        let Some(level) = items::level(learnable, &kanji_levels) else {
            continue;
        };
        levels.insert(learnable.id.as_str(), level);
        pools.add(items::pool_key(learnable, level), learnable);
        let Some(world) = worlds::assign(specs, learnable) else {
            continue;
        };
        let key = (world, std::cmp::Reverse(level), items::track(learnable));
        runs.entry(key).or_default().push(learnable);
    }
    for run in runs.values_mut() {
        run.sort_by_cached_key(|l| teaching_order(l));
    }
    let words = words_with_kanji(&all, &levels);
    let lookup = text::Lookup {
        exists: &exists,
        words_with_kanji: &words,
    };
    let writer = Writer {
        pools: &pools,
        lookup: &lookup,
    };
    assemble(specs, &runs, &writer)
}

/// Vocabulary by the kanji it uses, easiest and most common first.
fn words_with_kanji<'a>(
    all: &[&'a Learnable],
    levels: &BTreeMap<&str, u8>,
) -> BTreeMap<String, Vec<&'a Learnable>> {
    let mut words: BTreeMap<String, Vec<&'a Learnable>> = BTreeMap::new();
    for learnable in all {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        if !levels.contains_key(learnable.id.as_str()) {
            continue;
        }
        for kanji in &detail.kanji {
            words.entry(kanji.clone()).or_default().push(learnable);
        }
    }
    for list in words.values_mut() {
        list.sort_by_key(|l| {
            let level = levels.get(l.id.as_str()).copied().unwrap_or(0);
            (
                std::cmp::Reverse(level),
                l.is_common_word != Some(true),
                l.id.clone(),
            )
        });
    }
    words
}

/// Writes lessons and journeys for every world, level and track.
fn assemble(specs: &[WorldSpec], runs: &Runs<'_>, writer: &Writer<'_>) -> Content {
    let mut content = Content::default();
    let mut by_world_level: BTreeMap<(usize, std::cmp::Reverse<u8>), Vec<LessonInfo>> =
        BTreeMap::new();
    for ((world, level, track), entries) in runs {
        let spec = &specs[*world];
        let infos = by_world_level.entry((*world, *level)).or_default();
        let kind = entries
            .first()
            .map(|l| l.kind)
            .unwrap_or(LearnableType::Vocabulary);
        let size = lesson_size(kind);
        for (part, chunk) in entries.chunks(size).enumerate() {
            let number = infos.len() + 1;
            let lesson = writer.lesson(spec, level.0, *track, part + 1, number, chunk);
            infos.push(LessonInfo::of(&lesson, *track, kind, chunk));
            content.lessons.push(Built {
                doc: lesson,
                sample: false,
            });
        }
    }
    for ((world, level), infos) in &by_world_level {
        let planned = journeys::plan(&specs[*world], level.0, infos);
        content
            .journeys
            .extend(planned.into_iter().map(|doc| Built { doc, sample: false }));
    }
    set_prerequisites(&mut content);
    mark_sample(&mut content);
    content.worlds = specs
        .iter()
        .map(|spec| {
            let id = spec.id();
            let levels: Vec<u8> = content
                .lessons
                .iter()
                .filter(|l| l.doc.world == id)
                .map(|l| l.doc.jlpt_level)
                .collect();
            let range = JlptRange {
                from: levels.iter().copied().max().unwrap_or(5),
                to: levels.iter().copied().min().unwrap_or(1),
            };
            spec.document(levels.len(), range)
        })
        .collect();
    content.worlds.sort_by(|a, b| a.id.cmp(&b.id));
    content.lessons.sort_by(|a, b| a.doc.id.cmp(&b.doc.id));
    content.journeys.sort_by(|a, b| a.doc.id.cmp(&b.doc.id));
    content
}

/// A lesson's prerequisites are the lessons just before it in its journeys.
fn set_prerequisites(content: &mut Content) {
    let mut before: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for journey in &content.journeys {
        for edge in &journey.doc.edges {
            before
                .entry(edge.to.as_str())
                .or_default()
                .insert(edge.from.clone());
        }
    }
    let before: BTreeMap<String, Vec<String>> = before
        .into_iter()
        .map(|(id, set)| (id.to_string(), set.into_iter().collect()))
        .collect();
    for lesson in &mut content.lessons {
        lesson.doc.prerequisites = before.get(&lesson.doc.id).cloned().unwrap_or_default();
    }
}

/// The evaluation sample: the first journey of the first world in the file (kana at N5)
/// and all its lessons, so a keyless caller can walk one journey end to end.
fn mark_sample(content: &mut Content) {
    let Some(first) = content.journeys.first_mut() else {
        return;
    };
    first.sample = true;
    let nodes: BTreeSet<String> = first.doc.nodes.iter().cloned().collect();
    for lesson in &mut content.lessons {
        lesson.sample = nodes.contains(&lesson.doc.id);
    }
}

/// What the lesson writer reads besides the entries it teaches.
struct Writer<'a> {
    pools: &'a Pools<'a>,
    lookup: &'a text::Lookup<'a>,
}

impl Writer<'_> {
    fn lesson(
        &self,
        spec: &WorldSpec,
        level: u8,
        track: Track,
        part: usize,
        number: usize,
        entries: &[&Learnable],
    ) -> Lesson {
        let kind = entries
            .first()
            .map(|l| l.kind)
            .unwrap_or(LearnableType::Vocabulary);
        let track_name = items::track_name(kind, track);
        let labels: Vec<String> = entries.iter().take(3).map(|l| items::label(l)).collect();
        let intro = intro(spec, level, kind, track_name, entries.len());
        let body = match kind {
            LearnableType::Vocabulary => text::vocabulary_body(entries, &intro),
            LearnableType::Kanji => text::kanji_body(entries, &intro, self.lookup),
            LearnableType::Grammar => text::grammar_body(entries, &intro, self.lookup),
            LearnableType::Character => text::kana_body(entries, &intro, self.lookup),
            LearnableType::Radical => text::radical_body(entries, &intro, self.lookup),
            _ => text::history_body(entries, &intro),
        };
        let questions: Vec<_> = entries
            .iter()
            .enumerate()
            .filter_map(|(turn, l)| {
                let key = items::pool_key(l, level);
                questions::question(self.pools, &key, l, turn)
            })
            .enumerate()
            .map(|(index, mut q)| {
                q.id = format!("q{}", index + 1);
                q
            })
            .collect();
        let minutes = entries.len() * minutes_per_entry(kind) + questions.len();
        Lesson {
            id: format!("lesson-{}-n{level}-{number:03}", spec.slug),
            world: spec.id(),
            jlpt_level: level,
            title: format!(
                "{} · N{level} {track_name} {part}: {}",
                spec.title,
                labels.join("、")
            ),
            objectives: objectives(kind, level, entries),
            estimated_minutes: u16::try_from(minutes).unwrap_or(u16::MAX),
            prerequisites: Vec::new(),
            body_markdown: body,
            questions,
            learnables: entries.iter().map(|l| l.id.clone()).collect(),
        }
    }
}

fn minutes_per_entry(kind: LearnableType) -> usize {
    match kind {
        LearnableType::Grammar => 6,
        LearnableType::Kanji => 3,
        LearnableType::Character | LearnableType::Radical => 1,
        _ => 2,
    }
}

fn intro(spec: &WorldSpec, level: u8, kind: LearnableType, track: &str, count: usize) -> String {
    let world = &spec.title;
    match kind {
        LearnableType::Vocabulary => format!(
            "This lesson of *{world}* teaches {count} N{level} words from the {track} track. \
             Say each word aloud with its reading first; the accent column tells you where \
             your voice falls. Then meet the words in real sentences from the Tatoeba corpus \
             and read the usage notes before you try the questions."
        ),
        LearnableType::Kanji => format!(
            "This lesson of *{world}* introduces {count} N{level} kanji ({track}). For each \
             one, learn the meaning first, then one on'yomi and one kun'yomi, and look at \
             the words that use it: words are how kanji are remembered."
        ),
        LearnableType::Grammar => format!(
            "This lesson of *{world}* covers {count} N{level} grammar points ({track}). Read \
             how each pattern is formed, say the examples aloud, and compare the pattern \
             with the related points listed under it."
        ),
        LearnableType::Character => format!(
            "This lesson of *{world}* teaches {count} {track} characters. Each kana stands \
             for one sound (or, for digraphs, one syllable); the table gives its romaji and \
             the same sound in the other script."
        ),
        LearnableType::Radical => format!(
            "This lesson of *{world}* teaches {count} {track}. A radical is the part of a \
             kanji dictionaries sort it by, and often a hint to its meaning: learn the shape, \
             its name and meaning, then find it in the example kanji."
        ),
        _ => format!(
            "This lesson of *{world}* reads the names of {count} {track} in Japanese \
             history. Learn to read each name, then place it in time with the dates and \
             the short account below."
        ),
    }
}

fn objectives(kind: LearnableType, level: u8, entries: &[&Learnable]) -> Vec<String> {
    let labels: Vec<String> = entries.iter().map(|l| items::label(l)).collect();
    let list = labels.join("、");
    match kind {
        LearnableType::Vocabulary => vec![
            format!(
                "Read, say and understand {} N{level} words: {list}",
                entries.len()
            ),
            "Recognise the words in real example sentences".to_string(),
            "Pronounce them with the right pitch accent".to_string(),
        ],
        LearnableType::Kanji => vec![
            format!(
                "Recognise {} N{level} kanji and their meanings: {list}",
                entries.len()
            ),
            "Read each with an on'yomi and a kun'yomi".to_string(),
            "Read everyday words written with them".to_string(),
        ],
        LearnableType::Grammar => entries
            .iter()
            .map(|l| format!("Use {} to say “{}”", items::label(l), items::meaning(l)))
            .collect(),
        LearnableType::Character => vec![
            format!("Read and write {list}"),
            "Match each character to its sound and to its counterpart in the other script"
                .to_string(),
        ],
        LearnableType::Radical => vec![
            format!("Spot the radicals {list} inside kanji"),
            "Name each radical's meaning".to_string(),
        ],
        _ => vec![
            format!("Read the names {list}"),
            "Place each of them in time".to_string(),
        ],
    }
}

fn raw(doc: &impl serde::Serialize) -> anyhow::Result<Box<serde_json::value::RawValue>> {
    Ok(serde_json::value::RawValue::from_string(
        serde_json::to_string(doc)?,
    )?)
}

/// Writes worlds, lessons and journeys as artifact records, each kind in id order.
pub fn write_records<W: std::io::Write>(
    writer: &mut manabi_artifact::ArtifactWriter<W>,
    content: &Content,
) -> anyhow::Result<()> {
    use manabi_artifact::Record;
    for world in &content.worlds {
        let doc = raw(world)?;
        writer.record(&Record::World {
            id: world.id.clone(),
            doc: &doc,
        })?;
    }
    for lesson in &content.lessons {
        let doc = raw(&lesson.doc)?;
        let id = lesson.doc.id.clone();
        writer.record(&Record::Lesson {
            id,
            sample: lesson.sample,
            doc: &doc,
        })?;
    }
    for journey in &content.journeys {
        let doc = raw(&journey.doc)?;
        let id = journey.doc.id.clone();
        writer.record(&Record::Journey {
            id,
            sample: journey.sample,
            doc: &doc,
        })?;
    }
    Ok(())
}
