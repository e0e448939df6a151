//! The human documentation page at `/docs`: a guide (quickstart with curl, Python and
//! TypeScript, the Billing object, refusals, MCP host configuration, x402, localization;
//! Markdown in `api/docs/guide.md`, compiled in) and, per operation, its parameters, the
//! statuses it can answer and an example request and answer. Rendered from the OpenAPI
//! document itself, so the page can never disagree with the machine description; the
//! examples are made by the server's own reads as soon as the dataset is loaded
//! ([`page_with_examples`], called at start), so they cannot drift. No scripts, fonts or
//! styles from elsewhere: the page works offline.

use std::collections::HashMap;
use std::fmt::Write;
use std::time::Instant;

use bytes::Bytes;
use chrono::{NaiveDate, Utc};
use manabi_schemas::{Billing, ErrorCode};
use serde_json::Value;

use crate::answer::Answer;
use crate::billing::Caller;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::operations::{self as ops, OPERATIONS, Price};
use crate::routes::account::{
    AccountCaps, AccountSummary, ChargesPage, ChargesParams, InvoiceLine, KeySummary, UsageToday,
};
use crate::state::AppState;

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;\
padding:0 1rem;color:#222}code,pre{font-family:ui-monospace,monospace;background:#f4f4f4;\
padding:0 .2em}pre{padding:.75rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}\
h2{border-top:1px solid #ddd;padding-top:1rem}table{border-collapse:collapse}\
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}\
nav ul{columns:2}details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}\
code{overflow-wrap:anywhere}td,th{overflow-wrap:anywhere}table{max-width:100%}\
@media (max-width:40rem){nav ul{columns:1}td,th{padding:.2rem}}";

/// The guide, with `{base}` and the prices filled in.
const GUIDE: &str = include_str!("../docs/guide.md");

/// An example call of one operation.
#[derive(Debug, Clone)]
pub struct Example {
    /// Path and query, e.g. `/api/v1/learnables?query=taberu&limit=2`.
    pub request: String,
    /// The answer's JSON, pretty-printed (long answers cut).
    pub answer: String,
    pub origin: Origin,
}

/// Where an example's answer comes from; the page says it above the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The server's own read as a keyless caller: the evaluation sample.
    Sample,
    /// The server's own read as a keyed caller (the full dataset), with an illustrative
    /// Billing object: a real charge happens only on a real call.
    KeyedRead,
    /// The served document itself.
    Document,
    /// The operation's own answer types filled with made-up values: the call answers
    /// about the caller's own account, which the page has none of.
    Illustrative,
}

impl Origin {
    /// The line above the answer (HTML, ours).
    fn caption(self) -> &'static str {
        match self {
            Origin::Sample => {
                "Answer (the server's own read of the served dataset; without a key it is \
                 the sample):"
            }
            Origin::KeyedRead => {
                "Answer with a key (the server's own read of the served dataset, in full). \
                 <b>The <code>billing</code> values are illustrative</b>: the points are the \
                 current price, the invoice id is made up; a real call carries its own."
            }
            Origin::Document => "Answer (the served document itself, cut):",
            Origin::Illustrative => {
                "<b>Illustrative answer, every value made up</b>: this call answers about \
                 your own account, so the page cannot show a real one. The shape is the \
                 operation's own answer type."
            }
        }
    }
}

/// Markdown to HTML (CommonMark with tables). The text is ours, compiled in.
pub fn markdown(text: &str) -> String {
    let options = pulldown_cmark::Options::ENABLE_TABLES;
    let parser = pulldown_cmark::Parser::new_ext(text, options);
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, parser);
    out
}

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A parameter's type and bounds in one line: `integer, 1..20, default 10`.
fn bounds(schema: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(kind) = schema.get("type") {
        parts.push(match kind {
            Value::Array(kinds) => kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect::<Vec<_>>()
                .join("|"),
            other => other.as_str().unwrap_or("").to_owned(),
        });
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        parts.push(reference.rsplit('/').next().unwrap_or(reference).to_owned());
    }
    if let (Some(min), Some(max)) = (schema.get("minimum"), schema.get("maximum")) {
        parts.push(format!("{min}..{max}"));
    }
    if let Some(max) = schema.get("maxLength") {
        parts.push(format!("at most {max} characters"));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(format!("pattern {pattern}"));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<_> = values.iter().filter_map(Value::as_str).collect();
        parts.push(format!("one of {}", names.join(", ")));
    }
    if let Some(default) = schema.get("default") {
        parts.push(format!("default {default}"));
    }
    parts.join(", ")
}

/// Enum values of a referenced component schema (the `type` and `render` parameters).
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    let reference = schema.get("$ref").and_then(Value::as_str).or_else(|| {
        schema
            .get("oneOf")?
            .as_array()?
            .iter()
            .find_map(|s| s.get("$ref")?.as_str())
    });
    reference
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .and_then(|name| doc.pointer(&format!("/components/schemas/{name}")))
        .unwrap_or(schema)
}

fn parameters(doc: &Value, operation: &Value, out: &mut String) {
    let Some(list) = operation.get("parameters").and_then(Value::as_array) else {
        return;
    };
    out.push_str("<table><tr><th>parameter</th><th>in</th><th>required</th><th>type and bounds</th><th>meaning</th></tr>");
    for parameter in list {
        let schema = resolve(doc, parameter.get("schema").unwrap_or(&Value::Null));
        let required = parameter
            .get("required")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let _ = write!(
            out,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(text(parameter, "name")),
            escape(text(parameter, "in")),
            if required { "yes" } else { "no" },
            escape(&bounds(schema)),
            markdown(text(parameter, "description")),
        );
    }
    out.push_str("</table>");
}

fn responses(operation: &Value, out: &mut String) {
    let Some(map) = operation.get("responses").and_then(Value::as_object) else {
        return;
    };
    out.push_str("<table><tr><th>status</th><th>answer</th></tr>");
    for (status, response) in map {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td></tr>",
            escape(status),
            markdown(text(response, "description"))
        );
    }
    out.push_str("</table>");
}

/// The page without examples (before the dataset is loaded).
pub fn render(openapi: &utoipa::openapi::OpenApi) -> String {
    let doc = serde_json::to_value(openapi).unwrap_or(Value::Null);
    render_with(&doc, &Guide::default(), &HashMap::new())
}

/// What the guide fills in.
#[derive(Debug, Clone, Default)]
pub struct Guide {
    pub base_url: String,
    pub read_jpy: i64,
    pub search_jpy: i64,
    pub generation_jpy: i64,
}

/// The whole page, with the examples found.
pub fn render_with(
    doc: &Value,
    guide: &Guide,
    examples: &HashMap<&'static str, Example>,
) -> String {
    let doc = doc.clone();
    let info = doc.get("info").unwrap_or(&Value::Null);
    let base = if guide.base_url.is_empty() {
        "https://manabi.example"
    } else {
        &guide.base_url
    };
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width, initial-scale=1\">\
         <title>{title} API {version}</title><style>{STYLE}</style></head><body>\
         <h1>{title} API {version}</h1>{description}\
         <p>Machine-readable description: <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a> \
         (OpenAPI {openapi}). Sign in, buy points and create keys at \
         <a href=\"/developers\">/developers</a>.</p>",
        title = escape(text(info, "title")),
        version = escape(text(info, "version")),
        description = markdown(text(info, "description")),
        openapi = escape(text(&doc, "openapi")),
    );
    let paths = doc.get("paths").and_then(Value::as_object);
    out.push_str(
        "<nav aria-label=\"Contents\"><h2>Contents</h2><ul>\
        <li><a href=\"#quickstart\">Quickstart</a></li>\
        <li><a href=\"#mcp-connecting-an-agent\">MCP: connecting an agent</a></li>\
        <li><a href=\"#paying-per-call-with-x402\">Paying per call with x402</a></li>\
        <li><a href=\"#reading-in-your-language\">Reading in your language</a></li>",
    );
    for item in paths.iter().flat_map(|paths| paths.iter()) {
        if let Some(operation) = item.1.get("get") {
            let _ = write!(
                out,
                "<li><a href=\"#{id}\"><code>GET {path}</code></a></li>",
                id = escape(text(operation, "operationId")),
                path = escape(item.0),
            );
        }
    }
    out.push_str("</ul></nav>");
    let filled = GUIDE
        .replace("{base}", base)
        .replace("{read}", &guide.read_jpy.to_string())
        .replace("{search}", &guide.search_jpy.to_string())
        .replace("{generation}", &guide.generation_jpy.to_string());
    out.push_str(&with_heading_ids(&markdown(&filled)));
    out.push_str("<h2 id=\"operations\">Operations</h2>");
    for (path, item) in paths.iter().flat_map(|paths| paths.iter()) {
        let Some(operation) = item.get("get") else {
            continue;
        };
        let id = text(operation, "operationId");
        let _ = write!(
            out,
            "<h3 id=\"{id}\"><code>GET {path}</code></h3><p><b>{summary}</b></p>{description}",
            id = escape(id),
            path = escape(path),
            summary = escape(text(operation, "summary")),
            description = markdown(text(operation, "description")),
        );
        parameters(&doc, operation, &mut out);
        responses(operation, &mut out);
        if let Some(example) = examples.get(id) {
            let _ = write!(
                out,
                "<details open><summary>Example</summary><pre><code>curl -H \"Authorization: Bearer $MANABI_KEY\" \"{base}{request}\"</code></pre>\
                 <p>{caption}</p><pre><code>{answer}</code></pre></details>",
                base = escape(base),
                request = escape(&example.request),
                caption = example.origin.caption(),
                answer = escape(&example.answer),
            );
        }
    }
    out.push_str("</body></html>");
    out
}

/// Gives the guide's `<h2>` and `<h3>` headings ids from their text, for the contents.
fn with_heading_ids(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(start) = rest.find("<h") {
        let (before, tag) = rest.split_at(start);
        out.push_str(before);
        let level = tag.as_bytes().get(2).copied();
        if matches!(level, Some(b'2' | b'3')) && tag.as_bytes().get(3) == Some(&b'>') {
            let close = tag.find("</h").unwrap_or(tag.len());
            let title = &tag[4..close];
            let slug: String = title
                .to_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect::<String>()
                .split('-')
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let _ = write!(out, "<h{} id=\"{slug}\">", level.map_or('2', char::from));
            rest = &tag[4..];
        } else {
            out.push_str("<h");
            rest = &tag[2..];
        }
    }
    out.push_str(rest);
    out
}

/// The page with an example for every operation, made once by the server's own reads
/// as soon as the dataset is loaded (the `DocsMaker` of `AppState::docs_with_examples`). Logs what it made,
/// and which operations got no example and why, so a failure shows at start.
pub fn page_with_examples(state: &AppState) -> Bytes {
    let started = Instant::now();
    let doc: Value = serde_json::from_slice(&state.documents.openapi_json).unwrap_or_default();
    let prices = state.settings.prices;
    let guide = Guide {
        base_url: state.settings.base_url.clone(),
        read_jpy: prices.read_jpy,
        search_jpy: prices.search_jpy,
        generation_jpy: prices.localized_generation_jpy,
    };
    let Found { examples, failures } = examples(state);
    for operation in OPERATIONS.iter().filter(|op| !examples.contains_key(op.id)) {
        let error = failures
            .get(operation.id)
            .map_or("no read made", String::as_str);
        tracing::warn!(
            operation = operation.id,
            error,
            "no example for this operation on the docs page"
        );
    }
    let page = Bytes::from(render_with(&doc, &guide, &examples));
    tracing::info!(
        examples = examples.len(),
        operations = OPERATIONS.len(),
        make_ms = started.elapsed().as_millis() as u64,
        "docs page made with its examples"
    );
    page
}

/// Made-up ids of the illustrative account answers and of the keyed example's Billing
/// object: plainly not real (all zeros but the last digits).
const EXAMPLE_ACCOUNT_ID: &str = "00000000-0000-0000-0000-00000000a001";
const EXAMPLE_KEY_ID: &str = "00000000-0000-0000-0000-00000000b001";
const EXAMPLE_INVOICE_IDS: [&str; 2] = [
    "00000000-0000-0000-0000-00000000c001",
    "00000000-0000-0000-0000-00000000c002",
];
const EXAMPLE_REQUEST_IDS: [&str; 2] = [
    "00000000-0000-0000-0000-00000000d001",
    "00000000-0000-0000-0000-00000000d002",
];

/// The examples made so far, and why the last try of an operation without one failed.
#[derive(Default)]
struct Found {
    examples: HashMap<&'static str, Example>,
    failures: HashMap<&'static str, String>,
}

impl Found {
    /// Keeps a read's answer, in its envelope, as the example of `id`; gives back its JSON.
    fn answer(
        &mut self,
        id: &'static str,
        request: String,
        origin: Origin,
        answer: Result<Answer, ApiError>,
    ) -> Option<Value> {
        let json = answer
            .map_err(|error| error.to_string())
            .and_then(|answer| {
                serde_json::from_slice(&answer.into_body()).map_err(|error| error.to_string())
            });
        self.json(id, request, origin, json)
    }

    /// Keeps `json` as the example of `id`; a read that failed leaves none, and its reason.
    fn json(
        &mut self,
        id: &'static str,
        request: String,
        origin: Origin,
        json: Result<Value, String>,
    ) -> Option<Value> {
        match json {
            Ok(json) => {
                let answer = pretty_cut(&json);
                self.failures.remove(id);
                self.examples.insert(
                    id,
                    Example {
                        request,
                        answer,
                        origin,
                    },
                );
                Some(json)
            }
            Err(error) => {
                self.failures.insert(id, format!("{request}: {error}"));
                None
            }
        }
    }
}

/// Example calls of every operation: the reads as a keyless caller (so from the
/// evaluation sample), one read as a keyed caller with an illustrative Billing object,
/// the OpenAPI document as served, and the account answers with made-up values.
fn examples(state: &AppState) -> Found {
    let caller = Caller::Keyless {
        client: std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
    };
    let mut found = Found::default();
    found.answer(
        ops::GET_DISCOVERY.id,
        "/api/v1".to_owned(),
        Origin::Sample,
        crate::reads::discovery(state, &caller),
    );
    found.answer(
        ops::LIST_CREDIT_PACKS.id,
        "/api/v1/credit-packs".to_owned(),
        Origin::Sample,
        crate::reads::credit_packs(state, &caller),
    );
    let openapi = serde_json::from_slice(&state.documents.openapi_json);
    found.json(
        ops::GET_OPENAPI.id,
        "/api/v1/openapi.json".to_owned(),
        Origin::Document,
        openapi.map_err(|error| error.to_string()),
    );
    let learnable = learnable_examples(state, &caller, &mut found);
    found.answer(
        ops::LIST_WORLDS.id,
        "/api/v1/worlds".to_owned(),
        Origin::Sample,
        crate::reads::worlds(state, &caller),
    );
    journey_examples(state, &caller, &mut found);
    account_examples(state, learnable.as_deref(), &mut found);
    found
}

fn query(text: &str) -> QueryParams {
    QueryParams::decode(text).unwrap_or_default()
}

/// Search, then the first result read with a key (so with a Billing object) and its
/// related entries; gives back the learnable's id.
fn learnable_examples(state: &AppState, caller: &Caller, found: &mut Found) -> Option<String> {
    use crate::params::{LearnableParams, RelatedParams, SearchParams, WithId};
    let search = SearchParams::parse(&query("query=taberu&limit=2"))
        .and_then(|params| crate::reads::search(state, &params, caller));
    let results = found.answer(
        ops::SEARCH_LEARNABLES.id,
        "/api/v1/learnables?query=taberu&limit=2".to_owned(),
        Origin::Sample,
        search,
    )?;
    let id = results["data"]["results"][0]["id"].as_str()?;
    // Only the key's presence matters to a read (the full dataset); no key is looked up.
    let keyed = Caller::Keyed(manabi_ledger::Caller {
        account_id: uuid::Uuid::nil(),
        key_id: uuid::Uuid::nil(),
    });
    let none = query("");
    let learnable = LearnableParams::parse(&WithId { id, query: &none })
        .and_then(|params| crate::reads::learnable(state, &params, &keyed))
        .map(|mut answer| {
            answer.billing = Some(Billing {
                points_charged: price_jpy(state, ops::GET_LEARNABLE.price),
                currency: "JPY".to_owned(),
                invoice_id: Some(EXAMPLE_INVOICE_IDS[1].to_owned()),
                free_tier: Some(false),
            });
            answer
        });
    found.answer(
        ops::GET_LEARNABLE.id,
        format!("/api/v1/learnables/{id}"),
        Origin::KeyedRead,
        learnable,
    );
    let two = query("limit=2");
    let related = RelatedParams::parse(&WithId { id, query: &two })
        .and_then(|params| crate::reads::related(state, &params, caller));
    found.answer(
        ops::GET_RELATED_LEARNABLES.id,
        format!("/api/v1/learnables/{id}/related?limit=2"),
        Origin::Sample,
        related,
    );
    Some(id.to_owned())
}

/// The first journey that reads as the caller (the sample's), and the first of its
/// lessons that does.
fn journey_examples(state: &AppState, caller: &Caller, found: &mut Found) {
    use crate::params::{JourneyParams, LessonParams, WithId};
    let none = query("");
    let journeys: Vec<String> = state
        .catalog()
        .map(|catalog| {
            catalog
                .journey_ids()
                .into_iter()
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let read_journey = |journey: &String, found: &mut Found| {
        let read = JourneyParams::parse(&WithId {
            id: journey,
            query: &none,
        })
        .and_then(|params| crate::reads::journey(state, &params, caller));
        let request = format!("/api/v1/journeys/{journey}");
        found.answer(ops::GET_JOURNEY.id, request, Origin::Sample, read)
    };
    let Some(json) = journeys
        .iter()
        .find_map(|journey| read_journey(journey, found))
    else {
        return;
    };
    for lesson in ids_with_prefix(&json, "lesson-") {
        let read = LessonParams::parse(&WithId {
            id: &lesson,
            query: &none,
        })
        .and_then(|params| crate::reads::lesson(state, &params, caller));
        let request = format!("/api/v1/lessons/{lesson}");
        if found
            .answer(ops::GET_LESSON.id, request, Origin::Sample, read)
            .is_some()
        {
            break;
        }
    }
}

/// The account and its invoice lines, built from the operations' own answer types with
/// made-up values (the caps, prices and top-up address are this server's): they answer
/// about a caller's own account, so there is no real one to show.
fn account_examples(state: &AppState, learnable: Option<&str>, found: &mut Found) {
    let today = Utc::now().date_naive();
    let caps = state.settings.fair_use;
    let summary = AccountSummary {
        account_id: EXAMPLE_ACCOUNT_ID.to_owned(),
        balance: 4_870,
        currency: "JPY".to_owned(),
        caps: AccountCaps {
            daily_calls_per_account: caps.daily_calls_per_account_max,
        },
        usage_today: UsageToday {
            day: today.to_string(),
            calls: 2,
        },
        keys: vec![KeySummary {
            key_id: EXAMPLE_KEY_ID.to_owned(),
            name: Some("example key".to_owned()),
            status: "active".to_owned(),
            expires_at: None,
            daily_calls_cap: caps.daily_calls_per_key_max,
            calls_today: 2,
        }],
        top_up_url: state.settings.top_up_url.clone(),
    };
    found.answer(
        ops::GET_ACCOUNT.id,
        "/api/v1/account".to_owned(),
        Origin::Illustrative,
        illustrative(&summary),
    );
    let page = ChargesParams::parse(&query("limit=2"), today).and_then(|params| {
        illustrative(&ChargesPage {
            account_id: EXAMPLE_ACCOUNT_ID.to_owned(),
            from: params.from.to_string(),
            to: params.to.to_string(),
            limit: params.limit,
            currency: "JPY".to_owned(),
            charges: example_charges(state, today, learnable),
            next_cursor: None,
        })
    });
    found.answer(
        ops::LIST_ACCOUNT_CHARGES.id,
        "/api/v1/account/charges?limit=2".to_owned(),
        Origin::Illustrative,
        page,
    );
}

/// Two made-up invoice lines of today: a search over MCP and the keyed example's read
/// (same invoice id as its Billing object).
fn example_charges(
    state: &AppState,
    today: NaiveDate,
    learnable: Option<&str>,
) -> Vec<InvoiceLine> {
    let line =
        |n: usize, operation: &ops::OperationSpec, resource: Option<&str>, transport| InvoiceLine {
            invoice_id: EXAMPLE_INVOICE_IDS[n].to_owned(),
            key_id: EXAMPLE_KEY_ID.to_owned(),
            operation: operation.id.to_owned(),
            resource_id: resource.map(str::to_owned),
            points: price_jpy(state, operation.price),
            price_list_version: i64::from(state.settings.prices.list_version),
            day: today.to_string(),
            request_id: EXAMPLE_REQUEST_IDS[n].to_owned(),
            transport: String::from(transport),
            charged_at: format!("{today}T09:1{n}:02.000000Z"),
        };
    vec![
        line(0, &ops::SEARCH_LEARNABLES, None, "mcp"),
        line(1, &ops::GET_LEARNABLE, learnable, "rest"),
    ]
}

/// A value of an answer type in the success envelope, as a handler would answer it.
fn illustrative(value: &impl serde::Serialize) -> Result<Answer, ApiError> {
    serde_json::to_vec(value)
        .map(|json| Answer::new(json, false))
        .map_err(|_| ApiError::new(ErrorCode::Internal))
}

/// This server's price of an operation, in yen points.
fn price_jpy(state: &AppState, price: Price) -> i64 {
    let prices = state.settings.prices;
    match price {
        Price::Free => 0,
        Price::Read => prices.read_jpy,
        Price::Search => prices.search_jpy,
    }
}

/// Every string in `json` that starts with `prefix`, in document order, once each.
fn ids_with_prefix(json: &Value, prefix: &str) -> Vec<String> {
    fn walk(value: &Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            Value::String(text) if text.starts_with(prefix) && !out.contains(text) => {
                out.push(text.clone());
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, prefix, out)),
            Value::Object(map) => map.values().for_each(|item| walk(item, prefix, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(json, prefix, &mut out);
    out.truncate(20);
    out
}

/// Pretty JSON, cut after 60 lines; a cut answer keeps its end from the Billing object
/// on (a keyed answer's `billing`, the envelope's last member, or search's `data.billing`).
fn pretty_cut(json: &Value) -> String {
    const LINES_MAX: usize = 60;
    let text = serde_json::to_string_pretty(json).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= LINES_MAX {
        return text;
    }
    let is_billing = |line: &&str| {
        let member = line.trim_start();
        member.starts_with("\"billing\": {") && line.len() - member.len() <= 4
    };
    let tail = lines
        .iter()
        .rposition(is_billing)
        .unwrap_or(lines.len() - 1);
    let head = LINES_MAX.min(tail);
    format!(
        "{}\n  … ({} lines cut)\n{}",
        lines[..head].join("\n"),
        tail - head,
        lines[tail..].join("\n")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_lists_every_path_with_its_bounds() {
        let page = super::render(&crate::routes::api_with_description().1);
        assert!(page.contains("GET /api/v1/learnables/{id}/related"));
        assert!(page.contains("1..20, default 10"));
        assert!(page.contains("one of kanji, vocabulary, grammar, character, radical"));
        assert!(!page.contains("<script"));
    }

    #[test]
    fn a_cut_answer_keeps_its_billing_object() {
        let long: Vec<u32> = (0..100).collect();
        let billing = serde_json::json!({"points_charged": 1, "currency": "JPY"});
        let answer = serde_json::json!({"ok": true, "data": {"long": long}, "billing": billing});
        let cut = super::pretty_cut(&answer);
        assert!(cut.lines().count() < 70, "{cut}");
        assert!(cut.contains("lines cut"), "{cut}");
        assert!(cut.contains("\"billing\": {"), "{cut}");
        assert!(cut.ends_with('}'), "{cut}");
        let unbilled = super::pretty_cut(&serde_json::json!({"ok": true, "data": long}));
        assert!(unbilled.contains("lines cut") && !unbilled.contains("billing"));
    }
}
