//! End-to-end: the Mutation toolset (add_dictionary, compile_class_definition,
//! compile_method, delete_class, delete_method, remove_dictionary,
//! set_class_comment) through `tools/call` on the real router and worker. Every
//! change is read back through the Browsing and Listing tools, the blind-write
//! guardrail is exercised across two sessions, and `abort` undoes each change.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{eval, fails, ok, text, NASTY};

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

async fn source_of(s: &mut Session, class: &str, selector: &str) -> Value {
    let r = ok(
        s,
        "get_method_source",
        json!({"className": class, "selector": selector}),
    )
    .await;
    r["structuredContent"].clone()
}

async fn describe(s: &mut Session, class: &str) -> Value {
    ok(s, "describe_class", json!({"className": class})).await["structuredContent"].clone()
}

async fn dictionaries(s: &mut Session) -> Vec<String> {
    let r = ok(s, "list_dictionaries", json!({})).await;
    r["structuredContent"]["dictionaries"]
        .as_array()
        .or_else(|| r["structuredContent"].as_array())
        .unwrap_or_else(|| panic!("dictionaries: {r}"))
        .iter()
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn define_compile_redefine_and_delete_a_class() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;

    // Define a class from named parts, then read it back.
    let r = ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Mutated", "instVarNames": ["a"], "classVars": ["Count"],
               "classInstVars": ["registry"]}),
    )
    .await;
    assert_eq!(r["structuredContent"]["created"], true, "{r}");
    let d = describe(&mut s, "Mutated").await;
    assert_eq!(d["superclass"], "Object");
    assert_eq!(strings(&d["instVarNames"]), ["a"]);
    assert_eq!(strings(&d["classVarNames"]), ["Count"]);
    assert_eq!(strings(&d["classInstVarNames"]), ["registry"]);

    // Methods on both sides, with awkward text in source and category.
    let nasty_src = format!("nasty\n\t^ '{}'", NASTY.replace('\'', "''"));
    for (source, category, meta) in [
        ("a\n\t^ a", "accessing", false),
        ("a: x\n\ta := x", "accessing", false),
        (nasty_src.as_str(), NASTY, false),
        ("make\n\t^ self new", "instance creation", true),
    ] {
        let r = ok(
            &mut s,
            "compile_method",
            json!({"className": "Mutated", "source": source, "category": category, "meta": meta}),
        )
        .await;
        assert_eq!(r["structuredContent"]["category"], category, "{r}");
    }
    let m = source_of(&mut s, "Mutated", "nasty").await;
    assert_eq!(m["source"], nasty_src.as_str());
    assert_eq!(m["category"], NASTY);
    assert_eq!(
        eval(&mut s, "(Mutated new a: 3; yourself) a").await,
        "3",
        "the compiled methods run"
    );
    assert_eq!(
        eval(&mut s, "Mutated make nasty size").await,
        NASTY.chars().count().to_string()
    );

    // A syntax error: compileError with line and offset, nothing installed.
    let e = fails(
        &mut s,
        "compile_method",
        json!({"className": "Mutated", "source": "broken\n\t^ 1 +"}),
    )
    .await;
    assert_eq!(e["kind"], "compileError", "{e}");
    assert_eq!(e["line"], 2, "{e}");
    assert!(e["offset"].as_u64().is_some_and(|o| o > 7), "{e}");
    // An undefined variable: compileError naming it.
    let e = fails(
        &mut s,
        "compile_method",
        json!({"className": "Mutated", "source": "ghost\n\t^ noSuchThing + 1"}),
    )
    .await;
    assert_eq!(e["kind"], "compileError", "{e}");
    assert!(
        e["message"].as_str().unwrap_or("").contains("noSuchThing"),
        "{e}"
    );
    let methods = ok(&mut s, "list_methods", json!({"className": "Mutated"})).await;
    let listed = methods["structuredContent"].to_string();
    assert!(
        !listed.contains("broken") && !listed.contains("ghost"),
        "{listed}"
    );

    // The comment, with awkward text, read back intact.
    ok(
        &mut s,
        "set_class_comment",
        json!({"className": "Mutated", "comment": NASTY}),
    )
    .await;
    assert_eq!(describe(&mut s, "Mutated").await["comment"], NASTY);

    // A method that reads the instance variable that goes away.
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Mutated", "source": "b\n\t^ a", "category": "old"}),
    )
    .await;
    // Redefine with a new instance variable and without `a`: a new version,
    // methods recompiled onto it, the ones using `a` reported.
    let r = ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Mutated", "instVarNames": ["c"], "classVars": ["Count"],
               "classInstVars": ["registry"]}),
    )
    .await;
    let out = &r["structuredContent"];
    assert_eq!(out["newVersion"], true, "{r}");
    let mut failed: Vec<String> = out["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["selector"].as_str().unwrap().to_string())
        .collect();
    failed.sort();
    assert_eq!(failed, ["a", "a:", "b"], "{r}");
    assert!(text(&r).contains("no longer compile"), "{}", text(&r));
    let d = describe(&mut s, "Mutated").await;
    assert_eq!(strings(&d["instVarNames"]), ["c"]);
    assert_eq!(d["comment"], NASTY, "the comment carries over");
    assert_eq!(
        source_of(&mut s, "Mutated", "nasty").await["source"],
        nasty_src.as_str()
    );
    assert_eq!(
        eval(&mut s, "Mutated make nasty size").await,
        NASTY.chars().count().to_string()
    );

    // A subclass blocks a shape change.
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "MutatedChild", "superclassName": "Mutated"}),
    )
    .await;
    let e = fails(
        &mut s,
        "compile_class_definition",
        json!({"className": "Mutated", "instVarNames": ["c", "d"], "classVars": ["Count"],
               "classInstVars": ["registry"]}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("MutatedChild"),
        "{e}"
    );
    assert_eq!(
        strings(&describe(&mut s, "Mutated").await["instVarNames"]),
        ["c"]
    );
    let e = fails(&mut s, "delete_class", json!({"className": "Mutated"})).await;
    assert_eq!(e["kind"], "refused", "{e}");

    // delete_method and delete_class.
    ok(
        &mut s,
        "delete_method",
        json!({"className": "Mutated", "selector": "make", "meta": true}),
    )
    .await;
    let e = fails(
        &mut s,
        "get_method_source",
        json!({"className": "Mutated", "selector": "make", "meta": true}),
    )
    .await;
    assert_eq!(e["kind"], "notFound");
    let e = fails(
        &mut s,
        "delete_method",
        json!({"className": "Mutated", "selector": "make", "meta": true}),
    )
    .await;
    assert_eq!(e["kind"], "notFound");
    ok(&mut s, "delete_class", json!({"className": "MutatedChild"})).await;
    ok(&mut s, "delete_class", json!({"className": "Mutated"})).await;
    let e = fails(&mut s, "describe_class", json!({"className": "Mutated"})).await;
    assert_eq!(e["kind"], "notFound");
    let e = fails(&mut s, "delete_class", json!({"className": "Mutated"})).await;
    assert_eq!(e["kind"], "notFound");

    // Bad arguments.
    for (tool, args) in [
        ("compile_class_definition", json!({"className": "bad name"})),
        (
            "compile_class_definition",
            json!({"className": "X", "instVarNames": ["a b"]}),
        ),
        ("compile_method", json!({"className": "Object"})),
        (
            "compile_class_definition",
            json!({"className": "Opt", "options": ["bogus"]}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Opt", "instVarNames": ["a", "a"]}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Opt", "instVarNames": ["self"]}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Opt", "classVars": ["nil"]}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Opt", "classInstVars": ["thisContext"]}),
        ),
    ] {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], "invalidParams", "{tool} {args}: {e}");
    }
    // Awkward text in every name argument is a name that is not there, and
    // the message quotes it intact.
    for (tool, args) in [
        (
            "compile_method",
            json!({"className": NASTY, "source": "x ^ 1"}),
        ),
        (
            "delete_method",
            json!({"className": "Object", "selector": NASTY}),
        ),
        ("delete_class", json!({"className": NASTY})),
        (
            "set_class_comment",
            json!({"className": NASTY, "comment": NASTY}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Odd", "superclassName": NASTY}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Odd", "dictionary": NASTY}),
        ),
        (
            "compile_class_definition",
            json!({"className": "Odd", "poolDictionaries": [NASTY]}),
        ),
    ] {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], "notFound", "{tool} {args}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(NASTY),
            "{tool}: {e}"
        );
    }
    let e = fails(
        &mut s,
        "compile_class_definition",
        json!({"className": "UserGlobals"}),
    )
    .await;
    assert_eq!(
        e["kind"], "refused",
        "a binding that is not a class is never replaced: {e}"
    );
    let r = ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Opt", "options": ["modifiable"]}),
    )
    .await;
    assert_eq!(r["structuredContent"]["created"], true, "{r}");
    let e = fails(
        &mut s,
        "compile_method",
        json!({"className": "Opt", "source": "foo: ^ 1"}),
    )
    .await;
    assert_eq!(
        (e["kind"].as_str(), e["line"].as_u64()),
        (Some("compileError"), Some(1)),
        "{e}"
    );
    let e = fails(&mut s, "describe_class", json!({"className": "Odd"})).await;
    assert_eq!(e["kind"], "notFound", "no half-made class is left behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictionaries_come_and_go_and_awkward_names_are_refused() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let long = "d".repeat(257);
    // (name, error kind): not identifiers, or names a dictionary would shadow
    let refused: &[(&str, &str)] = &[
        (NASTY, "invalidParams"),
        ("", "invalidParams"),
        ("it's", "invalidParams"),
        ("a\u{0}b", "invalidParams"),
        ("1abc", "invalidParams"),
        ("Foo Bar", "invalidParams"),
        ("_", "invalidParams"),
        (&long, "invalidParams"),
        ("Object", "refused"),
        ("Transcript", "refused"),
        ("UserGlobals", "refused"),
    ];
    for &(name, kind) in refused {
        let e = fails(&mut s, "add_dictionary", json!({"dictionaryName": name})).await;
        assert_eq!(e["kind"], kind, "{name:?}: {e}");
        let listed = dictionaries(&mut s)
            .await
            .iter()
            .filter(|d| *d == name)
            .count();
        assert_eq!(listed, usize::from(name == "UserGlobals"), "{name:?}");
    }
    // a removal by an awkward name finds nothing and changes nothing
    let e = fails(
        &mut s,
        "remove_dictionary",
        json!({"dictionaryName": NASTY}),
    )
    .await;
    assert_eq!(e["kind"], "notFound", "{e}");

    let name = "Wörterbuch_2";
    ok(&mut s, "add_dictionary", json!({"dictionaryName": name})).await;
    assert!(dictionaries(&mut s).await.iter().any(|d| d == name));
    let e = fails(&mut s, "add_dictionary", json!({"dictionaryName": name})).await;
    assert_eq!(e["kind"], "refused", "{e}");
    // A class defined into it is listed there.
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "InOddDictionary", "dictionary": name}),
    )
    .await;
    let r = ok(&mut s, "list_classes", json!({"dictionaryName": name})).await;
    assert!(r.to_string().contains("InOddDictionary"), "{r}");
    ok(&mut s, "remove_dictionary", json!({"dictionaryName": name})).await;
    assert!(!dictionaries(&mut s).await.iter().any(|d| d == name));
    let e = fails(
        &mut s,
        "describe_class",
        json!({"className": "InOddDictionary"}),
    )
    .await;
    assert_eq!(e["kind"], "notFound");
    let e = fails(&mut s, "remove_dictionary", json!({"dictionaryName": name})).await;
    assert_eq!(e["kind"], "notFound");
    for kept in ["Globals", "UserGlobals"] {
        let e = fails(&mut s, "remove_dictionary", json!({"dictionaryName": kept})).await;
        assert_eq!(e["kind"], "refused", "{kept}: {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guardrail_refuses_unseen_overwrites() {
    let repo = gsmcp_tests::harness::scratch_path("mutation-guard.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    // A writes and commits a class and a method: its own writes never refuse.
    ok(
        &mut a,
        "compile_class_definition",
        json!({"className": "Guarded", "instVarNames": ["x"]}),
    )
    .await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "Guarded", "source": "x ^ x"}),
    )
    .await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "Guarded", "source": "x ^ x + 0"}),
    )
    .await;
    ok(
        &mut a,
        "compile_class_definition",
        json!({"className": "Guarded", "instVarNames": ["x"], "classVars": ["K"]}),
    )
    .await;
    ok(&mut a, "commit", json!({})).await;
    ok(&mut b, "abort", json!({})).await;

    // B has read nothing: every overwrite is refused, naming the remedy.
    for (tool, args, remedy) in [
        (
            "compile_method",
            json!({"className": "Guarded", "source": "x ^ 42"}),
            "get_method_source",
        ),
        (
            "compile_class_definition",
            json!({"className": "Guarded", "instVarNames": ["x", "y"]}),
            "describe_class",
        ),
        (
            "set_class_comment",
            json!({"className": "Guarded", "comment": "mine"}),
            "describe_class",
        ),
    ] {
        let e = fails(&mut b, tool, args).await;
        assert_eq!(e["kind"], "refused", "{tool}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(remedy),
            "{tool}: {e}"
        );
    }
    assert_eq!(
        source_of(&mut a, "Guarded", "x").await["source"],
        "x\n\t^ x + 0"
    );
    // A new method needs no read.
    ok(
        &mut b,
        "compile_method",
        json!({"className": "Guarded", "source": "y ^ 1"}),
    )
    .await;

    // After reading, the same calls succeed.
    source_of(&mut b, "Guarded", "x").await;
    ok(
        &mut b,
        "compile_method",
        json!({"className": "Guarded", "source": "x ^ 42"}),
    )
    .await;
    assert_eq!(
        source_of(&mut b, "Guarded", "x").await["source"],
        "x\n\t^ 42"
    );
    describe(&mut b, "Guarded").await;
    ok(
        &mut b,
        "set_class_comment",
        json!({"className": "Guarded", "comment": "mine"}),
    )
    .await;
    ok(
        &mut b,
        "compile_class_definition",
        json!({"className": "Guarded", "instVarNames": ["x", "y"]}),
    )
    .await;
    assert_eq!(
        strings(&describe(&mut b, "Guarded").await["instVarNames"]),
        ["x", "y"]
    );

    // What A read or wrote before its view moved is not what it sees now: B's
    // committed version must be read before A may overwrite it.
    ok(&mut b, "commit", json!({})).await;
    ok(&mut a, "abort", json!({})).await;
    let e = fails(
        &mut a,
        "compile_method",
        json!({"className": "Guarded", "source": "x ^ 7"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(
        source_of(&mut a, "Guarded", "x").await["source"],
        "x\n\t^ 42"
    );
    ok(
        &mut a,
        "compile_method",
        json!({"className": "Guarded", "source": "x ^ 7"}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_undoes_every_mutation() {
    let repo = gsmcp_tests::harness::scratch_path("mutation-abort.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let mut s = Http::new(&server.url).open().await;

    // Committed baseline: a class with two methods, a comment, a dictionary.
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Kept", "instVarNames": ["a"]}),
    )
    .await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Kept", "source": "a ^ a", "category": "acc"}),
    )
    .await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Kept", "source": "one ^ 1"}),
    )
    .await;
    ok(
        &mut s,
        "set_class_comment",
        json!({"className": "Kept", "comment": "before"}),
    )
    .await;
    ok(
        &mut s,
        "add_dictionary",
        json!({"dictionaryName": "KeptDictionary"}),
    )
    .await;
    ok(&mut s, "commit", json!({})).await;

    // Every kind of change, then abort.
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Kept", "instVarNames": ["a", "b"]}),
    )
    .await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Kept", "source": "one ^ 2"}),
    )
    .await;
    ok(
        &mut s,
        "delete_method",
        json!({"className": "Kept", "selector": "a"}),
    )
    .await;
    ok(
        &mut s,
        "set_class_comment",
        json!({"className": "Kept", "comment": "after"}),
    )
    .await;
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Fleeting"}),
    )
    .await;
    ok(
        &mut s,
        "add_dictionary",
        json!({"dictionaryName": "FleetingDictionary"}),
    )
    .await;
    ok(
        &mut s,
        "remove_dictionary",
        json!({"dictionaryName": "KeptDictionary"}),
    )
    .await;
    let r = ok(&mut s, "status", json!({})).await;
    assert_eq!(r["structuredContent"]["needsCommit"], true, "{r}");
    ok(&mut s, "abort", json!({})).await;

    let d = describe(&mut s, "Kept").await;
    assert_eq!(
        strings(&d["instVarNames"]),
        ["a"],
        "the shape change is undone"
    );
    assert_eq!(d["comment"], "before");
    assert_eq!(
        source_of(&mut s, "Kept", "one").await["source"],
        "one\n\t^ 1"
    );
    assert_eq!(source_of(&mut s, "Kept", "a").await["category"], "acc");
    let e = fails(&mut s, "describe_class", json!({"className": "Fleeting"})).await;
    assert_eq!(e["kind"], "notFound");
    let names = dictionaries(&mut s).await;
    assert!(names.iter().any(|d| d == "KeptDictionary"), "{names:?}");
    assert!(
        !names.iter().any(|d| d == "FleetingDictionary"),
        "{names:?}"
    );
    ok(&mut s, "delete_class", json!({"className": "Kept"})).await;
    ok(&mut s, "abort", json!({})).await;
    describe(&mut s, "Kept").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guardrail_follows_view_moves_made_by_code() {
    let repo = gsmcp_tests::harness::scratch_path("mutation-code-moves.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;
    let compile = |source: &str| json!({"className": "Moved", "source": source});

    ok(
        &mut a,
        "compile_class_definition",
        json!({"className": "Moved"}),
    )
    .await;
    ok(&mut a, "compile_method", compile("x ^ 1")).await;
    ok(&mut a, "commit", json!({})).await;
    ok(&mut b, "abort", json!({})).await;
    assert_eq!(source_of(&mut b, "Moved", "x").await["source"], "x\n\t^ 1");

    // Over GCI the worker cannot see a view move made inside evaluated code
    // (GemStone publishes no per-session view counter; the Login answers no
    // transaction mark), so only the embedded stone runs the rest.
    if gsmcp_tests::test_backend_is_gci() {
        return;
    }

    // A replaces it; B's code aborts, which shows B A's version: what B read
    // before is stale, so B may not overwrite until it reads again.
    ok(&mut a, "compile_method", compile("x ^ 2")).await;
    ok(&mut a, "commit", json!({})).await;
    eval(&mut b, "System abortTransaction").await;
    let e = fails(&mut b, "compile_method", compile("x ^ 3")).await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(source_of(&mut b, "Moved", "x").await["source"], "x\n\t^ 2");
    ok(&mut b, "compile_method", compile("x ^ 3")).await;
    ok(&mut b, "commit", json!({})).await;

    // The same after System continueTransaction and abortTransaction run as
    // code (code may not commit): A reads, B commits a new version, A's code
    // moves A's view.
    for moving in ["System continueTransaction", "System abortTransaction"] {
        ok(&mut a, "abort", json!({})).await;
        let current = source_of(&mut a, "Moved", "x").await["source"]
            .as_str()
            .unwrap()
            .to_string();
        let next = format!("x\n\t^ {}", current.len() * 10);
        ok(&mut b, "abort", json!({})).await;
        source_of(&mut b, "Moved", "x").await;
        ok(&mut b, "compile_method", compile(&next)).await;
        ok(&mut b, "commit", json!({})).await;
        eval(&mut a, moving).await;
        let e = fails(&mut a, "compile_method", compile("x ^ 0")).await;
        assert_eq!(e["kind"], "refused", "after {moving}: {e}");
        assert_eq!(
            source_of(&mut a, "Moved", "x").await["source"],
            next.as_str()
        );
        ok(&mut a, "compile_method", compile("x ^ 0")).await;
    }

    // Code that does not move the view leaves what was read alone.
    ok(&mut b, "abort", json!({})).await;
    source_of(&mut b, "Moved", "x").await;
    eval(&mut b, "3 + 4").await;
    ok(&mut b, "compile_method", compile("x ^ 4")).await;
}
