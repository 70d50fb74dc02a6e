use std::fmt;

use chrono::{DateTime, Utc};

use kit::{Calls, Common, Explain, Speaks, Topic, Words};

use crate::Answer;

pub use kit::{Delivery, FailureCause};

kit::violations!(chapter "11");

/// A key's row that the expiry job left, though it ran past the key's window.
#[derive(Debug)]
pub struct Kept {
    /// `created_at` when the key's first request had been answered.
    pub claimed: DateTime<Utc>,
    /// `created_at` once the job had run.
    pub now: DateTime<Utc>,
}

/// How a message prints a moment: to the microsecond, as PostgreSQL keeps it.
const TIME: &str = "%Y-%m-%d %H:%M:%S%.6f UTC";

#[derive(Debug)]
pub enum ViolationKind {
    /// One key, and `payments` payments for it; `created` answers said 201 without being
    /// marked as replays.
    PaidTwice {
        client: String,
        payments: usize,
        created: usize,
        /// Whether the requests overlapped (a race), or each came after the last had finished.
        overlapped: bool,
    },
    /// Every request is over and the key's client has no payment.
    NeverPaid {
        client: String,
        answers: Vec<String>,
    },
    /// A retry of the request that created the payment got a body other than the first one.
    ReplayDiffers { first: String, again: String },
    /// A retry got the first response, but not marked `Idempotent-Replayed: true`.
    ReplayNotMarked { first: String, again: String },
    /// A retry of the request that created the payment was refused.
    SameRequestRefused { answer: String, body: String },
    /// A different request under a used key got something other than a 422. `differs` names
    /// the first field it differed in.
    KeyReusedNotRefused {
        differs: Field,
        answer: String,
        body: String,
    },
    /// A 409 without `Retry-After`.
    InFlightWithoutRetryAfter { answer: String },
    /// A client was answered with a payment that is not its own.
    NotItsPayment { client: String, answer: String },
    /// `client` was answered `answer`, whose body gives `named` for the payment's id, where
    /// its payment is `payment`: no payment has that id.
    NamesNoPayment {
        client: Box<str>,
        answer: Box<str>,
        named: Box<str>,
        payment: Box<str>,
    },
    /// The expiry job ran once the key's window was over, and a request under the key was
    /// still answered as a replay. `kept`: the job left the key's row, and why.
    RememberedPastWindow { answer: String, kept: Option<Kept> },
    /// What any lesson can catch: a failed or stuck request, a hidden failure, a test that
    /// could not run.
    Common(Common<Box<Answer>>),
}

/// A field of a payment's body, where two requests under one key first differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Amount,
    Currency,
    Description,
    /// Not a payment the API reads (the body is not one): the bytes differ.
    Body,
}

impl Field {
    /// The first field in which `asked` asks for another payment than `first` does.
    pub fn between(first: &crate::Call, asked: &crate::Call) -> Field {
        let payment = |call: &crate::Call| serde_json::from_str::<crate::NewPayment>(&call.body);
        match (payment(first), payment(asked)) {
            (Ok(first), Ok(asked)) if first.amount_cents != asked.amount_cents => Field::Amount,
            (Ok(first), Ok(asked)) if first.currency != asked.currency => Field::Currency,
            (Ok(first), Ok(asked)) if first.description != asked.description => Field::Description,
            _ => Field::Body,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Amount => "amount",
            Field::Currency => "currency",
            Field::Description => "description",
            Field::Body => "body",
        })
    }
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::REQUESTS,
        aggregate: "key",
        retrier: "client",
        lost: "the payment the client believes in was never made",
        reporting_rule: "A request whose work did not commit must fail (a 5xx), so that the \
                         client sends it again with the same key.",
        second_process: "a second instance of the API",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess => see("One payment per key"),
            Topic::Neighbours => see("A key belongs to its client"),
            Topic::Reporting => see("A failed request leaves its key free"),
            Topic::Failed(FailureCause::Cancelled | FailureCause::LockNotAvailable) => {
                see("While the first request is in flight")
            }
            Topic::Failed(FailureCause::PoolExhausted | FailureCause::UnexpectedNull) => {
                see("The response is stored with the payment")
            }
            Topic::Failed(_) => see("One payment per key"),
        }
    }

    fn meaning(cause: FailureCause) -> Option<&'static str> {
        match cause {
            FailureCause::Cancelled | FailureCause::LockNotAvailable => Some(
                "The request's wait was cut short (as statement_timeout or lock_timeout cuts \
                 it) while another request under its key had not finished. Nothing was done, \
                 and the first request may still succeed: the client needs to hear \"in \
                 flight, come back later\" (409 with Retry-After), not that the API failed.",
            ),
            _ => None,
        }
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Box<Answer>);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::PaidTwice {
                client,
                payments,
                created,
                overlapped,
            } => {
                write!(
                    f,
                    "{client} sent its requests under one idempotency key, and now has \
                     {payments} payments; {created} response(s) said 201 as if each had created \
                     one.\nThe key is there to make a retry safe, and the client was charged \
                     once per request anyway. "
                )?;
                if *overlapped {
                    write!(
                        f,
                        "The requests overlapped, and more than one decided that the key was \
                         new: whatever each consulted could not show it a request that had not \
                         committed yet. Only a claim the database itself arbitrates (a unique \
                         key that makes the second claim wait, then fail) decides between two \
                         requests that are both still running."
                    )?;
                } else {
                    write!(
                        f,
                        "The retry came after the first request had committed, and still \
                         created a payment: the key did not commit with the first payment, or \
                         the retry looked for it under something other than its client and key."
                    )?;
                }
                write!(f, "\n{}", see("One payment per key"))
            }
            ViolationKind::NeverPaid { client, answers } => {
                writeln!(
                    f,
                    "every request is over and {client} has no payment; the API answered: {}.",
                    answers.join("; ")
                )?;
                if answers.iter().all(|answer| answer.starts_with("409")) {
                    write!(
                        f,
                        "The API still treats the key as taken, with no payment and no response \
                         behind it, and turns every retry away: the client can never pay under \
                         it. Whatever a request that failed did to its key must be undone with \
                         the rest of its work.\n{}",
                        see("A failed request leaves its key free")
                    )
                } else {
                    write!(
                        f,
                        "The client was answered, and nothing it was answered about is in the \
                         payments table: whatever made those answers did not commit a \
                         payment.\n{}",
                        see("The response is stored with the payment")
                    )
                }
            }
            ViolationKind::ReplayDiffers { first, again } => write!(
                f,
                "a retry of the request that created the payment got a different body than the \
                 first response.\n  first: {first}\n  retry: {again}\n\
                 The client sends a retry because it did not get the first response, or could \
                 not trust it: the retry must give it that response, as it was, whatever \
                 happened to the payment since (a refund, say). A response built again from \
                 the payment as it is now is a different answer to the same request.\n{}",
                see("The response is stored with the payment")
            ),
            ViolationKind::ReplayNotMarked { first, again } => write!(
                f,
                "a retry got the first response ({again}, after {first}), but not marked as a \
                 replay: no `Idempotent-Replayed: true`. The body is right; the client cannot \
                 tell that it created nothing, and a client that counts payments by 201s counts \
                 this one twice.\n{}",
                see("The response is stored with the payment")
            ),
            ViolationKind::SameRequestRefused { answer, body } => write!(
                f,
                "a retry of the very request that created the payment was answered {answer}: \
                 {body}\n\
                 The same key with the same request (the same method, path and body, whatever \
                 the order of its JSON fields or its whitespace) is a retry, and gets the first \
                 response back.\n{}",
                see("A key stands for one request")
            ),
            ViolationKind::KeyReusedNotRefused {
                differs,
                answer,
                body,
            } => write!(
                f,
                "a different request (another {differs}) came under a key already used, and was \
                 answered {answer}: {body}\n\
                 The client believes it made a second payment, and it got the first one's \
                 response, or the first one's key did something else. A key stands for one \
                 request: the same key with a different request is a bug in the client, and is \
                 refused (422), whenever it arrives, also while the first request is still \
                 being written.\n{}",
                see("A key stands for one request")
            ),
            ViolationKind::InFlightWithoutRetryAfter { answer } => write!(
                f,
                "a request was told its key is in flight ({answer}) with no Retry-After header: \
                 the client learns that it should come back, not when.\n{}",
                see("While the first request is in flight")
            ),
            ViolationKind::NotItsPayment { client, answer } => write!(
                f,
                "{client} was answered {answer}, and that is not a payment of {client}'s: the \
                 response belongs to another payment, perhaps another client's.\n\
                 Two clients choose their keys without asking each other, and may choose the \
                 same one; a key is unique within its client, never across clients, or one \
                 client is shown another's payment.\n{}",
                see("A key belongs to its client")
            ),
            ViolationKind::NamesNoPayment {
                client,
                answer,
                named,
                payment,
            } => write!(
                f,
                "{client} was answered {answer}, whose body gives {named} for the payment, \
                 where {client}'s payment is {payment}: no payment of any client has that id.\n\
                 The body is what the client keeps of its payment, and the id is how it finds \
                 the payment again (GET /payments/{payment}, the Location of the 201): a \
                 response under the key gives the client the response the first request got, \
                 the same bytes, its id included.\n{}",
                see("The response is stored with the payment")
            ),
            ViolationKind::RememberedPastWindow {
                answer,
                kept: Some(kept),
            } => write!(
                f,
                "the keys' expiry job ran once the key's 24-hour window was over, and left the \
                 key's row in idempotency_keys: its created_at read {}, where the key's first \
                 request had claimed it at {}, so the job, which deletes by created_at, took it \
                 for a recent key. The same request under the key was then answered {answer}, a \
                 replay.\n\
                 Something wrote created_at after the key was claimed (an UPDATE or an upsert on \
                 the replay's path, for instance). The window the API publishes counts from the \
                 key's first request; a key whose created_at moves each time it is used stays for \
                 as long as its client keeps using it, and the table is no longer bounded by the \
                 window.\n{}",
                kept.now.format(TIME),
                kept.claimed.format(TIME),
                see("Keys do not live forever")
            ),
            ViolationKind::RememberedPastWindow { answer, kept: None } => write!(
                f,
                "the keys' expiry job deleted the key's row from idempotency_keys (claimed more \
                 than 24 hours before the job ran), and the same request under the key was \
                 still answered {answer}, a replay.\n\
                 The API publishes how long it remembers a key, and its storage is bounded by \
                 that window: the handler answers from a key's row, and from nothing the job \
                 cannot reach, or that other store grows for as long as the API runs.\n{}",
                see("Keys do not live forever")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
