//! KanjiVG stroke-order files (`kanji/<5-digit hex>.svg`): the stroke paths in order,
//! with their stroke types, and the character's top-level parts, read with quick-xml.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use manabi_schemas::kanji::Stroke;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

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

/// One top-level part of a character in KanjiVG's decomposition: a named group
/// (`kvg:element`), an unnamed group, or a bare stroke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub element: Option<String>,
    /// `kvg:position`: left, right, top, bottom, kamae, tare, nyo, ...
    pub position: Option<String>,
    /// KanjiVG marks the part as the radical (`kvg:radical`, any classification).
    pub radical: bool,
    /// Stroke types in drawing order (the first character of each `kvg:type`).
    pub strokes: Vec<char>,
}

/// A character's top-level parts (a part KanjiVG splits, like 門 around 日, is joined
/// into one) and all its stroke types in drawing order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    pub parts: Vec<Part>,
    pub strokes: Vec<char>,
}

/// Depth of the `<g>` holding one character's parts: StrokePaths (1) > character (2).
const CHARACTER_DEPTH: usize = 2;

fn stroke_type(element: &BytesStart<'_>) -> char {
    attribute(element, b"kvg:type")
        .and_then(|kind| kind.chars().next())
        .unwrap_or('?')
}

/// The layout of one character; the stroke numbers group has no paths and adds nothing.
pub fn parse_layout(input: impl BufRead) -> Result<Layout, quick_xml::Error> {
    let mut reader = Reader::from_reader(input);
    let mut buffer = Vec::new();
    let mut layout = Layout::default();
    let mut depth = 0usize;
    loop {
        match reader.read_event_into(&mut buffer)? {
            Event::Start(element) if element.name().as_ref() == b"g" => {
                depth += 1;
                if depth == CHARACTER_DEPTH + 1 {
                    layout.parts.push(Part {
                        element: attribute(&element, b"kvg:element"),
                        position: attribute(&element, b"kvg:position"),
                        radical: attribute(&element, b"kvg:radical").is_some(),
                        strokes: Vec::new(),
                    });
                }
            }
            Event::End(element) if element.name().as_ref() == b"g" => {
                depth = depth.saturating_sub(1);
            }
            Event::Start(element) | Event::Empty(element) if element.name().as_ref() == b"path" => {
                let kind = stroke_type(&element);
                layout.strokes.push(kind);
                match layout.parts.last_mut() {
                    Some(part) if depth > CHARACTER_DEPTH => part.strokes.push(kind),
                    _ => layout.parts.push(Part {
                        element: None,
                        position: None,
                        radical: false,
                        strokes: vec![kind],
                    }),
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    layout.parts = joined(layout.parts);
    Ok(layout)
}

/// Joins the pieces of a part KanjiVG splits around another (門, 囗, 行) into the first.
fn joined(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for part in parts {
        let earlier = out
            .iter_mut()
            .find(|known| part.element.is_some() && known.element == part.element);
        match earlier {
            Some(known) => {
                known.strokes.extend(part.strokes);
                known.radical |= part.radical;
            }
            None => out.push(part),
        }
    }
    out
}

/// The layout of a character, or none when KanjiVG has no file for it.
pub fn layout_of(kanjivg_dir: &Path, character: char) -> Result<Option<Layout>, quick_xml::Error> {
    let path = file_for(kanjivg_dir, character);
    match std::fs::File::open(&path) {
        Ok(file) => parse_layout(std::io::BufReader::new(file)).map(Some),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
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

    #[test]
    fn reads_top_level_parts_and_joins_split_ones() {
        let svg = r#"<svg><g id="kvg:StrokePaths_09593"><g kvg:element="間">
<g kvg:element="門" kvg:position="kamae" kvg:radical="general">
<g kvg:position="left"><path kvg:type="㇑"/><path kvg:type="㇕a"/></g></g>
<g kvg:element="日"><path kvg:type="㇑"/><path kvg:type="㇕a"/></g>
<g kvg:element="門" kvg:position="kamae"><path kvg:type="㇆"/></g>
<path kvg:type="㇐"/></g></g>
<g id="kvg:StrokeNumbers_09593"><text>1</text></g></svg>"#;
        let layout = super::parse_layout(svg.as_bytes()).expect("parses");
        assert_eq!(layout.strokes, ['㇑', '㇕', '㇑', '㇕', '㇆', '㇐']);
        assert_eq!(layout.parts.len(), 3);
        let gate = &layout.parts[0];
        assert_eq!(gate.element.as_deref(), Some("門"));
        assert_eq!(gate.position.as_deref(), Some("kamae"));
        assert!(gate.radical);
        assert_eq!(gate.strokes, ['㇑', '㇕', '㇆']);
        assert_eq!(layout.parts[1].element.as_deref(), Some("日"));
        assert!(!layout.parts[1].radical);
        assert_eq!(layout.parts[2].element, None);
        assert_eq!(layout.parts[2].strokes, ['㇐']);
    }
}
