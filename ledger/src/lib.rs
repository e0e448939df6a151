//! manabi ledger (placeholder doc, replaced as the crate grows).
