//! End-to-end: hostile and odd input through the real router and worker ends
//! as a clear tool error while the session's worker lives on — never a
//! crash, a hang or a silent fallback. Each row is an input that once killed
//! or misled a worker, or pins a limit that keeps one from doing so.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::{worker_of, Http};
use util::{eval, fails, ok};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_code_is_an_error_and_the_worker_lives_on() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");

    // a method whose frames each hold an expression 2000 sends deep
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Hostile"}),
    )
    .await;
    let deep = format!(
        "deep: n\n\t^ n = 0 ifTrue: [0] ifFalse: [(self deep: n - 1){}]",
        " + 1".repeat(2000)
    );
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Hostile", "source": deep, "category": "deep"}),
    )
    .await;
    assert_eq!(eval(&mut s, "Hostile new deep: 2").await, "4000");

    // (code, error kind, what the message must say)
    let chain = format!("1{}", "+1".repeat(500_000));
    let parens = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    let temps: Vec<String> = (0..100_000).map(|i| format!("t{i}")).collect();
    let temps = format!("| {} | 1", temps.join(" "));
    let table: &[(&str, &str, &str)] = &[
        // overflowed the native stack compiling a 500k-deep tree
        (&chain, "compileError", "statement too large"),
        // overflowed the native stack in 5000 frames of the deep method
        ("Hostile new deep: 9000", "other", "AlmostOutOfStack"),
        (&parens, "compileError", "nested too deeply"),
        // overflowed the compiler's 16-bit slot numbers: a panic, the worker exited
        (&temps, "compileError", "too many variables"),
        ("String new: 1000000000", "other", "AlmostOutOfMemory"),
        (
            "| b | b := nil. b := [:n | b value: n + 1]. b value: 0",
            "other",
            "AlmostOutOfStack",
        ),
        ("Array new: -1", "other", "ImproperOperation"),
        ("[:x | x] value", "other", "wrong number of arguments"),
        ("3 +", "compileError", "expected an expression"),
        ("'abc", "compileError", "unterminated string"),
        ("1e99999999999", "compileError", "exponent too large"),
        // a 5 MB message text, three times over, made a reply larger than a
        // frame: the worker could not send it and the call hung until stopped
        (
            "(Error new messageText: (String new: 5000000 withAll: $e)) signal",
            "other",
            "characters dropped",
        ),
    ];
    for (code, kind, says) in table {
        let e = fails(&mut s, "execute_code", json!({ "code": code })).await;
        let label = &code[..code.len().min(40)];
        assert_eq!(e["kind"], *kind, "{label}: {e}");
        assert!(
            e.to_string().contains(says),
            "{label}: {says:?} missing from {e}"
        );
        assert_eq!(
            worker_of(server.port(), &s),
            Some(pid),
            "{label}: the worker died\n{}",
            server.log()
        );
    }
    assert_eq!(eval(&mut s, "3 + 4").await, "7");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reserved_words_never_name_variables_of_a_class() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    for (arg, name) in [
        ("instVarNames", "self"),
        ("instVarNames", "super"),
        ("classVars", "nil"),
        ("classInstVars", "thisContext"),
        ("instVarNames", "true"),
    ] {
        let e = fails(
            &mut s,
            "compile_class_definition",
            json!({"className": "Reserved", arg: [name]}),
        )
        .await;
        assert_eq!(e["kind"], "invalidParams", "{arg} {name}: {e}");
        assert!(e.to_string().contains("reserved word"), "{e}");
    }
    let e = fails(&mut s, "describe_class", json!({"className": "Reserved"})).await;
    assert_eq!(e["kind"], "notFound", "nothing was defined: {e}");
}

/// A name longer than a GemStone Symbol holds is refused before any
/// Smalltalk runs, whichever tool it is given to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_longer_than_a_symbol_are_invalid_params() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let long = "L".repeat(10_000);
    for (tool, args) in [
        ("compile_class_definition", json!({"className": long})),
        (
            "compile_class_definition",
            json!({"className": "Short", "instVarNames": [long.to_lowercase()]}),
        ),
        ("describe_class", json!({"className": long})),
        (
            "get_method_source",
            json!({"className": "Object", "selector": long}),
        ),
        ("find_implementors", json!({"selector": long})),
        ("list_classes", json!({"dictionaryName": long})),
    ] {
        let e = fails(&mut s, tool, args).await;
        assert_eq!(e["kind"], "invalidParams", "{tool}: {e}");
        assert!(e.to_string().contains("at most 1024"), "{tool}: {e}");
    }
    assert_eq!(eval(&mut s, "3 + 4").await, "7");
}

/// An answer too large to cross the worker's socket (a result cap set high,
/// every character twice in the reply) is a JSON-RPC error saying so, at
/// once; the worker lives on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_too_large_to_send_is_an_error_not_a_hang() {
    let server = Server::builder()
        .env("MCP_TOOLSET_OPTIONS", "Execution.maxResultChars=10000000")
        .start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");
    let a = s
        .call(
            "execute_code",
            json!({"code": "String new: 9000000 withAll: $a"}),
        )
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    let e = a.error();
    assert_eq!(e["code"], -32603, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .contains("a reply may carry"),
        "{e}"
    );
    assert_eq!(worker_of(server.port(), &s), Some(pid), "{}", server.log());
    assert_eq!(
        eval(&mut s, "(String new: 3000000 withAll: $a) size").await,
        "3000000"
    );
}
