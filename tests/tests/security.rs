//! Putting gsmcp on a network, against the real binaries: the bearer token
//! (`MCP_AUTH=token`, generated or from a file), refusals decided on the head,
//! TLS (served, plaintext refused, bad key files refused at start-up), the rule
//! for non-loopback binds, the message trace, redaction of secrets from the
//! log, the trace, client-visible errors and process listings, the per-call log
//! line, private log files and CORS for configured origins.

use gsmcp_tests::harness::{make_self_signed, scratch_path};
use gsmcp_tests::{initialize_body, request_body, workers_of, Server, ServerBuilder};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The worker password of an in-memory image: configured explicitly, it is a
/// secret the router and the worker must never show.
const PASSWORD: &str = "swordfish";

fn token_server() -> ServerBuilder {
    Server::builder().env("MCP_AUTH", "token")
}

fn write_private(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn call(server: &Server, sid: &str, id: i64, tool: &str, arguments: Value) -> Value {
    let r = server.post_in(
        sid,
        &request_body(
            id,
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        ),
    );
    assert_eq!(r.status, 200, "{tool}: {}", r.text());
    r.final_message()
}

#[rustfmt::skip]
#[test]
fn bearer_token_refusals_are_a_table() {
    let server = token_server().start();
    let token = server.token.clone().expect("the router printed its token");
    assert_eq!(token.len(), 64, "a 256-bit token as hex: {token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let wrong = format!("Bearer {}", "0".repeat(64));
    let right = format!("Bearer {token}");
    let lower = format!("bearer {token}");
    let plain = r#"Bearer realm="gsmcp""#;
    let invalid = r#"Bearer realm="gsmcp", error="invalid_token""#;
    // (case, Authorization header or "" for none, status, challenge prefix)
    let table: &[(&str, &str, u16, Option<&str>)] = &[
        ("no header", "", 401, Some(plain)),
        ("another scheme", "Basic dXNlcjpwYXNz", 401, Some(plain)),
        ("scheme only", "Bearer", 401, Some(invalid)),
        ("garbage", "Bearer not a token at all", 401, Some(invalid)),
        ("wrong token", &wrong, 401, Some(invalid)),
        ("right token", &right, 200, None),
        ("scheme in lower case", &lower, 200, None),
    ];
    for (case, auth, status, challenge) in table {
        let r = server.post(&initialize_body(1, "2025-11-25"), &[("Authorization", auth)]);
        assert_eq!(r.status, *status, "{case}: {}", r.text());
        match challenge {
            Some(c) => {
                let got = r.header("www-authenticate").unwrap_or_else(|| panic!("{case}: no challenge"));
                assert!(got.starts_with(c), "{case}: challenge {got:?}");
                let body = r.json();
                assert!(body["error"]["message"].as_str().unwrap().starts_with("Unauthorized"), "{case}: {body}");
                assert!(!r.text().contains(&token), "{case}: the body shows the token");
                assert_eq!(r.header("connection"), Some("close"), "{case}");
            }
            None => assert!(r.header("mcp-session-id").is_some(), "{case}: no session"),
        }
    }
    // every verb is behind the gate, a session id alone is worth nothing
    let sid = server.open_session().id;
    for (verb, body) in [("GET", ""), ("DELETE", ""), ("POST", r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)] {
        let r = server.request(verb, "/mcp", &[("Mcp-Session-Id", &sid), ("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json"), ("Authorization", "")], body.as_bytes());
        assert_eq!(r.status, 401, "{verb} without the token: {}", r.text());
    }
    let pong = server.post_in(&sid, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(pong.status, 200, "{}", pong.text());
    // two Authorization headers are refused like two Hosts
    let r = server.post(&initialize_body(1, "2025-11-25"), &[("Authorization", &right), ("Authorization", &right)]);
    assert_eq!(r.status, 400, "{}", r.text());
}

#[test]
fn refusal_comes_before_the_body_is_read() {
    // a read timeout longer than the test's patience: waiting for the body
    // would end in 408, the gate answers 401 from the head alone
    let server = token_server()
        .env("MCP_REQUEST_READ_TIMEOUT", "50s")
        .start();
    let mut conn = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nContent-Length: 1000000\r\n\r\n",
        server.host()
    );
    conn.send(head.as_bytes());
    let r = conn.read_response().expect("an answer without the body");
    assert_eq!(r.status, 401, "{}", r.text());
}

#[test]
fn token_file_is_used_and_must_be_private() {
    let path = scratch_path("token");
    let token = "a-token-from-a-file-0123456789-abcdefgh";
    write_private(&path, &format!("{token}\n"), 0o600);
    let server = token_server().env("MCP_TOKEN_FILE", &path).start();
    assert_eq!(server.token, None, "a token from a file is never printed");
    let bearer = format!("Bearer {token}");
    let r = server.post(
        &initialize_body(1, "2025-11-25"),
        &[("Authorization", &bearer)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    drop(server);

    let readable = scratch_path("token-readable");
    write_private(&readable, token, 0o644);
    let short = scratch_path("token-short");
    write_private(&short, "short", 0o600);
    let table = [
        (readable.as_path(), "chmod 600"),
        (short.as_path(), "32 to 4096 characters"),
        (Path::new("/nonexistent/token"), "MCP_TOKEN_FILE"),
    ];
    for (file, expect) in table {
        let exited = token_server().env("MCP_TOKEN_FILE", file).run_to_exit();
        assert_eq!(exited.status.code(), Some(2), "{}", exited.stderr);
        assert!(
            exited.stderr.contains(expect),
            "{expect}: {}",
            exited.stderr
        );
        assert!(!exited.stderr.contains(token), "{}", exited.stderr);
    }
    let exited = Server::builder().env("MCP_TOKEN_FILE", &path).run_to_exit();
    assert!(
        exited.stderr.contains("MCP_AUTH=token"),
        "{}",
        exited.stderr
    );
}

#[test]
fn tls_serves_https_and_refuses_plaintext() {
    let server = token_server().tls().start();
    assert!(server.url.starts_with("https://"), "{}", server.url);
    let sid = server.open_session().id;
    let answer = call(&server, &sid, 2, "execute_code", json!({ "code": "3 + 4" }));
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "7",
        "{answer}"
    );

    // plaintext on the TLS port: a plain 400 naming the fix, then the end
    let mut conn = gsmcp_tests::RawConn::connect(server.addr);
    let body = initialize_body(1, "2025-11-25");
    conn.send(&gsmcp_tests::format_request(
        "POST",
        "/mcp",
        &[
            ("Host", &server.host()),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    ));
    let r = conn.read_response().expect("a plaintext answer");
    assert_eq!(r.status, 400);
    assert!(r.text().contains("HTTPS only"), "{}", r.text());
}

#[test]
fn unusable_tls_files_are_refused_at_start_up() {
    let (cert, key) = make_self_signed();
    let (other_cert, _) = make_self_signed();
    let open_key = scratch_path("open-key.pem");
    std::fs::copy(&key, &open_key).unwrap();
    std::fs::set_permissions(&open_key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let garbage = scratch_path("garbage.pem");
    write_private(&garbage, "not a certificate", 0o600);
    let table = [
        (cert.as_path(), open_key.as_path(), "chmod 600"),
        (garbage.as_path(), key.as_path(), "MCP_TLS_CERT"),
        (cert.as_path(), garbage.as_path(), "MCP_TLS_KEY"),
        (other_cert.as_path(), key.as_path(), "usable pair"),
    ];
    for (c, k, expect) in table {
        let exited = Server::builder()
            .env("MCP_TLS_CERT", c)
            .env("MCP_TLS_KEY", k)
            .run_to_exit();
        assert_eq!(exited.status.code(), Some(2), "{}", exited.stderr);
        assert!(
            exited.stderr.contains(expect),
            "{expect}: {}",
            exited.stderr
        );
    }
    let exited = Server::builder().env("MCP_TLS_CERT", &cert).run_to_exit();
    assert_ne!(exited.status.code(), Some(0));
    assert!(exited.stderr.contains("tls-key"), "{}", exited.stderr);
}

#[test]
fn a_network_bind_needs_tls_and_authentication() {
    let refused = Server::builder()
        .env("MCP_BIND", "0.0.0.0")
        .env("MCP_AUTH", "token")
        .run_to_exit();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        refused.stderr.contains("MCP_TLS_CERT"),
        "{}",
        refused.stderr
    );

    let secured = token_server().tls().env("MCP_BIND", "0.0.0.0").start();
    assert!(!secured.log().contains("WITHOUT TLS"), "{}", secured.log());
    // it listens on every address; a client names it by one of its names
    let host = format!("localhost:{}", secured.port());
    let r = secured.post(&initialize_body(1, "2025-11-25"), &[("Host", &host)]);
    assert_eq!(r.status, 200, "{}", r.text());
    drop(secured);

    let insecure = Server::builder()
        .env("MCP_BIND", "0.0.0.0")
        .env("MCP_ALLOW_INSECURE_REMOTE", "1")
        .start();
    // logged right after the listen line
    let warned = gsmcp_tests::wait_until(std::time::Duration::from_secs(10), || {
        insecure
            .log()
            .contains("SERVING A NETWORK WITHOUT TLS AND AUTHENTICATION")
    });
    assert!(warned, "{}", insecure.log());
}

/// The trace's lines in a log.
fn trace_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("gsmcp_router::trace"))
        .collect()
}

#[test]
fn trace_redaction_and_call_lines() {
    let log_dir = scratch_path("logs");
    std::fs::create_dir_all(&log_dir).unwrap();
    let log_file = log_dir.join("gsmcp.log");
    let server = token_server()
        .env("MCP_TRACE", "1")
        .env("MCP_LOG", "info")
        .env("MCP_LOG_FILE", &log_file)
        .env("MCP_WORKER_PASSWORD", PASSWORD)
        .start();
    let token = server.token.clone().unwrap();
    let log = || std::fs::read_to_string(&log_file).unwrap_or_default();

    // a refused request is traced, in and out, its body unread
    let refused = server.post(&initialize_body(1, "2025-11-25"), &[("Authorization", "")]);
    assert_eq!(refused.status, 401);
    let sid = server.open_session().id;
    // the token and the password travel in bodies both ways
    let echo = call(
        &server,
        &sid,
        2,
        "execute_code",
        json!({ "code": format!("'{token}' , ' {PASSWORD}'") }),
    );
    assert!(
        echo["result"]["structuredContent"]["result"]
            .as_str()
            .unwrap()
            .contains(&token),
        "{echo}"
    );
    let failed = call(
        &server,
        &sid,
        3,
        "execute_code",
        json!({ "code": format!("Error signal: 'the password is {PASSWORD}'") }),
    );
    let failure = failed["result"].to_string();
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    assert!(
        !failure.contains(PASSWORD),
        "a client-visible error shows the password: {failure}"
    );
    assert!(failure.contains("the password is <redacted>"), "{failure}");

    assert!(
        gsmcp_tests::wait_until(std::time::Duration::from_secs(10), || {
            log().contains("toolError:")
        }),
        "{}",
        log()
    );
    let text = log();
    assert!(
        text.contains("message trace on"),
        "no start-up line: {text}"
    );
    let lines = trace_lines(&text);
    let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
    assert!(
        has("in POST /mcp session=- ") && has("(body not read)"),
        "refused inbound: {lines:#?}"
    );
    assert!(has("out 401 POST /mcp"), "refused outbound: {lines:#?}");
    assert!(has(r#""method":"initialize""#), "{lines:#?}");
    assert!(
        has(&format!("out 200 POST /mcp session={}", &sid[..8])),
        "{lines:#?}"
    );
    assert!(
        lines.iter().all(|l| !l.contains('\t')),
        "one line per message"
    );
    // never a header, never a secret: not in the trace, not anywhere in the log
    for secret in [token.as_str(), PASSWORD] {
        assert!(!text.contains(secret), "the log shows {secret}:\n{text}");
    }
    assert!(
        !text.to_ascii_lowercase().contains("authorization:"),
        "a header was logged:\n{text}"
    );
    assert!(
        !text.contains("Bearer <redacted>"),
        "a credential was logged:\n{text}"
    );
    // one info line per call: who, what, how long, how it ended; never the arguments
    let calls: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" call ") || l.ends_with(" call"))
        .collect();
    assert!(
        calls.iter().any(|l| l.contains("tool=execute_code")
            && l.contains("outcome=toolError:")
            && l.contains("user=DataCurator")
            && l.contains("ms=")),
        "{calls:#?}"
    );
    assert!(
        calls
            .iter()
            .any(|l| l.contains("method=tools/call") && l.contains("outcome=ok")),
        "{calls:#?}"
    );
    assert!(
        calls.iter().all(|l| !l.contains("Error signal")),
        "arguments in a call line: {calls:#?}"
    );
    // the log is the user's alone, whatever the umask
    let mode = std::fs::metadata(&log_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // no process shows a secret in its command line; workers not in their environment either
    let mut pids = vec![server.pid() as i32];
    pids.extend(workers_of(server.port()).iter().map(|p| p.pid));
    assert!(pids.len() >= 2, "no worker found: {pids:?}");
    for pid in pids {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        assert!(
            !cmdline.contains(&token) && !cmdline.contains(PASSWORD),
            "{pid}: {cmdline}"
        );
        if pid != server.pid() as i32 {
            let environ = String::from_utf8_lossy(
                &std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default(),
            )
            .into_owned();
            assert!(
                !environ.contains(PASSWORD),
                "worker {pid} environment: {environ}"
            );
            assert!(
                environ.split('\0').all(|v| !v.starts_with("MCP_")),
                "worker {pid} environment: {environ}"
            );
        }
    }
}

#[test]
fn trace_caps_and_whole_bodies() {
    let code = format!("'{}' size", "x".repeat(300));
    for (limit, capped) in [("64", true), ("none", false)] {
        let server = Server::builder()
            .env("MCP_TRACE", "1")
            .env("MCP_TRACE_LIMIT", limit)
            .start();
        let sid = server.open_session().id;
        let answer = call(&server, &sid, 2, "execute_code", json!({ "code": code }));
        assert_eq!(
            answer["result"]["structuredContent"]["result"], "300",
            "{answer}"
        );
        let log = server.log();
        let lines = trace_lines(&log);
        let inbound = lines
            .iter()
            .find(|l| {
                l.contains("in POST") && l.contains("execute_code")
                    || l.contains("in POST") && capped && l.contains("tools/call")
            })
            .unwrap_or_else(|| panic!("no inbound call line: {lines:#?}"));
        if capped {
            assert!(
                inbound.contains("…(+") && !inbound.contains(&"x".repeat(300)),
                "{inbound}"
            );
        } else {
            assert!(
                inbound.contains(&"x".repeat(300)) && !inbound.contains("…(+"),
                "{inbound}"
            );
        }
    }
}

#[test]
fn cors_for_configured_origins_only() {
    let app = "https://app.example.org";
    let server = token_server().env("MCP_ALLOWED_ORIGINS", app).start();
    let preflight = |origin: &str| {
        server.request(
            "OPTIONS",
            "/mcp",
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "authorization, content-type, mcp-session-id",
                ),
                ("Authorization", ""),
            ],
            b"",
        )
    };
    let ok = preflight(app);
    assert_eq!(ok.status, 204, "{}", ok.text());
    assert_eq!(ok.header("access-control-allow-origin"), Some(app));
    let allowed = ok.header("access-control-allow-headers").unwrap();
    for h in ["authorization", "mcp-session-id", "mcp-protocol-version"] {
        assert!(allowed.contains(h), "{allowed}");
    }
    assert!(ok
        .header("access-control-allow-methods")
        .unwrap()
        .contains("DELETE"));
    // a local page passes the Origin check but gets no cross-origin access
    let local = preflight("http://localhost:3000");
    assert_eq!(local.status, 403, "{}", local.text());
    assert!(local.header("access-control-allow-origin").is_none());

    // the answers to a configured origin let its page read the MCP headers, a 401's challenge too
    let r = server.post(&initialize_body(1, "2025-11-25"), &[("Origin", app)]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), Some(app));
    assert!(r
        .header("access-control-expose-headers")
        .unwrap()
        .contains("Mcp-Session-Id"));
    let denied = server.post(
        &initialize_body(1, "2025-11-25"),
        &[("Origin", app), ("Authorization", "")],
    );
    assert_eq!(denied.status, 401);
    assert!(denied
        .header("access-control-expose-headers")
        .unwrap()
        .contains("WWW-Authenticate"));
    let other = server.post(
        &initialize_body(1, "2025-11-25"),
        &[("Origin", "http://localhost:3000")],
    );
    assert_eq!(other.status, 200);
    assert!(other.header("access-control-allow-origin").is_none());
}
