//! Small helpers over quick-xml's streaming reader, shared by the XML source parsers.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use quick_xml::events::BytesStart;

#[derive(Debug, thiserror::Error)]
pub enum SourceFileError {
    #[error("opening {path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Xml {
        path: String,
        source: quick_xml::Error,
    },
    #[error("{path}: {reason}")]
    Format { path: String, reason: String },
}

/// Opens a source file, decompressing it when its name ends in `.gz`.
pub fn open_maybe_gz(path: &Path) -> Result<Box<dyn BufRead>, SourceFileError> {
    let file = std::fs::File::open(path).map_err(|source| SourceFileError::Open {
        path: path.display().to_string(),
        source,
    })?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|ext| ext == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, reader)))
}

/// The unescaped value of an attribute, by its full (prefixed) name.
pub fn attribute(element: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|attr| attr.key.as_ref() == name)
        .and_then(|attr| attr.unescape_value().ok().map(|value| value.into_owned()))
}
