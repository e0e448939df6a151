//! What a historical term's JMdict gloss ties it to: the periods it names (`low class
//! samurai … (Edo period)`, `Heian and Kamakura periods`, `Tokugawa shogunate`), the years
//! it gives (`Imperial Japanese Navy (1872-1945)`), and the key terms of the institutions
//! it belongs to (`middle palace guard (ritsuryo system)` → 律令制). Rules
//! `gloss-names-period`, `gloss-years-overlap-period` and `gloss-names-term` of
//! docs/history.md.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::romaji::match_key;

/// Words after a period's name that make the name a period: `Edo period`, `Meiji era`,
/// `Heian times`; a shogunate is the government of its period (`Kamakura shogunate`).
const PERIOD_WORDS: &[&str] = &[
    "period",
    "periods",
    "era",
    "eras",
    "times",
    "shogunate",
    "bakufu",
];
/// Words that may stand between a name and its period word: `Heian and Kamakura
/// periods`, `early to mid Edo period`.
const FILLERS: &[&str] = &["and", "or", "to", "through", "early", "late", "mid", "the"];
/// The fillers that join two period names.
const JOINING: &[&str] = &["and", "or", "to", "through"];
/// A name right after one of these is not the period itself (`pre-Meiji`, `post-Nara`,
/// `epi-Jōmon`).
const EXCLUDING: &[&str] = &["pre", "post", "epi", "before", "after", "non", "prior"];
/// Words that may stand between an excluding word and the name (`prior to the Meiji`).
const BETWEEN: &[&str] = &["to", "the"];

/// Whether the words before `i`, past [`BETWEEN`] words, end in an [`EXCLUDING`] one.
fn excluded_before(words: &[String], i: usize) -> bool {
    words[..i]
        .iter()
        .rev()
        .find(|w| !BETWEEN.contains(&w.as_str()))
        .is_some_and(|w| EXCLUDING.contains(&w.as_str()))
}

/// The key terms a gloss can name, by a pattern of the English words for them, and the
/// headword of the term (or, for the Meiji constitution, the canon event) they are (rule
/// `gloss-names-term`).
pub const KEY_TERMS: &[(&str, &str)] = &[
    (r"\britsury[oō]", "律令制"),
    (r"\bsamurai\b", "侍"),
    (r"\bdaimy[oō]u?s?\b|\bfeudal lords?\b", "大名"),
    (r"\bninja|\bninjutsu\b", "忍者"),
    (r"\bshogunate\b|\bbakufu\b", "幕府"),
    (r"\bsh[oō]u?gun\b", "将軍"),
    (r"\bcourt nobles?\b|\bkuge\b", "公家"),
    (r"\bfeudal (?:domains?|clans?)\b|\bhan\b \(domain\)", "藩"),
    (r"\bfeudal(?:ism)?\b", "封建時代"),
    (
        r"\bimperial court\b|\bcourt (?:lad(?:y|ies)|ranks?|music(?:ians?)?|officials?)\b",
        "宮廷",
    ),
    (r"\bMeiji constitution\b", "大日本帝国憲法"),
    (r"\bukiyo-?e\b", "浮世絵"),
    (r"\bmagistrates?(?:'s?)?\b", "奉行"),
];

/// The headwords of the [`KEY_TERMS`] a gloss names, each once.
pub fn key_terms_in(gloss: &str) -> Vec<&'static str> {
    static PATTERNS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        KEY_TERMS
            .iter()
            .map(|(pattern, headword)| {
                let regex = Regex::new(&format!("(?i){pattern}")).expect("key term pattern");
                (regex, *headword)
            })
            .collect()
    });
    let mut found: Vec<&'static str> = Vec::new();
    for (regex, headword) in PATTERNS.iter() {
        if regex.is_match(gloss) && !found.contains(headword) {
            found.push(headword);
        }
    }
    found
}

static YEARS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\((?:c\.\s*|approx\.\s*)?(\d{3,4})\s*[-–]\s*(\d{3,4})\)").expect("years")
});

/// Period names by [`match_key`]: `edo`, `tokugawa`, `azuchimomoyama`, to an index the
/// caller chooses.
pub struct PeriodNames<T> {
    by_key: HashMap<String, T>,
}

impl<T: Copy> Default for PeriodNames<T> {
    fn default() -> Self {
        PeriodNames {
            by_key: HashMap::new(),
        }
    }
}

impl<T: Copy> PeriodNames<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a period by a name such as `Edo period` or `Tokugawa period`; names
    /// without the word "period" are ignored, and the first period given a name keeps it.
    pub fn add(&mut self, name: &str, value: T) {
        let Some(stem) = name
            .strip_suffix(" period")
            .or_else(|| name.strip_suffix(" Period"))
        else {
            return;
        };
        let key = match_key(stem);
        if !key.is_empty() {
            self.by_key.entry(key).or_insert(value);
        }
    }

    /// The periods a gloss names, each once, in the order they appear.
    pub fn named_in(&self, gloss: &str) -> Vec<T>
    where
        T: PartialEq,
    {
        let words: Vec<String> = gloss
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut found: Vec<T> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let Some((value, width)) = self.name_at(&words, i) else {
                i += 1;
                continue;
            };
            let excluded = excluded_before(&words, i);
            if !excluded
                && self.followed_by_period_word(&words, i + width)
                && !found.contains(&value)
            {
                found.push(value);
            }
            i += width;
        }
        found
    }

    /// A period name starting at word `i`, of one or two words (`azuchi momoyama`).
    fn name_at(&self, words: &[String], i: usize) -> Option<(T, usize)> {
        if let Some(next) = words.get(i + 1)
            && let Some(&value) = self.by_key.get(&match_key(&format!("{}{next}", words[i])))
        {
            return Some((value, 2));
        }
        self.by_key.get(&match_key(&words[i])).map(|&v| (v, 1))
    }

    /// True when, past fillers and further period names, the next word is a period word.
    /// A further name counts only after a joining word (`Heian and Kamakura periods`), so
    /// `Tales of Yamato (Heian period)` names Heian, not Yamato.
    fn followed_by_period_word(&self, words: &[String], mut i: usize) -> bool {
        let mut joined = false;
        while let Some(word) = words.get(i) {
            if PERIOD_WORDS.contains(&word.as_str()) {
                return true;
            }
            if FILLERS.contains(&word.as_str()) {
                joined |= JOINING.contains(&word.as_str());
                i += 1;
            } else if let Some((_, width)) = self.name_at(words, i).filter(|_| joined) {
                i += width;
                joined = false;
            } else {
                return false;
            }
        }
        false
    }
}

/// A year a gloss dates its sense by (rule `gloss-dates-term`): in a bracket or after
/// `in`, `from`, `between`, `to`, `ca.` or a comma, optionally a range (`1904-5`, `between
/// 1941 and 1947`), and ending at a bracket, a punctuation mark, `CE` or the end of the
/// gloss; or a bracket that opens with a four-digit year and a word (`(1913 novel`). Not a measure (`approx. 278.26 liters`), a count (`the 105 titled trusteeships`),
/// an open start (`since 1946`, `(1947-)`) or a year before the era (`512 BC`).
static DATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:\(|\b(?:in|from|between|to|ca\.?|c\.|approx\.)\s+|,\s+)(\d{3,4})(?:\s*CE)?",
        r"(?:\s*(?:-|–|and|to)\s*(\d{1,4})(?:\s*CE)?)?",
        r"(?:[)\];:,]|\s+CE\b|\s*$|\s+(?:and|to|by|at|in|on|as|when|under|with|after|before)\b)",
        // A bracket that opens with a year and a word: `(1913 novel by Mori Ōgai)`.
        r"|\((\d{4})\s+[a-z]"
    ))
    .expect("dated pattern")
});

/// The years a gloss dates its sense by, as a half-open span `[from, to)`: a single year
/// `in 1940` is `(1940, 1941)`; a range `(1939-1947)` is `(1939, 1948)` and `1904-5` is
/// `(1904, 1906)`. The first date in the gloss counts, except one that ends or changes the
/// thing (`abolished in 1947`, `revised in 1926`); `None` when there is none.
pub fn dated_in(gloss: &str) -> Option<(i32, i32)> {
    let captures = DATED.captures_iter(gloss).find(|c| {
        let before = gloss[..c.get(0).map_or(0, |m| m.start())].trim_end();
        !["abolished", "revised", "dissolved", "became"]
            .iter()
            .any(|word| before.ends_with(word))
    })?;
    let from: i32 = captures
        .get(1)
        .or_else(|| captures.get(3))?
        .as_str()
        .parse()
        .ok()?;
    let to = match captures.get(2) {
        None => from + 1,
        Some(end) => {
            let end: i32 = end.as_str().parse().ok()?;
            // `1904-5`, `1959-60`: the end's century is the start's.
            let end = if end < 100 {
                from - from % 100 + end
            } else {
                end
            };
            if end <= from {
                return None;
            }
            end + 1
        }
    };
    Some((from, to))
}

/// The first year range a gloss gives in brackets, `(1872-1945)`, when it runs forward.
pub fn years_in(gloss: &str) -> Option<(i32, i32)> {
    let captures = YEARS.captures(gloss)?;
    let from: i32 = captures[1].parse().ok()?;
    let to: i32 = captures[2].parse().ok()?;
    (from < to).then_some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> PeriodNames<&'static str> {
        let mut names = PeriodNames::new();
        for (name, id) in [
            ("Edo period", "edo"),
            ("Tokugawa period", "edo"),
            ("Heian period", "heian"),
            ("Kamakura period", "kamakura"),
            ("Nara period", "nara"),
            ("Yamato period", "yamato"),
            ("Meiji period", "meiji"),
            ("Azuchi-Momoyama period", "am"),
            ("Nanboku-chō period", "nbc"),
            ("Edo Jidai", "ignored"),
        ] {
            names.add(name, id);
        }
        names
    }

    #[test]
    fn a_gloss_names_its_periods_but_not_those_it_is_before_or_after() {
        let names = names();
        let found = |gloss: &str| names.named_in(gloss);
        assert_eq!(
            found("low class samurai, who guarded the shogun on outings (Edo period)"),
            ["edo"]
        );
        assert_eq!(found("(Edo-period) room for confining criminals"), ["edo"]);
        assert_eq!(
            found("journeying to Song China during the Heian and Kamakura periods"),
            ["heian", "kamakura"]
        );
        assert_eq!(
            found("late Edo period and early Meiji era"),
            ["edo", "meiji"]
        );
        assert_eq!(found("Tokugawa shogunate official"), ["edo"]);
        assert_eq!(found("castle of the Azuchi-Momoyama period"), ["am"]);
        assert_eq!(found("court of the Nanboku-cho period"), ["nbc"]);
        assert!(found("quiver (worn on the right hip; post-Nara period)").is_empty());
        assert!(found("pre-Meiji period custom").is_empty());
        assert!(found("father (esp. in samurai families prior to the Meiji period)").is_empty());
        assert!(found("Heian court clothing").is_empty(), "no period word");
        assert!(found("Nara Buddhism").is_empty());
        assert_eq!(found("Tales of Yamato (Heian period)"), ["heian"]);
        assert!(found("name given in the Edo Jidai").is_empty());
    }

    #[test]
    fn a_gloss_names_the_key_terms_of_its_institution() {
        assert_eq!(
            key_terms_in("middle palace guard (ritsuryo system)"),
            ["律令制"]
        );
        assert_eq!(
            key_terms_in("supporters of the shogun; shogunate official"),
            ["幕府", "将軍"]
        );
        assert_eq!(
            key_terms_in("castle of a feudal lord"),
            ["大名", "封建時代"]
        );
        assert_eq!(
            key_terms_in("currency issued by a feudal clan"),
            ["藩", "封建時代"]
        );
        assert_eq!(key_terms_in("court lady; noblewoman"), ["宮廷"]);
        assert_eq!(
            key_terms_in("direct ruling of the Emperor (under the Meiji constitution)"),
            ["大日本帝国憲法"]
        );
        assert_eq!(key_terms_in("retainer of a daimyo"), ["大名"]);
        assert!(key_terms_in("handsome; good-looking").is_empty());
        assert!(key_terms_in("a khan of the Mongols").is_empty());
    }

    #[test]
    fn bracketed_years_that_run_forward_date_a_term() {
        assert_eq!(
            years_in("Imperial Japanese Navy (1872-1945)"),
            Some((1872, 1945))
        );
        assert_eq!(
            years_in("feudal period (characterized by the rule of the shogunate, 1185-1867)"),
            None,
            "only a bracket of years alone"
        );
        assert_eq!(years_in("reform (1945-1912)"), None);
        assert_eq!(years_in("no years here"), None);
    }

    #[test]
    fn a_gloss_dates_its_sense_by_a_year_or_a_range() {
        assert_eq!(
            dated_in("neighborhood association (established in Japan in 1940)"),
            Some((1940, 1941))
        );
        assert_eq!(
            dated_in("peerage (in Japan, 1868-1946); nobility"),
            Some((1868, 1947))
        );
        assert_eq!(dated_in("Russo-Japanese War (1904-5)"), Some((1904, 1906)));
        assert_eq!(
            dated_in("campaign against the treaty (1959-60, 1970)"),
            Some((1959, 1961))
        );
        assert_eq!(
            dated_in("elementary school (operated in Japan between 1941 and 1947)"),
            Some((1941, 1948))
        );
        assert_eq!(
            dated_in("Japan's first coinage (dating to 683 CE, but perhaps never in circulation)"),
            Some((683, 684))
        );
        assert_eq!(
            dated_in("eight hereditary titles (designated by Emperor Tenmu in 684 CE: Mahito)"),
            Some((684, 685))
        );
        assert_eq!(
            dated_in("Osaka Incident; plot to support a Korean uprising, 1885"),
            Some((1885, 1886))
        );
        assert_eq!(
            dated_in("hairstyle tied up with a ribbon (ca. 1885)"),
            Some((1885, 1886))
        );
        assert_eq!(
            dated_in("measure of loading capacity (approx. 278.26 liters)"),
            None
        );
        assert_eq!(dated_in("one of the 105 titled trusteeships"), None);
        assert_eq!(
            dated_in("new character form used in Japan since 1946"),
            None
        );
        assert_eq!(dated_in("National Diet of Japan (1947-)"), None);
        assert_eq!(
            dated_in("The Art of War (military text by Sun Tzu, 512 BC)"),
            None
        );
        assert_eq!(
            dated_in("ferry taking passengers for nearly 400 years"),
            None
        );
    }
}
