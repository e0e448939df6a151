//! The SQLite backend: the embedded default. WAL, `synchronous=FULL` (a charge answered is
//! a charge on disk) and one writer connection, so the rowid order is the commit order.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
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

/// The ledger on one SQLite file: a single writer connection, a few readers, and a
/// background checkpointer.
///
/// The writer does not checkpoint (`wal_autocheckpoint=0`): an automatic checkpoint runs
/// inside the commit that crosses the threshold and adds its own fsync of the database
/// file to that commit's latency, while every other charge waits for the one writer. A
/// task on its own connection checkpoints instead (PASSIVE: it never blocks the writer),
/// so its fsyncs overlap the writer's. Durability is unchanged: a commit is on disk when
/// the WAL is synced, whoever copies it back later.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    _checkpointer: Arc<Checkpointer>,
}

/// Stops the checkpoint task when the last clone of the store is dropped.
#[derive(Debug)]
struct Checkpointer(tokio::task::JoinHandle<()>);

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn checkpoint_forever(pool: SqlitePool) {
    let mut tick = tokio::time::interval(Duration::from_millis(CHECKPOINT_EVERY_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let passive = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await;
        if let Err(error) = passive {
            tracing::warn!(%error, "ledger WAL checkpoint failed");
        }
    }
}

impl SqliteStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS));
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
            .connect_with(options)
            .await?;
        let checkpointer = Checkpointer(tokio::spawn(checkpoint_forever(checkpoints)));
        Ok(SqliteStore {
            writer,
            reader,
            _checkpointer: Arc::new(checkpointer),
        })
    }

    /// The one writer connection; the projector writes its read models through it too.
    pub fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    pub fn reader(&self) -> &SqlitePool {
        &self.reader
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
