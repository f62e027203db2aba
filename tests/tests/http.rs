//! The router's HTTP surface against the real `gsmcp` binary: the transport's
//! gates and error paths, request limits, keep-alive and pipelining, session
//! lifecycle and limits, worker supervision seen through the process table,
//! signals, and start-up validation of every knob.

use gsmcp_tests::harness::scratch_path;
use gsmcp_tests::{
    children_of, initialize_body, request_body, wait_until, worker_of_session, workers_of, Server,
    ServerBuilder,
};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
const BOUND: Duration = Duration::from_secs(20);

fn no_zombies(server: &Server) {
    let zombies: Vec<_> = children_of(server.pid())
        .into_iter()
        .filter(|p| p.is_zombie())
        .collect();
    assert!(
        zombies.is_empty(),
        "zombie children of the router: {zombies:?}"
    );
}

/// A row of the gate table: a request and what the router must answer.
struct Gate<'a> {
    name: &'a str,
    method: &'a str,
    path: &'a str,
    /// `{host}` is replaced by the router's `127.0.0.1:<port>`, `{port}` by its port.
    headers: &'a [(&'a str, &'a str)],
    body: &'a str,
    status: u16,
    /// Expected JSON-RPC error code of the body, if the body must be one.
    code: Option<i64>,
}

#[rustfmt::skip]
#[test]
fn gates_without_a_session() {
    let server = Server::start();
    let json = ("Content-Type", "application/json");
    let accept = ("Accept", "application/json, text/event-stream");
    let host = ("Host", "{host}");
    let unknown = ("Mcp-Session-Id", "00000000000000000000000000000000");
    let table = [
        Gate { name: "request without session", method: "POST", path: "/mcp", headers: &[host, json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "malformed JSON", method: "POST", path: "/mcp", headers: &[host, json, accept], body: "{\"jsonrpc\":", status: 400, code: Some(-32700) },
        Gate { name: "not UTF-8", method: "POST", path: "/mcp", headers: &[host, json, accept], body: "", status: 400, code: Some(-32700) },
        Gate { name: "empty body", method: "POST", path: "/mcp", headers: &[host, json, accept], body: "", status: 400, code: Some(-32700) },
        Gate { name: "batch", method: "POST", path: "/mcp", headers: &[host, json, accept], body: r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, status: 400, code: Some(-32600) },
        Gate { name: "no jsonrpc member", method: "POST", path: "/mcp", headers: &[host, json, accept], body: r#"{"id":1,"method":"ping"}"#, status: 400, code: Some(-32600) },
        Gate { name: "null id", method: "POST", path: "/mcp", headers: &[host, json, accept], body: r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, status: 400, code: Some(-32600) },
        Gate { name: "object id", method: "POST", path: "/mcp", headers: &[host, json, accept], body: r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, status: 400, code: Some(-32600) },
        Gate { name: "initialize as notification", method: "POST", path: "/mcp", headers: &[host, json, accept], body: r#"{"jsonrpc":"2.0","method":"initialize","params":{}}"#, status: 400, code: Some(-32600) },
        Gate { name: "initialize with a session id", method: "POST", path: "/mcp", headers: &[host, json, accept, unknown], body: r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, status: 400, code: Some(-32600) },
        Gate { name: "unknown session", method: "POST", path: "/mcp", headers: &[host, json, accept, unknown], body: PING, status: 404, code: Some(-32001) },
        Gate { name: "unsupported protocol version", method: "POST", path: "/mcp", headers: &[host, json, accept, unknown, ("MCP-Protocol-Version", "1999-01-01")], body: PING, status: 400, code: Some(-32600) },
        Gate { name: "malformed session id", method: "POST", path: "/mcp", headers: &[host, json, accept, ("Mcp-Session-Id", "a b")], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "GET without session", method: "GET", path: "/mcp", headers: &[host, ("Accept", "text/event-stream")], body: "", status: 400, code: Some(-32000) },
        Gate { name: "GET unknown session", method: "GET", path: "/mcp", headers: &[host, ("Accept", "text/event-stream"), unknown], body: "", status: 404, code: Some(-32001) },
        Gate { name: "DELETE without session", method: "DELETE", path: "/mcp", headers: &[host], body: "", status: 400, code: Some(-32000) },
        Gate { name: "DELETE unknown session", method: "DELETE", path: "/mcp", headers: &[host, unknown], body: "", status: 404, code: Some(-32001) },
        Gate { name: "PUT", method: "PUT", path: "/mcp", headers: &[host, json], body: PING, status: 405, code: Some(-32000) },
        Gate { name: "PATCH", method: "PATCH", path: "/mcp", headers: &[host, json], body: PING, status: 405, code: Some(-32000) },
        Gate { name: "OPTIONS", method: "OPTIONS", path: "/mcp", headers: &[host], body: "", status: 405, code: Some(-32000) },
        Gate { name: "other path", method: "POST", path: "/other", headers: &[host, json, accept], body: PING, status: 404, code: Some(-32000) },
        Gate { name: "root path", method: "GET", path: "/", headers: &[host], body: "", status: 404, code: Some(-32000) },
        Gate { name: "Accept allows neither JSON nor SSE", method: "POST", path: "/mcp", headers: &[host, json, ("Accept", "text/html")], body: PING, status: 406, code: Some(-32000) },
        Gate { name: "Accept refuses JSON with q=0", method: "POST", path: "/mcp", headers: &[host, json, ("Accept", "application/json;q=0")], body: PING, status: 406, code: Some(-32000) },
        Gate { name: "missing Accept is lenient", method: "POST", path: "/mcp", headers: &[host, json], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "Accept */*", method: "POST", path: "/mcp", headers: &[host, json, ("Accept", "*/*")], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "foreign Host", method: "POST", path: "/mcp", headers: &[("Host", "evil.example.com"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "foreign Host with our port", method: "POST", path: "/mcp", headers: &[("Host", "evil.example.com:{port}"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "loopback Host on another port", method: "POST", path: "/mcp", headers: &[("Host", "localhost:1"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "missing Host", method: "POST", path: "/mcp", headers: &[json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "foreign Origin", method: "POST", path: "/mcp", headers: &[host, ("Origin", "http://evil.example.com"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "null Origin", method: "POST", path: "/mcp", headers: &[host, ("Origin", "null"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "look-alike Origin", method: "POST", path: "/mcp", headers: &[host, ("Origin", "http://localhost.evil.com"), json, accept], body: PING, status: 403, code: Some(-32000) },
        Gate { name: "Host/Origin checked before the path", method: "GET", path: "/nowhere", headers: &[("Host", "evil.example.com")], body: "", status: 403, code: Some(-32000) },
        Gate { name: "localhost Host passes", method: "POST", path: "/mcp", headers: &[("Host", "localhost:{port}"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "bare localhost Host passes", method: "POST", path: "/mcp", headers: &[("Host", "localhost"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "IPv6 loopback Host passes", method: "POST", path: "/mcp", headers: &[("Host", "[::1]:{port}"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "loopback Origin on another port passes", method: "POST", path: "/mcp", headers: &[host, ("Origin", "http://localhost:6274"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "https loopback Origin passes", method: "POST", path: "/mcp", headers: &[host, ("Origin", "https://127.0.0.1"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "two Host headers", method: "POST", path: "/mcp", headers: &[host, ("Host", "evil.example.com"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "the same Host twice", method: "POST", path: "/mcp", headers: &[host, host, json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "a foreign Host second", method: "GET", path: "/nowhere", headers: &[host, ("Host", "evil.example.com:{port}")], body: "", status: 400, code: Some(-32000) },
        Gate { name: "two Origin headers", method: "POST", path: "/mcp", headers: &[host, ("Origin", "http://localhost:6274"), ("Origin", "http://evil.example.com"), json, accept], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "two session ids", method: "POST", path: "/mcp", headers: &[host, json, accept, unknown, unknown], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "two protocol versions", method: "POST", path: "/mcp", headers: &[host, json, accept, unknown, ("MCP-Protocol-Version", "2025-11-25"), ("MCP-Protocol-Version", "2025-06-18")], body: PING, status: 400, code: Some(-32000) },
        Gate { name: "differing Content-Lengths", method: "POST", path: "/mcp", headers: &[host, json, accept, ("Content-Length", "40"), ("Content-Length", "41")], body: PING, status: 400, code: None },
    ];
    let port = server.port().to_string();
    let host = server.host();
    for gate in &table {
        let headers: Vec<(String, String)> = gate
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.replace("{host}", &host).replace("{port}", &port)))
            .collect();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let body: &[u8] = if gate.name == "not UTF-8" { b"\xff\xfe\xfd" } else { gate.body.as_bytes() };
        // `request` adds Host unless given; "missing Host" needs a raw send.
        let r = if gate.name == "missing Host" {
            let mut conn = server.connect();
            conn.send(&gsmcp_tests::harness_http::format_request(gate.method, gate.path, &headers, body));
            conn.read_response().expect("response")
        } else {
            server.request(gate.method, gate.path, &headers, body)
        };
        assert_eq!(r.status, gate.status, "{}: {}", gate.name, r.text());
        if let Some(code) = gate.code {
            assert_eq!(r.rpc_error_code(), Some(code), "{}: {}", gate.name, r.text());
            assert_eq!(r.header("content-type"), Some("application/json"), "{}", gate.name);
        }
        if r.status == 405 {
            assert_eq!(r.header("allow"), Some("GET, POST, DELETE"), "{}", gate.name);
        }
        if r.status == 403 {
            assert!(r.json().get("id").is_none(), "{}: a 403 body carries no id: {}", gate.name, r.text());
        }
        assert!(r.header("mcp-session-id").is_none(), "{}", gate.name);
    }
    // None of these started a worker.
    assert!(workers_of(server.port()).is_empty());
}

#[test]
fn session_lifecycle_and_protocol_version_header() {
    let server = Server::start();
    let session = server.open_session();
    assert_eq!(session.id.len(), 32);
    assert!(
        session.id.chars().all(|c| c.is_ascii_hexdigit()),
        "{}",
        session.id
    );
    assert_eq!(
        session.init["result"]["protocolVersion"],
        json!("2025-11-25")
    );
    let worker = worker_of_session(server.port(), &session.id).expect("a worker for the session");
    assert_eq!(worker.ppid, server.pid() as i32);
    assert_eq!(
        worker.argv[1..],
        [
            server.port().to_string(),
            session.id[..8].to_string(),
            "DataCurator".to_string()
        ]
    );

    // Any supported revision, or none, is accepted; anything else is a 400.
    for (version, status) in [
        (Some("2025-11-25"), 200),
        (Some("2025-06-18"), 200),
        (Some("2025-03-26"), 200),
        (None, 200),
        (Some("2024-11-05"), 400),
        (Some("2099-01-01"), 400),
        (Some("garbage"), 400),
    ] {
        let mut headers = vec![("Mcp-Session-Id", session.id.as_str())];
        if let Some(v) = version {
            headers.push(("MCP-Protocol-Version", v));
        }
        let r = server.post(&request_body(7, "ping", json!({})), &headers);
        assert_eq!(r.status, status, "{version:?}: {}", r.text());
        if status == 200 {
            assert_eq!(r.json()["id"], json!(7));
            assert_eq!(r.json()["result"], json!({}));
        } else {
            assert_eq!(r.rpc_error_code(), Some(-32600));
        }
    }

    // A string id comes back as it went.
    let r = server.post_in(
        &session.id,
        r#"{"jsonrpc":"2.0","id":"abc","method":"tools/list"}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["id"], json!("abc"));
    assert!(r.json()["result"]["tools"].is_array(), "{}", r.text());

    // A second initialize on the session is refused.
    let r = server.post(
        &initialize_body(2, "2025-11-25"),
        &[("Mcp-Session-Id", &session.id)],
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.rpc_error_code(), Some(-32600));
    assert_eq!(r.json()["id"], json!(2));

    // Notifications and client responses: 202, no body.
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        r#"{"jsonrpc":"2.0","id":"server-1","result":{}}"#,
    ] {
        let r = server.post_in(&session.id, body);
        assert_eq!(r.status, 202, "{body}");
        assert!(r.body.is_empty(), "{body}: {}", r.text());
    }

    // GET on a live session opens its standalone stream; it must accept one.
    let mut stream = gsmcp_tests::SseConn::get(&server, &session.id);
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let priming = stream.next_event().expect("priming event");
    assert_eq!(priming.data.as_deref(), Some(""), "{priming:?}");
    let r = server.request(
        "GET",
        "/mcp",
        &[
            ("Accept", "application/json"),
            ("Mcp-Session-Id", &session.id),
        ],
        b"",
    );
    assert_eq!(r.status, 406, "{}", r.text());

    // DELETE ends the session and its worker (and its stream); the id is then unknown.
    let r = server.request("DELETE", "/mcp", &[("Mcp-Session-Id", &session.id)], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        stream.next_event(),
        None,
        "the stream ends with the session"
    );
    assert!(
        worker_of_session(server.port(), &session.id).is_none(),
        "worker still running after DELETE"
    );
    no_zombies(&server);
    for (method, body) in [("POST", PING), ("DELETE", ""), ("GET", "")] {
        let r = server.request(
            method,
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("Mcp-Session-Id", &session.id),
            ],
            body.as_bytes(),
        );
        assert_eq!(r.status, 404, "{method} after DELETE: {}", r.text());
    }
}

#[test]
fn body_limit_is_decided_on_content_length_before_the_body() {
    let server = Server::start();
    let mut conn = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n",
        server.host(),
        8 * 1024 * 1024 + 1
    );
    conn.send(head.as_bytes());
    // Not one byte of the body was sent, yet the answer comes.
    let r = conn.read_response().expect("413 without the body");
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.rpc_error_code(), Some(-32000));
    assert_eq!(r.header("connection"), Some("close"));

    // Exactly at the limit the body is read (and judged as JSON).
    let mut conn = server.connect();
    let body = vec![b' '; 8 * 1024 * 1024];
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.host(),
        body.len()
    );
    conn.send(head.as_bytes());
    conn.send(&body);
    let r = conn.read_response().expect("answer at the limit");
    assert_eq!(r.status, 400);
    assert_eq!(r.rpc_error_code(), Some(-32700));
}

#[test]
fn chunked_body_over_the_limit_is_refused_while_streaming() {
    let server = Server::start();
    let mut conn = server.connect();
    let len = 8 * 1024 * 1024 + 1;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{len:x}\r\n",
        server.host()
    );
    conn.send(head.as_bytes());
    // The chunk's data, without the terminating chunk: the server must decide
    // from what it has counted so far.
    conn.send(&vec![b' '; len]);
    let r = conn.read_response().expect("413 while streaming");
    assert_eq!(r.status, 413, "{}", r.text());
}

#[test]
fn oversized_head_is_refused() {
    let server = Server::start();
    let mut conn = server.connect();
    let filler = "x".repeat(70 * 1024);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nX-Filler: {filler}\r\nContent-Length: 0\r\n\r\n",
        server.host()
    );
    let _ = conn.try_send(head.as_bytes());
    let r = conn
        .read_response()
        .expect("an answer to an oversized head");
    assert_eq!(r.status, 431, "{}", r.text());

    // Many small headers count as much as one big one.
    let mut conn = server.connect();
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.host());
    for i in 0..90 {
        head.push_str(&format!("X-Filler-{i}: {}\r\n", "y".repeat(800)));
    }
    head.push_str("Content-Length: 0\r\n\r\n");
    let _ = conn.try_send(head.as_bytes());
    let r = conn
        .read_response()
        .expect("an answer to an oversized head");
    assert_eq!(r.status, 431, "{}", r.text());

    // A head just under the limit is fine.
    let filler = "x".repeat(60 * 1024);
    let r = server.request(
        "POST",
        "/mcp",
        &[("X-Filler", &filler), ("Content-Type", "application/json")],
        PING.as_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.rpc_error_code(), Some(-32000));
}

/// `Transfer-Encoding` beside `Content-Length`: the body is read chunked
/// (never by the length), only one request is answered and the connection is
/// closed after it, so a second request hidden in the body never runs.
#[test]
fn a_body_framed_two_ways_cannot_smuggle_a_request() {
    let server = Server::start();
    let host = server.host();
    let hidden = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        PING.len(),
        PING
    );
    for (te_first, length) in [(true, PING.len()), (false, PING.len()), (false, 0)] {
        let chunked = format!("{:x}\r\n{PING}\r\n0\r\n\r\n{hidden}", PING.len());
        let framing = if te_first {
            format!("Transfer-Encoding: chunked\r\nContent-Length: {length}\r\n")
        } else {
            format!("Content-Length: {length}\r\nTransfer-Encoding: chunked\r\n")
        };
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json\r\n{framing}\r\n"
        );
        let mut conn = server.connect();
        conn.send(format!("{head}{chunked}").as_bytes());
        let all = String::from_utf8_lossy(&conn.read_to_close().expect("read")).into_owned();
        assert_eq!(
            all.matches("HTTP/1.1 ").count(),
            1,
            "one answer only: {all}"
        );
        // the chunked body was the request: a ping without a session
        assert!(all.starts_with("HTTP/1.1 400"), "{all}");
        assert!(all.contains("-32000"), "{all}");
    }
}

#[test]
fn keep_alive_and_pipelining_answer_in_order() {
    let server = Server::start();
    let session = server.open_session();
    let host = server.host();
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Session-Id", session.id.as_str()),
    ];
    let mut conn = server.connect();
    // Three requests in one write: a tools/list, a ping, and one without a session.
    let mut bytes = gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &headers,
        request_body(10, "tools/list", json!({})).as_bytes(),
    );
    bytes.extend(gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &headers,
        request_body(11, "ping", json!({})).as_bytes(),
    ));
    bytes.extend(gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &headers[..3],
        PING.as_bytes(),
    ));
    conn.send(&bytes);
    let first = conn.read_response().expect("first answer");
    let second = conn.read_response().expect("second answer");
    let third = conn.read_response().expect("third answer");
    assert_eq!(
        (first.status, first.json()["id"].clone()),
        (200, json!(10)),
        "{}",
        first.text()
    );
    assert!(first.json()["result"]["tools"].is_array());
    assert_eq!(
        (second.status, second.json()["id"].clone()),
        (200, json!(11))
    );
    assert_eq!(third.status, 400);
    // The connection stays usable.
    conn.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &headers,
        request_body(12, "ping", json!({})).as_bytes(),
    ));
    let fourth = conn.read_response().expect("fourth answer");
    assert_eq!(fourth.json()["id"], json!(12));
}

#[test]
fn stalled_requests_are_dropped() {
    let server = Server::builder()
        .env("MCP_REQUEST_READ_TIMEOUT", "300ms")
        .start();
    // A head that never ends.
    let mut conn = server.connect();
    conn.send(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: appl",
            server.host()
        )
        .as_bytes(),
    );
    let rest = conn.read_to_close().unwrap_or_default();
    let text = String::from_utf8_lossy(&rest);
    assert!(
        rest.is_empty() || text.starts_with("HTTP/1.1 408"),
        "unexpected answer to a stalled head: {text:?}"
    );

    // A body that never completes.
    let mut conn = server.connect();
    conn.send(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
            server.host()
        )
        .as_bytes(),
    );
    let r = conn.read_response().expect("408 for a stalled body");
    assert_eq!(r.status, 408, "{}", r.text());
    assert_eq!(
        conn.read_to_close().map(|b| b.len()).unwrap_or(0),
        0,
        "connection closed after 408"
    );

    // The server still serves.
    let r = server.post(PING, &[]);
    assert_eq!(r.status, 400);
}

#[test]
fn session_limit_refuses_initialize_without_starting_a_worker() {
    let server = Server::builder().env("MCP_MAX_SESSIONS", "2").start();
    let a = server.open_session();
    let b = server.open_session();
    assert_eq!(workers_of(server.port()).len(), 2);

    let r = server.post(&initialize_body(3, "2025-11-25"), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["id"], json!(3));
    assert_eq!(body["error"]["code"], json!(-32001));
    assert_eq!(body["error"]["data"]["kind"], json!("sessionLimit"));
    assert!(r.header("mcp-session-id").is_none());
    assert_eq!(
        workers_of(server.port()).len(),
        2,
        "a refused initialize started a worker"
    );

    // Ending a session frees its slot.
    let r = server.request("DELETE", "/mcp", &[("Mcp-Session-Id", &a.id)], b"");
    assert_eq!(r.status, 200);
    let c = server.open_session();
    assert_ne!(c.id, b.id);
    let r = server.post_in(&b.id, &request_body(4, "ping", json!({})));
    assert_eq!(r.json()["id"], json!(4), "the other session kept working");
    assert_eq!(workers_of(server.port()).len(), 2);
}

fn script(name: &str, body: &str) -> PathBuf {
    let path = scratch_path(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[test]
fn a_worker_that_never_answers_is_killed_with_its_process_group() {
    // The "worker" starts a grandchild and never speaks: the handshake times out
    // and the whole process group goes.
    let pids = scratch_path("silent-pids");
    let silent = script(
        "silent-worker",
        &format!("echo $$ >> {}\nsleep 300 &\nexec sleep 300", pids.display()),
    );
    let server = Server::builder()
        .env("MCP_WORKER_BIN", &silent)
        .env("MCP_HANDSHAKE_TIMEOUT", "300ms")
        .env("MCP_MAX_SESSIONS", "1")
        .start();
    for id in [1, 2] {
        let r = server.post(&initialize_body(id, "2025-11-25"), &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        let body = r.json();
        assert_eq!(body["id"], json!(id));
        assert_eq!(body["error"]["code"], json!(-32001), "{body}");
        // Not sessionLimit: the failed attempt gave its slot back.
        assert_eq!(
            body["error"]["data"]["kind"],
            json!("workerFailed"),
            "{body}"
        );
        assert!(r.header("mcp-session-id").is_none());
    }
    let groups: Vec<i32> = std::fs::read_to_string(&pids)
        .expect("the fake worker wrote its pid")
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(groups.len(), 2);
    let left = || {
        gsmcp_tests::harness_proc::processes()
            .into_iter()
            .filter(|p| groups.contains(&p.pgrp) && !p.is_zombie())
            .collect::<Vec<_>>()
    };
    assert!(
        wait_until(BOUND, || left().is_empty()),
        "processes left behind: {:?}",
        left()
    );
    assert!(
        server.log().contains("worker failed to start"),
        "log:\n{}",
        server.log()
    );
    no_zombies(&server);
}

#[test]
fn a_worker_that_refuses_to_start_gives_the_client_an_error() {
    let failing = script(
        "failing-worker",
        "echo 'cannot log in: the stone is down' >&2\nexit 3",
    );
    let server = Server::builder().env("MCP_WORKER_BIN", &failing).start();
    let r = server.post(&initialize_body(5, "2025-11-25"), &[]);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], json!(-32001), "{}", r.text());
    assert!(r.header("mcp-session-id").is_none());
    // The router logs the exit status and the worker's last words.
    assert!(
        wait_until(BOUND, || server.log().contains("the stone is down")),
        "log:\n{}",
        server.log()
    );
    assert!(
        server.log().contains("exit code 3"),
        "log:\n{}",
        server.log()
    );
    no_zombies(&server);
}

#[test]
fn sigterm_ends_every_worker_and_the_router() {
    let mut server = Server::start();
    let sessions = [
        server.open_session(),
        server.open_session(),
        server.open_session(),
    ];
    assert_eq!(workers_of(server.port()).len(), sessions.len());
    let started = Instant::now();
    let status = server.terminate();
    let took = started.elapsed();
    assert!(status.success(), "router exit status {status}");
    // The router reaps its workers before it exits: nothing may be left.
    assert!(
        workers_of(server.port()).is_empty(),
        "workers left: {:?}",
        workers_of(server.port())
    );
    assert!(
        children_of(server.pid()).is_empty(),
        "children left: {:?}",
        children_of(server.pid())
    );
    println!(
        "SIGTERM to exit with {} idle sessions: {took:?}",
        sessions.len()
    );
    let log = server.log();
    assert!(log.contains("shutting down"), "log:\n{log}");
}

#[test]
fn title_and_instructions_reach_the_client() {
    let instructions = scratch_path("instructions.md");
    std::fs::write(&instructions, "Only touch the Accounting package.\n").unwrap();
    let server = Server::builder()
        .env("MCP_TITLE", "Accounting stone")
        .env("MCP_INSTRUCTIONS_FILE", &instructions)
        .start();
    let session = server.open_session();
    let result = &session.init["result"];
    assert_eq!(result["serverInfo"]["name"], json!("gsmcp"));
    assert_eq!(
        result["serverInfo"]["title"],
        json!("Accounting stone"),
        "{result}"
    );
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("Only touch the Accounting package.")),
        "{result}"
    );
}

#[test]
fn a_busy_port_is_reported_with_the_fix() {
    let first = Server::start();
    let second = ServerBuilder::new()
        .without_port()
        .arg("--port")
        .arg(first.port().to_string())
        .run_to_exit();
    assert!(!second.status.success());
    assert!(second.stdout.is_empty(), "{}", second.stdout);
    let expect = format!("port {} is in use", first.port());
    assert!(second.stderr.contains(&expect), "{}", second.stderr);
    assert!(
        second.stderr.contains("stop-server.sh"),
        "{}",
        second.stderr
    );
    // The first server is unaffected.
    assert_eq!(first.post(PING, &[]).status, 400);
}

#[test]
fn unworkable_configuration_is_refused_before_binding() {
    let big = scratch_path("big-instructions.md");
    std::fs::write(&big, "x".repeat(40 * 1024)).unwrap();
    let not_exec = scratch_path("not-executable");
    std::fs::write(&not_exec, "").unwrap();
    let big = big.to_string_lossy().to_string();
    let not_exec = not_exec.to_string_lossy().to_string();
    // (variable, value, text the message must contain)
    let table: Vec<(&str, &str, &str)> = vec![
        ("MCP_PORT", "eighty", "MCP_PORT"),
        ("MCP_PORT", "70000", "MCP_PORT"),
        ("MCP_BIND", "0.0.0.0", "--allow-insecure-remote"),
        ("MCP_AUTH", "password", "MCP_AUTH"),
        ("MCP_TRACE_LIMIT", "lots", "MCP_TRACE_LIMIT"),
        ("MCP_BIND", "not-an-address", "MCP_BIND"),
        ("MCP_MAX_SESSIONS", "0", "MCP_MAX_SESSIONS"),
        ("MCP_MAX_SESSIONS", "many", "none"),
        ("MCP_LOG", "gsmcp=loudest", "MCP_LOG"),
        ("MCP_HANDSHAKE_TIMEOUT", "ten", "MCP_HANDSHAKE_TIMEOUT"),
        ("MCP_HANDSHAKE_TIMEOUT", "0", "longer than zero"),
        ("MCP_SHUTDOWN_GRACE", "3x", "MCP_SHUTDOWN_GRACE"),
        (
            "MCP_REQUEST_READ_TIMEOUT",
            "-1s",
            "MCP_REQUEST_READ_TIMEOUT",
        ),
        (
            "MCP_WORKER_BIN",
            "/nonexistent/gsmcp-worker",
            "MCP_WORKER_BIN",
        ),
        ("MCP_WORKER_BIN", &not_exec, "not an executable"),
        ("MCP_TOOLSETS", "Execution,Gardening", "Gardening"),
        (
            "MCP_INSTRUCTIONS_FILE",
            "/nonexistent/instructions.md",
            "MCP_INSTRUCTIONS_FILE",
        ),
        ("MCP_INSTRUCTIONS_FILE", &big, "32768"),
        ("MCP_LOG_FILE", "/nonexistent/dir/gsmcp.log", "MCP_LOG_FILE"),
        (
            "MCP_REPOSITORY",
            "/nonexistent/dir/stone.db",
            "MCP_REPOSITORY",
        ),
        ("MCP_REPOSITORY", "/tmp", "is a directory"),
        (
            "MCP_ALLOWED_ORIGINS",
            "evil.example.com",
            "MCP_ALLOWED_ORIGINS",
        ),
        ("MCP_IDLE_TIMEOUT", "0", "MCP_IDLE_TIMEOUT"),
        ("MCP_WORKER_MEMORY", "lots", "is not a size"),
        ("MCP_WORKER_MEMORY", "1m", "at least 64 MiB"),
        ("MCP_WORKER_MEMORY", "1024t", "more than this machine"),
        (
            "MCP_STREAMLESS_IDLE_TIMEOUT",
            "soon",
            "MCP_STREAMLESS_IDLE_TIMEOUT",
        ),
        ("MCP_STREAM_GRACE", "-1", "MCP_STREAM_GRACE"),
        ("MCP_SESSION_LIFETIME", "forever", "`none`"),
        ("MCP_REQUEST_TIMEOUT", "0", "MCP_REQUEST_TIMEOUT"),
        ("MCP_BREAK_GRACE", "1x", "MCP_BREAK_GRACE"),
        (
            "MCP_CLIENT_REQUEST_TIMEOUT",
            "0",
            "MCP_CLIENT_REQUEST_TIMEOUT",
        ),
        ("MCP_SSE_KEEPALIVE", "often", "MCP_SSE_KEEPALIVE"),
        ("MCP_SSE_WRITE_TIMEOUT", "0ms", "MCP_SSE_WRITE_TIMEOUT"),
        ("MCP_MAX_COMMITS_BEHIND", "0", "MCP_MAX_COMMITS_BEHIND"),
        ("MCP_MAX_COMMITS_BEHIND", "lots", "`none`"),
        ("MCP_STUCK_VIEW_GRACE", "0", "MCP_STUCK_VIEW_GRACE"),
        ("MCP_PINNED_VIEW_GRACE", "ages", "`none`"),
        (
            "MCP_REQUEST_STATE_KEY_FILE",
            "/nonexistent/key",
            "MCP_REQUEST_STATE_KEY_FILE",
        ),
    ];
    for (var, value, expect) in &table {
        let mut builder = ServerBuilder::new().without_port().env(var, value);
        if *var != "MCP_PORT" {
            builder = builder.env("MCP_PORT", "0");
        }
        let exited = builder.run_to_exit();
        assert_eq!(
            exited.status.code(),
            Some(2),
            "{var}={value}: {}",
            exited.stderr
        );
        assert!(
            exited.stdout.is_empty(),
            "{var}={value} listened: {}",
            exited.stdout
        );
        assert!(
            exited.stderr.contains(expect),
            "{var}={value}: message lacks {expect:?}:\n{}",
            exited.stderr
        );
    }

    // Every problem is reported at once.
    let exited = ServerBuilder::new()
        .without_port()
        .env("MCP_PORT", "x")
        .env("MCP_MAX_SESSIONS", "0")
        .env("MCP_SHUTDOWN_GRACE", "soon")
        .env("MCP_TOOLSETS", "Nope")
        .run_to_exit();
    assert_eq!(exited.status.code(), Some(2));
    for var in [
        "MCP_PORT",
        "MCP_MAX_SESSIONS",
        "MCP_SHUTDOWN_GRACE",
        "MCP_TOOLSETS",
    ] {
        assert!(
            exited.stderr.contains(var),
            "{var} missing from:\n{}",
            exited.stderr
        );
    }
}

#[test]
fn allow_lists_extend_hosts_and_origins() {
    let server = Server::builder()
        .env("MCP_ALLOWED_HOSTS", "mcp.internal.example")
        .env("MCP_ALLOWED_ORIGINS", "https://tools.example.org")
        .start();
    let cases: [(&[(&str, &str)], u16); 4] = [
        (&[("Host", "mcp.internal.example")], 400),
        (&[("Host", "elsewhere.example")], 403),
        (&[("Origin", "https://tools.example.org")], 400),
        (&[("Origin", "https://tools.example.org.evil")], 403),
    ];
    for (headers, status) in cases {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        let r = server.request("POST", "/mcp", &all, PING.as_bytes());
        assert_eq!(r.status, status, "{headers:?}: {}", r.text());
    }
}

#[test]
fn requests_of_one_session_queue_and_all_get_answers() {
    let server = Server::start();
    let session = server.open_session();
    let sid = session.id.clone();
    let addr = server.addr;
    let host = server.host();
    // Eight concurrent requests on eight connections to one session.
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let sid = sid.clone();
            let host = host.clone();
            std::thread::spawn(move || {
                let mut conn = gsmcp_tests::RawConn::connect(addr);
                let body = request_body(100 + i, "ping", json!({}));
                conn.send(&gsmcp_tests::harness_http::format_request(
                    "POST",
                    "/mcp",
                    &[
                        ("Host", &host),
                        ("Content-Type", "application/json"),
                        ("Mcp-Session-Id", &sid),
                    ],
                    body.as_bytes(),
                ));
                conn.read_response().expect("answer")
            })
        })
        .collect();
    let mut ids: Vec<Value> = handles
        .into_iter()
        .map(|h| h.join().unwrap().json()["id"].clone())
        .collect();
    ids.sort_by_key(|v| v.as_i64());
    assert_eq!(ids, (100..108).map(|i| json!(i)).collect::<Vec<_>>());
}

/// Smalltalk that keeps the worker busy for `ms` milliseconds.
fn busy_loop(ms: u64) -> String {
    format!("| t | t := Time millisecondClockValue. [Time millisecondClockValue - t < {ms}] whileTrue. #done")
}

fn execute_body(id: i64, code: &str) -> String {
    request_body(
        id,
        "tools/call",
        json!({ "name": "execute_code", "arguments": { "code": code } }),
    )
}

/// Sends a request on its own connection without waiting for the answer.
fn send_async(server: &Server, sid: &str, body: &str) -> gsmcp_tests::RawConn {
    let mut conn = server.connect();
    conn.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &[
            ("Host", &server.host()),
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", sid),
        ],
        body.as_bytes(),
    ));
    conn
}

/// Waits until the router's log shows that the session queued a request of `method`.
fn wait_queued(server: &Server, method: &str, count: usize) {
    let needle = format!("request queued method={method} ");
    assert!(
        wait_until(BOUND, || server.log().matches(&needle).count() >= count),
        "the router never queued {method}; log:\n{}",
        server.log()
    );
}

#[test]
fn cancelling_a_queued_or_running_request_ends_it_without_a_response() {
    let server = Server::start();
    let session = server.open_session();
    // A long call keeps the worker busy; a ping queues behind it.
    let mut long = send_async(&server, &session.id, &execute_body(40, &busy_loop(60_000)));
    wait_queued(&server, "tools/call", 1);
    let mut queued = send_async(&server, &session.id, &request_body(41, "ping", json!({})));
    wait_queued(&server, "ping", 1);

    let cancel = |id: i64| {
        let body = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id, "reason": "test" } });
        let r = server.post_in(&session.id, &body.to_string());
        assert_eq!(r.status, 202, "{}", r.text());
    };
    // A cancelled request gets no JSON-RPC response: its exchange is closed
    // with 202 and no body.
    cancel(41);
    let r = queued
        .read_response()
        .expect("answer to the cancelled ping");
    assert_eq!(r.status, 202, "{}", r.text());
    assert!(r.body.is_empty(), "{}", r.text());

    cancel(40);
    let r = long.read_response().expect("answer to the cancelled call");
    assert_eq!(r.status, 202, "{}", r.text());
    assert!(r.body.is_empty(), "{}", r.text());
    // The session goes on.
    let r = server.post_in(&session.id, &request_body(42, "ping", json!({})));
    assert_eq!(r.json()["result"], json!({}), "{}", r.text());
}

#[test]
fn delete_during_a_running_call_answers_the_call_and_ends_the_worker() {
    let server = Server::builder().env("MCP_SHUTDOWN_GRACE", "300ms").start();
    let session = server.open_session();
    let mut long = send_async(&server, &session.id, &execute_body(50, &busy_loop(60_000)));
    wait_queued(&server, "tools/call", 1);
    let mut queued = send_async(&server, &session.id, &request_body(51, "ping", json!({})));
    wait_queued(&server, "ping", 1);

    let r = server.request("DELETE", "/mcp", &[("Mcp-Session-Id", &session.id)], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        worker_of_session(server.port(), &session.id).is_none(),
        "worker outlived DELETE"
    );
    no_zombies(&server);

    // Every request got exactly one answer carrying its own id.
    let running = long
        .read_response()
        .expect("answer to the running call")
        .json();
    assert_eq!(running["id"], json!(50), "{running}");
    assert!(
        running.get("error").is_some() || running["result"]["isError"] == json!(true),
        "{running}"
    );
    let waiting = queued
        .read_response()
        .expect("answer to the queued ping")
        .json();
    assert_eq!(waiting["id"], json!(51));
    assert_eq!(waiting["error"]["code"], json!(-32001), "{waiting}");
    assert_eq!(waiting["error"]["data"]["kind"], json!("sessionGone"));
}

#[test]
fn sigterm_during_a_running_call_answers_it_and_leaves_no_worker() {
    let mut server = Server::builder().env("MCP_SHUTDOWN_GRACE", "300ms").start();
    let busy = server.open_session();
    let idle = server.open_session();
    let mut long = send_async(&server, &busy.id, &execute_body(60, &busy_loop(60_000)));
    wait_queued(&server, "tools/call", 1);
    let workers = workers_of(server.port());
    assert_eq!(workers.len(), 2);

    let status = server.terminate();
    assert!(status.success(), "{status}");
    let answer = long
        .read_response()
        .expect("the running call is answered before the router exits")
        .json();
    assert_eq!(answer["id"], json!(60), "{answer}");
    assert!(
        answer.get("error").is_some() || answer["result"]["isError"] == json!(true),
        "{answer}"
    );
    let pids: Vec<i32> = workers.iter().map(|w| w.pid).collect();
    let alive: Vec<_> = gsmcp_tests::harness_proc::processes()
        .into_iter()
        .filter(|p| pids.contains(&p.pid) && !p.is_zombie())
        .collect();
    assert!(alive.is_empty(), "workers outlived the router: {alive:?}");
    assert!(workers_of(server.port()).is_empty());
    let _ = idle;
}

#[test]
fn a_closed_stderr_does_not_stop_the_router_from_serving_or_shutting_down() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let bins = gsmcp_tests::harness::binaries();
    let child = Command::new(&bins.router)
        .args(["--port", "0"])
        .env("MCP_WORKER_BIN", &bins.worker)
        .env("MCP_LOG", "debug")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsmcp");
    // Killed and reaped whatever the test's outcome.
    struct Reaped(std::process::Child);
    impl Drop for Reaped {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Reaped(child);
    let mut line = String::new();
    std::io::BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("listen line");
    // Close both pipes: every later log write fails.
    drop(child.0.stderr.take());
    let addr: std::net::SocketAddr = line
        .trim()
        .strip_prefix("gsmcp listening on http://")
        .and_then(|a| a.strip_suffix("/mcp"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("listen line {line:?}"));
    let mut conn = gsmcp_tests::RawConn::connect(addr);
    let host = addr.to_string();
    conn.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &[("Host", &host), ("Content-Type", "application/json")],
        initialize_body(1, "2025-11-25").as_bytes(),
    ));
    let r = conn.read_response().expect("initialize answer");
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_some(), "{}", r.text());
    // SAFETY: kill(2) on our own unreaped child.
    unsafe {
        libc::kill(child.0.id() as i32, libc::SIGTERM);
    }
    let exited = wait_until(BOUND, || matches!(child.0.try_wait(), Ok(Some(_))));
    assert!(exited, "gsmcp ignored SIGTERM once its stderr was closed");
    assert!(workers_of(addr.port()).is_empty());
}

/// `run-server.sh` and `stop-server.sh` against the binaries the tests built: a
/// scratch `$CARGO_TARGET_DIR/release` with links to them stands in for a
/// release build.
#[test]
fn run_and_stop_scripts() {
    use std::process::Command;
    let bins = gsmcp_tests::harness::binaries();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let target = scratch_path("target");
    std::fs::create_dir_all(target.join("release")).unwrap();
    std::os::unix::fs::symlink(&bins.router, target.join("release/gsmcp")).unwrap();
    std::os::unix::fs::symlink(&bins.worker, target.join("release/gsmcp-worker")).unwrap();
    let state = scratch_path("state");
    // A `cargo` that builds nothing comes first on PATH: the scripts then use
    // the binaries already linked into the scratch target directory.
    let shims = scratch_path("bin");
    std::fs::create_dir_all(&shims).unwrap();
    let cargo = shims.join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut dirs = vec![shims];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(dirs).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = |name: &str, args: &[&str]| {
        let mut cmd = Command::new("bash");
        cmd.arg(root.join(name)).args(args).current_dir(&root);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_") {
                cmd.env_remove(&key);
            }
        }
        let out = cmd
            .env("PATH", &path)
            .env("CARGO_TARGET_DIR", &target)
            .env("XDG_STATE_HOME", &state)
            .env("MCP_PORT", port.to_string())
            .output()
            .expect("run the script");
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };

    // The server is detached from this test: stop it even if an assertion fails.
    struct StopOnDrop<F: Fn()>(F);
    impl<F: Fn()> Drop for StopOnDrop<F> {
        fn drop(&mut self) {
            (self.0)();
        }
    }
    let _stop = StopOnDrop(|| {
        let _ = script("stop-server.sh", &[&port.to_string()]);
    });

    let (status, out, err) = script("run-server.sh", &[]);
    assert!(status.success(), "run-server.sh failed:\n{out}\n{err}");
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert!(out.contains(&url), "{out}");
    assert!(out.contains(&format!("./stop-server.sh {port}")), "{out}");
    assert!(
        out.contains(&format!("claude mcp add --transport http gemstone {url}")),
        "{out}"
    );
    let log = state.join(format!("gsmcp/gsmcp-{port}.log"));
    assert!(out.contains(&log.display().to_string()), "{out}");

    // It serves, and a session gets a worker.
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut conn = gsmcp_tests::RawConn::connect(addr);
    let host = addr.to_string();
    conn.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &[("Host", &host), ("Content-Type", "application/json")],
        initialize_body(1, "2025-11-25").as_bytes(),
    ));
    assert_eq!(conn.read_response().expect("initialize").status, 200);
    assert_eq!(workers_of(port).len(), 1);

    // A second server on the same port fails and says why.
    let (status, out, err) = script("run-server.sh", &[]);
    assert!(!status.success(), "second run-server.sh succeeded:\n{out}");
    assert!(err.contains(&format!("port {port} is in use")), "{err}");

    let (status, out, err) = script("stop-server.sh", &[&port.to_string()]);
    assert!(status.success(), "stop-server.sh failed:\n{out}\n{err}");
    assert!(
        workers_of(port).is_empty(),
        "workers left after stop-server.sh"
    );
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "still listening after stop-server.sh"
    );
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("shutting down"));

    // Nothing left to stop.
    let (status, out, _) = script("stop-server.sh", &[&port.to_string()]);
    assert!(!status.success());
    assert!(out.contains("no server is listening"), "{out}");

    // --no-build starts what is built without calling cargo (now a cargo
    // that fails), and refuses when nothing is built
    std::fs::write(&cargo, "#!/bin/sh\necho cargo was called >&2\nexit 1\n").unwrap();
    let (status, out, err) = script("run-server.sh", &["--no-build"]);
    assert!(
        status.success(),
        "run-server.sh --no-build failed:\n{out}\n{err}"
    );
    assert!(!err.contains("cargo was called"), "{err}");
    let (status, out, err) = script("stop-server.sh", &[&port.to_string()]);
    assert!(status.success(), "stop-server.sh failed:\n{out}\n{err}");
    std::fs::remove_file(target.join("release/gsmcp")).unwrap();
    let (status, _, err) = script("run-server.sh", &["--no-build"]);
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("is not built"), "{err}");
}

#[test]
fn a_dying_worker_answers_everything_waiting_with_session_gone() {
    let server = Server::start();
    let session = server.open_session();
    let other = server.open_session();
    let mut long = send_async(&server, &session.id, &execute_body(70, &busy_loop(60_000)));
    wait_queued(&server, "tools/call", 1);
    let mut queued = send_async(&server, &session.id, &request_body(71, "ping", json!({})));
    wait_queued(&server, "ping", 1);

    let worker = worker_of_session(server.port(), &session.id).expect("the session's worker");
    // SAFETY: kill(2) with a pid read from /proc just now.
    unsafe {
        libc::kill(worker.pid, libc::SIGKILL);
    }
    for (conn, id) in [(&mut long, 70), (&mut queued, 71)] {
        let r = conn
            .read_response()
            .expect("an answer after the worker died");
        assert_eq!(r.status, 200);
        let body = r.json();
        assert_eq!(body["id"], json!(id), "{body}");
        assert_eq!(body["error"]["code"], json!(-32001), "{body}");
        assert_eq!(
            body["error"]["data"]["kind"],
            json!("sessionGone"),
            "{body}"
        );
    }
    // The session is gone; the other one is not.
    let r = server.post_in(&session.id, &request_body(72, "ping", json!({})));
    assert_eq!(r.status, 404, "{}", r.text());
    let r = server.post_in(&other.id, &request_body(73, "ping", json!({})));
    assert_eq!(r.json()["result"], json!({}), "{}", r.text());
    no_zombies(&server);
    let log = server.log();
    assert!(log.contains("killed by SIGKILL"), "log:\n{log}");
}
