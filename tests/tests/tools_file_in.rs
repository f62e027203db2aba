//! End-to-end: `file_in`. An `export_class_source` answer filed into a fresh
//! session reproduces the class exactly (and commits nothing); failures carry
//! the line of the original text and stop the file-in unless asked not to;
//! session commands and malformed text refuse the call before anything runs;
//! the kernel and blind-write guards apply chunk by chunk; a session that may
//! not run code files in definitions and methods but no code chunk.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::{json, Value};
use util::mcp::Http;
use util::{eval, fails, ok};

/// Defines `FiRound` in session `s` through the tools, with methods on both
/// sides, categories, quotes and a comment.
async fn define_round(s: &mut util::mcp::Session) {
    ok(
        s,
        "compile_class_definition",
        json!({"className": "FiRound", "instVarNames": ["count", "label"],
               "classVars": ["Registry"]}),
    )
    .await;
    ok(
        s,
        "set_class_comment",
        json!({"className": "FiRound", "comment": "Counts. It's 100% a test:\n% on a line"}),
    )
    .await;
    let methods = [
        (
            "accessing",
            false,
            "count\n\t\"the count, or 0\"\n\t^ count ifNil: [0]",
        ),
        (
            "accessing",
            false,
            "label\n\t^ label ifNil: ['it''s unnamed']",
        ),
        ("updating", false, "bump\n\tcount := self count + 1"),
        (
            "instance creation",
            true,
            "startingAt: n\n\t^ self new setCount: n",
        ),
        ("private", false, "setCount: n\n\tcount := n"),
    ];
    for (category, meta, source) in methods {
        ok(
            s,
            "compile_method",
            json!({"className": "FiRound", "source": source, "category": category, "meta": meta}),
        )
        .await;
    }
}

fn source_of(export: &Value) -> String {
    export["structuredContent"]["source"]
        .as_str()
        .expect("an export's source")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_class_files_into_a_fresh_session_unchanged() {
    let repo = gsmcp_tests::harness::scratch_path("file-in-round.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    define_round(&mut a).await;
    let exported = source_of(
        &ok(
            &mut a,
            "export_class_source",
            json!({"className": "FiRound"}),
        )
        .await,
    );
    assert_eq!(
        eval(&mut b, "UserGlobals includesKey: #FiRound").await,
        "false"
    );

    let r = ok(&mut b, "file_in", json!({"source": exported})).await;
    let d = &r["structuredContent"];
    assert_eq!(d["failed"], 0, "{r}");
    assert_eq!(d["notRun"], 0, "{r}");
    assert_eq!(d["committed"], false, "{r}");
    let defined: Vec<&str> = d["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["defined"].as_str())
        .collect();
    for what in [
        "class FiRound",
        "comment of FiRound",
        "FiRound>>count",
        "FiRound>>setCount:",
        "FiRound class>>startingAt:",
    ] {
        assert!(defined.contains(&what), "{what} missing from {defined:?}");
    }
    assert!(util::text(&r).contains("Nothing was committed"), "{r}");

    // the round trip: the class b now has exports exactly as a's did
    let again = source_of(
        &ok(
            &mut b,
            "export_class_source",
            json!({"className": "FiRound"}),
        )
        .await,
    );
    assert_eq!(again, exported);
    assert_eq!(
        eval(&mut b, "(FiRound startingAt: 41) bump; count").await,
        "42"
    );
    assert_eq!(eval(&mut b, "FiRound new label").await, "'it''s unnamed'");
    let m = ok(
        &mut b,
        "get_method_source",
        json!({"className": "FiRound", "selector": "bump"}),
    )
    .await;
    assert_eq!(m["structuredContent"]["category"], "updating");

    // nothing was committed: a third session sees no FiRound
    let mut c = http.open().await;
    assert_eq!(
        eval(&mut c, "UserGlobals includesKey: #FiRound").await,
        "false"
    );
    // and filing the same text in again over the class b has read replaces it
    let r = ok(&mut b, "file_in", json!({"source": exported})).await;
    assert_eq!(r["structuredContent"]["failed"], 0, "{r}");
}

const WITH_ERROR: &str = "! a class and three methods, the second broken on its line 3
run
Object subclass: 'FiLines' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'demo'
method: FiLines
one
\t^ 1
%
method: FiLines
two
\t| x |
\tx := .
\t^ x
%
method: FiLines
three
\t^ 3
%
run
FiLines new one + FiLines new three
%
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_name_their_line_and_stop_unless_asked_not_to() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;

    let e = fails(&mut a, "file_in", json!({"source": WITH_ERROR})).await;
    assert_eq!(e["kind"], "compileError", "{e}");
    assert_eq!(e["filedIn"], 2, "{e}");
    assert_eq!(e["failed"], 1, "{e}");
    assert_eq!(e["notRun"], 2, "{e}");
    let failure = &e["failures"][0];
    assert_eq!(failure["line"], 11, "the chunk's opening line: {e}");
    assert_eq!(failure["errorLine"], 14, "the broken line of the text: {e}");
    assert_eq!(failure["command"], "method");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("line 14 (method)"), "{message}");
    assert!(message.contains("2 chunk(s) not run"), "{message}");
    assert!(message.contains("abort discards it"), "{message}");
    assert_eq!(eval(&mut a, "FiLines new one").await, "1");
    assert_eq!(
        eval(&mut a, "FiLines new respondsTo: #three").await,
        "false"
    );

    // stopOnError false: every chunk runs and the one failure is reported
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": WITH_ERROR.replace("FiLines", "FiLines2"), "stopOnError": false}),
    )
    .await;
    assert_eq!(e["filedIn"], 4, "{e}");
    assert_eq!(e["failed"], 1, "{e}");
    assert_eq!(e["notRun"], 0, "{e}");
    let last = e["chunks"].as_array().unwrap().last().cloned().unwrap();
    assert_eq!(last["result"], "4", "{e}");

    // a run-time error in a run chunk names its chunk's line
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "run\n3 + 4\n%\nrun\nnil foo\n%\n"}),
    )
    .await;
    assert_eq!(e["kind"], "other", "{e}");
    assert_eq!(e["failures"][0]["line"], 4, "{e}");
    assert!(e["failures"][0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("foo"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_commands_and_malformed_text_refuse_everything() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    // (text, line named)
    let table = [
        ("method: Object\nfiNever\n\t^ 1\n%\ncommit\n", 5),
        ("method: Object\nfiNever\n\t^ 1\n%\nabort\n", 5),
        ("input /etc/passwd\n", 1),
        ("output push /tmp/fi-out.txt\nrun\n1\n%\n", 1),
        ("method: Object\nfiNever\n\t^ 1\n", 1),
        ("frobnicate\n", 1),
    ];
    for (text, line) in table {
        let e = fails(&mut a, "file_in", json!({"source": text})).await;
        assert_eq!(e["kind"], "invalidParams", "{text:?}: {e}");
        assert_eq!(e["line"], line, "{text:?}: {e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("nothing was filed in"),
            "{text:?}: {e}"
        );
    }
    assert_eq!(
        eval(&mut a, "Object new respondsTo: #fiNever").await,
        "false"
    );
    assert!(!std::path::Path::new("/tmp/fi-out.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guards_apply_to_every_chunk() {
    let repo = gsmcp_tests::harness::scratch_path("file-in-guards.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    // a kernel class: an extension is filed in, a replacement is refused whole
    let r = ok(
        &mut a,
        "file_in",
        json!({"source": "category: 'fi-extensions'\nmethod: Object\nfiExtension\n\t^ #fi\n%\n"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["filedIn"], 1, "{r}");
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "method: Object\nprintString\n\t^ 'hijacked'\n%\n"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("allowKernelEdits"),
        "{e}"
    );
    assert_ne!(eval(&mut a, "3 printString").await, "'hijacked'");
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "run\nObject comment: 'mine now'\n%\n"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "removeallmethods Object\n"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(
        eval(&mut a, "Object includesSelector: #printString").await,
        "true"
    );

    // another session's committed class: not replaced unseen
    define_round(&mut b).await;
    ok(&mut b, "commit", json!({})).await;
    ok(&mut a, "refresh", json!({})).await;
    let redefine = "run\nObject subclass: 'FiRound' instVarNames: #(other) classVars: #() \
                    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()\n%\n";
    let e = fails(&mut a, "file_in", json!({"source": redefine})).await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("has not read"),
        "{e}"
    );
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "removeallmethods FiRound\n"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": "method: FiRound\ncount\n\t^ 7\n%\n"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(eval(&mut a, "FiRound new count").await, "0");
    // once read, the same text files in
    ok(
        &mut a,
        "export_class_source",
        json!({"className": "FiRound"}),
    )
    .await;
    let r = ok(
        &mut a,
        "file_in",
        json!({"source": "removeallmethods FiRound\nmethod: FiRound\ncount\n\t^ 7\n%\n"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["filedIn"], 2, "{r}");
    assert_eq!(eval(&mut a, "FiRound new count").await, "7");
    assert_eq!(eval(&mut a, "FiRound new respondsTo: #bump").await, "false");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_execute_code_only_declarations_and_methods_file_in() {
    let server = Server::builder()
        .env("MCP_TOOLSETS", "Browsing,Listing,Mutation")
        .start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let text =
        "run\nObject subclass: 'FiQuiet' instVarNames: #() classVars: #() classInstVars: #()\n  \
                poolDictionaries: #() inDictionary: UserGlobals options: #()\n%\n\
                run\nFiQuiet comment: 'declared'\n%\n\
                method: FiQuiet\nhello\n\t^ 'hello'\n%\n\
                run\nUserGlobals at: #FiSideEffect put: 42\n%\n";
    let e = fails(
        &mut a,
        "file_in",
        json!({"source": text, "stopOnError": false}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert_eq!(e["filedIn"], 3, "{e}");
    assert_eq!(e["failed"], 1, "{e}");
    assert_eq!(e["failures"][0]["line"], 12, "{e}");
    assert!(
        e["failures"][0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("may not run code"),
        "{e}"
    );
    let described = ok(&mut a, "describe_class", json!({"className": "FiQuiet"})).await;
    assert_eq!(
        described["structuredContent"]["comment"], "declared",
        "{described}"
    );
    let listed = ok(
        &mut a,
        "list_dictionary_entries",
        json!({"dictionaryName": "UserGlobals"}),
    )
    .await;
    assert!(
        !listed.to_string().contains("FiSideEffect"),
        "the code chunk did not run: {listed}"
    );
}
