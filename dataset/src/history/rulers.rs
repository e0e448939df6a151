//! sanmiao's Japanese rulers (calendar stream 4, dynasty 日本): reign years and which
//! ruler proclaimed each era.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;

/// sanmiao's calendar stream for Japan.
const JAPAN_STREAM: &str = "4.0";

/// One Japanese monarch as sanmiao lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruler {
    pub person_id: u32,
    /// Canonical name in kanji, e.g. 明治天皇.
    pub name: String,
    pub reign_start: i32,
    pub reign_end: i32,
}

/// The rulers in reign order, and the ruler sanmiao gives for each era (kanji, start year).
#[derive(Debug, Clone, Default)]
pub struct Rulers {
    pub rulers: Vec<Ruler>,
    pub era_rulers: HashMap<(String, i32), u32>,
}

impl Rulers {
    pub fn by_id(&self, person_id: u32) -> Option<&Ruler> {
        self.rulers.iter().find(|r| r.person_id == person_id)
    }

    /// The ruler of an era, allowing a year's difference between calendars.
    /// The emperor who proclaimed an era: sanmiao's ruler of the era when his reign
    /// includes the era's first year (give or take the year a calendar conversion moves
    /// it); else the one monarch whose reign strictly contains that year. sanmiao often
    /// names the emperor on the throne when an era ended: Kōmyō for Kenmu (1334), which
    /// Go-Daigo proclaimed two years before Kōmyō's accession; Go-Yōzei for Tenshō (1573),
    /// proclaimed under Ōgimachi.
    pub fn of_era(&self, kanji: &str, start_year: i32) -> Option<&Ruler> {
        let given = [start_year, start_year - 1, start_year + 1]
            .into_iter()
            .find_map(|year| self.era_rulers.get(&(kanji.to_string(), year)))
            .and_then(|id| self.by_id(*id))
            .filter(|r| r.reign_start - 1 <= start_year && start_year <= r.reign_end + 1);
        given.or_else(|| {
            let mut reigning = self
                .rulers
                .iter()
                .filter(|r| r.reign_start < start_year && start_year < r.reign_end);
            match (reigning.next(), reigning.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        })
    }
}

/// Reads `ruler_table.csv`, `rul_can_name.csv` and `era_table.csv` from sanmiao's data dir.
pub fn load(data_dir: &Path) -> anyhow::Result<Rulers> {
    let read = |name: &str| {
        let path = data_dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    };
    let names = parse_names(&read("rul_can_name.csv")?);
    let mut rulers = parse_rulers(&read("ruler_table.csv")?, &names);
    rulers.sort_by_key(|r| (r.reign_start, r.reign_end, r.person_id));
    let era_rulers = parse_era_rulers(&read("era_table.csv")?);
    Ok(Rulers { rulers, era_rulers })
}

/// Rows of a simple CSV (sanmiao's files quote nothing), header dropped, as column maps.
fn rows(text: &str) -> Vec<HashMap<&str, &str>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    lines
        .map(|line| header.iter().copied().zip(line.split(',')).collect())
        .collect()
}

fn int(value: Option<&&str>) -> Option<i32> {
    value?.parse::<f64>().ok().map(|v| v as i32)
}

fn parse_names(text: &str) -> HashMap<u32, String> {
    let mut names = HashMap::new();
    for row in rows(text) {
        if let (Some(id), Some(name)) = (int(row.get("person_id")), row.get("string")) {
            names.entry(id as u32).or_insert_with(|| name.to_string());
        }
    }
    names
}

pub fn parse_rulers(text: &str, names: &HashMap<u32, String>) -> Vec<Ruler> {
    rows(text)
        .into_iter()
        .filter(|row| row.get("cal_stream") == Some(&JAPAN_STREAM))
        .filter_map(|row| {
            let person_id = int(row.get("person_id"))? as u32;
            Some(Ruler {
                person_id,
                name: names.get(&person_id)?.clone(),
                reign_start: int(row.get("emp_start_year"))?,
                reign_end: int(row.get("emp_end_year"))?,
            })
        })
        .collect()
}

pub fn parse_era_rulers(text: &str) -> HashMap<(String, i32), u32> {
    rows(text)
        .into_iter()
        .filter(|row| row.get("cal_stream") == Some(&JAPAN_STREAM))
        .filter_map(|row| {
            let era = row.get("era_name")?.to_string();
            Some((
                (era, int(row.get("era_start_year"))?),
                int(row.get("ruler_id"))? as u32,
            ))
        })
        .collect()
}
