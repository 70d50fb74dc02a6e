//! What a lesson-12 scenario caught, worded to teach: what happened (from what the test read at
//! the provider and in our books), why it is wrong, and where chapter 12 explains it.

use std::fmt;

use http_keys::{Answer, Field};
use kit::{Calls, Common, Explain, Speaks, Topic, Words};

pub use kit::{Delivery, FailureCause};

kit::violations!(chapter "12");

#[derive(Debug)]
pub enum ViolationKind {
    /// The provider charged the client's card more than once for one request under one key.
    /// `keyless`: how many of the charges were asked for without a key of ours.
    ChargedTwice {
        charges: i64,
        keyless: usize,
    },
    /// The provider charged once, and our books say otherwise: no record (a charge lost to us),
    /// or more than one (a zombie, or a completer, recorded it again).
    BooksDisagree {
        /// How many payments the provider charged, once each.
        payments: u32,
        recorded: u32,
        charged_cents: i64,
        amount: i64,
        /// What the client was answered, when it came back (none: judged before any retry).
        answers: Vec<String>,
    },
    /// Every request and the completer are done, and the provider never charged.
    NeverCharged {
        answers: Vec<String>,
    },
    /// Every request is done, and the client's last answer is not the payment (a 201 naming
    /// the provider's charge).
    LastAnswerNotThePayment {
        answer: String,
        body: String,
    },
    /// The provider refused charges we asked for, for the reasons its log gives (`acme: …`).
    ProviderRefused {
        reasons: Vec<String>,
        answers: Vec<String>,
    },
    /// A key used again after our window was over: two payments asked for, and the provider's
    /// charges (`provider`) and the ones our records name (`recorded`) are not two and the same.
    KeyReusedAfterTheWindow(Box<AfterTheWindow>),
    /// A request that asked for another payment under a key already used (another `differs`)
    /// was answered something other than a refusal.
    KeyReusedNotRefused {
        differs: Field,
        answer: String,
        body: String,
    },
    /// acme asked for payments under different keys (`keys`), and the provider made fewer
    /// charges (`charges`): two payments were taken for one.
    PaymentsMerged(Box<Merged>),
    /// A 503 or 409 that does not say when to come back.
    NoRetryAfter {
        answer: String,
    },
    /// The completer finished a key whose request was still within its lease.
    TookOverALiveLease {
        answer: String,
    },
    /// Another client's request, to the same instance of the API, was not answered with its
    /// payment while a request waited on a slow provider.
    HeldUpByASlowProvider {
        answer: String,
    },
    Common(Common<Box<Answer>>),
}

/// What the provider and our books held after a key was used again past our window (boxed: a
/// violation travels in every test's `Result`).
#[derive(Debug)]
pub struct AfterTheWindow {
    /// The provider's charges (`ch_1`, …).
    pub provider: Vec<String>,
    /// The provider's charge each of our records names.
    pub recorded: Vec<String>,
    /// The new payment's answer.
    pub answer: String,
}

/// Payments asked for under different keys, and the fewer charges the provider made for them
/// (boxed: a violation travels in every test's `Result`).
#[derive(Debug)]
pub struct Merged {
    /// The keys acme sent, one per payment.
    pub keys: Vec<String>,
    /// The provider's charges (`ch_1`, …).
    pub charges: Vec<String>,
    /// What acme was answered, in order.
    pub answers: Vec<String>,
}

impl Speaks for ViolationKind {
    const WORDS: Words = Words {
        calls: Calls::REQUESTS,
        aggregate: "key",
        retrier: "client",
        lost: "the charge the client believes in was never made",
        reporting_rule: "A request whose work is not done must say so (a 503 or a 409 with \
                         Retry-After), so that the client sends it again with the same key.",
        second_process: "a second instance of the API",
    };

    fn see(topic: Topic) -> String {
        match topic {
            Topic::OneProcess | Topic::Neighbours | Topic::Failed(_) => {
                see("A charge no transaction can take back")
            }
            Topic::Reporting => see("Recovery points"),
        }
    }

    fn meaning(_: FailureCause) -> Option<&'static str> {
        None
    }
}

impl Explain<Delivery> for ViolationKind {
    kit::common_kinds!(Box<Answer>);

    fn explain(&self, during: &Delivery, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.open(during, f)?;
        match self {
            ViolationKind::ChargedTwice {
                charges,
                keyless: 0,
            } => write!(
                f,
                "the provider charged acme's card {charges} times for one request under one \
                 idempotency key, each time under a provider key of its own.\nThe provider \
                 dedupes on its key alone: an attempt that asks under a key no earlier attempt \
                 used asks the provider again as if for the first time. Every attempt at one \
                 request (the first, a retry, the completer) must ask under the one provider key \
                 stored with the claim, not one made for the attempt, nor one written after \
                 another attempt had asked. The client paid again for every such attempt.\n{}",
                see("A charge no transaction can take back")
            ),
            // Asked without a key: the shipped handler's rollback, or phases with no key.
            ViolationKind::ChargedTwice { charges, .. } => write!(
                f,
                "the provider charged acme's card {charges} times for one request under one \
                 idempotency key.\nNo transaction of ours can take a charge back: a rollback \
                 forgets that we asked, not that the provider charged, and a request that \
                 finds no trace of the earlier attempt asks the provider again as if for the \
                 first time. The client paid again for every such attempt.\n{}",
                see("A charge no transaction can take back")
            ),
            ViolationKind::BooksDisagree {
                payments,
                recorded,
                charged_cents,
                amount,
                answers,
            } => write!(
                f,
                "the provider charged acme {} ({amount} cents), and our books hold {recorded} \
                 record(s) of it, {charged_cents} cents in all.\n{}\n{}",
                match payments {
                    1 => "once".to_string(),
                    n => format!("{n} times, once for each key"),
                },
                match (*recorded, &answers[..]) {
                    (0, []) => "A charge the provider made and we never recorded is money taken \
                                that our books cannot account for, and a client that never comes \
                                back is never told of it."
                        .to_string(),
                    (0, answers) => format!(
                        "acme's requests were answered, in order: {}; and none recorded the \
                         charge. A charge the provider made and we never recorded is money taken \
                         that our books cannot account for, however often the client asks.",
                        answers.join("; ")
                    ),
                    (1, _) => format!(
                        "The charge is recorded once, and acme's total in `clients` says \
                         {charged_cents} cents, not {amount}: our books disagree with themselves."
                    ),
                    _ => "Two requests recorded one charge: one of them worked on the key after \
                          it had lost it (its lease ran out and another took the key over). The \
                          last phase writes only while the key is still the request's own."
                        .to_string(),
                },
                see("Recovery points")
            ),
            ViolationKind::NeverCharged { answers } => write!(
                f,
                "every request and the completer are done, and the provider never charged; the \
                 client was answered: {}.\n{}",
                answers.join("; "),
                see("Recovery points")
            ),
            ViolationKind::ProviderRefused { reasons, answers } => write!(
                f,
                "the provider refused {} charge(s) we asked for, and made none of them; its log \
                 says: {}. acme was answered: {}.\nA refusal is final: the same charge under \
                 the same key is refused again, so no retry and no completer can ever make this \
                 payment. What the handler sends the provider, its key included, must keep the \
                 provider's rules.\n{}",
                reasons.len(),
                reasons.join("; "),
                answers.join("; "),
                see("The provider's key")
            ),
            ViolationKind::KeyReusedAfterTheWindow(seen) => {
                let AfterTheWindow {
                    provider,
                    recorded,
                    answer,
                } = &**seen;
                let shown = |ids: &[String]| match ids {
                    [] => "none".to_string(),
                    ids => ids.join(", "),
                };
                writeln!(
                    f,
                    "the provider made {} charge(s) ({}), our books record {} payment(s), \
                     naming {}, and the new payment was answered {answer}.",
                    provider.len(),
                    shown(provider),
                    recorded.len(),
                    shown(recorded),
                )?;
                let mut named: Vec<_> = recorded.clone();
                named.sort();
                named.dedup();
                if named.len() < recorded.len() {
                    writeln!(
                        f,
                        "Two of our payments name one charge: the provider answered the new \
                         payment with the charge it made for the first, so the key we sent it \
                         the second time was one it had already seen. The provider remembers \
                         keys longer than our API does (Stripe's v2 API keeps them 30 days), \
                         and a provider key that the client's request decides (its key, its \
                         name, its body) is the same for a new payment under a key we have \
                         forgotten: the client is told it paid, and was never charged."
                    )?;
                } else {
                    writeln!(
                        f,
                        "Each payment is charged once and recorded once, under a charge of its \
                         own: the second request is a new payment, since our API had forgotten \
                         the key."
                    )?;
                }
                write!(f, "{}", see("The provider's key"))
            }
            ViolationKind::KeyReusedNotRefused {
                differs,
                answer,
                body,
            } => write!(
                f,
                "a request for another payment (another {differs}) came under a key acme had \
                 already used, and was answered {answer}: {body}\n\
                 The client believes it made a second payment, and got the first one's \
                 response, or was charged for something it did not ask under that key. A key \
                 stands for one request: a different request under it is refused (422), \
                 whatever state the key is in, finished included.\n{}",
                see("One key, one request, finished or not")
            ),
            ViolationKind::PaymentsMerged(merged) => {
                let Merged {
                    keys,
                    charges,
                    answers,
                } = &**merged;
                write!(
                    f,
                    "acme asked for {} payments, each under a key of its own ({}), and the provider \
                 made {} charge(s) ({}); acme was answered: {}.\n\
                 Two requests alike in all but their key are two payments: a client that pays \
                 the same amount twice means it. Whatever makes the provider's key, or our \
                 record, from the request's content and not from the request's own key takes \
                 the second payment for a retry of the first.\n{}",
                    keys.len(),
                    keys.join(", "),
                    charges.len(),
                    charges.join(", "),
                    answers.join("; "),
                    see("The provider's key")
                )
            }
            ViolationKind::LastAnswerNotThePayment { answer, body } => write!(
                f,
                "every request is done, and acme's last answer was {answer}: {body}\nThe \
                 provider charged once and our books hold it: the client's retry must be \
                 answered with that payment (a 201 naming the provider's charge), not told to \
                 come back again, or given another.\n{}",
                see("Recovery points")
            ),
            ViolationKind::NoRetryAfter { answer } => write!(
                f,
                "acme was answered {answer} with no Retry-After: it learns that the payment is \
                 not done, not when to ask again.\n{}",
                see("Recovery points")
            ),
            ViolationKind::TookOverALiveLease { answer } => write!(
                f,
                "the completer finished acme's key while acme's request still held its lease, \
                 and the request, which was slow and not dead, was answered {answer}.\nA lease \
                 is the promise that nobody else works on the key until it runs out: the \
                 completer takes over only keys whose lease has run out, by the API's clock, \
                 and takes them over with a new fence.\n{}",
                see("The completer")
            ),
            ViolationKind::HeldUpByASlowProvider { answer } => write!(
                f,
                "globex's request was answered {answer} while acme's request waited on the \
                 provider.\nThis instance of the API has one database connection, and globex \
                 needs nothing of acme's: what acme's request held while it waited (its \
                 transaction, and with it the connection) was free for nobody else, for as long \
                 as the provider took. A slow provider then holds up every client.\n{}",
                see("Atomic phases")
            ),
            ViolationKind::Common(common) => common.explain::<Self>(f),
        }
    }
}
