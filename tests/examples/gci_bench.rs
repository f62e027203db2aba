//! The GCI backend against the embedded backend, side by side in one run:
//! `tools/call` latency at concurrency 1 (a cheap evaluation and a listing
//! tool), `initialize` (fork + library load + login, each on a repository
//! file: the embedded backend's own, the library's `$GEMSTONE/data` stone),
//! and a worker's idle RSS.
//! Both routers run at once and the calls alternate between them, so machine
//! noise hits both alike.
//!
//!     cargo run --release -p gsmcp-tests --example gci_bench [-- RUNS]

use gsmcp_tests::harness::scratch_path;
use gsmcp_tests::{gci_product_dir, initialize_body, request_body, worker_of_session, Server};
use serde_json::json;
use std::time::{Duration, Instant};

fn p50(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn rss_kb(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn call(server: &Server, sid: &str, id: i64, tool: &str, args: serde_json::Value) -> Duration {
    let body = request_body(id, "tools/call", json!({"name": tool, "arguments": args}));
    let t = Instant::now();
    let r = server.post_in(sid, &body);
    let d = t.elapsed();
    let v = r.json();
    assert_eq!(v["result"]["isError"], json!(false), "{tool}: {v}");
    d
}

/// Ends a session and waits for its worker to be gone, so that one
/// worker's exit does not overlap the next measurement.
fn close_and_reap(server: &Server, sid: &str) {
    let pid = worker_of_session(server.port(), sid).map(|w| w.pid);
    server.request("DELETE", "/mcp", &[("Mcp-Session-Id", sid)], b"");
    let until = Instant::now() + Duration::from_secs(5);
    while let Some(pid) = pid {
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() || Instant::now() > until {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let product = gci_product_dir();
    let embedded = Server::builder()
        .env("MCP_MAX_SESSIONS", "none")
        .env("MCP_REPOSITORY", scratch_path("bench.repository"))
        .start();
    let gci = Server::builder()
        .env("MCP_MAX_SESSIONS", "none")
        .env("MCP_BACKEND", "gci")
        .env("GEMSTONE", product)
        .start();
    let servers = [("embedded", &embedded), ("gci", &gci)];

    // initialize: fork, (library load,) login; each session closed again
    let mut init: [Vec<Duration>; 2] = [vec![], vec![]];
    for i in 0..runs.min(60) {
        for (k, (_, s)) in servers.iter().enumerate() {
            let t = Instant::now();
            let r = s.post(&initialize_body(i as i64, "2025-11-25"), &[]);
            init[k].push(t.elapsed());
            let sid = r.header("mcp-session-id").expect("a session").to_string();
            close_and_reap(s, &sid);
        }
    }

    let sessions: Vec<String> = servers.iter().map(|(_, s)| s.open_session().id).collect();
    let tools: [(&str, serde_json::Value); 2] = [
        ("execute_code", json!({"code": "3 + 4"})),
        (
            "list_classes",
            json!({"dictionaryName": "Globals", "limit": 50}),
        ),
    ];
    let mut times: Vec<[Vec<Duration>; 2]> = tools.iter().map(|_| [vec![], vec![]]).collect();
    for (t, (tool, args)) in tools.iter().enumerate() {
        for k in 0..2 {
            call(servers[k].1, &sessions[k], 1, tool, args.clone()); // warm
        }
        for i in 0..runs {
            for k in 0..2 {
                times[t][k].push(call(
                    servers[k].1,
                    &sessions[k],
                    i as i64 + 2,
                    tool,
                    args.clone(),
                ));
            }
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let rss: Vec<u64> = servers
        .iter()
        .zip(&sessions)
        .map(|((_, s), sid)| worker_of_session(s.port(), sid).map_or(0, |p| rss_kb(p.pid)))
        .collect();

    println!("{runs} runs, concurrency 1, p50 in ms");
    println!("| measure | embedded | gci | gci / embedded |");
    println!("| --- | --- | --- | --- |");
    let row = |name: &str, a: f64, b: f64| println!("| {name} | {a:.3} | {b:.3} | {:.2}x |", b / a);
    for (t, (tool, _)) in tools.iter().enumerate() {
        row(
            &format!("tools/call {tool}"),
            p50(times[t][0].clone()),
            p50(times[t][1].clone()),
        );
    }
    row("initialize", p50(init[0].clone()), p50(init[1].clone()));
    println!(
        "| worker RSS idle (MB) | {:.1} | {:.1} | {:.2}x |",
        rss[0] as f64 / 1024.0,
        rss[1] as f64 / 1024.0,
        rss[1] as f64 / rss[0].max(1) as f64
    );
}
