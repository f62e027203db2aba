//! End-to-end: the repository as MCP resources. Class definitions and method
//! sources (either side, a binary selector percent-encoded) read through
//! `resources/read` in the session's own view; class names and a class's
//! selectors complete; and a subscribed method's `notifications/resources/updated`
//! arrives on the session's GET stream after the session's own compile, and
//! after another session's commit once this session refreshes.

use gsmcp_tests::{request_body, Server, SseConn};
use serde_json::{json, Value};

/// One JSON-RPC request in session `sid`; answers the response message.
fn rpc(server: &Server, sid: &str, id: i64, method: &str, params: Value) -> Value {
    let r = server.post_in(sid, &request_body(id, method, params));
    assert_eq!(r.status, 200, "{method}: {}", r.text());
    r.json()
}

fn call(server: &Server, sid: &str, id: i64, tool: &str, args: Value) -> Value {
    let m = rpc(
        server,
        sid,
        id,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    );
    assert_eq!(m["result"]["isError"], false, "{tool} {args}: {m}");
    m["result"].clone()
}

const CLASSES: &str = "Object subclass: 'ResClock' instVarNames: #(ticks) classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. \
    Object subclass: 'ResCloud' instVarNames: #() classVars: #() \
    classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true";

const METHODS: &str = "ResClock compileMethod: 'tick\n\t^ ticks := (ticks ifNil: [0]) + 1' \
        dictionaries: System myUserProfile symbolList category: 'ticking'. \
    ResClock compileMethod: 'tock\n\t^ ticks' \
        dictionaries: System myUserProfile symbolList category: 'ticking'. \
    ResClock compileMethod: '// n\n\t^ ticks // n' \
        dictionaries: System myUserProfile symbolList category: 'arithmetic'. \
    ResClock class compileMethod: 'started\n\t^ self new tick; yourself' \
        dictionaries: System myUserProfile symbolList category: 'instance creation'. \
    true";

/// Defines ResClock (with methods on both sides) and ResCloud, and commits.
fn setup(server: &Server, sid: &str) {
    for code in [CLASSES, METHODS] {
        let r = call(server, sid, 2, "execute_code", json!({ "code": code }));
        assert_eq!(r["content"][0]["text"], "true", "{r}");
    }
    call(server, sid, 3, "commit", json!({}));
}

fn read(server: &Server, sid: &str, uri: &str) -> Value {
    rpc(server, sid, 50, "resources/read", json!({"uri": uri}))
}

fn text_of(m: &Value) -> &str {
    m["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn classes_and_methods_read_and_complete_as_resources() {
    let repo = gsmcp_tests::harness::scratch_path("resources-read.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let s = server.open_session();
    assert_eq!(
        s.init["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false})
    );
    setup(&server, &s.id);

    let templates = rpc(&server, &s.id, 3, "resources/templates/list", json!({}));
    let uris: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "gemstone://class/{className}",
            "gemstone://method/{className}/{selector}",
            "gemstone://method/{className}/class/{selector}"
        ]
    );

    // (uri, text it begins with); the definition as get_class_definition tells it
    let definition = call(
        &server,
        &s.id,
        4,
        "get_class_definition",
        json!({"className": "ResClock"}),
    );
    let table = [
        (
            "gemstone://class/ResClock",
            definition["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string(),
        ),
        (
            "gemstone://method/ResClock/tick",
            "tick\n\t^ ticks := (ticks ifNil: [0]) + 1".to_string(),
        ),
        (
            "gemstone://method/ResClock/%2F%2F",
            "// n\n\t^ ticks // n".to_string(),
        ),
        (
            "gemstone://method/ResClock/class/started",
            "started\n\t^ self new tick; yourself".to_string(),
        ),
    ];
    for (uri, text) in &table {
        let m = read(&server, &s.id, uri);
        assert_eq!(text_of(&m), text, "{uri}: {m}");
        assert_eq!(m["result"]["contents"][0]["uri"], *uri, "{m}");
        assert_eq!(
            m["result"]["contents"][0]["mimeType"], "text/x-smalltalk",
            "{m}"
        );
    }
    // what does not exist is -32002, what is malformed -32602
    for uri in [
        "gemstone://class/NoSuchClass",
        "gemstone://method/ResClock/noSuchSelector",
        "gemstone://method/ResClock/class/tick",
        "gemstone://method/ResClock/%ZZ",
        "gemstone://class/Res'Clock",
    ] {
        let m = read(&server, &s.id, uri);
        assert_eq!(m["error"]["code"], -32002, "{uri}: {m}");
    }

    // completion: class names by prefix, then the chosen class's selectors
    let complete = |id, uri: &str, name: &str, value: &str, given: Value| {
        let m = rpc(
            &server,
            &s.id,
            id,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": uri},
                   "argument": {"name": name, "value": value},
                   "context": {"arguments": given}}),
        );
        m["result"]["completion"].clone()
    };
    let c = complete(
        10,
        "gemstone://class/{className}",
        "className",
        "ResClo",
        json!({}),
    );
    assert_eq!(c["values"], json!(["ResClock", "ResCloud"]), "{c}");
    assert_eq!(c["total"], 2);
    let c = complete(
        11,
        "gemstone://class/{className}",
        "className",
        "",
        json!({}),
    );
    let total = c["total"].as_u64().unwrap();
    assert!(total >= 50, "every class: {c}");
    let listed = c["values"].as_array().unwrap().len() as u64;
    assert_eq!(listed, total.min(100), "{c}");
    assert_eq!(c["hasMore"], total > 100, "{c}");
    let method = "gemstone://method/{className}/{selector}";
    let c = complete(
        12,
        method,
        "selector",
        "t",
        json!({"className": "ResClock"}),
    );
    assert_eq!(c["values"], json!(["tick", "tock"]), "{c}");
    let c = complete(13, method, "selector", "", json!({}));
    assert_eq!(c["values"], json!([]), "no class chosen yet: {c}");
    let c = complete(
        14,
        "gemstone://method/{className}/class/{selector}",
        "selector",
        "",
        json!({"className": "ResClock"}),
    );
    assert_eq!(c["values"], json!(["started"]), "{c}");
}

#[test]
fn a_subscribed_method_reports_changes_on_the_get_stream() {
    let repo = gsmcp_tests::harness::scratch_path("resources-subscribe.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let a = server.open_session();
    let b = server.open_session();
    setup(&server, &a.id);
    call(&server, &b.id, 2, "refresh", json!({}));

    let tick = "gemstone://method/ResClock/tick";
    let m = rpc(
        &server,
        &a.id,
        3,
        "resources/subscribe",
        json!({"uri": tick}),
    );
    assert_eq!(m["result"], json!({}), "{m}");
    let m = rpc(
        &server,
        &a.id,
        4,
        "resources/subscribe",
        json!({"uri": "gemstone://method/ResClock/nothingHere"}),
    );
    assert_eq!(m["error"]["code"], -32002, "{m}");
    let mut stream = SseConn::get(&server, &a.id);
    assert_eq!(stream.status, 200);
    stream.next_event().expect("priming event");

    // the session's own compile
    call(
        &server,
        &a.id,
        5,
        "get_method_source",
        json!({"className": "ResClock", "selector": "tick"}),
    );
    call(
        &server,
        &a.id,
        5,
        "compile_method",
        json!({"className": "ResClock", "source": "tick\n\t^ ticks := (ticks ifNil: [0]) + 2"}),
    );
    let note = stream.next_message().expect("an update after the compile");
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": tick}})
    );
    call(&server, &a.id, 6, "commit", json!({}));

    // another session commits a change; this session hears of it when its
    // view moves (refresh), not before
    call(&server, &b.id, 7, "refresh", json!({}));
    call(
        &server,
        &b.id,
        8,
        "get_method_source",
        json!({"className": "ResClock", "selector": "tick"}),
    );
    call(
        &server,
        &b.id,
        9,
        "compile_method",
        json!({"className": "ResClock", "source": "tick\n\t^ ticks := (ticks ifNil: [0]) + 3"}),
    );
    call(&server, &b.id, 10, "commit", json!({}));
    let m = read(&server, &a.id, tick);
    assert!(text_of(&m).contains("+ 2"), "a's view has not moved: {m}");
    call(&server, &a.id, 11, "refresh", json!({}));
    let note = stream.next_message().expect("an update after the refresh");
    assert_eq!(note["params"]["uri"], tick, "{note}");
    let m = read(&server, &a.id, tick);
    assert!(text_of(&m).contains("+ 3"), "{m}");

    // a deleted method is an update too, and unsubscribing stops them
    call(
        &server,
        &a.id,
        12,
        "delete_method",
        json!({"className": "ResClock", "selector": "tick"}),
    );
    let note = stream.next_message().expect("an update after the delete");
    assert_eq!(note["params"]["uri"], tick, "{note}");
    let m = rpc(
        &server,
        &a.id,
        13,
        "resources/unsubscribe",
        json!({"uri": tick}),
    );
    assert_eq!(m["result"], json!({}), "{m}");
    call(&server, &a.id, 14, "abort", json!({}));
    let m = rpc(
        &server,
        &a.id,
        15,
        "resources/subscribe",
        json!({"uri": tick}),
    );
    assert_eq!(m["result"], json!({}), "the abort brought tick back: {m}");
    // the abort sent nothing for tick: the next update is tock's
    let tock = "gemstone://method/ResClock/tock";
    rpc(
        &server,
        &a.id,
        16,
        "resources/subscribe",
        json!({"uri": tock}),
    );
    call(
        &server,
        &a.id,
        17,
        "get_method_source",
        json!({"className": "ResClock", "selector": "tock"}),
    );
    call(
        &server,
        &a.id,
        18,
        "compile_method",
        json!({"className": "ResClock", "source": "tock\n\t^ ticks ifNil: [0]"}),
    );
    let note = stream.next_message().expect("an update for tock");
    assert_eq!(note["params"]["uri"], tock, "{note}");
}

#[test]
fn view_hygiene_that_brings_in_a_commit_reports_it() {
    let repo = gsmcp_tests::harness::scratch_path("resources-hygiene.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_MAX_COMMITS_BEHIND", "1")
        .start();
    let a = server.open_session();
    let b = server.open_session();
    setup(&server, &a.id);
    let uri = "gemstone://class/ResCloud";
    let m = rpc(
        &server,
        &a.id,
        4,
        "resources/subscribe",
        json!({ "uri": uri }),
    );
    assert_eq!(m["result"], json!({}), "{m}");
    let mut stream = SseConn::get(&server, &a.id);
    stream.next_event().expect("priming event");

    // b redefines ResCloud and commits; a's next call (one that only reads)
    // reports a view one commit behind, and the router's refresh that follows
    // brings the new definition in
    call(&server, &b.id, 5, "refresh", json!({}));
    call(
        &server,
        &b.id,
        6,
        "describe_class",
        json!({"className": "ResCloud"}),
    );
    call(
        &server,
        &b.id,
        7,
        "compile_class_definition",
        json!({"className": "ResCloud", "instVarNames": ["rain"]}),
    );
    call(&server, &b.id, 8, "commit", json!({}));
    if gsmcp_tests::test_backend_is_gci() {
        // a GemStone stone does not say how far behind a view is, so the
        // router has no hygiene to do there: the client's refresh brings it in
        call(&server, &a.id, 9, "refresh", json!({}));
    } else {
        call(&server, &a.id, 9, "status", json!({}));
    }
    let note = stream.next_message().expect("an update after view hygiene");
    assert_eq!(note["params"]["uri"], uri, "{note}");
    let m = read(&server, &a.id, uri);
    assert!(text_of(&m).contains("rain"), "{m}");
}
