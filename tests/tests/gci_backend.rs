//! The GCI backend's failures, each with its clear error and no crash of the
//! router: settings refused before the port is bound, a library that cannot
//! be used refused at `initialize`, logins the stone refuses, and a library
//! call that crashes (SIGSEGV inside the library) costing only its client.

#[path = "../src/mcp.rs"]
mod mcp;

use gsmcp_tests::harness::scratch_path;
use gsmcp_tests::{gci_product_dir, initialize_body, Server, ServerBuilder};
use mcp::Http;
use serde_json::json;
use std::path::{Path, PathBuf};

fn gci() -> ServerBuilder {
    Server::builder().env("MCP_BACKEND", "gci")
}

fn library_name(version: &str) -> String {
    format!("libgcits-{version}-64.{}", gsmcp_gci_abi::product::SUFFIX)
}

/// A product directory whose `lib/` holds `file` under the name `name`.
fn product_with(name: &str, file: &Path) -> PathBuf {
    let dir = scratch_path("product");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::copy(file, dir.join("lib").join(name)).unwrap();
    dir
}

/// Some shared library that is not a GCI library.
fn other_shared_library() -> PathBuf {
    let candidates = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib/aarch64-linux-gnu/libm.so.6",
        "/usr/lib/aarch64-linux-gnu/libm.so.6",
        "/lib64/libm.so.6",
        "/usr/lib64/libm.so.6",
    ];
    candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("a libm to stand in for a library without the GCI's functions")
}

#[test]
fn bad_settings_are_refused_before_the_port_is_bound() {
    let text = scratch_path("not-a-library.txt");
    std::fs::write(&text, "not a library").unwrap();
    let old = product_with(&library_name("3.5.8"), &text);
    let two = product_with(&library_name("3.7.4"), &text);
    std::fs::copy(&text, two.join("lib").join(library_name("3.7.5"))).unwrap();
    let empty = scratch_path("empty-product");
    std::fs::create_dir_all(empty.join("lib")).unwrap();
    let pw = scratch_path("host-password");
    std::fs::write(&pw, "secret\n").unwrap();
    // (environment, what the message must name)
    let table: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("MCP_BACKEND", "gemstone".into())],
            "MCP_BACKEND=\"gemstone\"",
        ),
        (vec![("MCP_BACKEND", "gci".into())], "GEMSTONE"),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", "/nonexistent/gs".into()),
            ],
            "/nonexistent/gs/lib",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", empty.display().to_string()),
            ],
            "no libgcits-<version>-64",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", old.display().to_string()),
            ],
            "3.5.8",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", two.display().to_string()),
            ],
            "several GCI libraries",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                (
                    "MCP_GCI_LIBRARY",
                    "/nonexistent/libgcits-3.7.5-64.so".into(),
                ),
            ],
            "MCP_GCI_LIBRARY",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("MCP_GCI_LIBRARY", text.display().to_string()),
            ],
            "is not named libgcits-<version>-64",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", gci_product_dir().display().to_string()),
                ("MCP_REPOSITORY", "/tmp/x.db".into()),
            ],
            "MCP_STONE instead",
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", gci_product_dir().display().to_string()),
                ("MCP_HOST_PASSWORD_FILE", pw.display().to_string()),
            ],
            "MCP_HOST_USER is not",
        ),
    ];
    for (env, expect) in table {
        let mut b = Server::builder();
        for (k, v) in &env {
            b = b.env(k, v);
        }
        let exited = b.run_to_exit();
        assert_eq!(exited.status.code(), Some(2), "{env:?}: {exited:?}");
        assert!(
            exited.stdout.is_empty(),
            "{env:?}: bound and listened: {}",
            exited.stdout
        );
        assert!(
            exited.stderr.contains(expect),
            "{env:?}: wanted {expect:?} in\n{}",
            exited.stderr
        );
        assert!(
            !exited.stderr.contains("secret"),
            "the host password never shows"
        );
    }
}

/// `initialize` on `server`, expected to fail; answers the error message.
fn initialize_fails(server: &Server) -> String {
    let r = server.post(&initialize_body(1, "2025-11-25"), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["error"]["code"], json!(-32001), "{body}");
    assert!(r.header("mcp-session-id").is_none());
    body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn unusable_libraries_and_refused_logins_fail_initialize_clearly() {
    let stand_in = product_with(&library_name("3.7.5"), &other_shared_library());
    let text = scratch_path("garbage.so");
    std::fs::write(&text, "garbage").unwrap();
    let garbage = product_with(&library_name("3.7.5"), &text);
    let real = gci_product_dir().display().to_string();
    let repo = scratch_path("gci-backend-login.repository")
        .display()
        .to_string();
    // (environment, what the message must name)
    let table: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("GEMSTONE", stand_in.display().to_string())],
            "has no function GciTs",
        ),
        (
            vec![("GEMSTONE", garbage.display().to_string())],
            "cannot load",
        ),
        (
            vec![
                ("GEMSTONE", real.clone()),
                ("MCP_STONE", repo.clone()),
                ("MCP_WORKER_PASSWORD", "wrong-guess".into()),
            ],
            "MCP_WORKER_PASSWORD",
        ),
        (
            vec![
                ("GEMSTONE", real.clone()),
                ("MCP_STONE", "!@far.away.example!gs64stone".into()),
            ],
            "MCP_STONE",
        ),
        (
            vec![
                ("GEMSTONE", real.clone()),
                ("MCP_GEM_NRS", "gcilnkobj".into()),
            ],
            "MCP_GEM_NRS",
        ),
    ];
    for (env, expect) in table {
        let mut b = gci();
        for (k, v) in &env {
            b = b.env(k, v);
        }
        let server = b.start();
        let message = initialize_fails(&server);
        assert!(
            message.contains(expect),
            "{env:?}: wanted {expect:?} in {message}"
        );
        assert!(!message.contains("wrong-guess") && !server.log().contains("wrong-guess"));
        // the router is still there and answers
        let r = server.post(&initialize_body(2, "2025-11-25"), &[]);
        assert_eq!(r.status, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crash_inside_the_library_costs_only_its_client() {
    let server = gci()
        .env("GEMSTONE", gci_product_dir())
        .env("MCP_STONE", ":memory:")
        .env("MCP_MAX_SESSIONS", "2")
        .env("GSMCP_GCI_CRASH_MARK", "gsmcpCrashHere")
        .start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;
    let gone = a
        .call("execute_code", json!({"code": "#gsmcpCrashHere"}))
        .await;
    assert_eq!(gone.error()["code"], -32001, "{gone:?}");
    assert_eq!(gone.error()["data"]["kind"], "sessionGone", "{gone:?}");
    // B goes on; A's slot comes back for a new session
    let r = b.call("execute_code", json!({"code": "3 + 4"})).await;
    assert_eq!(r.result()["structuredContent"]["result"], "7", "{r:?}");
    let mut c = http.open().await;
    let r = c.call("execute_code", json!({"code": "6 * 7"})).await;
    assert_eq!(r.result()["structuredContent"]["result"], "42", "{r:?}");
}

#[test]
fn check_reports_what_it_found_on_both_backends() {
    let product = gci_product_dir().display().to_string();
    let repo = scratch_path("check.repository").display().to_string();
    // (environment, lines the report must hold)
    type Row<'a> = (Vec<(&'a str, String)>, Vec<&'a str>);
    let table: Vec<Row> = vec![
        (
            vec![],
            vec![
                "backend    embedded :memory:",
                "user       DataCurator",
                "3 + 4      7",
                "commits    allowed",
            ],
        ),
        (
            vec![
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", product.clone()),
                ("MCP_STONE", repo.clone()),
            ],
            vec![
                "backend    gci, GemStone stone",
                "library    ",
                "libgcits-3.7.5-64",
                "(GemStone 3.7.5)",
                "3 + 4      7",
                "commits    allowed",
            ],
        ),
    ];
    for (env, lines) in table {
        let mut b = Server::builder().arg("--check");
        for (k, v) in &env {
            b = b.env(k, v);
        }
        let exited = b.run_to_exit();
        assert_eq!(exited.status.code(), Some(0), "{env:?}: {exited:?}");
        assert!(
            exited.stdout.starts_with("gsmcp --check: ok"),
            "{}",
            exited.stdout
        );
        for line in lines {
            assert!(
                exited.stdout.contains(line),
                "{env:?}: wanted {line:?} in\n{}",
                exited.stdout
            );
        }
    }
    // a refused login: exit 2 with the fix, the password never shown
    let exited = Server::builder()
        .arg("--check")
        .env("MCP_BACKEND", "gci")
        .env("GEMSTONE", &product)
        .env("MCP_STONE", &repo)
        .env("MCP_WORKER_PASSWORD", "wrong-guess")
        .run_to_exit();
    assert_eq!(exited.status.code(), Some(2), "{exited:?}");
    assert!(
        exited.stderr.contains("MCP_WORKER_PASSWORD"),
        "{}",
        exited.stderr
    );
    assert!(!exited.stderr.contains("wrong-guess") && !exited.stdout.contains("wrong-guess"));
}
