//! The curated canon in `content/history/*.toml` (persons, events, periods, capitals,
//! provinces, prefectures, sites): its TOML shape and the plain, checked records read from
//! it. The format is described in `docs/history.md`, "The canon files"; the same structural
//! rules are run by `dataset/scripts/history_canon.py`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use manabi_schemas::history::HistoryType;
use serde::Deserialize;

use super::dates::Date;

/// The canon files, in the order they are read.
pub const FILES: [&str; 7] = [
    "persons.toml",
    "events.toml",
    "periods.toml",
    "capitals.toml",
    "provinces.toml",
    "prefectures.toml",
    "sites.toml",
];

/// A person without a recorded death must be known from before this year: no living person.
pub const BIRTH_YEAR_MAX_WITHOUT_DEATH: i32 = 1900;

/// Relationship kinds the canon may write, with the inverse the graph gets for each.
pub const RELATION_KINDS: [(&str, &str); 13] = [
    ("participant-in", "participants"),
    ("founded", "founded-by"),
    ("born-in", "birthplace-of"),
    ("ruled", "ruled-by"),
    ("successor-of", "predecessor-of"),
    ("teacher-of", "student-of"),
    ("causes", "caused-by"),
    ("part-of", "contains"),
    ("precedes", "follows"),
    ("capital-during", "had-capital"),
    ("located-in", "location-of"),
    ("grave-of", "buried-at"),
    ("scene-of", "took-place-at"),
];

/// The inverse of a canon relationship kind, if the kind is one the canon may write.
pub fn inverse_of(kind: &str) -> Option<&'static str> {
    RELATION_KINDS
        .iter()
        .find(|(forward, _)| *forward == kind)
        .map(|(_, inverse)| *inverse)
}

/// The directory of the canon files.
pub fn content_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("content")
        .join("history")
}

/// The table a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Person,
    Event,
    Period,
    Capital,
    Circuit,
    Province,
    Region,
    Prefecture,
    Site,
}

impl Table {
    pub fn as_str(self) -> &'static str {
        match self {
            Table::Person => "person",
            Table::Event => "event",
            Table::Period => "period",
            Table::Capital => "capital",
            Table::Circuit => "circuit",
            Table::Province => "province",
            Table::Region => "region",
            Table::Prefecture => "prefecture",
            Table::Site => "site",
        }
    }

    pub fn history_type(self) -> HistoryType {
        match self {
            Table::Person => HistoryType::Person,
            Table::Event => HistoryType::Event,
            Table::Period => HistoryType::Period,
            _ => HistoryType::Place,
        }
    }

    /// Fields this table may carry beyond the common ones, and those it must carry.
    fn fields(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Table::Person => (
                &[
                    "born",
                    "died",
                    "floruit",
                    "roles",
                    "offices",
                    "foreign",
                    "relevance",
                ],
                &["roles"],
            ),
            Table::Event => (&["start", "end", "kinds", "abroad"], &["start", "kinds"]),
            Table::Period => (&["start", "end"], &[]),
            Table::Capital => (&["start", "end", "seat_of"], &["scope", "seat_of"]),
            Table::Site => (&["start", "end", "kinds"], &["scope", "kinds"]),
            Table::Province => (&["circuit", "prefectures"], &["circuit", "prefectures"]),
            Table::Prefecture => (
                &["jis_code", "region", "seat"],
                &["jis_code", "region", "seat"],
            ),
            Table::Circuit | Table::Region => (&[], &[]),
        }
    }
}

/// A dictionary the canon was cross-checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dictionary {
    Jmnedict,
    Jmdict,
}

/// One `checked` entry: the dictionary record the reading, form and dates were checked
/// against, and the editors' resolution where the dictionary disagrees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub dictionary: Dictionary,
    pub record: u32,
    pub resolution: Option<String>,
}

/// A written relation: `kind` to the canon entity `to`, with the fact in `basis`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonRelation {
    pub kind: String,
    pub to: String,
    pub basis: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Office {
    pub office: String,
    pub from: Date,
    pub to: Option<Date>,
}

/// A person from outside Japan, with why they matter to Japanese history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    pub origin: String,
    pub relevance: String,
}

/// One canon entity with its dates parsed. `start`/`end` are birth/death for persons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub table: Table,
    pub file: &'static str,
    pub id: String,
    pub name: String,
    pub reading: String,
    pub romaji: String,
    pub ascii: String,
    pub wapuro: Option<String>,
    pub label: Option<String>,
    pub aliases: Vec<String>,
    pub description: String,
    pub note: Option<String>,
    pub scope: Vec<String>,
    /// Where outside Japan an event took place (the Korean Peninsula, Siberia), shown
    /// with `scope` so an overseas war is not placed in "Japan".
    pub abroad: Option<String>,
    pub relations: Vec<CanonRelation>,
    pub checked: Vec<Checked>,
    pub start: Option<Date>,
    pub end: Option<Date>,
    pub floruit: Option<Date>,
    pub roles: Vec<String>,
    pub offices: Vec<Office>,
    pub foreign: Option<Foreign>,
    pub kinds: Vec<String>,
    pub seat_of: Option<String>,
    pub circuit: Option<String>,
    pub prefectures: Vec<String>,
    pub region: Option<String>,
    pub jis_code: Option<u32>,
    /// The prefectural seat: (name, romaji).
    pub seat: Option<(String, String)>,
}

impl Record {
    /// The English display name: the `label`; else for a province `Owari Province`, for a
    /// prefecture `Nara Prefecture` (`Tōkyō Metropolis`); else the Hepburn romaji.
    pub fn display_name(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        let romaji = self.romaji.as_str();
        match self.table {
            Table::Province => format!("{romaji} Province"),
            Table::Prefecture => {
                let suffixes = [
                    (" Ken", " Prefecture"),
                    (" Fu", " Prefecture"),
                    (" To", " Metropolis"),
                ];
                suffixes
                    .iter()
                    .find_map(|(ending, english)| {
                        Some(format!("{}{english}", romaji.strip_suffix(ending)?))
                    })
                    .unwrap_or_else(|| romaji.to_string())
            }
            _ => romaji.to_string(),
        }
    }
}

/// Every canon record, in file order.
#[derive(Debug, Clone, Default)]
pub struct Canon {
    pub records: Vec<Record>,
}

impl Canon {
    pub fn get(&self, id: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.id == id)
    }

    pub fn by_id(&self) -> HashMap<&str, &Record> {
        self.records.iter().map(|r| (r.id.as_str(), r)).collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CanonError {
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Toml {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("the history canon has {} problems:\n{}", .0.len(), .0.join("\n"))]
    Invalid(Vec<String>),
}

// ---------------------------------------------------------------- TOML shape

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    person: Vec<RawRow>,
    #[serde(default)]
    event: Vec<RawRow>,
    #[serde(default)]
    period: Vec<RawRow>,
    #[serde(default)]
    capital: Vec<RawRow>,
    #[serde(default)]
    circuit: Vec<RawRow>,
    #[serde(default)]
    province: Vec<RawRow>,
    #[serde(default)]
    region: Vec<RawRow>,
    #[serde(default)]
    prefecture: Vec<RawRow>,
    #[serde(default)]
    site: Vec<RawRow>,
}

impl RawFile {
    fn tables(self) -> [(Table, Vec<RawRow>); 9] {
        [
            (Table::Person, self.person),
            (Table::Event, self.event),
            (Table::Period, self.period),
            (Table::Capital, self.capital),
            (Table::Circuit, self.circuit),
            (Table::Province, self.province),
            (Table::Region, self.region),
            (Table::Prefecture, self.prefecture),
            (Table::Site, self.site),
        ]
    }
}

/// One row of any table exactly as written; which fields a table may use is checked
/// after parsing ([`Table::fields`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    id: String,
    name: String,
    reading: String,
    romaji: String,
    ascii: String,
    wapuro: Option<String>,
    label: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    description: String,
    note: Option<String>,
    #[serde(default)]
    scope: Vec<String>,
    abroad: Option<String>,
    #[serde(default)]
    relations: Vec<RawRelation>,
    #[serde(default)]
    checked: Vec<RawChecked>,
    born: Option<String>,
    died: Option<String>,
    floruit: Option<String>,
    start: Option<String>,
    end: Option<String>,
    #[serde(default)]
    roles: Vec<String>,
    #[serde(default)]
    offices: Vec<RawOffice>,
    foreign: Option<String>,
    relevance: Option<String>,
    #[serde(default)]
    kinds: Vec<String>,
    seat_of: Option<String>,
    circuit: Option<String>,
    #[serde(default)]
    prefectures: Vec<String>,
    region: Option<String>,
    jis_code: Option<u32>,
    seat: Option<RawSeat>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRelation {
    kind: String,
    to: String,
    basis: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChecked {
    source: String,
    record: u32,
    resolution: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOffice {
    office: String,
    from: String,
    to: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSeat {
    name: String,
    romaji: String,
}

impl RawRow {
    /// The table-specific fields this row fills.
    fn filled_fields(&self) -> Vec<&'static str> {
        let present = [
            ("born", self.born.is_some()),
            ("died", self.died.is_some()),
            ("floruit", self.floruit.is_some()),
            ("start", self.start.is_some()),
            ("end", self.end.is_some()),
            ("roles", !self.roles.is_empty()),
            ("offices", !self.offices.is_empty()),
            ("foreign", self.foreign.is_some()),
            ("relevance", self.relevance.is_some()),
            ("kinds", !self.kinds.is_empty()),
            ("abroad", self.abroad.is_some()),
            ("seat_of", self.seat_of.is_some()),
            ("circuit", self.circuit.is_some()),
            ("prefectures", !self.prefectures.is_empty()),
            ("region", self.region.is_some()),
            ("jis_code", self.jis_code.is_some()),
            ("seat", self.seat.is_some()),
            ("scope", !self.scope.is_empty()),
        ];
        present
            .into_iter()
            .filter(|(_, filled)| *filled)
            .map(|(field, _)| field)
            .collect()
    }
}

// ---------------------------------------------------------------- reading

/// Reads and checks every canon file in `dir`.
pub fn load(dir: &Path) -> Result<Canon, CanonError> {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for file in FILES {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(|source| CanonError::Io {
            path: path.clone(),
            source,
        })?;
        records.extend(parse_file(file, &text, &mut problems).map_err(|source| {
            CanonError::Toml {
                path,
                source: Box::new(source),
            }
        })?);
    }
    let canon = Canon { records };
    problems.extend(check(&canon));
    if problems.is_empty() {
        Ok(canon)
    } else {
        Err(CanonError::Invalid(problems))
    }
}

/// Parses one file; rows that break a field rule are reported and left out.
pub fn parse_file(
    file: &'static str,
    text: &str,
    problems: &mut Vec<String>,
) -> Result<Vec<Record>, toml::de::Error> {
    let raw: RawFile = toml::from_str(text)?;
    let mut records = Vec::new();
    for (table, rows) in raw.tables() {
        for row in rows {
            match record(table, file, row) {
                Ok(record) => records.push(record),
                Err(mut found) => problems.append(&mut found),
            }
        }
    }
    Ok(records)
}

fn record(table: Table, file: &'static str, row: RawRow) -> Result<Record, Vec<String>> {
    let id = row.id.clone();
    let mut problems = Vec::new();
    let (allowed, required) = table.fields();
    let filled = row.filled_fields();
    for field in filled
        .iter()
        .filter(|f| **f != "scope" && !allowed.contains(f))
    {
        problems.push(format!("{id}: {} may not have `{field}`", table.as_str()));
    }
    for field in required.iter().filter(|f| !filled.contains(f)) {
        problems.push(format!("{id}: {} needs `{field}`", table.as_str()));
    }
    let mut date = |field: &str, text: &Option<String>| {
        let text = text.as_deref()?;
        parse_date(text)
            .map_err(|e| problems.push(format!("{id}: {field}: {e}")))
            .ok()
    };
    let start = date("start", &row.born.clone().or(row.start.clone()));
    let end = date("end", &row.died.clone().or(row.end.clone()));
    let floruit = date("floruit", &row.floruit);
    let offices = row
        .offices
        .iter()
        .filter_map(|o| {
            Some(Office {
                office: o.office.clone(),
                from: date("offices.from", &Some(o.from.clone()))?,
                to: o
                    .to
                    .as_ref()
                    .and_then(|to| date("offices.to", &Some(to.clone()))),
            })
        })
        .collect();
    let checked = checked_records(&id, &row.checked, &mut problems);
    let foreign = match (row.foreign, row.relevance) {
        (Some(origin), Some(relevance)) => Some(Foreign { origin, relevance }),
        (None, None) => None,
        _ => {
            problems.push(format!("{id}: `foreign` needs `relevance` and back"));
            None
        }
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Record {
        table,
        file,
        id: row.id,
        name: row.name,
        reading: row.reading,
        romaji: row.romaji,
        ascii: row.ascii,
        wapuro: row.wapuro,
        label: row.label,
        aliases: row.aliases,
        description: row.description,
        note: row.note,
        scope: row.scope,
        abroad: row.abroad,
        relations: row
            .relations
            .into_iter()
            .map(|r| CanonRelation {
                kind: r.kind,
                to: r.to,
                basis: r.basis,
            })
            .collect(),
        checked,
        start,
        end,
        floruit,
        roles: row.roles,
        offices,
        foreign,
        kinds: row.kinds,
        seat_of: row.seat_of,
        circuit: row.circuit,
        prefectures: row.prefectures,
        region: row.region,
        jis_code: row.jis_code,
        seat: row.seat.map(|s| (s.name, s.romaji)),
    })
}

fn checked_records(id: &str, raw: &[RawChecked], problems: &mut Vec<String>) -> Vec<Checked> {
    raw.iter()
        .filter_map(|c| {
            let dictionary = match c.source.as_str() {
                "JMnedict" => Dictionary::Jmnedict,
                "JMdict" => Dictionary::Jmdict,
                other => {
                    problems.push(format!(
                        "{id}: checked source {other:?} is not JMnedict/JMdict"
                    ));
                    return None;
                }
            };
            Some(Checked {
                dictionary,
                record: c.record,
                resolution: c.resolution.clone(),
            })
        })
        .collect()
}

/// Parses `[~]YYYY[-MM[-DD]]`: the form gives the precision and `~` marks circa.
pub fn parse_date(text: &str) -> Result<Date, String> {
    let (approximate, rest) = match text.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let widths_ok = matches!(parts.as_slice(), [y] | [y, _] | [y, _, _] if y.len() == 4)
        && parts[1..].iter().all(|p| p.len() == 2);
    let digits_ok = parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()));
    if !widths_ok || !digits_ok {
        return Err(format!("date {text:?} is not [~]YYYY[-MM[-DD]]"));
    }
    let number = |i: usize| parts.get(i).and_then(|p| p.parse::<u32>().ok());
    let year = number(0).ok_or_else(|| format!("date {text:?}: no year"))? as i32;
    let month = number(1);
    let day = number(2);
    if month.is_some_and(|m| !(1..=12).contains(&m)) {
        return Err(format!("date {text:?}: month out of range"));
    }
    if let (Some(m), Some(d)) = (month, day)
        && !(1..=days_in_month(year, m)).contains(&d)
    {
        return Err(format!("date {text:?}: day out of range"));
    }
    if year > current_year() {
        return Err(format!("date {text:?} lies in the future"));
    }
    Ok(Date {
        year,
        month: month.map(|m| m as u8),
        day: day.map(|d| d as u8),
        approximate,
    })
}

/// Days in a month of the proleptic Gregorian calendar.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn current_year() -> i32 {
    const SECONDS_PER_YEAR: u64 = 31_556_952;
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    1970 + (seconds / SECONDS_PER_YEAR) as i32
}

// ---------------------------------------------------------------- whole-canon rules

/// The rules across records: unique ids of the right family, dates in order, no living
/// person, and every reference resolving to a record of the right table.
pub fn check(canon: &Canon) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for record in &canon.records {
        if !seen.insert(record.id.as_str()) {
            problems.push(format!("{}: id is not unique", record.id));
        }
        let prefix = format!(
            "history-{}-",
            super::model::type_name(record.table.history_type())
        );
        if !record.id.starts_with(&prefix) {
            problems.push(format!("{}: id must start with {prefix}", record.id));
        }
        problems.extend(date_problems(record));
    }
    problems.extend(reference_problems(canon));
    problems
}

/// Dates in order and no living person.
pub fn date_problems(record: &Record) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &record.id;
    if let (Some(start), Some(end)) = (record.start, record.end)
        && end.key() < start.key()
    {
        problems.push(format!(
            "{id}: ends ({}) before it starts ({})",
            end.display(),
            start.display()
        ));
    }
    for office in &record.offices {
        if office.to.is_some_and(|to| to.key() < office.from.key()) {
            problems.push(format!(
                "{id}: office {} ends before it starts",
                office.office
            ));
        }
    }
    if record.table == Table::Person && record.end.is_none() {
        let known = record.start.or(record.floruit).map(|d| d.year);
        if known.is_none_or(|year| year >= BIRTH_YEAR_MAX_WITHOUT_DEATH) {
            problems.push(format!(
                "{id}: no death and not known from before 1900 (living?)"
            ));
        }
    }
    problems
}

/// A person takes part in an event only within their life: the event does not start
/// after their death nor end before their birth (years; an unknown end does not refuse).
fn alive_during(person: &Record, event: &Record) -> bool {
    let event_start = event.start.map(|d| d.year);
    let event_end = event.end.or(event.start).map(|d| d.year);
    let died_before =
        matches!((person.end, event_start), (Some(died), Some(start)) if died.year < start);
    let born_after =
        matches!((person.start, event_end), (Some(born), Some(end)) if born.year > end);
    !died_before && !born_after
}

fn reference_problems(canon: &Canon) -> Vec<String> {
    let by_id = canon.by_id();
    let table_of = |id: &str| by_id.get(id).map(|r| r.table);
    let mut problems = Vec::new();
    for record in &canon.records {
        let id = &record.id;
        let mut expect = |target: &str, field: &str, tables: &[Table]| {
            if !table_of(target).is_some_and(|t| tables.contains(&t)) {
                problems.push(format!(
                    "{id}: {field} {target} is not a {tables:?} of the canon"
                ));
            }
        };
        for target in &record.scope {
            expect(target, "scope", &[Table::Province, Table::Prefecture]);
        }
        if let Some(circuit) = &record.circuit {
            expect(circuit, "circuit", &[Table::Circuit]);
        }
        if let Some(region) = &record.region {
            expect(region, "region", &[Table::Region]);
        }
        for prefecture in &record.prefectures {
            expect(prefecture, "prefectures", &[Table::Prefecture]);
        }
        for relation in &record.relations {
            if inverse_of(&relation.kind).is_none() {
                problems.push(format!(
                    "{id}: relation kind {} is not known",
                    relation.kind
                ));
            }
            if table_of(&relation.to).is_none() {
                problems.push(format!(
                    "{id}: relation target {} is not in the canon",
                    relation.to
                ));
            }
            if relation.basis.trim().is_empty() {
                problems.push(format!("{id}: relation to {} has no basis", relation.to));
            }
            if relation.kind == "participant-in"
                && let Some(event) = by_id.get(relation.to.as_str())
                && !alive_during(record, event)
            {
                problems.push(format!(
                    "{id}: participant in {} but not alive at the time",
                    relation.to
                ));
            }
        }
    }
    problems
}
