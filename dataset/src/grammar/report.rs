//! What `grammar-check` prints: per file, per point, the matches found, the chosen
//! example ids, and any errors or warnings.

use std::fmt;
use std::path::PathBuf;

/// The check of one point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointReport {
    pub slug: String,
    pub pattern: String,
    /// Sentences the point's regexes match (before selection).
    pub matches: usize,
    /// Tatoeba ids of the chosen examples.
    pub chosen: Vec<u64>,
    /// Reasons the point is left out of the build.
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

impl PointReport {
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The check of one content file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    pub path: PathBuf,
    pub points: Vec<PointReport>,
}

/// The whole check; `grammar-check` exits non-zero when [`Report::has_errors`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub files: Vec<FileReport>,
}

impl Report {
    pub fn has_errors(&self) -> bool {
        self.failed() > 0
    }

    pub fn points(&self) -> impl Iterator<Item = &PointReport> {
        self.files.iter().flat_map(|file| &file.points)
    }

    pub fn failed(&self) -> usize {
        self.points().filter(|point| !point.is_ok()).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            writeln!(f, "== {}", file.path.display())?;
            for point in &file.points {
                write_point(f, point)?;
            }
            let failed = file.points.iter().filter(|point| !point.is_ok()).count();
            writeln!(
                f,
                "-- {} points, {} ok, {} with errors",
                file.points.len(),
                file.points.len() - failed,
                failed
            )?;
        }
        let total = self.points().count();
        writeln!(
            f,
            "total: {total} points, {} ok, {} with errors",
            total - self.failed(),
            self.failed()
        )
    }
}

fn write_point(f: &mut fmt::Formatter<'_>, point: &PointReport) -> fmt::Result {
    let status = if point.is_ok() { "ok " } else { "ERR" };
    let chosen: Vec<String> = point.chosen.iter().map(u64::to_string).collect();
    writeln!(
        f,
        "{status} {:<32} {:<20} matches {:>6}  examples [{}]",
        point.slug,
        point.pattern,
        point.matches,
        chosen.join(", ")
    )?;
    for error in &point.errors {
        writeln!(f, "      error: {error}")?;
    }
    for warning in &point.warnings {
        writeln!(f, "      warning: {warning}")?;
    }
    Ok(())
}
