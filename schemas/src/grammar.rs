//! Grammar point bodies.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::vocabulary::ExampleSentence;

/// A grammar point. Filled by the grammar pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GrammarDetail {
    pub pattern: String,
    pub variants: Vec<String>,
    pub meaning: String,
    pub formation: Vec<String>,
    pub examples: Vec<ExampleSentence>,
}
