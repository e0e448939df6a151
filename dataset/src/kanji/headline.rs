//! The kanji's short `meaning`: three of KANJIDIC2's meanings, those the kanji's own words
//! use first.
//!
//! KANJIDIC2 lists a kanji's meanings in no order a learner can rely on: 参 starts with
//! "nonplussed, three (in documents)", 余 with "too much, myself". A meaning is *used* when
//! the first sense of a word shown with the kanji (a JLPT word, or one of the 10,000 most
//! frequent, whose label has the kanji) shares a content word with it (参加
//! "participation" uses "participate"). The used meanings come first, then the others,
//! each group in KANJIDIC2's order (a kanji none of whose meanings its words use keeps
//! KANJIDIC2's order). Only the used ones are not enough: the word matching misses
//! meanings a learner needs (様 "Esq." is the suffix 〜様 glossed "Mr.; Mrs."). The full
//! list in `kanji.meanings` stays as KANJIDIC2 gives it.

use std::collections::HashMap;

use manabi_schemas::{Learnable, LearnableBody};

use crate::context::BuiltLearnable;
use crate::ids;

/// How many meanings make up the short `meaning`.
pub const MEANINGS_MAX: usize = 3;
/// Words ranked up to here count even without a JLPT level.
const FREQUENT_RANK_MAX: u32 = 10_000;
/// Words that say nothing about a meaning.
const STOP_WORDS: [&str; 17] = [
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "and", "or", "be", "is",
    "as", "one",
];
/// Endings taken off before two words are compared, longest first.
const ENDINGS: [&str; 7] = ["ation", "ing", "ion", "ed", "es", "s", "e"];
/// Shortest stem that may match a longer word it begins.
const PREFIX_MIN: usize = 4;
/// Shortest word left after an ending is taken off (going → go).
const STEM_MIN: usize = 2;

/// The first-sense glosses of the words that teach each kanji, by kanji id.
pub fn words_by_kanji<'a>(
    learnables: impl IntoIterator<Item = &'a Learnable>,
) -> HashMap<&'a str, Vec<&'a [String]>> {
    let mut words: HashMap<&str, Vec<&[String]>> = HashMap::new();
    for learnable in learnables {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        let taught = learnable.jlpt_level.is_some()
            || detail
                .frequency_rank
                .is_some_and(|rank| rank <= FREQUENT_RANK_MAX);
        let Some(first) = detail.senses.first() else {
            continue;
        };
        if !taught {
            continue;
        }
        // Only the kanji of the word as it is shown: ポーランド's rare spelling 波蘭 does
        // not make "Poland" a meaning 波's words use.
        let label = learnable.label.as_deref().unwrap_or_default();
        let shown: Vec<String> = label.chars().map(ids::kanji).collect();
        for kanji in detail.kanji.iter().filter(|id| shown.contains(id)) {
            words
                .entry(kanji.as_str())
                .or_default()
                .push(&first.glosses);
        }
    }
    words
}

/// The short meaning of a kanji with these KANJIDIC2 `meanings`, given the first-sense
/// glosses of its words: the used meanings first, each group in KANJIDIC2's order.
pub fn headline(meanings: &[String], words: &[&[String]]) -> Vec<String> {
    let glossed: Vec<String> = words
        .iter()
        .flat_map(|glosses| glosses.iter())
        .flat_map(|gloss| content_words(gloss))
        .collect();
    let used = |meaning: &String| {
        content_words(meaning)
            .iter()
            .any(|word| glossed.iter().any(|gloss| same_word(word, gloss)))
    };
    let (first, rest): (Vec<&String>, Vec<&String>) = meanings.iter().partition(|m| used(m));
    first
        .into_iter()
        .chain(rest)
        .take(MEANINGS_MAX)
        .cloned()
        .collect()
}

/// Sets every kanji's short meaning by [`headline`].
pub fn apply(learnables: &mut [BuiltLearnable]) {
    let headlines: Vec<(usize, String)> = {
        let words = words_by_kanji(learnables.iter().map(|built| &built.learnable));
        learnables
            .iter()
            .map(|built| &built.learnable)
            .enumerate()
            .filter_map(|(index, learnable)| {
                let LearnableBody::Kanji(detail) = &learnable.body else {
                    return None;
                };
                let uses = words
                    .get(learnable.id.as_str())
                    .map_or(&[][..], Vec::as_slice);
                let short = headline(&detail.meanings, uses);
                (!short.is_empty()).then(|| (index, short.join(", ")))
            })
            .collect()
    };
    for (index, meaning) in headlines {
        learnables[index].learnable.meaning = Some(meaning);
    }
}

/// The lowercase words of a text outside parentheses, stop words left out.
fn content_words(text: &str) -> Vec<String> {
    let mut plain = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c.to_ascii_lowercase()),
            _ => {}
        }
    }
    plain
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| !word.is_empty() && !STOP_WORDS.contains(word))
        .map(str::to_owned)
        .collect()
}

fn stem(word: &str) -> &str {
    ENDINGS
        .iter()
        .find_map(|ending| {
            word.strip_suffix(ending)
                .filter(|rest| rest.len() >= STEM_MIN)
        })
        .unwrap_or(word)
}

/// Two words are the same when their stems are, or one stem of at least four letters
/// begins the other (participate, participation).
fn same_word(a: &str, b: &str) -> bool {
    let (a, b) = (stem(a), stem(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= PREFIX_MIN && long.starts_with(short))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn meanings_the_words_use_come_first_in_kanjidic_order() {
        let meanings = strings(&[
            "nonplussed",
            "three (in documents)",
            "going",
            "coming",
            "participate",
        ]);
        let participation = strings(&["participation"]);
        let go = strings(&["to go", "to come"]);
        let words: Vec<&[String]> = vec![&participation, &go];
        assert_eq!(
            headline(&meanings, &words),
            strings(&["going", "coming", "participate"])
        );
    }

    #[test]
    fn a_kanji_whose_words_use_no_meaning_keeps_kanjidic_order() {
        let meanings = strings(&["doth", "do", "send", "forward"]);
        let unrelated = strings(&["cushion"]);
        assert_eq!(
            headline(&meanings, &[&unrelated]),
            strings(&["doth", "do", "send"])
        );
        assert_eq!(headline(&meanings, &[]), strings(&["doth", "do", "send"]));
    }

    #[test]
    fn words_in_parentheses_and_stop_words_do_not_count() {
        assert_eq!(content_words("three (in documents)"), strings(&["three"]));
        assert_eq!(content_words("take part in"), strings(&["take", "part"]));
        assert!(same_word("visiting", "visit"));
        assert!(same_word("participate", "participation"));
        assert!(!same_word("art", "article"));
    }
}
