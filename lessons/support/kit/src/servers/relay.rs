//! A COMMIT whose answer never arrives: a loopback relay between one worker and the server,
//! which forwards the wire protocol untouched until the worker's transaction commits, and then
//! cuts the connection at one of two moments.
//!
//! - [`Cut::AfterCommit`]: the server has committed and answered, and the answer is lost. The
//!   handler sees its connection fail at COMMIT and cannot know that its work is kept: the most
//!   common way an at-least-once source comes to redeliver (a network cut, a failover, a process
//!   killed after the server answered).
//! - [`Cut::BeforeCommit`]: the COMMIT itself is lost on its way, and the server rolls the
//!   transaction back. To the handler the two look the same: its connection failed at COMMIT.
//! - [`Cut::BeforeCommitHeldOpen`]: the COMMIT is lost, and the server is not told either, as
//!   when a network drops packets instead of closing the connection: the transaction stays open,
//!   `in progress` to anyone who asks, until the server lets go of it and rolls it back.
//!
//! The kit can otherwise only kill or cancel a session while it waits on a lock, which never
//! happens at the COMMIT; this plays the moment no lock marks. The same moment can be paused
//! instead of cut ([`Cut::PauseAfterCommit`]): the answer is held back, and forwarded when the
//! script resumes the worker, as when a process is descheduled or a GC pause strikes right after
//! a commit.
//!
//! When it cuts, the relay first ends the server's side and waits until the server has closed
//! it (the backend has rolled back, or had nothing left to do, and exited), and only then closes
//! the worker's side: by the time the handler sees the error, nothing of the dead session holds
//! a lock, so the next step of a script meets the same database every run. Held open, the order
//! is the other way round, and the server's side is let go at a moment the engine can name: when
//! the delivery has answered ([`Relay::let_go`]), or as soon as another session waits on the
//! held transaction (a handler that retried on a new connection would otherwise wait forever on
//! its own dead one; a real server would end it too, once its keepalive noticed).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgSslMode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;

use super::wire::read_message;
use crate::servers::recording::Connection;
use crate::words::statements::Statements;

/// What a recording relay reads of one connection, shared by its two directions.
type Reading = std::sync::Mutex<Connection>;
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// Where the relay cuts a worker's connection, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// At its first COMMIT, which never reaches the server: the server rolls back.
    BeforeCommit,
    /// At its first COMMIT, which never reaches the server, while the server's side stays open:
    /// the transaction is `in progress` (and holds its locks) until [`Relay::let_go`] or until
    /// another session waits on it, and then rolls back.
    BeforeCommitHeldOpen,
    /// At its first COMMIT, once the server has committed: its answer never reaches the worker.
    AfterCommit,
    /// Once the server has committed the worker's *n*th commit (a COMMIT, or a statement that
    /// wrote outside a transaction, on its pool's connection or on one it opened for a call to
    /// another system), for each *n* in turn, one play each: the connection that committed is
    /// cut before the answer arrives, at every point where something of the handler became
    /// permanent ([`Relay::start`]'s `point`).
    AfterEveryCommit,
    /// No cut: once the server has committed the worker's first commit on its pool's connection
    /// (a COMMIT, or a statement that wrote outside a transaction), the answer is held back
    /// until [`Relay::let_go`], and the worker runs on from there.
    PauseAfterCommit,
}

impl Cut {
    /// Whether the COMMIT never reaches the server, which rolls the transaction back.
    pub fn loses_the_commit(self) -> bool {
        matches!(self, Cut::BeforeCommit | Cut::BeforeCommitHeldOpen)
    }
}

/// How long the server may take to close its side once the relay has closed its own: a
/// rollback and a process exit, a few milliseconds.
const SERVER_GONE_WITHIN: Duration = Duration::from_secs(20);

/// How long a held-open transaction may stay open if nothing lets go of it: longer than any
/// step may take, so it ends a scenario that forgot, never one that is running.
const HELD_AT_MOST: Duration = Duration::from_secs(120);

/// How often a held-open transaction's relay asks whether a session waits on it.
const LOOK_FOR_WAITERS_EVERY: Duration = Duration::from_millis(2);

/// A relay listening on a unix socket of its own, for one worker's pool.
pub struct Relay {
    /// The directory of the socket, removed with the relay.
    dir: tempfile::TempDir,
    /// How many connections it is relaying now.
    live: Arc<AtomicUsize>,
    cut: Arc<Arming>,
    /// Set once to let go of a held-open transaction; dropped with the relay, which does too.
    release: watch::Sender<bool>,
    listener: JoinHandle<()>,
}

/// The one cut a relay makes, whether it has made it, and whether the worker has committed
/// anything through the relay since (a handler that retried on a new connection).
struct Arming {
    cut: Cut,
    /// For [`Cut::AfterEveryCommit`], the commit this run cuts after (1 for the first); none
    /// in the run that only counts them.
    point: Option<usize>,
    /// The commits so far, on any connection the worker made through the relay: its pool's
    /// own, and a call to another system that shares the server (lesson 06's card network,
    /// lesson 12's provider), whose commit is that call's effect.
    points: AtomicUsize,
    fired: AtomicBool,
    committed_since: AtomicBool,
    /// The command the cut fell after (`COMMIT`, `INSERT 0 1`), for the trace.
    cut_after: std::sync::Mutex<String>,
    /// The server process of the connection that may be cut (from its BackendKeyData), which
    /// a held-open cut watches for waiters.
    backend: AtomicI32,
    /// True while the server's side of a cut connection is held open.
    holding: watch::Sender<bool>,
    /// Whether to let go of it now.
    release: watch::Receiver<bool>,
    /// How the relay itself reaches the server, to look for sessions that wait on it.
    watch_with: PgConnectOptions,
}

impl Arming {
    /// True the first time only: later connections (a handler's retry) are relayed untouched.
    fn fire(&self) -> bool {
        !self.fired.swap(true, Ordering::SeqCst)
    }
}

/// How the relay reaches the server: the worker's pool would have used the same.
enum Upstream {
    Unix(PathBuf),
    Tcp(String, u16),
}

impl Relay {
    /// Starts a relay to the server `options` reach, which will `cut` the worker's connection
    /// (for [`Cut::AfterEveryCommit`], after commit number `point`, or nowhere if `point` is
    /// none: that run counts the commits).
    pub async fn start(
        options: &PgConnectOptions,
        cut: Cut,
        point: Option<usize>,
    ) -> io::Result<Relay> {
        Relay::start_with(options, Some((cut, point)), None).await
    }

    /// A relay that cuts as [`Relay::start`] says, if `cut` says so, and records every
    /// statement of every connection into `recording`'s statements, as its session's.
    pub async fn start_with(
        options: &PgConnectOptions,
        cut: Option<(Cut, Option<usize>)>,
        recording: Option<(Arc<Statements>, String)>,
    ) -> io::Result<Relay> {
        let armed = cut.is_some();
        let (cut, point) = cut.unwrap_or((Cut::BeforeCommit, None));
        let upstream = upstream_of(options);
        let dir = tempfile::Builder::new().prefix("wb-relay").tempdir()?;
        let listener = UnixListener::bind(socket_in(dir.path(), options.get_port()))?;
        let (release, released) = watch::channel(false);
        let cut = Arc::new(Arming {
            cut,
            point,
            points: AtomicUsize::new(0),
            fired: AtomicBool::new(false),
            committed_since: AtomicBool::new(false),
            cut_after: std::sync::Mutex::default(),
            backend: AtomicI32::new(0),
            holding: watch::Sender::new(false),
            release: released,
            watch_with: options.clone().application_name("workbook relay"),
        });
        let arming = Arc::clone(&cut);
        let upstream = Arc::new(upstream);
        let live = Arc::new(AtomicUsize::new(0));
        let relaying = Arc::clone(&live);
        let listener = tokio::spawn(async move {
            // Only the first connection is the worker's pool's own (the kit opens it before the
            // handler runs). Later ones are that pool reconnecting after the cut, or another
            // pool made from its options (a provider of lesson 12's, a relay's publisher): the
            // cut is the handler's COMMIT, not theirs.
            let mut first = true;
            while let Ok((worker, _)) = listener.accept().await {
                let (arming, upstream) = (Arc::clone(&arming), Arc::clone(&upstream));
                let live = Arc::clone(&relaying);
                live.fetch_add(1, Ordering::SeqCst);
                let may_cut = std::mem::take(&mut first) && armed;
                let reading = (recording.as_ref())
                    .map(|(statements, session)| Connection::new(Arc::clone(statements), session));
                // A connection that fails is the worker's error to see: it finds its socket
                // closed.
                tokio::spawn(async move {
                    let reading = reading.map(std::sync::Mutex::new);
                    let _ = relay_one(worker, &upstream, &arming, may_cut, reading.as_ref()).await;
                    live.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Ok(Relay {
            dir,
            live,
            cut,
            release,
            listener,
        })
    }

    /// `options`, reaching the server through this relay instead. The relay reads the protocol,
    /// so the worker's side speaks it without TLS (the relay is on this machine's loopback).
    pub fn options(&self, options: PgConnectOptions) -> PgConnectOptions {
        options.socket(self.dir.path()).ssl_mode(PgSslMode::Disable)
    }

    /// Waits until it relays no connection (its pool closed them), for at most `within`.
    pub async fn quiet(&self, within: Duration) {
        let started = std::time::Instant::now();
        while self.live.load(Ordering::SeqCst) > 0 && started.elapsed() < within {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Lets go of a held-open transaction ([`Cut::BeforeCommitHeldOpen`]), and waits until the
    /// server has closed its side: its transaction has rolled back and holds no lock. At once
    /// for any other relay, or one that holds nothing (any longer).
    pub async fn let_go(&self) {
        self.release.send_replace(true);
        let mut holding = self.cut.holding.subscribe();
        let _ =
            tokio::time::timeout(SERVER_GONE_WITHIN, holding.wait_for(|holding| !*holding)).await;
    }

    /// Whether a paused worker's answer is held back now ([`Cut::PauseAfterCommit`]).
    pub fn paused(&self) -> bool {
        self.cut.cut == Cut::PauseAfterCommit && *self.cut.holding.borrow()
    }

    /// Whether the cut has happened: a handler that never commits is never cut.
    pub fn has_cut(&self) -> bool {
        self.cut.fired.load(Ordering::SeqCst)
    }

    /// Whether a transaction that may have written committed through the relay after the cut:
    /// the handler retried on a new connection, and what it reports may be the retry's truth.
    pub fn committed_since_the_cut(&self) -> bool {
        self.cut.committed_since.load(Ordering::SeqCst)
    }

    /// How many commits the pool's own connection made (up to the cut, if there was one).
    pub fn commits(&self) -> usize {
        self.cut.points.load(Ordering::SeqCst)
    }

    /// The command whose commit the cut fell after (`COMMIT`, `INSERT 0 1`), once it has.
    pub fn cut_after(&self) -> String {
        self.cut
            .cut_after
            .lock()
            .map(|tag| tag.clone())
            .unwrap_or_default()
    }

    /// The commit the cut fell after, for [`Cut::AfterEveryCommit`].
    pub fn point(&self) -> Option<usize> {
        self.cut.point
    }

    /// The cut this relay makes.
    pub fn cut(&self) -> Cut {
        self.cut.cut
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

fn socket_in(dir: &Path, port: u16) -> PathBuf {
    dir.join(format!(".s.PGSQL.{port}"))
}

/// Where the server listens, as sqlx would connect: a socket directory (`socket`, or a host
/// that is a path), or a host and port.
fn upstream_of(options: &PgConnectOptions) -> Upstream {
    let port = options.get_port();
    match options.get_socket() {
        Some(dir) => Upstream::Unix(socket_in(dir, port)),
        None if options.get_host().starts_with('/') => {
            Upstream::Unix(socket_in(Path::new(options.get_host()), port))
        }
        None => Upstream::Tcp(options.get_host().to_string(), port),
    }
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<S: AsyncRead + AsyncWrite + Unpin + Send> Stream for S {}

async fn connect(upstream: &Upstream) -> io::Result<Box<dyn Stream>> {
    Ok(match upstream {
        Upstream::Unix(path) => Box::new(UnixStream::connect(path).await?),
        Upstream::Tcp(host, port) => Box::new(TcpStream::connect((host.as_str(), *port)).await?),
    })
}

/// Why one direction of a relayed connection stopped.
enum Stopped {
    /// Its side closed: the connection is over.
    Closed,
    /// It reached the moment to cut.
    Cut,
}

/// Relays one connection of the worker's pool until either side closes it, or until the cut.
async fn relay_one(
    worker: UnixStream,
    upstream: &Upstream,
    arming: &Arming,
    may_cut: bool,
    reading: Option<&Reading>,
) -> io::Result<()> {
    let server = connect(upstream).await?;
    let (mut from_worker, mut to_worker) = worker.into_split();
    let (mut from_server, mut to_server) = tokio::io::split(server);
    if reading.is_some() && !may_cut {
        // Recording, with nothing to cut: each direction runs to its end and then closes the
        // other side's, so that a side that closes first (a pool that sends ROLLBACK, then
        // Terminate, and hangs up) loses none of what the other still has to say.
        let worker_side = async {
            let stopped =
                worker_to_server(&mut from_worker, &mut to_server, (arming, false), reading).await;
            let _ = to_server.shutdown().await;
            stopped
        };
        let server_side = async {
            let stopped =
                server_to_worker(&mut from_server, &mut to_worker, (arming, false), reading).await;
            let _ = to_worker.shutdown().await;
            stopped
        };
        let (_, _) = tokio::join!(worker_side, server_side);
        return Ok(());
    }
    // Whichever direction stops first ends the connection, so dropping the other one half-way
    // through a message loses nothing anybody reads.
    let stopped = tokio::select! {
        stopped = worker_to_server(&mut from_worker, &mut to_server, (arming, may_cut), reading) => stopped?,
        stopped = server_to_worker(&mut from_server, &mut to_worker, (arming, may_cut), reading) => stopped?,
    };
    if let Stopped::Cut = stopped {
        if arming.cut == Cut::BeforeCommitHeldOpen {
            // The worker's side first: the handler's read fails now, while the server still
            // waits for a COMMIT that will never come.
            drop((from_worker, to_worker));
            hold_open(&mut from_server, arming).await;
        }
        // The server's side, and wait for the server to close it: its backend has then rolled
        // back (or had nothing open) and exited, and holds no lock.
        let _ = to_server.shutdown().await;
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(SERVER_GONE_WITHIN, from_server.read_to_end(&mut rest)).await;
        arming.holding.send_replace(false);
    }
    // Dropping the worker's halves closes its socket: the handler's read fails.
    Ok(())
}

/// Keeps a cut connection's server side open, its transaction `in progress`, until the relay
/// is told to let go (or dropped), another session waits on the transaction's locks, the
/// server closes it (its session was terminated), or [`HELD_AT_MOST`] has passed.
async fn hold_open(from_server: &mut (impl AsyncRead + Unpin), arming: &Arming) {
    let mut release = arming.release.clone();
    let backend = arming.backend.load(Ordering::SeqCst);
    let Ok(mut watcher) =
        <sqlx::PgConnection as sqlx::Connection>::connect_with(&arming.watch_with).await
    else {
        return;
    };
    let started = std::time::Instant::now();
    let mut discarded = [0u8; 512];
    while !*release.borrow_and_update() && started.elapsed() < HELD_AT_MOST {
        // `pg_blocking_pids` is the server's own answer to "who waits on whom": no timing.
        let waited_on: Result<bool, _> = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid)))",
        )
        .bind(backend)
        .fetch_one(&mut watcher)
        .await;
        if waited_on.unwrap_or(true) {
            break;
        }
        tokio::select! {
            changed = release.changed() => if changed.is_err() { break },
            read = from_server.read(&mut discarded) => if !matches!(read, Ok(n) if n > 0) { break },
            () = tokio::time::sleep(LOOK_FOR_WAITERS_EVERY) => {}
        }
    }
    let _ = sqlx::Connection::close(watcher).await;
}

/// The worker's messages, forwarded; for a cut that loses the COMMIT, stops at it instead.
async fn worker_to_server(
    from: &mut (impl AsyncRead + Unpin),
    to: &mut (impl AsyncWrite + Unpin),
    (arming, may_cut): (&Arming, bool),
    reading: Option<&Reading>,
) -> io::Result<Stopped> {
    // The first message (the startup packet) has no type byte; every later one has.
    let mut typed = false;
    while let Some(message) = read_message(from, typed).await? {
        // Read before the cut: a COMMIT the cut loses is in the trace, with no answer.
        if typed && let Some(reading) = reading {
            reading
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .sent(&message);
        }
        typed = true;
        if may_cut && arming.cut.loses_the_commit() && message.is_commit() && arming.fire() {
            if arming.cut == Cut::BeforeCommitHeldOpen {
                arming.holding.send_replace(true);
            }
            return Ok(Stopped::Cut);
        }
        to.write_all(&message.raw).await?;
    }
    Ok(Stopped::Closed)
}

/// The server's messages, forwarded. The answer to a statement that may end in a commit is held
/// until the server says whether a transaction is still open; if none is, that statement
/// committed, and the answer is dropped instead of forwarded where the cut falls there: at the
/// first COMMIT ([`Cut::AfterCommit`]), or at the commit the run aims at
/// ([`Cut::AfterEveryCommit`]). Every commit is counted, on whichever connection.
async fn server_to_worker(
    from: &mut (impl AsyncRead + Unpin),
    to: &mut (impl AsyncWrite + Unpin),
    (arming, may_cut): (&Arming, bool),
    reading: Option<&Reading>,
) -> io::Result<Stopped> {
    let mut held: Vec<u8> = Vec::new();
    // The worker hung up while a recording relay still reads the server.
    let mut worker_gone = false;
    // Whether a statement that may have written completed since the server was last idle.
    let mut wrote = false;
    // The last statement that may have written, as the server tagged it.
    let mut last_write = String::new();
    while let Some(message) = read_message(from, true).await? {
        if let Some(reading) = reading {
            reading
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .received(&message);
        }
        if may_cut && message.kind() == Some(b'K') && message.body().len() >= 4 {
            let pid = i32::from_be_bytes(message.body()[..4].try_into().unwrap_or_default());
            arming.backend.store(pid, Ordering::SeqCst);
        }
        if message.completes_a_write() {
            wrote = true;
            last_write = message.first_string().to_string();
        }
        let committed = wrote && message.ready_for_query() == Some(b'I');
        if message
            .ready_for_query()
            .is_some_and(|status| status != b'T')
        {
            wrote = false;
        }
        let fired = arming.fired.load(Ordering::SeqCst);
        if committed && fired {
            arming.committed_since.store(true, Ordering::SeqCst);
        }
        let point = committed.then(|| arming.points.fetch_add(1, Ordering::SeqCst) + 1);
        let aimed = arming.cut == Cut::AfterEveryCommit && point.is_some() && point == arming.point;
        // Where the cut may fall: the first COMMIT of the pool's own connection, or any commit
        // of any connection (a call to another system is a point to end the handler at too).
        let holds = match arming.cut {
            Cut::AfterCommit => may_cut && message.completes_a_commit(),
            Cut::AfterEveryCommit => message.completes_a_write() && arming.point.is_some(),
            Cut::PauseAfterCommit => may_cut && message.completes_a_write(),
            Cut::BeforeCommit | Cut::BeforeCommitHeldOpen => false,
        };
        if !fired && (!held.is_empty() || holds) {
            held.extend_from_slice(&message.raw);
            let here = match arming.cut {
                Cut::AfterCommit => committed,
                Cut::AfterEveryCommit => aimed,
                Cut::PauseAfterCommit => committed,
                Cut::BeforeCommit | Cut::BeforeCommitHeldOpen => false,
            };
            if here && arming.cut == Cut::PauseAfterCommit && arming.fire() {
                if let Ok(mut tag) = arming.cut_after.lock() {
                    *tag = std::mem::take(&mut last_write);
                }
                // Paused: the worker waits for an answer the script holds.
                arming.holding.send_replace(true);
                let mut release = arming.release.clone();
                let _ = release.wait_for(|go| *go).await;
                let forwarded = to.write_all(&std::mem::take(&mut held)).await;
                arming.holding.send_replace(false);
                forwarded?;
                continue;
            }
            if here && arming.fire() {
                if let Ok(mut tag) = arming.cut_after.lock() {
                    *tag = std::mem::take(&mut last_write);
                }
                return Ok(Stopped::Cut);
            }
            if message.ready_for_query().is_some() {
                to.write_all(&std::mem::take(&mut held)).await?;
            }
            continue;
        }
        if !worker_gone && let Err(error) = to.write_all(&message.raw).await {
            // A recording relay reads on to the server's last word once the worker has hung
            // up; any other stops here, as the connection is over.
            if reading.is_none() {
                return Err(error);
            }
            worker_gone = true;
        }
    }
    Ok(Stopped::Closed)
}
