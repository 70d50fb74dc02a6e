//! What the saga lessons' tests run: `apply_payment_result(&PgPool, &PaymentEvent)`, on the
//! order saga's schema. The saga lessons change handlers, not tables.

kit::lesson_subject!(order_saga: PaymentEvent => crate::Outcome, on "order_saga");
