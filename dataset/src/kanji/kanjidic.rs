//! KANJIDIC2 (`kanjidic2.xml`), read as a stream: one [`KanjidicEntry`] per `character`.
//! The `jlpt` element is the pre-2010 four-level system; it is kept as `jlpt_old` and only
//! used where no current list grades a jōyō kanji (see `kanji::levels`).

use std::collections::BTreeMap;
use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::xml::attribute;

/// The note KANJIDIC2 gives as a meaning of a kanji made in Japan.
const KOKUJI: &str = "(kokuji)";

/// The fields of one KANJIDIC2 character that the kanji builder uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KanjidicEntry {
    pub literal: String,
    pub ucs: Option<String>,
    /// Classical (Kangxi) radical number.
    pub radical: Option<u8>,
    pub grade: Option<u8>,
    /// The first stroke count is the accepted one; later ones are common miscounts.
    pub stroke_count: Option<u8>,
    pub frequency: Option<u32>,
    /// The old JLPT level (4 = easiest .. 1), as KANJIDIC2 still records it.
    pub jlpt_old: Option<u8>,
    /// `(dr_type or qc_type, value)` in file order; SKIP misclassifications are left out.
    pub references: Vec<(String, String)>,
    pub on: Vec<String>,
    pub kun: Vec<String>,
    pub nanori: Vec<String>,
    /// English meanings.
    pub meanings: Vec<String>,
    /// Meanings in other languages by `m_lang`.
    pub meanings_by_locale: BTreeMap<String, Vec<String>>,
    /// Whether the kanji was made in Japan: KANJIDIC2 says so by a meaning `(kokuji)`,
    /// which is a note, not a meaning (畑, 匁, 雫), and is read here instead.
    pub kokuji: bool,
}

/// Which text element we are inside, with the attribute that qualifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    Literal,
    Ucs,
    ClassicalRadical,
    Grade,
    StrokeCount,
    Frequency,
    JlptOld,
    Reference(String),
    Reading(String),
    Meaning(Option<String>),
    Nanori,
    Other,
}

fn field_of(element: &quick_xml::events::BytesStart<'_>) -> Field {
    match element.name().as_ref() {
        b"literal" => Field::Literal,
        b"cp_value" if attribute(element, b"cp_type").as_deref() == Some("ucs") => Field::Ucs,
        b"rad_value" if attribute(element, b"rad_type").as_deref() == Some("classical") => {
            Field::ClassicalRadical
        }
        b"grade" => Field::Grade,
        b"stroke_count" => Field::StrokeCount,
        b"freq" => Field::Frequency,
        b"jlpt" => Field::JlptOld,
        b"dic_ref" => attribute(element, b"dr_type").map_or(Field::Other, Field::Reference),
        b"q_code" if attribute(element, b"skip_misclass").is_none() => {
            attribute(element, b"qc_type").map_or(Field::Other, Field::Reference)
        }
        b"reading" => attribute(element, b"r_type").map_or(Field::Other, Field::Reading),
        b"meaning" => Field::Meaning(attribute(element, b"m_lang")),
        b"nanori" => Field::Nanori,
        _ => Field::Other,
    }
}

impl KanjidicEntry {
    fn set(&mut self, field: &Field, text: String) {
        match field {
            Field::Literal => self.literal = text,
            Field::Ucs => self.ucs = Some(text),
            Field::ClassicalRadical => self.radical = text.parse().ok(),
            Field::Grade => self.grade = text.parse().ok(),
            Field::StrokeCount if self.stroke_count.is_none() => {
                self.stroke_count = text.parse().ok();
            }
            Field::Frequency => self.frequency = text.parse().ok(),
            Field::JlptOld => self.jlpt_old = text.parse().ok(),
            Field::Reference(kind) => self.references.push((kind.clone(), text)),
            Field::Reading(kind) if kind == "ja_on" => self.on.push(text),
            // A kun reading in katakana is a Western unit the kanji once wrote (粉
            // デシメートル, 志 シリング), not a reading of a Japanese word.
            Field::Reading(kind)
                if kind == "ja_kun" && text.chars().all(crate::vocabulary::text::is_katakana) => {}
            Field::Reading(kind) if kind == "ja_kun" => self.kun.push(text),
            Field::Meaning(_) if text == KOKUJI => self.kokuji = true,
            Field::Meaning(None) => self.meanings.push(text),
            Field::Meaning(Some(lang)) => {
                self.meanings_by_locale
                    .entry(lang.clone())
                    .or_default()
                    .push(text);
            }
            Field::Nanori => self.nanori.push(text),
            _ => {}
        }
    }
}

/// Streams the file and calls `keep` on every entry; the entries it accepts are returned
/// in file order.
pub fn parse(
    input: impl BufRead,
    mut keep: impl FnMut(&KanjidicEntry) -> bool,
) -> Result<Vec<KanjidicEntry>, quick_xml::Error> {
    let mut reader = Reader::from_reader(input);
    reader.config_mut().trim_text(true);
    let mut buffer = Vec::new();
    let mut entries = Vec::new();
    let mut current: Option<KanjidicEntry> = None;
    let mut field = Field::Other;
    loop {
        match reader.read_event_into(&mut buffer)? {
            Event::Start(element) if element.name().as_ref() == b"character" => {
                current = Some(KanjidicEntry::default());
            }
            Event::Start(element) => field = field_of(&element),
            Event::Text(text) => {
                if let Some(entry) = current.as_mut() {
                    entry.set(&field, text.unescape()?.into_owned());
                }
            }
            Event::End(element) if element.name().as_ref() == b"character" => {
                if let Some(entry) = current.take().filter(|entry| keep(entry)) {
                    entries.push(entry);
                }
            }
            Event::End(_) => field = Field::Other,
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<kanjidic2><character><literal>日</literal>
<codepoint><cp_value cp_type="ucs">65e5</cp_value></codepoint>
<radical><rad_value rad_type="classical">72</rad_value></radical>
<misc><grade>1</grade><stroke_count>4</stroke_count><stroke_count>5</stroke_count>
<freq>1</freq><jlpt>4</jlpt></misc>
<dic_number><dic_ref dr_type="nelson_c">2097</dic_ref></dic_number>
<query_code><q_code qc_type="skip">3-3-1</q_code>
<q_code qc_type="skip" skip_misclass="posn">4-4-1</q_code></query_code>
<reading_meaning><rmgroup><reading r_type="pinyin">ri4</reading>
<reading r_type="ja_on">ニチ</reading><reading r_type="ja_kun">ひ</reading>
<meaning>day</meaning><meaning m_lang="fr">jour</meaning></rmgroup>
<nanori>あき</nanori></reading_meaning></character></kanjidic2>"#;

    #[test]
    fn reads_one_character() {
        let entries = parse(SAMPLE.as_bytes(), |_| true).expect("parses");
        let entry = &entries[0];
        assert_eq!(entry.literal, "日");
        assert_eq!(entry.ucs.as_deref(), Some("65e5"));
        assert_eq!(entry.radical, Some(72));
        assert_eq!(entry.stroke_count, Some(4));
        assert_eq!(entry.jlpt_old, Some(4));
        assert_eq!(
            entry.references.len(),
            2,
            "the misclassified SKIP code is left out"
        );
        assert_eq!(entry.on, ["ニチ"]);
        assert_eq!(entry.kun, ["ひ"]);
        assert_eq!(entry.meanings, ["day"]);
        assert_eq!(entry.meanings_by_locale["fr"], ["jour"]);
        assert_eq!(entry.nanori, ["あき"]);
        assert!(!entry.kokuji);
    }

    #[test]
    fn the_kokuji_note_is_not_a_meaning() {
        let xml = r#"<kanjidic2><character><literal>畑</literal><reading_meaning><rmgroup>
<meaning>farm</meaning><meaning>(kokuji)</meaning><meaning m_lang="fr">(kokuji)</meaning>
<meaning m_lang="fr">champ</meaning></rmgroup></reading_meaning></character></kanjidic2>"#;
        let entries = parse(xml.as_bytes(), |_| true).expect("parses");
        assert_eq!(entries[0].meanings, ["farm"]);
        assert_eq!(entries[0].meanings_by_locale["fr"], ["champ"]);
        assert!(entries[0].kokuji);
    }

    #[test]
    fn a_unit_in_katakana_is_no_kun_reading() {
        let xml = r#"<kanjidic2><character><literal>粉</literal><reading_meaning><rmgroup>
<reading r_type="ja_on">フン</reading><reading r_type="ja_kun">デシメートル</reading>
<reading r_type="ja_kun">こな</reading><meaning>flour</meaning></rmgroup>
</reading_meaning></character></kanjidic2>"#;
        let entries = parse(xml.as_bytes(), |_| true).expect("parses");
        assert_eq!(entries[0].kun, ["こな"]);
    }
}
