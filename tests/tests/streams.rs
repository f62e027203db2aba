//! Streams and server-to-client traffic through the real router, with the
//! scripted fake worker behind it: SSE answers (progress and log messages
//! before the result, in order), JSON answers, the standalone GET stream and
//! its supersession, keep-alive comments, server requests (sampling) mapped to
//! the router's id namespace and back, and their timeout.

use gsmcp_tests::{request_body, Server, SseConn};
use serde_json::{json, Value};
use std::collections::HashSet;

fn fake_server(env: &[(&str, &str)]) -> Server {
    let mut b = Server::builder().worker(env!("CARGO_BIN_EXE_fake-worker"));
    for (k, v) in env {
        b = b.env(*k, *v);
    }
    b.start()
}

fn call(id: i64, tool: &str, args: Value, token: Option<&str>) -> String {
    let mut params = json!({ "name": tool, "arguments": args });
    if let Some(t) = token {
        params["_meta"] = json!({ "progressToken": t });
    }
    request_body(id, "tools/call", params)
}

fn set_level(server: &Server, sid: &str, level: &str) {
    let r = server.post_in(
        sid,
        &request_body(90, "logging/setLevel", json!({ "level": level })),
    );
    assert_eq!(r.json()["result"], json!({}), "{}", r.text());
}

#[test]
fn progress_and_log_messages_precede_the_result_on_an_event_stream() {
    let server = fake_server(&[]);
    let s = server.open_session();
    // (level set, log lines the worker sends, how many reach the client)
    let table = [("debug", 3, 3), ("warning", 3, 1), ("info", 6, 4)];
    for (i, (level, logs, expect_logs)) in table.iter().enumerate() {
        set_level(&server, &s.id, level);
        let id = 10 + i as i64;
        let body = call(
            id,
            "progress",
            json!({ "steps": 3, "logs": logs, "decreasing": true }),
            Some("tok"),
        );
        let mut conn = SseConn::post(&server, &s.id, &body);
        assert_eq!(conn.status, 200);
        assert!(conn.is_stream(), "{level}: {:?}", conn.headers);
        let events = conn.rest();
        let priming = &events[0];
        assert!(
            priming.id.is_some() && priming.data.as_deref() == Some(""),
            "{priming:?}"
        );
        let ids: HashSet<_> = events.iter().filter_map(|e| e.id.clone()).collect();
        assert_eq!(ids.len(), events.len(), "event ids are unique: {events:?}");
        let stream = priming
            .id
            .as_ref()
            .unwrap()
            .split('-')
            .next()
            .unwrap()
            .to_string();
        assert!(events
            .iter()
            .all(|e| e.id.as_ref().unwrap().starts_with(&format!("{stream}-"))));
        let messages: Vec<Value> = events.iter().filter_map(|e| e.json()).collect();
        let (last, before) = messages.split_last().expect("a response");
        assert_eq!(
            last["id"],
            json!(id),
            "the response comes last: {messages:?}"
        );
        assert_eq!(last["result"]["content"][0]["text"], json!("done"));
        let logs: Vec<&Value> = before
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .collect();
        let progress: Vec<&Value> = before
            .iter()
            .filter(|m| m["method"] == "notifications/progress")
            .collect();
        assert_eq!(logs.len(), *expect_logs, "{level}: {messages:?}");
        assert_eq!(logs.len() + progress.len(), before.len(), "{messages:?}");
        // The worker sends its log lines before its progress: order is kept.
        let first_progress = before
            .iter()
            .position(|m| m["method"] == "notifications/progress")
            .unwrap();
        assert!(before[..first_progress]
            .iter()
            .all(|m| m["method"] == "notifications/message"));
        // The decreasing value is dropped; the token is echoed.
        let values: Vec<f64> = progress
            .iter()
            .map(|p| p["params"]["progress"].as_f64().unwrap())
            .collect();
        assert_eq!(values, vec![1.0, 2.0, 3.0]);
        assert!(progress
            .iter()
            .all(|p| p["params"]["progressToken"] == json!("tok")
                && p["params"]["total"] == json!(3.0)));
    }
    // A bad level is refused.
    let r = server.post_in(
        &s.id,
        &request_body(99, "logging/setLevel", json!({ "level": "loud" })),
    );
    assert_eq!(r.json()["error"]["code"], json!(-32602), "{}", r.text());
}

#[test]
fn json_answer_when_nothing_precedes_the_reply_or_no_stream_is_accepted() {
    let server = fake_server(&[]);
    let s = server.open_session();
    let mut conn = SseConn::post(
        &server,
        &s.id,
        &call(1, "echo", json!({ "a": 1 }), Some("t")),
    );
    assert_eq!(conn.header("content-type"), Some("application/json"));
    assert_eq!(
        conn.json_body()["result"]["structuredContent"]["echo"],
        json!({ "a": 1 })
    );
    // Progress without a token is not sent: nothing precedes the reply.
    let mut conn = SseConn::post(
        &server,
        &s.id,
        &call(2, "progress", json!({ "steps": 3 }), None),
    );
    assert_eq!(conn.header("content-type"), Some("application/json"));
    assert_eq!(conn.json_body()["id"], json!(2));
    // A client that takes only JSON gets JSON; the messages are not delivered.
    let mut conn = SseConn::post_accepting(
        &server,
        &s.id,
        &call(3, "progress", json!({ "steps": 3 }), Some("t")),
        "application/json",
    );
    assert_eq!(conn.header("content-type"), Some("application/json"));
    assert_eq!(
        conn.json_body()["result"]["content"][0]["text"],
        json!("done")
    );
}

#[test]
fn standalone_stream_gets_unrelated_messages_and_the_newest_supersedes() {
    let server = fake_server(&[]);
    let s = server.open_session();
    let refused = SseConn::open(
        &server,
        "GET",
        &[("Accept", "application/json"), ("Mcp-Session-Id", &s.id)],
        "",
    );
    assert_eq!(refused.status, 406);

    let mut first = SseConn::get(&server, &s.id);
    assert_eq!(first.status, 200);
    assert!(first.is_stream());
    let priming = first.next_event().expect("priming event");
    assert_eq!(priming.data.as_deref(), Some(""));
    let r = server.post_in(&s.id, &call(1, "standalone", json!({}), None));
    assert_eq!(r.json()["id"], json!(1), "{}", r.text());
    let note = first
        .next_message()
        .expect("the notification on the GET stream");
    assert_eq!(note["method"], json!("notifications/resources/updated"));

    let mut second = SseConn::get(&server, &s.id);
    let p2 = second.next_event().expect("priming event");
    assert_ne!(
        p2.id.as_deref().unwrap().split('-').next(),
        priming.id.as_deref().unwrap().split('-').next(),
        "each stream has its own id prefix"
    );
    assert_eq!(first.next_event(), None, "the superseded stream ends");
    server.post_in(&s.id, &call(2, "standalone", json!({}), None));
    let note = second
        .next_message()
        .expect("the notification on the newest stream");
    assert_eq!(note["method"], json!("notifications/resources/updated"));
}

#[test]
fn keep_alive_comments_flow_while_nothing_is_sent() {
    let server = fake_server(&[("MCP_SSE_KEEPALIVE", "200ms")]);
    let s = server.open_session();
    let mut stream = SseConn::get(&server, &s.id);
    stream.next_event().expect("priming");
    for _ in 0..2 {
        let e = stream.next_event().expect("keep-alive");
        assert_eq!(e.comments, vec!["keep-alive".to_string()], "{e:?}");
        assert_eq!(e.data, None);
    }
}

#[test]
fn a_sampling_request_round_trips_through_the_router() {
    let server = fake_server(&[]);
    let s = server.open_session();
    let mut conn = SseConn::post(&server, &s.id, &call(5, "sample", json!({}), None));
    assert!(conn.is_stream());
    let request = conn.next_message().expect("the sampling request");
    assert_eq!(request["method"], json!("sampling/createMessage"));
    let router_id = request["id"].as_str().expect("a string id").to_string();
    assert!(
        router_id.starts_with("gsmcp-"),
        "router id namespace: {router_id}"
    );
    let answer = json!({ "jsonrpc": "2.0", "id": router_id, "result": { "role": "assistant", "content": { "type": "text", "text": "sampled" }, "model": "m" } });
    let r = server.post_in(&s.id, &answer.to_string());
    assert_eq!(r.status, 202, "{}", r.text());
    assert!(r.body.is_empty());
    let result = conn.next_message().expect("the tool result");
    assert_eq!(result["id"], json!(5));
    let got = &result["result"]["structuredContent"];
    // The worker sees its own id again.
    assert_eq!(got["response"]["id"], got["sent_id"], "{result}");
    assert_eq!(
        got["response"]["result"]["content"]["text"],
        json!("sampled")
    );
    assert_eq!(conn.next_event(), None, "the stream ends after the result");
    // Answering again (or an unknown id) is accepted and dropped.
    let r = server.post_in(&s.id, &answer.to_string());
    assert_eq!(r.status, 202);
    let r = server.post_in(&s.id, &request_body(6, "ping", json!({})));
    assert_eq!(r.json()["result"], json!({}));
}

#[test]
fn an_unanswered_server_request_times_out_into_an_error_for_the_worker() {
    let server = fake_server(&[("MCP_CLIENT_REQUEST_TIMEOUT", "500ms")]);
    let s = server.open_session();
    let mut conn = SseConn::post(&server, &s.id, &call(7, "sample", json!({}), None));
    let request = conn.next_message().expect("the sampling request");
    assert_eq!(request["method"], json!("sampling/createMessage"));
    let result = conn.next_message().expect("the tool result");
    let response = &result["result"]["structuredContent"]["response"];
    assert_eq!(
        response["id"],
        result["result"]["structuredContent"]["sent_id"]
    );
    assert_eq!(
        response["error"]["data"]["kind"],
        json!("timeout"),
        "{result}"
    );
    // A late answer is dropped.
    let late = json!({ "jsonrpc": "2.0", "id": request["id"], "result": {} });
    assert_eq!(server.post_in(&s.id, &late.to_string()).status, 202);
}

fn refreshes(server: &Server, sid: &str, id: i64) -> u64 {
    let r = server.post_in(sid, &call(id, "refreshes", json!({}), None));
    r.json()["result"]["structuredContent"]["refreshes"]
        .as_u64()
        .unwrap_or_else(|| panic!("{}", r.text()))
}

#[test]
fn a_clean_view_too_far_behind_is_refreshed_between_calls() {
    // (MCP_MAX_COMMITS_BEHIND, commits behind reported, the session holds
    // changes, refreshes expected): a view under uncommitted changes is left
    // where it is, since moving it would let them overwrite what others
    // committed meanwhile with no conflict to say so
    let table = [
        ("20", 25, false, 1),
        ("20", 20, false, 1),
        ("20", 19, false, 0),
        ("20", 500, true, 0),
        ("none", 500, false, 0),
        ("1", 1, false, 1),
    ];
    for (max, behind, dirty, expect) in table {
        let server = fake_server(&[("MCP_MAX_COMMITS_BEHIND", max)]);
        let s = server.open_session();
        // The report arrives while the call is in flight: no refresh then.
        let args = json!({ "behind": behind, "dirty": dirty });
        let r = server.post_in(&s.id, &call(1, "view", args, None));
        assert_eq!(r.json()["id"], json!(1));
        assert_eq!(
            refreshes(&server, &s.id, 2),
            expect,
            "max {max}, behind {behind}"
        );
        // Once refreshed, nothing more until the worker reports again.
        assert_eq!(
            refreshes(&server, &s.id, 3),
            expect,
            "max {max}, behind {behind}"
        );
    }
}
