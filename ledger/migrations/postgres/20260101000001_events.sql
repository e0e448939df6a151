-- The append-only event log. A bigserial can commit out of order, so every row also
-- carries the id of the transaction that wrote it; readers of the global order take only
-- rows below the oldest running transaction and order by (transaction_id, global_position).
CREATE TABLE events (
    global_position BIGSERIAL PRIMARY KEY,
    transaction_id XID8 NOT NULL DEFAULT pg_current_xact_id(),
    id UUID NOT NULL UNIQUE,
    stream TEXT NOT NULL,
    version BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload JSONB NOT NULL,
    metadata JSONB NOT NULL,
    idempotency_key TEXT UNIQUE,
    recorded_at TIMESTAMPTZ NOT NULL,
    UNIQUE (stream, version)
);

CREATE INDEX events_commit_order ON events (transaction_id, global_position);

-- Lets `key revoke --key-id` find a key's account without a read model.
CREATE INDEX events_issued_key ON events ((payload ->> 'key_id'))
    WHERE event_type = 'ApiKeyIssued';

-- The head version of each stream; the row lock serialises writers of one stream.
CREATE TABLE streams (
    stream TEXT PRIMARY KEY,
    version BIGINT NOT NULL
);

CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger events are append-only';
END;
$$;

CREATE TRIGGER events_never_changed BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change();

CREATE TRIGGER events_never_truncated BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

-- A cache of folded aggregates; losing it only costs a longer replay.
CREATE TABLE snapshots (
    stream TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    format INTEGER NOT NULL,
    state JSONB NOT NULL
);
