//! `MCP_AUTH=oauth` against the real router: JWT access tokens made here with
//! keys generated here, the issuer's JWKS served by a small issuer this test
//! starts on loopback, every way a token can be wrong as a table (status,
//! challenge, body), the key refresh on an unknown `kid` and after a rotation,
//! and the Protected Resource Metadata document.

use gsmcp_tests::jwt::{b64url, Issuer, Key};
use gsmcp_tests::{initialize_body, Server};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};

const ISSUER: &str = "https://id.example.test/realms/shop";
const SCOPE: &str = "gemstone:read";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn server(issuer: &Issuer) -> Server {
    Server::builder()
        .env("MCP_AUTH", "oauth")
        .env("MCP_WORKER_LOGIN", "shared")
        .env("MCP_OAUTH_ISSUER", ISSUER)
        .env("MCP_OAUTH_AUDIENCE", "https://gemstone.example.test/mcp")
        .env("MCP_OAUTH_JWKS_URL", &issuer.url)
        .env("MCP_OAUTH_SCOPES", SCOPE)
        .env("MCP_OAUTH_EXTRA_SCOPES", "gemstone:write gemstone:execute")
        .env("MCP_OAUTH_LEEWAY", "30s")
        .start()
}

fn claims(overrides: Value) -> Value {
    let mut c = json!({
        "iss": ISSUER, "aud": ["https://gemstone.example.test/mcp", "account"],
        "sub": "alice", "scope": format!("openid {SCOPE}"),
        "iat": now(), "exp": now() + 600,
    });
    for (k, v) in overrides.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

#[rustfmt::skip]
#[test]
fn access_tokens_are_a_table() {
    let good = Key::new("k1");
    let other = Key::new("k1");
    let issuer = Issuer::start(&[&good]);
    let server = server(&issuer);
    let sign = |c: Value| good.sign("k1", &c);
    let header_none = b64url(br#"{"alg":"none","typ":"JWT","kid":"k1"}"#);
    let unsigned = format!("{header_none}.{}.", b64url(claims(json!({})).to_string().as_bytes()));
    // HS256 keyed with the issuer's public key: the classic algorithm confusion
    let confused = {
        let mut h = Header::new(Algorithm::HS256);
        h.kid = Some("k1".into());
        jsonwebtoken::encode(&h, &claims(json!({})), &EncodingKey::from_secret(&good.public)).unwrap()
    };
    let metadata = r#"resource_metadata="https://gemstone.example.test/.well-known/oauth-protected-resource/mcp""#;
    // (case, Authorization or "" for none, status, the challenge holds, the body holds)
    let rows: Vec<(&str, String, u16, &str, &str)> = vec![
        ("valid", format!("Bearer {}", sign(claims(json!({})))), 200, "", ""),
        ("missing header", String::new(), 401, metadata, "Unauthorized"),
        ("another scheme", "Basic dXNlcjpwYXNz".into(), 401, r#"scope="gemstone:read""#, "Unauthorized"),
        ("garbage", "Bearer abc.def.ghi".into(), 401, r#"error="invalid_token""#, "well-formed"),
        ("bad signature", format!("Bearer {}", other.sign("k1", &claims(json!({})))), 401, r#"error="invalid_token""#, "signature"),
        ("alg none", format!("Bearer {unsigned}"), 401, r#"error="invalid_token""#, "Unauthorized"),
        ("HMAC against the issuer's key", format!("Bearer {confused}"), 401, r#"error="invalid_token""#, "not allowed"),
        ("expired", format!("Bearer {}", sign(claims(json!({"exp": now() - 3600})))), 401, r#"error="invalid_token""#, "expired"),
        ("not yet valid", format!("Bearer {}", sign(claims(json!({"nbf": now() + 3600})))), 401, r#"error="invalid_token""#, "not valid yet"),
        ("wrong issuer", format!("Bearer {}", sign(claims(json!({"iss": "https://evil.example.test"})))), 401, r#"error="invalid_token""#, "another issuer"),
        ("wrong audience", format!("Bearer {}", sign(claims(json!({"aud": "https://other.example.test/mcp"})))), 401, r#"error="invalid_token""#, "another resource"),
        ("missing scope", format!("Bearer {}", sign(claims(json!({"scope": "openid"})))), 403, r#"error="insufficient_scope""#, "gemstone:read"),
        ("scope as scp list", format!("Bearer {}", sign(claims(json!({"scope": null, "scp": [SCOPE]})))), 200, "", ""),
        ("no user", format!("Bearer {}", sign(claims(json!({"sub": null})))), 401, r#"error="invalid_token""#, "sub"),
    ];
    for (case, auth, status, challenge, body) in &rows {
        let r = server.post(&initialize_body(1, "2025-11-25"), &[("Authorization", auth)]);
        assert_eq!(r.status, *status, "{case}: {}", r.text());
        if *status == 200 {
            assert!(r.header("mcp-session-id").is_some(), "{case}");
            continue;
        }
        let got = r.header("www-authenticate").unwrap_or_else(|| panic!("{case}: no challenge"));
        assert!(got.starts_with("Bearer ") && got.contains(challenge) && got.contains(metadata), "{case}: {got}");
        assert_eq!(got.contains("error="), *case != "missing header" && *case != "another scheme", "{case}: {got}");
        assert!(r.json()["error"]["message"].as_str().unwrap().contains(body), "{case}: {}", r.text());
    }
    // the keys were fetched once, for the first token
    assert_eq!(issuer.fetches(), 1);
    // an unknown kid makes one fetch, then is refused; a second one right after makes none
    for expected in [2, 2] {
        let r = server.post(&initialize_body(1, "2025-11-25"), &[("Authorization", &format!("Bearer {}", good.sign("k9", &claims(json!({})))))]);
        assert_eq!(r.status, 401, "{}", r.text());
        assert!(r.text().contains("unknown key"), "{}", r.text());
        assert_eq!(issuer.fetches(), expected);
    }
    let log = server.log();
    assert!(!log.contains(&sign(claims(json!({})))[..40]), "a token in the log");
}

#[test]
fn a_rotated_key_is_fetched_and_metadata_is_served() {
    let k1 = Key::new("k1");
    let k2 = Key::new("k2");
    let issuer = Issuer::start(&[&k1]);
    let server = server(&issuer);
    let ok = |key: &Key| {
        let auth = format!("Bearer {}", key.sign(&key.kid, &claims(json!({}))));
        server
            .post(
                &initialize_body(1, "2025-11-25"),
                &[("Authorization", &auth)],
            )
            .status
    };
    assert_eq!(ok(&k1), 200);
    assert_eq!(issuer.fetches(), 1);
    // the issuer rotates: a token of the new key makes the router fetch again
    issuer.publish(&[&k2]);
    assert_eq!(ok(&k2), 200, "the rotated key");
    assert_eq!(issuer.fetches(), 2);
    // and within the refresh gap, another unknown key fetches nothing
    let k3 = Key::new("k3");
    assert_eq!(ok(&k3), 401);
    assert_eq!(issuer.fetches(), 2);

    // the metadata, in both forms, to anyone
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let r = server.request("GET", path, &[("Authorization", "")], b"");
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        let m = r.json();
        assert_eq!(m["resource"], "https://gemstone.example.test/mcp");
        assert_eq!(m["authorization_servers"], json!([ISSUER]));
        assert_eq!(
            m["scopes_supported"],
            json!(["gemstone:read", "gemstone:write", "gemstone:execute"])
        );
    }
}

#[test]
fn oauth_settings_are_checked_at_start_up() {
    let table: &[(&[(&str, &str)], &str)] = &[
        (&[], "MCP_OAUTH_ISSUER"),
        (&[("MCP_OAUTH_ISSUER", ISSUER)], "MCP_OAUTH_AUDIENCE"),
        (
            &[
                ("MCP_OAUTH_ISSUER", ISSUER),
                ("MCP_OAUTH_AUDIENCE", "https://gs.example.test/mcp"),
                ("MCP_OAUTH_JWKS_URL", "http://id.example.test/certs"),
            ],
            "https://",
        ),
        (
            &[
                ("MCP_OAUTH_ISSUER", ISSUER),
                ("MCP_OAUTH_AUDIENCE", "https://gs.example.test/mcp"),
                ("MCP_OAUTH_JWKS_URL", "https://id.example.test/certs"),
                ("MCP_OAUTH_ALGORITHMS", "HS256"),
            ],
            "MCP_OAUTH_HMAC_SECRET_FILE",
        ),
        (
            &[
                ("MCP_OAUTH_ISSUER", ISSUER),
                ("MCP_OAUTH_AUDIENCE", "https://gs.example.test/mcp"),
                ("MCP_OAUTH_JWKS_URL", "https://id.example.test/certs"),
                ("MCP_SCOPE_TOOLSETS", "gemstone:read=Browsing"),
            ],
            "grants Execution to no scope",
        ),
        (
            &[
                ("MCP_OAUTH_ISSUER", ISSUER),
                ("MCP_OAUTH_AUDIENCE", "https://gs.example.test/mcp"),
                ("MCP_OAUTH_JWKS_URL", "https://id.example.test/certs"),
                ("MCP_TOOLSETS", "Browsing"),
                (
                    "MCP_SCOPE_TOOLSETS",
                    "gemstone:read=Browsing gemstone:execute=Execution",
                ),
            ],
            "which MCP_TOOLSETS does not serve",
        ),
    ];
    for (env, expect) in table {
        let mut b = Server::builder()
            .env("MCP_AUTH", "oauth")
            .env("MCP_WORKER_LOGIN", "shared");
        for (k, v) in *env {
            b = b.env(k, v);
        }
        let exited = b.run_to_exit();
        assert_eq!(exited.status.code(), Some(2), "{}", exited.stderr);
        assert!(
            exited.stderr.contains(expect),
            "{expect}: {}",
            exited.stderr
        );
    }
}

#[test]
fn scopes_choose_toolsets_and_sessions_belong_to_their_user() {
    let key = Key::new("k1");
    let issuer = Issuer::start(&[&key]);
    let server = Server::builder()
        .env("MCP_AUTH", "oauth")
        .env("MCP_WORKER_LOGIN", "shared")
        .env("MCP_OAUTH_ISSUER", ISSUER)
        .env("MCP_OAUTH_AUDIENCE", "https://gemstone.example.test/mcp")
        .env("MCP_OAUTH_JWKS_URL", &issuer.url)
        .env(
            "MCP_SCOPE_TOOLSETS",
            "gemstone:read=Browsing,Listing,Search gemstone:write=Browsing,Listing,Search,Mutation,Refactoring,Session,Testing gemstone:execute=Execution",
        )
        .start();
    let bearer = |user: &str, scope: &str| {
        format!(
            "Bearer {}",
            key.sign("k1", &claims(json!({ "sub": user, "scope": scope })))
        )
    };
    let open = |auth: &str| {
        let r = server.post(
            &initialize_body(1, "2025-11-25"),
            &[("Authorization", auth)],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.header("mcp-session-id").unwrap().to_string()
    };
    let post = |auth: &str, sid: &str, body: Value| {
        server.post(
            &body.to_string(),
            &[("Authorization", auth), ("Mcp-Session-Id", sid)],
        )
    };
    let tools = |auth: &str, sid: &str| -> Vec<String> {
        let r = post(
            auth,
            sid,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        );
        r.final_message()["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let execute = |auth: &str, sid: &str| {
        let r = post(
            auth,
            sid,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "execute_code", "arguments": {"code": "3 + 4"}}}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.final_message()["result"].clone()
    };

    // a reader sees the read tools only, and is told which scope executes
    let reader = bearer("alice", "gemstone:read");
    let sid = open(&reader);
    let names = tools(&reader, &sid);
    assert!(
        names.contains(&"get_method_source".to_string()),
        "{names:?}"
    );
    for hidden in ["execute_code", "compile_method", "commit", "run_test_class"] {
        assert!(
            !names.contains(&hidden.to_string()),
            "{hidden} listed: {names:?}"
        );
    }
    let refused = execute(&reader, &sid);
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["error"]["kind"], "refused");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("Execution") && text.contains("gemstone:execute"),
        "{text}"
    );

    // reading and executing: both toolsets
    let runner = bearer("bob", "gemstone:read gemstone:execute");
    let bobs = open(&runner);
    let names = tools(&runner, &bobs);
    assert!(names.contains(&"execute_code".to_string()) && !names.contains(&"commit".to_string()));
    assert_eq!(execute(&runner, &bobs)["structuredContent"]["result"], "7");

    // another user's valid token on alice's session is refused, and logged
    let r = post(
        &runner,
        &sid,
        json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.text().contains("belongs to another user"), "{}", r.text());
    let r = server.request(
        "DELETE",
        "/mcp",
        &[("Authorization", &runner), ("Mcp-Session-Id", &sid)],
        b"",
    );
    assert_eq!(r.status, 403, "{}", r.text());
    // her own new token (same user) still reaches it
    let again = bearer("alice", "gemstone:read");
    let r = post(
        &again,
        &sid,
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(gsmcp_tests::wait_until(
        std::time::Duration::from_secs(10),
        || { server.log().contains("another principal's session") }
    ));
}
