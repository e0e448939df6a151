//! How a query is turned into index keys. Entries and queries share the kana functions,
//! so a query typed in katakana, hiragana, romaji or full-width letters meets the same
//! stored terms.

use crate::kana;
use crate::loose::loose_key;

/// Marks the key of a written form kept in its own script (katakana not folded), so a
/// query typed in katakana finds the katakana form before its hiragana twin.
pub const SURFACE_MARK: char = '\u{1}';
/// Marks the key of a romanised name with its words in sorted order, so `nobunaga oda`
/// meets `Oda Nobunaga`.
pub const NAME_MARK: char = '\u{2}';

/// The keys one query word is looked up under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryKeys {
    /// NFKC, lowercase, katakana → hiragana: compared with written forms, readings,
    /// romaji, meanings and aliases.
    pub text: String,
    /// The hiragana reading of a romaji word (`taberu` → `たべる`, `ōkii` → `おおきい`),
    /// when it reads as one.
    pub kana: Option<String>,
    /// The other reading of a word with long-vowel marks: `ō` is `おう` as often as `おお`
    /// (`kōkō` → `こうこう`).
    pub kana_alt: Option<String>,
    /// The loose romaji key (`kōhī`, `koohii` → `kohi`), when the word is romaji or kana.
    pub loose: Option<String>,
    /// The surface key of a word holding katakana: its form in its own script.
    pub surface: Option<String>,
}

/// The one place where text becomes a key. Written forms are stored through this same
/// function, so both sides always agree.
pub fn normalize_term(text: &str) -> String {
    kana::to_hiragana(text.trim())
}

/// The key of a written form in its own script, when it holds katakana (a form without
/// katakana is its own surface key).
pub fn surface_key(text: &str) -> Option<String> {
    let normal = kana::normalize(text.trim());
    kana::has_katakana(&normal).then(|| format!("{SURFACE_MARK}{normal}"))
}

/// The order-free key of a romanised name of several words: each word's loose key,
/// sorted, after [`NAME_MARK`]. `None` unless there are two words or more and every
/// word reads as romaji.
pub fn name_key<S: AsRef<str>>(words: &[S]) -> Option<String> {
    if words.len() < 2 {
        return None;
    }
    let mut keys = words
        .iter()
        .map(|word| loose_key(word.as_ref()).filter(|_| kana::is_latin_word(word.as_ref())))
        .collect::<Option<Vec<_>>>()?;
    keys.sort_unstable();
    Some(format!("{NAME_MARK}{}", keys.join(" ")))
}

impl QueryKeys {
    pub fn of(word: &str) -> QueryKeys {
        let text = normalize_term(word);
        let reading = kana::romaji_reading;
        let doubled = kana::long_vowels_doubled(&text, false);
        let kana = reading(&doubled);
        let kana_alt = (doubled != text)
            .then(|| reading(&kana::long_vowels_doubled(&text, true)))
            .flatten()
            .filter(|alt| Some(alt) != kana.as_ref());
        QueryKeys {
            kana_alt,
            // `kin'en` says which reading it means: no loose key makes it `kinen` 記念.
            loose: loose_key(&text).filter(|_| !text.contains('\'')),
            surface: surface_key(word),
            text,
            kana,
        }
    }

    /// True when the key is Latin text (an English word or romaji), which needs a longer
    /// prefix before prefix and typo matching say anything useful.
    pub fn is_latin(&self) -> bool {
        kana::is_latin_word(&self.text)
    }
}

/// Whitespace and the ASCII punctuation that separates query words.
pub fn is_word_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | ';' | '!' | '?' | '"')
}

/// The marks a grammar pattern is written with around its slots (`〜ので`, `~tara`):
/// they carry no search value, so patterns and queries are compared without them.
pub fn is_slot_mark(c: char) -> bool {
    matches!(c, '〜' | '～' | '~' | '∼')
}

/// A query or form without slot marks, NFKC and lowercase but in its own script:
/// `〜ので` → `ので`, `しか〜ない` → `しかない`.
pub fn without_slot_marks(text: &str) -> String {
    let normal = kana::normalize(text.trim());
    if normal.chars().any(is_slot_mark) {
        normal.replace(is_slot_mark, "").trim().to_owned()
    } else {
        normal
    }
}

/// Dictionary forms a conjugated Japanese word may come from (`てしまった` → `てしまう`,
/// `たかった` → `たい`, `しかありません` → `しかない`), tried after the word itself.
/// Guesses: some are no word at all, which costs one failed lookup each.
pub fn dictionary_forms(word: &str) -> Vec<String> {
    const ENDINGS: &[(&str, &[&str])] = &[
        ("くなかった", &["い"]),
        ("ませんでした", &["る", "ない"]),
        ("ありません", &["ない", "ある"]),
        ("かった", &["い"]),
        ("くない", &["い"]),
        ("なかった", &["ない"]),
        ("ません", &["る", "ない"]),
        ("ました", &["る", "ます"]),
        ("でした", &["だ", "です"]),
        ("ちゃった", &["ちゃう", "てしまう"]),
        ("じゃった", &["じゃう", "でしまう"]),
        ("った", &["う", "る", "つ"]),
        ("んだ", &["む", "ぬ", "ぶ"]),
        ("いた", &["く"]),
        ("いだ", &["ぐ"]),
        ("した", &["す", "する"]),
        ("ます", &["る"]),
        ("た", &["る"]),
    ];
    if word.is_ascii() || word.chars().count() < 2 {
        return Vec::new();
    }
    ENDINGS
        .iter()
        .filter_map(|(ending, bases)| word.strip_suffix(ending).map(|stem| (stem, *bases)))
        .filter(|(stem, _)| !stem.is_empty())
        .flat_map(|(stem, bases)| bases.iter().map(move |base| format!("{stem}{base}")))
        .collect()
}

/// The words of a query, NFKC and lowercase but in their own script (a katakana word
/// keeps its surface key), split on whitespace and ASCII punctuation that cannot appear
/// in a key.
pub fn words(query: &str) -> Vec<String> {
    let text = kana::normalize(query.trim());
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
        assert_eq!(QueryKeys::of("kōhī").loose.as_deref(), Some("kohi"));
        assert_eq!(QueryKeys::of("ōkii").kana.as_deref(), Some("おおきい"));
        assert_eq!(QueryKeys::of("kōkō").kana_alt.as_deref(), Some("こうこう"));
        assert_eq!(QueryKeys::of("ア").surface.as_deref(), Some("\u{1}ア"));
        assert_eq!(QueryKeys::of("あ").surface, None);
    }

    #[test]
    fn words_split_on_spaces() {
        assert_eq!(words(" to  eat "), vec!["to", "eat"]);
        assert_eq!(words("食べる"), vec!["食べる"]);
    }

    #[test]
    fn slot_marks_go() {
        assert_eq!(without_slot_marks("〜ので"), "ので");
        assert_eq!(without_slot_marks("～たら"), "たら");
        assert_eq!(without_slot_marks("しか〜ない"), "しかない");
        assert_eq!(without_slot_marks("~nagara"), "nagara");
    }

    #[test]
    fn conjugated_words_lead_to_dictionary_forms() {
        assert!(dictionary_forms("てしまった").contains(&"てしまう".to_owned()));
        assert!(dictionary_forms("たかった").contains(&"たい".to_owned()));
        assert!(dictionary_forms("たくない").contains(&"たい".to_owned()));
        assert!(dictionary_forms("しかありません").contains(&"しかない".to_owned()));
        assert!(dictionary_forms("食べた").contains(&"食べる".to_owned()));
        assert!(dictionary_forms("taberu").is_empty());
    }

    #[test]
    fn names_meet_in_either_order() {
        assert_eq!(
            name_key(&["nobunaga", "oda"]),
            name_key(&["Oda", "Nobunaga"])
        );
        assert_eq!(
            name_key(&["itō", "hirobumi"]),
            name_key(&["hirobumi", "itou"])
        );
        assert_eq!(name_key(&["battle", "of", "x"]), None);
        assert_eq!(name_key(&["oda"]), None);
    }
}
