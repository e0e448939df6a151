//! The OpenAPI 3.1 description: this module holds what is not a path (the title, the
//! shared schemas, the tags), the error answers every operation can give and the two ways
//! of sending a key. The paths come from the handlers' `#[utoipa::path]` attributes as
//! `routes::api()` registers them; `startup` joins the two with [`finish`].

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, schema};
use utoipa::{Modify, OpenApi};

use crate::operations::{Access, OPERATIONS, OperationSpec, Price};
use manabi_schemas::params::{Render, SearchType};
use manabi_schemas::{ErrorEnvelope, Localization, RelationshipKind};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "manabi",
        version = "1.0.0",
        description = "A curated, JLPT-graded Japanese learning dataset over a read-only REST \
            API. Without a key the API answers the evaluation sample (`\"sample\": true`); with \
            a key every call is billed in prepaid yen points. Every failure answers \
            `{\"ok\": false, \"error\": {code, message, required, balance, top_up_url}}`. \
            The same six reads are MCP tools at `POST /mcp` (Model Context Protocol, \
            Streamable HTTP, stateless; Bearer key required; billed like their REST twins; \
            OAuth protected-resource metadata at `/.well-known/oauth-protected-resource`). \
            Without an account, every operation is also served under `/x402/` (and MCP at \
            `/x402/mcp`), each call paid in USDC with x402: an unpaid call answers 402 with \
            the terms (v1 body, v2 `PAYMENT-REQUIRED` header), a paid one carries \
            `PAYMENT-SIGNATURE` or `X-PAYMENT` and is answered with `PAYMENT-RESPONSE`; the \
            network, token, rate and prices are in discovery's `x402` member.",
        license(name = "Apache-2.0"),
    ),
    components(schemas(ErrorEnvelope, SearchType, Render, RelationshipKind, Localization)),
    tags(
        (name = "discovery", description = "What the service offers and costs"),
        (name = "learnables", description = "Kanji, vocabulary, grammar, kana, radicals, history"),
        (name = "lessons", description = "Lessons, journeys and worlds"),
        (name = "billing", description = "Prepaid points"),
    ),
)]
struct ApiDoc;

/// Everything but the paths.
pub fn base() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// The complete description once the router has added its paths: every operation gets
/// the error answers, and the key schemes are declared.
pub fn finish(mut openapi: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    ErrorAnswers.modify(&mut openapi);
    KeySchemes.modify(&mut openapi);
    IdempotencyKeys.modify(&mut openapi);
    ConditionalReads.modify(&mut openapi);
    LocalizedDocuments.modify(&mut openapi);
    LocaleCodes.modify(&mut openapi);
    openapi
}

/// The `locale` parameter's pattern lists every ISO 639-1 code in any case (too long to
/// write in the handlers' attributes), so a schema-valid code is always accepted.
struct LocaleCodes;

impl Modify for LocaleCodes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let pattern = manabi_schemas::params::Locale::pattern();
        for path in ["/api/v1/learnables/{id}", "/api/v1/lessons/{id}"] {
            let Some(operation) = get_operation(openapi, path) else {
                continue;
            };
            for parameter in operation.parameters.iter_mut().flatten() {
                if parameter.name == "locale"
                    && let Some(utoipa::openapi::RefOr::T(schema::Schema::Object(object))) =
                        parameter.schema.as_mut()
                {
                    object.pattern = Some(pattern.clone());
                }
            }
        }
    }
}

/// A learnable or lesson read with `locale` carries `localization`: the documents'
/// schemas get it as an optional member.
struct LocalizedDocuments;

impl Modify for LocalizedDocuments {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        for name in ["Learnable", "LessonDocument"] {
            let Some(utoipa::openapi::RefOr::T(document)) = components.schemas.get_mut(name) else {
                continue;
            };
            let member = utoipa::openapi::RefOr::Ref(Ref::from_schema_name("Localization"));
            match document {
                schema::Schema::Object(object) => {
                    object.properties.insert("localization".to_owned(), member);
                }
                schema::Schema::AllOf(all_of) => {
                    let object = schema::ObjectBuilder::new()
                        .property("localization", member)
                        .build();
                    all_of.items.push(object.into());
                }
                _ => {}
            }
        }
    }
}

/// The GET operation of `path` in the description, once the router has added it.
fn get_operation<'a>(
    openapi: &'a mut utoipa::openapi::OpenApi,
    path: &str,
) -> Option<&'a mut utoipa::openapi::path::Operation> {
    openapi
        .paths
        .paths
        .get_mut(path)
        .and_then(|item| item.get.as_mut())
}

/// The 304 of a conditional request on every operation anyone may call (the
/// `If-None-Match` header itself is not declared: a generator sending `*` would expect
/// a 2xx),: their answers carry
/// an `ETag` (the account endpoints' answers are not stored, so they have none).
struct ConditionalReads;

impl Modify for ConditionalReads {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let text = || schema::ObjectBuilder::new().schema_type(schema::Type::String);
        for operation in crate::operations::OPERATIONS {
            if operation.access != crate::operations::Access::Public {
                continue;
            }
            let Some(get) = get_operation(openapi, operation.path) else {
                continue;
            };

            let etag = HeaderBuilder::new()
                .schema(text())
                .description(Some("The weak entity tag of the data"))
                .build();
            let unchanged = ResponseBuilder::new()
                .description(
                    "The request's If-None-Match names the current ETag: no body, nothing charged",
                )
                .header("ETag", etag);
            get.responses
                .responses
                .insert("304".to_owned(), unchanged.build().into());
        }
    }
}

/// The `Idempotency-Key` header and its 409 on every billed operation of the table.
struct IdempotencyKeys;

impl Modify for IdempotencyKeys {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
        for operation in crate::operations::OPERATIONS {
            if operation.price == crate::operations::Price::Free {
                continue;
            }
            let Some(get) = get_operation(openapi, operation.path) else {
                continue;
            };
            let schema = schema::ObjectBuilder::new()
                .schema_type(schema::Type::String)
                .min_length(Some(1))
                .max_length(Some(crate::extract::IDEMPOTENCY_KEY_CHARS_MAX))
                .pattern(Some("^[!-~]+$"));
            let header = ParameterBuilder::new()
                .name("Idempotency-Key")
                .parameter_in(ParameterIn::Header)
                .description(Some(
                    "Keyed calls: a retry with the same key and the same request within 24 \
                     hours is answered with the first charge (same invoice id) and charged \
                     nothing more; the same key with another request is a 409.",
                ))
                .schema(Some(schema))
                .build();
            get.parameters.get_or_insert_with(Vec::new).push(header);
            let content = ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                .build();
            let conflict = ResponseBuilder::new()
                .description("The Idempotency-Key was used for another request (IDEMPOTENCY_KEY_REUSED); nothing charged")
                .content("application/json", content);
            get.responses
                .responses
                .insert("409".to_owned(), conflict.build().into());
        }
    }
}

/// The failure statuses an operation can really answer, each with what it means there:
/// every operation checks its parameters (400), a key that is sent (401), the burst
/// limit (429) and the request's size and time (414, 431, 504), and may find the dataset
/// or the ledger not ready (503); a priced call can also be refused for its price (402)
/// or its daily cap (429); an entry read can find nothing (404); a localized read can
/// find no generator for the locale (422).
fn error_answers(spec: &OperationSpec) -> Vec<(&'static str, String)> {
    let priced = spec.price != Price::Free;
    let key_required = spec.access == Access::KeyRequired;
    let locale = spec.query.contains(&"locale");
    let mut answers = vec![(
        "400",
        "A parameter is unknown, missing or invalid (INVALID_PARAMETER); nothing charged"
            .to_owned(),
    )];
    let mut unauthorized = if key_required {
        "No key, or a key that is malformed, unknown (INVALID_API_KEY), revoked or expired \
         (REVOKED_API_KEY)"
            .to_owned()
    } else {
        "A key was sent and is malformed, unknown (INVALID_API_KEY), revoked or expired \
         (REVOKED_API_KEY); without a key the call is answered"
            .to_owned()
    };
    if locale {
        unauthorized.push_str(
            "; a locale not generated yet was asked for without a key (API_KEY_REQUIRED)",
        );
    }
    answers.push(("401", unauthorized));
    if priced {
        answers.push((
            "402",
            "The balance cannot cover the call (INSUFFICIENT_POINTS, with required, balance, \
             top_up_url); nothing charged"
                .to_owned(),
        ));
    }
    if spec.takes_id() {
        answers.push((
            "404",
            "No such entry (NOT_FOUND), or an entry outside the keyless sample (NOT_IN_SAMPLE)"
                .to_owned(),
        ));
    }
    answers.push((
        "414",
        "The request URI or query string is too long".to_owned(),
    ));
    if locale {
        answers.push((
            "422",
            "No configured generator serves the locale for this entry (LOCALE_UNAVAILABLE); \
             nothing charged"
                .to_owned(),
        ));
    }
    answers.push((
        "429",
        if priced {
            "Burst limit (RATE_LIMITED) or the daily cap of the key or account \
             (QUOTA_EXCEEDED); see Retry-After"
        } else {
            "Burst limit (RATE_LIMITED); see Retry-After"
        }
        .to_owned(),
    ));
    answers.push(("431", "The request headers are too large".to_owned()));
    answers.push(("500", "Internal error; nothing charged".to_owned()));
    answers.push((
        "503",
        if locale {
            "The dataset is still loading, billing or the translator of a localized read is \
             unavailable; retry shortly, nothing charged"
        } else if priced {
            "The dataset is still loading or billing is unavailable (or a charge's outcome is \
             unknown: CHARGE_OUTCOME_UNKNOWN); retry shortly"
        } else {
            "The dataset is still loading or the ledger is unavailable; retry shortly"
        }
        .to_owned(),
    ));
    answers.push((
        "504",
        "The request took too long; nothing charged".to_owned(),
    ));
    answers
}

struct ErrorAnswers;

impl Modify for ErrorAnswers {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let Some(operation) = item.get.as_mut() else {
                continue;
            };
            let id = operation.operation_id.clone().unwrap_or_default();
            let Some(spec) = OPERATIONS.iter().copied().find(|spec| spec.id == id) else {
                continue;
            };
            for (status, description) in error_answers(spec) {
                let content = ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                    .build();
                let mut answer = ResponseBuilder::new()
                    .description(description)
                    .content("application/json", content);
                if status == "429" || status == "503" {
                    let seconds = HeaderBuilder::new()
                        .schema(schema::ObjectBuilder::new().schema_type(schema::Type::Integer))
                        .description(Some("Seconds to wait before retrying"))
                        .build();
                    answer = answer.header("Retry-After", seconds);
                }
                if status == "429" {
                    answer = rate_limit_headers(answer);
                }
                operation
                    .responses
                    .responses
                    .entry(status.to_owned())
                    .or_insert(answer.build().into());
            }
        }
    }
}

/// The IETF `RateLimit` pair sent with a burst refusal (RATE_LIMITED).
fn rate_limit_headers(answer: ResponseBuilder) -> ResponseBuilder {
    let text = |description: &str| {
        HeaderBuilder::new()
            .schema(schema::ObjectBuilder::new().schema_type(schema::Type::String))
            .description(Some(description))
            .build()
    };
    answer
        .header(
            "RateLimit-Policy",
            text("RATE_LIMITED only: the bucket's policy, e.g. `\"burst\";q=10;w=1`"),
        )
        .header(
            "RateLimit",
            text(
                "RATE_LIMITED only: tokens remaining and seconds to reset, e.g. `\"burst\";r=0;t=1`",
            ),
        )
}

struct KeySchemes;

impl Modify for KeySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .bearer_format("svc_ak_<secret>")
            .description(Some("API key as a Bearer token"))
            .build();
        components.add_security_scheme("bearer", SecurityScheme::Http(bearer));
        let header = ApiKeyValue::with_description("X-API-Key", "API key in the X-API-Key header");
        components.add_security_scheme("api_key", SecurityScheme::ApiKey(ApiKey::Header(header)));
    }
}
