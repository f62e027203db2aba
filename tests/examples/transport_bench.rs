//! The transport benchmark: gsmcp (router + one worker per session, embedded
//! stone) against a trivial rmcp Streamable HTTP server, measured in the same run
//! with the same HTTP client.
//!
//! Figures: `initialize` latency (for gsmcp that includes starting a worker and
//! logging in) p50/p99; `tools/call` latency p50/p99 and requests per second at
//! concurrency 1 and 16 (16 sessions calling in parallel); resident memory of an
//! idle gsmcp worker (and of the whole rmcp peer process for scale).
//!
//! Run it with `bench/transport.sh` (release build of everything, then this
//! program with the paths of the binaries).
//!
//! Usage: `transport_bench <gsmcp binary> <rmcp_peer binary> [--calls N] [--inits N] [--rounds N]`
//!
//! The two servers are measured in alternating rounds and each figure is the
//! median over the rounds, so a burst of load on a shared machine skews both
//! sides alike instead of one.

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CONCURRENCY: usize = 16;

/// A server under test, started as a child process that prints its URL.
struct Server {
    name: &'static str,
    child: Child,
    url: String,
    /// The tool call each benchmark request makes.
    call: Value,
    /// The port it listens on (gsmcp workers carry it in their argv).
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first so gsmcp shuts its workers down; then make sure.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(name: &'static str, mut cmd: Command, call: Value) -> Server {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {name}: {e}"));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("listen line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{name} printed {line:?}"))
        .to_string();
    let port = url
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("port in URL");
    Server {
        name,
        child,
        url,
        call,
        port,
    }
}

/// The JSON-RPC message in a response body, whether JSON or an SSE stream.
fn message(content_type: &str, body: &str) -> Value {
    if content_type.starts_with("text/event-stream") {
        for line in body.lines().rev() {
            if let Some(data) = line.strip_prefix("data:") {
                let data = data.trim();
                if data.starts_with('{') {
                    return serde_json::from_str(data).expect("SSE data is JSON");
                }
            }
        }
        panic!("no JSON-RPC message in SSE body {body:?}");
    }
    serde_json::from_str(body).unwrap_or_else(|e| panic!("bad JSON body {body:?}: {e}"))
}

struct Session {
    client: reqwest::Client,
    url: String,
    id: String,
    next: u64,
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (Option<String>, Value) {
    let mut req = client.post(url).json(body);
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let resp = req.send().await.expect("POST");
    let sid = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let ct = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let status = resp.status();
    let text = resp.text().await.expect("body");
    if body.get("id").is_none() {
        return (sid, Value::Null);
    }
    assert!(status.is_success(), "{url}: HTTP {status}: {text}");
    (sid, message(&ct, &text))
}

fn client() -> reqwest::Client {
    let mut h = HeaderMap::new();
    h.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    reqwest::Client::builder()
        .default_headers(h)
        .tcp_nodelay(true)
        .build()
        .unwrap()
}

fn init_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "transport-bench", "version": "1"}}})
}

async fn open(client: &reqwest::Client, url: &str) -> Session {
    let (sid, v) = post(client, url, None, &init_body()).await;
    assert!(v.get("result").is_some(), "initialize failed: {v}");
    let id = sid.expect("session id");
    post(
        client,
        url,
        Some(&id),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    Session {
        client: client.clone(),
        url: url.to_string(),
        id,
        next: 1,
    }
}

impl Session {
    async fn call(&mut self, params: &Value) -> Value {
        self.next += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call", "params": params});
        let (_, v) = post(&self.client, &self.url, Some(&self.id), &body).await;
        v
    }
    async fn close(self) {
        let _ = self
            .client
            .delete(&self.url)
            .header("mcp-session-id", &self.id)
            .send()
            .await;
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

struct Figures {
    init_p50: Duration,
    init_p99: Duration,
    call_p50: Duration,
    call_p99: Duration,
    rps1: f64,
    c16_p50: Duration,
    c16_p99: Duration,
    rps16: f64,
}

async fn measure(server: &Server, inits: usize, calls: usize) -> Figures {
    let c = client();
    // Warm up: one session, a few calls.
    let mut s = open(&c, &server.url).await;
    for i in 0..20 {
        let v = s.call(&server.call).await;
        assert!(
            v.get("result").is_some(),
            "{}: warm-up call failed: {v}",
            server.name
        );
        if i == 0 && v["result"]["isError"] == json!(true) {
            println!(
                "warning: {} answers the benchmark call with a tool error: {}",
                server.name, v["result"]["content"]
            );
        }
    }
    s.close().await;

    let mut init = Vec::with_capacity(inits);
    for _ in 0..inits {
        let t = Instant::now();
        let s = open(&c, &server.url).await;
        init.push(t.elapsed());
        s.close().await;
    }
    init.sort();

    let mut s = open(&c, &server.url).await;
    let mut lat = Vec::with_capacity(calls);
    let t0 = Instant::now();
    for _ in 0..calls {
        let t = Instant::now();
        let v = s.call(&server.call).await;
        lat.push(t.elapsed());
        assert!(v.get("result").is_some(), "{v}");
    }
    let rps1 = calls as f64 / t0.elapsed().as_secs_f64();
    s.close().await;
    lat.sort();

    let mut sessions = Vec::new();
    for _ in 0..CONCURRENCY {
        sessions.push(open(&c, &server.url).await);
    }
    let per = calls / CONCURRENCY;
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for mut s in sessions {
        let call = server.call.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(per);
            for _ in 0..per {
                let t = Instant::now();
                let v = s.call(&call).await;
                lat.push(t.elapsed());
                assert!(v.get("result").is_some(), "{v}");
            }
            (s, lat)
        }));
    }
    let mut lat16 = Vec::new();
    let mut done = Vec::new();
    for t in tasks {
        let (s, l) = t.await.unwrap();
        lat16.extend(l);
        done.push(s);
    }
    let rps16 = (per * CONCURRENCY) as f64 / t0.elapsed().as_secs_f64();
    for s in done {
        s.close().await;
    }
    lat16.sort();
    Figures {
        init_p50: pct(&init, 0.5),
        init_p99: pct(&init, 0.99),
        call_p50: pct(&lat, 0.5),
        call_p99: pct(&lat, 0.99),
        rps1,
        c16_p50: pct(&lat16, 0.5),
        c16_p99: pct(&lat16, 0.99),
        rps16,
    }
}

/// The per-field median of several rounds' figures.
fn median(rounds: &[Figures]) -> Figures {
    fn mid<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
        v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN figures"));
        v[v.len() / 2]
    }
    let d = |f: fn(&Figures) -> Duration| mid(rounds.iter().map(f).collect());
    let x = |f: fn(&Figures) -> f64| mid(rounds.iter().map(f).collect());
    Figures {
        init_p50: d(|f| f.init_p50),
        init_p99: d(|f| f.init_p99),
        call_p50: d(|f| f.call_p50),
        call_p99: d(|f| f.call_p99),
        rps1: x(|f| f.rps1),
        c16_p50: d(|f| f.c16_p50),
        c16_p99: d(|f| f.c16_p99),
        rps16: x(|f| f.rps16),
    }
}

/// VmRSS of `pid` in kB.
fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// Pids whose argv is `gsmcp-worker <port> …`.
fn workers_of(port: u16) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let argv: Vec<String> = cmd
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if argv.len() >= 2 && argv[0].ends_with("gsmcp-worker") && argv[1] == port.to_string() {
            out.push(pid);
        }
    }
    out
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!(
            "usage: transport_bench <gsmcp binary> <rmcp_peer binary> [--calls N] [--inits N]"
        );
        std::process::exit(2);
    }
    let opt = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let calls = opt("--calls", 2000).max(CONCURRENCY);
    let inits = opt("--inits", 50).max(1);

    // A repository of its own, so initialize measures a real repository login
    // without touching the user's default repository.
    let repo_dir =
        std::env::temp_dir().join(format!("gsmcp-transport-bench-{}", std::process::id()));
    std::fs::create_dir_all(&repo_dir).expect("create the benchmark's repository directory");
    let mut gsmcp = Command::new(&args[1]);
    gsmcp
        .args(["--port", "0"])
        .env("MCP_REPOSITORY", repo_dir.join("bench.repository"))
        .env("MCP_MAX_SESSIONS", "64")
        .env("MCP_LOG", "warn");
    let gs = start(
        "gsmcp",
        gsmcp,
        json!({"name": "execute_code", "arguments": {"code": "3 + 4"}}),
    );
    let mut peer = Command::new(&args[2]);
    peer.arg("0");
    let rm = start(
        "rmcp-peer",
        peer,
        json!({"name": "add", "arguments": {"a": 3, "b": 4}}),
    );

    let rounds = opt("--rounds", 3).max(1);
    println!(
        "transport benchmark: {rounds} interleaved rounds of {calls} calls and {inits} initializes per server; \
         concurrency 1 and {CONCURRENCY}; each figure is the median over the rounds"
    );
    let mut gr = Vec::new();
    let mut rr = Vec::new();
    for _ in 0..rounds {
        gr.push(measure(&gs, inits, calls).await);
        rr.push(measure(&rm, inits, calls).await);
    }
    let g = median(&gr);
    let r = median(&rr);

    // Idle worker memory: one fresh session that has answered one call.
    let c = client();
    let mut s = open(&c, &gs.url).await;
    s.call(&gs.call).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let worker_rss: Vec<u64> = workers_of(gs.port).into_iter().filter_map(rss_kb).collect();
    let router_rss = rss_kb(gs.child.id());
    let peer_rss = rss_kb(rm.child.id());
    s.close().await;

    println!();
    println!("{:<34} {:>14} {:>14}", "", gs.name, rm.name);
    let row = |label: &str, a: String, b: String| println!("{label:<34} {a:>14} {b:>14}");
    row("initialize p50", ms(g.init_p50), ms(r.init_p50));
    row("initialize p99", ms(g.init_p99), ms(r.init_p99));
    row("tools/call p50 (c=1)", ms(g.call_p50), ms(r.call_p50));
    row("tools/call p99 (c=1)", ms(g.call_p99), ms(r.call_p99));
    row(
        "tools/call req/s (c=1)",
        format!("{:.0}", g.rps1),
        format!("{:.0}", r.rps1),
    );
    row(
        &format!("tools/call p50 (c={CONCURRENCY})"),
        ms(g.c16_p50),
        ms(r.c16_p50),
    );
    row(
        &format!("tools/call p99 (c={CONCURRENCY})"),
        ms(g.c16_p99),
        ms(r.c16_p99),
    );
    row(
        &format!("tools/call req/s (c={CONCURRENCY})"),
        format!("{:.0}", g.rps16),
        format!("{:.0}", r.rps16),
    );
    let kb = |v: Option<u64>| {
        v.map(|k| format!("{:.1} MB", k as f64 / 1024.0))
            .unwrap_or_else(|| "?".into())
    };
    row(
        "idle worker RSS",
        kb(worker_rss.first().copied()),
        "-".into(),
    );
    row("server process RSS", kb(router_rss), kb(peer_rss));
    println!();
    println!(
        "tools/call p50 ratio gsmcp/rmcp: {:.2} (target <= 1.2); initialize p50 {} (target <= 10 ms); idle worker RSS {} (target <= 15 MB)",
        g.call_p50.as_secs_f64() / r.call_p50.as_secs_f64(),
        ms(g.init_p50),
        kb(worker_rss.first().copied())
    );
    drop(gs);
    let _ = std::fs::remove_dir_all(&repo_dir);
}
