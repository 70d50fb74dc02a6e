-- The payment API of lesson 11, as the lesson starts from it. A client (authenticated by its
-- bearer token) creates a payment with POST /payments; the API answers 201 with the payment.
-- The idempotency keys table is not here: it is the student's, in the exercise's migrations/.

-- The API's clients, and what each has been charged in all. Creating a payment adds to its
-- client's row: one client's payments queue on that row, and never on another client's.
CREATE TABLE clients (
    id            TEXT   PRIMARY KEY,
    charged_cents BIGINT NOT NULL DEFAULT 0
);

-- One row per payment the API created. A payment changes after it was created (the back office
-- refunds it, say): the response a client got when it was created does not.
CREATE TABLE payments (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id    TEXT        NOT NULL,
    amount_cents BIGINT      NOT NULL CHECK (amount_cents > 0),
    currency     TEXT        NOT NULL,
    description  TEXT,
    status       TEXT        NOT NULL DEFAULT 'succeeded' CHECK (status IN ('succeeded', 'refunded')),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
