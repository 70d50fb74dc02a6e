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
//!
//! The kit can otherwise only kill or cancel a session while it waits on a lock, which never
//! happens at the COMMIT; this plays the moment no lock marks.
//!
//! When it cuts, the relay first ends the server's side and waits until the server has closed
//! it (the backend has rolled back, or had nothing left to do, and exited), and only then closes
//! the worker's side: by the time the handler sees the error, nothing of the dead session holds
//! a lock, so the next step of a script meets the same database every run.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgSslMode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::wire::read_message;
use crate::engine::statements::{Connection, Statements};

/// What a recording relay reads of one connection, shared by its two directions.
type Reading = std::sync::Mutex<Connection>;
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// Where the relay cuts a worker's connection, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// At its first COMMIT, which never reaches the server: the server rolls back.
    BeforeCommit,
    /// At its first COMMIT, once the server has committed: its answer never reaches the worker.
    AfterCommit,
    /// Once the server has committed the worker's *n*th commit (a COMMIT, or a statement that
    /// wrote outside a transaction, on its pool's connection or on one it opened for a call to
    /// another system), for each *n* in turn, one play each: the connection that committed is
    /// cut before the answer arrives, at every point where something of the handler became
    /// permanent ([`Relay::start`]'s `point`).
    AfterEveryCommit,
}

/// How long the server may take to close its side once the relay has closed its own: a
/// rollback and a process exit, a few milliseconds.
const SERVER_GONE_WITHIN: Duration = Duration::from_secs(20);

/// A relay listening on a unix socket of its own, for one worker's pool.
pub struct Relay {
    /// The directory of the socket, removed with the relay.
    dir: tempfile::TempDir,
    /// How many connections it is relaying now.
    live: Arc<AtomicUsize>,
    cut: Arc<Arming>,
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
        let cut = Arc::new(Arming {
            cut,
            point,
            points: AtomicUsize::new(0),
            fired: AtomicBool::new(false),
            committed_since: AtomicBool::new(false),
            cut_after: std::sync::Mutex::default(),
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
        // The server's side first, and wait for the server to close it: its backend has then
        // rolled back (or had nothing open) and exited, and holds no lock.
        to_server.shutdown().await?;
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(SERVER_GONE_WITHIN, from_server.read_to_end(&mut rest)).await;
    }
    // Dropping the worker's halves closes its socket: the handler's read fails.
    Ok(())
}

/// The worker's messages, forwarded; for [`Cut::BeforeCommit`], stops at its COMMIT instead.
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
        if may_cut && arming.cut == Cut::BeforeCommit && message.is_commit() && arming.fire() {
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
            Cut::BeforeCommit => false,
        };
        if !fired && (!held.is_empty() || holds) {
            held.extend_from_slice(&message.raw);
            let here = match arming.cut {
                Cut::AfterCommit => committed,
                Cut::AfterEveryCommit => aimed,
                Cut::BeforeCommit => false,
            };
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
