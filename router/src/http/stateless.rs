//! The stateless protocol era (MCP 2026-07-28) on the one endpoint, beside
//! the session era: which requests belong to it ([`chosen`]), their checks,
//! and where each goes.
//!
//! A stateless request carries its revision and its client's capabilities in
//! `params._meta` and mirrors its method (and, for `tools/call`,
//! `resources/read` and `prompts/get`, its name) in headers. The checks, in
//! order: the required `_meta` fields (400, `-32602`), `MCP-Protocol-Version`
//! against `_meta` (400, `-32020`), the revision (400, `-32022` listing what
//! is served), the other headers against the body (400, `-32020`), the method (404, `-32601`: the revision removed `initialize`,
//! `ping`, `logging/setLevel` and `resources/subscribe`).
//!
//! Isolation without a session id: state lives in a login named by a
//! handle. `open_session` starts a worker and answers its handle (an
//! unguessable id bound to the principal that opened it); a call carrying it
//! as its `session` argument runs in that login, one call at a time, exactly
//! as a session's calls do; `close_session` ends it; the idle timeout and the
//! lifetime end it too, leaving a tombstone for its owner. A handle another
//! principal presents is unknown to it. Any other request runs in a one-shot
//! login of its own, which ends with the call (its uncommitted changes with
//! it, as the result says). Closing the response stream before the answer
//! cancels the call. A request that may answer an `InputRequiredResult`
//! (`tools/call`, `prompts/get`, `resources/read`) has its `inputResponses`
//! checked and its `requestState` opened before it goes anywhere, and the
//! state of such a result sealed on its way back ([`crate::request_state`]).
//! `subscriptions/listen` answers an open stream that acknowledges what it
//! honours: no list-changed type (nothing this server lists changes while it
//! runs), and, where commits can be followed, resource subscriptions, which
//! a listener login of the stream's own serves.
//!
//! Discovery and the tool, prompt and template lists depend only on the
//! deployment and on what the principal's scopes withhold, so the first
//! answer of each (from a one-shot login) is kept ([`Answers`]) and later
//! ones cost no worker: a client probing `server/discover` is answered even
//! when every session slot is taken.

use crate::http::{self, Answering, AppState};
use crate::identity::Principal;
use crate::request_state::Binding;
use crate::session::{self, CallEvent, CallSink, Command, Kind, OpenOutcome, SessionHandle};
use crate::{sse, trace};
use base64::Engine as _;
use gsmcp_ipc::era::{self, SessionArg, SESSION_VERSIONS, STATELESS_VERSIONS};
use gsmcp_ipc::jsonrpc::{self, Message};
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use tracing::{debug, info};

use crate::body::Body;

const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// Whether a request without `Mcp-Session-Id` belongs to the stateless era:
/// it is `server/discover`, or its `MCP-Protocol-Version` header or its
/// `_meta` names a stateless revision, or (for anything but `initialize`,
/// which opens the session era whatever it names) a revision the session era
/// does not know.
pub fn chosen(headers: &HeaderMap, message: &Message) -> bool {
    let method = message.method();
    if method == Some("server/discover") {
        return true;
    }
    let params = match message {
        Message::Request { params, .. } | Message::Notification { params, .. } => params.as_ref(),
        Message::Response { .. } => None,
    };
    let header = headers
        .get(http::VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    let named = [header, era::requested_version(params)];
    if named.iter().flatten().any(|v| era::is_stateless(v)) {
        return true;
    }
    method != Some("initialize")
        && named
            .iter()
            .flatten()
            .any(|v| !SESSION_VERSIONS.contains(v))
}

/// A refusal of a stateless request: its status and JSON-RPC error.
struct Refused {
    status: StatusCode,
    code: i64,
    message: String,
    data: Option<Value>,
}

impl Refused {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Refused {
        Refused {
            status,
            code,
            message: message.into(),
            data: None,
        }
    }

    fn bad(code: i64, message: impl Into<String>) -> Refused {
        Refused::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn answer(self, id: &Value) -> Response<Body> {
        let body = jsonrpc::error_body(Some(id), self.code, &self.message, self.data);
        http::json_response(self.status, body)
    }
}

/// What the checks learned of a request.
struct Checked {
    /// The least severe log level the client wants for it (an index into
    /// [`session::LOG_LEVELS`]; their number: none).
    log_floor: usize,
}

/// The checks every stateless request passes, in the order the module doc gives.
fn check(headers: &HeaderMap, method: &str, params: Option<&Value>) -> Result<Checked, Refused> {
    let invalid = |m: &str| Refused::bad(jsonrpc::INVALID_PARAMS, m);
    let Some(meta) = era::meta(params) else {
        return Err(invalid(
            "Invalid params: a 2026-07-28 request carries params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
        ));
    };
    let Some(version) = meta.get(era::META_PROTOCOL_VERSION).and_then(Value::as_str) else {
        return Err(invalid(
            "Invalid params: params._meta needs io.modelcontextprotocol/protocolVersion (a string)",
        ));
    };
    if !meta
        .get(era::META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return Err(invalid(
            "Invalid params: params._meta needs io.modelcontextprotocol/clientCapabilities (an object)",
        ));
    }
    let log_floor = match meta.get(era::META_LOG_LEVEL) {
        None | Some(Value::Null) => session::LOG_LEVELS.len(),
        Some(level) => level
            .as_str()
            .and_then(session::log_level_index)
            .ok_or_else(|| {
                invalid(&format!(
                    "Invalid params: io.modelcontextprotocol/logLevel must be one of {}",
                    session::LOG_LEVELS.join(", ")
                ))
            })?,
    };
    let mismatch = |m: String| Refused::bad(era::HEADER_MISMATCH, format!("Header mismatch: {m}"));
    match header(headers, http::VERSION_HEADER) {
        Some(v) if v == version => {}
        Some(v) => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version {v:?} does not match _meta's {version:?}"
            )))
        }
        None => {
            return Err(mismatch(
                "the MCP-Protocol-Version header is required".into(),
            ))
        }
    }
    if !era::is_stateless(version) {
        let supported = era::all_versions();
        return Err(Refused {
            data: Some(json!({ "supported": supported, "requested": version })),
            ..Refused::bad(
                era::UNSUPPORTED_VERSION,
                format!(
                    "Unsupported protocol version {version:?}: this server serves {} without a session and {} after initialize",
                    STATELESS_VERSIONS.join(", "),
                    SESSION_VERSIONS.join(", ")
                ),
            )
        });
    }
    match header(headers, METHOD_HEADER) {
        Some(m) if m == method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Mcp-Method {m:?} does not match the body's method {method:?}"
            )))
        }
        None => return Err(mismatch("the Mcp-Method header is required".into())),
    }
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(field) = named {
        let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        let sent = header(headers, NAME_HEADER).map(decode_header_value);
        match (sent, body) {
            (None, _) => {
                return Err(mismatch(format!(
                    "the Mcp-Name header is required for {method}"
                )))
            }
            (Some(None), _) => {
                return Err(mismatch(
                    "Mcp-Name is not a valid header value or base64 sentinel".into(),
                ))
            }
            (Some(Some(h)), Some(b)) if h == b => {}
            (Some(Some(h)), b) => {
                return Err(mismatch(format!(
                    "Mcp-Name {h:?} does not match params.{field} {:?}",
                    b.unwrap_or("")
                )))
            }
        }
    }
    if !era::STATELESS_METHODS.contains(&method) {
        return Err(Refused::new(
            StatusCode::NOT_FOUND,
            jsonrpc::METHOD_NOT_FOUND,
            match method {
                "initialize" | "ping" | "logging/setLevel" | "resources/subscribe"
                | "resources/unsubscribe" => format!(
                    "Method not found: {method} is not part of 2026-07-28 (use it after initialize, without _meta, in a session-era revision)"
                ),
                _ => format!("Method not found: {method}"),
            },
        ));
    }
    Ok(Checked { log_floor })
}

/// A header's value as text, if it is there and readable.
fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// A mirrored header value as the client meant it: `=?base64?...?=` decoded
/// as UTF-8, anything else as sent. `None` for a sentinel that does not decode.
fn decode_header_value(value: &str) -> Option<String> {
    let Some(inner) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Some(value.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// The status of a worker's reply in this era: a method it does not serve
/// (prompts on a server without prompts, say) is 404, as the transport says.
pub(crate) fn status_of(reply: &str) -> StatusCode {
    let code = serde_json::from_str::<Value>(reply)
        .ok()
        .and_then(|v| v.get("error")?.get("code")?.as_i64());
    match code {
        Some(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(era::HEADER_MISMATCH | era::MISSING_CLIENT_CAPABILITY | era::UNSUPPORTED_VERSION) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// Cancels a stateless call when dropped armed: the client closed the
/// response before the answer, which in this era is the cancellation. The
/// call is named by its events channel, not its JSON-RPC id: stateless
/// clients may reuse ids across requests, and one client's requests may
/// wait on the same handle.
pub(crate) struct CancelOnDrop {
    handle: SessionHandle,
    events: CallSink,
    armed: bool,
}

impl CancelOnDrop {
    fn new(handle: SessionHandle, events: CallSink) -> CancelOnDrop {
        CancelOnDrop {
            handle,
            events,
            armed: true,
        }
    }

    /// The answer was delivered: dropping cancels nothing.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            debug!("client closed the response: cancelling the call");
            let _ = self.handle.send(Command::Abandon {
                events: self.events.clone(),
            });
        }
    }
}

/// What the stateless era keeps across requests.
#[derive(Default)]
pub struct Shared {
    answers: Answers,
    /// The `subscriptions/listen` streams open now.
    listening: Arc<AtomicUsize>,
}

/// The most `subscriptions/listen` streams open at once: each holds a
/// connection and a task, and no session bounds them.
pub const MAX_LISTENERS: usize = 64;

/// One of the [`MAX_LISTENERS`] places, given back when dropped (the stream
/// ended, or the client left before it began).
struct ListenPlace(Arc<AtomicUsize>);

impl ListenPlace {
    fn take(listening: &Arc<AtomicUsize>) -> Option<ListenPlace> {
        if listening.fetch_add(1, Ordering::SeqCst) >= MAX_LISTENERS {
            listening.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(ListenPlace(listening.clone()))
    }
}

impl Drop for ListenPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The most resources one `subscriptions/listen` may subscribe to, and the
/// longest URI it may name.
pub const MAX_LISTEN_URIS: usize = 64;
const MAX_URI_LEN: usize = 2048;

/// The resource URIs a `subscriptions/listen` request's filter subscribes
/// to; `Err` says what is wrong with the filter. The other filter fields are
/// booleans the acknowledgment answers (none is honoured).
fn listen_filter(params: Option<&Value>) -> Result<Vec<String>, String> {
    let Some(filter) = params.and_then(|p| p.get("notifications")) else {
        return Ok(Vec::new());
    };
    let Some(filter) = filter.as_object() else {
        return Err("notifications must be an object".into());
    };
    for (k, v) in filter {
        if k != "resourceSubscriptions" && !v.is_boolean() {
            let k: String = k.chars().take(64).collect();
            return Err(format!("notifications.{k} must be a boolean"));
        }
    }
    let uris = match filter.get("resourceSubscriptions") {
        None => return Ok(Vec::new()),
        Some(Value::Array(uris)) => uris,
        Some(_) => {
            return Err("notifications.resourceSubscriptions must be an array of URIs".into())
        }
    };
    if uris.len() > MAX_LISTEN_URIS {
        return Err(format!(
            "notifications.resourceSubscriptions names {} resources; one stream may subscribe to at most {MAX_LISTEN_URIS}",
            uris.len()
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for uri in uris {
        match uri.as_str() {
            Some(u) if !u.is_empty() && u.len() <= MAX_URI_LEN => {
                if !out.iter().any(|o| o == u) {
                    out.push(u.to_string());
                }
            }
            _ => {
                return Err(format!(
                    "notifications.resourceSubscriptions holds something that is not a URI of at most {MAX_URI_LEN} characters"
                ))
            }
        }
    }
    Ok(out)
}

/// The results of the requests whose answer cannot change while the router
/// runs, by method and the toolsets the principal's scopes withhold.
#[derive(Default)]
struct Answers(std::sync::Mutex<std::collections::HashMap<String, Value>>);

/// The most answers kept: one per static method and withheld set is a handful.
const MAX_ANSWERS: usize = 64;

/// The methods whose result depends only on the deployment and the grants.
const STATIC_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/templates/list",
];

impl Answers {
    fn get(&self, key: &str) -> Option<Value> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    fn put(&self, key: String, result: Value) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_ANSWERS {
            map.clear();
        }
        map.insert(key, result);
    }
}

/// A stateless request, after [`chosen`] picked this era for it.
pub async fn post(
    state: &AppState,
    headers: &HeaderMap,
    message: Message,
    principal: &Principal,
    exchange: Option<&trace::Exchange>,
) -> Response<Body> {
    let (id, method, params) = match message {
        // The revision defines no client notification over HTTP; one is
        // accepted and has no effect (closing a stream is the cancellation).
        Message::Notification { method, .. } => {
            debug!(%method, "stateless notification accepted and ignored");
            return http::accepted();
        }
        Message::Response { id, .. } => {
            return Refused::bad(
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: 2026-07-28 has no server requests for a client to answer",
            )
            .answer(&id)
        }
        Message::Request { id, method, params } => (id, method, params),
    };
    let checked = match check(headers, &method, params.as_ref()) {
        Ok(c) => c,
        Err(refused) => {
            debug!(%method, code = refused.code, "stateless request refused: {}", refused.message);
            return refused.answer(&id);
        }
    };
    let mut params = params;
    let seal = match next_round(state, principal, &method, params.as_mut()) {
        Ok(seal) => seal,
        Err(refused) => {
            debug!(%method, "stateless request refused: {}", refused.message);
            return refused.answer(&id);
        }
    };
    let call = Call {
        state,
        headers,
        principal,
        exchange,
        id,
        method,
        params,
        log_floor: checked.log_floor,
        seal,
    };
    if call.method == "subscriptions/listen" {
        return call.listen().await;
    }
    if call.method == "tools/call" {
        match call
            .params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
        {
            Some(era::OPEN_SESSION) => return call.open_session().await,
            Some(era::CLOSE_SESSION) => return call.close_session().await,
            _ => {}
        }
        match era::session_argument(call.params.as_ref()) {
            SessionArg::NotAString => {
                return call.tool_error(
                    "invalidParams",
                    "session must be a string: the handle open_session answered".into(),
                    None,
                )
            }
            SessionArg::Handle(handle) => {
                let handle = handle.to_string();
                return match call.handle(&handle) {
                    Ok(h) => call.forward(h).await,
                    Err(refusal) => call.result(refusal),
                };
            }
            SessionArg::Absent => {}
        }
    }
    call.one_shot().await
}

/// A stateless login that started.
struct Started {
    /// Its id: a handle's is what the client is given.
    sid: String,
    /// Where its requests go (a one-shot's only way in).
    handle: SessionHandle,
    /// The repository user its worker logged in as.
    user: String,
}

/// One checked stateless request.
struct Call<'a> {
    state: &'a AppState,
    headers: &'a HeaderMap,
    principal: &'a Principal,
    exchange: Option<&'a trace::Exchange>,
    id: Value,
    method: String,
    params: Option<Value>,
    log_floor: usize,
    /// A multi round-trip method: what its `requestState` is bound to.
    seal: Option<Binding>,
}

/// Multi round-trip requests (the module doc of [`crate::request_state`]):
/// for a method that may answer an `InputRequiredResult`, checks the client's
/// `inputResponses` (an object of result objects) and opens its
/// `requestState`, replacing the string with the verified content the worker
/// reads; answers the binding the reply's state is to be sealed for. A
/// refusal is `-32602` with `data.kind` `invalidRequestState` (and why) or
/// `invalidInputResponses`.
fn next_round(
    state: &AppState,
    principal: &Principal,
    method: &str,
    params: Option<&mut Value>,
) -> Result<Option<Binding>, Refused> {
    if !era::INPUT_METHODS.contains(&method) {
        return Ok(None);
    }
    let binding = Binding::of(principal.name(), method, params.as_deref());
    let Some(Value::Object(params)) = params else {
        return Ok(Some(binding));
    };
    let refuse = |kind: &str, message: String, reason: Option<&str>| {
        let mut data = json!({ "kind": kind });
        if let Some(r) = reason {
            data["reason"] = json!(r);
        }
        Refused {
            data: Some(data),
            ..Refused::new(
                StatusCode::OK,
                jsonrpc::INVALID_PARAMS,
                format!("Invalid params: {message}"),
            )
        }
    };
    match params.get(era::INPUT_RESPONSES) {
        None => {}
        Some(Value::Object(answers)) => {
            if let Some((key, _)) = answers.iter().find(|(_, v)| !v.is_object()) {
                let key: String = key.chars().take(64).collect();
                return Err(refuse(
                    "invalidInputResponses",
                    format!("inputResponses.{key} must be the client's result object for that input request"),
                    None,
                ));
            }
        }
        Some(_) => {
            return Err(refuse(
                "invalidInputResponses",
                "inputResponses must be an object of results keyed as the inputRequests were"
                    .into(),
                None,
            ))
        }
    }
    match params.remove(era::REQUEST_STATE) {
        None => {}
        Some(Value::String(sealed)) => {
            let key = &state.config.request_state_key;
            match key.open(&binding, &sealed, crate::secret::unix_now()) {
                Ok(content) => {
                    params.insert(era::REQUEST_STATE.into(), content);
                }
                Err(e) => return Err(refuse("invalidRequestState", e.to_string(), Some(e.kind()))),
            }
        }
        Some(_) => {
            return Err(refuse(
                "invalidRequestState",
                "requestState must be the string an InputRequiredResult carried".into(),
                Some("notAString"),
            ))
        }
    }
    Ok(Some(binding))
}

/// A worker's reply as the client gets it: the state of an
/// `InputRequiredResult` (the worker's plain JSON) sealed for `binding`.
/// A state too large to seal turns the reply into a `-32602` error.
pub(crate) fn sealed(
    config: &crate::config::Config,
    binding: Option<&Binding>,
    reply: String,
) -> String {
    let Some(binding) = binding else { return reply };
    if !reply.contains(era::INPUT_REQUIRED) {
        return reply;
    }
    let Ok(mut message) = serde_json::from_str::<Value>(&reply) else {
        return reply;
    };
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return reply;
    };
    if result.get("resultType").and_then(Value::as_str) != Some(era::INPUT_REQUIRED) {
        return reply;
    }
    let content = result
        .remove(era::REQUEST_STATE)
        .unwrap_or_else(|| json!({}));
    match config
        .request_state_key
        .seal(binding, &content, crate::secret::unix_now())
    {
        Ok(s) => {
            result.insert(era::REQUEST_STATE.into(), Value::String(s));
            message.to_string()
        }
        Err(e) => jsonrpc::error_body(
            message.get("id"),
            jsonrpc::INVALID_PARAMS,
            &format!(
                "Invalid params: the answers gathered for this request are too large to carry: {e}"
            ),
            Some(json!({ "kind": "invalidRequestState", "reason": e.kind() })),
        ),
    }
}

impl Call<'_> {
    /// The login a `session` argument names, if it is a live handle of this
    /// principal; else the tool error the call gets (saying, for the owner of
    /// a handle that ended lately, why, and what became of its work).
    fn handle(&self, handle: &str) -> Result<SessionHandle, Value> {
        // a handle is 32 characters: no more of the client's text comes back
        let shown: String = handle.chars().take(64).collect();
        let live = self
            .state
            .registry
            .lookup(handle)
            .filter(|h| h.kind == Kind::Handle && h.owner == self.principal.name());
        if let Some(h) = live {
            tracing::Span::current().record("session", h.sid8.as_str());
            return Ok(h);
        }
        Err(match self.state.registry.ended(handle, self.principal.name()) {
            Some(ended) => tool_error_value(
                "sessionEnded",
                format!(
                    "The session {shown} ended ({}), and {}. Call open_session for a new one.",
                    ended.reason,
                    ended.work()
                ),
                Some(json!({ "reason": ended.reason, "uncommittedLost": ended.uncommitted.lost() })),
            ),
            None => tool_error_value(
                "sessionNotFound",
                format!("No session {shown}: it ended or never existed. Call open_session for a new one."),
                None,
            ),
        })
    }

    /// Hands the request to a login and answers from its events.
    async fn forward(self, handle: SessionHandle) -> Response<Body> {
        let (events, answers) = mpsc::unbounded_channel();
        let cancel = CancelOnDrop::new(handle.clone(), events.clone());
        let sent = handle.send(Command::Request {
            id: self.id.clone(),
            method: self.method,
            params: self.params,
            events,
            log_floor: Some(self.log_floor),
        });
        if sent.is_err() {
            let mut cancel = cancel;
            cancel.disarm();
            let gone =
                jsonrpc::session_gone(&self.id, "the session ended before the call reached it");
            return http::json_response(StatusCode::OK, gone);
        }
        let how = Answering::stateless_era(self.headers, cancel, self.seal);
        let trace = self.exchange.map(|e| e.stream(None));
        http::answer_call(self.state, &handle, self.id, answers, how, trace).await
    }

    /// The key of a request whose answer can be kept: a static method with
    /// no parameter but `_meta` (a cursor, say, is the client's own text).
    fn static_key(&self) -> Option<String> {
        if !STATIC_METHODS.contains(&self.method.as_str()) {
            return None;
        }
        let only_meta = match &self.params {
            None => true,
            Some(Value::Object(p)) => p.keys().all(|k| k == "_meta"),
            Some(_) => false,
        };
        let config = &self.state.config;
        let withheld = crate::access::withheld_toolsets(
            &config.scope_toolsets,
            &config.toolsets,
            self.principal,
        );
        only_meta.then(|| format!("{} {withheld:?}", self.method))
    }

    /// A static request: the kept answer, or a one-shot login's, kept.
    async fn static_answer(self, key: String) -> Response<Body> {
        if let Some(result) = self.state.stateless.answers.get(&key) {
            debug!(method = %self.method, "answered from the kept result");
            let reply = json!({ "jsonrpc": "2.0", "id": self.id, "result": result });
            return http::json_response(StatusCode::OK, reply.to_string());
        }
        let handle = match self.start(Kind::OneShot).await {
            Ok(started) => started.handle,
            Err(refusal) => return http::json_response(StatusCode::OK, refusal),
        };
        let (events, mut answers) = mpsc::unbounded_channel();
        let mut cancel = CancelOnDrop::new(handle.clone(), events.clone());
        let request = Command::Request {
            id: self.id.clone(),
            method: self.method.clone(),
            params: self.params,
            events,
            log_floor: Some(self.log_floor),
        };
        if handle.send(request).is_err() {
            cancel.disarm();
            let gone =
                jsonrpc::session_gone(&self.id, "the login ended before the call reached it");
            return http::json_response(StatusCode::OK, gone);
        }
        loop {
            match answers.recv().await {
                // a list sends nothing before its answer; anything else is dropped
                Some(CallEvent::Message(_) | CallEvent::Release) => {}
                Some(CallEvent::Reply(reply)) => {
                    cancel.disarm();
                    let result = serde_json::from_str::<Value>(&reply)
                        .ok()
                        .and_then(|mut v| v.get_mut("result").map(Value::take));
                    if let Some(result) = result {
                        self.state.stateless.answers.put(key, result);
                    }
                    return http::json_response(status_of(&reply), reply);
                }
                Some(CallEvent::Cancelled) => {
                    cancel.disarm();
                    return http::accepted();
                }
                None => {
                    cancel.disarm();
                    let gone = jsonrpc::session_gone(&self.id, "the login ended without answering");
                    return http::json_response(StatusCode::OK, gone);
                }
            }
        }
    }

    /// Runs the request in a login of its own, which ends with it.
    async fn one_shot(self) -> Response<Body> {
        if let Some(key) = self.static_key() {
            return self.static_answer(key).await;
        }
        match self.start(Kind::OneShot).await {
            Ok(started) => self.forward(started.handle).await,
            Err(refusal) => http::json_response(StatusCode::OK, refusal),
        }
    }

    /// Starts a login of `kind` for this request's principal; `Err` is the
    /// JSON-RPC error refusing it (the session limit, a worker that failed).
    async fn start(&self, kind: Kind) -> Result<Started, String> {
        let opened = self
            .state
            .registry
            .open_stateless(self.id.clone(), kind, self.principal.clone())
            .await;
        match opened {
            OpenOutcome::Started { sid, handle, user } => Ok(Started { sid, handle, user }),
            OpenOutcome::Refused { reply } => Err(reply),
            OpenOutcome::Opened { .. } => Err(jsonrpc::error_body(
                Some(&self.id),
                jsonrpc::INTERNAL_ERROR,
                "a stateless login was answered as a session",
                None,
            )),
        }
    }

    /// `open_session`: a login of its own for this principal, named by a new handle.
    async fn open_session(self) -> Response<Body> {
        let extra = self
            .params
            .as_ref()
            .and_then(|p| p.get("arguments"))
            .and_then(Value::as_object)
            .and_then(|a| a.keys().next().cloned());
        if let Some(name) = extra {
            return self.tool_error(
                "invalidParams",
                format!("open_session takes no arguments (got {name:?})"),
                None,
            );
        }
        match self.start(Kind::Handle).await {
            Ok(Started { sid, user, .. }) => {
                let idle = self.state.config.lifetime.idle.as_secs();
                info!(session = &sid[..8], principal = %self.principal.name(), "handle opened");
                let text = format!(
                    "Opened session {sid} (repository user {user}). Pass it as the `session` argument of \
                     every call that should run in this login: its changes stay in its own transaction, \
                     seen by its later calls and by no other client, until commit makes them permanent \
                     or abort discards them. It ends after {idle} s without a call, or with close_session; \
                     what it has not committed is then discarded."
                );
                self.result(json!({
                    "content": [{ "type": "text", "text": text }],
                    "structuredContent": { "session": sid, "user": user, "idleTimeoutSeconds": idle },
                    "isError": false,
                }))
            }
            Err(refusal) => http::json_response(StatusCode::OK, refusal),
        }
    }

    /// `close_session`: ends the login a handle of this principal names.
    async fn close_session(self) -> Response<Body> {
        let handle = match era::session_argument(self.params.as_ref()) {
            SessionArg::Handle(h) => h.to_string(),
            _ => {
                return self.tool_error(
                    "invalidParams",
                    "close_session needs session: the handle open_session answered".into(),
                    None,
                )
            }
        };
        if let Err(refusal) = self.handle(&handle) {
            return self.result(refusal);
        }
        self.state.registry.delete(&handle).await;
        let ended = self.state.registry.ended(&handle, self.principal.name());
        let work = ended
            .as_ref()
            .map_or("its uncommitted changes, if any, were discarded", |e| {
                e.work()
            });
        let lost = ended.as_ref().and_then(|e| e.uncommitted.lost());
        self.result(json!({
            "content": [{ "type": "text", "text": format!("Closed session {handle}; {work}.") }],
            "structuredContent": { "session": handle, "closed": true, "uncommittedLost": lost },
            "isError": false,
        }))
    }

    /// `subscriptions/listen`: an open stream whose first event acknowledges
    /// the notification types honoured, which ends with the request's result
    /// when the server shuts down. Nothing this server lists changes while it
    /// runs, so the list-changed types are never honoured; resource
    /// subscriptions are, where commits can be followed (the embedded stone
    /// on a repository file): a listener login subscribes to them, its view
    /// moves forward at every commit, and each subscribed resource a commit
    /// changed is told on the stream. A URI the login cannot subscribe to (an
    /// unknown resource), or a login that cannot start (every session slot
    /// taken), leaves those subscriptions out of the acknowledgment.
    async fn listen(self) -> Response<Body> {
        let uris = match listen_filter(self.params.as_ref()) {
            Ok(uris) => uris,
            Err(message) => {
                return Refused::bad(
                    jsonrpc::INVALID_PARAMS,
                    format!("Invalid params: {message}"),
                )
                .answer(&self.id)
            }
        };
        let Some(place) = ListenPlace::take(&self.state.stateless.listening) else {
            let busy = jsonrpc::error_body(
                Some(&self.id),
                jsonrpc::SESSION_ERROR,
                &format!("the server already has {MAX_LISTENERS} subscriptions/listen streams open; try later"),
                Some(json!({ "kind": "listenLimit", "maxListeners": MAX_LISTENERS })),
            );
            return http::json_response(StatusCode::OK, busy);
        };
        let follows_commits =
            self.state.config.gci.is_none() && self.state.config.repository.is_some();
        let listener = match uris.is_empty() || !follows_commits {
            true => None,
            false => self.listener(&uris).await,
        };
        let honoured = listener.as_ref().map_or(&[][..], |(_, u)| u.as_slice());
        let mut notifications = json!({});
        if !honoured.is_empty() {
            notifications["resourceSubscriptions"] = json!(honoured);
        }
        let ack = json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": { (era::META_SUBSCRIPTION_ID): self.id },
                "notifications": notifications,
            },
        })
        .to_string();
        let trace = self.exchange.map(|e| e.stream(None));
        let Some((handle, _)) = listener else {
            let (mut feed, reader) = sse::unkept(0);
            feed.send(sse::Item::Message(ack));
            let done = crate::hello::listen_done(&self.state.config, &self.id);
            let shutdown = self.state.registry.shutdown_token();
            tokio::spawn(async move {
                tokio::select! {
                    _ = shutdown.cancelled() => { feed.send(sse::Item::Last(done)); }
                    _ = feed.closed() => {}
                }
            });
            let config = http::writer_config(self.state, 0, trace, None);
            return http::sse_response(sse::start(config, reader, move |_| drop(place)));
        };
        // the listener's notifications go to this stream; it lives while the
        // stream does (this writer holds its only handle)
        let stream = handle.next_stream();
        let (feed, reader) = handle.replay.open(stream);
        feed.push(sse::Item::Message(ack));
        let _ = handle.send(Command::Listen {
            stream,
            feed,
            subscription: self.id.clone(),
        });
        let config = http::writer_config(self.state, stream, trace, None);
        let replay = handle.replay.clone();
        let attachment = reader.attachment;
        http::sse_response(sse::start(config, reader.rx, move |_| {
            replay.detach(stream, attachment);
            drop((handle, place));
        }))
    }

    /// A listener login subscribed to `uris`, and the URIs it could subscribe
    /// to; `None` when it could not start or subscribed to none.
    async fn listener(&self, uris: &[String]) -> Option<(SessionHandle, Vec<String>)> {
        let handle = match self.start(Kind::Listener).await {
            Ok(started) => started.handle,
            Err(refusal) => {
                info!("no listener login for subscriptions/listen: {refusal}");
                return None;
            }
        };
        let mut honoured = Vec::new();
        for (i, uri) in uris.iter().enumerate() {
            let (events, mut answers) = mpsc::unbounded_channel();
            let sent = handle.send(Command::Request {
                id: json!(i),
                method: "resources/subscribe".into(),
                params: Some(json!({ "uri": uri })),
                events,
                log_floor: None,
            });
            if sent.is_err() {
                return None;
            }
            let reply = loop {
                match answers.recv().await {
                    Some(CallEvent::Reply(r)) => break Some(r),
                    Some(CallEvent::Message(_) | CallEvent::Release) => {}
                    Some(CallEvent::Cancelled) | None => break None,
                }
            };
            let subscribed = reply
                .and_then(|r| serde_json::from_str::<Value>(&r).ok())
                .is_some_and(|v| v.get("result").is_some());
            match subscribed {
                true => honoured.push(uri.clone()),
                false => {
                    debug!(uri = %uri.chars().take(128).collect::<String>(), "not a resource the listener can subscribe to")
                }
            }
        }
        (!honoured.is_empty()).then_some((handle, honoured))
    }

    /// A tool result the router makes, shaped for this era.
    fn result(&self, result: Value) -> Response<Body> {
        http::json_response(StatusCode::OK, self.result_text(result))
    }

    fn result_text(&self, result: Value) -> String {
        crate::hello::complete_response(&self.state.config, &self.id, result)
    }

    /// A tool error the router decides (a handle that names no live login of
    /// this principal, arguments of the handle tools).
    fn tool_error(&self, kind: &str, message: String, details: Option<Value>) -> Response<Body> {
        self.result(tool_error_value(kind, message, details))
    }
}

/// The `CallToolResult` of a tool error of `kind`, with `details` in its
/// structured error (the shape the worker's tool errors have).
fn tool_error_value(kind: &str, message: String, details: Option<Value>) -> Value {
    let mut error = json!({ "kind": kind, "message": message });
    if let Some(Value::Object(d)) = details {
        for (k, v) in d {
            error[k] = v;
        }
    }
    json!({
        "content": [{ "type": "text", "text": message }],
        "structuredContent": { "error": error },
        "isError": true,
    })
}
