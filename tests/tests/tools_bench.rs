//! Scale: every read tool of the Listing, Browsing, Search, Session and
//! Testing toolsets on a repository file holding the kernel plus 2,000
//! classes × 10 methods, through `tools/call` on the real router and worker.
//! Asserts what each tool finds at that scale and prints each tool's latency
//! (run with `--nocapture` to see the tables): p50 and p99 in the session that
//! built the classes, then, for the Search tools, the first call of a fresh
//! login (whose methods are stored, not yet compiled) and the calls after it.
//! Then `rename_method` of a selector with 200 senders, previewed and applied,
//! `change_method_signature` of it, and `rename_class` of a class 200 methods
//! name.
//! No assertion depends on time.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use util::mcp::Http;
use util::{eval, ok};

const CLASSES: usize = 2_000;
const METHODS: usize = 10;
const RUNS: usize = 25;

/// The `q` quantile of sorted durations (nearest rank), in milliseconds.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e3
}

/// Calls `tool` `runs` times, checking every answer; the sorted latencies.
async fn timed(
    s: &mut util::mcp::Session,
    tool: &str,
    args: &Value,
    check: fn(&Value) -> bool,
    runs: usize,
) -> Vec<Duration> {
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let r = ok(s, tool, args.clone()).await;
        times.push(t.elapsed());
        assert!(
            check(&r),
            "{tool} {args} at scale answered {}",
            util::text(&r)
        );
    }
    times.sort();
    times
}

/// The classes the benchmark reads: `Bench00001`..`Bench02000` in a new
/// dictionary `Bench`, each with `m0`..`m9` sending `benchProbe:` to a new
/// `BenchTarget`, and a TestCase `BenchTest` with one passing and one failing test.
async fn build(s: &mut util::mcp::Session) {
    eval(
        s,
        "| d | d := SymbolDictionary new. d name: #Bench. \
         System myUserProfile insertDictionary: d at: 1. \
         Object subclass: 'BenchTarget' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: d options: #(). true",
    )
    .await;
    eval(
        s,
        &format!(
            "| d list | d := System myUserProfile symbolList objectNamed: #Bench. \
             list := System myUserProfile symbolList. \
             1 to: {CLASSES} do: [:i | | c | \
               c := Object subclass: 'Bench' , ((100000 + i) printString copyFrom: 2 to: 6) \
                 instVarNames: #(a b) classVars: #() classInstVars: #() poolDictionaries: #() \
                 inDictionary: d options: #(). \
               0 to: {last} do: [:j | \
                 c compileMethod: 'm' , j printString , ' ^ BenchTarget new benchProbe: a + ' , j printString \
                   dictionaries: list category: 'bench']]. true",
            last = METHODS - 1
        ),
    )
    .await;
    eval(
        s,
        "| d t | d := System myUserProfile symbolList objectNamed: #Bench. \
         t := TestCase subclass: 'BenchTest' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: d options: #(). \
         t compileMethod: 'testPasses self assert: 3 + 4 = 7' \
           dictionaries: System myUserProfile symbolList category: 'tests'. \
         t compileMethod: 'testFails self assert: 3 + 4 = 8' \
           dictionaries: System myUserProfile symbolList category: 'tests'. true",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_tools_at_scale() {
    // The session that builds the classes in an unsaved image: everything it
    // reads is compiled.
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let setup = Instant::now();
    build(&mut s).await;
    let setup = setup.elapsed();

    // (tool, arguments, a check of the answer at this scale)
    type Check = fn(&Value) -> bool;
    let table: Vec<(&str, Value, Check)> = vec![
        ("status", json!({}), |r| {
            r["structuredContent"]["user"] == "DataCurator"
        }),
        ("list_dictionaries", json!({}), |r| {
            r["structuredContent"]["dictionaries"][0]["name"] == "Bench"
        }),
        ("list_all_classes", json!({}), |r| {
            r["structuredContent"]["total"].as_u64() > Some(CLASSES as u64)
        }),
        ("list_classes", json!({"dictionaryName": "Bench"}), |r| {
            r["structuredContent"]["total"] == CLASSES + 2
        }),
        (
            "list_dictionary_entries",
            json!({"dictionaryName": "Bench", "limit": 10}),
            |r| r["structuredContent"]["total"] == CLASSES + 3,
        ),
        ("describe_class", json!({"className": "Bench01000"}), |r| {
            r["structuredContent"]["instanceSide"][0]["selectors"]
                .as_array()
                .map(Vec::len)
                == Some(METHODS)
        }),
        ("list_methods", json!({"className": "Bench01000"}), |r| {
            r["structuredContent"]["instanceSide"][0]["selectors"]
                .as_array()
                .map(Vec::len)
                == Some(METHODS)
        }),
        (
            "get_class_definition",
            json!({"className": "Bench01000"}),
            |r| {
                r["structuredContent"]["definition"]
                    .as_str()
                    .is_some_and(|d| d.contains("Bench01000"))
            },
        ),
        (
            "export_class_source",
            json!({"className": "Bench01000"}),
            |r| {
                r["structuredContent"]["source"]
                    .as_str()
                    .is_some_and(|d| d.contains("m9"))
            },
        ),
        (
            "get_class_hierarchy",
            json!({"className": "Bench01000"}),
            |r| r["structuredContent"]["superclasses"] == json!(["Object"]),
        ),
        (
            "get_method_source",
            json!({"className": "Bench01000", "selector": "m3"}),
            |r| {
                r["structuredContent"]["source"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("m3"))
            },
        ),
        ("find_implementors", json!({"selector": "m3"}), |r| {
            r["structuredContent"]["total"] == CLASSES
        }),
        ("find_senders", json!({"selector": "benchProbe:"}), |r| {
            r["structuredContent"]["total"] == CLASSES * METHODS
        }),
        ("find_references_to", json!({"name": "BenchTarget"}), |r| {
            r["structuredContent"]["total"] == CLASSES * METHODS
        }),
        ("list_test_classes", json!({}), |r| {
            util::text(r).contains("BenchTest")
        }),
        (
            "run_test_method",
            json!({"className": "BenchTest", "selector": "testPasses"}),
            |r| util::text(r).contains("pass"),
        ),
        (
            "list_failing_tests",
            json!({"classNames": ["BenchTest"]}),
            |r| util::text(r).contains("testFails") && !util::text(r).contains("testPasses"),
        ),
        (
            "search_method_source",
            json!({"pattern": "benchProbe: a + 7"}),
            |r| r["structuredContent"]["totalIsLowerBound"] == true,
        ),
        (
            "search_method_source",
            json!({"pattern": "no method holds this text", "dictionaryName": "Bench"}),
            |r| r["structuredContent"]["total"] == 0,
        ),
        (
            "search_method_source",
            json!({"pattern": "no method holds this text"}),
            |r| r["structuredContent"]["total"] == 0,
        ),
    ];
    let mut lines = Vec::new();
    for (tool, args, check) in &table {
        let times = timed(&mut s, tool, args, *check, RUNS).await;
        lines.push(format!(
            "{tool:<24} {:>7.1} ms p50 {:>7.1} ms p99  {args}",
            quantile(&times, 0.5),
            quantile(&times, 0.99),
        ));
    }
    println!(
        "read tools on the kernel + {CLASSES} classes x {METHODS} methods (setup {:.1} s, \
         {RUNS} calls each, over HTTP, in the session that built them):",
        setup.as_secs_f64()
    );
    for l in lines {
        println!("  {l}");
    }
    rename_at_scale(&mut s).await;

    // Each Search tool's first call in a fresh login to a repository file
    // holding the classes (its methods are stored, not compiled), then the
    // calls after it.
    let repo = gsmcp_tests::harness::scratch_path("tools-bench.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut builder = http.open().await;
    build(&mut builder).await;
    ok(&mut builder, "commit", json!({})).await;
    builder.delete().await;
    let mut lines = Vec::new();
    for (tool, args, check) in table.iter().filter(|t| {
        matches!(
            t.0,
            "find_implementors" | "find_senders" | "find_references_to" | "search_method_source"
        )
    }) {
        let mut fresh = http.open().await;
        let cold = timed(&mut fresh, tool, args, *check, 1).await;
        let warm = timed(&mut fresh, tool, args, *check, RUNS).await;
        fresh.delete().await;
        lines.push(format!(
            "{tool:<24} {:>7.1} ms cold {:>7.1} ms p50 {:>7.1} ms p99  {args}",
            quantile(&cold, 0.5),
            quantile(&warm, 0.5),
            quantile(&warm, 0.99),
        ));
    }
    println!("search tools in a fresh login to a repository file (first call, then {RUNS} calls):");
    for l in lines {
        println!("  {l}");
    }
}

/// `rename_method` at scale: a selector with 200 senders among the classes,
/// renamed system-wide — the preview's latency (`RUNS` calls), then
/// one apply of its token.
async fn rename_at_scale(s: &mut util::mcp::Session) {
    const SENDERS: usize = 200;
    eval(
        s,
        &format!(
            "| list | list := System myUserProfile symbolList. \
             (list objectNamed: #BenchTarget) compileMethod: 'benchRename: x ^ x' \
               dictionaries: list category: 'bench'. \
             1 to: {SENDERS} do: [:i | \
               (list objectNamed: ('Bench' , ((100000 + i) printString copyFrom: 2 to: 6)) asSymbol) \
                 compileMethod: 'r ^ BenchTarget new benchRename: ' , i printString \
                 dictionaries: list category: 'bench']. true"
        ),
    )
    .await;
    let args = json!({"selector": "benchRename:", "newSelector": "benchRenamed:"});
    let (preview, applied) = preview_and_apply(s, "rename_method", &args, SENDERS + 1).await;
    assert_eq!(
        eval(
            s,
            "(System myUserProfile symbolList objectNamed: #BenchTarget) \
             includesSelector: #benchRenamed:"
        )
        .await,
        "true"
    );
    report(
        &format!("rename_method of a selector with {SENDERS} senders, system-wide"),
        &preview,
        &applied,
    );
    // the same senders given an argument
    let args = json!({"selector": "benchRenamed:", "newSelector": "benchRenamed:by:",
                      "defaults": ["1"], "argumentNames": ["factor"]});
    let (preview, applied) =
        preview_and_apply(s, "change_method_signature", &args, SENDERS + 1).await;
    report(
        &format!("change_method_signature of it (an argument added at {SENDERS} sends)"),
        &preview,
        &applied,
    );
    // a class 200 methods name, renamed: a new version, its references rewritten
    eval(
        s,
        &format!(
            "| list | list := System myUserProfile symbolList. \
             Object subclass: 'BenchNamed' instVarNames: #() classVars: #() classInstVars: #() \
               poolDictionaries: #() inDictionary: (list objectNamed: #Bench). \
             1 to: {SENDERS} do: [:i | \
               (list objectNamed: ('Bench' , ((100000 + i) printString copyFrom: 2 to: 6)) asSymbol) \
                 compileMethod: 'n ^ BenchNamed new' \
                 dictionaries: list category: 'bench']. true"
        ),
    )
    .await;
    let args = json!({"className": "BenchNamed", "newName": "BenchRenamed"});
    let (preview, applied) = preview_and_apply(s, "rename_class", &args, SENDERS).await;
    report(
        &format!("rename_class of a class {SENDERS} methods refer to"),
        &preview,
        &applied,
    );
}

/// Times `RUNS` previews of `tool`, then one apply of the token; the
/// preview must change `changes` methods.
async fn preview_and_apply(
    s: &mut util::mcp::Session,
    tool: &str,
    args: &Value,
    changes: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let preview = timed(
        s,
        tool,
        args,
        |r| r["structuredContent"]["dryRun"] == true,
        RUNS,
    )
    .await;
    let r = ok(s, tool, args.clone()).await;
    assert_eq!(
        r["structuredContent"]["changes"].as_array().map(Vec::len),
        Some(changes),
        "{tool} {args} at scale answered {}",
        util::text(&r)
    );
    let mut apply = args.clone();
    apply["dryRun"] = json!(false);
    apply["token"] = r["structuredContent"]["token"].clone();
    let applied = timed(
        s,
        tool,
        &apply,
        |r| r["structuredContent"]["applied"] == true,
        1,
    )
    .await;
    (preview, applied)
}

fn report(what: &str, preview: &[Duration], applied: &[Duration]) {
    println!(
        "{what}, on the same repository:\n  \
         preview {:>7.1} ms p50 {:>7.1} ms p99 ({RUNS} calls)\n  apply   {:>7.1} ms",
        quantile(preview, 0.5),
        quantile(preview, 0.99),
        quantile(applied, 0.5),
    );
}
