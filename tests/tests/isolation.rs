//! Crash isolation and concurrency against the real binaries: a worker killed
//! with SIGKILL takes only its own client with it (`sessionGone`, then 404), the
//! slot comes back, nothing is left behind; killing the router takes every worker
//! with it (PR_SET_PDEATHSIG); one session's long evaluation does not hold up
//! another's call.

#[path = "../src/mcp.rs"]
mod mcp;

use gsmcp_tests::Server;
use mcp::{busy_loop, eventually, is_alive, wait_until_busy, worker_of, workers_of, Http};
use serde_json::json;
use std::time::{Duration, Instant};

/// Bounds the polling loops so a broken build fails instead of hanging.
const LIMIT: Duration = Duration::from_secs(20);

fn sigkill(pid: u32) {
    // SAFETY: kill(2) with a pid read from /proc a moment ago.
    let rc = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0, "kill -9 {pid}: {}", std::io::Error::last_os_error());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_worker_takes_only_its_own_session() {
    let server = Server::builder().env("MCP_MAX_SESSIONS", "2").start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    let mut b = http.open().await;
    let wa = worker_of(server.port(), &a).expect("A's worker");
    let wb = worker_of(server.port(), &b).expect("B's worker");
    assert_ne!(wa, wb);

    // The limit is reached: a third initialize is refused, and starts no worker.
    let refused = http.post(None, &mcp::initialize_request(1)).await;
    assert_eq!(
        refused.error()["data"]["kind"],
        "sessionLimit",
        "{refused:?}"
    );
    assert_eq!(workers_of(server.port()).len(), 2);

    // A's call is in flight (its worker is busy evaluating) when the worker dies.
    let mut a_call = a.clone();
    let in_flight = tokio::spawn(async move {
        a_call
            .call("execute_code", json!({"code": "[true] whileTrue"}))
            .await
    });
    assert!(
        wait_until_busy(wa).await,
        "A's worker never started evaluating"
    );
    sigkill(wa);
    let gone = in_flight.await.unwrap();
    assert_eq!(gone.status, 200, "{gone:?}");
    assert_eq!(gone.error()["code"], -32001, "{gone:?}");
    assert_eq!(gone.error()["data"]["kind"], "sessionGone", "{gone:?}");
    let after = a.request("ping", json!({})).await;
    assert_eq!(after.status, 404, "A's session must be gone: {after:?}");

    // B never noticed.
    let r = b.execute("3 + 4").await;
    assert_eq!(r["content"][0]["text"], "7", "{r}");
    assert!(is_alive(wb));

    // The dead worker was reaped (no zombie) and its slot is free again.
    assert!(
        eventually(LIMIT, || mcp::is_reaped(wa)).await,
        "worker {wa} left a zombie or lives on"
    );
    let mut c = http.open().await;
    let r = c.execute("6 * 7").await;
    assert_eq!(r["content"][0]["text"], "42", "{r}");
    assert_eq!(workers_of(server.port()).len(), 2);

    drop(server);
    assert!(
        workers_of_gone(&[wb]).await,
        "workers outlived the router's shutdown"
    );
}

async fn workers_of_gone(pids: &[u32]) -> bool {
    eventually(LIMIT, || pids.iter().all(|p| !is_alive(*p))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killing_the_router_kills_every_worker() {
    let mut server = Server::start();
    let http = Http::new(&server.url);
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(http.open().await);
    }
    // One of them busy in an endless evaluation: the death signal must not wait for it.
    let mut busy = sessions[0].clone();
    let _in_flight = tokio::spawn(async move {
        busy.call("execute_code", json!({"code": "[true] whileTrue"}))
            .await
    });
    let pids: Vec<u32> = sessions
        .iter()
        .map(|s| worker_of(server.port(), s).expect("worker"))
        .collect();
    assert!(wait_until_busy(pids[0]).await);

    server.signal(libc::SIGKILL);
    let t = Instant::now();
    assert!(
        server.wait_bounded(LIMIT).is_some(),
        "the router survived SIGKILL"
    );
    assert!(
        workers_of_gone(&pids).await,
        "workers outlived a SIGKILLed router: {:?}",
        workers_of(server.port())
    );
    let took = t.elapsed();
    println!("every worker was gone {took:?} after the router was killed");
    assert!(
        took < Duration::from_secs(1),
        "the death signal took {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_long_call_does_not_hold_up_another_session() {
    let server = Server::start();
    let http = Http::new(&server.url);
    let a = http.open().await;
    let mut b = http.open().await;
    let wa = worker_of(server.port(), &a).expect("A's worker");

    let mut a_call = a.clone();
    let long = tokio::spawn(async move {
        a_call
            .call("execute_code", json!({"code": busy_loop(8000)}))
            .await
    });
    assert!(
        wait_until_busy(wa).await,
        "A's worker never started evaluating"
    );

    // B's call completes while A's is still running.
    let r = b.execute("3 + 4").await;
    assert_eq!(r["content"][0]["text"], "7", "{r}");
    let s = b.call("status", json!({})).await;
    assert_eq!(s.result()["isError"], false, "{s:?}");
    assert!(
        !long.is_finished(),
        "A's 8-second evaluation ended before B's calls were answered"
    );

    let a_done = long.await.unwrap();
    assert_eq!(a_done.result()["content"][0]["text"], "#done", "{a_done:?}");
}
