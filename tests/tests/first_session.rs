//! The README's "first five minutes" walk-through, call for call, on a
//! repository file: it must work as written.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::Http;
use util::{eval, ok};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_first_session_works_as_written() {
    let repo = gsmcp_tests::harness::scratch_path("first-session.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut s = http.open().await;
    let mut other = http.open().await;

    let st = ok(&mut s, "status", json!({})).await;
    assert_eq!(st["structuredContent"]["needsCommit"], false, "{st}");
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Greeter"}),
    )
    .await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Greeter", "source": "greet\n\t^ 'hello'"}),
    )
    .await;
    assert_eq!(eval(&mut s, "Greeter new greet").await, "'hello'");
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "GreeterTest", "superclassName": "TestCase"}),
    )
    .await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "GreeterTest",
               "source": "testGreet\n\tself assert: Greeter new greet = 'hello'"}),
    )
    .await;
    let run = ok(
        &mut s,
        "run_test_class",
        json!({"className": "GreeterTest"}),
    )
    .await;
    assert_eq!(run["structuredContent"]["summary"]["passed"], 1, "{run}");
    assert_eq!(
        eval(&mut other, "UserGlobals includesKey: #Greeter").await,
        "false"
    );
    let c = ok(&mut s, "commit", json!({"testClasses": ["GreeterTest"]})).await;
    assert_eq!(c["structuredContent"]["committed"], true, "{c}");
    ok(&mut other, "refresh", json!({})).await;
    assert_eq!(eval(&mut other, "Greeter new greet").await, "'hello'");
    ok(
        &mut s,
        "list_classes",
        json!({"dictionaryName": "UserGlobals"}),
    )
    .await;
}
