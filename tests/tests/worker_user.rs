//! End-to-end: `MCP_WORKER_USER` and its password. A repository prepared with
//! `gsmcp-topaz --repo` holds a read-only (commit-disabled) user; a router
//! whose workers log in as that user serves sessions that read and evaluate,
//! whose changes to shared objects and commits are refused with clear tool
//! errors, and whose `status` names the user. A wrong password fails the
//! client's `initialize` with an error that names the user, never the password.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::harness::{scratch_path, topaz};
use gsmcp_tests::{initialize_body, Server};
use serde_json::json;
use util::mcp::Http;
use util::{all_text, eval, fails, ok};

const PREPARE: &str = "\
run
AllUsers addNewUserWithId: 'reader' password: 'look-only' commitDisabled: true.
Globals at: #Greeting put: 'hello'.
Object subclass: 'Shown' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Published.
true
%
commit
logout
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_worker_user_reads_and_is_refused_changes() {
    let repo = scratch_path("worker-user.db");
    topaz(&repo, PREPARE);
    let password = scratch_path("reader-password");
    std::fs::write(&password, "look-only\n").unwrap();
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_WORKER_USER", "reader")
        .env("MCP_WORKER_PASSWORD_FILE", &password)
        .start();
    assert!(
        !server.log().contains("look-only"),
        "the password is never logged"
    );
    let http = Http::new(&server.url);
    let mut s = http.open().await;

    let st = ok(&mut s, "status", json!({})).await;
    assert_eq!(st["structuredContent"]["user"], "reader", "{st}");
    assert!(all_text(&st).contains("user reader"), "{st}");

    // reads and evaluation work
    assert_eq!(eval(&mut s, "Greeting , ' world'").await, "'hello world'");
    assert_eq!(eval(&mut s, "Shown name").await, "#Shown");
    assert_eq!(
        eval(&mut s, "(OrderedCollection new add: 3; yourself) size").await,
        "1"
    );

    // the read-only tools work (they write nothing shared)
    let r = ok(&mut s, "find_implementors", json!({"selector": "printOn:"})).await;
    assert!(all_text(&r).contains("Object"), "{r}");
    let r = ok(
        &mut s,
        "get_method_source",
        json!({"className": "Object", "selector": "yourself"}),
    )
    .await;
    assert!(all_text(&r).contains("yourself"), "{r}");
    let r = ok(&mut s, "describe_class", json!({"className": "Shown"})).await;
    assert!(all_text(&r).contains("Shown"), "{r}");

    // a store into a shared object: a tool error naming the refusal
    let r = s.execute("UserGlobals at: #X put: 1").await;
    assert_eq!(r["isError"], true, "{r}");
    let text = all_text(&r);
    assert!(
        text.contains("SecurityError") && text.contains("no write authorization"),
        "{r}"
    );
    // compiling into a shared class (not a kernel one: the kernel guard would
    // refuse that before the store is reached)
    let e = fails(
        &mut s,
        "compile_method",
        json!({"className": "Shown", "source": "readOnlyProbe\n\t^ 1"}),
    )
    .await;
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("no write authorization"), "{e}");
    assert_eq!(
        eval(&mut s, "Shown includesSelector: #readOnlyProbe").await,
        "false"
    );

    // commit: refused, not a conflict
    let e = fails(&mut s, "commit", json!({})).await;
    assert_eq!(e["kind"], "refused", "{e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("read-only"), "{e}");
    assert!(message.contains("reader"), "{e}");

    // still usable
    assert_eq!(eval(&mut s, "3 + 4").await, "7");
    ok(&mut s, "abort", json!({})).await;
    assert_eq!(eval(&mut s, "Greeting").await, "'hello'");
}

#[test]
fn a_wrong_worker_password_fails_initialize_clearly() {
    let repo = scratch_path("worker-user-denied.db");
    topaz(&repo, PREPARE);
    for (user, password) in [("reader", "wrong-guess"), ("nobody", "wrong-guess")] {
        let server = Server::builder()
            .env("MCP_REPOSITORY", &repo)
            .env("MCP_WORKER_USER", user)
            .env("MCP_WORKER_PASSWORD", password)
            .start();
        let r = server.post(&initialize_body(1, "2025-11-25"), &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        let body = r.json();
        assert_eq!(body["error"]["code"], json!(-32001), "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("refused user \"{user}\""))
                && message.contains("MCP_WORKER_USER"),
            "{message}"
        );
        assert!(!r.text().contains(password), "{}", r.text());
        assert!(!server.log().contains(password), "{}", server.log());
        assert!(r.header("mcp-session-id").is_none());
    }
}

#[test]
fn a_worker_user_without_its_password_is_refused_at_start_up() {
    let exited = Server::builder()
        .env("MCP_REPOSITORY", scratch_path("never.db"))
        .env("MCP_WORKER_USER", "reader")
        .run_to_exit();
    assert!(!exited.status.success());
    assert!(
        exited
            .stderr
            .contains("MCP_WORKER_USER=reader needs its password"),
        "{}",
        exited.stderr
    );
}

/// Workers start with a scrubbed environment: the passwords, tokens and every
/// `MCP_*` setting the router was given stay with the router (a worker gets
/// its configuration in the first frame), while what a process needs passes.
#[test]
fn secrets_stay_out_of_every_workers_environment() {
    let repo = scratch_path("worker-env.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        .env("MCP_WORKER_PASSWORD", "swordfish")
        .env("MCP_HOST_USER", "gemstone")
        .env("MCP_HOST_PASSWORD", "host-secret-7741")
        .env("GSMCP_TEST_API_TOKEN_X", "kept-diagnostic")
        .env("SOME_SERVICE_TOKEN", "token-secret-5512")
        .env("AWS_SECRET_ACCESS_KEY", "key-secret-9931")
        .env("LC_ALL", "C")
        .start();
    let sessions: Vec<_> = (0..3).map(|_| server.open_session()).collect();
    let workers = gsmcp_tests::workers_of(server.port());
    assert_eq!(workers.len(), sessions.len(), "{workers:?}");
    for w in &workers {
        let raw = std::fs::read(format!("/proc/{}/environ", w.pid)).expect("environ");
        let vars: Vec<String> = raw
            .split(|&b| b == 0)
            .filter(|v| !v.is_empty())
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        let names: Vec<&str> = vars
            .iter()
            .map(|v| v.split('=').next().unwrap_or(""))
            .collect();
        // (variable, whether the worker sees it)
        for (name, seen) in [
            ("MCP_WORKER_PASSWORD", false),
            ("MCP_HOST_PASSWORD", false),
            ("MCP_REPOSITORY", false),
            ("SOME_SERVICE_TOKEN", false),
            ("AWS_SECRET_ACCESS_KEY", false),
            ("GSMCP_IPC_FD", true),
            ("GSMCP_TEST_API_TOKEN_X", true),
            ("LC_ALL", true),
        ] {
            assert_eq!(
                names.contains(&name),
                seen,
                "{name} in worker {}: {names:?}",
                w.pid
            );
        }
        for secret in [
            "swordfish",
            "host-secret-7741",
            "token-secret-5512",
            "key-secret-9931",
        ] {
            assert!(
                !vars.iter().any(|v| v.contains(secret)),
                "{secret} in {vars:?}"
            );
        }
    }
    drop(sessions);
}
