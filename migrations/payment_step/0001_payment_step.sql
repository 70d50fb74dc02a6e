-- The payment step of the order saga, as lesson 06 starts from it: it consumes order.created,
-- charges the customer's card, and announces payment.succeeded or payment.failed to the saga.

-- The card network, standing in for an external API (a card acquirer, Stripe). It lives in a
-- schema of its own and is reached on a connection of its own (see network.rs), so a charge
-- commits the moment the network takes it: nothing the payment step rolls back undoes it, as
-- no transaction of yours can take back an HTTP call. Like the real ones, it deduplicates on an
-- idempotency key chosen by the caller: a request with a key it has seen returns the charge
-- it made then, and charges nothing.
CREATE SCHEMA card_network;
CREATE TABLE card_network.charges (
    id              TEXT PRIMARY KEY DEFAULT 'ch_' || replace(gen_random_uuid()::text, '-', ''),
    idempotency_key TEXT NOT NULL UNIQUE,
    order_id        TEXT NOT NULL,
    amount_cents    BIGINT NOT NULL CHECK (amount_cents > 0),
    status          TEXT NOT NULL CHECK (status IN ('succeeded', 'declined')),
    charged_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX charges_order ON card_network.charges (order_id);

-- The payment step's own record: one row per payment it took, keyed by the payment's id.
CREATE TABLE payments (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL,
    charge_id   TEXT NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX payments_order ON payments (order_id);

-- The step's transactional outbox (lesson 05): what the saga must hear. event_id is the id the
-- saga deduplicates on (its processed_events key); seq only orders the rows for the relay.
CREATE TABLE outbox (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     TEXT NOT NULL,
    aggregate_id TEXT NOT NULL,
    type         TEXT NOT NULL,
    payload      JSONB NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX outbox_aggregate ON outbox (aggregate_id);
