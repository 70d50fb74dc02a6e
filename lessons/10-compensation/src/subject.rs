//! What lesson 10's tests run: `settle_reservation(&PgPool, &ReservationEvent)`, on the
//! inventory's schema. The lesson changes a handler, not tables.

kit::lesson_subject!(compensation: ReservationEvent => crate::Outcome, on "compensation");
