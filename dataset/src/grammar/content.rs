//! The authored grammar files (`content/grammar/n5.toml` .. `n1.toml`): their TOML shape
//! and the typed, validated point built from it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use manabi_schemas::grammar::{GrammarRelationKind, LevelSource, Register};
use regex::Regex;
use serde::Deserialize;

/// One `[[point]]` table exactly as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPoint {
    pub slug: String,
    pub pattern: String,
    #[serde(default)]
    pub variants: Vec<String>,
    pub meaning: String,
    pub formation: Vec<String>,
    #[serde(default)]
    pub conjugation: Vec<String>,
    pub register: String,
    #[serde(default)]
    pub notes: String,
    pub level_source: String,
    #[serde(default)]
    pub level_reason: String,
    /// The exact label in the tanos or hushigi list when the pattern is written differently.
    #[serde(default)]
    pub source_label: Option<String>,
    #[serde(rename = "match")]
    pub matchers: Vec<String>,
    #[serde(default)]
    pub related: Vec<RawRelated>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRelated {
    pub slug: String,
    pub kind: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    point: Vec<RawPoint>,
}

/// A JLPT level, 5 (N5) down to 1 (N1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Jlpt(u8);

impl Jlpt {
    pub fn new(level: u8) -> Option<Self> {
        (1..=5).contains(&level).then_some(Self(level))
    }

    /// Reads `n4`, `N4` (file stems, list labels).
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.trim().strip_prefix(['n', 'N'])?;
        Self::new(digits.parse().ok()?)
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Jlpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "N{}", self.0)
    }
}

/// A point identifier: ASCII `a-z`, `0-9` and inner single `-`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slug(String);

impl Slug {
    pub fn parse(text: &str) -> Option<Self> {
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        let well_formed = !text.is_empty()
            && text.chars().all(allowed)
            && !text.starts_with('-')
            && !text.ends_with('-')
            && !text.contains("--");
        well_formed.then(|| Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The learnable id of the point.
    pub fn learnable_id(&self) -> String {
        format!("grammar-{}", self.0)
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A validated grammar point.
#[derive(Debug, Clone)]
pub struct Point {
    pub slug: Slug,
    pub level: Jlpt,
    pub pattern: String,
    pub variants: Vec<String>,
    pub meaning: String,
    pub formation: Vec<String>,
    pub conjugation: Vec<String>,
    pub register: Register,
    pub notes: String,
    pub level_source: LevelSource,
    pub level_reason: String,
    pub source_label: Option<String>,
    pub matchers: Vec<Regex>,
    pub related: Vec<(Slug, GrammarRelationKind)>,
}

/// Something wrong with one point; the point is left out of the build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    #[error("slug {0:?} is not ASCII a-z0-9 with single inner '-'")]
    BadSlug(String),
    #[error("slug defined more than once: {0}")]
    DuplicateSlug(String),
    #[error("field {0} is empty")]
    EmptyField(&'static str),
    #[error(
        "register {0:?} is not one of casual|neutral|polite|formal|written|literary|\
         honorific|humble"
    )]
    BadRegister(String),
    #[error("level_source {0:?} is not one of tanos|hushigi|editor")]
    BadLevelSource(String),
    #[error("level_source editor needs a level_reason")]
    MissingLevelReason,
    #[error("match regex {pattern:?} does not compile: {message}")]
    BadRegex { pattern: String, message: String },
    #[error("related kind {0:?} is not one of similar|contrast|builds-on")]
    BadRelationKind(String),
    #[error("related slug {0:?} does not exist")]
    UnknownRelated(String),
    #[error("related slug {0:?} points to the point itself")]
    SelfRelated(String),
    #[error("level: {0}")]
    Level(String),
    #[error("only {found} example sentence(s) found; 2 needed")]
    TooFewExamples { found: usize },
    #[error("formation rule {0:?} opens or closes a parenthesis it does not close or open")]
    UnbalancedFormation(String),
}

/// A whole file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: file name must be n1.toml .. n5.toml")]
    BadName { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Toml {
        path: PathBuf,
        source: toml::de::Error,
    },
}

/// One content file after parsing: its level and each point, valid or not.
#[derive(Debug)]
pub struct ContentFile {
    pub path: PathBuf,
    pub level: Jlpt,
    pub points: Vec<(RawPoint, Result<Point, Vec<PointError>>)>,
}

/// Reads one content file; per-point validation happens in [`validate_all`].
pub fn read_file(path: &Path) -> Result<(Jlpt, Vec<RawPoint>), FileError> {
    let level = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .and_then(Jlpt::parse)
        .ok_or_else(|| FileError::BadName {
            path: path.to_owned(),
        })?;
    let text = std::fs::read_to_string(path).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    let file: RawFile = toml::from_str(&text).map_err(|source| FileError::Toml {
        path: path.to_owned(),
        source,
    })?;
    Ok((level, file.point))
}

/// The content files of a directory (`n*.toml`), sorted so N5 comes first.
pub fn content_files(dir: &Path) -> Result<Vec<PathBuf>, FileError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FileError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    Ok(files)
}

/// Reads every file and validates every point against the whole set (slugs are unique
/// across files and related slugs may point into other files).
pub fn validate_all(paths: &[PathBuf]) -> Result<Vec<ContentFile>, FileError> {
    let mut raw_files = Vec::with_capacity(paths.len());
    for path in paths {
        let (level, points) = read_file(path)?;
        raw_files.push((path.clone(), level, points));
    }
    let owners = slug_owners(&raw_files);
    let files = raw_files
        .into_iter()
        .map(|(path, level, points)| {
            let points = points
                .into_iter()
                .map(|raw| {
                    let checked = validate_point(&raw, level, &owners);
                    (raw, checked)
                })
                .collect();
            ContentFile {
                path,
                level,
                points,
            }
        })
        .collect();
    Ok(files)
}

/// Every slug with the files (and positions) that define it.
fn slug_owners(files: &[(PathBuf, Jlpt, Vec<RawPoint>)]) -> BTreeMap<String, Vec<String>> {
    let mut owners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, _, points) in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (index, point) in points.iter().enumerate() {
            owners
                .entry(point.slug.clone())
                .or_default()
                .push(format!("{name}#{}", index + 1));
        }
    }
    owners
}

fn validate_point(
    raw: &RawPoint,
    level: Jlpt,
    owners: &BTreeMap<String, Vec<String>>,
) -> Result<Point, Vec<PointError>> {
    let mut errors = Vec::new();
    let slug = check_slug(raw, owners, &mut errors);
    check_text_fields(raw, &mut errors);
    let register = Register::parse(&raw.register);
    if register.is_none() {
        errors.push(PointError::BadRegister(raw.register.clone()));
    }
    let level_source = LevelSource::parse(&raw.level_source);
    match level_source {
        None => errors.push(PointError::BadLevelSource(raw.level_source.clone())),
        Some(LevelSource::Editor) if raw.level_reason.trim().is_empty() => {
            errors.push(PointError::MissingLevelReason)
        }
        Some(_) => {}
    }
    let matchers = compile_matchers(&raw.matchers, &mut errors);
    let related = check_related(raw, owners, &mut errors);
    match (slug, register, level_source) {
        (Some(slug), Some(register), Some(level_source)) if errors.is_empty() => Ok(Point {
            slug,
            level,
            pattern: raw.pattern.trim().to_owned(),
            variants: raw.variants.clone(),
            meaning: raw.meaning.trim().to_owned(),
            formation: raw.formation.clone(),
            conjugation: raw.conjugation.clone(),
            register,
            notes: raw.notes.trim().to_owned(),
            level_source,
            level_reason: raw.level_reason.trim().to_owned(),
            source_label: raw.source_label.clone(),
            matchers,
            related,
        }),
        _ => Err(errors),
    }
}

fn check_slug(
    raw: &RawPoint,
    owners: &BTreeMap<String, Vec<String>>,
    errors: &mut Vec<PointError>,
) -> Option<Slug> {
    let Some(slug) = Slug::parse(&raw.slug) else {
        errors.push(PointError::BadSlug(raw.slug.clone()));
        return None;
    };
    let defined_at = owners.get(&raw.slug).map(Vec::as_slice).unwrap_or_default();
    if defined_at.len() > 1 {
        errors.push(PointError::DuplicateSlug(defined_at.join(", ")));
    }
    Some(slug)
}

fn check_text_fields(raw: &RawPoint, errors: &mut Vec<PointError>) {
    let required: [(&'static str, bool); 4] = [
        ("pattern", raw.pattern.trim().is_empty()),
        ("meaning", raw.meaning.trim().is_empty()),
        (
            "formation",
            raw.formation.iter().all(|rule| rule.trim().is_empty()),
        ),
        ("match", raw.matchers.is_empty()),
    ];
    for (field, empty) in required {
        if empty {
            errors.push(PointError::EmptyField(field));
        }
    }
    // A rule split at a comma inside its parentheses reads as two half rules.
    for rule in &raw.formation {
        if !parentheses_balance(rule) {
            errors.push(PointError::UnbalancedFormation(rule.clone()));
        }
    }
}

fn parentheses_balance(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

fn compile_matchers(patterns: &[String], errors: &mut Vec<PointError>) -> Vec<Regex> {
    let mut compiled = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        match Regex::new(pattern) {
            Ok(regex) => compiled.push(regex),
            Err(error) => errors.push(PointError::BadRegex {
                pattern: pattern.clone(),
                message: error.to_string(),
            }),
        }
    }
    compiled
}

fn check_related(
    raw: &RawPoint,
    owners: &BTreeMap<String, Vec<String>>,
    errors: &mut Vec<PointError>,
) -> Vec<(Slug, GrammarRelationKind)> {
    let mut related = Vec::new();
    let mut seen = BTreeSet::new();
    for entry in &raw.related {
        let Some(kind) = GrammarRelationKind::parse(&entry.kind) else {
            errors.push(PointError::BadRelationKind(entry.kind.clone()));
            continue;
        };
        if entry.slug == raw.slug {
            errors.push(PointError::SelfRelated(entry.slug.clone()));
            continue;
        }
        let target = Slug::parse(&entry.slug).filter(|_| owners.contains_key(&entry.slug));
        match target {
            Some(target) if seen.insert((target.clone(), kind)) => related.push((target, kind)),
            Some(_) => {}
            None => errors.push(PointError::UnknownRelated(entry.slug.clone())),
        }
    }
    related
}
