//! The locale code. It is the API's own parameter type, so one type checks ISO 639-1
//! everywhere: any case accepted, lowercase kept, the English name from `isolang`.

pub use manabi_schemas::params::Locale as LocaleCode;
