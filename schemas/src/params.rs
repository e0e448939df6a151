//! Typed request parameters. Each type can only hold a value the API accepts, so a
//! handler that receives one never re-checks it ("parse, don't validate").

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::LearnableType;

/// Why a parameter value was refused; the message is shown to the caller as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    pub message: String,
}

impl ParamError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// A text parameter given another JSON type.
    pub fn not_a_string() -> Self {
        Self::new("must be a string")
    }
}

/// Parses a whole number and checks it lies in `min..=max`.
/// A whole number in canonical decimal form (no sign, no leading zero, no spaces) within
/// `min..=max`; anything else, `+5` and `05` included, is refused.
fn bounded(text: &str, min: u8, max: u8) -> Result<u8, ParamError> {
    let canonical = !text.is_empty()
        && text.len() <= 3
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    let value: i64 = if canonical {
        text.parse().map_err(|_| out_of_range(min, max))?
    } else {
        return Err(out_of_range(min, max));
    };
    bounded_integer(value, min, max)
}

fn bounded_integer(value: i64, min: u8, max: u8) -> Result<u8, ParamError> {
    u8::try_from(value)
        .ok()
        .filter(|value| (min..=max).contains(value))
        .ok_or_else(|| out_of_range(min, max))
}

fn out_of_range(min: u8, max: u8) -> ParamError {
    ParamError::new(format!("must be an integer from {min} to {max}"))
}

/// How many search results a caller asks for: 1 to 20, default 10. A larger value is
/// refused, never clamped, so a caller learns the cap instead of silently getting less.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimit(u8);

impl SearchLimit {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 20;
    pub const DEFAULT: SearchLimit = SearchLimit(10);

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        bounded(text, Self::MIN, Self::MAX).map(Self)
    }

    /// From a JSON integer (MCP arguments).
    pub fn from_integer(value: i64) -> Result<Self, ParamError> {
        bounded_integer(value, Self::MIN, Self::MAX).map(Self)
    }

    /// The refusal of a value that is not an integer in range.
    pub fn out_of_range() -> ParamError {
        out_of_range(Self::MIN, Self::MAX)
    }

    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

/// How many related entries a caller asks for: 1 to 20, default 10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelatedLimit(u8);

impl RelatedLimit {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 20;
    pub const DEFAULT: RelatedLimit = RelatedLimit(10);

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        bounded(text, Self::MIN, Self::MAX).map(Self)
    }

    /// From a JSON integer (MCP arguments).
    pub fn from_integer(value: i64) -> Result<Self, ParamError> {
        bounded_integer(value, Self::MIN, Self::MAX).map(Self)
    }

    /// The refusal of a value that is not an integer in range.
    pub fn out_of_range() -> ParamError {
        out_of_range(Self::MIN, Self::MAX)
    }

    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

/// A JLPT level: 5 = N5 (beginner) .. 1 = N1 (advanced).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JlptLevel(u8);

impl JlptLevel {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 5;

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        bounded(text, Self::MIN, Self::MAX).map(Self)
    }

    /// From a JSON integer (MCP arguments).
    pub fn from_integer(value: i64) -> Result<Self, ParamError> {
        bounded_integer(value, Self::MIN, Self::MAX).map(Self)
    }

    /// The refusal of a value that is not an integer in range.
    pub fn out_of_range() -> ParamError {
        out_of_range(Self::MIN, Self::MAX)
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

/// A content locale: an ISO 639-1 code, accepted in any case and kept in lowercase
/// (`EN`, `En` and `en` are all `en`). Which locales can be served is the localizer's
/// business; this is only the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Locale([u8; 2]);

impl Locale {
    /// The canonical locale every entry is written in.
    pub const ENGLISH: Locale = Locale(*b"en");
    /// The OpenAPI and JSON Schema `pattern` of a locale: every ISO 639-1 code, in any
    /// case (`^([Aa][Aa]|[Aa][Bb]|…)$`), so a schema-valid code is one `parse` accepts.
    pub fn pattern() -> String {
        let letters = b'a'..=b'z';
        let alternatives: Vec<String> = letters
            .clone()
            .flat_map(|first| letters.clone().map(move |second| [first, second]))
            .filter_map(|code| Locale::parse(std::str::from_utf8(&code).ok()?).ok())
            .map(|locale| {
                let class = |c: u8| format!("[{}{}]", c.to_ascii_uppercase() as char, c as char);
                format!("{}{}", class(locale.0[0]), class(locale.0[1]))
            })
            .collect();
        format!("^({})$", alternatives.join("|"))
    }

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let [first, second] = text.as_bytes() else {
            return Err(ParamError::new(
                "must be a two-letter ISO 639-1 language code, e.g. en or pt",
            ));
        };
        if !first.is_ascii_alphabetic() || !second.is_ascii_alphabetic() {
            return Err(ParamError::new(
                "must be a two-letter ISO 639-1 language code, e.g. en or pt",
            ));
        }
        let locale = Locale([first.to_ascii_lowercase(), second.to_ascii_lowercase()]);
        if isolang::Language::from_639_1(locale.as_str()).is_none() {
            return Err(ParamError::new(format!(
                "`{locale}` is not an ISO 639-1 language code (e.g. en, pt, de)"
            )));
        }
        Ok(locale)
    }

    /// A code known at compile time, for tables of supported locales; each table's unit
    /// test checks that [`Locale::parse`] accepts every code in it.
    pub const fn from_table(code: [u8; 2]) -> Self {
        assert!(code[0].is_ascii_lowercase() && code[1].is_ascii_lowercase());
        Self(code)
    }

    pub fn is_canonical(self) -> bool {
        self == Self::ENGLISH
    }

    /// English is the language every entry is written in, and so the source of every
    /// translation.
    pub fn is_english(self) -> bool {
        self.is_canonical()
    }

    pub fn as_str(&self) -> &str {
        // Both bytes are lowercase ASCII letters (checked by `parse`), so this is UTF-8.
        std::str::from_utf8(&self.0).unwrap_or("en")
    }

    /// The language's English name (`pt` → "Portuguese").
    pub fn english_name(self) -> &'static str {
        isolang::Language::from_639_1(self.as_str())
            .map_or("unknown language", |language| language.to_name())
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How lesson link markup `[[learnable-id|text]]` is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Render {
    /// The markup is left as stored.
    #[default]
    Raw,
    /// The markup is replaced by its display text.
    Plain,
    /// The markup becomes a Markdown link to the entry, and the answer carries a
    /// `learnable_refs` map from id to the entry's display label.
    Resolved,
}

impl Render {
    pub const NAMES: [&'static str; 3] = ["raw", "plain", "resolved"];

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        match text {
            "raw" => Ok(Render::Raw),
            "plain" => Ok(Render::Plain),
            "resolved" => Ok(Render::Resolved),
            _ => Err(ParamError::new("must be one of raw, plain, resolved")),
        }
    }
}

/// The learnable types a search can be filtered by (the language types; history
/// entities are found by their names without a type filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchType {
    Kanji,
    Vocabulary,
    Grammar,
    Character,
    Radical,
}

impl SearchType {
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        LearnableType::LANGUAGE
            .iter()
            .find(|kind| kind.as_str() == text)
            .and_then(|kind| Self::of(*kind))
            .ok_or_else(|| {
                ParamError::new("must be one of kanji, vocabulary, grammar, character, radical")
            })
    }

    fn of(kind: LearnableType) -> Option<Self> {
        match kind {
            LearnableType::Kanji => Some(SearchType::Kanji),
            LearnableType::Vocabulary => Some(SearchType::Vocabulary),
            LearnableType::Grammar => Some(SearchType::Grammar),
            LearnableType::Character => Some(SearchType::Character),
            LearnableType::Radical => Some(SearchType::Radical),
            _ => None,
        }
    }

    pub fn learnable_type(self) -> LearnableType {
        match self {
            SearchType::Kanji => LearnableType::Kanji,
            SearchType::Vocabulary => LearnableType::Vocabulary,
            SearchType::Grammar => LearnableType::Grammar,
            SearchType::Character => LearnableType::Character,
            SearchType::Radical => LearnableType::Radical,
        }
    }
}

/// The id of a dataset document (learnable, lesson, journey). Ids are printable text
/// without whitespace or `/`; Japanese characters are allowed (`kanji-日`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LearnableId(String);

impl LearnableId {
    /// Longest id accepted, in characters; real ids are far shorter.
    pub const CHARS_MAX: usize = 128;

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let chars = text.chars().count();
        if chars == 0 || chars > Self::CHARS_MAX {
            return Err(ParamError::new(format!(
                "must be 1 to {} characters long",
                Self::CHARS_MAX
            )));
        }
        if text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '/')
        {
            return Err(ParamError::new(
                "must not contain whitespace, control characters or /",
            ));
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LearnableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The text of a search query: at most 100 characters, not only spaces; kept trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery(String);

impl SearchQuery {
    pub const CHARS_MAX: usize = 100;

    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let trimmed = text.trim();
        if trimmed.is_empty() || text.chars().count() > Self::CHARS_MAX {
            return Err(ParamError::new(format!(
                "must be 1 to {} characters (not only spaces)",
                Self::CHARS_MAX
            )));
        }
        // Checked before trimming: a trailing tab or vertical tab is a control
        // character the description's pattern refuses, not padding to drop.
        if text.chars().any(char::is_control) {
            return Err(ParamError::new("must not contain control characters"));
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_out_of_range_values() {
        assert_eq!(SearchLimit::parse("20").unwrap().get(), 20);
        assert!(SearchLimit::parse("21").is_err());
        assert!(SearchLimit::parse("0").is_err());
        assert!(SearchLimit::parse("-1").is_err());
        assert!(SearchLimit::parse("ten").is_err());
        assert!(RelatedLimit::parse("1").is_ok());
        assert!(JlptLevel::parse("6").is_err());
        assert_eq!(JlptLevel::parse("5").unwrap().get(), 5);
    }

    #[test]
    fn integers_must_be_canonical() {
        for bad in ["+5", "05", " 5", "5 ", "5.0", "1e1", "0x5", ""] {
            assert!(SearchLimit::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(SearchLimit::from_integer(7).unwrap().get(), 7);
        assert!(SearchLimit::from_integer(300).is_err());
        assert!(SearchLimit::from_integer(-1).is_err());
    }

    #[test]
    fn locale_is_an_iso_639_1_code_in_any_case() {
        assert!(Locale::parse("en").unwrap().is_canonical());
        assert!(Locale::parse("EN").unwrap().is_canonical());
        assert_eq!(Locale::parse("Pt").unwrap().as_str(), "pt");
        assert_eq!(Locale::parse("pt").unwrap().english_name(), "Portuguese");
        let pattern = Locale::pattern();
        assert!(pattern.starts_with("^([Aa][Aa]|[Aa][Bb]|"), "{pattern}");
        assert!(pattern.contains("|[Pp][Tt]|") && !pattern.contains("[Qq][Qq]"));
        assert_eq!(
            pattern.matches('|').count() + 1,
            184,
            "ISO 639-1 has 184 codes"
        );
        for bad in ["e", "eng", "e1", "", "é", "xx", "QQ"] {
            assert!(Locale::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn render_and_ids() {
        assert_eq!(Render::parse("resolved").unwrap(), Render::Resolved);
        assert!(Render::parse("html").is_err());
        assert_eq!(
            SearchType::parse("kanji").unwrap().learnable_type(),
            LearnableType::Kanji
        );
        assert!(SearchType::parse("person").is_err());
        assert!(LearnableId::parse("kanji-日").is_ok());
        assert!(LearnableId::parse("a b").is_err());
        assert!(LearnableId::parse("").is_err());
        assert!(LearnableId::parse(&"x".repeat(129)).is_err());
    }

    #[test]
    fn queries_are_trimmed_and_bounded() {
        assert_eq!(SearchQuery::parse("  taberu ").unwrap().as_str(), "taberu");
        assert!(SearchQuery::parse("   ").is_err());
        assert!(SearchQuery::parse(&"あ".repeat(101)).is_err());
        for bad in ["od\u{b}", "\tod", "o\nd", "od\u{85}", "od\u{7f}"] {
            assert!(SearchQuery::parse(bad).is_err(), "{bad:?}");
        }
    }
}
