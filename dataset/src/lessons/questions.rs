//! Questions: one per taught entry, its kind rotating through what the entry allows, with
//! distractors drawn from entries of the same type and level.

use std::collections::BTreeMap;

use manabi_schemas::history::{HistoricalDate, HistoryDetail, HistoryType};
use manabi_schemas::lesson::{Question, QuestionKind};
use manabi_schemas::markup::link;
use manabi_schemas::{Learnable, LearnableBody};

use super::check;
use super::items::{self, stable_hash};

/// Every question has this many choices when the pool allows.
const CHOICES: usize = 4;
/// The blank a cloze sentence shows.
const BLANK: &str = "＿＿";

/// Entries grouped by [`items::pool_key`], in id order, and every word's readings by its
/// written forms ([`check::Homographs`]).
#[derive(Debug, Default)]
pub struct Pools<'a> {
    by_key: BTreeMap<String, Vec<&'a Learnable>>,
    homographs: check::Homographs<'a>,
    /// The radical of every kanji by its character.
    radicals: BTreeMap<String, u8>,
}

impl<'a> Pools<'a> {
    pub fn add(&mut self, key: String, learnable: &'a Learnable) {
        if let LearnableBody::Kanji(detail) = &learnable.body
            && let Some(radical) = detail.radical_number
        {
            self.radicals.insert(items::label(learnable), radical);
        }
        self.by_key.entry(key).or_default().push(learnable);
    }

    /// Records the forms and readings of a word, graded or not, so that a word written like
    /// another is known whichever of them a lesson teaches.
    pub fn add_word(&mut self, learnable: &'a Learnable) {
        self.homographs.add(learnable);
    }

    /// Up to three distractors for `target`: entries of its pool whose `show` is neither
    /// empty nor the answer, nor shared with another distractor, and which `clashes` does
    /// not reject. Candidates are taken in an order shuffled by a stable hash of the
    /// target's id, those that start like the answer first (`check::initial`: the same
    /// kana row or first letter), so the answer never stands out as the one choice that
    /// starts differently from three that start alike.
    ///
    /// A reading of a word that shows kana (決まり, 組み込む) is given only distractors
    /// holding those kana (`word`: くみこむ never stands among きしむ and からむ), so that
    /// the kana shown do not point at the answer.
    fn distractors(
        &self,
        key: &str,
        target: &Learnable,
        answer: &str,
        word: &str,
        show: &dyn Fn(&Learnable) -> Option<String>,
        clashes: &dyn Fn(&Learnable) -> bool,
    ) -> Vec<String> {
        let Some(pool) = self.by_key.get(key) else {
            return Vec::new();
        };
        let initial = check::initial(answer);
        // A Japanese answer among choices of very other lengths stands out (ぎょうき among
        // three full names): candidates of about its length come first.
        let japanese = !answer.chars().any(|c| c.is_ascii_alphabetic());
        let length = answer.chars().count();
        // A short one stands out by any other length (茶 among 独特, 不正, 偶然): for an
        // answer of one or two characters, those of its very length come first.
        let off_length = |shown: &str| {
            let off = shown.chars().count().abs_diff(length);
            if !japanese || off == 0 {
                0u8
            } else if off > 2.max(length / 4) {
                2
            } else if length <= 2 {
                1
            } else {
                0
            }
        };
        // A date among dates of other centuries stands out (1601–1650 among 1910–1989 and
        // 1942–1999): candidates whose first and last years lie near the answer's come first.
        // Both ends count (1867–1958 is no Edo life beside 1820–1871), by half centuries.
        let (answer_year, answer_end) = years(answer);
        let centuries_off = |shown: &str| {
            let off = |a: Option<i32>, b: Option<i32>| a.zip(b).map(|(a, b)| (a - b).abs() / 50);
            let (start, end) = years(shown);
            match (off(answer_year, start), off(answer_end, end)) {
                (Some(start), end) => u8::try_from(start.max(end.unwrap_or(0)).min(9)).unwrap_or(9),
                _ => 0,
            }
        };
        let mut candidates: Vec<(u8, u8, bool, bool, u64, String)> = pool
            .iter()
            .filter(|candidate| candidate.id != target.id && !clashes(candidate))
            // A choice of another script than the answer would give the answer away.
            .filter_map(|candidate| {
                let shown = show(candidate)
                    .filter(|s| !s.is_empty() && check::form(s) == check::form(answer))?;
                let order = stable_hash(&format!("{}|{}", target.id, candidate.id));
                // A reading without the kana the word shows cannot be its reading.
                if !word.is_empty() && !check::fits_visible_kana(&shown, word) {
                    return None;
                }
                let ends_otherwise = !shown.ends_with(&check::kana_ending(word));
                Some((
                    centuries_off(&shown),
                    off_length(&shown),
                    ends_otherwise,
                    check::initial(&shown) != initial,
                    order,
                    shown,
                ))
            })
            .collect();
        candidates.sort();
        let mut picked: Vec<String> = Vec::new();
        let mut rest = candidates.into_iter().map(|(_, _, _, _, _, shown)| shown);
        for shown in rest.by_ref() {
            if shown != answer && !picked.contains(&shown) {
                picked.push(shown);
            }
            if picked.len() == CHOICES - 1 {
                break;
            }
        }
        // Distractors all starting alike, unlike the answer, would point at it, and so
        // would kanji all of a radical the answer lacks (海 among 繰 繭 織): the last one
        // gives way to a candidate of another family, or the question is not asked.
        let initial = |shown: &str| Some(check::initial(shown));
        let radical = |shown: &str| self.radicals.get(shown).map(u8::to_string);
        let families: [&Family<'_>; 2] = [&initial, &radical];
        for family in families {
            let Some(shared) = check::shared_family(answer, &picked, family) else {
                continue;
            };
            let other = rest.find(|shown| {
                shown != answer
                    && !picked.contains(shown)
                    && family(shown).as_ref() != Some(&shared)
            });
            match other {
                Some(other) => {
                    picked.pop();
                    picked.push(other);
                }
                None => picked.clear(),
            }
        }
        picked
    }
}

/// What a choice shares with others of its kind: how it starts, a kanji's radical.
type Family<'f> = dyn Fn(&str) -> Option<String> + 'f;

/// A question in the making, before its id and choices are fixed.
struct Draft {
    kind: QuestionKind,
    prompt: String,
    answer: String,
    explanation: String,
    show: fn(&Learnable) -> Option<String>,
}

fn show_meaning(learnable: &Learnable) -> Option<String> {
    Some(items::meaning(learnable))
}

fn show_label(learnable: &Learnable) -> Option<String> {
    Some(items::label(learnable))
}

fn show_reading(learnable: &Learnable) -> Option<String> {
    items::reading(learnable)
}

fn history(learnable: &Learnable) -> Option<&HistoryDetail> {
    match &learnable.body {
        LearnableBody::History(detail) => Some(detail),
        _ => None,
    }
}

/// The first and the last run of digits of a shown date (`1534–1582` → 1534, 1582).
fn years(text: &str) -> (Option<i32>, Option<i32>) {
    let mut runs = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty());
    let first = runs.next().and_then(|run| run.parse().ok());
    let last = runs.next_back().and_then(|run| run.parse().ok()).or(first);
    (first, last)
}

/// A year as a learner reads it: `1600`, `300 BCE`, `c. 1330`.
fn year_text(date: &HistoricalDate) -> Option<String> {
    let value = date.value.as_str();
    let (negative, digits) = match value.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let year: i32 = digits.get(..4)?.parse().ok()?;
    // Astronomical years: -0299 is 300 BCE.
    let year = if negative {
        format!("{} BCE", year + 1)
    } else {
        year.to_string()
    };
    Some(if date.approximate {
        format!("c. {year}")
    } else {
        year
    })
}

/// The years of an entity with both ends known, `1534–1582` (a single year when they are
/// the same). An open end makes no question: "1951–" is not an answer to "when".
fn show_years(learnable: &Learnable) -> Option<String> {
    let timespan = history(learnable)?.timespan.as_ref()?;
    let start = year_text(timespan.start.as_ref()?)?;
    let end = year_text(timespan.end.as_ref()?)?;
    Some(if start == end {
        start
    } else {
        format!("{start}–{end}")
    })
}

/// The roles of a person, `daimyo, poet`.
fn show_roles(learnable: &Learnable) -> Option<String> {
    let roles = &history(learnable)?.roles;
    (!roles.is_empty()).then(|| roles.join(", "))
}

/// Where a place lies, when the scope names more than the country.
fn show_place(learnable: &Learnable) -> Option<String> {
    let scope = history(learnable)?.geographic_scope.as_deref()?.trim();
    (!scope.is_empty() && scope != "Japan").then(|| scope.to_string())
}

fn show_pattern_core(learnable: &Learnable) -> Option<String> {
    learnable.pattern.as_deref().map(pattern_core)
}

/// The fixed words of a pattern, notes in brackets left out: `〜てから` → `てから`,
/// `あまり〜ない` → `あまり`, `(なんと)〜ことか` → `ことか`.
fn pattern_core(pattern: &str) -> String {
    let mut outside = String::new();
    let mut depth = 0usize;
    for c in pattern.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    let pieces = outside.split(['〜', '～', '/', '／']);
    let longest = pieces.max_by_key(|p| p.chars().count()).unwrap_or_default();
    longest.trim().to_string()
}

/// Replaces the first occurrence of `word` in `sentence` by the blank.
fn blank(sentence: &str, word: &str) -> Option<String> {
    (!word.is_empty() && sentence.contains(word)).then(|| sentence.replacen(word, BLANK, 1))
}

/// None when the meaning only repeats the word (a title glossed by its own name) or its
/// name in letters (延喜式 "Completion of the Engishiki" asks nothing but romanisation).
/// `name` leads into the answer in the explanation: "a word meaning", "known in English as".
/// A homograph's prompt gives its reading (`相対（あいたい）`), which tells it from the other.
fn meaning_draft(learnable: &Learnable, name: &str, homograph: bool) -> Option<Draft> {
    let label = items::label(learnable);
    let shown = match items::reading(learnable) {
        Some(reading) if homograph => format!("{}（{reading}）", link(&learnable.id, &label)),
        _ => link(&learnable.id, &label),
    };
    let answer = items::meaning(learnable);
    if answer.contains(&label)
        || check::names_in_letters(&answer, &learnable.writing_forms).is_some()
        || check::spells_reading(&answer, learnable).is_some()
    {
        return None;
    }
    Some(Draft {
        kind: QuestionKind::MeaningChoice,
        prompt: format!("What does {shown} mean?"),
        explanation: format!("{shown} is {name} “{answer}”."),
        answer,
        show: show_meaning,
    })
}

fn reading_draft(learnable: &Learnable) -> Option<Draft> {
    let answer = items::reading(learnable)?;
    let label = items::label(learnable);
    if answer == label || check::kana_word(&learnable.id, &label) {
        return None;
    }
    let shown = link(&learnable.id, &label);
    // A radical's "reading" is its name (工 is called たくみ, but read こう): asked as such.
    let (prompt, explanation) = match learnable.body {
        LearnableBody::Radical(_) => (
            format!("What is the radical {shown} called?"),
            format!("As a radical, {shown} is called {answer}."),
        ),
        _ => (
            format!("How is {shown} read?"),
            format!("{shown} is read {answer}."),
        ),
    };
    Some(Draft {
        kind: QuestionKind::ReadingChoice,
        prompt,
        explanation,
        answer,
        show: show_reading,
    })
}

/// A gap in the entry's first example that contains its written form.
fn cloze_draft(learnable: &Learnable) -> Option<Draft> {
    let examples = match &learnable.body {
        LearnableBody::Vocabulary(detail) => &detail.examples,
        LearnableBody::Grammar(detail) => &detail.examples,
        _ => return None,
    };
    let (word, show): (String, fn(&Learnable) -> Option<String>) = match &learnable.body {
        LearnableBody::Grammar(_) => (show_pattern_core(learnable)?, show_pattern_core),
        _ => (items::label(learnable), show_label),
    };
    if word.chars().count() < 2 && matches!(learnable.body, LearnableBody::Grammar(_)) {
        return None;
    }
    // 梅干 in 梅干し is the word, but a blank on it would leave し behind.
    let longer_forms: Vec<&str> = learnable
        .writing_forms
        .iter()
        .map(|f| f.text.as_str())
        .filter(|f| f.len() > word.len() && f.contains(word.as_str()))
        .collect();
    // The word once only: a second occurrence beside the gap would show the answer.
    let example = examples.iter().find(|e| {
        e.japanese.matches(word.as_str()).count() == 1
            && !longer_forms.iter().any(|f| e.japanese.contains(f))
    })?;
    let gapped = blank(&example.japanese, &word)?;
    let english = example.english.clone().unwrap_or_default();
    let kind = match &learnable.body {
        LearnableBody::Grammar(_) => QuestionKind::GrammarChoice,
        _ => QuestionKind::Cloze,
    };
    Some(Draft {
        kind,
        prompt: format!("Fill the gap: {gapped} ({english})"),
        explanation: format!(
            "{} fits: {} — {english}",
            link(&learnable.id, &word),
            example.japanese
        ),
        answer: word,
        show,
    })
}

fn date_draft(learnable: &Learnable, kind: HistoryType) -> Option<Draft> {
    let answer = show_years(learnable)?;
    let shown = link(&learnable.id, &items::label(learnable));
    let (prompt, explanation) = match kind {
        HistoryType::Person => (
            format!("When did {shown} live?"),
            format!("{shown} lived {answer}."),
        ),
        HistoryType::Event => (
            format!("When did {shown} take place?"),
            format!("{shown} took place {answer}."),
        ),
        HistoryType::Era | HistoryType::Period => (
            format!("Which years does {shown} cover?"),
            format!("{shown} covers {answer}."),
        ),
        HistoryType::Place | HistoryType::Term => return None,
    };
    Some(Draft {
        kind: QuestionKind::DateChoice,
        prompt,
        explanation,
        answer,
        show: show_years,
    })
}

fn role_draft(learnable: &Learnable) -> Option<Draft> {
    let answer = show_roles(learnable)?;
    let label = items::label(learnable);
    if check::role_title(&label).is_some() {
        return None;
    }
    let shown = link(&learnable.id, &label);
    Some(Draft {
        kind: QuestionKind::RoleChoice,
        prompt: format!("What was {shown}?"),
        explanation: format!("{shown}: {answer}."),
        answer,
        show: show_roles,
    })
}

fn place_draft(learnable: &Learnable) -> Option<Draft> {
    let answer = show_place(learnable)?;
    let shown = link(&learnable.id, &items::label(learnable));
    Some(Draft {
        kind: QuestionKind::PlaceChoice,
        prompt: format!("Where is {shown}?"),
        explanation: format!("{shown} is in {answer}."),
        answer,
        show: show_place,
    })
}

/// A pattern as a choice shows it: without the English note that tells it from a
/// namesake (`〜させる (causative)` would answer the question in English).
fn show_pattern(learnable: &Learnable) -> Option<String> {
    let pattern = learnable.pattern.as_deref()?;
    Some(crate::grammar::learnable::without_note(pattern).to_string())
}

fn grammar_draft(learnable: &Learnable) -> Option<Draft> {
    let pattern = show_pattern(learnable)?;
    let meaning = items::meaning(learnable);
    Some(Draft {
        kind: QuestionKind::GrammarChoice,
        prompt: format!("Which pattern means “{meaning}”?"),
        explanation: format!("{} means “{meaning}”.", link(&learnable.id, &pattern)),
        answer: pattern,
        show: show_pattern,
    })
}

fn kanji_draft(learnable: &Learnable) -> Draft {
    let meaning = items::meaning(learnable);
    let answer = items::label(learnable);
    Draft {
        kind: QuestionKind::KanjiRecognition,
        prompt: format!("Which kanji means “{meaning}”?"),
        explanation: format!("{} means “{meaning}”.", link(&learnable.id, &answer)),
        answer,
        show: show_label,
    }
}

fn kana_draft(learnable: &Learnable, turn: usize) -> Option<Draft> {
    let romaji = items::reading(learnable)?;
    let kana = items::label(learnable);
    let shown = link(&learnable.id, &kana);
    let explanation = format!("{shown} is read “{romaji}”.");
    Some(if turn.is_multiple_of(2) {
        Draft {
            kind: QuestionKind::KanaRecognition,
            prompt: format!("Which romaji spells the sound of {shown}?"),
            answer: romaji,
            explanation,
            show: show_reading,
        }
    } else {
        Draft {
            kind: QuestionKind::KanaRecognition,
            prompt: format!("Which kana is read “{romaji}”?"),
            answer: kana,
            explanation,
            show: show_label,
        }
    })
}

/// The question kinds an entry can be asked, in rotation order. A homograph is not asked
/// its reading: the other word's reading would be as right.
fn drafts(learnable: &Learnable, turn: usize, homograph: bool) -> Vec<Draft> {
    let mut found = Vec::new();
    match &learnable.body {
        LearnableBody::Vocabulary(_) => {
            found.extend(cloze_draft(learnable));
            found.extend(meaning_draft(learnable, "a word meaning", homograph));
            if !homograph {
                found.extend(reading_draft(learnable));
            }
        }
        LearnableBody::Kanji(_) => {
            found.push(kanji_draft(learnable));
            found.extend(meaning_draft(learnable, "a kanji meaning", false));
            found.extend(reading_draft(learnable));
        }
        LearnableBody::Grammar(_) => {
            found.extend(grammar_draft(learnable));
            found.extend(cloze_draft(learnable));
        }
        LearnableBody::Character(_) => found.extend(kana_draft(learnable, turn)),
        LearnableBody::Radical(_) => {
            found.extend(meaning_draft(learnable, "a radical meaning", false));
            found.extend(reading_draft(learnable));
        }
        LearnableBody::History(detail) => {
            // A person's or a place's English is its name in letters, not a meaning
            // ("What does 梶原一騎 mean?" has no answer); they are asked their reading,
            // and what the history says of them: when, what, where.
            if !matches!(
                detail.history_type,
                HistoryType::Person | HistoryType::Place
            ) {
                found.extend(meaning_draft(learnable, "known in English as", false));
            }
            found.extend(reading_draft(learnable));
            found.extend(date_draft(learnable, detail.history_type));
            if detail.history_type == HistoryType::Person {
                found.extend(role_draft(learnable));
            }
            if detail.history_type == HistoryType::Place {
                found.extend(place_draft(learnable));
            }
        }
    }
    found
}

/// The question for the `turn`-th entry of a lesson, or `None` when its pool is too small
/// for distractors.
pub fn question(
    pools: &Pools<'_>,
    key: &str,
    learnable: &Learnable,
    turn: usize,
) -> Option<Question> {
    let homograph = pools.homographs.other_reading(learnable).is_some();
    let mut drafts = drafts(learnable, turn, homograph);
    if drafts.is_empty() {
        return None;
    }
    let draft = drafts.remove(turn % drafts.len());
    let target_answer = (draft.show)(learnable);
    // An entry that shares the answer with the target (a second kana read "ji", a
    // homonym) would be a second correct choice, so it may not be a distractor.
    // A cloze choice sharing a kanji with the answer often fits the gap too (実際 for 実に)
    // or points at it (発病, 発掘 around 発).
    let answer_kanji: Vec<char> = match draft.kind {
        QuestionKind::Cloze => draft
            .answer
            .chars()
            .filter(|c| crate::vocabulary::text::is_kanji(*c))
            .collect(),
        _ => Vec::new(),
    };
    // So would a meaning or a role sharing a word with the answer (`check::ambiguous`).
    let answer_words = match draft.kind {
        QuestionKind::MeaningChoice | QuestionKind::RoleChoice => {
            check::content_words(&draft.answer)
        }
        _ => Default::default(),
    };
    // So would another reading of the target itself (ズ beside ジ for 事, ゾウ beside
    // ショウ for 象): every reading the entry lists is a right answer to "How is it read?".
    let own_readings = match draft.kind {
        QuestionKind::ReadingChoice => check::own_readings(learnable),
        _ => Vec::new(),
    };
    // A reading of a name with a title (冷泉天皇) among readings without it would be told
    // by the title alone: every choice must end in the title's reading.
    let title_reading = match draft.kind {
        QuestionKind::ReadingChoice => {
            check::title_reading(&items::label(learnable), &draft.answer)
        }
        _ => None,
    };
    // So would a reading without repeated kana for a word with 々 (銘々 めいめい).
    let repeated = draft.kind == QuestionKind::ReadingChoice
        && items::label(learnable).contains('々')
        && check::repeats(&draft.answer);
    // A word of the same meaning would fill a gap as well (もしかしたら beside
    // もしかすると, both "perhaps"): a cloze takes no distractor sharing a content word of
    // the answer's meaning (`check::synonym_fits`).
    let target_meaning = items::meaning(learnable);
    let clashes = |candidate: &Learnable| {
        let meaning = items::meaning(candidate);
        (draft.kind == QuestionKind::Cloze && check::synonym_fits(&target_meaning, &meaning))
            || title_reading.is_some_and(|title| {
                !(draft.show)(candidate).is_some_and(|shown| shown.ends_with(title))
            })
            || (repeated && !(draft.show)(candidate).is_some_and(|shown| check::repeats(&shown)))
            || (draft.show)(candidate) == target_answer
            || (draft.show)(candidate).is_some_and(|shown| own_readings.contains(&shown))
            || meaning == target_meaning
            || items::reading(candidate).is_some_and(|r| Some(r) == items::reading(learnable))
            || (draft.show)(candidate).is_some_and(|shown| {
                check::content_words(&shown)
                    .iter()
                    .any(|w| answer_words.contains(w))
                    || shown.chars().any(|c| answer_kanji.contains(&c))
            })
    };
    // The word a reading question shows, when its kana must be in every choice.
    let label = items::label(learnable);
    let shown = match draft.kind {
        QuestionKind::ReadingChoice
            if !check::visible_kana(&label).is_empty()
                && check::fits_visible_kana(&draft.answer, &label) =>
        {
            label
        }
        _ => String::new(),
    };
    let distractors =
        pools.distractors(key, learnable, &draft.answer, &shown, &draft.show, &clashes);
    // A reading that stands apart by its length alone (いしずみけいいちろう among readings
    // of five and seven kana) is not asked.
    let length_apart = draft.kind == QuestionKind::ReadingChoice
        && check::length_alone(&draft.answer, &distractors).is_some();
    if distractors.len() < 2 || length_apart {
        return None;
    }
    let mut choices = distractors;
    let slot =
        (stable_hash(&format!("{}#{turn}", learnable.id)) % (choices.len() as u64 + 1)) as usize;
    choices.insert(slot, draft.answer.clone());
    Some(Question {
        id: format!("q{}", turn + 1),
        kind: draft.kind,
        prompt: draft.prompt,
        choices,
        answer: draft.answer,
        explanation: draft.explanation,
        learnable: learnable.id.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_core_keeps_the_fixed_words() {
        assert_eq!(pattern_core("〜てから"), "てから");
        assert_eq!(pattern_core("あまり〜ない"), "あまり");
        assert_eq!(pattern_core("(なんと)〜ことか"), "ことか");
    }

    #[test]
    fn years_read_as_a_learner_reads_them() {
        let date = |value: &str, approximate: bool| HistoricalDate {
            value: value.into(),
            precision: manabi_schemas::history::DatePrecision::Year,
            approximate,
        };
        assert_eq!(
            year_text(&date("1600-10-21", false)).as_deref(),
            Some("1600")
        );
        assert_eq!(year_text(&date("-0299", false)).as_deref(), Some("300 BCE"));
        assert_eq!(year_text(&date("1330", true)).as_deref(), Some("c. 1330"));
    }

    #[test]
    fn a_shown_date_has_a_first_and_a_last_year() {
        assert_eq!(years("1534–1582"), (Some(1534), Some(1582)));
        assert_eq!(years("c. 1330"), (Some(1330), Some(1330)));
        assert_eq!(years("Heian"), (None, None));
    }

    #[test]
    fn blank_replaces_once() {
        assert_eq!(blank("魚と魚", "魚").as_deref(), Some("＿＿と魚"));
        assert_eq!(blank("魚", "肉"), None);
    }
}
