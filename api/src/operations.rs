//! The table of operations: every operation of the API declared once — its id, path,
//! query parameters, price and MCP tool. The router and the OpenAPI paths come from the
//! handlers registered with `utoipa_axum::routes!` (one declaration gives both); discovery's
//! `endpoints`, the MCP tool list, the invoice lines and the parameter checks are derived
//! from this table; `tests/http_operations.rs` checks that every view agrees with it.
//!
//! To add an operation: add its constant here and to [`OPERATIONS`], write its handler in
//! the resource's module under `routes/` (which registers it), and, if agents should call
//! it, give it a `tool` and a tool description in `mcp/catalogue.rs`.

/// What a call costs, looked up in the live price list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Price {
    /// Never charged (discovery, credit packs, the description, the account endpoints).
    Free,
    /// A content read.
    Read,
    /// A search.
    Search,
}

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: keyless callers get the evaluation sample.
    Public,
    /// Only a key's owner (the account endpoints).
    KeyRequired,
}

/// One operation of the API.
#[derive(Debug, PartialEq, Eq)]
pub struct OperationSpec {
    /// The OpenAPI `operationId`; also the operation recorded on invoice lines.
    pub id: &'static str,
    /// Every operation is a GET.
    pub path: &'static str,
    /// The query parameters it takes; any other is refused with 400.
    pub query: &'static [&'static str],
    pub price: Price,
    pub access: Access,
    /// The MCP tool serving the same read, if any.
    pub tool: Option<&'static str>,
    /// Listed in discovery's `endpoints`.
    pub discoverable: bool,
}

impl OperationSpec {
    /// Whether the path has an `{id}` segment.
    pub fn takes_id(&self) -> bool {
        self.path.contains("{id}")
    }

    /// The discovery form `GET path?param&param`.
    pub fn endpoint(&self) -> String {
        if self.query.is_empty() {
            format!("GET {}", self.path)
        } else {
            format!("GET {}?{}", self.path, self.query.join("&"))
        }
    }

    /// The parameter names an MCP tool takes: the path id, then the query parameters.
    pub fn arguments(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.takes_id()
            .then_some("id")
            .into_iter()
            .chain(self.query.iter().copied())
    }
}

const fn public(
    id: &'static str,
    path: &'static str,
    query: &'static [&'static str],
    price: Price,
    tool: Option<&'static str>,
) -> OperationSpec {
    OperationSpec {
        id,
        path,
        query,
        price,
        access: Access::Public,
        tool,
        discoverable: true,
    }
}

pub const GET_DISCOVERY: OperationSpec = public("getDiscovery", "/api/v1", &[], Price::Free, None);

pub const SEARCH_LEARNABLES: OperationSpec = public(
    "searchLearnables",
    "/api/v1/learnables",
    &["query", "type", "jlpt_level", "limit"],
    Price::Search,
    Some("search_learnables"),
);

pub const GET_LEARNABLE: OperationSpec = public(
    "getLearnable",
    "/api/v1/learnables/{id}",
    &["locale"],
    Price::Read,
    Some("get_learnable"),
);

pub const GET_RELATED_LEARNABLES: OperationSpec = public(
    "getRelatedLearnables",
    "/api/v1/learnables/{id}/related",
    &["limit", "kind", "cursor"],
    Price::Read,
    Some("get_related_learnables"),
);

pub const GET_LESSON: OperationSpec = public(
    "getLesson",
    "/api/v1/lessons/{id}",
    &["render", "locale"],
    Price::Read,
    Some("get_lesson"),
);

pub const GET_JOURNEY: OperationSpec = public(
    "getJourney",
    "/api/v1/journeys/{id}",
    &[],
    Price::Read,
    Some("get_journey"),
);

pub const LIST_WORLDS: OperationSpec = public(
    "listWorlds",
    "/api/v1/worlds",
    &[],
    Price::Read,
    Some("list_worlds"),
);

pub const LIST_CREDIT_PACKS: OperationSpec = public(
    "listCreditPacks",
    "/api/v1/credit-packs",
    &[],
    Price::Free,
    None,
);

pub const GET_OPENAPI: OperationSpec =
    public("getOpenApi", "/api/v1/openapi.json", &[], Price::Free, None);

pub const GET_ACCOUNT: OperationSpec = OperationSpec {
    id: "getAccount",
    path: "/api/v1/account",
    query: &[],
    price: Price::Free,
    access: Access::KeyRequired,
    tool: None,
    discoverable: false,
};

pub const LIST_ACCOUNT_CHARGES: OperationSpec = OperationSpec {
    id: "listAccountCharges",
    path: "/api/v1/account/charges",
    query: &["from", "to", "limit", "cursor"],
    price: Price::Free,
    access: Access::KeyRequired,
    tool: None,
    discoverable: false,
};

/// Every operation, in the order discovery and the documentation list them.
pub const OPERATIONS: [&OperationSpec; 11] = [
    &GET_DISCOVERY,
    &SEARCH_LEARNABLES,
    &GET_LEARNABLE,
    &GET_RELATED_LEARNABLES,
    &GET_LESSON,
    &GET_JOURNEY,
    &LIST_WORLDS,
    &LIST_CREDIT_PACKS,
    &GET_OPENAPI,
    &GET_ACCOUNT,
    &LIST_ACCOUNT_CHARGES,
];

/// The operation an MCP tool serves.
pub fn by_tool(name: &str) -> Option<&'static OperationSpec> {
    OPERATIONS
        .iter()
        .copied()
        .find(|operation| operation.tool == Some(name))
}

/// The MCP tool names, in table order.
pub fn tool_names() -> impl Iterator<Item = &'static str> {
    OPERATIONS.iter().filter_map(|operation| operation.tool)
}

/// Discovery's `endpoints`.
pub fn discovery_endpoints() -> Vec<String> {
    OPERATIONS
        .iter()
        .filter(|operation| operation.discoverable)
        .map(|operation| operation.endpoint())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn ids_paths_and_tools_are_unique() {
        let ids: HashSet<_> = OPERATIONS.iter().map(|op| op.id).collect();
        let paths: HashSet<_> = OPERATIONS.iter().map(|op| op.path).collect();
        let tools: Vec<_> = tool_names().collect();
        assert_eq!(ids.len(), OPERATIONS.len());
        assert_eq!(paths.len(), OPERATIONS.len());
        assert_eq!(tools.iter().collect::<HashSet<_>>().len(), tools.len());
        assert_eq!(tools.len(), 6, "the six reads of the seed");
    }

    #[test]
    fn discovery_lists_the_public_reads_with_their_parameters() {
        let endpoints = discovery_endpoints();
        assert_eq!(endpoints[0], "GET /api/v1");
        assert!(endpoints.contains(&"GET /api/v1/learnables?query&type&jlpt_level&limit".into()));
        assert!(endpoints.contains(&"GET /api/v1/lessons/{id}?render&locale".into()));
        assert!(!endpoints.iter().any(|e| e.contains("account")));
    }

    #[test]
    fn tools_take_the_path_id_and_the_query_parameters() {
        let lesson = by_tool("get_lesson").expect("tool");
        assert_eq!(
            lesson.arguments().collect::<Vec<_>>(),
            ["id", "render", "locale"]
        );
        let worlds = by_tool("list_worlds").expect("tool");
        assert_eq!(worlds.arguments().count(), 0);
    }
}
