//! Read-only views of the learnables a lesson teaches: the word, reading and meaning a
//! learner sees, and the level and track the builder files each entry under.

use std::collections::BTreeMap;

use manabi_schemas::history::{AliasScript, HistoryDetail};
use manabi_schemas::{Learnable, LearnableBody, LearnableType};

/// The level given to kana lessons: they come before everything else.
pub const KANA_LEVEL: u8 = 5;
/// The level given to radical lessons: radicals help once kanji learning starts.
pub const RADICAL_LEVEL: u8 = 4;

/// The two ways a world's lessons split at a branch point. The reading track gathers
/// entries met mostly in print; the conversation track those used in speech.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Track {
    Reading,
    Conversation,
}

impl Track {
    pub const ALL: [Track; 2] = [Track::Reading, Track::Conversation];

    pub fn slug(self) -> &'static str {
        match self {
            Track::Reading => "reading",
            Track::Conversation => "conversation",
        }
    }
}

/// Gendered glosses and their counterparts: a meaning cut after one of them would say
/// the word is for one sex only (配偶者 "spouse; wife" without "husband").
const GENDERED_PAIRS: [(&str, &str); 8] = [
    ("wife", "husband"),
    ("father", "mother"),
    ("son", "daughter"),
    ("brother", "sister"),
    ("man", "woman"),
    ("boy", "girl"),
    ("king", "queen"),
    ("uncle", "aunt"),
];

fn counterparts(a: &str, b: &str) -> bool {
    GENDERED_PAIRS
        .iter()
        .any(|&(x, y)| (a == x && b == y) || (a == y && b == x))
}

/// The English meaning a learner is shown: the first two glosses of the entry, and a
/// third when it is the second's other sex (spouse; wife; husband).
pub fn meaning(learnable: &Learnable) -> String {
    if let LearnableBody::History(detail) = &learnable.body {
        return detail.canonical_name.clone();
    }
    let text = learnable.meaning.clone().unwrap_or_default();
    let glosses: Vec<&str> = text.split("; ").collect();
    let shown = match glosses.as_slice() {
        [_, second, third, ..] if counterparts(second, third) => 3,
        _ => 2,
    };
    glosses[..shown.min(glosses.len())].join("; ")
}

/// The written form a lesson shows.
pub fn label(learnable: &Learnable) -> String {
    if let LearnableBody::History(detail) = &learnable.body {
        return history_kanji(detail).unwrap_or_else(|| detail.canonical_name.clone());
    }
    learnable
        .label
        .clone()
        .or_else(|| learnable.pattern.clone())
        .unwrap_or_else(|| learnable.id.clone())
}

/// The first kana reading of a word, kanji or history entity.
pub fn reading(learnable: &Learnable) -> Option<String> {
    match &learnable.body {
        LearnableBody::Vocabulary(detail) => detail.readings.first().map(|r| r.text.clone()),
        LearnableBody::Kanji(detail) => {
            let on = detail.readings.on.first();
            on.or(detail.readings.kun.first()).cloned()
        }
        LearnableBody::History(detail) => alias(detail, AliasScript::Kana),
        LearnableBody::Radical(detail) => detail.names.first().cloned(),
        LearnableBody::Character(detail) => Some(detail.romaji.clone()),
        LearnableBody::Grammar(_) => None,
    }
}

fn alias(detail: &HistoryDetail, script: AliasScript) -> Option<String> {
    let found = detail.aliases.iter().find(|a| a.script == script);
    found.map(|a| a.text.clone())
}

/// The kanji name of a history entity, when it has one.
pub fn history_kanji(detail: &HistoryDetail) -> Option<String> {
    alias(detail, AliasScript::Kanji)
}

/// The year a history entity starts, from its timespan (`-0660` → -660).
pub fn start_year(detail: &HistoryDetail) -> Option<i32> {
    year_of(detail.timespan.as_ref()?.start.as_ref()?)
}

/// The year a history entity ends, from its timespan.
pub fn end_year(detail: &HistoryDetail) -> Option<i32> {
    year_of(detail.timespan.as_ref()?.end.as_ref()?)
}

fn year_of(date: &manabi_schemas::history::HistoricalDate) -> Option<i32> {
    let value = &date.value;
    let (sign, digits) = match value.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, value.as_str()),
    };
    let year = digits.split('-').next()?;
    year.parse::<i32>().ok().map(|y| sign * y)
}

/// Years from birth to the middle of a life whose end is not known.
const ACTIVE_AFTER_BIRTH: i32 = 30;

/// The year that places a history entity in time for a world: when it starts, except a
/// person, who belongs where they were active rather than where they were born (佐々友房,
/// born 1854 at the end of Edo, is a Meiji politician): the middle of their life, or
/// thirty years after birth (before death) when one end is missing.
pub fn placed_year(detail: &HistoryDetail) -> Option<i32> {
    if detail.history_type != manabi_schemas::history::HistoryType::Person {
        return start_year(detail);
    }
    match (start_year(detail), end_year(detail)) {
        (Some(born), Some(died)) if died >= born => Some(born + (died - born) / 2),
        (Some(born), _) => Some(born + ACTIVE_AFTER_BIRTH),
        (None, Some(died)) => Some(died - ACTIVE_AFTER_BIRTH),
        (None, None) => None,
    }
}

/// The years of a history entity as text, e.g. `1543–1616`.
pub fn years(detail: &HistoryDetail) -> String {
    let Some(span) = &detail.timespan else {
        return String::new();
    };
    let year = |date: &Option<manabi_schemas::history::HistoricalDate>| {
        date.as_ref()
            .map(|d| d.value.split('-').next().unwrap_or_default().to_string())
    };
    match (year(&span.start), year(&span.end)) {
        (Some(start), Some(end)) if start == end => start,
        (Some(start), Some(end)) => format!("{start}–{end}"),
        (Some(start), None) => format!("from {start}"),
        (None, Some(end)) => format!("until {end}"),
        (None, None) => String::new(),
    }
}

/// The JLPT level of every JLPT kanji, for grading history names by their characters.
pub fn kanji_levels<'a>(learnables: impl Iterator<Item = &'a Learnable>) -> BTreeMap<char, u8> {
    let mut levels = BTreeMap::new();
    for learnable in learnables {
        if let (LearnableBody::Kanji(detail), Some(level)) = (&learnable.body, learnable.jlpt_level)
            && let Some(literal) = detail.literal.chars().next()
        {
            levels.insert(literal, level);
        }
    }
    levels
}

/// The level a lesson files an entry under; `None` leaves it out of lessons. Kana take
/// the kana level, but for combinations no official spelling uses. History
/// entities take the level of the hardest kanji of their name (N1 for kanji outside the
/// JLPT lists), since reading the name is what a language learner has to master.
pub fn level(learnable: &Learnable, kanji: &BTreeMap<char, u8>) -> Option<u8> {
    match &learnable.body {
        // Lessons teach the kana a learner writes: no combination outside the official
        // loanword spellings (ギェ, ヴャ), and loanword combinations only in katakana.
        LearnableBody::Character(detail) => {
            let unofficial = learnable
                .tags
                .iter()
                .any(|t| t == crate::characters::UNOFFICIAL);
            let hiragana_loanword = detail.group == "extended" && detail.script == "hiragana";
            (!unofficial && !hiragana_loanword).then_some(KANA_LEVEL)
        }
        LearnableBody::Radical(_) => Some(RADICAL_LEVEL),
        LearnableBody::History(detail) => {
            let name = history_kanji(detail)?;
            let levels = name
                .chars()
                .filter(|c| is_kanji(*c))
                .map(|c| kanji.get(&c).copied().unwrap_or(1));
            Some(levels.min().unwrap_or(5))
        }
        _ => learnable.jlpt_level.filter(|level| (1..=5).contains(level)),
    }
}

pub fn is_kanji(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c) || c == '々'
}

/// The track an entry belongs to (see [`Track`]).
pub fn track(learnable: &Learnable) -> Track {
    let has_tag = |tag: &str| learnable.tags.iter().any(|t| t == tag);
    let conversation = match &learnable.body {
        LearnableBody::Vocabulary(_) => !has_tag("noun"),
        LearnableBody::Kanji(detail) => detail.grade.is_some_and(|g| g <= 6),
        LearnableBody::Grammar(detail) => {
            use manabi_schemas::grammar::Register;
            matches!(
                detail.register,
                Register::Casual | Register::Neutral | Register::Polite
            )
        }
        LearnableBody::Character(detail) => detail.script == "hiragana",
        LearnableBody::Radical(detail) => detail.stroke_count <= 4,
        LearnableBody::History(_) => learnable.kind == LearnableType::Person,
    };
    if conversation {
        Track::Conversation
    } else {
        Track::Reading
    }
}

/// What a track is called in a world of this kind of entry.
pub fn track_name(kind: LearnableType, track: Track) -> &'static str {
    match (kind, track) {
        (LearnableType::Vocabulary, Track::Reading) => "things and ideas (nouns)",
        (LearnableType::Vocabulary, Track::Conversation) => "actions and descriptions",
        (LearnableType::Kanji, Track::Reading) => "general-use kanji",
        (LearnableType::Kanji, Track::Conversation) => "school kanji",
        (LearnableType::Grammar, Track::Reading) => "written and formal patterns",
        (LearnableType::Grammar, Track::Conversation) => "spoken patterns",
        (LearnableType::Character, Track::Reading) => "katakana",
        (LearnableType::Character, Track::Conversation) => "hiragana",
        (LearnableType::Radical, Track::Reading) => "larger radicals",
        (LearnableType::Radical, Track::Conversation) => "simple radicals",
        (_, Track::Reading) => "eras, events and places",
        (_, Track::Conversation) => "people",
    }
}

/// The key whose entries make plausible distractors for each other: same type, same
/// level, and for words the same broad part of speech.
pub fn pool_key(learnable: &Learnable, level: u8) -> String {
    let group = match &learnable.body {
        LearnableBody::Vocabulary(_) => {
            let tags = ["verb", "i-adjective", "na-adjective", "adverb", "noun"];
            let found = tags.iter().find(|t| learnable.tags.iter().any(|x| x == *t));
            found.copied().unwrap_or("other").to_string()
        }
        LearnableBody::Character(detail) => detail.script.clone(),
        LearnableBody::History(_) => learnable.kind.as_str().to_string(),
        _ => String::new(),
    };
    format!("{}:{group}:{level}", learnable.kind.as_str())
}

/// The number of morae of a kana reading: small ゃゅょ and vowels join the mora before.
pub fn morae(reading: &str) -> usize {
    let joins = "ゃゅょぁぃぅぇぉャュョァィゥェォ";
    reading.chars().filter(|c| !joins.contains(*c)).count()
}

/// FNV-1a with a final mix (SplitMix64's finaliser), for stable spreading of choices
/// (std's hasher is seeded per process). Without the mix, ids that differ only in their
/// last characters hash close together in the high bits, and choices sorted by the hash
/// come out as neighbours: kanji of one radical (繰 繭 織, whose code points follow each
/// other) or kana of one row (ぢゃ ぢゅ ぢょ), leaving the answer the odd one out.
pub fn stable_hash(text: &str) -> u64 {
    let fnv = text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut mixed = fnv;
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    mixed ^ (mixed >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use manabi_schemas::history::{DatePrecision, HistoricalDate, HistoryType, Timespan};

    #[test]
    fn ids_that_differ_in_their_last_character_do_not_sort_together() {
        // 繰 繭 織 繕 (U+7E70 …): before the final mix their hashes with one target shared
        // their top bits, so a sort by hash put them side by side.
        let order = |id: &str| stable_hash(&format!("kanji-6392|{id}")) >> 56;
        let tops: std::collections::BTreeSet<u64> = (0x7e60..0x7e80)
            .map(|code| order(&format!("kanji-{code:x}")))
            .collect();
        assert!(tops.len() > 20, "top bytes spread: {}", tops.len());
    }

    fn entity(kind: HistoryType, start: Option<&str>, end: Option<&str>) -> HistoryDetail {
        let date = |value: Option<&str>| {
            value.map(|value| HistoricalDate {
                value: value.to_owned(),
                precision: DatePrecision::Year,
                approximate: false,
            })
        };
        HistoryDetail {
            history_type: kind,
            canonical_name: "x".to_owned(),
            aliases: Vec::new(),
            timespan: Some(Timespan {
                start: date(start),
                end: date(end),
                calendar: String::new(),
            }),
            geographic_scope: None,
            description: String::new(),
            roles: Vec::new(),
            era: None,
            offices: Vec::new(),
            localized_names: BTreeMap::new(),
        }
    }

    #[test]
    fn a_gendered_gloss_keeps_its_counterpart() {
        assert!(counterparts("wife", "husband"));
        assert!(counterparts("daughter", "son"));
        assert!(!counterparts("wife", "partner"));
    }

    #[test]
    fn a_person_is_placed_where_they_were_active_not_where_born() {
        // 佐々友房, 1854–1909: a Meiji politician, not an Edo figure.
        let sassa = entity(HistoryType::Person, Some("1854"), Some("1909"));
        assert_eq!(placed_year(&sassa), Some(1881));
        assert_eq!(
            placed_year(&entity(HistoryType::Person, Some("1854"), None)),
            Some(1884)
        );
        assert_eq!(
            placed_year(&entity(HistoryType::Person, None, Some("1909"))),
            Some(1879)
        );
        // Everything else starts when it starts.
        let event = entity(HistoryType::Event, Some("1600-10-21"), Some("1600-10-21"));
        assert_eq!(placed_year(&event), Some(1600));
        assert_eq!(
            placed_year(&entity(HistoryType::Era, Some("-0660"), None)),
            Some(-660)
        );
    }
}
