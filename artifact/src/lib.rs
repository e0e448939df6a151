//! manabi artifact: the format of the dataset artifact, one zstd-compressed JSON-lines
//! file that the pipeline writes and the server loads: its record types, its reader and
//! its writer. Line 1 is the manifest; every further line is one record. Full documents
//! are kept as raw JSON so the server can answer them without re-serializing.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use manabi_schemas::{LearnableSummary, Relation};
use manabi_search::{IndexEntry, Surface};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Format tag written in the manifest; bumped on an incompatible change.
pub const ARTIFACT_FORMAT: &str = "manabi-artifact/1";
/// zstd level used for the committed artifact (deterministic, single-threaded). Level 12
/// compresses the full dataset in a few seconds; 19 saves about 11 % more but takes
/// over a minute, and the artifact is far below its 20 MB budget either way.
const ZSTD_LEVEL: i32 = 12;

/// One upstream source the artifact was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    pub key: String,
    pub name: String,
    pub version: String,
    pub sha256: String,
    pub licence: String,
}

/// What an artifact holds and where it came from (also written beside it as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub dataset_version: String,
    pub sources: Vec<SourceRecord>,
    pub counts: BTreeMap<String, usize>,
}

/// One line of the artifact after the manifest. Records are written one at a time and
/// never stored, so the size of the largest variant costs nothing worth a `Box`.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record<'a> {
    Learnable {
        sample: bool,
        summary: LearnableSummary,
        surface: Surface,
        #[serde(borrow)]
        doc: &'a RawValue,
    },
    Relation(Relation),
    Lesson {
        id: String,
        sample: bool,
        #[serde(borrow)]
        doc: &'a RawValue,
    },
    Journey {
        id: String,
        sample: bool,
        #[serde(borrow)]
        doc: &'a RawValue,
    },
    World {
        id: String,
        #[serde(borrow)]
        doc: &'a RawValue,
    },
}

/// A full document held as its JSON text.
#[derive(Debug, Clone)]
pub struct RawDoc {
    pub id: String,
    pub sample: bool,
    pub json: Box<str>,
}

/// A learnable as the server holds it: its summary and surface parsed, the rest raw.
#[derive(Debug, Clone)]
pub struct LoadedLearnable {
    pub sample: bool,
    pub summary: LearnableSummary,
    pub surface: Surface,
    pub json: Box<str>,
}

impl LoadedLearnable {
    /// What the search index needs of this entry.
    pub fn index_entry(&self) -> IndexEntry<'_> {
        IndexEntry {
            summary: &self.summary,
            surface: &self.surface,
            sample: self.sample,
        }
    }
}

/// The whole artifact in memory.
#[derive(Debug, Default)]
pub struct Artifact {
    pub manifest: Option<Manifest>,
    pub learnables: Vec<LoadedLearnable>,
    pub relations: Vec<Relation>,
    pub lessons: Vec<RawDoc>,
    pub journeys: Vec<RawDoc>,
    pub worlds: Vec<RawDoc>,
}

#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("reading the artifact: {0}")]
    Io(#[from] std::io::Error),
    #[error("artifact line {line}: {source}")]
    Json {
        line: usize,
        source: serde_json::Error,
    },
    #[error("the artifact is empty (no manifest line)")]
    Empty,
    #[error("artifact format {found} is not {ARTIFACT_FORMAT}")]
    Format { found: String },
}

impl Artifact {
    /// Loads an artifact file written by [`ArtifactWriter`].
    pub fn load(path: &Path) -> Result<Artifact, ArtifactError> {
        let file = std::fs::File::open(path)?;
        Self::from_reader(file)
    }

    pub fn from_reader(reader: impl Read + Send) -> Result<Artifact, ArtifactError> {
        let decoder = zstd::stream::read::Decoder::new(reader)?;
        // Decompression runs on a thread of its own, a few blocks ahead of the parsing,
        // so a server's start-up pays for the slower of the two instead of their sum.
        std::thread::scope(|scope| {
            let (blocks, received) = std::sync::mpsc::sync_channel(READ_AHEAD_BLOCKS);
            scope.spawn(move || decompress_blocks(decoder, blocks));
            let reader = BlockReader {
                received,
                block: Vec::new(),
                at: 0,
            };
            Self::from_lines(BufReader::with_capacity(1 << 20, reader))
        })
    }

    fn from_lines(mut lines: impl BufRead) -> Result<Artifact, ArtifactError> {
        let mut artifact = Artifact::default();
        let mut line = String::new();
        let mut number = 0usize;
        while {
            line.clear();
            lines.read_line(&mut line)? > 0
        } {
            number += 1;
            let text = line.trim_end_matches('\n');
            let json_error = |source| ArtifactError::Json {
                line: number,
                source,
            };
            if number == 1 {
                let manifest: Manifest = serde_json::from_str(text).map_err(json_error)?;
                if manifest.format != ARTIFACT_FORMAT {
                    return Err(ArtifactError::Format {
                        found: manifest.format,
                    });
                }
                artifact.manifest = Some(manifest);
                continue;
            }
            artifact.push_line(text).map_err(json_error)?;
        }
        if artifact.manifest.is_none() {
            return Err(ArtifactError::Empty);
        }
        Ok(artifact)
    }

    /// Reads one record line. Records are written with their tag `t` first, so the tag is
    /// read from the line's start; serde's internally tagged enums buffer their content,
    /// which a borrowed `RawValue` cannot pass through, so each variant has its own line
    /// type.
    fn push_line(&mut self, text: &str) -> Result<(), serde_json::Error> {
        let tag = line_tag(text)?;
        match tag.as_str() {
            "learnable" => {
                let line: LearnableLine<'_> = serde_json::from_str(text)?;
                self.learnables.push(LoadedLearnable {
                    sample: line.sample,
                    summary: line.summary,
                    surface: line.surface,
                    json: line.doc.get().into(),
                });
            }
            "relation" => self.relations.push(serde_json::from_str(text)?),
            "lesson" | "journey" | "world" => {
                let line: DocLine<'_> = serde_json::from_str(text)?;
                let doc = RawDoc {
                    id: line.id,
                    sample: line.sample.unwrap_or(tag == "world"),
                    json: line.doc.get().into(),
                };
                match tag.as_str() {
                    "lesson" => self.lessons.push(doc),
                    "journey" => self.journeys.push(doc),
                    _ => self.worlds.push(doc),
                }
            }
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown record type {other:?}"
                )));
            }
        }
        Ok(())
    }
}

/// Decompressed blocks in flight between the two threads of [`Artifact::from_reader`].
const READ_AHEAD_BLOCKS: usize = 4;
const BLOCK_BYTES: usize = 1 << 20;

/// Sends the decompressed bytes in blocks until the end, an error, or the parser hanging
/// up (it stops at the first bad line).
fn decompress_blocks(
    mut decoder: impl Read,
    blocks: std::sync::mpsc::SyncSender<std::io::Result<Vec<u8>>>,
) {
    loop {
        let mut block = vec![0; BLOCK_BYTES];
        let mut filled = 0;
        let read = loop {
            match decoder.read(&mut block[filled..]) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    filled += n;
                    if filled == block.len() {
                        break Ok(());
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => break Err(error),
            }
        };
        block.truncate(filled);
        let last = filled < BLOCK_BYTES || read.is_err();
        let sent = match read {
            Ok(()) if filled > 0 => blocks.send(Ok(block)),
            Ok(()) => Ok(()),
            Err(error) => blocks.send(Err(error)),
        };
        if last || sent.is_err() {
            return;
        }
    }
}

/// Reads the blocks sent by [`decompress_blocks`] as one stream.
struct BlockReader {
    received: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    block: Vec<u8>,
    at: usize,
}

impl Read for BlockReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.block.len() {
            match self.received.recv() {
                Ok(block) => {
                    self.block = block?;
                    self.at = 0;
                }
                // The sender is done: the end of the stream.
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.block.len() - self.at);
        out[..n].copy_from_slice(&self.block[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The `t` member of a record line: taken from the line's start when the writer put it
/// there (always, for artifacts written by [`ArtifactWriter`]), else parsed.
fn line_tag(text: &str) -> Result<String, serde_json::Error> {
    let prefixed = text.strip_prefix("{\"t\":\"");
    if let Some((tag, _)) = prefixed.and_then(|rest| rest.split_once('"')) {
        return Ok(tag.to_string());
    }
    #[derive(Deserialize)]
    struct Tag {
        t: String,
    }
    Ok(serde_json::from_str::<Tag>(text)?.t)
}

#[derive(Deserialize)]
struct LearnableLine<'a> {
    sample: bool,
    summary: LearnableSummary,
    surface: Surface,
    #[serde(borrow)]
    doc: &'a RawValue,
}

#[derive(Deserialize)]
struct DocLine<'a> {
    id: String,
    sample: Option<bool>,
    #[serde(borrow)]
    doc: &'a RawValue,
}

/// Writes an artifact: the manifest first, then records in the order given.
/// The caller supplies records in a deterministic order, so equal inputs give equal bytes.
pub struct ArtifactWriter<W: Write> {
    encoder: zstd::stream::write::Encoder<'static, W>,
}

impl<W: Write> ArtifactWriter<W> {
    pub fn new(out: W, manifest: &Manifest) -> Result<Self, ArtifactError> {
        let mut encoder = zstd::stream::write::Encoder::new(out, ZSTD_LEVEL)?;
        encoder.include_checksum(true)?;
        let mut writer = ArtifactWriter { encoder };
        writer.line(manifest)?;
        Ok(writer)
    }

    pub fn record(&mut self, record: &Record<'_>) -> Result<(), ArtifactError> {
        self.line(record)
    }

    fn line(&mut self, value: &impl Serialize) -> Result<(), ArtifactError> {
        serde_json::to_writer(&mut self.encoder, value)
            .map_err(|source| ArtifactError::Json { line: 0, source })?;
        self.encoder.write_all(b"\n")?;
        Ok(())
    }

    pub fn finish(self) -> Result<W, ArtifactError> {
        Ok(self.encoder.finish()?)
    }
}
