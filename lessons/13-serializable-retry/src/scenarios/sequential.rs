use super::{authorization, judge_all, with_customer};
use crate::judge::Expect;
use crate::{Delivery, Handler, Subject, Violation, ViolationKind};

// ANCHOR: sequential
/// The test almost everyone writes first: authorize 60.00 on card-1, deliver the same request
/// again, then ask for 60.00 on card-2, each after the one before has committed. The first is
/// approved, its copy is a duplicate, and the third is declined: together the cards would pass
/// the 100.00 limit.
///
/// It passes against the shipped exercise too: one delivery at a time never conflicts, so the
/// missing retry is never needed.
pub async fn decided_one_after_another<H: Handler>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "auth-1 (60.00 on card-1) was delivered twice, then auth-2 (60.00 on card-2); one \
         delivery after another",
    );
    let (db, cards) = with_customer(&subject, during, &["auth-1", "auth-2"]).await?;
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    let (mut delivered, mut attempts_each) = (Vec::new(), Vec::new());
    for event in [
        authorization("auth-1", "card-1", 6000),
        authorization("auth-1", "card-1", 6000),
        authorization("auth-2", "card-2", 6000),
    ] {
        let before = (cards.attempts(event.id()).await).map_err(Violation::setup(during))?;
        let result = subject.handler.call(pool.clone(), event.clone()).await;
        let after = (cards.attempts(event.id()).await).map_err(Violation::setup(during))?;
        attempts_each.push(after - before);
        delivered.push((event, result));
    }
    let events = [("auth-1", 0), ("auth-2", 0)];
    judge_all(&cards, &delivered, &events, Expect::default(), during, None).await?;
    // One delivery at a time, nothing conflicts: a delivery that ran its transaction again
    // retried an error that was not 40001 or 40P01, whatever it reported in the end.
    for (n, ((event, result), attempts)) in delivered.iter().zip(attempts_each).enumerate() {
        if attempts > 1 {
            let kind = ViolationKind::RetriedWithoutAConflict {
                event: event.id().into(),
                copy: n == 1,
                attempts,
                reported: super::described(result).into(),
            };
            return Err(Violation::caught(during, None)(kind));
        }
    }
    Ok(())
}
// ANCHOR_END: sequential
