//! The router's session actor against workers served on threads of the test
//! process (`Launcher::InProcess`): the registry, the actor, the frame pumps
//! and the worker's serve loop are the real ones, joined by a socketpair
//! instead of a process boundary, with no HTTP in front. The same paths over
//! real processes and sockets are covered by the other end-to-end tests.

use gsmcp_router::config::Config;
use gsmcp_router::session::{CallEvent, Command, OpenOutcome, Registry};
use gsmcp_router::supervisor::{Launcher, ServeInProcess};
use serde_json::{json, Value};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Guards against a hung session turning into a hung test; not an assertion on speed.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// What the worker binary's main does once it has its socket.
fn serve_here() -> Arc<ServeInProcess> {
    Arc::new(
        |mut stream: UnixStream| match gsmcp_worker::read_hello(&mut stream, HANG_GUARD) {
            Ok(hello) => match gsmcp_worker::serve(stream, hello) {
                Ok(()) => 0,
                Err(_) => 1,
            },
            Err(_) => 1,
        },
    )
}

fn registry(shutdown: &CancellationToken) -> Arc<Registry> {
    // No binary is started: the path is never used.
    let mut config = Config::for_tests(PathBuf::from("/nonexistent/gsmcp-worker"));
    config.request_timeout = Some(HANG_GUARD);
    config.break_grace = Duration::from_millis(200);
    Registry::with_launcher(
        Arc::new(config),
        0,
        shutdown.clone(),
        Launcher::InProcess(serve_here()),
    )
}

async fn open(registry: &Arc<Registry>) -> String {
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    match registry
        .open(
            json!(0),
            Some(params),
            gsmcp_router::identity::Principal::Anonymous,
        )
        .await
    {
        OpenOutcome::Opened { sid, reply } => {
            let v: Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(v["result"]["protocolVersion"], "2025-11-25", "{v}");
            sid
        }
        OpenOutcome::Refused { reply } => panic!("initialize refused: {reply}"),
        OpenOutcome::Started { .. } => panic!("initialize answered a stateless login"),
    }
}

/// Sends a request to the session; answers the channel its events arrive on.
fn request(
    registry: &Registry,
    sid: &str,
    id: u64,
    method: &str,
    params: Value,
) -> mpsc::UnboundedReceiver<CallEvent> {
    let (events, answers) = mpsc::unbounded_channel();
    let handle = registry.lookup(sid).expect("the session is mapped");
    let sent = handle.send(Command::Request {
        id: json!(id),
        method: method.into(),
        params: Some(params),
        events,
        log_floor: None,
    });
    assert!(sent.is_ok(), "the session took the request");
    answers
}

/// The call's last event: its reply (parsed), or None when it was cancelled.
async fn last(answers: &mut mpsc::UnboundedReceiver<CallEvent>) -> Option<Value> {
    loop {
        match tokio::time::timeout(HANG_GUARD, answers.recv()).await {
            Ok(Some(CallEvent::Reply(text))) => return Some(serde_json::from_str(&text).unwrap()),
            Ok(Some(CallEvent::Cancelled)) => return None,
            Ok(Some(CallEvent::Message(_) | CallEvent::Release)) => {}
            Ok(None) => panic!("the call ended without a last event"),
            Err(_) => panic!("no answer within {HANG_GUARD:?}"),
        }
    }
}

fn code(text: &str) -> Value {
    json!({"name": "execute_code", "arguments": {"code": text}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_actor_serves_queues_cancels_and_ends_an_in_process_session() {
    // in-process workers are embedded-stone workers whatever the test backend
    if gsmcp_tests::test_backend_is_gci() {
        return;
    }
    let shutdown = CancellationToken::new();
    let registry = registry(&shutdown);
    let sid = open(&registry).await;

    // Requests queue in arrival order and are answered in it; state carries over.
    let mut first = request(
        &registry,
        &sid,
        1,
        "tools/call",
        code("UserGlobals at: #N put: 41"),
    );
    let mut second = request(
        &registry,
        &sid,
        2,
        "tools/call",
        code("(UserGlobals at: #N) + 1"),
    );
    let mut third = request(&registry, &sid, 3, "ping", json!({}));
    let one = last(&mut first).await.unwrap();
    assert_eq!(one["id"], 1, "{one}");
    let two = last(&mut second).await.unwrap();
    assert_eq!(two["result"]["content"][0]["text"], "42", "{two}");
    assert_eq!(last(&mut third).await.unwrap()["result"], json!({}));

    // logging/setLevel is the router's own; a bad level is its error.
    let mut bad = request(
        &registry,
        &sid,
        4,
        "logging/setLevel",
        json!({"level": "loud"}),
    );
    assert_eq!(last(&mut bad).await.unwrap()["error"]["code"], -32602);

    // A cancelled running call gets no response, and the session goes on.
    let mut endless = request(
        &registry,
        &sid,
        5,
        "tools/call",
        code("[true] whileTrue. 1"),
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let handle = registry.lookup(&sid).unwrap();
    let cancelled = handle.send(Command::Notification {
        method: "notifications/cancelled".into(),
        params: Some(json!({"requestId": 5})),
    });
    assert!(cancelled.is_ok());
    assert_eq!(
        last(&mut endless).await,
        None,
        "a cancelled call has no response"
    );
    let mut after = request(&registry, &sid, 6, "tools/call", code("3 + 4"));
    assert_eq!(
        last(&mut after).await.unwrap()["result"]["content"][0]["text"],
        "7"
    );

    // Deleting ends the worker's serve loop and unmaps the session.
    assert!(registry.delete(&sid).await);
    assert!(registry.lookup(&sid).is_none());
    assert!(registry.is_empty());
    shutdown.cancel();
    assert!(registry.wait_all(HANG_GUARD).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_in_one_process_do_not_share_their_work() {
    if gsmcp_tests::test_backend_is_gci() {
        return;
    }
    let shutdown = CancellationToken::new();
    let registry = registry(&shutdown);
    let a = open(&registry).await;
    let b = open(&registry).await;
    assert_ne!(a, b);
    let mut set = request(
        &registry,
        &a,
        1,
        "tools/call",
        code("UserGlobals at: #Mine put: 1. #set"),
    );
    assert!(last(&mut set).await.unwrap()["result"]["isError"] == false);
    let mut look = request(
        &registry,
        &b,
        1,
        "tools/call",
        code("(UserGlobals includesKey: #Mine) printString"),
    );
    let seen = last(&mut look).await.unwrap();
    assert_eq!(seen["result"]["content"][0]["text"], "'false'", "{seen}");
    shutdown.cancel();
    assert!(registry.wait_all(HANG_GUARD).await);
}
