//! manabi projector (placeholder doc, replaced as the crate grows).
