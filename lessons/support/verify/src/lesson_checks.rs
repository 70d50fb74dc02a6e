//! What every lesson's `checks.rs` would otherwise write for itself, once: `LESSON`, the
//! lesson's tests as data (from its list, by build.rs), the probes `cargo repeat` counts, and
//! the suite a wrong fix is played against. A lesson's `checks.rs` keeps what is its own: its
//! subjects (`exercise()`, `solution()`), its reason (`is_intended`) and its tests.

/// `$domain` is the lesson's crate; `rounds` gives a barrier test's rounds from its number of
/// workers, for a lesson whose list does not say them (a released spec's do), and `round` a
/// delivery's round; `schema` is the suite's migrations, which may name
/// `$migrations`, the migrations of the crate a wrong fix patches (lessons whose students own
/// a migration); `through`, for a lesson whose tests play something in front of the student's
/// handler (lesson 11's API), makes a subject of the handler into the one the tests play.
macro_rules! lesson {
    (
        $number:literal, $domain:ident,
        rounds: $rounds:expr, round: $round:expr,
        schema($migrations:ident): $schema:expr
        $(, through: $through:path)? $(,)?
    ) => {
        pub const LESSON: $crate::Lesson = $crate::Lesson {
            number: $number,
            tests,
            spec_of,
            probes,
        };

        include!(concat!(env!("OUT_DIR"), "/exercise_tests_", $number, ".rs"));

        fn probes() -> Vec<$crate::probe::Probe> {
            $crate::probe::probes_of(
                tests(),
                cases(),
                repeat(),
                rounds_listed,
                $rounds,
                play_on,
                is_intended,
                $round,
            )
        }

        /// The lesson's whole suite, the tests of `exercise-tests.rs`, against `handler` (a
        /// wrong fix from `wrong-fixes/`): the tests that failed.
        pub async fn suite<H: $domain::Handler>(
            handler: H,
            $migrations: &'static str,
        ) -> Vec<$crate::wrong_fix::Failed> {
            let subject = || $($through)?($domain::Subject::new($schema, handler.clone()));
            $crate::wrong_fix::run_tests(tests(), |test| play_unrecorded(test, subject())).await
        }
    };
}
pub(crate) use lesson;
