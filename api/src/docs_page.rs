//! The human documentation page at `/docs`: a guide (quickstart with curl, Python and
//! TypeScript, the Billing object, refusals, MCP host configuration, x402, localization;
//! Markdown in `api/docs/guide.md`, compiled in) and, per operation, its parameters, the
//! statuses it can answer and an example request and answer taken from the served
//! dataset. Rendered from the OpenAPI document itself, so the page can never disagree
//! with the machine description; the examples are made by the server's own reads once
//! the dataset is loaded (`examples`), so they cannot drift. No scripts, fonts or styles
//! from elsewhere: the page works offline.

use std::collections::HashMap;

use std::fmt::Write;

use serde_json::Value;

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

/// An example call of one operation, made against the served dataset.
#[derive(Debug, Clone)]
pub struct Example {
    /// Path and query, e.g. `/api/v1/learnables?query=taberu&limit=2`.
    pub request: String,
    /// The answer's JSON, pretty-printed (long answers cut).
    pub answer: String,
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
                 <p>Answer (from the served dataset; without a key it is the sample):</p><pre><code>{answer}</code></pre></details>",
                base = escape(base),
                request = escape(&example.request),
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

/// Example calls of the operations, made by the server's own reads as a keyless caller
/// (so from the evaluation sample), once the dataset is loaded.
pub fn examples(state: &crate::state::AppState) -> HashMap<&'static str, Example> {
    use crate::extract::QueryParams;
    use crate::operations as ops;
    use crate::params::{
        JourneyParams, LearnableParams, LessonParams, RelatedParams, SearchParams, WithId,
    };
    let caller = crate::billing::Caller::Keyless {
        client: std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
    };
    let mut out = HashMap::new();
    let mut add = |id: &'static str,
                   request: String,
                   answer: Result<crate::answer::Answer, crate::error::ApiError>|
     -> Option<Value> {
        let answer = answer.ok()?;
        let json: Value = serde_json::from_slice(&answer.into_body()).ok()?;
        out.insert(
            id,
            Example {
                request,
                answer: pretty_cut(&json),
            },
        );
        Some(json)
    };
    let query = |text: &str| QueryParams::decode(text).unwrap_or_default();
    add(
        ops::GET_DISCOVERY.id,
        "/api/v1".to_owned(),
        crate::reads::discovery(state, &caller),
    );
    add(
        ops::LIST_CREDIT_PACKS.id,
        "/api/v1/credit-packs".to_owned(),
        crate::reads::credit_packs(state, &caller),
    );
    let search = SearchParams::parse(&query("query=taberu&limit=2"))
        .and_then(|params| crate::reads::search(state, &params, &caller));
    let found = add(
        ops::SEARCH_LEARNABLES.id,
        "/api/v1/learnables?query=taberu&limit=2".to_owned(),
        search,
    );
    if let Some(id) = found
        .as_ref()
        .and_then(|json| json["data"]["results"][0]["id"].as_str())
    {
        let none = query("");
        let learnable = LearnableParams::parse(&WithId { id, query: &none })
            .and_then(|params| crate::reads::learnable(state, &params, &caller));
        add(
            ops::GET_LEARNABLE.id,
            format!("/api/v1/learnables/{id}"),
            learnable,
        );
        let two = query("limit=2");
        let related = RelatedParams::parse(&WithId { id, query: &two })
            .and_then(|params| crate::reads::related(state, &params, &caller));
        add(
            ops::GET_RELATED_LEARNABLES.id,
            format!("/api/v1/learnables/{id}/related?limit=2"),
            related,
        );
    }
    add(
        ops::LIST_WORLDS.id,
        "/api/v1/worlds".to_owned(),
        crate::reads::worlds(state, &caller),
    );
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
    for journey in journeys {
        let read = JourneyParams::parse(&WithId {
            id: &journey,
            query: &none,
        })
        .and_then(|params| crate::reads::journey(state, &params, &caller));
        let Some(json) = add(
            ops::GET_JOURNEY.id,
            format!("/api/v1/journeys/{journey}"),
            read,
        ) else {
            continue;
        };
        for lesson in ids_with_prefix(&json, "lesson-") {
            let read = LessonParams::parse(&WithId {
                id: &lesson,
                query: &none,
            })
            .and_then(|params| crate::reads::lesson(state, &params, &caller));
            if add(
                ops::GET_LESSON.id,
                format!("/api/v1/lessons/{lesson}"),
                read,
            )
            .is_some()
            {
                break;
            }
        }
        break;
    }
    out
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

/// Pretty JSON, cut after 60 lines.
fn pretty_cut(json: &Value) -> String {
    const LINES_MAX: usize = 60;
    let text = serde_json::to_string_pretty(json).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= LINES_MAX {
        return text;
    }
    format!(
        "{}\n  … ({} more lines)",
        lines[..LINES_MAX].join("\n"),
        lines.len() - LINES_MAX
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
}
