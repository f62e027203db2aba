//! Sessions: the session-id -> session map, the session slots (`maxSessions`),
//! and one actor task per session that owns its worker and its FIFO queue of
//! calls.
//!
//! The actor is the only code that talks to a session's worker. It sends one
//! request at a time and queues the rest in arrival order; it never blocks on the
//! worker (frames go through channels to the supervisor's pumps), so a slow or
//! dead worker costs only its own session. Every request handed to an actor gets
//! exactly one answer: the worker's reply, or a `sessionGone` error when the
//! worker dies, the session is deleted or the router shuts down; a timeout
//! error when the call ran past its deadline; or no response at all (the
//! [`CallEvent::Cancelled`] end) when the client cancelled it.
//!
//! The actor also owns, for its session: the standalone (GET) stream's feed;
//! the table of outstanding server->client requests, whose ids it rewrites into
//! the router's namespace (`gsmcp-<n>`) and back, answering the worker with an
//! error when the client stays silent; the conversion of `Progress` and `Log`
//! frames into `notifications/progress` (echoing the request's progress token,
//! never decreasing) and `notifications/message` (filtered by the level of
//! `logging/setLevel`, which the router answers itself); the escalation of an
//! interrupted call (Cancel, soft break, hard break, stopping the worker); view
//! hygiene (`Refresh` between calls); and the maintenance pass that feeds the
//! [`crate::lifetime`] policy and sends its liveness probes. This module knows
//! JSON-RPC envelopes but not HTTP.

use crate::config::Config;
use crate::hello::hello_for;
use crate::identity::Principal;
use crate::lifetime::{self, Lifetime};
use crate::supervisor::{self, describe_exit, frame_name, Launcher, Worker};
use crate::tombstones::{Ended, Tombstones, Uncommitted};
use crate::{replay, sse};
use gsmcp_ipc::jsonrpc::{self, Request};
use gsmcp_ipc::{Json, ToRouter, ToWorker};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, error, info, warn, Instrument};

mod actor;
pub(crate) use actor::log_level_index;
use actor::Actor;
pub use actor::LOG_LEVELS;

/// The protocol revision assumed when a client sends no `MCP-Protocol-Version`.
pub const DEFAULT_PROTOCOL_VERSION: &str = "2025-03-26";

/// What a call produces, in order: zero or more messages for the client, then
/// exactly one end (a reply, or nothing when the client cancelled the call).
#[derive(Debug, Clone, PartialEq)]
pub enum CallEvent {
    /// A JSON-RPC message from the server to the client related to this call
    /// (`notifications/progress`, `notifications/message`, a server request),
    /// ready to write.
    Message(String),
    /// The complete JSON-RPC response; the last event of a call.
    Reply(String),
    /// The client cancelled the request: it gets no response; the last event.
    Cancelled,
    /// The worker asked to close the connection of the call's event stream
    /// without ending it: the client is to reconnect and resume it.
    Release,
}

/// Where a call's events go.
pub type CallSink = mpsc::UnboundedSender<CallEvent>;

/// What the HTTP side asks of a session.
#[derive(Debug)]
pub enum Command {
    /// A request: answered through `events` with exactly one final event.
    Request {
        /// The request's id.
        id: Value,
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
        /// Where its events go.
        events: CallSink,
        /// The least severe log level sent for it (an index into
        /// [`LOG_LEVELS`]; their number sends none); `None`: the session's,
        /// as `logging/setLevel` set it.
        log_floor: Option<usize>,
    },
    /// A notification: forwarded in order, never answered.
    Notification {
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
    /// The client's answer to a server request: mapped back and forwarded at once.
    ClientResponse {
        /// The id it answers (the router's `gsmcp-<n>`).
        id: Value,
        /// The whole response.
        message: Value,
    },
    /// A standalone (GET) stream opened; it supersedes the previous one.
    OpenStream {
        /// The stream's number.
        stream: u64,
        /// Its replay log, which its writer reads.
        feed: replay::Feed,
    },
    /// A listener login's stream (`subscriptions/listen`): its notifications
    /// go there, tagged with the subscription's id, and when the login ends
    /// the stream ends with the request's result.
    Listen {
        /// The stream's number.
        stream: u64,
        /// Its replay log, which its writer reads.
        feed: replay::Feed,
        /// The JSON-RPC id of the `subscriptions/listen` request.
        subscription: Value,
    },
    /// A standalone stream ended (client gone, stalled or superseded).
    StreamClosed {
        /// The stream's number.
        stream: u64,
    },
    /// The client of a call went away before its answer, which cancels it
    /// (the stateless era): the call is the one whose events go to `events`.
    Abandon {
        /// The call's events channel (a clone of it).
        events: CallSink,
    },
    /// End the session; `done` fires when the worker is gone.
    Delete {
        /// Fired when the worker is gone.
        done: oneshot::Sender<()>,
    },
}

/// A mapped session, as the HTTP side sees it.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    tx: mpsc::UnboundedSender<Command>,
    /// The session id's first 8 characters, for logs.
    pub sid8: String,
    /// The protocol revision `initialize` settled on.
    pub protocol_version: String,
    streams: Arc<AtomicU64>,
    /// The replay logs of its event streams, for a client that resumes one.
    pub replay: Arc<replay::Streams>,
    /// The name of the principal that opened it: only that principal's
    /// requests reach it.
    pub owner: String,
    /// How it was opened, and so which requests may name it.
    pub kind: Kind,
}

/// How a session was opened: each kind is named by its own requests only, so
/// a stateless handle is never accepted as an `Mcp-Session-Id` or the other
/// way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// By `initialize` (the session era), named by `Mcp-Session-Id`.
    Session,
    /// By the `open_session` tool (the stateless era), named by the `session`
    /// argument of later calls.
    Handle,
    /// For one stateless call without a handle: never mapped, it ends when the
    /// call's answer is delivered (its last [`SessionHandle`] is dropped).
    OneShot,
    /// For one `subscriptions/listen` stream with resource subscriptions:
    /// never mapped, it lives while the stream is open (its last
    /// [`SessionHandle`] is held by the stream), its view moves forward at
    /// every commit, and the resources it subscribed to that changed are
    /// told on the stream.
    Listener,
}

impl SessionHandle {
    /// Hands a command to the session's actor. `Err` means the session ended.
    pub fn send(&self, command: Command) -> Result<(), Command> {
        self.tx.send(command).map_err(|e| e.0)
    }

    /// A new stream number, unique within the session; it prefixes the
    /// stream's event ids.
    pub fn next_stream(&self) -> u64 {
        self.streams.fetch_add(1, Ordering::Relaxed)
    }
}

/// The answer to an `initialize`.
#[derive(Debug)]
pub enum OpenOutcome {
    /// A session exists; `reply` is the worker's `initialize` result.
    Opened {
        /// The new session's id.
        sid: String,
        /// The worker's `initialize` response.
        reply: String,
    },
    /// A stateless login is ready (no `initialize` ran): a handle, mapped
    /// under `sid`, or a one-shot, reachable only through `handle`.
    Started {
        /// Its id (a handle's id is the handle the client is given).
        sid: String,
        /// Where its requests go.
        handle: SessionHandle,
        /// The repository user its worker logged in as.
        user: String,
    },
    /// No session; `reply` is a JSON-RPC error response.
    Refused {
        /// The error response.
        reply: String,
    },
}

/// Counts sessions against `maxSessions`; a [`Slot`] is held from the moment an
/// `initialize` is accepted until the session's worker is gone.
#[derive(Debug)]
struct Slots {
    in_use: Mutex<usize>,
    max: Option<usize>,
}

struct Slot(Arc<Slots>);

impl Slots {
    fn try_acquire(self: &Arc<Self>) -> Option<Slot> {
        let mut in_use = self.in_use.lock().unwrap_or_else(|e| e.into_inner());
        if self.max.is_some_and(|max| *in_use >= max) {
            return None;
        }
        *in_use += 1;
        Some(Slot(self.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut in_use = self.0.in_use.lock().unwrap_or_else(|e| e.into_inner());
        *in_use = in_use.saturating_sub(1);
    }
}

/// The session map and everything shared by the session actors.
pub struct Registry {
    sessions: Mutex<HashMap<String, SessionHandle>>,
    /// Ended sessions, for the 404 their next request gets.
    tombstones: Mutex<Tombstones>,
    slots: Arc<Slots>,
    config: Arc<Config>,
    /// How sessions' workers are started.
    launcher: Launcher,
    port: u16,
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

impl Registry {
    /// A registry whose sessions each start the configured worker binary.
    pub fn new(config: Arc<Config>, port: u16, shutdown: CancellationToken) -> Arc<Registry> {
        let launcher = Launcher::Process(config.worker_bin.clone());
        Registry::with_launcher(config, port, shutdown, launcher)
    }

    /// A registry whose sessions start their workers as `launcher` says.
    pub fn with_launcher(
        config: Arc<Config>,
        port: u16,
        shutdown: CancellationToken,
        launcher: Launcher,
    ) -> Arc<Registry> {
        Arc::new(Registry {
            launcher,
            sessions: Mutex::new(HashMap::new()),
            tombstones: Mutex::new(Tombstones::default()),
            slots: Arc::new(Slots {
                in_use: Mutex::new(0),
                max: config.max_sessions,
            }),
            config,
            port,
            tracker: TaskTracker::new(),
            shutdown,
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionHandle>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session with this id, if it is mapped.
    pub fn lookup(&self, sid: &str) -> Option<SessionHandle> {
        self.map().get(sid).cloned()
    }

    /// Number of mapped sessions.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// No session is mapped.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn unmap(&self, sid: &str) -> Option<SessionHandle> {
        self.map().remove(sid)
    }

    /// Unmaps session `sid` of `owner` (if a DELETE did not already), which
    /// ended for `reason` with its uncommitted work `uncommitted`, leaving a
    /// tombstone for its owner.
    fn end(&self, sid: &str, owner: &str, reason: &str, uncommitted: Uncommitted) {
        self.unmap(sid);
        let ended = Ended {
            reason: reason.to_string(),
            uncommitted,
            owner: owner.to_string(),
        };
        self.tombstones
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .record(sid, ended, Instant::now().into_std());
    }

    /// How the session `sid` of `owner` ended, if it ended lately.
    pub fn ended(&self, sid: &str, owner: &str) -> Option<Ended> {
        self.tombstones
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(sid, owner, Instant::now().into_std())
    }

    /// Opens a session for an `initialize` request: takes a slot, starts a
    /// worker, forwards the request and waits for its answer.
    pub async fn open(
        self: &Arc<Self>,
        id: Value,
        params: Option<Value>,
        owner: Principal,
    ) -> OpenOutcome {
        let request = Request::new(Some(id.clone()), "initialize".into(), params);
        self.start(id, Some(request), Kind::Session, owner).await
    }

    /// Starts a stateless login of `kind` (a handle or a one-shot) for the
    /// request `id`: takes a slot and starts a worker, which runs no
    /// `initialize`. A refusal is the JSON-RPC error answering `id`.
    pub async fn open_stateless(
        self: &Arc<Self>,
        id: Value,
        kind: Kind,
        owner: Principal,
    ) -> OpenOutcome {
        self.start(id, None, kind, owner).await
    }

    async fn start(
        self: &Arc<Self>,
        id: Value,
        request: Option<Request>,
        kind: Kind,
        owner: Principal,
    ) -> OpenOutcome {
        if self.shutdown.is_cancelled() {
            return OpenOutcome::Refused {
                reply: jsonrpc::error_body(
                    Some(&id),
                    jsonrpc::SESSION_ERROR,
                    "the server is shutting down",
                    Some(json!({ "kind": "shuttingDown" })),
                ),
            };
        }
        let Some(slot) = self.slots.try_acquire() else {
            let max = self.slots.max.unwrap_or(0);
            info!(max, ?kind, "session refused: session limit reached");
            return OpenOutcome::Refused {
                reply: jsonrpc::error_body(
                    Some(&id),
                    jsonrpc::SESSION_ERROR,
                    &format!(
                        "the server already has {max} sessions (MCP_MAX_SESSIONS); end one with DELETE or try later"
                    ),
                    Some(json!({ "kind": "sessionLimit", "maxSessions": max })),
                ),
            };
        };
        let sid = match crate::secret::new_session_id() {
            Ok(sid) => sid,
            Err(e) => {
                error!(error = %e, "the operating system's random number generator failed");
                return OpenOutcome::Refused {
                    reply: jsonrpc::error_body(
                        Some(&id),
                        jsonrpc::INTERNAL_ERROR,
                        "cannot create a session id: the system's random number generator failed",
                        None,
                    ),
                };
            }
        };
        let sid8 = sid[..8].to_string();
        let (tx, rx) = mpsc::unbounded_channel();
        let (init_tx, init_rx) = oneshot::channel();
        // A root span: the session outlives the request that opened it.
        let span = tracing::info_span!(parent: None, "session", session.id = %sid8, worker.pid = tracing::field::Empty);
        let registry = self.clone();
        let init = Init {
            request,
            kind,
            id: id.clone(),
            reply: init_tx,
        };
        self.tracker.spawn(
            async move {
                run_session(registry, sid, slot, tx, rx, init, owner).await;
            }
            .instrument(span),
        );
        match init_rx.await {
            Ok(outcome) => outcome,
            Err(_) => OpenOutcome::Refused {
                reply: jsonrpc::error_body(
                    Some(&id),
                    jsonrpc::SESSION_ERROR,
                    "the session ended while it was being opened",
                    Some(json!({ "kind": "sessionGone" })),
                ),
            },
        }
    }

    /// Ends a session: unmaps it at once (so later requests get 404), asks its
    /// worker to exit and waits until it is gone. False if the id is not mapped.
    pub async fn delete(&self, sid: &str) -> bool {
        let Some(handle) = self.unmap(sid) else {
            return false;
        };
        let (done, gone) = oneshot::channel();
        if handle.send(Command::Delete { done }).is_ok() {
            let _ = gone.await;
        }
        true
    }

    /// The token cancelled when the router shuts down.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Waits (at most `bound`) for every session actor to finish after the
    /// shutdown token was cancelled. False if some did not finish in time.
    pub async fn wait_all(&self, bound: Duration) -> bool {
        self.tracker.close();
        tokio::time::timeout(bound, self.tracker.wait())
            .await
            .is_ok()
    }
}

/// How a session starts: the request it answers and what it answers with.
struct Init {
    id: Value,
    /// The `initialize` request the worker answers; none for a stateless login.
    request: Option<Request>,
    kind: Kind,
    reply: oneshot::Sender<OpenOutcome>,
}

fn refuse(init: Init, code: i64, message: &str, kind: &str) {
    let reply = jsonrpc::error_body(Some(&init.id), code, message, Some(json!({ "kind": kind })));
    let _ = init.reply.send(OpenOutcome::Refused { reply });
}

async fn run_session(
    registry: Arc<Registry>,
    sid: String,
    slot: Slot,
    tx: mpsc::UnboundedSender<Command>,
    rx: mpsc::UnboundedReceiver<Command>,
    init: Init,
    owner: Principal,
) {
    // The slot is given back before the client hears that the session failed or
    // ended, so its next initialize can take it.
    let config = registry.config.clone();
    let sid8 = sid[..8].to_string();
    let login = match config.logins.for_principal(Some(&owner)) {
        Ok(login) => login,
        Err(e) => {
            error!(error = %e, "cannot make the worker's login");
            drop(slot);
            return refuse_spawn(init, &config, &supervisor::SpawnError::Login(e));
        }
    };
    let mut worker = match supervisor::launch(&registry.launcher, registry.port, &sid8, &login.user)
    {
        Ok(w) => w,
        Err(e) => {
            error!(error = %e, "cannot start a worker");
            drop(slot);
            return refuse_spawn(init, &config, &e);
        }
    };
    tracing::Span::current().record("worker.pid", worker.guard.pid());
    debug!(user = %login.user, "worker started");

    let mut hello = hello_for(&config, &sid, registry.port, &owner, login);
    hello.one_shot = init.kind == Kind::OneShot;
    let handshake = tokio::select! {
        r = supervisor::handshake(&mut worker, hello, config.handshake_timeout) => r,
        _ = registry.shutdown.cancelled() => Err(supervisor::SpawnError::Unexpected("router shutting down".into())),
    };
    let ready = match handshake {
        Ok(ready) => ready,
        Err(e) => {
            worker.guard.kill();
            let status = supervisor::reap(&mut worker, Duration::from_secs(5)).await;
            let tail = supervisor::stderr_tail(&worker).await;
            warn!(error = %e, status = %status, stderr = %tail, "worker failed to start");
            drop(slot);
            return refuse_spawn(init, &config, &e);
        }
    };

    let Init {
        id,
        request,
        kind,
        reply,
    } = init;
    let mut actor = Actor::new(
        registry.clone(),
        sid.clone(),
        worker,
        slot,
        ready.user.clone(),
        owner.name().to_string(),
        kind,
    );
    let handle = SessionHandle {
        tx,
        sid8,
        protocol_version: gsmcp_ipc::era::STATELESS.into(),
        streams: Arc::new(AtomicU64::new(1)),
        replay: Arc::default(),
        owner: owner.name().to_string(),
        kind,
    };
    // The worker answers `initialize` itself (it negotiates the revision); a
    // stateless login has none and holds nothing yet.
    let Some(request) = request else {
        if kind == Kind::Handle {
            registry.map().insert(sid.clone(), handle.clone());
        }
        let started = OpenOutcome::Started {
            sid: sid.clone(),
            handle,
            user: ready.user,
        };
        if reply.send(started).is_err() {
            debug!("client went away while its login was opened; closing it");
            registry.unmap(&sid);
            actor
                .stop("client went away while its login was opened")
                .await;
            return;
        }
        info!(?kind, sessions = registry.len(), principal = %owner.name(), "stateless login opened");
        return actor.serve(rx).await;
    };
    let answer = actor.initialize(request, config.handshake_timeout).await;
    let answer = match answer {
        Ok(text) if !jsonrpc::is_error_response(&text) => text,
        Ok(text) => {
            debug!("worker answered initialize with an error");
            actor.stop("initialize failed").await;
            let _ = reply.send(OpenOutcome::Refused { reply: text });
            return;
        }
        Err(why) => {
            let status = actor.kill().await;
            warn!(reason = %why, status = %status.0, stderr = %status.1, "worker failed during initialize");
            let _ = reply.send(OpenOutcome::Refused {
                reply: jsonrpc::error_body(
                    Some(&id),
                    jsonrpc::SESSION_ERROR,
                    &config
                        .redactor
                        .redact(&format!("cannot start a session: {why}")),
                    Some(json!({ "kind": "workerFailed" })),
                ),
            });
            return;
        }
    };
    let version =
        jsonrpc::negotiated_version(&answer).unwrap_or_else(|| DEFAULT_PROTOCOL_VERSION.into());
    registry.map().insert(
        sid.clone(),
        SessionHandle {
            protocol_version: version.clone(),
            ..handle
        },
    );
    if reply
        .send(OpenOutcome::Opened {
            sid: sid.clone(),
            reply: answer,
        })
        .is_err()
    {
        debug!("client went away during initialize; closing the session");
        registry.unmap(&sid);
        actor.stop("client went away during initialize").await;
        return;
    }
    info!(protocol_version = %version, sessions = registry.len(), principal = %owner.name(), "session opened");
    actor.serve(rx).await;
}

/// Answers `initialize` that its worker could not be started, redacted.
fn refuse_spawn(init: Init, config: &Config, e: &supervisor::SpawnError) {
    refuse(
        init,
        jsonrpc::SESSION_ERROR,
        &config
            .redactor
            .redact(&format!("cannot start a session: {e}")),
        e.kind(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_count_and_release() {
        let slots = Arc::new(Slots {
            in_use: Mutex::new(0),
            max: Some(2),
        });
        let a = slots.try_acquire().expect("first");
        let _b = slots.try_acquire().expect("second");
        assert!(slots.try_acquire().is_none());
        drop(a);
        assert!(slots.try_acquire().is_some());
        let unlimited = Arc::new(Slots {
            in_use: Mutex::new(0),
            max: None,
        });
        let held: Vec<_> = (0..100).map(|_| unlimited.try_acquire().unwrap()).collect();
        assert_eq!(held.len(), 100);
    }
}
