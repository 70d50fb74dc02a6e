-- Lesson 09: lesson 01's ledger, credited once per event, run for long enough that its dedupe
-- table has to be pruned. processed_events itself is the exercise's own migration
-- (exercises/09-retention/migrations), because how it is keyed and partitioned is half the
-- lesson.

CREATE TABLE accounts (
    id            text   PRIMARY KEY,
    balance_cents bigint NOT NULL DEFAULT 0
);

-- One row per credit applied: the effect, where an event applied twice shows as two rows.
CREATE TABLE credits (
    id           bigserial   PRIMARY KEY,
    event_id     text        NOT NULL,
    account      text        NOT NULL REFERENCES accounts (id),
    amount_cents bigint      NOT NULL,
    received_at  timestamptz NOT NULL
);
CREATE INDEX credits_event_id ON credits (event_id);

INSERT INTO accounts (id) VALUES ('acc-1'), ('acc-2');
