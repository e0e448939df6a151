//! KRADFILE-u: `<kanji> : <component> <component> ...` per line, `#` comments.

use std::collections::BTreeMap;
use std::io::BufRead;

/// Kanji KRADFILE-u still writes for a component no character encoded when the file was
/// made (the file's documentation lists them): 并 for the 丷 of 並 and 慈, 滴 for the 啇
/// of 敵 and 嫡. A learner reading 敵's parts would look for 氵 that is not there.
const STAND_INS: [(&str, &str); 2] = [("并", "丷"), ("滴", "啇")];

/// Components of every kanji in the file, in the file's order, stand-ins replaced by
/// the component they stand for.
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
            let parts = parts
                .split_whitespace()
                .map(|part| {
                    STAND_INS
                        .iter()
                        .find(|(stand_in, _)| *stand_in == part)
                        .map_or(part, |(_, component)| component)
                        .to_string()
                })
                .collect();
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

    #[test]
    fn stand_ins_read_as_the_component_they_stand_for() {
        let parsed = super::parse("敵 : 滴 攵\n並 : 并 一\n".as_bytes()).expect("parses");
        assert_eq!(parsed[&'敵'], ["啇", "攵"]);
        assert_eq!(parsed[&'並'], ["丷", "一"]);
    }
}
