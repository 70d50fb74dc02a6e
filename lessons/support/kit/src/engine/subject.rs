//! What a lesson's scenarios test: a handler, and the schema it was written for.

use std::future::Future;
use std::path::PathBuf;
use std::process::ExitCode;

use sqlx::PgPool;

use super::contract::Lesson;
use crate::servers::schema::Schema;

/// A handler as the scenarios call it: owned arguments, so that each call can run in a task of
/// its own. Each lesson's `subject!` macro adapts a student's `async fn(&PgPool, &Event)` to
/// this shape.
pub trait Handler<E>: Clone + Send + Sync + 'static {
    type Output: Send + 'static;

    fn call(
        &self,
        pool: PgPool,
        event: E,
    ) -> impl Future<Output = Self::Output> + Send + 'static + use<Self, E>;
}

impl<E, F, Fut> Handler<E> for F
where
    F: Fn(PgPool, E) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    type Output = Fut::Output;

    fn call(
        &self,
        pool: PgPool,
        event: E,
    ) -> impl Future<Output = Fut::Output> + Send + 'static + use<E, F, Fut> {
        self(pool, event)
    }
}

/// `kit::subject!(Event, handler::apply, [base_migrations, …])`: a [`Subject`] for a student's
/// `async fn(&PgPool, &Event)`, on the schema the migration folders make in order. Each lesson
/// wraps it in a `subject!` of its own that names its event and its base schema.
#[macro_export]
macro_rules! subject {
    ($event:ty, $handler:path, [$($migrations:expr),* $(,)?]) => {
        $crate::Subject::new(
            [$(::std::path::PathBuf::from($migrations)),*],
            |pool: $crate::__private::PgPool, event: $event| async move {
                $handler(&pool, &event).await
            },
        )
    };
}

/// `kit::lesson_subject!(check_then_act: CreditEvent => Outcome, on "ledger", plus its own
/// migrations)`: a lesson's subject module. It writes the lesson's base schema
/// (`BASE_MIGRATIONS`, from `migrations/ledger`, or an array for `on ["a", "b"]`), its `Handler`
/// trait (the kit's [`Handler`] for its event and output), its `Subject`, and its exported
/// `subject!(handler::apply)`, which adapts a student's `async fn(&PgPool, &Event)`. With
/// `plus its own migrations`, the crate under test adds its own `migrations/`, and
/// `subject!(handler, dir)` names another crate's directory (the maintainers' checks test the
/// exercise and the solution from one place).
///
/// The written `subject!` names the lesson crate by its name, not `$crate`: a macro that a macro
/// writes cannot reach its own crate through `$crate`, which would name the kit. For the same
/// reason, the `Handler` trait names the event as `crate::Event`: the lesson's crate, on purpose.
#[macro_export]
#[allow(clippy::crate_in_macro_def)]
macro_rules! lesson_subject {
    ($krate:ident: $event:ident => $output:ty, on $base:literal $(, $($own:tt)+)?) => {
        #[doc(hidden)]
        pub const BASE_MIGRATIONS: &str =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/", $base);
        $crate::lesson_subject!(@write ($) $krate $event [$output]
            ([::$krate::__private::BASE_MIGRATIONS]) $($($own)+)?);
    };
    ($krate:ident: $event:ident => $output:ty, on [$($base:literal),+]) => {
        #[doc(hidden)]
        pub const BASE_MIGRATIONS: [&str; [$($base),+].len()] =
            [$(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/", $base)),+];
        $crate::lesson_subject!(@write ($) $krate $event [$output]
            (::$krate::__private::BASE_MIGRATIONS));
    };
    (@write ($d:tt) $krate:ident $event:ident [$output:ty] ($base:expr)) => {
        $crate::lesson_subject!(@types $event $output);
        #[macro_export]
        macro_rules! subject {
            ($d handler:path) => {
                ::$krate::__private::kit::Subject::new(
                    $base,
                    |pool: ::$krate::__private::kit::__private::PgPool, event: ::$krate::$event| {
                        async move { $d handler(&pool, &event).await }
                    },
                )
            };
        }
    };
    (@write ($d:tt) $krate:ident $event:ident [$output:ty] ($base:expr)
        plus its own migrations) => {
        $crate::lesson_subject!(@types $event $output);
        #[macro_export]
        macro_rules! subject {
            ($d handler:path) => {
                ::$krate::subject!($d handler, env!("CARGO_MANIFEST_DIR"))
            };
            ($d handler:path, $d crate_dir:expr) => {
                ::$krate::__private::kit::Subject::new(
                    $base.into_iter().map(::std::path::PathBuf::from).chain([
                        ::std::path::Path::new($d crate_dir).join("migrations"),
                    ]),
                    |pool: ::$krate::__private::kit::__private::PgPool, event: ::$krate::$event| {
                        async move { $d handler(&pool, &event).await }
                    },
                )
            };
        }
    };
    (@types $event:ident $output:ty) => {
        /// The lesson's handlers, adapted by `subject!` to the kit's [`kit::Handler`] shape.
        pub trait Handler:
            $crate::Handler<crate::$event, Output = Result<$output, sqlx::Error>>
        {
        }

        impl<H> Handler for H where
            H: $crate::Handler<crate::$event, Output = Result<$output, sqlx::Error>>
        {
        }

        /// A handler with the schema it was written for.
        pub type Subject<H> = $crate::Subject<H>;
    };
}

/// A handler and its schema travel together, because they are only right together: lesson
/// 01's exercise has a table without a key, its solution a table with one.
#[derive(Clone)]
pub struct Subject<H> {
    pub handler: H,
    pub schema: Schema,
}

impl<H> Subject<H> {
    /// `migrations` are applied in version order: a lesson's base schema, then the crate's own.
    pub fn new<P: Into<PathBuf>>(migrations: impl IntoIterator<Item = P>, handler: H) -> Self {
        Subject {
            handler,
            schema: Schema::from_dirs(migrations),
        }
    }

    /// Runs lesson `L`'s tests against this handler, as `cargo test` runs a test binary: an
    /// exercise's and a solution's whole test file is `fn main` calling this.
    pub fn tested_by<L>(self) -> ExitCode
    where
        L: Lesson,
        H: Handler<L::Event, Output = L::Output>,
    {
        super::harness::main::<L, H>(self)
    }
}
