//! KanjiVG stroke-order files (`kanji/<5-digit hex>.svg`): the stroke paths in order,
//! with their stroke types, read with quick-xml.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use manabi_schemas::kanji::Stroke;
use quick_xml::Reader;
use quick_xml::events::Event;

use crate::xml::attribute;

/// The file of a character inside the unpacked KanjiVG package.
pub fn file_for(kanjivg_dir: &Path, character: char) -> PathBuf {
    kanjivg_dir
        .join("kanji")
        .join(format!("{:05x}.svg", character as u32))
}

/// The strokes of one character, in drawing order.
pub fn parse_strokes(input: impl BufRead) -> Result<Vec<Stroke>, quick_xml::Error> {
    let mut reader = Reader::from_reader(input);
    let mut buffer = Vec::new();
    let mut strokes = Vec::new();
    loop {
        match reader.read_event_into(&mut buffer)? {
            Event::Start(element) | Event::Empty(element) if element.name().as_ref() == b"path" => {
                if let Some(path) = attribute(&element, b"d") {
                    let stroke_type = attribute(&element, b"kvg:type");
                    strokes.push(Stroke { path, stroke_type });
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(strokes)
}

/// The strokes of a character, or none when KanjiVG has no file for it.
pub fn strokes_of(kanjivg_dir: &Path, character: char) -> Result<Vec<Stroke>, quick_xml::Error> {
    let path = file_for(kanjivg_dir, character);
    match std::fs::File::open(&path) {
        Ok(file) => parse_strokes(std::io::BufReader::new(file)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(error) => Err(quick_xml::Error::Io(error.into())),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_paths_in_order() {
        let svg = r#"<svg><g id="kvg:StrokePaths_065e5"><g kvg:element="日">
<path id="s1" kvg:type="㇑" d="M31.5,24.5c1.12"/><path id="s2" kvg:type="㇕a" d="M33.48,26"/>
</g></g></svg>"#;
        let strokes = super::parse_strokes(svg.as_bytes()).expect("parses");
        assert_eq!(strokes.len(), 2);
        assert_eq!(strokes[0].stroke_type.as_deref(), Some("㇑"));
        assert_eq!(strokes[1].path, "M33.48,26");
    }
}
