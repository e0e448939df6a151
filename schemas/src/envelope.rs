//! Success envelopes and the Billing object.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a keyed call cost. Appended to every billed answer (`data.billing` for search).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Billing {
    pub points_charged: i64,
    /// Always `JPY`.
    pub currency: String,
    /// The charge event's id.
    pub invoice_id: Option<String>,
    pub free_tier: Option<bool>,
}

/// The success envelope of every REST answer: `{"ok": true, "sample"?: true, "data": …}`.
/// The server writes it by splicing pre-serialized JSON; this type describes it for the
/// OpenAPI document and for clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Success<T> {
    /// Always true.
    pub ok: bool,
    /// Present and true when the caller sent no key and is served the evaluation sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<bool>,
    pub data: T,
    /// What the call cost (keyed calls only; search carries it at `data.billing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
}

/// The `data` of a search answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchResults {
    /// Ranked: exact written form, then exact reading or romaji, then exact English
    /// meaning word, then prefix and typo-tolerant matches.
    pub results: Vec<crate::LearnableSummary>,
    /// How many entries matched in all (before `limit`).
    pub total_candidates: usize,
    pub limit: usize,
    /// What the call cost (keyed calls only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<Billing>,
}

/// The `data` of `GET /api/v1/worlds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Worlds {
    /// Every world document, in id order.
    pub worlds: Vec<WorldDocument>,
    pub total: usize,
}

/// Declares a document whose members are owned by the dataset: the API passes it through
/// as stored, so its schema is an open object with a description.
macro_rules! open_document {
    ($name:ident, $description:literal) => {
        #[doc = $description]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub serde_json::Value);

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::Object)
                    .description(Some($description))
                    .into()
            }
        }

        impl ToSchema for $name {}
    };
}

open_document!(
    LessonDocument,
    "A structured lesson: teaching markdown, questions and learnable references. Text may \
     carry link markup `[[learnable-id|text]]`, handled as the `render` parameter asks; with \
     `render=resolved` the document also has a `learnable_refs` map from id to display text."
);
open_document!(
    JourneyDocument,
    "A journey: a lesson graph with branches and outcomes."
);
open_document!(
    WorldDocument,
    "A themed world with its JLPT range and teaching domains."
);
