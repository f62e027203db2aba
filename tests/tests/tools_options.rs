//! End-to-end: toolset options (`MCP_TOOLSET_OPTIONS`) on the real router and
//! workers. Each option's effect is observed through `tools/call`, beside a
//! server with the defaults; an option the router cannot accept stops it before
//! it binds; options never change which tools are listed.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::{Server, ServerBuilder};
use serde_json::{json, Value};
use util::mcp::{Http, Session};
use util::{eval, fails, ok, text};

fn options_server(options: &str) -> Server {
    Server::builder()
        .env("MCP_TOOLSET_OPTIONS", options)
        .start()
}

async fn session(server: &Server) -> Session {
    Http::new(&server.url).open().await
}

fn shown(r: &Value, key: &str) -> usize {
    r["structuredContent"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {r}"))
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_code_cuts_at_max_result_chars() {
    let code = "(String new: 150) atAllPut: $x; yourself";
    // The printString is 152 characters: a quote, 150 x's, a quote.
    // (options, x's kept, characters dropped)
    let table = [("", 150, 0), ("Execution.maxResultChars=100", 99, 52)];
    for (options, kept, dropped) in table {
        let server = options_server(options);
        let mut s = session(&server).await;
        let r = ok(&mut s, "execute_code", json!({"code": code})).await;
        let sc = &r["structuredContent"];
        assert_eq!(sc["droppedCharacters"], dropped, "{options}: {r}");
        assert_eq!(sc["truncated"], dropped > 0, "{options}: {r}");
        let result = sc["result"].as_str().expect("result");
        let printed = result.split('\n').next().unwrap_or("");
        let xs = printed.chars().filter(|c| *c == 'x').count();
        assert_eq!(xs, kept, "{options}: {result}");
        if dropped > 0 {
            assert!(
                result.contains("52 more characters dropped") && result.contains("exceeded 100"),
                "{result}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_tools_page_by_their_toolsets_limits() {
    let server = options_server(
        "Listing.defaultLimit=3 Listing.maxLimit=5 Search.defaultLimit=2 Testing.defaultLimit=1",
    );
    let mut s = session(&server).await;

    let r = ok(&mut s, "list_all_classes", json!({})).await;
    assert_eq!(shown(&r, "classes"), 3, "{r}");
    assert!(text(&r).starts_with("showing 1-3 of "), "{}", text(&r));
    let r = ok(&mut s, "list_all_classes", json!({"limit": 5})).await;
    assert_eq!(shown(&r, "classes"), 5, "{r}");
    let e = fails(&mut s, "list_all_classes", json!({"limit": 6})).await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(m.contains("Listing.maxLimit") && m.contains('5'), "{m}");

    // Search has its own default and no maximum.
    let r = ok(&mut s, "find_implementors", json!({"selector": "printOn:"})).await;
    assert_eq!(shown(&r, "methods"), 2, "{r}");
    let r = ok(
        &mut s,
        "find_implementors",
        json!({"selector": "printOn:", "limit": 50}),
    )
    .await;
    assert!(shown(&r, "methods") > 5, "{r}");

    // Testing's list_test_classes: one by default.
    for name in ["PageATest", "PageBTest"] {
        ok(
            &mut s,
            "compile_class_definition",
            json!({"className": name, "superclassName": "TestCase"}),
        )
        .await;
        ok(
            &mut s,
            "compile_method",
            json!({"className": name, "source": "testOne\n\tself assert: true"}),
        )
        .await;
    }
    let r = ok(&mut s, "list_test_classes", json!({})).await;
    assert_eq!(shown(&r, "classes"), 1, "{r}");

    // The defaults elsewhere: 200 unless the call says otherwise.
    let plain = Server::start();
    let mut p = session(&plain).await;
    let r = ok(&mut p, "list_all_classes", json!({})).await;
    let total = r["structuredContent"]["total"].as_u64().unwrap() as usize;
    assert_eq!(shown(&r, "classes"), total.min(200), "{r}");
    ok(&mut p, "list_all_classes", json!({"limit": 5000})).await;
}

/// Defines class `Blind` with method `x` through execute_code, so the tools'
/// ledger has seen neither.
async fn define_unseen(s: &mut Session) {
    eval(
        s,
        "Object subclass: 'Blind' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: UserGlobals options: #(). \
         (UserGlobals at: #Blind) compileMethod: 'x ^ 1' dictionaries: System myUserProfile symbolList \
         category: 'a' environmentId: 0",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutation_guards_are_on_by_default_and_can_be_turned_off() {
    // (tool, arguments) changing what a kernel class already has.
    let kernel_changes = [
        (
            "compile_method",
            json!({"className": "Object", "source": "yourself ^ nil", "category": "extras"}),
        ),
        (
            "delete_method",
            json!({"className": "Object", "selector": "printString"}),
        ),
        (
            "set_class_comment",
            json!({"className": "OrderedCollection", "comment": "mine"}),
        ),
        ("delete_class", json!({"className": "Bag"})),
        (
            "compile_class_definition",
            json!({"className": "Association", "instVarNames": ["key", "value", "extra"]}),
        ),
        (
            "compile_class_definition",
            json!({"className": "NewInGlobals", "dictionary": "Globals"}),
        ),
    ];

    let guarded = Server::start();
    let mut s = session(&guarded).await;
    for (tool, args) in &kernel_changes {
        let e = fails(&mut s, tool, args.clone()).await;
        assert_eq!(e["kind"], "refused", "{tool} {args}: {e}");
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains("kernelGuard") && message.contains("allowKernelEdits"),
            "{tool}: {e}"
        );
    }
    // Nothing changed.
    assert_eq!(eval(&mut s, "3 yourself").await, "3");
    assert_eq!(eval(&mut s, "(Globals at: #Bag) name").await, "#Bag");
    assert_eq!(eval(&mut s, "Association instVarNames size").await, "2");
    // Read first, still refused: the kernel guard is not the blind-write guard.
    ok(
        &mut s,
        "describe_class",
        json!({"className": "OrderedCollection"}),
    )
    .await;
    let e = fails(
        &mut s,
        "set_class_comment",
        json!({"className": "OrderedCollection", "comment": "mine"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    // A class of one's own is not guarded; an unseen method in it is.
    define_unseen(&mut s).await;
    let e = fails(
        &mut s,
        "compile_method",
        json!({"className": "Blind", "source": "x ^ 2"}),
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains("get_method_source"),
        "{e}"
    );
    let e = fails(
        &mut s,
        "set_class_comment",
        json!({"className": "Blind", "comment": "c"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");

    // A new method on a kernel class is an extension: allowed. Changing it
    // afterwards changes an existing method of a kernel class: the call says so.
    let extension = |source: &str| json!({"className": "Object", "source": source, "category": "*gsmcp-extras"});
    ok(&mut s, "compile_method", extension("gsmcpExtra ^ 41")).await;
    assert_eq!(eval(&mut s, "3 gsmcpExtra").await, "41");
    let e = fails(&mut s, "compile_method", extension("gsmcpExtra ^ 42")).await;
    assert_eq!(e["kind"], "refused", "{e}");
    let mut edit = extension("gsmcpExtra ^ 42");
    edit["allowKernelEdits"] = json!(true);
    ok(&mut s, "compile_method", edit).await;
    assert_eq!(eval(&mut s, "3 gsmcpExtra").await, "42");
    // without a category the method keeps its own
    let mut edit = json!({"className": "Object", "source": "gsmcpExtra ^ 43"});
    edit["allowKernelEdits"] = json!(true);
    let r = ok(&mut s, "compile_method", edit).await;
    assert_eq!(r["structuredContent"]["category"], "*gsmcp-extras", "{r}");

    let open = options_server("Mutation.kernelGuard=off, Mutation.blindWriteGuard=off");
    let mut s = session(&open).await;
    ok(&mut s, "compile_method", extension("gsmcpExtra ^ 42")).await;
    ok(&mut s, "compile_method", extension("gsmcpExtra ^ 44")).await;
    assert_eq!(eval(&mut s, "3 gsmcpExtra").await, "44");
    ok(
        &mut s,
        "set_class_comment",
        json!({"className": "OrderedCollection", "comment": "mine"}),
    )
    .await;
    assert_eq!(eval(&mut s, "OrderedCollection comment").await, "'mine'");
    define_unseen(&mut s).await;
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Blind", "source": "x ^ 2"}),
    )
    .await;
    assert_eq!(eval(&mut s, "Blind new x").await, "2");
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Blind", "instVarNames": ["y"]}),
    )
    .await;
    assert_eq!(eval(&mut s, "Blind instVarNames size").await, "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_failing_tests_runs_at_most_max_test_classes() {
    let server = options_server("Testing.maxTestClasses=2");
    let mut s = session(&server).await;
    let names = ["CapATest", "CapBTest", "CapCTest"];
    for name in names {
        ok(
            &mut s,
            "compile_class_definition",
            json!({"className": name, "superclassName": "TestCase"}),
        )
        .await;
        ok(
            &mut s,
            "compile_method",
            json!({"className": name, "source": "testRed\n\tself assert: false"}),
        )
        .await;
    }
    let r = ok(&mut s, "list_failing_tests", json!({})).await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["classes"], 2, "{r}");
    assert!(sc["classesFound"].as_u64().unwrap() >= 3, "{r}");
    assert!(text(&r).contains("Testing.maxTestClasses"), "{}", text(&r));
    let e = fails(&mut s, "list_failing_tests", json!({"classNames": names})).await;
    assert_eq!(e["kind"], "invalidParams", "{e}");
    let r = ok(
        &mut s,
        "list_failing_tests",
        json!({"classNames": ["CapCTest", "CapATest"]}),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["failing"].as_array().unwrap().len(),
        2,
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_do_not_change_which_tools_are_listed() {
    let server = Server::builder()
        .env("MCP_TOOLSETS", "Execution Session")
        .env("MCP_TOOLSET_OPTIONS", "Execution.maxResultChars=1000")
        .start();
    let mut s = session(&server).await;
    let a = s.request("tools/list", json!({})).await;
    let mut names: Vec<String> = a.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["abort", "commit", "execute_code", "refresh", "status"]
    );
}

#[test]
fn options_the_router_cannot_accept_stop_it_before_binding() {
    // (MCP_TOOLSETS, MCP_TOOLSET_OPTIONS, texts the message must contain)
    let table: &[(Option<&str>, &str, &[&str])] = &[
        (None, "Gardening.depth=3", &["unknown toolset", "Browsing"]),
        (None, "Execution.bogus=1", &["no option", "maxResultChars"]),
        (None, "Execution.maxResultChars=ten", &["from 100 to"]),
        (None, "Mutation.kernelGuard=maybe", &["`true` or `false`"]),
        (None, "Session.anything=1", &["declares no options"]),
        (None, "Search.defaultLimit", &["Toolset.option=value"]),
        (
            None,
            "Listing.defaultLimit=50 Listing.maxLimit=10",
            &["above Listing.maxLimit"],
        ),
        (
            Some("Execution,Session"),
            "Search.defaultLimit=100",
            &["Search", "does not serve", "MCP_TOOLSETS"],
        ),
    ];
    for (toolsets, options, parts) in table {
        let mut b = ServerBuilder::new()
            .without_port()
            .env("MCP_PORT", "0")
            .env("MCP_TOOLSET_OPTIONS", options);
        if let Some(t) = toolsets {
            b = b.env("MCP_TOOLSETS", t);
        }
        let exited = b.run_to_exit();
        assert_eq!(
            exited.status.code(),
            Some(2),
            "{options}: {}",
            exited.stderr
        );
        assert!(
            exited.stdout.is_empty(),
            "{options} listened: {}",
            exited.stdout
        );
        for p in *parts {
            assert!(
                exited.stderr.contains(p),
                "{options}: message lacks {p:?}:\n{}",
                exited.stderr
            );
        }
    }
}
