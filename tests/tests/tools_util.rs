//! Shared helpers of the `tools_*` end-to-end tests (included by each with
//! `#[path]`): calling a tool over the real router and reading its result.
//! Compiled alone it is an empty test crate.

#![allow(dead_code)]

#[path = "../src/mcp.rs"]
pub mod mcp;

use serde_json::Value;

/// A tool's `CallToolResult` on success (`isError: false`), or a panic naming it.
pub async fn ok(s: &mut mcp::Session, tool: &str, args: Value) -> Value {
    let a = s.call(tool, args.clone()).await;
    assert_eq!(a.status, 200, "{tool} {args}: {a:?}");
    let r = a.result().clone();
    assert_eq!(r["isError"], false, "{tool} {args} failed: {r}");
    r
}

/// A tool's failure: answers `structuredContent.error` (kind, message, ...).
pub async fn fails(s: &mut mcp::Session, tool: &str, args: Value) -> Value {
    let a = s.call(tool, args.clone()).await;
    assert_eq!(a.status, 200, "{tool} {args}: {a:?}");
    let r = a.result().clone();
    assert_eq!(r["isError"], true, "{tool} {args} should fail: {r}");
    r["structuredContent"]["error"].clone()
}

/// A method's source as `get_method_source` answers it.
pub async fn source(s: &mut mcp::Session, class: &str, selector: &str) -> String {
    let r = ok(
        s,
        "get_method_source",
        serde_json::json!({"className": class, "selector": selector}),
    )
    .await;
    r["structuredContent"]["source"]
        .as_str()
        .unwrap_or_else(|| panic!("{class}>>{selector}: {r}"))
        .to_string()
}

/// A refactoring previewed with `args`, then applied with the preview's
/// token: answers both results.
pub async fn preview_and_apply(s: &mut mcp::Session, tool: &str, args: Value) -> (Value, Value) {
    let preview = ok(s, tool, args.clone()).await;
    assert_eq!(preview["structuredContent"]["dryRun"], true, "{preview}");
    let mut apply = args;
    apply["dryRun"] = Value::Bool(false);
    apply["token"] = preview["structuredContent"]["token"].clone();
    let applied = ok(s, tool, apply).await;
    assert_eq!(applied["structuredContent"]["applied"], true, "{applied}");
    (preview, applied)
}

/// Runs `class>>selector` with `run_test_method` and checks that it passed.
pub async fn test_method_passes(s: &mut mcp::Session, class: &str, selector: &str) {
    let run = ok(
        s,
        "run_test_method",
        serde_json::json!({"className": class, "selector": selector}),
    )
    .await;
    assert_eq!(
        run["structuredContent"]["result"]["outcome"], "passed",
        "{class}>>{selector}: {run}"
    );
}

/// The text of a result's first content item.
pub fn text(r: &Value) -> &str {
    r["content"][0]["text"].as_str().unwrap_or("")
}

/// The text of every content item of a result, joined by newlines.
pub fn all_text(r: &Value) -> String {
    r["content"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Evaluates `code` with execute_code and answers the printString.
pub async fn eval(s: &mut mcp::Session, code: &str) -> String {
    let r = s.execute(code).await;
    assert_eq!(r["isError"], false, "{code}: {r}");
    text(&r).to_string()
}

/// Text that breaks naive quoting: quotes, `%`, newlines, backslashes,
/// non-ASCII and an astral character.
pub const NASTY: &str = "it's \"q\" 100% a\\b\nline2 ünï 😀 {{x}}";
