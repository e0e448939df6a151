//! Splits a text into what a translator may see and what it must never touch.
//!
//! Kept byte for byte: every link `[[id|text]]`, every run of Japanese script (kana,
//! kanji, Japanese punctuation and full-width forms), inline code, Markdown structure
//! (heading and list markers, table pipes and rule lines) and the whitespace around them.
//!
//! A translator sees [`Unit`]s: the English of one line or table cell, each kept span in
//! it replaced by a placeholder (`X1`, `X2`, …) so the sentence is translated whole. A
//! translation that gives every placeholder back exactly once gets the spans put back in
//! place ([`Unit::restore`]); one that loses or repeats a placeholder is done again piece
//! by piece ([`segment`]): the English runs between the kept spans, sentence by sentence,
//! each translated alone. Either way whatever is kept comes back exactly as it was sent.

/// A line or table cell's English, to translate whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit<'a> {
    /// The text as written.
    pub source: &'a str,
    /// The text with each kept span replaced by its placeholder.
    pub template: String,
    spans: Vec<&'a str>,
    /// False when the text itself holds something like a placeholder.
    restorable: bool,
}

impl Unit<'_> {
    /// The translation of [`Unit::template`] with the kept spans back in place; `None`
    /// when a placeholder did not come back exactly once.
    pub fn restore(&self, translated: &str) -> Option<String> {
        if !self.restorable {
            return None;
        }
        if self.spans.is_empty() {
            return Some(translated.to_owned());
        }
        let mut out = translated.to_owned();
        // Highest first, so `X1` is never taken for the start of `X12`.
        for (index, span) in self.spans.iter().enumerate().rev() {
            let token = placeholder(index);
            let at = token_positions(&out, &token);
            if at.len() != 1 {
                return None;
            }
            out.replace_range(at[0]..at[0] + token.len(), span);
        }
        Some(out)
    }
}

/// A part of a text: kept as is, or a unit to translate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    Keep(&'a str),
    Unit(Unit<'a>),
}

/// The parts of `text`, in order; the kept parts and the units' sources concatenated give
/// `text` back.
pub fn units(text: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    for part in structure(text) {
        match part {
            Structure::Keep(kept) => parts.push(Part::Keep(kept)),
            Structure::Words(body) => units_of_body(body, &mut parts),
        }
    }
    parts
}

/// A line's words after its block marker: a unit per table cell.
fn units_of_body<'a>(body: &'a str, parts: &mut Vec<Part<'a>>) {
    let mut cell_start = 0;
    let mut at = 0;
    while at < body.len() {
        let rest = &body[at..];
        if rest.starts_with("[[")
            && let Some(end) = rest.find("]]")
        {
            at += end + 2;
        } else if rest.starts_with('|') {
            unit_of_cell(&body[cell_start..at], parts);
            parts.push(Part::Keep(&body[at..at + 1]));
            at += 1;
            cell_start = at;
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    unit_of_cell(&body[cell_start..], parts);
}

/// One cell (or a line without a table): its surrounding spaces kept, the rest a unit
/// when it has English, kept otherwise.
fn unit_of_cell<'a>(cell: &'a str, parts: &mut Vec<Part<'a>>) {
    if cell.is_empty() {
        return;
    }
    let middle = cell.trim();
    let lead = &cell[..cell.len() - cell.trim_start().len()];
    let tail = &cell[lead.len() + middle.len()..];
    if !lead.is_empty() {
        parts.push(Part::Keep(lead));
    }
    if !middle.is_empty() {
        if has_english(middle) {
            parts.push(Part::Unit(unit(middle)));
        } else {
            parts.push(Part::Keep(middle));
        }
    }
    if !tail.is_empty() {
        parts.push(Part::Keep(tail));
    }
}

/// The unit of `text`: each link, Japanese run and code span replaced by a placeholder.
/// Text that already holds something like a placeholder gets none (so its translation is
/// always done piece by piece).
fn unit(text: &str) -> Unit<'_> {
    let mut template = String::with_capacity(text.len());
    let mut spans = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        match kept_span(rest) {
            Some(length) => {
                template.push_str(&placeholder(spans.len()));
                spans.push(&rest[..length]);
                at += length;
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                template.push(c);
                at += c.len_utf8();
            }
        }
    }
    let restorable = !text
        .as_bytes()
        .windows(2)
        .any(|pair| pair[0] == b'X' && pair[1].is_ascii_digit());
    Unit {
        source: text,
        template,
        spans,
        restorable,
    }
}

/// The span kept at the start of `rest`, if one starts there: a link, a run of Japanese,
/// an inline code span.
fn kept_span(rest: &str) -> Option<usize> {
    if rest.starts_with("[[") {
        return rest.find("]]").map(|end| end + 2);
    }
    if rest.starts_with('`') {
        return Some(code_span(rest));
    }
    let japanese = rest
        .char_indices()
        .find(|(_, c)| !is_japanese(*c))
        .map_or(rest.len(), |(end, _)| end);
    (japanese > 0).then_some(japanese)
}

fn placeholder(index: usize) -> String {
    format!("X{}", index + 1)
}

/// Where `token` stands on its own in `text` (not inside a longer word or number).
fn token_positions(text: &str, token: &str) -> Vec<usize> {
    text.match_indices(token)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + token.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
        .map(|(at, _)| at)
        .collect()
}

fn is_rule(line: &str) -> bool {
    line.chars()
        .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '*' | '_' | '='))
}

/// One piece of a text cut for translation piece by piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Sent back as is.
    Keep(&'a str),
    /// English to translate.
    Translate(&'a str),
}

/// The pieces of `text`, in order; concatenated they give `text` back.
pub fn segment(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    for part in structure(text) {
        match part {
            Structure::Keep(kept) => pieces.push(Piece::Keep(kept)),
            Structure::Words(body) => segment_inline(body, &mut pieces),
        }
    }
    pieces
}

/// The Markdown structure of a text, which both ways of cutting it keep whole.
enum Structure<'a> {
    /// Line breaks, block markers, table and horizontal rules.
    Keep(&'a str),
    /// The rest of a line.
    Words(&'a str),
}

fn structure(text: &str) -> Vec<Structure<'_>> {
    let mut parts = Vec::new();
    let mut line_start = 0;
    for (at, _) in text.match_indices('\n') {
        structure_of_line(&text[line_start..at], &mut parts);
        parts.push(Structure::Keep(&text[at..at + 1]));
        line_start = at + 1;
    }
    structure_of_line(&text[line_start..], &mut parts);
    parts
}

fn structure_of_line<'a>(line: &'a str, parts: &mut Vec<Structure<'a>>) {
    if line.is_empty() {
        return;
    }
    // A table rule (`|---|:--:|`) or a horizontal rule carries no words.
    if is_rule(line) {
        parts.push(Structure::Keep(line));
        return;
    }
    let marker = markdown_marker(line);
    if marker > 0 {
        parts.push(Structure::Keep(&line[..marker]));
    }
    parts.push(Structure::Words(&line[marker..]));
}

/// Whether any piece of `text` would be translated.
pub fn has_english(text: &str) -> bool {
    segment(text)
        .iter()
        .any(|piece| matches!(piece, Piece::Translate(_)))
}

/// Rebuilds a text from its pieces, each translated piece replaced by `translate`.
pub fn rebuild<'a>(pieces: &[Piece<'a>], mut translate: impl FnMut(&'a str) -> String) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Keep(text) => out.push_str(text),
            Piece::Translate(text) => out.push_str(&translate(text)),
        }
    }
    out
}

/// The length of a leading Markdown block marker: `## `, `- `, `* `, `1. `, `> `.
fn markdown_marker(line: &str) -> usize {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    if hashes > 0 && rest[hashes..].starts_with(' ') {
        return indent + hashes + 1;
    }
    for bullet in ["- ", "* ", "+ ", "> "] {
        if rest.starts_with(bullet) {
            return indent + bullet.len();
        }
    }
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && rest[digits..].starts_with(". ") {
        return indent + digits + 2;
    }
    indent
}

/// Splits a line at links, Japanese runs and table pipes; the English in between goes to
/// [`push_english`].
fn segment_inline<'a>(line: &'a str, pieces: &mut Vec<Piece<'a>>) {
    let mut english_start = 0;
    let mut at = 0;
    while at < line.len() {
        let rest = &line[at..];
        let kept = if rest.starts_with("[[") {
            rest.find("]]").map(|end| end + 2)
        } else {
            let japanese = rest
                .char_indices()
                .find(|(_, c)| !is_japanese(*c))
                .map_or(rest.len(), |(end, _)| end);
            if japanese > 0 {
                Some(japanese)
            } else if rest.starts_with(['|', '`', '*']) {
                Some(code_span(rest))
            } else {
                None
            }
        };
        match kept {
            Some(length) => {
                push_english(&line[english_start..at], pieces);
                pieces.push(Piece::Keep(&rest[..length]));
                at += length;
                english_start = at;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    push_english(&line[english_start..], pieces);
}

/// A pipe or an emphasis mark alone, or an inline code span up to its closing backtick
/// (kept whole: code is not prose).
fn code_span(rest: &str) -> usize {
    match rest.strip_prefix('`') {
        Some(code) => code.find('`').map_or(rest.len(), |end| end + 2),
        None => 1,
    }
}

/// A run between kept spans: its framing (spaces, brackets, emphasis, separators) is
/// kept, the words inside are split into sentences to translate.
fn push_english<'a>(run: &'a str, pieces: &mut Vec<Piece<'a>>) {
    if run.is_empty() {
        return;
    }
    let core = run.trim_start_matches(is_leading_frame);
    let lead = &run[..run.len() - core.len()];
    let core = core.trim_end_matches(is_trailing_frame);
    let tail = &run[lead.len() + core.len()..];
    if !lead.is_empty() {
        pieces.push(Piece::Keep(lead));
    }
    if !core.is_empty() {
        for sentence in sentences(core) {
            if latin_letters(sentence) >= 2 {
                pieces.push(Piece::Translate(sentence));
            } else {
                pieces.push(Piece::Keep(sentence));
            }
        }
    }
    if !tail.is_empty() {
        pieces.push(Piece::Keep(tail));
    }
}

fn is_leading_frame(c: char) -> bool {
    c.is_whitespace() || "([\"'*_>|,;:·–—-/+=→".contains(c)
}

fn is_trailing_frame(c: char) -> bool {
    c.is_whitespace() || ")]\"'*_|,;:·–—-/+=→(".contains(c)
}

/// Splits English prose after `.`, `!` or `?` followed by a space and a capital letter;
/// the spaces between sentences are kept pieces of their own.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let ends = matches!(bytes[at], b'.' | b'!' | b'?')
            && bytes.get(at + 1) == Some(&b' ')
            && bytes.get(at + 2).is_some_and(u8::is_ascii_uppercase)
            && !ends_with_abbreviation(&text[start..at]);
        if ends {
            out.push(&text[start..=at]);
            out.push(&text[at + 1..at + 2]);
            start = at + 2;
            at = start;
            continue;
        }
        at += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `e.g.`, `i.e.`, `Mt.`, `St.`, `approx.` and single initials do not end a sentence.
fn ends_with_abbreviation(before_dot: &str) -> bool {
    let word = before_dot
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    word.len() == 1
        || word.contains('.')
        || matches!(
            word,
            "Mt" | "St"
                | "Dr"
                | "Mr"
                | "Mrs"
                | "approx"
                | "esp"
                | "cf"
                | "vs"
                | "etc"
                | "no"
                | "No"
        )
}

fn latin_letters(text: &str) -> usize {
    text.chars().filter(char::is_ascii_alphabetic).count()
}

/// Kana, kanji and the punctuation and full-width forms written with them.
pub fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{303F}'   // CJK symbols and punctuation: 、。「」〜
        | '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}' // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF00}'..='\u{FFEF}' // full-width and half-width forms
        | '\u{20000}'..='\u{3134F}' // CJK extensions B to G
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translated(text: &str) -> Vec<&str> {
        segment(text)
            .into_iter()
            .filter_map(|piece| match piece {
                Piece::Translate(text) => Some(text),
                Piece::Keep(_) => None,
            })
            .collect()
    }

    fn round_trip(text: &str) -> String {
        rebuild(&segment(text), str::to_owned)
    }

    #[test]
    fn links_and_japanese_are_never_sent() {
        let text = "The Japanese word for history is [[vocab-1558050|歴史]], and the first \
                    history Japan wrote is 日本書紀.";
        assert_eq!(
            translated(text),
            [
                "The Japanese word for history is",
                "and the first history Japan wrote is"
            ]
        );
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn markdown_structure_is_kept() {
        let text = "## [[history-event-x|黄巾の乱]] (Yellow Turban Rebellion)\n\n| Name | Reading |\n|---|---|\n| [[a|卑弥呼]] | ひみこ | Queen of Wa |\n- *Ancient Japan* lessons";
        assert_eq!(
            translated(text),
            [
                "Yellow Turban Rebellion",
                "Name",
                "Reading",
                "Queen of Wa",
                "Ancient Japan",
                "lessons"
            ]
        );
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn prose_is_split_into_sentences() {
        let text = "In 239 Queen Himiko sent envoys. The court gave her a seal, e.g. a gold one. It survives!";
        assert_eq!(
            translated(text),
            [
                "In 239 Queen Himiko sent envoys.",
                "The court gave her a seal, e.g. a gold one.",
                "It survives!"
            ]
        );
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn text_without_words_is_kept_whole() {
        for text in [
            "早く起きる, 大きく書く. いい → よく.",
            "0592–0628",
            "〜く",
            "",
            "a",
        ] {
            assert!(translated(text).is_empty(), "{text}");
            assert_eq!(round_trip(text), text);
        }
    }

    fn restored(text: &str, translate: impl Fn(&str) -> String) -> String {
        units(text)
            .into_iter()
            .map(|part| match part {
                Part::Keep(kept) => kept.to_owned(),
                Part::Unit(unit) => unit
                    .restore(&translate(&unit.template))
                    .expect("restorable"),
            })
            .collect()
    }

    #[test]
    fn units_carry_placeholders_for_kept_spans() {
        let text = "## [[a|黄巾の乱]] (Yellow Turban Rebellion)\n| [[b|卑弥呼]] | ひみこ | Queen of Wa |\n|---|\nWhat does [[c|意味]] mean?";
        let templates: Vec<String> = units(text)
            .into_iter()
            .filter_map(|part| match part {
                Part::Unit(unit) => Some(unit.template),
                Part::Keep(_) => None,
            })
            .collect();
        assert_eq!(
            templates,
            [
                "X1 (Yellow Turban Rebellion)",
                "Queen of Wa",
                "What does X1 mean?"
            ]
        );
        assert_eq!(restored(text, str::to_owned), text);
        let moved = restored("What does [[c|意味]] mean?", |_| {
            "O que X1 significa?".to_owned()
        });
        assert_eq!(moved, "O que [[c|意味]] significa?");
    }

    #[test]
    fn a_lost_placeholder_is_not_restored() {
        let [Part::Unit(unit)] = &units("Read [[a|本]] and [[b|日]] aloud.")[..] else {
            panic!("one unit");
        };
        assert_eq!(unit.template, "Read X1 and X2 aloud.");
        assert_eq!(
            unit.restore("Leia X1 e X2 em voz alta."),
            Some("Leia [[a|本]] e [[b|日]] em voz alta.".into())
        );
        assert_eq!(unit.restore("Leia X1 em voz alta."), None);
        assert_eq!(unit.restore("Leia X1, X1 e X2."), None);
        assert_eq!(unit.restore("Leia X12 e X2."), None);
        let [Part::Unit(clash)] = &units("Model X1 and [[a|本]]")[..] else {
            panic!("one unit");
        };
        assert_eq!(clash.restore("Modelo X1 e X1"), None);
    }

    #[test]
    fn code_spans_are_kept() {
        let text = "Use `ために` or `for the sake of` here";
        assert_eq!(translated(text), ["Use", "or", "here"]);
        assert_eq!(round_trip(text), text);
    }
}
