use std::path::{Path, PathBuf};

use manabi_schemas::Learnable;
use manabi_schemas::lesson::{Journey, JourneyEdge};

use super::{Content, build_from, check, worlds};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/lessons")
        .join(name)
}

fn learnables() -> Vec<Learnable> {
    let text = std::fs::read_to_string(fixture("learnables.json")).expect("fixture");
    serde_json::from_str(&text).expect("fixture parses")
}

fn content(learnables: &[Learnable]) -> Content {
    let specs = worlds::load(&fixture("worlds.toml")).expect("worlds");
    build_from(&specs, learnables.iter().collect())
}

fn json(content: &Content) -> String {
    let lessons: Vec<_> = content.lessons.iter().map(|l| &l.doc).collect();
    let journeys: Vec<_> = content.journeys.iter().map(|j| &j.doc).collect();
    serde_json::to_string(&(&content.worlds, lessons, journeys)).expect("serializes")
}

#[test]
fn the_builder_is_deterministic() {
    let entries = learnables();
    let mut reversed = entries.clone();
    reversed.reverse();
    assert_eq!(json(&content(&entries)), json(&content(&reversed)));
}

#[test]
fn built_content_passes_every_check() {
    let entries = learnables();
    let built = content(&entries);
    assert!(!built.lessons.is_empty());
    assert!(!built.journeys.is_empty());
    let lessons: Vec<_> = built.lessons.iter().map(|l| l.doc.clone()).collect();
    let journeys: Vec<_> = built.journeys.iter().map(|j| j.doc.clone()).collect();
    let exists = |id: &str| entries.iter().any(|l| l.id == id);
    let problems = check::all(&lessons, &journeys, &built.worlds, &exists);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_question_has_exactly_one_correct_choice() {
    let built = content(&learnables());
    let questions: Vec<_> = built
        .lessons
        .iter()
        .flat_map(|l| &l.doc.questions)
        .collect();
    assert!(questions.len() > 20);
    for question in questions {
        assert_eq!(question.correct_choices(), 1, "{question:?}");
        assert!(question.choices.len() >= 3, "{question:?}");
    }
}

#[test]
fn a_question_with_two_correct_choices_is_reported() {
    let built = content(&learnables());
    let mut lesson = built.lessons[0].doc.clone();
    let question = &mut lesson.questions[0];
    question.choices[0] = question.answer.clone();
    question.choices[1] = question.answer.clone();
    let problems = check::lesson(&lesson, &|_| true);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("choices equal the answer")),
        "{problems:?}"
    );
}

#[test]
fn the_journey_check_catches_a_cycle() {
    let built = content(&learnables());
    let mut journey: Journey = built
        .journeys
        .iter()
        .find(|j| j.doc.nodes.len() >= 2)
        .expect("a journey of two lessons")
        .doc
        .clone();
    assert!(check::journey(&journey).is_empty());
    let back = JourneyEdge {
        from: journey.nodes[journey.nodes.len() - 1].clone(),
        to: journey.nodes[0].clone(),
    };
    journey.edges.push(back);
    let problems = check::journey(&journey);
    assert!(problems.iter().any(|p| p.contains("cycle")), "{problems:?}");
}

#[test]
fn each_track_outcome_cites_its_own_entries() {
    let built = content(&learnables());
    let two_tracks: Vec<&Journey> = built
        .journeys
        .iter()
        .map(|j| &j.doc)
        .filter(|j| j.outcomes.len() == 2)
        .collect();
    for journey in &two_tracks {
        assert!(check::journey(journey).is_empty(), "{}", journey.id);
    }
    let Some(journey) = two_tracks.first() else {
        return;
    };
    let mut copied = (*journey).clone();
    copied.outcomes[1].can_do = copied.outcomes[0].can_do.clone();
    let problems = check::journey(&copied);
    assert!(
        problems.iter().any(|p| p.contains("own track")),
        "{problems:?}"
    );
}

#[test]
fn a_broken_link_is_reported() {
    let built = content(&learnables());
    let mut lesson = built.lessons[0].doc.clone();
    lesson.body_markdown.push_str(" [[vocab-0|missing]]");
    let problems = check::lesson(&lesson, &|id| id != "vocab-0");
    assert!(
        problems.iter().any(|p| p.contains("vocab-0")),
        "{problems:?}"
    );
}

#[test]
fn the_worlds_file_has_twenty_worlds() {
    let specs = worlds::load(&worlds::worlds_file()).expect("worlds file");
    worlds::check_count(&specs).expect("20 worlds");
}

#[test]
fn a_word_written_like_another_is_asked_with_its_reading_and_not_its_reading() {
    use manabi_schemas::LearnableBody;
    use manabi_schemas::lesson::QuestionKind;
    let mut entries = learnables();
    let word = entries
        .iter()
        .find(|l| matches!(&l.body, LearnableBody::Vocabulary(d) if !d.readings.is_empty()))
        .expect("a word in the fixture")
        .clone();
    // A second word written the same, read otherwise (相対 そうたい and あいたい).
    let mut other = word.clone();
    other.id = format!("{}-homograph", word.id);
    if let LearnableBody::Vocabulary(detail) = &mut other.body {
        detail.readings[0].text = "あいたい".to_owned();
    }
    entries.push(other.clone());
    let built = content(&entries);
    let asked: Vec<_> = built
        .lessons
        .iter()
        .flat_map(|l| &l.doc.questions)
        .filter(|q| q.learnable == word.id || q.learnable == other.id)
        .collect();
    assert!(!asked.is_empty());
    for question in asked {
        assert_ne!(question.kind, QuestionKind::ReadingChoice, "{question:?}");
        if question.kind == QuestionKind::MeaningChoice {
            assert!(question.prompt.contains('（'), "{question:?}");
        }
    }
}
