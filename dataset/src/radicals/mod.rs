//! The 214 Kangxi radicals. The fixed table (character, strokes, variants, meaning,
//! Japanese names) is authored by the editors in `kangxi.tsv`; example kanji come from
//! KANJIDIC2's classical radical of each kanji, and stroke counts are cross-checked
//! against KanjiVG.

use std::collections::BTreeMap;

use manabi_schemas::kanji::RadicalDetail;
use manabi_schemas::{
    CrossCheck, Domain, Learnable, LearnableBody, LearnableType, Relation, Script, WritingForm,
};

use crate::context::{BuildContext, BuildInputs, BuiltLearnable, Part};
use crate::{editors, ids, kanjivg};

const TABLE: &str = include_str!("kangxi.tsv");
/// How many example kanji a radical lists.
const EXAMPLES_MAX: usize = 12;

/// One row of the authored table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RadicalRow {
    pub number: u8,
    pub character: String,
    pub strokes: u8,
    pub variants: Vec<String>,
    pub meaning: String,
    pub names: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("kangxi.tsv line {line}: {reason}")]
pub struct TableError {
    line: usize,
    reason: &'static str,
}

fn list(field: &str, separator: char) -> Vec<String> {
    field
        .split(separator)
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

fn parse_row(line: &str, number: usize) -> Result<RadicalRow, TableError> {
    let error = |reason| TableError {
        line: number,
        reason,
    };
    let fields: Vec<&str> = line.split('\t').collect();
    let [index, character, strokes, variants, meaning, names] = fields[..] else {
        return Err(error("expected six tab-separated fields"));
    };
    Ok(RadicalRow {
        number: index.parse().map_err(|_| error("bad radical number"))?,
        character: character.to_string(),
        strokes: strokes.parse().map_err(|_| error("bad stroke count"))?,
        variants: list(variants, ','),
        meaning: meaning.to_string(),
        names: list(names, ','),
    })
}

/// The 214 radicals in number order.
pub fn table() -> Result<Vec<RadicalRow>, TableError> {
    let rows: Vec<RadicalRow> = TABLE
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.starts_with('#') && !line.trim().is_empty())
        .map(|(index, line)| parse_row(line, index + 1))
        .collect::<Result<_, _>>()?;
    let numbered = rows
        .iter()
        .enumerate()
        .all(|(index, row)| usize::from(row.number) == index + 1);
    if rows.len() != 214 || !numbered {
        return Err(TableError {
            line: 0,
            reason: "expected radicals 1..=214 in order",
        });
    }
    Ok(rows)
}

/// Radical number of every radical character and variant form (the main character wins
/// where a form is shared, e.g. 月 is radical 74, not the 肉 variant).
pub fn number_by_form(rows: &[RadicalRow]) -> BTreeMap<String, u8> {
    let mut forms = BTreeMap::new();
    for row in rows {
        forms.insert(row.character.clone(), row.number);
    }
    for row in rows {
        for variant in &row.variants {
            forms.entry(variant.clone()).or_insert(row.number);
        }
    }
    forms
}

/// How a kanji ranks among its radical's examples, easiest first.
type Rank = (bool, u8, u8, u32, String);

/// Kanji of each radical, easiest first: jōyō kanji before the others (old forms such as
/// 盜 and 盡 come last), then by JLPT level (easiest first), school grade (kyōiku grades
/// 1–6 before the secondary-school 8: 皿 before 盗) and frequency.
fn examples_by_radical(inputs: &BuildInputs<'_>) -> BTreeMap<u8, Vec<String>> {
    let mut ranked: BTreeMap<u8, Vec<Rank>> = BTreeMap::new();
    for learnable in inputs.learnables() {
        let LearnableBody::Kanji(kanji) = &learnable.body else {
            continue;
        };
        let Some(number) = kanji.radical_number else {
            continue;
        };
        // A compatibility code point (虜 U+F936) is the same kanji as its unified form,
        // which the radical lists already: shown twice, it reads as two kanji.
        if kanji
            .literal
            .chars()
            .any(|c| ('\u{F900}'..='\u{FAFF}').contains(&c))
        {
            continue;
        }
        // N5 (level 5) first, N1 next to last, kanji without a level last.
        let difficulty = learnable.jlpt_level.map_or(5, |level| 5 - level.min(5));
        let frequency = kanji.frequency_rank.unwrap_or(u32::MAX);
        let joyo = kanji.list.as_deref() == Some("joyo");
        let grade = kanji.grade.unwrap_or(u8::MAX);
        let rank = (!joyo, difficulty, grade, frequency, kanji.literal.clone());
        ranked.entry(number).or_default().push(rank);
    }
    ranked
        .into_iter()
        .map(|(number, mut kanji)| {
            kanji.sort();
            (
                number,
                kanji
                    .into_iter()
                    .take(EXAMPLES_MAX)
                    .map(|(_, _, _, _, k)| k)
                    .collect(),
            )
        })
        .collect()
}

/// A radical's form is written as a kanji or a radical sign, except the variants that are
/// kana (ノ for 丿, ハ for 八), which are katakana.
fn form_script(text: &str) -> Script {
    if crate::vocabulary::text::is_kana(text) {
        crate::vocabulary::text::script_of(text)
    } else {
        Script::Kanji
    }
}

fn radical_learnable(
    ctx: &BuildContext,
    row: &RadicalRow,
    examples: Vec<String>,
) -> anyhow::Result<Learnable> {
    let forms = std::iter::once(&row.character)
        .chain(&row.variants)
        .map(|text| WritingForm {
            text: text.clone(),
            script: form_script(text),
        })
        .collect();
    let mut sources = vec![editors::cite(
        Some(format!("kangxi-{}", row.number)),
        &[
            "number",
            "character",
            "variants",
            "names",
            "meaning",
            "stroke_count",
        ],
    )];
    let mut cross_checks = Vec::new();
    let first = row.character.chars().next();
    let strokes = match first {
        Some(c) => kanjivg::strokes_of(&ctx.source_dir("kanjivg"), c)?,
        None => Vec::new(),
    };
    if !strokes.is_empty() {
        let pin = ctx.pin("kanjivg")?;
        let record = first.map(|c| format!("kanji/{:05x}.svg", c as u32));
        sources.push(pin.cite(record, &["stroke_count"]));
        cross_checks.push(CrossCheck {
            field: "stroke_count".to_string(),
            sources: vec![editors::EDITORS.to_string(), "kanjivg".to_string()],
            agree: strokes.len() == usize::from(row.strokes),
        });
    }
    if !examples.is_empty() {
        let pin = ctx.pin("kanjidic2")?;
        sources.push(pin.cite(None, &["example_kanji"]));
    }
    Ok(Learnable {
        id: ids::radical(row.number),
        kind: LearnableType::Radical,
        domain: Domain::Language,
        label: Some(row.character.clone()),
        jlpt_level: None,
        is_common_word: None,
        canonical_name: None,
        pattern: None,
        meaning: Some(row.meaning.clone()),
        writing_forms: forms,
        tags: vec![format!("strokes-{}", row.strokes)],
        body: LearnableBody::Radical(RadicalDetail {
            number: row.number,
            character: row.character.clone(),
            variants: row.variants.clone(),
            names: row.names.clone(),
            meaning: row.meaning.clone(),
            stroke_count: row.strokes,
            example_kanji: examples,
        }),
        sources,
        cross_checks,
    })
}

/// Builds the 214 radical entries; `inputs` must already hold the kanji.
pub fn build(ctx: &BuildContext, inputs: &BuildInputs<'_>) -> anyhow::Result<Part> {
    let rows = table()?;
    let mut examples = examples_by_radical(inputs);
    let mut part = Part::default();
    for row in &rows {
        let kanji = examples.remove(&row.number).unwrap_or_default();
        let learnable = radical_learnable(ctx, row, kanji)?;
        part.learnables.push(BuiltLearnable {
            learnable,
            sample: true,
        });
    }
    Ok(part)
}

/// The `has-radical` edge of a kanji and its `radical-of` reverse.
pub fn radical_relations(kanji_id: &str, number: u8) -> [Relation; 2] {
    let radical_id = ids::radical(number);
    [
        Relation {
            from: kanji_id.to_string(),
            to: radical_id.clone(),
            kind: "has-radical".to_string(),
            basis: "kanjidic2".to_string(),
        },
        Relation {
            from: radical_id,
            to: kanji_id.to_string(),
            kind: "radical-of".to_string(),
            basis: "kanjidic2".to_string(),
        },
    ]
}

/// `verify`: each radical's example kanji run from the easiest JLPT level to the hardest,
/// kanji without a level last.
pub fn check_example_order(artifact: &manabi_artifact::Artifact) -> Vec<String> {
    let difficulty: BTreeMap<&str, u8> = artifact
        .learnables
        .iter()
        .filter(|entry| entry.summary.kind == LearnableType::Kanji)
        .filter_map(|entry| {
            let label = entry.summary.label.as_deref()?;
            Some((label, entry.summary.jlpt_level.map_or(5, |l| 5 - l.min(5))))
        })
        .collect();
    let mut problems = Vec::new();
    for entry in &artifact.learnables {
        if entry.summary.kind != LearnableType::Radical {
            continue;
        }
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&entry.json) else {
            continue;
        };
        let examples = doc["radical"]["example_kanji"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let ranks: Vec<u8> = examples
            .iter()
            .filter_map(serde_json::Value::as_str)
            .map(|kanji| difficulty.get(kanji).copied().unwrap_or(5))
            .collect();
        if ranks.windows(2).any(|pair| pair[0] > pair[1]) {
            problems.push(format!(
                "radical {}: example kanji not ordered easiest level first",
                entry.summary.id
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_214_radicals_in_order() {
        let rows = table().expect("table parses");
        assert_eq!(rows.len(), 214);
        assert_eq!(rows[0].character, "一");
        assert_eq!(rows[84].variants, ["氵", "氺"]);
        assert_eq!(rows[213].strokes, 17);
    }

    #[test]
    fn forms_map_to_numbers_with_main_characters_first() {
        let forms = number_by_form(&table().expect("table parses"));
        assert_eq!(forms["月"], 74);
        assert_eq!(forms["氵"], 85);
        assert_eq!(forms["⺅"], 9);
    }
}
