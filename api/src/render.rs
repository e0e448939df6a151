//! Lesson link markup `[[learnable-id|text]]`, rendered as the `render` parameter asks.
//! REST and MCP both call [`render_lesson`], so a lesson reads the same on either.

use std::collections::BTreeMap;

use bytes::Bytes;
use manabi_schemas::markup;
use manabi_schemas::params::Render;
use serde_json::Value;

/// Applies `render` to every string of the document that carries markup.
fn walk(
    value: &mut Value,
    render: Render,
    refs: &mut BTreeMap<String, String>,
    label: &dyn Fn(&str) -> Option<String>,
) {
    match value {
        Value::String(text) if text.contains("[[") => {
            *text = markup::rewrite(text, |link, out| {
                out.push_str(link.text);
                if render == Render::Resolved {
                    let display = label(link.id).unwrap_or_else(|| link.text.to_owned());
                    refs.insert(link.id.to_owned(), display);
                }
            });
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| walk(item, render, refs, label)),
        Value::Object(members) => members
            .values_mut()
            .for_each(|member| walk(member, render, refs, label)),
        _ => {}
    }
}

/// The lesson document as the caller asked for it. `raw` returns the stored text
/// untouched; `plain` replaces each link by its text; `resolved` replaces it by its text
/// too and adds `learnable_refs` (id → display label, from `label` or else the link
/// text), so a client can turn the words back into links of its own. The link grammar
/// is `manabi_schemas::markup`, the same reader the dataset verification uses.
pub fn render_lesson(
    json: &Bytes,
    render: Render,
    label: &dyn Fn(&str) -> Option<String>,
) -> Result<Bytes, serde_json::Error> {
    if render == Render::Raw {
        return Ok(json.clone());
    }
    let mut doc: Value = serde_json::from_slice(json)?;
    let mut refs = BTreeMap::new();
    walk(&mut doc, render, &mut refs, label);
    if let (Render::Resolved, Value::Object(members)) = (render, &mut doc) {
        let refs = refs
            .into_iter()
            .map(|(id, text)| (id, Value::String(text)))
            .collect();
        members.insert("learnable_refs".to_owned(), Value::Object(refs));
    }
    Ok(Bytes::from(serde_json::to_vec(&doc)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Bytes {
        Bytes::from_static(
            br#"{"id":"l1","body_markdown":"Use [[vocab-taberu|taberu]] and [[kanji-eat]].","questions":[{"prompt":"[[x|y]] [[broken"}]}"#,
        )
    }

    fn label(id: &str) -> Option<String> {
        (id == "vocab-taberu").then(|| "食べる".to_owned())
    }

    #[test]
    fn raw_is_untouched() {
        assert_eq!(
            render_lesson(&lesson(), Render::Raw, &label).unwrap(),
            lesson()
        );
    }

    #[test]
    fn plain_keeps_only_the_text_in_every_string() {
        let out: Value =
            serde_json::from_slice(&render_lesson(&lesson(), Render::Plain, &label).unwrap())
                .unwrap();
        assert_eq!(out["body_markdown"], "Use taberu and kanji-eat.");
        assert_eq!(out["questions"][0]["prompt"], "y [[broken");
        assert!(out.get("learnable_refs").is_none());
    }

    #[test]
    fn resolved_links_and_lists_refs() {
        let out: Value =
            serde_json::from_slice(&render_lesson(&lesson(), Render::Resolved, &label).unwrap())
                .unwrap();
        assert_eq!(out["body_markdown"], "Use taberu and kanji-eat.");
        assert_eq!(out["learnable_refs"]["vocab-taberu"], "食べる");
        assert_eq!(out["learnable_refs"]["kanji-eat"], "kanji-eat");
        assert_eq!(out["learnable_refs"]["x"], "y");
    }
}
