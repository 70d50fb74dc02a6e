//! What lesson 01's tests run: `apply_credit(&PgPool, &CreditEvent)`, on the ledger's schema
//! and the crate's own migrations (the exercise's table has no key, the solution's has one).

kit::lesson_subject!(check_then_act: CreditEvent => crate::Outcome, on "ledger", plus its own migrations);
