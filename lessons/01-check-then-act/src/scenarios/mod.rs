//! The lesson's tests, each one a story from chapter 1, are data: `specs/*.spec`. This is how
//! their events reach the handler and which specs the lesson can judge (`specs.rs`); the
//! lesson plays and judges them as the kit's contract says (`lesson.rs`).

mod specs;

pub use specs::your_events;
pub(crate) use specs::{FEED, by_account};
