//! Many retries of one request at once: the burst a client library sends when its timeouts fire
//! together, or several of its instances retry the same job.

use chrono::TimeDelta;
use kit::TestDatabase;

use super::{after_lease, judge_outcomes, prepare, request};
use crate::{Api, Behaviour, Outcome, Step, Subject, Violation};

/// Rounds per barrier test. Each round is one key's whole story (two bursts and a retry), so
/// they cost more than lesson 11's; a claim that races is caught within the first four rounds
/// (measured with two requests a burst), and `cargo workbook repeat 12` measures the rest.
pub const BARRIER_ROUNDS: usize = 10;

/// How many rounds a barrier test with `workers` requests plays: the same for every size, since
/// a claim that races was caught as early with two requests a burst as with thirty-two.
pub fn barrier_rounds(_workers: usize) -> usize {
    BARRIER_ROUNDS
}

const CARRYING: &str = "acme's payment under one idempotency key: first while the provider \
                        charged and hung up on whichever reached it, then all again once that \
                        lease had run out";

// ANCHOR: barrier
/// A round: `workers` copies of acme's request are released together while the provider
/// charges and hangs up (one may claim the key; the others must wait their turn), then
/// `workers` more once that lease has run out (one may take the key over; the others must
/// not), and one last retry. The provider must charge once, our books hold it once, and the
/// last answer be the payment. Each round starts from empty books.
pub async fn barrier<H: Api>(subject: Subject<H>, workers: usize) -> Result<(), Violation> {
    let rounds = kit::Rounds::new(workers, CARRYING, barrier_rounds(workers));
    let db = prepare(&subject, rounds.set_up()).await?;
    let pool = rounds.pool(&db).await?;
    let http = &subject.handler;
    for during in rounds.each() {
        (empty_books(&db).await).map_err(Violation::setup(during))?;
        let mut outcomes = Vec::new();
        for step in [
            request(Behaviour::ChargeThenHangUp, TimeDelta::zero()),
            request(Behaviour::Answer, after_lease(1)),
        ] {
            outcomes.extend(together(http, &pool, workers, step).await);
        }
        let last = request(Behaviour::Answer, after_lease(1));
        outcomes.push(kit::Handler::call(http, pool.clone(), last).await);
        judge_outcomes(&db, outcomes, during).await?;
    }
    Ok(())
}
// ANCHOR_END: barrier

/// `workers` copies of `step`, released together by a barrier, on one pool.
async fn together<H: Api>(
    http: &H,
    pool: &sqlx::PgPool,
    workers: usize,
    step: Step,
) -> Vec<Outcome> {
    kit::release_together(workers, |_| {
        kit::Handler::call(http, pool.clone(), step.clone())
    })
    .await
}

/// Every row of the round before, gone: the provider's ledger, our books and the keys, and
/// whatever other table the crate's migrations made, so that each round judges one key.
async fn empty_books(db: &TestDatabase) -> Result<(), kit::KitError> {
    let session = db.session().await?;
    session
        .batch_execute(
            "DO $$ BEGIN
               EXECUTE (SELECT 'TRUNCATE ' || string_agg(format('%I.%I', schemaname, tablename), ', ')
                               || ' RESTART IDENTITY'
                          FROM pg_tables
                         WHERE schemaname IN ('public', 'provider')
                           AND tablename <> '_sqlx_migrations');
             END $$",
        )
        .await
        .map_err(kit::KitError::observer("emptying the books between rounds"))
}
