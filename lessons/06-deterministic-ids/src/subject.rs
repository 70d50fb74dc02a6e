//! What lesson 06's tests run: `take_payment(&PgPool, &OrderCreated)`, on the payment step's
//! schema. The lesson changes a handler, not tables.

kit::lesson_subject!(deterministic_ids: OrderCreated => crate::Outcome, on "payment_step");
