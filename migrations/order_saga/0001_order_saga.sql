-- The order saga's state, as lessons 02-05 start from it.
--
-- processed_events already has its key: lesson 01 taught why it must. What these lessons teach
-- is how the handler uses it, and what else has to share its transaction.

-- An order waits in 'pending' for the payment service's verdict; 'confirmed' and 'cancelled'
-- are terminal: nothing may move an order out of them. paid_cents adds up payments, since an
-- order may be paid in instalments (lesson 04 needs that).
CREATE TABLE orders (
    id           TEXT PRIMARY KEY,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'confirmed', 'cancelled')),
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    paid_cents   BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per event the saga has handled: the dedupe guard.
CREATE TABLE processed_events (
    event_id     TEXT PRIMARY KEY,
    processed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The transactional outbox: what the rest of the system must hear about (order.confirmed,
-- order.cancelled). A relay publishes these rows after they commit. The row's own id is drawn
-- at random; the id downstream consumers dedupe on is in the payload, derived from the
-- payment event that caused it.
CREATE TABLE outbox (
    id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregate_id TEXT NOT NULL,
    type         TEXT NOT NULL,
    payload      JSONB NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX outbox_aggregate ON outbox (aggregate_id);
