//! The configured generators together: which locales they serve, and the generation of
//! one document.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::document::{DocumentKind, FieldsBy, Plan};
use crate::embedded::EmbeddedEngine;
use crate::generator::{GeneratorInfo, GeneratorKind, TranslateError};
use crate::locales::LocaleCode;
use crate::provider::Provider;

/// Locales of the JMdict glosses kept in the dataset.
pub const JMDICT_LOCALES: [&str; 8] = ["de", "es", "fr", "hu", "nl", "ru", "sl", "sv"];
/// Locales of the KANJIDIC2 meanings kept in the dataset.
pub const KANJIDIC2_LOCALES: [&str; 3] = ["es", "fr", "pt"];

/// A generated document.
#[derive(Debug, Clone)]
pub struct Localized {
    pub content: Value,
    pub fields_by: Vec<FieldsBy>,
    pub elapsed: Duration,
}

/// Why a document cannot be localized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalizeError {
    /// No configured generator serves some of the document's fields in this locale: 422.
    #[error("{0}")]
    Unservable(String),
    /// The machine translator failed or took too long this time: 503, nothing charged.
    #[error(transparent)]
    Failed(#[from] TranslateError),
}

/// The machine translator of a locale.
enum Machine<'a> {
    Embedded(&'a Arc<EmbeddedEngine>),
    Provider(&'a Provider),
}

/// Every generator the operator configured.
#[derive(Default)]
pub struct Localizer {
    embedded: Option<Arc<EmbeddedEngine>>,
    provider: Option<Provider>,
    timeout: Duration,
}

impl Localizer {
    pub fn new(
        embedded: Option<EmbeddedEngine>,
        provider: Option<Provider>,
        timeout: Duration,
    ) -> Self {
        Localizer {
            embedded: embedded.map(Arc::new),
            provider,
            timeout,
        }
    }

    /// Every locale some generator serves, with the generators that serve it, in the
    /// order they are tried. English is canonical and not listed.
    pub fn locales(&self) -> BTreeMap<LocaleCode, Vec<GeneratorKind>> {
        let mut locales: BTreeMap<LocaleCode, Vec<GeneratorKind>> = BTreeMap::new();
        let mut add = |code: &str, kind| {
            if let Ok(locale) = LocaleCode::parse(code) {
                let kinds = locales.entry(locale).or_default();
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        };
        for code in JMDICT_LOCALES.iter().chain(&KANJIDIC2_LOCALES) {
            add(code, GeneratorKind::DictionaryNative);
        }
        if let Some(engine) = &self.embedded {
            for code in engine.targets() {
                add(&code, GeneratorKind::Embedded);
            }
        }
        if let Some(provider) = &self.provider {
            for locale in provider.targets() {
                add(locale.as_str(), GeneratorKind::Provider);
            }
        }
        locales.remove(&LocaleCode::ENGLISH);
        locales
    }

    /// The machine translator of `locale`: the embedded engine when it has the pair,
    /// else the provider when it serves the locale.
    fn machine(&self, locale: LocaleCode) -> Option<Machine<'_>> {
        if let Some(engine) = &self.embedded
            && engine.targets().iter().any(|code| code == locale.as_str())
        {
            return Some(Machine::Embedded(engine));
        }
        self.provider
            .as_ref()
            .filter(|provider| provider.serves(locale))
            .map(Machine::Provider)
    }

    /// Checks, before anything is charged, that every English field of `doc` has a
    /// generator in `locale`.
    pub fn plan(
        &self,
        doc: &Value,
        kind: DocumentKind,
        locale: LocaleCode,
    ) -> Result<Plan, LocalizeError> {
        let plan = Plan::new(doc, kind, locale);
        if plan.needs_machine() && self.machine(locale).is_none() {
            let native = self
                .locales()
                .get(&locale)
                .is_some_and(|kinds| kinds.contains(&GeneratorKind::DictionaryNative));
            let why = if native {
                "the dataset has dictionary text in this language for some fields, but this \
                 entry also has English text that needs a machine translator"
            } else {
                "no dictionary text, translation model or provider serves this language"
            };
            return Err(LocalizeError::Unservable(format!(
                "`{locale}` ({}) cannot be served for this entry: {why}; the supported locales \
                 are listed in discovery (GET /api/v1). Nothing was charged.",
                locale.english_name()
            )));
        }
        Ok(plan)
    }

    /// Generates the localized document: native text where the plan found some, the
    /// machine translator for the rest, within the configured time.
    pub async fn generate(
        &self,
        doc: &Value,
        plan: &Plan,
        locale: LocaleCode,
    ) -> Result<Localized, LocalizeError> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut translations = HashMap::new();
        let mut machine_info = None;
        let units = plan.units();
        if !units.is_empty() {
            let info = self
                .translate_into(locale, units, deadline, &mut translations)
                .await?;
            // Units whose translation lost a placeholder, again piece by piece.
            let fallbacks = plan.fallbacks(&translations);
            if !fallbacks.is_empty() {
                self.translate_into(locale, fallbacks, deadline, &mut translations)
                    .await?;
            }
            machine_info = Some(info);
        }
        let mut content = doc.clone();
        let fields_by = plan.apply(&mut content, &translations, machine_info.as_ref());
        Ok(Localized {
            content,
            fields_by,
            elapsed: started.elapsed(),
        })
    }

    /// Translates `texts` by `deadline` and adds them to `translations`.
    async fn translate_into(
        &self,
        locale: LocaleCode,
        texts: Vec<String>,
        deadline: tokio::time::Instant,
        translations: &mut HashMap<String, String>,
    ) -> Result<GeneratorInfo, LocalizeError> {
        let machine = self.machine(locale).ok_or_else(|| {
            LocalizeError::Failed(TranslateError::Unsupported(locale.to_string()))
        })?;
        let translate = self.translate(machine, locale, texts.clone());
        let (translated, info) = tokio::time::timeout_at(deadline, translate)
            .await
            .map_err(|_| TranslateError::Unavailable {
                reason: format!(
                    "the translation took longer than {} ms",
                    self.timeout.as_millis()
                ),
                retry_after: None,
            })??;
        if translated.len() != texts.len() {
            return Err(TranslateError::Unavailable {
                reason: "the translator answered a different number of texts".into(),
                retry_after: None,
            }
            .into());
        }
        translations.extend(texts.into_iter().zip(translated));
        Ok(info)
    }

    async fn translate(
        &self,
        machine: Machine<'_>,
        locale: LocaleCode,
        texts: Vec<String>,
    ) -> Result<(Vec<String>, GeneratorInfo), TranslateError> {
        match machine {
            Machine::Embedded(engine) => {
                let info = engine
                    .info(locale.as_str())
                    .ok_or_else(|| TranslateError::Unsupported(locale.to_string()))?;
                let engine = Arc::clone(engine);
                let target = locale.to_string();
                let translated =
                    tokio::task::spawn_blocking(move || engine.translate(&target, &texts))
                        .await
                        .map_err(|error| TranslateError::Unavailable {
                            reason: format!("the translation engine stopped: {error}"),
                            retry_after: None,
                        })??;
                Ok((translated, info))
            }
            Machine::Provider(provider) => {
                let translated = provider.translate(locale, &texts).await?;
                Ok((translated, provider.info(locale)))
            }
        }
    }
}
