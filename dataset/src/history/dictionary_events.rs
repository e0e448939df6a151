//! Which JMdict events are Japanese history (rule `japanese-event`). JMdict glosses wars,
//! treaties and incidents of every country; an event stays when its name says Japan
//! (`Russo-Japanese War`, 日清修好条規, 対日講和条約) or the editors' table
//! `content/history/dictionary_events.tsv` decides it, with the reason: `japanese`
//! (Japanese history under a name that does not say so: the Battle of Okinawa), `foreign`
//! (outside Japan, kept for what it means to Japanese history, which the description then
//! says, and tagged `foreign`), or `refused` (a duplicate or ambiguous headword). Every
//! other JMdict event is left out: the Hundred Years' War, the Winter War, the Gulf War.

use std::collections::HashMap;

use manabi_schemas::history::HistoryType;

use super::model::Entity;
use crate::editors;

const TABLE: &str = include_str!("../../content/history/dictionary_events.tsv");

/// Headword starts that abbreviate a treaty or war with Japan: 日清, 日露, 日韓 …
const JAPAN_PAIRS: [&str; 10] = [
    "日清", "日露", "日韓", "日朝", "日米", "日英", "日独", "日仏", "日中", "日ソ",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Japanese,
    Foreign,
    Refused,
}

/// The editors' decisions by JMdict sequence number, with their note.
pub fn table() -> HashMap<u32, (Decision, &'static str)> {
    editors::rows(TABLE)
        .filter_map(|row| {
            let [seq, _name, decision, note] = row.as_slice() else {
                return None;
            };
            let decision = match *decision {
                "japanese" => Decision::Japanese,
                "foreign" => Decision::Foreign,
                "refused" => Decision::Refused,
                _ => return None,
            };
            Some((seq.parse().ok()?, (decision, *note)))
        })
        .collect()
}

/// The name or a written form says Japan.
pub fn names_japan(entity: &Entity) -> bool {
    entity.name.contains("Japan")
        || entity.aliases.iter().any(|alias| {
            alias.text.contains("日本")
                || alias.text.contains("対日")
                || JAPAN_PAIRS.iter().any(|pair| alias.text.starts_with(pair))
        })
}

/// Applies the rule to the JMdict events among `entities`; returns the ids left out.
pub fn judge(entities: &mut Vec<Entity>) -> Vec<String> {
    let table = table();
    let mut left_out = Vec::new();
    entities.retain_mut(|entity| {
        if entity.kind != HistoryType::Event || entity.canon {
            return true;
        }
        // The JMdict sequence number the id ends in comes first.
        let record = super::merge::record_numbers(entity).first().copied();
        let decision = record.and_then(|seq| table.get(&seq));
        let keep = match decision {
            Some((Decision::Japanese, _)) => true,
            Some((Decision::Foreign, relevance)) => {
                entity.add_tag("foreign");
                entity.sentences.push(format!(
                    "Outside Japan; {}{relevance}.",
                    super::check::RELEVANCE
                ));
                true
            }
            Some((Decision::Refused, _)) => false,
            None => names_japan(entity),
        };
        if !keep {
            left_out.push(entity.id.clone());
        }
        keep
    });
    left_out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str, name: &str, kanji: &str) -> Entity {
        let mut entity = Entity::new(id.into(), HistoryType::Event, name.into());
        entity.add_alias(kanji);
        entity
    }

    #[test]
    fn an_event_stays_when_it_says_japan_or_the_editors_keep_it() {
        let mut entities = vec![
            event(
                "history-event-russo-japanese-war-1",
                "Russo-Japanese War",
                "日露戦争",
            ),
            event(
                "history-event-treaty-2",
                "Treaty of Shimoda",
                "日露和親条約",
            ),
            event(
                "history-event-hundred-years-war-2214550",
                "Hundred Years War",
                "百年戦争",
            ),
            event(
                "history-event-battle-of-okinawa-2135500",
                "Battle of Okinawa",
                "沖縄戦",
            ),
            event("history-event-korean-war-1428440", "Korean War", "朝鮮戦争"),
            event(
                "history-event-great-kanto-earthquake-1366360",
                "Great Kanto Earthquake",
                "震災",
            ),
        ];
        let left_out = judge(&mut entities);
        assert_eq!(
            left_out,
            [
                "history-event-hundred-years-war-2214550",
                "history-event-great-kanto-earthquake-1366360"
            ]
        );
        let korean = entities.iter().find(|e| e.name == "Korean War").unwrap();
        assert!(korean.tags.contains(&"foreign".to_string()));
        assert!(korean.sentences[0].starts_with("Outside Japan; in Japanese history: "));
    }

    #[test]
    fn every_row_of_the_table_reads() {
        let rows = editors::rows(TABLE).count();
        assert_eq!(table().len(), rows, "a row with a bad decision or number");
    }
}
