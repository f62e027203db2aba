//! End-to-end: the real rmcp Streamable HTTP client against the real `gsmcp`
//! router and its worker processes on the embedded stone. initialize →
//! tools/list → tools/call → status → DELETE, and tool errors as results.

#[path = "../src/mcp.rs"]
mod mcp;

use gsmcp_tests::Server;
use mcp::{eventually, worker_of, Http};
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Map, Value};
use std::time::Duration;

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("arguments are an object")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rmcp_client_initializes_lists_and_calls() {
    let server = Server::start();
    let client = mcp::rmcp_client(&server.url).await;

    let info = client.peer_info().expect("the server answered initialize");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("gsmcp")
    );
    assert_eq!(info.protocol_version.to_string(), "2025-11-25");
    assert!(info.capabilities.tools.is_some());
    let instructions = info.instructions.clone().expect("instructions");
    assert!(instructions.contains("commit"), "{instructions}");

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"execute_code") && names.contains(&"status"),
        "{names:?}"
    );
    for t in &tools {
        assert_eq!(
            t.input_schema.get("additionalProperties"),
            Some(&json!(false)),
            "{}",
            t.name
        );
    }

    let r = client
        .call_tool(
            CallToolRequestParams::new("execute_code")
                .with_arguments(args(json!({"code": "3 + 4"}))),
        )
        .await
        .expect("tools/call execute_code");
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("7"));
    assert_eq!(
        r.structured_content.as_ref().map(|s| &s["result"]),
        Some(&json!("7"))
    );

    let r = client
        .call_tool(CallToolRequestParams::new("status"))
        .await
        .expect("tools/call status");
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.expect("status is structured");
    assert_eq!(s["user"], "DataCurator");
    assert_eq!(s["needsCommit"], false);
    assert!(s["session"].is_u64(), "{s}");

    // Closing the client ends the session (DELETE): its worker goes away.
    client.cancel().await.expect("close the client");
    let port = server.port();
    assert!(
        eventually(Duration::from_secs(10), || mcp::workers_of(port).is_empty()).await,
        "the session's worker outlived its DELETE: {:?}",
        mcp::workers_of(port)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_failures_are_results_with_kinds() {
    let server = Server::start();
    let client = mcp::rmcp_client(&server.url).await;
    // (arguments of execute_code, expected kind, a field that must be present)
    let table = [
        (json!({"code": "1/0"}), "other", "number"),
        (json!({"code": "3 +"}), "compileError", "offset"),
        (json!({"code": "nil foo"}), "other", "class"),
        (json!({}), "invalidParams", "message"),
        (json!({"code": 34}), "invalidParams", "message"),
        (json!({"code": "1", "x": 1}), "invalidParams", "message"),
    ];
    for (a, kind, field) in table {
        let r = client
            .call_tool(CallToolRequestParams::new("execute_code").with_arguments(args(a.clone())))
            .await
            .unwrap_or_else(|e| panic!("{a}: tool failures are results, not protocol errors: {e}"));
        assert_eq!(r.is_error, Some(true), "{a}: {r:?}");
        let s = r
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("{a}: no structuredContent"));
        assert_eq!(s["error"]["kind"], kind, "{a}: {s}");
        assert!(
            !s["error"][field].is_null(),
            "{a}: error lacks {field}: {s}"
        );
        assert!(
            r.content[0].as_text().is_some_and(|t| !t.text.is_empty()),
            "{a}: no text"
        );
    }
    let zd = client
        .call_tool(
            CallToolRequestParams::new("execute_code").with_arguments(args(json!({"code": "1/0"}))),
        )
        .await
        .unwrap();
    let s = zd.structured_content.unwrap();
    assert_eq!(
        (s["error"]["number"].as_u64(), s["error"]["class"].as_str()),
        (Some(2026), Some("ZeroDivide")),
        "{s}"
    );

    // An unknown tool is a protocol error (-32602), and the session goes on.
    let err = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .expect_err("unknown tool");
    assert!(
        err.to_string().contains("-32602") || err.to_string().contains("no_such_tool"),
        "{err}"
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("execute_code")
                .with_arguments(args(json!({"code": "3 + 4"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_session_lifecycle_ends_with_404_and_no_worker() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut s = http.open().await;
    assert_eq!(s.init["protocolVersion"], "2025-11-25");
    assert_eq!(
        s.init["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {},
               "prompts": {"listChanged": false}, "completions": {},
               "resources": {"subscribe": true, "listChanged": false}})
    );
    let pid = worker_of(server.port(), &s).expect("a worker runs for the session");

    let a = s.request("ping", json!({})).await;
    assert_eq!((a.status, a.result()), (200, &json!({})));
    let a = s.request("tools/list", json!({"cursor": "x"})).await;
    assert_eq!(a.error()["code"], -32602, "{a:?}");
    let a = s.request("no/such", json!({})).await;
    assert_eq!(a.error()["code"], -32601, "{a:?}");
    let r = s.execute("3 + 4").await;
    assert_eq!(r["content"][0]["text"], "7", "{r}");

    let d = s.delete().await;
    assert!(d.status == 200 || d.status == 204, "DELETE: {d:?}");
    let a = s.request("ping", json!({})).await;
    assert_eq!(a.status, 404, "after DELETE: {a:?}");
    assert!(
        eventually(Duration::from_secs(10), || !mcp::is_alive(pid)).await,
        "worker {pid} outlived its session"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_interrupts_the_running_call() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut s = http.open().await;
    let pid = worker_of(server.port(), &s).expect("worker");

    // The next request id the session will use is s.next + 1.
    let id = s.next + 1;
    let mut caller = s.clone();
    let running = tokio::spawn(async move {
        caller
            .call("execute_code", json!({"code": "[true] whileTrue"}))
            .await
    });
    assert!(
        mcp::wait_until_busy(pid).await,
        "the worker never started evaluating"
    );
    s.next = id;

    let n = http
        .post(
            Some(&s.id),
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}}),
        )
        .await;
    assert_eq!(n.status, 202, "{n:?}");
    // MCP: a cancelled request gets no response; the router closes its POST with
    // 202 and no body once the worker has stopped the evaluation.
    let a = running.await.unwrap();
    assert_eq!(a.status, 202, "{a:?}");
    assert!(
        a.message.is_none(),
        "a cancelled request gets no response: {a:?}"
    );

    // The same worker goes on serving the session.
    let r = s.execute("3 + 4").await;
    assert_eq!(r["content"][0]["text"], "7", "{r}");
    assert_eq!(worker_of(server.port(), &s), Some(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_of_a_repository_see_each_others_commits_only() {
    let repo = gsmcp_tests::harness::scratch_path("repo.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;
    assert!(repo.exists(), "the first login creates the repository");

    let r = a.execute("UserGlobals at: #Shared put: 'from A'").await;
    assert_eq!(r["content"][0]["text"], "'from A'", "{r}");
    let s = a.call("status", json!({})).await;
    assert_eq!(
        s.result()["structuredContent"]["needsCommit"],
        true,
        "{s:?}"
    );
    let r = b.execute("UserGlobals at: #Shared ifAbsent: [nil]").await;
    assert_eq!(
        r["content"][0]["text"], "nil",
        "uncommitted work is private: {r}"
    );

    // only the commit tool commits: the embedded stone refuses a commit from
    // code (a GemStone stone over GCI has no such switch and commits)
    let r = a.execute("System commitTransaction").await;
    assert_eq!(r["isError"], !gsmcp_tests::test_backend_is_gci(), "{r}");
    let r = a.call("commit", json!({})).await;
    assert_eq!(r.result()["structuredContent"]["committed"], true, "{r:?}");
    let r = b
        .execute("System abortTransaction. UserGlobals at: #Shared ifAbsent: [nil]")
        .await;
    assert_eq!(r["content"][0]["text"], "'from A'", "{r}");
}
