//! The 20 worlds, read from `content/worlds.toml`, and the rules that file each learnable
//! under exactly one of them.

use std::path::{Path, PathBuf};

use manabi_schemas::lesson::{JlptRange, World};
use manabi_schemas::{Domain, Learnable, LearnableBody, LearnableType};
use serde::Deserialize;

use super::items;

/// The number of worlds the product promises.
pub const WORLDS_COUNT: usize = 20;

/// Where the hand-written worlds live.
pub fn worlds_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("content/worlds.toml")
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldsFile {
    world: Vec<WorldSpec>,
}

/// One world as written in the content file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    pub slug: String,
    pub title: String,
    pub description: String,
    pub domains: Vec<Domain>,
    pub introduction: String,
    pub select: Select,
}

/// Which learnables a world takes. An entry must be of one of `types`; when `gloss`,
/// `tags` or `registers` are given it must match at least one of them; `years` bounds
/// the start year of history entities. Worlds with `rest` take what no other world took.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Select {
    pub types: Vec<String>,
    #[serde(default)]
    pub gloss: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub registers: Vec<String>,
    #[serde(default)]
    pub years: Option<[i32; 2]>,
    #[serde(default)]
    pub rest: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WorldsError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("parsing {path}: {source}")]
    Parse {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("{found} worlds are written, {WORLDS_COUNT} are expected")]
    Count { found: usize },
    #[error("world {0}: the slug must be lowercase ASCII words joined by hyphens")]
    Slug(String),
}

impl WorldSpec {
    pub fn id(&self) -> String {
        format!("world-{}", self.slug)
    }

    fn check(&self) -> Result<(), WorldsError> {
        let slug_ok = !self.slug.is_empty()
            && self.slug.split('-').all(|word| {
                !word.is_empty()
                    && word
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if !slug_ok {
            return Err(WorldsError::Slug(self.slug.clone()));
        }
        Ok(())
    }

    /// True when the entry matches this world's rules (ignoring `rest`).
    pub fn selects(&self, learnable: &Learnable) -> bool {
        let select = &self.select;
        if !select.types.iter().any(|t| type_matches(t, learnable.kind)) {
            return false;
        }
        if let (Some([from, to]), LearnableBody::History(detail)) = (select.years, &learnable.body)
        {
            let Some(year) = items::placed_year(detail) else {
                return false;
            };
            if year < from || year >= to {
                return false;
            }
        }
        let filtered =
            !select.gloss.is_empty() || !select.tags.is_empty() || !select.registers.is_empty();
        !filtered || self.gloss_matches(learnable) || self.tag_matches(learnable)
    }

    fn gloss_matches(&self, learnable: &Learnable) -> bool {
        let meaning = items::meaning(learnable).to_lowercase();
        let words: Vec<&str> = meaning
            .split(|c: char| !c.is_ascii_alphanumeric())
            .collect();
        self.select.gloss.iter().any(|keyword| {
            let plural = format!("{keyword}s");
            words.iter().any(|w| *w == keyword || *w == plural)
        })
    }

    fn tag_matches(&self, learnable: &Learnable) -> bool {
        let has = |tag: &str| learnable.tags.iter().any(|t| t == tag);
        self.select.tags.iter().any(|t| has(t))
            || self
                .select
                .registers
                .iter()
                .any(|r| has(&format!("register-{r}")))
    }

    /// The selection rules as tags, e.g. `vocabulary:gloss:rice`, `grammar:register:humble`.
    pub fn tags(&self) -> Vec<String> {
        let select = &self.select;
        let mut tags = Vec::new();
        for kind in &select.types {
            if select.rest {
                tags.push(format!("{kind}:rest"));
            }
            if select.gloss.is_empty() && select.tags.is_empty() && select.registers.is_empty() {
                tags.push(format!("{kind}:all"));
            }
            tags.extend(select.gloss.iter().map(|g| format!("{kind}:gloss:{g}")));
            tags.extend(select.tags.iter().map(|t| format!("{kind}:tag:{t}")));
            tags.extend(
                select
                    .registers
                    .iter()
                    .map(|r| format!("{kind}:register:{r}")),
            );
            if let Some([from, to]) = select.years {
                tags.push(format!("{kind}:years:{from}..{to}"));
            }
        }
        tags
    }

    /// The world document; `range` is the span of levels its lessons actually cover.
    pub fn document(&self, lesson_count: usize, range: JlptRange) -> World {
        World {
            id: self.id(),
            title: self.title.clone(),
            description: self.description.clone(),
            jlpt_range: range,
            domains: self.domains.clone(),
            tags: self.tags(),
            introduction: self.introduction.trim().to_string(),
            lesson_count,
        }
    }
}

/// `history` stands for every history type; other names are learnable types.
fn type_matches(name: &str, kind: LearnableType) -> bool {
    if name == "history" {
        kind.domain() == Domain::History
    } else {
        kind.as_str() == name
    }
}

/// Reads and checks the worlds file.
pub fn load(path: &Path) -> Result<Vec<WorldSpec>, WorldsError> {
    let text = std::fs::read_to_string(path).map_err(|source| WorldsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

pub fn parse(text: &str, path: &Path) -> Result<Vec<WorldSpec>, WorldsError> {
    let file: WorldsFile = toml::from_str(text).map_err(|source| WorldsError::Parse {
        path: path.to_path_buf(),
        source: Box::new(source),
    })?;
    for world in &file.world {
        world.check()?;
    }
    Ok(file.world)
}

/// Checks that exactly [`WORLDS_COUNT`] worlds are written.
pub fn check_count(worlds: &[WorldSpec]) -> Result<(), WorldsError> {
    if worlds.len() == WORLDS_COUNT {
        Ok(())
    } else {
        Err(WorldsError::Count {
            found: worlds.len(),
        })
    }
}

/// The index of the world an entry is filed under: the first specific world in file
/// order that selects it, else the first `rest` world of its type.
pub fn assign(worlds: &[WorldSpec], learnable: &Learnable) -> Option<usize> {
    let specific = worlds
        .iter()
        .position(|w| !w.select.rest && w.selects(learnable));
    specific.or_else(|| {
        worlds
            .iter()
            .position(|w| w.select.rest && w.selects(learnable))
    })
}
