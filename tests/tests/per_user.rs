//! Per-user workers end to end (`MCP_AUTH=oauth`, whose default is
//! `MCP_WORKER_LOGIN=per-user`): a repository prepared with `gsmcp-topaz`
//! holds a developer and a read-only user; tokens made here name them through
//! `MCP_OAUTH_USER_MAP`. Each session's worker logs in as its principal's
//! user — by a one-time ticket on the embedded stone, and over GCI with the
//! session's access token as a JWT login, which the stone verifies against
//! the users' JwtSecurityData and the key it was told to trust — the process
//! listing and `status` say so; a read-only user gets the read-only
//! behaviour, a principal cannot use another's session, an unmapped
//! principal, a missing repository user or one not enabled for JWT logins is
//! refused clearly, and no ticket, key or token appears in the log or any
//! argv.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::harness::{scratch_path, topaz};
use gsmcp_tests::jwt::{Issuer, Key};
use gsmcp_tests::{initialize_body, wait_until, worker_of_session, workers_of, Server};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use util::all_text;

const ISSUER: &str = "https://id.example.test/realms/shop";
const AUDIENCE: &str = "https://gemstone.example.test/mcp";

const PREPARE: &str = "\
run
AllUsers addNewUserWithId: 'alice' password: 'not-known-to-gsmcp'.
AllUsers addNewUserWithId: 'reader' password: 'not-known-either' commitDisabled: true.
AllUsers addNewUserWithId: 'bob' password: 'bobs-own'.
Globals at: #Greeting put: 'hello'.
true
%
commit
logout
";

/// What a GemStone administrator runs so that the stone accepts the
/// issuer's tokens as logins: alice and reader enabled for JWT logins by
/// their `sub`, and the issuer's key trusted under its kid. (bob is not.)
fn enable_jwt_logins(repo: &std::path::Path, key: &Key) {
    let script = format!(
        "run
| enable |
enable := [:user :sub | | sec |
    sec := JwtSecurityData new.
    sec userIdKey: #sub; addUserId: sub; addIssuer: '{ISSUER}'; addAudience: '{AUDIENCE}'.
    (AllUsers userWithId: user) enableJwtAuthenticationWith: sec].
enable value: 'alice' value: '5d1c0f6e-alice'.
enable value: 'reader' value: 'reader@example.test'.
System addJwtKey: (GsTlsPublicKey newFromPemString: '{}') withId: '{}'.
System jwtPublicKeys size
%
commit
logout
",
        key.public_pem, key.kid
    );
    let out = topaz(repo, &script);
    assert!(out.contains('2') && !out.contains("ERROR"), "{out}");
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A router serving `repo` to the issuer's principals, mapped by `map`.
fn builder(
    issuer: &Issuer,
    repo: &std::path::Path,
    map: &std::path::Path,
) -> gsmcp_tests::ServerBuilder {
    Server::builder()
        .env("MCP_AUTH", "oauth")
        .env("MCP_OAUTH_ISSUER", ISSUER)
        .env("MCP_OAUTH_AUDIENCE", AUDIENCE)
        .env("MCP_OAUTH_JWKS_URL", &issuer.url)
        .env("MCP_OAUTH_USER_MAP", map)
        .env("MCP_REPOSITORY", repo)
}

struct Client<'a> {
    server: &'a Server,
    auth: String,
}

impl Client<'_> {
    fn post(&self, sid: &str, body: Value) -> gsmcp_tests::HttpResponse {
        self.server.post(
            &body.to_string(),
            &[("Authorization", &self.auth), ("Mcp-Session-Id", sid)],
        )
    }

    fn open(&self) -> String {
        let r = self.server.post(
            &initialize_body(1, "2025-11-25"),
            &[("Authorization", &self.auth)],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.final_message()["result"].is_object(), "{}", r.text());
        r.header("mcp-session-id").unwrap().to_string()
    }

    /// A tool's result.
    fn call(&self, sid: &str, tool: &str, args: Value) -> Value {
        let r = self.post(
            sid,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": tool, "arguments": args}}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.final_message()["result"].clone()
    }
}

#[test]
fn each_session_logs_in_as_its_principals_repository_user() {
    let repo = scratch_path("per-user.db");
    topaz(&repo, PREPARE);
    let map = scratch_path("users.json");
    std::fs::write(
        &map,
        json!({
            "5d1c0f6e-alice": "alice",
            "reader@example.test": "reader",
            "ghost@example.test": "ghost",
            "bob@example.test": "bob",
        })
        .to_string(),
    )
    .unwrap();
    let key = Key::new("k1");
    let issuer = Issuer::start(&[&key]);
    // over GCI the harness serves the repository as a GemStone stone, which
    // verifies each session's token itself
    let gci = gsmcp_tests::test_backend_is_gci();
    if gci {
        enable_jwt_logins(&repo, &key);
    }
    let server = builder(&issuer, &repo, &map).start();
    let token = |sub: &str| {
        let claims = json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub,
                            "iat": now(), "exp": now() + 600});
        format!("Bearer {}", key.sign("k1", &claims))
    };
    let alice = Client {
        server: &server,
        auth: token("5d1c0f6e-alice"),
    };
    let reader = Client {
        server: &server,
        auth: token("reader@example.test"),
    };

    // on the embedded stone the router made the repository's login key,
    // private; a GemStone stone needs none
    let key_file = format!("{}.login-key", repo.display());
    if gci {
        assert!(!std::path::Path::new(&key_file).exists());
    } else {
        let mode = std::fs::metadata(&key_file)
            .expect("the login key")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(
        wait_until(Duration::from_secs(10), || server
            .log()
            .contains("logins=per-user")),
        "{}",
        server.log()
    );

    let (a, r) = (alice.open(), reader.open());
    // the process listing names each worker's user
    for (sid, user) in [(&a, "alice"), (&r, "reader")] {
        let worker = worker_of_session(server.port(), sid).expect("the session's worker");
        assert_eq!(
            worker.argv.get(3).map(String::as_str),
            Some(user),
            "{worker:?}"
        );
    }
    // and so does status
    for (client, sid, user) in [(&alice, &a, "alice"), (&reader, &r, "reader")] {
        let st = client.call(sid, "status", json!({}));
        assert_eq!(st["structuredContent"]["user"], user, "{st}");
        assert!(all_text(&st).contains(&format!("user {user}")), "{st}");
    }

    // alice works, and her pending changes are named hers; she commits
    let done = alice.call(
        &a,
        "execute_code",
        json!({"code": "UserGlobals at: #Mine put: 42"}),
    );
    assert_eq!(done["isError"], false, "{done}");
    assert!(
        all_text(&done).contains("[session] this session (user alice) holds uncommitted changes"),
        "{done}"
    );
    let c = alice.call(&a, "commit", json!({}));
    assert_eq!(c["isError"], false, "{c}");

    // the read-only user reads and evaluates, and is refused changes and commits
    let g = reader.call(&r, "execute_code", json!({"code": "Greeting , ' world'"}));
    assert_eq!(all_text(&g), "'hello world'", "{g}");
    let w = reader.call(
        &r,
        "execute_code",
        json!({"code": "UserGlobals at: #X put: 1"}),
    );
    assert_eq!(w["isError"], true, "{w}");
    assert!(all_text(&w).contains("no write authorization"), "{w}");
    let c = reader.call(&r, "commit", json!({}));
    assert_eq!(c["isError"], true, "{c}");
    assert!(all_text(&c).contains("read-only"), "{c}");

    // one principal's token on the other's session is refused
    let stolen = alice.post(
        &r,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    );
    assert_eq!(stolen.status, 403, "{}", stolen.text());

    // a principal the map does not name: 403, before any worker starts
    let before = workers_of(server.port()).len();
    let stranger = server.post(
        &initialize_body(1, "2025-11-25"),
        &[("Authorization", &token("mallory@example.test"))],
    );
    assert_eq!(stranger.status, 403, "{}", stranger.text());
    assert!(
        stranger.text().contains("no repository user"),
        "{}",
        stranger.text()
    );
    // a mapped principal whose repository user does not exist: initialize
    // fails naming the user, and nothing is left running
    let ghost = server.post(
        &initialize_body(1, "2025-11-25"),
        &[("Authorization", &token("ghost@example.test"))],
    );
    let m = ghost.final_message();
    let message = m["error"]["message"].as_str().unwrap_or_default();
    let expected = if gci {
        "refused the access token as a login for user \"ghost\""
    } else {
        "has no user ghost"
    };
    assert!(message.contains(expected), "{}", ghost.text());
    assert_eq!(workers_of(server.port()).len(), before);
    if gci {
        // a user the stone has not enabled for JWT logins: the stone says so
        let bob = server.post(
            &initialize_body(1, "2025-11-25"),
            &[("Authorization", &token("bob@example.test"))],
        );
        let m = bob.final_message();
        let message = m["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("bob is not enabled for JSON Web Token logins"),
            "{}",
            bob.text()
        );
        assert_eq!(workers_of(server.port()).len(), before);
    }

    // no ticket, key or token is written anywhere: not in the log, not in
    // an argv
    let log = server.log();
    let mut secrets = vec!["gsmcp-ticket".to_string()];
    secrets.extend([&alice.auth, &reader.auth].map(|a| a["Bearer ".len()..].to_string()));
    if !gci {
        secrets.push(
            std::fs::read_to_string(&key_file)
                .unwrap()
                .trim()
                .to_string(),
        );
    }
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "{secret:.20} is in the log");
        for w in workers_of(server.port()) {
            let argv = w.argv.join(" ");
            assert!(!argv.contains(secret.as_str()), "{argv}");
        }
    }
}

#[test]
fn per_user_logins_are_checked_at_start_up() {
    let key = Key::new("k1");
    let issuer = Issuer::start(&[&key]);
    let repo = scratch_path("per-user-check.db");
    topaz(&repo, PREPARE);
    let map = scratch_path("check-users.json");
    std::fs::write(&map, r#"{"a": "alice"}"#).unwrap();

    // over GCI each login needs a client's token: --check checks the
    // settings and the library's version, and says it logged in no one
    let checked = Server::builder()
        .env("MCP_AUTH", "oauth")
        .env("MCP_OAUTH_ISSUER", ISSUER)
        .env("MCP_OAUTH_AUDIENCE", AUDIENCE)
        .env("MCP_OAUTH_JWKS_URL", &issuer.url)
        .env("MCP_OAUTH_USER_MAP", &map)
        .env("MCP_BACKEND", "gci")
        .env("GEMSTONE", gsmcp_tests::gci_product_dir())
        .env("MCP_STONE", &repo)
        .arg("--check")
        .run_to_exit();
    assert_eq!(checked.status.code(), Some(0), "{}", checked.stderr);
    for part in [
        "per-user, by the client's access token",
        "login      not tried",
    ] {
        assert!(checked.stdout.contains(part), "{}", checked.stdout);
    }

    // --check logs in by ticket as MCP_WORKER_USER (default Developer)
    let checked = builder(&issuer, &repo, &map).arg("--check").run_to_exit();
    assert_eq!(checked.status.code(), Some(0), "{}", checked.stderr);
    assert!(
        checked.stdout.contains("per-user, by one-time ticket"),
        "{}",
        checked.stdout
    );
    assert!(
        checked.stdout.contains("user       Developer"),
        "{}",
        checked.stdout
    );
    let checked = builder(&issuer, &repo, &map)
        .env("MCP_WORKER_USER", "reader")
        .arg("--check")
        .run_to_exit();
    assert_eq!(checked.status.code(), Some(0), "{}", checked.stderr);
    assert!(
        checked.stdout.contains("commits    refused"),
        "{}",
        checked.stdout
    );

    // combinations that cannot work are refused before the port is bound
    let memory = scratch_path("memory-map.json");
    std::fs::write(&memory, r#"{"a": "alice"}"#).unwrap();
    let bad_map = scratch_path("bad-map.json");
    std::fs::write(&bad_map, r#"["alice"]"#).unwrap();
    let password = scratch_path("pw");
    std::fs::write(&password, "swordfish\n").unwrap();
    // a GemStone product whose client library predates JWT logins
    let old_product = scratch_path("gemstone-3.7.2");
    std::fs::create_dir_all(old_product.join("lib")).unwrap();
    std::fs::write(old_product.join("lib/libgcits-3.7.2-64.so"), b"").unwrap();
    let table: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("MCP_REPOSITORY", ":memory:".into())],
            "need a repository file",
        ),
        (
            vec![("MCP_WORKER_PASSWORD_FILE", password.display().to_string())],
            "not used by per-user",
        ),
        (
            vec![("MCP_OAUTH_USER_MAP", bad_map.display().to_string())],
            "not a JSON object",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("MCP_STONE", "gs64stone".into()),
                ("GEMSTONE", old_product.display().to_string()),
            ],
            "this library is older",
        ),
        (
            vec![("MCP_WORKER_LOGIN", "everyone".into())],
            "not a login mode",
        ),
    ];
    for (env, expect) in table {
        let mut b = builder(&issuer, &repo, &map);
        for (k, v) in &env {
            b = b.env(k, v);
        }
        let exited = b.run_to_exit();
        assert_eq!(exited.status.code(), Some(2), "{env:?}: {}", exited.stderr);
        assert!(
            exited.stderr.contains(expect),
            "{expect}: {}",
            exited.stderr
        );
    }
    // per-user needs OAuth
    let exited = Server::builder()
        .env("MCP_WORKER_LOGIN", "per-user")
        .env("MCP_REPOSITORY", &repo)
        .run_to_exit();
    assert_eq!(exited.status.code(), Some(2), "{}", exited.stderr);
    assert!(
        exited.stderr.contains("needs MCP_AUTH=oauth"),
        "{}",
        exited.stderr
    );
}
