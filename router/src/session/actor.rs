//! A session's actor: the only code that talks to its worker. It owns the
//! session's FIFO of calls, the call in flight and its deadline escalation,
//! the standalone stream's feed, the table of server requests, the
//! conversion of progress and log frames into notifications, view hygiene and
//! the maintenance pass that feeds the lifetime policy.

use super::*;
use crate::views::ViewAction;
/// The syslog levels of `notifications/message`, least severe first.
pub const LOG_LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];
/// The level below which log messages are not sent until the client sets one.
const DEFAULT_LOG_LEVEL: usize = 1;

pub(crate) fn log_level_index(level: &str) -> Option<usize> {
    LOG_LEVELS
        .iter()
        .position(|l| l.eq_ignore_ascii_case(level))
}

/// A request or notification waiting for its turn.
struct Queued {
    /// The JSON-RPC id; `None` for a notification.
    id: Option<Value>,
    request: Request,
    events: Option<CallSink>,
    /// The call's own log level (a stateless request's); `None`: the session's.
    log_floor: Option<usize>,
}

/// Why a running call is being interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interrupt {
    Deadline,
    Cancelled,
    /// It ran past `MCP_PINNED_VIEW_GRACE` with its view this far behind.
    PinnedView {
        behind: u64,
    },
}

/// How far the interruption of a call has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// `Cancel` sent; a soft break follows after the grace.
    CancelSent,
    SoftBreak,
    HardBreak,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::CancelSent => "cancel",
            Stage::SoftBreak => "softBreak",
            Stage::HardBreak => "hardBreak",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Escalation {
    why: Interrupt,
    stage: Stage,
    /// When the next step is taken.
    next: Instant,
}

/// The request the worker is running.
struct InFlight {
    call_id: u64,
    id: Value,
    /// What the call's log line names: its method, its tool, when it began.
    method: String,
    tool: Option<String>,
    started: Instant,
    events: CallSink,
    progress_token: Option<Value>,
    /// The least severe log level sent for this call; `None`: the session's.
    log_floor: Option<usize>,
    last_progress: Option<f64>,
    deadline: Option<Instant>,
    escalation: Option<Escalation>,
}

impl InFlight {
    /// When the actor must next act on this call.
    fn wake_at(&self) -> Option<Instant> {
        match self.escalation {
            Some(e) => Some(e.next),
            None => self.deadline,
        }
    }

    /// The final event for the worker's `reply`, given how the call ended.
    fn final_event(&self, reply: String) -> CallEvent {
        match self.escalation {
            None => CallEvent::Reply(reply),
            Some(e) if e.why == Interrupt::Cancelled => CallEvent::Cancelled,
            Some(e) => CallEvent::Reply(interrupted_error(&self.id, e.why, e.stage.name())),
        }
    }

    /// The final event when the worker is gone.
    fn gone_event(&self, why: &str) -> CallEvent {
        match self.escalation {
            Some(e) if e.why == Interrupt::Cancelled => CallEvent::Cancelled,
            _ => CallEvent::Reply(jsonrpc::session_gone(&self.id, why)),
        }
    }
}

/// The tool a `tools/call` request names, for its log line (at most 128
/// characters of it).
fn tool_name(request: &Request) -> Option<String> {
    if request.method != "tools/call" {
        return None;
    }
    match &request.params {
        Some(Json::Object(members)) => members.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("name", Json::String(name)) => Some(name.chars().take(128).collect()),
            _ => None,
        }),
        _ => None,
    }
}

/// A notification for a listen stream, with the subscription's id in its
/// `params._meta` (the text as it was if it is not a JSON object).
fn tagged(text: String, subscription: &Value) -> String {
    let Ok(mut message) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    let Some(params) = message
        .as_object_mut()
        .map(|m| m.entry("params").or_insert_with(|| json!({})))
    else {
        return text;
    };
    match params.as_object_mut() {
        Some(p) => {
            let meta = p.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(
                    gsmcp_ipc::era::META_SUBSCRIPTION_ID.into(),
                    subscription.clone(),
                );
            }
            message.to_string()
        }
        None => text,
    }
}

/// The error a call interrupted by the router (not cancelled) answers, by
/// why and at which stage of the interruption it ended.
fn interrupted_error(id: &Value, why: Interrupt, stage: &str) -> String {
    let (message, data) = match why {
        Interrupt::PinnedView { behind } => (
            format!(
                "the request was interrupted: it ran past MCP_PINNED_VIEW_GRACE while its session's \
                 view was {behind} commits behind, keeping the repository from reclaiming history; \
                 the view moves forward between calls, so a long job is better split into calls"
            ),
            json!({ "kind": "pinnedView", "stage": stage, "commitsBehind": behind }),
        ),
        Interrupt::Deadline | Interrupt::Cancelled => (
            "the request ran past its deadline (MCP_REQUEST_TIMEOUT) and was interrupted".into(),
            json!({ "kind": "timeout", "stage": stage }),
        ),
    };
    jsonrpc::error_body(Some(id), jsonrpc::SESSION_ERROR, &message, Some(data))
}

/// A request of the server to the client that is waiting for its answer.
enum Outstanding {
    /// Sent by the worker; answered back to it with its own id.
    Worker {
        original_id: Value,
        expires: Instant,
    },
    /// The router's liveness probe.
    Probe { token: u64, expires: Instant },
}

pub(super) struct Actor {
    registry: Arc<Registry>,
    sid: String,
    worker: Worker,
    queue: VecDeque<Queued>,
    in_flight: Option<InFlight>,
    next_call_id: u64,
    /// Held until the worker is reaped.
    slot: Option<Slot>,
    /// The standalone (GET) stream: its number and its replay log's feed.
    standalone: Option<(u64, replay::Feed)>,
    /// Server requests by the id the router gave them (`gsmcp-<n>`).
    outstanding: HashMap<String, Outstanding>,
    next_out: u64,
    lifetime: Lifetime,
    /// Index into [`LOG_LEVELS`]: messages below it are not sent.
    log_level: usize,
    /// The session's view, as the worker reports it, and what hygiene it needs.
    view: crate::views::View,
    /// A listener's `subscriptions/listen` id, which its notifications carry.
    subscription: Option<Value>,
    /// The worker's last report of whether the session holds uncommitted
    /// changes (`None` before the first).
    needs_commit: Option<bool>,
    /// The repository user the worker logged in as.
    user: String,
    /// The principal the session belongs to, by name.
    owner: String,
    /// How it was opened: a one-shot leaves no tombstone (nobody knows its id).
    kind: Kind,
}

enum Wake {
    Command(Option<Command>),
    Frame(Option<Result<ToRouter, gsmcp_ipc::IpcError>>),
    Exited(String),
    Shutdown,
    Maintenance,
    Escalate,
}

/// What the serve loop does after handling a wake.
enum Next {
    Continue,
    Release(&'static str),
    /// The worker was stopped or died; the session is over.
    Ended,
}

impl Actor {
    /// The actor of a session whose worker `worker` has just finished its
    /// handshake, logged in as `user`, for the principal named `owner`.
    /// A stateless login's client has no stream, so its lifetime follows
    /// only the idle timeout and the absolute lifetime.
    pub(super) fn new(
        registry: Arc<Registry>,
        sid: String,
        worker: Worker,
        slot: Slot,
        user: String,
        owner: String,
        kind: Kind,
    ) -> Actor {
        let now = Instant::now().into_std();
        let policy = registry.config.lifetime.clone();
        let view = crate::views::View::new(match kind {
            // a listener reads what is committed: its view follows every commit
            Kind::Listener => crate::views::ViewPolicy {
                max_behind: Some(1),
                stuck_grace: None,
                pinned_grace: None,
            },
            _ => registry.config.views,
        });
        let lifetime = match kind {
            Kind::Session => Lifetime::new(policy, now),
            Kind::Handle | Kind::OneShot | Kind::Listener => Lifetime::without_streams(policy, now),
        };
        Actor {
            registry,
            sid,
            worker,
            queue: VecDeque::new(),
            in_flight: None,
            next_call_id: 1,
            slot: Some(slot),
            standalone: None,
            outstanding: HashMap::new(),
            next_out: 1,
            lifetime,
            log_level: DEFAULT_LOG_LEVEL,
            view,
            subscription: None,
            user,
            owner,
            // a stateless login has run nothing yet, so it holds nothing
            needs_commit: (kind != Kind::Session).then_some(false),
            kind,
        }
    }

    /// Forwards the `initialize` request and waits for its reply.
    pub(super) async fn initialize(
        &mut self,
        request: Request,
        timeout: Duration,
    ) -> Result<String, String> {
        let call_id = self.take_call_id();
        if self
            .worker
            .to_worker
            .send(ToWorker::Call { call_id, request })
            .is_err()
        {
            return Err("worker socket closed".into());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let frame = tokio::select! {
                f = self.worker.from_worker.recv() => f,
                _ = tokio::time::sleep_until(deadline) => return Err(format!("no answer to initialize within {timeout:?}")),
                _ = self.registry.shutdown.cancelled() => return Err("router shutting down".into()),
            };
            match frame {
                Some(Ok(ToRouter::Reply {
                    call_id: c,
                    message,
                    ..
                })) if c == call_id => return Ok(message),
                Some(Ok(ToRouter::Log { level, text, .. })) => debug!(%level, %text, "worker log"),
                Some(Ok(ToRouter::ViewStatus {
                    commits_behind,
                    needs_commit,
                    must_abort,
                })) => self.view_status(commits_behind, needs_commit, must_abort),
                Some(Ok(ToRouter::ViewLag { commits_behind })) => {
                    self.view.lag(commits_behind, Instant::now().into_std())
                }
                Some(Ok(ToRouter::Progress { .. } | ToRouter::Outbound { .. })) => {}
                Some(Ok(other)) => {
                    return Err(format!(
                        "unexpected {} frame during initialize",
                        frame_name(&other)
                    ))
                }
                Some(Err(e)) => return Err(format!("worker socket: {e}")),
                None => return Err("worker socket closed".into()),
            }
        }
    }

    fn take_call_id(&mut self) -> u64 {
        let id = self.next_call_id;
        self.next_call_id += 1;
        id
    }

    /// How often the lifetime policy is checked: often enough that the
    /// shortest timer fires within a tenth of itself, at most once a second.
    fn maintenance_period(&self) -> Duration {
        let p = self.lifetime.policy();
        let shortest = p
            .stream_grace
            .min(p.streamless_idle)
            .min(p.probe_timeout)
            .min(self.registry.config.client_request_timeout);
        (shortest / 10).clamp(Duration::from_millis(50), Duration::from_secs(1))
    }

    pub(super) async fn serve(mut self, mut rx: mpsc::UnboundedReceiver<Command>) {
        let period = self.maintenance_period();
        let mut planned = Instant::now() + period;
        let mut wall = SystemTime::now();
        let mut mono = Instant::now();
        let far = Instant::now() + Duration::from_secs(86_400 * 365);
        loop {
            let escalate_at = self.in_flight.as_ref().and_then(InFlight::wake_at);
            let wake = tokio::select! {
                cmd = rx.recv() => Wake::Command(cmd),
                frame = self.worker.from_worker.recv() => Wake::Frame(frame),
                status = self.worker.guard.wait() => Wake::Exited(match status {
                    Ok(s) => describe_exit(&s),
                    Err(e) => format!("unknown ({e})"),
                }),
                _ = self.registry.shutdown.cancelled() => Wake::Shutdown,
                _ = tokio::time::sleep_until(planned) => Wake::Maintenance,
                _ = tokio::time::sleep_until(escalate_at.unwrap_or(far)), if escalate_at.is_some() => Wake::Escalate,
            };
            let next = match wake {
                Wake::Command(Some(Command::Delete { done })) => {
                    self.stop("session deleted").await;
                    let _ = done.send(());
                    return;
                }
                Wake::Command(Some(command)) => {
                    self.on_command(command);
                    Next::Continue
                }
                Wake::Command(None) => Next::Release(match self.kind {
                    Kind::OneShot => "one-shot call answered",
                    Kind::Listener => "listen stream closed",
                    _ => "session released",
                }),
                Wake::Frame(Some(Ok(frame))) => match self.on_frame(frame) {
                    Ok(()) => Next::Continue,
                    Err(violation) => {
                        error!(%violation, "worker broke the frame protocol; ending the session");
                        self.worker.guard.kill();
                        self.gone("worker broke the frame protocol").await;
                        Next::Ended
                    }
                },
                Wake::Frame(Some(Err(e))) => {
                    let why = format!("worker socket failed: {e}");
                    if !matches!(e, gsmcp_ipc::IpcError::Closed | gsmcp_ipc::IpcError::Io(_)) {
                        error!(error = %e, "undecodable frame from the worker; ending the session");
                        self.worker.guard.kill();
                    }
                    self.gone(&why).await;
                    Next::Ended
                }
                Wake::Frame(None) => {
                    self.gone("worker socket closed").await;
                    Next::Ended
                }
                Wake::Exited(status) => {
                    self.gone(&format!("worker exited ({status})")).await;
                    Next::Ended
                }
                Wake::Shutdown => Next::Release("server shutting down"),
                Wake::Escalate => self.escalate().await,
                Wake::Maintenance => {
                    let now = Instant::now();
                    let now_wall = SystemTime::now();
                    // Late: past the planned time on the monotonic clock, or
                    // wall-clock time that passed while the monotonic clock
                    // stood still (a suspended host).
                    let mono_late = now.saturating_duration_since(planned);
                    let wall_gap = now_wall
                        .duration_since(wall)
                        .unwrap_or_default()
                        .saturating_sub(now.saturating_duration_since(mono));
                    wall = now_wall;
                    mono = now;
                    planned = now + period;
                    self.maintenance(now, mono_late.max(wall_gap))
                }
            };
            match next {
                Next::Continue => {}
                Next::Release(why) => {
                    self.stop(why).await;
                    return;
                }
                Next::Ended => return,
            }
        }
    }

    fn on_command(&mut self, command: Command) {
        let now = Instant::now();
        match command {
            Command::Request {
                id,
                method,
                params,
                events,
                log_floor,
            } => {
                self.lifetime.activity(now.into_std());
                if method == "logging/setLevel" {
                    let reply = self.set_log_level(&id, params.as_ref());
                    let _ = events.send(CallEvent::Reply(reply));
                    return;
                }
                debug!(%method, queued = self.queue.len(), "request queued");
                let request = Request::new(Some(id.clone()), method, params);
                self.queue.push_back(Queued {
                    id: Some(id),
                    request,
                    events: Some(events),
                    log_floor,
                });
                self.pump();
            }
            Command::Notification { method, params } => {
                self.lifetime.activity(now.into_std());
                if method == "notifications/cancelled" {
                    self.cancel(params.as_ref());
                } else {
                    let request = Request::new(None, method, params);
                    self.queue.push_back(Queued {
                        id: None,
                        request,
                        events: None,
                        log_floor: None,
                    });
                    self.pump();
                }
            }
            Command::ClientResponse { id, message } => self.client_response(id, message),
            Command::Abandon { events } => {
                self.cancel_where(|_, call| call.same_channel(&events));
            }
            Command::OpenStream { stream, feed } => {
                debug!(stream, "standalone stream opened");
                // A new stream ends the one it supersedes (a resumed one is the same).
                if let Some((old, old_feed)) = &self.standalone {
                    if *old != stream {
                        old_feed.finish();
                    }
                }
                self.standalone = Some((stream, feed));
                self.lifetime.stream_opened(stream);
            }
            Command::Listen {
                stream,
                feed,
                subscription,
            } => {
                debug!(stream, "listen stream attached");
                self.standalone = Some((stream, feed));
                self.subscription = Some(subscription);
            }
            Command::StreamClosed { stream } => {
                // the writer of a stream a GET has resumed since ended late:
                // the stream is open
                if let Some((s, feed)) = &self.standalone {
                    if *s == stream && feed.attached() {
                        debug!(stream, "an earlier writer of a resumed stream ended");
                        return;
                    }
                }
                if self.standalone.as_ref().is_some_and(|(s, _)| *s == stream) {
                    debug!(stream, "standalone stream closed");
                    self.standalone = None;
                }
                self.lifetime.stream_closed(stream, now.into_std());
            }
            // The serve loop ends the session itself on Delete; it never gets here.
            Command::Delete { done } => drop(done),
        }
    }

    /// `logging/setLevel` is answered by the router: it is the router that
    /// filters the session's log messages.
    fn set_log_level(&mut self, id: &Value, params: Option<&Value>) -> String {
        let level = params
            .and_then(|p| p.get("level")?.as_str())
            .and_then(log_level_index);
        match level {
            Some(level) => {
                self.log_level = level;
                json!({ "jsonrpc": "2.0", "id": id, "result": {} }).to_string()
            }
            None => jsonrpc::error_body(
                Some(id),
                jsonrpc::INVALID_PARAMS,
                &format!("params.level must be one of {}", LOG_LEVELS.join(", ")),
                None,
            ),
        }
    }

    /// Sends queued messages until a request is in flight or the queue is
    /// empty. Between calls, a view too far behind is refreshed first.
    fn pump(&mut self) {
        while self.in_flight.is_none() {
            self.view_hygiene();
            let Some(next) = self.queue.pop_front() else {
                return;
            };
            let call_id = self.take_call_id();
            let progress_token = next.request.progress_token.clone();
            let method = next.request.method.clone();
            let tool = tool_name(&next.request);
            // A failed send means the worker's socket is closing; the reader
            // reports that next and the request is answered as `sessionGone`.
            let _ = self.worker.to_worker.send(ToWorker::Call {
                call_id,
                request: next.request,
            });
            if let (Some(id), Some(events)) = (next.id, next.events) {
                self.in_flight = Some(InFlight {
                    call_id,
                    id,
                    method,
                    tool,
                    started: Instant::now(),
                    events,
                    progress_token: progress_token.map(Value::from),
                    last_progress: None,
                    deadline: self
                        .registry
                        .config
                        .request_timeout
                        .map(|t| Instant::now() + t),
                    escalation: None,
                    log_floor: next.log_floor,
                });
            }
        }
    }

    /// View hygiene (`crate::views`): between calls a view far behind is
    /// refreshed, or reclaimed when a failed commit left it stuck for its
    /// grace; a call that pins it past its grace is interrupted.
    fn view_hygiene(&mut self) {
        let now = Instant::now();
        let running = self.in_flight.as_ref().map(|f| f.started);
        match self
            .view
            .pass(now.into_std(), running.map(Instant::into_std))
        {
            ViewAction::Nothing => {}
            ViewAction::Refresh => {
                debug!("view too far behind; refreshing");
                let _ = self.worker.to_worker.send(ToWorker::Refresh);
            }
            ViewAction::Reclaim { stuck } => {
                warn!(
                    stuck_secs = stuck.as_secs(),
                    "the view has been stuck behind since a failed commit; aborting the session's transaction"
                );
                let _ = self.worker.to_worker.send(ToWorker::Reclaim {
                    stuck_secs: stuck.as_secs(),
                });
            }
            ViewAction::Interrupt { behind } => {
                let grace = self.registry.config.break_grace;
                let Some(f) = self.in_flight.as_mut().filter(|f| f.escalation.is_none()) else {
                    return;
                };
                warn!(
                    call_id = f.call_id,
                    behind, "the call pins a view far behind; interrupting it"
                );
                let _ = self.worker.to_worker.send(ToWorker::Break { hard: false });
                f.escalation = Some(Escalation {
                    why: Interrupt::PinnedView { behind },
                    stage: Stage::SoftBreak,
                    next: now + grace,
                });
            }
        }
    }

    /// `notifications/cancelled`: a running request is interrupted through the
    /// worker (then escalated like a deadline); a queued one is dropped. Neither
    /// gets a JSON-RPC response.
    fn cancel(&mut self, params: Option<&Value>) {
        let Some(target) = jsonrpc::cancelled_request_id(params) else {
            debug!("malformed cancellation ignored");
            return;
        };
        self.cancel_where(|id, _| *id == target);
    }

    /// Cancels the running call, or drops the queued request, that `is`
    /// names (by its id and its events channel).
    fn cancel_where(&mut self, is: impl Fn(&Value, &CallSink) -> bool) {
        let grace = self.registry.config.break_grace;
        if let Some(running) = &mut self.in_flight {
            if is(&running.id, &running.events) {
                if running.escalation.is_some() {
                    return;
                }
                debug!(call_id = running.call_id, "cancelling the running call");
                let _ = self.worker.to_worker.send(ToWorker::Cancel {
                    call_id: running.call_id,
                });
                running.escalation = Some(Escalation {
                    why: Interrupt::Cancelled,
                    stage: Stage::CancelSent,
                    next: Instant::now() + grace,
                });
                return;
            }
        }
        let queued = self.queue.iter().position(|q| match (&q.id, &q.events) {
            (Some(id), Some(events)) => is(id, events),
            _ => false,
        });
        if let Some(q) = queued.and_then(|pos| self.queue.remove(pos)) {
            debug!("queued request cancelled before it ran");
            if let Some(events) = q.events {
                let _ = events.send(CallEvent::Cancelled);
            }
            return;
        }
        debug!("cancellation of an unknown or finished request ignored");
    }

    /// The running call's deadline or escalation step is due.
    async fn escalate(&mut self) -> Next {
        let grace = self.registry.config.break_grace;
        let now = Instant::now();
        let Some(f) = &mut self.in_flight else {
            return Next::Continue;
        };
        let step = match f.escalation {
            None => Some(Escalation {
                why: Interrupt::Deadline,
                stage: Stage::SoftBreak,
                next: now + grace,
            }),
            Some(e) if e.next > now => return Next::Continue,
            Some(e) => match e.stage {
                Stage::CancelSent => Some(Escalation {
                    stage: Stage::SoftBreak,
                    next: now + grace,
                    ..e
                }),
                Stage::SoftBreak => Some(Escalation {
                    stage: Stage::HardBreak,
                    next: now + grace,
                    ..e
                }),
                Stage::HardBreak => None,
            },
        };
        match step {
            Some(e) => {
                if f.escalation.is_none() && f.deadline.is_some_and(|d| d > now) {
                    return Next::Continue;
                }
                let hard = e.stage == Stage::HardBreak;
                info!(call_id = f.call_id, reason = ?e.why, hard, "interrupting the running call");
                let _ = self.worker.to_worker.send(ToWorker::Break { hard });
                f.escalation = Some(e);
                Next::Continue
            }
            None => {
                warn!(
                    call_id = f.call_id,
                    "the call survived a hard break; stopping the worker"
                );
                if let Some(f) = self.in_flight.take() {
                    let event = match f.escalation {
                        Some(e) if e.why == Interrupt::Cancelled => CallEvent::Cancelled,
                        Some(e) => CallEvent::Reply(interrupted_error(&f.id, e.why, "stopped")),
                        None => CallEvent::Reply(interrupted_error(
                            &f.id,
                            Interrupt::Deadline,
                            "stopped",
                        )),
                    };
                    let _ = f.events.send(event);
                }
                self.worker.guard.kill();
                self.gone("the worker was stopped: a call did not end after a hard break")
                    .await;
                Next::Ended
            }
        }
    }

    fn maintenance(&mut self, now: Instant, late: Duration) -> Next {
        if late >= self.lifetime.policy().suspend_threshold {
            info!(
                ?late,
                "maintenance ran very late (host suspended?); forgiving idle time"
            );
        }
        self.expire_server_requests(now);
        // an idle session's view too, and a call that pins one
        if self.queue.is_empty() {
            self.view_hygiene();
        }
        // a listener is held by its open stream, not by requests
        if self.kind == Kind::Listener {
            self.lifetime.activity(now.into_std());
        }
        let busy = self.in_flight.is_some();
        match self.lifetime.pass(now.into_std(), late, busy) {
            lifetime::Action::Nothing => Next::Continue,
            lifetime::Action::Probe { stream } => {
                self.probe(stream, now);
                Next::Continue
            }
            lifetime::Action::Release(why) => {
                info!(reason = why.describe(), "releasing the session");
                Next::Release(why.describe())
            }
        }
    }

    /// Writes a `ping` to the standalone stream to learn whether the client is still there.
    fn probe(&mut self, stream: u64, now: Instant) {
        let Some((current, feed)) = &self.standalone else {
            return;
        };
        if *current != stream {
            return;
        }
        let token = self.next_out;
        self.next_out += 1;
        let id = format!("gsmcp-{token}");
        let ping = json!({ "jsonrpc": "2.0", "id": id, "method": "ping" }).to_string();
        if feed.push(sse::Item::Message(ping)) != replay::Pushed::Live {
            self.standalone = None;
            self.lifetime.stream_closed(stream, now.into_std());
            return;
        }
        debug!(stream, %id, "liveness probe sent");
        self.lifetime.probe_sent(token, stream, now.into_std());
        let expires = now + self.lifetime.policy().probe_timeout * 2;
        self.outstanding
            .insert(id, Outstanding::Probe { token, expires });
    }

    /// Server requests the client did not answer in time are answered to the
    /// worker with an error, so the waiting tool can go on.
    fn expire_server_requests(&mut self, now: Instant) {
        let expired: Vec<String> = self
            .outstanding
            .iter()
            .filter(|(_, o)| match o {
                Outstanding::Worker { expires, .. } | Outstanding::Probe { expires, .. } => {
                    *expires <= now
                }
            })
            .map(|(k, _)| k.clone())
            .collect();
        for key in expired {
            if let Some(Outstanding::Worker { original_id, .. }) = self.outstanding.remove(&key) {
                let timeout = self.registry.config.client_request_timeout;
                debug!(%key, "server request unanswered; answering the worker with an error");
                let response = jsonrpc::error_value(
                    Some(&original_id),
                    jsonrpc::SESSION_ERROR,
                    &format!("the client did not answer within {timeout:?}"),
                    Some(json!({ "kind": "timeout" })),
                );
                self.to_worker_response(response);
            }
        }
    }

    /// The client answered a server request: a probe, or a worker's request
    /// whose own id is put back before it is forwarded. An answered probe
    /// proves the client is there but is not traffic: it does not restart
    /// the idle clock (only requests and answers to the worker's own
    /// requests do), so a client that only answers pings is still released
    /// at the idle timeout.
    fn client_response(&mut self, id: Value, mut message: Value) {
        let key = match &id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match self.outstanding.remove(&key) {
            Some(Outstanding::Probe { token, .. }) => {
                let proved = self.lifetime.probe_answered(token);
                debug!(%key, proved, "liveness probe answered");
            }
            Some(Outstanding::Worker { original_id, .. }) => {
                self.lifetime.activity(Instant::now().into_std());
                message["id"] = original_id;
                self.to_worker_response(message);
            }
            None => debug!(%key, "response to an unknown or expired server request dropped"),
        }
    }

    /// Sends a message for the client: on the running call's stream when it is
    /// related to that call, else on the standalone stream. False if no stream
    /// could take it.
    fn deliver(&mut self, call_id: Option<u64>, text: String) -> bool {
        if let (Some(f), Some(c)) = (&self.in_flight, call_id) {
            if f.call_id == c {
                return f.events.send(CallEvent::Message(text)).is_ok();
            }
        }
        let text = match &self.subscription {
            Some(id) => tagged(text, id),
            None => text,
        };
        match &self.standalone {
            Some((_, feed)) => feed.push(sse::Item::Message(text)) == replay::Pushed::Live,
            None => {
                debug!(
                    ?call_id,
                    "message for the client dropped: no stream is open"
                );
                false
            }
        }
    }

    /// An `Outbound` frame: a server request gets an id of the router's own
    /// namespace and waits in the table of outstanding requests.
    fn outbound(&mut self, call_id: Option<u64>, message: String) -> Result<(), String> {
        let mut value: Value = serde_json::from_str(&message)
            .map_err(|e| format!("Outbound frame is not JSON: {e}"))?;
        if value.get("method").and_then(Value::as_str).is_none() {
            return Err("Outbound frame is not a request or notification".into());
        }
        let Some(original_id) = value.get("id").cloned() else {
            self.deliver(call_id, message);
            return Ok(());
        };
        let key = format!("gsmcp-{}", self.next_out);
        self.next_out += 1;
        value["id"] = Value::String(key.clone());
        if self.deliver(call_id, value.to_string()) {
            let expires = Instant::now() + self.registry.config.client_request_timeout;
            self.outstanding.insert(
                key,
                Outstanding::Worker {
                    original_id,
                    expires,
                },
            );
        } else {
            let response = jsonrpc::error_value(
                Some(&original_id),
                jsonrpc::SESSION_ERROR,
                "the client has no open stream to receive this request",
                Some(json!({ "kind": "noStream" })),
            );
            self.to_worker_response(response);
        }
        Ok(())
    }

    /// Hands the worker the answer to one of its server requests.
    fn to_worker_response(&self, response: Value) {
        let _ = self.worker.to_worker.send(ToWorker::ClientResponse {
            response: response.into(),
        });
    }

    /// Routes one frame. `Err` is a protocol violation that ends the session.
    fn on_frame(&mut self, frame: ToRouter) -> Result<(), String> {
        match frame {
            ToRouter::Reply {
                call_id,
                message,
                outcome,
            } => match self.in_flight.take() {
                Some(f) if f.call_id == call_id => {
                    info!(
                        user = %self.user,
                        method = %f.method,
                        tool = %f.tool.as_deref().unwrap_or("-"),
                        ms = format_args!("{:.1}", f.started.elapsed().as_secs_f64() * 1e3),
                        %outcome,
                        "call"
                    );
                    let _ = f.events.send(f.final_event(message));
                    self.lifetime.activity(Instant::now().into_std());
                    self.pump();
                    Ok(())
                }
                other => {
                    self.in_flight = other;
                    Err(format!("reply to call {call_id}, which is not running"))
                }
            },
            ToRouter::Progress {
                call_id,
                progress,
                total,
                message,
            } => {
                let Some(f) = self.in_flight.as_mut().filter(|f| f.call_id == call_id) else {
                    debug!(call_id, "progress without a running call dropped");
                    return Ok(());
                };
                let Some(token) = f.progress_token.clone() else {
                    return Ok(());
                };
                if !progress.is_finite() || f.last_progress.is_some_and(|last| progress < last) {
                    debug!(progress, "decreasing progress dropped");
                    return Ok(());
                }
                f.last_progress = Some(progress);
                // progress starts the deadline again (not once the call is being interrupted)
                if f.escalation.is_none() {
                    if let Some(t) = self.registry.config.request_timeout {
                        f.deadline = Some(Instant::now() + t);
                    }
                }
                let mut params = json!({ "progressToken": token, "progress": progress });
                if let Some(total) = total.filter(|t| t.is_finite()) {
                    params["total"] = json!(total);
                }
                if let Some(message) = message {
                    params["message"] = json!(message);
                }
                let note = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": params });
                self.deliver(Some(call_id), note.to_string());
                Ok(())
            }
            ToRouter::Log {
                call_id,
                level,
                text,
            } => {
                match call_id {
                    Some(_) => {
                        let index = log_level_index(&level).unwrap_or(DEFAULT_LOG_LEVEL);
                        let floor = self
                            .in_flight
                            .as_ref()
                            .filter(|f| Some(f.call_id) == call_id)
                            .and_then(|f| f.log_floor)
                            .unwrap_or(self.log_level);
                        if index >= floor {
                            let note = json!({
                                "jsonrpc": "2.0",
                                "method": "notifications/message",
                                "params": { "level": LOG_LEVELS[index], "logger": "gsmcp", "data": text },
                            });
                            self.deliver(call_id, note.to_string());
                        }
                    }
                    None => info!(target: "gsmcp_worker", %level, "{text}"),
                }
                Ok(())
            }
            ToRouter::Outbound { call_id, message } => self.outbound(call_id, message),
            ToRouter::ViewStatus {
                commits_behind,
                needs_commit,
                must_abort,
            } => {
                debug!(?commits_behind, needs_commit, must_abort, "view status");
                self.view_status(commits_behind, needs_commit, must_abort);
                if self.in_flight.is_none() {
                    self.view_hygiene();
                }
                Ok(())
            }
            ToRouter::ViewLag { commits_behind } => {
                self.view.lag(commits_behind, Instant::now().into_std());
                Ok(())
            }
            ToRouter::ReleaseStream { call_id } => {
                match self.in_flight.as_ref().filter(|f| f.call_id == call_id) {
                    Some(f) => {
                        let _ = f.events.send(CallEvent::Release);
                    }
                    None => debug!(call_id, "stream release without a running call dropped"),
                }
                Ok(())
            }
            other @ (ToRouter::Ready(_) | ToRouter::Failed { .. }) => {
                Err(format!("{} frame after the handshake", frame_name(&other)))
            }
        }
    }

    /// Answers every waiting request with `sessionGone`.
    fn answer_all_gone(&mut self, why: &str) {
        if let Some(f) = self.in_flight.take() {
            let _ = f.events.send(f.gone_event(why));
        }
        let queued: Vec<Queued> = self.queue.drain(..).collect();
        for q in queued {
            if let (Some(id), Some(events)) = (q.id, q.events) {
                let _ = events.send(CallEvent::Reply(jsonrpc::session_gone(&id, why)));
            }
        }
    }

    /// The worker's report of its view: how far behind (when the stone can
    /// say) and whether it holds uncommitted changes, which also keeps the
    /// streamless and stream-loss rules from releasing it before the idle
    /// timeout.
    fn view_status(&mut self, commits_behind: Option<u64>, needs_commit: bool, must_abort: bool) {
        let now = Instant::now().into_std();
        self.view
            .status(commits_behind, needs_commit, must_abort, now);
        self.needs_commit = Some(needs_commit);
        self.lifetime.set_holds_work(needs_commit);
    }

    /// What the session's end does to its uncommitted work, as far as the
    /// router knows.
    fn uncommitted_at_end(&self) -> Uncommitted {
        Uncommitted::from_report(self.needs_commit, self.in_flight.is_some())
    }

    /// Ends the standalone stream's writer: the session is over.
    fn end_standalone(&mut self) {
        let Some((_, feed)) = self.standalone.take() else {
            return;
        };
        match &self.subscription {
            // a listen stream ends with its request's result: a graceful end
            Some(id) => {
                let done = crate::hello::listen_done(&self.registry.config, id);
                feed.push(sse::Item::Last(done));
            }
            None => feed.finish(),
        }
    }

    /// Unmaps the session and leaves its tombstone; a one-shot or listener
    /// login was never mapped, and nobody could ask after it.
    fn end(&self, sid: &str, owner: &str, why: &str, uncommitted: Uncommitted) {
        if matches!(self.kind, Kind::Session | Kind::Handle) {
            self.registry.end(sid, owner, why, uncommitted);
        }
    }

    /// The worker died or its socket closed: unmap, answer everything waiting,
    /// reap and log why.
    async fn gone(&mut self, why: &str) {
        let uncommitted = self.uncommitted_at_end();
        self.end(&self.sid, &self.owner, why, uncommitted);
        self.end_standalone();
        // Reap first (a dead worker is reaped at once; a hung one is killed after
        // the grace period) so the slot is free when the clients hear of it.
        let (status, tail) = self.finish_dead().await;
        // the tombstone says how the worker ended, not only how we noticed
        self.end(
            &self.sid,
            &self.owner,
            &format!("its worker ended: {status}"),
            uncommitted,
        );
        self.slot = None;
        self.answer_all_gone(why);
        warn!(reason = %why, status = %status, uncommitted = uncommitted.word(), stderr = %tail, "worker gone; session ended");
    }

    /// Kills the worker, reaps it and gives its slot back; returns its
    /// status and stderr tail.
    pub(super) async fn kill(&mut self) -> (String, String) {
        self.worker.guard.kill();
        let status = self.finish_dead().await;
        self.slot = None;
        status
    }

    /// Makes sure a dying worker is dead and reaped; returns its status and stderr tail.
    async fn finish_dead(&mut self) -> (String, String) {
        let bound = self
            .registry
            .config
            .shutdown_grace
            .max(Duration::from_millis(500));
        let status = supervisor::reap(&mut self.worker, bound).await;
        (status, supervisor::stderr_tail(&self.worker).await)
    }

    /// Graceful end: unmap, refuse what is queued, ask the worker to exit, let it
    /// finish the running call within the grace period, then kill and reap.
    pub(super) async fn stop(&mut self, why: &str) {
        let uncommitted = self.uncommitted_at_end();
        self.end(&self.sid, &self.owner, why, uncommitted);
        self.end_standalone();
        let queued: Vec<Queued> = self.queue.drain(..).collect();
        for q in queued {
            if let (Some(id), Some(events)) = (q.id, q.events) {
                let _ = events.send(CallEvent::Reply(jsonrpc::session_gone(&id, why)));
            }
        }
        let _ = self.worker.to_worker.send(ToWorker::Shutdown);
        let grace = self.registry.config.shutdown_grace;
        let deadline = Instant::now() + grace;
        let mut socket_open = true;
        let status = loop {
            tokio::select! {
                frame = self.worker.from_worker.recv(), if socket_open => match frame {
                    Some(Ok(ToRouter::Reply { call_id, message, .. })) => {
                        if let Some(f) = self.in_flight.take_if(|f| f.call_id == call_id) {
                            let _ = f.events.send(f.final_event(message));
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => socket_open = false,
                },
                status = self.worker.guard.wait() => break match status {
                    Ok(s) => describe_exit(&s),
                    Err(e) => format!("unknown ({e})"),
                },
                _ = tokio::time::sleep_until(deadline) => {
                    warn!(?grace, "worker did not exit within the shutdown grace period; killing it");
                    self.worker.guard.kill();
                    break match self.worker.guard.wait().await {
                        Ok(s) => describe_exit(&s),
                        Err(e) => format!("unknown ({e})"),
                    };
                }
            }
        };
        self.slot = None;
        self.answer_all_gone(why);
        info!(reason = %why, status = %status, uncommitted = uncommitted.word(), sessions = self.registry.len(), "session closed");
    }
}
