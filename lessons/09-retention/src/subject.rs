//! What lesson 09's tests run: `prune(&PgPool, &Prune)`, on the ledger's schema and the
//! crate's own `processed_events`.

kit::lesson_subject!(retention: Prune => crate::Pruned, on "retention", plus its own migrations);
