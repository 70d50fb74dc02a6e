//! `cargo run -p workbook-measure --bin http_load [-- --requests N]`: lesson 11's solution under
//! load, on loopback, measured and checked (timings belong in notes, never in tests).
//!
//! One API (axum) in front of the solution's handler, with a pool of as many connections as
//! there are clients; 32 clients (reqwest) send N requests over 40 keys of two API clients, in
//! bursts that put several requests of one key in flight at once, and one request in ten asks
//! for another amount than its key's others. Every answer is then judged as chapter 11 says:
//! - each key pays once (the payments table has one row per key, for the amount of the request
//!   whose answer was not marked a replay);
//! - every other request with that body gets those same bytes, marked `Idempotent-Replayed`;
//! - every request with the other body gets a 422;
//! - a 409 (the key in flight past the handler's lock_timeout) is allowed and counted; a 5xx
//!   never is.
//!
//! It prints requests per second and latency percentiles (whole requests, client to client),
//! and exits non-zero if a check failed.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_keys::server::Server;
use http_keys::{Answer, Call, ServerError, send};
use kit::TestDatabase;

const CLIENTS: usize = 32;
const KEYS: usize = 40;
/// Requests of one key sent one after the other, before the next key's.
const BURST: usize = 8;
/// One request in this many asks for another amount under its key.
const CHANGED_EVERY: usize = 10;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let requests = match parse(std::env::args().skip(1)) {
        Ok(requests) => requests,
        Err(message) => {
            eprintln!("{message}\nusage: http_load [--requests N]   (default 20000)");
            return ExitCode::from(2);
        }
    };
    match run(requests).await {
        Ok(failures) if failures.is_empty() => ExitCode::SUCCESS,
        Ok(failures) => {
            for failure in failures {
                eprintln!("FAILED: {failure}");
            }
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<usize, String> {
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(20_000),
        (Some("--requests"), Some(n)) => n.parse().ok().filter(|&n| n >= KEYS).ok_or(format!(
            "--requests takes a number of at least {KEYS}, not {n}"
        )),
        (Some(other), _) => Err(format!("unknown argument: {other}")),
    }
}

/// Request `i` of the run: keys taken in turn, in bursts of [`BURST`] requests, so that the 32
/// clients, each taking the next request, keep several requests of each of a few keys in flight
/// together; every tenth request, whichever key it falls on, asks for one cent more.
fn call(i: usize) -> Call {
    let key = (i / BURST) % KEYS;
    let client = if key.is_multiple_of(2) {
        "acme"
    } else {
        "globex"
    };
    let amount = 100 + key as i64 + i64::from(i % CHANGED_EVERY == CHANGED_EVERY - 1);
    Call {
        client: client.into(),
        key: format!("load-{key}"),
        body: format!(r#"{{"amount_cents": {amount}, "currency": "eur"}}"#),
    }
}

struct Sent {
    call: Call,
    took: Duration,
    answer: Result<Answer, ServerError>,
}

async fn run(requests: usize) -> Result<Vec<String>, String> {
    let solution = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../../solutions/11-http-keys"
    );
    let subject = http_keys::subject!(solution_11::create_payment, solution);
    let db = (TestDatabase::create(&subject.schema).await).map_err(|e| e.to_string())?;
    let pool = (db.pool(CLIENTS as u32).await).map_err(|e| e.to_string())?;
    let server = (Server::start(pool.clone(), subject.handler).await).map_err(|e| e.to_string())?;
    let url = Arc::new(server.url());
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CLIENTS)
        .build()
        .map_err(|e| e.to_string())?;
    println!(
        "{requests} requests over {KEYS} keys from {CLIENTS} clients (connections), one in \
         {CHANGED_EVERY} with a changed body; pool of {CLIENTS} database connections"
    );

    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (client, url, next) = (client.clone(), url.clone(), next.clone());
            tokio::spawn(async move {
                let mut sent = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= requests {
                        return sent;
                    }
                    let call = call(i);
                    let start = Instant::now();
                    let answer = send(&client, &url, &call).await;
                    sent.push(Sent {
                        call,
                        took: start.elapsed(),
                        answer,
                    });
                }
            })
        })
        .collect();
    let mut sent = Vec::with_capacity(requests);
    for task in tasks {
        sent.extend(task.await.map_err(|e| e.to_string())?);
    }
    let elapsed = started.elapsed();
    server.stop().await;

    let mut took: Vec<Duration> = sent.iter().map(|s| s.took).collect();
    took.sort();
    let at = |q: f64| took[((took.len() - 1) as f64 * q).round() as usize];
    println!(
        "{:.0} requests/s over {:.2} s; latency p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max \
         {:.1} ms",
        requests as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64(),
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(0.99)),
        ms(at(1.0)),
    );
    let payments: Vec<(String, i64)> =
        sqlx::query_as("SELECT client_id, amount_cents FROM payments ORDER BY id")
            .fetch_all(&pool)
            .await
            .map_err(|e| e.to_string())?;
    Ok(judge(&sent, &payments))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Chapter 11's promises, checked on every answer, and the counts printed.
fn judge(sent: &[Sent], payments: &[(String, i64)]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut statuses: HashMap<String, usize> = HashMap::new();
    let mut by_key: HashMap<(&str, &str), Vec<&Sent>> = HashMap::new();
    for s in sent {
        let status = match &s.answer {
            Ok(answer) if answer.replayed => format!("{} (replayed)", answer.status),
            Ok(answer) => answer.status.to_string(),
            Err(error) => {
                failures.push(format!("{} {}: {error:?}", s.call.client, s.call.key));
                format!("{:?} (server error)", error.status)
            }
        };
        *statuses.entry(status).or_default() += 1;
        by_key
            .entry((s.call.client.as_str(), s.call.key.as_str()))
            .or_default()
            .push(s);
    }
    let mut counts: Vec<_> = statuses.into_iter().collect();
    counts.sort();
    println!("answers: {counts:?}");
    println!("payments: {} for {} keys", payments.len(), by_key.len());
    if payments.len() != by_key.len() {
        failures.push(format!(
            "{} payments for {} keys: each key pays once",
            payments.len(),
            by_key.len()
        ));
    }
    let mut paid_for = Vec::new();
    for ((client, key), sent) in by_key {
        let answers: Vec<(&Call, &Answer)> = (sent.iter())
            .filter_map(|s| s.answer.as_ref().ok().map(|a| (&s.call, a)))
            .collect();
        let created: Vec<_> = (answers.iter())
            .filter(|(_, a)| a.status == 201 && !a.replayed)
            .collect();
        let [(first_call, first)] = created.as_slice() else {
            failures.push(format!(
                "{client} {key}: {} answers created a payment, not one",
                created.len()
            ));
            continue;
        };
        let body: serde_json::Value = serde_json::from_str(&first_call.body).unwrap_or_default();
        paid_for.push((
            client.to_string(),
            body["amount_cents"].as_i64().unwrap_or(0),
        ));
        for (call, answer) in &answers {
            let fine = match answer.status {
                409 => true,
                201 => call.body == first_call.body && answer.body == first.body,
                422 => call.body != first_call.body,
                _ => false,
            };
            if !fine {
                failures.push(format!(
                    "{client} {key}: {} was answered {answer:?} {}; the key's payment was made \
                     by {} and answered {}",
                    call.body, answer.body, first_call.body, first.body
                ));
            }
        }
    }
    let mut paid = payments.to_vec();
    paid.sort();
    paid_for.sort();
    if paid != paid_for {
        failures.push(format!(
            "the payments made {paid:?} are not those the created answers promised {paid_for:?}"
        ));
    }
    failures
}
