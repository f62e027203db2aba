//! Resumable event streams in the session era, through the real router and
//! worker: a stream whose connection the server released (the conformance
//! fixture `test_reconnection`) and one whose client went away mid-call are
//! both resumed by a GET with `Last-Event-ID`, which replays what the client
//! missed and then the answer, with no event twice; the priming event carries
//! `retry`; the standalone stream resumes as itself; an id the session does
//! not hold is refused with 410 saying it cannot resume.

use gsmcp_tests::{request_body, Server, SseConn, SseEvent};
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder()
        .env("MCP_TOOLSETS", "Execution,Mutation,Testing,Conformance")
        .env("MCP_REPOSITORY", ":memory:")
        .start()
}

/// Resumes stream `last` of session `sid` by a GET with `Last-Event-ID`.
fn resume(server: &Server, sid: &str, last: &str) -> SseConn {
    SseConn::open(
        server,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", sid),
            ("Last-Event-ID", last),
        ],
        "",
    )
}

fn ids(events: &[SseEvent]) -> Vec<String> {
    events.iter().filter_map(|e| e.id.clone()).collect()
}

/// The JSON-RPC message of an event, if it carries one.
fn message(e: &SseEvent) -> Option<Value> {
    e.json()
}

#[test]
fn a_released_stream_resumes_with_its_answer() {
    let server = server();
    let s = server.open_session();
    let body = request_body(
        3,
        "tools/call",
        json!({"name": "test_reconnection", "arguments": {}}),
    );
    let mut post = SseConn::post(&server, &s.id, &body);
    assert!(post.is_stream(), "{:?}", post.headers);
    let events = post.rest();
    let priming = &events[0];
    assert_eq!(priming.data.as_deref(), Some(""), "{priming:?}");
    assert_eq!(
        priming.retry,
        Some(1000),
        "the priming event says how long to wait: {priming:?}"
    );
    assert!(
        events
            .iter()
            .all(|e| message(e).is_none_or(|m| m.get("id") != Some(&json!(3)))),
        "no answer before the release: {events:?}"
    );
    assert_eq!(
        events.last().unwrap().retry,
        Some(1000),
        "the release says when to come back: {events:?}"
    );
    let last = ids(&events).pop().expect("an event id to resume from");

    let mut get = resume(&server, &s.id, &last);
    assert_eq!(get.status, 200);
    let resumed = get.rest();
    assert_eq!(
        resumed[0].id.as_deref(),
        Some(last.as_str()),
        "primed with the id it resumed from"
    );
    let answer = resumed.iter().find_map(message).expect("the answer");
    assert_eq!(answer["id"], 3, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("resumed"),
        "{answer}"
    );
    let before = ids(&events);
    assert!(
        ids(&resumed[1..]).iter().all(|id| !before.contains(id)),
        "nothing twice: {before:?} {resumed:?}"
    );
}

#[test]
fn a_stream_lost_mid_call_resumes_where_the_client_left_it() {
    let server = server();
    let s = server.open_session();
    let compile = |id: i64, tool: &str, args: Value| {
        let r = server.post_in(
            &s.id,
            &request_body(id, "tools/call", json!({"name": tool, "arguments": args})),
        );
        assert_eq!(
            r.final_message()["result"]["isError"],
            false,
            "{tool}: {}",
            r.text()
        );
    };
    compile(
        1,
        "compile_class_definition",
        json!({"className": "SlowTests", "superclassName": "TestCase"}),
    );
    for (i, sel) in ["testA", "testB", "testC"].iter().enumerate() {
        let source = format!("{sel}\n\t(Delay forMilliseconds: 400) wait.\n\tself assert: true");
        compile(
            2 + i as i64,
            "compile_method",
            json!({"className": "SlowTests", "source": source}),
        );
    }
    let body = request_body(
        9,
        "tools/call",
        json!({"name": "run_test_class", "arguments": {"className": "SlowTests"}, "_meta": {"progressToken": "p"}}),
    );
    let mut post = SseConn::post(&server, &s.id, &body);
    assert!(post.is_stream(), "{:?}", post.headers);
    let priming = post.next_event().expect("priming");
    let first = post.next_event().expect("the first progress");
    assert_eq!(
        message(&first).unwrap()["method"],
        "notifications/progress",
        "{first:?}"
    );
    let last = first.id.clone().expect("an id");
    post.close(); // the network fails: the call runs on

    let mut get = resume(&server, &s.id, &last);
    assert_eq!(get.status, 200);
    let resumed = get.rest();
    let messages: Vec<Value> = resumed.iter().filter_map(message).collect();
    let answer = messages.last().expect("the answer");
    assert_eq!(answer["id"], 9, "{messages:?}");
    assert_eq!(
        answer["result"]["structuredContent"]["summary"]["passed"], 3,
        "{answer}"
    );
    let progress: Vec<f64> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    let first_progress = message(&first).unwrap()["params"]["progress"]
        .as_f64()
        .unwrap();
    assert!(
        progress.iter().all(|p| *p > first_progress),
        "only what the client missed: {progress:?} after {first_progress}"
    );
    let mut seen = vec![priming.id.clone().unwrap(), last.clone()];
    for id in ids(&resumed[1..]) {
        assert!(!seen.contains(&id), "{id} twice");
        seen.push(id);
    }
}

#[test]
fn the_standalone_stream_resumes_as_itself_and_unknown_ids_are_gone() {
    let server = server();
    let s = server.open_session();
    let mut get = SseConn::get(&server, &s.id);
    let priming = get.next_event().expect("priming").id.expect("an id");
    assert!(priming.ends_with("-0"), "{priming}");
    get.close();
    let mut again = resume(&server, &s.id, &priming);
    assert_eq!(again.status, 200);
    assert_eq!(again.next_event().and_then(|e| e.id), Some(priming.clone()));
    // the resumed stream is the session's standalone stream: a new GET supersedes it
    let _newer = SseConn::get(&server, &s.id);
    assert!(
        gsmcp_tests::wait_until(std::time::Duration::from_secs(10), || {
            match again.next_event() {
                None => true,
                Some(e) => {
                    assert!(
                        e.data.is_none(),
                        "nothing but keep-alives before it ends: {e:?}"
                    );
                    false
                }
            }
        }),
        "the superseded stream ends"
    );

    let rows = [
        ("999-1", "no such stream"),
        ("not-an-id", "not one of ours"),
        ("1-9999", "an id never given"),
    ];
    for (id, case) in rows {
        let r = resume(&server, &s.id, id);
        assert_eq!(r.status, 410, "{case}: {:?}", r.headers);
        let mut r = r;
        let body = r.json_body();
        assert_eq!(
            body["error"]["data"]["kind"], "cannotResume",
            "{case}: {body}"
        );
    }
}

#[test]
fn a_standalone_stream_resumed_before_its_old_connection_ended_stays_the_sessions() {
    let server = Server::builder()
        .env("MCP_REPOSITORY", ":memory:")
        .env("MCP_IDLE_TIMEOUT", "4s")
        .env("MCP_SSE_KEEPALIVE", "1s")
        .start();
    let s = server.open_session();
    let mut old = SseConn::get(&server, &s.id);
    let priming = old.next_event().expect("priming").id.expect("an id");
    // the client resumes before the server noticed its old connection end
    let mut new = resume(&server, &s.id, &priming);
    assert_eq!(new.status, 200);
    assert_eq!(new.next_event().and_then(|e| e.id), Some(priming));
    // the old writer ends, replaced; the session's stream is the new one: its
    // liveness probe (a ping a second before the idle timeout) arrives there
    let started = std::time::Instant::now();
    let mut pinged = false;
    while started.elapsed() < std::time::Duration::from_secs(20) {
        match new.next_event() {
            Some(e) if message(&e).is_some_and(|m| m["method"] == "ping") => {
                pinged = true;
                break;
            }
            Some(_) => {}
            None => break,
        }
    }
    assert!(
        pinged,
        "no probe reached the resumed stream\n{}",
        server.log()
    );
    assert!(
        old.next_event().is_none_or(|e| e.data.is_none()),
        "the old connection carries nothing more"
    );
}
