//! The router's configuration: the command line (every flag has an `MCP_*`
//! environment variable of the same meaning), and its validation into a typed
//! [`Config`].
//!
//! Validation happens once, before the port is bound, and reports every problem
//! at once, each naming its fix. Nothing here opens sockets or starts processes;
//! the only file system access is reading the instructions file, checking the
//! worker binary and opening the log file.

use crate::logins::{LoginTarget, WORKER_PASSWORD_ENV};
use crate::secret::Secret;
use clap::Parser;
use gsmcp_ipc::toolsets::{default_toolsets, parse_toolsets};
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `--help` ends with.
const EXAMPLES: &str = "\
Examples:
  gsmcp                                    the embedded stone's repository on http://127.0.0.1:8000/mcp
  gsmcp --check                            check the settings, log in once, report and exit
  MCP_REPOSITORY=:memory: gsmcp --port 0   a fresh unsaved image per session, on a free port
  MCP_READ_ONLY=1 gsmcp                    serve only the tools that read
  MCP_AUTH=token MCP_BIND=0.0.0.0 MCP_TLS_CERT=cert.pem MCP_TLS_KEY=key.pem \\
    MCP_ALLOWED_HOSTS=gemstone.example.com gsmcp
                                           on a network: a bearer token over HTTPS
  MCP_BACKEND=gci GEMSTONE=/opt/gemstone/product MCP_STONE=gs64stone gsmcp
                                           your GemStone stone through its GCI library

./run-server.sh builds and starts it in the background; the README has the rest.";

/// Largest instructions file accepted.
pub const MAX_INSTRUCTIONS: u64 = 32 * 1024;

/// The name of the worker binary looked for next to the router's executable.
pub const WORKER_BIN_NAME: &str = "gsmcp-worker";

/// gsmcp: serves a GemStone/S Smalltalk repository to MCP clients over Streamable HTTP.
///
/// Every option can also be set with the environment variable shown; the flag wins.
#[derive(Debug, Clone, Parser)]
#[command(name = "gsmcp", version, after_long_help = EXAMPLES)]
pub struct Cli {
    /// TCP port to listen on (0 picks a free one).
    #[arg(long, env = "MCP_PORT", default_value = "8000")]
    pub port: String,
    /// Address to bind. Anything but a loopback address needs TLS and an
    /// authentication mode (or --allow-insecure-remote).
    #[arg(long, env = "MCP_BIND", default_value = "127.0.0.1")]
    pub bind: String,
    /// Serve a non-loopback address without TLS or without authentication:
    /// only on a network where every host is trusted. Logged loudly.
    #[arg(
        long,
        env = "MCP_ALLOW_INSECURE_REMOTE",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_insecure_remote: bool,
    /// How clients authenticate: `off` (loopback only), `token` (one
    /// bearer token: MCP_TOKEN_FILE's, or a new one printed at start-up), or
    /// `oauth` (JWT access tokens of an OAuth 2.1 authorization server).
    #[arg(long, env = "MCP_AUTH", default_value = "off")]
    pub auth: String,
    /// OAuth: the authorization server's issuer (the `iss` of its tokens).
    #[arg(long, env = "MCP_OAUTH_ISSUER")]
    pub oauth_issuer: Option<String>,
    /// OAuth: this server's resource identifier, its URL as clients reach it
    /// (`https://host/mcp`), which a token's `aud` must hold.
    #[arg(long, env = "MCP_OAUTH_AUDIENCE")]
    pub oauth_audience: Option<String>,
    /// OAuth: the issuer's JWKS URL, fetched and cached (https, or http on loopback).
    #[arg(long, env = "MCP_OAUTH_JWKS_URL")]
    pub oauth_jwks_url: Option<String>,
    /// OAuth: a file holding the issuer's JWKS, instead of the URL.
    #[arg(long, env = "MCP_OAUTH_JWKS_FILE")]
    pub oauth_jwks_file: Option<PathBuf>,
    /// OAuth: scopes every token must carry (space or comma separated).
    #[arg(long, env = "MCP_OAUTH_SCOPES", default_value = "")]
    pub oauth_scopes: String,
    /// OAuth: further scopes the metadata document advertises.
    #[arg(long, env = "MCP_OAUTH_EXTRA_SCOPES", default_value = "")]
    pub oauth_extra_scopes: String,
    /// OAuth: the accepted signature algorithms (default: every asymmetric one).
    #[arg(long, env = "MCP_OAUTH_ALGORITHMS", default_value = "")]
    pub oauth_algorithms: String,
    /// OAuth: a file (mode 0600) holding the shared secret of HMAC-signed
    /// tokens; HMAC is refused without it.
    #[arg(long, env = "MCP_OAUTH_HMAC_SECRET_FILE")]
    pub oauth_hmac_secret_file: Option<PathBuf>,
    /// OAuth: the clock skew allowed for `exp` and `nbf`.
    #[arg(long, env = "MCP_OAUTH_LEEWAY", default_value = "60s")]
    pub oauth_leeway: String,
    /// OAuth: the claim that names the repository user.
    #[arg(long, env = "MCP_OAUTH_USER_CLAIM", default_value = "sub")]
    pub oauth_user_claim: String,
    /// OAuth: a JSON file mapping the user claim's values to repository user
    /// ids; with it, a principal the map does not name is refused.
    #[arg(long, env = "MCP_OAUTH_USER_MAP")]
    pub oauth_user_map: Option<PathBuf>,
    /// OAuth: which toolsets each scope grants, `scope=Toolset,Toolset`
    /// entries separated by spaces or `;` (e.g. `gemstone:read=Browsing,Listing,Search
    /// gemstone:execute=Execution`). A session sees only the toolsets its
    /// token's scopes grant.
    #[arg(long, env = "MCP_SCOPE_TOOLSETS", default_value = "")]
    pub scope_toolsets: String,
    /// With MCP_AUTH=token: a file (mode 0600) whose first line is the token,
    /// at least 32 characters. Unset: a random 256-bit token is made at
    /// start-up and printed once on standard output.
    #[arg(long, env = "MCP_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// A file (mode 0600, at least 32 bytes) keying the `requestState` of
    /// 2026-07-28 multi round-trip requests, for routers behind one address
    /// that must accept each other's. Unset: a random key per start.
    #[arg(long, env = "MCP_REQUEST_STATE_KEY_FILE")]
    pub request_state_key_file: Option<PathBuf>,
    /// The server's certificate chain (PEM): serve HTTPS instead of HTTP.
    #[arg(long, env = "MCP_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM, readable by this user only).
    #[arg(long, env = "MCP_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Write a throw-away self-signed certificate for this machine
    /// (`DIR/cert.pem`, `DIR/key.pem`) for local TLS, say how to trust it, and exit.
    #[arg(long, value_name = "DIR")]
    pub make_self_signed: Option<PathBuf>,
    /// Log one line per message in and out (bodies, never headers).
    #[arg(
        long,
        env = "MCP_TRACE",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub trace: bool,
    /// The most characters of a message one trace line shows, or `none`.
    #[arg(long, env = "MCP_TRACE_LIMIT", default_value = "4096")]
    pub trace_limit: String,
    /// Most sessions (worker processes) at once, or `none` for no limit.
    #[arg(long, env = "MCP_MAX_SESSIONS", default_value = "8")]
    pub max_sessions: String,
    /// Extra accepted `Host` header values, comma separated (`name` or `name:port`).
    #[arg(long, env = "MCP_ALLOWED_HOSTS", default_value = "")]
    pub allowed_hosts: String,
    /// Extra accepted `Origin` header values, comma separated (`https://name[:port]`).
    #[arg(long, env = "MCP_ALLOWED_ORIGINS", default_value = "")]
    pub allowed_origins: String,
    /// Write the log to this file (appending) instead of standard error.
    #[arg(long, env = "MCP_LOG_FILE")]
    pub log_file: Option<PathBuf>,
    /// Log filter, e.g. `info`, `debug`, `gsmcp_router=debug,info`.
    #[arg(long = "log", env = "MCP_LOG", default_value = "info")]
    pub log: String,
    /// How long a new worker may take to log in (`10s`, `500ms`, `2m`, or seconds).
    #[arg(long, env = "MCP_HANDSHAKE_TIMEOUT", default_value = "10s")]
    pub handshake_timeout: String,
    /// How long a worker may take to exit after being asked before it is killed.
    #[arg(long, env = "MCP_SHUTDOWN_GRACE", default_value = "3s")]
    pub shutdown_grace: String,
    /// How long a client may take to send a complete request (head and body).
    #[arg(long, env = "MCP_REQUEST_READ_TIMEOUT", default_value = "30s")]
    pub request_read_timeout: String,
    /// The worker executable (default: `gsmcp-worker` next to this executable).
    #[arg(long, env = "MCP_WORKER_BIN")]
    pub worker_bin: Option<PathBuf>,
    /// Toolsets to serve, separated by commas or spaces (default: Browsing,
    /// Execution, Listing, Mutation, Refactoring, Search, Session, Testing,
    /// Workflow; the opt-in Conformance only when named).
    #[arg(long, env = "MCP_TOOLSETS")]
    pub toolsets: Option<String>,
    /// Options of the served toolsets, `Toolset.option=value` separated by commas or
    /// spaces (e.g. `Execution.maxResultChars=20000,Search.defaultLimit=100`).
    #[arg(long, env = "MCP_TOOLSET_OPTIONS", default_value = "")]
    pub toolset_options: String,
    /// A read-only server: serve only the tools that read (`1`, `true`, `yes`
    /// or `on`); every other tool, `execute_code` and the test runners
    /// included, is refused.
    #[arg(long, env = "MCP_READ_ONLY", default_value = "")]
    pub read_only: String,
    /// Title shown to clients in `serverInfo`.
    #[arg(long, env = "MCP_TITLE")]
    pub title: Option<String>,
    /// File whose text is sent to clients as the server's instructions (at most 32 KB).
    #[arg(long, env = "MCP_INSTRUCTIONS_FILE")]
    pub instructions_file: Option<PathBuf>,
    /// Repository file of the embedded stone, created with the kernel on first use
    /// (default: `$XDG_DATA_HOME/gsmcp/gsmcp.repository`, `~/.local/share/gsmcp/…`
    /// when XDG_DATA_HOME is unset). `:memory:` gives every session a fresh,
    /// unshared in-memory image that is never saved.
    #[arg(long, env = "MCP_REPOSITORY")]
    pub repository: Option<PathBuf>,
    /// Check the settings and exit: log in once through a worker, evaluate
    /// `3 + 4`, report what was found (exit 0) or each problem with its fix
    /// (exit 2). Nothing is committed.
    #[arg(long)]
    pub check: bool,
    /// Which stone workers log in to: `embedded` (the built-in stone and its
    /// repository file) or `gci` (a GemStone/S 64 stone through its C library).
    #[arg(long, env = "MCP_BACKEND", default_value = "embedded")]
    pub backend: String,
    /// GCI backend: the GemStone product directory whose `lib/libgcits-<version>-64.so` is loaded.
    #[arg(long, env = "GEMSTONE")]
    pub gemstone: Option<PathBuf>,
    /// GCI backend: the library file itself, instead of the one under GEMSTONE.
    #[arg(long, env = "MCP_GCI_LIBRARY")]
    pub gci_library: Option<PathBuf>,
    /// GCI backend: the stone's network resource string (`gs64stone`, `!@host!gs64stone`).
    #[arg(long, env = "MCP_STONE", default_value = "gs64stone")]
    pub stone: String,
    /// GCI backend: the gem service's network resource string (default: through
    /// the local NetLDI `gs64ldi`, or MCP_NETLDI).
    #[arg(long, env = "MCP_GEM_NRS")]
    pub gem_nrs: Option<String>,
    /// GCI backend: the NetLDI (name or port) every resource string goes through.
    #[arg(long, env = "MCP_NETLDI")]
    pub netldi: Option<String>,
    /// GCI backend: the host account gems run as (unset: the NetLDI's own, as
    /// with a guest-mode NetLDI). Its password comes from MCP_HOST_PASSWORD_FILE
    /// or the environment variable MCP_HOST_PASSWORD, never a flag.
    #[arg(long, env = "MCP_HOST_USER")]
    pub host_user: Option<String>,
    /// GCI backend: a file whose first line is the host account's password.
    #[arg(long, env = "MCP_HOST_PASSWORD_FILE")]
    pub host_password_file: Option<PathBuf>,
    /// MCP_HOST_PASSWORD, read from the environment only.
    #[arg(skip = Secret::from_env(HOST_PASSWORD_ENV))]
    pub host_password: Option<Secret>,
    /// The repository user every worker logs in as (default: Developer on an
    /// embedded repository, which may not change the kernel; DataCurator on
    /// an in-memory image and on GemStone). A commit-disabled (read-only) user
    /// gives clients a view they can read, evaluate in and search, but not
    /// change.
    #[arg(long, env = "MCP_WORKER_USER")]
    pub worker_user: Option<String>,
    /// How workers log in: `shared` (every worker as MCP_WORKER_USER) or
    /// `per-user` (each as the repository user its OAuth token names, by a
    /// one-time ticket; then MCP_WORKER_USER is only the user `--check` logs
    /// in as). Default: per-user with MCP_AUTH=oauth, else shared.
    #[arg(long, env = "MCP_WORKER_LOGIN", default_value = "")]
    pub worker_login: String,
    /// A file whose first line is the worker user's password (keeps it out of
    /// the environment and of process listings). The password may instead be
    /// given in the environment variable MCP_WORKER_PASSWORD; there is no flag
    /// for it, so it never appears in `ps`.
    #[arg(long, env = "MCP_WORKER_PASSWORD_FILE")]
    pub worker_password_file: Option<PathBuf>,
    /// MCP_WORKER_PASSWORD, read from the environment only.
    #[arg(skip = Secret::from_env(WORKER_PASSWORD_ENV))]
    pub worker_password: Option<Secret>,
    /// A session with no request for this long is released.
    #[arg(long, env = "MCP_IDLE_TIMEOUT", default_value = "30m")]
    pub idle_timeout: String,
    /// A session that never opened a GET stream is released this long after its last request.
    #[arg(long, env = "MCP_STREAMLESS_IDLE_TIMEOUT", default_value = "60s")]
    pub streamless_idle_timeout: String,
    /// How long a session whose GET stream closed may take to open a new one.
    #[arg(long, env = "MCP_STREAM_GRACE", default_value = "10s")]
    pub stream_grace: String,
    /// Release every session this long after it opened, or `none`.
    #[arg(long, env = "MCP_SESSION_LIFETIME", default_value = "none")]
    pub session_lifetime: String,
    /// Longest a request may run before it is interrupted (soft break, hard
    /// break, stopping the worker), or `none`. Each progress notification the
    /// call sends starts the time again, so a long call that reports progress
    /// runs on; one whose client went away ends.
    #[arg(long, env = "MCP_REQUEST_TIMEOUT", default_value = "5m")]
    pub request_timeout: String,
    /// Time between the escalation steps of an interrupted call (soft break,
    /// hard break, stopping the worker).
    #[arg(long, env = "MCP_BREAK_GRACE", default_value = "5s")]
    pub break_grace: String,
    /// How long the client may take to answer a request of the server (sampling, elicitation, ping).
    #[arg(long, env = "MCP_CLIENT_REQUEST_TIMEOUT", default_value = "30s")]
    pub client_request_timeout: String,
    /// Interval of keep-alive comments on event streams.
    #[arg(long, env = "MCP_SSE_KEEPALIVE", default_value = "15s")]
    pub sse_keepalive: String,
    /// How long one event-stream write may wait for a client that does not read.
    #[arg(long, env = "MCP_SSE_WRITE_TIMEOUT", default_value = "10s")]
    pub sse_write_timeout: String,
    /// Between calls, move a session's view forward when it is this many commits behind, or `none`.
    #[arg(long, env = "MCP_MAX_COMMITS_BEHIND", default_value = "20")]
    pub max_commits_behind: String,
    /// How long a view that far behind may stay stuck (a refresh could not
    /// move it: its changes conflict with other sessions' commits) before the
    /// session's transaction is aborted, or `none` (default 30m).
    #[arg(long, env = "MCP_STUCK_VIEW_GRACE")]
    pub stuck_view_grace: Option<String>,
    /// How long a call may run while its view is that far behind before it is
    /// interrupted, or `none` (default 10m).
    #[arg(long, env = "MCP_PINNED_VIEW_GRACE")]
    pub pinned_view_grace: Option<String>,
    /// Each worker's memory ceiling (`512m`, `2g`, bytes), or `auto`: 1 GiB,
    /// or a quarter of the machine's memory when that is less.
    #[arg(long, env = "MCP_WORKER_MEMORY", default_value = "auto")]
    pub worker_memory: String,
}

/// The environment variable holding the GCI backend's host password.
pub const HOST_PASSWORD_ENV: &str = "MCP_HOST_PASSWORD";
/// The gem service through the default local NetLDI.
const DEFAULT_NETLDI: &str = "gs64ldi";

/// Where a GCI backend's workers log in (validated before the port is bound).
#[derive(Debug, Clone)]
pub struct GciConfig {
    /// `GEMSTONE`: the product directory the library is found under.
    pub gemstone: Option<String>,
    /// `MCP_GCI_LIBRARY`: an explicit library path, which overrides the search.
    pub library: Option<String>,
    /// The library that will be loaded, and its version (checked, not loaded).
    pub library_found: (PathBuf, String),
    /// The stone's network resource string.
    pub stone: String,
    /// The gem service's network resource string.
    pub gem_nrs: String,
    /// A NetLDI name or port for every NRS (`GEMSTONE_NRS_ALL`).
    pub netldi: Option<String>,
    /// The host account gems run as (none: the NetLDI's, guest mode).
    pub host_user: Option<String>,
    /// That account's password.
    pub host_password: Option<Secret>,
}

/// The validated configuration, passed explicitly to everything that needs it.
#[derive(Debug)]
pub struct Config {
    /// `--check`: validate, log in once, report and exit.
    pub check: bool,
    /// `MCP_PORT` (0: any free port).
    pub port: u16,
    /// `MCP_BIND`: the address listened on.
    pub bind: IpAddr,
    /// A non-loopback address served without TLS or authentication, by the
    /// operator's explicit choice (`MCP_ALLOW_INSECURE_REMOTE`).
    pub insecure_remote: bool,
    /// `MCP_AUTH`: how clients authenticate.
    pub auth: crate::auth::Auth,
    /// `MCP_SCOPE_TOOLSETS`: each scope and the served toolsets it grants
    /// (empty: every served toolset for every principal).
    pub scope_toolsets: Vec<(String, Vec<String>)>,
    /// A token made at start-up, to print once and forget (`run` takes it).
    pub new_token: Option<Secret>,
    /// `MCP_TLS_CERT`/`MCP_TLS_KEY`, loaded: serve HTTPS.
    pub tls: Option<crate::tls::Tls>,
    /// `MCP_TRACE` (with `MCP_TRACE_LIMIT`): the message trace, when on.
    pub trace: Option<crate::trace::Trace>,
    /// The redaction every log line and every error text the router sends
    /// passes: the configured passwords, and the bearer token by its digest.
    pub redactor: std::sync::Arc<gsmcp_ipc::redact::Redactor>,
    /// `MCP_MAX_SESSIONS`; `None`: no limit.
    pub max_sessions: Option<usize>,
    /// Lower-cased `Host` values: `name` (any port) or `name:port`.
    pub allowed_hosts: Vec<String>,
    /// Lower-cased full origins (`scheme://host[:port]`).
    pub allowed_origins: Vec<String>,
    /// The open log file, if logging goes to a file.
    pub log_file: Option<File>,
    /// The `tracing` filter (`MCP_LOG`), for the router and its workers.
    pub log_filter: String,
    /// How long a new worker has to log in and answer `Ready`.
    pub handshake_timeout: Duration,
    /// How long shutdown waits for sessions to end.
    pub shutdown_grace: Duration,
    /// How long a request's body may take to arrive.
    pub request_read_timeout: Duration,
    /// The worker binary started for each session.
    pub worker_bin: PathBuf,
    /// The served toolsets' canonical names (`MCP_TOOLSETS`).
    pub toolsets: Vec<String>,
    /// Validated `Toolset.option=value` pairs for the served toolsets, in
    /// canonical spelling (see `gsmcp_ipc::toolsets`).
    pub toolset_options: Vec<(String, String)>,
    /// `MCP_READ_ONLY`: serve only the worker's read tools.
    pub read_only: bool,
    /// `serverInfo.title` (`MCP_TITLE`).
    pub title: Option<String>,
    /// The `initialize` instructions read from `MCP_INSTRUCTIONS_FILE`.
    pub instructions: Option<String>,
    /// The embedded stone's repository file (`MCP_REPOSITORY`); `None`: an
    /// in-memory image per session.
    pub repository: Option<String>,
    /// The GCI backend's settings; `None` for the embedded stone.
    pub gci: Option<GciConfig>,
    /// Who workers log in as, and what proves it.
    pub logins: crate::logins::Logins,
    /// When sessions are probed and released.
    pub lifetime: crate::lifetime::Policy,
    /// How long a call may run before it is interrupted (`None`: no deadline).
    pub request_timeout: Option<Duration>,
    /// The pause between the steps of an interruption (cancel, soft break,
    /// hard break, stop).
    pub break_grace: Duration,
    /// How long a worker's request to the client (sampling, elicitation) waits
    /// for its answer.
    pub client_request_timeout: Duration,
    /// The interval of keep-alive comments on event streams.
    pub sse_keepalive: Duration,
    /// The longest one write to an event stream may take.
    pub sse_write_timeout: Duration,
    /// When views are refreshed, reclaimed and their calls interrupted
    /// (`MCP_MAX_COMMITS_BEHIND`, `MCP_STUCK_VIEW_GRACE`, `MCP_PINNED_VIEW_GRACE`).
    pub views: crate::views::ViewPolicy,
    /// Each worker's memory ceiling in bytes (see `ipc::Hello::memory`).
    pub worker_memory: u64,
    /// The key sealing multi round-trip requests' `requestState`.
    pub request_state_key: crate::request_state::StateKey,
}

/// Every problem found in the configuration.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration:\n  - {}", .problems.join("\n  - "))]
pub struct ConfigError {
    /// Each problem, with its fix.
    pub problems: Vec<String>,
}

impl Config {
    /// Which stone the workers log in to, for the log and `--check`.
    pub fn stone_description(&self) -> String {
        match &self.gci {
            None => format!(
                "embedded {}",
                self.repository.as_deref().unwrap_or(IN_MEMORY)
            ),
            Some(g) => format!("gci, GemStone stone {}", g.stone),
        }
    }

    /// A configuration with defaults for everything, for tests of the library.
    pub fn for_tests(worker_bin: PathBuf) -> Config {
        Config {
            check: false,
            port: 0,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            insecure_remote: false,
            auth: crate::auth::Auth::Off,
            scope_toolsets: Vec::new(),
            new_token: None,
            tls: None,
            trace: None,
            redactor: Default::default(),
            max_sessions: Some(8),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            log_file: None,
            log_filter: "info".into(),
            handshake_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(3),
            request_read_timeout: Duration::from_secs(30),
            worker_bin,
            toolsets: default_toolsets().map(String::from).collect(),
            toolset_options: Vec::new(),
            read_only: false,
            title: None,
            instructions: None,
            repository: None,
            gci: None,
            logins: crate::logins::Logins::placeholder(),
            lifetime: crate::lifetime::Policy::new(
                Duration::from_secs(30 * 60),
                Duration::from_secs(60),
                Duration::from_secs(10),
                None,
            ),
            request_timeout: Some(Duration::from_secs(5 * 60)),
            break_grace: Duration::from_secs(5),
            client_request_timeout: Duration::from_secs(30),
            sse_keepalive: Duration::from_secs(15),
            sse_write_timeout: Duration::from_secs(10),
            views: crate::views::ViewPolicy {
                max_behind: Some(20),
                stuck_grace: Some(DEFAULT_STUCK_VIEW_GRACE),
                pinned_grace: Some(DEFAULT_PINNED_VIEW_GRACE),
            },
            worker_memory: DEFAULT_WORKER_MEMORY,
            request_state_key: crate::request_state::StateKey::random()
                .expect("the system's random number generator"),
        }
    }

    /// Validates the command line, collecting every problem.
    pub fn from_cli(cli: Cli) -> Result<Config, ConfigError> {
        let mut problems = Vec::new();
        let p = &mut problems;

        let port = keep(p, parse_port(&cli.port), 0);
        let (auth, new_token) = keep(p, parse_auth(&cli), (crate::auth::Auth::Off, None));
        let tls = match (&cli.tls_cert, &cli.tls_key) {
            (Some(cert), Some(key)) => keep(p, crate::tls::Tls::load(cert, key).map(Some), None),
            _ => None,
        };
        let secured = cli.tls_cert.is_some() && auth.is_on();
        let bind = keep(
            p,
            parse_bind(&cli.bind, secured || cli.allow_insecure_remote),
            IpAddr::V4(Ipv4Addr::LOCALHOST),
        );
        let insecure_remote = !bind.is_loopback() && !secured;
        let trace_limit = keep(p, crate::trace::parse_limit(&cli.trace_limit), None);
        let trace = cli
            .trace
            .then_some(crate::trace::Trace { limit: trace_limit });
        let max_sessions = keep(p, parse_max_sessions(&cli.max_sessions), None);

        let allowed_hosts = split_list(&cli.allowed_hosts);
        for host in &allowed_hosts {
            if host.contains('/') || host.contains(char::is_whitespace) {
                p.push(format!(
                    "MCP_ALLOWED_HOSTS entry {host:?} is not a host name: use `name` or `name:port`"
                ));
            }
        }
        let allowed_origins: Vec<String> = split_list(&cli.allowed_origins)
            .into_iter()
            .map(|o| o.trim_end_matches('/').to_string())
            .collect();
        for origin in &allowed_origins {
            if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                p.push(format!(
                    "MCP_ALLOWED_ORIGINS entry {origin:?} is not an origin: use `http://name[:port]` or `https://name[:port]`"
                ));
            }
        }

        let log_filter = match tracing_subscriber::EnvFilter::try_new(&cli.log) {
            // the trace's lines are info lines of their own target, shown whatever the filter
            Ok(_) if cli.trace => format!("{},{}=info", cli.log, crate::trace::TARGET),
            Ok(_) => cli.log.clone(),
            Err(e) => {
                p.push(format!(
                    "MCP_LOG {:?} is not a log filter ({e}): use e.g. `info`, `debug` or `gsmcp_router=debug,warn`",
                    cli.log
                ));
                "info".into()
            }
        };

        let handshake_timeout = keep(
            p,
            parse_named_duration("MCP_HANDSHAKE_TIMEOUT", &cli.handshake_timeout, false),
            Duration::ZERO,
        );
        let shutdown_grace = keep(
            p,
            parse_named_duration("MCP_SHUTDOWN_GRACE", &cli.shutdown_grace, true),
            Duration::ZERO,
        );
        let request_read_timeout = keep(
            p,
            parse_named_duration("MCP_REQUEST_READ_TIMEOUT", &cli.request_read_timeout, false),
            Duration::ZERO,
        );

        let worker_bin = match &cli.worker_bin {
            Some(path) => path.clone(),
            None => default_worker_bin(),
        };
        keep(
            p,
            check_executable(&worker_bin, cli.worker_bin.is_some()),
            (),
        );

        let all_toolsets = || default_toolsets().map(String::from).collect();
        let toolsets = match &cli.toolsets {
            Some(text) => keep(p, parse_toolsets(text), all_toolsets()),
            None => all_toolsets(),
        };
        let read_only = keep(p, parse_switch("MCP_READ_ONLY", &cli.read_only), false);
        let toolset_options =
            match gsmcp_ipc::toolsets::parse_options(&cli.toolset_options, &toolsets) {
                Ok(pairs) => pairs,
                Err(found) => {
                    p.extend(found);
                    Vec::new()
                }
            };

        let scope_toolsets = keep(
            p,
            crate::access::parse_scope_toolsets(
                &cli.scope_toolsets,
                &toolsets,
                auth.oauth().is_some(),
            ),
            Vec::new(),
        );

        let title = cli.title.clone().filter(|t| !t.trim().is_empty());

        let instructions = match &cli.instructions_file {
            Some(path) => keep(p, read_instructions(path), None),
            None => None,
        };

        let gci = match cli.backend.trim() {
            "embedded" => None,
            "gci" => keep(p, gci_config(&cli).map(Some), None),
            other => {
                p.push(format!(
                    "MCP_BACKEND={other:?} is not a backend: use embedded (the built-in stone) \
                     or gci (a GemStone/S 64 stone through its C library)"
                ));
                None
            }
        };
        let repository = match (&cli.repository, cli.backend.trim() == "gci") {
            (Some(_), true) => {
                p.push(
                    "MCP_REPOSITORY names an embedded repository file, but MCP_BACKEND=gci: \
                     name the stone with MCP_STONE instead"
                        .into(),
                );
                None
            }
            (None, true) => None,
            (Some(path), false) if path.as_os_str() == IN_MEMORY => None,
            (Some(path), false) => keep(p, check_repository(path), None),
            (None, false) => keep(p, default_repository(), None),
        };

        let logins = keep(
            p,
            crate::logins::configure(
                &crate::logins::Settings {
                    mode: &cli.worker_login,
                    user: cli.worker_user.as_deref(),
                    password_file: cli.worker_password_file.as_deref(),
                    password: cli.worker_password.clone(),
                },
                // the backend asked for, even when its settings have problems
                match (&repository, cli.backend.trim() == "gci") {
                    (_, true) => LoginTarget::Gemstone {
                        // a library that was not found is reported already
                        jwt_logins: gci.as_ref().is_none_or(|g| {
                            gsmcp_gci_abi::product::has_jwt_logins(&g.library_found.1)
                        }),
                    },
                    (Some(_), false) => LoginTarget::Repository,
                    (None, false) => LoginTarget::Memory,
                },
                auth.oauth().is_some(),
                repository.as_deref(),
            ),
            crate::logins::Logins::placeholder(),
        );

        let nonzero = |p: &mut Vec<String>, name: &str, text: &str| {
            keep(
                p,
                parse_named_duration(name, text, false),
                Duration::from_secs(1),
            )
        };
        let idle = nonzero(p, "MCP_IDLE_TIMEOUT", &cli.idle_timeout);
        let streamless = nonzero(
            p,
            "MCP_STREAMLESS_IDLE_TIMEOUT",
            &cli.streamless_idle_timeout,
        );
        let stream_grace = nonzero(p, "MCP_STREAM_GRACE", &cli.stream_grace);
        let session_lifetime = keep(
            p,
            parse_optional_duration("MCP_SESSION_LIFETIME", &cli.session_lifetime),
            None,
        );
        let request_timeout = keep(
            p,
            parse_optional_duration("MCP_REQUEST_TIMEOUT", &cli.request_timeout),
            None,
        );
        let break_grace = nonzero(p, "MCP_BREAK_GRACE", &cli.break_grace);
        let client_request_timeout =
            nonzero(p, "MCP_CLIENT_REQUEST_TIMEOUT", &cli.client_request_timeout);
        let sse_keepalive = nonzero(p, "MCP_SSE_KEEPALIVE", &cli.sse_keepalive);
        let sse_write_timeout = nonzero(p, "MCP_SSE_WRITE_TIMEOUT", &cli.sse_write_timeout);
        let views = keep(
            p,
            parse_views(&cli),
            crate::views::ViewPolicy {
                max_behind: None,
                stuck_grace: None,
                pinned_grace: None,
            },
        );
        let worker_memory = keep(
            p,
            parse_worker_memory(&cli.worker_memory, machine_memory()),
            DEFAULT_WORKER_MEMORY,
        );

        let request_state_key = match &cli.request_state_key_file {
            Some(path) => crate::request_state::StateKey::from_file(path),
            None => crate::request_state::StateKey::random(),
        };
        let request_state_key = match request_state_key {
            Ok(k) => Some(k),
            Err(e) => {
                p.push(e);
                None
            }
        };

        let mut log_file = None;
        if let Some(path) = &cli.log_file {
            match crate::private::open_private_append(path) {
                Ok(f) => log_file = Some(f),
                Err(e) => problems.push(format!(
                    "MCP_LOG_FILE {}: cannot open for appending ({e}): create its directory or choose another file",
                    path.display()
                )),
            }
        }

        // a key that could not be had is one of the problems
        let (Some(request_state_key), true) = (request_state_key, problems.is_empty()) else {
            return Err(ConfigError { problems });
        };
        let mut secrets = logins.secrets();
        secrets.extend(gci.as_ref().and_then(|g| g.host_password.as_ref()).cloned());
        let redactor = std::sync::Arc::new(crate::access::redactor_for(
            &auth,
            secrets.iter().map(Secret::expose),
        ));
        Ok(Config {
            check: cli.check,
            port,
            bind,
            insecure_remote,
            auth,
            scope_toolsets,
            new_token,
            tls,
            trace,
            redactor,
            max_sessions,
            allowed_hosts,
            allowed_origins,
            log_file,
            log_filter,
            handshake_timeout,
            shutdown_grace,
            request_read_timeout,
            worker_bin,
            toolsets,
            toolset_options,
            read_only,
            title,
            instructions,
            repository,
            gci,
            logins,
            lifetime: crate::lifetime::Policy::new(
                idle,
                streamless,
                stream_grace,
                session_lifetime,
            ),
            request_timeout,
            break_grace,
            client_request_timeout,
            sse_keepalive,
            sse_write_timeout,
            views,
            worker_memory,
            request_state_key,
        })
    }
}

/// The GCI backend's settings: the library must be found (not loaded: that
/// is the worker's, and `--check`'s), every text must be one line, and the
/// host password comes from a file or the environment.
fn gci_config(cli: &Cli) -> Result<GciConfig, String> {
    let text = |name: &str, v: &Option<String>| -> Result<Option<String>, String> {
        match v.as_deref().map(str::trim) {
            None => Ok(None),
            Some("") => Err(format!("{name} is empty: set it or leave it unset")),
            Some(t) if t.chars().any(char::is_control) => {
                Err(format!("{name} contains control characters"))
            }
            Some(t) => Ok(Some(t.to_string())),
        }
    };
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let gemstone = path(&cli.gemstone);
    let library = path(&cli.gci_library);
    let library_found = gsmcp_gci_abi::product::locate(gemstone.as_deref(), library.as_deref())?;
    let stone = text("MCP_STONE", &Some(cli.stone.clone()))?
        .ok_or("MCP_STONE is empty: name the stone (default gs64stone)")?;
    let netldi = text("MCP_NETLDI", &cli.netldi)?;
    let gem_nrs = match text("MCP_GEM_NRS", &cli.gem_nrs)? {
        Some(g) => g,
        None => format!(
            "!#netldi:{}!gemnetobject",
            netldi.as_deref().unwrap_or(DEFAULT_NETLDI)
        ),
    };
    let host_user = text("MCP_HOST_USER", &cli.host_user)?;
    let host_password = match (&cli.host_password_file, &cli.host_password) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "both MCP_HOST_PASSWORD_FILE and {HOST_PASSWORD_ENV} are set: keep one"
            ))
        }
        (Some(file), None) => Some(
            crate::logins::read_password_file(file)
                .map_err(|e| e.replace("MCP_WORKER_PASSWORD_FILE", "MCP_HOST_PASSWORD_FILE"))?,
        ),
        (None, secret) => secret.clone(),
    };
    if host_password.is_some() && host_user.is_none() {
        return Err(
            "a host password is set but MCP_HOST_USER is not: name the host account".into(),
        );
    }
    Ok(GciConfig {
        gemstone,
        library,
        library_found,
        stone,
        gem_nrs,
        netldi,
        host_user,
        host_password,
    })
}

/// An on/off setting: `1`, `true`, `yes`, `on`, or `0`, `false`, `no`, `off`
/// and empty.
fn parse_switch(name: &str, text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "" | "0" | "false" | "no" | "off" => Ok(false),
        other => Err(format!("{name}={other:?} is not on or off: use 1 or 0")),
    }
}

/// A duration, or `none` (also `off`) for no limit.
fn parse_optional_duration(name: &str, text: &str) -> Result<Option<Duration>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_named_duration(name, t, false)
        .map(Some)
        .map_err(|e| format!("{e}, or `none`"))
}

/// The grace of a stuck view when `MCP_STUCK_VIEW_GRACE` is not set.
pub const DEFAULT_STUCK_VIEW_GRACE: Duration = Duration::from_secs(30 * 60);
/// The grace of a call pinning a view when `MCP_PINNED_VIEW_GRACE` is not set.
pub const DEFAULT_PINNED_VIEW_GRACE: Duration = Duration::from_secs(10 * 60);

/// The view settings: the graces apply only with a bound on how far behind a
/// view may fall, so one set without it is a mistake to report.
fn parse_views(cli: &Cli) -> Result<crate::views::ViewPolicy, String> {
    let max_behind = parse_commits_behind(&cli.max_commits_behind)?;
    let grace = |name: &str, text: &Option<String>, default: Duration| match text {
        None => Ok(Some(default)),
        Some(t) => {
            let parsed = parse_optional_duration(name, t)?;
            if parsed.is_some() && max_behind.is_none() {
                return Err(format!(
                    "{name} is set but MCP_MAX_COMMITS_BEHIND is `none`: a view is stuck or pinned only \
                     when it is that many commits behind; set MCP_MAX_COMMITS_BEHIND or leave {name} unset"
                ));
            }
            Ok(parsed)
        }
    };
    let stuck_grace = grace(
        "MCP_STUCK_VIEW_GRACE",
        &cli.stuck_view_grace,
        DEFAULT_STUCK_VIEW_GRACE,
    )?;
    let pinned_grace = grace(
        "MCP_PINNED_VIEW_GRACE",
        &cli.pinned_view_grace,
        DEFAULT_PINNED_VIEW_GRACE,
    )?;
    Ok(crate::views::ViewPolicy {
        max_behind,
        stuck_grace: stuck_grace.filter(|_| max_behind.is_some()),
        pinned_grace: pinned_grace.filter(|_| max_behind.is_some()),
    })
}

fn parse_commits_behind(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    match t.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(Some(n)),
        _ => Err(format!(
            "MCP_MAX_COMMITS_BEHIND {text:?} is not a commit count: use a number of at least 1, or `none` to turn view hygiene off"
        )),
    }
}

/// Records a problem and substitutes a placeholder so validation can go on.
fn keep<T>(problems: &mut Vec<String>, result: Result<T, String>, placeholder: T) -> T {
    result.unwrap_or_else(|problem| {
        problems.push(problem);
        placeholder
    })
}

fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

fn parse_port(text: &str) -> Result<u16, String> {
    text.trim().parse::<u16>().map_err(|_| {
        format!(
            "MCP_PORT {text:?} is not a port: use a number from 1 to 65535, or 0 for a free port"
        )
    })
}

/// `MCP_AUTH` and `MCP_TOKEN_FILE`: the mode, and a token made here that must
/// be shown once.
fn parse_auth(cli: &Cli) -> Result<(crate::auth::Auth, Option<Secret>), String> {
    use crate::auth::{generate_token, read_token_file, Auth, TokenDigest};
    match cli.auth.trim().to_ascii_lowercase().as_str() {
        "off" | "none" | "" => match &cli.token_file {
            Some(_) => Err("MCP_TOKEN_FILE is set but MCP_AUTH is off: set MCP_AUTH=token".into()),
            None => Ok((Auth::Off, None)),
        },
        "token" => match &cli.token_file {
            Some(path) => Ok((Auth::Token(TokenDigest::of(&read_token_file(path)?)), None)),
            None => {
                let token = generate_token()?;
                Ok((
                    Auth::Token(TokenDigest::of(&token)),
                    Some(Secret::new(token)),
                ))
            }
        },
        "oauth" => {
            let leeway = parse_named_duration("MCP_OAUTH_LEEWAY", &cli.oauth_leeway, true)?;
            let settings = crate::oauth::Settings {
                issuer: cli.oauth_issuer.clone(),
                audience: cli.oauth_audience.clone(),
                jwks_url: cli.oauth_jwks_url.clone(),
                jwks_file: cli.oauth_jwks_file.clone(),
                scopes: cli.oauth_scopes.clone(),
                extra_scopes: cli.oauth_extra_scopes.clone(),
                algorithms: cli.oauth_algorithms.clone(),
                hmac_secret_file: cli.oauth_hmac_secret_file.clone(),
                leeway: leeway.as_secs(),
                user_claim: cli.oauth_user_claim.clone(),
                user_map: cli.oauth_user_map.clone(),
            };
            match crate::oauth::OAuth::new(settings) {
                Ok(o) => Ok((Auth::OAuth(Box::new(o)), None)),
                Err(problems) => Err(problems.join("\n  - ")),
            }
        }
        other => Err(format!(
            "MCP_AUTH={other:?} is not an authentication mode: use off, token or oauth"
        )),
    }
}

fn parse_bind(text: &str, remote_ok: bool) -> Result<IpAddr, String> {
    let trimmed = text.trim().trim_start_matches('[').trim_end_matches(']');
    let addr: IpAddr = if trimmed.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        trimmed.parse().map_err(|_| {
            format!("MCP_BIND {text:?} is not an IP address: use e.g. 127.0.0.1 or ::1")
        })?
    };
    if !addr.is_loopback() && !remote_ok {
        return Err(format!(
            "MCP_BIND {text:?} is not a loopback address: serving a network needs TLS \
             (MCP_TLS_CERT and MCP_TLS_KEY) and authentication (MCP_AUTH=token); bind 127.0.0.1, \
             or pass --allow-insecure-remote (MCP_ALLOW_INSECURE_REMOTE=1) on a network you trust"
        ));
    }
    Ok(addr)
}

fn parse_max_sessions(text: &str) -> Result<Option<usize>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match t.parse::<usize>() {
        Ok(0) | Err(_) => Err(format!(
            "MCP_MAX_SESSIONS {text:?} is not a session count: use a number of at least 1, or `none` for no limit"
        )),
        Ok(n) => Ok(Some(n)),
    }
}

/// A worker's memory ceiling when `MCP_WORKER_MEMORY` is `auto` and the
/// machine has at least four times as much.
pub const DEFAULT_WORKER_MEMORY: u64 = 1 << 30;
/// The least ceiling a worker can work under: the kernel and a login's
/// repository objects need room of their own.
pub const MIN_WORKER_MEMORY: u64 = 64 << 20;

/// This machine's physical memory in bytes (`MemTotal`), if it can tell.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// Parses `MCP_WORKER_MEMORY`: `auto`, a number of bytes, or one with a
/// binary suffix (`k`, `m`, `g`, `t`, optionally followed by `b` or `ib`).
/// It must be at least [`MIN_WORKER_MEMORY`] and no more than the machine has.
fn parse_worker_memory(text: &str, machine: Option<u64>) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    if t == "auto" {
        let quarter = machine.map_or(DEFAULT_WORKER_MEMORY, |m| m / 4);
        return Ok(quarter.clamp(MIN_WORKER_MEMORY, DEFAULT_WORKER_MEMORY));
    }
    let bad = || {
        format!(
            "MCP_WORKER_MEMORY {text:?} is not a size: use bytes or a number with k, m, g or t \
             (e.g. 512m, 2g), or `auto`"
        )
    };
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = t[digits.len()..]
        .trim_end_matches("ib")
        .trim_end_matches('b');
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    let n: u64 = digits.trim().parse().map_err(|_| bad())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(bad)?;
    if bytes < MIN_WORKER_MEMORY {
        return Err(format!(
            "MCP_WORKER_MEMORY {text:?} is less than a worker needs: use at least {} MiB",
            MIN_WORKER_MEMORY >> 20
        ));
    }
    if let Some(m) = machine.filter(|&m| bytes > m) {
        return Err(format!(
            "MCP_WORKER_MEMORY {text:?} is more than this machine's {} MiB of memory",
            m >> 20
        ));
    }
    Ok(bytes)
}

/// Parses `250ms`, `30s`, `5m`, `1h`, or a plain number of seconds (`1.5`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| {
        "not a duration: use e.g. `250ms`, `30s`, `5m` or plain seconds".to_string()
    })?;
    let scale = match unit.trim() {
        "" | "s" | "sec" | "secs" => 1.0,
        "ms" => 0.001,
        "m" | "min" | "mins" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "unknown unit {other:?}: use `ms`, `s`, `m` or `h` (e.g. `250ms`, `30s`, `5m`)"
            ))
        }
    };
    let secs = value * scale;
    if !secs.is_finite() || secs > 86_400.0 * 365.0 {
        return Err("duration is too long: use at most a year".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_named_duration(name: &str, text: &str, allow_zero: bool) -> Result<Duration, String> {
    match parse_duration(text) {
        Ok(d) if d.is_zero() && !allow_zero => Err(format!(
            "{name} {text:?} must be longer than zero: use e.g. `10s`"
        )),
        Ok(d) => Ok(d),
        Err(e) => Err(format!("{name} {text:?}: {e}")),
    }
}

fn default_worker_bin() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(WORKER_BIN_NAME)))
        .unwrap_or_else(|| PathBuf::from(WORKER_BIN_NAME))
}

fn check_executable(path: &Path, explicit: bool) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let fix = if explicit {
        "point MCP_WORKER_BIN at the gsmcp-worker executable"
    } else {
        "build it next to gsmcp (`cargo build --release --bins`) or set MCP_WORKER_BIN"
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(()),
        Ok(_) => Err(format!(
            "worker binary {} is not an executable file: {fix}",
            path.display()
        )),
        Err(e) => Err(format!(
            "worker binary {} not found ({e}): {fix}",
            path.display()
        )),
    }
}

/// The `MCP_REPOSITORY` value that asks for an in-memory image per session.
pub const IN_MEMORY: &str = ":memory:";

/// The repository used when `MCP_REPOSITORY` is unset: under the XDG data
/// directory, which is created (the file itself is created by the first worker).
fn default_repository() -> Result<Option<String>, String> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".local").join("share"),
            None => {
                return Err(
                    "MCP_REPOSITORY is unset and so are XDG_DATA_HOME and HOME: \
                            name a repository file with MCP_REPOSITORY (or :memory:)"
                        .into(),
                )
            }
        },
    };
    let dir = base.join("gsmcp");
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!(
            "cannot create the repository directory {} ({e}): set MCP_REPOSITORY to a writable file",
            dir.display()
        )
    })?;
    check_repository(&dir.join("gsmcp.repository"))
}

/// The repository file may not exist yet (the worker creates it), but its
/// directory must, and an existing path must be a file.
fn check_repository(path: &Path) -> Result<Option<String>, String> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err("MCP_REPOSITORY is empty: name a repository file or leave it unset".into());
    }
    if path.is_dir() {
        return Err(format!(
            "MCP_REPOSITORY {shown} is a directory: name a file in it, e.g. {}",
            path.join("gsmcp.repository").display()
        ));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "MCP_REPOSITORY {shown}: directory {} does not exist: create it first",
            dir.display()
        ));
    }
    Ok(Some(path.to_string_lossy().into_owned()))
}

fn read_instructions(path: &Path) -> Result<Option<String>, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        format!("MCP_INSTRUCTIONS_FILE {shown}: cannot read it ({e}): fix the path")
    })?;
    if !meta.is_file() {
        return Err(format!(
            "MCP_INSTRUCTIONS_FILE {shown} is not a file: point it at a text file"
        ));
    }
    if meta.len() > MAX_INSTRUCTIONS {
        return Err(format!(
            "MCP_INSTRUCTIONS_FILE {shown} has {} bytes, more than the {MAX_INSTRUCTIONS} allowed: shorten it",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        format!("MCP_INSTRUCTIONS_FILE {shown}: cannot read it ({e}): fix the path")
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        format!("MCP_INSTRUCTIONS_FILE {shown} is not UTF-8 text: save it as UTF-8")
    })?;
    Ok(if text.trim().is_empty() {
        None
    } else {
        Some(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_memory() {
        const G: u64 = 1 << 30;
        const M: u64 = 1 << 20;
        // (text, the machine's memory, accepted bytes or a word of the error)
        let table: &[(&str, Option<u64>, Result<u64, &str>)] = &[
            ("auto", Some(16 * G), Ok(G)),
            ("auto", Some(2 * G), Ok(512 * M)),
            ("auto", Some(128 * M), Ok(64 * M)),
            ("auto", None, Ok(G)),
            ("AUTO", Some(16 * G), Ok(G)),
            ("512m", Some(16 * G), Ok(512 * M)),
            ("512MiB", Some(16 * G), Ok(512 * M)),
            ("2g", Some(16 * G), Ok(2 * G)),
            ("2GB", None, Ok(2 * G)),
            ("67108864", Some(16 * G), Ok(64 * M)),
            (" 1g ", Some(16 * G), Ok(G)),
            ("65536k", Some(16 * G), Ok(64 * M)),
            ("1m", Some(16 * G), Err("at least")),
            ("0", Some(16 * G), Err("at least")),
            ("17g", Some(16 * G), Err("more than this machine")),
            ("lots", Some(16 * G), Err("not a size")),
            ("1.5g", Some(16 * G), Err("not a size")),
            ("-1g", Some(16 * G), Err("not a size")),
            ("2x", Some(16 * G), Err("not a size")),
            ("99999999999999t", None, Err("not a size")),
            ("", Some(16 * G), Err("not a size")),
        ];
        for (text, machine, want) in table {
            match (parse_worker_memory(text, *machine), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{text:?}"),
                (Err(e), Err(word)) => assert!(e.contains(word), "{text:?}: {e}"),
                (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn durations() {
        let ok = [
            ("30s", 30_000),
            ("5m", 300_000),
            ("250ms", 250),
            ("12", 12_000),
            ("1.5", 1_500),
            ("0", 0),
            ("2h", 7_200_000),
        ];
        for (text, ms) in ok {
            assert_eq!(
                parse_duration(text).unwrap(),
                Duration::from_millis(ms),
                "{text}"
            );
        }
        for bad in ["", "s", "10x", "-1s", "1e9", "ten"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bind_refuses_remote_without_consent() {
        assert!(parse_bind("127.0.0.1", false).unwrap().is_loopback());
        assert!(parse_bind("::1", false).unwrap().is_loopback());
        let e = parse_bind("0.0.0.0", false).unwrap_err();
        assert!(
            e.contains("--allow-insecure-remote") && e.contains("MCP_TLS_CERT"),
            "{e}"
        );
        assert!(parse_bind("0.0.0.0", true).is_ok());
        assert!(parse_bind("nowhere", true).is_err());
    }

    #[test]
    fn allow_insecure_remote_is_a_flag() {
        assert!(
            Cli::try_parse_from(["gsmcp", "--allow-insecure-remote"])
                .unwrap()
                .allow_insecure_remote
        );
        assert!(
            !Cli::try_parse_from(["gsmcp"])
                .unwrap()
                .allow_insecure_remote
                || std::env::var_os("MCP_ALLOW_INSECURE_REMOTE").is_some()
        );
    }

    #[test]
    fn toolset_options_are_checked_against_the_served_toolsets() {
        let config = |toolsets: Option<&str>, options: &str| {
            let mut cli = Cli::try_parse_from(["gsmcp"]).unwrap();
            cli.worker_bin = Some(std::env::current_exe().unwrap());
            cli.port = "0".into();
            cli.repository = Some(IN_MEMORY.into());
            cli.toolsets = toolsets.map(String::from);
            cli.toolset_options = options.into();
            Config::from_cli(cli)
        };
        let c = config(None, "Search.defaultLimit=100").unwrap();
        assert_eq!(
            c.toolset_options,
            vec![("Search.defaultLimit".to_string(), "100".to_string())]
        );
        let e = config(Some("Execution"), "Search.defaultLimit=100").unwrap_err();
        assert!(e.to_string().contains("does not serve"), "{e}");
        let e = config(Some("Nope"), "Execution.maxResultChars=x").unwrap_err();
        assert!(e.to_string().contains("MCP_TOOLSETS"), "{e}");
    }

    #[test]
    fn lifetime_knobs() {
        let table: &[(&str, Result<Option<Duration>, ()>)] = &[
            ("none", Ok(None)),
            ("OFF", Ok(None)),
            ("30s", Ok(Some(Duration::from_secs(30)))),
            ("2m", Ok(Some(Duration::from_secs(120)))),
            ("0", Err(())),
            ("soon", Err(())),
        ];
        for (text, expect) in table {
            let got = parse_optional_duration("MCP_REQUEST_TIMEOUT", text).map_err(|_| ());
            assert_eq!(&got, expect, "{text}");
        }
        assert_eq!(parse_commits_behind("none").unwrap(), None);
        assert_eq!(parse_commits_behind("20").unwrap(), Some(20));
        assert!(parse_commits_behind("0").is_err());
        assert!(parse_commits_behind("-3").is_err());
        let cli =
            Cli::try_parse_from(["gsmcp", "--idle-timeout", "4s", "--stream-grace", "1s"]).unwrap();
        let mut cli = cli;
        cli.worker_bin = Some(std::env::current_exe().unwrap());
        cli.port = "0".into();
        let c = Config::from_cli(cli).unwrap();
        assert_eq!(c.lifetime.idle, Duration::from_secs(4));
        assert_eq!(c.lifetime.stream_grace, Duration::from_secs(1));
        // a request deadline is on unless a deployment turns it off
        if std::env::var_os("MCP_REQUEST_TIMEOUT").is_none() {
            assert_eq!(c.request_timeout, Some(Duration::from_secs(5 * 60)));
        }
    }

    #[test]
    fn view_settings_default_with_a_bound_and_are_refused_without_one() {
        use crate::views::ViewPolicy;
        let m = Duration::from_secs(60);
        // (arguments, the policy or the problem's start)
        let table: [(&[&str], Result<ViewPolicy, &str>); 6] = [
            (
                &[],
                Ok(ViewPolicy {
                    max_behind: Some(20),
                    stuck_grace: Some(30 * m),
                    pinned_grace: Some(10 * m),
                }),
            ),
            (
                &["--stuck-view-grace", "2m", "--pinned-view-grace", "none"],
                Ok(ViewPolicy {
                    max_behind: Some(20),
                    stuck_grace: Some(2 * m),
                    pinned_grace: None,
                }),
            ),
            (
                &["--max-commits-behind", "none"],
                Ok(ViewPolicy {
                    max_behind: None,
                    stuck_grace: None,
                    pinned_grace: None,
                }),
            ),
            (
                &[
                    "--max-commits-behind",
                    "none",
                    "--pinned-view-grace",
                    "none",
                ],
                Ok(ViewPolicy {
                    max_behind: None,
                    stuck_grace: None,
                    pinned_grace: None,
                }),
            ),
            (
                &["--max-commits-behind", "none", "--stuck-view-grace", "5m"],
                Err("MCP_STUCK_VIEW_GRACE is set but"),
            ),
            (
                &["--pinned-view-grace", "0"],
                Err("MCP_PINNED_VIEW_GRACE \"0\" must be longer than zero"),
            ),
        ];
        for (args, expect) in table {
            let cli =
                Cli::try_parse_from(std::iter::once("gsmcp").chain(args.iter().copied())).unwrap();
            match (parse_views(&cli), expect) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{args:?}"),
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{args:?}: {got}"),
                (got, want) => panic!("{args:?}: {got:?}, expected {want:?}"),
            }
        }
    }

    /// `-h` and `--help` open with the same sentence, name the default
    /// toolsets, and `--help` ends with examples.
    #[test]
    fn help_agrees_with_itself_and_the_defaults() {
        use clap::CommandFactory;
        let short = Cli::command().render_help().to_string();
        let long = Cli::command().render_long_help().to_string();
        let first = |t: &str| {
            t.lines()
                .next()
                .unwrap_or_default()
                .trim_end_matches('.')
                .to_string()
        };
        assert_eq!(first(&short), first(&long));
        assert!(
            first(&long).starts_with("gsmcp: serves a GemStone/S"),
            "{long}"
        );
        let defaults: Vec<&str> = default_toolsets().collect();
        let compact: String = long.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(compact.contains(&defaults.join(", ")), "{compact}");
        let examples = long.find("Examples:").expect("examples");
        assert!(
            examples > long.find("--port").unwrap(),
            "examples come last"
        );
    }

    #[test]
    fn max_sessions_values() {
        assert_eq!(parse_max_sessions("none").unwrap(), None);
        assert_eq!(parse_max_sessions("3").unwrap(), Some(3));
        assert!(parse_max_sessions("0").is_err());
        assert!(parse_max_sessions("-2").is_err());
    }
}
