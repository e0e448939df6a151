-- The append-only event log. rowid (global_position) is the commit order: one writer.
CREATE TABLE events (
    global_position INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    metadata TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream, version)
);

-- Lets `key revoke --key-id` find a key's account without a read model.
CREATE INDEX events_issued_key ON events (json_extract(payload, '$.key_id'))
    WHERE event_type = 'ApiKeyIssued';

CREATE TRIGGER events_never_updated BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'ledger events are append-only');
END;

CREATE TRIGGER events_never_deleted BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'ledger events are append-only');
END;

-- A cache of folded aggregates; losing it only costs a longer replay.
CREATE TABLE snapshots (
    stream TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    format INTEGER NOT NULL,
    state TEXT NOT NULL
);
