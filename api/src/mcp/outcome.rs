//! What a tool call answers: the REST `data` as `structuredContent` (with the Billing
//! object as its `billing` member) and a text copy of it; a refusal as a tool result
//! marked `isError` carrying the REST error object, so an agent can tell its user what
//! is short and where to top up. The output schemas come from the OpenAPI description
//! of the REST twin, so the two transports cannot drift apart.

use manabi_schemas::Billing;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{Map, Value, json};

use crate::answer::Answer;
use crate::error::ApiError;

const COMPONENTS: &str = "#/components/schemas/";
const DEFS: &str = "#/$defs/";

/// The tool result of one billed read.
pub fn tool_result(outcome: Result<Answer, ApiError>) -> CallToolResult {
    match outcome {
        Ok(answer) => success(answer),
        Err(error) => refusal(&error),
    }
}

fn success(answer: Answer) -> CallToolResult {
    let mut data: Value = match serde_json::from_slice(&answer.data) {
        Ok(data) => data,
        Err(error) => {
            tracing::error!(%error, "a read answered data that is not JSON");
            return refusal(&ApiError::new(manabi_schemas::ErrorCode::Internal));
        }
    };
    if let (Some(object), Some(billing)) = (data.as_object_mut(), &answer.billing) {
        object.insert("billing".to_owned(), json!(billing));
    }
    CallToolResult::structured(data)
}

/// The tool result of a call paid by x402: the settlement in `_meta`, and a refusal
/// with payment terms as x402's MCP transport carries them (the v2 terms as
/// `structuredContent`, so the client can sign and retry).
pub fn paid_result(outcome: Result<Answer, ApiError>) -> CallToolResult {
    match outcome {
        Ok(mut answer) => {
            let payment = answer.payment.take();
            let mut result = success(answer);
            if let Some(paid) = payment {
                let mut meta = rmcp::model::MetaObject::default();
                meta.insert(
                    crate::x402::MCP_PAYMENT_RESPONSE.to_owned(),
                    json!(paid.response),
                );
                result.meta = Some(meta);
            }
            result
        }
        Err(error) => match &error.payment_terms {
            Some(terms) => CallToolResult::structured_error(terms.json_v2(&error.body)),
            None => refusal(&error),
        },
    }
}

/// The REST error object, plus `retry_after` (seconds) where REST sends `Retry-After`.
pub fn refusal(error: &ApiError) -> CallToolResult {
    let mut body = json!(error.body);
    if let (Some(object), Some(secs)) = (body.as_object_mut(), error.retry_after_secs) {
        object.insert("retry_after".to_owned(), json!(secs));
    }
    CallToolResult::structured_error(body)
}

/// The output schema of the tool whose REST twin answers at `rest_path`: the schema of
/// that operation's `data`, with a `billing` member, and the named schemas it uses
/// under `$defs`.
pub fn output_schema(openapi: &Value, rest_path: &str) -> JsonObject {
    let data = data_schema(openapi, rest_path);
    let mut defs = Map::new();
    collect_defs(openapi, &data, &mut defs);
    let mut root = json!({
        "type": "object",
        "allOf": [rewrite_refs(data)],
        "properties": { "billing": billing_schema() },
    });
    if !defs.is_empty() {
        root["$defs"] = Value::Object(defs);
    }
    match root {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// `data` of the 200 answer of `GET rest_path`, following a reference to the envelope.
fn data_schema(openapi: &Value, rest_path: &str) -> Value {
    let envelope = openapi
        .pointer(&format!(
            "/paths/{}/get/responses/200/content/application~1json/schema",
            rest_path.replace('~', "~0").replace('/', "~1")
        ))
        .cloned()
        .unwrap_or(Value::Null);
    let envelope = resolve(openapi, &envelope);
    envelope
        .pointer("/properties/data")
        .cloned()
        .unwrap_or_else(|| json!({ "type": "object" }))
}

/// The component a `$ref` names, or the schema itself.
fn resolve(openapi: &Value, schema: &Value) -> Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix(COMPONENTS))
        .and_then(|name| component(openapi, name))
        .unwrap_or_else(|| schema.clone())
}

fn component(openapi: &Value, name: &str) -> Option<Value> {
    openapi
        .pointer(&format!("/components/schemas/{name}"))
        .cloned()
}

/// Every component reachable from `schema`, each with its references rewritten.
fn collect_defs(openapi: &Value, schema: &Value, defs: &mut Map<String, Value>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix(COMPONENTS))
                && !defs.contains_key(name)
                && let Some(found) = component(openapi, name)
            {
                // Inserted before descending, so a recursive schema stops here.
                defs.insert(name.to_owned(), Value::Null);
                collect_defs(openapi, &found, defs);
                defs.insert(name.to_owned(), rewrite_refs(found));
            }
            map.values()
                .for_each(|value| collect_defs(openapi, value, defs));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|value| collect_defs(openapi, value, defs)),
        _ => {}
    }
}

fn rewrite_refs(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => {
                        let rewritten = reference.replacen(COMPONENTS, DEFS, 1);
                        (key, Value::String(rewritten))
                    }
                    (_, value) => (key, rewrite_refs(value)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(rewrite_refs).collect()),
        other => other,
    }
}

fn billing_schema() -> Value {
    let schema = <Billing as utoipa::PartialSchema>::schema();
    let mut schema = serde_json::to_value(schema).unwrap_or_else(|_| json!({ "type": "object" }));
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "description".to_owned(),
            json!(
                "What this call cost: points debited from the prepaid balance and the invoice id."
            ),
        );
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use manabi_schemas::ErrorCode;

    #[test]
    fn output_schemas_describe_the_rest_data() {
        let (_, openapi) = crate::routes::api_with_description();
        let openapi = serde_json::to_value(openapi).expect("JSON");
        let schema = Value::Object(output_schema(&openapi, "/api/v1/learnables"));
        let text = schema.to_string();
        assert!(text.contains("total_candidates"), "{text}");
        assert!(!text.contains(COMPONENTS), "{text}");
        assert_eq!(schema["properties"]["billing"]["type"], "object");
        let lesson = Value::Object(output_schema(&openapi, "/api/v1/lessons/{id}")).to_string();
        assert!(!lesson.contains(COMPONENTS));
    }

    #[test]
    fn billing_joins_the_data_and_refusals_carry_the_error_object() {
        let mut answer = Answer::new(r#"{"id":"a"}"#, false);
        answer.billing = Some(Billing {
            points_charged: 1,
            currency: "JPY".into(),
            invoice_id: Some("e1".into()),
            free_tier: Some(false),
        });
        let result = tool_result(Ok(answer));
        let structured = result.structured_content.unwrap();
        assert_eq!(structured["id"], "a");
        assert_eq!(structured["billing"]["invoice_id"], "e1");
        assert_eq!(result.is_error, Some(false));

        let mut error = ApiError::new(ErrorCode::InsufficientPoints);
        error.body.required = Some(5);
        error.body.balance = Some(2);
        let result = tool_result(Err(error.retry_after(3)));
        let structured = result.structured_content.unwrap();
        assert_eq!(result.is_error, Some(true));
        assert_eq!(structured["code"], "INSUFFICIENT_POINTS");
        assert_eq!(structured["required"], 5);
        assert_eq!(structured["balance"], 2);
        assert_eq!(structured["retry_after"], 3);
    }
}
