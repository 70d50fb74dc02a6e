//! What lesson 08's tests run: `run(&PgPool, &Step)`, on the outbox relay's schema.

kit::lesson_subject!(outbox_relay: Step => crate::Done, on "outbox_relay");
