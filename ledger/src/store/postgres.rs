//! The PostgreSQL backend: production. `synchronous_commit=on`; writers of one stream
//! serialise on its `streams` row; the global order is `(transaction_id, global_position)`
//! read only below the oldest running transaction, so no reader skips a late commit.

use std::collections::HashMap;
use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{Postgres, Row, Transaction};
use uuid::Uuid;

use super::{
    AppendCommand, BatchPlan, BatchResult, EventStore, ExpectedVersion, Position, RecordedEvent,
    Snapshot, StoreError, StreamName, decode_event,
};

const POOL_CONNECTIONS_MAX: u32 = 8;
/// A batch that lost a deadlock or a unique-key race is retried whole: nothing of it
/// was written.
const BATCH_ATTEMPTS_MAX: u32 = 5;
/// How long a statement waits for a pooled connection before it fails: while the
/// database is unreachable, callers hear so in seconds rather than hanging.
const POOL_ACQUIRE_TIMEOUT_MS: u64 = 5_000;

/// The ledger on a PostgreSQL database (the schema is the connection's `search_path`).
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url)?.options([("synchronous_commit", "on")]);
        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS_MAX)
            .acquire_timeout(std::time::Duration::from_millis(POOL_ACQUIRE_TIMEOUT_MS))
            .connect_with(options)
            .await?;
        let mut migrator = sqlx::migrate!("./migrations/postgres");
        // The projector keeps its own migrations in the same bookkeeping table.
        migrator.set_ignore_missing(true);
        migrator.run(&pool).await?;
        Ok(PgStore { pool })
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The common batch in one round trip: when every command is an `Exact` append
    /// without idempotency keys (a batch of charges) and the commands chain on each
    /// stream, the plan is made on the heads the writer expects, and ONE statement —
    /// its own transaction — locks those streams, checks their heads and, only if every
    /// head is as expected, inserts the rows and moves the heads. Returns None when the
    /// batch is not of that kind or a head was elsewhere; nothing was written then, and
    /// the caller takes the general path, which plans on the heads it reads.
    async fn try_append_as_expected(
        &self,
        commands: &[AppendCommand],
    ) -> Result<Option<BatchResult>, StoreError> {
        let Some(expected_heads) = expected_heads(commands) else {
            return Ok(None);
        };
        let plan = BatchPlan::build(commands, expected_heads.clone(), &HashMap::new());
        if plan.rows.is_empty() || plan.results.iter().any(Result::is_err) {
            return Ok(None);
        }
        let (streams, heads): (Vec<&str>, Vec<i64>) = expected_heads
            .iter()
            .filter_map(|(stream, head)| Some((stream.as_str(), (*head)?)))
            .unzip();
        let rows = EventRows::of(&plan)?;
        let written: bool = sqlx::query_scalar(
            "WITH expected AS ( \
               SELECT * FROM UNNEST($10::text[], $11::int8[]) AS e(stream, version)), \
             locked AS ( \
               SELECT stream, version FROM streams WHERE stream = ANY($10) \
               ORDER BY stream FOR UPDATE), \
             verdict AS ( \
               SELECT count(*) = cardinality($10::text[]) AS as_expected \
               FROM expected JOIN locked USING (stream, version)), \
             heads AS ( \
               UPDATE streams SET version = h.version \
               FROM UNNEST($12::text[], $13::int8[]) AS h(stream, version) \
               WHERE streams.stream = h.stream AND (SELECT as_expected FROM verdict)), \
             inserted AS ( \
               INSERT INTO events (id, stream, version, event_type, schema_version, payload, \
               metadata, idempotency_key, recorded_at) \
               SELECT id, stream, version, event_type, schema_version, payload::jsonb, \
               metadata::jsonb, idempotency_key, recorded_at \
               FROM UNNEST($1::uuid[], $2::text[], $3::int8[], $4::text[], $5::int4[], \
               $6::text[], $7::text[], $8::text[], $9::timestamptz[]) \
               AS u(id, stream, version, event_type, schema_version, payload, metadata, \
               idempotency_key, recorded_at) \
               WHERE (SELECT as_expected FROM verdict)) \
             SELECT as_expected FROM verdict",
        )
        .bind(rows.ids)
        .bind(rows.streams)
        .bind(rows.versions)
        .bind(rows.types)
        .bind(rows.schema_versions)
        .bind(rows.payloads)
        .bind(rows.metadata)
        .bind(rows.keys)
        .bind(rows.recorded)
        .bind(streams)
        .bind(heads)
        .bind(rows.head_streams)
        .bind(rows.head_versions)
        .fetch_one(&self.pool)
        .await?;
        Ok(written.then_some(plan.results))
    }

    async fn try_append_batch(
        &self,
        commands: &[AppendCommand],
    ) -> Result<BatchResult, StoreError> {
        if let Some(results) = self.try_append_as_expected(commands).await? {
            return Ok(results);
        }
        let mut tx = self.pool.begin().await?;
        let heads = lock_stream_heads(&mut tx, commands).await?;
        let used = used_idempotency_keys(&mut tx, commands).await?;
        let plan = BatchPlan::build(commands, heads, &used);
        if !plan.rows.is_empty() {
            insert_rows(&mut tx, &plan).await?;
        }
        tx.commit().await?;
        Ok(plan.results)
    }
}

const EVENT_COLUMNS: &str = "global_position, transaction_id::text::int8, id, stream, \
     version, event_type, schema_version, payload, metadata, recorded_at";

fn event_from_row(row: &PgRow) -> Result<RecordedEvent, StoreError> {
    let event_type: String = row.try_get(5)?;
    decode_event(
        row.try_get(2)?,
        row.try_get(3)?,
        row.try_get(4)?,
        Position {
            transaction_id: row.try_get(1)?,
            global_position: row.try_get(0)?,
        },
        &event_type,
        row.try_get(6)?,
        row.try_get(7)?,
        row.try_get(8)?,
        row.try_get(9)?,
    )
}

fn is_retryable(error: &StoreError) -> bool {
    let StoreError::Database(sqlx::Error::Database(db)) = error else {
        return false;
    };
    // deadlock, serialization failure, unique violation (a concurrent idempotency key).
    matches!(db.code().as_deref(), Some("40P01" | "40001" | "23505"))
}

/// Creates missing stream rows and locks every stream of the batch, in name order so
/// two batches never wait on each other in a cycle.
///
/// A stream expected at `Exact(n)` already has its row (the row is written in the
/// transaction of the stream's first event), so only streams expected at `NoStream` or
/// `Any` may need one: a batch of charges skips that statement and its round trip. Were
/// the row missing anyway, the stream would read as having no head and the command would
/// be rejected, never written.
async fn lock_stream_heads(
    tx: &mut Transaction<'_, Postgres>,
    commands: &[AppendCommand],
) -> Result<HashMap<StreamName, Option<i64>>, StoreError> {
    let mut names: Vec<String> = Vec::new();
    let mut maybe_new: Vec<String> = Vec::new();
    for append in commands.iter().flat_map(|command| &command.appends) {
        names.push(append.stream.as_str().to_owned());
        if !matches!(append.expected, ExpectedVersion::Exact(_)) {
            maybe_new.push(append.stream.as_str().to_owned());
        }
    }
    names.sort();
    names.dedup();
    if !maybe_new.is_empty() {
        maybe_new.sort();
        maybe_new.dedup();
        sqlx::query(
            "INSERT INTO streams (stream, version) SELECT s, -1 FROM UNNEST($1::text[]) AS s \
             ON CONFLICT (stream) DO NOTHING",
        )
        .bind(&maybe_new)
        .execute(&mut **tx)
        .await?;
    }
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT stream, version FROM streams WHERE stream = ANY($1) ORDER BY stream FOR UPDATE",
    )
    .bind(&names)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(stream, version)| (StreamName(stream), (version >= 0).then_some(version)))
        .collect())
}

async fn used_idempotency_keys(
    tx: &mut Transaction<'_, Postgres>,
    commands: &[AppendCommand],
) -> Result<HashMap<String, RecordedEvent>, StoreError> {
    let keys: Vec<&str> = commands
        .iter()
        .flat_map(AppendCommand::idempotency_keys)
        .collect();
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let sql = format!(
        "SELECT {EVENT_COLUMNS}, idempotency_key FROM events WHERE idempotency_key = ANY($1)"
    );
    let rows = sqlx::query(&sql).bind(&keys).fetch_all(&mut **tx).await?;
    let mut used = HashMap::new();
    for row in rows {
        let key: String = row.try_get(10)?;
        used.insert(key, event_from_row(&row)?);
    }
    Ok(used)
}

/// The planned rows as one array per column, and the stream heads after them.
struct EventRows<'a> {
    ids: Vec<Uuid>,
    streams: Vec<&'a str>,
    versions: Vec<i64>,
    types: Vec<&'static str>,
    schema_versions: Vec<i32>,
    payloads: Vec<String>,
    metadata: Vec<String>,
    keys: Vec<Option<&'a str>>,
    recorded: Vec<chrono::DateTime<chrono::Utc>>,
    head_streams: Vec<String>,
    head_versions: Vec<i64>,
}

impl<'a> EventRows<'a> {
    fn of(plan: &BatchPlan<'a>) -> Result<Self, StoreError> {
        let rows = &plan.rows;
        let (head_streams, head_versions) = plan
            .written_heads()
            .into_iter()
            .map(|(stream, version)| (stream.0, version))
            .unzip();
        Ok(EventRows {
            ids: rows.iter().map(|r| r.event.id).collect(),
            streams: rows.iter().map(|r| r.stream.as_str()).collect(),
            versions: rows.iter().map(|r| r.version).collect(),
            types: rows.iter().map(|r| r.event.event.event_type()).collect(),
            schema_versions: rows
                .iter()
                .map(|r| r.event.event.schema_version())
                .collect(),
            payloads: rows
                .iter()
                .map(|r| r.event.event.payload().to_string())
                .collect(),
            metadata: rows
                .iter()
                .map(|r| serde_json::to_string(&r.event.metadata))
                .collect::<Result<_, _>>()?,
            keys: rows
                .iter()
                .map(|r| r.event.event.idempotency_key())
                .collect(),
            recorded: rows.iter().map(|r| r.event.recorded_at).collect(),
            head_streams,
            head_versions,
        })
    }
}

/// The head each stream of the batch must have for every command to go in, when all
/// commands are `Exact` appends without idempotency keys; None otherwise.
fn expected_heads(commands: &[AppendCommand]) -> Option<HashMap<StreamName, Option<i64>>> {
    let mut heads = HashMap::new();
    for command in commands {
        if command.idempotency_keys().next().is_some() {
            return None;
        }
        for append in &command.appends {
            let ExpectedVersion::Exact(version) = append.expected else {
                return None;
            };
            heads.entry(append.stream.clone()).or_insert(Some(version));
        }
    }
    Some(heads)
}

/// Inserts the planned rows and moves the stream heads, in one statement (one round
/// trip): the heads update is a data-modifying CTE of the insert.
async fn insert_rows(
    tx: &mut Transaction<'_, Postgres>,
    plan: &BatchPlan<'_>,
) -> Result<(), StoreError> {
    let rows = EventRows::of(plan)?;
    sqlx::query(
        "WITH heads AS (UPDATE streams SET version = h.version \
         FROM UNNEST($10::text[], $11::int8[]) AS h(stream, version) \
         WHERE streams.stream = h.stream) \
         INSERT INTO events (id, stream, version, event_type, schema_version, payload, \
         metadata, idempotency_key, recorded_at) \
         SELECT id, stream, version, event_type, schema_version, payload::jsonb, \
         metadata::jsonb, idempotency_key, recorded_at \
         FROM UNNEST($1::uuid[], $2::text[], $3::int8[], $4::text[], $5::int4[], $6::text[], \
         $7::text[], $8::text[], $9::timestamptz[]) \
         AS u(id, stream, version, event_type, schema_version, payload, metadata, \
         idempotency_key, recorded_at)",
    )
    .bind(rows.ids)
    .bind(rows.streams)
    .bind(rows.versions)
    .bind(rows.types)
    .bind(rows.schema_versions)
    .bind(rows.payloads)
    .bind(rows.metadata)
    .bind(rows.keys)
    .bind(rows.recorded)
    .bind(rows.head_streams)
    .bind(rows.head_versions)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl EventStore for PgStore {
    async fn append_batch(&self, commands: Vec<AppendCommand>) -> Result<BatchResult, StoreError> {
        let mut attempt = 1;
        loop {
            match self.try_append_batch(&commands).await {
                Err(error) if attempt < BATCH_ATTEMPTS_MAX && is_retryable(&error) => {
                    tracing::debug!(%error, attempt, "retrying ledger batch");
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    async fn read_stream(
        &self,
        stream: &StreamName,
        from_version: i64,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE stream = $1 AND version >= $2 \
             ORDER BY version LIMIT $3"
        );
        let rows = sqlx::query(&sql)
            .bind(stream.as_str())
            .bind(from_version)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn read_all_after(
        &self,
        after: Position,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events \
             WHERE (transaction_id, global_position) > ($1::int8::text::xid8, $2) \
             AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) \
             ORDER BY transaction_id, global_position LIMIT $3"
        );
        let rows = sqlx::query(&sql)
            .bind(after.transaction_id)
            .bind(after.global_position)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn load_snapshot(&self, stream: &StreamName) -> Result<Option<Snapshot>, StoreError> {
        let row: Option<(i64, i32, serde_json::Value)> =
            sqlx::query_as("SELECT version, format, state FROM snapshots WHERE stream = $1")
                .bind(stream.as_str())
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(version, format, state)| Snapshot {
            version,
            format,
            state,
        }))
    }

    async fn save_snapshot(
        &self,
        stream: &StreamName,
        snapshot: &Snapshot,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO snapshots (stream, version, format, state) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (stream) DO UPDATE SET version = excluded.version, \
             format = excluded.format, state = excluded.state \
             WHERE excluded.version > snapshots.version OR excluded.format <> snapshots.format",
        )
        .bind(stream.as_str())
        .bind(snapshot.version)
        .bind(snapshot.format)
        .bind(&snapshot.state)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn find_key_stream(&self, key_id: Uuid) -> Result<Option<StreamName>, StoreError> {
        let stream: Option<String> = sqlx::query_scalar(
            "SELECT stream FROM events WHERE event_type = 'ApiKeyIssued' \
             AND payload ->> 'key_id' = $1 LIMIT 1",
        )
        .bind(key_id.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(stream.map(StreamName))
    }
}
