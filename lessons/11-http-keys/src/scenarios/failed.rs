use kit::{Fault, Script, TestDatabase};

use super::forced::{LOCK_ACME, judge_the_race, sent_by};
use super::{CLIENT, judge, payment, prepare, shown};
use crate::http::describe;
use crate::observe::Payments;
use crate::{Call, Delivery, Handler, Http, Subject, Violation};

// ANCHOR: killed
/// The first request dies half-way (its database session terminated, as when the API's process
/// dies) while it creates the payment; the client, with no answer, sends it again. Whatever the
/// first request did is gone with its transaction: the retry must make the payment, once.
pub async fn killed_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_retried(subject, Fault::Killed).await
}
// ANCHOR_END: killed

/// The same with the first request's statement cancelled (as by statement_timeout): its
/// transaction rolls back, the API answers 500, and the client sends the request again.
pub async fn cancelled_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    failed_then_retried(subject, Fault::Cancelled).await
}

// ANCHOR: abandoned
/// The first request is abandoned half-way: the API drops its handler's future while it waits
/// to create the payment (a request timeout, a client that hung up), and the client sends it
/// again at once. No more of the first request's code runs, not even an error branch; its
/// statement runs on in the database, holding whatever it holds, until the payment's lock is
/// released. Then the request's transaction, never committed, rolls back, and the retry must
/// make the payment, once: the key must not stay taken.
pub async fn abandoned_half_way_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's first request was abandoned while it created the payment (the API dropped its \
         handler's future, as a request timeout would), and acme sent it again at once (a \
         scripted interleaving)",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .abandon("abandon", "api-1")
        .deliver("api-2", "again", call.clone());
    let (mut interleaving, ran) = kit::play(
        &db,
        script,
        "lock first abandon again commit",
        describe,
        during,
    )
    .await?;
    // An abandoned request answers nobody: what its client has is the retry's answer, sent
    // while the abandoned request's transaction was still open.
    let sent = sent_by(ran.outcomes, &[("api-2", &call)]);
    judge_the_race(&payments, &sent, during, &mut interleaving).await
}
// ANCHOR_END: abandoned

// ANCHOR: killed_storing
/// The first request dies as it stores its response: killed while an `UPDATE` of
/// `idempotency_keys` waits, which every such update does while a script holds the gate the test
/// put on the table (a trigger that waits on the script's advisory lock). A handler that stores
/// its response in the transaction of its payment dies with neither committed; one that stores
/// it after that commit dies with the payment made, and its key claimed without a response.
/// The client, with no answer, sends the request again: it must get the payment, once.
pub async fn killed_storing_its_response_then_retried<H: Handler>(
    subject: Subject<H>,
) -> Result<(), Violation> {
    let during = Delivery::Story(
        "acme's first request died as it stored its response in the key's row (its session \
         terminated while its UPDATE of idempotency_keys waited, a scripted crash), and acme \
         sent it again",
    );
    let (db, payments) = prepare(&subject, during).await?;
    let session = db.session().await.map_err(Violation::setup(during))?;
    let gating = kit::KitError::observer("putting a gate on the updates of idempotency_keys");
    (session.batch_execute(GATE_THE_KEYS_UPDATES).await)
        .map_err(|e| Violation::setup(during)(gating(e)))?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "gate", HOLD_THE_GATE)
        .sql("holder", "open", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .kill("die", "api-1")
        .deliver("api-2", "again", call.clone());
    // ANCHOR_END: killed_storing
    let order = "gate first die open again";
    judge_the_retry(
        (&db, &payments),
        script,
        order,
        (&call, Fault::Killed),
        during,
    )
    .await
}

/// Makes every `UPDATE` of `idempotency_keys` wait while a session holds advisory lock 1100
/// ([`HOLD_THE_GATE`]). It relies on the name of the student's table, as the expiry job does;
/// an update with no one holding the lock goes through at once.
const GATE_THE_KEYS_UPDATES: &str = "
    CREATE FUNCTION workbook_gate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_advisory_xact_lock_shared(1100);
        RETURN NEW;
    END;
    $$;
    CREATE TRIGGER workbook_gate BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW EXECUTE FUNCTION workbook_gate();";

/// The holder's side of the gate: while its transaction is open, an update of a key's row waits.
const HOLD_THE_GATE: &str =
    "BEGIN; SELECT pg_advisory_xact_lock(1100) -- every UPDATE of idempotency_keys now waits";

async fn failed_then_retried<H: Handler>(
    subject: Subject<H>,
    fault: Fault,
) -> Result<(), Violation> {
    let during = Delivery::Story(match fault {
        Fault::Killed => {
            "acme's first request died while it created the payment (its session terminated, \
             a scripted crash), and acme sent it again"
        }
        Fault::Cancelled => {
            "acme's first request had its statement cancelled while it created the payment (as \
             a statement timeout would), and acme sent it again (a scripted interleaving)"
        }
    });
    let (db, payments) = prepare(&subject, during).await?;
    let call = payment();
    let script = Script::new(&Http(subject.handler.clone()), shown)
        .sql("holder", "lock", LOCK_ACME)
        .sql("holder", "commit", "COMMIT")
        .deliver("api-1", "first", call.clone())
        .deliver("api-2", "again", call.clone())
        .fail("fail", "api-1", fault);
    let order = "lock first fail commit again";
    judge_the_retry((&db, &payments), script, order, (&call, fault), during).await
}

/// Plays `script`, in which `api-1` fails by `fault` and `api-2` sends `call` again, in `order`,
/// and judges the client's payments by the retry's answer, and what the failed request answered.
async fn judge_the_retry<H: Handler>(
    (db, payments): (&TestDatabase, &Payments),
    script: Script<Call, Http<H>>,
    order: &str,
    (call, fault): (&Call, Fault),
    during: Delivery,
) -> Result<(), Violation> {
    let (mut interleaving, ran) = kit::play(db, script, order, describe, during).await?;
    let (kept, hidden) = ran.apart_from_failed("api-1");
    let sent = sent_by(kept, &[("api-2", call)]);
    judge(
        payments,
        CLIENT,
        &sent,
        during,
        false,
        Some(&mut interleaving),
    )
    .await?;
    // A 409 from the failed request sends its client back later, and the retry made the
    // payment: nothing is lost. Any other answer is one the client acts on as final.
    let hidden = hidden.filter(|answer| answer.status != 409).map(Box::new);
    Violation::unless_failure_hidden(hidden, fault, during, interleaving.trace())
}
