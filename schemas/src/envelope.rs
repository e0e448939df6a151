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
