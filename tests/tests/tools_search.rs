//! End-to-end: the Search toolset (find_implementors, find_senders,
//! find_references_to, search_method_source) through `tools/call` on the real
//! router and worker: classes and methods are defined with execute_code, then
//! found and paged through.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{eval, fails, ok, text, NASTY};

const CLASSES: usize = 12;

/// `Searched01`..`Searched12` in a new dictionary `Searching`, each with
/// `probeMarker` (sending `zorkFrob:` and referring to SearchTarget) and a
/// class-side `probeMarker`; SearchTarget itself implements `zorkFrob:`.
async fn define(s: &mut Session) {
    eval(
        s,
        "| d | d := SymbolDictionary new. d name: #Searching. \
         System myUserProfile insertDictionary: d at: 1. \
         Object subclass: 'SearchTarget' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: d options: #(). true",
    )
    .await;
    eval(
        s,
        "SearchTarget compileMethod: 'zorkFrob: x ^ x' dictionaries: System myUserProfile \
         symbolList category: 'probing'. true",
    )
    .await;
    eval(
        s,
        &format!(
            "1 to: {CLASSES} do: [:i | | c | \
             c := Object subclass: 'Searched' , ((100 + i) printString copyFrom: 2 to: 3) \
             instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() \
             inDictionary: (System myUserProfile symbolList objectNamed: #Searching) options: #(). \
             c compileMethod: 'probeMarker ^ SearchTarget new zorkFrob: ''NeedleText''' \
             dictionaries: System myUserProfile symbolList category: 'probing'. \
             c class compileMethod: 'probeMarker ^ #zorkFrob:' \
             dictionaries: System myUserProfile symbolList category: 'probing']. true"
        ),
    )
    .await;
}

fn hits(r: &Value) -> Vec<(String, bool, String)> {
    r["structuredContent"]["methods"]
        .as_array()
        .unwrap_or_else(|| panic!("no methods in {r}"))
        .iter()
        .map(|m| {
            (
                m["className"].as_str().unwrap_or("").to_string(),
                m["meta"].as_bool().unwrap_or(false),
                m["selector"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn searched(i: usize, meta: bool) -> (String, bool, String) {
    (format!("Searched{i:02}"), meta, "probeMarker".to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finders_answer_every_hit_with_the_true_total() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s).await;

    // Implementors: both sides of every SearchedNN, sorted, paged.
    let r = ok(
        &mut s,
        "find_implementors",
        json!({"selector": "probeMarker"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["total"], 2 * CLASSES, "{r}");
    let expected: Vec<_> = (1..=CLASSES)
        .flat_map(|i| [searched(i, false), searched(i, true)])
        .collect();
    assert_eq!(hits(&r), expected);
    assert_eq!(
        text(&r).lines().nth(1),
        Some("Searched01>>probeMarker (probing)")
    );
    let mut paged = Vec::new();
    let mut offset = 0;
    while offset < 2 * CLASSES {
        let r = ok(
            &mut s,
            "find_implementors",
            json!({"selector": "probeMarker", "limit": 5, "offset": offset}),
        )
        .await;
        let header = text(&r).lines().next().unwrap_or("").to_string();
        assert!(header.contains(&format!("of {}", 2 * CLASSES)), "{header}");
        paged.extend(hits(&r));
        offset += 5;
    }
    assert_eq!(paged, expected);
    let r = ok(
        &mut s,
        "find_implementors",
        json!({"selector": "probeMarker", "limit": 0}),
    )
    .await;
    assert_eq!(text(&r), format!("{} methods", 2 * CLASSES));

    let r = ok(
        &mut s,
        "find_implementors",
        json!({"selector": "zorkFrob:"}),
    )
    .await;
    assert_eq!(
        hits(&r),
        [("SearchTarget".to_string(), false, "zorkFrob:".to_string())]
    );

    // Senders: the instance side sends zorkFrob:; the class side only holds
    // the literal symbol, which GemStone's sendersOf: counts as well.
    let r = ok(
        &mut s,
        "find_senders",
        json!({"selector": "zorkFrob:", "limit": 100}),
    )
    .await;
    let found = hits(&r);
    for i in 1..=CLASSES {
        assert!(
            found.contains(&searched(i, false)),
            "Searched{i:02} missing: {found:?}"
        );
    }
    assert_eq!(r["structuredContent"]["total"], found.len());
    assert!(!found.iter().any(|h| h.0 == "SearchTarget"), "{found:?}");

    // References to the class.
    let r = ok(
        &mut s,
        "find_references_to",
        json!({"name": "SearchTarget"}),
    )
    .await;
    let expected: Vec<_> = (1..=CLASSES).map(|i| searched(i, false)).collect();
    assert_eq!(hits(&r), expected);
    assert_eq!(r["structuredContent"]["total"], CLASSES);

    // Nothing found is an empty success, not an error.
    let r = ok(
        &mut s,
        "find_senders",
        json!({"selector": "noSuchSelectorAnywhere"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["total"], 0);
    assert_eq!(text(&r), "no methods");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn source_search_stops_one_past_the_page() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s).await;
    // Another dictionary holding one more hit, scanned after Searching.
    eval(
        &mut s,
        "Object subclass: 'ZLateHit' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: UserGlobals options: #(). \
         true",
    )
    .await;
    eval(
        &mut s,
        "ZLateHit compileMethod: 'late ^ ''needletext''' dictionaries: System myUserProfile \
         symbolList category: 'x'. true",
    )
    .await;

    let r = ok(
        &mut s,
        "search_method_source",
        json!({"pattern": "NeedleText", "limit": 5}),
    )
    .await;
    assert_eq!(
        text(&r).lines().next(),
        Some("showing 1-5 of at least 6 methods; pass offset: 5 for the next page")
    );
    let expected: Vec<_> = (1..=5).map(|i| searched(i, false)).collect();
    assert_eq!(hits(&r), expected, "hits in scan order");
    assert_eq!(r["structuredContent"]["totalIsLowerBound"], true);

    let r = ok(
        &mut s,
        "search_method_source",
        json!({"pattern": "NeedleText", "limit": 5, "offset": 10}),
    )
    .await;
    // Hits 11, 12 and the case-insensitive one in UserGlobals, then the end.
    assert_eq!(
        hits(&r),
        [
            searched(11, false),
            searched(12, false),
            ("ZLateHit".to_string(), false, "late".to_string())
        ]
    );
    assert_eq!(text(&r).lines().next(), Some("showing 11-13 of 13 methods"));
    assert_eq!(r["structuredContent"]["totalIsLowerBound"], false);

    let r = ok(
        &mut s,
        "search_method_source",
        json!({"pattern": "needletext", "limit": 0}),
    )
    .await;
    assert_eq!(text(&r), "13 methods");
    let r = ok(
        &mut s,
        "search_method_source",
        json!({"pattern": "NeedleText", "dictionaryName": "UserGlobals"}),
    )
    .await;
    assert_eq!(
        hits(&r),
        [("ZLateHit".to_string(), false, "late".to_string())]
    );
    let r = ok(
        &mut s,
        "search_method_source",
        json!({"pattern": NASTY, "dictionaryName": "Searching"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["total"], 0);
    assert_eq!(r["structuredContent"]["pattern"], NASTY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn awkward_arguments_are_refused_or_read_back() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s).await;
    // (tool, arguments, expected error kind)
    let table = [
        (
            "find_references_to",
            json!({"name": "NoSuchGlobal"}),
            "notFound",
        ),
        ("find_references_to", json!({"name": NASTY}), "notFound"),
        (
            "search_method_source",
            json!({"pattern": "x", "dictionaryName": NASTY}),
            "notFound",
        ),
        (
            "search_method_source",
            json!({"pattern": ""}),
            "invalidParams",
        ),
        ("find_senders", json!({"selector": ""}), "invalidParams"),
        (
            "find_senders",
            json!({"selector": "x", "limit": -1}),
            "invalidParams",
        ),
        (
            "find_implementors",
            json!({"selector": "x", "offset": 1.5}),
            "invalidParams",
        ),
        ("find_implementors", json!({}), "invalidParams"),
        (
            "search_method_source",
            json!({"pattern": "x", "bogus": true}),
            "invalidParams",
        ),
    ];
    for (tool, args, kind) in table {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], kind, "{tool} {args}: {e}");
    }
    let e = fails(&mut s, "find_references_to", json!({"name": NASTY})).await;
    assert!(
        e["message"].as_str().unwrap_or_default().contains(NASTY),
        "{e}"
    );
    for tool in ["find_senders", "find_implementors"] {
        let r = ok(&mut s, tool, json!({"selector": NASTY})).await;
        assert_eq!(r["structuredContent"]["selector"], NASTY, "{tool}");
        assert_eq!(r["structuredContent"]["total"], 0, "{tool}");
    }
}

/// The `total` a finder answers for `args`.
async fn total(s: &mut Session, tool: &str, args: Value) -> Value {
    ok(s, tool, args).await["structuredContent"]["total"].clone()
}

/// The selectors of the hits of `tool` for `args` on the instance side of `class`.
async fn hits_in(s: &mut Session, tool: &str, args: Value, class: &str) -> Vec<String> {
    let r = ok(s, tool, args).await;
    hits(&r)
        .into_iter()
        .filter(|h| h.0 == class && !h.1)
        .map(|h| h.2)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finders_follow_the_transaction() {
    let repo = gsmcp_tests::harness::scratch_path("search-transactions.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    define(&mut a).await;
    ok(&mut a, "commit", json!({})).await;

    // B logs in after the commit: A's methods are stored and none has run in
    // B, yet every finder sees them (the source search first, which reads
    // stored sources without compiling them).
    let mut b = http.open().await;
    let needle = json!({"pattern": "NeedleText"});
    let probe = json!({"selector": "probeMarker"});
    let refs = json!({"name": "SearchTarget"});
    assert_eq!(
        total(&mut b, "search_method_source", needle.clone()).await,
        CLASSES
    );
    let r = ok(
        &mut b,
        "get_method_source",
        json!({"className": "Searched03", "selector": "probeMarker"}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["source"],
        "probeMarker ^ SearchTarget new zorkFrob: 'NeedleText'"
    );
    let senders = json!({"selector": "zorkFrob:", "limit": 500});
    let fresh_text = json!({"pattern": "FreshText"});
    let r = ok(&mut b, "find_senders", senders.clone()).await;
    let found = hits(&r);
    for i in 1..=CLASSES {
        assert!(
            found.contains(&searched(i, false)),
            "Searched{i:02}: {found:?}"
        );
    }
    assert_eq!(
        total(&mut b, "find_implementors", probe.clone()).await,
        2 * CLASSES
    );
    assert_eq!(
        total(&mut b, "find_references_to", refs.clone()).await,
        CLASSES
    );
    assert_eq!(
        total(&mut b, "search_method_source", needle.clone()).await,
        CLASSES
    );

    // A method B compiles is found at once, one B removes is gone at once,
    // and neither is seen by A.
    eval(
        &mut b,
        "SearchTarget compileMethod: 'freshSender ^ self zorkFrob: ''FreshText''' \
         dictionaries: System myUserProfile symbolList category: 'probing'. \
         (System myUserProfile symbolList objectNamed: #Searched01) removeSelector: #probeMarker. \
         true",
    )
    .await;
    assert_eq!(
        hits_in(&mut b, "find_senders", senders.clone(), "SearchTarget").await,
        ["freshSender"]
    );
    assert!(
        hits_in(&mut b, "find_senders", senders.clone(), "Searched01")
            .await
            .is_empty()
    );
    assert_eq!(
        total(&mut b, "find_implementors", probe.clone()).await,
        2 * CLASSES - 1
    );
    assert_eq!(
        total(&mut b, "search_method_source", fresh_text.clone()).await,
        1
    );
    assert!(
        hits_in(&mut a, "find_senders", senders.clone(), "SearchTarget")
            .await
            .is_empty()
    );
    assert_eq!(
        total(&mut a, "find_implementors", probe.clone()).await,
        2 * CLASSES
    );

    // A commits another sender: B sees it only once its view moves (refresh
    // keeps B's own changes; abort drops them).
    eval(
        &mut a,
        "(System myUserProfile symbolList objectNamed: #Searched02) compileMethod: \
         'committedSender ^ 1 zorkFrob: 2' dictionaries: System myUserProfile symbolList \
         category: 'probing'. true",
    )
    .await;
    ok(&mut a, "commit", json!({})).await;
    assert_eq!(
        hits_in(&mut b, "find_senders", senders.clone(), "Searched02").await,
        ["probeMarker"]
    );
    ok(&mut b, "refresh", json!({})).await;
    assert_eq!(
        hits_in(&mut b, "find_senders", senders.clone(), "Searched02").await,
        ["committedSender", "probeMarker"]
    );
    assert_eq!(
        hits_in(&mut b, "find_senders", senders.clone(), "SearchTarget").await,
        ["freshSender"]
    );
    ok(&mut b, "abort", json!({})).await;
    assert!(
        hits_in(&mut b, "find_senders", senders.clone(), "SearchTarget")
            .await
            .is_empty()
    );
    assert_eq!(
        hits_in(&mut b, "find_senders", senders.clone(), "Searched01").await,
        ["probeMarker"]
    );
    assert_eq!(
        total(&mut b, "search_method_source", fresh_text.clone()).await,
        0
    );
}
