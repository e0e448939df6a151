//! Example sentences and cloze blanks on word boundaries, as the artifact alone can check
//! them (the server has no morphological analyser): a word's written form in a sentence is
//! off its boundary when it lies inside a longer vocabulary word of the artifact (パン in
//! パンダ, 猫 in 猫背, 下 in 下さい). The vocabulary builder keeps only sentences whose
//! tokens also put the word on a boundary (see `vocabulary::examples`) and then applies
//! this same rule, so what it writes is what `verify` accepts.

use std::collections::{BTreeMap, HashMap, HashSet};

use manabi_artifact::Artifact;
use manabi_schemas::lesson::{Lesson, QuestionKind};
use manabi_schemas::vocabulary::VocabularyDetail;
use manabi_schemas::{Learnable, LearnableBody, LearnableType, WritingForm};

/// Kana-only stems shorter than this match inside too many other words.
const KANA_STEM_CHARS_MIN: usize = 3;
/// Problems listed one by one before `verify` sums up the rest.
const PROBLEMS_LISTED_MAX: usize = 20;

fn is_kanji(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}' | '々')
}

fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// How a word is recognised in a sentence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordForms {
    /// The label and every written form with a kanji, as they are written.
    pub exact: Vec<String>,
    /// For verbs and i-adjectives, the label's stem (`食べる` → `食べ`), which must be
    /// followed by kana.
    pub stem: Option<String>,
}

impl WordForms {
    pub fn new(label: &str, writing_forms: &[WritingForm], inflects: bool) -> Self {
        let mut exact = vec![label.to_owned()];
        for form in writing_forms {
            if form.text.chars().any(is_kanji) && !exact.contains(&form.text) {
                exact.push(form.text.clone());
            }
        }
        let stem = if inflects { stem(label) } else { None };
        Self { exact, stem }
    }

    /// The forms of a vocabulary learnable as the artifact stores it.
    pub fn of(learnable: &Learnable, detail: &VocabularyDetail) -> Self {
        let label = learnable.label.as_deref().unwrap_or_default();
        let inflects = crate::vocabulary::inflects(&detail.senses);
        Self::new(label, &learnable.writing_forms, inflects)
    }
}

/// The stem of an inflecting form (`食べる` → `食べ`, `高い` → `高`, `くたびれる` →
/// `くたびれ`), when it still holds a kanji or is long enough to be unambiguous.
pub fn stem(form: &str) -> Option<String> {
    let mut chars: Vec<char> = form.chars().collect();
    let last = chars.pop()?;
    let distinctive = chars.iter().any(|&c| is_kanji(c)) || chars.len() >= KANA_STEM_CHARS_MIN;
    (is_hiragana(last) && distinctive).then(|| chars.into_iter().collect())
}

/// The written forms of every vocabulary entry: the longer words a form can hide in.
#[derive(Debug, Default)]
pub struct Lexicon {
    forms: HashSet<String>,
    chars_max: usize,
}

impl Lexicon {
    pub fn new<'a>(words: impl IntoIterator<Item = &'a WordForms>) -> Self {
        let forms: HashSet<String> = words
            .into_iter()
            .flat_map(|w| w.exact.iter().filter(|f| !f.is_empty()).cloned())
            .collect();
        let chars_max = forms.iter().map(|f| f.chars().count()).max().unwrap_or(0);
        Self { forms, chars_max }
    }

    /// A lexicon form that covers `text[start..end]` and is longer than it.
    pub fn longer_word_around(&self, text: &str, start: usize, end: usize) -> Option<String> {
        self.words_around(text, start, end)
            .next()
            .map(|(from, to)| text[from..to].to_owned())
    }

    /// The byte ranges of the lexicon forms that cover `text[start..end]` and are longer.
    fn words_around<'t>(
        &'t self,
        text: &'t str,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 't {
        let span_chars = text[start..end].chars().count();
        let reach = self.chars_max.saturating_sub(span_chars);
        let mut starts: Vec<usize> = text[..start]
            .char_indices()
            .rev()
            .take(reach)
            .map(|(at, _)| at)
            .collect();
        starts.insert(0, start);
        let mut ends: Vec<usize> = text[end..]
            .char_indices()
            .take(reach)
            .map(|(at, c)| end + at + c.len_utf8())
            .collect();
        ends.insert(0, end);
        starts
            .into_iter()
            .flat_map(move |from| ends.clone().into_iter().map(move |to| (from, to)))
            .filter(move |&(from, to)| {
                (from, to) != (start, end)
                    && text[from..to].chars().count() <= self.chars_max
                    && self.forms.contains(&text[from..to])
            })
    }
}

/// Longest kanji compound [`Lexicon::compounds`] keeps: longer ones are names and titles,
/// and the search around a word grows with the square of this.
const COMPOUND_CHARS_MAX: usize = 6;

impl Lexicon {
    /// The dictionary's written forms of kanji alone (具体的, 具体例, 欲求不満, 人種差別),
    /// of two to [`COMPOUND_CHARS_MAX`] characters: a word written in kanji that stands
    /// inside one of them in a sentence is part of that compound, not a word of its own,
    /// though the analyser may cut the compound into it and the rest (具体 + 的).
    pub fn compounds<'a>(forms: impl IntoIterator<Item = &'a str>) -> Self {
        let forms: HashSet<String> = forms
            .into_iter()
            .filter(|f| (2..=COMPOUND_CHARS_MAX).contains(&f.chars().count()))
            .filter(|f| f.chars().all(is_kanji))
            .map(str::to_owned)
            .collect();
        let chars_max = forms.iter().map(|f| f.chars().count()).max().unwrap_or(0);
        Self { forms, chars_max }
    }

    /// The compound a written form of `word` in kanji alone stands inside in `text`: a
    /// longer form of this lexicon around it that starts and ends where the analyser's
    /// tokens do (`starts`, `ends`: byte offsets). 具体的 is 具体|的, a compound; 諸事実 is
    /// 諸|事実, so 諸事 in it is no word and 諸 stands alone.
    pub fn compound_around(
        &self,
        text: &str,
        word: &WordForms,
        starts: &HashSet<usize>,
        ends: &HashSet<usize>,
    ) -> Option<String> {
        let kanji_only = |&(start, end): &(usize, usize)| text[start..end].chars().all(is_kanji);
        occurrences(text, &word.exact)
            .into_iter()
            .filter(kanji_only)
            .find_map(|(start, end)| {
                self.words_around(text, start, end)
                    .find(|&(from, to)| starts.contains(&from) && ends.contains(&to))
                    .map(|(from, to)| text[from..to].to_owned())
            })
    }
}

/// Where a word stands in a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Every written form of the word in the sentence is a word of its own (and the word is
    /// there, written or as a stem followed by kana).
    OnBoundary,
    /// A written form of the word only occurs inside this longer word.
    InsideLongerWord(String),
    /// Neither a written form nor the stem occurs.
    Absent,
}

/// The byte ranges where the written forms occur, leaving out those inside a longer form
/// of the same word (梅干 inside 梅干し).
pub fn occurrences(text: &str, forms: &[String]) -> Vec<(usize, usize)> {
    let all: Vec<(usize, usize)> = forms
        .iter()
        .filter(|f| !f.is_empty())
        .flat_map(|form| {
            text.match_indices(form.as_str())
                .map(|(start, _)| (start, start + form.len()))
        })
        .collect();
    let mut outer: Vec<(usize, usize)> = all
        .iter()
        .filter(|&&(s, e)| {
            !all.iter()
                .any(|&(s2, e2)| s2 <= s && e <= e2 && (s2, e2) != (s, e))
        })
        .copied()
        .collect();
    outer.sort_unstable();
    outer.dedup();
    outer
}

/// Katakana inside a word: the letters, ー and the iteration marks, not the middle dot that
/// sets words apart.
fn is_katakana(c: char) -> bool {
    crate::vocabulary::text::is_katakana(c) && c != '・'
}

/// The longer run of katakana a katakana form stands in, whatever the lexicon knows: a
/// loanword glued to another is part of a compound (スカイ in スカイダイビング, ナイト in
/// ナイトマーケット); a middle dot or any other script sets it apart.
fn katakana_run_around(text: &str, start: usize, end: usize) -> Option<String> {
    if !text[start..end].chars().all(is_katakana) {
        return None;
    }
    let before = text[..start].chars().rev().take_while(|&c| is_katakana(c));
    let from = start - before.map(char::len_utf8).sum::<usize>();
    let after = text[end..].chars().take_while(|&c| is_katakana(c));
    let to = end + after.map(char::len_utf8).sum::<usize>();
    // コンピューター is コンピュータ with the long mark some write.
    let same = text[from..to].trim_end_matches('ー') == text[start..end].trim_end_matches('ー');
    (!same).then(|| text[from..to].to_owned())
}

/// Where `word` stands in `text`. Every occurrence of a written form must be clean, so
/// that a cloze blank on the first one is on a boundary too.
pub fn placement(text: &str, word: &WordForms, lexicon: &Lexicon) -> Placement {
    let found = occurrences(text, &word.exact);
    for &(start, end) in &found {
        if let Some(longer) = lexicon
            .longer_word_around(text, start, end)
            .or_else(|| katakana_run_around(text, start, end))
        {
            return Placement::InsideLongerWord(longer);
        }
    }
    if !found.is_empty() {
        return Placement::OnBoundary;
    }
    let Some(stem) = word.stem.as_deref().filter(|s| !s.is_empty()) else {
        return Placement::Absent;
    };
    let mut inside = None;
    for (start, _) in text.match_indices(stem) {
        let end = start + stem.len();
        if !text[end..].chars().next().is_some_and(is_hiragana) {
            continue;
        }
        match lexicon.longer_word_around(text, start, end) {
            None => return Placement::OnBoundary,
            Some(longer) => inside = Some(longer),
        }
    }
    inside.map_or(Placement::Absent, Placement::InsideLongerWord)
}

/// The figures and problems of the boundary rules on an artifact.
#[derive(Debug, Default)]
pub struct BoundaryQuality {
    pub figures: BTreeMap<String, usize>,
    pub problems: Vec<String>,
}

struct Word {
    label: String,
    forms: WordForms,
    examples: Vec<String>,
}

fn vocabulary(artifact: &Artifact) -> BTreeMap<String, Word> {
    let mut words = BTreeMap::new();
    for loaded in &artifact.learnables {
        if loaded.summary.kind != LearnableType::Vocabulary {
            continue;
        }
        // A document that does not parse is reported by verify's document check.
        let Ok(learnable) = serde_json::from_str::<Learnable>(&loaded.json) else {
            continue;
        };
        let LearnableBody::Vocabulary(detail) = &learnable.body else {
            continue;
        };
        let word = Word {
            label: learnable.label.clone().unwrap_or_default(),
            forms: WordForms::of(&learnable, detail),
            examples: detail.examples.iter().map(|e| e.japanese.clone()).collect(),
        };
        words.insert(learnable.id.clone(), word);
    }
    words
}

/// Counts examples and cloze blanks off a word boundary (figures
/// `vocabulary_examples_off_boundary`, `vocabulary_examples_without_word`,
/// `vocabulary_entries_off_boundary`, `cloze_blanks_off_boundary`); each is a problem.
pub fn measure(artifact: &Artifact) -> BoundaryQuality {
    let words = vocabulary(artifact);
    let lexicon = Lexicon::new(words.values().map(|w| &w.forms));
    let mut quality = BoundaryQuality::default();
    let mut problems = Vec::new();
    let mut figure = |name: &str, by: usize| {
        *quality.figures.entry(name.to_owned()).or_default() += by;
    };
    for (id, word) in &words {
        let mut entry_off = false;
        for example in &word.examples {
            figure("vocabulary_examples", 1);
            match placement(example, &word.forms, &lexicon) {
                Placement::OnBoundary => continue,
                Placement::InsideLongerWord(longer) => {
                    figure("vocabulary_examples_off_boundary", 1);
                    problems.push(format!(
                        "{id} {}: example “{example}” has it only inside {longer}",
                        word.label
                    ));
                }
                Placement::Absent => {
                    figure("vocabulary_examples_without_word", 1);
                    problems.push(format!(
                        "{id} {}: example “{example}” does not contain it",
                        word.label
                    ));
                }
            }
            entry_off = true;
        }
        figure("vocabulary_entries_off_boundary", usize::from(entry_off));
    }
    let (blanks, off) = cloze_blanks(artifact, &words, &lexicon, &mut problems);
    figure("cloze_blanks", blanks);
    figure("cloze_blanks_off_boundary", off);
    for key in [
        "vocabulary_examples_off_boundary",
        "vocabulary_examples_without_word",
        "vocabulary_entries_off_boundary",
    ] {
        quality.figures.entry(key.to_owned()).or_default();
    }
    let more = problems.len().saturating_sub(PROBLEMS_LISTED_MAX);
    problems.truncate(PROBLEMS_LISTED_MAX);
    if more > 0 {
        problems.push(format!(
            "… and {more} more examples or blanks off a word boundary"
        ));
    }
    quality.problems = problems;
    quality
}

/// The blank of a cloze question is the first occurrence of the answer in one of the
/// word's examples; it is off its boundary when that occurrence is inside a longer word.
fn cloze_blanks(
    artifact: &Artifact,
    words: &BTreeMap<String, Word>,
    lexicon: &Lexicon,
    problems: &mut Vec<String>,
) -> (usize, usize) {
    let (mut blanks, mut off) = (0, 0);
    for raw in &artifact.lessons {
        let Ok(lesson) = serde_json::from_str::<Lesson>(&raw.json) else {
            continue;
        };
        for question in lesson.questions {
            if question.kind != QuestionKind::Cloze {
                continue;
            }
            let Some(word) = words.get(&question.learnable) else {
                continue;
            };
            let answer = question.answer.as_str();
            let example = word.examples.iter().find(|e| {
                !answer.is_empty()
                    && e.contains(answer)
                    && question.prompt.contains(&e.replacen(answer, "＿＿", 1))
            });
            let Some(example) = example else {
                continue;
            };
            blanks += 1;
            let start = example.find(answer).unwrap_or_default();
            if let Some(longer) = lexicon.longer_word_around(example, start, start + answer.len()) {
                off += 1;
                problems.push(format!(
                    "{} {}: cloze blank for {answer} inside {longer} in “{example}”",
                    lesson.id, question.id
                ));
            }
        }
    }
    (blanks, off)
}

/// A lookup from written form to the words that have it, for the builder.
pub fn by_form(words: &[WordForms]) -> HashMap<&str, Vec<usize>> {
    let mut found: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, word) in words.iter().enumerate() {
        for form in &word.exact {
            found.entry(form.as_str()).or_default().push(index);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(label: &str, inflects: bool) -> WordForms {
        WordForms::new(label, &[], inflects)
    }

    fn lexicon_of(labels: &[&str]) -> Lexicon {
        let words: Vec<WordForms> = labels.iter().map(|l| word(l, false)).collect();
        Lexicon::new(&words)
    }

    #[test]
    fn a_form_inside_a_longer_vocabulary_word_is_off_its_boundary() {
        let lexicon = lexicon_of(&["パン", "パンダ", "猫", "猫背", "下", "下さい", "ケース"]);
        let inside = |text: &str, label: &str| placement(text, &word(label, false), &lexicon);
        assert_eq!(
            inside("パンダが好きです。", "パン"),
            Placement::InsideLongerWord("パンダ".into())
        );
        assert_eq!(
            inside("猫背を直したい。", "猫"),
            Placement::InsideLongerWord("猫背".into())
        );
        assert_eq!(
            inside("来て下さい。", "下"),
            Placement::InsideLongerWord("下さい".into())
        );
        assert_eq!(inside("パンを食べた。", "パン"), Placement::OnBoundary);
        assert_eq!(inside("犬がいる。", "猫"), Placement::Absent);
    }

    /// Byte offsets of the token edges of `pieces`, concatenated.
    fn edges(pieces: &[&str]) -> (HashSet<usize>, HashSet<usize>) {
        let (mut starts, mut ends, mut at) = (HashSet::new(), HashSet::new(), 0);
        for piece in pieces {
            starts.insert(at);
            at += piece.len();
            ends.insert(at);
        }
        (starts, ends)
    }

    #[test]
    fn a_kanji_word_inside_a_dictionary_compound_on_token_edges_is_that_compound() {
        let compounds = Lexicon::compounds(["具体的", "具体例", "諸事", "事実", "美しい"]);
        let concrete = word("具体", false);
        let (starts, ends) = edges(&["具体", "的", "に", "話す"]);
        assert_eq!(
            compounds.compound_around("具体的に話す", &concrete, &starts, &ends),
            Some("具体的".to_owned())
        );
        let (starts, ends) = edges(&["具体", "を", "示す"]);
        assert_eq!(
            compounds.compound_around("具体を示す", &concrete, &starts, &ends),
            None
        );
        // 諸事実 is 諸|事実: the dictionary's 諸事 ends inside a token, so 諸 stands alone.
        let (starts, ends) = edges(&["諸", "事実", "が", "ある"]);
        assert_eq!(
            compounds.compound_around("諸事実がある", &word("諸", false), &starts, &ends),
            None
        );
    }

    #[test]
    fn a_katakana_word_glued_to_more_katakana_is_off_its_boundary() {
        let lexicon = lexicon_of(&["スカイ"]);
        let sky = word("スカイ", false);
        assert_eq!(
            placement("スカイダイビングに挑戦したい。", &sky, &lexicon),
            Placement::InsideLongerWord("スカイダイビング".to_owned())
        );
        assert_eq!(
            placement("青いスカイが好き。", &sky, &lexicon),
            Placement::OnBoundary
        );
        assert_eq!(
            placement("ブルー・スカイ。", &sky, &lexicon),
            Placement::OnBoundary
        );
        let computer = word("コンピュータ", false);
        assert_eq!(
            placement("コンピューターを使う。", &computer, &lexicon),
            Placement::OnBoundary
        );
    }

    #[test]
    fn a_short_form_inside_a_longer_form_of_the_same_word_is_fine() {
        let pickled = WordForms::new(
            "梅干",
            &[WritingForm {
                text: "梅干し".into(),
                script: manabi_schemas::Script::Mixed,
            }],
            false,
        );
        let lexicon = Lexicon::new([&pickled]);
        let text = "この梅干し、塩辛いね。";
        assert_eq!(placement(text, &pickled, &lexicon), Placement::OnBoundary);
    }

    #[test]
    fn every_occurrence_must_be_clean_for_the_cloze() {
        let lexicon = lexicon_of(&["パン", "パンダ"]);
        let text = "パンダがパンを食べた。";
        assert_eq!(
            placement(text, &word("パン", false), &lexicon),
            Placement::InsideLongerWord("パンダ".into())
        );
    }

    #[test]
    fn inflected_words_are_found_by_a_stem_followed_by_kana() {
        let lexicon = lexicon_of(&["食べる", "食べ物"]);
        let eat = word("食べる", true);
        assert_eq!(
            placement("パンを食べた。", &eat, &lexicon),
            Placement::OnBoundary
        );
        assert_eq!(
            placement("食べ物が好き。", &eat, &lexicon),
            Placement::Absent
        );
        let high = word("高い", true);
        let lexicon = lexicon_of(&["高い", "高校"]);
        assert_eq!(
            placement("高くない。", &high, &lexicon),
            Placement::OnBoundary
        );
    }

    #[test]
    fn stems_keep_a_kanji() {
        assert_eq!(stem("食べる").as_deref(), Some("食べ"));
        assert_eq!(stem("高い").as_deref(), Some("高"));
        assert_eq!(stem("いる"), None);
        assert_eq!(stem("くたびれる").as_deref(), Some("くたびれ"));
    }
}
