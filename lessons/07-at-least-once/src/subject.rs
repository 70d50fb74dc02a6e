//! What lesson 07's tests run: `poll(&PgPool, &Poll)`, on the order saga's schema, then the
//! log's.

kit::lesson_subject!(at_least_once: Poll => crate::Polled, on ["order_saga", "consumer_log"]);
