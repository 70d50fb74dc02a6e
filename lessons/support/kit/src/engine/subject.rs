//! What a lesson's scenarios test: a handler, and the schema it was written for.

use std::future::Future;
use std::path::PathBuf;

use sqlx::PgPool;

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
}
