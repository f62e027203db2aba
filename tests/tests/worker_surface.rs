//! End-to-end: the worker's side of the MCP surface through the real router and
//! the real worker. Progress and log notifications arrive on the call's event
//! stream before its result; a tool's sampling request reaches the client and
//! the client's answer reaches the tool; view hygiene moves a session's view
//! and the next tool result says so; prompts, resources and completions are
//! served (and declared) only with the Conformance toolset.

use gsmcp_tests::harness::scratch_path;
use gsmcp_tests::{request_body, Server, SseConn};
use serde_json::{json, Value};

const WITH_FIXTURES: &str = "Execution,Session,Conformance";

fn fixtures_server() -> Server {
    Server::builder().env("MCP_TOOLSETS", WITH_FIXTURES).start()
}

/// `initialize` declaring `capabilities`, then `initialized`; answers the
/// session id and the initialize result.
fn open(server: &Server, capabilities: Value) -> (String, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "worker-surface", "version": "1"}}});
    let r = server.post(&body.to_string(), &[]);
    assert_eq!(r.status, 200, "initialize: {}\n{}", r.text(), server.log());
    let sid = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let init = r.json();
    let n = server.post_in(
        &sid,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(n.status, 202);
    (sid, init["result"].clone())
}

/// Every message on a call's stream up to and including its response.
fn until_response(stream: &mut SseConn) -> (Vec<Value>, Value) {
    let mut before = Vec::new();
    loop {
        let m = stream
            .next_message()
            .expect("the stream ended before the response");
        if m.get("method").is_none() && m.get("id").is_some() {
            return (before, m);
        }
        before.push(m);
    }
}

#[test]
fn progress_and_logs_arrive_before_the_result_on_the_call_stream() {
    let server = fixtures_server();
    let (sid, init) = open(&server, json!({}));
    assert!(init["capabilities"]["logging"].is_object(), "{init}");

    let call = request_body(
        2,
        "tools/call",
        json!({"name": "test_tool_with_progress",
        "arguments": {}, "_meta": {"progressToken": "p-7"}}),
    );
    let mut stream = SseConn::post(&server, &sid, &call);
    assert!(
        stream.is_stream(),
        "a call with notifications is answered as a stream"
    );
    let (before, response) = until_response(&mut stream);
    let progress: Vec<f64> = before
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            assert_eq!(m["params"]["progressToken"], "p-7", "{m}");
            assert_eq!(m["params"]["total"], 100.0, "{m}");
            m["params"]["progress"].as_f64().expect("a progress number")
        })
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert_eq!(response["id"], 2);
    assert_eq!(response["result"]["isError"], false, "{response}");

    let call = request_body(
        3,
        "tools/call",
        json!({"name": "test_tool_with_logging", "arguments": {}}),
    );
    let mut stream = SseConn::post(&server, &sid, &call);
    let (before, response) = until_response(&mut stream);
    assert_eq!(before.len(), 3, "{before:?}");
    for m in &before {
        assert_eq!(m["method"], "notifications/message", "{m}");
        assert_eq!(m["params"]["level"], "info", "{m}");
        assert!(
            m["params"]["data"].as_str().is_some_and(|d| !d.is_empty()),
            "{m}"
        );
    }
    assert_eq!(response["id"], 3);

    // execute_code reports its start and end to a client that asks.
    let call = request_body(
        4,
        "tools/call",
        json!({"name": "execute_code",
        "arguments": {"code": "6 * 7"}, "_meta": {"progressToken": 9}}),
    );
    let mut stream = SseConn::post(&server, &sid, &call);
    let (before, response) = until_response(&mut stream);
    let tokens: Vec<&Value> = before
        .iter()
        .map(|m| &m["params"]["progressToken"])
        .collect();
    assert_eq!(tokens, [&json!(9), &json!(9)], "{before:?}");
    assert_eq!(
        response["result"]["structuredContent"]["result"], "42",
        "{response}"
    );
}

#[test]
fn a_tool_asks_the_client_and_uses_its_answer() {
    let server = fixtures_server();
    let (sid, _) = open(&server, json!({"sampling": {}}));
    let call = request_body(
        2,
        "tools/call",
        json!({"name": "test_sampling",
        "arguments": {"prompt": "Name a prime."}}),
    );
    let mut stream = SseConn::post(&server, &sid, &call);
    let request = stream.next_message().expect("the server's request");
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert_eq!(
        request["params"]["messages"][0]["content"]["text"],
        "Name a prime."
    );
    let id = request["id"].clone();
    assert!(id.is_string() || id.is_number(), "{request}");
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"role": "assistant",
        "model": "test-model", "content": {"type": "text", "text": "Thirteen."}}});
    let r = server.post_in(&sid, &answer.to_string());
    assert_eq!(r.status, 202, "{}", r.text());
    let (_, response) = until_response(&mut stream);
    assert_eq!(response["id"], 2);
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Thirteen."), "{response}");

    // A client that did not declare elicitation is never asked.
    let r = server.post_in(
        &sid,
        &request_body(
            3,
            "tools/call",
            json!({"name": "test_elicitation", "arguments": {"message": "Who?"}}),
        ),
    );
    let v = single_answer(r);
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["kind"], "refused",
        "{v}"
    );
}

/// The one JSON-RPC message of a POST answer, whether sent as JSON or as a stream.
fn single_answer(r: gsmcp_tests::HttpResponse) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    r.final_message()
}

fn call(server: &Server, sid: &str, id: i64, tool: &str, args: Value) -> Value {
    let r = server.post_in(
        sid,
        &request_body(id, "tools/call", json!({"name": tool, "arguments": args})),
    );
    let v = single_answer(r);
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{tool}: {v}"))
}

#[test]
fn a_view_moved_between_calls_is_mentioned_in_the_next_result() {
    let repo = scratch_path("surface-repo.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_MAX_COMMITS_BEHIND", "1")
        .start();
    let (a, _) = open(&server, json!({}));
    let (b, _) = open(&server, json!({}));
    assert_eq!(
        call(&server, &b, 2, "execute_code", json!({"code": "1"}))["content"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    call(
        &server,
        &a,
        2,
        "execute_code",
        json!({"code": "UserGlobals at: #SurfaceMark put: 5"}),
    );
    let r = call(&server, &a, 2, "commit", json!({}));
    assert_eq!(r["structuredContent"]["committed"], true, "{r}");
    if gsmcp_tests::test_backend_is_gci() {
        // over GCI a worker does not know how far its view is behind, so the
        // router has nothing to act on: the view moves only by the client
        return;
    }
    // B's next call learns it is one commit behind; the router refreshes B
    // between calls, and B's following result carries the note.
    call(&server, &b, 3, "status", json!({}));
    let mut note = None;
    for id in 4..40 {
        let r = call(
            &server,
            &b,
            id,
            "execute_code",
            json!({"code": "UserGlobals at: #SurfaceMark ifAbsent: [0]"}),
        );
        if let Some(text) = r["content"].get(1).and_then(|c| c["text"].as_str()) {
            assert_eq!(r["structuredContent"]["result"], "5", "{r}");
            note = Some(text.to_string());
            break;
        }
    }
    let note = note.unwrap_or_else(|| panic!("no note about the moved view\n{}", server.log()));
    assert!(
        note.contains("moved forward") && note.contains("1 commit "),
        "{note}"
    );
}

#[test]
fn a_call_that_pins_a_view_while_others_commit_is_interrupted() {
    if gsmcp_tests::test_backend_is_gci() {
        // a GemStone stone keeps its own commit-record backlog rules; over GCI
        // the worker reports no lag and the router leaves running calls alone
        return;
    }
    let repo = scratch_path("pinned-repo.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_MAX_COMMITS_BEHIND", "2")
        .env("MCP_PINNED_VIEW_GRACE", "1s")
        .env("MCP_BREAK_GRACE", "1s")
        .start();
    let (a, _) = open(&server, json!({}));
    let (b, _) = open(&server, json!({}));
    std::thread::scope(|scope| {
        let long = scope.spawn(|| {
            let started = std::time::Instant::now();
            let body = request_body(
                2,
                "tools/call",
                json!({"name": "execute_code", "arguments": {"code": "[true] whileTrue: []"}}),
            );
            (single_answer(server.post_in(&a, &body)), started.elapsed())
        });
        // other sessions commit while A's call runs on its old view
        for i in 0..3 {
            let code = format!("UserGlobals at: #PinnedMark put: {i}");
            call(
                &server,
                &b,
                10 + 2 * i,
                "execute_code",
                json!({ "code": code }),
            );
            let r = call(&server, &b, 11 + 2 * i, "commit", json!({}));
            assert_eq!(r["structuredContent"]["committed"], true, "{r}");
        }
        let (answer, took) = long.join().unwrap();
        let data = &answer["error"]["data"];
        assert_eq!(data["kind"], "pinnedView", "{answer}");
        assert!(
            data["commitsBehind"].as_u64().is_some_and(|n| n >= 2),
            "{answer}"
        );
        assert!(
            took < std::time::Duration::from_secs(60),
            "interrupted after {took:?}"
        );
    });
    // the session goes on, and its view moves forward once nothing holds it
    let r = call(&server, &a, 20, "execute_code", json!({"code": "3 + 4"}));
    assert_eq!(r["structuredContent"]["result"], "7", "{r}");
}

#[test]
fn prompts_resources_and_completion_are_served_with_the_fixtures() {
    let server = fixtures_server();
    let (sid, init) = open(&server, json!({}));
    let caps = &init["capabilities"];
    assert!(
        caps["prompts"].is_object() && caps["completions"].is_object(),
        "{caps}"
    );
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");
    // (method, params, pointer, expected)
    let table = [
        (
            "resources/read",
            json!({"uri": "test://static-text"}),
            "/result/contents/0/uri",
            json!("test://static-text"),
        ),
        (
            "resources/read",
            json!({"uri": "test://nowhere"}),
            "/error/code",
            json!(-32002),
        ),
        (
            "resources/subscribe",
            json!({"uri": "test://watched-resource"}),
            "/result",
            json!({}),
        ),
        (
            "prompts/get",
            json!({"name": "test_prompt_with_image"}),
            "/result/messages/0/content/type",
            json!("image"),
        ),
        (
            "prompts/get",
            json!({"name": "no_such_prompt"}),
            "/error/code",
            json!(-32602),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "tes"}}),
            "/result/completion/values/0",
            json!("test"),
        ),
    ];
    for (i, (method, params, pointer, expected)) in table.into_iter().enumerate() {
        let v = single_answer(
            server.post_in(&sid, &request_body(10 + i as i64, method, params.clone())),
        );
        assert_eq!(
            v.pointer(pointer),
            Some(&expected),
            "{method} {params}: {v}"
        );
    }

    // Without the toolset none of its fixtures is declared or served (the
    // prompts a default server lists are the Workflow toolset's).
    let plain = Server::start();
    let (sid, init) = open(&plain, json!({}));
    assert_eq!(
        init["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false}),
        "the Browsing toolset's resources: {init}"
    );
    let v = single_answer(plain.post_in(&sid, &request_body(3, "prompts/list", json!({}))));
    let prompts = v["result"]["prompts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !prompts.is_empty()
            && prompts
                .iter()
                .all(|p| p["name"].as_str().unwrap().starts_with("gemstone-")),
        "{v}"
    );
    let v = single_answer(plain.post_in(&sid, &request_body(2, "resources/list", json!({}))));
    assert_eq!(v["result"]["resources"], json!([]), "no fixtures: {v}");
    let v = single_answer(plain.post_in(
        &sid,
        &request_body(4, "resources/read", json!({"uri": "test://static-text"})),
    ));
    assert_eq!(v["error"]["code"], -32002, "{v}");
    // a server without Browsing serves no resources at all
    let bare = Server::builder().env("MCP_TOOLSETS", "Execution").start();
    let (sid, init) = open(&bare, json!({}));
    assert!(init["capabilities"].get("resources").is_none(), "{init}");
    let v = single_answer(bare.post_in(&sid, &request_body(2, "resources/list", json!({}))));
    assert_eq!(v["error"]["code"], -32601, "{v}");
}

#[test]
fn a_cancelled_call_stops_waiting_for_the_client() {
    // Neither the router's deadline for the client's answer nor its break
    // escalation may be what ends the call: the cancel itself must.
    let server = Server::builder()
        .env("MCP_TOOLSETS", WITH_FIXTURES)
        .env("MCP_CLIENT_REQUEST_TIMEOUT", "10m")
        .env("MCP_BREAK_GRACE", "10m")
        .start();
    let (sid, _) = open(&server, json!({"sampling": {}}));
    let call = request_body(
        2,
        "tools/call",
        json!({"name": "test_sampling", "arguments": {"prompt": "never answered"}}),
    );
    let mut stream = SseConn::post(&server, &sid, &call);
    let request = stream.next_message().expect("the server's request");
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "changed my mind"}});
    assert_eq!(server.post_in(&sid, &cancel.to_string()).status, 202);
    // The session's next request is served: the cancelled call let go of the
    // worker without waiting for the client's answer.
    let v = single_answer(server.post_in(&sid, &request_body(3, "ping", json!({}))));
    assert_eq!(v["result"], json!({}), "{v}");
    let late: Vec<Value> = stream.rest().iter().filter_map(|e| e.json()).collect();
    assert!(
        !late.iter().any(|m| m["result"]["isError"] == false),
        "a cancelled call must not answer as if it succeeded: {late:?}"
    );
}
