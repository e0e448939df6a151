//! KRADFILE-u: `<kanji> : <component> <component> ...` per line, `#` comments.

use std::collections::BTreeMap;
use std::io::BufRead;

/// Components of every kanji in the file, in the file's order.
pub fn parse(input: impl BufRead) -> std::io::Result<BTreeMap<char, Vec<String>>> {
    let mut components = BTreeMap::new();
    for line in input.lines() {
        let line = line?;
        if line.starts_with('#') {
            continue;
        }
        let Some((kanji, parts)) = line.split_once(" : ") else {
            continue;
        };
        let mut chars = kanji.chars();
        if let (Some(literal), None) = (chars.next(), chars.next()) {
            let parts = parts.split_whitespace().map(str::to_string).collect();
            components.insert(literal, parts);
        }
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_components_and_skips_comments() {
        let text = "# KRADFILE\n休 : ⺅ 木\n語 : 一 言 口 五\n";
        let parsed = super::parse(text.as_bytes()).expect("parses");
        assert_eq!(parsed[&'休'], ["⺅", "木"]);
        assert_eq!(parsed[&'語'].len(), 4);
        assert_eq!(parsed.len(), 2);
    }
}
