//! manabi's shared contracts: dataset documents, API envelopes, the error-code table,
//! the Billing object, the discovery document and ledger event types.
//! Every serde/OpenAPI/JSON-Schema derive of the project lives in this crate.

pub mod discovery;
pub mod envelope;
pub mod error;
pub mod events;
pub mod grammar;
pub mod history;
pub mod kanji;
pub mod learnable;
pub mod lesson;
pub mod markup;
pub mod params;
pub mod relationship;
pub mod vocabulary;

pub use discovery::{
    CreditPack, CreditPacks, Discovery, FairUse, LocaleSupport, Localization, LocalizedFields,
    Mode, Pricing, X402Terms,
};
pub use envelope::{
    Billing, JourneyDocument, LessonDocument, SearchResults, Success, WorldDocument, Worlds,
};
pub use error::{ErrorBody, ErrorCode, ErrorEnvelope};
pub use learnable::{
    Citation, CrossCheck, Domain, Learnable, LearnableBody, LearnableSummary, LearnableType,
    RelatedEntry, RelatedLearnables, Relation, Relationship, Script, WritingForm,
};
pub use relationship::{RelationshipKind, RelationshipKinds};
