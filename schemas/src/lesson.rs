//! Teaching documents built on the learnables: lessons with questions, journeys (lesson
//! graphs with branch points and outcomes) and the 20 themed worlds they belong to.
//! Strings marked "markup" may carry links `[[learnable-id|text]]` (see [`crate::markup`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::learnable::Domain;

/// What a question asks the learner to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Pick the English meaning of a word, kanji or entity.
    MeaningChoice,
    /// Pick the kana reading of a written form.
    ReadingChoice,
    /// Fill the gap in a real example sentence.
    Cloze,
    /// Pick the romaji of a kana character, or the kana for a romaji.
    KanaRecognition,
    /// Pick the kanji that carries a meaning.
    KanjiRecognition,
    /// Pick the grammar pattern that fits a meaning or a sentence.
    GrammarChoice,
    /// Pick when a history entity lived, happened or lasted.
    DateChoice,
    /// Pick what a historical person was (emperor, shōgun, poet …).
    RoleChoice,
    /// Pick where a historical place lies (province, prefecture).
    PlaceChoice,
}

impl QuestionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::MeaningChoice => "meaning_choice",
            QuestionKind::ReadingChoice => "reading_choice",
            QuestionKind::Cloze => "cloze",
            QuestionKind::KanaRecognition => "kana_recognition",
            QuestionKind::KanjiRecognition => "kanji_recognition",
            QuestionKind::GrammarChoice => "grammar_choice",
            QuestionKind::DateChoice => "date_choice",
            QuestionKind::RoleChoice => "role_choice",
            QuestionKind::PlaceChoice => "place_choice",
        }
    }
}

/// A multiple-choice question. `answer` is one of `choices`, exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Question {
    /// `q1`, `q2`, … within the lesson.
    pub id: String,
    pub kind: QuestionKind,
    /// What the learner is asked (markup).
    pub prompt: String,
    /// The options in display order; the distractors come from the same level and type.
    pub choices: Vec<String>,
    /// The correct choice.
    pub answer: String,
    /// Why the answer is right (markup).
    pub explanation: String,
    /// The learnable the question tests.
    pub learnable: String,
}

impl Question {
    /// How many choices equal the answer; a well-formed question has exactly one.
    pub fn correct_choices(&self) -> usize {
        self.choices.iter().filter(|c| **c == self.answer).count()
    }
}

/// A lesson: teaching text, questions and the entries it teaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Lesson {
    /// `lesson-<world slug>-<n5..n1>-<nnn>`.
    pub id: String,
    /// Id of the world the lesson belongs to.
    pub world: String,
    /// 5 = N5 .. 1 = N1.
    pub jlpt_level: u8,
    pub title: String,
    /// What the learner can do after the lesson.
    pub objectives: Vec<String>,
    pub estimated_minutes: u16,
    /// Lessons to take first (earlier lessons of the same world).
    pub prerequisites: Vec<String>,
    /// The teaching text in Markdown (markup).
    pub body_markdown: String,
    pub questions: Vec<Question>,
    /// Ids of the learnables the lesson teaches, in teaching order.
    pub learnables: Vec<String>,
}

/// A directed edge of a journey: take `to` after `from`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
pub struct JourneyEdge {
    pub from: String,
    pub to: String,
}

/// One way on from a branch point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BranchOption {
    /// The track's name, e.g. `reading` or `conversation`.
    pub track: String,
    /// What the learner reads when choosing.
    pub label: String,
    /// The first lesson of the track.
    pub lesson: String,
}

/// A lesson after which the learner chooses how to go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BranchPoint {
    /// The lesson that ends before the choice.
    pub after: String,
    pub prompt: String,
    pub options: Vec<BranchOption>,
}

/// A can-do statement reached at the end of a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Outcome {
    /// The last lesson of the path.
    pub after: String,
    pub can_do: String,
}

/// A lesson graph: a shared trunk, a branch point, tracks, and outcomes at the ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Journey {
    /// `journey-<world slug>-<n5..n1>-<nn>`.
    pub id: String,
    pub world: String,
    pub title: String,
    pub description: String,
    pub jlpt_level: u8,
    /// The first lesson.
    pub start: String,
    /// Every lesson of the journey, in a topological order.
    pub nodes: Vec<String>,
    pub edges: Vec<JourneyEdge>,
    pub branch_points: Vec<BranchPoint>,
    pub outcomes: Vec<Outcome>,
}

/// The JLPT levels a world spans, from the easiest (`from`, e.g. 5) to the hardest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct JlptRange {
    pub from: u8,
    pub to: u8,
}

/// A themed area of the dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct World {
    /// `world-<slug>`.
    pub id: String,
    pub title: String,
    pub description: String,
    pub jlpt_range: JlptRange,
    pub domains: Vec<Domain>,
    /// The rules that select the world's learnables, e.g. `vocabulary:gloss:food`,
    /// `grammar:register:honorific`, `history:type:era` (see `docs/lessons.md`).
    pub tags: Vec<String>,
    /// Hand-written introduction in Markdown (markup).
    pub introduction: String,
    /// How many lessons the world holds.
    pub lesson_count: usize,
}
