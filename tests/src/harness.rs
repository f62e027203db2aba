//! Starting the real `gsmcp` binary for a test: building the binaries once per
//! test process, a free port (`--port 0`), the listen line, the log file, and
//! terminating and reaping the router when the test is done.
//!
//! It must not reimplement anything of the server: tests see only the process,
//! its port, its log and the process table.

use crate::harness_http::{HttpResponse, RawConn};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Upper bound for a router to print its listen line (a safety net, not a measurement).
const START_BOUND: Duration = Duration::from_secs(60);
/// Upper bound for a router to exit after SIGTERM before the harness kills it.
const STOP_BOUND: Duration = Duration::from_secs(15);

/// The built `gsmcp` and `gsmcp-worker` executables.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// The router executable (`gsmcp`).
    pub router: PathBuf,
    /// The worker executable (`gsmcp-worker`).
    pub worker: PathBuf,
}

/// Builds the binaries (once per test process) with the profile and target
/// directory of the running test executable, so a test never runs stale binaries.
pub fn binaries() -> &'static Binaries {
    static BINS: OnceLock<Binaries> = OnceLock::new();
    BINS.get_or_init(|| {
        let profile_dir = build(&["gsmcp-router", "gsmcp-worker"]);
        Binaries {
            router: profile_dir.join("gsmcp"),
            worker: profile_dir.join("gsmcp-worker"),
        }
    })
}

/// Builds only the router (once per test process), for tests that put a
/// stand-in worker behind it and need not wait for the real one to build.
pub fn router_binary() -> &'static Path {
    static ROUTER: OnceLock<PathBuf> = OnceLock::new();
    ROUTER.get_or_init(|| build(&["gsmcp-router"]).join("gsmcp"))
}

/// Builds `gsmcp-topaz` (once per test process), for tests that prepare a
/// repository file the way an operator would.
pub fn topaz_binary() -> &'static Path {
    static TOPAZ: OnceLock<PathBuf> = OnceLock::new();
    TOPAZ.get_or_init(|| build(&["gsmcp-smalltalk"]).join("gsmcp-topaz"))
}

/// The backend the tests run on: `embedded` unless `GSMCP_TEST_BACKEND=gci`,
/// which puts every router a test starts on the GCI backend, loading the
/// GCI-compatible library from a GemStone-shaped directory ([`gci_product_dir`]).
pub fn test_backend_is_gci() -> bool {
    std::env::var("GSMCP_TEST_BACKEND").is_ok_and(|b| b == "gci")
}

/// A GemStone-shaped product directory (once per test process) holding the
/// GCI-compatible library as `lib/libgcits-3.7.5-64.so`, built with the
/// running test's profile, and an empty `data/`.
pub fn gci_product_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile_dir = build_with(&["gsmcp-gci"], "--lib");
        let dir = scratch_dir().join("gemstone");
        std::fs::create_dir_all(dir.join("lib")).expect("create the product directory");
        std::fs::create_dir_all(dir.join("data")).expect("create the data directory");
        let suffix = if cfg!(target_os = "macos") {
            "dylib"
        } else {
            "so"
        };
        let lib = dir.join("lib").join(format!("libgcits-3.7.5-64.{suffix}"));
        let _ = std::fs::remove_file(&lib);
        std::os::unix::fs::symlink(profile_dir.join(format!("libgsmcp_gci.{suffix}")), &lib)
            .expect("link the GCI library into the product directory");
        dir
    })
}

/// Runs `cargo build --bins` for `packages` into the running test's target
/// directory and profile; answers the profile directory.
fn build(packages: &[&str]) -> PathBuf {
    build_with(packages, "--bins")
}

/// `cargo build <what>` (`--bins`, `--lib`) for `packages`.
fn build_with(packages: &[&str], what: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test>-<hash>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable lives in target/<profile>/deps")
        .to_path_buf();
    let target_dir = profile_dir
        .parent()
        .expect("target directory")
        .to_path_buf();
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_string(),
        Some(other) => other.to_string(),
        None => "dev".to_string(),
    };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace).args(["build", "--quiet", what]);
    for p in packages {
        cmd.args(["-p", p]);
    }
    let output = cmd
        .arg("--profile")
        .arg(&profile)
        .arg("--target-dir")
        .arg(&target_dir)
        .stdin(Stdio::null())
        .output()
        .expect("run cargo build for the gsmcp binaries");
    assert!(
        output.status.success(),
        "building {} failed:\n{}",
        packages.join(", "),
        String::from_utf8_lossy(&output.stderr)
    );
    profile_dir
}

/// This test process's scratch directory, made empty on first use: it is
/// named by the process id, and one left behind by an earlier process with
/// the same id (ids are reused) must not hand its files to this one.
fn scratch_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gsmcp-tests-{}", std::process::id()));
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("clear the stale scratch directory {}: {e}", dir.display()),
        }
        std::fs::create_dir_all(&dir).expect("create the test scratch directory");
        dir
    })
    .clone()
}

/// Runs a topaz script against the repository at `repo`, creating it.
pub fn topaz(repo: &Path, script: &str) -> String {
    let mut child = Command::new(topaz_binary())
        .arg("-q")
        .arg("--repo")
        .arg(repo)
        .arg("--create")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsmcp-topaz");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "topaz failed ({}):\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A unique path in this test process's scratch directory.
pub fn scratch_path(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    scratch_dir().join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)))
}

/// How to start a router: extra flags and environment on top of `--port 0`.
#[derive(Debug, Default, Clone)]
pub struct ServerBuilder {
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    no_port: bool,
    /// The certificate the router serves, which the harness's client trusts.
    tls_cert: Option<PathBuf>,
    /// A stand-in worker executable instead of the real `gsmcp-worker`.
    worker: Option<PathBuf>,
}

/// A router that exited instead of listening (or a run to completion).
#[derive(Debug)]
pub struct Exited {
    /// How it exited.
    pub status: ExitStatus,
    /// Everything it wrote to standard output.
    pub stdout: String,
    /// Everything it wrote to standard error.
    pub stderr: String,
}

impl ServerBuilder {
    /// A builder with the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a command-line argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Sets an environment variable for the router.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Serve sessions with this worker executable instead of the real one
    /// (which is then not built).
    pub fn worker(mut self, path: impl Into<PathBuf>) -> Self {
        self.worker = Some(path.into());
        self
    }

    /// Serve HTTPS with a new certificate made by `gsmcp --make-self-signed`,
    /// which the harness's connections trust.
    pub fn tls(mut self) -> Self {
        let (cert, key) = make_self_signed();
        self.tls_cert = Some(cert.clone());
        self.env("MCP_TLS_CERT", cert).env("MCP_TLS_KEY", key)
    }

    /// Do not pass `--port 0` (the test sets the port itself).
    pub fn without_port(mut self) -> Self {
        self.no_port = true;
        self
    }

    fn command(&self, stderr: Stdio) -> Command {
        self.command_on(stderr, false)
    }

    /// The router's command; with `on_gci`, its sessions log in through the
    /// GCI backend to the stone the embedded settings name (a repository
    /// file becomes a stone of that path, `:memory:` stays a fresh image).
    fn command_on(&self, stderr: Stdio, on_gci: bool) -> Command {
        let (router, worker) = match &self.worker {
            Some(w) => (router_binary().to_path_buf(), w.clone()),
            None => {
                let bins = binaries();
                (bins.router.clone(), bins.worker.clone())
            }
        };
        let mut cmd = Command::new(&router);
        // A test sees only what it sets: no MCP_* from the environment running the tests.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_") {
                cmd.env_remove(&key);
            }
        }
        // Sessions get unshared in-memory images unless a test names a repository.
        cmd.env("MCP_WORKER_BIN", &worker)
            .env("MCP_LOG", "debug")
            .env("MCP_REPOSITORY", ":memory:");
        if !self.no_port {
            cmd.args(["--port", "0"]);
        }
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let chose_backend = self.env.iter().any(|(k, _)| k == "MCP_BACKEND");
        if chose_backend && !self.env.iter().any(|(k, _)| k == "MCP_REPOSITORY") {
            // the default in-memory repository is the embedded backend's setting
            cmd.env_remove("MCP_REPOSITORY");
        }
        if on_gci && !chose_backend && self.worker.is_none() {
            let repository = self
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == "MCP_REPOSITORY")
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| ":memory:".into());
            cmd.env_remove("MCP_REPOSITORY")
                .env("MCP_BACKEND", "gci")
                .env("GEMSTONE", gci_product_dir())
                .env("MCP_STONE", repository);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        cmd
    }

    /// Starts the router and waits for its listen line; panics with the log if
    /// it exits instead.
    pub fn start(self) -> Server {
        match self.try_start() {
            Ok(s) => s,
            Err(e) => panic!("gsmcp did not start ({}):\n{}", e.status, e.stderr),
        }
    }

    /// Starts the router; `Err` if it exits before listening.
    pub fn try_start(self) -> Result<Server, Exited> {
        let log_path = scratch_path("gsmcp.log");
        let log = std::fs::File::create(&log_path).expect("create the router log file");
        let mut child = self
            .command_on(Stdio::from(log), test_backend_is_gci())
            .spawn()
            .expect("start gsmcp");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Every line goes to the test (the listen line, a token line);
            // draining goes on so the router never sees a closed stdout.
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let line = rx.recv_timeout(START_BOUND).ok();
        let url = line
            .as_deref()
            .and_then(|l| l.strip_prefix("gsmcp listening on "));
        let makes_token = self
            .env
            .iter()
            .any(|(k, v)| k == "MCP_AUTH" && v == "token")
            && !self.env.iter().any(|(k, _)| k == "MCP_TOKEN_FILE");
        match url {
            Some(url) => {
                let addr: SocketAddr = url
                    .strip_prefix("http://")
                    .or_else(|| url.strip_prefix("https://"))
                    .and_then(|rest| rest.strip_suffix("/mcp"))
                    .and_then(|a| a.parse().ok())
                    .unwrap_or_else(|| panic!("unexpected listen line {line:?}"));
                // A router that made its token prints it on the next line.
                let token = match makes_token {
                    false => None,
                    true => rx
                        .recv_timeout(START_BOUND)
                        .ok()
                        .and_then(|l| l.strip_prefix("gsmcp bearer token ").map(str::to_string)),
                };
                Ok(Server {
                    child,
                    addr,
                    url: url.to_string(),
                    log_path,
                    bearer: token.as_ref().map(|t| format!("Bearer {t}")),
                    token,
                    tls: self
                        .tls_cert
                        .as_deref()
                        .map(crate::harness_http::tls_client),
                    tls_cert: self.tls_cert.clone(),
                })
            }
            None => {
                let _ = child.kill();
                let status = child.wait().expect("reap gsmcp");
                Err(Exited {
                    status,
                    stdout: line
                        .into_iter()
                        .chain(rx.try_iter())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    stderr: std::fs::read_to_string(&log_path).unwrap_or_default(),
                })
            }
        }
    }

    /// Runs the router expecting it to exit by itself (configuration errors).
    /// Panics if it is still running after the bound.
    pub fn run_to_exit(self) -> Exited {
        let mut child = self.command(Stdio::piped()).spawn().expect("start gsmcp");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
        let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
        let deadline = Instant::now() + START_BOUND;
        let status = loop {
            if let Some(status) = child.try_wait().expect("poll gsmcp") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                let said = err.join().unwrap_or_default();
                panic!("gsmcp kept running; expected it to exit. It said:\n{said}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Exited {
            status,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        }
    }
}

/// A running router. Dropping it sends SIGTERM, waits, kills if needed and reaps.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// The address it listens on.
    pub addr: SocketAddr,
    /// `http://127.0.0.1:<port>/mcp`
    pub url: String,
    /// The file its log is written to.
    pub log_path: PathBuf,
    /// The bearer token it printed at start-up (`MCP_AUTH=token`), which the
    /// harness's requests carry unless a test gives its own `Authorization`.
    pub token: Option<String>,
    /// `Bearer <token>`.
    bearer: Option<String>,
    /// The TLS client configuration when it serves HTTPS.
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    /// The certificate it serves, when it serves HTTPS.
    pub tls_cert: Option<PathBuf>,
}

/// An open MCP session as seen on the wire.
#[derive(Debug, Clone)]
pub struct OpenSession {
    /// The `Mcp-Session-Id` the router gave it.
    pub id: String,
    /// The `initialize` result.
    pub init: Value,
}

impl Server {
    /// Starts a router with default settings.
    pub fn start() -> Server {
        ServerBuilder::new().start()
    }

    /// A builder for a router with other settings.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::new()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The router's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The router's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The `Host` value a well-behaved local client sends.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// A new raw connection to the router (over TLS when it serves HTTPS).
    pub fn connect(&self) -> RawConn {
        RawConn::over(self.stream())
    }

    /// A new connection's byte stream (over TLS when it serves HTTPS).
    pub fn stream(&self) -> Box<dyn crate::harness_http::Duplex> {
        crate::harness_http::open_stream(self.addr, self.tls.as_ref())
    }

    /// `headers` with the router's token added when it has one and the test
    /// gave no `Authorization`; an `Authorization` with an empty value is
    /// dropped (a request without credentials).
    pub fn with_credentials<'a>(
        &'a self,
        headers: &[(&'a str, &'a str)],
    ) -> Vec<(&'a str, &'a str)> {
        let is_auth = |k: &str| k.eq_ignore_ascii_case("authorization");
        let mut all: Vec<(&str, &str)> = headers
            .iter()
            .filter(|(k, v)| !(is_auth(k) && v.is_empty()))
            .copied()
            .collect();
        if let Some(bearer) = &self.bearer {
            if !headers.iter().any(|(k, _)| is_auth(k)) {
                all.push(("Authorization", bearer));
            }
        }
        all
    }

    /// POSTs a JSON-RPC body to `/mcp` with the headers a conforming client sends
    /// (`Host`, `Content-Type`, `Accept`), plus `extra` headers.
    pub fn post(&self, body: &str, extra: &[(&str, &str)]) -> HttpResponse {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", "/mcp", &headers, body.as_bytes())
    }

    /// POSTs `body` within session `sid`.
    pub fn post_in(&self, sid: &str, body: &str) -> HttpResponse {
        self.post(body, &[("Mcp-Session-Id", sid)])
    }

    /// One request on a fresh connection (`Host` added unless given).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> HttpResponse {
        let host = self.host();
        let mut all: Vec<(&str, &str)> = Vec::new();
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            all.push(("Host", &host));
        }
        all.extend_from_slice(headers);
        let all = self.with_credentials(&all);
        let mut conn = self.connect();
        conn.send(&crate::harness_http::format_request(
            method, path, &all, body,
        ));
        conn.read_response().expect("read the response")
    }

    /// `initialize` + `notifications/initialized`; panics unless both succeed.
    pub fn open_session(&self) -> OpenSession {
        let r = self.post(&initialize_body(1, "2025-11-25"), &[]);
        assert_eq!(
            r.status,
            200,
            "initialize failed: {}\nlog:\n{}",
            r.text(),
            self.log()
        );
        let id = r
            .header("mcp-session-id")
            .expect("Mcp-Session-Id on the initialize answer")
            .to_string();
        let init = r.json();
        assert!(init.get("result").is_some(), "initialize answered {init}");
        let n = self.post_in(
            &id,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(n.status, 202, "notifications/initialized: {}", n.text());
        OpenSession { id, init }
    }

    /// Sends SIGTERM and waits (bounded) for the router to exit.
    pub fn terminate(&mut self) -> ExitStatus {
        self.signal(libc::SIGTERM);
        self.wait_bounded(STOP_BOUND).unwrap_or_else(|| {
            let _ = self.child.kill();
            panic!("gsmcp did not exit within {STOP_BOUND:?} of SIGTERM")
        })
    }

    /// Sends a signal to the router process.
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid, which is not reaped yet.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
    }

    /// Waits up to `bound` for the router to exit, reaping it.
    pub fn wait_bounded(&mut self, bound: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + bound;
        loop {
            if let Some(status) = self.child.try_wait().expect("poll gsmcp") {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        self.signal(libc::SIGTERM);
        if self.wait_bounded(STOP_BOUND).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Makes a certificate and key with `gsmcp --make-self-signed` in a new
/// scratch directory; answers their paths.
pub fn make_self_signed() -> (PathBuf, PathBuf) {
    let dir = scratch_path("tls");
    let out = Command::new(router_binary())
        .arg("--make-self-signed")
        .arg(&dir)
        .output()
        .expect("run gsmcp --make-self-signed");
    assert!(
        out.status.success(),
        "gsmcp --make-self-signed failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir.join("cert.pem"), dir.join("key.pem"))
}

/// An `initialize` request body.
pub fn initialize_body(id: i64, protocol_version: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol_version,
            "capabilities": {},
            "clientInfo": { "name": "gsmcp-tests", "version": "1" }
        }
    })
    .to_string()
}

/// A request body.
pub fn request_body(id: i64, method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

/// Polls `check` every 10 ms until it holds or `bound` passes.
pub fn wait_until(bound: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + bound;
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
