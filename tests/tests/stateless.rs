//! The stateless era (MCP 2026-07-28) against the real router and its
//! workers: the checks of a request as a table (status, JSON-RPC code),
//! discovery, handles that keep two clients' work apart while one-shot calls
//! keep nothing (and say so), a handle refused to another principal,
//! `close_session` and the tombstone after it, the idle timeout as the only
//! rule that releases a handle, cancellation by closing the response, and
//! the session era left as it was beside it.

use gsmcp_tests::harness::scratch_path;
use gsmcp_tests::jwt::{Issuer, Key};
use gsmcp_tests::{initialize_body, HttpResponse, Server};
use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const V: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-test", "version": "1"},
    })
}

/// The headers a conforming client sends for `method` with `params`.
fn headers_for(method: &str, params: &Value) -> Vec<(String, String)> {
    let mut h = vec![
        ("MCP-Protocol-Version".to_string(), V.to_string()),
        ("Mcp-Method".to_string(), method.to_string()),
    ];
    let name = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        _ => None,
    };
    if let Some(name) = name.and_then(Value::as_str) {
        h.push(("Mcp-Name".to_string(), name.to_string()));
    }
    h
}

/// A stateless request as a conforming client sends it (`_meta` added to
/// `params` unless it has one), with `auth` as its `Authorization`.
fn send(server: &Server, method: &str, mut params: Value, auth: &str) -> HttpResponse {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    let headers = headers_for(method, &params);
    let mut h: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if !auth.is_empty() {
        h.push(("Authorization", auth));
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    server.post(&body.to_string(), &h)
}

/// A stateless request `id` of `method` with `params`, by a client that
/// takes an event stream (`name` mirrored in `Mcp-Name` when given): the
/// connection, to read.
fn streamed(
    server: &Server,
    id: i64,
    method: &str,
    name: Option<&str>,
    params: Value,
) -> gsmcp_tests::SseConn {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", V),
        ("Mcp-Method", method),
    ];
    if let Some(n) = name {
        headers.push(("Mcp-Name", n));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    gsmcp_tests::SseConn::open(server, "POST", &headers, &body.to_string())
}

/// A stateless `tools/call` of `tool` (no arguments) with `meta`, by a
/// client that takes an event stream.
fn streamed_call(server: &Server, tool: &str, meta: Value) -> gsmcp_tests::SseConn {
    let params = json!({"name": tool, "arguments": {}, "_meta": meta});
    streamed(server, 5, "tools/call", Some(tool), params)
}

/// A tool's result in the stateless era (asserting the envelope).
fn call(server: &Server, tool: &str, args: Value, auth: &str) -> Value {
    let r = send(
        server,
        "tools/call",
        json!({"name": tool, "arguments": args}),
        auth,
    );
    assert_eq!(r.status, 200, "{tool}: {}", r.text());
    let m = r.final_message();
    let result = m["result"].clone();
    assert_eq!(result["resultType"], "complete", "{tool}: {m}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "gsmcp",
        "{m}"
    );
    result
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn open(server: &Server, auth: &str) -> String {
    let r = call(server, "open_session", json!({}), auth);
    assert_eq!(r["isError"], false, "{r}");
    r["structuredContent"]["session"]
        .as_str()
        .expect("a handle")
        .to_string()
}

fn eval(server: &Server, code: &str, session: Option<&str>, auth: &str) -> Value {
    let mut args = json!({"code": code});
    if let Some(s) = session {
        args["session"] = json!(s);
    }
    call(server, "execute_code", args, auth)
}

#[test]
fn a_stateless_request_is_checked_before_it_runs() {
    let server = Server::start();
    let discover = |meta: Value, extra: &[(&str, &str)], drop: &[&str]| {
        let params = json!({"_meta": meta});
        let mut h: Vec<(String, String)> = headers_for("server/discover", &params)
            .into_iter()
            .filter(|(k, _)| !drop.contains(&k.as_str()))
            .collect();
        for (k, v) in extra {
            h.retain(|(hk, _)| !hk.eq_ignore_ascii_case(k));
            h.push((k.to_string(), v.to_string()));
        }
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let body =
            json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": params});
        server.post(&body.to_string(), &h)
    };
    let no_version = json!({"io.modelcontextprotocol/clientCapabilities": {}});
    let no_caps = json!({"io.modelcontextprotocol/protocolVersion": V});
    let old = json!({"io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": {}});
    let bad_level = json!({"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"});
    // (case, response, status, JSON-RPC code or 0 for a result)
    let rows: Vec<(&str, HttpResponse, u16, i64)> = vec![
        ("well formed", discover(meta(), &[], &[]), 200, 0),
        (
            "no clientInfo",
            discover(
                json!({"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}}),
                &[],
                &[],
            ),
            200,
            0,
        ),
        ("no _meta", discover(Value::Null, &[], &[]), 400, -32602),
        (
            "no protocolVersion",
            discover(no_version, &[], &[]),
            400,
            -32602,
        ),
        (
            "no clientCapabilities",
            discover(no_caps, &[], &[]),
            400,
            -32602,
        ),
        (
            "a log level that is none",
            discover(bad_level, &[], &[]),
            400,
            -32602,
        ),
        (
            "unsupported revision",
            discover(old.clone(), &[("MCP-Protocol-Version", "1900-01-01")], &[]),
            400,
            -32022,
        ),
        (
            "header names another revision",
            discover(old, &[], &[]),
            400,
            -32020,
        ),
        (
            "no MCP-Protocol-Version",
            discover(meta(), &[], &["MCP-Protocol-Version"]),
            400,
            -32020,
        ),
        (
            "no Mcp-Method",
            discover(meta(), &[], &["Mcp-Method"]),
            400,
            -32020,
        ),
        (
            "Mcp-Method of another method",
            discover(meta(), &[("Mcp-Method", "tools/list")], &[]),
            400,
            -32020,
        ),
    ];
    for (case, r, status, code) in &rows {
        assert_eq!(r.status, *status, "{case}: {}", r.text());
        let m = r.json();
        assert_eq!(
            m["id"], 11,
            "{case}: the error answers the request's id: {m}"
        );
        match code {
            0 => assert!(m["result"].is_object(), "{case}: {m}"),
            c => assert_eq!(m["error"]["code"], *c, "{case}: {m}"),
        }
    }
    let unsupported = &rows[6].1.json()["error"]["data"];
    assert_eq!(unsupported["requested"], "1900-01-01");
    assert!(
        unsupported["supported"]
            .as_array()
            .unwrap()
            .contains(&json!(V)),
        "{unsupported}"
    );

    // Mcp-Name against the body, plain and as a base64 sentinel
    let named = |name_header: &str| {
        let params =
            json!({"name": "execute_code", "arguments": {"code": "3 + 4"}, "_meta": meta()});
        let body = json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": params});
        let h = [
            ("MCP-Protocol-Version", V),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name_header),
        ];
        server.post(&body.to_string(), &h)
    };
    let rows = [
        ("plain", "execute_code", 200),
        ("base64 sentinel", "=?base64?ZXhlY3V0ZV9jb2Rl?=", 200),
        ("another tool", "status", 400),
        ("a sentinel that does not decode", "=?base64?!!!?=", 400),
    ];
    for (case, header, status) in rows {
        let r = named(header);
        assert_eq!(r.status, status, "Mcp-Name {case}: {}", r.text());
        if status == 400 {
            assert_eq!(r.json()["error"]["code"], -32020, "{case}");
        } else {
            assert!(
                text(&r.final_message()["result"]).contains('7'),
                "{case}: {}",
                r.text()
            );
        }
    }

    // methods the revision removed, and unknown ones: 404 with -32601
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "no/such",
    ] {
        let r = send(&server, method, json!({}), "");
        assert_eq!(r.status, 404, "{method}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], -32601, "{method}");
    }
    // a method the deployment does not serve (no prompts with Execution alone) is not found either
    let execution = Server::builder().env("MCP_TOOLSETS", "Execution").start();
    let r = send(&execution, "prompts/list", json!({}), "");
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!(-32601)),
        "{}",
        r.text()
    );
}

#[test]
fn discovery_and_lists_carry_what_the_revision_asks() {
    let server = Server::start();
    let r = send(&server, "server/discover", json!({}), "");
    assert_eq!(r.status, 200, "{}", r.text());
    let d = r.json()["result"].clone();
    assert_eq!(d["supportedVersions"][0], V, "{d}");
    assert!(
        d["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25")),
        "{d}"
    );
    assert!(d["capabilities"]["tools"].is_object(), "{d}");
    assert_eq!(d["resultType"], "complete");
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "gsmcp"
    );
    assert!(
        d["ttlMs"].as_u64().is_some() && d["cacheScope"] == "private",
        "{d}"
    );
    assert!(
        d["instructions"].as_str().unwrap().contains("open_session"),
        "{d}"
    );

    let r = send(&server, "tools/list", json!({}), "");
    let list = r.json()["result"].clone();
    assert!(
        list["ttlMs"].as_u64().is_some() && list["cacheScope"] == "private",
        "{list}"
    );
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "open_session");
    assert_eq!(tools[1]["name"], "close_session");
    for tool in &tools[2..] {
        let props = &tool["inputSchema"]["properties"];
        assert_eq!(props["session"]["type"], "string", "{}", tool["name"]);
        let required = tool["inputSchema"]["required"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            !required.contains(&json!("session")),
            "{}: session is optional",
            tool["name"]
        );
    }
    // the session era is untouched: no session tools, no session argument
    let s = server.open_session();
    let r = server.post_in(
        &s.id,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
    );
    let legacy = r.final_message()["result"]["tools"].clone();
    assert!(
        legacy
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "open_session"),
        "{legacy}"
    );
    assert!(
        legacy[0]["inputSchema"]["properties"]
            .get("session")
            .is_none(),
        "{legacy}"
    );
    assert!(r.final_message()["result"].get("resultType").is_none());
}

#[test]
fn handles_keep_two_clients_apart_and_one_shots_keep_nothing() {
    let repo = scratch_path("stateless.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_STREAMLESS_IDLE_TIMEOUT", "1s")
        .start();
    let a = open(&server, "");
    let b = open(&server, "");
    assert_ne!(a, b);
    assert!(
        a.len() >= 32 && a.bytes().all(|c| c.is_ascii_hexdigit()),
        "an unguessable handle: {a}"
    );

    let put = eval(
        &server,
        "UserGlobals at: #StatelessProbe put: 41 + 1",
        Some(&a),
        "",
    );
    assert!(
        text(&put).contains("[session]"),
        "A's change is uncommitted: {put}"
    );
    let seen = |session: Option<&str>| {
        text(&eval(
            &server,
            "UserGlobals at: #StatelessProbe ifAbsent: [#none]",
            session,
            "",
        ))
    };
    assert!(seen(Some(&a)).starts_with("42"), "A sees its own change");
    assert!(
        seen(Some(&b)).starts_with("#none"),
        "B does not see A's uncommitted change"
    );
    assert!(
        seen(None).starts_with("#none"),
        "a one-shot does not see it"
    );

    // a one-shot's change ends with the call, and its result says so
    let shot = eval(&server, "UserGlobals at: #OneShotProbe put: 1", None, "");
    assert!(
        text(&shot).contains("[one-shot]") && text(&shot).contains("discarded"),
        "{shot}"
    );
    let left = eval(
        &server,
        "UserGlobals at: #OneShotProbe ifAbsent: [#none]",
        Some(&b),
        "",
    );
    assert!(text(&left).starts_with("#none"), "{left}");

    // quiet for longer than the streamless rule: a handle is kept (it has no stream to open)
    std::thread::sleep(Duration::from_millis(2500));
    let commit = call(&server, "commit", json!({"session": a}), "");
    assert_eq!(commit["isError"], false, "{commit}");
    let abort = call(&server, "abort", json!({"session": b}), "");
    assert_eq!(abort["isError"], false, "{abort}");
    assert!(
        seen(Some(&b)).starts_with("42"),
        "B sees A's change once committed and its view moved"
    );

    // close_session: B held nothing; A's new change is discarded, and both say so
    eval(
        &server,
        "UserGlobals at: #StatelessProbe put: 0",
        Some(&a),
        "",
    );
    let closed = call(&server, "close_session", json!({"session": a}), "");
    assert_eq!(
        closed["structuredContent"]["uncommittedLost"], true,
        "{closed}"
    );
    let after = call(
        &server,
        "execute_code",
        json!({"code": "1", "session": a}),
        "",
    );
    assert_eq!(after["isError"], true, "{after}");
    assert_eq!(
        after["structuredContent"]["error"]["kind"], "sessionEnded",
        "{after}"
    );
    assert_eq!(
        after["structuredContent"]["error"]["uncommittedLost"], true,
        "{after}"
    );
    let closed = call(&server, "close_session", json!({"session": b}), "");
    assert_eq!(
        closed["structuredContent"]["uncommittedLost"], false,
        "{closed}"
    );
    let nothing = call(
        &server,
        "execute_code",
        json!({"code": "1", "session": "0123456789abcdef0123456789abcdef"}),
        "",
    );
    assert_eq!(
        nothing["structuredContent"]["error"]["kind"], "sessionNotFound",
        "{nothing}"
    );
    let wrong = call(
        &server,
        "execute_code",
        json!({"code": "1", "session": 7}),
        "",
    );
    assert_eq!(wrong["isError"], true, "{wrong}");

    // a handle is not a session id, nor the other way round
    let s = server.open_session();
    let r = server.post_in(
        &b,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).to_string(),
    );
    assert_eq!(r.status, 404, "a handle as Mcp-Session-Id: {}", r.text());
    let r = eval(&server, "1", Some(&s.id), "");
    assert_eq!(
        r["structuredContent"]["error"]["kind"], "sessionNotFound",
        "a session id as a handle: {r}"
    );
}

#[test]
fn a_handle_is_its_owners_only() {
    const ISSUER: &str = "https://id.example.test/realms/shop";
    let key = Key::new("k1");
    let issuer = Issuer::start(&[&key]);
    let server = Server::builder()
        .env("MCP_AUTH", "oauth")
        .env("MCP_WORKER_LOGIN", "shared")
        .env("MCP_OAUTH_ISSUER", ISSUER)
        .env("MCP_OAUTH_AUDIENCE", "https://gemstone.example.test/mcp")
        .env("MCP_OAUTH_JWKS_URL", &issuer.url)
        .start();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token = |sub: &str| {
        let claims = json!({"iss": ISSUER, "aud": "https://gemstone.example.test/mcp",
                            "sub": sub, "iat": now, "exp": now + 600});
        format!("Bearer {}", key.sign("k1", &claims))
    };
    let (alice, mallory) = (token("alice"), token("mallory"));
    let handle = open(&server, &alice);
    assert!(text(&eval(&server, "3 + 4", Some(&handle), &alice)).starts_with('7'));
    for tool in ["execute_code", "close_session"] {
        let r = call(
            &server,
            tool,
            json!({"code": "3 + 4", "session": handle}),
            &mallory,
        );
        assert_eq!(r["isError"], true, "{tool} by another principal: {r}");
        assert_eq!(
            r["structuredContent"]["error"]["kind"], "sessionNotFound",
            "{r}"
        );
    }
    assert!(
        text(&eval(&server, "3 + 4", Some(&handle), &alice)).starts_with('7'),
        "still alice's"
    );
    assert!(!server.log().contains(&alice[7..]), "no token in the log");
}

#[test]
fn the_idle_timeout_ends_a_handle_and_its_tombstone_says_so() {
    let repo = scratch_path("stateless-idle.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_IDLE_TIMEOUT", "3s")
        .env("MCP_STREAMLESS_IDLE_TIMEOUT", "1s")
        .start();
    let h = open(&server, "");
    eval(&server, "UserGlobals at: #IdleProbe put: 1", Some(&h), "");
    // (asking would be activity: the log says when it ended)
    let ended = gsmcp_tests::wait_until(Duration::from_secs(30), || {
        server.log().contains("reason=idle timeout")
    });
    assert!(
        ended,
        "the handle was not released by its idle timeout\n{}",
        server.log()
    );
    let r = call(&server, "status", json!({"session": h}), "");
    let e = &r["structuredContent"]["error"];
    assert_eq!(
        (e["reason"].clone(), e["uncommittedLost"].clone()),
        (json!("idle timeout"), json!(true)),
        "{r}"
    );
}

#[test]
fn closing_the_response_cancels_the_call() {
    let server = Server::start();
    let h = open(&server, "");
    // a call that would run for a minute, whose client goes away at once
    let conn = send_raw(&server, 9, "(Delay forSeconds: 60) wait. 1", &h);
    std::thread::sleep(Duration::from_millis(500));
    drop(conn);
    let started = Instant::now();
    let next = eval(&server, "3 + 4", Some(&h), "");
    assert!(text(&next).starts_with('7'), "{next}");
    assert!(
        started.elapsed() < Duration::from_secs(45),
        "the next call waited for the abandoned one to finish: {:?}\n{}",
        started.elapsed(),
        server.log()
    );
}

#[test]
fn an_abandoned_call_is_told_from_another_with_the_same_id() {
    let server = Server::start();
    let h = open(&server, "");
    // two requests with one JSON-RPC id on one handle: the first runs, the
    // second waits behind it, and the second's client goes away
    let mut first = send_raw(
        &server,
        9,
        "(Delay forMilliseconds: 1500) wait. 'first'",
        &h,
    );
    std::thread::sleep(Duration::from_millis(300));
    let second = send_raw(&server, 9, "(Delay forSeconds: 60) wait. 'second'", &h);
    std::thread::sleep(Duration::from_millis(300));
    drop(second);
    let answer = first.read_response().expect("the first call's answer");
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert!(
        answer.text().contains("first"),
        "the running call with the same id was not the one cancelled: {}",
        answer.text()
    );
    let started = Instant::now();
    assert!(text(&eval(&server, "3 + 4", Some(&h), "")).starts_with('7'));
    assert!(
        started.elapsed() < Duration::from_secs(45),
        "the abandoned call was dropped from the queue"
    );
}

/// Sends `execute_code code` in handle `h` as request `id` on a connection of
/// its own, without reading the answer.
fn send_raw(server: &Server, id: i64, code: &str, h: &str) -> gsmcp_tests::RawConn {
    let params =
        json!({"name": "execute_code", "arguments": {"code": code, "session": h}, "_meta": meta()});
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let headers = headers_for("tools/call", &params);
    let host = server.host();
    let mut all: Vec<(&str, &str)> = vec![
        ("Host", &host),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let mut conn = server.connect();
    conn.send(&gsmcp_tests::harness_http::format_request(
        "POST",
        "/mcp",
        &all,
        body.to_string().as_bytes(),
    ));
    conn
}

#[test]
fn the_session_era_is_unchanged_beside_it() {
    let server = Server::start();
    // an initialize without _meta opens a session as before
    let r = server.post(&initialize_body(1, "2025-11-25"), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("mcp-session-id").is_some());
    // a request naming a session-era revision without a session still needs one
    let r = server.post(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
        &[("MCP-Protocol-Version", "2025-11-25")],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Mcp-Session-Id"), "{}", r.text());
    // a session's request cannot claim the stateless revision in its _meta
    let s = server.open_session();
    let body =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta()}});
    let r = server.post_in(&s.id, &body.to_string());
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32600, "{}", r.text());
}

#[test]
fn static_answers_are_kept_and_need_no_worker() {
    let server = Server::builder().env("MCP_MAX_SESSIONS", "1").start();
    // a one-shot's slot is free once its worker is reaped, a moment after its
    // answer: a request meeting the limit before that is sent again
    let retrying = |method: &str, params: Value| {
        let mut answer = send(&server, method, params.clone(), "").json();
        let freed = gsmcp_tests::wait_until(Duration::from_secs(30), || {
            if answer["error"]["data"]["kind"] != "sessionLimit" {
                return true;
            }
            answer = send(&server, method, params.clone(), "").json();
            false
        });
        assert!(freed, "the one-shot's slot was never freed: {answer}");
        answer
    };
    let first = retrying("server/discover", json!({}));
    let tools = retrying("tools/list", json!({}));
    assert!(
        first["result"]["capabilities"].is_object() && tools["result"]["tools"].is_array(),
        "{first}\n{tools}"
    );
    let opened = retrying(
        "tools/call",
        json!({"name": "open_session", "arguments": {}}),
    );
    let h = opened["result"]["structuredContent"]["session"]
        .as_str()
        .expect("a handle")
        .to_string();
    assert_eq!(
        gsmcp_tests::workers_of(server.port()).len(),
        1,
        "the handle's worker only"
    );
    // every slot is taken: what does not change is answered anyway, by no new worker
    let again = send(&server, "server/discover", json!({}), "");
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["result"], first["result"]);
    assert_eq!(again.json()["id"], 7);
    let listed = send(&server, "tools/list", json!({}), "").json();
    assert_eq!(listed["result"], tools["result"]);
    assert_eq!(
        gsmcp_tests::workers_of(server.port()).len(),
        1,
        "no worker started for them"
    );
    // a call that needs a login of its own is refused with the limit
    let shot = send(
        &server,
        "tools/call",
        json!({"name": "execute_code", "arguments": {"code": "1"}}),
        "",
    )
    .json();
    assert_eq!(shot["error"]["data"]["kind"], "sessionLimit", "{shot}");
    assert!(text(&eval(&server, "3 + 4", Some(&h), "")).starts_with('7'));
}

#[test]
fn a_tool_that_needs_a_client_capability_is_refused_without_it() {
    let server = Server::builder()
        .env("MCP_TOOLSETS", "Execution,Conformance")
        .start();
    let without = send(
        &server,
        "tools/call",
        json!({"name": "test_missing_capability", "arguments": {}}),
        "",
    );
    assert_eq!(without.status, 400, "{}", without.text());
    let e = &without.json()["error"];
    assert_eq!(e["code"], -32021, "{e}");
    assert_eq!(
        e["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{e}"
    );
    // declared: the revision has no server requests, so the question comes
    // back as an InputRequiredResult, and the retry with the answer completes
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let with = send(
        &server,
        "tools/call",
        json!({"name": "test_missing_capability", "arguments": {}, "_meta": m}),
        "",
    );
    assert_eq!(with.status, 200, "{}", with.text());
    let result = with.final_message()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(
        result["inputRequests"]["hello"]["method"], "sampling/createMessage",
        "{result}"
    );
    let retry = json!({"name": "test_missing_capability", "arguments": {}, "_meta": m,
                       "inputResponses": {"hello": said("Hello.")},
                       "requestState": result["requestState"]});
    let done = send(&server, "tools/call", retry, "").final_message()["result"].clone();
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(text(&done), "The client sampled, as declared.", "{done}");
    // the log messages a request did not ask for are not sent; asked for, they are
    let logs = |meta: Value| {
        let mut conn = streamed_call(&server, "test_logging_tool", meta);
        match conn.is_stream() {
            true => conn
                .rest()
                .iter()
                .filter_map(|e| e.json())
                .filter(|m| m["method"] == "notifications/message")
                .count(),
            false => 0,
        }
    };
    assert_eq!(logs(meta()), 0, "no logLevel, no log messages");
    let mut asked = meta();
    asked["io.modelcontextprotocol/logLevel"] = json!("info");
    assert_eq!(logs(asked), 3, "logLevel info: all three");
}

/// A `subscriptions/listen` request `id` with the filter `notifications`.
fn listen_with(server: &Server, id: i64, notifications: Value) -> gsmcp_tests::SseConn {
    let params = json!({"notifications": notifications, "_meta": meta()});
    streamed(server, id, "subscriptions/listen", None, params)
}

#[test]
fn listen_streams_are_acknowledged_and_bounded() {
    let server = Server::start();
    let listen = |id: i64| listen_with(&server, id, json!({"toolsListChanged": true}));
    let mut open = Vec::new();
    for id in 0..64 {
        let mut s = listen(id);
        assert!(s.is_stream(), "{:?}", s.headers);
        let ack = s.next_message().expect("the acknowledgement");
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            id
        );
        assert_eq!(
            ack["params"]["notifications"],
            json!({}),
            "nothing listed changes: {ack}"
        );
        open.push(s);
    }
    let mut refused = listen(99);
    assert_eq!(refused.json_body()["error"]["data"]["kind"], "listenLimit");
    open.pop().unwrap().close();
    let again = gsmcp_tests::wait_until(Duration::from_secs(10), || listen(100).is_stream());
    assert!(again, "a closed stream frees its place");
}

/// A client's `sampling/createMessage` result saying `t`.
fn said(t: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": t},
           "model": "test-model", "stopReason": "endTurn"})
}

/// A client's accepted `elicitation/create` result with `content`.
fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// One round of a multi round-trip request: `method` with `params`, plus the
/// answers and the state of the round before; answers the result.
fn round(server: &Server, method: &str, params: &Value, answers: Value, state: &Value) -> Value {
    let mut params = params.clone();
    if params.get("_meta").is_none() {
        // a client that can answer every kind of question
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"sampling": {}, "elicitation": {}, "roots": {}});
    }
    if !answers.is_null() {
        params["inputResponses"] = answers;
    }
    if !state.is_null() {
        params["requestState"] = state.clone();
    }
    let r = send(server, method, params, "");
    assert_eq!(r.status, 200, "{method}: {}", r.text());
    let m = r.final_message();
    assert!(m.get("error").is_none(), "{method}: {m}");
    m["result"].clone()
}

/// The keys an `InputRequiredResult` asks, after checking its shape.
fn asked(result: &Value) -> Vec<String> {
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "gsmcp",
        "{result}"
    );
    assert!(
        result["requestState"]
            .as_str()
            .is_some_and(|s| s.starts_with("v1.")),
        "a sealed state: {result}"
    );
    assert!(
        result.get("content").is_none(),
        "only the question: {result}"
    );
    let mut keys: Vec<String> = result["inputRequests"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

fn conformance_server() -> Server {
    Server::builder()
        .env("MCP_TOOLSETS", "Execution,Conformance")
        .start()
}

#[test]
fn multi_round_requests_ask_then_complete() {
    let server = conformance_server();
    let tool = |name: &str| json!({"name": name, "arguments": {}});
    // (request, rounds: the answers each round sends and the keys it is then
    // asked, the last round's result text)
    type Rounds<'a> = &'a [(Value, &'a [&'a str])];
    let table: [(&str, Value, Rounds, &str); 6] = [
        (
            "tools/call",
            tool("test_input_required_result_elicitation"),
            &[
                (Value::Null, &["user_name"]),
                (json!({"user_name": accept(json!({"name": "Alice"}))}), &[]),
            ],
            "Hello, Alice!",
        ),
        (
            "tools/call",
            tool("test_input_required_result_multi_round"),
            &[
                (Value::Null, &["step1"]),
                (json!({"step1": accept(json!({"name": "Ann"}))}), &["step2"]),
                (json!({"step2": accept(json!({"color": "blue"}))}), &[]),
            ],
            "Ann's favourite colour is blue.",
        ),
        (
            "tools/call",
            tool("test_input_required_result_multiple_inputs"),
            &[
                (Value::Null, &["client_roots", "greeting", "user_name"]),
                // a partial answer is asked again for the rest, keeping what came
                (
                    json!({"user_name": accept(json!({"name": "Bo"}))}),
                    &["client_roots", "greeting"],
                ),
                (
                    json!({"greeting": said("Hi"), "client_roots": {"roots": [{"uri": "file:///w"}]}}),
                    &[],
                ),
            ],
            "Name: Bo. Greeting: Hi. Roots: file:///w.",
        ),
        // answers nobody asked for are ignored, and a wrong key is asked again
        (
            "tools/call",
            tool("test_input_required_result_elicitation"),
            &[
                (
                    json!({"wrong_key": accept(json!({"name": "x"}))}),
                    &["user_name"],
                ),
                (
                    json!({"user_name": accept(json!({"name": "Cy"})), "extra": {"a": 1}}),
                    &[],
                ),
            ],
            "Hello, Cy!",
        ),
        (
            "tools/call",
            tool("test_input_required_result_request_state"),
            &[
                (Value::Null, &["confirm"]),
                (json!({"confirm": accept(json!({"ok": true}))}), &[]),
            ],
            "state-ok: the requestState was verified; confirmed: true",
        ),
        (
            "prompts/get",
            json!({"name": "test_input_required_result_prompt"}),
            &[
                (Value::Null, &["user_context"]),
                (
                    json!({"user_context": accept(json!({"context": "tests"}))}),
                    &[],
                ),
            ],
            "With this context in mind: tests. What follows from it?",
        ),
    ];
    for (method, params, rounds, last) in table {
        let mut state = Value::Null;
        for (i, (answers, keys)) in rounds.iter().enumerate() {
            let result = round(&server, method, &params, answers.clone(), &state);
            if keys.is_empty() {
                assert_eq!(
                    result["resultType"], "complete",
                    "{params} round {i}: {result}"
                );
                let shown = match method {
                    "prompts/get" => result["messages"][0]["content"]["text"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                    _ => text(&result),
                };
                assert_eq!(shown, last, "{params} round {i}: {result}");
                continue;
            }
            assert_eq!(asked(&result), *keys, "{params} round {i}");
            assert_ne!(result["requestState"], state, "a new state each round");
            state = result["requestState"].clone();
        }
    }
    // a request declaring sampling only is asked nothing else
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let mut params = tool("test_input_required_result_capabilities");
    params["_meta"] = m;
    let result = round(&server, "tools/call", &params, Value::Null, &Value::Null);
    assert_eq!(asked(&result), ["model"], "{result}");
    // a stream that carried progress ends with the question, sealed the same way
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    m["progressToken"] = json!("p1");
    let mut conn = streamed_call(&server, "test_streaming_elicitation", m);
    assert!(conn.is_stream(), "progress first, so a stream");
    let events: Vec<Value> = conn.rest().iter().filter_map(|e| e.json()).collect();
    assert!(
        events
            .iter()
            .any(|e| e["method"] == "notifications/progress"),
        "{events:?}"
    );
    let last = events.last().expect("an answer");
    assert_eq!(asked(&last["result"]), ["user_reply"], "{last}");
}

#[test]
fn request_state_is_sealed_bound_and_checked() {
    let dir = scratch_path("state-key");
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("key");
    std::fs::write(&key_file, "a shared key of more than thirty-two bytes\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let keyed = || {
        Server::builder()
            .env("MCP_TOOLSETS", "Execution,Conformance")
            .env("MCP_REQUEST_STATE_KEY_FILE", &key_file)
            .start()
    };
    let (server, twin, stranger) = (keyed(), keyed(), conformance_server());
    let tool = |name: &str| json!({"name": name, "arguments": {}});
    let confirm = tool("test_input_required_result_tampered_state");
    let first = round(&server, "tools/call", &confirm, Value::Null, &Value::Null);
    let state = first["requestState"].as_str().unwrap().to_string();
    let yes = json!({"confirm": accept(json!({"ok": true}))});
    // a router sharing the key accepts the state: the round may land on either
    let done = round(&twin, "tools/call", &confirm, yes.clone(), &json!(state));
    assert!(text(&done).starts_with("state-ok"), "{done}");
    // what a state may not be, each refused with -32602 before any tool runs
    let refused = |server: &Server, mut params: Value| -> Value {
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
        let r = send(server, "tools/call", params, "");
        assert_eq!(r.status, 200, "{}", r.text());
        let e = r.json()["error"].clone();
        assert_eq!(e["code"], -32602, "{e}");
        e["data"].clone()
    };
    let with = |params: &Value, answers: Value, state: Value| {
        let mut p = params.clone();
        p["inputResponses"] = answers;
        p["requestState"] = state;
        p
    };
    let table: [(&Server, Value, Value); 7] = [
        (
            &server,
            with(&confirm, yes.clone(), json!(format!("{state}-TAMPERED"))),
            json!({"kind": "invalidRequestState", "reason": "forged"}),
        ),
        (
            &server,
            with(&confirm, yes.clone(), json!("not a state")),
            json!({"kind": "invalidRequestState", "reason": "forged"}),
        ),
        (
            &stranger,
            with(&confirm, yes.clone(), json!(state)),
            json!({"kind": "invalidRequestState", "reason": "forged"}),
        ),
        (
            &server,
            with(
                &tool("test_input_required_result_request_state"),
                yes.clone(),
                json!(state),
            ),
            json!({"kind": "invalidRequestState", "reason": "otherRequest"}),
        ),
        (
            &server,
            with(
                &confirm,
                yes.clone(),
                json!({"answers": {"confirm": {"action": "accept"}}}),
            ),
            json!({"kind": "invalidRequestState", "reason": "notAString"}),
        ),
        (
            &server,
            with(&confirm, json!({"confirm": 12345}), json!(state)),
            json!({"kind": "invalidInputResponses"}),
        ),
        (
            &server,
            with(&confirm, Value::Null, json!(state)),
            json!({"kind": "invalidInputResponses"}),
        ),
    ];
    for (i, (srv, params, data)) in table.into_iter().enumerate() {
        assert_eq!(refused(srv, params), data, "case {i}");
    }
    // a state names the handle its call ran on: another handle's call refuses it
    let (h1, h2) = (open(&server, ""), open(&server, ""));
    let on = |h: &str| json!({"name": "test_input_required_result_elicitation", "arguments": {"session": h}});
    let asked_on_h1 = round(&server, "tools/call", &on(&h1), Value::Null, &Value::Null);
    let answer = json!({"user_name": accept(json!({"name": "Di"}))});
    let moved = with(
        &on(&h2),
        answer.clone(),
        asked_on_h1["requestState"].clone(),
    );
    assert_eq!(refused(&server, moved)["reason"], "otherRequest");
    let done = round(
        &server,
        "tools/call",
        &on(&h1),
        answer,
        &asked_on_h1["requestState"],
    );
    assert_eq!(text(&done), "Hello, Di!", "{done}");
    // without the state, a fixture that needs it says so
    let bare = round(&server, "tools/call", &confirm, yes, &Value::Null);
    assert_eq!(bare["isError"], true, "{bare}");
    assert!(text(&bare).contains("without the requestState"), "{bare}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_listen_stream_tells_the_subscribed_resources_each_commit_changed() {
    let repo = scratch_path("listen-repo.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let follows = !gsmcp_tests::test_backend_is_gci();
    let discovered = send(&server, "server/discover", json!({}), "").json();
    assert_eq!(
        discovered["result"]["capabilities"]["resources"]["subscribe"], follows,
        "{discovered}"
    );
    let writer = open(&server, "");
    let commit = |code: &str| {
        assert!(!text(&eval(&server, code, Some(&writer), "")).is_empty());
        let r = call(&server, "commit", json!({"session": writer}), "");
        assert_eq!(r["isError"], false, "{r}");
    };
    let define = |class: &str, ivars: &str| {
        commit(&format!(
            "Object subclass: '{class}' instVarNames: #({ivars}) classVars: #() \
             classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true"
        ))
    };
    define("ListenMark", "a");
    define("ListenOther", "a");
    // a filter that is not one is refused before anything starts
    for bad in [
        json!({"resourceSubscriptions": "gemstone://class/ListenMark"}),
        json!({"resourceSubscriptions": [1]}),
        json!({"resourceSubscriptions": vec!["gemstone://class/X"; 65]}),
        json!({"toolsListChanged": "yes"}),
    ] {
        let mut r = listen_with(&server, 5, bad.clone());
        assert_eq!(r.json_body()["error"]["code"], -32602, "{bad}");
    }
    let (uri, other) = (
        "gemstone://class/ListenMark",
        "gemstone://class/ListenOther",
    );
    let mut stream = listen_with(
        &server,
        7,
        json!({"resourceSubscriptions": [uri, "gemstone://class/NoSuchListenClass", other],
               "toolsListChanged": true}),
    );
    assert!(stream.is_stream());
    let ack = stream.next_message().expect("the acknowledgement");
    let honoured = match follows {
        true => json!({"resourceSubscriptions": [uri, other]}),
        // a GemStone stone does not say when others commit: not offered
        false => json!({}),
    };
    assert_eq!(ack["params"]["notifications"], honoured, "{ack}");
    if !follows {
        return;
    }
    let workers = gsmcp_tests::workers_of(server.port()).len();
    // another client's commit that changes a class is told, tagged; a commit
    // that changes no subscribed resource, or another one, tells nothing of
    // it (each update below would come out of order otherwise)
    commit("UserGlobals at: #ListenUnrelated put: 1");
    define("ListenMark", "a b");
    let note = stream.next_message().expect("an update");
    assert_eq!(note["method"], "notifications/resources/updated", "{note}");
    assert_eq!(note["params"]["uri"], uri, "{note}");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7,
        "{note}"
    );
    define("ListenOther", "a b");
    let next = stream.next_message().expect("the next update");
    assert_eq!(next["params"]["uri"], other, "{next}");
    define("ListenMark", "a b c");
    let next = stream.next_message().expect("the next update");
    assert_eq!(next["params"]["uri"], uri, "{next}");
    // closing the stream ends its login
    stream.close();
    let freed = gsmcp_tests::wait_until(Duration::from_secs(20), || {
        gsmcp_tests::workers_of(server.port()).len() < workers
    });
    assert!(freed, "the listener's worker outlived its stream");
}
