//! The barrier reports a handler's panic once, with how many workers it struck.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_every_worker_is_reported_once_with_a_count() {
    let outcome = tokio::spawn(kit::release_together(3, |worker| async move {
        if worker < 3 {
            todo!("apply the event")
        }
    }))
    .await;

    let payload = outcome
        .expect_err("the panic reaches the test")
        .into_panic();
    let message = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(
        message.starts_with("3 of 3 workers released together panicked; the first panicked at"),
        "{message}"
    );
    assert!(
        message.ends_with("not yet implemented: apply the event"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_come_back_in_worker_order() {
    let results = kit::release_together(4, |worker| async move { worker * 10 }).await;
    assert_eq!(results, vec![0, 10, 20, 30]);
}
