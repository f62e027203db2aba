//! End-to-end properties of the tool registry over `tools/list` on the real
//! router and worker: every schema is closed and lists its required
//! arguments, every tool has a title, a description and annotations, the
//! served names are exactly the contract's for the served toolsets, and a
//! router serving one toolset exposes only its tools.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use util::mcp::Http;

/// One tool of the contract: its name, its required arguments, whether it
/// only reads.
type Contract = (&'static str, &'static [&'static str], bool);

/// The contract: each toolset delivered so far and its tools (with their
/// required arguments), and which of them only read.
const TOOLSETS: &[(&str, &[Contract])] = &[
    ("Execution", &[("execute_code", &["code"], false)]),
    (
        "Session",
        &[
            ("abort", &[], false),
            ("commit", &[], false),
            ("refresh", &[], false),
            ("status", &[], true),
        ],
    ),
    (
        "Listing",
        &[
            ("list_all_classes", &[], true),
            ("list_classes", &["dictionaryName"], true),
            ("list_dictionaries", &[], true),
            ("list_dictionary_entries", &["dictionaryName"], true),
        ],
    ),
    (
        "Browsing",
        &[
            ("describe_class", &["className"], true),
            ("export_class_source", &["className"], true),
            ("get_class_definition", &["className"], true),
            ("get_class_hierarchy", &["className"], true),
            ("get_method_source", &["className", "selector"], true),
            ("list_methods", &["className"], true),
        ],
    ),
    (
        "Search",
        &[
            ("find_implementors", &["selector"], true),
            ("find_references_to", &["name"], true),
            ("find_senders", &["selector"], true),
            ("search_method_source", &["pattern"], true),
        ],
    ),
    (
        "Mutation",
        &[
            ("add_dictionary", &["dictionaryName"], false),
            ("compile_class_definition", &["className"], false),
            ("compile_method", &["className", "source"], false),
            ("delete_class", &["className"], false),
            ("delete_method", &["className", "selector"], false),
            ("file_in", &["source"], false),
            ("format_source", &["source"], true),
            ("remove_dictionary", &["dictionaryName"], false),
            ("set_class_comment", &["className", "comment"], false),
        ],
    ),
    (
        "Refactoring",
        &[
            ("rename_method", &["selector", "newSelector"], false),
            (
                "change_method_signature",
                &["selector", "newSelector"],
                false,
            ),
            ("generate_accessors", &["className"], false),
            ("push_up_methods", &["className", "selectors"], false),
            ("push_down_methods", &["className", "selectors"], false),
            (
                "move_method",
                &["className", "selector", "targetClassName"],
                false,
            ),
            ("add_instance_variable", &["className", "name"], false),
            ("remove_instance_variable", &["className", "name"], false),
            (
                "rename_instance_variable",
                &["className", "name", "newName"],
                false,
            ),
            ("rename_class", &["className", "newName"], false),
            (
                "extract_temporary",
                &["className", "selector", "start", "stop", "newName"],
                false,
            ),
            (
                "inline_temporary",
                &["className", "selector", "name"],
                false,
            ),
            (
                "extract_method",
                &["className", "selector", "start", "stop", "newSelector"],
                false,
            ),
            (
                "inline_method",
                &["className", "selector", "start", "stop"],
                false,
            ),
        ],
    ),
    (
        "Testing",
        &[
            ("list_test_classes", &[], true),
            ("run_test_class", &["className"], false),
            ("run_test_method", &["className", "selector"], false),
            ("list_failing_tests", &[], false),
            ("describe_test_failure", &["className", "selector"], false),
        ],
    ),
];

async fn listed(server: &Server) -> Vec<Value> {
    let mut s = Http::new(&server.url).open().await;
    let a = s.request("tools/list", json!({})).await;
    a.result()["tools"].as_array().expect("tools").clone()
}

fn check_tool(t: &Value, required: &[&str], read_only: bool) {
    let name = t["name"].as_str().unwrap_or_default();
    for field in ["title", "description"] {
        assert!(
            t[field].as_str().is_some_and(|s| !s.trim().is_empty()),
            "{name} lacks a {field}"
        );
    }
    let schema = &t["inputSchema"];
    assert_eq!(schema["type"], "object", "{name}");
    assert_eq!(
        schema["additionalProperties"], false,
        "{name}: schema not closed"
    );
    let declared: BTreeSet<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        declared,
        required.iter().copied().collect(),
        "{name}: required"
    );
    for (arg, prop) in schema["properties"].as_object().expect("properties") {
        assert!(
            prop["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}.{arg} lacks a description"
        );
        if arg == "limit" || arg == "offset" {
            assert_eq!(prop["type"], "integer", "{name}.{arg}");
        }
    }
    let ann = &t["annotations"];
    assert_eq!(ann["readOnlyHint"], read_only, "{name}: readOnlyHint");
    assert_eq!(ann["openWorldHint"], false, "{name}");
    assert!(
        ann["destructiveHint"].is_boolean() && ann["idempotentHint"].is_boolean(),
        "{name}"
    );
    if read_only {
        assert_eq!(ann["destructiveHint"], false, "{name}");
    }
    if name == "abort" || name.starts_with("delete_") || name.starts_with("remove_") {
        assert_eq!(ann["destructiveHint"], true, "{name} discards work");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_router_serves_every_delivered_tool_well_formed() {
    let server = Server::start();
    let tools = listed(&server).await;
    let names: BTreeSet<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), tools.len(), "duplicate names");
    let contract: BTreeSet<&str> = TOOLSETS
        .iter()
        .flat_map(|(_, tools)| tools.iter().map(|t| t.0))
        .collect();
    assert_eq!(names, contract);
    for (_, set) in TOOLSETS {
        for (name, required, read_only) in *set {
            let t = tools.iter().find(|t| t["name"] == *name).expect("listed");
            check_tool(t, required, *read_only);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_router_serving_one_toolset_exposes_only_its_tools() {
    for (set, expected) in TOOLSETS {
        let server = Server::builder().env("MCP_TOOLSETS", set).start();
        let tools = listed(&server).await;
        let names: BTreeSet<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let wanted: BTreeSet<&str> = expected.iter().map(|t| t.0).collect();
        assert_eq!(names, wanted, "MCP_TOOLSETS={set}");
        // A tool of another toolset is unknown here: JSON-RPC -32602.
        let other = TOOLSETS
            .iter()
            .find(|(s, _)| s != set)
            .map(|(_, t)| t[0].0)
            .expect("another toolset");
        let mut s = Http::new(&server.url).open().await;
        let a = s.call(other, json!({})).await;
        assert_eq!(a.error()["code"], -32602, "{set} serving {other}: {a:?}");
    }
}
