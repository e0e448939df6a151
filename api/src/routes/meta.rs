//! What the service says about itself: discovery, the credit packs, the OpenAPI
//! description and the documentation page.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use manabi_schemas::{CreditPacks, Discovery, Success};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::answer::{Answer, json_response};
use crate::billing::serve_call;
use crate::error::ApiError;
use crate::extract::Call;
use crate::operations::{GET_DISCOVERY, LIST_CREDIT_PACKS};
use crate::reads;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_discovery))
        .routes(routes!(list_credit_packs))
        .routes(routes!(get_openapi))
        .route("/docs", axum::routing::get(get_docs))
}

#[utoipa::path(
    get, path = "/api/v1", operation_id = "getDiscovery", tag = "discovery",
    summary = "Discovery: endpoints, live prices, fair use and the caller's mode",
    responses((status = 200, description = "The discovery document", body = Success<Discovery>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_discovery(State(state): State<AppState>, call: Call) -> Result<Answer, ApiError> {
    serve_call(&state, call, &GET_DISCOVERY, None, |caller| {
        reads::discovery(&state, caller)
    })
    .await
}

#[utoipa::path(
    get, path = "/api/v1/credit-packs", operation_id = "listCreditPacks", tag = "billing",
    summary = "The packs of prepaid points on sale",
    responses((status = 200, description = "Credit packs", body = Success<CreditPacks>)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn list_credit_packs(
    State(state): State<AppState>,
    call: Call,
) -> Result<Answer, ApiError> {
    serve_call(&state, call, &LIST_CREDIT_PACKS, None, |caller| {
        reads::credit_packs(&state, caller)
    })
    .await
}

#[utoipa::path(
    get, path = "/api/v1/openapi.json", operation_id = "getOpenApi", tag = "discovery",
    summary = "This OpenAPI 3.1 description",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json",
        body = Object)),
    security((), ("bearer" = []), ("api_key" = [])),
)]
pub async fn get_openapi(State(state): State<AppState>) -> Response {
    json_response(state.documents.openapi_json.clone())
}

/// `GET /docs`: the human documentation page, rendered from the OpenAPI document.
pub async fn get_docs(State(state): State<AppState>) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        state.docs_html(),
    )
        .into_response()
}
