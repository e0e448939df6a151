//! The human documentation page at `/docs`: plain HTML rendered once, at start, from the
//! OpenAPI document itself, so the page can never disagree with the machine description.
//! No scripts, fonts or styles from elsewhere: the page works offline.

use std::fmt::Write;

use serde_json::Value;

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;\
padding:0 1rem;color:#222}code,pre{font-family:ui-monospace,monospace;background:#f4f4f4;\
padding:0 .2em}h2{border-top:1px solid #ddd;padding-top:1rem}table{border-collapse:collapse}\
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}";

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
            escape(text(parameter, "description")),
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
            escape(text(response, "description"))
        );
    }
    out.push_str("</table>");
}

/// The whole page.
pub fn render(openapi: &utoipa::openapi::OpenApi) -> String {
    let doc = serde_json::to_value(openapi).unwrap_or(Value::Null);
    let info = doc.get("info").unwrap_or(&Value::Null);
    let mut out = String::with_capacity(32 * 1024);
    let _ = write!(
        out,
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>{title} API {version}</title>\
         <style>{STYLE}</style></head><body><h1>{title} API {version}</h1><p>{description}</p>\
         <p>Machine-readable description: <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a> \
         (OpenAPI {openapi}).</p>",
        title = escape(text(info, "title")),
        version = escape(text(info, "version")),
        description = escape(text(info, "description")),
        openapi = escape(text(&doc, "openapi")),
    );
    if let Some(paths) = doc.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let Some(operation) = item.get("get") else {
                continue;
            };
            let _ = write!(
                out,
                "<h2 id=\"{id}\"><code>GET {path}</code></h2><p><b>{summary}</b></p><p>{description}</p>",
                id = escape(text(operation, "operationId")),
                path = escape(path),
                summary = escape(text(operation, "summary")),
                description = escape(text(operation, "description")),
            );
            parameters(&doc, operation, &mut out);
            responses(operation, &mut out);
        }
    }
    out.push_str("<h2>Authentication</h2><p>Send an API key as <code>Authorization: Bearer svc_ak_…</code> or <code>X-API-Key: svc_ak_…</code>. Without a key the REST API answers the evaluation sample and every answer carries <code>\"sample\": true</code>.</p></body></html>");
    out
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
