//! Works of Japanese history from JMnedict's `work` names (rule `japanese-work`): a
//! chronicle, a tale, a treatise or a print whose gloss names its author among the
//! persons of the graph (`The Narrow Road to the Deep North (chronicle by Matsuo Basho,
//! published in 1702)`) or places it in Japan (`Izumo Fudoki (… of Izumo province; 733
//! CE)`, `Utsubo Monogatari (Heian period narrative)`). A work is a term tagged `work`,
//! named by its Japanese title; the year its gloss gives (to the end of Shōwa) is its
//! timespan; it is `created-by` its author. Films, series, songs and magazines are not
//! works of history, and a work dated before its author was born is left out. The editors' table `content/history/dictionary_works.tsv`
//! refuses works whose gloss is wrong.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use manabi_schemas::history::HistoryType;
use regex::Regex;

use super::cite;
use super::dates::{Date, Span};
use super::jmdict::DATED_TERM_YEAR_MAX;
use super::jmnedict::NameEntry;
use super::model::Entity;
use super::persons::name_key;
use super::romaji::{kana_to_romaji, match_key, slug};
use super::term_duplicates;
use super::term_links::dated_in;

pub const CALENDAR: &str = "Gregorian years as given in JMnedict glosses";
/// A one-word name (`Saigyou`, `Rennyo`) names an author only when it is this long and
/// only one person bears it.
const SINGLE_NAME_CHARS_MIN: usize = 5;

static MEDIA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:film|movie|anime|TV|television|drama|manga|magazine|newspaper|song|game|series|musical|opera)s?\b")
        .expect("media pattern")
});
static JAPANESE_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bJapan|\b(?:Asuka|Nara|Heian|Kamakura|Muromachi|Sengoku|Momoyama|Edo|Meiji|Taish[oō]",
        r"|Sh[oō]wa)[- ](?:period|era)\b|\b[A-Z][a-z]+ province\b"
    ))
    .expect("Japanese place pattern")
});

const TABLE: &str = include_str!("../../content/history/dictionary_works.tsv");

/// The candidate works: every JMnedict work with a Japanese title that is not a film,
/// series, song or magazine and that the editors do not refuse. Which are Japanese
/// history is decided by [`keep_japanese`] once the persons are known.
pub fn build(entries: &[NameEntry]) -> Vec<Entity> {
    let refused = crate::editors::refused_records(TABLE);
    entries
        .iter()
        .filter(|e| !refused.contains(&e.seq))
        .filter(|e| !e.glosses.iter().any(|g| MEDIA.is_match(g)))
        .map(corrected)
        .filter_map(|entry| work_entity(&entry))
        .collect()
}

/// The entry with the editors' corrected gloss in place of JMnedict's
/// (`content/history/dictionary_corrections.tsv`: 柳橋新誌's Yanigabashi for Yanagibashi).
fn corrected(entry: &NameEntry) -> Cow<'_, NameEntry> {
    match super::corrections::gloss(entry.seq) {
        Some(gloss) => Cow::Owned(NameEntry {
            glosses: vec![gloss.to_string()],
            ..entry.clone()
        }),
        None => Cow::Borrowed(entry),
    }
}

/// The English title of a gloss: the text before its first bracket.
fn title_of(gloss: &str) -> &str {
    gloss
        .split('(')
        .next()
        .unwrap_or_default()
        .trim()
        .trim_end_matches(',')
        .trim()
}

/// A reading with its iteration marks written out: こゝろ → こころ.
fn without_iteration_marks(reading: &str) -> String {
    let mut out = String::new();
    for c in reading.chars() {
        match (c, out.chars().last()) {
            ('ゝ' | 'ヽ', Some(previous)) => out.push(previous),
            _ => out.push(c),
        }
    }
    out
}

fn work_entity(entry: &NameEntry) -> Option<Entity> {
    let title = entry.kanji.first().or(entry.kana.first())?;
    let reading = entry.kana.first()?;
    let id_name = slug(&kana_to_romaji(&without_iteration_marks(reading)));
    if id_name.is_empty() {
        return None;
    }
    let mut work = Entity::new(
        format!("history-term-{id_name}-{}", entry.seq),
        HistoryType::Term,
        title.clone(),
    );
    for form in entry.kanji.iter().chain(&entry.kana) {
        work.add_alias(form);
    }
    // An English title, not a description (`historical text purported to have been …`),
    // and whole: `Run, Melos!` is not cut at its comma.
    let titles = entry.glosses.iter().map(|g| title_of(g));
    for title in titles.filter(|t| t.chars().next().is_some_and(char::is_uppercase)) {
        work.add_alias(title);
    }
    work.gloss = entry.glosses.join("; ");
    if let Some((from, to)) = dated_in(&work.gloss).filter(|(_, to)| to - 1 <= DATED_TERM_YEAR_MAX)
    {
        work.span = Span {
            start: Some(Date::year(from)),
            end: Some(Date::year(to - 1)),
        };
        work.calendar = CALENDAR;
    }
    work.scope = Some("Japan".into());
    work.add_tag("term");
    work.add_tag("work");
    work.summary = entry.glosses.join("; ");
    let written = if reading == title {
        title.clone()
    } else {
        format!("{title} ({reading})")
    };
    let glosses = entry.glosses.join("; ");
    work.sentences
        .push(if super::corrections::gloss(entry.seq).is_some() {
            format!(
                "{written} is a work; the editors gloss it as \"{glosses}\", correcting JMnedict."
            )
        } else {
            format!("{written} is a work; JMnedict glosses it as \"{glosses}\".")
        });
    work.citations.push(cite::jmnedict(
        entry.seq,
        &["canonical_name", "aliases", "timespan", "description"],
    ));
    if super::corrections::corrected(entry.seq) {
        work.citations.push(crate::editors::cite(
            Some(format!("JMnedict ent_seq {}", entry.seq)),
            &super::corrections::cited_fields(entry.seq),
        ));
    }
    Some(work)
}

/// The persons a gloss can name as an author, by [`name_key`] in either word order.
pub struct Authors {
    by_key: HashMap<String, Vec<String>>,
}

impl Authors {
    pub fn new(entities: &[Entity]) -> Self {
        let mut by_key: HashMap<String, Vec<String>> = HashMap::new();
        let persons = entities
            .iter()
            .filter(|e| e.kind == HistoryType::Person && !e.tags.iter().any(|t| t == "foreign"));
        for person in persons {
            let words: Vec<&str> = person
                .name
                .split_whitespace()
                .filter(|w| !w.eq_ignore_ascii_case("no"))
                .collect();
            let mut keys = vec![name_key(&words.join(" "))];
            if words.len() == 2 {
                keys.push(name_key(&format!("{} {}", words[1], words[0])));
            }
            for key in keys {
                let ids = by_key.entry(key).or_default();
                if !ids.contains(&person.id) {
                    ids.push(person.id.clone());
                }
            }
        }
        Authors { by_key }
    }

    /// The ids of the persons a gloss names as its author: runs of one to three capitalised
    /// words whose key is one person's (a one-word name only when long enough), after `by`
    /// or opening a bracket (`(Inbe no Hironari, 807 CE)`). A name in any other place is
    /// the work's subject (`chronicle of the Taira-no-Masakado Rebellion`).
    pub fn named_in(&self, gloss: &str) -> Vec<String> {
        let mut words: Vec<&str> = Vec::new();
        let mut author_at: Vec<bool> = Vec::new();
        let mut opens = true;
        let mut after_by = false;
        for token in gloss.split_inclusive(|c: char| !(c.is_alphabetic() || c == '\'')) {
            let word = token.trim_end_matches(|c: char| !(c.is_alphabetic() || c == '\''));
            let separator = &token[word.len()..];
            if !word.is_empty() && !word.eq_ignore_ascii_case("no") {
                words.push(word);
                author_at.push(opens || after_by);
                after_by = word.eq_ignore_ascii_case("by");
                opens = false;
            }
            if separator.contains('(') {
                opens = true;
            }
        }
        let mut found: Vec<String> = Vec::new();
        for width in (1..=3).rev() {
            for (start, window) in words.windows(width).enumerate() {
                if !author_at[start] {
                    continue;
                }
                let capitalised = window
                    .iter()
                    .all(|w| w.chars().next().is_some_and(char::is_uppercase));
                let long_enough = width > 1 || window[0].chars().count() >= SINGLE_NAME_CHARS_MIN;
                if !capitalised || !long_enough {
                    continue;
                }
                if let Some([id]) = self
                    .by_key
                    .get(&name_key(&window.join(" ")))
                    .map(Vec::as_slice)
                    && !found.contains(id)
                {
                    found.push(id.clone());
                }
            }
        }
        found
    }
}

/// Rule `japanese-work`: keeps the works whose gloss names an author of the graph who was
/// alive in the work's year, or places them in Japan; drops the others.
pub fn keep_japanese(entities: &mut Vec<Entity>) {
    let authors = Authors::new(entities);
    let lives: HashMap<String, Span> = entities
        .iter()
        .filter(|e| e.kind == HistoryType::Person)
        .map(|e| (e.id.clone(), e.span))
        .collect();
    // Years that are the author's life (`Essays in Idleness by Yoshida Kenkou
    // (1283-1352)`) do not date the work: no work is written in its author's birth year.
    for work in entities.iter_mut().filter(|e| is_work(e)) {
        let start = work.span.start.map(|d| d.year);
        let life_years = start.is_some()
            && authors
                .named_in(&work.gloss)
                .iter()
                .any(|id| lives.get(id).and_then(|life| life.start).map(|d| d.year) == start);
        if life_years {
            work.span = Span::default();
            work.calendar = "";
        }
    }
    entities.retain(|e| {
        if !is_work(e) {
            return true;
        }
        let named = authors.named_in(&e.gloss);
        let year = e.span.start.map(|d| d.year);
        // Not before the author was born; after the death is a posthumous edition (Bashō
        // died in 1694, The Narrow Road to the Deep North was published in 1702).
        let written_in_life = |id: &String| {
            let born = lives.get(id).and_then(|life| life.start);
            !matches!((year, born), (Some(y), Some(born)) if y < born.year)
        };
        if !named.is_empty() {
            return named.iter().all(written_in_life);
        }
        JAPANESE_PLACE.is_match(&e.gloss)
    });
    fold_same_title(entities);
}

/// One work under several JMnedict entries (奥の細道 and おくのほそ道, 枕草子 and 枕の草子,
/// 国記 read two ways) is one entity: the first keeps the others' forms as aliases. Works
/// are the same when their English titles are.
fn fold_same_title(entities: &mut Vec<Entity>) {
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut folds: Vec<(usize, usize)> = Vec::new();
    for (index, work) in entities.iter().enumerate().filter(|(_, e)| is_work(e)) {
        let title = match_key(title_of(&work.gloss));
        if title.is_empty() {
            continue;
        }
        match first.get(&title) {
            // The written forms and readings move; the English of the duplicate's gloss may
            // misspell the title (`The Tale of Kanjaku`).
            Some(&kept) => folds.push((index, kept)),
            None => {
                first.insert(title, index);
            }
        }
    }
    term_duplicates::apply(entities, &folds);
}

pub fn is_work(entity: &Entity) -> bool {
    entity.kind == HistoryType::Term && entity.tags.iter().any(|t| t == "work")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(id: &str, name: &str, born: i32, died: i32) -> Entity {
        let mut p = Entity::new(id.into(), HistoryType::Person, name.into());
        p.span = Span {
            start: Some(Date::year(born)),
            end: Some(Date::year(died)),
        };
        p
    }

    fn work(seq: u32, title: &str, reading: &str, gloss: &str) -> Entity {
        work_entity(&NameEntry {
            seq,
            kanji: vec![title.into()],
            kana: vec![reading.into()],
            glosses: vec![gloss.into()],
        })
        .expect("a work")
    }

    #[test]
    fn a_gloss_names_its_author_in_either_order() {
        let entities = vec![
            person("basho", "Matsuo Bashou", 1644, 1694),
            person("akiko", "Yosano Akiko", 1878, 1942),
            person("saigyo", "Saigyou", 1118, 1190),
            person("ki", "Ki", 800, 900),
        ];
        let authors = Authors::new(&entities);
        assert_eq!(
            authors.named_in("The Narrow Road to the Deep North (chronicle by Matsuo Basho)"),
            ["basho"]
        );
        assert_eq!(
            authors.named_in("Midaregami (tanka by Akiko Yosano)"),
            ["akiko"]
        );
        assert_eq!(authors.named_in("Sankashu (poetry by Saigyo)"), ["saigyo"]);
        assert!(authors.named_in("Ki (a short name)").is_empty());
    }

    #[test]
    fn japanese_works_stay_and_the_rest_leave() {
        let mut entities = vec![
            person("basho", "Matsuo Bashou", 1644, 1694),
            work(
                1,
                "奥の細道",
                "おくのほそみち",
                "The Narrow Road to the Deep North (chronicle by Matsuo Basho, published in 1702)",
            ),
            work(
                2,
                "出雲国風土記",
                "いずものくにふどき",
                "Izumo Fudoki (description of Izumo province; 733 CE)",
            ),
            work(
                3,
                "桜の園",
                "さくらのその",
                "The Cherry Orchard (1904 play by Anton Chekhov)",
            ),
            work(4, "偽書", "ぎしょ", "A Forgery (1600 book by Matsuo Basho)"),
        ];
        keep_japanese(&mut entities);
        let ids: Vec<&str> = entities.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "basho",
                "history-term-okunohosomichi-1",
                "history-term-izumonokunifudoki-2"
            ],
            "Chekhov is no one of the graph; 1600 is before Bashō was born"
        );
        assert_eq!(entities[1].span.start.map(|d| d.year), Some(1702));
    }
}
