//! End-to-end: the Testing toolset (list_test_classes, run_test_class,
//! run_test_method, list_failing_tests, describe_test_failure) through
//! `tools/call` on the real router and worker over an in-memory image. A
//! TestCase subclass is defined with compile_class_definition and
//! compile_method, run red, fixed, and run green; progress per test arrives on
//! the call's event stream when the request carries a progress token.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::{request_body, Server, SseConn};
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{fails, ok, text, NASTY};

/// The tests of the class under test: selector and (red, green) sources.
const METHODS: &[(&str, &str, &str)] = &[
    (
        "testPasses",
        "testPasses\n\tself assert: 3 + 4 = 7",
        "testPasses\n\tself assert: 3 + 4 = 7",
    ),
    (
        "testFails",
        "testFails\n\tself assert: 3 + 4 = 8 description: 'sum is wrong'",
        "testFails\n\tself assert: 3 + 4 = 7 description: 'sum is wrong'",
    ),
    (
        "testErrs",
        "testErrs\n\t^ 1 / 0",
        "testErrs\n\t^ self assert: 1 / 1 = 1",
    ),
];

/// Defines the TestCase subclass `name` with the red (or green) tests.
async fn define(s: &mut Session, name: &str, green: bool) {
    ok(
        s,
        "compile_class_definition",
        json!({"className": name, "superclassName": "TestCase"}),
    )
    .await;
    compile(s, name, green).await;
}

async fn compile(s: &mut Session, name: &str, green: bool) {
    for (_, red_source, green_source) in METHODS {
        let source = if green { green_source } else { red_source };
        ok(
            s,
            "compile_method",
            json!({"className": name, "source": source, "category": "tests"}),
        )
        .await;
    }
}

fn outcomes(results: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = results
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {results}"))
        .iter()
        .map(|r| {
            (
                r["selector"].as_str().unwrap_or("").to_string(),
                r["outcome"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_class_runs_red_then_green() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s, "CalcTest", false).await;

    let r = ok(&mut s, "run_test_class", json!({"className": "CalcTest"})).await;
    let sc = &r["structuredContent"];
    assert_eq!(
        sc["summary"],
        json!({"run": 3, "passed": 1, "failures": 1, "errors": 1}),
        "{r}"
    );
    assert_eq!(
        outcomes(&sc["results"]),
        pairs(&[
            ("testErrs", "error"),
            ("testFails", "failure"),
            ("testPasses", "passed")
        ])
    );
    let t = text(&r);
    assert!(t.contains("3 run, 1 passed, 1 failures, 1 errors"), "{t}");
    assert!(t.contains("CalcTest>>#testFails: failure"), "{t}");
    assert!(t.contains("sum is wrong"), "{t}");
    assert!(t.contains("CalcTest>>#testErrs: error (ZeroDivide)"), "{t}");
    assert!(!t.contains("testPasses"), "only defects are listed: {t}");

    // One test alone.
    let r = ok(
        &mut s,
        "run_test_method",
        json!({"className": "CalcTest", "selector": "testFails"}),
    )
    .await;
    let one = &r["structuredContent"]["result"];
    assert_eq!(one["outcome"], "failure", "{r}");
    assert_eq!(one["messageText"], "sum is wrong", "{r}");
    let r = ok(
        &mut s,
        "run_test_method",
        json!({"className": "CalcTest", "selector": "testPasses"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["result"]["outcome"], "passed");
    assert_eq!(text(&r), "CalcTest>>#testPasses: passed");

    // Fix the methods and run green.
    compile(&mut s, "CalcTest", true).await;
    let r = ok(&mut s, "run_test_class", json!({"className": "CalcTest"})).await;
    assert_eq!(
        r["structuredContent"]["summary"],
        json!({"run": 3, "passed": 3, "failures": 0, "errors": 0}),
        "{r}"
    );
    assert_eq!(r["structuredContent"]["defects"], json!([]));
    let r = ok(
        &mut s,
        "describe_test_failure",
        json!({"className": "CalcTest", "selector": "testErrs"}),
    )
    .await;
    assert!(
        text(&r).contains("passed when re-run alone"),
        "{}",
        text(&r)
    );

    // Nothing was committed: a second session does not see the class.
    let mut other = Http::new(&server.url).open().await;
    let r = ok(&mut other, "list_test_classes", json!({})).await;
    let listed = r["structuredContent"]["classes"]
        .as_array()
        .expect("classes");
    assert!(!listed.iter().any(|c| c["name"] == "CalcTest"), "{r}");
    let e = fails(
        &mut other,
        "run_test_class",
        json!({"className": "CalcTest"}),
    )
    .await;
    assert_eq!(e["kind"], "notFound", "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_described_and_listed() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s, "RedTest", false).await;
    define(&mut s, "GreenTest", true).await;

    // describe_test_failure: exception class, message text, phase.
    let cases = [
        ("testFails", "failure", "TestFailure", Some("sum is wrong")),
        ("testErrs", "error", "ZeroDivide", None),
    ];
    for (selector, outcome, class, message) in cases {
        let r = ok(
            &mut s,
            "describe_test_failure",
            json!({"className": "RedTest", "selector": selector}),
        )
        .await;
        let d = &r["structuredContent"]["result"];
        assert_eq!(d["outcome"], outcome, "{r}");
        assert_eq!(d["exceptionClass"], class, "{r}");
        assert_eq!(d["phase"], "test", "{r}");
        if let Some(m) = message {
            assert_eq!(d["messageText"], m, "{r}");
        }
        let t = text(&r);
        assert!(t.contains(&format!("exception class: {class}")), "{t}");
        assert!(
            t.contains(&format!("raised in the test method RedTest>>#{selector}")),
            "{t}"
        );
        assert!(
            d["description"].as_str().is_some_and(|x| !x.is_empty()),
            "{r}"
        );
    }

    // A failure in setUp is said to be raised there.
    ok(
        &mut s,
        "compile_method",
        json!({"className": "GreenTest", "source": "setUp\n\tnil foo", "category": "running"}),
    )
    .await;
    let r = ok(
        &mut s,
        "describe_test_failure",
        json!({"className": "GreenTest", "selector": "testPasses"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["result"]["phase"], "setUp", "{r}");
    assert!(text(&r).contains("raised in setUp"), "{}", text(&r));
    ok(
        &mut s,
        "compile_method",
        json!({"className": "GreenTest", "source": "setUp\n\t^ self", "category": "running"}),
    )
    .await;

    // list_failing_tests over named classes and over all.
    let r = ok(
        &mut s,
        "list_failing_tests",
        json!({"classNames": ["RedTest", "GreenTest"]}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["run"], 6, "{r}");
    let failing: Vec<(String, String)> = sc["failing"]
        .as_array()
        .expect("failing")
        .iter()
        .map(|f| {
            (
                f["className"].as_str().unwrap_or("").to_string(),
                f["selector"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let mut failing_sorted = failing.clone();
    failing_sorted.sort();
    assert_eq!(
        failing_sorted,
        [
            ("RedTest".to_string(), "testErrs".to_string()),
            ("RedTest".to_string(), "testFails".to_string())
        ]
    );
    assert!(
        text(&r).starts_with("2 failing of 6 tests in 2 classes"),
        "{}",
        text(&r)
    );
    let r = ok(&mut s, "list_failing_tests", json!({})).await;
    let all = &r["structuredContent"]["failing"];
    assert!(
        all.as_array()
            .expect("failing")
            .iter()
            .any(|f| f["className"] == "RedTest"),
        "{r}"
    );
    assert!(
        !all.as_array()
            .unwrap()
            .iter()
            .any(|f| f["className"] == "GreenTest"),
        "{r}"
    );
    let r = ok(
        &mut s,
        "list_failing_tests",
        json!({"classNames": ["GreenTest"]}),
    )
    .await;
    assert_eq!(r["structuredContent"]["failing"], json!([]), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_classes_are_listed_and_paged() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let names: Vec<String> = (1..=7).map(|i| format!("PagedTest{i:02}")).collect();
    for n in &names {
        define(&mut s, n, true).await;
    }
    // Collect every page of 3 and keep the ones defined here.
    let mut seen = Vec::new();
    let mut offset = 0;
    let total = loop {
        let r = ok(
            &mut s,
            "list_test_classes",
            json!({"limit": 3, "offset": offset}),
        )
        .await;
        let sc = &r["structuredContent"];
        let page = sc["classes"].as_array().expect("classes");
        assert!(page.len() <= 3, "{r}");
        for c in page {
            let name = c["name"].as_str().expect("a name").to_string();
            if name.starts_with("PagedTest") {
                assert_eq!(c["tests"], 3, "{c}");
            }
            seen.push(name);
        }
        offset += 3;
        let total = sc["total"].as_u64().expect("total") as usize;
        if offset >= total {
            break total;
        }
        assert!(
            text(&r).contains(&format!("pass offset: {offset}")),
            "{}",
            text(&r)
        );
    };
    assert_eq!(seen.len(), total);
    let mine: Vec<String> = seen
        .iter()
        .filter(|n| n.starts_with("PagedTest"))
        .cloned()
        .collect();
    assert_eq!(mine, names, "sorted, each once");
    assert!(!seen.iter().any(|n| n == "TestCase"), "abstract: {seen:?}");

    let r = ok(&mut s, "list_test_classes", json!({"limit": 0})).await;
    assert_eq!(r["structuredContent"]["total"], total as u64);
    assert_eq!(r["structuredContent"]["classes"], json!([]));
    let e = fails(&mut s, "list_test_classes", json!({"limit": -1})).await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_names_are_refused_with_the_name_intact() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s, "NamedTest", true).await;

    let awkward = ["No Such'Class", NASTY, "Zzz😀Test", ""];
    for name in awkward {
        for (tool, args) in [
            ("run_test_class", json!({"className": name})),
            (
                "run_test_method",
                json!({"className": name, "selector": "testPasses"}),
            ),
            (
                "describe_test_failure",
                json!({"className": name, "selector": "testPasses"}),
            ),
            ("list_failing_tests", json!({"classNames": [name]})),
        ] {
            let e = fails(&mut s, tool, args).await;
            assert_eq!(e["kind"], "notFound", "{tool} {name:?}: {e}");
            let m = e["message"].as_str().unwrap_or("");
            assert!(m.contains(&format!("'{name}'")), "{tool}: {m}");
        }
    }
    for selector in ["testMissing", NASTY, "test😀", "testPasses:"] {
        for tool in ["run_test_method", "describe_test_failure"] {
            let e = fails(
                &mut s,
                tool,
                json!({"className": "NamedTest", "selector": selector}),
            )
            .await;
            assert_eq!(e["kind"], "notFound", "{tool} {selector:?}: {e}");
            let m = e["message"].as_str().unwrap_or("");
            assert!(m.contains(&format!("'{selector}'")), "{tool}: {m}");
        }
    }

    // Not a TestCase: invalidParams; an abstract test class: refused.
    let e = fails(
        &mut s,
        "run_test_class",
        json!({"className": "OrderedCollection"}),
    )
    .await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
    assert!(e["message"]
        .as_str()
        .unwrap_or("")
        .contains("'OrderedCollection'"));
    let e = fails(&mut s, "run_test_class", json!({"className": "GsTestCase"})).await;
    assert_eq!(e["kind"], "refused", "{e}");

    // Schema errors.
    for (tool, args) in [
        ("run_test_class", json!({})),
        ("run_test_class", json!({"className": 3})),
        ("run_test_method", json!({"className": "NamedTest"})),
        ("list_failing_tests", json!({"classNames": "NamedTest"})),
        ("list_test_classes", json!({"other": 1})),
    ] {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], "invalidParams", "{tool} {args}: {e}");
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_a_class_reports_progress_per_test() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s, "ProgressTest", false).await;
    let sid = s.id.clone();

    let call = request_body(
        900,
        "tools/call",
        json!({"name": "run_test_class", "arguments": {"className": "ProgressTest"},
               "_meta": {"progressToken": "run-1"}}),
    );
    let (before, response) = tokio::task::block_in_place(|| {
        let mut stream = SseConn::post(&server, &sid, &call);
        assert!(stream.is_stream(), "progress makes the answer a stream");
        until_response(&mut stream)
    });
    let progress: Vec<(f64, String)> = before
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            assert_eq!(m["params"]["progressToken"], "run-1", "{m}");
            assert_eq!(m["params"]["total"], 3.0, "{m}");
            (
                m["params"]["progress"].as_f64().expect("a number"),
                m["params"]["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        progress,
        [
            (0.0, "ProgressTest>>#testErrs".to_string()),
            (1.0, "ProgressTest>>#testFails".to_string()),
            (2.0, "ProgressTest>>#testPasses".to_string()),
            (3.0, "done".to_string()),
        ]
    );
    assert_eq!(response["id"], 900);
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    assert_eq!(
        result["structuredContent"]["summary"]["run"], 3,
        "{response}"
    );

    // Without a token no progress is sent and the answer is the same.
    let r = ok(
        &mut s,
        "run_test_class",
        json!({"className": "ProgressTest"}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["summary"],
        result["structuredContent"]["summary"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_names_the_frames_that_raised_it() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "StackTest", "superclassName": "TestCase"}),
    )
    .await;
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "ReportingError", "superclassName": "Error"}),
    )
    .await;
    // An exception class whose stackReport is canned: the stack path of the
    // tool is exercised whatever the stone's own exceptions report.
    let canned = "ReportingError (AbstractException) >> signal: @2 line 3\n\
StackTest >> helperReport @2 line 2\n\
StackTest >> testReport @1 line 1\n\
StackTest (TestCase) >> performTest @1 line 1\n\
Executed code @1 line 1";
    for source in [
        format!("stackReport\n\t^ '{canned}'"),
        "messageText\n\t^ 'canned'".to_string(),
    ] {
        ok(
            &mut s,
            "compile_method",
            json!({"className": "ReportingError", "source": source}),
        )
        .await;
    }
    for source in [
        "testBoom\n\tself helperBoom",
        "helperBoom\n\t^ 1 / 0",
        "testReport\n\tself helperReport",
        "helperReport\n\t^ ReportingError new signal",
    ] {
        ok(
            &mut s,
            "compile_method",
            json!({"className": "StackTest", "source": source}),
        )
        .await;
    }

    let r = ok(
        &mut s,
        "describe_test_failure",
        json!({"className": "StackTest", "selector": "testReport"}),
    )
    .await;
    let d = &r["structuredContent"]["result"];
    assert_eq!(d["exceptionClass"], "ReportingError", "{r}");
    assert_eq!(d["phase"], "test", "{r}");
    let frames: Vec<(&str, &str, u64)> = d["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("no frames: {r}"))
        .iter()
        .map(|f| {
            (
                f["class"].as_str().unwrap_or(""),
                f["selector"].as_str().unwrap_or(""),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        frames,
        [
            ("StackTest", "helperReport", 2),
            ("StackTest", "testReport", 1)
        ]
    );
    let t = text(&r);
    assert!(
        t.contains("raised in StackTest >> helperReport @2 line 2")
            && t.contains("called from StackTest >> testReport @1 line 1"),
        "{t}"
    );
    assert!(!t.contains("performTest"), "{t}");

    // A kernel error: the phase and the exception always; the frames when the
    // stone reports its stack, and then they run from the raising method out
    // to the test method.
    let r = ok(
        &mut s,
        "describe_test_failure",
        json!({"className": "StackTest", "selector": "testBoom"}),
    )
    .await;
    let d = &r["structuredContent"]["result"];
    assert_eq!(d["outcome"], "error", "{r}");
    assert_eq!(d["exceptionClass"], "ZeroDivide", "{r}");
    assert_eq!(d["phase"], "test", "{r}");
    let t = text(&r);
    assert!(
        t.contains("raised in the test method StackTest>>#testBoom"),
        "{t}"
    );
    match d["frames"].as_array() {
        Some(frames) => {
            let last = frames.last().expect("a frame");
            assert_eq!(last["selector"], "testBoom", "{r}");
            assert_eq!(last["class"], "StackTest", "{r}");
            assert!(last["line"].as_u64().is_some(), "{r}");
            assert!(frames.iter().any(|f| f["selector"] == "helperBoom"), "{r}");
            assert!(t.contains("raised in "), "{t}");
        }
        None => {
            // No stack report from this stone: nothing beyond the phase is claimed.
            assert!(d.get("stack").is_none(), "{r}");
            assert!(!t.contains("called from"), "{t}");
        }
    }
    // run_test_method does not pay for stack reports.
    let r = ok(
        &mut s,
        "run_test_method",
        json!({"className": "StackTest", "selector": "testReport"}),
    )
    .await;
    assert!(
        r["structuredContent"]["result"].get("stack").is_none(),
        "{r}"
    );
}
