//! The lesson's tests, each one a story from chapter 1, are data: `specs/*.spec`. This is how
//! every one of them is played and judged (`specs.rs`).

mod specs;

pub use specs::your_events;
pub(crate) use specs::{FEED, judge_released, play};
