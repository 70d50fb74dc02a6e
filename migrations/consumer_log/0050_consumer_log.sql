-- Lesson 07: a log kept in PostgreSQL, and the consumer groups that read it. Applied after the
-- order saga's schema (migrations/order_saga), whose orders, processed_events and outbox the
-- consumer's effect writes.

-- An append-only log of payment verdicts, as a Kafka partition holds them: each event at a
-- position, in the order it was appended. The producer in these tests appends from one session,
-- so positions commit in order (lesson 08 shows what happens when they do not). An event may
-- appear twice, at two positions: a producer that retried its publish.
CREATE TABLE log (
    position    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event       TEXT NOT NULL,
    appended_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Each consumer group's committed offset: the position of the next event it has not handled.
-- Kafka keeps the same number per group and partition (__consumer_offsets); SQS keeps, per
-- message, whether it was deleted.
CREATE TABLE consumer_offsets (
    group_id      TEXT PRIMARY KEY,
    next_position BIGINT NOT NULL DEFAULT 1 CHECK (next_position >= 1)
);
