//! A reader of compiled MeCab system dictionaries (`sys.dic`), without MeCab.
//!
//! The file is: a 72-byte header (magic, version, type, token count, left/right context
//! sizes, then the byte sizes of the double-array, the token table and the feature block,
//! a reserved word and a 32-byte charset name), the double-array trie over the surface
//! forms' bytes, the token table (16 bytes per token), and the feature block of
//! NUL-terminated CSV strings. A trie lookup yields `(first token << 8) | token count`;
//! each token holds the offset of its feature string.
//!
//! Only the trie and the token table are loaded (a few tens of MB); feature strings are
//! read from the file on demand, so looking up a few thousand words stays cheap.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const HEADER_BYTES: usize = 72;
const UNIT_BYTES: usize = 8;
const TOKEN_BYTES: usize = 16;
const DICTIONARY_MAGIC: u32 = 0xef71_8f77;
const SUPPORTED_VERSION: u32 = 102;
/// Feature strings are short CSV lines; one read of this size almost always holds one.
const FEATURE_READ_BYTES: usize = 512;
const FEATURE_BYTES_MAX: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum MecabError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {problem}")]
    Format { path: PathBuf, problem: String },
}

/// The header fields the reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub token_count: u32,
    pub double_array_bytes: u32,
    pub token_bytes: u32,
    pub feature_bytes: u32,
}

/// One entry of the token table: its connection ids, its word cost and where its feature
/// string starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub left_id: u16,
    pub right_id: u16,
    pub cost: i16,
    feature_offset: u32,
}

impl Token {
    /// The sentence boundary (BOS/EOS): context id 0 on both sides, no cost.
    pub const BOUNDARY: Token = Token {
        left_id: 0,
        right_id: 0,
        cost: 0,
        feature_offset: 0,
    };
}

/// A token found for a surface form: its index in the token table and its feature string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub token: u32,
    pub feature: String,
}

/// An opened `sys.dic`.
pub struct SystemDictionary {
    path: PathBuf,
    file: File,
    header: Header,
    /// `(base, check)` units of the double-array.
    units: Vec<(i32, u32)>,
    tokens: Vec<Token>,
    feature_start: u64,
}

impl SystemDictionary {
    /// Opens a dictionary, checks its header and loads the trie and the token table.
    pub fn open(path: &Path) -> Result<Self, MecabError> {
        let io = |source| MecabError::Io {
            path: path.to_owned(),
            source,
        };
        let mut file = File::open(path).map_err(io)?;
        let file_bytes = file.metadata().map_err(io)?.len();
        let mut header_bytes = [0u8; HEADER_BYTES];
        file.read_exact(&mut header_bytes).map_err(io)?;
        let header =
            parse_header(&header_bytes, file_bytes).map_err(|problem| MecabError::Format {
                path: path.to_owned(),
                problem,
            })?;
        let mut trie = vec![0u8; header.double_array_bytes as usize];
        file.read_exact(&mut trie).map_err(io)?;
        let mut token_table = vec![0u8; header.token_bytes as usize];
        file.read_exact(&mut token_table).map_err(io)?;
        let feature_start = (HEADER_BYTES + trie.len() + token_table.len()) as u64;
        Ok(Self {
            path: path.to_owned(),
            file,
            header,
            units: parse_units(&trie),
            tokens: parse_tokens(&token_table),
            feature_start,
        })
    }

    pub fn header(&self) -> Header {
        self.header
    }

    /// Every token whose surface form is exactly `surface`, with its feature string.
    pub fn lookup(&self, surface: &str) -> Result<Vec<Hit>, MecabError> {
        let Some(value) = self.exact_match(surface.as_bytes()) else {
            return Ok(Vec::new());
        };
        let first = value >> 8;
        let count = value & 0xff;
        (first..first + count)
            .map(|token| self.hit(token))
            .collect()
    }

    /// Every key of the trie that is a prefix of `key`, longest last, as `(bytes, first
    /// token, token count)`.
    pub fn prefixes(&self, key: &[u8]) -> Vec<(usize, u32, u32)> {
        let mut found = Vec::new();
        let Some(&(mut node, _)) = self.units.first() else {
            return found;
        };
        for length in 0..=key.len() {
            let Ok(at) = usize::try_from(node) else {
                break;
            };
            if length > 0
                && let Some(&(base, check)) = self.units.get(at)
                && i64::from(check) == i64::from(node)
                && base < 0
            {
                let value = (-base - 1) as u32;
                found.push((length, value >> 8, value & 0xff));
            }
            let Some(&byte) = key.get(length) else {
                break;
            };
            match self.units.get(at + usize::from(byte) + 1) {
                Some(&(base, check)) if i64::from(check) == i64::from(node) => node = base,
                _ => break,
            }
        }
        found
    }

    /// The token table entry at `index`.
    pub fn token(&self, index: u32) -> Option<Token> {
        self.tokens.get(index as usize).copied()
    }

    /// The feature string of the token at `index`.
    pub fn feature(&self, index: u32) -> Result<String, MecabError> {
        self.hit(index).map(|hit| hit.feature)
    }

    fn hit(&self, token: u32) -> Result<Hit, MecabError> {
        let entry = self.tokens.get(token as usize).ok_or_else(|| {
            self.format_error(format!(
                "trie points at token {token} beyond the token table"
            ))
        })?;
        let feature = self.read_feature(entry.feature_offset)?;
        Ok(Hit { token, feature })
    }

    /// Walks the double-array: from node `b`, byte `c` leads to unit `base(b) + c + 1`
    /// when that unit's check is `b`; a key ends where `base(b)` holds a negative value.
    fn exact_match(&self, key: &[u8]) -> Option<u32> {
        let mut node = self.units.first()?.0;
        for &byte in key {
            let next = usize::try_from(node).ok()? + usize::from(byte) + 1;
            let (base, check) = *self.units.get(next)?;
            if i64::from(check) != i64::from(node) {
                return None;
            }
            node = base;
        }
        let (base, check) = *self.units.get(usize::try_from(node).ok()?)?;
        let ends_here = i64::from(check) == i64::from(node) && base < 0;
        ends_here.then(|| (-base - 1) as u32)
    }

    fn read_feature(&self, offset: u32) -> Result<String, MecabError> {
        let mut bytes = Vec::with_capacity(FEATURE_READ_BYTES);
        let mut chunk = [0u8; FEATURE_READ_BYTES];
        let mut position = self.feature_start + u64::from(offset);
        while bytes.len() < FEATURE_BYTES_MAX {
            let read =
                self.file
                    .read_at(&mut chunk, position)
                    .map_err(|source| MecabError::Io {
                        path: self.path.clone(),
                        source,
                    })?;
            if read == 0 {
                break;
            }
            if let Some(end) = chunk[..read].iter().position(|&b| b == 0) {
                bytes.extend_from_slice(&chunk[..end]);
                return String::from_utf8(bytes)
                    .map_err(|_| self.format_error(format!("feature at {offset} is not UTF-8")));
            }
            bytes.extend_from_slice(&chunk[..read]);
            position += read as u64;
        }
        Err(self.format_error(format!("feature at {offset} has no terminating NUL")))
    }

    fn format_error(&self, problem: String) -> MecabError {
        MecabError::Format {
            path: self.path.clone(),
            problem,
        }
    }
}

/// Checks the header against the file: MeCab stores the magic XOR the file size, so a
/// truncated or foreign file is caught here.
pub fn parse_header(bytes: &[u8; HEADER_BYTES], file_bytes: u64) -> Result<Header, String> {
    let word = |index: usize| {
        let at = index * 4;
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    let magic = word(0);
    if u64::from(magic ^ DICTIONARY_MAGIC) != file_bytes {
        return Err(format!(
            "magic {magic:#x} does not match a file of {file_bytes} bytes"
        ));
    }
    let header = Header {
        version: word(1),
        token_count: word(3),
        double_array_bytes: word(6),
        token_bytes: word(7),
        feature_bytes: word(8),
    };
    if header.version != SUPPORTED_VERSION {
        return Err(format!(
            "dictionary version {} is not {SUPPORTED_VERSION}",
            header.version
        ));
    }
    let sections = HEADER_BYTES as u64
        + u64::from(header.double_array_bytes)
        + u64::from(header.token_bytes)
        + u64::from(header.feature_bytes);
    if sections != file_bytes {
        return Err(format!(
            "sections add up to {sections} bytes, the file has {file_bytes}"
        ));
    }
    if u64::from(header.token_bytes) != u64::from(header.token_count) * TOKEN_BYTES as u64 {
        return Err("token table size does not match the token count".to_owned());
    }
    Ok(header)
}

fn parse_units(bytes: &[u8]) -> Vec<(i32, u32)> {
    bytes
        .chunks_exact(UNIT_BYTES)
        .map(|unit| {
            let base = i32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]);
            let check = u32::from_le_bytes([unit[4], unit[5], unit[6], unit[7]]);
            (base, check)
        })
        .collect()
}

/// A token is `lcAttr u16, rcAttr u16, posid u16, wcost i16, feature u32, compound u32`.
fn parse_tokens(bytes: &[u8]) -> Vec<Token> {
    bytes
        .chunks_exact(TOKEN_BYTES)
        .map(|token| Token {
            left_id: u16::from_le_bytes([token[0], token[1]]),
            right_id: u16::from_le_bytes([token[2], token[3]]),
            cost: i16::from_le_bytes([token[6], token[7]]),
            feature_offset: u32::from_le_bytes([token[8], token[9], token[10], token[11]]),
        })
        .collect()
}

/// Splits a feature string into its CSV fields; MeCab quotes a field that contains a comma
/// (`"0,2"`) and doubles a quote inside quotes.
pub fn split_feature(feature: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = feature.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_plain_and_quoted_fields() {
        assert_eq!(split_feature("名詞,一般,*"), ["名詞", "一般", "*"]);
        assert_eq!(split_feature("a,\"0,2\",b"), ["a", "0,2", "b"]);
        assert_eq!(split_feature("\"say \"\"hi\"\"\",x"), ["say \"hi\"", "x"]);
        assert_eq!(split_feature("a,,b"), ["a", "", "b"]);
    }

    #[test]
    fn rejects_a_header_whose_magic_does_not_match_the_size() {
        let mut bytes = [0u8; HEADER_BYTES];
        bytes[..4].copy_from_slice(&(DICTIONARY_MAGIC ^ 1000).to_le_bytes());
        let error = parse_header(&bytes, 999).expect_err("size mismatch");
        assert!(error.contains("magic"), "{error}");
    }

    #[test]
    fn accepts_a_consistent_header() {
        let mut bytes = [0u8; HEADER_BYTES];
        let file_bytes = HEADER_BYTES as u32 + 16 + 32 + 10;
        for (index, value) in [DICTIONARY_MAGIC ^ file_bytes, 102, 0, 2, 1, 1, 16, 32, 10]
            .iter()
            .enumerate()
        {
            bytes[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
        }
        let header = parse_header(&bytes, u64::from(file_bytes)).expect("consistent");
        assert_eq!(header.token_count, 2);
        assert_eq!(header.feature_bytes, 10);
    }

    /// A hand-made dictionary of two surfaces, `a` (one token) and `ab` (two tokens),
    /// laid out exactly as MeCab writes it.
    #[test]
    fn looks_up_surfaces_in_a_tiny_dictionary() {
        let dir = std::env::temp_dir().join(format!("manabi-mecab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("sys.dic");
        std::fs::write(&path, tiny_dictionary()).expect("write");
        let dictionary = SystemDictionary::open(&path).expect("opens");
        let features = |s: &str| -> Vec<String> {
            dictionary
                .lookup(s)
                .expect("lookup")
                .into_iter()
                .map(|h| h.feature)
                .collect()
        };
        assert_eq!(features("a"), ["A"]);
        assert_eq!(features("ab"), ["B1", "B2"]);
        assert!(features("b").is_empty());
        assert!(features("abc").is_empty());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    fn tiny_dictionary() -> Vec<u8> {
        // Root at unit 0 with base 1. 'a' (97) → unit 99; its base 200 lets the key end at
        // unit 200 (value 0: token 0, count 1) and 'b' (98) continue to unit 299, whose
        // base 300 ends the key at unit 300 (token 1, count 2).
        let mut units = vec![(0i32, 0u32); 301];
        units[0] = (1, 0);
        units[99] = (200, 1);
        units[200] = (-1 - 1, 200);
        units[299] = (300, 200);
        units[300] = (-((1 << 8) | 2) - 1, 300);
        let features = b"A\0B1\0B2\0".to_vec();
        let offsets = [0u32, 2, 5];
        let trie: Vec<u8> = units
            .iter()
            .flat_map(|(base, check)| [base.to_le_bytes(), check.to_le_bytes()].concat())
            .collect();
        let tokens: Vec<u8> = offsets
            .iter()
            .flat_map(|offset| [[0u8; 8].as_slice(), &offset.to_le_bytes(), &[0u8; 4]].concat())
            .collect();
        let size = (HEADER_BYTES + trie.len() + tokens.len() + features.len()) as u32;
        let words = [
            DICTIONARY_MAGIC ^ size,
            102,
            0,
            offsets.len() as u32,
            1,
            1,
            trie.len() as u32,
            tokens.len() as u32,
            features.len() as u32,
            0,
        ];
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend_from_slice(&[0u8; 32]);
        bytes.extend(trie);
        bytes.extend(tokens);
        bytes.extend(features);
        bytes
    }
}
