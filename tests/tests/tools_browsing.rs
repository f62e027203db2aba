//! End-to-end: the Browsing toolset (describe_class, export_class_source,
//! get_class_definition, get_class_hierarchy, get_method_source, list_methods)
//! through `tools/call` on the real router and worker: a class hierarchy is
//! defined with execute_code, then read back through the tools.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{eval, fails, ok, text, NASTY};

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// A Smalltalk string literal for `text` (the test's own quoting).
fn st(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Compiles `source` into `class` (the class side when `meta`) in `category`.
async fn compile(s: &mut Session, class: &str, meta: bool, category: &str, source: &str) {
    let target = if meta {
        format!("{class} class")
    } else {
        class.to_string()
    };
    eval(
        s,
        &format!(
            "{target} compileMethod: {} dictionaries: System myUserProfile symbolList category: {}. true",
            st(source),
            st(category)
        ),
    )
    .await;
}

/// Browsed (ivars a b, class var Count, class-instance var registry, a
/// comment and category) with methods on both sides, and two subclasses.
async fn define(s: &mut Session) {
    eval(
        s,
        "(Object subclass: 'Browsed' instVarNames: #(a b) classVars: #(Count) \
         classInstVars: #(registry) poolDictionaries: #() inDictionary: UserGlobals options: #()) \
         category: 'Browse-Core'. true",
    )
    .await;
    eval(s, &format!("Browsed comment: {}. true", st(NASTY))).await;
    for sub in ["BrowsedLeft", "BrowsedRight"] {
        eval(
            s,
            &format!(
                "Browsed subclass: '{sub}' instVarNames: #(c) classVars: #() classInstVars: #() \
                 poolDictionaries: #() inDictionary: UserGlobals options: #(). true"
            ),
        )
        .await;
    }
    compile(s, "Browsed", false, "accessing", "a\n\t^ a").await;
    compile(s, "Browsed", false, "accessing", "a: x\n\ta := x").await;
    compile(
        s,
        "Browsed",
        false,
        "printing",
        &format!("nasty\n\t^ {}", st(NASTY)),
    )
    .await;
    compile(
        s,
        "Browsed",
        true,
        "instance creation",
        "withA: x\n\t^ self new a: x; yourself",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_class_reads_back_through_every_browsing_tool() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s).await;
    assert_eq!(eval(&mut s, "(Browsed withA: 7) a").await, "7");

    let r = ok(&mut s, "describe_class", json!({"className": "Browsed"})).await;
    let d = &r["structuredContent"];
    assert_eq!(d["name"], "Browsed");
    assert_eq!(d["superclass"], "Object");
    assert_eq!(strings(&d["instVarNames"]), ["a", "b"]);
    assert_eq!(strings(&d["classVarNames"]), ["Count"]);
    assert_eq!(strings(&d["classInstVarNames"]), ["registry"]);
    assert_eq!(d["category"], "Browse-Core");
    assert_eq!(d["comment"], NASTY, "the comment reads back intact");
    let side = |v: &Value| -> Vec<(String, Vec<String>)> {
        v.as_array()
            .expect("categories")
            .iter()
            .map(|c| {
                (
                    c["category"].as_str().unwrap_or("").to_string(),
                    strings(&c["selectors"])
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                )
            })
            .collect()
    };
    assert_eq!(
        side(&d["instanceSide"]),
        vec![
            (
                "accessing".to_string(),
                vec!["a".to_string(), "a:".to_string()]
            ),
            ("printing".to_string(), vec!["nasty".to_string()]),
        ]
    );
    assert_eq!(
        side(&d["classSide"]),
        vec![("instance creation".to_string(), vec!["withA:".to_string()])]
    );
    assert!(text(&r).contains("superclass: Object"), "{}", text(&r));
    assert!(text(&r).contains("accessing: a a:"), "{}", text(&r));

    let r = ok(&mut s, "list_methods", json!({"className": "Browsed"})).await;
    assert_eq!(r["structuredContent"]["instanceSide"], d["instanceSide"]);
    assert_eq!(r["structuredContent"]["classSide"], d["classSide"]);

    let r = ok(
        &mut s,
        "get_method_source",
        json!({"className": "Browsed", "selector": "a:"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["source"], "a: x\n\ta := x");
    assert_eq!(r["structuredContent"]["category"], "accessing");
    assert_eq!(r["structuredContent"]["meta"], false);
    let r = ok(
        &mut s,
        "get_method_source",
        json!({"className": "Browsed", "selector": "nasty"}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["source"],
        format!("nasty\n\t^ {}", st(NASTY))
    );
    let r = ok(
        &mut s,
        "get_method_source",
        json!({"className": "Browsed", "selector": "withA:", "meta": true}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["source"],
        "withA: x\n\t^ self new a: x; yourself"
    );
    assert_eq!(r["structuredContent"]["category"], "instance creation");

    let r = ok(
        &mut s,
        "get_class_definition",
        json!({"className": "Browsed"}),
    )
    .await;
    let def = r["structuredContent"]["definition"]
        .as_str()
        .expect("definition");
    for part in ["Object", "Browsed", "Count", "registry", "UserGlobals"] {
        assert!(def.contains(part), "{part} missing from {def}");
    }
    assert_eq!(r["structuredContent"]["category"], "Browse-Core");

    let r = ok(
        &mut s,
        "get_class_hierarchy",
        json!({"className": "BrowsedLeft"}),
    )
    .await;
    assert_eq!(
        strings(&r["structuredContent"]["superclasses"]),
        ["Object", "Browsed"]
    );
    assert!(strings(&r["structuredContent"]["subclasses"]).is_empty());
    let r = ok(
        &mut s,
        "get_class_hierarchy",
        json!({"className": "Browsed"}),
    )
    .await;
    assert_eq!(
        strings(&r["structuredContent"]["subclasses"]),
        ["BrowsedLeft", "BrowsedRight"]
    );
    assert_eq!(text(&r).lines().next(), Some("Object > Browsed"));

    let r = ok(
        &mut s,
        "export_class_source",
        json!({"className": "Browsed"}),
    )
    .await;
    let source = r["structuredContent"]["source"].as_str().expect("source");
    let nasty_literal = st(NASTY);
    for part in [
        "a: x",
        "withA: x",
        "instance creation",
        "Browsed",
        &nasty_literal,
    ] {
        assert!(
            source.contains(part),
            "{part:?} missing from the file-in:\n{source}"
        );
    }
    assert_eq!(text(&r), source);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_classes_and_methods_are_not_found() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    define(&mut s).await;
    eval(&mut s, "UserGlobals at: #NotAClass put: 3. true").await;
    let class_tools = [
        "describe_class",
        "export_class_source",
        "get_class_definition",
        "get_class_hierarchy",
        "list_methods",
    ];
    for tool in class_tools {
        for name in ["NoSuchClass", "NotAClass", "browsed", NASTY] {
            let e = fails(&mut s, tool, json!({"className": name})).await;
            assert_eq!(e["kind"], "notFound", "{tool} {name}: {e}");
            let m = e["message"].as_str().unwrap_or_default();
            assert!(m.contains(name), "{tool}: the name reads back intact: {m}");
            assert!(m.contains("list_all_classes"), "{tool}: remedy: {m}");
        }
        let e = fails(&mut s, tool, json!({})).await;
        assert_eq!(e["kind"], "invalidParams", "{tool}: {e}");
        let e = fails(&mut s, tool, json!({"className": "Browsed", "x": 1})).await;
        assert_eq!(e["kind"], "invalidParams", "{tool}: {e}");
    }
    // (arguments, expected kind)
    let table = [
        (
            json!({"className": "Browsed", "selector": "zork"}),
            "notFound",
        ),
        (
            json!({"className": "Browsed", "selector": "withA:"}),
            "notFound",
        ),
        (
            json!({"className": "Browsed", "selector": "a", "meta": true}),
            "notFound",
        ),
        (
            json!({"className": "Browsed", "selector": "printString"}),
            "notFound",
        ),
        (
            json!({"className": "Browsed", "selector": NASTY}),
            "notFound",
        ),
        (json!({"className": "Nope", "selector": "a"}), "notFound"),
        (json!({"className": "Browsed"}), "invalidParams"),
        (
            json!({"className": "Browsed", "selector": "a", "meta": "yes"}),
            "invalidParams",
        ),
    ];
    for (args, kind) in table {
        let e = fails(&mut s, "get_method_source", args.clone()).await;
        assert_eq!(e["kind"], kind, "{args}: {e}");
    }
    let e = fails(
        &mut s,
        "get_method_source",
        json!({"className": "Browsed", "selector": NASTY}),
    )
    .await;
    assert!(
        e["message"].as_str().unwrap_or_default().contains(NASTY),
        "{e}"
    );
}
