//! The level and coverage rules an artifact must keep, measured once for `verify` (the
//! problems) and `stats` (the figures): the editors' beginner core is present at its level
//! (its ungraded words present without one), no name-only kanji has a JLPT level, every
//! jōyō kanji has a level or a recorded reason, every ungraded vocabulary entry has a
//! reason tag, and the frequent content words of wordfreq's list are covered; and the
//! look-alike rules ([`lookalikes`]): enough JLPT kanji have one, every pair is symmetric
//! and none joins a kanji to itself or to a compatibility duplicate.

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::{Learnable, LearnableBody, LearnableSummary, LearnableType};
use serde_json::Value;

use crate::build::UNMATCHED_COUNT;
use crate::kanji::headline;
use crate::kanji::levels::REASON_TAGS;
use crate::kanji::similar::JLPT_WITH_SIMILAR_PERCENT_MIN;
use crate::sources::tatoeba::english_runs_on;
use crate::vocabulary::core::{self, CoreWord};
use crate::vocabulary::entry;
use crate::vocabulary::frequency::{self, COVERAGE_PERCENT_MIN, FREQUENT_TAG};
use crate::vocabulary::same_sentence;
use manabi_artifact::Artifact;

/// Figures for `stats --json` (`quality.*`) and the problems `verify` lists.
#[derive(Debug, Default)]
pub struct LevelQuality {
    pub figures: BTreeMap<String, usize>,
    pub problems: Vec<String>,
}

impl LevelQuality {
    /// Records the figure `name` for `stats --json`.
    fn figure(&mut self, name: &str, value: usize) {
        self.figures.insert(name.to_string(), value);
    }
}

/// Measures the artifact against the level rules.
pub fn levels(artifact: &Artifact) -> LevelQuality {
    let mut quality = LevelQuality::default();
    beginner_core(artifact, &mut quality);
    beginner_core_ungraded(artifact, &mut quality);
    kanji_levels(artifact, &mut quality);
    vocabulary_levels(artifact, &mut quality);
    vocabulary_frequency(artifact, &mut quality);
    let parsed = language_entries(artifact);
    kanji_headlines(&parsed, &mut quality);
    example_sentences(&parsed, &mut quality);
    vocabulary_forms(&parsed, &mut quality);
    editors_tables(&parsed, &mut quality);
    let boundaries = crate::boundary::measure(artifact);
    quality.figures.extend(boundaries.figures);
    quality.problems.extend(boundaries.problems);
    let unmatched = artifact
        .manifest
        .as_ref()
        .and_then(|m| m.counts.get(UNMATCHED_COUNT));
    if let Some(count) = unmatched {
        quality.figures.insert(UNMATCHED_COUNT.to_string(), *count);
    }
    quality
}

/// Every kanji's short meaning is the one [`headline`] gives: the meanings its words use
/// first (figures `kanji_headline_reordered`, `kanji_headline_off_rule`).
fn kanji_headlines(learnables: &[Learnable], quality: &mut LevelQuality) {
    let words = headline::words_by_kanji(learnables);
    let (mut reordered, mut off) = (0, 0);
    for learnable in learnables {
        let LearnableBody::Kanji(detail) = &learnable.body else {
            continue;
        };
        let uses = words
            .get(learnable.id.as_str())
            .map_or(&[][..], Vec::as_slice);
        let expected = headline::headline(&detail.meanings, uses);
        if expected[..] != detail.meanings[..expected.len()] {
            reordered += 1;
        }
        let expected = (!expected.is_empty()).then(|| expected.join(", "));
        if learnable.meaning != expected {
            off += 1;
            quality.problems.push(format!(
                "{} {}: short meaning {:?}, the headline rule gives {:?}",
                learnable.id,
                learnable.label.as_deref().unwrap_or_default(),
                learnable.meaning,
                expected
            ));
        }
    }
    quality.figure("kanji_headline_reordered", reordered);
    quality.figure("kanji_headline_off_rule", off);
}

/// The kanji, vocabulary and grammar entries of the artifact, parsed once for the checks
/// that read their details (a document that does not parse is reported by verify's
/// document check).
fn language_entries(artifact: &Artifact) -> Vec<Learnable> {
    artifact
        .learnables
        .iter()
        .filter(|l| {
            matches!(
                l.summary.kind,
                LearnableType::Kanji | LearnableType::Vocabulary | LearnableType::Grammar
            )
        })
        .filter_map(|l| serde_json::from_str(&l.json).ok())
        .collect()
}

/// No vocabulary example from Tatoeba whose English runs on past the Japanese, and no two
/// examples of a word that differ only in punctuation (figures
/// `vocabulary_examples_english_run_on`, `vocabulary_examples_repeated`).
fn example_sentences(learnables: &[Learnable], quality: &mut LevelQuality) {
    let (mut run_on, mut repeated) = (0, 0);
    for learnable in learnables {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        for (index, example) in detail.examples.iter().enumerate() {
            let english = example.english.as_deref().unwrap_or_default();
            // Curated pairs keep their own English, checked by the editors.
            if example.source == "tatoeba" && english_runs_on(&example.japanese, english) {
                run_on += 1;
                quality.problems.push(format!(
                    "{}: example “{}” has English that runs on: “{english}”",
                    learnable.id, example.japanese
                ));
            }
            let earlier = &detail.examples[..index];
            if earlier
                .iter()
                .any(|other| same_sentence(&other.japanese, &example.japanese))
            {
                repeated += 1;
                quality.problems.push(format!(
                    "{}: example “{}” repeats an earlier one",
                    learnable.id, example.japanese
                ));
            }
        }
    }
    quality.figure("vocabulary_examples_english_run_on", run_on);
    quality.figure("vocabulary_examples_repeated", repeated);
}

/// The forms a word shows (docs/vocabulary.md, step 4): no kana spelling with a full-size
/// や, ゆ, よ or つ beside the small one (シヤッター beside シャッター), among the writing
/// forms or the readings (figure `vocabulary_forms_full_size_kana`); and no word JMdict
/// marks as usually written in kana labelled with a kanji outside the jōyō list (見窄らしい for みすぼらしい: figure `vocabulary_usually_kana_rare_label`); and
/// every row of the editors' non-volitional verbs names one word's conjugation table
/// (figure `nonvolitional_rows_unmatched`).
fn vocabulary_forms(learnables: &[Learnable], quality: &mut LevelQuality) {
    let mut joyo: BTreeSet<char> = learnables
        .iter()
        .filter_map(|l| match &l.body {
            LearnableBody::Kanji(kanji) if kanji.list.as_deref() == Some("joyo") => {
                kanji.literal.chars().next()
            }
            _ => None,
        })
        .collect();
    joyo.extend(crate::kanji::JOYO_ALLOWED_FORMS.chars());
    let (mut full_size, mut rare_label) = (0, 0);
    let mut tables: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut readings_with_tables: BTreeSet<&str> = BTreeSet::new();
    for learnable in learnables {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        let dictionary_form = detail.conjugation.as_ref().and_then(|c| c.forms.first());
        if let Some(form) = dictionary_form {
            readings_with_tables.insert(form.reading.as_str());
            *tables
                .entry((form.written.as_str(), form.reading.as_str()))
                .or_default() += 1;
        }
        let forms: Vec<&str> = learnable
            .writing_forms
            .iter()
            .map(|f| f.text.as_str())
            .chain(detail.readings.iter().map(|r| r.text.as_str()))
            .collect();
        for old in &forms {
            if let Some(modern) = forms.iter().find(|m| entry::spelled_full_size(old, m)) {
                full_size += 1;
                quality.problems.push(format!(
                    "{}: shows the old spelling {old} beside {modern}",
                    learnable.id
                ));
            }
        }
        let usually_kana = detail
            .senses
            .first()
            .is_some_and(|s| entry::marks_usually_kana(&s.misc));
        let label = learnable.label.as_deref().unwrap_or_default();
        if usually_kana && entry::rare_kanji(label, &joyo) {
            rare_label += 1;
            quality.problems.push(format!(
                "{}: usually written in kana, labelled {label}",
                learnable.id
            ));
        }
    }
    // Each of the editors' non-volitional verbs is one word's table: a row that names two
    // (homophones written alike) does not say which it means, and one that names none
    // while a verb of its reading has a table was left behind by a changed label (軋む,
    // now labelled きしむ). An artifact without the verb at all (a fixture) is no problem.
    let mut rows_unmatched = 0;
    for (verb, reading) in entry::non_volitional_verbs() {
        let tables_named = tables.get(&(verb, reading)).copied().unwrap_or(0);
        let left_behind = tables_named == 0 && readings_with_tables.contains(reading);
        if tables_named > 1 || left_behind {
            rows_unmatched += 1;
            quality.problems.push(format!(
                "nonvolitional.tsv: {verb} ({reading}) names {tables_named} conjugation tables, not one"
            ));
        }
    }
    quality.figure("nonvolitional_rows_unmatched", rows_unmatched);
    quality.figure("vocabulary_forms_full_size_kana", full_size);
    quality.figure("vocabulary_usually_kana_rare_label", rare_label);
}

/// The editors' corrections hold in the artifact, so a change to the pipeline cannot bring
/// back what a review removed: no kanji meaning or reading `kanji_refused.tsv` lists, no
/// kanji pair `kanji_pairs_refused.tsv` lists, no
/// example a table refuses (for every entry, for its word, for its grammar point), no part
/// of speech `pos_refused.tsv` refuses (and no row of it that names no entry), and every
/// corrected sentence reads as `translations.tsv` has it (figure `editors_tables_unheld`).
fn editors_tables(learnables: &[Learnable], quality: &mut LevelQuality) {
    let mut unheld = Vec::new();
    let mut refused_pos_rows: BTreeSet<(&str, &str)> = entry::pos_refused_words().collect();
    let mut word_readings: BTreeSet<&str> = BTreeSet::new();
    for learnable in learnables {
        let id = &learnable.id;
        let label = learnable.label.as_deref().unwrap_or_default();
        let examples = match &learnable.body {
            LearnableBody::Kanji(kanji) => {
                let english = kanji.meanings.iter().map(|m| ("en", m));
                let other = kanji
                    .meanings_by_locale
                    .iter()
                    .flat_map(|(locale, list)| list.iter().map(move |m| (locale.as_str(), m)));
                for (locale, meaning) in english.chain(other) {
                    if crate::kanji::meanings::refused(label, locale, meaning) {
                        unheld.push(format!("{id}: refused meaning {locale} “{meaning}”"));
                    }
                }
                let readings = [("on", &kanji.readings.on), ("kun", &kanji.readings.kun)];
                for (list, readings) in readings {
                    for reading in readings {
                        if crate::kanji::meanings::refused(label, list, reading) {
                            unheld.push(format!("{id}: refused {list} reading “{reading}”"));
                        }
                    }
                }
                let pairs = [("synonym", &kanji.synonyms), ("antonym", &kanji.antonyms)];
                for (kind, others) in pairs {
                    for other in others {
                        if crate::kanji::kanjium::refused(kind, label, other) {
                            unheld.push(format!("{id}: refused {kind} {other}"));
                        }
                    }
                }
                continue;
            }
            LearnableBody::Vocabulary(detail) => {
                let written: Vec<&str> = learnable
                    .writing_forms
                    .iter()
                    .map(|form| form.text.as_str())
                    .collect();
                for reading in &detail.readings {
                    word_readings.insert(reading.text.as_str());
                    let refused = entry::refused_pos(&written, &reading.text);
                    for form in &written {
                        refused_pos_rows.remove(&(*form, reading.text.as_str()));
                    }
                    for pos in detail.senses.iter().flat_map(|s| &s.pos) {
                        if refused.contains(&pos.as_str()) {
                            unheld.push(format!("{id}: refused part of speech {pos}"));
                        }
                    }
                }
                for example in &detail.examples {
                    if crate::vocabulary::refused_for_word(label, &example.japanese) {
                        unheld.push(format!(
                            "{id}: example refused for the word: {}",
                            example.japanese
                        ));
                    }
                }
                &detail.examples
            }
            LearnableBody::Grammar(detail) => {
                let slug = id.strip_prefix("grammar-").unwrap_or(id);
                for example in &detail.examples {
                    if crate::grammar::examples::refused_for(slug, &example.japanese) {
                        unheld.push(format!(
                            "{id}: example refused for the point: {}",
                            example.japanese
                        ));
                    }
                }
                &detail.examples
            }
            _ => continue,
        };
        for example in examples {
            if crate::translations::refused(&example.japanese) {
                unheld.push(format!("{id}: refused example: {}", example.japanese));
            }
            if let Some(problem) = crate::translations::uncorrected(example) {
                unheld.push(format!("{id}: {problem}"));
            }
        }
    }
    // A row of `pos_refused.tsv` that names no entry while a word of its reading is there
    // refuses nothing: the word's forms changed and the row was left behind. An artifact
    // without a word of that reading at all (a fixture) is no problem.
    for (label, reading) in refused_pos_rows
        .into_iter()
        .filter(|(_, reading)| word_readings.contains(reading))
    {
        unheld.push(format!(
            "pos_refused.tsv: {label} ({reading}) names no vocabulary entry"
        ));
    }
    quality.figure("editors_tables_unheld", unheld.len());
    quality.problems.extend(unheld);
}

fn has_form(summary: &LearnableSummary, text: &str) -> bool {
    summary.writing_forms.iter().any(|form| form.text == text)
}

/// The vocabulary entries written `written` and read `kana`.
fn vocabulary_entries<'a>(
    artifact: &'a Artifact,
    written: &str,
    kana: &str,
) -> Vec<&'a LearnableSummary> {
    artifact
        .learnables
        .iter()
        .map(|l| &l.summary)
        .filter(|s| s.kind == LearnableType::Vocabulary)
        .filter(|s| has_form(s, written) && has_form(s, kana))
        .collect()
}

/// The vocabulary entry a core row names: written that way and read that way.
fn core_entry<'a>(artifact: &'a Artifact, row: &CoreWord) -> Vec<&'a LearnableSummary> {
    vocabulary_entries(artifact, &row.written, row.kana())
}

fn has_vocabulary(artifact: &Artifact) -> bool {
    artifact
        .learnables
        .iter()
        .any(|l| l.summary.kind == LearnableType::Vocabulary)
}

/// Every row of `core_ungraded.tsv` is a vocabulary entry (at any level: a list may
/// grade it one day).
fn beginner_core_ungraded(artifact: &Artifact, quality: &mut LevelQuality) {
    let rows = match core::ungraded_rows() {
        Ok(rows) => rows,
        Err(error) => {
            quality.problems.push(error.to_string());
            return;
        }
    };
    let figures = &mut quality.figures;
    figures.insert("beginner_core_ungraded_rows".to_string(), rows.len());
    if !has_vocabulary(artifact) {
        figures.insert("beginner_core_ungraded_present".to_string(), 0);
        return;
    }
    let mut present = 0;
    for row in &rows {
        if vocabulary_entries(artifact, &row.written, row.kana()).is_empty() {
            quality.problems.push(format!(
                "beginner core {} {}: no vocabulary entry",
                row.written,
                row.kana()
            ));
        } else {
            present += 1;
        }
    }
    quality
        .figures
        .insert("beginner_core_ungraded_present".to_string(), present);
}

/// Entries with a frequency rank, ungraded entries and their reason tags, and the
/// coverage of the frequent content words the build recorded in the manifest.
fn vocabulary_frequency(artifact: &Artifact, quality: &mut LevelQuality) {
    let mut ranked = 0;
    let mut ungraded = 0;
    for loaded in &artifact.learnables {
        let summary = &loaded.summary;
        if summary.kind != LearnableType::Vocabulary {
            continue;
        }
        let rank = serde_json::from_str::<Value>(&loaded.json)
            .ok()
            .and_then(|doc| {
                doc.pointer("/vocabulary/frequency_rank")
                    .and_then(Value::as_u64)
            });
        ranked += usize::from(rank.is_some());
        if summary.jlpt_level.is_none() {
            ungraded += 1;
            let tagged = |tag: &str| summary.tags.iter().any(|t| t == tag);
            if !tagged(FREQUENT_TAG) && !tagged("beginner-core") {
                quality.problems.push(format!(
                    "vocabulary {}: no JLPT level and no reason tag",
                    summary.id
                ));
            }
        }
    }
    quality
        .figures
        .insert("vocabulary_with_frequency_rank".to_string(), ranked);
    quality
        .figures
        .insert("vocabulary_ungraded".to_string(), ungraded);
    frequent_coverage(artifact, quality);
}

/// At least [`COVERAGE_PERCENT_MIN`] percent of the frequent content words have an entry.
fn frequent_coverage(artifact: &Artifact, quality: &mut LevelQuality) {
    let counts = artifact.manifest.as_ref().map(|m| &m.counts);
    let count = |key: &str| counts.and_then(|c| c.get(key)).copied();
    let keys = [
        frequency::CONTENT_WORDS_COUNT,
        frequency::PRESENT_COUNT,
        frequency::LISTED_COUNT,
    ];
    for key in keys {
        if let Some(value) = count(key) {
            quality.figures.insert(key.to_string(), value);
        }
    }
    if !has_vocabulary(artifact) {
        return;
    }
    let (Some(words), Some(present)) = (
        count(frequency::CONTENT_WORDS_COUNT),
        count(frequency::PRESENT_COUNT),
    ) else {
        quality.problems.push(
            "the manifest records no coverage of frequent content words: rebuild".to_string(),
        );
        return;
    };
    if present * 100 < words * COVERAGE_PERCENT_MIN {
        quality.problems.push(format!(
            "frequent content words: {present} of {words} have an entry, below \
             {COVERAGE_PERCENT_MIN} % (see data/vocabulary-frequent.tsv)"
        ));
    }
}

fn beginner_core(artifact: &Artifact, quality: &mut LevelQuality) {
    let rows = match core::rows() {
        Ok(rows) => rows,
        Err(error) => {
            quality.problems.push(error.to_string());
            return;
        }
    };
    quality
        .figures
        .insert("beginner_core_rows".to_string(), rows.len());
    // A build without the vocabulary builder (`build --only kanji`) has nothing to check.
    if !has_vocabulary(artifact) {
        quality
            .figures
            .insert("beginner_core_present".to_string(), 0);
        return;
    }
    let mut present = 0;
    for row in &rows {
        let found = core_entry(artifact, row);
        let at_level = found.iter().any(|s| s.jlpt_level == Some(row.level));
        if at_level {
            present += 1;
        } else if found.is_empty() {
            quality.problems.push(format!(
                "beginner core {} {}: no vocabulary entry",
                row.written,
                row.kana()
            ));
        } else {
            quality.problems.push(format!(
                "beginner core {} {}: graded {:?}, the core says N{}",
                row.written,
                row.kana(),
                found.iter().map(|s| s.jlpt_level).collect::<Vec<_>>(),
                row.level
            ));
        }
    }
    quality
        .figures
        .insert("beginner_core_present".to_string(), present);
}

fn kanji_levels(artifact: &Artifact, quality: &mut LevelQuality) {
    let mut figures: BTreeMap<&str, usize> = BTreeMap::new();
    for loaded in &artifact.learnables {
        let summary = &loaded.summary;
        if summary.kind != LearnableType::Kanji {
            continue;
        }
        let doc: Value = match serde_json::from_str(&loaded.json) {
            Ok(doc) => doc,
            Err(_) => continue, // reported by verify's document check
        };
        let list = doc.pointer("/kanji/list").and_then(Value::as_str);
        let graded = summary.jlpt_level.is_some();
        let reason = summary
            .tags
            .iter()
            .any(|tag| REASON_TAGS.contains(&tag.as_str()));
        let label = summary.label.as_deref().unwrap_or(&summary.id);
        match list {
            Some("joyo") => {
                *figures.entry("kanji_joyo").or_default() += 1;
                if graded {
                    *figures.entry("kanji_joyo_graded").or_default() += 1;
                } else if reason {
                    *figures
                        .entry("kanji_joyo_ungraded_with_reason")
                        .or_default() += 1;
                } else {
                    quality
                        .problems
                        .push(format!("kanji {label}: jōyō, no JLPT level and no reason"));
                }
            }
            _ => {
                *figures.entry("kanji_not_joyo").or_default() += 1;
                if graded {
                    *figures.entry("kanji_not_joyo_graded").or_default() += 1;
                    quality.problems.push(format!(
                        "kanji {label}: not jōyō ({}) but graded N{}",
                        list.unwrap_or("no list"),
                        summary.jlpt_level.unwrap_or_default()
                    ));
                }
            }
        }
    }
    for key in [
        "kanji_joyo",
        "kanji_joyo_graded",
        "kanji_joyo_ungraded_with_reason",
        "kanji_not_joyo",
        "kanji_not_joyo_graded",
    ] {
        let count = figures.get(key).copied().unwrap_or(0);
        quality.figures.insert(key.to_string(), count);
    }
}

const VISUALLY_SIMILAR: &str = "visually-similar";

/// CJK compatibility ideographs duplicate a unified kanji (穀 U+FA54 is 穀).
fn is_compatibility_form(label: &str) -> bool {
    label
        .chars()
        .any(|c| matches!(c, '\u{F900}'..='\u{FAFF}' | '\u{2F800}'..='\u{2FA1F}'))
}

/// The look-alike figures (`kanji_jlpt`, `kanji_jlpt_with_similar`, pair counts) and
/// their problems: coverage under the minimum, a one-way pair, a kanji paired with
/// itself or with a compatibility duplicate.
pub fn lookalikes(artifact: &Artifact) -> LevelQuality {
    let mut quality = LevelQuality::default();
    let pairs: BTreeSet<(&str, &str)> = artifact
        .relations
        .iter()
        .filter(|relation| relation.kind == VISUALLY_SIMILAR)
        .map(|relation| (relation.from.as_str(), relation.to.as_str()))
        .collect();
    let labels: BTreeMap<&str, &str> = artifact
        .learnables
        .iter()
        .filter_map(|l| Some((l.summary.id.as_str(), l.summary.label.as_deref()?)))
        .collect();
    let (mut asymmetric, mut unfit) = (0, 0);
    for &(from, to) in &pairs {
        if !pairs.contains(&(to, from)) {
            asymmetric += 1;
            quality
                .problems
                .push(format!("look-alike {from} → {to} has no way back"));
        }
        let duplicate = [from, to].iter().any(|id| {
            labels
                .get(id)
                .is_some_and(|label| is_compatibility_form(label))
        });
        if from == to || duplicate {
            unfit += 1;
            quality.problems.push(format!(
                "look-alike {from} → {to} pairs a kanji with itself"
            ));
        }
    }
    let with_similar: BTreeSet<&str> = pairs.iter().map(|(from, _)| *from).collect();
    let jlpt: Vec<&str> = artifact
        .learnables
        .iter()
        .filter(|l| l.summary.kind == LearnableType::Kanji && l.summary.jlpt_level.is_some())
        .map(|l| l.summary.id.as_str())
        .collect();
    let covered = jlpt.iter().filter(|id| with_similar.contains(*id)).count();
    if covered * 100 < jlpt.len() * JLPT_WITH_SIMILAR_PERCENT_MIN {
        quality.problems.push(format!(
            "look-alikes: {covered} of {} JLPT kanji have one, under {JLPT_WITH_SIMILAR_PERCENT_MIN}%",
            jlpt.len()
        ));
    }
    let figures = [
        ("kanji_jlpt", jlpt.len()),
        ("kanji_jlpt_with_similar", covered),
        ("visually_similar_pairs", pairs.len()),
        ("visually_similar_asymmetric", asymmetric),
        ("visually_similar_self", unfit),
    ];
    for (key, value) in figures {
        quality.figures.insert(key.to_string(), value);
    }
    quality
}

/// How many entries the level lists disagree on (their `jlpt_level` cross-check).
fn vocabulary_levels(artifact: &Artifact, quality: &mut LevelQuality) {
    let mut checked = 0;
    let mut disagree = 0;
    for loaded in &artifact.learnables {
        if loaded.summary.kind != LearnableType::Vocabulary {
            continue;
        }
        let Ok(doc) = serde_json::from_str::<Value>(&loaded.json) else {
            continue;
        };
        let checks = doc.get("cross_checks").and_then(Value::as_array);
        for check in checks.into_iter().flatten() {
            if check.get("field").and_then(Value::as_str) == Some("jlpt_level") {
                checked += 1;
                if check.get("agree") == Some(&Value::Bool(false)) {
                    disagree += 1;
                }
            }
        }
    }
    quality
        .figures
        .insert("vocabulary_level_cross_checked".to_string(), checked);
    quality
        .figures
        .insert("vocabulary_level_sources_disagree".to_string(), disagree);
}

#[cfg(test)]
mod tests {
    use manabi_artifact::LoadedLearnable;
    use manabi_schemas::{Domain, Script, WritingForm};

    use super::*;

    fn entry(
        kind: LearnableType,
        forms: &[&str],
        level: Option<u8>,
        json: &str,
    ) -> LoadedLearnable {
        LoadedLearnable {
            sample: false,
            summary: LearnableSummary {
                id: format!("{}-{}", kind.as_str(), forms[0]),
                label: Some(forms[0].to_owned()),
                kind,
                domain: Domain::Language,
                jlpt_level: level,
                is_common_word: None,
                canonical_name: None,
                pattern: None,
                meaning: None,
                writing_forms: forms
                    .iter()
                    .map(|f| WritingForm {
                        text: (*f).to_owned(),
                        script: Script::Kanji,
                    })
                    .collect(),
                tags: Vec::new(),
            },
            surface: Default::default(),
            json: json.into(),
        }
    }

    fn kanji(literal: &str, level: Option<u8>, list: &str) -> LoadedLearnable {
        let json = format!(r#"{{"kanji": {{"list": "{list}"}}}}"#);
        entry(LearnableType::Kanji, &[literal], level, &json)
    }

    fn artifact(learnables: Vec<LoadedLearnable>) -> Artifact {
        Artifact {
            manifest: None,
            learnables,
            relations: Vec::new(),
            lessons: Vec::new(),
            journeys: Vec::new(),
            worlds: Vec::new(),
        }
    }

    #[test]
    fn name_only_kanji_with_a_level_and_unexplained_joyo_kanji_are_problems() {
        let mut who = kanji("誰", None, "joyo");
        who.summary.tags.push("jlpt-none-joyo-2010".to_owned());
        let measured = levels(&artifact(vec![
            kanji("日", Some(5), "joyo"),
            kanji("凪", Some(1), "jinmeiyo"),
            kanji("的", None, "joyo"),
            who,
        ]));
        assert_eq!(measured.figures["kanji_joyo"], 3);
        assert_eq!(measured.figures["kanji_joyo_graded"], 1);
        assert_eq!(measured.figures["kanji_joyo_ungraded_with_reason"], 1);
        assert_eq!(measured.figures["kanji_not_joyo_graded"], 1);
        assert_eq!(measured.problems.len(), 2, "{:?}", measured.problems);
        assert!(measured.problems.iter().any(|p| p.contains("凪")));
        assert!(measured.problems.iter().any(|p| p.contains("的")));
    }

    #[test]
    fn a_core_word_missing_or_at_another_level_is_a_problem() {
        let minute = entry(LearnableType::Vocabulary, &["分", "ふん"], Some(1), "{}");
        let measured = levels(&artifact(vec![minute]));
        assert!(
            measured
                .problems
                .iter()
                .any(|p| p.contains("分 ふん: graded [Some(1)], the core says N5"))
        );
        assert!(
            measured
                .problems
                .iter()
                .any(|p| p.contains("父 ちち: no vocabulary entry"))
        );
        assert!(measured.figures["beginner_core_present"] < measured.figures["beginner_core_rows"]);
    }

    fn similar(from: &str, to: &str) -> manabi_schemas::Relation {
        manabi_schemas::Relation {
            from: from.to_owned(),
            to: to.to_owned(),
            kind: VISUALLY_SIMILAR.to_owned(),
            basis: "derived: same-body-other-radical".to_owned(),
        }
    }

    #[test]
    fn look_alikes_below_the_minimum_one_way_or_self_are_problems() {
        let mut kanji_ids = Vec::new();
        for (literal, level) in [
            ("待", Some(3)),
            ("持", Some(4)),
            ("侍", Some(1)),
            ("峙", None),
        ] {
            let mut found = kanji(literal, level, "joyo");
            found.summary.id = format!("kanji-{literal}");
            kanji_ids.push(found);
        }
        let mut measured = artifact(kanji_ids);
        measured.relations = vec![
            similar("kanji-待", "kanji-持"),
            similar("kanji-持", "kanji-待"),
        ];
        let found = lookalikes(&measured);
        assert_eq!(found.figures["kanji_jlpt"], 3);
        assert_eq!(found.figures["kanji_jlpt_with_similar"], 2);
        assert_eq!(
            found.problems.len(),
            1,
            "2 of 3 is under 80%: {:?}",
            found.problems
        );
        measured.relations.push(similar("kanji-侍", "kanji-峙"));
        measured.relations.push(similar("kanji-侍", "kanji-侍"));
        let found = lookalikes(&measured);
        assert_eq!(found.figures["kanji_jlpt_with_similar"], 3);
        assert_eq!(found.figures["visually_similar_asymmetric"], 1);
        assert_eq!(found.figures["visually_similar_self"], 1);
        assert_eq!(found.problems.len(), 2, "{:?}", found.problems);
    }
}
