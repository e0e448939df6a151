-- Only credits carry an idempotency key. The unique constraint indexed every event,
-- charges included (NULL entries), one index insertion per charge for nothing; a partial
-- unique index covers the same keys, unique forever as before.
CREATE UNIQUE INDEX events_idempotency_key ON events (idempotency_key)
    WHERE idempotency_key IS NOT NULL;
ALTER TABLE events DROP CONSTRAINT events_idempotency_key_key;
