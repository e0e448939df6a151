//! Splits a text into the pieces a translator may see and the pieces it must never touch.
//!
//! Kept byte for byte: every link `[[id|text]]`, every run of Japanese script (kana,
//! kanji, Japanese punctuation and full-width forms), Markdown structure (heading and list
//! markers, table pipes and rule lines, emphasis marks) and the whitespace and brackets
//! around them. What is left are runs of English, split into sentences; only those with
//! at least two Latin letters are translated. The text is rebuilt from its pieces, so
//! whatever is kept comes back exactly as it was sent.

/// One piece of a text.
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
    let mut line_start = 0;
    for (at, _) in text.match_indices('\n') {
        segment_line(&text[line_start..at], &mut pieces);
        pieces.push(Piece::Keep(&text[at..at + 1]));
        line_start = at + 1;
    }
    segment_line(&text[line_start..], &mut pieces);
    pieces
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

fn segment_line<'a>(line: &'a str, pieces: &mut Vec<Piece<'a>>) {
    if line.is_empty() {
        return;
    }
    // A table rule (`|---|:--:|`) or a horizontal rule carries no words.
    if line
        .chars()
        .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '*' | '_' | '='))
    {
        pieces.push(Piece::Keep(line));
        return;
    }
    let marker = markdown_marker(line);
    if marker > 0 {
        pieces.push(Piece::Keep(&line[..marker]));
    }
    segment_inline(&line[marker..], pieces);
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

    #[test]
    fn code_spans_are_kept() {
        let text = "Use `ために` or `for the sake of` here";
        assert_eq!(translated(text), ["Use", "or", "here"]);
        assert_eq!(round_trip(text), text);
    }
}
