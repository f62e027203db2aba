//! The worker's life after its process is set up: the handshake, the login, and
//! the call loop.
//!
//! Three parties share the IPC socket — or any pair of byte streams
//! ([`serve_over`], which tests use to run a session in their own process).
//! The *reader* (the thread that calls [`serve`]) reads every frame, so cancel,
//! break and shutdown are seen while a call runs. The *engine thread* owns the login (it is created there and never
//! leaves: the embedded stone's session is single-threaded) and runs calls one at
//! a time from a queue; it runs on a large stack because the interpreter is deep.
//! Both write frames through one mutex-guarded handle.
//!
//! A running call may talk to the client (progress, logs, server requests)
//! through [`crate::notify`]: the reader hands it the client's answers
//! (`ClientResponse`) and wakes it on Cancel, Break or shutdown, so a call that
//! waits on the client ends as promptly as one that evaluates Smalltalk. After
//! every call, and after a `Refresh` (the view moved forward keeping this
//! session's changes; the next tool result says so), the worker reports the
//! session's `ViewStatus`.
//!
//! Every request gets exactly one Reply. A call cancelled while it ran (or before
//! it started) is answered with JSON-RPC error -32800 (`data.kind = "cancelled"`);
//! a `Break` from the router is not a cancellation, so the call answers what the
//! evaluation answers (normally a tool error of kind `other` naming the break).

use crate::backend::{self, Breaker, LagReader, Login, LoginError};
use crate::mcp::{self, ServerInfo};
use crate::notify::{FrameSink, Interruption, Link};
use crate::tools::{ConfigError, Registry};
use crate::watch;
use gsmcp_ipc::jsonrpc::{self, Request, RpcError};
use gsmcp_ipc::redact::Redactor;
use gsmcp_ipc::Json;
use gsmcp_ipc::{
    read_frame, write_frame, Hello, IpcError, Outcome, Ready, ToRouter, ToWorker, PROTOCOL_VERSION,
};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

/// How long the reader waits for the engine thread to finish after `Shutdown`
/// before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Why the worker stopped with a failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The IPC socket failed.
    #[error("IPC")]
    Ipc(#[from] IpcError),
    /// The router sent no `Hello` in time.
    #[error("no Hello from the router within {0:?}")]
    HandshakeTimeout(Duration),
    /// The router speaks another frame protocol.
    #[error("the router speaks frame protocol {got}, this worker speaks {PROTOCOL_VERSION}")]
    Protocol {
        /// The router's protocol version.
        got: u32,
    },
    /// The configured toolsets or options are not this build's.
    #[error(transparent)]
    Toolsets(#[from] ConfigError),
    /// The login failed.
    #[error(transparent)]
    Login(#[from] LoginError),
    /// The router sent a frame out of place.
    #[error("unexpected frame from the router: {0}")]
    Unexpected(String),
    /// The engine thread could not be started.
    #[error("cannot start the engine thread: {0}")]
    Thread(io::Error),
    /// The engine thread ended before it logged in.
    #[error("the engine thread ended without logging in")]
    EngineGone,
}

/// Reads the router's first frame, which must be `Hello`, within `timeout`.
pub fn read_hello(stream: &mut UnixStream, timeout: Duration) -> Result<Hello, ServeError> {
    stream
        .set_read_timeout(Some(timeout))
        .map_err(IpcError::Io)?;
    let frame = match read_frame::<ToWorker, _>(stream) {
        Err(IpcError::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Err(ServeError::HandshakeTimeout(timeout))
        }
        other => other?,
    };
    stream.set_read_timeout(None).map_err(IpcError::Io)?;
    match frame {
        ToWorker::Hello(hello) => Ok(hello),
        other => Err(ServeError::Unexpected(format!(
            "expected Hello, got {}",
            frame_name(&other)
        ))),
    }
}

fn frame_name(frame: &ToWorker) -> &'static str {
    match frame {
        ToWorker::Hello(_) => "Hello",
        ToWorker::Call { .. } => "Call",
        ToWorker::Cancel { .. } => "Cancel",
        ToWorker::Break { .. } => "Break",
        ToWorker::Refresh => "Refresh",
        ToWorker::ClientResponse { .. } => "ClientResponse",
        ToWorker::Shutdown => "Shutdown",
        ToWorker::Reclaim { .. } => "Reclaim",
    }
}

/// The frame writer both threads share.
#[derive(Clone)]
struct Writer(Arc<Mutex<Box<dyn Write + Send>>>);

impl Writer {
    fn send(&self, frame: &ToRouter) -> Result<(), IpcError> {
        write_frame(&mut *lock(&self.0), frame)
    }
}

impl FrameSink for Writer {
    fn send_frame(&self, frame: &ToRouter) -> Result<(), IpcError> {
        self.send(frame)
    }
}

/// Locks a mutex, shrugging off poisoning: a panic anywhere ends the process
/// through the panic hook, so a poisoned lock is never observed in practice.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the reader and the engine thread know about calls in flight. One mutex
/// orders "a break for call N" against "call N ends", so a break can never leak
/// into the next call.
#[derive(Default)]
struct Calls {
    /// Received but not started.
    queued: HashSet<u64>,
    /// Cancelled before they started.
    cancelled_queued: HashSet<u64>,
    running: Option<u64>,
    running_cancelled: bool,
    shutting_down: bool,
}

struct Shared {
    calls: Mutex<Calls>,
    breaker: Arc<dyn Breaker>,
    /// Wakes a call that waits on the client (or pauses) when it is cancelled
    /// or interrupted, and carries the client's answers to it.
    link: Arc<Link>,
    /// Reads the view's lag from any thread, where the stone can say.
    lag: Option<LagReader>,
}

enum Job {
    Call { call_id: u64, request: Request },
    Refresh,
    Reclaim { stuck_secs: u64 },
}

/// Serves one session until `Shutdown` or until the router goes away.
pub fn serve(stream: UnixStream, hello: Hello) -> Result<(), ServeError> {
    let writer = stream.try_clone().map_err(IpcError::Io)?;
    serve_over(stream, writer, hello)
}

/// Serves one session whose frames arrive on `reader` and leave on `writer`
/// (the two halves of the IPC socket, or of any in-process pipe), until
/// `Shutdown` or until `reader` ends.
pub fn serve_over(
    reader: impl Read,
    writer: impl Write + Send + 'static,
    hello: Hello,
) -> Result<(), ServeError> {
    let writer = Writer(Arc::new(Mutex::new(Box::new(writer))));
    let failed = |kind: &str, message: String| {
        let _ = writer.send(&ToRouter::Failed {
            kind: kind.into(),
            message,
        });
    };
    if hello.protocol != PROTOCOL_VERSION {
        let err = ServeError::Protocol {
            got: hello.protocol,
        };
        failed("protocol", err.to_string());
        return Err(err);
    }
    let mut registry = match Registry::new(&hello.toolsets, &hello.options) {
        Ok(r) => r,
        Err(e) => {
            failed("config", e.to_string());
            return Err(e.into());
        }
    };
    registry.withhold(&hello.withheld);
    if hello.read_only {
        registry.read_only();
    }
    let tools_json = registry.list_json().to_string();
    let one_shot = hello.one_shot;
    let info = ServerInfo {
        name: hello.server_name.clone(),
        version: hello.server_version.clone(),
        title: hello.title.clone(),
        instructions: hello.instructions.clone(),
    };

    // The login is made on the engine thread and never leaves it; the reader gets
    // the names to report and the shared call state holding the login's breaker.
    let (login_tx, login_rx) =
        mpsc::sync_channel::<Result<(String, String, Arc<Shared>), LoginError>>(1);
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::sync_channel::<()>(1);
    let link = Link::new(Box::new(writer.clone()));
    let engine = {
        let redactor = Redactor::new(hello.backend.secrets());
        let backend = hello.backend.clone();
        let memory = hello.memory;
        let writer = writer.clone();
        thread::Builder::new()
            .name("gsmcp-engine".into())
            .stack_size(backend::ENGINE_STACK)
            .spawn(move || {
                let mut login = match backend::login(&backend, memory) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = login_tx.send(Err(e));
                        return;
                    }
                };
                let shared = Arc::new(Shared {
                    calls: Mutex::default(),
                    breaker: login.breaker(),
                    link,
                    lag: login.lag_reader(),
                });
                let _ = login_tx.send(Ok((login.user(), login.stone(), shared.clone())));
                let mut server = mcp::Server::new(info, registry, redactor);
                server.set_one_shot(one_shot);
                server.set_follows_commits(login.lag_reader().is_some());
                engine_loop(login.as_mut(), &mut server, &shared, &writer, job_rx);
                login.logout();
                tracing::debug!("logged out");
                let _ = done_tx.send(());
            })
            .map_err(ServeError::Thread)?
    };

    let (user, stone, shared) = match login_rx.recv() {
        Ok(Ok(login)) => login,
        Ok(Err(e)) => {
            // a login failure may quote what it was given
            let text = Redactor::new(hello.backend.secrets())
                .redact(&e.to_string())
                .into_owned();
            failed(e.kind(), text);
            let _ = engine.join();
            return Err(e.into());
        }
        Err(_) => {
            failed("login", "the engine thread ended during login".into());
            return Err(ServeError::EngineGone);
        }
    };
    tracing::info!(%user, %stone, "logged in");
    writer.send(&ToRouter::Ready(Ready {
        protocol: PROTOCOL_VERSION,
        pid: std::process::id(),
        user,
        stone,
        tools_json,
    }))?;

    // The view's lag while calls run or the session idles (dropping `_stop`
    // ends the watch).
    let (_stop, stop_rx) = mpsc::channel::<()>();
    if let Some(lag) = shared.lag.clone() {
        if let Err(e) = watch::spawn(lag, Box::new(writer.clone()), stop_rx, watch::PERIOD) {
            tracing::warn!("cannot start the view watch: {e}");
        }
    }
    let outcome = read_loop(reader, &shared, &job_tx);
    // Whatever ended the loop, stop the engine: no new jobs, abort the running call.
    {
        let mut calls = lock(&shared.calls);
        calls.shutting_down = true;
        if calls.running.is_some() {
            shared.breaker.hard_break();
            shared.link.interrupt(Interruption::ShuttingDown);
        }
    }
    drop(job_tx);
    match done_rx.recv_timeout(SHUTDOWN_GRACE) {
        Ok(()) => {
            let _ = engine.join();
        }
        Err(_) => tracing::warn!(
            "the running call did not stop within {SHUTDOWN_GRACE:?}; exiting anyway"
        ),
    }
    outcome
}

/// Reads frames until `Shutdown` (Ok), the router closing the socket (Ok), or a
/// frame that must not arrive now (Err).
fn read_loop(
    mut stream: impl Read,
    shared: &Shared,
    jobs: &mpsc::Sender<Job>,
) -> Result<(), ServeError> {
    loop {
        let frame = match read_frame::<ToWorker, _>(&mut stream) {
            Ok(f) => f,
            Err(IpcError::Closed) => {
                tracing::debug!("the router closed the IPC socket");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        match frame {
            ToWorker::Call { call_id, request } => {
                lock(&shared.calls).queued.insert(call_id);
                if jobs.send(Job::Call { call_id, request }).is_err() {
                    return Err(ServeError::EngineGone);
                }
            }
            ToWorker::Cancel { call_id } => {
                let mut calls = lock(&shared.calls);
                if calls.running == Some(call_id) {
                    tracing::debug!(call_id, "cancel: soft break of the running call");
                    calls.running_cancelled = true;
                    shared.breaker.soft_break();
                    shared.link.interrupt(Interruption::Cancelled);
                } else if calls.queued.contains(&call_id) {
                    calls.cancelled_queued.insert(call_id);
                } else {
                    tracing::debug!(call_id, "cancel of a call that is not in flight; ignored");
                }
            }
            ToWorker::Break { hard } => {
                let calls = lock(&shared.calls);
                match calls.running {
                    Some(call_id) => {
                        tracing::debug!(call_id, hard, "break");
                        if hard {
                            shared.breaker.hard_break();
                            shared.link.interrupt(Interruption::HardBreak);
                        } else {
                            shared.breaker.soft_break();
                            shared.link.interrupt(Interruption::SoftBreak);
                        }
                    }
                    None => tracing::debug!(hard, "break with no call running; ignored"),
                }
            }
            ToWorker::Refresh => {
                if jobs.send(Job::Refresh).is_err() {
                    return Err(ServeError::EngineGone);
                }
            }
            ToWorker::Reclaim { stuck_secs } => {
                if jobs.send(Job::Reclaim { stuck_secs }).is_err() {
                    return Err(ServeError::EngineGone);
                }
            }
            ToWorker::ClientResponse { response } => shared.link.client_response(response.into()),
            ToWorker::Shutdown => {
                tracing::debug!("shutdown");
                return Ok(());
            }
            ToWorker::Hello(_) => {
                return Err(ServeError::Unexpected(
                    "a second Hello on a running session".into(),
                ));
            }
        }
    }
}

fn engine_loop(
    login: &mut dyn Login,
    server: &mut mcp::Server,
    shared: &Shared,
    writer: &Writer,
    jobs: mpsc::Receiver<Job>,
) {
    for job in jobs {
        let (call_id, request) = match job {
            Job::Call { call_id, request } => (call_id, request),
            Job::Refresh | Job::Reclaim { .. } => {
                match job {
                    Job::Reclaim { stuck_secs } => reclaim(login, server, writer, stuck_secs),
                    _ => refresh(login, server, writer),
                }
                if send_view_status(login, server, writer).is_err() {
                    return;
                }
                continue;
            }
        };
        // The id stays here for an error answer in place of a reply too large to send.
        let id = request.id.clone();
        let reply = run_call(login, server, shared, call_id, request);
        if let Some((reply, outcome)) = reply {
            let mut sent = writer.send(&ToRouter::Reply {
                call_id,
                message: reply,
                outcome,
            });
            if let Err(IpcError::TooLarge(bytes)) = sent {
                // nothing was written: the client hears why instead of waiting forever
                tracing::warn!(call_id, bytes, "the reply is too large to send");
                let e = RpcError::new(
                    jsonrpc::INTERNAL_ERROR,
                    format!(
                        "the answer is {bytes} bytes, more than the {} a reply may carry; \
                         ask for less (a smaller page, or a shorter result)",
                        gsmcp_ipc::MAX_FRAME_LEN
                    ),
                );
                if let Some((message, outcome)) = answer_with(id.as_ref(), e) {
                    sent = writer.send(&ToRouter::Reply {
                        call_id,
                        message,
                        outcome,
                    });
                }
            }
            if let Err(e) = sent {
                tracing::warn!(call_id, "cannot send the reply, stopping: {e}");
                return;
            }
            if send_view_status(login, server, writer).is_err() {
                return;
            }
        }
    }
}

/// The router's `Refresh` (sent only while the session holds no uncommitted
/// changes: moving a view under changes would let them overwrite what others
/// committed meanwhile without a conflict): moves the view forward, and tells
/// the client in its next tool result how far it moved (or that it could not
/// move, and what to do).
fn refresh(login: &mut dyn Login, server: &mut mcp::Server, writer: &Writer) {
    let behind = login.commits_behind();
    match login.refresh() {
        Ok(()) => {
            let caught_up = behind.unwrap_or(0);
            tracing::debug!(caught_up, "view moved forward");
            if caught_up > 0 {
                view_moved(login, server, writer);
                let s = if caught_up == 1 { "" } else { "s" };
                server.note_for_next_result(format!(
                    "Note: between calls this session's view was moved forward to the newest \
                     commit, catching up {caught_up} commit{s} made by other sessions."
                ));
            }
        }
        Err(e) => {
            let text = format!(
                "the session's view could not be moved forward: {}",
                e.message_text.as_deref().unwrap_or(&e.description)
            );
            warn_client(writer, &text);
            server.note_for_next_result(format!(
                "Note: {text}; this session still sees the repository as it was. Commit or \
                 abort to move on."
            ));
        }
    }
}

/// The router's `Reclaim`: aborts the transaction of a session whose commit
/// failed and whose view has been stuck far behind longer than the
/// deployment allows, and tells the client why in its next tool result (and
/// on its standalone stream now).
fn reclaim(login: &mut dyn Login, server: &mut mcp::Server, writer: &Writer, stuck_secs: u64) {
    let behind = login.commits_behind().unwrap_or(0);
    if let Err(e) = login.system_print_string("abortTransaction") {
        let text = format!(
            "the server could not abort the transaction of this session, whose view is stuck: {}",
            e.message_text.as_deref().unwrap_or(&e.description)
        );
        warn_client(writer, &text);
        return;
    }
    view_moved(login, server, writer);
    let text = format!(
        "the server aborted this session's transaction: a commit of it had failed, and its view \
         then stayed {behind} commits behind for {stuck_secs} s (MCP_STUCK_VIEW_GRACE), keeping the \
         repository from reclaiming history. Its uncommitted changes, which could not have been \
         committed, were discarded; the view is now the newest commit"
    );
    warn_client(writer, &text);
    server.note_for_next_result(format!("Note: {text}."));
}

/// The view moved: what the tools remember of the old one is forgotten, and
/// the client hears of every subscribed resource that changed.
fn view_moved(login: &mut dyn Login, server: &mut mcp::Server, writer: &Writer) {
    server.registry().view_moved();
    for message in server.resource_updates(login) {
        let _ = writer.send(&ToRouter::Outbound {
            call_id: None,
            message,
        });
    }
}

/// A warning for the worker's log and the client's (on its standalone stream).
fn warn_client(writer: &Writer, text: &str) {
    tracing::warn!("{text}");
    let _ = writer.send(&ToRouter::Log {
        call_id: None,
        level: "warning".into(),
        text: text.to_string(),
    });
}

/// After a call or a refresh, tells the router how far the session's view is
/// behind and whether it holds uncommitted changes. The latter comes from the
/// last tool call's own answer when there was one (it said so in its
/// result); otherwise only a login on a shared repository, which reports its
/// view anyway, is asked. A stone that can say neither sends nothing.
fn send_view_status(
    login: &mut dyn Login,
    server: &mut mcp::Server,
    writer: &Writer,
) -> Result<(), IpcError> {
    let commits_behind = login.commits_behind();
    let needs_commit = match (server.take_needs_commit(), commits_behind) {
        (Some(known), _) => known,
        (None, None) => return Ok(()),
        (None, Some(_)) => match login.evaluate_print_string("System needsCommit") {
            Ok(answer) => answer == "true",
            Err(e) => {
                tracing::debug!("cannot read needsCommit: {e}");
                return Ok(());
            }
        },
    };
    writer
        .send(&ToRouter::ViewStatus {
            commits_behind,
            needs_commit,
            must_abort: login.must_abort(),
        })
        .map_err(|e| {
            tracing::warn!("cannot send the view status, stopping: {e}");
            e
        })
}

fn run_call(
    login: &mut dyn Login,
    server: &mut mcp::Server,
    shared: &Shared,
    call_id: u64,
    request: Request,
) -> Option<(String, Outcome)> {
    let (cancelled_early, shutting_down) = {
        let mut calls = lock(&shared.calls);
        calls.queued.remove(&call_id);
        let early = calls.cancelled_queued.remove(&call_id);
        if !early && !calls.shutting_down {
            calls.running = Some(call_id);
            calls.running_cancelled = false;
            shared.breaker.clear();
            shared.link.begin_call();
        }
        (early, calls.shutting_down)
    };
    if shutting_down {
        let e = RpcError::new(jsonrpc::SESSION_ERROR, "the session is shutting down")
            .with_kind("sessionGone");
        return answer_with(request.id.as_ref(), e);
    }
    if cancelled_early {
        return answer_with(request.id.as_ref(), RpcError::cancelled());
    }
    let id = request.id.clone();
    let span = tracing::debug_span!("call", call_id);
    let reply = span.in_scope(|| server.handle(login, &shared.link, call_id, request));
    let cancelled_late = {
        let mut calls = lock(&shared.calls);
        calls.running = None;
        shared.breaker.clear();
        std::mem::take(&mut calls.running_cancelled)
    };
    match reply {
        Some(_) if cancelled_late => answer_with(id.as_ref(), RpcError::cancelled()),
        other => other,
    }
}

/// The error response to a request with id `id`; nothing for a notification.
fn answer_with(id: Option<&Json>, error: RpcError) -> Option<(String, Outcome)> {
    let id = Value::from(id?.clone());
    let outcome = Outcome::RpcError(error.code);
    Some((jsonrpc::response(&id, Err(error)), outcome))
}
