//! Hermitage's ten anomalies, each played at the three isolation levels PostgreSQL has, in the
//! manner of PostgreSQL's isolation tester: each is a spec of sessions only (`anomalies/*.spec`),
//! the same steps in the same order at every level (the spec's `LEVEL` is each level in turn).
//! What each level did with it (let it through, made a session wait, aborted one with 40001)
//! is read from the recorded steps, and [`table`] writes it as the chapter's table: nothing in
//! it is typed by hand.

use kit::spec::Spec;
use kit::{Interleaving, KitError, Ran, Schema, TestDatabase, Trace};

/// The levels, as `BEGIN ISOLATION LEVEL …` takes them.
pub const LEVELS: [&str; 3] = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"];

/// One anomaly of Hermitage's, on the lesson's cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anomaly {
    /// Adya's name for it, as Hermitage lists it: `G0`, `P4`, `G2-item`.
    pub code: &'static str,
    pub name: &'static str,
    /// The spec: its sessions, steps and one permutation.
    spec: &'static str,
    /// What shows that it happened: each step named here returned the value beside it (its
    /// rows as the trace shows them, `1200; 2100`).
    sign: &'static [(&'static str, &'static str)],
    /// What it means, when it happened.
    meaning: &'static str,
}

macro_rules! spec {
    ($file:literal) => {
        include_str!(concat!("../anomalies/", $file, ".spec"))
    };
}

/// The ten, in Hermitage's order.
pub const ANOMALIES: [Anomaly; 10] = [
    Anomaly {
        code: "G0",
        name: "write cycle",
        spec: spec!("g0"),
        sign: &[("cards", "1200; 2100")],
        meaning: "card-1 holds s2's write, card-2 s1's",
    },
    Anomaly {
        code: "G1a",
        name: "aborted read",
        spec: spec!("g1a"),
        sign: &[("r2a", "10100")],
        meaning: "s2 reads a write s1 rolls back",
    },
    Anomaly {
        code: "G1b",
        name: "intermediate read",
        spec: spec!("g1b"),
        sign: &[("r2a", "10100")],
        meaning: "s2 reads a value s1 overwrites before it commits",
    },
    Anomaly {
        code: "G1c",
        name: "circular information flow",
        spec: spec!("g1c"),
        sign: &[("r1", "2200"), ("r2", "1100")],
        meaning: "each reads the other's uncommitted write",
    },
    Anomaly {
        code: "OTV",
        name: "observed transaction vanishes",
        spec: spec!("otv"),
        sign: &[("r3b", "1800")],
        meaning: "s3 sees s1's card-1, then s2's uncommitted card-2",
    },
    Anomaly {
        code: "PMP",
        name: "predicate-many-preceders",
        spec: spec!("pmp"),
        sign: &[("r1b", "1")],
        meaning: "s1's second count sees the card s2 added",
    },
    Anomaly {
        code: "P4",
        name: "lost update",
        spec: spec!("p4"),
        sign: &[("cards", "4000")],
        meaning: "s2 waits, then overwrites s1's update",
    },
    Anomaly {
        code: "G-single",
        name: "read skew",
        spec: spec!("g-single"),
        sign: &[("r1", "3000"), ("r2", "3000")],
        meaning: "s1 sees 6000 in all, the moved 3000 counted twice",
    },
    Anomaly {
        code: "G2-item",
        name: "write skew",
        spec: spec!("g2-item"),
        sign: &[("total", "16000")],
        meaning: "both commit, 16000 spent of 10000",
    },
    Anomaly {
        code: "G2",
        name: "anti-dependency cycle",
        spec: spec!("g2"),
        sign: &[("big", "2")],
        meaning: "both commit, two big cards where each saw none",
    },
];

impl Anomaly {
    /// The anomaly Hermitage calls `code`.
    pub fn named(code: &str) -> Option<Anomaly> {
        ANOMALIES.into_iter().find(|anomaly| anomaly.code == code)
    }

    /// The spec, at `level`.
    fn spec(self, level: &str) -> Result<Spec, KitError> {
        let text = self.spec.replace("LEVEL }", &format!("{level} }}"));
        Spec::parse(&text).map_err(|e| self.broken(e))
    }

    fn broken(self, error: impl std::fmt::Display) -> KitError {
        KitError::Provision {
            what: format!("the spec of {} ({})", self.code, self.name),
            detail: error.to_string(),
        }
    }

    /// What the steps say, when none failed: whether the anomaly happened.
    fn judge(self, ran: &Ran<()>) -> String {
        let shows = |(step, value): &(&str, &str)| match ran.step(step) {
            Ok(rows) => {
                let rows: Vec<String> = (rows.iter())
                    .map(|row| row.iter().flatten().cloned().collect::<Vec<_>>().join(", "))
                    .collect();
                rows.join("; ") == *value
            }
            Err(_) => false,
        };
        if self.sign.iter().all(shows) {
            format!("anomaly: {}", self.meaning)
        } else {
            "none".into()
        }
    }
}

/// What one level did with one anomaly: a cell of the table, and the steps that led to it.
pub struct Played {
    pub outcome: String,
    pub trace: Trace,
}

/// Plays `anomaly` at `level` on a fresh database with the lesson's schema.
pub async fn play(anomaly: Anomaly, level: &str) -> Result<Played, KitError> {
    let spec = anomaly.spec(level)?;
    let db = TestDatabase::create(&Schema::from_dirs([crate::subject::BASE_MIGRATIONS])).await?;
    spec.set_up(&db).await?;
    let script = spec.sessions_script().map_err(|e| anomaly.broken(e))?;
    let permutation = spec
        .permutations
        .first()
        .ok_or_else(|| anomaly.broken("no permutation"))?;
    let mut interleaving = Interleaving::new(&db).await?;
    let ran = interleaving
        .run(&db, script, &permutation.order(), |()| String::new())
        .await?;
    let failed = (ran.steps().iter()).find_map(|(step, result)| {
        let error = result.as_ref().err()?;
        let (session, sql) = spec.step(step).map(|(s, step)| (s.name.clone(), step))?;
        let verb = match &sql.action {
            kit::spec::Action::Sql(sql) => sql.split_whitespace().next().unwrap_or("").to_string(),
            _ => String::new(),
        };
        Some(format!(
            "{}: {session}'s {} fails",
            error.code,
            verb.to_uppercase()
        ))
    });
    let waited = waiters(interleaving.trace());
    let outcome = failed.unwrap_or_else(|| match (anomaly.judge(&ran), &waited[..]) {
        (none, [_, ..]) if none == "none" => format!("none: {} waits", waited.join(" and ")),
        (judged, _) => judged,
    });
    interleaving.note(&outcome);
    Ok(Played {
        outcome,
        trace: interleaving.trace().clone(),
    })
}

/// The sessions the trace shows waiting on a lock, in the order they first waited.
fn waiters(trace: &Trace) -> Vec<String> {
    let mut waited: Vec<String> = Vec::new();
    for line in trace.to_string().lines() {
        if let Some((session, _)) = line.split_once(':')
            && line.contains("<waiting on")
            && !waited.iter().any(|w| w == session.trim())
        {
            waited.push(session.trim().to_string());
        }
    }
    waited
}

/// The chapter's table: each anomaly at each level, played now.
pub async fn table() -> Result<String, KitError> {
    let mut table = String::from(
        "| | | READ COMMITTED | REPEATABLE READ | SERIALIZABLE |\n|---|---|---|---|---|\n",
    );
    for anomaly in ANOMALIES {
        table.push_str(&format!("| {} | {} |", anomaly.code, anomaly.name));
        for level in LEVELS {
            table.push_str(&format!(" {} |", play(anomaly, level).await?.outcome));
        }
        table.push('\n');
    }
    Ok(table)
}
