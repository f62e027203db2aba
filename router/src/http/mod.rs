//! The HTTP side of MCP's Streamable HTTP transport: the accept loop, one hyper
//! HTTP/1.1 connection per client socket, and the service for the single
//! endpoint `/mcp`.
//!
//! Every request passes the gates in a fixed order: a header that must be
//! single repeated (400), `Host`/`Origin` (403), the OAuth metadata document
//! (answered to anyone), path (404), a CORS preflight (answered for configured origins, 403 for others),
//! authentication (401, decided from the head: no body is read), verb (405),
//! `Accept` (406), declared body size (413, decided before the
//! body is read), body read under a size limit and a deadline (413/408), JSON-RPC
//! classification (400), session header and `MCP-Protocol-Version` (400), session
//! lookup (404). Only then does a message reach a session. A message without
//! `Mcp-Session-Id` that belongs to the stateless era (MCP 2026-07-28) leaves
//! this path after classification for [`stateless`], which checks it against
//! that revision and routes it by its handle. This module never
//! talks to a worker: it hands commands to the session registry and waits for
//! their answers.
//!
//! Status codes: a refusal by a gate is an HTTP error with a JSON-RPC error body
//! (`id: null`, or no id for 403). Once a request has passed the gates, every
//! answer is HTTP 200 carrying a JSON-RPC response with the request's id,
//! including the router's own errors `-32001` with `data.kind` `sessionLimit`,
//! `workerFailed`/`workerRefused` (initialize) and `sessionGone`.
//! Notifications and client responses are answered 202 with no body.
//!
//! Streams: a request is answered as `application/json` when its reply comes
//! before anything else, and as `text/event-stream` (priming event, the call's
//! notifications and server requests, the reply, end) when the client accepts
//! a stream and a message for it comes first. A request the client cancels gets
//! no JSON-RPC response: an exchange still waiting is answered 202 with no
//! body, a stream already open ends without a response. `GET` opens the
//! session's standalone stream.
//!
//! With TLS on, each accepted connection first completes its handshake (a
//! plaintext client is told to use https and closed); the service is the same.

use crate::auth::Denied;
use crate::config::Config;
use crate::identity::Principal;
use crate::replay::{Resumed, Unresumable};
use crate::session::{CallEvent, Command, Kind, OpenOutcome, Registry, SessionHandle};
use crate::{cors, oauth, sse, trace};
use bytes::Bytes;
use gsmcp_ipc::jsonrpc::{self, Message};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    HeaderMap, HeaderName, HeaderValue, ACCEPT, ALLOW, AUTHORIZATION, CACHE_CONTROL, CONNECTION,
    CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn, Instrument};

pub mod stateless;

/// The one endpoint.
pub const MCP_PATH: &str = "/mcp";
/// Largest request head (request line and headers).
pub const MAX_HEAD: usize = 64 * 1024;
/// Largest request body.
pub const MAX_BODY: usize = 8 * 1024 * 1024;
/// The session-era revisions a client may name in `MCP-Protocol-Version`.
pub const SUPPORTED_VERSIONS: &[&str] = gsmcp_ipc::era::SESSION_VERSIONS;

const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";

pub use crate::body::{empty, Body};

/// What the service needs, shared by every connection.
pub struct AppState {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// The sessions.
    pub registry: Arc<Registry>,
    /// The port actually bound (the configured one may be 0).
    pub port: u16,
    /// What the stateless era keeps across requests: the answers that stay
    /// the same while the router runs, the open `subscriptions/listen` streams.
    pub stateless: stateless::Shared,
}

/// Accepts connections until `shutdown` is cancelled, then ends every session
/// and waits (bounded) for connections to finish.
pub async fn serve(listener: TcpListener, state: Arc<AppState>, shutdown: CancellationToken) {
    let conns = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shutdown.cancelled() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                if let Err(e) = stream.set_nodelay(true) {
                    debug!(error = %e, "cannot set TCP_NODELAY");
                }
                let state = state.clone();
                let shutdown = shutdown.clone();
                conns.spawn(async move {
                    match &state.config.tls {
                        None => serve_connection(stream, peer, state, shutdown).await,
                        Some(tls) => {
                            let timeout = state.config.request_read_timeout;
                            match tls.accept(stream, timeout).await {
                                Ok(stream) => serve_connection(stream, peer, state, shutdown).await,
                                Err(e) => debug!(%peer, "connection refused: {e}"),
                            }
                        }
                    }
                });
            }
            Err(e) => {
                // Typically EMFILE: back off instead of spinning.
                warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    drop(listener);
    let grace = state.config.shutdown_grace;
    info!(
        sessions = state.registry.len(),
        "shutting down: ending every session"
    );
    let bound = grace + Duration::from_secs(5);
    if !state.registry.wait_all(bound).await {
        warn!(?bound, "some sessions did not end in time");
    }
    conns.close();
    if tokio::time::timeout(Duration::from_secs(2), conns.wait())
        .await
        .is_err()
    {
        debug!("some connections were still open at exit");
    }
}

async fn serve_connection<S>(
    stream: S,
    peer: SocketAddr,
    state: Arc<AppState>,
    shutdown: CancellationToken,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let read_timeout = state.config.request_read_timeout;
    let grace = state.config.shutdown_grace;
    let service = hyper::service::service_fn(move |req| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(handle(&state, req).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout)
        // Room for a whole head somewhat over the limit, so that the exact
        // check in `route` answers it after reading all of it (closing with
        // unread input would reset the connection and lose the 431).
        .max_buf_size(2 * MAX_HEAD)
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                debug!(%peer, error = %e, "connection ended with an error");
            }
        }
        _ = shutdown.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(grace + Duration::from_secs(5), conn).await;
        }
    }
}

/// Answers one HTTP request.
pub async fn handle(state: &AppState, req: Request<Incoming>) -> Response<Body> {
    let span = tracing::debug_span!(
        "request",
        http = %req.method(),
        method = tracing::field::Empty,
        id = tracing::field::Empty,
        session = tracing::field::Empty,
    );
    async move {
        let cors = cors::configured_origin(req.headers(), &state.config);
        let exchange = state.config.trace.map(|t| trace::Exchange::new(t, &req));
        let mut response = route(state, req, exchange.as_ref()).await;
        debug!(status = response.status().as_u16(), "answered");
        if let Some(origin) = cors {
            cors::expose(&mut response, origin);
        }
        match &exchange {
            Some(exchange) => exchange.outbound(response).await,
            None => response,
        }
    }
    .instrument(span)
    .await
}

async fn route(
    state: &AppState,
    req: Request<Incoming>,
    exchange: Option<&trace::Exchange>,
) -> Response<Body> {
    // hyper's read buffer bounds memory (heads beyond it get hyper's own 431);
    // the exact limit is enforced here.
    if head_size(&req) > MAX_HEAD {
        return closing_error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            &format!("Request Header Fields Too Large: the request head may have at most {MAX_HEAD} bytes"),
        );
    }
    if let Some(name) = repeated_header(req.headers()) {
        debug!(
            header = name,
            "refused: a header that must be single is repeated"
        );
        return closing_error(
            StatusCode::BAD_REQUEST,
            &format!("Bad Request: the {name} header appears more than once"),
        );
    }
    if let Err(refusal) = check_host_and_origin(req.headers(), &state.config, state.port) {
        debug!(%refusal, "refused by the Host/Origin check");
        let body = jsonrpc::error_body(None, jsonrpc::TRANSPORT_ERROR, &refusal, None);
        return json_response(StatusCode::FORBIDDEN, body);
    }
    // Protected Resource Metadata (RFC 9728), for anyone: it is how a client
    // learns where to get a token
    if let Some(oauth) = state.config.auth.oauth() {
        let path = req.uri().path();
        if req.method() == Method::GET
            && (path == oauth::METADATA_PATH
                || path.strip_prefix(oauth::METADATA_PATH) == Some(MCP_PATH))
        {
            return json_response(StatusCode::OK, oauth.metadata().to_string());
        }
    }
    if req.uri().path() != MCP_PATH {
        return error_response(
            StatusCode::NOT_FOUND,
            jsonrpc::TRANSPORT_ERROR,
            "Not Found: the MCP endpoint is /mcp",
        );
    }
    if req.method() == Method::OPTIONS && req.headers().contains_key(ORIGIN) {
        return match cors::configured_origin(req.headers(), &state.config) {
            Some(origin) => cors::preflight(origin),
            None => error_response(
                StatusCode::FORBIDDEN,
                jsonrpc::TRANSPORT_ERROR,
                "Forbidden: cross-origin requests are allowed only from the origins in MCP_ALLOWED_ORIGINS",
            ),
        };
    }
    let principal = match state.config.auth.check(req.headers()).await {
        Ok(p) => p,
        Err(denied) => return refusal(state, denied),
    };
    match *req.method() {
        Method::POST => post(state, req, exchange, &principal).await,
        Method::GET => get(state, req, exchange, &principal),
        Method::DELETE => delete(state, req, &principal).await,
        _ => {
            let mut r = error_response(
                StatusCode::METHOD_NOT_ALLOWED,
                jsonrpc::TRANSPORT_ERROR,
                "Method Not Allowed: use POST, GET or DELETE",
            );
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

/// The answer to a request authentication refused: 401 or 403 with the
/// mode's `WWW-Authenticate` challenge, the connection closed.
fn refusal(state: &AppState, denied: Denied) -> Response<Body> {
    // a wrong token is worth an operator's attention; a client that has
    // not sent one yet (a probe, a first try) is not
    match &denied {
        Denied::Missing => debug!("refused: no bearer token"),
        other => warn!("refused: {}", other.message()),
    }
    let status = StatusCode::from_u16(denied.status()).unwrap_or(StatusCode::UNAUTHORIZED);
    let mut r = closing_error(status, &denied.message());
    if let Ok(v) = HeaderValue::from_str(&state.config.auth.challenge(&denied)) {
        r.headers_mut().insert(WWW_AUTHENTICATE, v);
    }
    r
}

/// The session `sid` names, when it exists and belongs to `principal`; a
/// request carrying another principal's valid credentials on it is refused
/// (403) and logged, so a session id alone opens nothing.
fn session_of(
    state: &AppState,
    sid: &str,
    principal: &Principal,
) -> Result<SessionHandle, Refusal> {
    let Some(handle) = state
        .registry
        .lookup(sid)
        .filter(|h| h.kind == Kind::Session)
    else {
        // a session of this principal that ended lately says why, and what
        // became of its uncommitted work
        return Err(match state.registry.ended(sid, principal.name()) {
            Some(ended) => Refusal {
                data: Some(serde_json::json!({
                    "kind": "sessionEnded",
                    "reason": ended.reason,
                    "uncommittedLost": ended.uncommitted.lost(),
                })),
                ..Refusal::new(
                    StatusCode::NOT_FOUND,
                    jsonrpc::SESSION_ERROR,
                    ended.message(),
                )
            },
            None => Refusal::new(
                StatusCode::NOT_FOUND,
                jsonrpc::SESSION_ERROR,
                SESSION_NOT_FOUND,
            ),
        });
    };
    if handle.owner != principal.name() {
        warn!(
            session = %handle.sid8,
            owner = %handle.owner,
            principal = %principal.name(),
            "refused: a request for another principal's session"
        );
        return Err(Refusal::new(
            StatusCode::FORBIDDEN,
            jsonrpc::TRANSPORT_ERROR,
            "Forbidden: this session belongs to another user; start your own with initialize",
        ));
    }
    Ok(handle)
}

async fn post(
    state: &AppState,
    req: Request<Incoming>,
    exchange: Option<&trace::Exchange>,
    principal: &Principal,
) -> Response<Body> {
    if !accepts_json_or_sse(req.headers()) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            jsonrpc::TRANSPORT_ERROR,
            "Not Acceptable: the client must accept application/json or text/event-stream",
        );
    }
    if let Some(len) = req.headers().get(CONTENT_LENGTH) {
        let declared = len.to_str().ok().and_then(|s| s.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY as u64) {
            return too_large();
        }
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(
        state.config.request_read_timeout,
        Limited::new(body, MAX_BODY).collect(),
    )
    .await;
    let body = match read {
        Err(_) => {
            debug!("request body not received in time; dropping the connection");
            return closing_error(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the request body did not arrive in time",
            );
        }
        Ok(Err(e))
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            return too_large()
        }
        Ok(Err(e)) => {
            debug!(error = %e, "request body could not be read");
            return closing_error(
                StatusCode::BAD_REQUEST,
                "Bad Request: the request body could not be read",
            );
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    if let Some(exchange) = exchange {
        exchange.inbound(Some(&body));
    }

    let message = match jsonrpc::classify(&body) {
        Ok(m) => m,
        Err(e) => return json_response(StatusCode::BAD_REQUEST, e.to_body()),
    };
    let span = tracing::Span::current();
    if let Some(method) = message.method() {
        span.record("method", method);
    }
    if let Message::Request { id, .. } | Message::Response { id, .. } = &message {
        span.record("id", tracing::field::display(id));
    }
    let session = match session_header(&parts.headers) {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    if session.is_none() && stateless::chosen(&parts.headers, &message) {
        return stateless::post(state, &parts.headers, message, principal, exchange).await;
    }

    if message.method() == Some("initialize") {
        let Message::Request { id, params, .. } = message else {
            return invalid_request(None, "initialize must be a request (with an id)");
        };
        if session.is_some() {
            return invalid_request(
                Some(&id),
                "Invalid Request: initialize must not carry Mcp-Session-Id; the session is already initialized",
            );
        }
        return match state.registry.open(id, params, principal.clone()).await {
            OpenOutcome::Opened { sid, reply } => {
                span.record("session", &sid[..8]);
                let mut r = json_response(StatusCode::OK, reply);
                // The id is 32 hex characters, always a valid header value.
                if let Ok(v) = HeaderValue::from_str(&sid) {
                    r.headers_mut().insert(SESSION_HEADER, v);
                }
                r
            }
            OpenOutcome::Refused { reply } => json_response(StatusCode::OK, reply),
            OpenOutcome::Started { .. } => internal_error(),
        };
    }

    let Some(sid) = session else {
        return error_response(
            StatusCode::BAD_REQUEST,
            jsonrpc::TRANSPORT_ERROR,
            "Bad Request: Mcp-Session-Id header is required; start a session with initialize",
        );
    };
    if let Err(r) = check_protocol_version(&parts.headers) {
        return r.into_response();
    }
    // a session belongs to the session era; a request in it cannot claim the
    // stateless one (its worker would answer in that era's shape)
    if let Message::Request { id, params, .. } = &message {
        if gsmcp_ipc::era::request_is_stateless(params.as_ref()) {
            return invalid_request(
                Some(id),
                "Invalid Request: _meta names 2026-07-28, which has no sessions; send it without Mcp-Session-Id, or drop the revision from _meta",
            );
        }
    }
    let handle = match session_of(state, &sid, principal) {
        Ok(h) => h,
        Err(r) => return r.into_response(),
    };
    span.record("session", handle.sid8.as_str());

    match message {
        Message::Request { id, method, params } => {
            let (events, answers) = mpsc::unbounded_channel();
            if handle
                .send(Command::Request {
                    id: id.clone(),
                    method,
                    params,
                    events,
                    log_floor: None,
                })
                .is_err()
            {
                return session_not_found();
            }
            let trace = exchange.map(|e| e.stream(None));
            let how = Answering::session_era(&parts.headers);
            answer_call(state, &handle, id, answers, how, trace).await
        }
        Message::Notification { method, params } => {
            if handle
                .send(Command::Notification { method, params })
                .is_err()
            {
                return session_not_found();
            }
            accepted()
        }
        Message::Response { id, message } => {
            if handle
                .send(Command::ClientResponse { id, message })
                .is_err()
            {
                return session_not_found();
            }
            accepted()
        }
    }
}

/// How a call's answer is delivered.
pub(crate) struct Answering {
    /// The client takes an event stream.
    sse_ok: bool,
    /// The client takes nothing else.
    only_sse: bool,
    /// The stateless era: the status follows the reply's error, streams
    /// have no priming event, and a client that goes away before the reply
    /// cancels the call (this guard, dropped armed, says so).
    stateless: Option<stateless::CancelOnDrop>,
    /// A multi round-trip request: an `InputRequiredResult` reply's state is
    /// sealed for this binding before the client sees it.
    seal: Option<crate::request_state::Binding>,
}

impl Answering {
    /// The session era, as the request's `Accept` allows.
    fn session_era(headers: &HeaderMap) -> Answering {
        let sse_ok = accepts_event_stream(headers);
        Answering {
            sse_ok,
            only_sse: sse_ok && !accepts_json(headers),
            stateless: None,
            seal: None,
        }
    }

    /// The stateless era: a client that leaves cancels the call through `cancel`.
    pub(crate) fn stateless_era(
        headers: &HeaderMap,
        cancel: stateless::CancelOnDrop,
        seal: Option<crate::request_state::Binding>,
    ) -> Answering {
        Answering {
            stateless: Some(cancel),
            seal,
            ..Answering::session_era(headers)
        }
    }

    /// The reply was delivered in full: nothing to cancel any more.
    fn delivered(&mut self) {
        if let Some(c) = &mut self.stateless {
            c.disarm();
        }
    }

    /// The status of a JSON reply.
    fn status(&self, reply: &str) -> StatusCode {
        match &self.stateless {
            Some(_) => stateless::status_of(reply),
            None => StatusCode::OK,
        }
    }
}

/// Answers a request from its call's events: JSON if the reply comes first
/// (or the client cannot take a stream), else an event stream that carries the
/// call's messages and then the reply; a client that accepts only event streams
/// always gets one. A cancelled call gets 202 and no body.
pub(crate) async fn answer_call(
    state: &AppState,
    handle: &SessionHandle,
    id: Value,
    mut answers: mpsc::UnboundedReceiver<CallEvent>,
    mut how: Answering,
    trace: Option<trace::StreamTrace>,
) -> Response<Body> {
    loop {
        match answers.recv().await {
            Some(CallEvent::Reply(reply)) if how.only_sse => {
                // The client takes no JSON: the reply alone, as a stream.
                how.delivered();
                let reply = stateless::sealed(&state.config, how.seal.as_ref(), reply);
                let (feed, reader) = handle.replay.open(handle.next_stream());
                feed.push(sse::Item::Last(reply));
                return event_stream(state, handle, feed, reader, how, trace);
            }
            Some(CallEvent::Reply(reply)) => {
                how.delivered();
                let reply = stateless::sealed(&state.config, how.seal.as_ref(), reply);
                return json_response(how.status(&reply), reply);
            }
            Some(CallEvent::Cancelled) => {
                how.delivered();
                return accepted();
            }
            Some(first @ (CallEvent::Message(_) | CallEvent::Release)) if how.sse_ok => {
                let (feed, reader) = handle.replay.open(handle.next_stream());
                let gone = jsonrpc::session_gone(&id, "the session ended without answering");
                // Every event goes to the stream's replay log, which a writer
                // reads while one is attached: a client whose connection
                // ended (or was released) resumes with Last-Event-ID.
                let forward = feed.clone();
                let (config, seal) = (state.config.clone(), how.seal.clone());
                tokio::spawn(async move {
                    let mut next = Some(first);
                    loop {
                        let event = match next.take() {
                            Some(e) => Some(e),
                            None => answers.recv().await,
                        };
                        match event {
                            Some(CallEvent::Message(m)) => {
                                forward.push(sse::Item::Message(m));
                            }
                            Some(CallEvent::Release) => {
                                forward.release();
                            }
                            Some(CallEvent::Reply(r)) => {
                                let r = stateless::sealed(&config, seal.as_ref(), r);
                                forward.push(sse::Item::Last(r));
                                return;
                            }
                            Some(CallEvent::Cancelled) => return forward.finish(),
                            None => {
                                forward.push(sse::Item::Last(gone));
                                return;
                            }
                        }
                    }
                });
                return event_stream(state, handle, feed, reader, how, trace);
            }
            Some(CallEvent::Message(_) | CallEvent::Release) => {
                debug!("message for the client not delivered: the client accepts no event stream")
            }
            None => {
                return json_response(
                    StatusCode::OK,
                    jsonrpc::session_gone(&id, "the session ended without answering"),
                )
            }
        }
    }
}

/// The event stream answering a request, written from its replay log: the
/// session era's opens with the priming event and can be resumed; a stateless
/// request's cannot, and its client leaving before the answer cancels it.
fn event_stream(
    state: &AppState,
    handle: &SessionHandle,
    feed: crate::replay::Feed,
    reader: crate::replay::Reader,
    mut how: Answering,
    trace: Option<trace::StreamTrace>,
) -> Response<Body> {
    let stream = feed.stream();
    let priming = how.stateless.is_none().then(|| format!("{stream}-0"));
    let config = writer_config(state, stream, trace, priming);
    let mut cancel = how.stateless.take();
    let replay = handle.replay.clone();
    let attachment = reader.attachment;
    let body = sse::start(config, reader.rx, move |end| {
        replay.detach(stream, attachment);
        if end == sse::End::Finished {
            if let Some(c) = &mut cancel {
                c.disarm();
            }
        }
        drop(cancel);
    });
    sse_response(body)
}

pub(crate) fn writer_config(
    state: &AppState,
    stream: u64,
    trace: Option<trace::StreamTrace>,
    priming: Option<String>,
) -> sse::WriterConfig {
    sse::WriterConfig {
        stream,
        priming,
        keep_alive: state.config.sse_keepalive,
        write_timeout: state.config.sse_write_timeout,
        trace,
    }
}

pub(crate) fn sse_response(body: sse::SseBody) -> Response<Body> {
    Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, "text/event-stream")
        .header(CACHE_CONTROL, "no-cache, no-transform")
        .header("x-accel-buffering", "no")
        .body(body.boxed())
        .unwrap_or_else(|_| internal_error())
}

/// `GET /mcp`: the session's standalone stream, for messages not tied to a
/// request. The newest stream supersedes (closes) the previous one.
fn get(
    state: &AppState,
    req: Request<Incoming>,
    exchange: Option<&trace::Exchange>,
    principal: &Principal,
) -> Response<Body> {
    let sid = match require_session(req.headers()) {
        Ok(sid) => sid,
        Err(r) => return r.into_response(),
    };
    if let Err(r) = check_protocol_version(req.headers()) {
        return r.into_response();
    }
    let handle = match session_of(state, &sid, principal) {
        Ok(h) => h,
        Err(r) => return r.into_response(),
    };
    tracing::Span::current().record("session", handle.sid8.as_str());
    if !accepts_event_stream(req.headers()) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            jsonrpc::TRANSPORT_ERROR,
            "Not Acceptable: GET opens an event stream; the client must accept text/event-stream",
        );
    }
    let resumed = match last_event_id(req.headers()) {
        None => {
            let stream = handle.next_stream();
            let (feed, reader) = handle.replay.open_standalone(stream);
            Resumed {
                feed,
                reader,
                standalone: true,
            }
        }
        Some(last) => match resume(&handle, last) {
            Ok(r) => r,
            Err(r) => return r.into_response(),
        },
    };
    let stream = resumed.feed.stream();
    let standalone = resumed.standalone;
    if standalone
        && handle
            .send(Command::OpenStream {
                stream,
                feed: resumed.feed.clone(),
            })
            .is_err()
    {
        return session_not_found();
    }
    // a resumed stream primes with the id it resumed from, to resume again from there
    let priming = match last_event_id(req.headers()) {
        Some((s, n)) => format!("{s}-{n}"),
        None => format!("{stream}-0"),
    };
    let notify = handle.clone();
    let trace = exchange.map(|e| e.stream(None));
    let attachment = resumed.reader.attachment;
    let body = sse::start(
        writer_config(state, stream, trace, Some(priming)),
        resumed.reader.rx,
        move |_| {
            notify.replay.detach(stream, attachment);
            if standalone {
                let _ = notify.send(Command::StreamClosed { stream });
            }
        },
    );
    sse_response(body)
}

/// The `Last-Event-ID` of a GET, as the stream and sequence number it names
/// (`<stream>-<seq>`); an id of another shape is none of ours and resumes
/// nothing (`(0, u64::MAX)`, which no stream holds).
fn last_event_id(headers: &HeaderMap) -> Option<(u64, u64)> {
    let value = headers.get("last-event-id")?.to_str().unwrap_or("").trim();
    let parsed = value
        .split_once('-')
        .and_then(|(s, n)| Some((s.parse().ok()?, n.parse().ok()?)));
    Some(parsed.unwrap_or((0, u64::MAX)))
}

/// Resumes stream `stream` after its event `after`: what the stream still
/// holds from there, then what comes next. The standalone stream resumes even
/// past a gap, its first event saying what was lost; a request's stream that
/// is not held, or lost events after the id, cannot be resumed, and the GET
/// is refused with 410 saying so (the request's answer may be lost with it).
fn resume(handle: &SessionHandle, (stream, after): (u64, u64)) -> Result<Resumed, Refusal> {
    match handle.replay.attach(stream, after) {
        Ok(r) => Ok(r),
        Err(Unresumable::Gap {
            held_from,
            standalone: true,
        }) => {
            let r = handle
                .replay
                .attach(stream, held_from - 1)
                .map_err(|_| cannot_resume(stream, after, "it ended"))?;
            let lost = held_from - after - 1;
            warn!(stream, after, lost, "standalone stream resumed past a gap");
            let note = serde_json::json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "warning", "logger": "gsmcp", "data": format!(
                    "this stream resumed after event {stream}-{after}, but {lost} later event(s) were no longer held \
                     (at most {} are kept) and are lost", crate::replay::MAX_EVENTS)},
            });
            r.feed.push(sse::Item::Message(note.to_string()));
            Ok(r)
        }
        Err(Unresumable::Gap { held_from, .. }) => Err(cannot_resume(
            stream,
            after,
            &format!(
                "its events from {stream}-{} on are held, not the ones before",
                held_from
            ),
        )),
        Err(Unresumable::Unknown) => Err(cannot_resume(
            stream,
            after,
            "the session holds no such stream (it ended and was forgotten, or never existed)",
        )),
    }
}

fn cannot_resume(stream: u64, after: u64, why: &str) -> Refusal {
    debug!(stream, after, why, "stream not resumed");
    Refusal {
        data: Some(serde_json::json!({ "kind": "cannotResume" })),
        ..Refusal::new(
            StatusCode::GONE,
            jsonrpc::TRANSPORT_ERROR,
            format!("Gone: cannot resume after event {stream}-{after}: {why}"),
        )
    }
}

async fn delete(state: &AppState, req: Request<Incoming>, principal: &Principal) -> Response<Body> {
    let sid = match require_session(req.headers()) {
        Ok(sid) => sid,
        Err(r) => return r.into_response(),
    };
    if let Err(r) = check_protocol_version(req.headers()) {
        return r.into_response();
    }
    tracing::Span::current().record("session", &sid[..sid.len().min(8)]);
    if let Err(r) = session_of(state, &sid, principal) {
        return r.into_response();
    }
    if state.registry.delete(&sid).await {
        Response::builder()
            .status(StatusCode::OK)
            .body(empty())
            .unwrap_or_else(|_| internal_error())
    } else {
        session_not_found()
    }
}

/// The size of the request head as it was sent (request line and header lines).
fn head_size<B>(req: &Request<B>) -> usize {
    let line =
        req.method().as_str().len() + req.uri().to_string().len() + " HTTP/1.1\r\n".len() + 1;
    req.headers()
        .iter()
        .fold(line + 2, |n, (k, v)| n + k.as_str().len() + v.len() + 4)
}

/// The session id header: absent (`None`), or a value that could be one of ours.
/// A refusal decided from the request head: status, JSON-RPC code, message.
struct Refusal {
    status: StatusCode,
    code: i64,
    message: String,
    /// The error's `data`, if any.
    data: Option<Value>,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
            data: None,
        }
    }

    fn into_response(self) -> Response<Body> {
        json_response(
            self.status,
            jsonrpc::error_body(Some(&Value::Null), self.code, &self.message, self.data),
        )
    }
}

fn session_header(headers: &HeaderMap) -> Result<Option<String>, Refusal> {
    let mut values = headers.get_all(SESSION_HEADER).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let text = value.to_str().ok().map(str::trim).filter(|s| {
        !s.is_empty() && s.len() <= 128 && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
    });
    match (text, values.next()) {
        (Some(t), None) => Ok(Some(t.to_string())),
        _ => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            jsonrpc::TRANSPORT_ERROR,
            "Bad Request: malformed Mcp-Session-Id header",
        )),
    }
}

fn require_session(headers: &HeaderMap) -> Result<String, Refusal> {
    session_header(headers)?.ok_or_else(|| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            jsonrpc::TRANSPORT_ERROR,
            "Bad Request: Mcp-Session-Id header is required",
        )
    })
}

/// Absent: accepted (the client speaks 2025-03-26). Present: one of ours.
fn check_protocol_version(headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Ok(());
    };
    let text = value.to_str().unwrap_or("").trim();
    if SUPPORTED_VERSIONS.contains(&text) {
        return Ok(());
    }
    Err(Refusal::new(
        StatusCode::BAD_REQUEST,
        jsonrpc::INVALID_REQUEST,
        format!(
            "Bad Request: unsupported MCP-Protocol-Version {text:?} (supported: {})",
            SUPPORTED_VERSIONS.join(", ")
        ),
    ))
}

/// True if `Accept` allows `text/event-stream` (explicitly or by a wildcard).
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    accepts_any(headers, &["text/event-stream", "text/*", "*/*"])
}

/// True if `Accept` is absent or allows `application/json`.
pub(crate) fn accepts_json(headers: &HeaderMap) -> bool {
    headers.get(ACCEPT).is_none()
        || accepts_any(headers, &["application/json", "application/*", "*/*"])
}

fn accepts_any(headers: &HeaderMap, media_types: &[&str]) -> bool {
    headers.get_all(ACCEPT).iter().any(|value| {
        value.to_str().unwrap_or("").split(',').any(|range| {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.trim()
                    .to_ascii_lowercase()
                    .strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().map(|q| q <= 0.0).unwrap_or(false))
            });
            !refused && media_types.contains(&media.as_str())
        })
    })
}

/// True unless `Accept` is present and allows neither JSON nor an event stream.
fn accepts_json_or_sse(headers: &HeaderMap) -> bool {
    let mut seen = false;
    for value in headers.get_all(ACCEPT) {
        seen = true;
        let Ok(text) = value.to_str() else { continue };
        for range in text.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .or_else(|| p.strip_prefix("Q="))
                    .is_some_and(|q| q.trim().parse::<f32>().map(|q| q <= 0.0).unwrap_or(false))
            });
            if refused {
                continue;
            }
            if matches!(
                media.as_str(),
                "application/json" | "text/event-stream" | "*/*" | "application/*" | "text/*"
            ) {
                return true;
            }
        }
    }
    !seen
}

/// The first of the headers a request may carry at most once that it repeats.
/// Two `Host` or `Origin` lines would let one check pass on the first while
/// something else reads the second. (Two `Content-Length` lines never get
/// here: hyper refuses differing values with 400 and keeps one of equal ones;
/// with `Transfer-Encoding` it drops `Content-Length`, reads the body chunked
/// and closes the connection after the answer, so nothing is smuggled.)
fn repeated_header(headers: &HeaderMap) -> Option<&'static str> {
    [
        (HOST, "Host"),
        (ORIGIN, "Origin"),
        (AUTHORIZATION, "Authorization"),
        (CONTENT_LENGTH, "Content-Length"),
        (HeaderName::from_static(SESSION_HEADER), "Mcp-Session-Id"),
        (
            HeaderName::from_static(VERSION_HEADER),
            "MCP-Protocol-Version",
        ),
    ]
    .into_iter()
    .find(|(h, _)| headers.get_all(h).iter().nth(1).is_some())
    .map(|(_, name)| name)
}

/// The DNS-rebinding defence: `Host` must name this server, and `Origin`, when
/// present, must be a page served from a host that may talk to it.
pub fn check_host_and_origin(
    headers: &HeaderMap,
    config: &Config,
    port: u16,
) -> Result<(), String> {
    let host = headers
        .get(HOST)
        .ok_or_else(|| "Forbidden: the Host header is missing".to_string())?
        .to_str()
        .map_err(|_| "Forbidden: the Host header is not ASCII".to_string())?
        .trim()
        .to_ascii_lowercase();
    if !host_allowed(&host, config, port) {
        return Err(format!(
            "Forbidden: Host {host:?} is not allowed; add it to MCP_ALLOWED_HOSTS if this server should answer to it"
        ));
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| "Forbidden: the Origin header is not ASCII".to_string())?
            .trim()
            .to_ascii_lowercase();
        if !origin_allowed(&origin, config) {
            return Err(format!(
                "Forbidden: Origin {origin:?} is not allowed; add it to MCP_ALLOWED_ORIGINS if pages from it should reach this server"
            ));
        }
    }
    Ok(())
}

/// Splits `name[:port]` / `[v6][:port]`. `None` if the port is not a number.
fn split_host_port(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = match rest {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (&host[..=end], port)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    if name.is_empty() {
        return None;
    }
    match port {
        None => Some((name, None)),
        Some(p) => p.parse::<u16>().ok().map(|p| (name, Some(p))),
    }
}

fn own_names(config: &Config) -> Vec<String> {
    let mut names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "[::1]".to_string(),
    ];
    match config.bind {
        IpAddr::V4(a) if !a.is_unspecified() => names.push(a.to_string()),
        IpAddr::V6(a) if !a.is_unspecified() => names.push(format!("[{a}]")),
        _ => {}
    }
    names
}

fn host_allowed(host: &str, config: &Config, port: u16) -> bool {
    let Some((name, host_port)) = split_host_port(host) else {
        return false;
    };
    if config.allowed_hosts.iter().any(|h| h == host || h == name) {
        return true;
    }
    own_names(config).iter().any(|n| n == name) && host_port.is_none_or(|p| p == port)
}

fn origin_allowed(origin: &str, config: &Config) -> bool {
    if config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let Some((name, _)) = split_host_port(authority) else {
        return false;
    };
    own_names(config).iter().any(|n| n == name)
        || config
            .allowed_hosts
            .iter()
            .any(|h| split_host_port(h).is_some_and(|(allowed, _)| allowed == name))
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)).boxed())
        .unwrap_or_else(|_| internal_error())
}

pub(crate) fn error_response(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    json_response(
        status,
        jsonrpc::error_body(Some(&Value::Null), code, message, None),
    )
}

fn invalid_request(id: Option<&Value>, message: &str) -> Response<Body> {
    let id = id.cloned().unwrap_or(Value::Null);
    json_response(
        StatusCode::BAD_REQUEST,
        jsonrpc::error_body(Some(&id), jsonrpc::INVALID_REQUEST, message, None),
    )
}

const SESSION_NOT_FOUND: &str =
    "Session not found: it ended or never existed; start a new one with initialize";

fn session_not_found() -> Response<Body> {
    error_response(
        StatusCode::NOT_FOUND,
        jsonrpc::SESSION_ERROR,
        SESSION_NOT_FOUND,
    )
}

fn too_large() -> Response<Body> {
    closing_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Payload Too Large: a request body may have at most {MAX_BODY} bytes"),
    )
}

/// A transport error after which the connection is closed (what is left of
/// the request on it cannot be trusted or is not worth reading).
fn closing_error(status: StatusCode, message: &str) -> Response<Body> {
    let mut r = error_response(status, jsonrpc::TRANSPORT_ERROR, message);
    r.headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    r
}

pub(crate) fn accepted() -> Response<Body> {
    let mut r = Response::new(empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

pub(crate) fn internal_error() -> Response<Body> {
    let mut r = Response::new(empty());
    *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn config() -> Config {
        let mut c = Config::for_tests(PathBuf::from("/nonexistent"));
        c.allowed_hosts = vec!["mcp.example.com".into(), "other.example:9000".into()];
        c.allowed_origins = vec!["https://app.example.org".into()];
        c
    }

    #[test]
    fn hosts() {
        let c = config();
        let table = [
            ("localhost", true),
            ("localhost:8123", true),
            ("localhost:9999", false),
            ("127.0.0.1:8123", true),
            ("[::1]:8123", true),
            ("[::1]", true),
            ("evil.example.com", false),
            ("evil.example.com:8123", false),
            ("mcp.example.com:443", true),
            ("other.example:9000", true),
            ("other.example:9001", false),
            ("localhost:", false),
            ("localhost:abc", false),
            ("", false),
        ];
        for (host, ok) in table {
            assert_eq!(host_allowed(host, &c, 8123), ok, "{host}");
        }
    }

    #[test]
    fn origins() {
        let c = config();
        let table = [
            ("http://localhost:3000", true),
            ("https://127.0.0.1", true),
            ("http://[::1]:6274", true),
            ("http://evil.example.com", false),
            ("null", false),
            ("file://", false),
            ("https://app.example.org", true),
            ("https://mcp.example.com", true),
            ("http://localhost.evil.com", false),
        ];
        for (origin, ok) in table {
            assert_eq!(origin_allowed(origin, &c), ok, "{origin}");
        }
    }

    #[test]
    fn accept_header() {
        let table: &[(&[&str], bool)] = &[
            (&[], true),
            (&["application/json"], true),
            (&["application/json, text/event-stream"], true),
            (&["text/event-stream"], true),
            (&["*/*"], true),
            (&["text/html"], false),
            (&["text/html", "application/json;q=0.5"], true),
            (&["application/json;q=0"], false),
            (&["image/png, text/plain;q=0.1"], false),
        ];
        for (values, ok) in table {
            let mut h = HeaderMap::new();
            for v in *values {
                h.append(ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            assert_eq!(accepts_json_or_sse(&h), *ok, "{values:?}");
        }
    }
}
