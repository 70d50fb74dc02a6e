//! The lesson's scripted races and faults are data, `specs/*.spec`: how their requests reach
//! the API, and which of them, a student's own included (`cargo workbook break 11`), lesson
//! 11's rule can judge; and what the rule needs to judge a permutation's answers. `lesson.rs`
//! plays and judges them: a fresh database with the API in front of the handler for each
//! request; the spec's setup; the sessions in its order (the kit's engine), each request sent
//! over HTTP; then the rule (`judge.rs`) judges each client's payments and every answer its
//! client acted on.

use kit::spec::{Action, Feed, Run, Spec, SpecError};
use kit::{Cut, Fault};

use super::{CLIENT, Sent, judge, shown};
use crate::http::describe;
use crate::observe::Payments;
use crate::{Answer, Call, Delivery, ServerError, Violation};

/// How the specs reach the API (`deliver {JSON}`, read as `cargo workbook deliver 11` reads a
/// line), how a trace shows each request, and how it shows the answer.
pub const FEED: Feed<Call, Result<Answer, ServerError>> = Feed {
    read: crate::by_hand::parse,
    shown,
    describe,
};

/// The requests a spec sends, as `deliver 11` reads a line. The rule judges each client's
/// payments by the answers its own requests got, whichever client sends them.
pub fn your_requests(spec: &Spec) -> Result<Vec<Call>, SpecError> {
    spec.events("lesson 11", FEED.read)
}

/// Judges the payments of each client the spec's `calls` are from by the answers its own
/// requests got (`sent`): acme's first, then the others' in the order they appear.
pub(crate) async fn judge_each(
    payments: &Payments,
    calls: &[(String, Call)],
    mut sent: Vec<Sent>,
    during: Delivery,
    overlapped: bool,
    interleaving: &mut kit::Interleaving,
) -> Result<(), Violation> {
    let mut clients: Vec<&str> = Vec::new();
    let acme_first = (calls.iter()).map(|(_, call)| call.client.as_str());
    for client in acme_first
        .clone()
        .filter(|c| *c == CLIENT)
        .chain(acme_first)
    {
        if !clients.contains(&client) {
            clients.push(client);
        }
    }
    for client in clients {
        let theirs: Vec<Sent> = sent.extract_if(.., |s| s.call.client == client).collect();
        let trace = Some(&mut *interleaving);
        judge(payments, client, &theirs, during, overlapped, trace).await?;
    }
    Ok(())
}

/// The request whose connection the permutation cuts at its COMMIT, if it does, and where.
pub(crate) fn cut_at_commit<'a>(run: &Run<'a, Delivery>) -> Option<(&'a str, Cut)> {
    (run.permutation.steps.iter()).find_map(|step| run.spec.cut_target(step))
}

/// The request the permutation kills or cancels, if it does, and how.
pub(crate) fn failed<'a>(run: &Run<'a, Delivery>) -> Option<(&'a str, Fault)> {
    (run.permutation.steps.iter()).find_map(|step| match &run.spec.step(step)?.1.action {
        Action::Kill(worker) => Some((worker.as_str(), Fault::Killed)),
        Action::Cancel(worker) => Some((worker.as_str(), Fault::Cancelled)),
        _ => None,
    })
}
