//! A scenario's first and middle steps, with what goes wrong in them said as a [`Violation`]:
//! a database for it, and its script played.

use crate::engine::interleaving::Interleaving;
use crate::engine::script::{Ran, Script};
use crate::engine::subject::Handler;
use crate::error::KitError;
use crate::servers::database::TestDatabase;
use crate::servers::schema::Schema;
use crate::words::teaching::{Explain, Violation};

/// Every scripted scenario's middle step: plays `script` in `permutation` order on `db`, and
/// returns the interleaving (its trace, for the verdict) and what each delivery returned. A
/// worker stuck on something the database cannot see is the student's doing (a lock in the
/// process, say), and is said so with the trace so far; anything else means the test could not
/// run.
pub async fn play<E: Send + 'static, H: Handler<E>, K: Explain<D>, D: Copy>(
    db: &TestDatabase,
    script: Script<E, H>,
    permutation: &str,
    describe: impl Fn(&H::Output) -> String,
    during: D,
) -> Result<(Interleaving, Ran<H::Output>), Violation<K, D>> {
    let mut interleaving = Interleaving::new(db)
        .await
        .map_err(Violation::setup(during))?;
    match interleaving.run(db, script, permutation, describe).await {
        Ok(ran) => Ok((interleaving, ran)),
        Err(error) => Err(Violation::stuck_or_setup(
            error,
            interleaving.trace(),
            during,
        )),
    }
}

/// Every scenario's first step: a fresh database with `schema`, and the test's own observer on
/// it (`open`, say `Orders::open`). A failure here means the test could not run (no server, a
/// migration that does not apply), and is said so, for the scenario delivering `during`.
pub async fn prepare<O, K: Explain<D>, D: Copy>(
    schema: &Schema,
    during: D,
    open: impl AsyncFnOnce(&TestDatabase) -> Result<O, KitError>,
) -> Result<(TestDatabase, O), Violation<K, D>> {
    let db = TestDatabase::create(schema)
        .await
        .map_err(Violation::setup(during))?;
    let observer = open(&db).await.map_err(Violation::setup(during))?;
    Ok((db, observer))
}
