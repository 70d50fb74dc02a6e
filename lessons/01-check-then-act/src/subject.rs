use std::future::Future;
use std::path::Path;

use kit::Schema;
use sqlx::PgPool;

use crate::{CreditEvent, Outcome};

/// The base schema every lesson-01 crate starts from.
const BASE_MIGRATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/ledger");

/// A handler as the scenarios call it: owned arguments, so each call can run in a task of its
/// own. The [`subject!`](crate::subject) macro adapts a student's
/// `async fn apply_credit(&PgPool, &CreditEvent)` to this shape.
pub trait Handler: Clone + Send + Sync + 'static {
    fn call(
        &self,
        pool: PgPool,
        event: CreditEvent,
    ) -> impl Future<Output = Result<Outcome, sqlx::Error>> + Send + 'static + use<Self>;
}

impl<F, Fut> Handler for F
where
    F: Fn(PgPool, CreditEvent) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome, sqlx::Error>> + Send + 'static,
{
    fn call(
        &self,
        pool: PgPool,
        event: CreditEvent,
    ) -> impl Future<Output = Result<Outcome, sqlx::Error>> + Send + 'static + use<F, Fut> {
        self(pool, event)
    }
}

/// What a scenario tests: a handler, and the schema it was written for. They travel together
/// because the exercise's table has no key and the solution's has one.
#[derive(Clone)]
pub struct Subject<H> {
    pub(crate) handler: H,
    pub(crate) schema: Schema,
}

impl<H: Handler> Subject<H> {
    /// `crate_dir` holds the crate's own `migrations/`, applied after the base schema.
    pub fn new(crate_dir: impl AsRef<Path>, handler: H) -> Subject<H> {
        Subject {
            handler,
            schema: Schema::from_dirs([
                Path::new(BASE_MIGRATIONS).to_path_buf(),
                crate_dir.as_ref().join("migrations"),
            ]),
        }
    }
}

/// `subject!(handler::apply_credit)`: the handler of the crate being tested, with that crate's
/// migrations. A second argument names another crate's directory (the maintainers' checks use
/// it to test the exercise and the solution from one place).
#[macro_export]
macro_rules! subject {
    ($handler:path) => {
        $crate::subject!($handler, env!("CARGO_MANIFEST_DIR"))
    };
    ($handler:path, $crate_dir:expr) => {
        $crate::Subject::new(
            $crate_dir,
            |pool: $crate::__private::PgPool, event: $crate::CreditEvent| async move {
                $handler(&pool, &event).await
            },
        )
    };
}
