//! A JMdict term that is another headword for an event or period of the graph (rule
//! `term-names-event`): its gloss names the event (`日清` "First Sino-Japanese war
//! (1894-1895)", `アジア太平洋戦争` "Asia-Pacific War (…)") in its first part. The term is not a second
//! entity: its written forms and readings become aliases of the event, its citation joins
//! the event's, and the term leaves. An era's JMdict headword (明治 "Meiji era
//! (1868.9.8-1912.7.30)") folds into the era the same way. Two JMdict terms with the same
//! gloss, one of them the other shortened (民事訴訟法, 民訴 and 民訴法 "Civil Proceedings
//! Act"; 全学共闘会議 and 全共闘), are one entity (rule `same-gloss-terms`): the first entry
//! keeps the others' forms. Different words glossed alike (宮中, 雲居 "imperial court") stay.

use std::collections::HashMap;

use manabi_schemas::history::{AliasScript, HistoryType};

use super::model::Entity;
use super::romaji::match_key;
use super::works;

/// The `;`-separated parts of a gloss without their brackets: `First Sino-Japanese war
/// (1894-1895)` → `First Sino-Japanese war`.
fn gloss_names(gloss: &str) -> impl Iterator<Item = String> + '_ {
    gloss.split(';').map(|part| {
        let mut depth = 0usize;
        let mut name = String::new();
        for c in part.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ if depth == 0 => name.push(c),
                _ => {}
            }
        }
        name.trim().to_string()
    })
}

/// Folds every term whose gloss names an event or period into it; returns the folded
/// (term id, target id) pairs.
pub fn fold(entities: &mut Vec<Entity>) -> Vec<(String, String)> {
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (index, entity) in entities.iter().enumerate() {
        if entity.kind == HistoryType::Era {
            by_name
                .entry(match_key(&format!("{} era", entity.name)))
                .or_insert(index);
            continue;
        }
        if !matches!(entity.kind, HistoryType::Event | HistoryType::Period) {
            continue;
        }
        let names = std::iter::once(entity.name.as_str()).chain(
            entity
                .aliases
                .iter()
                .filter(|a| a.script == AliasScript::Romaji)
                .map(|a| a.text.as_str()),
        );
        for name in names {
            let key = match_key(name);
            // A one-word key (`war`, `heian`) names nothing on its own.
            if name.contains(' ') && !key.is_empty() {
                by_name.entry(key).or_insert(index);
            }
        }
    }
    let mut folds: Vec<(usize, usize)> = Vec::new();
    for (index, term) in entities.iter().enumerate() {
        if term.kind != HistoryType::Term {
            continue;
        }
        // The headline of the gloss only: a later part may be a qualifier (`…; Edo period`).
        let headline = gloss_names(&term.gloss).next().unwrap_or_default();
        if let Some(&target) = by_name.get(&match_key(&headline)) {
            folds.push((index, target));
        }
    }
    apply(entities, &folds)
}

/// Folds every JMdict term whose gloss is the same text as an earlier term's into that
/// term; returns the folded (term id, kept id) pairs. Works are folded by their title
/// (`works::fold_same_title`).
pub fn fold_same_gloss(entities: &mut Vec<Entity>) -> Vec<(String, String)> {
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut folds: Vec<(usize, usize)> = Vec::new();
    for (index, term) in entities.iter().enumerate() {
        if term.kind != HistoryType::Term || term.gloss.is_empty() || works::is_work(term) {
            continue;
        }
        match first.get(&term.gloss) {
            Some(&kept) if abbreviates(&entities[kept].name, &term.name) => {
                folds.push((index, kept))
            }
            Some(_) => {}
            None => {
                first.insert(term.gloss.clone(), index);
            }
        }
    }
    apply(entities, &folds)
}

/// True when one headword is the other shortened: its characters appear in order in the
/// other (民訴 in 民事訴訟法, 全共闘 in 全学共闘会議, 横穴 in 横穴墓). Two different words
/// that JMdict glosses alike (宮中 and 雲居 "imperial court") are not one term.
fn abbreviates(a: &str, b: &str) -> bool {
    let subsequence = |short: &str, long: &str| {
        let mut rest = long.chars();
        short.chars().all(|c| rest.any(|l| l == c))
    };
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    subsequence(short, long)
}

/// Moves each folded entity's written forms, readings and citations to its target and
/// removes it; a target is never itself folded. Shared with `works::fold_same_title`.
pub(super) fn apply(entities: &mut Vec<Entity>, folds: &[(usize, usize)]) -> Vec<(String, String)> {
    let mut folded = Vec::new();
    for &(from, target) in folds {
        let (aliases, citations, from_id) = {
            let t = &entities[from];
            (t.aliases.clone(), t.citations.clone(), t.id.clone())
        };
        let target_entity = &mut entities[target];
        for alias in aliases.iter().filter(|a| a.script != AliasScript::Romaji) {
            target_entity.add_alias(&alias.text);
        }
        target_entity.citations.extend(citations);
        folded.push((from_id, target_entity.id.clone()));
    }
    let gone: Vec<usize> = folds.iter().map(|(from, _)| *from).collect();
    let mut index = 0;
    entities.retain(|_| {
        let keep = !gone.contains(&index);
        index += 1;
        keep
    });
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gloss_names_are_the_parts_outside_brackets() {
        let names: Vec<String> =
            gloss_names("First Sino-Japanese war (1894-1895); Nisshin war").collect();
        assert_eq!(names, ["First Sino-Japanese war", "Nisshin war"]);
    }

    #[test]
    fn a_term_naming_an_event_becomes_its_alias() {
        let mut event = Entity::new(
            "history-event-first-sino-japanese-war-1".into(),
            HistoryType::Event,
            "First Sino-Japanese War".into(),
        );
        event.add_alias("日清戦争");
        let mut term = Entity::new(
            "history-term-nisshin-2".into(),
            HistoryType::Term,
            "日清".into(),
        );
        term.add_alias("日清");
        term.add_alias("にっしん");
        term.gloss = "First Sino-Japanese war (1894-1895)".into();
        let mut other = Entity::new("history-term-x-3".into(), HistoryType::Term, "戦".into());
        other.gloss = "war".into();
        let mut entities = vec![event, term, other];
        let folded = fold(&mut entities);
        assert_eq!(
            folded,
            [(
                "history-term-nisshin-2".to_string(),
                "history-event-first-sino-japanese-war-1".to_string()
            )]
        );
        assert_eq!(entities.len(), 2);
        assert!(entities[0].aliases.iter().any(|a| a.text == "にっしん"));
    }

    #[test]
    fn terms_with_one_gloss_are_one_term() {
        let term = |id: &str, form: &str, gloss: &str| {
            let mut t = Entity::new(id.into(), HistoryType::Term, form.into());
            t.add_alias(form);
            t.gloss = gloss.into();
            t
        };
        let mut entities = vec![
            term("a", "民事訴訟法", "(Japanese) Civil Proceedings Act (1890)"),
            term("b", "民訴", "(Japanese) Civil Proceedings Act (1890)"),
            term("c", "刑法", "criminal law"),
            term("d", "雲居", "(Japanese) Civil Proceedings Act (1890)"),
        ];
        let folded = fold_same_gloss(&mut entities);
        assert_eq!(folded, [("b".to_string(), "a".to_string())]);
        assert_eq!(entities.len(), 3, "雲居 is not 民事訴訟法 shortened");
        assert!(entities[0].aliases.iter().any(|a| a.text == "民訴"));
    }
}
