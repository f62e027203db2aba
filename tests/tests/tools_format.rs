//! End-to-end: the formatter behind `compile_method` and `format_source`.
//! compile_method lays source out by default and says so; `format: false`
//! and `Mutation.formatOnCompile=off` compile the text as given; a compile
//! error is reported at the lines and offsets of the text as given even when
//! it parsed; `format_source` answers the same layout without compiling,
//! and is idempotent.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::{Http, Session};
use util::{eval, fails, ok};

const DEFINE: &str = "Object subclass: 'FmtBox' instVarNames: #(items) classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

const MESSY: &str = "total |sum| sum:=0. items do:[:e| sum:=sum+e].\n^sum";
const TIDY: &str = "total\n\t| sum |\n\tsum := 0.\n\titems do: [:e | sum := sum + e].\n\t^ sum";

async fn source_of(s: &mut Session, selector: &str) -> String {
    let r = ok(
        s,
        "get_method_source",
        json!({"className": "FmtBox", "selector": selector}),
    )
    .await;
    r["structuredContent"]["source"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compile_method_lays_source_out_unless_told_not_to() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    assert_eq!(eval(&mut a, DEFINE).await, "true");

    let r = ok(
        &mut a,
        "compile_method",
        json!({"className": "FmtBox", "source": MESSY}),
    )
    .await;
    assert_eq!(r["structuredContent"]["formatted"], true, "{r}");
    assert_eq!(source_of(&mut a, "total").await, TIDY);
    // compiling the read-back text again changes nothing
    let r = ok(
        &mut a,
        "compile_method",
        json!({"className": "FmtBox", "source": TIDY}),
    )
    .await;
    assert_eq!(r["structuredContent"]["formatted"], false, "{r}");
    assert_eq!(source_of(&mut a, "total").await, TIDY);

    let raw = MESSY.replace("total", "rawTotal");
    let r = ok(
        &mut a,
        "compile_method",
        json!({"className": "FmtBox", "source": raw, "format": false}),
    )
    .await;
    assert_eq!(r["structuredContent"]["formatted"], false, "{r}");
    assert_eq!(source_of(&mut a, "rawTotal").await, raw);

    // a compile error points into the text as given, not the laid-out one
    let e = fails(
        &mut a,
        "compile_method",
        json!({"className": "FmtBox", "source": "broken  ^ items  +  undefinedThing"}),
    )
    .await;
    assert_eq!(e["kind"], "compileError", "{e}");
    assert_eq!(e["line"], 1, "{e}");
    assert_eq!(e["offset"], 21, "{e}");

    // format_source: the same layout, nothing compiled, idempotent
    let r = ok(&mut a, "format_source", json!({"source": MESSY})).await;
    assert_eq!(r["structuredContent"]["source"], TIDY, "{r}");
    assert_eq!(r["structuredContent"]["changed"], true, "{r}");
    let r = ok(&mut a, "format_source", json!({"source": TIDY})).await;
    assert_eq!(r["structuredContent"]["changed"], false, "{r}");
    let e = fails(&mut a, "format_source", json!({"source": "foo\n\t^ (1 + "})).await;
    assert_eq!(e["kind"], "compileError", "{e}");
    assert_eq!(e["line"], 2, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_may_turn_formatting_on_compile_off() {
    let server = Server::builder()
        .env("MCP_TOOLSET_OPTIONS", "Mutation.formatOnCompile=off")
        .start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    assert_eq!(eval(&mut a, DEFINE).await, "true");
    let r = ok(
        &mut a,
        "compile_method",
        json!({"className": "FmtBox", "source": MESSY}),
    )
    .await;
    assert_eq!(r["structuredContent"]["formatted"], false, "{r}");
    assert_eq!(source_of(&mut a, "total").await, MESSY);
    // format_source still answers the layout
    let r = ok(&mut a, "format_source", json!({"source": MESSY})).await;
    assert_eq!(r["structuredContent"]["source"], TIDY, "{r}");
}
