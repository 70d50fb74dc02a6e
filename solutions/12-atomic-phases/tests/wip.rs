//! Work in progress: lesson 12's first scenario against the solution.

#[tokio::test]
async fn a_provider_that_hangs_up_charges_once() -> Result<(), String> {
    atomic_phases::scenarios::provider_hangs_up_then_retried(atomic_phases::subject!(
        handler::create_payment
    ))
    .await
}
