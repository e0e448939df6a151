//! Japanese-history entity bodies.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A history entity. Filled by the history pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryDetail {
    pub aliases: Vec<String>,
    pub description: String,
}
