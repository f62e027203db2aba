//! The protocol-era benchmark: one gsmcp (release build, embedded stone, a
//! repository file) serving both eras, measured side by side in alternating
//! rounds with the same HTTP client.
//!
//! Figures, each the median over the rounds of its p50 and p99:
//! - opening a login: the session era's `initialize` (a worker started and
//!   logged in) against the stateless era's `open_session` (the same);
//! - a `tools/call` (`execute_code 3 + 4`) in it: by `Mcp-Session-Id` against
//!   by the `session` argument with the stateless headers and `_meta`;
//! - a stateless `tools/call` that asks the user once (multi round-trip:
//!   the `InputRequiredResult` with its sealed state, then the retry with
//!   the answer), against the one-round call on the same handle;
//! - a stateless `tools/call` without a handle, which starts a one-shot
//!   login and ends it;
//! - `server/discover`, answered from the kept result after the first.
//!
//! The HTTP client is the end-to-end tests' own (`tests/src/mcp.rs`).
//!
//! Run it with `bench/eras.sh` (release build, then this program with the
//! path of the gsmcp binary).
//!
//! Usage: `era_bench <gsmcp binary> [--calls N] [--opens N] [--rounds N]`

#[path = "../src/mcp.rs"]
mod mcp;

use mcp::Http;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const STATELESS: &str = "2026-07-28";

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(gsmcp: &str, repository: &std::path::Path) -> Server {
    let mut child = Command::new(gsmcp)
        .env("MCP_PORT", "0")
        .env("MCP_REPOSITORY", repository)
        .env("MCP_MAX_SESSIONS", "none")
        // the fixture that asks for input in rounds is a conformance one
        .env("MCP_TOOLSETS", "Execution,Session,Conformance")
        .env("MCP_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gsmcp");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("listen line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("gsmcp printed {line:?}"))
        .to_string();
    Server { child, url }
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": STATELESS,
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
           "io.modelcontextprotocol/clientInfo": {"name": "era-bench", "version": "1"}})
}

/// A stateless request and its result.
async fn stateless(c: &Http, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut headers = vec![("MCP-Protocol-Version", STATELESS), ("Mcp-Method", method)];
    if let Some(n) = &name {
        headers.push(("Mcp-Name", n));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let v = c.post_with(&headers, &body).await.msg().clone();
    let result = v
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"));
    assert_ne!(result["isError"], true, "{method}: {v}");
    result
}

fn call_params() -> Value {
    json!({"name": "execute_code", "arguments": {"code": "3 + 4"}})
}

/// p50 and p99 of a set of times.
fn spread(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.99))
}

/// Times `n` runs of `f`.
async fn timed<F, Fut>(n: usize, mut f: F) -> Vec<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f().await;
        out.push(t.elapsed());
    }
    out
}

/// One round's figures, by row name.
async fn round(c: &Http, opens: usize, calls: usize) -> Vec<(&'static str, (Duration, Duration))> {
    let mut rows = Vec::new();
    // the session era
    let mut sessions = Vec::new();
    let mut t = Vec::new();
    for _ in 0..opens {
        let began = Instant::now();
        sessions.push(c.open().await);
        t.push(began.elapsed());
    }
    rows.push(("session era: initialize", spread(t)));
    let mut session = sessions.pop().unwrap();
    let mut t = Vec::new();
    for _ in 0..calls {
        let began = Instant::now();
        let a = session.call("execute_code", json!({"code": "3 + 4"})).await;
        t.push(began.elapsed());
        assert_eq!(a.result()["isError"], false, "{a:?}");
    }
    rows.push(("session era: tools/call", spread(t)));
    for s in sessions.iter().chain([&session]) {
        s.delete().await;
    }
    // the stateless era
    let mut handles = Vec::new();
    let mut t = Vec::new();
    for _ in 0..opens {
        let began = Instant::now();
        let r = stateless(
            c,
            "tools/call",
            json!({"name": "open_session", "arguments": {}}),
        )
        .await;
        t.push(began.elapsed());
        handles.push(
            r["structuredContent"]["session"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    rows.push(("stateless: open_session", spread(t)));
    let handle = handles.last().unwrap().clone();
    let t = timed(calls, || async {
        let mut p = call_params();
        p["arguments"]["session"] = json!(handle);
        stateless(c, "tools/call", p).await;
    })
    .await;
    rows.push(("stateless: tools/call with session", spread(t)));
    // a request that asks the user once: the InputRequiredResult, then the
    // retry with the answer and the sealed state
    let t = timed(calls, || async {
        let mut p = json!({"name": "test_input_required_result_elicitation",
                           "arguments": {"session": handle}});
        let asked = stateless(c, "tools/call", p.clone()).await;
        assert_eq!(asked["resultType"], "input_required", "{asked}");
        p["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": "B"}}});
        p["requestState"] = asked["requestState"].clone();
        let done = stateless(c, "tools/call", p).await;
        assert_eq!(done["resultType"], "complete", "{done}");
    })
    .await;
    rows.push(("stateless: 2-round call (input req.)", spread(t)));
    let t = timed(opens, || async {
        stateless(c, "tools/call", call_params()).await;
    })
    .await;
    rows.push(("stateless: tools/call, one-shot login", spread(t)));
    let t = timed(calls, || async {
        stateless(c, "server/discover", json!({})).await;
    })
    .await;
    rows.push(("stateless: server/discover (kept)", spread(t)));
    for h in handles {
        stateless(
            c,
            "tools/call",
            json!({"name": "close_session", "arguments": {"session": h}}),
        )
        .await;
    }
    rows
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let gsmcp = args
        .get(1)
        .expect("usage: era_bench <gsmcp> [--calls N] [--opens N] [--rounds N]")
        .clone();
    let flag = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (calls, opens, rounds) = (
        flag("--calls", 400),
        flag("--opens", 20),
        flag("--rounds", 3),
    );
    let dir = std::env::temp_dir().join(format!("era-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let server = start(&gsmcp, &dir.join("bench.repository"));
    let c = Http::new(&server.url);
    // warm up: the repository made, the kept answers filled
    round(&c, 2, 20).await;
    let mut all: Vec<Vec<(&str, (Duration, Duration))>> = Vec::new();
    for _ in 0..rounds {
        all.push(round(&c, opens, calls).await);
    }
    println!("gsmcp, both protocol eras in one server ({rounds} rounds; {opens} opens, {calls} calls each; median of the rounds)");
    println!("{:<40} {:>12} {:>12}", "", "p50", "p99");
    for (i, (name, _)) in all[0].iter().enumerate() {
        let mid = |f: fn(&(Duration, Duration)) -> Duration| {
            let mut v: Vec<Duration> = all.iter().map(|r| f(&r[i].1)).collect();
            v.sort();
            v[v.len() / 2]
        };
        println!(
            "{name:<40} {:>12} {:>12}",
            ms(mid(|s| s.0)),
            ms(mid(|s| s.1))
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
