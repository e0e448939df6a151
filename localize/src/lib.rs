//! Localization of dataset documents: which locales exist, which generators can serve
//! them, and the translation of a document's English free text with every link and every
//! Japanese span kept byte for byte (DESIGN §6, docs/localization.md).
//!
//! Generators, tried per field in this order: text already in the dataset in the locale
//! (JMdict glosses, KANJIDIC2 meanings, Tatoeba translations), the embedded machine
//! translation engine over the operator's model files, then a translation provider over
//! HTTP. Billing and the one-generation claim live in the API crate; this crate only turns
//! English into the locale.

pub mod document;
pub mod embedded;
pub mod generator;
pub mod locales;
pub mod localizer;
pub mod provider;
pub mod segment;

pub use document::{DocumentKind, FieldsBy, Plan};
pub use generator::{GeneratorInfo, GeneratorKind, TranslateError};
pub use locales::LocaleCode;
pub use localizer::{LocalizeError, Localized, Localizer};
