//! manabi api: the axum server answering the REST reads under `/api/v1` and the same
//! reads as MCP tools at `/mcp`, over the dataset artifact, with discovery, the OpenAPI
//! 3.1 description and its docs page, keyless sample mode, limits, metrics and the
//! billing seam every read passes through. `operations` is the table every view of the
//! API is derived from; `docs/architecture.md` says where each part lives.

pub mod answer;
pub mod billing;
pub mod catalog;
pub mod discovery;
pub mod docs_page;
pub mod error;
pub mod extract;
pub mod localization;
pub mod mcp;
pub mod middleware;
pub mod openapi;
pub mod operations;
pub mod params;
pub mod portal;
pub mod reads;
pub mod rejections;
pub mod related;
pub mod render;
pub mod routes;
pub mod server;
pub mod settings;
pub mod startup;
pub mod state;
pub mod x402;

pub use answer::Answer;
pub use billing::Caller;
pub use error::ApiError;
pub use settings::Settings;
pub use startup::Application;
