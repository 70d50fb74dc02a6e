//! Work in progress: lesson 12's first scenario against the solution.

#[tokio::test]
async fn a_provider_that_hangs_up_charges_once() -> Result<(), String> {
    atomic_phases::scenarios::provider_hangs_up_then_retried(atomic_phases::subject!(
        handler::create_payment
    ))
    .await
}

#[tokio::test]
async fn a_zombie_records_nothing() -> Result<(), String> {
    atomic_phases::scenarios::zombie_wakes_after_the_key_was_taken_over(atomic_phases::subject!(
        handler::create_payment
    ))
    .await
}

#[tokio::test]
async fn a_request_that_dies_between_phases_is_completed() -> Result<(), String> {
    atomic_phases::scenarios::dies_between_phases_then_completed(
        atomic_phases::subject!(handler::create_payment),
        |pool, provider, now| async move { handler::complete(&pool, &provider, now).await },
    )
    .await
}
