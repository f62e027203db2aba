//! End-to-end: the Conformance toolset's fixtures through the real router and
//! worker, checked for the shapes the official conformance suite requires
//! (`tests/clients/run-all.sh` runs the suite itself against a live server).
//! The fixtures are opt-in: a deployment that does not name the toolset does
//! not serve them.

use gsmcp_tests::{request_body, Server};
use serde_json::{json, Value};

fn answer(server: &Server, sid: &str, id: i64, method: &str, params: Value) -> Value {
    let r = server.post_in(sid, &request_body(id, method, params));
    assert_eq!(r.status, 200, "{method}: {}", r.text());
    r.final_message()
}

/// Decodes standard base64 (the test's own decoder, independent of the server's encoder).
fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

#[test]
fn fixture_tools_answer_the_shapes_the_suite_checks() {
    let server = Server::builder().env("MCP_TOOLSETS", "Conformance").start();
    let sid = server.open_session().id;
    let listed = answer(&server, &sid, 2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 25, "only the fixtures are served: {listed}");
    for t in tools {
        assert!(
            t["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    // (tool, pointer into the result, expected value)
    let table = [
        ("test_simple_text", "/content/0/type", json!("text")),
        (
            "test_image_content",
            "/content/0/mimeType",
            json!("image/png"),
        ),
        (
            "test_audio_content",
            "/content/0/mimeType",
            json!("audio/wav"),
        ),
        (
            "test_embedded_resource",
            "/content/0/resource/uri",
            json!("test://embedded-resource"),
        ),
        (
            "test_multiple_content_types",
            "/content/1/type",
            json!("image"),
        ),
        (
            "test_multiple_content_types",
            "/content/2/resource/mimeType",
            json!("application/json"),
        ),
        ("test_error_handling", "/isError", json!(true)),
        ("test_tool_with_progress", "/isError", json!(false)),
    ];
    for (i, (tool, pointer, expected)) in table.into_iter().enumerate() {
        let v = answer(
            &server,
            &sid,
            10 + i as i64,
            "tools/call",
            json!({"name": tool}),
        );
        assert_eq!(
            v["result"].pointer(pointer),
            Some(&expected),
            "{tool} {pointer}: {v}"
        );
    }
    // The media are real files.
    let v = answer(
        &server,
        &sid,
        30,
        "tools/call",
        json!({"name": "test_image_content"}),
    );
    let png = unbase64(v["result"]["content"][0]["data"].as_str().unwrap());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let v = answer(
        &server,
        &sid,
        31,
        "tools/call",
        json!({"name": "test_audio_content"}),
    );
    let wav = unbase64(v["result"]["content"][0]["data"].as_str().unwrap());
    assert_eq!((&wav[..4], &wav[8..12]), (&b"RIFF"[..], &b"WAVE"[..]));
    assert_eq!(
        u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize,
        wav.len() - 8
    );
    // Bad arguments are a tool error, not a protocol fault.
    let v = answer(
        &server,
        &sid,
        32,
        "tools/call",
        json!({"name": "test_sampling", "arguments": {"prompt": 5}}),
    );
    assert_eq!(
        v["result"]["structuredContent"]["error"]["kind"], "invalidParams",
        "{v}"
    );
}

#[test]
fn the_fixtures_are_opt_in() {
    let server = Server::start();
    let sid = server.open_session().id;
    let listed = answer(&server, &sid, 2, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with("test_")), "{names:?}");
    let v = answer(
        &server,
        &sid,
        3,
        "tools/call",
        json!({"name": "test_simple_text"}),
    );
    assert_eq!(v["error"]["code"], -32602, "{v}");
}
