//! How long to wait before the next attempt of a transaction that the database aborted.

use std::time::Duration;

/// The first wait; each later one may be twice as long, up to [`CAP`].
const BASE: Duration = Duration::from_millis(5);
const CAP: Duration = Duration::from_millis(100);

// ANCHOR: backoff
/// The wait before attempt `attempt + 1`, after `attempt` attempts failed: a random time
/// between zero and a ceiling that doubles with each attempt, up to 100 ms ("full jitter").
///
/// Random, because the transactions that conflicted were started together and would otherwise
/// all come back at the same moment and conflict again; growing, because a conflict that
/// happens again means the rows are busy, and a retry that comes back at once adds to the load
/// that made it fail.
pub fn backoff(attempt: u32) -> Duration {
    let ceiling = BASE
        .saturating_mul(1 << attempt.saturating_sub(1).min(16))
        .min(CAP);
    ceiling.mul_f64(fastrand::f64())
}
// ANCHOR_END: backoff

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_grows_with_the_attempts_and_stays_under_the_cap() {
        let longest = |attempt| (0..200).map(|_| backoff(attempt)).max().unwrap();
        assert!(longest(1) <= BASE);
        assert!(longest(3) > BASE, "the ceiling doubles");
        assert!((0..40).all(|attempt| backoff(attempt) <= CAP));
    }

    #[test]
    fn two_waits_for_the_same_attempt_differ() {
        let waits: std::collections::HashSet<Duration> = (0..20).map(|_| backoff(4)).collect();
        assert!(waits.len() > 1, "jitter: {waits:?}");
    }
}
