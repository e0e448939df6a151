//! Pitch accent and word origin from the two MeCab dictionaries.
//!
//! UniDic 2.1.2 gives the accent nucleus (`aType`, field 23) and the word-origin class
//! (`goshu`, field 12); NAIST-JDIC as packaged for Open JTalk gives the accent as
//! `nucleus/morae` (field 9). A word is looked up by its written forms first (they are
//! unambiguous) and by its kana reading last, and only tokens whose reading equals the
//! word's reading count.

use std::path::Path;

use manabi_schemas::vocabulary::OriginClass;
use manabi_search::kana::hiragana_to_katakana;

use super::mecab::{Hit, MecabError, SystemDictionary, split_feature};
use super::text::is_kanji;

/// Where each dictionary sits inside its source directory.
pub const UNIDIC_PATH: &str = "unidic-lite-1.0.8/unidic_lite/dicdir/sys.dic";
pub const NAIST_JDIC_PATH: &str = "var/lib/mecab/dic/open-jtalk/naist-jdic/sys.dic";

/// UniDic feature columns (see the dictionary's `dicrc`).
mod unidic_field {
    pub const POS2: usize = 1;
    pub const CONJUGATION_FORM: usize = 5;
    pub const LEMMA: usize = 7;
    pub const ORTH_BASE: usize = 10;
    pub const GOSHU: usize = 12;
    pub const KANA: usize = 17;
    pub const ACCENT_TYPE: usize = 23;
}

/// NAIST-JDIC (Open JTalk) feature columns.
mod naist_field {
    pub const POS1: usize = 1;
    pub const CONJUGATION_FORM: usize = 5;
    pub const READING: usize = 7;
    pub const ACCENT: usize = 9;
}

/// What one dictionary says about a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Accent nuclei, primary first.
    pub nuclei: Vec<u8>,
    /// Word-origin class (UniDic only).
    pub origin: Option<OriginClass>,
    /// A loanword's source words, from the Latin part of UniDic's lemmas (`コーヒー-coffee`),
    /// in rank order; a reading may have several (ロケット: locket, rocket).
    pub source_words: Vec<String>,
    /// Index of the token the primary accent comes from, for the citation.
    pub token: u32,
}

/// The word as the dictionaries are asked about it.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    /// Written forms with kanji, main form first.
    pub kanji_forms: &'a [String],
    /// The reading the accent should belong to, in the script JMdict writes it.
    pub reading: &'a str,
    /// True when the word is usually written in kana, so its kana form is a fair surface
    /// to look up even though it has kanji forms.
    pub usually_kana: bool,
}

/// Both dictionaries, opened once per build.
pub struct AccentDictionaries {
    unidic: SystemDictionary,
    naist_jdic: SystemDictionary,
}

impl AccentDictionaries {
    pub fn open(unidic: &Path, naist_jdic: &Path) -> Result<Self, MecabError> {
        Ok(Self {
            unidic: SystemDictionary::open(unidic)?,
            naist_jdic: SystemDictionary::open(naist_jdic)?,
        })
    }

    pub fn unidic(&self, query: &Query) -> Result<Option<Analysis>, MecabError> {
        let reading = hiragana_to_katakana(query.reading);
        for (surface, by_kana) in surfaces(query) {
            let hits = self.unidic.lookup(&surface)?;
            let tokens: Vec<(u32, Vec<String>)> = hits
                .into_iter()
                .map(split_hit)
                .filter(|(_, f)| field(f, unidic_field::KANA) == reading)
                .filter(|(_, f)| !by_kana || lemma_matches(f, query.kanji_forms))
                .collect();
            if let Some(analysis) = unidic_analysis(&tokens) {
                return Ok(Some(analysis));
            }
        }
        Ok(None)
    }

    /// The origin class of a compound UniDic has no token for (お茶, 会議室), from two
    /// parts it does have whose readings spell the word's reading: one class when both
    /// parts share it, `hybrid` otherwise.
    pub fn unidic_compound_origin(
        &self,
        form: &str,
        reading: &str,
    ) -> Result<Option<OriginClass>, MecabError> {
        // Kana words split anywhere (ぐっと → ぐ + っと); only kanji compounds are split.
        if !form.chars().any(is_kanji) {
            return Ok(None);
        }
        let reading = hiragana_to_katakana(reading);
        let boundaries: Vec<usize> = form.char_indices().map(|(at, _)| at).skip(1).collect();
        for at in boundaries {
            let (left, right) = form.split_at(at);
            let left = self.unidic_parts(left)?;
            let right = self.unidic_parts(right)?;
            for (left_kana, left_class) in &left {
                let Some(rest) = reading.strip_prefix(left_kana.as_str()) else {
                    continue;
                };
                if let Some((_, right_class)) = right.iter().find(|(kana, _)| kana == rest) {
                    let same = left_class == right_class;
                    return Ok(Some(if same {
                        *left_class
                    } else {
                        OriginClass::Hybrid
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The (kana, origin class) of every UniDic token of a surface that has a class.
    fn unidic_parts(&self, surface: &str) -> Result<Vec<(String, OriginClass)>, MecabError> {
        Ok(self
            .unidic
            .lookup(surface)?
            .into_iter()
            .map(split_hit)
            .filter_map(|(_, f)| {
                let class = origin_class(field(&f, unidic_field::GOSHU))?;
                Some((field(&f, unidic_field::KANA).to_owned(), class))
            })
            .collect())
    }

    /// Every NAIST-JDIC token spelt exactly `surface`: its word cost and feature fields.
    pub fn naist_jdic_analyses(
        &self,
        surface: &str,
    ) -> Result<Vec<(i16, Vec<String>)>, MecabError> {
        let hits = self.naist_jdic.lookup(surface)?;
        Ok(hits
            .into_iter()
            .map(|hit| {
                let cost = self
                    .naist_jdic
                    .token(hit.token)
                    .map_or(i16::MAX, |t| t.cost);
                (cost, split_hit(hit).1)
            })
            .collect())
    }

    pub fn naist_jdic(&self, query: &Query) -> Result<Option<Analysis>, MecabError> {
        let reading = hiragana_to_katakana(query.reading);
        for (surface, _) in surfaces(query) {
            let hits = self.naist_jdic.lookup(&surface)?;
            let tokens: Vec<(u32, Vec<String>)> = hits
                .into_iter()
                .map(split_hit)
                .filter(|(_, f)| field(f, naist_field::READING) == reading)
                .collect();
            if let Some(analysis) = naist_analysis(&tokens) {
                return Ok(Some(analysis));
            }
        }
        Ok(None)
    }
}

/// The surfaces to try, in order, each with whether it is the kana form of a word that
/// also has kanji forms (then a homophone could answer, so UniDic's lemma must agree).
fn surfaces(query: &Query) -> Vec<(String, bool)> {
    let mut surfaces: Vec<(String, bool)> = query
        .kanji_forms
        .iter()
        .map(|form| (form.clone(), false))
        .collect();
    if query.kanji_forms.is_empty() || query.usually_kana {
        // The reading as JMdict writes it: a hiragana word is not looked up in katakana,
        // where a loanword homophone would answer (ぐっと vs グット).
        surfaces.push((query.reading.to_owned(), !query.kanji_forms.is_empty()));
    }
    surfaces
}

fn split_hit(hit: Hit) -> (u32, Vec<String>) {
    (hit.token, split_feature(&hit.feature))
}

fn field(fields: &[String], index: usize) -> &str {
    fields.get(index).map(String::as_str).unwrap_or("")
}

/// UniDic lemmas carry a gloss for loanwords (`コーヒー-coffee`); the written part must be
/// one of the word's forms.
fn lemma_matches(fields: &[String], kanji_forms: &[String]) -> bool {
    let lemma = field(fields, unidic_field::LEMMA);
    let lemma = lemma.split('-').next().unwrap_or(lemma);
    let orth_base = field(fields, unidic_field::ORTH_BASE);
    kanji_forms
        .iter()
        .any(|form| form == lemma || form == orth_base)
}

/// Dictionary forms first (uninflected or 終止形/基本形), proper nouns last.
fn preference(conjugation_form: &str, proper_noun: bool) -> u8 {
    let dictionary_form =
        matches!(conjugation_form, "*" | "" | "基本形") || conjugation_form.starts_with("終止形");
    u8::from(!dictionary_form) * 2 + u8::from(proper_noun)
}

fn unidic_analysis(tokens: &[(u32, Vec<String>)]) -> Option<Analysis> {
    let mut ranked: Vec<&(u32, Vec<String>)> = tokens
        .iter()
        .filter(|(_, f)| !parse_unidic_accent(field(f, unidic_field::ACCENT_TYPE)).is_empty())
        .collect();
    ranked.sort_by_key(|(token, f)| {
        let proper = field(f, unidic_field::POS2) == "固有名詞";
        (
            preference(field(f, unidic_field::CONJUGATION_FORM), proper),
            *token,
        )
    });
    let (token, _) = ranked.first()?;
    let mut nuclei = Vec::new();
    for (_, fields) in &ranked {
        push_distinct(
            &mut nuclei,
            parse_unidic_accent(field(fields, unidic_field::ACCENT_TYPE)),
        );
    }
    let origin = ranked
        .iter()
        .find_map(|(_, f)| origin_class(field(f, unidic_field::GOSHU)));
    let mut source_words: Vec<String> = Vec::new();
    for word in ranked
        .iter()
        .filter_map(|(_, f)| loan_source_word(field(f, unidic_field::LEMMA)))
    {
        if !source_words.contains(&word) {
            source_words.push(word);
        }
    }
    Some(Analysis {
        nuclei,
        origin,
        source_words,
        token: *token,
    })
}

fn naist_analysis(tokens: &[(u32, Vec<String>)]) -> Option<Analysis> {
    let mut ranked: Vec<(&u32, &Vec<String>, u8)> = tokens
        .iter()
        .filter_map(|(token, f)| {
            parse_naist_accent(field(f, naist_field::ACCENT)).map(|n| (token, f, n))
        })
        .collect();
    ranked.sort_by_key(|(token, f, _)| {
        let proper = field(f, naist_field::POS1) == "固有名詞";
        (
            preference(field(f, naist_field::CONJUGATION_FORM), proper),
            **token,
        )
    });
    let (token, _, _) = ranked.first()?;
    let mut nuclei = Vec::new();
    push_distinct(
        &mut nuclei,
        ranked.iter().map(|(_, _, nucleus)| *nucleus).collect(),
    );
    Some(Analysis {
        nuclei,
        origin: None,
        source_words: Vec::new(),
        token: **token,
    })
}

fn push_distinct(nuclei: &mut Vec<u8>, more: Vec<u8>) {
    for nucleus in more {
        if !nuclei.contains(&nucleus) {
            nuclei.push(nucleus);
        }
    }
}

/// UniDic `aType`: one nucleus (`2`) or several (`0,2`); `*` when unknown.
pub fn parse_unidic_accent(text: &str) -> Vec<u8> {
    text.split(',')
        .filter_map(|part| part.trim().parse().ok())
        .collect()
}

/// NAIST-JDIC accent `nucleus/morae` (`2/3`); `*` when unknown.
pub fn parse_naist_accent(text: &str) -> Option<u8> {
    let (nucleus, morae) = text.split_once('/')?;
    let nucleus: u8 = nucleus.trim().parse().ok()?;
    let morae: u8 = morae.trim().parse().ok()?;
    (nucleus <= morae).then_some(nucleus)
}

/// The source word UniDic appends to a loanword's lemma (`コーヒー-coffee` → coffee,
/// `パン-pão` → pão); none for lemmas whose suffix is not a Latin word.
fn loan_source_word(lemma: &str) -> Option<String> {
    let (_, word) = lemma.split_once('-')?;
    let latin = !word.is_empty()
        && word
            .chars()
            .all(|c| (c.is_alphabetic() && (c as u32) < 0x3000) || c == ' ' || c == '\'');
    latin.then(|| word.to_owned())
}

/// UniDic `goshu`: 和 native, 漢 Sino-Japanese, 外 loanword, 混 mixed. 固 (proper noun),
/// 記号 (symbol) and 不明 (unknown) are not origin classes.
pub fn origin_class(goshu: &str) -> Option<OriginClass> {
    match goshu {
        "和" => Some(OriginClass::Wago),
        "漢" => Some(OriginClass::Kango),
        "外" => Some(OriginClass::Gairaigo),
        "混" => Some(OriginClass::Hybrid),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feature strings exactly as they are stored in the real dictionaries.
    const UNIDIC_TAKAI: &str = "形容詞,一般,*,*,形容詞,終止形-一般,タカイ,高い,高い,タカイ,高い,\
        タカイ,和,タ濁,基本形,*,*,タカイ,タカイ,タカイ,タカイ,*,*,2,C1,*";
    const UNIDIC_COFFEE: &str = "名詞,普通名詞,一般,*,*,*,コーヒー,コーヒー-coffee,コーヒー,\
        コーヒー,コーヒー,コーヒー,外,*,*,*,*,コーヒー,コーヒー,コーヒー,コーヒー,*,*,3,C2,*";
    const NAIST_TABERU: &str = "動詞,自立,*,*,一段,基本形,食べる,タベル,タベル,2/3,*";

    fn tokens(features: &[&str]) -> Vec<(u32, Vec<String>)> {
        features
            .iter()
            .zip(0..)
            .map(|(f, token)| (token, split_feature(f)))
            .collect()
    }

    #[test]
    fn reads_unidic_accent_and_origin_from_real_features() {
        let analysis = unidic_analysis(&tokens(&[UNIDIC_TAKAI])).expect("analysed");
        assert_eq!(analysis.nuclei, [2]);
        assert_eq!(analysis.origin, Some(OriginClass::Wago));
        let coffee = unidic_analysis(&tokens(&[UNIDIC_COFFEE])).expect("analysed");
        assert_eq!(coffee.nuclei, [3]);
        assert_eq!(coffee.origin, Some(OriginClass::Gairaigo));
    }

    #[test]
    fn reads_naist_jdic_accent_from_real_features() {
        let analysis = naist_analysis(&tokens(&[NAIST_TABERU])).expect("analysed");
        assert_eq!(analysis.nuclei, [2]);
        assert_eq!(analysis.origin, None);
    }

    #[test]
    fn parses_accent_notations() {
        assert_eq!(parse_unidic_accent("0,2"), [0, 2]);
        assert!(parse_unidic_accent("*").is_empty());
        assert_eq!(parse_naist_accent("1/3"), Some(1));
        assert_eq!(parse_naist_accent("*"), None);
        assert_eq!(
            parse_naist_accent("5/3"),
            None,
            "a nucleus past the last mora is noise"
        );
    }

    #[test]
    fn the_lemma_must_name_a_written_form_when_looking_up_kana() {
        let fields = split_feature(UNIDIC_COFFEE);
        assert!(lemma_matches(&fields, &["コーヒー".to_owned()]));
        assert!(!lemma_matches(
            &split_feature(UNIDIC_TAKAI),
            &["鷹".to_owned()]
        ));
    }

    /// Runs against the real dictionaries: `MANABI_SOURCES=var/sources cargo test -p
    /// manabi-dataset -- --ignored`. Ignored (reported as such, not passed) by default.
    #[test]
    #[ignore = "needs the unpacked sources in MANABI_SOURCES"]
    fn looks_up_real_dictionaries() {
        let sources = std::env::var_os("MANABI_SOURCES").expect("MANABI_SOURCES is set");
        let sources = std::path::PathBuf::from(sources);
        let dictionaries = AccentDictionaries::open(
            &sources.join("unidic").join(UNIDIC_PATH),
            &sources.join("naist_jdic").join(NAIST_JDIC_PATH),
        )
        .expect("dictionaries open");
        let forms = ["学校".to_owned()];
        let query = Query {
            kanji_forms: &forms,
            reading: "がっこう",
            usually_kana: false,
        };
        let unidic = dictionaries.unidic(&query).expect("lookup").expect("found");
        assert_eq!(unidic.nuclei, [0]);
        assert_eq!(unidic.origin, Some(OriginClass::Kango));
        let naist = dictionaries
            .naist_jdic(&query)
            .expect("lookup")
            .expect("found");
        assert_eq!(naist.nuclei, [0]);
    }
}
