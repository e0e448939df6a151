//! Lesson link markup: `[[learnable-id|text]]` (or `[[learnable-id]]`, whose text is the
//! id). The dataset's verify and the API's render both read links through this module, so
//! what one accepts the other renders.

/// One link found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link<'a> {
    /// The learnable id the link points to.
    pub id: &'a str,
    /// The words shown to the learner.
    pub text: &'a str,
}

impl<'a> Link<'a> {
    /// Reads the inside of `[[…]]`; `None` when it names no id.
    pub fn parse(inner: &'a str) -> Option<Link<'a>> {
        let (id, text) = inner.split_once('|').unwrap_or((inner, inner));
        let id = id.trim();
        let well_formed = !id.is_empty() && !id.contains(['[', ']', '|']);
        well_formed.then_some(Link { id, text })
    }
}

/// One piece of a text: plain words, or a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Link(Link<'a>),
}

/// Splits a text into plain pieces and links, in order. Unterminated or empty markup is
/// kept as plain text, so nothing the author wrote is lost.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let whole = &rest[start..start + 2 + end + 2];
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        out.push(match Link::parse(&after[..end]) {
            Some(link) => Piece::Link(link),
            None => Piece::Text(whole),
        });
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// Every link of a text, in order.
pub fn links(text: &str) -> impl Iterator<Item = Link<'_>> {
    pieces(text).into_iter().filter_map(|piece| match piece {
        Piece::Link(link) => Some(link),
        Piece::Text(_) => None,
    })
}

/// Rewrites every link with `write`, copying the plain pieces unchanged.
pub fn rewrite(text: &str, mut write: impl FnMut(Link<'_>, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text) {
        match piece {
            Piece::Text(plain) => out.push_str(plain),
            Piece::Link(link) => write(link, &mut out),
        }
    }
    out
}

/// The text as a reader sees it: each link replaced by its words.
pub fn plain(text: &str) -> String {
    rewrite(text, |link, out| out.push_str(link.text))
}

/// Writes a link; the text must not contain `]]`, which would end the link early.
pub fn link(id: &str, text: &str) -> String {
    format!("[[{id}|{}]]", text.replace("]]", "] ]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_links_and_keeps_text() {
        let text = "Read [[kanji-65e5|日]] and [[vocab-1]], not [[ ]] or [[open";
        let found: Vec<_> = links(text).collect();
        assert_eq!(
            found,
            vec![
                Link {
                    id: "kanji-65e5",
                    text: "日"
                },
                Link {
                    id: "vocab-1",
                    text: "vocab-1"
                },
            ]
        );
        assert_eq!(plain(text), "Read 日 and vocab-1, not [[ ]] or [[open");
    }

    #[test]
    fn link_round_trips() {
        let written = link("grammar-te-kara", "〜てから");
        assert_eq!(
            links(&written).next(),
            Some(Link {
                id: "grammar-te-kara",
                text: "〜てから"
            })
        );
    }
}
