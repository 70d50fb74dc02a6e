//! The harness's list of a lesson's tests: each spec permutation's `test` line, then the
//! scenarios in Rust, a scenario with cases once per case; what `cargo repeat` counts, and what
//! each test plays.

use kit::harness::{Listed, Pick, Rust};
use kit::spec::Shipped;

const RACE: &str = "session s1\nstep a { SELECT 1 }\nsession s2\nstep b { SELECT 2 }\n\
                    permutation a b\ntest a_race\nstory \"raced\"\nexpect exercise Lost \"lost\"\n\
                    permutation b a\ntest the_other_order\nstory \"raced the other way\"\n";

#[test]
fn a_lessons_tests_are_its_permutations_then_its_scenarios_with_their_cases() {
    let shipped = Shipped::parse("lessons/99-x", &[("race.spec", RACE)], |_| Ok(()));
    let rust = [
        Rust::once("sequential"),
        Rust {
            name: "barrier",
            repeat: true,
            multi_thread: true,
            cases: &[("two", "2"), ("eight", "8")],
        },
    ];
    let listed = Listed::new(&shipped, &rust, &[]);
    assert_eq!(
        listed.names,
        [
            "a_race",
            "the_other_order",
            "sequential",
            "barrier::case_1_two",
            "barrier::case_2_eight"
        ]
    );
    // The permutation the exercise must fail, and the barrier, once for its cases.
    assert_eq!(listed.repeat, ["a_race", "barrier"]);
    assert_eq!(
        listed.specs,
        [("race.spec", "a_race"), ("race.spec", "the_other_order")]
    );
    assert_eq!(listed.case::<usize>("barrier::case_2_eight"), 8);
    // What each plays, for tools: the sessions and its own permutation, or where it is listed.
    let code = |name: &str| listed.test(name).code;
    assert_eq!(
        code("the_other_order"),
        "# race.spec\nsession s1\nstep a { SELECT 1 }\nsession s2\nstep b { SELECT 2 }\n\
         permutation b a\ntest the_other_order\nstory \"raced the other way\""
    );
    assert_eq!(
        code("barrier::case_1_two"),
        "# lessons/99-x: a scenario in Rust, listed by its `kit::Lesson`\nbarrier"
    );
    assert!(listed.test("barrier::case_1_two").multi_thread);
}

/// A lesson that shares its specs (the order saga's four) plays only what it picks, in its
/// order, under its names, its own races marked: the spec's `expect exercise` belongs to
/// whichever lesson wrote it, not to this one.
#[test]
fn a_lesson_that_picks_plays_its_picks_in_its_order_under_its_names() {
    let shipped = Shipped::parse("lessons/99-x", &[("race.spec", RACE)], |_| Ok(()));
    let picks = [
        Pick::Rust(Rust::once("sequential")),
        Pick::spec("race.spec", "the_other_order")
            .named("its_own_name")
            .repeat(),
        Pick::spec("race.spec", "a_race"),
    ];
    let listed = Listed::new(&shipped, &[], &picks);
    assert_eq!(listed.names, ["sequential", "its_own_name", "a_race"]);
    assert_eq!(listed.repeat, ["its_own_name"]);
    // Played by the permutation's own test line, whatever the lesson calls it.
    assert_eq!(
        listed.specs,
        [("race.spec", "the_other_order"), ("race.spec", "a_race")]
    );
}

#[test]
#[should_panic(expected = "lessons/99-x/specs/race.spec has no test gone")]
fn a_pick_of_a_test_no_spec_names_is_named_in_the_panic() {
    let shipped = Shipped::parse("lessons/99-x", &[("race.spec", RACE)], |_| Ok(()));
    Listed::new(&shipped, &[], &[Pick::spec("race.spec", "gone")]);
}

#[test]
#[should_panic(expected = "lessons/99-x lists no test gone")]
fn a_test_the_lesson_does_not_list_is_named_in_the_panic() {
    let shipped = Shipped::parse("lessons/99-x", &[("race.spec", RACE)], |_| Ok(()));
    Listed::new(&shipped, &[], &[]).test("gone");
}
