//! Journeys: each (world, level) is cut into journeys of at most
//! [`JOURNEY_LESSONS_MAX`] lessons. A journey starts with one shared lesson, then branches
//! into the reading and the conversation track; each track ends in a can-do outcome.

use manabi_schemas::lesson::{BranchOption, BranchPoint, Journey, JourneyEdge, Lesson, Outcome};
use manabi_schemas::{Learnable, LearnableType};

use super::items::{self, Track};
use super::worlds::WorldSpec;

/// Longest journey, in lessons: about a week of study at a lesson a session.
pub const JOURNEY_LESSONS_MAX: usize = 10;

/// What the planner needs to know of a lesson.
#[derive(Debug, Clone)]
pub struct LessonInfo {
    pub id: String,
    pub track: Track,
    pub kind: LearnableType,
    /// The labels of the entries it teaches.
    pub labels: Vec<String>,
}

impl LessonInfo {
    pub fn of(lesson: &Lesson, track: Track, kind: LearnableType, entries: &[&Learnable]) -> Self {
        LessonInfo {
            id: lesson.id.clone(),
            track,
            kind,
            labels: entries.iter().map(|l| items::label(l)).collect(),
        }
    }
}

/// Splits `list` into `parts` runs of near-equal length (some may be empty).
fn split<T: Clone>(list: &[T], parts: usize) -> Vec<Vec<T>> {
    (0..parts)
        .map(|i| {
            let start = i * list.len() / parts;
            let end = (i + 1) * list.len() / parts;
            list[start..end].to_vec()
        })
        .collect()
}

/// The journeys of one world at one level.
pub fn plan(spec: &WorldSpec, level: u8, lessons: &[LessonInfo]) -> Vec<Journey> {
    let by_track = |track| -> Vec<LessonInfo> {
        lessons
            .iter()
            .filter(|l| l.track == track)
            .cloned()
            .collect()
    };
    let reading = by_track(Track::Reading);
    let conversation = by_track(Track::Conversation);
    let count = lessons.len().div_ceil(JOURNEY_LESSONS_MAX).max(1);
    let reading = split(&reading, count);
    let conversation = split(&conversation, count);
    reading
        .into_iter()
        .zip(conversation)
        .filter(|(r, c)| !r.is_empty() || !c.is_empty())
        .enumerate()
        .map(|(index, (r, c))| journey(spec, level, index + 1, r, c))
        .collect()
}

/// The can-do statement for having finished a track.
fn can_do(spec: &WorldSpec, level: u8, track: &[LessonInfo]) -> String {
    // The last lesson names the track: the first one is the shared trunk.
    let Some(first) = track.last() else {
        return String::new();
    };
    let labels: Vec<&str> = track
        .iter()
        .flat_map(|l| &l.labels)
        .map(String::as_str)
        .collect();
    let examples = labels
        .iter()
        .take(4)
        .copied()
        .collect::<Vec<_>>()
        .join("、");
    let count = labels.len();
    let world = spec.title.to_lowercase();
    let name = items::track_name(first.kind, first.track);
    match first.kind {
        LearnableType::Vocabulary => format!(
            "I can read, say and understand {count} N{level} words for {world} ({name}), such as {examples}."
        ),
        LearnableType::Kanji => format!(
            "I can recognise {count} N{level} kanji ({name}), such as {examples}, and read common words written with them."
        ),
        LearnableType::Grammar => format!(
            "I can understand and use {count} N{level} grammar patterns ({name}), such as {examples}."
        ),
        LearnableType::Character => {
            format!("I can read and write {count} {name} characters, such as {examples}.")
        }
        LearnableType::Radical => {
            format!(
                "I can spot {count} {name} inside kanji and say what they mean, such as {examples}."
            )
        }
        _ => format!(
            "I can read the names of {count} {name} of {world}, such as {examples}, and place them in time."
        ),
    }
}

fn chain(ids: &[&LessonInfo]) -> Vec<JourneyEdge> {
    ids.windows(2)
        .map(|w| JourneyEdge {
            from: w[0].id.clone(),
            to: w[1].id.clone(),
        })
        .collect()
}

/// One journey: the first lesson of the longer track is the shared trunk; the rest of
/// that track and the other track are the two branches. With one track left, it is a
/// straight path.
fn journey(
    spec: &WorldSpec,
    level: u8,
    number: usize,
    reading: Vec<LessonInfo>,
    conversation: Vec<LessonInfo>,
) -> Journey {
    let (mut main, other) = if reading.len() >= conversation.len() {
        (reading, conversation)
    } else {
        (conversation, reading)
    };
    let trunk = main.remove(0);
    let mut edges = Vec::new();
    let mut branch_points = Vec::new();
    let mut outcomes = Vec::new();
    let mut nodes = vec![trunk.id.clone()];
    if main.is_empty() || other.is_empty() {
        let rest: Vec<&LessonInfo> = std::iter::once(&trunk).chain(&main).chain(&other).collect();
        edges.extend(chain(&rest));
        nodes.extend(rest[1..].iter().map(|l| l.id.clone()));
        let track: Vec<LessonInfo> = rest.into_iter().cloned().collect();
        outcomes.push(Outcome {
            after: track.last().map(|l| l.id.clone()).unwrap_or_default(),
            can_do: can_do(spec, level, &track),
        });
    } else {
        let mut options = Vec::new();
        for branch in [&main, &other] {
            let path: Vec<&LessonInfo> = std::iter::once(&trunk).chain(branch.iter()).collect();
            edges.extend(chain(&path));
            nodes.extend(branch.iter().map(|l| l.id.clone()));
            options.push(BranchOption {
                track: branch[0].track.slug().to_string(),
                label: items::track_name(branch[0].kind, branch[0].track).to_string(),
                lesson: branch[0].id.clone(),
            });
            // The outcome speaks of the track's own entries: the trunk counts only for
            // the branch that continues its track.
            let mut finished = Vec::new();
            if trunk.track == branch[0].track && trunk.kind == branch[0].kind {
                finished.push(trunk.clone());
            }
            finished.extend(branch.iter().cloned());
            outcomes.push(Outcome {
                after: branch.last().map(|l| l.id.clone()).unwrap_or_default(),
                can_do: can_do(spec, level, &finished),
            });
        }
        branch_points.push(BranchPoint {
            after: trunk.id.clone(),
            prompt: format!(
                "Which way next: {} or {}?",
                options[0].label, options[1].label
            ),
            options,
        });
    }
    let description = match branch_points.first() {
        Some(point) => format!(
            "Starts with a shared lesson of {}, then lets you choose: {}. Each track ends with what you can now do.",
            spec.title,
            point
                .options
                .iter()
                .map(|o| o.label.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        None => format!(
            "A straight path through {} lessons of {}.",
            nodes.len(),
            spec.title
        ),
    };
    Journey {
        id: format!("journey-{}-n{level}-{number:02}", spec.slug),
        world: spec.id(),
        title: format!("{}, N{level}: journey {number}", spec.title),
        description,
        jlpt_level: level,
        start: trunk.id.clone(),
        nodes,
        edges,
        branch_points,
        outcomes,
    }
}
