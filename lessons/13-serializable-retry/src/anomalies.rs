//! Three anomalies, each played at the three isolation levels PostgreSQL has, in the manner of
//! Hermitage and PostgreSQL's isolation tester: two sessions, one script per anomaly, the same
//! steps in the same order at every level. What each level did with it (let it through, made a
//! session wait, aborted one with 40001) is read from the recorded steps and the rows left, and
//! [`table`] writes it as the chapter's table: nothing in it is typed by hand.

use kit::{Interleaving, KitError, Ran, Schema, Script, TestDatabase, Trace};

/// The levels, as `BEGIN ISOLATION LEVEL …` takes them.
pub const LEVELS: [&str; 3] = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"];

/// The anomalies the chapter plays, on the lesson's cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anomaly {
    /// Both sessions read card-1's spending and write back what they read plus their amount.
    LostUpdate,
    /// Session 1 reads card-1, then card-2, while session 2 moves spending from one to the
    /// other and commits in between.
    ReadSkew,
    /// Both read the customer's total, and each approves on a different card.
    WriteSkew,
}

pub const ANOMALIES: [Anomaly; 3] = [Anomaly::LostUpdate, Anomaly::ReadSkew, Anomaly::WriteSkew];

impl Anomaly {
    pub fn name(self) -> &'static str {
        match self {
            Anomaly::LostUpdate => "lost update",
            Anomaly::ReadSkew => "read skew",
            Anomaly::WriteSkew => "write skew",
        }
    }

    /// The steps, and the order they run in.
    fn script(self, level: &str) -> (Script<(), kit::NoDelivery>, &'static str) {
        let begin = format!("BEGIN ISOLATION LEVEL {level}");
        let script = Script::sessions()
            .step("s1", "b1", &begin)
            .step("s2", "b2", &begin);
        match self {
            Anomaly::LostUpdate => both_read_then_write(
                script,
                "SELECT spent_cents FROM cards WHERE id = 'card-1'",
                "UPDATE cards SET spent_cents = 3000 WHERE id = 'card-1'",
                "UPDATE cards SET spent_cents = 4000 WHERE id = 'card-1'",
            ),
            Anomaly::ReadSkew => (
                script
                    .step(
                        "s1",
                        "r1",
                        "SELECT spent_cents FROM cards WHERE id = 'card-1'",
                    )
                    .step(
                        "s2",
                        "move",
                        "UPDATE cards SET spent_cents = spent_cents - 3000 WHERE id = 'card-1'; \
                         UPDATE cards SET spent_cents = spent_cents + 3000 WHERE id = 'card-2'",
                    )
                    .step("s2", "c2", "COMMIT")
                    .step(
                        "s1",
                        "r2",
                        "SELECT spent_cents FROM cards WHERE id = 'card-2'",
                    )
                    .step("s1", "c1", "COMMIT"),
                "b1 b2 r1 move c2 r2 c1",
            ),
            Anomaly::WriteSkew => both_read_then_write(
                script,
                TOTAL,
                "UPDATE cards SET spent_cents = spent_cents + 8000 WHERE id = 'card-1'",
                "UPDATE cards SET spent_cents = spent_cents + 8000 WHERE id = 'card-2'",
            ),
        }
    }

    /// Spending before the script: 30.00 on card-1 for the read skew (which moves it), none
    /// otherwise.
    fn setup(self) -> &'static str {
        match self {
            Anomaly::ReadSkew => "UPDATE cards SET spent_cents = 3000 WHERE id = 'card-1'",
            _ => "",
        }
    }

    /// What the rows and the reads say, when no step failed: whether the anomaly happened.
    fn judge(self, ran: &Ran<()>, spent: (i64, i64)) -> String {
        let read = |step: &str| -> i64 {
            (ran.step(step).as_ref().ok())
                .and_then(|rows| rows.first())
                .and_then(|row| row.first().cloned().flatten())
                .and_then(|value| value.parse().ok())
                .unwrap_or(-1)
        };
        match self {
            Anomaly::LostUpdate if spent.0 == 4000 => {
                "anomaly: s2 waits, then overwrites s1's update".into()
            }
            Anomaly::LostUpdate => format!("card-1 ends at {}", spent.0),
            Anomaly::ReadSkew => match read("r1") + read("r2") {
                3000 => "none: s1 sees 3000 in all, as before the move".into(),
                seen => format!("anomaly: s1 sees {seen} in all, counted twice"),
            },
            Anomaly::WriteSkew => match spent.0 + spent.1 {
                total if total > crate::cards::LIMIT => {
                    format!(
                        "anomaly: both commit, {total} spent of {}",
                        crate::cards::LIMIT
                    )
                }
                total => format!("none: {total} spent"),
            },
        }
    }
}

/// The lost update's and the write skew's shape: both sessions read, then each writes (`w1`,
/// `w2`), then both commit, in that order.
fn both_read_then_write(
    script: Script<(), kit::NoDelivery>,
    read: &str,
    w1: &str,
    w2: &str,
) -> (Script<(), kit::NoDelivery>, &'static str) {
    let script = (script.step("s1", "r1", read).step("s2", "r2", read))
        .step("s1", "w1", w1)
        .step("s2", "w2", w2)
        .step("s1", "c1", "COMMIT")
        .step("s2", "c2", "COMMIT");
    (script, "b1 b2 r1 r2 w1 w2 c1 c2")
}

/// The total both sessions of the write skew read before they approve.
const TOTAL: &str = "SELECT sum(spent_cents) FROM cards WHERE customer_id = 'cus-1'";

/// What one level did with one anomaly: a cell of the table, and the steps that led to it.
pub struct Played {
    pub outcome: String,
    pub trace: Trace,
}

/// Plays `anomaly` at `level` on a fresh database with the lesson's schema.
pub async fn play(anomaly: Anomaly, level: &str) -> Result<Played, KitError> {
    let db = TestDatabase::create(&Schema::from_dirs([crate::subject::BASE_MIGRATIONS])).await?;
    let setup = db.session().await?;
    let sql = format!(
        "INSERT INTO customers VALUES ('cus-1', {});
         INSERT INTO cards (id, customer_id) VALUES ('card-1', 'cus-1'), ('card-2', 'cus-1');
         {}",
        crate::cards::LIMIT,
        anomaly.setup()
    );
    (setup.batch_execute(&sql).await).map_err(KitError::observer("set up the cards"))?;
    let (script, permutation) = anomaly.script(level);
    let mut interleaving = Interleaving::new(&db).await?;
    let ran = interleaving
        .run(&db, script, permutation, |()| String::new())
        .await?;
    let failed = (ran.steps().iter()).find_map(|(step, result)| {
        let error = result.as_ref().err()?;
        let session = if step.ends_with('1') { "s1" } else { "s2" };
        let statement = if step.starts_with('c') {
            "COMMIT"
        } else {
            "UPDATE"
        };
        Some(format!("{}: {session}'s {statement} fails", error.code))
    });
    let row = (setup.query_one(
        "SELECT (SELECT spent_cents FROM cards WHERE id = 'card-1'),
                (SELECT spent_cents FROM cards WHERE id = 'card-2')",
        &[],
    ))
    .await
    .map_err(KitError::observer("read the cards"))?;
    let outcome = failed.unwrap_or_else(|| anomaly.judge(&ran, (row.get(0), row.get(1))));
    interleaving.note(&outcome);
    Ok(Played {
        outcome,
        trace: interleaving.trace().clone(),
    })
}

/// The chapter's table: each anomaly at each level, played now.
pub async fn table() -> Result<String, KitError> {
    let mut table =
        String::from("| | READ COMMITTED | REPEATABLE READ | SERIALIZABLE |\n|---|---|---|---|\n");
    for anomaly in ANOMALIES {
        table.push_str(&format!("| {} |", anomaly.name()));
        for level in LEVELS {
            table.push_str(&format!(" {} |", play(anomaly, level).await?.outcome));
        }
        table.push('\n');
    }
    Ok(table)
}
