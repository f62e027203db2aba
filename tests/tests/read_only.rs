//! `MCP_READ_ONLY` end to end: the read-only server lists exactly the tools a
//! writable one annotates `readOnlyHint: true`, and refuses every other tool
//! with a tool error of kind `refused` saying how to get a writable server;
//! the read tools answer as usual.

use gsmcp_tests::Server;
use serde_json::{json, Value};

fn tools(server: &Server) -> (String, Vec<Value>) {
    let s = server.open_session();
    let r = server.post_in(
        &s.id,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
    );
    let listed = r.final_message()["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (s.id, listed)
}

fn names(tools: &[Value]) -> Vec<String> {
    let mut n: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    n.sort();
    n
}

#[test]
fn a_read_only_server_serves_only_the_tools_that_read() {
    let writable = Server::start();
    let (_, every) = tools(&writable);
    let readers: Vec<Value> = every
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .cloned()
        .collect();
    assert!(readers.len() >= 10, "{readers:?}");

    let server = Server::builder().env("MCP_READ_ONLY", "1").start();
    let (sid, listed) = tools(&server);
    assert_eq!(names(&listed), names(&readers));

    let call = |name: &str, args: Value| -> Value {
        let r = server.post_in(
            &sid,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": name, "arguments": args}})
            .to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.final_message()["result"].clone()
    };
    // every tool not listed is refused, whatever its arguments
    for tool in every.iter().filter(|t| !listed.contains(t)) {
        let name = tool["name"].as_str().unwrap();
        let r = call(name, json!({}));
        assert_eq!(r["isError"], true, "{name}: {r}");
        assert_eq!(
            r["structuredContent"]["error"]["kind"], "refused",
            "{name}: {r}"
        );
        let text = r["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains("MCP_READ_ONLY"), "{name}: {text}");
    }
    // the read tools work
    let r = call(
        "get_method_source",
        json!({"className": "Object", "selector": "yourself"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let r = call("status", json!({}));
    assert_eq!(r["isError"], false, "{r}");

    // a bad value is refused at start-up
    let exited = Server::builder()
        .env("MCP_READ_ONLY", "maybe")
        .run_to_exit();
    assert_eq!(exited.status.code(), Some(2), "{}", exited.stderr);
    assert!(exited.stderr.contains("MCP_READ_ONLY"), "{}", exited.stderr);
}
