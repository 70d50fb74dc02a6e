-- Lesson 08: the pipeline from one service's outbox to another service's effect.

-- The producer's transactional outbox (lesson 05): each row written in the transaction that made
-- the change it announces. id comes from a sequence, drawn when the row is inserted, so two
-- transactions can commit their rows in the other order than their ids; created_at likewise.
-- sent_at is set by the relay once the row is published.
CREATE TABLE outbox (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id   TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    sent_at    TIMESTAMPTZ
);
CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;

-- The tests' own record of every outbox row that committed, kept by a trigger, so that what a
-- relay does to the outbox (marks its rows, or deletes them) cannot hide a row from the check.
-- Keyed by a number of its own: a producer restored from a backup writes outbox ids again.
CREATE TABLE outbox_written (
    seq      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id       BIGINT NOT NULL,
    event_id TEXT NOT NULL
);
CREATE FUNCTION outbox_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO outbox_written (id, event_id) VALUES (NEW.id, NEW.event_id);
    RETURN NEW;
END;
$$;
CREATE TRIGGER outbox_written AFTER INSERT ON outbox
    FOR EACH ROW EXECUTE FUNCTION outbox_written();

-- A relay's memory, for a relay that remembers how far it got rather than what it sent.
CREATE TABLE relay_progress (
    relay        TEXT PRIMARY KEY,
    last_id      BIGINT NOT NULL DEFAULT 0,
    last_created TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO relay_progress (relay) VALUES ('relay');

-- The broker, standing in for Kafka: another system, reached on a connection of its own (see
-- pipeline.rs). A publish appends a message, committed at once; nothing the relay rolls back
-- takes it back, and nothing stops the same row from being published twice.
CREATE SCHEMA broker;
CREATE TABLE broker.messages (
    position  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    outbox_id BIGINT NOT NULL,
    event_id  TEXT NOT NULL,
    payload   TEXT NOT NULL
);

-- The consumer's side, the warehouse: one shipment per confirmed order, and its inbox, its
-- processed_events: the ids by which the consumer recognises what it has handled.
CREATE TABLE shipments (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id  TEXT NOT NULL,
    event_id  TEXT NOT NULL,
    outbox_id BIGINT NOT NULL
);
CREATE INDEX shipments_event ON shipments (event_id);
CREATE TABLE inbox (
    id          TEXT PRIMARY KEY,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
