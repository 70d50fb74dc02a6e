-- Lesson 12: the idempotency keys (applied after ../../migrations/atomic_phases): lesson 11's
-- solution, as it was. A row is a client's claim on a key, the request it stands for and the
-- response it got, all written in the transaction that records the charge.

-- ANCHOR: table
CREATE TABLE idempotency_keys (
    client_id       TEXT        NOT NULL,
    key             TEXT        NOT NULL,
    request         TEXT        NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (client_id, key)
);
-- ANCHOR_END: table
