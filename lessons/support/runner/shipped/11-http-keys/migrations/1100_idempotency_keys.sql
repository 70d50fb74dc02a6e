-- Lesson 11: the idempotency keys the API has seen (applied after ../../migrations/http_keys).
-- Keep the table's name and its created_at (when the key was claimed): the keys' expiry job,
-- lessons/11-http-keys/src/expiry.rs, deletes the rows past the API's window by them.
-- The handler writes a row for every payment it creates.
--
-- TODO: a key here decides nothing by itself: two requests that look it up at the same moment
-- both find it missing. And a retry needs more than the payment's id to be answered as the
-- first request was.

-- ANCHOR: table
CREATE TABLE idempotency_keys (
    client_id  TEXT        NOT NULL,
    key        TEXT        NOT NULL,
    payment_id BIGINT      NOT NULL REFERENCES payments (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- ANCHOR_END: table

-- The handler looks keys up by client and key.
CREATE INDEX idempotency_keys_lookup ON idempotency_keys (client_id, key);
