//! manabi api (placeholder doc, replaced as the crate grows).
