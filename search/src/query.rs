//! How a query is turned into index keys. Entries and queries share the kana functions,
//! so a query typed in katakana, hiragana, romaji or full-width letters meets the same
//! stored terms.

use crate::kana;

/// The keys one query word is looked up under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryKeys {
    /// NFKC, lowercase, katakana → hiragana: compared with written forms, readings,
    /// romaji, meanings and aliases.
    pub text: String,
    /// The hiragana reading of a romaji word (`taberu` → `たべる`), when it reads as one.
    pub kana: Option<String>,
}

/// The one place where text becomes a key. Written forms are stored through this same
/// function, so both sides always agree.
pub fn normalize_term(text: &str) -> String {
    kana::to_hiragana(text.trim())
}

impl QueryKeys {
    pub fn of(word: &str) -> QueryKeys {
        let text = normalize_term(word);
        let kana = kana::is_romaji(&text).then(|| kana::romaji_to_hiragana(&text));
        QueryKeys { text, kana }
    }

    /// True when the key is Latin text (an English word or romaji), which needs a longer
    /// prefix before prefix and typo matching say anything useful.
    pub fn is_latin(&self) -> bool {
        self.text.is_ascii()
    }
}

/// Whitespace and the ASCII punctuation that separates query words.
pub fn is_word_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | ';' | '!' | '?' | '"')
}

/// The words of a normalised query, split on whitespace and ASCII punctuation that
/// cannot appear in a key.
pub fn words(query: &str) -> Vec<String> {
    let text = normalize_term(query);
    text.split(is_word_separator)
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn katakana_and_full_width_fold_to_one_key() {
        assert_eq!(QueryKeys::of("タベル").text, "たべる");
        assert_eq!(QueryKeys::of("ＴＡＢＥＲＵ").text, "taberu");
        assert_eq!(QueryKeys::of("Taberu").kana.as_deref(), Some("たべる"));
        assert_eq!(QueryKeys::of("eat").kana, None);
    }

    #[test]
    fn words_split_on_spaces() {
        assert_eq!(words(" to  eat "), vec!["to", "eat"]);
        assert_eq!(words("食べる"), vec!["食べる"]);
    }
}
