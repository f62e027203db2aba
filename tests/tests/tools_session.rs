//! End-to-end: the Session toolset (abort, commit, refresh, status) through
//! `tools/call` on the real router and workers, over a shared repository file
//! with two sessions and over in-memory images.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::Http;
use util::{all_text, eval, fails, ok, text};

const NOTE: &str = "[session]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_publishes_and_refresh_or_abort_show_it() {
    let repo = gsmcp_tests::harness::scratch_path("session-repo.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    // A box B will change privately, committed before the story starts.
    eval(&mut a, "UserGlobals at: #BoxB put: (Array new: 1)").await;
    ok(&mut a, "commit", json!({})).await;
    ok(&mut b, "abort", json!({})).await;

    // A clean session: no [session] note, nothing to commit.
    let st = ok(&mut a, "status", json!({})).await;
    assert_eq!(st["structuredContent"]["needsCommit"], false, "{st}");
    assert!(!all_text(&st).contains(NOTE), "{st}");

    // An uncommitted change: every result now ends with the note.
    let r = a.execute("UserGlobals at: #Shared put: 'one'").await;
    let st = ok(&mut a, "status", json!({})).await;
    let user = st["structuredContent"]["user"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(all_text(&r).ends_with(&util_note(&user)), "{r}");
    assert_eq!(st["structuredContent"]["needsCommit"], true, "{st}");
    assert!(all_text(&st).contains(NOTE), "{st}");

    // B works on something else, uncommitted.
    eval(&mut b, "(UserGlobals at: #BoxB) at: 1 put: 'b'").await;

    // A commits: its note goes away.
    let c = ok(&mut a, "commit", json!({})).await;
    assert_eq!(c["structuredContent"]["committed"], true, "{c}");
    assert!(!all_text(&c).contains(NOTE), "{c}");
    let st = ok(&mut a, "status", json!({})).await;
    assert_eq!(st["structuredContent"]["needsCommit"], false, "{st}");

    // B does not see it until it refreshes; refresh keeps B's own work.
    assert_eq!(
        eval(&mut b, "UserGlobals at: #Shared ifAbsent: [nil]").await,
        "nil"
    );
    let st = ok(&mut b, "status", json!({})).await;
    // over GCI how far the view is behind is not known (GemStone publishes no
    // per-session counter): the field says so rather than guess
    let behind = if gsmcp_tests::test_backend_is_gci() {
        json!(null)
    } else {
        json!(1)
    };
    assert_eq!(st["structuredContent"]["commitsBehind"], behind, "{st}");
    let r = ok(&mut b, "refresh", json!({})).await;
    assert_eq!(r["structuredContent"]["refreshed"], true, "{r}");
    assert!(all_text(&r).contains(NOTE), "B still holds its change: {r}");
    assert_eq!(
        eval(&mut b, "UserGlobals at: #Shared ifAbsent: [nil]").await,
        "'one'"
    );
    assert_eq!(eval(&mut b, "(UserGlobals at: #BoxB) at: 1").await, "'b'");

    // Abort discards B's work and leaves the committed state.
    let r = ok(&mut b, "abort", json!({})).await;
    assert_eq!(r["structuredContent"]["aborted"], true, "{r}");
    assert!(!all_text(&r).contains(NOTE), "{r}");
    assert_eq!(eval(&mut b, "(UserGlobals at: #BoxB) at: 1").await, "nil");
    assert_eq!(
        eval(&mut b, "UserGlobals at: #Shared ifAbsent: [nil]").await,
        "'one'"
    );

    // A third session sees the commit at login; abort also moves a view.
    let mut c3 = http.open().await;
    assert_eq!(eval(&mut c3, "UserGlobals at: #Shared").await, "'one'");
    eval(&mut a, "UserGlobals at: #Shared put: 'two'").await;
    ok(&mut a, "commit", json!({})).await;
    assert_eq!(eval(&mut c3, "UserGlobals at: #Shared").await, "'one'");
    ok(&mut c3, "abort", json!({})).await;
    assert_eq!(eval(&mut c3, "UserGlobals at: #Shared").await, "'two'");
}

/// The last line of a result while `user`'s session holds uncommitted changes.
fn util_note(user: &str) -> String {
    format!(
        "[session] this session (user {user}) holds uncommitted changes: commit makes them \
         permanent, abort discards them"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflicting_commit_is_refused_until_abort() {
    let repo = gsmcp_tests::harness::scratch_path("conflict-repo.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;

    // Both sessions start from the same committed class and method.
    eval(
        &mut a,
        "Object subclass: 'Contested' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: UserGlobals options: #(). true",
    )
    .await;
    eval(
        &mut a,
        "Contested compileMethod: 'answer ^ 0' dictionaries: System myUserProfile symbolList \
         category: 'x'. true",
    )
    .await;
    ok(&mut a, "commit", json!({})).await;
    ok(&mut b, "abort", json!({})).await;

    // Both change the same method; A commits first.
    for (s, n) in [(&mut a, 1), (&mut b, 2)] {
        eval(
            s,
            &format!(
                "Contested compileMethod: 'answer ^ {n}' dictionaries: System myUserProfile \
                 symbolList category: 'x'. true"
            ),
        )
        .await;
    }
    ok(&mut a, "commit", json!({})).await;
    let e = fails(&mut b, "commit", json!({})).await;
    assert_eq!(e["kind"], "conflict", "{e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains("abort"), "the remedy is named: {message}");
    assert!(
        e["conflicts"].as_array().is_some_and(|c| c
            .iter()
            .any(|x| x.as_str().is_some_and(|x| x.contains("Contested")))),
        "what conflicted is named: {e}"
    );
    assert!(message.contains("Contested"), "{message}");

    // Still refused, nothing of B's committed; abort then shows A's version.
    let e = fails(&mut b, "commit", json!({})).await;
    assert_eq!(e["kind"], "conflict", "{e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert_eq!(
        message.matches("commit refused").count(),
        1,
        "said once: {message}"
    );
    assert!(message.contains("abort the transaction first"), "{message}");
    assert_eq!(eval(&mut a, "Contested new answer").await, "1");
    ok(&mut b, "abort", json!({})).await;
    assert_eq!(eval(&mut b, "Contested new answer").await, "1");
    let st = ok(&mut b, "status", json!({})).await;
    assert_eq!(st["structuredContent"]["needsCommit"], false, "{st}");

    // After the abort B can commit again.
    eval(
        &mut b,
        "Contested compileMethod: 'answer ^ 3' dictionaries: System myUserProfile symbolList \
         category: 'x'. true",
    )
    .await;
    let c = ok(&mut b, "commit", json!({})).await;
    assert_eq!(c["structuredContent"]["committed"], true, "{c}");
    ok(&mut a, "refresh", json!({})).await;
    assert_eq!(eval(&mut a, "Contested new answer").await, "3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_tools_on_an_in_memory_image() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    // (tool, structured field that must be true)
    let table = [
        ("commit", "committed"),
        ("refresh", "refreshed"),
        ("abort", "aborted"),
    ];
    for (tool, field) in table {
        let r = ok(&mut s, tool, json!({})).await;
        assert_eq!(r["structuredContent"][field], true, "{tool}: {r}");
        assert!(!text(&r).is_empty(), "{tool}: {r}");
        let e = fails(&mut s, tool, json!({"extra": 1})).await;
        assert_eq!(e["kind"], "invalidParams", "{tool}: {e}");
    }
    let st = ok(&mut s, "status", json!({})).await;
    let st = &st["structuredContent"];
    assert_eq!(st["user"], "DataCurator");
    assert!(st["session"].is_u64() && st["stone"].is_string(), "{st}");
    assert_eq!(st["needsCommit"], false);
    assert!(st["commitsBehind"].is_null(), "{st}");

    let tools = s.request("tools/list", json!({})).await;
    for t in tools.result()["tools"].as_array().expect("tools") {
        let annotations = &t["annotations"];
        match t["name"].as_str() {
            Some("abort") => assert_eq!(annotations["destructiveHint"], true, "{t}"),
            Some("status") => assert_eq!(annotations["readOnlyHint"], true, "{t}"),
            Some("commit") | Some("refresh") => {
                assert_eq!(annotations["readOnlyHint"], false, "{t}")
            }
            _ => {}
        }
    }
}
