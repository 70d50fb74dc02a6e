//! What lesson 13's tests run: `authorize(&PgPool, &Authorization)`, on the card issuer's
//! schema. The lesson changes a handler, not tables.

kit::lesson_subject!(serializable_retry: Authorization => crate::Handled, on "card_limits");
