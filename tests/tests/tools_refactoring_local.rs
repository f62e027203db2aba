//! End-to-end: the refactorings inside one method. `extract_temporary`,
//! `inline_temporary`, `extract_method` and `inline_method` take a character
//! range of the source `get_method_source` answers, preview a diff, apply by token, and
//! leave the class's tests green; a range that is not an expression, a
//! selector the class already understands, the wrong number of arguments and
//! a kernel method are refused and write nothing.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::{Http, Session};
use util::{eval, fails, ok, preview_and_apply, source};

const CLASSES: &str = "Object subclass: 'LcInvoice' instVarNames: #(lines rate) \
    classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    TestCase subclass: 'LcInvoiceTest' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

const METHODS: [(&str, &str); 5] = [
    ("LcInvoice", "lines: aCollection rate: aNumber\n\tlines := aCollection.\n\trate := aNumber"),
    (
        "LcInvoice",
        "total\n\t| sum |\n\tsum := lines inject: 0 into: [:a :each | a + each].\n\t^ sum + (sum * rate / 100)",
    ),
    (
        "LcInvoice",
        "report: aStream\n\t| t |\n\tt := self total.\n\taStream nextPutAll: 'total: '.\n\taStream print: t.\n\t^ aStream",
    ),
    (
        "LcInvoiceTest",
        "testTotal\n\tself assert: (LcInvoice new lines: #(100 50) rate: 10) total = 165",
    ),
    (
        "LcInvoiceTest",
        "testReport\n\tself assert: ((LcInvoice new lines: #(10) rate: 0) report: (WriteStream on: String new)) contents = 'total: 10'",
    ),
];

async fn setup(s: &mut Session) {
    assert_eq!(eval(s, CLASSES).await, "true");
    for (class, source) in METHODS {
        ok(
            s,
            "compile_method",
            json!({"className": class, "source": source, "category": "lc"}),
        )
        .await;
    }
}

/// The 1-based inclusive character range of `needle` in `source`.
fn range(source: &str, needle: &str) -> (usize, usize) {
    let byte = source
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {source:?}"));
    let start = source[..byte].chars().count() + 1;
    (start, start + needle.chars().count() - 1)
}

async fn tests_pass(s: &mut Session) {
    let run = ok(s, "run_test_class", json!({"className": "LcInvoiceTest"})).await;
    assert_eq!(run["structuredContent"]["summary"]["passed"], 2, "{run}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporaries_are_extracted_and_inlined() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    let total = source(&mut a, "LcInvoice", "total").await;
    let (start, stop) = range(&total, "sum * rate / 100");
    let (preview, _) = preview_and_apply(
        &mut a,
        "extract_temporary",
        json!({"className": "LcInvoice", "selector": "total", "start": start, "stop": stop,
               "newName": "tax"}),
    )
    .await;
    assert!(
        preview["structuredContent"]["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+\ttax := sum * rate / 100."),
        "{preview}"
    );
    assert_eq!(
        source(&mut a, "LcInvoice", "total").await,
        "total\n\t| sum tax |\n\tsum := lines inject: 0 into: [:a :each | a + each].\n\ttax := sum * rate / 100.\n\t^ sum + tax"
    );
    tests_pass(&mut a).await;

    preview_and_apply(
        &mut a,
        "inline_temporary",
        json!({"className": "LcInvoice", "selector": "total", "name": "tax"}),
    )
    .await;
    assert_eq!(
        source(&mut a, "LcInvoice", "total").await,
        "total\n\t| sum |\n\tsum := lines inject: 0 into: [:a :each | a + each].\n\t^ sum + (sum * rate / 100)"
    );
    tests_pass(&mut a).await;

    // sum's value sends messages and is read twice: inlining is refused
    let e = fails(
        &mut a,
        "inline_temporary",
        json!({"className": "LcInvoice", "selector": "total", "name": "sum"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(e["message"].as_str().unwrap().contains("read 2"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_are_extracted_into_a_method() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    let report = source(&mut a, "LcInvoice", "report:").await;
    let (start, stop) = range(
        &report,
        "aStream nextPutAll: 'total: '.\n\taStream print: t.",
    );
    let args = json!({"className": "LcInvoice", "selector": "report:", "start": start,
                      "stop": stop, "newSelector": "print:on:"});
    // the arguments are named, in order of first use, so the arity must fit
    let e = fails(
        &mut a,
        "extract_method",
        json!({"className": "LcInvoice", "selector": "report:", "start": start,
               "stop": stop, "newSelector": "printTotal"}),
    )
    .await;
    assert_eq!(e["kind"], "refused", "{e}");
    assert!(e["message"].as_str().unwrap().contains("aStream, t"), "{e}");

    let (preview, _) = preview_and_apply(&mut a, "extract_method", args).await;
    assert_eq!(
        preview["structuredContent"]["arguments"],
        json!(["aStream", "t"]),
        "{preview}"
    );
    assert_eq!(
        source(&mut a, "LcInvoice", "report:").await,
        "report: aStream\n\t| t |\n\tt := self total.\n\tself print: aStream on: t.\n\t^ aStream"
    );
    assert_eq!(
        source(&mut a, "LcInvoice", "print:on:").await,
        "print: aStream on: t\n\taStream nextPutAll: 'total: '.\n\taStream print: t"
    );
    tests_pass(&mut a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_an_expression_or_would_clash_is_refused() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    let total = source(&mut a, "LcInvoice", "total").await;
    let (start, stop) = range(&total, "rate / 100");
    let (whole, end) = range(&total, "sum * rate / 100");
    // (tool, args, kind, words the message holds)
    let table = [
        (
            "extract_temporary",
            json!({"className": "LcInvoice", "selector": "total", "start": start, "stop": stop,
                   "newName": "t"}),
            "invalidParams",
            "not one whole expression",
        ),
        (
            "extract_temporary",
            json!({"className": "LcInvoice", "selector": "total", "start": whole, "stop": end,
                   "newName": "rate"}),
            "refused",
            "already names",
        ),
        (
            "extract_method",
            json!({"className": "LcInvoice", "selector": "total", "start": whole, "stop": end,
                   "newSelector": "total"}),
            "refused",
            "already understands",
        ),
        (
            "extract_method",
            json!({"className": "LcInvoice", "selector": "total", "start": whole, "stop": end,
                   "newSelector": "printString"}),
            "refused",
            "implemented by Object",
        ),
        (
            "extract_temporary",
            json!({"className": "LcInvoice", "selector": "nothing", "start": 1, "stop": 2,
                   "newName": "t"}),
            "notFound",
            "has no method nothing",
        ),
        (
            "extract_temporary",
            json!({"className": "LcInvoice", "selector": "total", "start": 0, "stop": 2,
                   "newName": "t"}),
            "invalidParams",
            "1 or more",
        ),
        (
            "extract_temporary",
            json!({"className": "Object", "selector": "printString", "start": 1, "stop": 2,
                   "newName": "t"}),
            "refused",
            "kernel class",
        ),
    ];
    for (tool, args, kind, words) in table {
        let e = fails(&mut a, tool, args.clone()).await;
        assert_eq!(e["kind"], kind, "{tool} {args}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(words),
            "{tool} {args}: {e}"
        );
    }
    assert_eq!(source(&mut a, "LcInvoice", "total").await, total);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_method_is_inlined_where_it_is_sent() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    setup(&mut a).await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "LcInvoice", "source": "tax\n\t^ self total * rate / 100", "category": "lc"}),
    )
    .await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "LcInvoice", "source": "summary\n\t| t |\n\tt := self tax.\n\t^ t", "category": "lc"}),
    )
    .await;
    let summary = source(&mut a, "LcInvoice", "summary").await;
    let (start, stop) = range(&summary, "self tax");
    let (preview, _) = preview_and_apply(
        &mut a,
        "inline_method",
        json!({"className": "LcInvoice", "selector": "summary", "start": start, "stop": stop}),
    )
    .await;
    assert_eq!(
        preview["structuredContent"]["inlined"],
        json!({"className": "LcInvoice", "selector": "tax"}),
        "{preview}"
    );
    assert_eq!(
        source(&mut a, "LcInvoice", "summary").await,
        "summary\n\t| t |\n\tt := self total * rate / 100.\n\t^ t"
    );
    // (selection, words): what is not a send to self, or not one whole send
    let report = source(&mut a, "LcInvoice", "report:").await;
    for (needle, kind, words) in [
        (
            "aStream print: t",
            "invalidParams",
            "not a message sent to self",
        ),
        ("self tot", "invalidParams", "not one whole expression"),
    ] {
        let (start, stop) = range(&report, needle);
        let e = fails(
            &mut a,
            "inline_method",
            json!({"className": "LcInvoice", "selector": "report:", "start": start, "stop": stop}),
        )
        .await;
        assert_eq!(e["kind"], kind, "{needle}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains(words),
            "{needle}: {e}"
        );
    }
    // a method of several statements inlined into an assignment: its
    // temporaries join the caller's, its answer is what is assigned
    let (start, stop) = range(&report, "self total");
    preview_and_apply(
        &mut a,
        "inline_method",
        json!({"className": "LcInvoice", "selector": "report:", "start": start, "stop": stop}),
    )
    .await;
    assert_eq!(
        source(&mut a, "LcInvoice", "report:").await,
        "report: aStream\n\t| t sum |\n\tsum := lines inject: 0 into: [:a :each | a + each].\n\tt := sum + (sum * rate / 100).\n\taStream nextPutAll: 'total: '.\n\taStream print: t.\n\t^ aStream"
    );
    tests_pass(&mut a).await;
}
