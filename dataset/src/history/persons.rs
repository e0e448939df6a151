//! Historical persons from JMnedict glosses such as
//! `Tokugawa Ieyasu (1543.1.31-1616.6.1), Shougun 1603-1605`, merged with sanmiao's
//! reign list for the emperors.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use manabi_schemas::history::{AliasScript, HistoryType, OfficeTerm};
use manabi_search::kana;
use regex::Regex;

use super::cite;
use super::dates::{Date, Span, parse_range};
use super::jmdict::CHINESE_DYNASTIES;
use super::jmnedict::NameEntry;
use super::model::Entity;
use super::romaji::{match_key, slug, spells};
use super::rulers::{Ruler, Rulers};

pub const CALENDAR: &str = "years as JMnedict gives them (its days are not cross-checked); \
                            the editors' corrections give the Western year or the Gregorian day";

/// The year of the JMnedict edition read (2020-05-29): a death recorded in it lies in or
/// before this year, and any later year is a garbled gloss.
pub const DEATH_YEAR_MAX: i32 = 2020;
/// A monarch without a JMnedict life span counts only when the reign ended by the end of
/// the Shōwa era: a later one may be living (sanmiao's 平成天皇).
pub const RULER_ONLY_REIGN_END_MAX: i32 = 1989;
/// Persons without a recorded death count as historical when born before this year.
pub const BIRTH_YEAR_MAX_WITHOUT_DEATH: i32 = 1900;
/// A birth year alone below this is a garbled gloss (`(24-)`), not a date.
pub const BIRTH_YEAR_MIN_WITHOUT_DEATH: i32 = 1000;

/// Words in a gloss that name a role, and the role they give.
const ROLE_WORDS: &[(&str, &str)] = &[
    ("regent", "regent"),
    ("daimyo", "daimyo"),
    ("daimyou", "daimyo"),
    ("samurai", "samurai"),
    ("warlord", "warlord"),
    ("general", "general"),
    ("admiral", "admiral"),
    ("prime minister", "prime minister"),
    ("statesman", "statesman"),
    ("politician", "politician"),
    ("poet", "poet"),
    ("haiku", "poet"),
    ("novelist", "novelist"),
    ("writer", "writer"),
    ("author", "writer"),
    ("playwright", "playwright"),
    ("dramatist", "playwright"),
    ("painter", "painter"),
    ("artist", "artist"),
    ("calligrapher", "calligrapher"),
    ("sculptor", "sculptor"),
    ("potter", "potter"),
    ("composer", "composer"),
    ("monk", "monk"),
    ("priest", "priest"),
    ("nun", "nun"),
    ("scholar", "scholar"),
    ("philosopher", "philosopher"),
    ("historian", "historian"),
    ("physician", "physician"),
    ("scientist", "scientist"),
    ("mathematician", "mathematician"),
    ("merchant", "merchant"),
    ("educator", "educator"),
    ("economist", "economist"),
    ("architect", "architect"),
    ("swordsman", "swordsman"),
    ("warrior", "warrior"),
    ("actor", "actor"),
    ("founder", "founder"),
];

static SHOGUN_TERM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)sh[oō]u?gun[,:]?\s*(\d{3,4})\s*-\s*(\d{2,4})").expect("shogun pattern")
});
static REIGN_TERM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"reigning:\s*(\d{3,4})(?:\s*CE)?\s*-\s*(\d{3,4})").expect("reign pattern")
});
/// A gloss that makes a person foreign: a Chinese or Korean dynasty (`Lin Zexu (Chinese
/// scholar and official of the Qing dynasty …)`), a Chinese or Korean role (`Toboku
/// (Chinese poet, 803-853 CE)`: Du Mu read in Japanese), or a Japanese name given to a
/// foreigner (`Anjin (name given to William Adams …)`). "Chinese scholar" alone is left
/// alone: it is also what JMnedict calls a Japanese sinologist (Inoue Kobai).
static FOREIGN_PERSON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        concat!(
            r"\b(?:{dynasties}|Joseon|Goryeo) dynasty\b",
            r"|\b(?:Chinese|Korean) (?:poet|emperor|general|commander|philosopher|statesman",
            r"|politician|official|king)\b|\bname given to\b"
        ),
        dynasties = CHINESE_DYNASTIES
    ))
    .expect("foreign person pattern")
});
/// Before this year JMnedict's dates are not those of attested Japanese persons: the
/// legendary emperors come from sanmiao, and the rest are Chinese figures read in Japanese
/// (陳寿 Chen Shou, 233–297; 劉邦 Liu Bang) or the emperors again under a bare name (仲哀).
pub const ATTESTED_YEAR_MIN: i32 = 400;

static NOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\(([^()]*[a-z][^()]*)\)").expect("note"));

/// The name part of a gloss: before the first parenthesis, comma or digit.
pub fn gloss_name(gloss: &str) -> &str {
    let end = gloss
        .find(|c: char| c == '(' || c == ',' || c.is_ascii_digit())
        .unwrap_or(gloss.len());
    gloss[..end].trim()
}

fn bare_name(name: &str) -> &str {
    [
        "Emperor ",
        "Empress ",
        "Prince ",
        "Princess ",
        "Lord ",
        "Lady ",
    ]
    .iter()
    .find_map(|prefix| name.strip_prefix(prefix))
    .unwrap_or(name)
}

/// The documented rule for a Japanese name: no kana reading that is katakana-only, no
/// gloss that places the person in a foreign dynasty or country ([`FOREIGN_PERSON`]), and
/// a gloss name that spells that reading (in either word order), or a 天皇 title.
pub fn is_japanese(entry: &NameEntry) -> bool {
    if entry.kana.is_empty() {
        return false;
    }
    // A katakana-only reading is a foreign pronunciation (郭沫若 is also グオモールオ).
    let katakana_only = |r: &String| kana::has_katakana(r) && r.chars().all(|c| c >= '\u{30A0}');
    if entry.kana.iter().any(katakana_only) {
        return false;
    }
    if entry.glosses.iter().any(|g| FOREIGN_PERSON.is_match(g)) {
        return false;
    }
    // One kanji and 親王 is the Qing princely peerage (慶親王 Prince Qing, 恭親王); a
    // Japanese imperial prince is named by his own two-kanji name (智仁親王).
    if entry
        .kanji
        .iter()
        .any(|k| k.chars().count() == 3 && k.ends_with("親王"))
    {
        return false;
    }
    let imperial = entry.kanji.iter().any(|k| k.ends_with("天皇"));
    imperial
        || entry.glosses.iter().any(|g| {
            let name = bare_name(gloss_name(g));
            entry.kana.iter().any(|kana| spells(name, kana))
        })
}

/// The documented rule for "historical": a recorded death (in or before [`DEATH_YEAR_MAX`],
/// the source's edition; a person who has died is not living), or born
/// from [`BIRTH_YEAR_MIN_WITHOUT_DEATH`] to before [`BIRTH_YEAR_MAX_WITHOUT_DEATH`] with no
/// death recorded. A birth year alone of one to three digits is a garbled gloss, not a
/// date: JMnedict's `Yamanoi Tomohiro (24-)` is a swimmer born in 1977.
pub fn is_historical(span: &Span) -> bool {
    match (span.start, span.end) {
        (_, Some(death)) => death.year <= DEATH_YEAR_MAX,
        (Some(birth), None) => {
            (BIRTH_YEAR_MIN_WITHOUT_DEATH..BIRTH_YEAR_MAX_WITHOUT_DEATH).contains(&birth.year)
        }
        (None, None) => false,
    }
}

/// The first year of the Gregorian calendar in Japan (Meiji 6, 1873).
pub const GREGORIAN_FROM_YEAR: i32 = 1873;

/// The life span a gloss gives, in years. A JMnedict day date before
/// [`GREGORIAN_FROM_YEAR`] is sometimes the lunisolar date written as if it were Western
/// (Sugiyama Matsusuke died on Genji 1.6.6, which JMnedict gives as 1864-06-06; it is 9
/// July), and its days after it are wrong often enough that no review finds them all
/// (Kawamura Akira died on 4 January 1996, not the 5th; Fujiyama Ichirō on 21 August 1993,
/// not the 12th): nothing in the sources gives a second day to check against, so only the
/// year is kept. The editors' corrections (`persons_editors.tsv`) may give the day.
fn life_span(entry: &NameEntry) -> Option<Span> {
    let span = entry.glosses.iter().find_map(|g| parse_range(g))?;
    let year_only = |date: Option<Date>| {
        date.map(|d| Date {
            month: None,
            day: None,
            ..d
        })
    };
    Some(Span {
        start: year_only(span.start),
        end: year_only(span.end),
    })
}

fn roles_of(entry: &NameEntry) -> Vec<&'static str> {
    let mut roles = Vec::new();
    let text = entry.glosses.join(" ").to_lowercase();
    for (word, role) in ROLE_WORDS {
        let found = text.match_indices(word).any(|(at, _)| {
            let head = text[..at].trim_end();
            // "wife of Emperor X", "son of the poet Y": the role is someone else's.
            let of_someone = [" of", " of the", " of a", " to", " to the"]
                .iter()
                .any(|w| head.ends_with(w));
            let before = !of_someone
                && text[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphabetic());
            let after = text[at + word.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphabetic() || c == 's');
            before && after
        });
        if found && !roles.contains(role) {
            roles.push(*role);
        }
    }
    // Offices come from titles and terms, never from words describing someone else.
    let reigned = entry.glosses.iter().any(|g| REIGN_TERM.is_match(g));
    if entry.kanji.iter().any(|k| k.ends_with("天皇")) || reigned {
        roles.push("emperor");
    }
    if entry.glosses.iter().any(|g| SHOGUN_TERM.is_match(g)) {
        roles.push("shogun");
    }
    roles
}

fn terms(pattern: &Regex, office: &str, glosses: &[String]) -> Vec<OfficeTerm> {
    glosses
        .iter()
        .flat_map(|g| pattern.captures_iter(g).collect::<Vec<_>>())
        .filter_map(|c| {
            let start: i32 = c[1].parse().ok()?;
            let mut end: i32 = c[2].parse().ok()?;
            if c[2].len() <= 2 {
                end += start - start % 100;
            }
            Some(OfficeTerm {
                office: office.to_string(),
                start_year: Some(start),
                end_year: Some(end),
                ordinal: None,
                source: "jmnedict".into(),
            })
        })
        .collect()
}

/// Notes in parentheses that are not dates, e.g. `author of the Genji Monogatari`.
fn notes(entry: &NameEntry) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for gloss in &entry.glosses {
        for c in NOTE.captures_iter(gloss) {
            let note = c[1].trim().to_string();
            if !note.contains("reigning") && !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    notes
}

/// Builds the person entities: JMnedict persons that pass both rules, plus sanmiao's
/// monarchs (merged with their JMnedict entry when its kanji is the sanmiao name).
pub fn build(entries: &[NameEntry], rulers: &Rulers) -> Vec<Entity> {
    let by_kanji: HashMap<&str, &Ruler> =
        rulers.rulers.iter().map(|r| (r.name.as_str(), r)).collect();
    let mut persons: Vec<Entity> = Vec::new();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut matched_rulers: Vec<u32> = Vec::new();
    let mut undated: Vec<Entity> = Vec::new();
    let edits = Edits::load();
    for entry in entries {
        let ruler = entry
            .kanji
            .iter()
            .find_map(|k| by_kanji.get(k.as_str()).copied());
        if edits.refused.contains(&entry.seq) {
            continue;
        }
        let (entry, edited) = edits.apply(entry);
        let entry = &entry;
        let editors = |person: &mut Entity, fields: &[&str]| {
            if !fields.is_empty() {
                let record = Some(format!("JMnedict ent_seq {}", entry.seq));
                person.citations.push(crate::editors::cite(record, fields));
            }
        };
        let Some(span) = edits.span(entry.seq, life_span(entry)) else {
            if let Some(mut person) = undated_person(entry) {
                editors(&mut person, &edited);
                undated.push(person);
            }
            continue;
        };
        let edited: Vec<&str> = if edits.span(entry.seq, None).is_some() {
            edited.into_iter().chain(["timespan"]).collect()
        } else {
            edited
        };
        if !is_japanese(entry) || (ruler.is_none() && !is_historical(&span)) {
            continue;
        }
        let earliest = span.start.or(span.end).map(|d| d.year);
        if ruler.is_none() && earliest.is_some_and(|year| year < ATTESTED_YEAR_MIN) {
            continue;
        }
        let mut person = person_entity(entry, span);
        editors(&mut person, &edited);
        if let Some(ruler) = ruler {
            if matched_rulers.contains(&ruler.person_id) {
                continue;
            }
            matched_rulers.push(ruler.person_id);
            add_reign(&mut person, ruler);
        }
        // The same person under two entries: the same romaji name, the same kanji read
        // two ways (懐良親王 Kanenaga and Kaneyoshi), or the same reading under two
        // spellings (北條泰時, 北条康時), with the same life span.
        let keys: Vec<(String, String)> = [Some(match_key(&person.name))]
            .into_iter()
            .chain([entry.kanji.first().cloned(), entry.kana.first().cloned()])
            .flatten()
            .map(|key| (key, span.display()))
            .collect();
        match keys.iter().find_map(|key| seen.get(key)).copied() {
            Some(index) => merge_duplicate(&mut persons[index], person),
            None => {
                for key in keys {
                    seen.insert(key, persons.len());
                }
                persons.push(person);
            }
        }
    }
    let mut kept_undated: Vec<Entity> = Vec::new();
    for person in undated {
        match kept_undated
            .iter_mut()
            .find(|kept| same_undated(kept, &person))
        {
            Some(kept) => merge_duplicate(kept, person),
            None => kept_undated.push(person),
        }
    }
    persons.extend(kept_undated);
    // Rule `no-living-monarch`: a monarch whose reign ended after the Shōwa era has no
    // JMnedict life span and may be living (sanmiao's 平成天皇), so is left out.
    for ruler in rulers
        .rulers
        .iter()
        .filter(|r| !matched_rulers.contains(&r.person_id))
        .filter(|r| r.reign_end <= RULER_ONLY_REIGN_END_MAX)
    {
        persons.push(ruler_only_entity(ruler));
    }
    persons
}

/// Rule `undated-person`: a JMnedict person without dates who is Japanese, has a role
/// and whose gloss places them in a period or era (`Poet of the Heian period, included in
/// the Ogura Hyakunin Isshu`, `Edo period painter`). The period itself becomes a relation
/// only when it is one of the canon's (`relations::active_during`); the editors' table
/// `content/history/persons_editors.tsv` refuses entries whose gloss is wrong (Yamabe no
/// Akahito was a Nara-period poet; the Hyakunin Isshu poet under 儀同三司 is his mother)
/// and gives the dates of those whose dates are known (Ono no Takamura 802–853).
fn undated_person(entry: &NameEntry) -> Option<Entity> {
    static PERIOD_OR_ERA: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)[a-z][- ](?:period|era)\b").expect("period or era"));
    if !is_japanese(entry)
        || roles_of(entry).is_empty()
        || !entry.glosses.iter().any(|g| PERIOD_OR_ERA.is_match(g))
    {
        return None;
    }
    let mut person = person_entity(entry, Span::default());
    person.gloss = entry.glosses.join("; ");
    Some(person)
}

/// An undated person is never a second entry for a dated or canon person (在姑平 `Ariwara
/// Narihira` beside 在原業平 825–880, `Ono Komachi` beside the canon's Ono no Komachi):
/// run after the canon merge. An undated person is one built with a gloss and no span.
pub fn drop_undated_duplicates(entities: &mut Vec<Entity>) {
    let undated = |e: &Entity| {
        e.kind == HistoryType::Person
            && !e.canon
            && !e.gloss.is_empty()
            && e.span.start.is_none()
            && e.span.end.is_none()
    };
    let known: HashSet<String> = entities
        .iter()
        .filter(|e| e.kind == HistoryType::Person && !undated(e))
        .flat_map(|p| {
            let kanji = p.aliases.iter().filter(|a| a.script == AliasScript::Kanji);
            std::iter::once(name_key(&p.name)).chain(kanji.map(|a| a.text.clone()))
        })
        .collect();
    entities.retain(|e| {
        !undated(e)
            || !(known.contains(&name_key(&e.name)) || e.kanji().is_some_and(|k| known.contains(k)))
    });
}

/// Two undated entries are one person when they share a romaji name (啓書記 `Keishoki |
/// Shoukei` and 祥啓 `Shoukei`) or one written form ends with the other (東洲斎写楽 and
/// 写楽, the art name and the name).
fn same_undated(a: &Entity, b: &Entity) -> bool {
    let names = |e: &Entity| -> HashSet<String> {
        let romaji = e.aliases.iter().filter(|x| x.script == AliasScript::Romaji);
        std::iter::once(name_key(&e.name))
            .chain(romaji.map(|x| name_key(&x.text)))
            .collect()
    };
    let suffix = |long: &str, short: &str| short.chars().count() >= 2 && long.ends_with(short);
    let written = match (a.kanji(), b.kanji()) {
        (Some(x), Some(y)) => suffix(x, y) || suffix(y, x),
        _ => false,
    };
    written || !names(a).is_disjoint(&names(b))
}

/// A name to compare persons by, without the particle の (`Ariwara no Narihira` and
/// `Ariwara Narihira` are one).
pub fn name_key(name: &str) -> String {
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| !w.eq_ignore_ascii_case("no") && *w != "(No)")
        .collect();
    match_key(&words.join(" "))
}

const EDITORS_TABLE: &str = include_str!("../../content/history/persons_editors.tsv");

/// The editors' decisions on JMnedict persons (`content/history/persons_editors.tsv`), each
/// row with its reason: `refused` (not a person, a duplicate, a wrong gloss), or a
/// corrected `reading`, `name`, `written` form, `born` or `died` date.
#[derive(Debug, Default)]
struct Edits {
    refused: HashSet<u32>,
    values: HashMap<(u32, &'static str), &'static str>,
}

impl Edits {
    fn load() -> Self {
        let mut edits = Edits::default();
        for row in crate::editors::rows(EDITORS_TABLE) {
            let [seq, _name, decision, value, _reason] = row.as_slice() else {
                continue;
            };
            let Ok(seq) = seq.parse::<u32>() else {
                continue;
            };
            match *decision {
                "refused" => {
                    edits.refused.insert(seq);
                }
                field => {
                    edits.values.insert((seq, field), value);
                }
            }
        }
        edits
    }

    fn get(&self, seq: u32, field: &str) -> Option<&'static str> {
        self.values.get(&(seq, field)).copied()
    }

    /// The entry as the editors corrected it, and the fields they corrected.
    fn apply(&self, entry: &NameEntry) -> (NameEntry, Vec<&'static str>) {
        let mut entry = entry.clone();
        let mut fields = Vec::new();
        if let Some(reading) = self.get(entry.seq, "reading") {
            entry.kana = vec![reading.to_string()];
            fields.push("aliases");
        }
        if let Some(written) = self.get(entry.seq, "written") {
            entry.kanji = vec![written.to_string()];
            fields.push("aliases");
        }
        if let Some(name) = self.get(entry.seq, "name")
            && let Some(first) = entry.glosses.first_mut()
        {
            let old = gloss_name(first).to_string();
            *first = first.replacen(&old, name, 1);
            fields.push("canonical_name");
        }
        (entry, fields)
    }

    /// The life span with the editors' dates in place of JMnedict's.
    fn span(&self, seq: u32, span: Option<Span>) -> Option<Span> {
        let date = |field: &str| self.get(seq, field).and_then(parse_edit_date);
        let (born, died) = (date("born"), date("died"));
        if born.is_none() && died.is_none() {
            return span;
        }
        let mut span = span.unwrap_or_default();
        span.start = born.or(span.start);
        span.end = died.or(span.end);
        Some(span)
    }
}

/// `1712-01-28`, `880`, or `~1122` (about 1122).
fn parse_edit_date(text: &str) -> Option<Date> {
    let approximate = text.starts_with('~');
    let mut parts = text.trim_start_matches('~').split('-');
    let year = parts.next()?.parse().ok()?;
    let month = parts.next().and_then(|m| m.parse().ok());
    let day = parts.next().and_then(|d| d.parse().ok());
    Some(Date {
        year,
        month,
        day,
        approximate,
    })
}

/// An imperial prince's name without the titles JMnedict writes into it: 智仁親王
/// `Toshihitoshinnou` is Prince Toshihito, 久邇宮朝彦親王 `Kuninomiya Asahikoshinnou` is
/// Prince Kuni Asahiko (宮 the princely house, 親王 or 王 the rank), 内親王 a princess.
/// `None` for a name that is not one.
pub fn princely_name(name: &str, kanji: &str) -> Option<String> {
    let title = [
        ("内親王", "naishinnou", "Princess"),
        ("法親王", "houshinnou", "Prince"),
        ("親王", "shinnou", "Prince"),
        ("王", "ou", "Prince"),
    ]
    .into_iter()
    .find(|(written, _, _)| kanji.ends_with(written))?;
    let (_, spelled, rank) = title;
    let mut words: Vec<String> = name.split_whitespace().map(str::to_owned).collect();
    let last = words.last_mut()?;
    let bare = last.strip_suffix(spelled)?.to_string();
    if bare.is_empty() {
        return None;
    }
    *last = bare;
    let several = words.len() > 1;
    if kanji.contains('宮')
        && let Some(house) = words.first_mut().filter(|_| several)
        && let Some(bare) = house.strip_suffix("nomiya")
    {
        *house = bare.to_string();
    }
    Some(format!("{rank} {}", words.join(" ")))
}

/// The particle の of a name stays lowercase: JMnedict's `Taira No Sadafun` is Taira no
/// Sadafun.
pub fn particles_lowercase(name: &str) -> String {
    let words: Vec<&str> = name.split(' ').collect();
    let last = words.len().saturating_sub(1);
    words
        .iter()
        .enumerate()
        .map(|(i, word)| match *word {
            "No" if i > 0 && i < last => "no",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn person_entity(entry: &NameEntry, span: Span) -> Entity {
    let gloss_name_first = gloss_name(&entry.glosses[0]).to_string();
    let id = format!("history-person-{}-{}", slug(&gloss_name_first), entry.seq);
    let princely = entry
        .kanji
        .first()
        .and_then(|kanji| princely_name(&gloss_name_first, kanji));
    let name = princely.unwrap_or_else(|| particles_lowercase(&gloss_name_first));
    let mut person = Entity::new(id, HistoryType::Person, name);
    for form in entry.kanji.iter().chain(&entry.kana) {
        person.add_alias(form);
    }
    for gloss in &entry.glosses {
        person.add_alias(gloss_name(gloss));
    }
    person.span = span;
    person.calendar = CALENDAR;
    person.scope = Some("Japan".into());
    for role in roles_of(entry) {
        person.add_role(role);
        person.add_tag(&role.replace(' ', "-"));
    }
    person.offices = terms(&SHOGUN_TERM, "shogun", &entry.glosses);
    person
        .offices
        .extend(terms(&REIGN_TERM, "emperor", &entry.glosses));
    person.add_tag("person");
    person.summary = person_summary(&person);
    person.sentences.push(person_sentence(&person));
    let notes = notes(entry);
    if !notes.is_empty() {
        person
            .sentences
            .push(format!("JMnedict describes them as: {}.", notes.join("; ")));
    }
    person.sentences.extend(office_sentences(&person.offices));
    person.citations.push(cite::jmnedict(
        entry.seq,
        &["canonical_name", "aliases", "timespan", "roles"],
    ));
    person
}

fn merge_duplicate(kept: &mut Entity, duplicate: Entity) {
    for alias in duplicate.aliases {
        kept.add_alias(&alias.text);
    }
    kept.citations.extend(duplicate.citations);
}

/// The reign as an office. sanmiao's position in its list is not the emperor's number
/// (it made Go-Kameyama 77th, who is the 99th), so no ordinal is given.
fn add_reign(person: &mut Entity, ruler: &Ruler) {
    person.offices.retain(|o| o.office != "emperor");
    person.offices.push(OfficeTerm {
        office: "emperor".into(),
        start_year: Some(ruler.reign_start),
        end_year: Some(ruler.reign_end),
        ordinal: None,
        source: "sanmiao".into(),
    });
    person.add_role("emperor");
    person.add_tag("emperor");
    person.add_alias(&ruler.name);
    person.citations.push(cite::sanmiao(
        format!("ruler_table.csv person_id {}", ruler.person_id),
        &["offices"],
    ));
}

fn ruler_only_entity(ruler: &Ruler) -> Entity {
    let id = format!("history-person-sanmiao-{}", ruler.person_id);
    let mut person = Entity::new(id, HistoryType::Person, ruler.name.clone());
    person.scope = Some("Japan".into());
    person.add_role("emperor");
    person.add_tag("emperor");
    person.add_tag("person");
    person.offices.push(OfficeTerm {
        office: "emperor".into(),
        start_year: Some(ruler.reign_start),
        end_year: Some(ruler.reign_end),
        ordinal: None,
        source: "sanmiao".into(),
    });
    person.summary = format!(
        "Japanese monarch {}, reigned {}–{}",
        ruler.name, ruler.reign_start, ruler.reign_end
    );
    person.sentences.push(format!(
        "{} is listed by sanmiao as a Japanese monarch who reigned from {} to {}.",
        ruler.name, ruler.reign_start, ruler.reign_end
    ));
    person.citations.push(cite::sanmiao(
        format!("ruler_table.csv person_id {}", ruler.person_id),
        &["canonical_name", "offices"],
    ));
    person
}

fn role_phrase(person: &Entity) -> String {
    match person.roles.as_slice() {
        [] => "historical figure".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn person_summary(person: &Entity) -> String {
    if person.span.start.is_none() && person.span.end.is_none() {
        return format!("Japanese {}", role_phrase(person));
    }
    format!(
        "Japanese {} ({})",
        role_phrase(person),
        person.span.display()
    )
}

fn person_sentence(person: &Entity) -> String {
    let written: Vec<&str> = [person.kanji(), person.kana()]
        .into_iter()
        .flatten()
        .collect();
    let written = if written.is_empty() {
        String::new()
    } else {
        format!(" ({})", written.join(", "))
    };
    let life = match (person.span.start, person.span.end) {
        (Some(b), Some(d)) => format!(", born {} and died {}", b.display(), d.display()),
        (Some(b), None) => format!(", born {}", b.display()),
        (None, Some(d)) => format!(", who died {}", d.display()),
        (None, None) => {
            return format!(
                "{}{written} was a Japanese {}.",
                person.name,
                role_phrase(person)
            );
        }
    };
    format!(
        "{}{written} was a Japanese {}{life} (dates as JMnedict gives them).",
        person.name,
        role_phrase(person)
    )
}

fn office_sentences(offices: &[OfficeTerm]) -> Vec<String> {
    offices
        .iter()
        .filter_map(|o| {
            Some(format!(
                "They held the office of {} from {} to {}.",
                o.office, o.start_year?, o.end_year?
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u32, kanji: &str, kana: &str, gloss: &str) -> NameEntry {
        NameEntry {
            seq,
            kanji: vec![kanji.into()],
            kana: vec![kana.into()],
            glosses: vec![gloss.into()],
        }
    }

    #[test]
    fn an_undated_person_needs_a_role_and_a_period_and_is_one_entity() {
        let entries = [
            entry(
                1,
                "紀友則",
                "きとものり",
                "Ki Tomonori (Poet of the Heian period, included in the Ogura Hyakunin Isshu)",
            ),
            entry(2, "写楽", "しゃらく", "Sharaku (Edo period painter)"),
            entry(
                3,
                "東洲斎写楽",
                "とうしゅうさいしゃらく",
                "Toshusai Sharaku (Edo period painter)",
            ),
            entry(
                4,
                "益田隆",
                "ますだたかし",
                "Masuda Takashi (Director of the Mitsui in the Meiji era)",
            ),
            entry(5, "山田太郎", "やまだたろう", "Yamada Tarou (poet)"),
            entry(
                5323957,
                "山部赤人",
                "やまべあかひと",
                "Yamabe Akahito (Poet of the Heian period, included in the Ogura Hyakunin Isshu)",
            ),
        ];
        let persons = build(&entries, &Rulers::default());
        let names: Vec<&str> = persons.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["Ki Tomonori", "Sharaku"],
            "no role (Masuda), no period (Yamada), refused by the editors (Yamabe)"
        );
        assert!(persons[1].aliases.iter().any(|a| a.text == "東洲斎写楽"));
        assert_eq!(persons[0].summary, "Japanese poet");
        assert!(persons[0].span.start.is_none() && !persons[0].gloss.is_empty());
    }

    #[test]
    fn every_row_of_the_editors_table_is_a_decision_with_its_reason() {
        for row in crate::editors::rows(EDITORS_TABLE) {
            let [seq, name, decision, value, reason] = row.as_slice() else {
                panic!("five columns: {row:?}");
            };
            assert!(seq.parse::<u32>().is_ok() && !name.is_empty() && !reason.is_empty());
            match *decision {
                "refused" => assert!(value.is_empty(), "{row:?}"),
                "reading" | "name" | "written" => assert!(!value.is_empty(), "{row:?}"),
                "born" | "died" => assert!(parse_edit_date(value).is_some(), "{row:?}"),
                other => panic!("unknown decision {other}"),
            }
        }
    }

    #[test]
    fn an_undated_person_leaves_when_a_dated_one_has_the_name() {
        let dated = build(
            &[entry(
                1,
                "在原業平",
                "ありわらのなりひら",
                "Ariwara no Narihira (825-880)",
            )],
            &Rulers::default(),
        );
        let undated = build(
            &[entry(
                2,
                "在姑平",
                "ありわらなりひら",
                "Ariwara Narihira (Poet of the Heian period)",
            )],
            &Rulers::default(),
        );
        assert_eq!((dated.len(), undated.len()), (1, 1));
        let mut entities: Vec<Entity> = dated.into_iter().chain(undated).collect();
        drop_undated_duplicates(&mut entities);
        assert_eq!(entities.len(), 1);
        assert_eq!(entities[0].name, "Ariwara no Narihira");
    }
}
