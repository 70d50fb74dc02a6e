-- The inventory service of the order saga, as lesson 10 starts from it. When an order was
-- created, the service reserved its units: they left `stock.available` and wait in a held
-- reservation. Three events settle a reservation, each exactly once: payment.succeeded consumes
-- it (the units are sold), payment.failed and order.cancelled release it (the units go back).

-- What can still be sold, per product.
CREATE TABLE stock (
    sku       TEXT PRIMARY KEY,
    available INTEGER NOT NULL CHECK (available >= 0)
);

-- One row per order. 'held' is the only state that moves: 'released' and 'consumed' are
-- terminal, and nothing moves a reservation out of either. The reservation is made by
-- `compensation::reserve` (lessons/10-compensation/src/reserve.rs), which holds nothing for an
-- order that has a row already; a row that held nothing has no sku and no quantity, and is
-- released.
CREATE TABLE reservations (
    order_id TEXT PRIMARY KEY,
    sku      TEXT REFERENCES stock (sku),
    quantity INTEGER CHECK (quantity > 0),
    status   TEXT NOT NULL CHECK (status IN ('held', 'released', 'consumed')),
    CHECK ((sku IS NULL) = (quantity IS NULL)),
    CHECK (sku IS NOT NULL OR status = 'released')
);

-- The events the service has handled, by their own id (lesson 02's guard).
CREATE TABLE processed_events (
    event_id     TEXT PRIMARY KEY,
    processed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The service's transactional outbox (lesson 05): what the rest of the saga must hear, such as
-- stock.released. event_id is the id downstream consumers deduplicate on.
CREATE TABLE outbox (
    id           BIGSERIAL PRIMARY KEY,
    event_id     TEXT NOT NULL UNIQUE,
    type         TEXT NOT NULL,
    aggregate_id TEXT NOT NULL,
    payload      JSONB NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX outbox_aggregate ON outbox (aggregate_id);
