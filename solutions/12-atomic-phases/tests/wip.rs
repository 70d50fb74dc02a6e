//! Work in progress: lesson 12's scenarios, before the lesson has its exercise-tests.rs.

use atomic_phases::{Violation, scenarios, subject};

#[tokio::test]
async fn a_provider_that_hangs_up_charges_once() -> Result<(), Violation> {
    scenarios::provider_hangs_up_then_retried(subject!(handler)).await
}

#[tokio::test]
async fn a_provider_that_fails_charges_once_after_the_lease() -> Result<(), Violation> {
    scenarios::provider_fails_then_retried(subject!(handler)).await
}

#[tokio::test]
async fn a_zombie_records_nothing() -> Result<(), Violation> {
    scenarios::zombie_wakes_after_the_key_was_taken_over(subject!(handler)).await
}

#[tokio::test]
async fn a_request_that_dies_between_phases_is_completed() -> Result<(), Violation> {
    scenarios::dies_between_phases_then_completed(subject!(handler)).await
}

#[tokio::test]
async fn the_completer_leaves_a_live_request_alone() -> Result<(), Violation> {
    scenarios::completer_leaves_a_live_lease_alone(subject!(handler)).await
}

#[tokio::test]
async fn a_slow_provider_holds_up_no_one() -> Result<(), Violation> {
    scenarios::slow_provider_holds_up_no_one(subject!(handler)).await
}
