//! manabi api: the axum server answering the REST reads under `/api/v1` over the dataset
//! artifact, with discovery, the OpenAPI 3.1 description and its docs page, keyless
//! sample mode, limits, metrics and the billing seam every read passes through.

pub mod account;
pub mod answer;
pub mod billing;
pub mod catalog;
pub mod discovery;
pub mod docs_page;
pub mod error;
pub mod mcp;
pub mod middleware;
pub mod openapi;
pub mod params;
pub mod reads;
pub mod render;
pub mod routes;
pub mod settings;
pub mod startup;
pub mod state;

pub use answer::Answer;
pub use billing::Caller;
pub use error::ApiError;
pub use settings::Settings;
pub use startup::Application;
