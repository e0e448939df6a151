//! Just enough romanization to tell whether an English name is the reading of a Japanese
//! one: JMnedict writes `Tokugawa Ieyasu` for とくがわいえやす but `Deng Xiaoping` for the
//! Japanese reading とうしょうへい of 鄧小平.

const DIGRAPHS: &[(&str, &str)] = &[
    ("きゃ", "kya"),
    ("きゅ", "kyu"),
    ("きょ", "kyo"),
    ("ぎゃ", "gya"),
    ("ぎゅ", "gyu"),
    ("ぎょ", "gyo"),
    ("しゃ", "sha"),
    ("しゅ", "shu"),
    ("しょ", "sho"),
    ("じゃ", "ja"),
    ("じゅ", "ju"),
    ("じょ", "jo"),
    ("ちゃ", "cha"),
    ("ちゅ", "chu"),
    ("ちょ", "cho"),
    ("ぢゃ", "ja"),
    ("ぢゅ", "ju"),
    ("ぢょ", "jo"),
    ("にゃ", "nya"),
    ("にゅ", "nyu"),
    ("にょ", "nyo"),
    ("ひゃ", "hya"),
    ("ひゅ", "hyu"),
    ("ひょ", "hyo"),
    ("びゃ", "bya"),
    ("びゅ", "byu"),
    ("びょ", "byo"),
    ("ぴゃ", "pya"),
    ("ぴゅ", "pyu"),
    ("ぴょ", "pyo"),
    ("みゃ", "mya"),
    ("みゅ", "myu"),
    ("みょ", "myo"),
    ("りゃ", "rya"),
    ("りゅ", "ryu"),
    ("りょ", "ryo"),
];

const MONOGRAPHS: &str = "あa い i う u え e お o か ka き ki く ku け ke こ ko が ga ぎ gi ぐ gu げ ge ご go \
さ sa し shi す su せ se そ so ざ za じ ji ず zu ぜ ze ぞ zo た ta ち chi つ tsu て te と to \
だ da ぢ ji づ zu で de ど do な na に ni ぬ nu ね ne の no は ha ひ hi ふ fu へ he ほ ho \
ば ba び bi ぶ bu べ be ぼ bo ぱ pa ぴ pi ぷ pu ぺ pe ぽ po ま ma み mi む mu め me も mo \
や ya ゆ yu よ yo ら ra り ri る ru れ re ろ ro わ wa ゐ i ゑ e を o ん n ゔ vu";

fn monograph(c: char) -> Option<&'static str> {
    let mut tokens = MONOGRAPHS.split_whitespace();
    while let Some(token) = tokens.next() {
        let mut chars = token.chars();
        let kana = chars.next()?;
        // "あa" is written without a space so the table stays aligned; split it here.
        let romaji = if chars.as_str().is_empty() {
            tokens.next()?
        } else {
            chars.as_str()
        };
        if kana == c {
            return Some(romaji);
        }
    }
    None
}

/// Katakana → hiragana; other characters unchanged.
pub fn to_hiragana(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'ァ'..='ヶ' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Hepburn romaji of a kana text, lowercase, long vowels spelled out (`ou`, `uu`).
/// Characters that are not kana are dropped.
pub fn kana_to_romaji(text: &str) -> String {
    let chars: Vec<char> = to_hiragana(text).chars().collect();
    let mut out = String::new();
    let mut double_next = false;
    let mut index = 0;
    while index < chars.len() {
        let pair: String = chars[index..chars.len().min(index + 2)].iter().collect();
        let (romaji, span) = match DIGRAPHS.iter().find(|(kana, _)| *kana == pair) {
            Some((_, romaji)) => (Some(*romaji), 2),
            None => (monograph(chars[index]), 1),
        };
        match (chars[index], romaji) {
            ('っ', _) => double_next = true,
            ('ー', _) => {
                if let Some(vowel) = out.chars().last() {
                    out.push(vowel);
                }
            }
            (_, Some(romaji)) => {
                if double_next {
                    out.push_str(if romaji.starts_with("ch") {
                        "t"
                    } else {
                        &romaji[..1]
                    });
                    double_next = false;
                }
                out.push_str(romaji);
            }
            _ => {}
        }
        index += span;
    }
    out
}

/// A spelling-insensitive key: lowercase letters only, macrons spelled out, long vowels
/// and `m`/`n` before labials collapsed, so `Shōgun`, `Shougun` and `Shogun` agree.
pub fn match_key(text: &str) -> String {
    let mut letters = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'ā' | 'â' => letters.push_str("aa"),
            'ī' | 'î' => letters.push_str("ii"),
            'ū' | 'û' => letters.push_str("uu"),
            'ē' | 'ê' => letters.push_str("ee"),
            'ō' | 'ô' => letters.push_str("ou"),
            'a'..='z' => letters.push(c),
            _ => {}
        }
    }
    let mut key = letters;
    for (long, short) in [
        ("ou", "o"),
        ("oo", "o"),
        ("uu", "u"),
        ("aa", "a"),
        ("ii", "i"),
        ("ee", "e"),
    ] {
        key = key.replace(long, short);
    }
    key.replace("mb", "nb")
        .replace("mp", "np")
        .replace("mm", "nm")
}

/// True when `name` (Latin letters) spells the kana `reading`, in this word order or with
/// its words reversed (family name last).
pub fn spells(name: &str, reading: &str) -> bool {
    let reading_key = match_key(&kana_to_romaji(reading));
    if reading_key.is_empty() {
        return false;
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    let forward = match_key(&words.join(""));
    let reversed = match_key(&words.iter().rev().copied().collect::<Vec<_>>().join(""));
    forward == reading_key || reversed == reading_key
}

/// An ASCII slug: lowercase letters and digits joined by single hyphens.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        let ascii = match c {
            'ā' | 'â' => Some('a'),
            'ī' | 'î' => Some('i'),
            'ū' | 'û' => Some('u'),
            'ē' | 'ê' => Some('e'),
            'ō' | 'ô' => Some('o'),
            c if c.is_ascii_alphanumeric() => Some(c),
            _ => None,
        };
        match ascii {
            Some(c) => out.push(c),
            None if !out.is_empty() && !out.ends_with('-') => out.push('-'),
            None => {}
        }
    }
    out.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn romanizes_kana() {
        assert_eq!(kana_to_romaji("とくがわいえやす"), "tokugawaieyasu");
        assert_eq!(kana_to_romaji("りゅうこう"), "ryuukou");
        assert_eq!(kana_to_romaji("ほっけ"), "hokke");
        assert_eq!(kana_to_romaji("メイジ"), "meiji");
    }

    #[test]
    fn japanese_names_spell_their_readings_and_foreign_ones_do_not() {
        assert!(spells("Tokugawa Ieyasu", "とくがわいえやす"));
        assert!(spells("Minamoto No Yoritomo", "みなもとのよりとも"));
        assert!(spells("Itō Hirobumi", "いとうひろぶみ"));
        assert!(spells("Ieyasu Tokugawa", "とくがわいえやす"));
        assert!(!spells("Deng Xiaoping", "とうしょうへい"));
    }

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("Shōwa"), "showa");
        assert_eq!(slug("Tenpyō-kanpō"), "tenpyo-kanpo");
        assert_eq!(slug("Go-En'yuu (Northern)"), "go-en-yuu-northern");
    }
}
