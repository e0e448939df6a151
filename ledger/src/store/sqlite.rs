//! The SQLite backend: the embedded default. WAL, `synchronous=FULL` (a charge answered is
//! a charge on disk) and one writer connection, so the rowid order is the commit order.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Row, Sqlite, Transaction};
use uuid::Uuid;

use super::{
    AppendCommand, BatchPlan, BatchResult, EventStore, Position, RecordedEvent, Snapshot,
    StoreError, StreamName, decode_event,
};

const READER_CONNECTIONS_MAX: u32 = 4;
const BUSY_TIMEOUT_MS: u64 = 10_000;
/// Rows (or streams) per statement: 9 values a row stays far below SQLite's limit of
/// 32,766 bound values.
const ROWS_PER_STATEMENT_MAX: usize = 1_000;

/// How often the background task copies the WAL back into the database file.
const CHECKPOINT_EVERY_MS: u64 = 250;
/// The WAL file is cut back to this size whenever the writer starts it over (after a
/// checkpoint copied all of it), so a burst does not leave a huge file behind.
const WAL_BYTES_KEPT: &str = "67108864";
/// WAL frames after which the writer itself finishes a checkpoint so the WAL starts over.
const WAL_FRAMES_RESTART: i64 = 8_192;

/// The ledger on one SQLite file: a single writer connection, a few readers, and a
/// background checkpointer.
///
/// The writer does not checkpoint on every threshold crossing (`wal_autocheckpoint=0`):
/// an automatic checkpoint runs inside the commit that crosses the threshold and adds its
/// own fsync of the database file to that commit's latency, while every other charge
/// waits for the one writer. A task on its own connection checkpoints instead (PASSIVE:
/// it never blocks the writer), so its fsyncs overlap the writer's.
///
/// A passive checkpoint alone never lets the WAL start over under sustained writes: by
/// the time it has copied what it saw, the writer has appended more, and SQLite only
/// rewinds the WAL when a write begins with every frame copied. The WAL would grow
/// without bound (over a gigabyte in a 30 s benchmark), and every write would extend the
/// file instead of overwriting pages the kernel already holds. So when the background
/// checkpoint sees more than [`WAL_FRAMES_RESTART`] frames, the writer runs one RESTART
/// checkpoint before its next batch: it only copies what arrived since the background
/// pass, and the batch after it writes from the start of the WAL again. Durability is
/// unchanged either way: a commit is on disk when the WAL is synced.
///
/// The read models live in a file of their own beside the ledger
/// ([`read_models_path`]), with their own writer: the projector's transactions never
/// hold the lock the charges need, and since the read models are rebuilt from the ledger
/// they use `synchronous=NORMAL` (a power cut may drop their last commits, checkpoint
/// included, which the projector then simply does again).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    checkpointer: Arc<Checkpointer>,
    models_writer: SqlitePool,
    models_reader: SqlitePool,
}

/// Where the read models of the ledger file `ledger` live: `ledger.sqlite` →
/// `ledger.read-models.sqlite`, in the same directory.
pub fn read_models_path(ledger: &std::path::Path) -> std::path::PathBuf {
    let stem = ledger
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "ledger".to_owned());
    ledger.with_file_name(format!("{stem}.read-models.sqlite"))
}

/// The background checkpoint task, and its request to the writer. Stops the task when the
/// last clone of the store is dropped.
#[derive(Debug)]
struct Checkpointer {
    task: std::sync::OnceLock<tokio::task::JoinHandle<()>>,
    restart_due: AtomicBool,
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        if let Some(task) = self.task.get() {
            task.abort();
        }
    }
}

async fn checkpoint_forever(pool: SqlitePool, checkpointer: std::sync::Weak<Checkpointer>) {
    let mut tick = tokio::time::interval(Duration::from_millis(CHECKPOINT_EVERY_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let passive = sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&pool)
            .await;
        let Some(checkpointer) = checkpointer.upgrade() else {
            return;
        };
        match passive {
            Ok((_, wal_frames, _)) if wal_frames > WAL_FRAMES_RESTART => {
                checkpointer.restart_due.store(true, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "ledger WAL checkpoint failed"),
        }
    }
}

impl SqliteStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))
            // Statement journals and sorts stay in memory: a multi-row insert would
            // otherwise create, write and delete a temporary file every time.
            .pragma("temp_store", "MEMORY");
        if let Some(parent) = options.get_filename().parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(sqlx::Error::Io)?;
        }
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                options
                    .clone()
                    .pragma("wal_autocheckpoint", "0")
                    .pragma("journal_size_limit", WAL_BYTES_KEPT),
            )
            .await?;
        let mut migrator = sqlx::migrate!("./migrations/sqlite");
        // The projector keeps its own migrations in the same bookkeeping table.
        migrator.set_ignore_missing(true);
        migrator.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READER_CONNECTIONS_MAX)
            .connect_with(options.clone())
            .await?;
        let checkpoints = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        let models = options
            .clone()
            .filename(read_models_path(options.get_filename()))
            .synchronous(SqliteSynchronous::Normal);
        let models_writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(models.clone())
            .await?;
        let models_reader = SqlitePoolOptions::new()
            .max_connections(READER_CONNECTIONS_MAX)
            .connect_with(models)
            .await?;
        let checkpointer = Arc::new(Checkpointer {
            task: std::sync::OnceLock::new(),
            restart_due: AtomicBool::new(false),
        });
        let task = tokio::spawn(checkpoint_forever(
            checkpoints,
            Arc::downgrade(&checkpointer),
        ));
        let _ = checkpointer.task.set(task);
        Ok(SqliteStore {
            writer,
            reader,
            checkpointer,
            models_writer,
            models_reader,
        })
    }

    /// The ledger's one writer connection.
    pub fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    pub fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    /// The read models' one writer connection (the projector's).
    pub fn read_models_writer(&self) -> &SqlitePool {
        &self.models_writer
    }

    pub fn read_models_reader(&self) -> &SqlitePool {
        &self.models_reader
    }

    /// Finishes the checkpoint the background task asked for, so the WAL starts over.
    async fn restart_wal_if_due(&self) -> Result<(), StoreError> {
        if self.checkpointer.restart_due.swap(false, Ordering::Relaxed) {
            sqlx::query("PRAGMA wal_checkpoint(RESTART)")
                .execute(&self.writer)
                .await?;
        }
        Ok(())
    }
}

const EVENT_COLUMNS: &str = "global_position, id, stream, version, event_type, \
     schema_version, payload, metadata, recorded_at";

fn event_from_row(row: &SqliteRow) -> Result<RecordedEvent, StoreError> {
    let id: String = row.try_get(1)?;
    let id = Uuid::parse_str(&id).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    let event_type: String = row.try_get(4)?;
    let payload: String = row.try_get(6)?;
    let metadata: String = row.try_get(7)?;
    let recorded_at: DateTime<Utc> = row.try_get(8)?;
    decode_event(
        id,
        row.try_get(2)?,
        row.try_get(3)?,
        Position {
            transaction_id: 0,
            global_position: row.try_get(0)?,
        },
        &event_type,
        row.try_get(5)?,
        serde_json::from_str(&payload)?,
        serde_json::from_str(&metadata)?,
        recorded_at,
    )
}

/// The head version of every stream the batch writes to, in one query per
/// [`ROWS_PER_STATEMENT_MAX`] streams. One `MAX(version)` subquery per stream: SQLite
/// answers each from the end of the `(stream, version)` index, where a `GROUP BY` over
/// the streams would scan every version of each.
async fn stream_heads(
    tx: &mut Transaction<'_, Sqlite>,
    commands: &[AppendCommand],
) -> Result<HashMap<StreamName, Option<i64>>, StoreError> {
    let mut names: Vec<&StreamName> = commands.iter().flat_map(AppendCommand::streams).collect();
    names.sort();
    names.dedup();
    let mut heads = HashMap::with_capacity(names.len());
    for chunk in names.chunks(ROWS_PER_STATEMENT_MAX) {
        let sql = format!(
            "WITH wanted (stream) AS (VALUES {}) SELECT wanted.stream, \
             (SELECT MAX(version) FROM events WHERE events.stream = wanted.stream) FROM wanted",
            vec!["(?)"; chunk.len()].join(", ")
        );
        let mut query = sqlx::query_as::<_, (String, Option<i64>)>(&sql);
        for name in chunk {
            query = query.bind(name.as_str());
        }
        for (stream, head) in query.fetch_all(&mut **tx).await? {
            heads.insert(StreamName(stream), head);
        }
    }
    Ok(heads)
}

async fn used_idempotency_keys(
    tx: &mut Transaction<'_, Sqlite>,
    commands: &[AppendCommand],
) -> Result<HashMap<String, RecordedEvent>, StoreError> {
    let mut used = HashMap::new();
    for key in commands.iter().flat_map(AppendCommand::idempotency_keys) {
        let sql = format!("SELECT {EVENT_COLUMNS} FROM events WHERE idempotency_key = ?");
        if let Some(row) = sqlx::query(&sql)
            .bind(key)
            .fetch_optional(&mut **tx)
            .await?
        {
            used.insert(key.to_owned(), event_from_row(&row)?);
        }
    }
    Ok(used)
}

/// Inserts the planned rows, [`ROWS_PER_STATEMENT_MAX`] per statement.
async fn insert_rows(
    tx: &mut Transaction<'_, Sqlite>,
    plan: &BatchPlan<'_>,
) -> Result<(), StoreError> {
    for chunk in plan.rows.chunks(ROWS_PER_STATEMENT_MAX) {
        let sql = format!(
            "INSERT INTO events (id, stream, version, event_type, schema_version, payload, \
             metadata, idempotency_key, recorded_at) VALUES {}",
            vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ")
        );
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(row.event.id.to_string())
                .bind(row.stream.as_str())
                .bind(row.version)
                .bind(row.event.event.event_type())
                .bind(row.event.event.schema_version())
                .bind(row.event.event.payload().to_string())
                .bind(serde_json::to_string(&row.event.metadata)?)
                .bind(row.event.event.idempotency_key())
                .bind(row.event.recorded_at);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

impl EventStore for SqliteStore {
    async fn append_batch(&self, commands: Vec<AppendCommand>) -> Result<BatchResult, StoreError> {
        // IMMEDIATE takes the write lock up front: other processes (the admin CLI) may
        // write to the same file, and a read-then-write upgrade could fail mid-batch.
        self.restart_wal_if_due().await?;
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        let heads = stream_heads(&mut tx, &commands).await?;
        let used = used_idempotency_keys(&mut tx, &commands).await?;
        let plan = BatchPlan::build(&commands, heads, &used);
        if !plan.rows.is_empty() {
            insert_rows(&mut tx, &plan).await?;
        }
        tx.commit().await?;
        Ok(plan.results)
    }

    async fn read_stream(
        &self,
        stream: &StreamName,
        from_version: i64,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE stream = ? AND version >= ? \
             ORDER BY version LIMIT ?"
        );
        let rows = sqlx::query(&sql)
            .bind(stream.as_str())
            .bind(from_version)
            .bind(i64::from(limit))
            .fetch_all(&self.reader)
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn read_all_after(
        &self,
        after: Position,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE global_position > ? \
             ORDER BY global_position LIMIT ?"
        );
        let rows = sqlx::query(&sql)
            .bind(after.global_position)
            .bind(i64::from(limit))
            .fetch_all(&self.reader)
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn load_snapshot(&self, stream: &StreamName) -> Result<Option<Snapshot>, StoreError> {
        let row = sqlx::query("SELECT version, format, state FROM snapshots WHERE stream = ?")
            .bind(stream.as_str())
            .fetch_optional(&self.reader)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let state: String = row.try_get(2)?;
        Ok(Some(Snapshot {
            version: row.try_get(0)?,
            format: row.try_get(1)?,
            state: serde_json::from_str(&state)?,
        }))
    }

    async fn save_snapshot(
        &self,
        stream: &StreamName,
        snapshot: &Snapshot,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO snapshots (stream, version, format, state) VALUES (?, ?, ?, ?) \
             ON CONFLICT (stream) DO UPDATE SET version = excluded.version, \
             format = excluded.format, state = excluded.state \
             WHERE excluded.version > snapshots.version OR excluded.format <> snapshots.format",
        )
        .bind(stream.as_str())
        .bind(snapshot.version)
        .bind(snapshot.format)
        .bind(snapshot.state.to_string())
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    async fn find_key_stream(&self, key_id: Uuid) -> Result<Option<StreamName>, StoreError> {
        let stream: Option<String> = sqlx::query_scalar(
            "SELECT stream FROM events WHERE event_type = 'ApiKeyIssued' \
             AND json_extract(payload, '$.key_id') = ? LIMIT 1",
        )
        .bind(key_id.to_string())
        .fetch_optional(&self.reader)
        .await?;
        Ok(stream.map(StreamName))
    }
}
