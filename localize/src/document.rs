//! Which texts of a document are English free text, and how each is localized.
//!
//! A [`Plan`] lists the English fields of one learnable or lesson. Each field is filled
//! from text the dataset already has in the locale when there is some (JMdict glosses,
//! KANJIDIC2 meanings, Tatoeba translations of an example), and otherwise by machine
//! translation of its English pieces ([`crate::segment`]): the plan hands out the distinct
//! fragments to translate, then [`Plan::apply`] writes the answers back and says which
//! generator produced which field. Japanese, readings, romaji, ids, link markup, names and
//! every other member are left as they are.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use crate::generator::{GeneratorInfo, GeneratorKind};
use crate::locales::LocaleCode;
use crate::segment::{Part, Piece, has_english, rebuild, segment, units};

/// The two kinds of document that can be localized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    Learnable,
    Lesson,
}

/// Text in the locale that the dataset already carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Native {
    /// JMdict glosses of a word (`glosses_by_locale`).
    Jmdict,
    /// KANJIDIC2 meanings of a kanji (`meanings_by_locale`).
    Kanjidic2,
    /// A Tatoeba translation of an example sentence (`translations`).
    Tatoeba,
}

impl Native {
    fn source_key(self) -> &'static str {
        match self {
            Native::Jmdict => "jmdict",
            Native::Kanjidic2 => "kanjidic2",
            Native::Tatoeba => "tatoeba",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Native::Jmdict => "JMdict glosses in the locale",
            Native::Kanjidic2 => "KANJIDIC2 meanings in the locale",
            Native::Tatoeba => "Tatoeba translation of the example",
        }
    }
}

/// How one field gets its localized value.
#[derive(Debug, Clone)]
enum Fill {
    /// Replaced by this value from the dataset.
    Native { value: Value, native: Native },
    /// Its English pieces are machine-translated.
    Machine { text: String },
}

#[derive(Debug, Clone)]
struct Slot {
    /// JSON pointer of the member.
    pointer: String,
    /// The field's name in citations, e.g. `grammar.examples.english`.
    field: &'static str,
    fill: Fill,
}

/// The generators of a localized document's fields, for its citations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldsBy {
    pub generator: GeneratorInfo,
    /// Field names, sorted, each once.
    pub fields: Vec<String>,
}

/// The English fields of one document and how each will be localized.
#[derive(Debug, Clone)]
pub struct Plan {
    slots: Vec<Slot>,
    /// Versions of the dataset sources, by source key, for the native citations.
    source_versions: HashMap<String, String>,
}

impl Plan {
    /// Lists the fields of `doc` (a learnable or a lesson as stored) for `locale`.
    pub fn new(doc: &Value, kind: DocumentKind, locale: LocaleCode) -> Plan {
        let mut collector = Collector {
            doc,
            locale: locale.as_str(),
            slots: Vec::new(),
        };
        match kind {
            DocumentKind::Learnable => collector.learnable(),
            DocumentKind::Lesson => collector.lesson(),
        }
        Plan {
            slots: collector.slots,
            source_versions: source_versions(doc),
        }
    }

    /// Whether some field can only be localized by machine translation.
    pub fn needs_machine(&self) -> bool {
        self.slots
            .iter()
            .any(|slot| matches!(slot.fill, Fill::Machine { .. }))
    }

    /// Every distinct English unit to machine-translate (placeholders for the kept
    /// spans), in first-seen order.
    pub fn units(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for text in self.machine_texts() {
            for part in units(text) {
                if let Part::Unit(unit) = part
                    && seen.insert(unit.template.clone())
                {
                    out.push(unit.template);
                }
            }
        }
        out
    }

    /// The English pieces of every unit whose translation in `translations` lost a
    /// placeholder: those units are translated again piece by piece.
    pub fn fallbacks(&self, translations: &HashMap<String, String>) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for text in self.machine_texts() {
            for part in units(text) {
                let Part::Unit(unit) = part else { continue };
                let restored = translations
                    .get(&unit.template)
                    .and_then(|translated| unit.restore(translated));
                if restored.is_some() {
                    continue;
                }
                for piece in segment(unit.source) {
                    if let Piece::Translate(fragment) = piece
                        && !translations.contains_key(fragment)
                        && seen.insert(fragment)
                    {
                        out.push(fragment.to_owned());
                    }
                }
            }
        }
        out
    }

    fn machine_texts(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().filter_map(|slot| match &slot.fill {
            Fill::Machine { text } => Some(text.as_str()),
            Fill::Native { .. } => None,
        })
    }

    /// Writes the localized values into `doc`: native text where the plan found some,
    /// `translations` (fragment → translated fragment) elsewhere, produced by `machine`.
    /// Returns which generator filled which fields.
    pub fn apply(
        &self,
        doc: &mut Value,
        translations: &HashMap<String, String>,
        machine: Option<&GeneratorInfo>,
    ) -> Vec<FieldsBy> {
        let mut filled = Vec::new();
        for slot in &self.slots {
            let Some(target) = doc.pointer_mut(&slot.pointer) else {
                continue;
            };
            match &slot.fill {
                Fill::Native { value, native } => {
                    *target = value.clone();
                    filled.push((slot, GeneratorKey::Native(*native)));
                }
                Fill::Machine { text } => {
                    let Some(machine) = machine else { continue };
                    *target = Value::String(localize_text(text, translations));
                    filled.push((slot, GeneratorKey::Machine(machine.clone())));
                }
            }
        }
        let reverted = keep_questions_answerable(doc, &self.slots);
        let mut by: BTreeMap<GeneratorKey, BTreeSet<&'static str>> = BTreeMap::new();
        for (slot, key) in filled {
            if !reverted.contains(&slot.pointer) {
                by.entry(key).or_default().insert(slot.field);
            }
        }
        by.into_iter()
            .map(|(key, fields)| FieldsBy {
                generator: self.generator(key),
                fields: fields.into_iter().map(str::to_owned).collect(),
            })
            .collect()
    }

    fn generator(&self, key: GeneratorKey) -> GeneratorInfo {
        match key {
            GeneratorKey::Native(native) => GeneratorInfo {
                kind: GeneratorKind::DictionaryNative,
                name: native.name().to_owned(),
                version: self
                    .source_versions
                    .get(native.source_key())
                    .cloned()
                    .unwrap_or_default(),
                model: Some(native.source_key().to_owned()),
            },
            GeneratorKey::Machine(info) => info,
        }
    }
}

/// One text in the locale: each unit's translation with its spans put back, or, when
/// that lost a placeholder, its pieces translated one by one; kept parts as they were.
fn localize_text(text: &str, translations: &HashMap<String, String>) -> String {
    let translated = |english: &str| {
        translations
            .get(english)
            .cloned()
            .unwrap_or_else(|| english.to_owned())
    };
    let mut out = String::with_capacity(text.len() * 2);
    for part in units(text) {
        match part {
            Part::Keep(kept) => out.push_str(kept),
            Part::Unit(unit) => {
                let whole = translations
                    .get(&unit.template)
                    .and_then(|translation| unit.restore(translation));
                match whole {
                    Some(whole) => out.push_str(&whole),
                    None => out.push_str(&rebuild(&segment(unit.source), translated)),
                }
            }
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum GeneratorKey {
    Native(Native),
    Machine(GeneratorInfo),
}

/// A translated answer must still be exactly one of its translated choices; when two
/// choices came out the same (or the answer differently), that question's choices and
/// answer go back to English. Returns the pointers put back.
fn keep_questions_answerable(doc: &mut Value, slots: &[Slot]) -> BTreeSet<String> {
    let mut reverted = BTreeSet::new();
    let count = doc["questions"].as_array().map_or(0, Vec::len);
    for index in 0..count {
        let question = &doc["questions"][index];
        let answer = &question["answer"];
        let matching = question["choices"]
            .as_array()
            .map_or(0, |choices| choices.iter().filter(|c| *c == answer).count());
        if matching == 1 {
            continue;
        }
        let choices = format!("/questions/{index}/choices/");
        let answer = format!("/questions/{index}/answer");
        for slot in slots {
            if let Fill::Machine { text } = &slot.fill
                && (slot.pointer.starts_with(&choices) || slot.pointer == answer)
                && let Some(target) = doc.pointer_mut(&slot.pointer)
            {
                *target = Value::String(text.clone());
                reverted.insert(slot.pointer.clone());
            }
        }
    }
    reverted
}

/// The version of each source the entry cites, by source key.
fn source_versions(doc: &Value) -> HashMap<String, String> {
    let mut versions = HashMap::new();
    for citation in doc["sources"].as_array().into_iter().flatten() {
        if let (Some(source), Some(version)) =
            (citation["source"].as_str(), citation["version"].as_str())
        {
            versions.insert(source.to_owned(), version.to_owned());
        }
    }
    versions
}

struct Collector<'a> {
    doc: &'a Value,
    locale: &'a str,
    slots: Vec<Slot>,
}

impl Collector<'_> {
    /// A learnable: its short meaning, then the English of its type-specific part.
    fn learnable(&mut self) {
        let doc = self.doc;
        let kind = doc["type"].as_str().unwrap_or_default();
        match kind {
            "kanji" => self.kanji(),
            "vocabulary" => self.vocabulary(),
            "grammar" => self.grammar(),
            "radical" => self.text("/radical/meaning", "radical.meaning"),
            "character" => {}
            _ => self.text("/history/description", "history.description"),
        }
        if !self.has_slot("/meaning") {
            self.text("/meaning", "meaning");
        }
    }

    fn kanji(&mut self) {
        let native = self.doc["kanji"]["meanings_by_locale"][self.locale]
            .as_array()
            .filter(|list| !list.is_empty());
        match native {
            Some(list) => {
                let joined = join(list, ", ");
                self.native(
                    "/kanji/meanings",
                    "kanji.meanings",
                    Value::Array(list.clone()),
                    Native::Kanjidic2,
                );
                self.native(
                    "/meaning",
                    "meaning",
                    Value::String(joined),
                    Native::Kanjidic2,
                );
            }
            None => self.each("/kanji/meanings", "kanji.meanings"),
        }
    }

    fn vocabulary(&mut self) {
        let vocabulary = &self.doc["vocabulary"];
        let native = vocabulary["glosses_by_locale"][self.locale]
            .as_array()
            .filter(|list| !list.is_empty())
            .cloned();
        let senses = vocabulary["senses"].as_array().map_or(0, Vec::len);
        if let Some(list) = &native {
            let first: Vec<Value> = list.iter().take(3).cloned().collect();
            self.native(
                "/meaning",
                "meaning",
                Value::String(join(&first, "; ")),
                Native::Jmdict,
            );
        }
        for sense in 0..senses {
            let glosses = format!("/vocabulary/senses/{sense}/glosses");
            match &native {
                // The locale's glosses are kept per entry, not per sense: they replace the
                // English only of a word with a single sense.
                Some(list) if senses == 1 => self.native(
                    &glosses,
                    "vocabulary.senses.glosses",
                    Value::Array(list.clone()),
                    Native::Jmdict,
                ),
                _ => self.each(&glosses, "vocabulary.senses.glosses"),
            }
            self.each(
                &format!("/vocabulary/senses/{sense}/info"),
                "vocabulary.senses.info",
            );
        }
        self.examples("/vocabulary/examples", "vocabulary.examples.english");
    }

    fn grammar(&mut self) {
        self.text("/grammar/meaning", "grammar.meaning");
        self.text("/grammar/notes", "grammar.notes");
        self.text("/grammar/level/reason", "grammar.level.reason");
        self.examples("/grammar/examples", "grammar.examples.english");
    }

    /// Example sentences: the Tatoeba translation in the locale when the corpus has one.
    fn examples(&mut self, pointer: &str, field: &'static str) {
        let count = self.len_of(pointer);
        for index in 0..count {
            let example = format!("{pointer}/{index}");
            let native = self
                .doc
                .pointer(&format!("{example}/translations/{}", self.locale))
                .and_then(Value::as_str)
                .filter(|text| !text.trim().is_empty());
            match native {
                Some(text) => self.native(
                    &format!("{example}/english"),
                    field,
                    Value::String(text.to_owned()),
                    Native::Tatoeba,
                ),
                None => self.text(&format!("{example}/english"), field),
            }
        }
    }

    /// A lesson: title, objectives, body, and each question's words (not the romaji of
    /// kana questions, which is not English).
    fn lesson(&mut self) {
        self.text("/title", "title");
        self.each("/objectives", "objectives");
        self.text("/body_markdown", "body_markdown");
        let count = self.doc["questions"].as_array().map_or(0, Vec::len);
        for index in 0..count {
            let question = format!("/questions/{index}");
            self.text(&format!("{question}/prompt"), "questions.prompt");
            self.text(&format!("{question}/explanation"), "questions.explanation");
            if self
                .doc
                .pointer(&format!("{question}/kind"))
                .and_then(Value::as_str)
                != Some("kana_recognition")
            {
                self.each(&format!("{question}/choices"), "questions.choices");
                self.text(&format!("{question}/answer"), "questions.answer");
            }
        }
    }

    fn has_slot(&self, pointer: &str) -> bool {
        self.slots.iter().any(|slot| slot.pointer == pointer)
    }

    fn native(&mut self, pointer: &str, field: &'static str, value: Value, native: Native) {
        self.slots.push(Slot {
            pointer: pointer.to_owned(),
            field,
            fill: Fill::Native { value, native },
        });
    }

    /// One string member, when it holds English.
    fn text(&mut self, pointer: &str, field: &'static str) {
        if let Some(text) = self.doc.pointer(pointer).and_then(Value::as_str)
            && has_english(text)
        {
            self.slots.push(Slot {
                pointer: pointer.to_owned(),
                field,
                fill: Fill::Machine {
                    text: text.to_owned(),
                },
            });
        }
    }

    /// The length of the array at `pointer`; 0 when there is none.
    fn len_of(&self, pointer: &str) -> usize {
        self.doc
            .pointer(pointer)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    /// Each string of an array member.
    fn each(&mut self, pointer: &str, field: &'static str) {
        let count = self.len_of(pointer);
        for index in 0..count {
            self.text(&format!("{pointer}/{index}"), field);
        }
    }
}

fn join(list: &[Value], separator: &str) -> String {
    list.iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(separator)
}
