//! Character classes of written Japanese, as the vocabulary builder needs them.

use manabi_schemas::Script;

/// CJK ideographs (unified, extension A and B+, compatibility); 々 is a mark, not a kanji.
pub fn is_kanji(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}')
}

pub fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// Katakana letters, the long-vowel mark and the middle dot used inside loanwords.
pub fn is_katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}')
}

/// True when the text is all kana (either script).
pub fn is_kana(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| is_hiragana(c) || is_katakana(c))
}

/// The writing system of a form: kanji only (with 々), one kana script, kanji or numerals
/// with kana (`Mixed`: 食べる, １つ), or Latin letters and numerals.
pub fn script_of(text: &str) -> Script {
    let numeral = text
        .chars()
        .any(|c| c.is_ascii_digit() || ('０'..='９').contains(&c));
    let kanji = text.chars().any(|c| is_kanji(c) || c == '々');
    let hiragana = text.chars().any(is_hiragana);
    let katakana = text
        .chars()
        .any(|c| is_katakana(c) && c != 'ー' && c != '・');
    let latin = text
        .chars()
        .any(|c| c.is_ascii_alphabetic() || ('Ａ'..='ｚ').contains(&c));
    match (kanji, hiragana || katakana) {
        (true, true) => Script::Mixed,
        (true, false) => Script::Kanji,
        (false, true) if (hiragana && katakana) || numeral => Script::Mixed,
        (false, true) if katakana => Script::Katakana,
        (false, true) => Script::Hiragana,
        (false, false) if latin || numeral => Script::Latin,
        (false, false) => Script::Katakana,
    }
}

/// The id of the kanji learnable for a character: `kanji-<lowercase hex code point>`.
pub fn kanji_id(c: char) -> String {
    format!("kanji-{:x}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_scripts() {
        assert_eq!(script_of("学校"), Script::Kanji);
        assert_eq!(script_of("人々"), Script::Kanji);
        assert_eq!(script_of("食べる"), Script::Mixed);
        assert_eq!(script_of("たべる"), Script::Hiragana);
        assert_eq!(script_of("コーヒー"), Script::Katakana);
        assert_eq!(script_of("Ｔシャツ"), Script::Katakana);
        assert_eq!(script_of("CD"), Script::Latin);
        assert_eq!(script_of("１つ"), Script::Mixed);
        assert_eq!(script_of("１０"), Script::Latin);
    }

    #[test]
    fn kanji_ids_are_hex_code_points() {
        assert_eq!(kanji_id('学'), "kanji-5b66");
        assert!(is_kanji('学'));
        assert!(!is_kanji('々'));
        assert!(!is_kanji('が'));
    }
}
