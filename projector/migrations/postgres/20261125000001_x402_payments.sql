-- x402 payments, one row per claimed authorization (stream x402-{payer}-{nonce}):
-- claimed, then settled (with its transaction) or failed. Revenue is the settled rows.
CREATE TABLE rm_x402_payments (
    stream TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL,
    payer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    x402_version BIGINT NOT NULL,
    network TEXT NOT NULL,
    asset TEXT NOT NULL,
    pay_to TEXT NOT NULL,
    amount_atomic BIGINT NOT NULL,
    operation TEXT NOT NULL,
    resource_id TEXT,
    price_jpy BIGINT NOT NULL,
    price_list_version BIGINT NOT NULL,
    jpy_per_usd TEXT NOT NULL,
    rate_at TEXT NOT NULL,
    request_id TEXT NOT NULL,
    transport TEXT NOT NULL,
    status TEXT NOT NULL,
    transaction_hash TEXT,
    failure TEXT,
    claimed_at TEXT NOT NULL,
    month TEXT NOT NULL
);
CREATE INDEX rm_x402_payments_month ON rm_x402_payments (month, status);
