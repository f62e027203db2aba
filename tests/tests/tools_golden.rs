//! Golden answers: every tool of every served toolset, called through the real
//! router and worker on a repository made by `tests/golden/tools-setup.st`,
//! answers exactly the `CallToolResult` kept beside its toolset in
//! `worker/src/tools/<toolset>/golden.json` (an array of `{tool, args,
//! result}`, run in order on one session, toolsets in [`ORDER`]). A tool the
//! server lists with no case there fails the test, so every tool has golden
//! answers. `BLESS=1` writes the answers of this run into the files (a case
//! added with only `tool` and `args` gets its answer that way).
//!
//! CI runs it on the embedded stone and again over the GCI backend: the two
//! backends must answer every tool identically. The only parts of an answer
//! that may differ from run to run (the session number `status` reports, the
//! milliseconds a test took) are masked by [`mask`] before comparing.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use util::mcp::{Http, Session};
use util::{eval, ok};

/// The toolsets in the order their cases run: reading ones first, then the
/// ones that change the repository, the transaction tools last.
const ORDER: [&str; 8] = [
    "listing",
    "browsing",
    "search",
    "testing",
    "execution",
    "refactoring",
    "mutation",
    "session",
];

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
}

fn golden_path(toolset: &str) -> PathBuf {
    workspace()
        .join("worker/src/tools")
        .join(toolset)
        .join("golden.json")
}

/// Replaces what differs between runs with a fixed mark: the repository's
/// path, the stone `status` names, the session number in `status` and the
/// time a test or a run took.
fn mask(tool: &str, repository: &str, result: Value) -> Value {
    let text = serde_json::to_string(&result).expect("json");
    let quoted = serde_json::to_string(repository).expect("json");
    let text = text.replace(&quoted[1..quoted.len() - 1], "<repository>");
    let mut result: Value = serde_json::from_str(&text).expect("json");
    // the stone's name: the repository's path here, the stone's own name over GCI
    if let Some(stone) = result["structuredContent"]["stone"]
        .as_str()
        .map(String::from)
    {
        result["structuredContent"]["stone"] = json!("<stone>");
        if let Some(text) = result["content"][0]["text"].as_str() {
            let text = text.replace(&format!("stone {stone}"), "stone <stone>");
            result["content"][0]["text"] = Value::String(text);
        }
    }
    fn walk(v: &mut Value, key: Option<&str>) {
        match v {
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    walk(item, Some(k.as_str()));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, key)),
            Value::Number(_) if matches!(key, Some("ms" | "elapsedMs" | "session")) => {
                *v = json!("<masked>");
            }
            // a refactoring's token names the session's view, which only the
            // embedded stone reports
            Value::String(_) if key == Some("token") => *v = json!("<token>"),
            _ => {}
        }
    }
    walk(&mut result, None);
    if let Some(text) = result["content"][0]["text"].as_str() {
        let masked = mask_tokens(&mask_text(tool, text));
        result["content"][0]["text"] = Value::String(masked);
    }
    result
}

/// `text` with every refactoring token (the tool's name, `.` and 16 hex
/// digits) masked.
fn mask_tokens(text: &str) -> String {
    [
        "rename_method.",
        "generate_accessors.",
        "push_up_methods.",
        "push_down_methods.",
        "add_instance_variable.",
        "remove_instance_variable.",
        "rename_instance_variable.",
        "rename_class.",
        "extract_temporary.",
        "inline_temporary.",
        "extract_method.",
        "move_method.",
        "change_method_signature.",
        "inline_method.",
    ]
    .into_iter()
    .fold(text.to_string(), |t, prefix| mask_token(&t, prefix))
}

fn mask_token(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let hex = after.chars().take_while(char::is_ascii_hexdigit).count();
        out.push_str(&rest[..at + prefix.len()]);
        if hex == 16 {
            out.push_str("<token>");
            rest = &after[hex..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// What a kept answer (the embedded stone's) is over the GCI backend, where
/// the worker cannot know how far the session's view is behind (ARCHITECTURE.md,
/// "the backend seam"): `commitsBehind` is null and `status` has no view clause.
/// Everything else must be the same.
fn as_over_gci(kept: &Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    match (k.as_str(), item) {
                        ("commitsBehind", item) => *item = Value::Null,
                        ("text", Value::String(t)) => {
                            if let Some(at) = t.find(", view ") {
                                let end = t[at..].find('\n').map_or(t.len(), |e| at + e);
                                t.replace_range(at..end, "");
                            }
                        }
                        (_, item) => walk(item),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut v = kept.clone();
    walk(&mut v);
    v
}

/// The text form of [`mask`]: a number right after `session ` (status) or
/// right before `ms` becomes `<n>`.
fn mask_text(tool: &str, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let before: String = chars[..i].iter().collect();
            let after: String = chars[i + digits..].iter().take(3).collect();
            let session = tool == "status" && before.ends_with("session ");
            let time = after.starts_with(" ms") || after.starts_with("ms");
            if session || time {
                out.push_str("<n>");
                i += digits;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The setup's sections (up to a line `%`), `!` comment lines dropped.
fn setup_sections() -> Vec<String> {
    let text = std::fs::read_to_string(workspace().join("tests/golden/tools-setup.st"))
        .expect("read tests/golden/tools-setup.st");
    let mut sections = vec![String::new()];
    for line in text.lines() {
        if line == "%" {
            sections.push(String::new());
        } else if !line.starts_with('!') {
            let current = sections.last_mut().expect("one section");
            current.push_str(line);
            current.push('\n');
        }
    }
    sections.retain(|s| !s.trim().is_empty());
    sections
}

async fn prepare(s: &mut Session) {
    for section in setup_sections() {
        assert_eq!(eval(s, &section).await, "true", "setup: {section}");
    }
    ok(s, "commit", json!({})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_its_golden_answers() {
    let gci = gsmcp_tests::harness::test_backend_is_gci();
    let bless = std::env::var_os("BLESS").is_some();
    assert!(
        !(bless && gci),
        "bless on the embedded stone: the files hold its answers"
    );
    // a repository file, so that the transaction tools and the `[session]`
    // line have real state to report
    let repository = gsmcp_tests::harness::scratch_path("golden.repository");
    let server = Server::builder()
        .env("MCP_TOOLSETS", ORDER.join(" "))
        .env("MCP_REPOSITORY", &repository)
        // the embedded stone's default login for a repository file; said
        // explicitly so that the GCI backend logs in as the same user
        .env("MCP_WORKER_USER", "Developer")
        .env("MCP_WORKER_PASSWORD", "swordfish")
        .start();
    let repository = repository.to_str().expect("a UTF-8 path");
    let mut s = Http::new(&server.url).open().await;
    prepare(&mut s).await;

    let listed = s.request("tools/list", json!({})).await;
    let mut untested: Vec<String> = listed.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    let mut differences = Vec::new();
    for toolset in ORDER {
        let path = golden_path(toolset);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut cases: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, case) in cases.iter_mut().enumerate() {
            let tool = case["tool"]
                .as_str()
                .expect("a case names its tool")
                .to_string();
            let args = case.get("args").cloned().unwrap_or(json!({}));
            untested.retain(|t| *t != tool);
            let answer = s.call(&tool, args.clone()).await;
            assert_eq!(answer.status, 200, "{tool} {args}: {answer:?}");
            let result = mask(&tool, repository, answer.result().clone());
            let expected = match gci {
                true => as_over_gci(&case["result"]),
                false => case["result"].clone(),
            };
            if bless {
                case["result"] = result;
            } else if expected != result {
                differences.push(format!(
                    "{toolset}/golden.json case {n} ({tool} {args}):\n  kept:     {}\n  answered: {}",
                    expected, result
                ));
            }
        }
        if bless {
            let pretty = serde_json::to_string_pretty(&cases).expect("json") + "\n";
            std::fs::write(&path, pretty).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
    assert!(
        differences.is_empty(),
        "{} answers differ from the golden ones (BLESS=1 rewrites them after a deliberate \
         change):\n{}",
        differences.len(),
        differences.join("\n")
    );
    assert!(
        untested.is_empty(),
        "tools with no golden case: {untested:?}"
    );
}

#[test]
fn masking_hides_only_what_varies() {
    // (tool, text, masked)
    let table = [
        (
            "status",
            "user DataCurator, session 12, stone gs",
            "user DataCurator, session <n>, stone gs",
        ),
        ("run_test_class", "3 run in 15 ms", "3 run in <n> ms"),
        (
            "run_test_class",
            "took 7ms; 12 passed",
            "took <n>ms; 12 passed",
        ),
        ("execute_code", "session 12", "session 12"),
        ("status", "a12 ms", "a12 ms"),
    ];
    for (tool, text, expected) in table {
        assert_eq!(mask_text(tool, text), expected, "{tool}: {text}");
    }
    let masked = mask(
        "status",
        "/tmp/x \"y\".repository",
        json!({"structuredContent": {"session": 3, "user": "u", "stone": "/tmp/x \"y\".repository"}}),
    );
    assert_eq!(
        masked["structuredContent"],
        json!({"session": "<masked>", "user": "u", "stone": "<stone>"})
    );
    let kept = json!({
        "content": [
            {"text": "user u, stone <stone>, no uncommitted changes, view 1 commit behind (abort or commit to move it)"},
            {"text": "[session] x"}
        ],
        "structuredContent": {"commitsBehind": 1, "stone": "<stone>"}
    });
    assert_eq!(
        as_over_gci(&kept),
        json!({
            "content": [{"text": "user u, stone <stone>, no uncommitted changes"}, {"text": "[session] x"}],
            "structuredContent": {"commitsBehind": null, "stone": "<stone>"}
        })
    );
}
