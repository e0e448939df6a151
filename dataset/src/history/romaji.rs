//! Just enough romanization to tell whether an English name is the reading of a Japanese
//! one: JMnedict writes `Tokugawa Ieyasu` for とくがわいえやす but `Deng Xiaoping` for the
//! Japanese reading とうしょうへい of 鄧小平.
//!
//! The romaji is the search crate's (`manabi_search::kana`, over `wana_kana`); what is
//! history's own is the folding on top: letters only, and a key that no spelling of a long
//! vowel or of ん before a labial can tell apart.

use manabi_search::kana;

/// Hepburn romaji of a kana text, lowercase, long vowels spelled out (`ou`, `uu`), in
/// letters only: ん before a vowel is a plain `n` (`kinen`, as ids are slugs of it) and
/// characters that are not kana are dropped. So are the small vowels of extended katakana
/// (ファー `fuu`, ティー `tee`): term ids were minted so, and an id stays once published.
pub fn kana_to_romaji(text: &str) -> String {
    let kana: String = text
        .chars()
        .filter(|c| kana::is_kana_char(*c) && !"ぁぃぅぇぉァィゥェォ".contains(*c))
        .collect();
    let mut romaji = kana::to_romaji(&kana);
    romaji.retain(|c| c.is_ascii_lowercase());
    romaji
}

/// A spelling-insensitive key: lowercase letters only, macrons spelled out, long vowels
/// and `m`/`n` before labials collapsed, so `Shōgun`, `Shougun` and `Shogun` agree.
pub fn match_key(text: &str) -> String {
    let mut key = kana::long_vowels_doubled(&text.to_lowercase(), true);
    key.retain(|c| c.is_ascii_lowercase());
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
        let ascii = kana::long_vowel_base(c).or(c.is_ascii_alphanumeric().then_some(c));
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
    fn term_ids_keep_the_spelling_they_were_minted_with() {
        assert_eq!(kana_to_romaji("きんえん"), "kinen");
        assert_eq!(kana_to_romaji("ティー"), "tee");
        assert_eq!(kana_to_romaji("ファーザーズ"), "fuuzaazu");
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
