//! The MCP server handler: `initialize`, `ping`, `tools/list` and `tools/call`. A tool
//! call is parsed, then handed to the billing seam exactly like a REST request, with
//! the credential and client address of the HTTP request that carried it.

use std::borrow::Cow;

use manabi_schemas::ErrorCode;
use manabi_schemas::events::Transport;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::arguments::ToolCall;
use super::outcome::{paid_result, refusal, tool_result};
use crate::billing::serve_call;
use crate::error::ApiError;
use crate::extract::{Call, Credential, client_of, ticket_of};
use crate::state::AppState;
use crate::x402::{self, PaidRequest};

/// The revisions served: those with tool output schemas and structured results.
const PROTOCOL_VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

const INSTRUCTIONS: &str = "manabi serves a curated, JLPT-graded Japanese learning dataset: \
    kanji, vocabulary, grammar, kana, radicals, Japanese history, lessons, journeys and worlds, \
    every entry with its cited sources. Start with search_learnables (5 points) to find ids, \
    then get_learnable or get_related_learnables (1 point each). For guided study: \
    list_worlds, get_journey, get_lesson. Every successful call is billed in prepaid yen \
    points and its result carries a `billing` object; a refusal (isError) carries `code`, \
    `message` and, when points are short, `required`, `balance` and `top_up_url`.";

/// One handler per request (the transport is stateless); it only holds the shared state.
#[derive(Clone)]
pub struct ManabiTools {
    state: AppState,
    /// Mounted under `/x402/`: calls are paid per call, not by key.
    paying: bool,
}

impl ManabiTools {
    pub fn new(state: AppState, paying: bool) -> ManabiTools {
        ManabiTools { state, paying }
    }
}

impl ServerHandler for ManabiTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("manabi", env!("CARGO_PKG_VERSION")).with_title("manabi"),
            )
            .with_instructions(INSTRUCTIONS)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.state.documents.mcp_tools.to_vec(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tools = &self.state.documents.mcp_tools;
        tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let call = ToolCall::parse(&request.name, Some(&arguments))?;
        if self.paying {
            // The transport moves a request's `_meta` into the context.
            let payment = context.meta.0.get(x402::MCP_PAYMENT).or_else(|| {
                let meta = request.meta.as_ref()?;
                meta.0.get(x402::MCP_PAYMENT)
            });
            let paid = PaidRequest::from_meta(payment, format!("mcp://tool/{}", request.name));
            let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
                return Ok(refusal(&ApiError::new(ErrorCode::Internal)).into());
            };
            let billed = Call::new(
                Credential::default(),
                client_of(&parts.extensions),
                Transport::Mcp,
            )
            .with_ticket(ticket_of(&parts.extensions))
            .with_payment(paid)
            .with_arguments(&arguments);
            let state = &self.state;
            let (operation, resource_id) = call.operation();
            let outcome = serve_call(state, billed, operation, resource_id, |caller| {
                call.read(state, caller)
            })
            .await;
            return Ok(paid_result(outcome).into());
        }
        let Some(billed) = billed_call(&context) else {
            // The HTTP gate already refuses keyless requests; this keeps a tool from ever
            // serving the keyless sample should the handler be reached another way.
            return Ok(refusal(&ApiError::new(ErrorCode::InvalidApiKey)).into());
        };
        let state = &self.state;
        let (operation, resource_id) = call.operation();
        let billed = billed.with_arguments(&arguments);
        let outcome = serve_call(state, billed, operation, resource_id, |caller| {
            call.read(state, caller)
        })
        .await;
        Ok(tool_result(outcome).into())
    }
}

/// The credential and client address of the HTTP request carrying this call, which the
/// transport puts in the request context; `None` without a key.
fn billed_call(context: &RequestContext<RoleServer>) -> Option<Call> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let mut credential = Credential::from_headers(&parts.headers);
    if let Some(super::OAuthCaller(caller)) = parts.extensions.get::<super::OAuthCaller>() {
        credential = credential.with_oauth(*caller);
    }
    if !credential.is_present() {
        return None;
    }
    let call = Call::new(credential, client_of(&parts.extensions), Transport::Mcp);
    Some(call.with_ticket(ticket_of(&parts.extensions)))
}
