//! Kana and romaji normalisation shared by the dataset's search surface and the query path.
//!
//! Entries and queries go through the same functions so that a reading stored as
//! `きゃく` matches a query typed as `キャク`, `kyaku` or `kyaku` in full-width letters.
//! Romaji output is modified Hepburn written in plain ASCII: long vowels are doubled
//! (`コーヒー` → `koohii`) rather than given macrons, because queries are typed on
//! keyboards without them.

use std::collections::HashMap;
use std::sync::LazyLock;

use unicode_normalization::{IsNormalized, UnicodeNormalization};

/// Distance between a katakana letter and its hiragana counterpart in Unicode.
const KATAKANA_OFFSET: u32 = 0x60;

/// NFKC (folds full-width letters and half-width katakana), then lowercase.
pub fn normalize(text: &str) -> String {
    // ASCII is its own NFKC form, and most terms (romaji, English) are ASCII: the fast
    // path gives the same result without the normaliser's tables.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    if unicode_normalization::is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        return text.to_lowercase();
    }
    text.nfkc().collect::<String>().to_lowercase()
}

/// True for the katakana letters that have a hiragana counterpart (ァ..ヶ, ヽ, ヾ).
fn is_convertible_katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30F6}' | '\u{30FD}' | '\u{30FE}')
}

/// True for the hiragana letters that have a katakana counterpart (ぁ..ゖ, ゝ, ゞ).
fn is_convertible_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{309D}' | '\u{309E}')
}

fn shift(c: char, up: bool) -> char {
    let code = if up {
        c as u32 + KATAKANA_OFFSET
    } else {
        c as u32 - KATAKANA_OFFSET
    };
    // The ranges checked by the callers map onto assigned kana, so this never fails.
    char::from_u32(code).unwrap_or(c)
}

/// Katakana → hiragana; everything else (kanji, ー, Latin) is kept.
pub fn katakana_to_hiragana(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_convertible_katakana(c) {
                shift(c, false)
            } else {
                c
            }
        })
        .collect()
}

/// Hiragana → katakana; everything else is kept.
pub fn hiragana_to_katakana(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_convertible_hiragana(c) {
                shift(c, true)
            } else {
                c
            }
        })
        .collect()
}

/// NFKC, lowercase, katakana → hiragana: the form readings are stored and compared in.
pub fn to_hiragana(text: &str) -> String {
    let normal = normalize(text);
    // Most terms hold no katakana; they are kept without a second copy.
    if normal.chars().any(is_convertible_katakana) {
        katakana_to_hiragana(&normal)
    } else {
        normal
    }
}

/// True when the text holds at least one kana and nothing but kana and the long-vowel mark.
pub fn is_kana(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| {
            is_convertible_hiragana(c)
                || is_convertible_katakana(c)
                || matches!(c, 'ー' | 'ヷ'..='ヺ')
        })
}

/// True when the text holds a katakana letter (a form whose script a query can tell
/// apart from its hiragana twin).
pub fn has_katakana(text: &str) -> bool {
    text.chars()
        .any(|c| is_convertible_katakana(c) || matches!(c, 'ヷ'..='ヺ'))
}

/// Macron and circumflex vowels written as two letters: `ō` as `oo`, or as `ou` when
/// `o_as_ou` (Hepburn writes both おお and おう as `ō`); other vowels doubled.
pub fn long_vowels_doubled(text: &str, o_as_ou: bool) -> String {
    if text.is_ascii() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        match c {
            'ā' | 'â' => out.push_str("aa"),
            'ī' | 'î' => out.push_str("ii"),
            'ū' | 'û' => out.push_str("uu"),
            'ē' | 'ê' => out.push_str("ee"),
            'ō' | 'ô' if o_as_ou => out.push_str("ou"),
            'ō' | 'ô' => out.push_str("oo"),
            _ => out.push(c),
        }
    }
    out
}

/// True for a word in Latin letters, macron and circumflex vowels included (`Ryōma`,
/// `kôhî`): romaji or English, never kana or kanji.
pub fn is_latin_word(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_ascii()
            || matches!(
                c,
                'ā' | 'ī'
                    | 'ū'
                    | 'ē'
                    | 'ō'
                    | 'â'
                    | 'î'
                    | 'û'
                    | 'ê'
                    | 'ô'
                    | 'Ā'
                    | 'Ī'
                    | 'Ū'
                    | 'Ē'
                    | 'Ō'
                    | 'Â'
                    | 'Î'
                    | 'Û'
                    | 'Ê'
                    | 'Ô'
            )
    })
}

/// Kana spellings and their Hepburn romaji. Two-letter entries (yōon and the extended
/// katakana combinations) are tried before single letters.
#[rustfmt::skip]
const KANA_ROMAJI: &[(&str, &str)] = &[
    ("きゃ", "kya"), ("きゅ", "kyu"), ("きょ", "kyo"), ("しゃ", "sha"), ("しゅ", "shu"),
    ("しょ", "sho"), ("ちゃ", "cha"), ("ちゅ", "chu"), ("ちょ", "cho"), ("にゃ", "nya"),
    ("にゅ", "nyu"), ("にょ", "nyo"), ("ひゃ", "hya"), ("ひゅ", "hyu"), ("ひょ", "hyo"),
    ("みゃ", "mya"), ("みゅ", "myu"), ("みょ", "myo"), ("りゃ", "rya"), ("りゅ", "ryu"),
    ("りょ", "ryo"), ("ぎゃ", "gya"), ("ぎゅ", "gyu"), ("ぎょ", "gyo"), ("じゃ", "ja"),
    ("じゅ", "ju"), ("じょ", "jo"), ("ぢゃ", "ja"), ("ぢゅ", "ju"), ("ぢょ", "jo"),
    ("びゃ", "bya"), ("びゅ", "byu"), ("びょ", "byo"), ("ぴゃ", "pya"), ("ぴゅ", "pyu"),
    ("ぴょ", "pyo"), ("ふぁ", "fa"), ("ふぃ", "fi"), ("ふぇ", "fe"), ("ふぉ", "fo"),
    ("ふゅ", "fyu"), ("ふゃ", "fya"), ("ふょ", "fyo"), ("ゔゃ", "vya"), ("ゔょ", "vyo"),
    ("くゎ", "kwa"), ("ぐゎ", "gwa"), ("てぃ", "ti"), ("てゅ", "tyu"),
    ("でぃ", "di"), ("でゅ", "dyu"), ("とぅ", "tu"), ("どぅ", "du"), ("うぃ", "wi"),
    ("うぇ", "we"), ("うぉ", "wo"), ("ゔぁ", "va"), ("ゔぃ", "vi"), ("ゔぇ", "ve"),
    ("ゔぉ", "vo"), ("ゔゅ", "vyu"), ("しぇ", "she"), ("じぇ", "je"), ("ちぇ", "che"),
    ("つぁ", "tsa"), ("つぃ", "tsi"), ("つぇ", "tse"), ("つぉ", "tso"), ("いぇ", "ye"),
    ("くぁ", "kwa"), ("くぃ", "kwi"), ("くぇ", "kwe"), ("くぉ", "kwo"), ("ぐぁ", "gwa"),
    ("すぃ", "si"), ("ずぃ", "zi"), ("きぇ", "kye"), ("ぎぇ", "gye"), ("にぇ", "nye"),
    ("ひぇ", "hye"), ("びぇ", "bye"), ("ぴぇ", "pye"), ("みぇ", "mye"), ("りぇ", "rye"),
    ("あ", "a"), ("い", "i"), ("う", "u"), ("え", "e"), ("お", "o"),
    ("か", "ka"), ("き", "ki"), ("く", "ku"), ("け", "ke"), ("こ", "ko"),
    ("さ", "sa"), ("し", "shi"), ("す", "su"), ("せ", "se"), ("そ", "so"),
    ("た", "ta"), ("ち", "chi"), ("つ", "tsu"), ("て", "te"), ("と", "to"),
    ("な", "na"), ("に", "ni"), ("ぬ", "nu"), ("ね", "ne"), ("の", "no"),
    ("は", "ha"), ("ひ", "hi"), ("ふ", "fu"), ("へ", "he"), ("ほ", "ho"),
    ("ま", "ma"), ("み", "mi"), ("む", "mu"), ("め", "me"), ("も", "mo"),
    ("や", "ya"), ("ゆ", "yu"), ("よ", "yo"),
    ("ら", "ra"), ("り", "ri"), ("る", "ru"), ("れ", "re"), ("ろ", "ro"),
    ("わ", "wa"), ("ゐ", "i"), ("ゑ", "e"), ("を", "o"), ("ん", "n"),
    ("が", "ga"), ("ぎ", "gi"), ("ぐ", "gu"), ("げ", "ge"), ("ご", "go"),
    ("ざ", "za"), ("じ", "ji"), ("ず", "zu"), ("ぜ", "ze"), ("ぞ", "zo"),
    ("だ", "da"), ("ぢ", "ji"), ("づ", "zu"), ("で", "de"), ("ど", "do"),
    ("ば", "ba"), ("び", "bi"), ("ぶ", "bu"), ("べ", "be"), ("ぼ", "bo"),
    ("ぱ", "pa"), ("ぴ", "pi"), ("ぷ", "pu"), ("ぺ", "pe"), ("ぽ", "po"),
    ("ゔ", "vu"), ("ぁ", "a"), ("ぃ", "i"), ("ぅ", "u"), ("ぇ", "e"), ("ぉ", "o"),
    ("ゃ", "ya"), ("ゅ", "yu"), ("ょ", "yo"), ("ゎ", "wa"), ("ゕ", "ka"), ("ゖ", "ke"),
];

/// Katakana-only letters without a hiragana code point (ヷ..ヺ).
const KATAKANA_ONLY_ROMAJI: &[(char, &str)] =
    &[('ヷ', "va"), ('ヸ', "vi"), ('ヹ', "ve"), ('ヺ', "vo")];

/// [`KANA_ROMAJI`] by spelling: a query's romaji and every reading of the index go
/// through these lookups, so they are hashed once instead of scanned each time.
static KANA_TO_ROMAJI: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| KANA_ROMAJI.iter().copied().collect());
/// [`ROMAJI_KANA`] by spelling.
static ROMAJI_TO_KANA: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| ROMAJI_KANA.iter().copied().collect());

fn lookup_kana(spelling: &str) -> Option<&'static str> {
    KANA_TO_ROMAJI.get(spelling).copied()
}

/// The romaji of the syllable starting at `chars[index]` and how many chars it spans.
fn syllable_at(chars: &[char], index: usize) -> Option<(&'static str, usize)> {
    let first = *chars.get(index)?;
    if let Some(next) = chars.get(index + 1) {
        let pair: String = [first, *next].iter().collect();
        if let Some(romaji) = lookup_kana(&pair) {
            return Some((romaji, 2));
        }
    }
    if let Some((_, romaji)) = KATAKANA_ONLY_ROMAJI.iter().find(|(c, _)| *c == first) {
        return Some((romaji, 1));
    }
    lookup_kana(first.encode_utf8(&mut [0; 4])).map(|romaji| (romaji, 1))
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'i' | 'u' | 'e' | 'o')
}

/// Kana (either script) → Hepburn romaji in ASCII. っ doubles the next consonant (`tch`
/// before `ch`), ん before a vowel or `y` is written `n'`, ー repeats the previous vowel.
/// Characters that are not kana are copied unchanged.
pub fn to_romaji(text: &str) -> String {
    let chars: Vec<char> = katakana_to_hiragana(&normalize(text)).chars().collect();
    let mut out = String::with_capacity(chars.len() * 2);
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == 'っ' || c == 'ッ' {
            if let Some((next, _)) = syllable_at(&chars, index + 1) {
                out.push_str(if next.starts_with("ch") {
                    "t"
                } else {
                    &next[..1]
                });
            }
            index += 1;
            continue;
        }
        if c == 'ー' {
            if let Some(vowel) = out.chars().rev().find(|c| is_vowel(*c)) {
                out.push(vowel);
            }
            index += 1;
            continue;
        }
        match syllable_at(&chars, index) {
            Some(("n", 1)) => {
                out.push('n');
                let next = syllable_at(&chars, index + 1).map(|(r, _)| r);
                if next.is_some_and(|r| r.starts_with(|c: char| is_vowel(c) || c == 'y')) {
                    out.push('\'');
                }
                index += 1;
            }
            Some((romaji, span)) => {
                out.push_str(romaji);
                index += span;
            }
            None => {
                out.push(c);
                index += 1;
            }
        }
    }
    out
}

/// Romaji spellings accepted by [`romaji_to_hiragana`]: Hepburn, Kunrei-shiki and the
/// wāpuro (IME) spellings, longest first where prefixes overlap.
#[rustfmt::skip]
const ROMAJI_KANA: &[(&str, &str)] = &[
    ("ltsu", "っ"), ("xtsu", "っ"),
    ("kya", "きゃ"), ("kyu", "きゅ"), ("kyo", "きょ"), ("kye", "きぇ"),
    ("sha", "しゃ"), ("shu", "しゅ"), ("sho", "しょ"), ("she", "しぇ"), ("shi", "し"),
    ("sya", "しゃ"), ("syu", "しゅ"), ("syo", "しょ"), ("sye", "しぇ"),
    ("cha", "ちゃ"), ("chu", "ちゅ"), ("cho", "ちょ"), ("che", "ちぇ"), ("chi", "ち"),
    ("tya", "ちゃ"), ("tyu", "ちゅ"), ("tyo", "ちょ"), ("tye", "ちぇ"),
    ("cya", "ちゃ"), ("cyu", "ちゅ"), ("cyo", "ちょ"),
    ("tsa", "つぁ"), ("tsi", "つぃ"), ("tse", "つぇ"), ("tso", "つぉ"), ("tsu", "つ"),
    ("nya", "にゃ"), ("nyu", "にゅ"), ("nyo", "にょ"), ("nye", "にぇ"),
    ("hya", "ひゃ"), ("hyu", "ひゅ"), ("hyo", "ひょ"), ("hye", "ひぇ"),
    ("mya", "みゃ"), ("myu", "みゅ"), ("myo", "みょ"), ("mye", "みぇ"),
    ("rya", "りゃ"), ("ryu", "りゅ"), ("ryo", "りょ"), ("rye", "りぇ"),
    ("gya", "ぎゃ"), ("gyu", "ぎゅ"), ("gyo", "ぎょ"), ("gye", "ぎぇ"),
    ("jya", "じゃ"), ("jyu", "じゅ"), ("jyo", "じょ"), ("jye", "じぇ"),
    ("zya", "じゃ"), ("zyu", "じゅ"), ("zyo", "じょ"),
    ("dya", "ぢゃ"), ("dyu", "でゅ"), ("dyo", "ぢょ"),
    ("bya", "びゃ"), ("byu", "びゅ"), ("byo", "びょ"), ("bye", "びぇ"),
    ("pya", "ぴゃ"), ("pyu", "ぴゅ"), ("pyo", "ぴょ"), ("pye", "ぴぇ"),
    ("fya", "ふゃ"), ("fyu", "ふゅ"), ("fyo", "ふょ"),
    ("vya", "ゔゃ"), ("vyu", "ゔゅ"), ("vyo", "ゔょ"),
    ("kwa", "くぁ"), ("gwa", "ぐぁ"),
    ("xya", "ゃ"), ("xyu", "ゅ"), ("xyo", "ょ"), ("lya", "ゃ"), ("lyu", "ゅ"), ("lyo", "ょ"),
    ("xtu", "っ"), ("ltu", "っ"), ("xwa", "ゎ"), ("lwa", "ゎ"),
    ("ja", "じゃ"), ("ju", "じゅ"), ("jo", "じょ"), ("je", "じぇ"), ("ji", "じ"),
    ("fa", "ふぁ"), ("fi", "ふぃ"), ("fe", "ふぇ"), ("fo", "ふぉ"), ("fu", "ふ"),
    ("va", "ゔぁ"), ("vi", "ゔぃ"), ("ve", "ゔぇ"), ("vo", "ゔぉ"), ("vu", "ゔ"),
    ("ye", "いぇ"), ("wi", "うぃ"), ("we", "うぇ"),
    ("ka", "か"), ("ki", "き"), ("ku", "く"), ("ke", "け"), ("ko", "こ"),
    ("sa", "さ"), ("si", "し"), ("su", "す"), ("se", "せ"), ("so", "そ"),
    ("ta", "た"), ("ti", "ち"), ("tu", "つ"), ("te", "て"), ("to", "と"),
    ("na", "な"), ("ni", "に"), ("nu", "ぬ"), ("ne", "ね"), ("no", "の"),
    ("ha", "は"), ("hi", "ひ"), ("hu", "ふ"), ("he", "へ"), ("ho", "ほ"),
    ("ma", "ま"), ("mi", "み"), ("mu", "む"), ("me", "め"), ("mo", "も"),
    ("ya", "や"), ("yu", "ゆ"), ("yo", "よ"),
    ("ra", "ら"), ("ri", "り"), ("ru", "る"), ("re", "れ"), ("ro", "ろ"),
    ("la", "ら"), ("li", "り"), ("lu", "る"), ("le", "れ"), ("lo", "ろ"),
    ("wa", "わ"), ("wo", "を"),
    ("ga", "が"), ("gi", "ぎ"), ("gu", "ぐ"), ("ge", "げ"), ("go", "ご"),
    ("za", "ざ"), ("zi", "じ"), ("zu", "ず"), ("ze", "ぜ"), ("zo", "ぞ"),
    ("da", "だ"), ("di", "ぢ"), ("du", "づ"), ("de", "で"), ("do", "ど"),
    ("ba", "ば"), ("bi", "び"), ("bu", "ぶ"), ("be", "べ"), ("bo", "ぼ"),
    ("pa", "ぱ"), ("pi", "ぴ"), ("pu", "ぷ"), ("pe", "ぺ"), ("po", "ぽ"),
    ("xa", "ぁ"), ("xi", "ぃ"), ("xu", "ぅ"), ("xe", "ぇ"), ("xo", "ぉ"),
    ("a", "あ"), ("i", "い"), ("u", "う"), ("e", "え"), ("o", "お"),
];

/// Longest spelling in [`ROMAJI_KANA`], in bytes.
const ROMAJI_SPELLING_MAX: usize = 4;

/// The kana for the longest romaji spelling at the start of `rest`.
fn romaji_prefix(rest: &str) -> Option<(&'static str, usize)> {
    (1..=ROMAJI_SPELLING_MAX.min(rest.len()))
        .rev()
        .find_map(|len| {
            let head = rest.get(..len)?;
            ROMAJI_TO_KANA.get(head).map(|kana| (*kana, len))
        })
}

/// How a leading `n` is read, and how many bytes it takes: `n'`, `nn` (wāpuro),
/// and `n` before a consonant or at the end are ん; `n` before a vowel or `y` is not.
fn syllabic_n(rest: &[u8]) -> Option<usize> {
    match rest.get(1).copied() {
        None => Some(1),
        Some(b'\'') => Some(2),
        Some(b'n') => {
            // "nn" + vowel is ん + n-syllable (Hepburn "konnichiwa"); otherwise "nn" is ん.
            let third = rest.get(2).copied();
            if third.is_some_and(|c| is_vowel(c as char) || c == b'y') {
                Some(1)
            } else {
                Some(2)
            }
        }
        Some(next) if is_vowel(next as char) || next == b'y' => None,
        Some(_) => Some(1),
    }
}

/// Romaji (Hepburn, Kunrei or wāpuro) → hiragana. Doubled consonants become っ, `-`
/// becomes ー; text that is not romaji is copied unchanged.
pub fn romaji_to_hiragana(text: &str) -> String {
    let text = normalize(text);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() * 2);
    let mut index = 0;
    while index < bytes.len() {
        let rest = &text[index..];
        let c = bytes[index];
        if let Some(len) = (c == b'n').then(|| syllabic_n(&bytes[index..])).flatten() {
            out.push('ん');
            index += len;
            continue;
        }
        let doubled = bytes.get(index + 1).is_some_and(|next| *next == c)
            || (c == b't' && rest.starts_with("tch"));
        if doubled && c.is_ascii_alphabetic() && !is_vowel(c as char) && c != b'n' {
            out.push('っ');
            index += 1;
            continue;
        }
        if c == b'-' {
            out.push('ー');
            index += 1;
            continue;
        }
        match romaji_prefix(rest) {
            Some((kana, len)) => {
                out.push_str(kana);
                index += len;
            }
            None => {
                // Copy one whole character (it may be multi-byte).
                let ch = rest.chars().next().unwrap_or(' ');
                out.push(ch);
                index += ch.len_utf8();
            }
        }
    }
    out
}

/// True when the text is ASCII letters (with `'` and `-`) that read entirely as kana.
pub fn is_romaji(text: &str) -> bool {
    romaji_reading(text).is_some()
}

/// The hiragana reading of text that is romaji (ASCII letters, `'` and `-`, reading
/// entirely as kana): [`is_romaji`] and [`romaji_to_hiragana`] in one pass.
pub fn romaji_reading(text: &str) -> Option<String> {
    let text = normalize(text);
    let letters = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '\'' || c == '-');
    let reading = letters.then(|| romaji_to_hiragana(&text))?;
    reading.chars().all(|c| !c.is_ascii()).then_some(reading)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfkc_folds_full_width_and_half_width_kana() {
        assert_eq!(normalize("ＫＹＯ"), "kyo");
        assert_eq!(to_hiragana("ｶﾞｯｺｳ"), "がっこう");
    }

    #[test]
    fn katakana_and_hiragana_convert_both_ways() {
        assert_eq!(katakana_to_hiragana("カタカナ・ヴ"), "かたかな・ゔ");
        assert_eq!(hiragana_to_katakana("ひらがな"), "ヒラガナ");
        assert_eq!(katakana_to_hiragana("日本ー"), "日本ー");
    }

    #[test]
    fn romaji_of_basic_kana_and_yoon() {
        assert_eq!(to_romaji("ひらがな"), "hiragana");
        assert_eq!(to_romaji("しゃしん"), "shashin");
        assert_eq!(to_romaji("ちゅうごく"), "chuugoku");
        assert_eq!(to_romaji("じゅぎょう"), "jugyou");
        assert_eq!(to_romaji("つづく"), "tsuzuku");
    }

    #[test]
    fn romaji_of_sokuon_long_vowels_and_syllabic_n() {
        assert_eq!(to_romaji("がっこう"), "gakkou");
        assert_eq!(to_romaji("まっちゃ"), "matcha");
        assert_eq!(to_romaji("コーヒー"), "koohii");
        assert_eq!(to_romaji("きんえん"), "kin'en");
        assert_eq!(to_romaji("こんや"), "kon'ya");
        assert_eq!(to_romaji("しんぶん"), "shinbun");
    }

    #[test]
    fn romaji_of_extended_katakana() {
        assert_eq!(to_romaji("ファイル"), "fairu");
        assert_eq!(to_romaji("パーティー"), "paatii");
        assert_eq!(to_romaji("ヴァイオリン"), "vaiorin");
        assert_eq!(to_romaji("チェック"), "chekku");
    }

    #[test]
    fn hepburn_kunrei_and_wapuro_read_back_the_same() {
        for spelling in ["shi", "si"] {
            assert_eq!(romaji_to_hiragana(spelling), "し");
        }
        for spelling in ["tsu", "tu"] {
            assert_eq!(romaji_to_hiragana(spelling), "つ");
        }
        assert_eq!(romaji_to_hiragana("chi"), "ち");
        assert_eq!(romaji_to_hiragana("ti"), "ち");
        assert_eq!(romaji_to_hiragana("sya"), "しゃ");
        assert_eq!(romaji_to_hiragana("jya"), "じゃ");
        assert_eq!(romaji_to_hiragana("fu"), "ふ");
        assert_eq!(romaji_to_hiragana("hu"), "ふ");
    }

    #[test]
    fn romaji_to_hiragana_handles_n_and_double_consonants() {
        assert_eq!(romaji_to_hiragana("konnichiwa"), "こんにちわ");
        assert_eq!(romaji_to_hiragana("konnnichiha"), "こんにちは");
        assert_eq!(romaji_to_hiragana("kin'en"), "きんえん");
        assert_eq!(romaji_to_hiragana("kinen"), "きねん");
        assert_eq!(romaji_to_hiragana("shinbun"), "しんぶん");
        assert_eq!(romaji_to_hiragana("nihon"), "にほん");
        assert_eq!(romaji_to_hiragana("gakkou"), "がっこう");
        assert_eq!(romaji_to_hiragana("matcha"), "まっちゃ");
        assert_eq!(romaji_to_hiragana("kitte"), "きって");
        assert_eq!(romaji_to_hiragana("ko-hi-"), "こーひー");
        assert_eq!(romaji_to_hiragana("onna"), "おんな");
    }

    #[test]
    fn round_trip_through_romaji() {
        for word in [
            "がっこう",
            "しんぶん",
            "きんえん",
            "りょこう",
            "ちょっと",
            "ぎゅうにゅう",
        ] {
            assert_eq!(romaji_to_hiragana(&to_romaji(word)), word, "{word}");
        }
    }

    #[test]
    fn romaji_detection() {
        assert!(is_romaji("Taberu"));
        assert!(!is_romaji("taberu!"));
        assert!(!is_romaji("xyz"));
        assert!(is_kana("キャ"));
        assert!(!is_kana("日"));
    }
}
