//! History entries of JMdict: former provinces, periods (`Edo period (1603-1868 CE)`),
//! named events (wars, battles, incidents, rebellions, reforms, treaties) and historical
//! terms (entries tagged `hist`, or glossed in the context of a past period or institution).
//!
//! The entries come from the crate's one JMdict reader ([`crate::sources::jmdict`]); of
//! their glosses, only the English ones are used here.

use std::collections::HashMap;
use std::sync::LazyLock;

use manabi_schemas::history::HistoryType;
use regex::Regex;

use super::cite;
use super::corrections;
use super::dates::{Date, Span};
use super::model::Entity;
use super::romaji::{kana_to_romaji, slug};
use super::term_links;
use crate::sources::jmdict::{Entry, Sense};

pub const CALENDAR: &str = "Gregorian years as given in JMdict glosses";

static PROVINCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.+?) \(former province(?: located)?(?: in| on)? ?(.*?)\)").expect("province")
});
static PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Z][\w'ōūŌŪ-]*(?: [A-Z\-][\w'ōūŌŪ-]*)*) [Pp]eriod \(([^()]*\d{3}[^()]*)\)")
        .expect("period pattern compiles")
});
/// The years of a period gloss: `1603-1868 CE`, `ca. 300 BCE-300 CE`, `14000-1000 BCE`,
/// `January 8, 1989-April 30, 2019`.
static PERIOD_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    let end = r"(?:([A-Z][a-z]+) (\d{1,2}), )?(\d{1,5})\s*(BCE|CE)?";
    Regex::new(&format!(r"{end}\s*-\s*{end}")).expect("period range pattern compiles")
});
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const EVENT_WORDS: &str = "War|Wars|Battle|Siege|Incident|Rebellion|Revolt|Uprising|Riot|Riots|Disturbance|Restoration|Reform|Reforms|Invasion|Invasions|Coup|Massacre|Treaty|Campaign|Expedition|Affair|Conspiracy|Plot|Conflict|Raid|Purge|Earthquake|Fire";
static EVENT: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"[A-Z][\w'ōūŌŪ-]*";
    // The event word must end the name: "Earthquake Countermeasures Law" is not an event.
    let pattern = format!(
        r"^(?:the )?((?:{name}\s)+(?:{EVENT_WORDS})(?: of (?:the )?(?:{name}\s?)+)?|(?:{EVENT_WORDS}) of (?:the )?(?:{name}\s?)+)(?:\s*$|\s*[(,;])"
    );
    Regex::new(&pattern).expect("event pattern compiles")
});
static YEARS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\((?:[^()]*?[ ,])?(\d{3,4})(?:-(\d{2,4}))?(?: CE)?\)").expect("years")
});
/// Gloss phrases that place a sense in Japan's past (rule `historical-context`).
const HISTORICAL_PHRASES: &[&str] = &[
    r"\b(?:asuka|nara|heian|kamakura|muromachi|sengoku|azuchi-momoyama|momoyama|edo|meiji|taisho|taishō|kofun|yayoi|jomon|jōmon|nanboku-cho|nanboku-chō)[- ](?:periods?|era|times)\b",
    r"ritsuryo|ritsuryō|shogunate|bakufu|\bshogun|\bdaimyo|\bdaimyō|\bsamurai\b|\bninja|\bfeudal\b",
    r"ancient japan|old japanese|medieval japan|imperial court|pre-?war japan|imperial japanese",
    r"court (?:rank|noble|lady|official|music)|former japanese army|tokugawa|\bhan\b \(domain\)",
];
static HISTORICAL_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!("(?i){}", HISTORICAL_PHRASES.join("|"))).expect("context pattern compiles")
});
const FOREIGN: [&str; 6] = ["China", "Chinese", "Korea", "Korean", "Europe", "Roman"];

/// The history kind of an entry, and the sense that makes it one.
pub fn classify(entry: &Entry) -> Option<(HistoryType, usize)> {
    let senses = &entry.senses;
    let first =
        |test: &dyn Fn(&str) -> bool| senses.iter().position(|s| s.english_glosses().any(test));
    if let Some(i) = first(&|g| PROVINCE.is_match(g)) {
        return Some((HistoryType::Place, i));
    }
    if let Some(i) = first(&|g| PERIOD.is_match(g) && !FOREIGN.iter().any(|f| g.contains(f))) {
        return Some((HistoryType::Period, i));
    }
    if let Some(i) = first(&|g| EVENT.is_match(g)).filter(|_| !has_foreign_headword(entry)) {
        return Some((HistoryType::Event, i));
    }
    let tagged = senses
        .iter()
        .position(|s| s.misc.iter().any(|m| m == "hist"));
    tagged
        .or_else(|| first(&|g| HISTORICAL_CONTEXT.is_match(g)))
        .or_else(|| first(&dates_japans_past))
        .filter(|&i| !is_foreign_term(&english_text(&senses[i])))
        .map(|i| (HistoryType::Term, i))
}

/// The last year a gloss may date a term by and have it count as history: the end of the
/// Shōwa era (rule `gloss-dates-term`).
pub const DATED_TERM_YEAR_MAX: i32 = 1989;
/// Before this the years a gloss gives are legend (`Emperor Jimmu, 660 BCE`), not dates.
pub const DATED_TERM_YEAR_MIN: i32 = 500;

static JAPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bJapan").expect("Japan"));

/// Rule `gloss-dates-term`: a sense whose gloss is about Japan and dates it by a year from
/// [`DATED_TERM_YEAR_MIN`] to [`DATED_TERM_YEAR_MAX`] (`neighborhood association
/// (established in Japan in 1940)`, `Japan's first circulated coinage (minted in 708
/// CE)`); a later date (`Japan New Party (1992-1994)`) is the present, not history.
fn dates_japans_past(gloss: &str) -> bool {
    // A law's year is its enactment, not the span of a thing of the past: many are in force
    // (`Protection of Personal Liberty Law (1948)`); the laws of history are in the canon.
    static LAW: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:Law|Act|Code)\b").expect("law"));
    JAPAN.is_match(gloss)
        && !LAW.is_match(gloss)
        && term_links::dated_in(gloss)
            .is_some_and(|(from, to)| from >= DATED_TERM_YEAR_MIN && to - 1 <= DATED_TERM_YEAR_MAX)
}

/// A term of another country's past (rule `foreign-term`): its gloss places it in China or
/// Korea (`position at the imperial court in ancient China`, `Tang-period Chinese
/// official`) and names nothing of Japan's. `通事 interpreter (esp. of Dutch and Chinese
/// during the Edo period)` stays.
pub fn is_foreign_term(gloss: &str) -> bool {
    FOREIGN_TERM.is_match(gloss) && !JAPANESE_CONTEXT.is_match(gloss)
}

/// Chinese dynasties a gloss names (`Tang-period`, `Qing dynasty`), shared with the rule
/// for foreign persons.
pub const CHINESE_DYNASTIES: &str = "Han|Tang|Song|Yuan|Ming|Qing|Sui|Zhou|Qin";

static FOREIGN_TERM: LazyLock<Regex> = LazyLock::new(|| {
    let dynasties = format!("{CHINESE_DYNASTIES}|Jin");
    Regex::new(&format!(
        r"(?i)\bancient (?:China|Korea)\b|\bChinese (?:official|office|emperor|dynasty)\b|\b(?:{dynasties})(?:(?: and (?:{dynasties}))?[- ](?:period|era)| dynasty)\b"
    ))
    .expect("foreign term pattern")
});
static JAPANESE_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bJapan|\b(?:Edo|Heian|Nara|Kamakura|Muromachi|Meiji|Taish[oō]|Sh[oō]wa|Asuka",
        r"|Kofun|Yayoi|J[oō]mon|Sengoku|Tokugawa|Nagasaki|Ryukyu)\b|ritsury[oō]|shogun",
        r"|bakufu|daimy[oō]|samurai"
    ))
    .expect("Japanese context pattern")
});

/// A headword with katakana (ペルシア戦争) names a foreign event: outside Japanese history.
fn has_foreign_headword(entry: &Entry) -> bool {
    let katakana = |c: char| ('\u{30A1}'..='\u{30FA}').contains(&c);
    headword(entry).is_some_and(|h| h.chars().any(katakana))
}

/// The first written form with kanji, else the first reading.
fn headword(entry: &Entry) -> Option<&str> {
    let kanji = entry.kanji.first().map(|k| k.text.as_str());
    kanji.or(entry.readings.first().map(|r| r.text.as_str()))
}

/// A sense's English glosses as one text.
fn english_text(sense: &Sense) -> String {
    sense.english_glosses().collect::<Vec<_>>().join("; ")
}

/// Whether the streaming reader should keep an entry.
pub fn is_history(entry: &Entry) -> bool {
    classify(entry).is_some()
}

const TERMS_TABLE: &str = include_str!("../../content/history/dictionary_terms.tsv");

/// Builds entities from the kept entries. Periods and events that JMdict lists under more
/// than one entry with the same English name and years are merged.
pub fn build(entries: &[Entry]) -> Vec<Entity> {
    let mut entities: Vec<Entity> = Vec::new();
    let mut merged: HashMap<(String, String), usize> = HashMap::new();
    // The entries the editors refuse (`content/history/dictionary_terms.tsv`, each with its
    // reason): a gloss with wrong dates (華族 1868–1946), a present-day organisation, a
    // sense that is not the word's main one.
    let refused = crate::editors::refused_records(TERMS_TABLE);
    for entry in entries.iter().filter(|e| !refused.contains(&e.seq)) {
        let Some((kind, sense)) = classify(entry) else {
            continue;
        };
        let Some(entity) = entity(entry, kind, sense) else {
            continue;
        };
        if kind == HistoryType::Term || kind == HistoryType::Place {
            entities.push(entity);
            continue;
        }
        let key = (entity.name.to_lowercase(), entity.span.display());
        match merged.get(&key) {
            Some(&index) => {
                let kept = &mut entities[index];
                for alias in &entity.aliases {
                    kept.add_alias(&alias.text);
                }
                kept.citations.extend(entity.citations);
            }
            None => {
                merged.insert(key, entities.len());
                entities.push(entity);
            }
        }
    }
    entities
}

fn entity(entry: &Entry, kind: HistoryType, sense_index: usize) -> Option<Entity> {
    let sense = &entry.senses[sense_index];
    let gloss = sense.english_glosses().find(|g| match kind {
        HistoryType::Place => PROVINCE.is_match(g),
        HistoryType::Period => PERIOD.is_match(g),
        HistoryType::Event => EVENT.is_match(g),
        _ => true,
    })?;
    // The editors' correction of a term's gloss stands for all its glosses
    // (`content/history/dictionary_corrections.tsv`).
    let corrected = (kind == HistoryType::Term)
        .then(|| corrections::gloss(entry.seq))
        .flatten();
    let (name, span, scope) = match kind {
        HistoryType::Place => province_facts(gloss)?,
        HistoryType::Period => period_facts(gloss)?,
        HistoryType::Event => event_facts(gloss)?,
        _ => (
            term_name(entry, sense_index)?,
            term_span(corrected.unwrap_or(gloss)),
            None,
        ),
    };
    let (kanji, readings) = sense_forms(entry, sense_index);
    let type_word = super::model::type_name(kind);
    let id_name = match kind {
        HistoryType::Term => kana_to_romaji(readings.first()?),
        _ => name.clone(),
    };
    let id = format!("history-{type_word}-{}-{}", slug(&id_name), entry.seq);
    if slug(&id_name).is_empty() {
        return None;
    }
    let mut entity = Entity::new(id, kind, name);
    // The id keeps the dictionary's first reading, so that a corrected reading does not
    // move the entity.
    let readings = corrections::readings(entry.seq).unwrap_or(readings);
    for form in kanji.iter().chain(&readings) {
        entity.add_alias(form);
    }
    entity.span = span;
    entity.calendar = if span.start.is_some() { CALENDAR } else { "" };
    let text = corrected.map_or_else(|| english_text(sense), str::to_string);
    entity.scope = scope.or_else(|| scope_of(&text, kind));
    entity.add_tag(type_word);
    if kind == HistoryType::Place {
        entity.add_tag("province");
    }
    if sense.misc.iter().any(|m| m == "hist") {
        entity.add_tag("historical-term");
    }
    entity.xrefs = entry
        .senses
        .iter()
        .flat_map(|s| &s.xrefs)
        .map(|x| xref_headword(x))
        .collect();
    entity.summary = summary(kind, &entity, &text);
    if kind == HistoryType::Term {
        entity.gloss = text.clone();
    }
    entity
        .sentences
        .push(description(kind, &entity, entry, sense_index, &text));
    entity.citations.push(cite::jmdict(
        entry.seq,
        &["canonical_name", "aliases", "timespan", "description"],
    ));
    if corrections::corrected(entry.seq) {
        entity.citations.push(crate::editors::cite(
            Some(format!("JMdict ent_seq {}", entry.seq)),
            &corrections::cited_fields(entry.seq),
        ));
    }
    Some(entity)
}

/// `江戸時代・えどじだい・1` → `江戸時代`.
fn xref_headword(xref: &str) -> String {
    xref.split('・').next().unwrap_or(xref).to_string()
}

type Facts = (String, Span, Option<String>);

fn province_facts(gloss: &str) -> Option<Facts> {
    let c = PROVINCE.captures(gloss)?;
    let located = c[2].trim().trim_start_matches("the ").to_string();
    let scope = if located.is_empty() {
        "Japan".to_string()
    } else {
        format!("{located}, Japan")
    };
    Some((c[1].trim().to_string(), Span::default(), Some(scope)))
}

fn period_facts(gloss: &str) -> Option<Facts> {
    let c = PERIOD.captures(gloss)?;
    let span = period_span(&c[2])?;
    Some((format!("{} period", &c[1]), span, None))
}

/// Parses the parenthesis of a period gloss; `approx.`, `ca.` and `c.` mark both ends
/// approximate, and a lone trailing `BCE` applies to both years.
pub fn period_span(text: &str) -> Option<Span> {
    let c = PERIOD_RANGE.captures(text)?;
    let approximate = ["approx.", "ca.", "c. "].iter().any(|m| text.contains(m));
    let end_bce = c.get(8).is_some_and(|m| m.as_str() == "BCE");
    let start_bce = match c.get(4) {
        Some(m) => m.as_str() == "BCE",
        None => end_bce,
    };
    let date = |month: Option<regex::Match>, day: Option<regex::Match>, year: &str, bce: bool| {
        let year: i32 = year.parse().ok()?;
        let month = month.and_then(|m| MONTHS.iter().position(|n| *n == m.as_str()));
        let day = day.and_then(|d| d.as_str().parse::<u8>().ok());
        Some(Date {
            year: if bce { 1 - year } else { year },
            month: month.map(|m| m as u8 + 1),
            day: month.and(day),
            approximate,
        })
    };
    let start = date(c.get(1), c.get(2), &c[3], start_bce)?;
    let end = date(c.get(5), c.get(6), &c[7], end_bce)?;
    (start.year <= end.year).then_some(Span {
        start: Some(start),
        end: Some(end),
    })
}

fn event_facts(gloss: &str) -> Option<Facts> {
    let name = EVENT.captures(gloss)?[1].trim().to_string();
    let span = YEARS
        .captures(gloss)
        .and_then(|c| {
            let start: i32 = c[1].parse().ok()?;
            let end = c
                .get(2)
                .and_then(|m| m.as_str().parse::<i32>().ok())
                .map(|e| if e < 100 { start - start % 100 + e } else { e });
            Some(Span {
                start: Some(Date::year(start)),
                end: Some(Date::year(end.unwrap_or(start))),
            })
        })
        .unwrap_or_default();
    Some((name, span, None))
}

/// A term whose gloss is a name with its own years in brackets (`Imperial Japanese Navy
/// (1872-1945)`) existed in those years.
fn term_span(gloss: &str) -> Span {
    match term_links::years_in(gloss) {
        Some((from, to)) => Span {
            start: Some(Date::year(from)),
            end: Some(Date::year(to)),
        },
        None => Span::default(),
    }
}

/// A historical term is named by its Japanese headword; the English gloss is its meaning.
fn term_name(entry: &Entry, sense_index: usize) -> Option<String> {
    let (kanji, readings) = sense_forms(entry, sense_index);
    kanji
        .first()
        .or(readings.first())
        .map(|form| form.to_string())
}

/// The written forms and readings of one sense: those JMdict restricts it to (`stagk`,
/// `stagr`: 官物 is かんもつ as the old tax, かんぶつ as government property); else every
/// reading, and for a sense after the first only the headword, because the other kanji
/// forms belong to the common senses (甲斐 "Kai province" is also written 詮 and 効 as
/// "effect; worth", which are no names of the province).
fn sense_forms(entry: &Entry, sense_index: usize) -> (Vec<&str>, Vec<&str>) {
    let sense = &entry.senses[sense_index];
    let kanji: Vec<&str> = if !sense.only_for_kanji.is_empty() {
        sense.only_for_kanji.iter().map(String::as_str).collect()
    } else if sense_index > 0 {
        entry
            .kanji
            .iter()
            .take(1)
            .map(|k| k.text.as_str())
            .collect()
    } else {
        entry.kanji.iter().map(|k| k.text.as_str()).collect()
    };
    // A reading of the sense's written forms: not one JMdict restricts to other forms
    // (ぶんぼちょう is 蚊母鳥's, not 夜鷹's), nor a kana-only name (ヨタカ, the bird) when
    // the sense is restricted to written forms.
    let readings: Vec<&str> = if !sense.only_for_readings.is_empty() {
        sense.only_for_readings.iter().map(String::as_str).collect()
    } else {
        let restricted = !sense.only_for_kanji.is_empty();
        entry
            .readings
            .iter()
            .filter(|r| {
                r.restrictions.is_empty()
                    || r.restrictions.iter().any(|k| kanji.contains(&k.as_str()))
            })
            .filter(|r| !(restricted && r.no_kanji))
            .map(|r| r.text.as_str())
            .collect()
    };
    (kanji, readings)
}

/// The place a gloss names; a term or period defaults to Japan (the rules that select them
/// require a Japanese context), an event without any named place has no scope.
fn scope_of(text: &str, kind: HistoryType) -> Option<String> {
    const PLACES: [(&str, &str); 10] = [
        ("Japan", "Japan"),
        ("Edo", "Japan"),
        ("China", "China"),
        ("Chinese", "China"),
        ("Korea", "Korea"),
        ("Russia", "Russia"),
        ("Europe", "Europe"),
        ("France", "France"),
        ("Germany", "Germany"),
        ("America", "United States"),
    ];
    let named = PLACES
        .iter()
        .find(|(word, _)| text.contains(word))
        .map(|(_, scope)| scope.to_string());
    match kind {
        HistoryType::Event => named,
        // A term of Japan's past names China or Korea for an origin (唐名 "Chinese name for
        // a high government office", 渡来神 "deity that originated on the … Korean
        // Peninsula"); where it was used is Japan. A term of China's or Korea's own past
        // is left out (rule `foreign-term`).
        HistoryType::Term => named
            .filter(|scope| scope != "China" && scope != "Korea")
            .or_else(|| Some("Japan".into())),
        _ => named.or_else(|| Some("Japan".into())),
    }
}

fn summary(kind: HistoryType, entity: &Entity, text: &str) -> String {
    let years = entity.span.years().map(|(s, e)| {
        if s == e {
            format!(" ({s})")
        } else {
            format!(" ({s}–{e})")
        }
    });
    match kind {
        HistoryType::Place => format!("Former province of Japan: {}", entity.name),
        HistoryType::Period => format!("Historical period{}", years.unwrap_or_default()),
        HistoryType::Event => format!("Historical event{}", years.unwrap_or_default()),
        _ => super::model::shortened(text, 120),
    }
}

fn description(
    kind: HistoryType,
    entity: &Entity,
    entry: &Entry,
    sense_index: usize,
    text: &str,
) -> String {
    if kind == HistoryType::Term {
        return term_description(entity, entry, sense_index, text);
    }
    let written: Vec<&str> = [entity.kanji(), entity.kana()]
        .into_iter()
        .flatten()
        .collect();
    let written = if written.is_empty() {
        String::new()
    } else {
        format!(" ({})", written.join(", "))
    };
    let what = match kind {
        HistoryType::Place => "a former province of Japan",
        HistoryType::Period => "a period of history",
        HistoryType::Event => "a historical event",
        _ => "a historical term",
    };
    let other: Vec<String> = entry
        .senses
        .iter()
        .map(english_text)
        .filter(|t| !t.is_empty() && t != text)
        .take(2)
        .collect();
    let mut sentence = format!(
        "{}{written} is {what}; JMdict glosses it as \"{text}\".",
        entity.name
    );
    if !other.is_empty() {
        sentence.push_str(&format!(" Other senses: \"{}\".", other.join("\"; \"")));
    }
    sentence
}

fn term_description(entity: &Entity, entry: &Entry, sense_index: usize, text: &str) -> String {
    let reading = entity.kana().map(|k| format!(" ({k})")).unwrap_or_default();
    let glossed = if corrections::gloss(entry.seq).is_some() {
        format!("the editors gloss it as \"{text}\", correcting JMdict")
    } else {
        format!("JMdict glosses it as \"{text}\"")
    };
    let mut sentence = format!("{}{reading} is a historical term; {glossed}.", entity.name);
    let other: Vec<String> = match corrections::other_senses(entry.seq) {
        Some(senses) => senses.into_iter().map(str::to_string).collect(),
        None => entry
            .senses
            .iter()
            .enumerate()
            .filter(|(index, _)| *index != sense_index)
            .map(|(_, sense)| english_text(sense))
            .filter(|t| !t.is_empty() && t != text)
            .take(2)
            .collect(),
    };
    if !other.is_empty() {
        sentence.push_str(&format!(" Other senses: \"{}\".", other.join("\"; \"")));
    }
    sentence
}
