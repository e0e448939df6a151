//! JMnedict as jamdict-data ships it: an xz-compressed SQLite database (`jamdict.db.xz`)
//! holding JMdict, KANJIDIC2 and JMnedict. Only the JMnedict tables are read: persons with
//! dates in their glosses, and places that are historical sites.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use rusqlite::{Connection, OpenFlags};

/// Where the compressed database sits inside the jamdict-data sdist.
pub const RELATIVE_PATH: &str = "jamdict_data-1.5/jamdict_data/jamdict.db.xz";

/// One JMnedict entry, with the glosses of its translations of the wanted name type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameEntry {
    pub seq: u32,
    pub kanji: Vec<String>,
    pub kana: Vec<String>,
    pub glosses: Vec<String>,
}

/// Persons whose glosses contain a digit (a date), and places whose glosses name a
/// castle, ruins, tumulus, grave, barrier, capital site, temple or shrine.
#[derive(Debug, Default)]
pub struct NameEntries {
    pub persons: Vec<NameEntry>,
    pub places: Vec<NameEntry>,
    /// Every entry of the name type `work` (titles of books, plays, prints …).
    pub works: Vec<NameEntry>,
}

/// A decompressed copy of the database that is removed when dropped.
struct TempDb(PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        // Removing a temporary file can only fail if it is already gone.
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Distinguishes the temporary files of builds running in one process (tests).
static TEMP_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

fn decompress(archive: &Path) -> anyhow::Result<TempDb> {
    let sequence = TEMP_SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let name = format!("manabi-jamdict-{}-{sequence}.db", std::process::id());
    let target = std::env::temp_dir().join(name);
    let input = File::open(archive).with_context(|| format!("opening {}", archive.display()))?;
    let mut decoder = xz2::read::XzDecoder::new(BufReader::with_capacity(1 << 20, input));
    let guard = TempDb(target.clone());
    let output = File::create(&target).with_context(|| format!("creating {}", target.display()))?;
    let mut writer = BufWriter::with_capacity(1 << 20, output);
    std::io::copy(&mut decoder, &mut writer).context("decompressing jamdict.db.xz")?;
    drop(writer);
    Ok(guard)
}

/// Reads the JMnedict persons and historical places from `jamdict.db.xz` (or from an
/// uncompressed SQLite file when the path does not end in `.xz`, as the test fixture is).
pub fn load(path: &Path) -> anyhow::Result<NameEntries> {
    let temporary = if path.extension().is_some_and(|e| e == "xz") {
        Some(decompress(path)?)
    } else {
        None
    };
    let db_path = temporary.as_ref().map(|t| t.0.as_path()).unwrap_or(path);
    let connection = Connection::open_with_flags(db_path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening {}", db_path.display()))?;
    let persons = query(&connection, "person", PERSON_FILTER)?;
    let places = query(&connection, "place", PLACE_FILTER)?;
    let works = query(&connection, "work", "1 = 1")?;
    Ok(NameEntries {
        persons,
        places,
        works,
    })
}

/// Translations with a gloss containing a digit (a date) or naming a period or era (an
/// undated person placed in one, `persons::undated_person`); all their glosses are read.
const PERSON_FILTER: &str = "t.ID IN (SELECT tid FROM NETransGloss WHERE text GLOB '*[0-9]*' \
    OR text LIKE '%period%' OR text LIKE '%era%')";

const PLACE_FILTER: &str = "(g.text LIKE '%Castle%' OR g.text LIKE '%Ruins%' \
    OR g.text LIKE '%Tumulus%' OR g.text LIKE '%(grave)%' OR g.text LIKE '%barrier%' \
    OR g.text LIKE '%Capital Site%' OR g.text LIKE '%Temple%' OR g.text LIKE '%Kofun%' OR g.text LIKE '%Shrine%')";

fn query(connection: &Connection, name_type: &str, filter: &str) -> anyhow::Result<Vec<NameEntry>> {
    let wanted = format!(
        "SELECT t.idseq, g.text FROM NETranslation t \
         JOIN NETransType ty ON ty.tid = t.ID AND ty.text = ?1 \
         JOIN NETransGloss g ON g.tid = t.ID WHERE {filter} ORDER BY t.idseq, g.rowid"
    );
    let mut entries: Vec<NameEntry> = Vec::new();
    let mut statement = connection.prepare(&wanted)?;
    let mut rows = statement.query([name_type])?;
    while let Some(row) = rows.next()? {
        let seq: u32 = row.get(0)?;
        let gloss: String = row.get(1)?;
        match entries.last_mut() {
            Some(last) if last.seq == seq => last.glosses.push(gloss),
            _ => entries.push(NameEntry {
                seq,
                glosses: vec![gloss],
                ..NameEntry::default()
            }),
        }
    }
    let index: HashMap<u32, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.seq, i))
        .collect();
    let subquery = wanted
        .replace("t.idseq, g.text", "t.idseq")
        .replace(" ORDER BY t.idseq, g.rowid", "");
    for (table, kanji) in [("NEKanji", true), ("NEKana", false)] {
        let sql =
            format!("SELECT idseq, text FROM {table} WHERE idseq IN ({subquery}) ORDER BY ID");
        let mut statement = connection.prepare(&sql)?;
        let mut rows = statement.query([name_type])?;
        while let Some(row) = rows.next()? {
            let seq: u32 = row.get(0)?;
            let text: String = row.get(1)?;
            if let Some(entry) = index.get(&seq).map(|i| &mut entries[*i]) {
                let forms = if kanji {
                    &mut entry.kanji
                } else {
                    &mut entry.kana
                };
                if !forms.contains(&text) {
                    forms.push(text);
                }
            }
        }
    }
    Ok(entries)
}
