//! The MCP client side of the end-to-end tests: a raw Streamable HTTP client that
//! shows every status code and header (for the protocol and crash paths), the
//! real rmcp client for the happy paths, and a look at the process table for
//! worker processes (`gsmcp-worker <port> <sid8> <user>`).
//!
//! Test files include this module with `#[path = "../src/mcp.rs"] mod mcp;`: it
//! uses the crate's dev-dependencies (reqwest, rmcp, tokio), which the library
//! target cannot see.

#![allow(dead_code)]

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The protocol revision these clients negotiate.
pub const PROTOCOL: &str = "2025-11-25";

/// An HTTP answer: status, session header and the JSON-RPC message in the body
/// (parsed from JSON or from the last SSE `data:` line), if any.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub session: Option<String>,
    pub body: String,
    pub message: Option<Value>,
}

impl Answer {
    /// The JSON-RPC message, which the caller expects to be there.
    pub fn msg(&self) -> &Value {
        self.message.as_ref().unwrap_or_else(|| {
            panic!(
                "HTTP {} without a JSON-RPC message: {:?}",
                self.status, self.body
            )
        })
    }
    /// `result` of the message, which must be a success.
    pub fn result(&self) -> &Value {
        let m = self.msg();
        m.get("result")
            .unwrap_or_else(|| panic!("expected a result, got {m}"))
    }
    /// `error` of the message, which must be a failure.
    pub fn error(&self) -> &Value {
        let m = self.msg();
        m.get("error")
            .unwrap_or_else(|| panic!("expected an error, got {m}"))
    }
}

fn parse_body(content_type: &str, body: &str) -> Option<Value> {
    if content_type.starts_with("text/event-stream") {
        body.lines()
            .rev()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| d.starts_with('{'))
            .and_then(|d| serde_json::from_str(d).ok())
    } else if body.trim().is_empty() {
        None
    } else {
        serde_json::from_str(body).ok()
    }
}

/// A raw MCP client for one endpoint.
#[derive(Clone)]
pub struct Http {
    pub url: String,
    client: reqwest::Client,
}

impl Http {
    pub fn new(url: &str) -> Http {
        let mut h = HeaderMap::new();
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let client = reqwest::Client::builder()
            .default_headers(h)
            // A guard against a hung server hanging the test run, not a speed assertion.
            .timeout(Duration::from_secs(120))
            .tcp_nodelay(true)
            .build()
            .expect("reqwest client");
        Http {
            url: url.to_string(),
            client,
        }
    }

    /// POSTs one JSON-RPC message, with the session header when given.
    pub async fn post(&self, session: Option<&str>, body: &Value) -> Answer {
        match session {
            Some(s) => {
                let headers = [("mcp-session-id", s), ("mcp-protocol-version", PROTOCOL)];
                self.post_with(&headers, body).await
            }
            None => self.post_with(&[], body).await,
        }
    }

    /// POSTs one JSON-RPC message with `headers` (a stateless request's, say).
    pub async fn post_with(&self, headers: &[(&str, &str)], body: &Value) -> Answer {
        let mut req = self
            .client
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {}: {e}", self.url));
        answer(resp).await
    }

    pub async fn delete(&self, session: &str) -> Answer {
        let resp = self
            .client
            .delete(&self.url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", PROTOCOL)
            .send()
            .await
            .unwrap_or_else(|e| panic!("DELETE {}: {e}", self.url));
        answer(resp).await
    }

    /// `initialize` + `notifications/initialized`; answers the open session.
    pub async fn open(&self) -> Session {
        let a = self.post(None, &initialize_request(1)).await;
        assert_eq!(a.status, 200, "initialize: {a:?}");
        let id = a
            .session
            .clone()
            .unwrap_or_else(|| panic!("initialize without a session id: {a:?}"));
        let n = self
            .post(
                Some(&id),
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(n.status, 202, "notifications/initialized: {n:?}");
        Session {
            http: self.clone(),
            id,
            next: 2,
            init: a.result().clone(),
        }
    }
}

async fn answer(resp: reqwest::Response) -> Answer {
    let status = resp.status().as_u16();
    let session = resp
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
    let body = resp.text().await.unwrap_or_default();
    let message = parse_body(&ct, &body);
    Answer {
        status,
        session,
        body,
        message,
    }
}

pub fn initialize_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "gsmcp-tests", "version": "1"},
    }})
}

/// An open MCP session over raw HTTP.
#[derive(Clone)]
pub struct Session {
    pub http: Http,
    pub id: String,
    pub next: u64,
    /// The `initialize` result.
    pub init: Value,
}

impl Session {
    /// The first 8 characters of the session id, as the worker's argv shows them.
    pub fn sid8(&self) -> &str {
        &self.id[..8.min(self.id.len())]
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Answer {
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        self.http.post(Some(&self.id), &body).await
    }

    /// `tools/call`; answers the HTTP answer (the caller checks result or error).
    pub async fn call(&mut self, tool: &str, args: Value) -> Answer {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
            .await
    }

    /// `execute_code`; answers the CallToolResult.
    pub async fn execute(&mut self, code: &str) -> Value {
        let a = self.call("execute_code", json!({"code": code})).await;
        assert_eq!(a.status, 200, "{a:?}");
        a.result().clone()
    }

    pub async fn delete(&self) -> Answer {
        self.http.delete(&self.id).await
    }
}

/// A Smalltalk doit that keeps the engine busy for `ms` milliseconds of the
/// engine's own clock, then answers `#done`.
pub fn busy_loop(ms: u64) -> String {
    format!("| t | t := Time millisecondClockValue. [Time millisecondClockValue - t < {ms}] whileTrue. #done")
}

/// A worker process found in /proc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerProc {
    pub pid: u32,
    pub sid8: String,
}

/// Every live (not zombie) `gsmcp-worker <port> <sid8> <user>` process.
pub fn workers_of(port: u16) -> Vec<WorkerProc> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let argv: Vec<String> = cmd
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if argv.len() == 4
            && argv[0].ends_with("gsmcp-worker")
            && argv[1] == port.to_string()
            && is_alive(pid)
        {
            out.push(WorkerProc {
                pid,
                sid8: argv[2].clone(),
            });
        }
    }
    out
}

/// The worker serving `session`, if it runs.
pub fn worker_of(port: u16, session: &Session) -> Option<u32> {
    workers_of(port)
        .into_iter()
        .find(|w| w.sid8 == session.sid8())
        .map(|w| w.pid)
}

/// Whether `pid` exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name, which may itself contain ')'.
        Ok(stat) => {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

/// Whether `pid` is gone entirely: no process and no zombie (it was reaped).
pub fn is_reaped(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// CPU time (user + system, in clock ticks) `pid` has used.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3 of stat, utime 14, stime 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Polls `cond` every 10 ms until it holds or `limit` passes; answers whether it
/// held. The limit only keeps a broken build from hanging the suite.
pub async fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `pid` has used CPU time beyond what it had at the call: the
/// evidence that a long evaluation is running in it.
pub async fn wait_until_busy(pid: u32) -> bool {
    let Some(before) = cpu_ticks(pid) else {
        return false;
    };
    eventually(Duration::from_secs(60), || {
        cpu_ticks(pid).is_some_and(|t| t >= before + 5)
    })
    .await
}

/// The rmcp client connected to `url` (initialize + initialized done).
pub async fn rmcp_client(url: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::ServiceExt;
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    ().serve(transport)
        .await
        .unwrap_or_else(|e| panic!("rmcp client could not connect to {url}: {e}"))
}
