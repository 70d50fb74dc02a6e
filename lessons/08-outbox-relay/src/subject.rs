use crate::{Done, Step};

/// The schema every lesson-08 crate runs on.
#[doc(hidden)]
pub const BASE_MIGRATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/outbox_relay");

/// Lesson 08's pipelines: `run(&PgPool, &Step)`, adapted by [`subject!`] to the kit's
/// [`kit::Handler`] shape.
pub trait Handler: kit::Handler<Step, Output = Result<Done, sqlx::Error>> {}

impl<H> Handler for H where H: kit::Handler<Step, Output = Result<Done, sqlx::Error>> {}

/// A pipeline with the schema it runs on.
pub type Subject<H> = kit::Subject<H>;

/// `subject!(handler::run)`: the pipeline of the crate being tested.
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::__private::kit::subject!(
            $crate::Step,
            $handler,
            [$crate::__private::BASE_MIGRATIONS]
        )
    };
}
