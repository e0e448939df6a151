//! The MCP endpoint from the outside: the real `manabi serve` binary, the SDK's own
//! client over Streamable HTTP, accounts and keys made with the admin CLI on the same
//! ledger. Initialize, list the six tools, call each and see it billed, the 401 gate,
//! invalid arguments as JSON-RPC errors, a short balance as a tool error.

use manabi_tests as common;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode, JsonObject, Tool};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use common::TestApp;

const TOOLS: [&str; 6] = [
    "search_learnables",
    "get_learnable",
    "get_related_learnables",
    "get_lesson",
    "get_journey",
    "list_worlds",
];

/// A server and the ledger database it bills against.
struct Fixture {
    app: TestApp,
    database_url: String,
    _dir: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn start() -> Fixture {
    let dir = std::env::temp_dir().join(format!("manabi-mcp-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("ledger dir");
    let database_url = format!("sqlite://{}/ledger.sqlite", dir.display());
    let app = common::spawn_app_with(&[
        ("MANABI_KEYLESS_RATE_PER_SEC", "0"),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
        ("MANABI_DATABASE_URL", &database_url),
    ])
    .await;
    Fixture {
        app,
        database_url,
        _dir: TempDir(dir),
    }
}

impl Fixture {
    fn mcp_url(&self) -> String {
        format!("{}/mcp", self.app.address)
    }

    /// `manabi admin …` on this server's ledger; its one JSON object.
    fn admin(&self, args: &[&str]) -> Value {
        common::admin(&self.database_url, args)
    }

    /// A new account holding `points`, and a key of it.
    fn funded_key(&self, points: i64) -> (String, String) {
        let (account, _, key) = common::funded_key(&self.database_url, points);
        (account, key)
    }

    fn balance(&self, account: &str) -> i64 {
        let shown = self.admin(&["account", "show", "--account", account]);
        shown["balance"].as_i64().expect("balance")
    }

    /// The key owner's invoice lines once the projector has `count` of them.
    async fn charges(&self, key: &str, count: usize) -> Vec<Value> {
        let started = std::time::Instant::now();
        loop {
            let response = self
                .app
                .client
                .get(format!("{}/api/v1/account/charges", self.app.address))
                .bearer_auth(key)
                .send()
                .await
                .expect("sent");
            let body: Value = response.json().await.expect("JSON");
            let lines = body["data"]["charges"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if lines.len() >= count || started.elapsed().as_secs() > 10 {
                assert_eq!(lines.len(), count, "{body}");
                return lines;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    async fn client(&self, key: &str) -> RunningService<RoleClient, ()> {
        let config = StreamableHttpClientTransportConfig::with_uri(self.mcp_url()).auth_header(key);
        let transport = StreamableHttpClientTransport::from_config(config);
        ().serve(transport).await.expect("initialize")
    }
}

fn arguments(value: Value) -> JsonObject {
    value.as_object().cloned().expect("an object")
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
    args: Value,
) -> Result<CallToolResult, ServiceError> {
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(arguments(args)))
        .await
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structuredContent")
}

/// The text content is a copy of the structured content.
fn assert_text_copy(result: &CallToolResult) {
    let text = result
        .content
        .first()
        .and_then(|content| content.as_text())
        .map(|text| text.text.clone())
        .expect("a text content");
    let parsed: Value = serde_json::from_str(&text).expect("text is JSON");
    assert_eq!(&parsed, structured(result));
}

fn assert_invalid_params(outcome: Result<CallToolResult, ServiceError>) -> String {
    match outcome {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
            error.message.into_owned()
        }
        other => panic!("expected a JSON-RPC invalid-params error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_request_without_a_key_is_refused_before_json_rpc() {
    let fixture = start().await;
    let response = fixture
        .app
        .client
        .post(fixture.mcp_url())
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        fixture.app.address
    );
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"tools:read\"")
    );
    let body: Value = response.json().await.expect("JSON");
    common::assert_error(401, &body, 401, "INVALID_API_KEY");

    let (status, document) = fixture
        .app
        .get_json("/.well-known/oauth-protected-resource")
        .await;
    assert_eq!(status, 200);
    assert_eq!(document["resource"], fixture.mcp_url());
    assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    assert!(
        document["authorization_servers"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );

    let get = fixture.app.get("/mcp").await;
    assert_eq!(get.status(), 405);
    assert_eq!(get.headers()["allow"], "POST");
}

/// A key that is sent must be good: unknown, malformed or revoked keys are refused at
/// the HTTP gate with the same challenge as a missing one.
#[tokio::test]
async fn a_bad_or_revoked_key_is_refused_before_json_rpc() {
    let fixture = start().await;
    let (account, key) = fixture.funded_key(10);
    let key_id = fixture.admin(&["key", "create", "--account", &account]);
    let revoked = key_id["api_key"].as_str().expect("key").to_owned();
    let revoked_id = key_id["key_id"].as_str().expect("key id").to_owned();
    fixture.admin(&["key", "revoke", "--key-id", &revoked_id]);
    for (bad, code) in [
        ("svc_ak_not-a-real-key", "INVALID_API_KEY"),
        ("hello", "INVALID_API_KEY"),
        (revoked.as_str(), "REVOKED_API_KEY"),
    ] {
        let response = fixture
            .app
            .client
            .post(fixture.mcp_url())
            .bearer_auth(bad)
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "list_worlds", "arguments": {}}}))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 401, "{bad}");
        assert!(
            response.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .contains("resource_metadata=")
        );
        let body: Value = response.json().await.expect("JSON");
        common::assert_error(401, &body, 401, code);
    }
    let client = fixture.client(&key).await;
    let worlds = call(&client, "list_worlds", json!({})).await.unwrap();
    assert_eq!(worlds.is_error, Some(false), "the good key still works");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_handshake_is_stateless_json_in_every_revision_served() {
    let fixture = start().await;
    let (_, key) = fixture.funded_key(0);
    let post = |body: Value| {
        fixture
            .app
            .client
            .post(fixture.mcp_url())
            .bearer_auth(&key)
            .header("accept", "application/json, text/event-stream")
            .json(&body)
            .send()
    };
    for version in ["2025-06-18", "2025-11-25"] {
        let response = post(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}))
        .await
        .expect("sent");
        assert_eq!(response.status(), 200);
        assert!(response.headers().get("mcp-session-id").is_none());
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(body["result"]["protocolVersion"], version, "{body}");
        assert_eq!(body["result"]["serverInfo"]["name"], "manabi");
        assert!(body["result"]["capabilities"]["tools"].is_object());
    }
    let initialized = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .expect("sent");
    assert_eq!(initialized.status(), 202);
    let ping: Value = post(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await
        .expect("sent")
        .json()
        .await
        .expect("JSON");
    assert_eq!(ping["result"], json!({}), "{ping}");
    let no_accept = fixture
        .app
        .client
        .post(fixture.mcp_url())
        .bearer_auth(&key)
        .json(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(no_accept.status(), 406);
}

fn assert_tool_shape(tool: &Tool) {
    let annotations = tool.annotations.as_ref().expect("annotations");
    assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
    assert_eq!(annotations.open_world_hint, Some(false), "{}", tool.name);
    assert_eq!(annotations.idempotent_hint, Some(true), "{}", tool.name);
    assert!(
        tool.description.as_ref().is_some_and(|d| d.len() > 80),
        "{}",
        tool.name
    );
    assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
    let output = tool.output_schema.as_ref().expect("output schema");
    assert_eq!(output["type"], "object", "{}", tool.name);
}

#[tokio::test]
async fn the_sdk_client_lists_six_read_only_tools_with_the_rest_bounds() {
    let fixture = start().await;
    let (_, key) = fixture.funded_key(0);
    let client = fixture.client(&key).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("manabi")
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    tools.iter().for_each(assert_tool_shape);
    let search = &tools[0].input_schema["properties"];
    assert_eq!(search["limit"]["minimum"], 1);
    assert_eq!(search["limit"]["maximum"], 20);
    assert_eq!(search["jlpt_level"]["minimum"], 1);
    assert_eq!(search["jlpt_level"]["maximum"], 5);
    assert_eq!(
        search["type"]["enum"],
        json!(["kanji", "vocabulary", "grammar", "character", "radical"])
    );
    assert_eq!(tools[0].input_schema["required"], json!(["query"]));
    assert_eq!(
        tools[3].input_schema["properties"]["render"]["enum"],
        json!(["raw", "plain", "resolved"])
    );
    assert_eq!(
        tools[1].input_schema["properties"]["locale"]["pattern"],
        manabi_schemas::params::Locale::pattern()
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn invalid_arguments_and_unknown_tools_are_json_rpc_errors_and_free() {
    let fixture = start().await;
    let (account, key) = fixture.funded_key(50);
    let client = fixture.client(&key).await;
    let message = assert_invalid_params(
        call(
            &client,
            "search_learnables",
            json!({"query": "taberu", "limit": 21}),
        )
        .await,
    );
    assert_eq!(message, "parameter `limit` must be an integer from 1 to 20");
    let message =
        assert_invalid_params(call(&client, "search_learnables", json!({"limit": 3})).await);
    assert_eq!(message, "parameter `query` is required");
    assert_invalid_params(
        call(
            &client,
            "get_learnable",
            json!({"id": "vocab-taberu", "locale": "QQ"}),
        )
        .await,
    );
    assert_invalid_params(
        call(
            &client,
            "get_lesson",
            json!({"id": "lesson-eating", "render": "html"}),
        )
        .await,
    );
    assert_invalid_params(
        call(
            &client,
            "get_journey",
            json!({"id": "journey-first-meal", "extra": 1}),
        )
        .await,
    );
    assert_invalid_params(call(&client, "drop_tables", json!({})).await);
    assert_eq!(fixture.balance(&account), 50, "nothing charged");
    client.cancel().await.expect("close");
}

/// Keyed calls: each tool answers the REST data with its Billing object, charged like
/// its REST twin, and a short balance is a tool error an agent can explain.
#[tokio::test]
async fn each_tool_answers_and_is_billed_like_its_rest_twin() {
    let fixture = start().await;
    let (account, key) = fixture.funded_key(100);
    let client = fixture.client(&key).await;
    let calls: [(&'static str, Value, i64); 6] = [
        (
            "search_learnables",
            json!({"query": "taberu", "limit": 5}),
            5,
        ),
        ("get_learnable", json!({"id": "vocab-taberu"}), 1),
        (
            "get_related_learnables",
            json!({"id": "vocab-taberu", "limit": 3}),
            1,
        ),
        (
            "get_lesson",
            json!({"id": "lesson-eating", "render": "resolved"}),
            1,
        ),
        ("get_journey", json!({"id": "journey-first-meal"}), 1),
        ("list_worlds", json!({}), 1),
    ];
    let mut invoices = Vec::new();
    for (name, args, points) in calls {
        let result = call(&client, name, args).await.expect(name);
        assert_eq!(result.is_error, Some(false), "{name}: {result:?}");
        let data = structured(&result);
        assert_eq!(data["billing"]["points_charged"], points, "{name}: {data}");
        assert_eq!(data["billing"]["currency"], "JPY", "{name}");
        invoices.push(
            data["billing"]["invoice_id"]
                .as_str()
                .expect("invoice")
                .to_owned(),
        );
        assert_text_copy(&result);
    }
    invoices.dedup();
    assert_eq!(invoices.len(), 6, "one invoice per call");
    assert_eq!(fixture.balance(&account), 100 - 10);
    let lines = fixture.charges(&key, 6).await;
    for line in &lines {
        assert_eq!(line["transport"], "mcp", "{line}");
        assert!(
            invoices.iter().any(|id| line["invoice_id"] == id.as_str()),
            "{line}"
        );
    }
    let operations: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["operation"].as_str())
        .collect();
    for operation in ["searchLearnables", "getLearnable", "listWorlds"] {
        assert!(operations.contains(&operation), "{operations:?}");
    }

    let search = call(&client, "search_learnables", json!({"query": "taberu"}))
        .await
        .unwrap();
    let results = structured(&search)["results"].as_array().expect("results");
    assert!(
        results.iter().any(|r| r["id"] == "vocab-taberu"),
        "{search:?}"
    );
    let missing = call(&client, "get_learnable", json!({"id": "vocab-nothing"}))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(structured(&missing)["code"], "NOT_FOUND");
    assert_eq!(fixture.balance(&account), 100 - 15, "a miss is not charged");
    client.cancel().await.expect("close");
}

/// `get_related_learnables` takes `kind` as an array and `cursor` like REST: each page is
/// billed, an unknown kind or a malformed cursor is a JSON-RPC error, a cursor of another
/// listing a tool error, and neither is charged.
#[tokio::test]
async fn related_pages_by_kind_and_cursor_and_refusals_are_free() {
    let fixture = start().await;
    let (account, key) = fixture.funded_key(10);
    let client = fixture.client(&key).await;
    let page = |arguments: Value| call(&client, "get_related_learnables", arguments);
    let first = page(json!({"id": "kanji-mizu", "kind": ["has-component", "used-in"], "limit": 1}))
        .await
        .unwrap();
    let data = structured(&first);
    assert_eq!(
        data["related"][0]["learnable"]["id"], "vocab-mizu",
        "{data}"
    );
    assert_eq!(data["kind"], json!(["used-in", "has-component"]));
    assert_eq!(data["totals_by_kind"]["has-radical"], 1, "{data}");
    let cursor = data["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let second = page(
        json!({"id": "kanji-mizu", "kind": ["has-component", "used-in"],
        "limit": 1, "cursor": cursor}),
    )
    .await
    .unwrap();
    let data = structured(&second);
    assert_eq!(
        data["related"][0]["learnable"]["id"], "radical-water",
        "{data}"
    );
    assert_eq!(
        data["related"][0]["relationships"],
        json!([{"kind": "has-component", "basis": "fixture"}])
    );
    assert_eq!(data["next_cursor"], Value::Null);
    assert_eq!(fixture.balance(&account), 8, "one point per page");

    for arguments in [
        json!({"id": "kanji-mizu", "kind": ["nope"]}),
        json!({"id": "kanji-mizu", "kind": "used-in"}),
        json!({"id": "kanji-mizu", "kind": []}),
        json!({"id": "kanji-mizu", "kind": [1]}),
        json!({"id": "kanji-mizu", "cursor": "nope"}),
    ] {
        let message = assert_invalid_params(page(arguments.clone()).await);
        assert!(message.contains("parameter `"), "{arguments}: {message}");
    }
    let foreign = page(json!({"id": "kanji-hi", "cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(foreign.is_error, Some(true), "{foreign:?}");
    assert_eq!(structured(&foreign)["code"], "INVALID_PARAMETER");
    assert_eq!(fixture.balance(&account), 8, "refusals are free");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_short_balance_is_a_tool_error_with_the_shortfall() {
    let fixture = start().await;
    let (account, key) = fixture.funded_key(3);
    let client = fixture.client(&key).await;
    let refused = call(&client, "search_learnables", json!({"query": "taberu"}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let error = structured(&refused);
    assert_eq!(error["code"], "INSUFFICIENT_POINTS", "{error}");
    assert_eq!(error["required"], 5);
    assert_eq!(error["balance"], 3);
    assert!(
        error["top_up_url"]
            .as_str()
            .is_some_and(|url| url.starts_with("http"))
    );
    assert_text_copy(&refused);
    let read = call(&client, "get_learnable", json!({"id": "vocab-taberu"}))
        .await
        .unwrap();
    assert_eq!(
        read.is_error,
        Some(false),
        "a 1-point read still fits: {read:?}"
    );
    assert_eq!(fixture.balance(&account), 2);
    client.cancel().await.expect("close");
}

/// DNS-rebinding and cross-site guards: only configured hosts, only allowed origins.
#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_and_configured_ones_pass() {
    let dir = std::env::temp_dir().join(format!("manabi-mcp-{}", uuid::Uuid::now_v7()));
    let database_url = format!("sqlite://{}/ledger.sqlite", dir.display());
    std::fs::create_dir_all(&dir).expect("ledger dir");
    let app = common::spawn_app_with(&[
        ("MANABI_DATABASE_URL", &database_url),
        ("MANABI_MCP_ALLOWED_HOSTS", "127.0.0.1,mcp.example.com"),
        ("MANABI_MCP_ALLOWED_ORIGINS", "https://app.example.com:443"),
    ])
    .await;
    let fixture = Fixture {
        app,
        database_url,
        _dir: TempDir(dir),
    };
    let (_, key) = fixture.funded_key(0);
    let ping = |host: Option<&'static str>, origin: Option<&'static str>| {
        let mut request = fixture
            .app
            .client
            .post(fixture.mcp_url())
            .bearer_auth(&key)
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        if let Some(host) = host {
            request = request.header("host", host);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let status = |response: reqwest::Response| response.status().as_u16();
    assert_eq!(status(ping(None, None).await.unwrap()), 200);
    assert_eq!(
        status(ping(Some("mcp.example.com"), None).await.unwrap()),
        200
    );
    assert_eq!(
        status(ping(Some("evil.example.net"), None).await.unwrap()),
        403
    );
    let allowed = ping(None, Some("https://app.example.com")).await.unwrap();
    assert_eq!(status(allowed), 200);
    let foreign = ping(None, Some("https://evil.example.net")).await.unwrap();
    assert_eq!(status(foreign), 403);
}

/// Every refusal of the transport is a JSON-RPC error object, with the code JSON-RPC
/// names for it, never a plain-text body.
#[tokio::test]
async fn transport_errors_are_json_rpc_errors() {
    let fixture = start().await;
    let (_, key) = fixture.funded_key(0);
    let send = |body: &'static str, accept: &'static str, content_type: &'static str| {
        fixture
            .app
            .client
            .post(fixture.mcp_url())
            .bearer_auth(&key)
            .header("accept", accept)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let both = "application/json, text/event-stream";
    for (body, accept, content_type, status, code) in [
        ("{not json", both, "application/json", 400, -32_700),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            both,
            "application/json",
            400,
            -32_600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}"#,
            both,
            "application/json",
            400,
            -32_602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
            both,
            "application/json",
            200,
            -32_601,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "text/html",
            "application/json",
            406,
            -32_600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            both,
            "text/plain",
            415,
            -32_600,
        ),
    ] {
        let response = send(body, accept, content_type).await.expect("sent");
        assert_eq!(response.status().as_u16(), status, "{body}");
        let answer: Value = response.json().await.expect("a JSON body");
        assert_eq!(answer["jsonrpc"], "2.0", "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
}
