-- Lesson 12: the idempotency keys, each with how far its request got (applied after
-- ../../migrations/atomic_phases). Unlike lesson 11's, a row commits before the provider is
-- called, and stays behind a request that died: its recovery point and its lease say who may
-- finish it, and from where.

-- ANCHOR: table
CREATE TABLE idempotency_keys (
    client_id          TEXT        NOT NULL,
    key                TEXT        NOT NULL,
    request            TEXT        NOT NULL,  -- the fingerprint, as in lesson 11
    -- 'started': claimed, the provider perhaps called; 'finished': recorded and answered.
    recovery_point     TEXT        NOT NULL DEFAULT 'started'
                                   CHECK (recovery_point IN ('started', 'finished')),
    -- The lease: until then the request that holds it is presumed alive, and nobody else may
    -- work on the key. After it, anyone may take the key over.
    locked_until       TIMESTAMPTZ,
    -- The fencing token: taken over, the key's fence goes up by one, and a request that held an
    -- older one may write nothing more.
    fence              BIGINT      NOT NULL DEFAULT 1,
    -- The key this request sends the provider, made with the claim and never made again: every
    -- attempt at the request, and the completer, read it here. Not the client's key: once our
    -- window is over the client may use that again for a new payment, and the provider, which
    -- remembers keys longer than we do, would answer it with the old charge.
    provider_key       UUID        NOT NULL DEFAULT gen_random_uuid(),
    response_status    INTEGER,
    response_body      TEXT,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (client_id, key)
);
-- ANCHOR_END: table
