//! The teaching Markdown of a lesson: a short explanation, a table of the entries, real
//! example sentences, and usage notes drawn from the data (pitch accent, keigo, word
//! origin, formation of grammar points). Every entry is linked with `[[id|text]]`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use manabi_schemas::grammar::GrammarDetail;
use manabi_schemas::kanji::{KanjiDetail, RadicalDetail};
use manabi_schemas::markup::link;
use manabi_schemas::vocabulary::{Keigo, OriginClass, VocabularyDetail};
use manabi_schemas::{Learnable, LearnableBody};

use super::items;

/// What the text builder may link to beyond the lesson's own entries.
pub struct Lookup<'a> {
    /// Every entry id that exists, to link only to those.
    pub exists: &'a dyn Fn(&str) -> bool,
    /// Words that use a kanji (vocabulary ids with their label and reading), easiest first.
    pub words_with_kanji: &'a BTreeMap<String, Vec<&'a Learnable>>,
}

/// Table cells must not break the table.
fn cell(text: &str) -> String {
    text.replace('|', "/").replace('\n', " ")
}

fn vocabulary(detail: &VocabularyDetail) -> Option<&VocabularyDetail> {
    Some(detail)
}

fn vocab_detail(learnable: &Learnable) -> Option<&VocabularyDetail> {
    match &learnable.body {
        LearnableBody::Vocabulary(detail) => vocabulary(detail),
        _ => None,
    }
}

/// The accent pattern's name for a nucleus on a word of `morae` morae.
fn accent_name(nucleus: u8, morae: usize) -> &'static str {
    match nucleus as usize {
        0 => "heiban: it starts low and stays high, even on a following particle",
        1 => "atamadaka: high on the first mora, then it falls",
        n if n == morae => "odakaka: it rises and falls only on a following particle",
        _ => "nakadaka: it rises, then falls inside the word",
    }
}

fn accent_cell(detail: &VocabularyDetail) -> String {
    let Some(accent) = detail.pitch_accent.first() else {
        return "–".to_string();
    };
    let nuclei: Vec<String> = accent
        .nucleus_by_source
        .values()
        .filter_map(|n| n.first())
        .map(u8::to_string)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    nuclei.join(" / ")
}

fn accent_note(learnable: &Learnable, detail: &VocabularyDetail) -> Option<String> {
    let accent = detail.pitch_accent.first()?;
    let nucleus = *accent.nucleus_by_source.values().find_map(|n| n.first())?;
    let morae = items::morae(&accent.reading);
    let mut note = format!(
        "{} ({}) has accent {nucleus}, {}.",
        link(&learnable.id, &items::label(learnable)),
        accent.reading,
        accent_name(nucleus, morae).replace("odakaka", "odaka")
    );
    if accent.sources_agree == Some(false) {
        note.push_str(" UniDic and NAIST-JDIC disagree here; both patterns are heard.");
    }
    Some(note)
}

fn language_name(code: &str) -> &str {
    match code {
        "eng" => "English",
        "ger" | "deu" => "German",
        "fre" | "fra" => "French",
        "por" => "Portuguese",
        "dut" | "nld" => "Dutch",
        "ita" => "Italian",
        "rus" => "Russian",
        "spa" => "Spanish",
        "chi" | "zho" => "Chinese",
        "kor" => "Korean",
        "san" => "Sanskrit",
        "lat" => "Latin",
        "gre" | "ell" => "Greek",
        other => other,
    }
}

fn origin_note(learnable: &Learnable, detail: &VocabularyDetail) -> Option<String> {
    let etymology = detail.etymology.as_ref()?;
    let word = link(&learnable.id, &items::label(learnable));
    match etymology.class {
        OriginClass::Gairaigo => {
            let language = etymology.source_language.as_deref().map(language_name);
            let source = etymology.source_word.as_deref();
            let from = match (language, source) {
                (Some(language), Some(source)) => format!(" from {language} “{source}”"),
                (Some(language), None) => format!(" from {language}"),
                _ => String::new(),
            };
            let wasei = if etymology.wasei {
                " It was coined in Japan (wasei), so speakers of the source language may not know it."
            } else {
                ""
            };
            Some(format!(
                "{word} is a loanword{from}, written in katakana.{wasei}"
            ))
        }
        OriginClass::Hybrid => Some(format!(
            "{word} mixes word origins (konshugo): part native or Sino-Japanese, part loanword."
        )),
        _ => None,
    }
}

fn keigo_note(learnable: &Learnable, detail: &VocabularyDetail) -> Option<String> {
    let word = link(&learnable.id, &items::label(learnable));
    let text = match detail.keigo? {
        Keigo::Sonkeigo => {
            "honorific (sonkeigo): use it for the actions of people you respect, never for your own"
        }
        Keigo::Kenjougo => {
            "humble (kenjougo): use it for your own actions toward people you respect"
        }
        Keigo::Teineigo => "polite (teineigo): it makes your speech courteous to the listener",
    };
    Some(format!("{word} is {text}."))
}

fn kana_note(learnable: &Learnable, detail: &VocabularyDetail) -> Option<String> {
    let usually_kana = detail.senses.first()?.misc.iter().any(|m| m == "uk");
    let reading = detail.readings.first()?;
    let label = items::label(learnable);
    (usually_kana && label != reading.text).then(|| {
        format!(
            "{} is usually written in kana: {}.",
            link(&learnable.id, &label),
            reading.text
        )
    })
}

fn suru_note(learnable: &Learnable) -> Option<String> {
    let is_suru = learnable.tags.iter().any(|t| t == "suru-verb");
    let label = items::label(learnable);
    is_suru.then(|| {
        format!(
            "Add する to {} to use it as a verb ({label}する).",
            link(&learnable.id, &label)
        )
    })
}

/// The body of a vocabulary lesson.
pub fn vocabulary_body(entries: &[&Learnable], intro: &str) -> String {
    let mut out = format!(
        "{intro}\n\n## Words\n\n| Word | Reading | Meaning | Accent |\n|---|---|---|---|\n"
    );
    for learnable in entries {
        let Some(detail) = vocab_detail(learnable) else {
            continue;
        };
        let reading = detail.readings.first();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            link(&learnable.id, &items::label(learnable)),
            reading
                .map(|r| format!("{} ({})", r.text, r.romaji))
                .unwrap_or_default(),
            cell(&items::meaning(learnable)),
            accent_cell(detail)
        );
    }
    out.push_str("\nThe accent number is the mora after which the pitch falls; 0 means it never falls inside the word.\n");
    let sentences: Vec<String> = entries
        .iter()
        .filter_map(|l| {
            let example = vocab_detail(l)?
                .examples
                .iter()
                .find(|e| e.english.is_some())?;
            Some(format!(
                "- {}: {}  \n  {}",
                link(&l.id, &items::label(l)),
                example.japanese,
                example.english.as_deref().unwrap_or_default()
            ))
        })
        .collect();
    if !sentences.is_empty() {
        out.push_str(
            "\n## In sentences\n\nRead each sentence aloud, then check the translation.\n\n",
        );
        out.push_str(&sentences.join("\n"));
        out.push('\n');
    }
    let notes: Vec<String> = entries
        .iter()
        .filter_map(|l| vocab_detail(l).map(|d| (l, d)))
        .flat_map(|(l, d)| {
            [
                keigo_note(l, d),
                origin_note(l, d),
                kana_note(l, d),
                suru_note(l),
                accent_note(l, d),
            ]
        })
        .flatten()
        .collect();
    push_notes(&mut out, &notes);
    out
}

fn push_notes(out: &mut String, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    out.push_str("\n## Usage notes\n\n");
    for note in notes {
        let _ = writeln!(out, "- {note}");
    }
}

fn kanji_detail(learnable: &Learnable) -> Option<&KanjiDetail> {
    match &learnable.body {
        LearnableBody::Kanji(detail) => Some(detail),
        _ => None,
    }
}

/// The body of a kanji lesson.
pub fn kanji_body(entries: &[&Learnable], intro: &str, lookup: &Lookup<'_>) -> String {
    let mut out = format!(
        "{intro}\n\n## Kanji\n\n| Kanji | On'yomi | Kun'yomi | Meaning | Strokes |\n|---|---|---|---|---|\n"
    );
    for learnable in entries {
        let Some(detail) = kanji_detail(learnable) else {
            continue;
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            link(&learnable.id, &detail.literal),
            detail.readings.on.join("、"),
            detail.readings.kun.join("、"),
            cell(&items::meaning(learnable)),
            detail
                .stroke_count
                .map(|s| s.to_string())
                .unwrap_or_default()
        );
    }
    out.push_str("\nOn'yomi (katakana) are mostly used in compounds; kun'yomi (hiragana, okurigana after the dot) when the kanji stands alone or with kana endings.\n");
    let words: Vec<String> = entries
        .iter()
        .filter_map(|l| {
            let found = lookup.words_with_kanji.get(&l.id)?;
            let shown: Vec<String> = found
                .iter()
                .take(3)
                .map(|w| {
                    let reading = items::reading(w).unwrap_or_default();
                    format!(
                        "{} ({reading}, {})",
                        link(&w.id, &items::label(w)),
                        items::meaning(w)
                    )
                })
                .collect();
            (!shown.is_empty())
                .then(|| format!("- {}: {}", link(&l.id, &items::label(l)), shown.join("; ")))
        })
        .collect();
    if !words.is_empty() {
        out.push_str("\n## Words that use them\n\n");
        out.push_str(&words.join("\n"));
        out.push('\n');
    }
    let notes: Vec<String> = entries
        .iter()
        .filter_map(|l| kanji_detail(l).map(|d| (l, d)))
        .filter_map(|(l, d)| kanji_note(l, d, lookup))
        .collect();
    push_notes(&mut out, &notes);
    out
}

fn kanji_note(learnable: &Learnable, detail: &KanjiDetail, lookup: &Lookup<'_>) -> Option<String> {
    let mut parts = Vec::new();
    if let (Some(number), Some(radical)) = (detail.radical_number, &detail.radical) {
        let id = crate::ids::radical(number);
        if (lookup.exists)(&id) {
            parts.push(format!(
                "its radical is {} (no. {number})",
                link(&id, radical)
            ));
        }
    }
    let similar: Vec<String> = detail
        .similar
        .iter()
        .filter_map(|s| {
            let c = s.literal.chars().next()?;
            let id = crate::ids::kanji(c);
            (lookup.exists)(&id).then(|| link(&id, &s.literal))
        })
        .take(3)
        .collect();
    if !similar.is_empty() {
        parts.push(format!("do not confuse it with {}", similar.join(", ")));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{}: {}.",
            link(&learnable.id, &detail.literal),
            parts.join("; ")
        )
    })
}

fn grammar_detail(learnable: &Learnable) -> Option<&GrammarDetail> {
    match &learnable.body {
        LearnableBody::Grammar(detail) => Some(detail),
        _ => None,
    }
}

/// The body of a grammar lesson: one section per point.
pub fn grammar_body(entries: &[&Learnable], intro: &str, lookup: &Lookup<'_>) -> String {
    let mut out = format!("{intro}\n");
    for learnable in entries {
        let Some(detail) = grammar_detail(learnable) else {
            continue;
        };
        let _ = write!(
            out,
            "\n## {} — {}\n\n",
            link(&learnable.id, &detail.pattern),
            detail.meaning
        );
        if !detail.variants.is_empty() {
            let _ = writeln!(out, "Also written: {}.\n", detail.variants.join("、"));
        }
        out.push_str("**Formation**\n\n");
        for rule in &detail.formation {
            let _ = writeln!(out, "- {rule}");
        }
        if !detail.conjugation.is_empty() {
            let _ = writeln!(
                out,
                "\nThe pattern itself conjugates: {}.",
                detail.conjugation.join("、")
            );
        }
        let _ = writeln!(
            out,
            "\nRegister: {}. {}",
            detail.register.as_str(),
            detail.notes.trim()
        );
        out.push_str("\n**Examples**\n\n");
        for example in detail.examples.iter().take(2) {
            let _ = writeln!(
                out,
                "- {}  \n  {}",
                example.japanese,
                example.english.as_deref().unwrap_or_default()
            );
        }
        let related: Vec<String> = detail
            .related
            .iter()
            .filter(|r| (lookup.exists)(&r.id))
            .map(|r| {
                format!(
                    "{} ({})",
                    link(
                        &r.id,
                        &r.id.trim_start_matches("grammar-").replace('-', " ")
                    ),
                    r.kind.as_str()
                )
            })
            .collect();
        if !related.is_empty() {
            let _ = writeln!(out, "\nCompare: {}.", related.join(", "));
        }
    }
    out
}

/// The body of a kana lesson.
pub fn kana_body(entries: &[&Learnable], intro: &str, lookup: &Lookup<'_>) -> String {
    let mut out =
        format!("{intro}\n\n| Kana | Romaji | Other script | Strokes |\n|---|---|---|---|\n");
    for learnable in entries {
        let LearnableBody::Character(detail) = &learnable.body else {
            continue;
        };
        let other = detail.counterpart.as_deref().map(|c| {
            let id = crate::ids::kana(c);
            if (lookup.exists)(&id) {
                link(&id, c)
            } else {
                c.to_string()
            }
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            link(&learnable.id, &detail.character),
            detail.romaji,
            other.unwrap_or_default(),
            detail
                .stroke_count
                .map(|s| s.to_string())
                .unwrap_or_default()
        );
    }
    out.push_str("\nWrite each character a few times in stroke order, saying its sound aloud; then cover the romaji column and read the kana column on its own.\n");
    out
}

fn radical_row(learnable: &Learnable, detail: &RadicalDetail, lookup: &Lookup<'_>) -> String {
    let examples: Vec<String> = detail
        .example_kanji
        .iter()
        .filter_map(|k| {
            let id = crate::ids::kanji(k.chars().next()?);
            (lookup.exists)(&id).then(|| link(&id, k))
        })
        .take(4)
        .collect();
    format!(
        "| {} | {} | {} | {} | {} | {} |",
        link(&learnable.id, &detail.character),
        detail.number,
        detail.names.join("、"),
        cell(&detail.meaning),
        detail.stroke_count,
        examples.join(" ")
    )
}

/// The body of a radical lesson.
pub fn radical_body(entries: &[&Learnable], intro: &str, lookup: &Lookup<'_>) -> String {
    let mut out = format!(
        "{intro}\n\n| Radical | No. | Name | Meaning | Strokes | In kanji |\n|---|---|---|---|---|---|\n"
    );
    for learnable in entries {
        if let LearnableBody::Radical(detail) = &learnable.body {
            let _ = writeln!(out, "{}", radical_row(learnable, detail, lookup));
        }
    }
    let variants: Vec<String> = entries
        .iter()
        .filter_map(|l| match &l.body {
            LearnableBody::Radical(d) if !d.variants.is_empty() => Some(format!(
                "- {} also appears as {} when it sits inside a kanji.",
                link(&l.id, &d.character),
                d.variants.join("、")
            )),
            _ => None,
        })
        .collect();
    if !variants.is_empty() {
        out.push_str("\n## Variant shapes\n\n");
        out.push_str(&variants.join("\n"));
        out.push('\n');
    }
    out
}

/// The body of a history lesson.
pub fn history_body(entries: &[&Learnable], intro: &str) -> String {
    let mut out = format!("{intro}\n\n| Name | Reading | English | When |\n|---|---|---|---|\n");
    for learnable in entries {
        let LearnableBody::History(detail) = &learnable.body else {
            continue;
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            link(&learnable.id, &items::label(learnable)),
            items::reading(learnable).unwrap_or_default(),
            cell(&detail.canonical_name),
            items::years(detail)
        );
    }
    for learnable in entries {
        let LearnableBody::History(detail) = &learnable.body else {
            continue;
        };
        let _ = write!(
            out,
            "\n## {} ({})\n\n{}\n",
            link(&learnable.id, &items::label(learnable)),
            detail.canonical_name,
            detail.description.trim()
        );
    }
    out
}
