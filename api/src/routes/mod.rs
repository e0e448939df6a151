//! The handlers, one module per resource. Each module registers its handlers with
//! `utoipa_axum::routes!`, so a handler's route and its OpenAPI operation come from the
//! one `#[utoipa::path]` attribute and cannot disagree.

pub mod account;
pub mod learnables;
pub mod lessons;
pub mod meta;
pub mod ops;

use axum::Router;
use utoipa::openapi::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// Every documented route, with the OpenAPI paths they make.
pub fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(crate::openapi::base())
        .merge(meta::routes())
        .merge(learnables::routes())
        .merge(lessons::routes())
        .merge(account::routes())
}

/// The documented routes and the complete OpenAPI description of them.
pub fn api_with_description() -> (Router<AppState>, OpenApi) {
    let (router, openapi) = api().split_for_parts();
    (router, crate::openapi::finish(openapi))
}
