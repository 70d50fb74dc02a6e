-- A card issuer's authorizations, as lesson 13 starts from it. A customer holds several cards
-- that share one credit limit: an authorization on any card is approved only while the sum of
-- what every card of the customer has spent stays within the customer's limit. The rule is over
-- rows an authorization does not write (the customer's other cards), so no lock on the row it
-- writes can enforce it: that is what SERIALIZABLE is for.

-- ANCHOR: cards
CREATE TABLE customers (
    id          TEXT PRIMARY KEY,
    limit_cents BIGINT NOT NULL CHECK (limit_cents >= 0)
);

CREATE TABLE cards (
    id          TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers (id),
    spent_cents BIGINT NOT NULL DEFAULT 0 CHECK (spent_cents >= 0)
);
-- ANCHOR_END: cards

-- The events the issuer has handled, by their own id (lesson 02's guard).
CREATE TABLE processed_events (
    event_id     TEXT PRIMARY KEY,
    processed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Every decision, approved or declined, once per event.
--
-- `customer_id` is checked at COMMIT (DEFERRABLE INITIALLY DEFERRED), as Django creates every
-- foreign key on PostgreSQL, so that a transaction may write its rows in any order. It is a reminder that COMMIT is not a formality: it runs deferred checks, which
-- take locks and may wait, and under SERIALIZABLE it is where a transaction can still fail.
CREATE TABLE authorizations (
    event_id     TEXT PRIMARY KEY,
    card_id      TEXT NOT NULL REFERENCES cards (id),
    customer_id  TEXT NOT NULL REFERENCES customers (id) DEFERRABLE INITIALLY DEFERRED,
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    decision     TEXT NOT NULL CHECK (decision IN ('approved', 'declined'))
);
