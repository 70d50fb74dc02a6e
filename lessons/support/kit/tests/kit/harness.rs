//! The harness's list of a lesson's tests: each spec permutation's `test` line, then the
//! scenarios in Rust, a scenario with cases once per case; what `cargo repeat` counts, and what
//! each test plays.

use kit::harness::{Listed, Rust};
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
    let listed = Listed::new(&shipped, &rust);
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

#[test]
#[should_panic(expected = "lessons/99-x lists no test gone")]
fn a_test_the_lesson_does_not_list_is_named_in_the_panic() {
    let shipped = Shipped::parse("lessons/99-x", &[("race.spec", RACE)], |_| Ok(()));
    Listed::new(&shipped, &[]).test("gone");
}
