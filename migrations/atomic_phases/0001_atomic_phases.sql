-- Lesson 12: a charge API in front of a card provider, as the lesson starts from it.
--
-- The provider is another company: its API is a second HTTP server in the tests, and its ledger
-- lives in the schema `provider`, which our handler never touches. The tests read it to count
-- the charges that really happened, and a script can hold a customer's row to make the provider
-- slow without a timer.
CREATE SCHEMA provider;

CREATE TABLE provider.customers (
    id TEXT PRIMARY KEY
);

-- One row per charge the provider made. The provider is idempotent on the key its caller sends
-- (as Stripe is): a second request with a key it has seen returns the first charge.
CREATE TABLE provider.charges (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key TEXT        NOT NULL UNIQUE,
    customer        TEXT        NOT NULL REFERENCES provider.customers (id),
    amount_cents    BIGINT      NOT NULL CHECK (amount_cents > 0),
    currency        TEXT        NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- Who called the provider, as its access log would show it: the caller's session name (the
-- `application_name` its connection carries) and the key it sent. The tests read it to tell a
-- request that worked on its key (it reached the provider) from one that was told to come back.
CREATE TABLE provider.calls (
    caller          TEXT        NOT NULL DEFAULT current_setting('application_name'),
    idempotency_key TEXT,
    called_at       TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- What the provider refused, and why, as its own logs would show it: the tests read it to say
-- why a charge was never made. Like Stripe, it takes keys of at most 255 characters.
CREATE TABLE provider.refusals (
    idempotency_key TEXT        NOT NULL,
    customer        TEXT        NOT NULL,
    reason          TEXT        NOT NULL,
    refused_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- Our side. The API's clients, and what each has been charged in all, by our books.
CREATE TABLE clients (
    id            TEXT   PRIMARY KEY,
    charged_cents BIGINT NOT NULL DEFAULT 0
);

-- One row per charge our API recorded: which charge of the provider's it was.
CREATE TABLE charges (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id          TEXT        NOT NULL,
    amount_cents       BIGINT      NOT NULL CHECK (amount_cents > 0),
    currency           TEXT        NOT NULL,
    provider_charge_id TEXT        NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
