//! The transport benchmark: gsmcp (router + one worker per session, embedded
//! stone) against a trivial rmcp Streamable HTTP server, measured in the same run
//! with the same HTTP client.
//!
//! Figures: `initialize` latency on a new connection (for gsmcp that includes
//! starting a worker and logging in) p50/p99; `tools/call` latency p50/p99 and
//! requests per second at concurrency 1 and 16 (16 sessions calling in
//! parallel, each on a kept-alive connection); resident memory of an idle gsmcp
//! worker (and of the whole rmcp peer process for scale).
//!
//! With `--auth`, four more gsmcp servers join the same rounds: one requiring a
//! bearer token (`MCP_AUTH=token`), one requiring it over TLS (a certificate
//! from `gsmcp --make-self-signed`), one requiring an ES256 JWT access token
//! (`MCP_AUTH=oauth`, its issuer's key in a JWKS file) with every worker
//! logging in as the shared user, and the same with per-user workers (each
//! logging in by one-time ticket as the token's user), so what
//! authentication and TLS cost is read against gsmcp without them, measured
//! alike. The TLS server's `initialize` on a new connection includes the
//! handshake. Two more serve the same repository over the GCI backend
//! (through gsmcp's own GCI library, found beside the gsmcp binary), both
//! behind the same JWT: one logging every worker in as DataCurator with its
//! password, one logging each in as the token's user with the token itself as
//! a JWT login the stone verifies (the user enabled and the key trusted
//! beforehand with `gsmcp-topaz`, also found beside the binary).
//!
//! Run it with `bench/transport.sh` (release build of everything, then this
//! program with the paths of the binaries).
//!
//! Usage: `transport_bench <gsmcp binary> <rmcp_peer binary> [--calls N] [--inits N] [--rounds N] [--auth]`
//!
//! The two servers are measured in alternating rounds and each figure is the
//! median over the rounds, so a burst of load on a shared machine skews both
//! sides alike instead of one.

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
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
    /// The bearer token it printed, which every request carries.
    token: Option<String>,
    /// For an HTTPS server: a client configuration trusting its certificate.
    tls: Option<Arc<rustls::ClientConfig>>,
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
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).expect("listen line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://") || w.starts_with("https://"))
        .unwrap_or_else(|| panic!("{name} printed {line:?}"))
        .to_string();
    // a server that made a token prints it on the next line
    let token = match cmd
        .get_envs()
        .any(|(k, v)| k == "MCP_AUTH" && v == Some("token".as_ref()))
    {
        false => None,
        true => {
            let mut line = String::new();
            out.read_line(&mut line).expect("token line");
            line.trim()
                .strip_prefix("gsmcp bearer token ")
                .map(str::to_string)
        }
    };
    let tls = cmd
        .get_envs()
        .find(|(k, _)| *k == "MCP_TLS_CERT")
        .and_then(|(_, v)| v)
        .map(|cert| gsmcp_tests::harness_http::tls_client(std::path::Path::new(cert)));
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
        token,
        tls,
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

/// A client for `server`: its token on every request, its certificate trusted.
fn client(server: &Server) -> reqwest::Client {
    let mut h = HeaderMap::new();
    h.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    if let Some(token) = &server.token {
        let mut v = HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value");
        v.set_sensitive(true);
        h.insert(AUTHORIZATION, v);
    }
    let mut b = reqwest::Client::builder()
        .default_headers(h)
        .tcp_nodelay(true)
        .http1_only();
    if let Some(tls) = &server.tls {
        b = b.tls_backend_preconfigured((**tls).clone());
    }
    b.build().unwrap()
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
    let c = client(server);
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

    // each initialize on a new connection (a TLS server's includes the handshake)
    let mut init = Vec::with_capacity(inits);
    for _ in 0..inits {
        let fresh = client(server);
        let t = Instant::now();
        let s = open(&fresh, &server.url).await;
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
            "usage: transport_bench <gsmcp binary> <rmcp_peer binary> [--calls N] [--inits N] [--rounds N] [--auth]"
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
    let with_auth = args.iter().any(|a| a == "--auth");

    // A repository of its own, so initialize measures a real repository login
    // without touching the user's default repository.
    let repo_dir =
        std::env::temp_dir().join(format!("gsmcp-transport-bench-{}", std::process::id()));
    std::fs::create_dir_all(&repo_dir).expect("create the benchmark's repository directory");
    let gsmcp = |name: &'static str, env: &[(&str, std::ffi::OsString)]| {
        let mut cmd = Command::new(&args[1]);
        cmd.args(["--port", "0"])
            .env("MCP_REPOSITORY", repo_dir.join("bench.repository"))
            .env("MCP_MAX_SESSIONS", "64")
            .env("MCP_LOG", "warn");
        for (k, v) in env {
            // an empty value unsets (a GCI server names no repository file)
            if v.is_empty() {
                cmd.env_remove(k);
            } else {
                cmd.env(k, v);
            }
        }
        start(
            name,
            cmd,
            json!({"name": "execute_code", "arguments": {"code": "3 + 4"}}),
        )
    };
    let mut servers = vec![gsmcp("gsmcp", &[])];
    if with_auth {
        let tls_dir = repo_dir.join("tls");
        let made = Command::new(&args[1])
            .arg("--make-self-signed")
            .arg(&tls_dir)
            .stdout(Stdio::null())
            .status()
            .expect("run gsmcp --make-self-signed");
        assert!(made.success(), "gsmcp --make-self-signed failed");
        let token = ("MCP_AUTH", "token".into());
        servers.push(gsmcp("gsmcp token", std::slice::from_ref(&token)));
        servers.push(gsmcp(
            "gsmcp token+TLS",
            &[
                token,
                ("MCP_TLS_CERT", tls_dir.join("cert.pem").into()),
                ("MCP_TLS_KEY", tls_dir.join("key.pem").into()),
            ],
        ));
        // an issuer of our own: its key in a JWKS file, one token for the run
        let key = gsmcp_tests::jwt::Key::new("bench");
        let jwks = repo_dir.join("jwks.json");
        std::fs::write(&jwks, json!({ "keys": [key.jwk()] }).to_string()).expect("write the JWKS");
        let audience = "https://gemstone.bench.test/mcp";
        let issuer = "https://id.bench.test";
        let mut oauth = gsmcp(
            "gsmcp oauth",
            &[
                ("MCP_AUTH", "oauth".into()),
                // every worker as the one user, as in the other columns
                ("MCP_WORKER_LOGIN", "shared".into()),
                ("MCP_OAUTH_ISSUER", issuer.into()),
                ("MCP_OAUTH_AUDIENCE", audience.into()),
                ("MCP_OAUTH_JWKS_FILE", jwks.clone().into()),
                ("MCP_OAUTH_SCOPES", "gemstone:read".into()),
            ],
        );
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_secs();
        let token_for = |sub: &str| {
            key.sign(
                "bench",
                &json!({ "iss": issuer, "aud": audience, "sub": sub, "scope": "gemstone:read",
                         "iat": now, "exp": now + 24 * 3600 }),
            )
        };
        oauth.token = Some(token_for("bench"));
        servers.push(oauth);
        // the same, each worker logging in as the token's repository user by a
        // one-time ticket instead of the shared user's password
        let mut per_user = gsmcp(
            "gsmcp per-user",
            &[
                ("MCP_AUTH", "oauth".into()),
                ("MCP_OAUTH_ISSUER", issuer.into()),
                ("MCP_OAUTH_AUDIENCE", audience.into()),
                ("MCP_OAUTH_JWKS_FILE", jwks.clone().into()),
                ("MCP_OAUTH_SCOPES", "gemstone:read".into()),
            ],
        );
        per_user.token = Some(token_for("Developer"));
        servers.push(per_user);

        // over GCI, through gsmcp's own library as a GemStone product directory
        let bin_dir = std::fs::canonicalize(&args[1])
            .expect("the gsmcp binary")
            .parent()
            .expect("the gsmcp binary's directory")
            .to_path_buf();
        let product = repo_dir.join("gemstone");
        std::fs::create_dir_all(product.join("lib")).expect("create the product directory");
        std::os::unix::fs::symlink(
            bin_dir.join("libgsmcp_gci.so"),
            product.join("lib/libgcits-3.7.5-64.so"),
        )
        .expect("link the GCI library (bench/transport.sh builds it)");
        let repository = repo_dir.join("bench.repository");
        let provision = format!(
            "run\n| sec |\n\
             AllUsers addNewUserWithId: 'jwtbench' password: 'unused'.\n\
             System commitTransaction.\n\
             sec := JwtSecurityData new.\n\
             sec addUserId: 'jwtbench'; addIssuer: '{issuer}'; addAudience: '{audience}'.\n\
             (AllUsers userWithId: 'jwtbench') enableJwtAuthenticationWith: sec.\n\
             System addJwtKey: (GsTlsPublicKey newFromPemString: '{}') withId: 'bench'.\n\
             System commitTransaction\n%\nlogout\n",
            key.public_pem
        );
        let mut topaz = Command::new(bin_dir.join("gsmcp-topaz"))
            .args(["-q", "--create", "--repo"])
            .arg(&repository)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run gsmcp-topaz (bench/transport.sh builds it)");
        std::io::Write::write_all(
            &mut topaz.stdin.take().expect("stdin"),
            provision.as_bytes(),
        )
        .expect("write the provisioning script");
        let out = topaz.wait_with_output().expect("gsmcp-topaz ran");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said.contains("true"),
            "provisioning failed: {said}"
        );
        let over_gci = |login: &str| -> Vec<(&str, std::ffi::OsString)> {
            vec![
                ("MCP_REPOSITORY", "".into()),
                ("MCP_BACKEND", "gci".into()),
                ("GEMSTONE", product.clone().into()),
                ("MCP_STONE", repository.clone().into()),
                ("MCP_AUTH", "oauth".into()),
                ("MCP_WORKER_LOGIN", login.into()),
                ("MCP_OAUTH_ISSUER", issuer.into()),
                ("MCP_OAUTH_AUDIENCE", audience.into()),
                ("MCP_OAUTH_JWKS_FILE", jwks.clone().into()),
                ("MCP_OAUTH_SCOPES", "gemstone:read".into()),
            ]
        };
        let mut gci_shared = gsmcp("gsmcp GCI shared", &over_gci("shared"));
        gci_shared.token = Some(token_for("jwtbench"));
        servers.push(gci_shared);
        let mut gci_jwt = gsmcp("gsmcp GCI per-user", &over_gci("per-user"));
        gci_jwt.token = Some(token_for("jwtbench"));
        servers.push(gci_jwt);
    }
    let mut peer = Command::new(&args[2]);
    peer.arg("0");
    servers.push(start(
        "rmcp-peer",
        peer,
        json!({"name": "add", "arguments": {"a": 3, "b": 4}}),
    ));

    let rounds = opt("--rounds", 3).max(1);
    println!(
        "transport benchmark: {rounds} interleaved rounds of {calls} calls and {inits} initializes per server; \
         concurrency 1 and {CONCURRENCY}; each figure is the median over the rounds"
    );
    let mut per_server: Vec<Vec<Figures>> = servers.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (server, figures) in servers.iter().zip(per_server.iter_mut()) {
            figures.push(measure(server, inits, calls).await);
        }
    }
    let figures: Vec<Figures> = per_server.iter().map(|f| median(f)).collect();

    // Idle worker memory: one fresh session that has answered one call.
    let gs = &servers[0];
    let c = client(gs);
    let mut s = open(&c, &gs.url).await;
    s.call(&gs.call).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let worker_rss: Vec<u64> = workers_of(gs.port).into_iter().filter_map(rss_kb).collect();
    let server_rss: Vec<Option<u64>> = servers.iter().map(|s| rss_kb(s.child.id())).collect();
    s.close().await;

    println!();
    let mut header = format!("{:<34}", "");
    for server in &servers {
        header.push_str(&format!(" {:>16}", server.name));
    }
    println!("{header}");
    let row = |label: &str, cells: Vec<String>| {
        let mut line = format!("{label:<34}");
        for c in cells {
            line.push_str(&format!(" {c:>16}"));
        }
        println!("{line}");
    };
    let each = |f: fn(&Figures) -> String| figures.iter().map(f).collect::<Vec<_>>();
    row("initialize p50 (new connection)", each(|f| ms(f.init_p50)));
    row("initialize p99 (new connection)", each(|f| ms(f.init_p99)));
    row("tools/call p50 (c=1)", each(|f| ms(f.call_p50)));
    row("tools/call p99 (c=1)", each(|f| ms(f.call_p99)));
    row("tools/call req/s (c=1)", each(|f| format!("{:.0}", f.rps1)));
    row(
        &format!("tools/call p50 (c={CONCURRENCY})"),
        each(|f| ms(f.c16_p50)),
    );
    row(
        &format!("tools/call p99 (c={CONCURRENCY})"),
        each(|f| ms(f.c16_p99)),
    );
    row(
        &format!("tools/call req/s (c={CONCURRENCY})"),
        each(|f| format!("{:.0}", f.rps16)),
    );
    let kb = |v: Option<u64>| {
        v.map(|k| format!("{:.1} MB", k as f64 / 1024.0))
            .unwrap_or_else(|| "?".into())
    };
    let mut idle = vec![kb(worker_rss.first().copied())];
    idle.resize(servers.len(), "-".into());
    row("idle worker RSS", idle);
    row(
        "server process RSS",
        server_rss.into_iter().map(kb).collect(),
    );
    println!();
    let (g, r) = (&figures[0], &figures[figures.len() - 1]);
    println!(
        "tools/call p50 ratio gsmcp/rmcp: {:.2} (target <= 1.2); initialize p50 {} (target <= 10 ms); idle worker RSS {} (target <= 15 MB)",
        g.call_p50.as_secs_f64() / r.call_p50.as_secs_f64(),
        ms(g.init_p50),
        kb(worker_rss.first().copied())
    );
    if with_auth {
        let (t, tls, jwt) = (&figures[1], &figures[2], &figures[3]);
        println!(
            "against gsmcp without auth: token adds {:+.3} ms to tools/call p50 (c=1) and changes req/s (c={CONCURRENCY}) by {:+.1} %; \
             token+TLS adds {:+.3} ms ({:+.1} % of tools/call p50, target <= 10 %) and {:+.1} % req/s (c={CONCURRENCY}); \
             TLS handshake + initialize p50 {} against {} on plain HTTP",
            (t.call_p50.as_secs_f64() - g.call_p50.as_secs_f64()) * 1e3,
            (t.rps16 / g.rps16 - 1.0) * 100.0,
            (tls.call_p50.as_secs_f64() - g.call_p50.as_secs_f64()) * 1e3,
            (tls.call_p50.as_secs_f64() / g.call_p50.as_secs_f64() - 1.0) * 100.0,
            (tls.rps16 / g.rps16 - 1.0) * 100.0,
            ms(tls.init_p50),
            ms(t.init_p50),
        );
        println!(
            "against gsmcp without auth: a validated JWT (the token verified once, then known by its digest) adds {:+.3} ms \
             to tools/call p50 (c=1, target <= 0.05 ms) and {:+.1} % req/s (c={CONCURRENCY})",
            (jwt.call_p50.as_secs_f64() - g.call_p50.as_secs_f64()) * 1e3,
            (jwt.rps16 / g.rps16 - 1.0) * 100.0,
        );
        let per_user = &figures[4];
        println!(
            "per-user workers: initialize p50 {} (p99 {}) logging in by one-time ticket, against {} (p99 {}) \
             with the shared user's password, both behind the same JWT",
            ms(per_user.init_p50),
            ms(per_user.init_p99),
            ms(jwt.init_p50),
            ms(jwt.init_p99),
        );
        let (gci_shared, gci_jwt) = (&figures[5], &figures[6]);
        println!(
            "per-user workers over GCI: initialize p50 {} (p99 {}) logging in with the access token as a JWT \
             login the stone verifies, against {} (p99 {}) with DataCurator's password, both behind the same JWT; \
             tools/call p50 {} against {}",
            ms(gci_jwt.init_p50),
            ms(gci_jwt.init_p99),
            ms(gci_shared.init_p50),
            ms(gci_shared.init_p99),
            ms(gci_jwt.call_p50),
            ms(gci_shared.call_p50),
        );
    }
    drop(servers);
    let _ = std::fs::remove_dir_all(&repo_dir);
}
