-- Lesson 11: the idempotency keys the API has seen (applied after ../../migrations/http_keys).
-- Keep the table's name and its created_at (when the key was claimed): the keys' expiry job,
-- lessons/11-http-keys/src/expiry.rs, deletes the rows past the API's window by them.
-- A row is a client's claim on a key, the request it stands for, and the response it got,
-- all written in the transaction that creates the payment.

-- ANCHOR: table
CREATE TABLE idempotency_keys (
    client_id       TEXT        NOT NULL,
    key             TEXT        NOT NULL,
    -- The request's fingerprint: method, path, canonical body (PaymentRequest::fingerprint).
    request         TEXT        NOT NULL,
    -- Set by the transaction that claimed the key, before it commits: no other request ever
    -- reads them empty.
    response_status INTEGER,
    response_body   TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- A key is unique within its client: two clients may choose the same one.
    PRIMARY KEY (client_id, key)
);
-- ANCHOR_END: table
