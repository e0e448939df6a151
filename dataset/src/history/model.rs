//! The entity every history source module produces, and how it becomes a learnable.

use std::collections::BTreeMap;

use manabi_schemas::history::{
    Alias, AliasScript, EraFacts, HistoryDetail, HistoryType, OfficeTerm, Timespan,
};
use manabi_schemas::{
    Citation, CrossCheck, Domain, Learnable, LearnableBody, LearnableType, Script, WritingForm,
};

use super::dates::Span;

/// One history entity while the graph is being built.
#[derive(Debug, Clone)]
pub struct Entity {
    pub id: String,
    pub kind: HistoryType,
    pub name: String,
    pub aliases: Vec<Alias>,
    pub span: Span,
    /// The calendar convention of `span`, as the source uses it.
    pub calendar: &'static str,
    pub scope: Option<String>,
    /// One line: what the entity is, for the `meaning` of summaries.
    pub summary: String,
    /// Sentences of the description, joined into one paragraph at the end.
    pub sentences: Vec<String>,
    pub roles: Vec<String>,
    pub era: Option<EraFacts>,
    pub offices: Vec<OfficeTerm>,
    pub localized: BTreeMap<String, String>,
    pub tags: Vec<String>,
    pub citations: Vec<Citation>,
    pub sample: bool,
    /// JMdict cross-references (headwords) still to be resolved to entity ids.
    pub xrefs: Vec<String>,
    /// The English glosses of the JMdict sense a term comes from, read by the relation
    /// rules that date a term by the period or years its gloss names.
    pub gloss: String,
    /// Fields checked against a second source (the canon's `checked` records).
    pub cross_checks: Vec<CrossCheck>,
    /// True for an entity of the curated canon (`content/history`): its description is
    /// the editors' text and gets no generated relation sentences.
    pub canon: bool,
}

impl Entity {
    pub fn new(id: String, kind: HistoryType, name: String) -> Self {
        Entity {
            id,
            kind,
            name,
            aliases: Vec::new(),
            span: Span::default(),
            calendar: "",
            scope: None,
            summary: String::new(),
            sentences: Vec::new(),
            roles: Vec::new(),
            era: None,
            offices: Vec::new(),
            localized: BTreeMap::new(),
            tags: Vec::new(),
            citations: Vec::new(),
            sample: false,
            xrefs: Vec::new(),
            gloss: String::new(),
            cross_checks: Vec::new(),
            canon: false,
        }
    }

    /// Adds an alias unless the same text is already there. A romaji alias equal to the
    /// canonical name is left out; a kanji or kana one is kept, as the entry's written form.
    pub fn add_alias(&mut self, text: &str) {
        let text = text.trim();
        let script = script_of(text);
        let is_name = text == self.name && script == AliasScript::Romaji;
        if text.is_empty() || is_name || self.aliases.iter().any(|a| a.text == text) {
            return;
        }
        self.aliases.push(Alias {
            text: text.to_string(),
            script,
        });
    }

    pub fn add_tag(&mut self, tag: &str) {
        if !self.tags.iter().any(|t| t == tag) {
            self.tags.push(tag.to_string());
        }
    }

    pub fn add_role(&mut self, role: &str) {
        if !self.roles.iter().any(|r| r == role) {
            self.roles.push(role.to_string());
        }
    }

    /// The first alias in kanji, if any.
    pub fn kanji(&self) -> Option<&str> {
        self.alias_in(AliasScript::Kanji)
    }

    pub fn kana(&self) -> Option<&str> {
        self.alias_in(AliasScript::Kana)
    }

    fn alias_in(&self, script: AliasScript) -> Option<&str> {
        self.aliases
            .iter()
            .find(|a| a.script == script)
            .map(|a| a.text.as_str())
    }

    pub fn into_learnable(self) -> Learnable {
        let timespan = (self.span.start.is_some() || self.span.end.is_some()).then(|| Timespan {
            start: self.span.start.map(|d| d.to_schema()),
            end: self.span.end.map(|d| d.to_schema()),
            calendar: self.calendar.to_string(),
        });
        let writing_forms = self.aliases.iter().map(writing_form).collect();
        let mut tags = self.tags;
        tags.sort();
        Learnable {
            id: self.id,
            kind: learnable_type(self.kind),
            domain: Domain::History,
            label: Some(self.name.clone()),
            jlpt_level: None,
            is_common_word: None,
            canonical_name: Some(self.name.clone()),
            pattern: None,
            meaning: Some(self.summary),
            writing_forms,
            tags,
            body: LearnableBody::History(HistoryDetail {
                history_type: self.kind,
                canonical_name: self.name,
                aliases: self.aliases,
                timespan,
                geographic_scope: self.scope,
                description: self.sentences.join(" "),
                roles: self.roles,
                era: self.era,
                offices: self.offices,
                localized_names: self.localized,
            }),
            sources: self.citations,
            cross_checks: self.cross_checks,
        }
    }
}

pub fn learnable_type(kind: HistoryType) -> LearnableType {
    match kind {
        HistoryType::Era => LearnableType::Era,
        HistoryType::Period => LearnableType::Period,
        HistoryType::Person => LearnableType::Person,
        HistoryType::Event => LearnableType::Event,
        HistoryType::Place => LearnableType::Place,
        HistoryType::Term => LearnableType::Term,
    }
}

pub fn type_name(kind: HistoryType) -> &'static str {
    learnable_type(kind).as_str()
}

fn writing_form(alias: &Alias) -> WritingForm {
    let script = match alias.script {
        AliasScript::Kanji => Script::Kanji,
        AliasScript::Romaji => Script::Latin,
        AliasScript::Kana if alias.text.chars().any(crate::vocabulary::text::is_katakana) => {
            Script::Katakana
        }
        AliasScript::Kana => Script::Hiragana,
    };
    WritingForm {
        text: alias.text.clone(),
        script,
    }
}

fn is_kana(c: char) -> bool {
    ('\u{3040}'..='\u{30FF}').contains(&c)
}

/// Kanji when any character is CJK, kana when all letters are kana, otherwise romaji.
pub fn script_of(text: &str) -> AliasScript {
    let cjk = |c: char| {
        ('\u{4E00}'..='\u{9FFF}').contains(&c)
            || ('\u{3400}'..='\u{4DBF}').contains(&c)
            || ('\u{F900}'..='\u{FAFF}').contains(&c)
            || ('\u{20000}'..='\u{2FFFF}').contains(&c)
            || c == '々'
            || c == 'ヶ'
    };
    if text.chars().any(cjk) {
        AliasScript::Kanji
    } else if text.chars().any(is_kana) {
        AliasScript::Kana
    } else {
        AliasScript::Romaji
    }
}

/// `text` when it has at most `chars_max` characters, else its longest run of whole words
/// that fits, with an ellipsis: a summary never stops inside a word ("were di…").
pub fn shortened(text: &str, chars_max: usize) -> String {
    if text.chars().count() <= chars_max {
        return text.to_string();
    }
    let cut: String = text.chars().take(chars_max).collect();
    let words = match cut.rfind(char::is_whitespace) {
        Some(at) => &cut[..at],
        None => cut.as_str(),
    };
    format!("{}…", words.trim_end_matches([' ', ',', ';', ':']))
}
