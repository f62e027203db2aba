//! What a running call may say to the client before its answer, and how it waits
//! for the client's answer to a question of its own.
//!
//! [`Link`] is shared by the IPC reader and the engine thread. The engine side
//! hands a running call a [`Notifier`], through which it sends progress, log
//! lines and server requests (`sampling/createMessage`, `elicitation/create`,
//! `ping`) as frames; the reader side feeds it the client's answers
//! ([`Link::client_response`]) and the interruptions of the running call
//! ([`Link::interrupt`]: cancel, break, shutdown). A call waiting for the client
//! or pausing is woken by either, so Cancel and Break still end it.
//!
//! This module never decides what a call does and never writes a `Reply`: the
//! call's one answer stays the business of the call loop.

use crate::rounds::{check_answer, Round};
use gsmcp_ipc::{IpcError, ToRouter};
use serde_json::{json, Value};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where frames for the router go (the worker's IPC writer; a buffer in tests).
pub trait FrameSink: Send + Sync {
    /// Writes one frame to the router.
    fn send_frame(&self, frame: &ToRouter) -> Result<(), IpcError>;
}

/// The longest a call waits for the client's answer to one server request. The
/// router answers for the client after its own (shorter) deadline, so this bound
/// only matters if that answer is lost.
pub const CLIENT_ANSWER_BOUND: Duration = Duration::from_secs(15 * 60);

/// Why a running call was told to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// The client cancelled the request.
    Cancelled,
    /// The router sent a soft break (a deadline passed).
    SoftBreak,
    /// The router sent a hard break.
    HardBreak,
    /// The router is ending the session.
    ShuttingDown,
}

impl Interruption {
    /// What happened, as a phrase for a message.
    pub fn describe(self) -> &'static str {
        match self {
            Interruption::Cancelled => "the request was cancelled",
            Interruption::SoftBreak => "the call was interrupted by a soft break",
            Interruption::HardBreak => "the call was interrupted by a hard break",
            Interruption::ShuttingDown => "the session is shutting down",
        }
    }
}

/// MCP log levels, in syslog order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl Level {
    /// The level's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }
}

/// Why a server request got no usable answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The answer is not in this round of a multi round-trip request: the
    /// request's result asks the client for it (2026-07-28).
    #[error("the client's input is needed: the result asks for it")]
    InputRequired,
    /// The client did not declare the capability the request needs.
    #[error("the client did not declare the {0:?} capability")]
    NotDeclared(&'static str),
    /// The client's answer is not a result of the request's kind.
    #[error("the client's answer to {method} is unusable: {why}")]
    Unusable {
        /// The request answered.
        method: String,
        /// What is wrong with the answer.
        why: String,
    },
    /// The call was told to stop while it waited.
    #[error("{}", .0.describe())]
    Interrupted(Interruption),
    /// No answer came within [`CLIENT_ANSWER_BOUND`].
    #[error("the client did not answer in time")]
    Timeout,
    /// The client has no stream the request could travel on.
    #[error("the client has no open stream to receive the request")]
    NoStream,
    /// The client answered with a JSON-RPC error.
    #[error("the client answered with error {code}: {message}")]
    Client {
        /// The JSON-RPC error code.
        code: i64,
        /// The error's message.
        message: String,
    },
    /// The answer was not a JSON-RPC response.
    #[error("the client's answer is not a JSON-RPC response: {0}")]
    Malformed(String),
    /// The frame could not be sent to the router.
    #[error("cannot reach the router")]
    Ipc(#[from] IpcError),
}

#[derive(Default)]
struct State {
    /// Id counter for the worker's own requests (unique for the session's life).
    next_id: u64,
    /// The request the running call waits on, and its answer once it came.
    awaiting: Option<String>,
    answer: Option<Value>,
    /// Set by the reader for the running call; cleared when the next call starts.
    interrupted: Option<Interruption>,
}

/// The state shared between the IPC reader and the engine thread.
pub struct Link {
    sink: Box<dyn FrameSink>,
    state: Mutex<State>,
    wake: Condvar,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Link {
    /// A link writing to `sink`, with no call running.
    pub fn new(sink: Box<dyn FrameSink>) -> Arc<Link> {
        Arc::new(Link {
            sink,
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        })
    }

    /// Engine side: a new call starts; what was meant for the previous one is
    /// forgotten.
    pub fn begin_call(&self) {
        let mut s = lock(&self.state);
        s.interrupted = None;
        s.awaiting = None;
        s.answer = None;
    }

    /// Reader side: the running call must stop. The first reason sticks.
    pub fn interrupt(&self, why: Interruption) {
        let mut s = lock(&self.state);
        if s.interrupted.is_none() {
            s.interrupted = Some(why);
        }
        self.wake.notify_all();
    }

    /// Engine side: a notification for the client that belongs to no call
    /// (`notifications/resources/updated`): the router sends it on the
    /// session's standalone stream.
    pub fn notify_session(&self, message: String) -> Result<(), IpcError> {
        self.sink.send_frame(&ToRouter::Outbound {
            call_id: None,
            message,
        })
    }

    /// Reader side: the client's answer to one of the worker's requests (its id
    /// already restored by the router). An answer nobody waits for is dropped.
    pub fn client_response(&self, value: Value) {
        let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
        let mut s = lock(&self.state);
        if id.is_some() && id == s.awaiting {
            s.answer = Some(value);
            self.wake.notify_all();
        } else {
            tracing::debug!(?id, "client response with no waiting request dropped");
        }
    }

    /// A notifier for the call `call_id`, whose request carried `progress_wanted`
    /// (a progress token) and whose client declared `capabilities` at initialize.
    pub fn notifier(
        self: &Arc<Self>,
        call_id: u64,
        progress_wanted: bool,
        capabilities: Value,
    ) -> Notifier {
        Notifier {
            link: self.clone(),
            call_id,
            progress_wanted,
            capabilities,
            round: None,
        }
    }
}

/// A running call's voice towards the client.
pub struct Notifier {
    link: Arc<Link>,
    call_id: u64,
    progress_wanted: bool,
    capabilities: Value,
    /// The stateless era, which has no server requests: what the call asks
    /// is answered from this round of a multi round-trip request.
    round: Option<Arc<Mutex<Round>>>,
}

/// One thing a call asks the client: its key (unique within the request),
/// the request's method and its params.
pub type Ask<'a> = (&'a str, &'a str, Value);

impl Notifier {
    /// The same notifier for a call of the stateless era: what it asks is
    /// answered from `round` (see [`crate::rounds`]), never sent.
    pub fn in_round(mut self, round: Arc<Mutex<Round>>) -> Notifier {
        self.round = Some(round);
        self
    }

    /// Whether the request is a retry in a multi round-trip request that
    /// brought back the verified state of the round before it.
    pub fn resumed(&self) -> bool {
        self.round
            .as_ref()
            .is_some_and(|r| r.lock().unwrap_or_else(|p| p.into_inner()).resumed())
    }

    /// The call this notifier speaks for.
    pub fn call_id(&self) -> u64 {
        self.call_id
    }

    /// Whether the request asked for progress (carried `_meta.progressToken`).
    pub fn progress_wanted(&self) -> bool {
        self.progress_wanted
    }

    /// Whether the client declared the named capability at initialize.
    pub fn client_has(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(|v| !v.is_null())
    }

    /// The reason the call must stop, if it must.
    pub fn interrupted(&self) -> Option<Interruption> {
        lock(&self.link.state).interrupted
    }

    /// Reports progress; nothing is sent when the request did not ask for it.
    pub fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), IpcError> {
        if !self.progress_wanted {
            return Ok(());
        }
        self.link.sink.send_frame(&ToRouter::Progress {
            call_id: self.call_id,
            progress,
            total,
            message: message.map(str::to_owned),
        })
    }

    /// A log line for the client (the router filters it by the session's level).
    pub fn log(&self, level: Level, text: impl Into<String>) -> Result<(), IpcError> {
        self.link.sink.send_frame(&ToRouter::Log {
            call_id: Some(self.call_id),
            level: level.as_str().into(),
            text: text.into(),
        })
    }

    /// Waits `pause`, or less if the call is interrupted (then answers why).
    pub fn pause(&self, pause: Duration) -> Result<(), Interruption> {
        let end = Instant::now() + pause;
        let mut s = lock(&self.link.state);
        loop {
            if let Some(why) = s.interrupted {
                return Err(why);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            s = self
                .link
                .wake
                .wait_timeout(s, end - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Asks the router to close the connection of this call's event stream
    /// without ending the stream: the client reconnects and resumes it.
    pub fn release_stream(&self) -> Result<(), IpcError> {
        self.link.sink.send_frame(&ToRouter::ReleaseStream {
            call_id: self.call_id,
        })
    }

    /// Asks the client `method` with `params` (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`), under `key`, and answers its
    /// result: in the session era a server request the call waits for, in the
    /// stateless era the answer this round of the request carries, or
    /// [`RequestError::InputRequired`] (and the request's result asks for it).
    pub fn ask(&self, key: &str, method: &str, params: Value) -> Result<Value, RequestError> {
        let mut answers = self.ask_all(vec![(key, method, params)])?;
        Ok(answers.remove(0))
    }

    /// Asks several things at once, answering their results in order. In the
    /// stateless era the client is asked for every missing answer in one
    /// round; in the session era the requests go one after another.
    pub fn ask_all(&self, asks: Vec<Ask<'_>>) -> Result<Vec<Value>, RequestError> {
        for (_, method, _) in &asks {
            if let Some(cap) = capability_for(method) {
                if !self.client_has(cap) {
                    return Err(RequestError::NotDeclared(cap));
                }
            }
        }
        let Some(round) = &self.round else {
            return asks
                .into_iter()
                .map(|(_, method, params)| self.request(method, params))
                .collect();
        };
        let mut round = round.lock().unwrap_or_else(|p| p.into_inner());
        let mut answers = Vec::new();
        let mut missing = false;
        for (key, method, params) in asks {
            let answer =
                round
                    .answer_or_ask(key, method, params)
                    .map_err(|why| RequestError::Unusable {
                        method: method.to_string(),
                        why,
                    })?;
            match answer {
                Some(answer) => answers.push(answer),
                None => missing = true,
            }
        }
        match missing {
            true => Err(RequestError::InputRequired),
            false => Ok(answers),
        }
    }

    /// Sends `method` to the client and waits for its result (the session era).
    fn request(&self, method: &str, params: Value) -> Result<Value, RequestError> {
        let id = {
            let mut s = lock(&self.link.state);
            if let Some(why) = s.interrupted {
                return Err(RequestError::Interrupted(why));
            }
            s.next_id += 1;
            let id = format!("w{}", s.next_id);
            s.awaiting = Some(id.clone());
            s.answer = None;
            id
        };
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.link.sink.send_frame(&ToRouter::Outbound {
            call_id: Some(self.call_id),
            message: message.to_string(),
        })?;
        let end = Instant::now() + CLIENT_ANSWER_BOUND;
        let mut s = lock(&self.link.state);
        let answer = loop {
            if let Some(answer) = s.answer.take() {
                break answer;
            }
            if let Some(why) = s.interrupted {
                s.awaiting = None;
                return Err(RequestError::Interrupted(why));
            }
            let now = Instant::now();
            if now >= end {
                s.awaiting = None;
                return Err(RequestError::Timeout);
            }
            s = self
                .link
                .wake
                .wait_timeout(s, end - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        };
        s.awaiting = None;
        drop(s);
        let result = interpret_answer(answer)?;
        check_answer(method, &result).map_err(|why| RequestError::Unusable {
            method: method.to_string(),
            why,
        })?;
        Ok(result)
    }
}

/// The client capability a request to the client needs, if any.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// A notifier whose frames go nowhere, for tests of what calls through it.
#[cfg(test)]
pub(crate) fn detached_notifier(capabilities: Value) -> Notifier {
    struct Nowhere;
    impl FrameSink for Nowhere {
        fn send_frame(&self, _: &ToRouter) -> Result<(), IpcError> {
            Ok(())
        }
    }
    Link::new(Box::new(Nowhere)).notifier(1, false, capabilities)
}

/// The result of a client's response, or the error it stands for.
fn interpret_answer(answer: Value) -> Result<Value, RequestError> {
    if let Some(result) = answer.get("result") {
        return Ok(result.clone());
    }
    let Some(error) = answer.get("error") else {
        return Err(RequestError::Malformed("neither result nor error".into()));
    };
    match error.pointer("/data/kind").and_then(Value::as_str) {
        Some("timeout") => return Err(RequestError::Timeout),
        Some("noStream") => return Err(RequestError::NoStream),
        _ => {}
    }
    Err(RequestError::Client {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::thread;

    struct Chan(Mutex<mpsc::Sender<ToRouter>>);
    impl FrameSink for Chan {
        fn send_frame(&self, frame: &ToRouter) -> Result<(), IpcError> {
            let _ = self.0.lock().unwrap().send(frame.clone());
            Ok(())
        }
    }

    fn link() -> (Arc<Link>, mpsc::Receiver<ToRouter>) {
        let (tx, rx) = mpsc::channel();
        (Link::new(Box::new(Chan(Mutex::new(tx)))), rx)
    }

    fn caps() -> Value {
        json!({"sampling": {}, "elicitation": {}})
    }

    /// Plays the client: answers the next Outbound request with `reply(id)`.
    fn answer_next(
        link: Arc<Link>,
        rx: mpsc::Receiver<ToRouter>,
        reply: fn(&Value) -> Value,
    ) -> thread::JoinHandle<Value> {
        thread::spawn(move || loop {
            if let Ok(ToRouter::Outbound { message, .. }) = rx.recv() {
                let request: Value = serde_json::from_str(&message).unwrap();
                link.client_response(reply(&request["id"]));
                return request;
            }
        })
    }

    #[test]
    fn answers_map_to_results_and_errors() {
        type Reply = fn(&Value) -> Value;
        let table: [(Reply, Result<Value, &str>); 6] = [
            (
                |id| json!({"jsonrpc": "2.0", "id": id, "result": {"content": {"type": "text", "text": "hi"}}}),
                Ok(json!({"content": {"type": "text", "text": "hi"}})),
            ),
            (
                |id| json!({"jsonrpc": "2.0", "id": id, "result": {"x": 1}}),
                Err("unusable: a sampling result needs content"),
            ),
            (
                |id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": "late", "data": {"kind": "timeout"}}}),
                Err("in time"),
            ),
            (
                |id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": "x", "data": {"kind": "noStream"}}}),
                Err("no open stream"),
            ),
            (
                |id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "declined"}}),
                Err("declined"),
            ),
            (|id| json!({"jsonrpc": "2.0", "id": id}), Err("neither")),
        ];
        for (reply, expected) in table {
            let (link, rx) = link();
            link.begin_call();
            let client = answer_next(link.clone(), rx, reply);
            let got = link
                .notifier(7, false, caps())
                .request("sampling/createMessage", json!({}));
            let request = client.join().unwrap();
            assert_eq!(request["method"], "sampling/createMessage");
            match (got, expected) {
                (Ok(v), Ok(e)) => assert_eq!(v, e),
                (Err(g), Err(e)) => assert!(g.to_string().contains(e), "{g} lacks {e}"),
                (g, e) => panic!("got {g:?}, expected {e:?}"),
            }
        }
    }

    #[test]
    fn an_interruption_ends_a_wait_for_the_client() {
        let (link, _rx) = link();
        link.begin_call();
        let reader = {
            let link = link.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(30));
                link.interrupt(Interruption::Cancelled);
            })
        };
        let got = link
            .notifier(1, false, caps())
            .request("elicitation/create", json!({}));
        reader.join().unwrap();
        assert!(
            matches!(got, Err(RequestError::Interrupted(Interruption::Cancelled))),
            "{got:?}"
        );
        // ...and a pause of the same call ends at once; the next call starts clean.
        assert_eq!(
            link.notifier(1, false, caps())
                .pause(Duration::from_secs(60)),
            Err(Interruption::Cancelled)
        );
        link.begin_call();
        assert_eq!(
            link.notifier(2, false, caps())
                .pause(Duration::from_millis(1)),
            Ok(())
        );
    }

    #[test]
    fn undeclared_capabilities_are_refused_without_sending() {
        let (link, rx) = link();
        let n = link.notifier(1, false, json!({"sampling": {}}));
        assert!(matches!(
            n.ask("k", "elicitation/create", json!({})),
            Err(RequestError::NotDeclared("elicitation"))
        ));
        let round = Arc::new(Mutex::new(Round::default()));
        let n = link.notifier(1, false, json!({})).in_round(round.clone());
        assert!(matches!(
            n.ask("k", "roots/list", json!({})),
            Err(RequestError::NotDeclared("roots"))
        ));
        assert!(rx.try_recv().is_err(), "nothing may be sent");
        drop(n);
        let round = Arc::try_unwrap(round).unwrap().into_inner().unwrap();
        assert!(round.input_required().is_none(), "nothing may be asked");
    }

    #[test]
    fn in_a_round_asking_is_answered_from_the_request_or_becomes_an_input_request() {
        let (link, rx) = link();
        let mut params = json!({"inputResponses": {"a": {"action": "accept", "content": {"n": 1}}, "bad": {"x": 1}}});
        let round = Round::take(params.as_object_mut().unwrap());
        let round = Arc::new(Mutex::new(round));
        let n = link.notifier(1, false, caps()).in_round(round.clone());
        assert_eq!(
            n.ask("a", "elicitation/create", json!({})).unwrap(),
            json!({"action": "accept", "content": {"n": 1}})
        );
        assert!(matches!(
            n.ask("bad", "elicitation/create", json!({})),
            Err(RequestError::Unusable { .. })
        ));
        let both = n.ask_all(vec![
            ("a", "elicitation/create", json!({})),
            ("b", "sampling/createMessage", json!({"maxTokens": 9})),
            ("c", "elicitation/create", json!({"message": "?"})),
        ]);
        assert!(matches!(both, Err(RequestError::InputRequired)), "{both:?}");
        assert!(rx.try_recv().is_err(), "the stateless era sends no request");
        drop(n);
        let irr = Arc::try_unwrap(round)
            .unwrap()
            .into_inner()
            .unwrap()
            .input_required()
            .unwrap();
        let asked: Vec<&String> = irr["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(asked, ["b", "c"], "every missing answer in one round");
    }

    #[test]
    fn progress_only_when_asked_and_logs_always() {
        let (link, rx) = link();
        link.notifier(3, false, Value::Null)
            .progress(1.0, None, None)
            .unwrap();
        assert!(rx.try_recv().is_err());
        let n = link.notifier(3, true, Value::Null);
        n.progress(50.0, Some(100.0), Some("half")).unwrap();
        n.log(Level::Warning, "careful").unwrap();
        assert_eq!(
            rx.try_recv().unwrap(),
            ToRouter::Progress {
                call_id: 3,
                progress: 50.0,
                total: Some(100.0),
                message: Some("half".into())
            }
        );
        assert_eq!(
            rx.try_recv().unwrap(),
            ToRouter::Log {
                call_id: Some(3),
                level: "warning".into(),
                text: "careful".into()
            }
        );
    }

    #[test]
    fn stray_answers_are_dropped() {
        let (link, _rx) = link();
        link.client_response(json!({"jsonrpc": "2.0", "id": "w99", "result": {}}));
        link.client_response(json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        assert!(lock(&link.state).answer.is_none());
    }
}
