//! Eras (nengō): japanera's named eras with day dates and court, jeraconv's kana
//! readings, sanmiao's proclaiming ruler and CLDR's era names in many locales.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::LazyLock;

use anyhow::Context;
use manabi_schemas::history::{EraCourt, EraFacts, HistoryType};
use regex::Regex;
use serde_json::Value;

use super::cite;
use super::dates::{Date, Span};
use super::model::Entity;
use super::romaji::{kana_to_romaji, slug};
use super::rulers::Rulers;

pub const CALENDAR: &str = "proleptic Gregorian (japanera day dates)";

/// One named era row of japanera's `era_data.py`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraRow {
    pub kanji: String,
    pub romaji: String,
    pub start: Date,
    pub end: Option<Date>,
    pub court: EraCourt,
}

static ERA_ROW: LazyLock<Regex> = LazyLock::new(|| {
    let date = r"datetime\.date\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)";
    let pattern = format!(
        r#"\(\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*{date}\s*,\s*(?:{date}|None)\s*,\s*EraType\.(\w+)\s*\)"#
    );
    Regex::new(&pattern).expect("era row pattern compiles")
});

/// Parses the named eras of `era_data.py`; unnamed gaps and the common-era row are skipped.
pub fn parse_japanera(text: &str) -> Vec<EraRow> {
    ERA_ROW
        .captures_iter(text)
        .filter_map(|c| {
            let number = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<i32>().ok());
            let court = match c.get(9)?.as_str() {
                "GENERAL" => EraCourt::General,
                "DAIKAKUJI" => EraCourt::Southern,
                "JIMYOUIN" => EraCourt::Northern,
                _ => return None,
            };
            let start = Date::day(number(3)?, number(4)? as u8, number(5)? as u8);
            let end = number(6).map(|y| {
                Date::day(
                    y,
                    number(7).unwrap_or(1) as u8,
                    number(8).unwrap_or(1) as u8,
                )
            });
            Some(EraRow {
                kanji: c[1].to_string(),
                romaji: c[2].to_string(),
                start,
                end,
                court,
            })
        })
        .collect()
}

/// jeraconv's reading of each era, by kanji: (kana, romaji).
pub fn parse_jeraconv(text: &str) -> anyhow::Result<HashMap<String, (String, String)>> {
    let value: Value = serde_json::from_str(text).context("jeraconv.json is not JSON")?;
    let object = value
        .as_object()
        .context("jeraconv.json is not an object")?;
    Ok(object
        .iter()
        .filter_map(|(kanji, era)| {
            let reading = era.get("reading")?;
            let kana = reading.get("jp")?.as_str()?.to_string();
            let romaji = reading.get("en")?.as_str()?.to_string();
            Some((kanji.clone(), (kana, romaji)))
        })
        .collect())
}

/// CLDR's Japanese-calendar eras: per index, the Japanese abbreviation (kanji), the start
/// year, and the era name in each locale.
#[derive(Debug, Default)]
pub struct CldrEras {
    pub kanji: BTreeMap<u32, String>,
    pub start_year: BTreeMap<u32, i32>,
    pub names: BTreeMap<u32, BTreeMap<String, String>>,
}

impl CldrEras {
    /// The CLDR index of an era, by kanji and start year (±1 for calendar differences).
    pub fn index_of(&self, kanji: &str, year: i32) -> Option<u32> {
        self.kanji.iter().find_map(|(index, k)| {
            let near = self
                .start_year
                .get(index)
                .is_some_and(|y| (y - year).abs() <= 1);
            (k == kanji && near).then_some(*index)
        })
    }
}

fn era_names(document: &Value, locale: &str, field: &str) -> BTreeMap<u32, String> {
    let eras = &document["main"][locale]["dates"]["calendars"]["japanese"]["eras"][field];
    eras.as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(i, n)| Some((i.parse().ok()?, n.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Reads `main/<locale>/ca-japanese.json` for every base locale (no region subtag) and the
/// era start dates of `supplemental/calendarData.json`.
pub fn load_cldr(main_dir: &Path, calendar_data: &Path) -> anyhow::Result<CldrEras> {
    let mut cldr = CldrEras::default();
    let text = std::fs::read_to_string(calendar_data)
        .with_context(|| format!("reading {}", calendar_data.display()))?;
    let data: Value = serde_json::from_str(&text).context("calendarData.json is not JSON")?;
    if let Some(eras) = data["supplemental"]["calendarData"]["japanese"]["eras"].as_object() {
        for (index, era) in eras {
            let year = era["_start"]
                .as_str()
                .and_then(|s| s.trim_start_matches('-').split('-').next()?.parse().ok());
            if let (Ok(index), Some(year)) = (index.parse(), year) {
                cldr.start_year.insert(index, year);
            }
        }
    }
    let mut locales: Vec<String> = std::fs::read_dir(main_dir)
        .with_context(|| format!("listing {}", main_dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|locale| !locale.contains('-'))
        .collect();
    locales.sort();
    for locale in locales {
        let path = main_dir.join(&locale).join("ca-japanese.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let document: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        if locale == "ja" {
            cldr.kanji = era_names(&document, &locale, "eraAbbr");
        }
        for (index, name) in era_names(&document, &locale, "eraNames") {
            cldr.names
                .entry(index)
                .or_default()
                .insert(locale.clone(), name);
        }
    }
    Ok(cldr)
}

/// `Taika (645–650)` → `Taika`.
fn strip_years(name: &str) -> &str {
    name.split(" (").next().unwrap_or(name).trim()
}

/// Builds the era entities, ordered by court and start date.
pub fn build(
    rows: &[EraRow],
    readings: &HashMap<String, (String, String)>,
    rulers: &Rulers,
    cldr: &CldrEras,
) -> Vec<Entity> {
    start_after_predecessor(rows)
        .iter()
        .map(|row| era_entity(row, readings, rulers, cldr))
        .collect()
}

/// Rule `era-start-after-predecessor`: within one court line an era starts no earlier than
/// the previous era ends. japanera starts Meiji on the retroactive 1868-01-23 while Keiō
/// runs to the proclamation of 1868-10-23; the era is dated from its proclamation.
pub fn start_after_predecessor(rows: &[EraRow]) -> Vec<EraRow> {
    let mut fixed = rows.to_vec();
    let mut order: Vec<usize> = (0..fixed.len()).collect();
    order.sort_by_key(|&i| (court_tag(fixed[i].court), fixed[i].start.key()));
    for pair in order.windows(2) {
        let (before, after) = (pair[0], pair[1]);
        if fixed[before].court != fixed[after].court {
            continue;
        }
        if let Some(end) = fixed[before].end
            && end.key() > fixed[after].start.key()
        {
            fixed[after].start = end;
        }
    }
    fixed
}

fn era_entity(
    row: &EraRow,
    readings: &HashMap<String, (String, String)>,
    rulers: &Rulers,
    cldr: &CldrEras,
) -> Entity {
    let cldr_index = cldr.index_of(&row.kanji, row.start.year);
    let cldr_names = cldr_index.and_then(|i| cldr.names.get(&i));
    let english = cldr_names
        .and_then(|n| n.get("en"))
        .map(|n| strip_years(n).to_string());
    let reading = readings.get(&row.kanji);
    // Without a CLDR name, Hepburn with macrons from jeraconv's kana (至徳 Shitoku, 応安 Ōan),
    // not japanera's own spelling (`Sitoku`, `Ouan`), which stays an alias.
    let name = english.clone().unwrap_or_else(|| match reading {
        Some((kana, _)) => capitalize(&with_macrons(&kana_to_romaji(kana))),
        None => row.romaji.clone(),
    });
    let id = format!("history-era-{}-{}", slug(&name), row.start.year);
    let mut entity = Entity::new(id, HistoryType::Era, name);
    entity.add_alias(&row.kanji);
    if let Some((kana, romaji)) = reading {
        entity.add_alias(kana);
        entity.add_alias(&capitalize(romaji));
    }
    // japanera's own spelling is an alias only when it spells the reading (Kunrei `Sitoku`,
    // long vowels as `ou`); `Mannei` for 万延 (まんえん) and `Bunnkyuu` for 文久 are not.
    if reading.is_none_or(|(kana, _)| spells_reading(&row.romaji, kana)) {
        entity.add_alias(&row.romaji);
    }
    entity.span = Span {
        start: Some(row.start),
        end: row.end,
    };
    entity.calendar = CALENDAR;
    entity.scope = Some("Japan".into());
    let ruler = rulers.of_era(&row.kanji, row.start.year);
    entity.era = Some(EraFacts {
        kanji: row.kanji.clone(),
        reading: reading.map(|(kana, _)| kana.clone()),
        court: row.court,
        years_counted: row
            .end
            .map(|end| (end.year - row.start.year + 1).max(1) as u32),
        ruler: ruler.map(|r| r.name.clone()),
        cldr_index,
    });
    if let Some(names) = cldr_names {
        entity.localized = localized(names, english.as_deref());
    }
    entity.add_tag("era");
    entity.add_tag(court_tag(row.court));
    entity.summary = era_summary(&entity, row);
    entity.sentences.push(era_sentence(&entity, row));
    entity.citations.push(cite::japanera(format!(
        "era_data.py {} {}",
        row.kanji, row.start.year
    )));
    if reading.is_some() {
        entity
            .citations
            .push(cite::jeraconv(format!("jeraconv.json {}", row.kanji)));
    }
    if ruler.is_some() {
        entity.citations.push(cite::sanmiao(
            format!("era_table.csv {}", row.kanji),
            &["era.ruler"],
        ));
    }
    if let Some(index) = cldr_index {
        entity
            .citations
            .push(cite::cldr(format!("japanese eras[{index}]")));
    }
    entity
}

/// CLDR names that differ from the English one; names carrying CLDR's year suffix are
/// kept as CLDR writes them.
fn localized(names: &BTreeMap<String, String>, english: Option<&str>) -> BTreeMap<String, String> {
    names
        .iter()
        .filter(|(locale, name)| locale.as_str() != "en" && Some(strip_years(name)) != english)
        .map(|(locale, name)| (locale.clone(), name.clone()))
        .collect()
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn court_tag(court: EraCourt) -> &'static str {
    match court {
        EraCourt::General => "general-line",
        EraCourt::Southern => "southern-court",
        EraCourt::Northern => "northern-court",
    }
}

fn court_phrase(court: EraCourt) -> &'static str {
    match court {
        EraCourt::General => "",
        EraCourt::Southern => " of the Southern Court (Daikakuji line)",
        EraCourt::Northern => " of the Northern Court (Jimyōin line)",
    }
}

fn era_summary(entity: &Entity, row: &EraRow) -> String {
    let end = row.end.map(|d| d.year.to_string()).unwrap_or_default();
    let court = court_phrase(row.court);
    format!(
        "Japanese era {} ({}){court}, {}–{end}",
        entity.name, row.kanji, row.start.year
    )
}

fn era_sentence(entity: &Entity, row: &EraRow) -> String {
    let reading = entity.era.as_ref().and_then(|e| e.reading.clone());
    let written = match reading {
        Some(kana) => format!("{}, {kana}", row.kanji),
        None => row.kanji.clone(),
    };
    let span = match row.end {
        // japanera's end is the first day of the era that replaced it (Heisei ends
        // 2019-05-01, Reiwa 1): said so, a learner does not take it for Heisei's last day.
        Some(end) => format!(
            "from {} until it was replaced on {}",
            row.start.display(),
            end.display()
        ),
        None => format!("since {}", row.start.display()),
    };
    format!(
        "{} ({written}) is a Japanese era name (nengō){}, in use {span} (proleptic Gregorian dates as given by japanera).",
        entity.name,
        court_phrase(row.court)
    )
}

/// Whether `romaji` spells `kana` in some romanisation: Hepburn or Kunrei, long vowels
/// written or not, syllabic n with or without an apostrophe.
fn spells_reading(romaji: &str, kana: &str) -> bool {
    fn fold(text: &str) -> String {
        let mut folded: String = text
            .to_lowercase()
            .chars()
            .filter(char::is_ascii_alphabetic)
            .collect();
        for (from, to) in [
            ("shi", "si"),
            ("chi", "ti"),
            ("tsu", "tu"),
            ("fu", "hu"),
            ("ji", "zi"),
            ("sh", "sy"),
            ("ch", "ty"),
            ("j", "zy"),
            ("ou", "o"),
            ("oo", "o"),
            ("uu", "u"),
        ] {
            folded = folded.replace(from, to);
        }
        folded
    }
    fold(romaji) == fold(&kana_to_romaji(kana))
}

/// Hepburn long vowels with macrons: `ou`, `oo` → `ō`, `uu` → `ū` (an era name's kana
/// reading romanised: おうあん `ouan` → `ōan`).
fn with_macrons(romaji: &str) -> String {
    romaji
        .replace("ou", "ō")
        .replace("oo", "ō")
        .replace("uu", "ū")
}

#[cfg(test)]
mod tests {
    use super::spells_reading;

    #[test]
    fn an_era_library_spelling_must_spell_the_reading() {
        assert!(spells_reading("Sitoku", "しとく"));
        assert!(spells_reading("Ouan", "おうあん"));
        assert!(spells_reading("Kouka", "こうか"));
        assert!(!spells_reading("Mannei", "まんえん"));
        assert!(!spells_reading("Bunnkyuu", "ぶんきゅう"));
    }
}
