-- Read models of the ledger, rebuilt from events by the projector. Ids are text UUIDs,
-- instants RFC 3339 UTC text (sortable), days YYYY-MM-DD, months YYYY-MM.

-- Where the projector is in the global order; moves in the same transaction as the
-- changes it covers.
CREATE TABLE rm_checkpoint (
    name TEXT PRIMARY KEY,
    transaction_id INTEGER NOT NULL,
    global_position INTEGER NOT NULL
);
INSERT INTO rm_checkpoint (name, transaction_id, global_position) VALUES ('read_models', 0, 0);

CREATE TABLE rm_accounts (
    account_id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    balance INTEGER NOT NULL,
    daily_calls_cap INTEGER NOT NULL,
    opened_at TEXT NOT NULL
);

CREATE TABLE rm_api_keys (
    key_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    name TEXT,
    daily_calls_cap INTEGER NOT NULL,
    expires_at TEXT,
    revoked INTEGER NOT NULL,
    issued_at TEXT NOT NULL
);
CREATE INDEX rm_api_keys_account ON rm_api_keys (account_id);

CREATE TABLE rm_usage_key (
    key_id TEXT NOT NULL,
    day TEXT NOT NULL,
    account_id TEXT NOT NULL,
    calls INTEGER NOT NULL,
    points INTEGER NOT NULL,
    PRIMARY KEY (key_id, day)
);

CREATE TABLE rm_usage_account (
    account_id TEXT NOT NULL,
    day TEXT NOT NULL,
    calls INTEGER NOT NULL,
    points INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
);

CREATE TABLE rm_charges (
    invoice_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    resource_id TEXT,
    points INTEGER NOT NULL,
    price_list_version INTEGER NOT NULL,
    day TEXT NOT NULL,
    request_id TEXT NOT NULL,
    transport TEXT NOT NULL,
    charged_at TEXT NOT NULL
);
CREATE INDEX rm_charges_account_time ON rm_charges (account_id, charged_at, invoice_id);

CREATE TABLE rm_credits (
    event_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    points INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL,
    credited_at TEXT NOT NULL
);
CREATE INDEX rm_credits_account_time ON rm_credits (account_id, credited_at);

CREATE TABLE rm_statements (
    account_id TEXT NOT NULL,
    month TEXT NOT NULL,
    credited_points INTEGER NOT NULL,
    charged_points INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY (account_id, month)
);
