-- The naive ceiling of a billed call on PostgreSQL: one transaction per call holding a
-- guarded debit (the balance never goes below zero) and one event insert, committed with
-- synchronous_commit=on. manabi's Biller batches debits and should beat this.
--
-- The setup SQL is the `--setup ` lines of this file; it creates its own naive_* tables
-- (never manabi's ledger tables), 100 accounts with ample balance:
--   sed -n 's/^--setup //p' bench/billed_pg_naive.sql | psql "$URL" -v ON_ERROR_STOP=1
-- Run (64 connections, as the billed HTTP benchmark):
--   pgbench "$URL" -n -c 64 -j 2 -T 20 -f bench/billed_pg_naive.sql
--
--setup SET synchronous_commit = on;
--setup DROP TABLE IF EXISTS naive_events;
--setup DROP TABLE IF EXISTS naive_balances;
--setup CREATE TABLE naive_balances (account_id INTEGER PRIMARY KEY,
--setup     balance BIGINT NOT NULL CHECK (balance >= 0), version BIGINT NOT NULL);
--setup CREATE TABLE naive_events (global_position BIGSERIAL PRIMARY KEY,
--setup     transaction_id XID8 NOT NULL DEFAULT pg_current_xact_id(),
--setup     id UUID NOT NULL UNIQUE, stream TEXT NOT NULL, version BIGINT NOT NULL,
--setup     event_type TEXT NOT NULL, payload JSONB NOT NULL,
--setup     recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(), UNIQUE (stream, version));
--setup INSERT INTO naive_balances (account_id, balance, version)
--setup     SELECT g, 1000000000, 0 FROM generate_series(1, 100) AS g;

\set account random(1, 100)
BEGIN;
UPDATE naive_balances SET balance = balance - 1, version = version + 1 WHERE account_id = :account AND balance >= 1 RETURNING version \gset
INSERT INTO naive_events (id, stream, version, event_type, payload) VALUES (gen_random_uuid(), 'account-' || :account, :version, 'CallCharged', '{"points": 1, "operation": "getLearnable"}');
COMMIT;
