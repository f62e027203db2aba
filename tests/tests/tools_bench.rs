//! Scale: every read tool of the Listing, Browsing, Search and Session
//! toolsets on an image holding the kernel plus 2,000 classes × 10 methods,
//! through `tools/call` on the real router and worker. Asserts what each tool
//! finds at that scale and prints each tool's median latency (run with
//! `--nocapture` to see the table); no assertion depends on time.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use util::mcp::Http;
use util::{eval, ok};

const CLASSES: usize = 2_000;
const METHODS: usize = 10;
const RUNS: usize = 15;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_tools_at_scale() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let setup = Instant::now();
    eval(
        &mut s,
        "| d | d := SymbolDictionary new. d name: #Bench. \
         System myUserProfile insertDictionary: d at: 1. \
         Object subclass: 'BenchTarget' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: d options: #(). true",
    )
    .await;
    eval(
        &mut s,
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
            r["structuredContent"]["total"] == CLASSES + 1
        }),
        (
            "list_dictionary_entries",
            json!({"dictionaryName": "Bench", "limit": 10}),
            |r| r["structuredContent"]["total"] == CLASSES + 2,
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
        let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let t = Instant::now();
            let r = ok(&mut s, tool, args.clone()).await;
            times.push(t.elapsed());
            assert!(
                check(&r),
                "{tool} {args} at scale answered {}",
                util::text(&r)
            );
        }
        times.sort();
        lines.push(format!(
            "{tool:<24} {:>9.1} ms p50 {:>9.1} ms max  {args}",
            times[RUNS / 2].as_secs_f64() * 1e3,
            times[RUNS - 1].as_secs_f64() * 1e3,
        ));
    }
    println!(
        "read tools on the kernel + {CLASSES} classes x {METHODS} methods (setup {:.1} s, {RUNS} calls each, over HTTP):",
        setup.as_secs_f64()
    );
    for l in lines {
        println!("  {l}");
    }
}
