//! Session lifetime, deadlines and cancellation through the real router, with
//! the scripted fake worker behind it: streamless release, stream-loss grace
//! with and without reattach, liveness probes answered, unanswered and made
//! stale by a stream handover, deadline escalation (soft break, hard break,
//! stopping the worker), cancellation of a running call, a client that
//! disconnects mid-call, and view hygiene's timers (a view stuck behind a
//! failed commit reclaimed after its grace, a call pinning a view far behind
//! interrupted after its own). The two figures of the design (stream close to worker
//! gone; cancel to call ended) are printed, never asserted.

use gsmcp_tests::harness_proc::{children_of, Proc};
use gsmcp_tests::{request_body, wait_until, Server, SseConn};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const BOUND: Duration = Duration::from_secs(30);

fn fake_server(env: &[(&str, &str)]) -> Server {
    let mut b = Server::builder().worker(env!("CARGO_BIN_EXE_fake-worker"));
    for (k, v) in env {
        b = b.env(*k, *v);
    }
    b.start()
}

fn call(id: i64, tool: &str, args: Value) -> String {
    request_body(id, "tools/call", json!({ "name": tool, "arguments": args }))
}

/// The live fake worker of session `sid`, a child of the router.
fn worker(server: &Server, sid: &str) -> Option<Proc> {
    children_of(server.pid()).into_iter().find(|p| {
        !p.is_zombie()
            && p.argv.first().is_some_and(|a| a.ends_with("fake-worker"))
            && p.argv.get(2).map(String::as_str) == Some(&sid[..8])
    })
}

fn gone(server: &Server, sid: &str) -> bool {
    worker(server, sid).is_none()
}

fn ping_status(server: &Server, sid: &str) -> u16 {
    server
        .post_in(sid, &request_body(77, "ping", json!({})))
        .status
}

fn cpu_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// Sends `body` on a connection of its own without reading the answer.
fn post_raw(server: &Server, sid: &str, body: &str) -> gsmcp_tests::RawConn {
    let mut c = server.connect();
    c.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &[
            ("Host", &server.host()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", sid),
        ],
        body.as_bytes(),
    ));
    c
}

/// Waits until the worker spends CPU time: its busy loop is running.
fn wait_busy(server: &Server, sid: &str) {
    let pid = worker(server, sid).expect("worker").pid;
    let before = cpu_ticks(pid).unwrap_or(0);
    assert!(wait_until(BOUND, || cpu_ticks(pid).is_some_and(|t| t >= before + 2)));
}

#[test]
fn a_session_that_never_opens_a_stream_is_released() {
    let server = fake_server(&[("MCP_STREAMLESS_IDLE_TIMEOUT", "1s")]);
    let s = server.open_session();
    assert!(worker(&server, &s.id).is_some());
    assert!(
        wait_until(BOUND, || gone(&server, &s.id)),
        "worker still there"
    );
    assert_eq!(ping_status(&server, &s.id), 404);
    assert!(
        server.log().contains("no stream opened and idle"),
        "{}",
        server.log()
    );
}

#[test]
fn a_lost_stream_releases_the_session_after_the_grace_unless_reopened() {
    let server = fake_server(&[
        ("MCP_STREAM_GRACE", "1s"),
        ("MCP_STREAMLESS_IDLE_TIMEOUT", "1s"),
    ]);
    // Reattached within the grace: the session lives on past it.
    let s = server.open_session();
    let mut stream = SseConn::get(&server, &s.id);
    stream.next_event().expect("priming");
    stream.close();
    let mut again = SseConn::get(&server, &s.id);
    again.next_event().expect("priming");
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        ping_status(&server, &s.id),
        200,
        "reattached session must live"
    );

    // Not reattached: released.
    let t = server.open_session();
    let mut stream = SseConn::get(&server, &t.id);
    stream.next_event().expect("priming");
    let closed = Instant::now();
    stream.close();
    assert!(wait_until(BOUND, || gone(&server, &t.id)));
    let figure = closed.elapsed();
    assert_eq!(ping_status(&server, &t.id), 404);
    assert!(
        server.log().contains("stream closed and not reopened"),
        "{}",
        server.log()
    );
    println!("FIGURE stream closed -> worker gone: {figure:?} (grace 1s)");
    drop(again);
}

/// Reads the next liveness probe from a stream.
fn next_probe(stream: &mut SseConn) -> String {
    loop {
        let m = stream
            .next_message()
            .expect("a probe before the stream ends");
        if m["method"] == json!("ping") {
            return m["id"].as_str().expect("probe id").to_string();
        }
    }
}

fn answer(server: &Server, sid: &str, id: &str) {
    let r = server.post_in(
        sid,
        &json!({ "jsonrpc": "2.0", "id": id, "result": {} }).to_string(),
    );
    assert_eq!(r.status, 202, "{}", r.text());
}

#[test]
fn probes_answered_unanswered_and_stale_after_a_handover() {
    // Idle 8 s: the probe goes out at 6 s and may take 1 s — room enough for
    // the test to answer it on a loaded machine.
    let env = [("MCP_IDLE_TIMEOUT", "8s")];

    // Unanswered: released early, by the probe.
    let server = fake_server(&env);
    let s = server.open_session();
    let mut stream = SseConn::get(&server, &s.id);
    let probe = next_probe(&mut stream);
    assert!(probe.starts_with("gsmcp-"), "{probe}");
    assert!(wait_until(BOUND, || gone(&server, &s.id)));
    assert_eq!(
        stream.next_event(),
        None,
        "the stream ends with the session"
    );
    assert!(
        server.log().contains("liveness probe unanswered"),
        "{}",
        server.log()
    );

    // Answered: alive until the idle timeout itself, counted from the last
    // request, not from the answer (a ping answered at 6 s must not keep the
    // session until 14 s)
    let server = fake_server(&env);
    let s = server.open_session();
    let opened = Instant::now();
    let mut stream = SseConn::get(&server, &s.id);
    let probe = next_probe(&mut stream);
    answer(&server, &s.id, &probe);
    assert!(wait_until(BOUND, || gone(&server, &s.id)));
    let lived = opened.elapsed();
    println!("FIGURE answered probe -> released after {lived:?} (idle 8s)");
    assert!(
        lived >= Duration::from_secs(8) && lived < Duration::from_secs(13),
        "released {lived:?} after the last request; the idle timeout is 8 s"
    );
    // the "session closed" line follows the session's removal
    assert!(
        wait_until(BOUND, || server.log().contains("reason=idle timeout")),
        "{}",
        server.log()
    );
    let log = server.log();
    assert!(!log.contains("liveness probe unanswered"), "{log}");

    // Handover: the probe written to the superseded stream proves nothing; a
    // new one goes to the new stream.
    let server = fake_server(&env);
    let s = server.open_session();
    let mut first = SseConn::get(&server, &s.id);
    let stale = next_probe(&mut first);
    let mut second = SseConn::get(&server, &s.id);
    answer(&server, &s.id, &stale);
    let fresh = next_probe(&mut second);
    assert_ne!(fresh, stale);
    answer(&server, &s.id, &fresh);
    assert!(wait_until(BOUND, || gone(&server, &s.id)));
    assert!(
        wait_until(BOUND, || server.log().contains("reason=idle timeout")),
        "{}",
        server.log()
    );
}

/// A call's answer: JSON (`Some(body)`), or 202 with no body (`None`).
fn answer_of(mut conn: SseConn) -> Option<Value> {
    match conn.status {
        200 if conn.is_stream() => conn.rest().iter().rev().find_map(|e| e.json()),
        200 => Some(conn.json_body()),
        202 => None,
        other => panic!("unexpected status {other}"),
    }
}

#[test]
fn deadlines_escalate_soft_hard_then_stop() {
    let env = [
        ("MCP_REQUEST_TIMEOUT", "300ms"),
        ("MCP_BREAK_GRACE", "300ms"),
    ];
    // (tool, arguments, stage reached, session usable afterwards)
    let table = [
        ("busy", json!({}), "softBreak", true),
        ("busy", json!({ "soft": "ignore" }), "hardBreak", true),
        (
            "busy",
            json!({ "soft": "ignore", "hard": "ignore" }),
            "stopped",
            false,
        ),
        ("sleep", json!({ "ms": 60000 }), "stopped", false),
    ];
    for (tool, args, stage, usable) in table {
        let server = fake_server(&env);
        let s = server.open_session();
        let body = answer_of(SseConn::post(&server, &s.id, &call(3, tool, args.clone())))
            .expect("a deadline gets an answer");
        assert_eq!(body["id"], json!(3), "{tool} {args}: {body}");
        assert_eq!(body["error"]["code"], json!(-32001), "{body}");
        assert_eq!(body["error"]["data"]["kind"], json!("timeout"), "{body}");
        assert_eq!(
            body["error"]["data"]["stage"],
            json!(stage),
            "{tool} {args}: {body}"
        );
        if usable {
            assert_eq!(ping_status(&server, &s.id), 200, "{tool} {args}");
        } else {
            assert!(wait_until(BOUND, || gone(&server, &s.id)));
            assert_eq!(ping_status(&server, &s.id), 404, "{tool} {args}");
        }
    }
}

fn cancel(server: &Server, sid: &str, id: i64) {
    let body = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id, "reason": "test" } });
    let r = server.post_in(sid, &body.to_string());
    assert_eq!(r.status, 202, "{}", r.text());
}

#[test]
fn cancelling_a_running_call_ends_it_without_a_response() {
    let server = fake_server(&[("MCP_BREAK_GRACE", "300ms")]);
    let s = server.open_session();
    // (arguments, the call still ends although the worker ignores the Cancel)
    let table = [json!({}), json!({ "cancel": "ignore" })];
    for (i, args) in table.iter().enumerate() {
        let id = 20 + i as i64;
        std::thread::scope(|scope| {
            let call = scope.spawn(|| {
                let conn = SseConn::post(&server, &s.id, &call(id, "busy", args.clone()));
                (answer_of(conn), Instant::now())
            });
            wait_busy(&server, &s.id);
            // A queued request behind it is dropped by its own cancellation.
            let queued = scope.spawn(|| {
                answer_of(SseConn::post(
                    &server,
                    &s.id,
                    &request_body(id + 100, "ping", json!({})),
                ))
            });
            std::thread::sleep(Duration::from_millis(100));
            cancel(&server, &s.id, id + 100);
            assert_eq!(
                queued.join().unwrap(),
                None,
                "a cancelled queued request gets no response"
            );
            let sent = Instant::now();
            cancel(&server, &s.id, id);
            let (answer, ended) = call.join().unwrap();
            assert_eq!(answer, None, "{args}: the cancelled call gets no response");
            println!(
                "FIGURE notifications/cancelled -> call ended ({args}): {:?}",
                ended - sent
            );
        });
        assert_eq!(ping_status(&server, &s.id), 200, "the session goes on");
    }
    // Cancelling something unknown or finished is ignored.
    cancel(&server, &s.id, 12345);
    assert_eq!(ping_status(&server, &s.id), 200);
}

#[test]
fn a_client_that_disconnects_mid_call_leaves_the_session_working() {
    let server = fake_server(&[]);
    let s = server.open_session();
    let conn = post_raw(&server, &s.id, &call(1, "sleep", json!({ "ms": 300 })));
    drop(conn);
    // The call still runs to its end; the next request is answered after it.
    assert_eq!(ping_status(&server, &s.id), 200);
    assert_eq!(
        children_of(server.pid()).len(),
        1,
        "one worker, nothing leaked"
    );
    let r = server.request("DELETE", "/mcp", &[("Mcp-Session-Id", &s.id)], b"");
    assert_eq!(r.status, 200);
    assert!(wait_until(BOUND, || children_of(server.pid()).is_empty()));
}

#[test]
fn a_client_that_leaves_an_open_event_stream_costs_nothing_after_the_call() {
    let server = fake_server(&[("MCP_CLIENT_REQUEST_TIMEOUT", "300ms")]);
    let s = server.open_session();
    let mut conn = SseConn::post(&server, &s.id, &call(1, "sample", json!({})));
    let request = conn.next_message().expect("the sampling request");
    assert_eq!(request["method"], json!("sampling/createMessage"));
    conn.close();
    // The request times out for the worker, the call ends, the session goes on.
    assert_eq!(ping_status(&server, &s.id), 200);
    assert_eq!(children_of(server.pid()).len(), 1);
}

#[test]
fn cancelling_a_call_whose_stream_is_open_ends_the_stream_without_a_response() {
    let server = fake_server(&[("MCP_BREAK_GRACE", "200ms")]);
    let s = server.open_session();
    let mut conn = SseConn::post(&server, &s.id, &call(1, "sample", json!({})));
    conn.next_message().expect("the sampling request");
    cancel(&server, &s.id, 1);
    // The fake worker's sampling wait ignores Cancel and both breaks, so the
    // escalation ends with the worker stopped; the stream still carries no
    // response for the cancelled id.
    let rest = conn.rest();
    assert!(
        rest.iter()
            .all(|e| e.json().is_none_or(|m| m.get("id") != Some(&json!(1)))),
        "{rest:?}"
    );
    assert!(wait_until(BOUND, || gone(&server, &s.id)));
    assert_eq!(ping_status(&server, &s.id), 404);
}

/// Each progress notification starts the deadline again: a call that reports
/// progress more often than the deadline runs to its end, the same call
/// without a progress token (so nothing reaches the client) is interrupted.
#[test]
fn progress_starts_the_deadline_again() {
    let server = fake_server(&[
        ("MCP_REQUEST_TIMEOUT", "700ms"),
        ("MCP_BREAK_GRACE", "300ms"),
    ]);
    let s = server.open_session();
    let args = json!({ "steps": 8, "pauseMs": 250 }); // 2 s in all
                                                      // (request, finishes)
    let with_token = request_body(
        5,
        "tools/call",
        json!({ "name": "progress", "arguments": args, "_meta": { "progressToken": "p" } }),
    );
    let without = call(6, "progress", args.clone());
    for (body, finishes) in [(with_token, true), (without, false)] {
        let started = Instant::now();
        let answer = answer_of(SseConn::post(&server, &s.id, &body)).expect("an answer");
        if finishes {
            assert_eq!(
                answer["result"]["content"][0]["text"],
                json!("done"),
                "{answer}"
            );
            assert!(started.elapsed() >= Duration::from_millis(2000));
        } else {
            assert_eq!(
                answer["error"]["data"]["kind"],
                json!("timeout"),
                "{answer}"
            );
        }
    }
}

/// A runaway evaluation whose client went away is ended by the request
/// deadline (on by default; short here): the worker stops spending CPU and
/// the session serves the next call.
#[test]
fn a_runaway_call_whose_client_left_is_ended_by_the_deadline() {
    let server = Server::builder().env("MCP_REQUEST_TIMEOUT", "1s").start();
    let s = server.open_session();
    let conn = post_raw(
        &server,
        &s.id,
        &call(1, "execute_code", json!({ "code": "[true] whileTrue" })),
    );
    let pid = gsmcp_tests::worker_of_session(server.port(), &s.id)
        .expect("the session's worker")
        .pid;
    let before = cpu_ticks(pid).unwrap_or(0);
    assert!(wait_until(BOUND, || cpu_ticks(pid).is_some_and(|t| t >= before + 2)));
    drop(conn);
    // the deadline breaks it: the worker goes quiet and answers again
    let r = server.post_in(&s.id, &call(2, "execute_code", json!({ "code": "3 + 4" })));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains('7'), "{}", r.text());
    let idle = cpu_ticks(pid).unwrap_or(0);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        cpu_ticks(pid).unwrap_or(u64::MAX) <= idle + 5,
        "the loop still runs"
    );
}

/// A session that ended answers its next request with 404 and why: the
/// reason and whether its uncommitted changes were lost. A session holding
/// uncommitted changes outlives the streamless rule and is released only by
/// the idle timeout.
#[test]
fn an_ended_session_says_why_and_what_became_of_its_work() {
    let repo = gsmcp_tests::harness::scratch_path("tombstones.repository");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_STREAMLESS_IDLE_TIMEOUT", "1s")
        .env("MCP_IDLE_TIMEOUT", "5s")
        .start();
    let ended = |sid: &str| -> Value {
        let r = server.post_in(sid, &request_body(9, "ping", json!({})));
        assert_eq!(r.status, 404, "{}", r.text());
        r.json()["error"].clone()
    };
    let real_worker = |sid: &str| gsmcp_tests::worker_of_session(server.port(), sid);
    let says = |e: &Value, part: &str| {
        let message = e["message"].as_str().unwrap_or_default();
        assert!(message.contains(part), "{part:?} missing from {e}");
    };

    // uncommitted work, no stream: kept past the streamless rule, released
    // by the idle timeout, and the 404 says the work was discarded
    let busy = server.open_session();
    let r = server.post_in(
        &busy.id,
        &call(
            2,
            "execute_code",
            json!({"code": "UserGlobals at: #Pending put: 1"}),
        ),
    );
    assert!(
        r.text().contains("holds uncommitted changes"),
        "{}",
        r.text()
    );
    let quiet = server.open_session();
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        real_worker(&busy.id).is_some(),
        "released by the streamless rule"
    );
    assert!(wait_until(BOUND, || real_worker(&quiet.id).is_none()));
    let e = ended(&quiet.id);
    assert_eq!(e["data"]["kind"], "sessionEnded", "{e}");
    assert_eq!(e["data"]["uncommittedLost"], json!(false), "{e}");
    says(&e, "ended (no stream opened and idle)");
    assert!(wait_until(BOUND, || real_worker(&busy.id).is_none()));
    let e = ended(&busy.id);
    assert_eq!(e["data"]["reason"], "idle timeout", "{e}");
    assert_eq!(e["data"]["uncommittedLost"], json!(true), "{e}");
    says(&e, "its uncommitted changes were discarded");

    // deleted, holding nothing
    let deleted = server.open_session();
    let r = server.request("DELETE", "/mcp", &[("Mcp-Session-Id", &deleted.id)], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let e = ended(&deleted.id);
    assert_eq!(e["data"]["reason"], "session deleted", "{e}");
    says(&e, "held no uncommitted changes");

    // a worker killed with work pending
    let killed = server.open_session();
    server.post_in(
        &killed.id,
        &call(
            2,
            "execute_code",
            json!({"code": "UserGlobals at: #Doomed put: 2"}),
        ),
    );
    let pid = real_worker(&killed.id).expect("the worker").pid;
    // SAFETY: a signal to a child process of the router this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    // (the reason says how the worker ended once it is reaped)
    assert!(wait_until(BOUND, || {
        let r = server.post_in(&killed.id, &request_body(9, "ping", json!({})));
        r.status == 404
            && r.json()["error"]["data"]["reason"] == "its worker ended: killed by SIGKILL"
    }));
    let e = ended(&killed.id);
    assert_eq!(e["data"]["uncommittedLost"], json!(true), "{e}");
    let log = server.log();
    assert!(log.contains("uncommitted=\"discarded\""), "{log}");

    // an id that never was is still the plain 404
    let e = ended("0123456789abcdef0123456789abcdef");
    assert!(e["data"].is_null(), "{e}");
}

/// How many `Refresh` and `Reclaim` frames the fake worker of `sid` received.
fn view_frames(server: &Server, sid: &str, id: i64) -> (u64, u64) {
    let r = server.post_in(sid, &call(id, "refreshes", json!({})));
    let counts = &r.json()["result"]["structuredContent"];
    let n = |k: &str| counts[k].as_u64().unwrap_or_else(|| panic!("{}", r.text()));
    (n("refreshes"), n("reclaims"))
}

#[test]
fn a_view_stuck_behind_a_failed_commit_is_reclaimed_after_its_grace() {
    // (MCP_STUCK_VIEW_GRACE, the session's report, reclaims within 3 s)
    let table = [
        (
            "1s",
            json!({ "behind": 9, "dirty": true, "mustAbort": true }),
            1,
        ),
        (
            "none",
            json!({ "behind": 9, "dirty": true, "mustAbort": true }),
            0,
        ),
        // not far behind: nothing is pinned
        (
            "1s",
            json!({ "behind": 2, "dirty": true, "mustAbort": true }),
            0,
        ),
        // changes that may yet commit are the client's: never discarded
        ("1s", json!({ "behind": 9, "dirty": true }), 0),
    ];
    for (grace, report, reclaims) in table {
        let server = fake_server(&[
            ("MCP_MAX_COMMITS_BEHIND", "5"),
            ("MCP_STUCK_VIEW_GRACE", grace),
        ]);
        let s = server.open_session();
        let r = server.post_in(&s.id, &call(1, "view", report.clone()));
        assert_eq!(r.json()["id"], json!(1), "{}", r.text());
        assert_eq!(
            view_frames(&server, &s.id, 2),
            (0, 0),
            "{grace} {report}: not at once"
        );
        // the idle session is reclaimed by the actor's own pass, no request needed
        std::thread::sleep(Duration::from_millis(3000));
        let (refreshes, got) = view_frames(&server, &s.id, 3);
        assert_eq!((refreshes, got), (0, reclaims), "{grace} {report}");
        // once: the report after it would say what became of the view
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(
            view_frames(&server, &s.id, 4),
            (0, reclaims),
            "{grace} {report}"
        );
    }
}

#[test]
fn a_call_that_pins_a_view_far_behind_is_interrupted_after_its_grace() {
    let env = [
        ("MCP_MAX_COMMITS_BEHIND", "5"),
        ("MCP_PINNED_VIEW_GRACE", "1s"),
        ("MCP_REQUEST_TIMEOUT", "4s"),
        ("MCP_BREAK_GRACE", "300ms"),
    ];
    // (the lag the worker's watch reports while the call runs, the
    // interruption's kind, at least how long the call ran)
    let table = [
        (9, "pinnedView", Duration::from_secs(1)),
        (2, "timeout", Duration::from_secs(4)),
    ];
    for (lag, kind, ran) in table {
        let server = fake_server(&env);
        let s = server.open_session();
        let started = Instant::now();
        let body = answer_of(SseConn::post(
            &server,
            &s.id,
            &call(3, "busy", json!({ "lag": lag })),
        ))
        .expect("an interrupted call gets an answer");
        let took = started.elapsed();
        assert_eq!(
            body["error"]["data"]["kind"],
            json!(kind),
            "lag {lag}: {body}"
        );
        assert_eq!(body["error"]["data"]["stage"], json!("softBreak"), "{body}");
        assert!(took >= ran, "lag {lag}: interrupted after {took:?}");
        if kind == "pinnedView" {
            assert_eq!(body["error"]["data"]["commitsBehind"], json!(lag), "{body}");
            let message = body["error"]["message"].as_str().unwrap_or("");
            assert!(message.contains("MCP_PINNED_VIEW_GRACE"), "{body}");
            assert!(
                took < Duration::from_secs(4),
                "before the deadline: {took:?}"
            );
        }
        assert_eq!(ping_status(&server, &s.id), 200, "the session goes on");
    }
}
