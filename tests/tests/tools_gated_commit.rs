//! End-to-end: `commit` gated on tests. Red tests refuse the commit and list
//! what failed, nothing is committed (a second session cannot see the work),
//! the transaction stays as it was; once the code is fixed the same gate
//! commits and reports the tests it ran. A gate that selects nothing refuses,
//! and test code cannot commit on the gate's behalf.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::Http;
use util::{all_text, eval, fails, ok};

const DEFINE: &str = "Object subclass: 'GateCalc' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    TestCase subclass: 'GateCalcTest' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gated_commit_commits_only_green_code() {
    let repo = gsmcp_tests::harness::scratch_path("gated-commit.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    assert_eq!(eval(&mut a, DEFINE).await, "true");
    let compile = |class: &'static str, source: &'static str| json!({"className": class, "source": source, "category": "gate"});
    ok(
        &mut a,
        "compile_method",
        compile("GateCalc", "answer\n\t^ 41"),
    )
    .await;
    ok(
        &mut a,
        "compile_method",
        compile(
            "GateCalcTest",
            "testAnswer\n\tself assert: GateCalc new answer = 42",
        ),
    )
    .await;
    ok(
        &mut a,
        "compile_method",
        compile(
            "GateCalcTest",
            "testClass\n\tself assert: GateCalc name = #GateCalc",
        ),
    )
    .await;

    // red: refused, the failure listed, nothing committed
    let e = fails(&mut a, "commit", json!({"testClasses": ["GateCalcTest"]})).await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(e["committed"], false, "{e}");
    assert_eq!(e["testsRun"], 2, "{e}");
    assert_eq!(e["passed"], 1, "{e}");
    let failures = e["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{e}");
    assert_eq!(failures[0]["class"], "GateCalcTest");
    assert_eq!(failures[0]["selector"], "testAnswer");
    assert_eq!(failures[0]["kind"], "failure");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("Nothing was committed"),
        "{e}"
    );
    assert_eq!(
        eval(&mut b, "UserGlobals includesKey: #GateCalc").await,
        "false",
        "another session sees nothing of a refused commit"
    );
    // the transaction is as it was: the work is still there to repair
    assert_eq!(eval(&mut a, "GateCalc new answer").await, "41");

    // a gate that selects nothing refuses
    let e = fails(
        &mut a,
        "commit",
        json!({"testClassPattern": "Nothing*Here"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("no test class"),
        "{e}"
    );

    // green: committed, with what ran
    ok(
        &mut a,
        "compile_method",
        compile("GateCalc", "answer\n\t^ 42"),
    )
    .await;
    let r = ok(
        &mut a,
        "commit",
        json!({"testClassPattern": "Gate*Test", "testDictionary": "UserGlobals"}),
    )
    .await;
    let s = &r["structuredContent"];
    assert_eq!(s["committed"], true, "{r}");
    assert_eq!(s["testsRun"], 2, "{r}");
    assert_eq!(s["passed"], 2, "{r}");
    assert_eq!(s["testClasses"], json!(["GateCalcTest"]), "{r}");
    assert!(
        all_text(&r).contains("after all 2 tests of 1 classes passed"),
        "{r}"
    );
    ok(&mut b, "abort", json!({})).await;
    assert_eq!(eval(&mut b, "GateCalc new answer").await, "42");

    // test code runs under the gate but cannot commit for it
    if !gsmcp_tests::test_backend_is_gci() {
        ok(
            &mut a,
            "compile_method",
            compile(
                "GateCalcTest",
                "testSneaky\n\tUserGlobals at: #Sneaked put: true.\n\tSystem commitTransaction",
            ),
        )
        .await;
        let e = fails(&mut a, "commit", json!({"testClasses": ["GateCalcTest"]})).await;
        assert_eq!(e["kind"], "refused", "{e}");
        let sneaky = e["failures"].as_array().unwrap();
        assert!(
            sneaky
                .iter()
                .any(|f| f["selector"] == "testSneaky" && f["kind"] == "error"),
            "{e}"
        );
        ok(&mut b, "abort", json!({})).await;
        assert_eq!(
            eval(&mut b, "UserGlobals includesKey: #Sneaked").await,
            "false"
        );
    }
}
