//! `dataset build`: runs every builder, keeps the relations whose two ends exist, sorts
//! everything by id, and writes the artifact and its manifest. Equal sources give equal
//! bytes: every builder emits in a fixed order, the orchestrator sorts again, and zstd
//! runs single-threaded at a fixed level.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use manabi_schemas::{Learnable, LearnableBody, LearnableType, Relation};
use manabi_search::Surface;
use serde_json::value::RawValue;

use crate::context::{BuildContext, BuildInputs, BuiltLearnable, Part};
use crate::lessons::Content;
use crate::pins::Sources;
use manabi_artifact::{ARTIFACT_FORMAT, ArtifactWriter, Manifest, Record, SourceRecord};

/// File names inside the output directory.
pub const ARTIFACT_FILE: &str = "manabi-dataset.jsonl.zst";
pub const MANIFEST_FILE: &str = "manifest.json";
/// The report of graded-list rows that match no JMdict entry, written next to the
/// artifact; its line count is the manifest's `vocabulary_rows_unmatched`.
pub const UNMATCHED_FILE: &str = "vocabulary-unmatched.tsv";
pub const UNMATCHED_COUNT: &str = "vocabulary_rows_unmatched";
/// The decision on each of the most frequent wordfreq tokens (listed, added, missing with
/// the editors' reason, or skipped with the rule's), written next to the artifact; its
/// figures are the manifest's `vocabulary_frequent_content_words*` counts.
pub const FREQUENT_FILE: &str = "vocabulary-frequent.tsv";
/// The committed artifact must stay under this size.
pub const ARTIFACT_BYTES_MAX: u64 = 20 * 1024 * 1024;

/// One content builder, in the order they run (later ones may read earlier entries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Builder {
    Kanji,
    Characters,
    Radicals,
    Vocabulary,
    Grammar,
    History,
    /// Worlds, lessons and journeys, built from all the entries above.
    Lessons,
}

impl Builder {
    pub const ALL: [Builder; 7] = [
        Builder::Kanji,
        Builder::Characters,
        Builder::Radicals,
        Builder::Vocabulary,
        Builder::Grammar,
        Builder::History,
        Builder::Lessons,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Builder::Kanji => "kanji",
            Builder::Characters => "characters",
            Builder::Radicals => "radicals",
            Builder::Vocabulary => "vocabulary",
            Builder::Grammar => "grammar",
            Builder::History => "history",
            Builder::Lessons => "lessons",
        }
    }

    /// The builder's part, and the vocabulary's report when it is the vocabulary builder.
    fn run(
        self,
        ctx: &BuildContext,
        built: &[Part],
    ) -> anyhow::Result<(Part, Option<crate::vocabulary::Report>)> {
        let part = match self {
            Builder::Kanji => crate::kanji::build(ctx),
            Builder::Characters => crate::characters::build(ctx),
            Builder::Radicals => crate::radicals::build(ctx, &BuildInputs::new(built)),
            Builder::Vocabulary => {
                let (part, report) = crate::vocabulary::build_reported(ctx)?;
                return Ok((part, Some(report)));
            }
            Builder::Grammar => crate::grammar::build(ctx),
            Builder::History => crate::history::build(ctx),
            // The teaching layer runs after assembly, over every entry.
            Builder::Lessons => Ok(Part::default()),
        };
        Ok((part?, None))
    }
}

/// What to build and where.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub sources_dir: PathBuf,
    pub out_dir: PathBuf,
    pub builders: Vec<Builder>,
    pub progress: bool,
}

/// What a build wrote.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub artifact: PathBuf,
    pub artifact_bytes: u64,
    pub manifest: Manifest,
    pub relations_dropped: usize,
}

/// Entries and edges ready to be written, in artifact order.
#[derive(Debug, Default)]
pub struct Assembled {
    pub learnables: Vec<BuiltLearnable>,
    pub relations: Vec<Relation>,
    pub relations_dropped: usize,
    /// Worlds, lessons and journeys, when the lessons step ran (built from the learnables).
    pub teaching: Option<Content>,
}

/// The evaluation sample: all N5 kanji and vocabulary, all kana, all radicals, plus
/// whatever a builder marks itself.
pub fn in_sample(built: &BuiltLearnable) -> bool {
    let learnable = &built.learnable;
    built.sample
        || matches!(
            learnable.kind,
            LearnableType::Character | LearnableType::Radical
        )
        || (matches!(
            learnable.kind,
            LearnableType::Kanji | LearnableType::Vocabulary
        ) && learnable.jlpt_level == Some(5))
}

/// Merges the parts: ids must be unique; relations are kept only when both ends exist,
/// deduplicated and sorted.
pub fn assemble(parts: Vec<Part>) -> anyhow::Result<Assembled> {
    let mut learnables: Vec<BuiltLearnable> = Vec::new();
    let mut relations = BTreeSet::new();
    for part in parts {
        learnables.extend(part.learnables);
        relations.extend(part.relations);
    }
    learnables.sort_by(|a, b| a.learnable.id.cmp(&b.learnable.id));
    if let Some(pair) = learnables
        .windows(2)
        .find(|w| w[0].learnable.id == w[1].learnable.id)
    {
        anyhow::bail!("two builders produced the id {}", pair[0].learnable.id);
    }
    for built in &mut learnables {
        built.sample = in_sample(built);
    }
    // A word links only the kanji entries that exist (燐 of マッチ's 燐寸 is in no list).
    let ids: BTreeSet<String> = learnables.iter().map(|b| b.learnable.id.clone()).collect();
    for built in &mut learnables {
        if let LearnableBody::Vocabulary(detail) = &mut built.learnable.body {
            detail.kanji.retain(|id| ids.contains(id));
        }
    }
    crate::kanji::headline::apply(&mut learnables);
    let total = relations.len();
    let kept: Vec<Relation> = relations
        .into_iter()
        .filter(|r| r.from != r.to && ids.contains(&r.from) && ids.contains(&r.to))
        .collect();
    let relations_dropped = total - kept.len();
    Ok(Assembled {
        learnables,
        relations: kept,
        relations_dropped,
        teaching: None,
    })
}

/// Counts per type, plus relations and the sample, for the manifest.
fn counts(assembled: &Assembled) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for built in &assembled.learnables {
        *counts
            .entry(built.learnable.kind.as_str().to_string())
            .or_insert(0) += 1;
    }
    counts.insert("learnables".to_string(), assembled.learnables.len());
    counts.insert("relations".to_string(), assembled.relations.len());
    counts.insert("relations_dropped".to_string(), assembled.relations_dropped);
    let sample = assembled
        .learnables
        .iter()
        .filter(|built| built.sample)
        .count();
    counts.insert("sample".to_string(), sample);
    if let Some(teaching) = &assembled.teaching {
        counts.insert("worlds".to_string(), teaching.worlds.len());
        counts.insert("lessons".to_string(), teaching.lessons.len());
        counts.insert("journeys".to_string(), teaching.journeys.len());
    }
    counts
}

pub fn manifest(sources: &Sources, assembled: &Assembled) -> Manifest {
    Manifest {
        format: ARTIFACT_FORMAT.to_string(),
        dataset_version: env!("CARGO_PKG_VERSION").to_string(),
        sources: sources
            .pins()
            .iter()
            .filter(|pin| pin.build)
            .map(|pin| SourceRecord {
                key: pin.key.clone(),
                name: pin.name.clone(),
                version: pin.version.clone(),
                sha256: pin.sha256.clone(),
                licence: pin.licence.clone(),
            })
            .collect(),
        counts: counts(assembled),
    }
}

fn learnable_record(built: &BuiltLearnable) -> anyhow::Result<(Box<RawValue>, Surface)> {
    let learnable: &Learnable = &built.learnable;
    let doc = RawValue::from_string(serde_json::to_string(learnable)?)?;
    Ok((doc, Surface::of(learnable)))
}

/// Writes the artifact bytes for assembled content.
pub fn write_artifact(
    out: impl std::io::Write,
    manifest: &Manifest,
    assembled: &Assembled,
    bar: &ProgressBar,
) -> anyhow::Result<()> {
    let mut writer = ArtifactWriter::new(out, manifest)?;
    bar.set_length((assembled.learnables.len() + assembled.relations.len()) as u64);
    for built in &assembled.learnables {
        let (doc, surface) = learnable_record(built)?;
        let summary = built.learnable.summary();
        writer.record(&Record::Learnable {
            sample: built.sample,
            summary,
            surface,
            doc: &doc,
        })?;
        bar.inc(1);
    }
    for relation in &assembled.relations {
        writer.record(&Record::Relation(relation.clone()))?;
        bar.inc(1);
    }
    if let Some(teaching) = &assembled.teaching {
        crate::lessons::write_records(&mut writer, teaching)?;
    }
    writer.finish()?;
    Ok(())
}

fn progress_bar(options: &BuildOptions, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if !options.progress {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The builders' parts and the vocabulary's report (when vocabulary ran).
fn run_builders(
    options: &BuildOptions,
    ctx: &BuildContext,
) -> anyhow::Result<(Vec<Part>, Option<crate::vocabulary::Report>)> {
    let bar = progress_bar(options, "{spinner} [{elapsed}] {pos}/{len} builders: {msg}");
    bar.set_length(options.builders.len() as u64);
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut parts = Vec::new();
    let mut vocabulary = None;
    for builder in &options.builders {
        bar.set_message(builder.name());
        let (part, reported) = builder
            .run(ctx, &parts)
            .map_err(|error| error.context(format!("the {} builder failed", builder.name())))?;
        if reported.is_some() {
            vocabulary = reported;
        }
        parts.push(part);
        bar.inc(1);
    }
    bar.finish_with_message("done");
    Ok((parts, vocabulary))
}

/// Runs the builders and writes `<out>/manabi-dataset.jsonl.zst` and `<out>/manifest.json`.
pub fn build(options: &BuildOptions) -> anyhow::Result<BuildReport> {
    let ctx = BuildContext::new(&options.sources_dir);
    let (parts, vocabulary) = run_builders(options, &ctx)?;
    let mut assembled = assemble(parts)?;
    if options.builders.contains(&Builder::Lessons) {
        let learnables = assembled.learnables.iter().map(|built| &built.learnable);
        assembled.teaching = Some(crate::lessons::build(learnables)?);
    }
    let mut manifest = manifest(ctx.sources(), &assembled);
    std::fs::create_dir_all(&options.out_dir)?;
    if let Some(vocabulary) = vocabulary {
        write_vocabulary_report(&options.out_dir, vocabulary, &mut manifest)?;
    }
    let artifact = options.out_dir.join(ARTIFACT_FILE);
    let bar = progress_bar(options, "[{elapsed}] {bar:40} {pos}/{len} records");
    let file = std::io::BufWriter::new(std::fs::File::create(&artifact)?);
    write_artifact(file, &manifest, &assembled, &bar)?;
    bar.finish();
    let mut manifest_json = serde_json::to_string_pretty(&manifest)?;
    manifest_json.push('\n');
    std::fs::write(options.out_dir.join(MANIFEST_FILE), manifest_json)?;
    let artifact_bytes = std::fs::metadata(&artifact)?.len();
    Ok(BuildReport {
        artifact,
        artifact_bytes,
        manifest,
        relations_dropped: assembled.relations_dropped,
    })
}

/// Writes the unmatched rows and the frequent-token decisions next to the artifact and
/// records their figures in the manifest.
fn write_vocabulary_report(
    out_dir: &Path,
    report: crate::vocabulary::Report,
    manifest: &mut Manifest,
) -> anyhow::Result<()> {
    let counts = &mut manifest.counts;
    counts.insert(UNMATCHED_COUNT.to_string(), report.unmatched.len());
    for (key, count) in &report.frequent_counts {
        counts.insert((*key).to_string(), *count);
    }
    let tables = [
        (
            UNMATCHED_FILE,
            crate::vocabulary::UNMATCHED_HEADER,
            report.unmatched,
        ),
        (
            FREQUENT_FILE,
            crate::vocabulary::frequency::REPORT_HEADER,
            report.frequent,
        ),
    ];
    for (file, header, rows) in tables {
        let mut lines = vec![header.to_string()];
        lines.extend(rows);
        lines.push(String::new());
        std::fs::write(out_dir.join(file), lines.join("\n"))?;
    }
    Ok(())
}

/// The default output directory: `data/` at the workspace root.
pub fn default_out_dir() -> PathBuf {
    Path::new("data").to_path_buf()
}
