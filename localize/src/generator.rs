//! What every generator reports about itself, and how a machine translation fails.

use serde::{Deserialize, Serialize};

/// Which of the three generators produced a localized field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GeneratorKind {
    /// Text in the locale that the dataset already carries from a dictionary or corpus.
    DictionaryNative,
    /// The in-process machine translation engine over the operator's model files.
    Embedded,
    /// A translation provider over HTTP.
    Provider,
}

impl GeneratorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GeneratorKind::DictionaryNative => "dictionary-native",
            GeneratorKind::Embedded => "embedded",
            GeneratorKind::Provider => "provider",
        }
    }
}

/// The generator of a localized field, cited in the entry's sources: its name, version
/// and, for machine translation, the model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GeneratorInfo {
    pub kind: GeneratorKind,
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Why a machine translation gave no text. Either way nothing is charged or cached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// The generator cannot translate into this locale at all.
    #[error("no model or provider translates English into `{0}`")]
    Unsupported(String),
    /// The generator failed this time (provider down, rate limited, quota used up, timed
    /// out, an answer that does not fit the request); a later request may succeed.
    #[error("the translator is unavailable: {reason}")]
    Unavailable {
        reason: String,
        /// Seconds the provider asked us to wait, when it said.
        retry_after: Option<u64>,
    },
}
