//! A reader of wordfreq's Japanese word list (`large_ja.msgpack.gz`, wordfreq 3.1.1).
//!
//! The file is wordfreq's "cBpack": gzip over one MessagePack array whose first element is
//! a header map (`{"format": "cB", "version": 1}`) and whose further elements are lists of
//! tokens; the list at index `i` (after the header) holds the tokens whose frequency,
//! rounded to the centibel, is `-i` cB (10^(-i/100) per token of text), each list in
//! alphabetical order. The tokens are MeCab/IPADIC surface forms (a verb may appear as its
//! stem, `頑張っ`), NFKC-normalised.
//!
//! A token's rank is its 1-based position in that order: most frequent bucket first, and
//! within a bucket the file's own order, so every token has its own rank and the same file
//! always gives the same ranks.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;
use rmpv::Value;

/// Where the list sits inside the unpacked wheel.
pub const RELATIVE_PATH: &str = "wordfreq/data/large_ja.msgpack.gz";
/// The only header this reader understands.
const FORMAT: &str = "cB";
const VERSION: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum WordfreqError {
    #[error("opening {path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("decoding the MessagePack of the word list: {0}")]
    Decode(#[from] rmpv::decode::Error),
    #[error("not a cBpack word list: {0}")]
    Format(String),
}

/// Every token of the list with its rank (1 = most frequent).
#[derive(Debug, Clone, Default)]
pub struct WordFrequencies {
    /// Tokens in rank order: `tokens[0]` has rank 1.
    tokens: Vec<String>,
    ranks: HashMap<String, u32>,
}

impl WordFrequencies {
    /// Reads a gzip-compressed cBpack file.
    pub fn read_gz(path: &Path) -> Result<Self, WordfreqError> {
        let file = File::open(path).map_err(|source| WordfreqError::Open {
            path: path.display().to_string(),
            source,
        })?;
        Self::read(GzDecoder::new(BufReader::new(file)))
    }

    /// Reads an uncompressed cBpack stream.
    pub fn read(mut input: impl Read) -> Result<Self, WordfreqError> {
        let value = rmpv::decode::read_value(&mut input)?;
        Self::from_buckets(&value)
    }

    fn from_buckets(value: &Value) -> Result<Self, WordfreqError> {
        let format = |problem: &str| WordfreqError::Format(problem.to_owned());
        let items = value
            .as_array()
            .ok_or_else(|| format("the top is no array"))?;
        let (header, buckets) = items
            .split_first()
            .ok_or_else(|| format("the array is empty"))?;
        check_header(header)?;
        let mut list = Self::default();
        for bucket in buckets {
            let tokens = bucket
                .as_array()
                .ok_or_else(|| format("a bucket is no array"))?;
            for token in tokens {
                let token = token
                    .as_str()
                    .ok_or_else(|| format("a token is no UTF-8 string"))?;
                list.push(token);
            }
        }
        Ok(list)
    }

    /// Appends a token after all others; a token already listed keeps its first rank.
    fn push(&mut self, token: &str) {
        if self.ranks.contains_key(token) {
            return;
        }
        self.tokens.push(token.to_owned());
        // The list has about 215,000 tokens, far below u32::MAX.
        let rank = u32::try_from(self.tokens.len()).unwrap_or(u32::MAX);
        self.ranks.insert(token.to_owned(), rank);
    }

    /// A list from tokens given most frequent first (for tests and fixtures).
    pub fn from_ranked<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Self {
        let mut list = Self::default();
        for token in tokens {
            list.push(token);
        }
        list
    }

    /// The token's rank, 1 = most frequent; `None` when the list does not have it.
    pub fn rank(&self, token: &str) -> Option<u32> {
        self.ranks.get(token).copied()
    }

    /// The `count` most frequent tokens with their ranks, most frequent first.
    pub fn most_frequent(&self, count: usize) -> impl Iterator<Item = (u32, &str)> {
        (1..).zip(self.tokens.iter().take(count).map(String::as_str))
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

fn check_header(header: &Value) -> Result<(), WordfreqError> {
    let map = header
        .as_map()
        .ok_or_else(|| WordfreqError::Format("the header is no map".to_owned()))?;
    let field = |name: &str| {
        map.iter()
            .find(|(key, _)| key.as_str() == Some(name))
            .map(|(_, value)| value)
    };
    let format = field("format").and_then(Value::as_str);
    let version = field("version").and_then(Value::as_u64);
    if format != Some(FORMAT) || version != Some(VERSION) {
        return Err(WordfreqError::Format(format!(
            "header {header}, expected format {FORMAT:?} version {VERSION}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    /// The "red fish blue fish" example of wordfreq's own documentation, with an empty
    /// bucket between the two used ones.
    fn cbpack(header: Value) -> Vec<u8> {
        let words = |list: &[&str]| Value::Array(list.iter().map(|w| Value::from(*w)).collect());
        let value = Value::Array(vec![
            header,
            words(&[]),
            words(&["fish"]),
            words(&[]),
            words(&["blue", "red"]),
        ]);
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &value).expect("encodes");
        bytes
    }

    fn header(format: &str, version: u64) -> Value {
        Value::Map(vec![
            (Value::from("format"), Value::from(format)),
            (Value::from("version"), Value::from(version)),
        ])
    }

    #[test]
    fn ranks_follow_the_buckets_then_the_order_inside_a_bucket() {
        let list = WordFrequencies::read(cbpack(header("cB", 1)).as_slice()).expect("reads");
        assert_eq!(list.rank("fish"), Some(1));
        assert_eq!(list.rank("blue"), Some(2));
        assert_eq!(list.rank("red"), Some(3));
        assert_eq!(list.rank("green"), None);
        let top: Vec<(u32, &str)> = list.most_frequent(2).collect();
        assert_eq!(top, [(1, "fish"), (2, "blue")]);
    }

    #[test]
    fn a_gzip_file_is_read() {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder
            .write_all(&cbpack(header("cB", 1)))
            .expect("compresses");
        let path = std::env::temp_dir().join(format!("wordfreq-{}.gz", std::process::id()));
        std::fs::write(&path, encoder.finish().expect("compresses")).expect("written");
        let list = WordFrequencies::read_gz(&path).expect("reads");
        std::fs::remove_file(&path).expect("removed");
        assert_eq!(list.len(), 3);
    }

    #[test]
    fn another_format_is_refused() {
        let read = WordFrequencies::read(cbpack(header("cB", 2)).as_slice());
        assert!(matches!(read, Err(WordfreqError::Format(_))));
        let read = WordFrequencies::read(cbpack(Value::from(1)).as_slice());
        assert!(matches!(read, Err(WordfreqError::Format(_))));
    }
}
