//! Learnable ids: ASCII, URL-safe, derived from upstream ids so they never change between
//! builds. One constructor per kind, and [`IdKind::classify`] for checking an id read back.

use manabi_schemas::LearnableType;

/// `kanji-<codepoint lowercase hex>`, e.g. `kanji-65e5` for 日.
pub fn kanji(literal: char) -> String {
    format!("kanji-{:x}", literal as u32)
}

/// `kana-<hex>[-<hex>...]`, e.g. `kana-304d-3083` for きゃ.
pub fn kana(text: &str) -> String {
    let parts: Vec<String> = text.chars().map(|c| format!("{:x}", c as u32)).collect();
    format!("kana-{}", parts.join("-"))
}

/// `radical-<Kangxi number, three digits>`, e.g. `radical-001`.
pub fn radical(number: u8) -> String {
    format!("radical-{number:03}")
}

/// `vocab-<JMdict ent_seq>`.
pub fn vocabulary(ent_seq: u32) -> String {
    format!("vocab-{ent_seq}")
}

/// Which id family an id belongs to, as far as its prefix and shape tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Kanji,
    Kana,
    Radical,
    Vocabulary,
    Grammar,
    History,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed id {id:?}: {reason}")]
pub struct MalformedId {
    pub id: String,
    pub reason: &'static str,
}

fn is_lower_hex(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Lowercase ASCII words joined by single hyphens.
fn is_slug(text: &str) -> bool {
    !text.is_empty()
        && text.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn is_codepoint(hex: &str) -> bool {
    is_lower_hex(hex)
        && hex.len() <= 6
        && !hex.starts_with('0')
        && u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .is_some()
}

impl IdKind {
    /// Parses an id against the conventions; the error says what is wrong.
    pub fn classify(id: &str) -> Result<IdKind, MalformedId> {
        let bad = |reason| {
            Err(MalformedId {
                id: id.to_string(),
                reason,
            })
        };
        let Some((prefix, rest)) = id.split_once('-') else {
            return bad("no prefix");
        };
        match prefix {
            "kanji" if is_codepoint(rest) => Ok(IdKind::Kanji),
            "kana" if rest.split('-').all(is_codepoint) => Ok(IdKind::Kana),
            "radical" if rest.len() == 3 && matches!(rest.parse::<u16>(), Ok(1..=214)) => {
                Ok(IdKind::Radical)
            }
            "vocab" if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(IdKind::Vocabulary)
            }
            "grammar" if is_slug(rest) => Ok(IdKind::Grammar),
            "history" if rest.split_once('-').is_some_and(|(_, slug)| is_slug(slug)) => {
                Ok(IdKind::History)
            }
            "kanji" | "kana" | "radical" | "vocab" | "grammar" | "history" => {
                bad("the part after the prefix does not follow the convention")
            }
            _ => bad("unknown prefix"),
        }
    }

    /// Whether a learnable of this type may carry an id of this family.
    pub fn fits(self, kind: LearnableType) -> bool {
        match self {
            IdKind::Kanji => kind == LearnableType::Kanji,
            IdKind::Kana => kind == LearnableType::Character,
            IdKind::Radical => kind == LearnableType::Radical,
            IdKind::Vocabulary => kind == LearnableType::Vocabulary,
            IdKind::Grammar => kind == LearnableType::Grammar,
            IdKind::History => kind.domain() == manabi_schemas::Domain::History,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_conventions() {
        assert_eq!(kanji('日'), "kanji-65e5");
        assert_eq!(kana("きゃ"), "kana-304d-3083");
        assert_eq!(radical(1), "radical-001");
        assert_eq!(vocabulary(1_000_220), "vocab-1000220");
    }

    #[test]
    fn classify_accepts_good_ids_and_rejects_bad_ones() {
        assert_eq!(IdKind::classify("kanji-65e5"), Ok(IdKind::Kanji));
        assert_eq!(IdKind::classify("kana-304d-3083"), Ok(IdKind::Kana));
        assert_eq!(IdKind::classify("radical-214"), Ok(IdKind::Radical));
        assert_eq!(IdKind::classify("grammar-te-kara"), Ok(IdKind::Grammar));
        assert_eq!(IdKind::classify("history-era-meiji"), Ok(IdKind::History));
        for bad in [
            "kanji-65E5",
            "radical-215",
            "radical-1",
            "vocab-",
            "grammar-Te",
            "x-1",
            "日",
        ] {
            assert!(IdKind::classify(bad).is_err(), "{bad}");
        }
    }
}
