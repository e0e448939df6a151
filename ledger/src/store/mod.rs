//! The event store: conditional, atomic appends and ordered reads, on SQLite or PostgreSQL.

mod lease;
mod postgres;
mod sqlite;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;

use chrono::{DateTime, Utc};
use manabi_schemas::events::{EventDecodeError, EventMetadata, LedgerEvent};
use uuid::Uuid;

pub use lease::Lease;
pub use postgres::PgStore;
pub use sqlite::SqliteStore;

/// The name of one stream, e.g. `account-<uuid>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamName(String);

impl StreamName {
    pub fn account(account_id: Uuid) -> Self {
        StreamName(format!("account-{account_id}"))
    }

    /// Any other stream kind (`localization-…`, `x402-…`, `pricing`).
    pub fn new(name: impl Into<String>) -> Self {
        StreamName(name.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The account id of an `account-<uuid>` stream.
    pub fn account_id(&self) -> Option<Uuid> {
        self.0.strip_prefix("account-")?.parse().ok()
    }
}

impl fmt::Display for StreamName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the writer believes the stream's head version is. Versions start at 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedVersion {
    Any,
    NoStream,
    Exact(i64),
}

impl ExpectedVersion {
    fn accepts(self, head: Option<i64>) -> bool {
        match self {
            ExpectedVersion::Any => true,
            ExpectedVersion::NoStream => head.is_none(),
            ExpectedVersion::Exact(version) => head == Some(version),
        }
    }
}

/// An event about to be appended.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub id: Uuid,
    pub event: LedgerEvent,
    pub metadata: EventMetadata,
    pub recorded_at: DateTime<Utc>,
}

impl NewEvent {
    /// A new event with a fresh UUIDv7 id.
    pub fn new(event: LedgerEvent, metadata: EventMetadata, recorded_at: DateTime<Utc>) -> Self {
        NewEvent {
            id: Uuid::now_v7(),
            event,
            metadata,
            recorded_at,
        }
    }
}

/// Events for one stream, with the version the writer decided on.
#[derive(Debug, Clone)]
pub struct StreamAppend {
    pub stream: StreamName,
    pub expected: ExpectedVersion,
    pub events: Vec<NewEvent>,
}

/// One all-or-nothing append, possibly over several streams.
#[derive(Debug, Clone)]
pub struct AppendCommand {
    pub appends: Vec<StreamAppend>,
}

impl AppendCommand {
    pub fn single(stream: StreamName, expected: ExpectedVersion, events: Vec<NewEvent>) -> Self {
        AppendCommand {
            appends: vec![StreamAppend {
                stream,
                expected,
                events,
            }],
        }
    }

    fn streams(&self) -> impl Iterator<Item = &StreamName> {
        self.appends.iter().map(|append| &append.stream)
    }

    fn idempotency_keys(&self) -> impl Iterator<Item = &str> {
        self.appends
            .iter()
            .flat_map(|append| append.events.iter())
            .filter_map(|event| event.event.idempotency_key())
    }
}

/// Where an event sits in the global order. On SQLite `transaction_id` is always 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Position {
    pub transaction_id: i64,
    pub global_position: i64,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedEvent {
    pub id: Uuid,
    pub stream: StreamName,
    pub version: i64,
    pub position: Position,
    pub event: LedgerEvent,
    pub metadata: EventMetadata,
    pub recorded_at: DateTime<Utc>,
}

/// What an accepted command wrote: each event id with its stream version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    pub events: Vec<(Uuid, StreamName, i64)>,
}

/// Why one command of a batch was not written. The rest of the batch is unaffected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AppendRejection {
    #[error("stream {stream} is at {actual:?}, the writer expected {expected:?}")]
    WrongVersion {
        stream: StreamName,
        expected: ExpectedVersion,
        actual: Option<i64>,
    },
    #[error("an earlier command of the batch on stream {stream} was rejected")]
    EarlierCommandRejected { stream: StreamName },
    #[error("idempotency key {key} was used before")]
    DuplicateIdempotencyKey {
        key: String,
        existing: Box<RecordedEvent>,
    },
}

/// The store itself failed; nothing of the batch was written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored event is unreadable: {0}")]
    Decode(#[from] EventDecodeError),
    #[error("stored JSON is unreadable: {0}")]
    Json(#[from] serde_json::Error),
    #[error("unsupported database URL {0:?}: use sqlite://… or postgres://…")]
    UnsupportedUrl(String),
    /// Not tried: the database failed to answer a moment ago (see `health`).
    #[error("{0}")]
    Unavailable(String),
}

/// The database could not be reached: no connection to be had, one lost, or the server
/// refusing work (SQLSTATE classes 08, connection exception, and 57, operator
/// intervention such as a shutdown).
pub fn is_unreachable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(database) => database
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57")),
        _ => false,
    }
}

impl StoreError {
    /// The database could not be reached (see [`is_unreachable`]).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, StoreError::Database(error) if is_unreachable(error))
    }

    /// The failure happened before anything was sent to the database, so nothing of the
    /// call can have been written.
    pub fn is_before_write(&self) -> bool {
        matches!(
            self,
            StoreError::Unavailable(_)
                | StoreError::Database(sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed)
        )
    }
}

/// A folded aggregate state saved so a cold load replays only the tail.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub version: i64,
    pub format: i32,
    pub state: serde_json::Value,
}

pub type BatchResult = Vec<Result<Committed, AppendRejection>>;

/// The operations both backends provide.
pub trait EventStore: Send + Sync {
    /// Writes every acceptable command of the batch in ONE transaction. Each command is
    /// checked against the stream heads as left by the commands before it; a rejected
    /// command also rejects later commands of the batch on the same streams.
    fn append_batch(
        &self,
        commands: Vec<AppendCommand>,
    ) -> impl Future<Output = Result<BatchResult, StoreError>> + Send;

    /// Events of one stream with version ≥ `from_version`, oldest first.
    fn read_stream(
        &self,
        stream: &StreamName,
        from_version: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<RecordedEvent>, StoreError>> + Send;

    /// Events after `after` in the global order, at most `limit`, oldest first. Never
    /// returns an event that could still be followed by one ordered before it.
    fn read_all_after(
        &self,
        after: Position,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<RecordedEvent>, StoreError>> + Send;

    fn load_snapshot(
        &self,
        stream: &StreamName,
    ) -> impl Future<Output = Result<Option<Snapshot>, StoreError>> + Send;

    fn save_snapshot(
        &self,
        stream: &StreamName,
        snapshot: &Snapshot,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The stream holding the `ApiKeyIssued` event of `key_id`.
    fn find_key_stream(
        &self,
        key_id: Uuid,
    ) -> impl Future<Output = Result<Option<StreamName>, StoreError>> + Send;
}

/// The store chosen by the database URL.
#[derive(Debug, Clone)]
pub enum Store {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl Store {
    /// Opens `sqlite://…` or `postgres://…` and runs the ledger migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        if url.starts_with("sqlite:") {
            Ok(Store::Sqlite(SqliteStore::connect(url).await?))
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Ok(Store::Postgres(PgStore::connect(url).await?))
        } else {
            Err(StoreError::UnsupportedUrl(url.to_owned()))
        }
    }

    /// A single command, in a batch of its own.
    pub async fn append(
        &self,
        command: AppendCommand,
    ) -> Result<Result<Committed, AppendRejection>, StoreError> {
        let mut results = self.append_batch(vec![command]).await?;
        // append_batch answers exactly one result per command.
        Ok(results.remove(0))
    }

    /// Every event of a stream from `from_version` on.
    pub async fn read_stream_to_end(
        &self,
        stream: &StreamName,
        from_version: i64,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        const PAGE_EVENTS_MAX: u32 = 10_000;
        let mut events = Vec::new();
        let mut next = from_version;
        loop {
            let page = self.read_stream(stream, next, PAGE_EVENTS_MAX).await?;
            let done = page.len() < PAGE_EVENTS_MAX as usize;
            if let Some(last) = page.last() {
                next = last.version + 1;
            }
            events.extend(page);
            if done {
                return Ok(events);
            }
        }
    }
}

macro_rules! delegate {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            Store::Sqlite($store) => $call.await,
            Store::Postgres($store) => $call.await,
        }
    };
}

impl EventStore for Store {
    async fn append_batch(&self, commands: Vec<AppendCommand>) -> Result<BatchResult, StoreError> {
        delegate!(self, s => s.append_batch(commands))
    }

    async fn read_stream(
        &self,
        stream: &StreamName,
        from_version: i64,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        delegate!(self, s => s.read_stream(stream, from_version, limit))
    }

    async fn read_all_after(
        &self,
        after: Position,
        limit: u32,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        delegate!(self, s => s.read_all_after(after, limit))
    }

    async fn load_snapshot(&self, stream: &StreamName) -> Result<Option<Snapshot>, StoreError> {
        delegate!(self, s => s.load_snapshot(stream))
    }

    async fn save_snapshot(
        &self,
        stream: &StreamName,
        snapshot: &Snapshot,
    ) -> Result<(), StoreError> {
        delegate!(self, s => s.save_snapshot(stream, snapshot))
    }

    async fn find_key_stream(&self, key_id: Uuid) -> Result<Option<StreamName>, StoreError> {
        delegate!(self, s => s.find_key_stream(key_id))
    }
}

/// A row about to be inserted, with its assigned stream version.
struct PlannedRow<'a> {
    stream: &'a StreamName,
    version: i64,
    event: &'a NewEvent,
}

/// The in-memory half of a batch append, shared by both backends: given the stream heads
/// and the idempotency keys already used, decide per command whether it goes in and at
/// which versions.
struct BatchPlan<'a> {
    results: Vec<Result<Committed, AppendRejection>>,
    rows: Vec<PlannedRow<'a>>,
    heads: HashMap<StreamName, Option<i64>>,
}

impl<'a> BatchPlan<'a> {
    fn build(
        commands: &'a [AppendCommand],
        mut heads: HashMap<StreamName, Option<i64>>,
        used_keys: &HashMap<String, RecordedEvent>,
    ) -> Self {
        let mut plan = BatchPlan {
            results: Vec::with_capacity(commands.len()),
            rows: Vec::new(),
            heads: HashMap::new(),
        };
        let mut rejected_streams: Vec<&StreamName> = Vec::new();
        let mut batch_keys: Vec<&str> = Vec::new();
        for command in commands {
            let verdict = check_command(command, &heads, &rejected_streams, used_keys)
                .and_then(|()| check_batch_keys(command, &batch_keys));
            match verdict {
                Ok(()) => {
                    batch_keys.extend(command.idempotency_keys());
                    let committed = plan.place(command, &mut heads);
                    plan.results.push(Ok(committed));
                }
                Err(rejection) => {
                    rejected_streams.extend(command.streams());
                    plan.results.push(Err(rejection));
                }
            }
        }
        plan.heads = heads;
        plan
    }

    fn place(
        &mut self,
        command: &'a AppendCommand,
        heads: &mut HashMap<StreamName, Option<i64>>,
    ) -> Committed {
        let mut written = Vec::new();
        for append in &command.appends {
            let head = heads.entry(append.stream.clone()).or_insert(None);
            for event in &append.events {
                let version = head.map_or(0, |v| v + 1);
                *head = Some(version);
                written.push((event.id, append.stream.clone(), version));
                self.rows.push(PlannedRow {
                    stream: &append.stream,
                    version,
                    event,
                });
            }
        }
        Committed { events: written }
    }

    /// Heads of the streams this batch writes to, after the batch.
    fn written_heads(&self) -> Vec<(StreamName, i64)> {
        let mut written: Vec<(StreamName, i64)> = Vec::new();
        for row in &self.rows {
            if let Some(head) = self.heads.get(row.stream).copied().flatten()
                && !written.iter().any(|(s, _)| s == row.stream)
            {
                written.push((row.stream.clone(), head));
            }
        }
        written
    }
}

fn check_command(
    command: &AppendCommand,
    heads: &HashMap<StreamName, Option<i64>>,
    rejected_streams: &[&StreamName],
    used_keys: &HashMap<String, RecordedEvent>,
) -> Result<(), AppendRejection> {
    for append in &command.appends {
        if rejected_streams.contains(&&append.stream) {
            return Err(AppendRejection::EarlierCommandRejected {
                stream: append.stream.clone(),
            });
        }
        let head = heads.get(&append.stream).copied().flatten();
        if !append.expected.accepts(head) {
            return Err(AppendRejection::WrongVersion {
                stream: append.stream.clone(),
                expected: append.expected,
                actual: head,
            });
        }
    }
    for key in command.idempotency_keys() {
        if let Some(existing) = used_keys.get(key) {
            return Err(AppendRejection::DuplicateIdempotencyKey {
                key: key.to_owned(),
                existing: Box::new(existing.clone()),
            });
        }
    }
    Ok(())
}

/// Two commands of one batch using the same key: the later one waits for the next batch
/// (where it meets the first as an ordinary duplicate), reported as a version conflict.
fn check_batch_keys(command: &AppendCommand, batch_keys: &[&str]) -> Result<(), AppendRejection> {
    let clash = command
        .idempotency_keys()
        .any(|key| batch_keys.contains(&key));
    match (clash, command.appends.first()) {
        (true, Some(append)) => Err(AppendRejection::EarlierCommandRejected {
            stream: append.stream.clone(),
        }),
        _ => Ok(()),
    }
}

/// Decodes the stored columns of one event.
#[allow(clippy::too_many_arguments)]
fn decode_event(
    id: Uuid,
    stream: String,
    version: i64,
    position: Position,
    event_type: &str,
    schema_version: i32,
    payload: serde_json::Value,
    metadata: serde_json::Value,
    recorded_at: DateTime<Utc>,
) -> Result<RecordedEvent, StoreError> {
    Ok(RecordedEvent {
        id,
        stream: StreamName(stream),
        version,
        position,
        event: LedgerEvent::from_parts(event_type, schema_version, payload)?,
        metadata: serde_json::from_value(metadata)?,
        recorded_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use manabi_schemas::events::{ApiKeyRevoked, LedgerEvent};

    fn command(stream: &str, expected: ExpectedVersion) -> AppendCommand {
        let event = LedgerEvent::ApiKeyRevoked(ApiKeyRevoked {
            key_id: Uuid::nil(),
        });
        let new = NewEvent::new(event, EventMetadata::default(), Utc::now());
        AppendCommand::single(StreamName::new(stream), expected, vec![new])
    }

    #[test]
    fn a_rejected_command_rejects_later_commands_on_its_stream() {
        let commands = vec![
            command("a", ExpectedVersion::Exact(3)),
            command("a", ExpectedVersion::Exact(4)),
            command("b", ExpectedVersion::NoStream),
            command("b", ExpectedVersion::Exact(0)),
        ];
        let heads = HashMap::from([(StreamName::new("a"), Some(4))]);
        let plan = BatchPlan::build(&commands, heads, &HashMap::new());
        assert!(matches!(
            plan.results[0],
            Err(AppendRejection::WrongVersion { .. })
        ));
        assert!(matches!(
            plan.results[1],
            Err(AppendRejection::EarlierCommandRejected { .. })
        ));
        assert!(plan.results[2].is_ok());
        assert!(plan.results[3].is_ok());
        assert_eq!(plan.written_heads(), vec![(StreamName::new("b"), 1)]);
    }
}
