//! The six tools as an agent sees them in `tools/list`: a description written for
//! deciding which tool to call, an input schema with exactly the bounds of the REST
//! parameters (taken from the same typed constants), an output schema taken from the
//! OpenAPI description of the REST twin, and read-only annotations. Which tools exist and
//! which operation each serves comes from the table in `operations`.

use std::sync::Arc;

use manabi_schemas::params::{
    JlptLevel, LearnableId, Locale, RelatedLimit, Render, SearchLimit, SearchQuery,
};
use manabi_schemas::{RelationshipKind, RelationshipKinds};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::outcome::output_schema;
use crate::operations;
use crate::related::RelatedCursor;

/// The REST `query` pattern: not only spaces, no control characters.
const QUERY_PATTERN: &str =
    r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$";

/// What the agent is told about one tool.
struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: Value,
}

/// Every tool of the operation table, in its order, with the output schema cut from
/// `openapi` (the finished description, as JSON). Built once at start.
pub fn tools(openapi: &Value) -> Vec<Tool> {
    let mut specs = specs();
    operations::tool_names()
        .filter_map(|name| {
            let at = specs.iter().position(|spec| spec.name == name)?;
            Some(specs.swap_remove(at))
        })
        .filter_map(|spec| {
            let rest_path = operations::by_tool(spec.name)?.path;
            let mut tool = Tool::new(spec.name, spec.description, object(spec.input));
            tool.title = Some(spec.title.to_owned());
            tool.output_schema = Some(Arc::new(output_schema(openapi, rest_path)));
            tool.annotations = Some(
                ToolAnnotations::with_title(spec.title)
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            );
            Some(tool)
        })
        .collect()
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn id_property(what: &str) -> Value {
    json!({
        "type": "string",
        "description": format!("The {what} id, as returned by another tool (e.g. `kanji-65e5`)."),
        "minLength": 1,
        "maxLength": LearnableId::CHARS_MAX,
        "pattern": r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
    })
}

fn locale_property() -> Value {
    json!({
        "type": "string",
        "description": "ISO 639-1 content locale, any case; `en` (the default) is canonical. Another locale is generated on the first request (25 points, once) and read by everyone after for 1; discovery lists the supported locales.",
        "minLength": 2,
        "maxLength": 2,
        "pattern": Locale::pattern(),
        "default": "en",
    })
}

/// A `limit` argument: `(min, max, default)` from the typed limit of the REST twin.
fn limit_property(what: &str, (min, max, default): (u8, u8, usize)) -> Value {
    json!({
        "type": "integer",
        "description": format!("How many {what}, at most {max}."),
        "minimum": min,
        "maximum": max,
        "default": default,
    })
}

fn input(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn specs() -> Vec<Spec> {
    vec![
        search_spec(),
        learnable_spec(),
        related_spec(),
        lesson_spec(),
        journey_spec(),
        worlds_spec(),
    ]
}

fn search_spec() -> Spec {
    Spec {
        name: "search_learnables",
        title: "Search Japanese learnables",
        description: "Find kanji, vocabulary, grammar points, kana, radicals and Japanese \
            history entries by Japanese text (kanji, kana or romaji) or an English meaning. \
            Use this first when you have a word or idea but no id. Results are ranked \
            summaries (id, type, label, reading, meaning, JLPT level); pass an id to \
            get_learnable for the full entry. Filter by `type` and `jlpt_level` (5 = N5 \
            beginner .. 1 = N1 advanced). Costs 5 points.",
        input: input(
            json!({
                "query": {
                    "type": "string",
                    "description": "Japanese (kanji, kana, romaji) or English text to look for.",
                    "minLength": 1,
                    "maxLength": SearchQuery::CHARS_MAX,
                    "pattern": QUERY_PATTERN,
                },
                "type": {
                    "type": "string",
                    "description": "Only entries of this type.",
                    "enum": ["kanji", "vocabulary", "grammar", "character", "radical"],
                },
                "jlpt_level": {
                    "type": "integer",
                    "description": "Only this JLPT level (5 = N5 beginner .. 1 = N1 advanced).",
                    "minimum": JlptLevel::MIN,
                    "maximum": JlptLevel::MAX,
                },
                "limit": limit_property(
                    "results",
                    (SearchLimit::MIN, SearchLimit::MAX, SearchLimit::DEFAULT.get()),
                ),
            }),
            &["query"],
        ),
    }
}

fn learnable_spec() -> Spec {
    Spec {
        name: "get_learnable",
        title: "Get one learnable",
        description: "The full entry for one id: its written forms, meaning, JLPT level, the \
            details of its type (kanji readings and components, vocabulary senses, grammar \
            pattern and examples, dates and roles of history entries) and the cited sources \
            of every fact. Use it after search_learnables or get_related_learnables gave you \
            an id. Costs 1 point.",
        input: input(
            json!({ "id": id_property("learnable"), "locale": locale_property() }),
            &["id"],
        ),
    }
}

fn related_spec() -> Spec {
    let kinds: Vec<&str> = RelationshipKind::all()
        .map(RelationshipKind::name)
        .collect();
    Spec {
        name: "get_related_learnables",
        title: "Get related learnables",
        description: "The entries linked to one id, each once with every kind of \
            relationship linking it and its basis (synonyms and antonyms, look-alike kanji, \
            words using a kanji, related grammar, people and events of an era, components \
            …), most useful first. `totals_by_kind` tells which kinds exist and how many; \
            pass `kind` to keep only some, and `next_cursor` as `cursor` for the next page. \
            Use it to widen a study set or explain connections. Costs 1 point per page.",
        input: input(
            json!({
                "id": id_property("learnable"),
                "limit": limit_property(
                    "related entries per page",
                    (RelatedLimit::MIN, RelatedLimit::MAX, RelatedLimit::DEFAULT.get()),
                ),
                "kind": {
                    "type": "array",
                    "description": "Only entries linked by one of these relationship kinds \
                        (read from this entry); every kind when absent.",
                    "items": {
                        "type": "string",
                        "enum": kinds,
                    },
                    "minItems": 1,
                    "maxItems": RelationshipKinds::ITEMS_MAX,
                },
                "cursor": {
                    "type": "string",
                    "description": "The `next_cursor` of the previous page of the same id and \
                        `kind`, to read the next page.",
                    "minLength": RelatedCursor::CHARS,
                    "maxLength": RelatedCursor::CHARS,
                    "pattern": RelatedCursor::PATTERN,
                },
            }),
            &["id"],
        ),
    }
}

fn lesson_spec() -> Spec {
    Spec {
        name: "get_lesson",
        title: "Get one lesson",
        description: "One lesson: its text, the learnables it teaches and its questions. \
            Lesson text links entries as `[[learnable-id|text]]`; `render` keeps that \
            markup (`raw`), replaces it by its text (`plain`) or turns it into Markdown \
            links with a map of labels (`resolved`, best for showing to a person). Lesson \
            ids are the `nodes` of a journey (get_journey). Costs 1 point.",
        input: input(
            json!({
                "id": id_property("lesson"),
                "render": {
                    "type": "string",
                    "description": "How `[[learnable-id|text]]` link markup is returned.",
                    "enum": Render::NAMES,
                    "default": "raw",
                },
                "locale": locale_property(),
            }),
            &["id"],
        ),
    }
}

fn journey_spec() -> Spec {
    Spec {
        name: "get_journey",
        title: "Get one journey",
        description: "One journey of a world at one JLPT level: a graph of lessons (the \
            start, every lesson in study order as `nodes`, edges, branch points and \
            outcomes), for planning what a learner studies next; pass its lesson ids to \
            get_lesson. Journey ids look like `journey-<world slug>-n5-01`, the slug from a \
            world id of list_worlds. Costs 1 point.",
        input: input(json!({ "id": id_property("journey") }), &["id"]),
    }
}

fn worlds_spec() -> Spec {
    Spec {
        name: "list_worlds",
        title: "List themed worlds",
        description: "Every themed world (a setting such as food or history that groups \
            journeys and lessons): id, title, description, JLPT range, domains and how many \
            lessons it holds. The starting point when a learner wants a guided path rather \
            than a single entry; its id (`world-<slug>`) leads to the journeys \
            (get_journey). Takes no arguments. Costs 1 point.",
        input: input(json!({}), &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_tools() -> Vec<Tool> {
        let (_, openapi) = crate::routes::api_with_description();
        tools(&serde_json::to_value(openapi).expect("JSON"))
    }

    fn tool(name: &str) -> Option<Tool> {
        all_tools().into_iter().find(|tool| tool.name == name)
    }

    #[test]
    fn six_read_only_tools_with_schemas() {
        let tools = all_tools();
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(names, operations::tool_names().collect::<Vec<_>>());
        assert_eq!(names.len(), 6);
        for tool in &tools {
            let annotations = tool.annotations.as_ref().unwrap();
            assert_eq!(annotations.read_only_hint, Some(true));
            assert_eq!(annotations.open_world_hint, Some(false));
            assert_eq!(annotations.idempotent_hint, Some(true));
            assert_eq!(tool.input_schema["type"], "object");
            let output = tool.output_schema.as_ref().unwrap();
            assert_eq!(output["type"], "object", "{}", tool.name);
        }
    }

    #[test]
    fn bounds_match_the_rest_parameters() {
        let search = tool("search_learnables").unwrap();
        let properties = &search.input_schema["properties"];
        assert_eq!(properties["limit"]["maximum"], 20);
        assert_eq!(properties["limit"]["minimum"], 1);
        assert_eq!(properties["jlpt_level"]["maximum"], 5);
        assert_eq!(properties["query"]["maxLength"], 100);
        assert_eq!(search.input_schema["required"], json!(["query"]));
        let lesson = tool("get_lesson").unwrap();
        assert_eq!(
            lesson.input_schema["properties"]["render"]["enum"],
            json!(["raw", "plain", "resolved"])
        );
    }

    /// `kind` and `cursor` are bounded alike in the tool, the REST description and the
    /// types that parse them.
    #[test]
    fn related_filters_and_cursors_match_the_rest_parameters() {
        let (_, openapi) = crate::routes::api_with_description();
        let openapi = serde_json::to_value(openapi).expect("JSON");
        let parameters = openapi["paths"]["/api/v1/learnables/{id}/related"]["get"]["parameters"]
            .as_array()
            .expect("parameters")
            .clone();
        let rest = |name: &str| {
            let found = parameters
                .iter()
                .find(|parameter| parameter["name"] == name);
            found.expect("a documented parameter")["schema"].clone()
        };
        let tool = tool("get_related_learnables").unwrap();
        let properties = &tool.input_schema["properties"];
        let (rest_kind, tool_kind) = (rest("kind"), &properties["kind"]);
        assert_eq!(rest_kind["maxItems"], RelationshipKinds::ITEMS_MAX);
        assert_eq!(tool_kind["maxItems"], RelationshipKinds::ITEMS_MAX);
        assert_eq!(rest_kind["minItems"], tool_kind["minItems"]);
        let kinds = &openapi["components"]["schemas"]["RelationshipKind"]["enum"];
        assert_eq!(
            rest_kind["items"]["$ref"],
            "#/components/schemas/RelationshipKind"
        );
        assert_eq!(&tool_kind["items"]["enum"], kinds);
        assert_eq!(
            kinds.as_array().map(Vec::len),
            Some(RelationshipKind::COUNT)
        );
        let (rest_cursor, tool_cursor) = (rest("cursor"), &properties["cursor"]);
        for bound in ["pattern", "minLength", "maxLength"] {
            assert_eq!(rest_cursor[bound], tool_cursor[bound], "{bound}");
        }
        assert_eq!(rest_cursor["pattern"], RelatedCursor::PATTERN);
        assert_eq!(rest_cursor["maxLength"], RelatedCursor::CHARS);
    }

    #[test]
    fn each_tool_takes_the_arguments_of_its_operation() {
        for tool in all_tools() {
            let operation = operations::by_tool(&tool.name).expect("in the table");
            let mut properties: Vec<&str> = tool.input_schema["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .map(String::as_str)
                .collect();
            let mut arguments: Vec<&str> = operation.arguments().collect();
            properties.sort_unstable();
            arguments.sort_unstable();
            assert_eq!(properties, arguments, "{}", tool.name);
        }
    }
}
