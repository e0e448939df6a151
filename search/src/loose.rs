//! The loose romaji key: one spelling for every way a learner writes the same sounds.
//!
//! Hepburn with macrons (`kōhī`), with circumflexes (`kôhî`), with doubled vowels
//! (`koohii`), wāpuro (`toukyou`), `oh` for a long o (`tohkyoh`), no long vowels at all
//! (`tokyo`), `n'` or `nn` for ん and `wo` for を all fold to one key (`kohi`, `tokyo`),
//! and a kana reading folds to the same key through its romaji. The key loses
//! information on purpose (`obasan` and `obaasan` meet), so a match on it ranks below an
//! exact reading.

use crate::kana;

/// The loose key of a romaji word, or of a kana reading; `None` when the text is
/// neither (kanji, English words that do not read as romaji).
pub fn loose_key(text: &str) -> Option<String> {
    let plain = kana::long_vowels_doubled(&kana::normalize(text), false);
    let folded = if kana::is_kana(&plain) {
        fold(&kana::to_romaji(&plain))
    } else {
        // Folded first: `tohkyoh` reads as romaji only once `oh` is a long o.
        let folded = fold(&plain);
        if !plain.is_ascii() || !kana::is_romaji(&folded) {
            return None;
        }
        folded
    };
    (!folded.is_empty()).then_some(folded)
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'i' | b'u' | b'e' | b'o')
}

/// The folding itself, on lowercase ASCII romaji: apostrophes and hyphens go, `wo`
/// becomes `o`, a doubled `n` becomes one, `ou` and `oh` (before a consonant or at the
/// end) become `o`, and a run of one vowel becomes a single vowel.
fn fold(romaji: &str) -> String {
    let bytes: Vec<u8> = romaji.bytes().filter(|c| c.is_ascii_alphabetic()).collect();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        let next = bytes.get(at + 1).copied();
        let after = bytes.get(at + 2).copied();
        match (c, next) {
            (b'w', Some(b'o')) => {
                at += 1;
                continue;
            }
            (b'o', Some(b'u')) => {
                out.push(b'o');
                at += 2;
                continue;
            }
            (b'o', Some(b'h')) if after.is_none_or(|c| !is_vowel(c) && c != b'y') => {
                out.push(b'o');
                at += 2;
                continue;
            }
            _ => {}
        }
        let repeats = out.last() == Some(&c);
        if repeats && (is_vowel(c) || c == b'n') {
            at += 1;
            continue;
        }
        out.push(c);
        at += 1;
    }
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_long_vowel_meets() {
        for spelling in [
            "kōhī",
            "kôhî",
            "koohii",
            "kohi",
            "コーヒー",
            "こーひー",
            "KŌHĪ",
        ] {
            assert_eq!(loose_key(spelling).as_deref(), Some("kohi"), "{spelling}");
        }
        for spelling in [
            "tōkyō",
            "toukyou",
            "tookyoo",
            "tohkyoh",
            "tokyo",
            "とうきょう",
        ] {
            assert_eq!(loose_key(spelling).as_deref(), Some("tokyo"), "{spelling}");
        }
        assert_eq!(loose_key("ryōma"), loose_key("りょうま"));
        assert_eq!(loose_key("ito"), loose_key("いとう"));
    }

    #[test]
    fn n_apostrophes_and_wo_fold() {
        assert_eq!(loose_key("kon'nichiwa"), loose_key("konnichiwa"));
        assert_eq!(loose_key("hon'ya"), loose_key("honya"));
        assert_eq!(loose_key("wo"), loose_key("o"));
        assert_eq!(loose_key("を"), Some("o".to_owned()));
    }

    #[test]
    fn oh_before_a_vowel_is_not_a_long_o() {
        assert_eq!(loose_key("ohayou").as_deref(), Some("ohayo"));
        assert_eq!(loose_key("おはよう").as_deref(), Some("ohayo"));
    }

    #[test]
    fn text_that_is_not_romaji_or_kana_has_no_key() {
        assert_eq!(loose_key("食べる"), None);
        assert_eq!(loose_key("xyz"), None);
        assert_eq!(loose_key(""), None);
    }
}
