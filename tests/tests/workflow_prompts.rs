//! The Workflow toolset's prompts end to end: served by default and listed,
//! rendered with their arguments, an argument that is not a name refused as
//! invalid params, and gone (with the prompts capability) when a deployment
//! leaves the toolset out.

use gsmcp_tests::Server;
use serde_json::{json, Value};

fn rpc(server: &Server, sid: &str, method: &str, params: Value) -> Value {
    let r = server.post_in(
        sid,
        &json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.final_message()
}

#[test]
fn the_workflow_prompts_are_served_by_default() {
    let server = Server::start();
    let s = server.open_session();
    assert!(
        s.init["result"]["capabilities"]["prompts"].is_object(),
        "{}",
        s.init
    );
    let listed = rpc(&server, &s.id, "prompts/list", json!({}));
    let names: Vec<&str> = listed["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "gemstone-tdd",
            "gemstone-safe-refactor",
            "gemstone-transaction-hygiene",
            "gemstone-explore"
        ]
    );
    let got = rpc(
        &server,
        &s.id,
        "prompts/get",
        json!({"name": "gemstone-safe-refactor",
               "arguments": {"className": "BankAccount", "selector": "deposit:"}}),
    );
    let text = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("BankAccount>>#deposit:") && text.contains("find_senders"),
        "{text}"
    );
    let refused = rpc(
        &server,
        &s.id,
        "prompts/get",
        json!({"name": "gemstone-tdd", "arguments": {"className": "X'. Smalltalk at: #Y"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let missing = rpc(
        &server,
        &s.id,
        "prompts/get",
        json!({"name": "gemstone-tdd"}),
    );
    assert_eq!(missing["error"]["code"], -32602, "{missing}");

    let without = Server::builder()
        .env("MCP_TOOLSETS", "Browsing,Session")
        .start();
    let s = without.open_session();
    assert!(
        s.init["result"]["capabilities"].get("prompts").is_none(),
        "{}",
        s.init
    );
}
