//! The faults a script can put on a delivery, and how the messages say what each did.

/// How a scripted delivery fails, for a reason of its own: while it waits, or at its COMMIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Its session is terminated, as when the process dies: whatever it had not committed
    /// rolls back.
    Killed,
    /// Its waiting statement is cancelled (57014), as `statement_timeout` would; its session
    /// lives on in its pool.
    Cancelled,
    /// Its COMMIT never reached the server: the connection was cut on the way, and the server
    /// rolled the transaction back.
    CommitLost,
    /// Its COMMIT never reached the server, and the server was not told: it kept the
    /// transaction open, `in progress`, a while, then rolled it back.
    CommitLostUnnoticed,
}

impl Fault {
    /// What the fault did to a delivery, worded to follow "the first delivery's" in a message.
    pub fn what_it_did(self) -> &'static str {
        match self {
            Fault::Cancelled => "statement was cancelled (SQLSTATE 57014)",
            Fault::CommitLost => "COMMIT was lost on its way to the server (its connection cut)",
            Fault::CommitLostUnnoticed => {
                "COMMIT was lost on its way to the server, which was not told and kept the \
                 transaction open, in progress, for a while"
            }
            Fault::Killed => {
                "session was terminated (its connection lost, as when its process dies)"
            }
        }
    }
}
