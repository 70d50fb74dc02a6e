//! The key the provider is sent, judged over a longer life than one request's: a client's key
//! used again after our window, and a client's key as long as our API accepts. Neither is a race:
//! each is a few requests one after the other. The shipped exercise, which sends no key at all,
//! passes both: they judge the design of a handler that does send one.

use chrono::{TimeDelta, Utc};
use http_keys::{Call, KEY_WINDOW, MAX_KEY_CHARS};
use kit::Common;

use super::{AMOUNT, answers, judge_outcomes, one_by_one, prepare};
use crate::judge::{Books, verdict_after_the_window};
use crate::{Api, Delivery, LEASE, Request, Step, Subject, Violation, ViolationKind};

/// `call`, arriving `later` than the API's clock says now, to a provider that answers.
fn sent(call: &Call, later: TimeDelta) -> Step {
    Step::Request(Request {
        later,
        ..Request::now(call)
    })
}

// ANCHOR: after_the_window
/// acme pays under k-1; a day later our API's expiry job forgets the key (lesson 11's window),
/// and acme sends a new payment of the same amount under the same key, as a client may once
/// the window is over. It is a new payment: a second charge at the provider, recorded once,
/// and that is what acme is answered. The provider, like Stripe's v2 API, remembers keys far
/// longer than our window.
pub async fn key_used_again_after_the_window<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme paid under k-1, our API's expiry job forgot the key once its window was over, and \
         acme then sent a new payment under the same key",
    );
    let db = prepare(&subject, during).await?;
    let http = &subject.handler;
    let call = Call::payment("acme", "k-1", AMOUNT);
    let mut outcomes = one_by_one(&db, http, vec![sent(&call, TimeDelta::zero())], during).await?;
    let forget_at = Utc::now() + KEY_WINDOW + TimeDelta::minutes(1);
    let pool = db.pool(1).await.map_err(Violation::setup(during))?;
    if let Err(error) = http_keys::expire_keys(&pool, forget_at).await {
        return Err(Violation::caught(during, None)(ViolationKind::Common(
            Common::HandlerFailed {
                error: format!("the expiry job failed: {}", kit::describe_sqlx(&error)),
                cause: kit::FailureCause::of(&error),
            },
        )));
    }
    let again = sent(&call, KEY_WINDOW + TimeDelta::minutes(2));
    outcomes.extend(one_by_one(&db, http, vec![again], during).await?);
    let answers = answers(outcomes).map_err(Violation::caught(during, None))?;
    let charges = Books::read(&db).await.map_err(Violation::setup(during))?;
    verdict_after_the_window(&charges, &answers).map_err(Violation::caught(during, None))
}
// ANCHOR_END: after_the_window

// ANCHOR: longest_key
/// acme's key is as long as our API accepts (255 characters, lesson 11's limit and Stripe's),
/// and the provider, too, takes keys of at most 255 characters. acme's request, and its retry
/// after the lease, must end in the payment.
pub async fn longest_key_is_charged<H: Api>(subject: Subject<H>) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme sent its payment under a key of 255 characters, the longest our API accepts, and \
         again once the lease had run out",
    );
    let db = prepare(&subject, during).await?;
    let call = Call::payment("acme", &"k".repeat(MAX_KEY_CHARS), AMOUNT);
    let steps = vec![
        sent(&call, TimeDelta::zero()),
        sent(&call, LEASE + TimeDelta::seconds(1)),
    ];
    let outcomes = one_by_one(&db, &subject.handler, steps, during).await?;
    judge_outcomes(&db, outcomes, during).await
}
// ANCHOR_END: longest_key

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_and_the_provider_take_keys_of_the_same_length() {
        // The scenario's point: a key of ours must fit where the client's longest fits.
        assert_eq!(MAX_KEY_CHARS, crate::provider::MAX_KEY_CHARS);
    }
}
