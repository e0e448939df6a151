//! The seed fields a teacher relies on, measured on the artifact for `verify` (problems)
//! and `stats` (figures): conjugation of every grammar point whose pattern ends in an
//! inflecting word and a table for every verb and adjective; the keigo register of every
//! word JMdict marks honorific, humble or polite (its first sense, or a later sense of an
//! honorific form such as ご覧: `vocabulary::entry::register`); no word whose first sense is archaic,
//! obscure, rare or vulgar (neither a list row nor a frequent token is matched to one); and how many loanwords name their
//! source language (JMdict's `lsource`) and source word (JMdict or UniDic); and how many
//! lesson questions give their answer away (each one is a problem of `lessons::check`, or
//! of the entries behind it: a radical, a reading of its own, a title) or ask about a word
//! written like another without saying which.

use manabi_schemas::vocabulary::{OriginClass, VocabularyDetail};
use manabi_schemas::{Learnable, LearnableBody, LearnableType};

use std::collections::{BTreeMap, HashMap};

use manabi_schemas::lesson::{Lesson, QuestionKind};
use manabi_schemas::markup;

use crate::conjugation::{Class, pattern_forms};
use crate::lessons::check::{self, Homographs, give_away};
use crate::quality::LevelQuality;
use crate::vocabulary::entry;
use crate::vocabulary::frequency::MARKED_SENSES;
use manabi_artifact::Artifact;

/// The lessons of the artifact that parse.
fn lessons(artifact: &Artifact) -> impl Iterator<Item = Lesson> + '_ {
    artifact
        .lessons
        .iter()
        .filter_map(|raw| serde_json::from_str::<Lesson>(&raw.json).ok())
}

fn documents(artifact: &Artifact, kind: LearnableType) -> impl Iterator<Item = Learnable> + '_ {
    artifact
        .learnables
        .iter()
        .filter(move |l| l.summary.kind == kind)
        .filter_map(|l| serde_json::from_str(&l.json).ok())
}

/// Measures the fields; see the module documentation.
pub fn measure(artifact: &Artifact) -> LevelQuality {
    let mut quality = LevelQuality::default();
    grammar(artifact, &mut quality);
    vocabulary(artifact, &mut quality);
    let give_aways = lessons(artifact)
        .flat_map(|lesson| lesson.questions)
        .filter(|question| give_away(question).is_some())
        .count();
    quality
        .figures
        .insert("lesson_questions_giving_away".to_owned(), give_aways);
    // The words, parsed once for the checks below, by id.
    let words: BTreeMap<String, Learnable> = documents(artifact, LearnableType::Vocabulary)
        .map(|word| (word.id.clone(), word))
        .collect();
    let kanji: Vec<Learnable> = documents(artifact, LearnableType::Kanji).collect();
    homograph_questions(artifact, &words, &mut quality);
    entry_give_aways(artifact, &kanji, &words, &mut quality);
    kanji_notes(&kanji, &mut quality);
    editors_labels(&words, &mut quality);
    refused_examples(&words, &mut quality);
    quality
}

/// The give-aways only the entries behind a question show, each a problem (figure
/// `lesson_questions_giving_away_by_entry`): kanji choices all of one radical the answer
/// lacks (海 among 繰 繭 織), a wrong choice that is another reading of the kanji or word
/// asked (ズ beside ジ for 事), a meaning that spells the word's reading (交番 "police box;
/// koban"), a role asked of a name ending in its title (光厳天皇), and a cloze choice that
/// means what the answer means (もしかしたら beside もしかすると).
fn entry_give_aways(
    artifact: &Artifact,
    kanji: &[Learnable],
    words: &BTreeMap<String, Learnable>,
    quality: &mut LevelQuality,
) {
    let mut radicals: HashMap<String, String> = HashMap::new();
    for learnable in kanji {
        if let LearnableBody::Kanji(detail) = &learnable.body
            && let (Some(label), Some(radical)) = (&learnable.label, detail.radical_number)
        {
            radicals.insert(label.clone(), radical.to_string());
        }
    }
    let entries: HashMap<&str, &Learnable> = kanji
        .iter()
        .chain(words.values())
        .map(|learnable| (learnable.id.as_str(), learnable))
        .collect();
    let mut meanings_by_label: HashMap<&str, Vec<String>> = HashMap::new();
    for entry in entries.values() {
        if let (Some(label), LearnableBody::Vocabulary(_)) = (&entry.label, &entry.body) {
            meanings_by_label
                .entry(label.as_str())
                .or_default()
                .push(crate::lessons::items::meaning(entry));
        }
    }
    let mut found = 0;
    for lesson in lessons(artifact) {
        for question in &lesson.questions {
            let reason = match question.kind {
                QuestionKind::Cloze => entries.get(question.learnable.as_str()).and_then(|word| {
                    let meaning = crate::lessons::items::meaning(word);
                    question
                        .choices
                        .iter()
                        .filter(|c| **c != question.answer)
                        .find(|choice| {
                            meanings_by_label.get(choice.as_str()).is_some_and(|all| {
                                all.iter().all(|other| check::synonym_fits(&meaning, other))
                            })
                        })
                        .map(|choice| format!("choice “{choice}” means what the answer means"))
                }),
                QuestionKind::KanjiRecognition => {
                    check::odd_one_out(question, |c| radicals.get(c).cloned()).map(|radical| {
                        format!("the answer is the only choice without radical no. {radical}")
                    })
                }
                QuestionKind::ReadingChoice => entries
                    .get(question.learnable.as_str())
                    .map(|entry| check::own_readings(entry))
                    .and_then(|own| {
                        question
                            .choices
                            .iter()
                            .find(|c| **c != question.answer && own.contains(c))
                            .cloned()
                    })
                    .map(|choice| {
                        format!("choice “{choice}” is another reading of the entry asked")
                    }),
                QuestionKind::MeaningChoice => entries
                    .get(question.learnable.as_str())
                    .and_then(|word| check::spells_reading(&question.answer, word))
                    .map(|romaji| format!("the answer spells the word's reading {romaji}")),
                QuestionKind::RoleChoice => markup::links(&question.prompt)
                    .next()
                    .and_then(|name| check::role_title(name.text))
                    .map(|title| format!("the name asked ends in its title {title}")),
                _ => None,
            };
            if let Some(reason) = reason {
                found += 1;
                quality
                    .problems
                    .push(format!("lesson {} {}: {reason}", lesson.id, question.id));
            }
        }
    }
    quality
        .figures
        .insert("lesson_questions_giving_away_by_entry".to_owned(), found);
}

/// No kanji lists KANJIDIC2's note `(kokuji)` among its meanings (it is the tag `kokuji`),
/// nor a Western unit written in katakana among its kun readings (粉 デシメートル).
fn kanji_notes(kanji: &[Learnable], quality: &mut LevelQuality) {
    for learnable in kanji {
        let LearnableBody::Kanji(detail) = &learnable.body else {
            continue;
        };
        if detail.meanings.iter().any(|m| m == "(kokuji)") {
            quality.problems.push(format!(
                "kanji {}: the note (kokuji) stands among its meanings",
                learnable.id
            ));
        }
        if let Some(unit) = detail
            .readings
            .kun
            .iter()
            .find(|kun| kun.chars().all(crate::vocabulary::text::is_katakana))
        {
            quality.problems.push(format!(
                "kanji {}: the unit {unit} stands among its kun readings",
                learnable.id
            ));
        }
    }
}

/// No question has two right answers because its word is written like another one read
/// otherwise (相対 そうたい and あいたい): such a word is not asked its reading, and its
/// meaning question shows the reading (figure `lesson_questions_on_homographs`).
fn homograph_questions(
    artifact: &Artifact,
    words: &BTreeMap<String, Learnable>,
    quality: &mut LevelQuality,
) {
    let mut homographs = Homographs::default();
    for word in words.values() {
        homographs.add(word);
    }
    let mut found = 0;
    for lesson in lessons(artifact) {
        for question in &lesson.questions {
            let Some(word) = words.get(&question.learnable) else {
                continue;
            };
            let Some(other) = homographs.other_reading(word) else {
                continue;
            };
            let LearnableBody::Vocabulary(detail) = &word.body else {
                continue;
            };
            let unclear = match question.kind {
                QuestionKind::ReadingChoice => true,
                QuestionKind::MeaningChoice => !detail
                    .readings
                    .iter()
                    .any(|r| question.prompt.contains(r.text.as_str())),
                _ => false,
            };
            if unclear {
                found += 1;
                let label = word.label.as_deref().unwrap_or_default();
                quality.problems.push(format!(
                    "lesson {} {}: {label} is also read {other}, and the question does not say which word it asks about",
                    lesson.id, question.id
                ));
            }
        }
    }
    quality
        .figures
        .insert("lesson_questions_on_homographs".to_owned(), found);
}

fn grammar(artifact: &Artifact, quality: &mut LevelQuality) {
    let (mut conjugating, mut with_forms) = (0, 0);
    for learnable in documents(artifact, LearnableType::Grammar) {
        let LearnableBody::Grammar(detail) = &learnable.body else {
            continue;
        };
        // A variant is another way to say it, not the pattern again.
        if detail.variants.contains(&detail.pattern) {
            quality.problems.push(format!(
                "grammar {}: a variant repeats the pattern {}",
                learnable.id, detail.pattern
            ));
        }
        if pattern_forms(&detail.pattern).is_none() && detail.conjugation.is_empty() {
            continue;
        }
        conjugating += 1;
        if detail.conjugation.is_empty() {
            quality.problems.push(format!(
                "grammar {}: {} ends in an inflecting word but lists no forms",
                learnable.id, detail.pattern
            ));
        } else {
            with_forms += 1;
        }
    }
    quality
        .figures
        .insert("grammar_conjugating".to_owned(), conjugating);
    quality
        .figures
        .insert("grammar_conjugating_with_forms".to_owned(), with_forms);
}

/// True when the word's first sense is a verb, adjective or noun taking する that the
/// rules conjugate.
fn conjugates(detail: &VocabularyDetail) -> bool {
    let reading = detail.readings.first().map_or("", |r| r.text.as_str());
    detail.senses.first().is_some_and(|sense| {
        sense
            .pos
            .iter()
            .any(|pos| pos == "vs" || Class::from_jmdict(pos, reading).is_some())
    })
}

/// No word shows an example the editors refused for it (`vocabulary_examples_refused.tsv`,
/// keyed by the word's label: a refusal left under a label the word no longer has would
/// silently stop applying). Figure `vocabulary_refusals_naming_no_word`: the refusals
/// whose word is not in the artifact (words the frequency exclusions later left out,
/// kept in case they return).
fn refused_examples(words: &BTreeMap<String, Learnable>, quality: &mut LevelQuality) {
    let mut by_label: HashMap<&str, Vec<&VocabularyDetail>> = HashMap::new();
    for word in words.values() {
        if let (Some(label), LearnableBody::Vocabulary(detail)) = (&word.label, &word.body) {
            by_label.entry(label.as_str()).or_default().push(detail);
        }
    }
    let mut naming_none = 0;
    for row in crate::editors::rows(crate::vocabulary::REFUSED_FOR_WORD) {
        let [label, sentence, ..] = row.as_slice() else {
            continue;
        };
        let Some(details) = by_label.get(label) else {
            naming_none += 1;
            continue;
        };
        if details
            .iter()
            .any(|detail| detail.examples.iter().any(|e| e.japanese == *sentence))
        {
            quality.problems.push(format!(
                "vocabulary {label}: shows the example the editors refused, {sentence}"
            ));
        }
    }
    quality
        .figures
        .insert("vocabulary_refusals_naming_no_word".to_owned(), naming_none);
}

/// The rows of an editors' table keyed by a JMdict entry (`seq` first) whose word is in
/// the artifact, each with that word and its detail; a row of another width is a problem.
fn rows_of_words<'a, const N: usize>(
    table: &'static str,
    what: &str,
    words: &'a BTreeMap<String, Learnable>,
    quality: &mut LevelQuality,
) -> Vec<([&'static str; N], &'a Learnable, &'a VocabularyDetail)> {
    let mut found = Vec::new();
    for row in crate::editors::rows(table) {
        let Ok(columns) = <[&str; N]>::try_from(row.as_slice()) else {
            quality
                .problems
                .push(format!("{what} {row:?}: not {N} columns"));
            continue;
        };
        if let Some(word) = words.get(&format!("vocab-{}", columns[0]))
            && let LearnableBody::Vocabulary(detail) = &word.body
        {
            found.push((columns, word, detail));
        }
    }
    found
}

/// Every editors' label is the label of its word (`vocabulary::entry::LABELS`), and every
/// editors' lead sense leads its word (`vocabulary::entry::SENSES_LEAD`), when the word is
/// in the artifact.
fn editors_labels(words: &BTreeMap<String, Learnable>, quality: &mut LevelQuality) {
    for ([seq, label, reading, _], word, detail) in
        rows_of_words::<4>(entry::LABELS, "editors' label", words, quality)
    {
        let first_reading = detail.readings.first().map(|r| r.text.as_str());
        let shown = word.label.as_deref().zip(first_reading);
        if shown != Some((label, reading)) {
            quality.problems.push(format!(
                "vocabulary {seq}: the editors label it {label} ({reading}), the artifact {shown:?}"
            ));
        }
    }
    for ([seq, gloss, _], _, detail) in
        rows_of_words::<3>(entry::SENSES_LEAD, "editors' lead sense", words, quality)
    {
        let leads = detail
            .senses
            .first()
            .is_some_and(|sense| sense.glosses.iter().any(|g| g == gloss));
        if !leads {
            quality.problems.push(format!(
                "vocabulary {seq}: the editors lead it with \"{gloss}\", the artifact does not"
            ));
        }
    }
}

fn vocabulary(artifact: &Artifact, quality: &mut LevelQuality) {
    let ids: std::collections::HashSet<&str> = artifact
        .learnables
        .iter()
        .map(|l| l.summary.id.as_str())
        .collect();
    let mut figures = [0usize; 7];
    let [
        conjugating,
        tables,
        keigo_marked,
        keigo,
        loanwords,
        with_language,
        with_word,
    ] = &mut figures;
    for learnable in documents(artifact, LearnableType::Vocabulary) {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        if let Some(missing) = detail.kanji.iter().find(|id| !ids.contains(id.as_str())) {
            quality.problems.push(format!(
                "vocabulary {}: it links {missing}, which is not an entry",
                learnable.id
            ));
        }
        let label = learnable.label.as_deref().unwrap_or_default();
        let expected = entry::conjugation(label, &detail.readings, &detail.senses);
        if conjugates(detail) {
            *conjugating += 1;
        }
        if detail.conjugation.is_some() {
            *tables += 1;
        }
        if expected != detail.conjugation {
            quality.problems.push(format!(
                "vocabulary {}: its conjugation is not the table the rules give",
                learnable.id
            ));
        }
        let first_marked = detail
            .senses
            .first()
            .is_some_and(|s| s.misc.iter().any(|m| MARKED_SENSES.contains(&m.as_str())));
        if first_marked {
            quality.problems.push(format!(
                "vocabulary {}: its first sense is marked {:?}: not a word to teach",
                learnable.id, detail.senses[0].misc
            ));
        }
        let label = learnable.label.as_deref().unwrap_or_default();
        let marked = crate::vocabulary::entry::register(
            label,
            detail.senses.iter().map(|s| s.misc.as_slice()),
        )
        .is_some();
        if marked {
            *keigo_marked += 1;
            if detail.keigo.is_some() {
                *keigo += 1;
            } else {
                quality.problems.push(format!(
                    "vocabulary {}: JMdict marks it keigo but it has no register",
                    learnable.id
                ));
            }
        }
        if let Some(etymology) = detail
            .etymology
            .as_ref()
            .filter(|e| e.class == OriginClass::Gairaigo)
        {
            *loanwords += 1;
            if etymology.source_language.is_some() {
                *with_language += 1;
            }
            if etymology.source_word.is_some() {
                *with_word += 1;
            }
        }
    }
    let names = [
        "vocabulary_conjugating",
        "vocabulary_conjugation_tables",
        "vocabulary_keigo_marked",
        "vocabulary_keigo",
        "vocabulary_loanwords",
        "vocabulary_loanwords_with_language",
        "vocabulary_loanwords_with_source_word",
    ];
    for (name, value) in names.into_iter().zip(figures) {
        quality.figures.insert(name.to_owned(), value);
    }
}
