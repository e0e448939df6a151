//! Checks of the teaching layer, run by `dataset verify` on the artifact and by the tests
//! on built content: links and references resolve, each question has exactly one correct
//! choice and no choice that gives it away (by script, or a fragment), journeys are
//! acyclic and complete.

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::learnable::{Script, WritingForm};
use manabi_schemas::lesson::{Journey, Lesson, Question, QuestionKind, World};
use manabi_schemas::markup;
use manabi_schemas::{Learnable, LearnableBody};

use manabi_artifact::Artifact;

/// Every `[[id|…]]` of a lesson's strings that names no entry.
fn unresolved_links(strings: &[&str], exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    strings
        .iter()
        .flat_map(|text| markup::links(text))
        .filter(|link| !exists(link.id))
        .map(|link| link.id.to_string())
        .collect()
}

/// The written form of a choice as a learner sees it at a glance: with kanji, katakana
/// only, hiragana only, mixed kana, Latin letters, a year or a span of years. Choices of
/// one question share it, so none stands out by its script or its shape.
pub fn form(text: &str) -> &'static str {
    // Years are a form of their own, a span (`1534–1582`) another than one year (`1600`).
    let year_like = text.chars().any(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || " –.cBCE".contains(c));
    if year_like {
        return if text.contains('–') {
            "years"
        } else {
            "year"
        };
    }
    let (mut kanji, mut hiragana, mut katakana, mut latin) = (false, false, false, false);
    for c in text.chars() {
        match c {
            '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '々' => kanji = true,
            '\u{3041}'..='\u{309F}' => hiragana = true,
            '\u{30A1}'..='\u{30FA}' => katakana = true,
            c if c.is_alphabetic() => latin = true,
            _ => {}
        }
    }
    match (kanji, hiragana, katakana, latin) {
        (true, ..) => "kanji",
        (false, true, true, _) => "mixed kana",
        (false, true, false, _) => "hiragana",
        (false, false, true, _) => "katakana",
        _ => "latin",
    }
}

/// How a choice starts, as a learner scanning the choices sees it: the kana row of its
/// first kana (か, が, き and キ are all row `k`; a vowel is its own row), else its first
/// letter lowercased, else its first character.
pub fn initial(text: &str) -> String {
    let Some(first) = text.chars().next() else {
        return String::new();
    };
    let kana = ('\u{3041}'..='\u{30FA}').contains(&first);
    if kana {
        let romaji = manabi_search::kana::to_romaji(&first.to_string());
        let row = match romaji.chars().next() {
            Some('g') => 'k',
            Some('z' | 'j') => 's',
            Some('d' | 'c') => 't',
            Some('b' | 'p' | 'f') => 'h',
            Some(c) => c,
            None => first,
        };
        return row.to_string();
    }
    first.to_lowercase().collect()
}

/// True when brackets of the text do not pair up: a piece cut out of a longer pattern.
fn is_fragment(text: &str) -> bool {
    let pairs = [('(', ')'), ('（', '）'), ('「', '」'), ('[', ']')];
    pairs.iter().any(|(open, close)| {
        let mut depth = 0i32;
        for c in text.chars() {
            if c == *open {
                depth += 1;
            } else if c == *close {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
        }
        depth != 0
    })
}

/// Why a question can be answered without knowing the answer: the answer alone in its
/// script, a choice that is a fragment, a gapped sentence that shows the answer elsewhere,
/// the answer the odd one out by how it starts (at least two other choices, all
/// starting alike, the answer otherwise), a reading choice without the kana the word
/// shows, one without the reading of the title a name ends in (冷泉天皇), or one that
/// repeats no kana where the word shows 々 and its reading repeats (銘々 めいめい).
pub fn give_away(question: &Question) -> Option<String> {
    if let Some(fragment) = question.choices.iter().find(|c| is_fragment(c)) {
        return Some(format!("choice “{fragment}” is a fragment"));
    }
    if question.kind == QuestionKind::Cloze && question.prompt.contains(&question.answer) {
        return Some(format!("the gapped sentence shows {} too", question.answer));
    }
    if let Some(shared) = odd_one_out(question, |c| Some(initial(c))) {
        return Some(format!(
            "the answer is the only choice not starting with “{shared}”"
        ));
    }
    if let Some(shown) = shown_word(question)
        && fits_visible_kana(&question.answer, &shown)
        && let Some(other) = question
            .choices
            .iter()
            .find(|c| **c != question.answer && !fits_visible_kana(c, &shown))
    {
        return Some(format!(
            "choice “{other}” lacks the kana “{}” that {shown} shows",
            visible_kana(&shown)
        ));
    }
    if question.kind == QuestionKind::ReadingChoice
        && let Some(shown) = markup::links(&question.prompt).next()
        && kana_word(&question.learnable, shown.text)
    {
        return Some(format!("{} has no kanji to read", shown.text));
    }
    if question.kind == QuestionKind::ReadingChoice
        && let Some(shown) = markup::links(&question.prompt).next()
        && let Some(title) = title_reading(shown.text, &question.answer)
        && let Some(other) = question.choices.iter().find(|c| !c.ends_with(title))
    {
        return Some(format!(
            "choice “{other}” lacks the title's reading {title} that the answer ends in"
        ));
    }
    if question.kind == QuestionKind::ReadingChoice
        && let Some(shown) = markup::links(&question.prompt).next()
        && shown.text.contains('々')
        && repeats(&question.answer)
        && let Some(other) = question.choices.iter().find(|c| !repeats(c))
    {
        return Some(format!(
            "choice “{other}” repeats no kana, where {} shows 々",
            shown.text
        ));
    }
    if question.kind == QuestionKind::ReadingChoice
        && let Some(gap) = length_alone(&question.answer, &question.choices)
    {
        return Some(format!(
            "the answer is the only choice of its length, {gap} kana or more from the others"
        ));
    }
    let answer = form(&question.answer);
    let alone = question.choices.len() > 1
        && question
            .choices
            .iter()
            .filter(|c| **c != question.answer)
            .all(|c| form(c) != answer);
    alone.then(|| format!("the answer is the only choice in {answer}"))
}

/// What every other choice of a question shares and its answer does not, by `family`
/// (how a choice starts, a kanji's radical), when there are at least two others: the
/// answer then stands out as the odd one without being known (海 among 繰 繭 織).
pub fn odd_one_out(question: &Question, family: impl Fn(&str) -> Option<String>) -> Option<String> {
    let others: Vec<&String> = question
        .choices
        .iter()
        .filter(|c| **c != question.answer)
        .collect();
    shared_family(&question.answer, &others, family)
}

/// The family all of `others` share and `answer` does not, when there are two or more.
pub fn shared_family(
    answer: &str,
    others: &[impl AsRef<str>],
    family: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let shared = family(others.first()?.as_ref())?;
    (others.len() >= 2
        && family(answer).as_ref() != Some(&shared)
        && others
            .iter()
            .all(|o| family(o.as_ref()).as_ref() == Some(&shared)))
    .then_some(shared)
}

/// Whether an entry is a word or a name written without kanji, which has no reading to
/// ask but its own spelling: "How is トランジスター read?" could only offer another
/// spelling (トランジスタ) as the answer.
pub fn kana_word(id: &str, label: &str) -> bool {
    let of_a_character = ["kanji-", "radical-", "kana-"]
        .iter()
        .any(|prefix| id.starts_with(prefix));
    !of_a_character && !label.chars().any(crate::vocabulary::text::is_kanji)
}

/// Every reading a kanji or a word lists, each a right answer to "How is it read?" (事 is
/// ジ and ズ, 象 ショウ and ゾウ): none may stand among the wrong choices.
pub fn own_readings(learnable: &Learnable) -> Vec<String> {
    match &learnable.body {
        LearnableBody::Kanji(detail) => detail
            .readings
            .on
            .iter()
            .chain(&detail.readings.kun)
            .map(|reading| reading.replace(['.', '-'], ""))
            .collect(),
        LearnableBody::Vocabulary(detail) => {
            detail.readings.iter().map(|r| r.text.clone()).collect()
        }
        _ => Vec::new(),
    }
}

/// Kana a reading answer may stand apart in length from every other choice.
const LENGTH_APART_MAX: usize = 2;

/// How far a reading answer stands apart in length when it is longer, or shorter, than
/// every other choice by more than [`LENGTH_APART_MAX`] kana (いしずみけいいちろう among
/// readings of five and seven kana): its length alone then points at it.
pub fn length_alone(answer: &str, choices: &[impl AsRef<str>]) -> Option<usize> {
    let length = answer.chars().count();
    let others: Vec<usize> = choices
        .iter()
        .map(AsRef::as_ref)
        .filter(|c| *c != answer)
        .map(|c| c.chars().count())
        .collect();
    if others.len() < 2 {
        return None;
    }
    let gap = others.iter().map(|o| o.abs_diff(length)).min()?;
    let apart = others.iter().all(|o| *o < length) || others.iter().all(|o| *o > length);
    (apart && gap > LENGTH_APART_MAX).then_some(gap)
}

/// Titles a name ends in that tell its role: "What was 光厳天皇?" answers itself, so no
/// role question is asked of such a name.
pub const ROLE_TITLES: &[&str] = &[
    "天皇", "皇后", "上皇", "法皇", "女院", "院", "親王", "王", "皇子", "皇女", "太子", "将軍",
    "法師", "上人", "聖人", "禅師", "大師", "国師",
];

/// The title a name ends in, when it tells the name's role.
pub fn role_title(name: &str) -> Option<&'static str> {
    ROLE_TITLES
        .iter()
        .copied()
        .find(|title| name.ends_with(title))
}

/// Why a meaning or role question has a second right answer, or none to reason about:
/// a choice sharing a content word with the answer (`(political) power; authority`
/// beside `administration; political power`, `physician, scholar` beside `physician,
/// scientist`), or an answer that only repeats the word asked about (大言海 "known in
/// English as 大言海": a title whose gloss is its name).
pub fn ambiguous(question: &Question) -> Option<String> {
    if !matches!(
        question.kind,
        QuestionKind::MeaningChoice | QuestionKind::RoleChoice
    ) {
        return None;
    }
    if let Some(word) = markup::links(&question.prompt).next()
        && question.answer.contains(word.text)
    {
        return Some(format!("the answer repeats {}", word.text));
    }
    let answer_words = content_words(&question.answer);
    question
        .choices
        .iter()
        .filter(|c| **c != question.answer)
        .find_map(|choice| {
            let shared = content_words(choice)
                .into_iter()
                .find(|w| answer_words.contains(w))?;
            Some(format!(
                "choice “{choice}” shares “{shared}” with the answer"
            ))
        })
}

/// The name in letters of an entry (a `latin` writing form of four letters or more) that a
/// meaning answer contains: "Completion of the Engishiki" for 延喜式 tells the romanisation,
/// not a meaning.
pub fn names_in_letters<'a>(answer: &str, forms: &'a [WritingForm]) -> Option<&'a str> {
    let answer = answer.to_lowercase();
    forms
        .iter()
        .filter(|f| f.script == Script::Latin && f.text.chars().count() >= 4)
        .map(|f| f.text.as_str())
        .find(|name| answer.contains(&name.to_lowercase()))
}

/// The romaji of a word's reading (four letters or more) that a meaning answer spells as
/// one of its words: "police box; koban" for 交番 is answered by reading the word, not by
/// knowing its meaning.
pub fn spells_reading(answer: &str, learnable: &Learnable) -> Option<String> {
    let LearnableBody::Vocabulary(detail) = &learnable.body else {
        return None;
    };
    let words: BTreeSet<String> = answer
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    detail
        .readings
        .iter()
        .map(|reading| reading.romaji.to_lowercase())
        .find(|romaji| romaji.chars().count() >= 4 && words.contains(romaji))
}

/// Whether a word meaning `other` would fill the gap of a cloze whose answer means
/// `meaning`: the two share a content word (もしかしたら and もしかすると, "perhaps").
pub fn synonym_fits(meaning: &str, other: &str) -> bool {
    let words = content_words(meaning);
    content_words(other).iter().any(|w| words.contains(w))
}

/// The lower-cased words of an English meaning or role that carry its sense (three
/// letters or more, not a function word): `to put (something) on` → put, something.
pub fn content_words(text: &str) -> BTreeSet<String> {
    const FUNCTION_WORDS: [&str; 16] = [
        "the",
        "and",
        "for",
        "one",
        "one's",
        "someone",
        "something",
        "with",
        "from",
        "into",
        "that",
        "this",
        "who",
        "not",
        "etc",
        "e.g",
    ];
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !FUNCTION_WORDS.contains(&w.as_str()))
        .collect()
}

/// The readings every written form of a word has across the vocabulary, for telling a word
/// written like another read otherwise (相対 is そうたい "relative" and あいたい
/// "tête-à-tête", 凝らす こらす and こごらす): "What does 相対 mean?" then has two answers,
/// and so has "How is 凝らす read?". The builder asks by it and `verify` checks by it.
#[derive(Debug, Default)]
pub struct Homographs<'a> {
    readings_by_form: BTreeMap<&'a str, BTreeSet<&'a str>>,
}

impl<'a> Homographs<'a> {
    /// Records the forms and readings of a word, graded or not; other entries are ignored.
    pub fn add(&mut self, learnable: &'a Learnable) {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            return;
        };
        for form in &learnable.writing_forms {
            let readings = self.readings_by_form.entry(form.text.as_str()).or_default();
            readings.extend(detail.readings.iter().map(|r| r.text.as_str()));
        }
    }

    /// A reading of another word written like this word's label, when there is one.
    pub fn other_reading(&self, learnable: &Learnable) -> Option<&'a str> {
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            return None;
        };
        let label = super::items::label(learnable);
        self.readings_by_form
            .get(label.as_str())?
            .iter()
            .copied()
            .find(|r| !detail.readings.iter().any(|own| own.text == *r))
    }
}

/// The word a reading question shows when it shows kana beside its kanji (決ま**り**,
/// 組**み**込**む**): a reading choice without those kana cannot be its reading.
fn shown_word(question: &Question) -> Option<String> {
    if question.kind != QuestionKind::ReadingChoice {
        return None;
    }
    let shown = markup::links(&question.prompt).next()?.text;
    (!visible_kana(shown).is_empty()).then(|| shown.to_string())
}

/// The kana a word with kanji shows (its okurigana, the kana between its kanji, and a
/// name's given name in katakana), in order: `みむ` of 組み込む, `コノ` of 保井コノ, empty for
/// 学校 and for a word in kana only. The counter signs ヵ and ヶ are not kana a reading
/// repeats (ヶ月 is read かげつ).
pub fn visible_kana(text: &str) -> String {
    let kana = |c: &char| {
        ('\u{3041}'..='\u{3096}').contains(c) || ('\u{30A1}'..='\u{30F4}').contains(c) || *c == 'ー'
    };
    if text.chars().all(|c| kana(&c)) {
        return String::new();
    }
    text.chars().filter(kana).collect()
}

/// True when `reading` holds the kana a word shows, in their order (くみこむ holds み, む),
/// and ends in its okurigana: a reading that does not cannot be the word's.
pub fn fits_visible_kana(reading: &str, word: &str) -> bool {
    let mut rest = reading.chars();
    visible_kana(word).chars().all(|k| rest.any(|c| c == k))
        && reading.ends_with(&kana_ending(word))
}

/// True when a reading says some kana twice running, the second time perhaps voiced
/// (めいめい, ときどき, さまざま, せんせんげつ): what 々 asks of a reading.
pub fn repeats(reading: &str) -> bool {
    let kana: Vec<char> = reading.chars().collect();
    // A voiced kana follows its plain one in the block (か が), a half-voiced one by two (は ぱ).
    let unvoiced = |c: char| {
        let back = if "がぎぐげござじずぜぞだぢづでどばびぶべぼ".contains(c) {
            1
        } else if "ぱぴぷぺぽ".contains(c) {
            2
        } else {
            0
        };
        char::from_u32(c as u32 - back).unwrap_or(c)
    };
    (1..=kana.len() / 2).any(|len| {
        kana.windows(2 * len).any(|w| {
            let (first, second) = w.split_at(len);
            first[1..] == second[1..] && (first[0] == second[0] || first[0] == unvoiced(second[0]))
        })
    })
}

/// Titles a name is shown with, and their readings.
const TITLES: [(&str, &str); 6] = [
    ("天皇", "てんのう"),
    ("上皇", "じょうこう"),
    ("法皇", "ほうおう"),
    ("内親王", "ないしんのう"),
    ("親王", "しんのう"),
    ("女王", "じょおう"),
];

/// The reading of the title `label` ends in, when `reading` ends in it too (冷泉天皇
/// れいぜいてんのう: てんのう).
pub fn title_reading(label: &str, reading: &str) -> Option<&'static str> {
    TITLES
        .iter()
        .find(|(title, read)| label.ends_with(title) && reading.ends_with(read))
        .map(|(_, read)| *read)
}

/// The hiragana a text ends in (its okurigana): `まり` of 決まり, empty for 学校.
pub fn kana_ending(text: &str) -> String {
    let mut ending: Vec<char> = text
        .chars()
        .rev()
        .take_while(|c| ('\u{3041}'..='\u{3096}').contains(c))
        .collect();
    ending.reverse();
    ending.into_iter().collect()
}

/// Problems of one lesson.
pub fn lesson(lesson: &Lesson, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let id = &lesson.id;
    let mut problems = Vec::new();
    let mut strings: Vec<&str> = vec![&lesson.body_markdown, &lesson.title];
    for question in &lesson.questions {
        strings.extend([question.prompt.as_str(), question.explanation.as_str()]);
        let correct = question.correct_choices();
        if correct != 1 {
            problems.push(format!(
                "lesson {id} {}: {correct} choices equal the answer, not 1",
                question.id
            ));
        }
        if let Some(reason) = give_away(question).or_else(|| ambiguous(question)) {
            problems.push(format!("lesson {id} {}: {reason}", question.id));
        }
        if !exists(&question.learnable) {
            problems.push(format!(
                "lesson {id} {}: {} does not exist",
                question.id, question.learnable
            ));
        }
    }
    for missing in unresolved_links(&strings, exists) {
        problems.push(format!("lesson {id}: link to {missing} does not resolve"));
    }
    for reference in lesson.learnables.iter().filter(|r| !exists(r)) {
        problems.push(format!("lesson {id}: learnable {reference} does not exist"));
    }
    if !(1..=5).contains(&lesson.jlpt_level) {
        problems.push(format!(
            "lesson {id}: JLPT level {} is not 1..5",
            lesson.jlpt_level
        ));
    }
    problems
}

/// The lessons reachable from `from` along `edges`.
fn reachable<'a>(from: &'a str, next: &BTreeMap<&'a str, Vec<&'a str>>) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(node) = stack.pop() {
        if seen.insert(node) {
            stack.extend(next.get(node).into_iter().flatten().copied());
        }
    }
    seen
}

/// True when the edges contain a cycle (Kahn's algorithm leaves nodes unvisited).
fn has_cycle(nodes: &BTreeSet<&str>, edges: &[(&str, &str)]) -> bool {
    let mut incoming: BTreeMap<&str, usize> = nodes.iter().map(|n| (*n, 0)).collect();
    for (_, to) in edges {
        *incoming.entry(to).or_insert(0) += 1;
    }
    let mut ready: Vec<&str> = incoming
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(id, _)| *id)
        .collect();
    let mut visited = 0;
    while let Some(node) = ready.pop() {
        visited += 1;
        for (_, to) in edges.iter().filter(|(from, _)| *from == node) {
            if let Some(count) = incoming.get_mut(to) {
                *count -= 1;
                if *count == 0 {
                    ready.push(to);
                }
            }
        }
    }
    visited < incoming.len()
}

/// Problems of one journey's graph: edges and branches stay inside the journey, no
/// cycle, every lesson reachable from the start, every end and every branch option
/// reaching an outcome.
pub fn journey(journey: &Journey) -> Vec<String> {
    let id = &journey.id;
    let mut problems = Vec::new();
    let nodes: BTreeSet<&str> = journey.nodes.iter().map(String::as_str).collect();
    let edges: Vec<(&str, &str)> = journey
        .edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    for (from, to) in &edges {
        if !nodes.contains(from) || !nodes.contains(to) {
            problems.push(format!(
                "journey {id}: edge {from} → {to} leaves the journey"
            ));
        }
    }
    if has_cycle(&nodes, &edges) {
        problems.push(format!("journey {id}: the lesson graph has a cycle"));
        return problems;
    }
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in &edges {
        next.entry(from).or_default().push(to);
    }
    let from_start = reachable(&journey.start, &next);
    for node in nodes.iter().filter(|n| !from_start.contains(*n)) {
        problems.push(format!(
            "journey {id}: {node} cannot be reached from the start"
        ));
    }
    let ends: BTreeSet<&str> = journey.outcomes.iter().map(|o| o.after.as_str()).collect();
    for node in nodes
        .iter()
        .filter(|n| !next.contains_key(*n) && !ends.contains(*n))
    {
        problems.push(format!(
            "journey {id}: path ending at {node} has no outcome"
        ));
    }
    let examples: Vec<&str> = journey
        .outcomes
        .iter()
        .filter_map(|outcome| cited_examples(&outcome.can_do))
        .collect();
    if examples.len() > 1 && examples.iter().skip(1).any(|e| *e == examples[0]) {
        problems.push(format!(
            "journey {id}: its tracks' outcomes cite the same entries ({}); each must cite its own track",
            examples[0]
        ));
    }
    for point in &journey.branch_points {
        if !nodes.contains(point.after.as_str()) {
            problems.push(format!(
                "journey {id}: branch after {} is not in the journey",
                point.after
            ));
        }
        for option in &point.options {
            let reaches = reachable(&option.lesson, &next);
            if !reaches.iter().any(|n| ends.contains(n)) || !nodes.contains(option.lesson.as_str())
            {
                problems.push(format!(
                    "journey {id}: the {} branch does not reach an outcome",
                    option.track
                ));
            }
        }
    }
    problems
}

/// The entries an outcome names as examples: what follows "such as" up to the next comma
/// or full stop.
fn cited_examples(can_do: &str) -> Option<&str> {
    let after = can_do.split_once("such as ")?.1;
    Some(after.split([',', '.']).next().unwrap_or(after))
}

/// Problems across all documents: every lesson in a journey and in a known world, every
/// journey's lessons existing, prerequisites existing.
pub fn all(
    lessons: &[Lesson],
    journeys: &[Journey],
    worlds: &[World],
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let lesson_ids: BTreeSet<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    let world_ids: BTreeSet<&str> = worlds.iter().map(|w| w.id.as_str()).collect();
    let in_journeys: BTreeSet<&str> = journeys
        .iter()
        .flat_map(|j| &j.nodes)
        .map(String::as_str)
        .collect();
    for lesson in lessons {
        problems.extend(self::lesson(lesson, exists));
        if !in_journeys.contains(lesson.id.as_str()) {
            problems.push(format!("lesson {}: in no journey", lesson.id));
        }
        if !world_ids.contains(lesson.world.as_str()) {
            problems.push(format!(
                "lesson {}: world {} does not exist",
                lesson.id, lesson.world
            ));
        }
        for prerequisite in lesson
            .prerequisites
            .iter()
            .filter(|p| !lesson_ids.contains(p.as_str()))
        {
            problems.push(format!(
                "lesson {}: prerequisite {prerequisite} does not exist",
                lesson.id
            ));
        }
    }
    for journey in journeys {
        problems.extend(self::journey(journey));
        for node in journey
            .nodes
            .iter()
            .filter(|n| !lesson_ids.contains(n.as_str()))
        {
            problems.push(format!(
                "journey {}: lesson {node} does not exist",
                journey.id
            ));
        }
    }
    for world in worlds {
        for missing in unresolved_links(&[&world.introduction], exists) {
            problems.push(format!(
                "world {}: link to {missing} does not resolve",
                world.id
            ));
        }
    }
    problems
}

fn parse_all<T: serde::de::DeserializeOwned>(
    kind: &str,
    docs: &[manabi_artifact::RawDoc],
    problems: &mut Vec<String>,
) -> Vec<T> {
    docs.iter()
        .filter_map(|doc| match serde_json::from_str(&doc.json) {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                problems.push(format!("{kind} {}: not a {kind} document: {error}", doc.id));
                None
            }
        })
        .collect()
}

/// Every teaching-layer problem of an artifact.
pub fn artifact(artifact: &Artifact) -> Vec<String> {
    let mut problems = Vec::new();
    let lessons: Vec<Lesson> = parse_all("lesson", &artifact.lessons, &mut problems);
    let journeys: Vec<Journey> = parse_all("journey", &artifact.journeys, &mut problems);
    let worlds: Vec<World> = parse_all("world", &artifact.worlds, &mut problems);
    let ids: BTreeSet<&str> = artifact
        .learnables
        .iter()
        .map(|l| l.summary.id.as_str())
        .collect();
    problems.extend(all(&lessons, &journeys, &worlds, &|id| ids.contains(id)));
    let forms: BTreeMap<&str, &[WritingForm]> = artifact
        .learnables
        .iter()
        .map(|l| (l.summary.id.as_str(), l.summary.writing_forms.as_slice()))
        .collect();
    for lesson in &lessons {
        for question in lesson
            .questions
            .iter()
            .filter(|q| q.kind == QuestionKind::MeaningChoice)
        {
            if let Some(name) = forms
                .get(question.learnable.as_str())
                .and_then(|f| names_in_letters(&question.answer, f))
            {
                problems.push(format!(
                    "lesson {} {}: the answer only spells the name {name}",
                    lesson.id, question.id
                ));
            }
        }
    }
    let sample: BTreeSet<&str> = artifact
        .lessons
        .iter()
        .filter(|l| l.sample)
        .map(|l| l.id.as_str())
        .collect();
    let sample_journeys = journeys
        .iter()
        .zip(&artifact.journeys)
        .filter(|(_, raw)| raw.sample);
    for (journey, _) in sample_journeys {
        for node in journey
            .nodes
            .iter()
            .filter(|n| !sample.contains(n.as_str()))
        {
            problems.push(format!(
                "journey {} is in the sample but lesson {node} is not",
                journey.id
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use manabi_schemas::lesson::QuestionKind;

    fn question(choices: &[&str], answer: &str) -> Question {
        Question {
            id: "q1".to_owned(),
            kind: QuestionKind::ReadingChoice,
            prompt: String::new(),
            choices: choices.iter().map(|c| (*c).to_owned()).collect(),
            answer: answer.to_owned(),
            explanation: String::new(),
            learnable: "vocab-1".to_owned(),
        }
    }

    #[test]
    fn a_choice_starts_with_its_kana_row_or_letter() {
        assert_eq!(initial("かく"), "k");
        assert_eq!(initial("ガク"), "k");
        assert_eq!(initial("ちから"), "t");
        assert_eq!(initial("ふね"), "h");
        assert_eq!(initial("ばん"), "h");
        assert_eq!(initial("あし"), "a");
        assert_eq!(initial("Mountain"), "m");
        assert_eq!(initial("山"), "山");
    }

    #[test]
    fn the_only_reading_ending_as_the_word_shown_gives_it_away() {
        let mut question = question(&["きまり", "きゅう", "けん", "けんぽう"], "きまり");
        question.kind = QuestionKind::ReadingChoice;
        question.prompt = "How is [[vocab-1|決まり]] read?".to_owned();
        assert!(give_away(&question).is_some_and(|why| why.contains("まり")));
        question.choices = ["きまり", "あつまり", "せまり", "とまり"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(give_away(&question), None);
        assert_eq!(kana_ending("学校"), "");
        assert_eq!(kana_ending("轢く"), "く");
        question.prompt = "How is [[vocab-1|組み込む]] read?".to_owned();
        question.choices = ["きしむ", "くみこむ", "からむ", "かさむ"]
            .map(str::to_owned)
            .to_vec();
        question.answer = "くみこむ".to_owned();
        assert!(give_away(&question).is_some_and(|why| why.contains("みむ")));
        assert_eq!(visible_kana("組み込む"), "みむ");
        assert_eq!(visible_kana("保井コノ"), "コノ");
        assert_eq!(visible_kana("ヶ月"), "");
        assert!(!fits_visible_kana("かさぎしづこ", "保井コノ"));
        assert_eq!(visible_kana("がっこう"), "");
        assert!(fits_visible_kana("ふみこむ", "組み込む"));
        assert!(!fits_visible_kana("くみこみ", "組み込む"));
    }

    #[test]
    fn a_reading_without_the_title_of_the_name_gives_it_away() {
        let mut question = question(
            &[
                "れいぜいてんのう",
                "すざくてんのう",
                "ふじわら",
                "かざんてんのう",
            ],
            "れいぜいてんのう",
        );
        question.kind = QuestionKind::ReadingChoice;
        question.prompt = "How is [[history-1|冷泉天皇]] read?".to_owned();
        assert!(give_away(&question).is_some_and(|why| why.contains("ふじわら")));
        question.choices[2] = "いちじょうてんのう".to_owned();
        assert_eq!(give_away(&question), None);
    }

    #[test]
    fn a_reading_without_repeated_kana_gives_a_word_with_the_repeat_mark_away() {
        for reading in [
            "めいめい",
            "ときどき",
            "さまざま",
            "せんせんげつ",
            "ほうぼう",
            "ささき",
        ] {
            assert!(repeats(reading), "{reading}");
        }
        for reading in ["みまん", "まいど", "さっさひろお", "がか"] {
            assert!(!repeats(reading), "{reading}");
        }
        let mut question = question(&["みまん", "まいど", "まもなく", "めいめい"], "めいめい");
        question.prompt = "How is [[vocab-1|銘々]] read?".to_owned();
        assert!(give_away(&question).is_some_and(|why| why.contains("々")));
        question.choices = ["ぺらぺら", "まいまい", "いちいち", "めいめい"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(give_away(&question), None);
    }

    #[test]
    fn a_meaning_that_spells_the_name_in_letters_is_no_meaning() {
        let forms = [
            WritingForm {
                text: "延喜式".to_owned(),
                script: Script::Kanji,
            },
            WritingForm {
                text: "Engishiki".to_owned(),
                script: Script::Latin,
            },
        ];
        assert_eq!(
            names_in_letters("Completion of the Engishiki", &forms),
            Some("Engishiki")
        );
        assert_eq!(names_in_letters("Procedures of the Engi era", &forms), None);
    }

    #[test]
    fn a_year_among_spans_of_years_gives_it_away() {
        assert_eq!(form("1534–1582"), "years");
        assert_eq!(form("c. 1330–1384"), "years");
        assert_eq!(form("1600"), "year");
        assert_eq!(form("300 BCE"), "year");
        assert_eq!(form("Nara Prefecture"), "latin");
    }

    #[test]
    fn the_answer_starting_unlike_three_alike_choices_gives_it_away() {
        let odd = question(&["すずき", "きのした", "すがわら", "すみ"], "きのした");
        assert!(give_away(&odd).is_some_and(|r| r.contains("“s”")));
        let shared = question(&["きむら", "きのした", "すがわら", "すみ"], "きのした");
        assert_eq!(give_away(&shared), None);
        let mixed = question(&["あさ", "きのした", "すがわら", "たなか"], "きのした");
        assert_eq!(give_away(&mixed), None);
        assert_eq!(
            length_alone(
                "いしずみけいいちろう",
                &[
                    "いしずみけいいちろう",
                    "はたのあきら",
                    "ふしみ",
                    "ふなはしせい"
                ]
            ),
            Some(4)
        );
        assert_eq!(
            length_alone("いしずみ", &["いしずみ", "ふしみ", "たかはしけん"]),
            None
        );
    }
}
