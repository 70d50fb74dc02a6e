-- The ledger lesson 01 starts from: accounts, and a log of the events already applied.
--
-- processed_events deliberately has no key yet. Nothing stops it from holding the same
-- event_id twice; adding that rule is the lesson's exercise, in the exercise's own
-- migrations/ folder, so that the diff against the solution shows it.

CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,
    balance_cents BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE processed_events (
    event_id   TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
