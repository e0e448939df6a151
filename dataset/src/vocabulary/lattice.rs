//! A minimal MeCab-compatible morphological analyser over a compiled dictionary directory
//! (`sys.dic`, `matrix.bin`, `char.bin`, `unk.dic`), used only at build time to put example
//! sentences and cloze blanks on word boundaries.
//!
//! Why not a crate: the pinned dictionaries (unidic-lite on PyPI, naist-jdic in Debian) ship
//! only MeCab's compiled binaries, while the Rust analysers want the source CSV files
//! (vibrato's `SystemDictionaryBuilder`) or download their own dictionary at build time
//! (lindera). The existing `sys.dic` reader already walks the trie, so the lattice is the
//! only missing piece: every dictionary word and MeCab's unknown-word candidates at each
//! position, and the path of least word plus connection cost (Viterbi).

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::mecab::{MecabError, SystemDictionary, Token, split_feature};

/// Unknown words longer than this many characters are not grouped (MeCab's default).
const GROUP_CHARS_MAX: usize = 24;
/// `char.bin` holds one entry per UCS-2 code point.
const CHAR_TABLE_LEN: usize = 0xffff;
const CATEGORY_NAME_BYTES: usize = 32;

/// A word of the analysed text: its byte range, its dictionary form in the text's spelling,
/// its lemma, and how it is read here (katakana; empty when the dictionary does not say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Morpheme {
    pub start: usize,
    pub end: usize,
    pub base: String,
    pub lemma: String,
    pub reading: String,
    /// The dictionary's part of speech, as far as example matching asks.
    pub pos: WordClass,
}

/// The parts of speech example matching tells apart (the first feature field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordClass {
    /// 接続詞.
    Conjunction,
    /// 動詞.
    Verb,
    Other,
}

impl WordClass {
    fn of(feature_head: Option<&str>) -> Self {
        match feature_head {
            Some("接続詞") => WordClass::Conjunction,
            Some("動詞") => WordClass::Verb,
            _ => WordClass::Other,
        }
    }
}

/// A dictionary word's forms as the analyser keeps them: dictionary form, lemma, reading.
#[derive(Debug, Clone)]
struct Forms {
    base: String,
    lemma: String,
    reading: String,
    pos: WordClass,
}

/// Where a dictionary keeps the dictionary form and the lemma in its feature strings.
#[derive(Debug, Clone, Copy)]
pub enum Layout {
    /// UniDic: `orthBase` (field 10) and `lemma` (field 7, `パン-pão` for loanwords).
    Unidic,
    /// IPADIC and NAIST-JDIC: the base form (field 6) is both.
    Ipadic,
}

impl Layout {
    /// The reading of the surface: UniDic has none of the surface in kana (its `pron` is
    /// pronunciation), IPADIC and NAIST-JDIC keep it in field 7.
    fn reading(self, feature: &str) -> String {
        match self {
            Layout::Unidic => String::new(),
            Layout::Ipadic => split_feature(feature)
                .get(7)
                .filter(|f| f.as_str() != "*")
                .cloned()
                .unwrap_or_default(),
        }
    }

    fn forms(self, feature: &str, surface: &str) -> (String, String) {
        let fields = split_feature(feature);
        let field = |index: usize| {
            fields
                .get(index)
                .filter(|f| !f.is_empty() && f.as_str() != "*")
                .map_or_else(|| surface.to_owned(), String::clone)
        };
        match self {
            Layout::Unidic => {
                let lemma = field(7);
                let lemma = match lemma.split_once('-') {
                    Some((word, origin)) if !word.is_empty() && is_latin_word(origin) => {
                        word.to_owned()
                    }
                    _ => lemma,
                };
                (field(10), lemma)
            }
            Layout::Ipadic => (field(6), field(6)),
        }
    }
}

/// UniDic appends a loanword's source word in Latin script (`パン-pão`).
fn is_latin_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphabetic() && (c as u32) < 0x3000)
}

/// Connection costs: `cost[right id of the left word + lsize * left id of the right word]`.
struct Matrix {
    lsize: usize,
    costs: Vec<i16>,
}

impl Matrix {
    fn read(path: &Path) -> Result<Self, MecabError> {
        let bytes = std::fs::read(path).map_err(|source| io(path, source))?;
        let word = |at: usize| {
            bytes
                .get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
        };
        let (Some(lsize), Some(rsize)) = (word(0), word(2)) else {
            return Err(format(path, "shorter than its header"));
        };
        let (lsize, rsize) = (usize::from(lsize), usize::from(rsize));
        if bytes.len() != 4 + 2 * lsize * rsize {
            return Err(format(path, "size does not match lsize × rsize"));
        }
        let costs = bytes[4..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(Self { lsize, costs })
    }

    fn cost(&self, right_of_left: u16, left_of_right: u16) -> i64 {
        let at = usize::from(right_of_left) + self.lsize * usize::from(left_of_right);
        self.costs.get(at).map_or(0, |&c| i64::from(c))
    }
}

/// A character's classes from `char.bin`: a bit set of categories, the category its
/// unknown words take, how many characters to try, whether to group a run of the same
/// class, and whether to try unknown words even where the dictionary has a word.
#[derive(Debug, Clone, Copy)]
struct CharInfo {
    categories: u32,
    default: usize,
    length: usize,
    group: bool,
    invoke: bool,
}

impl CharInfo {
    fn from_bits(bits: u32) -> Self {
        Self {
            categories: bits & 0x3ffff,
            default: ((bits >> 18) & 0xff) as usize,
            length: ((bits >> 26) & 0xf) as usize,
            group: (bits >> 30) & 1 == 1,
            invoke: (bits >> 31) == 1,
        }
    }

    fn same_kind(self, other: CharInfo) -> bool {
        self.categories & other.categories != 0
    }
}

struct CharTable {
    names: Vec<String>,
    infos: Vec<CharInfo>,
}

impl CharTable {
    fn read(path: &Path) -> Result<Self, MecabError> {
        let bytes = std::fs::read(path).map_err(|source| io(path, source))?;
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let count = word(0).ok_or_else(|| format(path, "no category count"))? as usize;
        let table_start = 4 + count * CATEGORY_NAME_BYTES;
        if bytes.len() != table_start + 4 * CHAR_TABLE_LEN {
            return Err(format(path, "size does not match its category count"));
        }
        let names = (0..count)
            .map(|i| {
                let raw = &bytes[4 + i * CATEGORY_NAME_BYTES..4 + (i + 1) * CATEGORY_NAME_BYTES];
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                String::from_utf8_lossy(&raw[..end]).into_owned()
            })
            .collect();
        let infos = (0..CHAR_TABLE_LEN)
            .filter_map(|i| word(table_start + 4 * i))
            .map(CharInfo::from_bits)
            .collect();
        Ok(Self { names, infos })
    }

    /// Characters outside the BMP take the class of U+0000 (MeCab's DEFAULT).
    fn info(&self, c: char) -> CharInfo {
        let at = if (c as usize) < CHAR_TABLE_LEN {
            c as usize
        } else {
            0
        };
        self.infos[at]
    }
}

#[derive(Debug, Clone, Copy)]
enum Source {
    Word(u32),
    Unknown,
    Bos,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    start: usize,
    end: usize,
    token: Token,
    source: Source,
    total: i64,
    previous: usize,
}

/// An opened dictionary directory.
pub struct Tokenizer {
    words: SystemDictionary,
    unknown: SystemDictionary,
    matrix: Matrix,
    chars: CharTable,
    /// Unknown-word tokens by category index.
    unknown_by_category: Vec<Vec<u32>>,
    layout: Layout,
    /// Base form, lemma and reading by word token: features are read from the file on
    /// demand.
    forms: RefCell<HashMap<u32, Forms>>,
}

impl Tokenizer {
    /// Opens `sys.dic`, `matrix.bin`, `char.bin` and `unk.dic` in `dir`.
    pub fn open(dir: &Path, layout: Layout) -> Result<Self, MecabError> {
        let words = SystemDictionary::open(&dir.join("sys.dic"))?;
        let unknown = SystemDictionary::open(&dir.join("unk.dic"))?;
        let matrix = Matrix::read(&dir.join("matrix.bin"))?;
        let chars = CharTable::read(&dir.join("char.bin"))?;
        let unknown_by_category = chars
            .names
            .iter()
            .map(|name| {
                let prefixes = unknown.prefixes(name.as_bytes());
                let exact = prefixes.iter().find(|(length, ..)| *length == name.len());
                exact.map_or_else(Vec::new, |&(_, first, count)| {
                    (first..first + count).collect()
                })
            })
            .collect();
        Ok(Self {
            words,
            unknown,
            matrix,
            chars,
            unknown_by_category,
            layout,
            forms: RefCell::new(HashMap::new()),
        })
    }

    /// The words of `text`, in order, covering it without gaps.
    pub fn tokenize(&self, text: &str) -> Result<Vec<Morpheme>, MecabError> {
        let mut nodes = vec![Node {
            start: 0,
            end: 0,
            token: self.bos(),
            source: Source::Bos,
            total: 0,
            previous: 0,
        }];
        let mut ending_at: Vec<Vec<usize>> = vec![Vec::new(); text.len() + 1];
        ending_at[0].push(0);
        for (start, _) in text.char_indices() {
            if ending_at[start].is_empty() {
                continue;
            }
            for (end, token, source) in self.candidates(text, start) {
                let node = self.connect(&nodes, &ending_at[start], start, end, token, source);
                ending_at[end].push(nodes.len());
                nodes.push(node);
            }
        }
        let eos = self.connect(
            &nodes,
            &ending_at[text.len()],
            text.len(),
            text.len(),
            self.bos(),
            Source::Bos,
        );
        let mut path = Vec::new();
        let mut at = eos.previous;
        while at != 0 {
            path.push(nodes[at]);
            at = nodes[at].previous;
        }
        path.reverse();
        path.into_iter()
            .map(|node| self.morpheme(text, node))
            .collect()
    }

    fn bos(&self) -> Token {
        Token::BOUNDARY
    }

    /// The best way to reach a new node from the nodes ending where it starts.
    fn connect(
        &self,
        nodes: &[Node],
        before: &[usize],
        start: usize,
        end: usize,
        token: Token,
        source: Source,
    ) -> Node {
        let (total, previous) = before
            .iter()
            .map(|&p| {
                let cost =
                    nodes[p].total + self.matrix.cost(nodes[p].token.right_id, token.left_id);
                (cost + i64::from(token.cost), p)
            })
            .min()
            .unwrap_or((i64::MAX / 2, 0));
        Node {
            start,
            end,
            token,
            source,
            total,
            previous,
        }
    }

    /// Dictionary words starting at `start`, plus unknown words as MeCab proposes them.
    fn candidates(&self, text: &str, start: usize) -> Vec<(usize, Token, Source)> {
        let mut found = Vec::new();
        for (length, first, count) in self.words.prefixes(&text.as_bytes()[start..]) {
            for index in first..first + count {
                if let Some(token) = self.words.token(index) {
                    found.push((start + length, token, Source::Word(index)));
                }
            }
        }
        let rest = &text[start..];
        let Some(first_char) = rest.chars().next() else {
            return found;
        };
        let info = self.chars.info(first_char);
        if !found.is_empty() && !info.invoke {
            return found;
        }
        let mut ends = Vec::new();
        let same: Vec<usize> = rest
            .char_indices()
            .skip(1)
            .take_while(|&(_, c)| info.same_kind(self.chars.info(c)))
            .map(|(at, c)| at + c.len_utf8())
            .collect();
        let first_end = first_char.len_utf8();
        if info.group && same.len() < GROUP_CHARS_MAX {
            ends.push(same.last().copied().unwrap_or(first_end));
        }
        for chars in 1..=info.length {
            let end = if chars == 1 {
                Some(first_end)
            } else {
                same.get(chars - 2).copied()
            };
            match end {
                Some(end) if !ends.contains(&end) => ends.push(end),
                Some(_) => {}
                None => break,
            }
        }
        if found.is_empty() && ends.is_empty() {
            ends.push(first_end);
        }
        for end in ends {
            for &index in &self.unknown_by_category[info.default] {
                if let Some(token) = self.unknown.token(index) {
                    found.push((start + end, token, Source::Unknown));
                }
            }
        }
        found
    }

    fn morpheme(&self, text: &str, node: Node) -> Result<Morpheme, MecabError> {
        let surface = &text[node.start..node.end];
        let forms = match node.source {
            Source::Word(index) => {
                if let Some(forms) = self.forms.borrow().get(&index) {
                    forms.clone()
                } else {
                    let feature = self.words.feature(index)?;
                    let (base, lemma) = self.layout.forms(&feature, surface);
                    let reading = self.layout.reading(&feature);
                    let pos = WordClass::of(split_feature(&feature).first().map(String::as_str));
                    let forms = Forms {
                        base,
                        lemma,
                        reading,
                        pos,
                    };
                    self.forms.borrow_mut().insert(index, forms.clone());
                    forms
                }
            }
            Source::Unknown | Source::Bos => Forms {
                base: surface.to_owned(),
                lemma: surface.to_owned(),
                reading: String::new(),
                pos: WordClass::Other,
            },
        };
        Ok(Morpheme {
            start: node.start,
            end: node.end,
            base: forms.base,
            lemma: forms.lemma,
            reading: forms.reading,
            pos: forms.pos,
        })
    }
}

fn io(path: &Path, source: std::io::Error) -> MecabError {
    MecabError::Io {
        path: PathBuf::from(path),
        source,
    }
}

fn format(path: &Path, problem: &str) -> MecabError {
    MecabError::Format {
        path: PathBuf::from(path),
        problem: problem.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_info_bits_follow_mecabs_bit_fields() {
        // KANJI-like: category bit 2, default category 2, length 2, group off, invoke off.
        let info = CharInfo::from_bits((1 << 2) | (2 << 18) | (2 << 26));
        assert_eq!(info.categories, 4);
        assert_eq!(info.default, 2);
        assert_eq!(info.length, 2);
        assert!(!info.group && !info.invoke);
        let katakana =
            CharInfo::from_bits((1 << 5) | (5 << 18) | (2 << 26) | (1 << 30) | (1 << 31));
        assert!(katakana.group && katakana.invoke);
        assert!(!katakana.same_kind(info));
    }

    #[test]
    fn unidic_lemmas_lose_the_loanword_origin() {
        let feature = "名詞,普通名詞,一般,*,*,*,パン,パン-pão,パン,パン,パン,パン,外";
        let (base, lemma) = Layout::Unidic.forms(feature, "パン");
        assert_eq!((base.as_str(), lemma.as_str()), ("パン", "パン"));
        let verb = "動詞,一般,*,*,下一段-バ行,連用形-一般,タベル,食べる,食べ,タベ,食べる,タベル,和";
        let (base, lemma) = Layout::Unidic.forms(verb, "食べ");
        assert_eq!((base.as_str(), lemma.as_str()), ("食べる", "食べる"));
    }
}

#[cfg(test)]
mod real {
    use super::*;

    #[test]
    #[ignore = "needs var/sources (manabi dataset fetch)"]
    fn print_real_analyses() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../var/sources");
        let dirs = [
            (
                root.join("unidic/unidic-lite-1.0.8/unidic_lite/dicdir"),
                Layout::Unidic,
            ),
            (
                root.join("naist_jdic/var/lib/mecab/dic/open-jtalk/naist-jdic"),
                Layout::Ipadic,
            ),
        ];
        for (dir, layout) in dirs {
            let started = std::time::Instant::now();
            let tokenizer = Tokenizer::open(&dir, layout).expect("opens");
            eprintln!("opened in {:?}", started.elapsed());
            for text in [
                "パンダが好きです。",
                "パンを食べました。",
                "猫背を直したい。",
                "スーツケースを持って来てください。",
                "のんびりしましょう。",
                "日本語を勉強しています。",
                "図書館で本を読んだ。",
                "トムはｉＰｈｏｎｅを買った。",
            ] {
                let tokens = tokenizer.tokenize(text).expect("tokenizes");
                let shown: Vec<String> = tokens
                    .iter()
                    .map(|m| format!("{}({}|{})", &text[m.start..m.end], m.base, m.lemma))
                    .collect();
                eprintln!("{}", shown.join(" "));
            }
        }
    }
}
