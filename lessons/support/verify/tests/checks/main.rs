//! The maintainers' checks of the repository as a whole: the book against the code, the catalog
//! against everything that lists the lessons, the by-hand pages as printed, `deliver`'s
//! promise about bad input, and the runner's copy of the shipped exercises. One test binary, not five: each would link all of verify, every
//! lesson and every wrong fix, which costs a link step and tens of megabytes apiece.

mod answer_after_attempt;
mod book;
mod by_hand;
mod catalog;
mod counts;
mod deliver;
mod shipped;
