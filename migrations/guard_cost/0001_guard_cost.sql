-- What "What the guards cost" measures its handlers on: a payment that settles once. Each
-- settlement event moves a payment out of 'pending' and writes one ledger row; every guard the
-- lessons teach is one way to keep a second event (a copy, or a contradicting outcome) from
-- writing a second row.
--
-- Autovacuum is off on every table so that the dead tuples a run leaves are still there to be
-- counted when it ends (pg_stat_user_tables.n_dead_tup).

-- ANCHOR: tables
CREATE TABLE payments (
    id     TEXT PRIMARY KEY,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'captured', 'cancelled'))
) WITH (autovacuum_enabled = off);

-- Guard 1's table (lessons 01 and 02): the ids of the events already handled.
CREATE TABLE processed_events (
    event_id TEXT PRIMARY KEY
) WITH (autovacuum_enabled = off);

-- The effect, one row per settlement applied. No key on purpose: an event applied twice, or two
-- contradicting outcomes applied to one payment, show up as a second row for the same payment.
CREATE TABLE ledger (
    event_id   TEXT NOT NULL,
    payment_id TEXT NOT NULL,
    outcome    TEXT NOT NULL
) WITH (autovacuum_enabled = off);
-- Not unique: it finds an event's rows (check-then-act looks there), and prevents nothing.
CREATE INDEX ledger_event_id ON ledger (event_id);
-- ANCHOR_END: tables

-- Lesson 07's consumer: the next offset of each partition, written in the effect's transaction.
CREATE TABLE consumer_offsets (
    partition   INT PRIMARY KEY,
    next_offset BIGINT NOT NULL
) WITH (autovacuum_enabled = off);
