//! What lesson 11's tests run: `create_payment(&PgPool, &PaymentRequest)`, on the payments
//! schema and the crate's own keys table. The API (`server.rs`) calls it for every request it
//! accepted.

kit::lesson_subject!(http_keys: PaymentRequest => crate::Reply, on "http_keys", plus its own migrations);
