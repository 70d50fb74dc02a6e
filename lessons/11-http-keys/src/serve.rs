//! `cargo workbook serve 11` (and 12): the payment API, in front of the solution's handler (or,
//! with `--mine`, the student's), on a port of 127.0.0.1, against the development database, for
//! `curl` and the book's "Call the payment API by hand". It runs until it is stopped (Ctrl-C),
//! and prints a line for every request that reached the handler. Lesson 12 serves the same API
//! in front of a handler that charges at the provider, so it starts its server through
//! [`main_for`].

use std::process::ExitCode;

use sqlx::PgPool;

use crate::server::Server;
use crate::{Handler, PaymentRequest, Reply, ShowPayment, Subject};

/// The port when none is given: 8000 and the lesson's number (8011, 8012), so that the book's
/// commands work as printed and both lessons' APIs can run at once.
pub fn default_port(lesson: u8) -> u16 {
    8000 + u16::from(lesson)
}

#[derive(Debug)]
struct Arguments {
    lesson: u8,
    database: String,
    fresh: bool,
    port: u16,
}

impl Arguments {
    fn parse(lesson: u8, mut args: impl Iterator<Item = String>) -> Result<Arguments, String> {
        let (mut database, mut fresh, mut port) = (None, false, default_port(lesson));
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--database" => database = args.next(),
                "--fresh" => fresh = true,
                "--port" => {
                    let value = args.next().unwrap_or_default();
                    port = value.parse().map_err(|_| {
                        format!("--port takes a port number (0 for any free one), not {value:?}")
                    })?;
                }
                other => return Err(format!("unknown argument {other}")),
            }
        }
        let database = database.ok_or("--database NAME is required")?;
        Ok(Arguments {
            lesson,
            database,
            fresh,
            port,
        })
    }
}

/// The `serve` binary of lesson 11's exercise and solution:
/// `serve --database NAME [--fresh] [--port N]`, run by `cargo workbook serve 11`.
pub fn main<H: Handler>(subject: Subject<H>) -> ExitCode {
    main_for(11, subject, crate::from_payments)
}

/// The `serve` binary of lesson `lesson`, whose `subject` answers lesson 11's requests and whose
/// payments `show` reads.
pub fn main_for<H: Handler>(lesson: u8, subject: Subject<H>, show: ShowPayment) -> ExitCode {
    let parse = move |args| Arguments::parse(lesson, args);
    kit::deliver::by_hand_binary(parse, async |arguments: Arguments| {
        match serve(&arguments, subject, show).await {
            Ok(never) => match never {},
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Serves until the process is stopped: it returns only to say why it could not start.
async fn serve<H: Handler>(
    arguments: &Arguments,
    subject: Subject<H>,
    show: ShowPayment,
) -> Result<std::convert::Infallible, String> {
    let Arguments {
        lesson,
        database,
        fresh,
        port,
    } = arguments;
    let pool = kit::deliver::lesson_database(database, *fresh, &subject.schema).await?;
    let addr = format!("127.0.0.1:{port}");
    let server = (Server::start_on(&addr, pool, logged(subject.handler), show).await).map_err(
        |e| match e.kind() {
            std::io::ErrorKind::AddrInUse => format!(
                "port {port} is taken (is another `cargo workbook serve` still running?): stop \
                 it, or pick another port with --port (--port 0 takes any free one)"
            ),
            _ => format!("the payment API could not listen on port {port}: {e}"),
        },
    )?;
    let url = server.url();
    println!("Lesson {lesson}'s payment API listens on {url}, against the database {database}.");
    println!(
        "Try: curl -si {url}/payments -H 'Authorization: Bearer acme' \
         -H 'Idempotency-Key: k-1' --json '{{\"amount_cents\": 1500, \"currency\": \"eur\"}}'"
    );
    println!("Each request the handler answers is shown below. Ctrl-C stops the API.");
    std::future::pending().await
}

/// `handler`, printing what it replied to each request, so that the terminal running the API
/// shows the requests a `curl` in another terminal made.
fn logged<H: Handler>(handler: H) -> impl Handler {
    move |pool: PgPool, request: PaymentRequest| {
        let handler = handler.clone();
        async move {
            let who = format!("{}, key {}", request.client(), request.key());
            let reply = kit::Handler::call(&handler, pool, request).await;
            let said = match &reply {
                Ok(Reply::Created(stored)) => format!("{} (created)", stored.status),
                Ok(Reply::Replayed(stored)) => format!("{} (replayed)", stored.status),
                Ok(Reply::KeyReused) => "422 (the key was used for another request)".into(),
                Ok(Reply::InFlight) => "409 (the key's first request is in flight)".into(),
                Ok(Reply::Unavailable { .. }) => "503 (the outcome is not known yet)".into(),
                Err(error) => format!("500 ({})", kit::describe_sqlx(error)),
            };
            println!("POST /payments ({who}): {said}");
            reply
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Arguments, String> {
        Arguments::parse(11, args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn the_port_is_the_lessons_unless_given() {
        let given = parse(&["--database", "workbook_11", "--port", "0"]).unwrap();
        assert_eq!(given.port, 0);
        assert_eq!(parse(&["--database", "workbook_11"]).unwrap().port, 8011);
        let twelve = Arguments::parse(12, ["--database", "w"].map(String::from).into_iter());
        assert_eq!(twelve.unwrap().port, 8012);
        let refused = parse(&["--database", "workbook_11", "--port", "http"]);
        assert!(refused.unwrap_err().contains("not \"http\""));
        assert!(parse(&["--port", "1"]).unwrap_err().contains("--database"));
    }
}
