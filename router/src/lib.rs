//! gsmcp-router owns everything between MCP clients and the worker processes:
//! the command line, the HTTP listener, MCP's Streamable HTTP transport, the
//! session map, and the supervision of one `gsmcp-worker` process per session.
//!
//! It never evaluates Smalltalk and never blocks on a worker: each session has an
//! actor task that owns its worker, and the HTTP side only exchanges messages
//! with those actors. Frames to and from workers, and the JSON-RPC envelope,
//! are `gsmcp-ipc`'s: the router parses each client message once and hands a
//! worker the request as data; the worker's response text goes back untouched.
//!
//! Code map: [`config`] (flags, `MCP_*` variables, validation), [`http`] (accept
//! loop, gates, limits, routing, one classification per message), [`session`] (session map, slots, per-session actor: queue, server
//! requests, streams, deadlines, cancellation, view hygiene), [`lifetime`]
//! (the pure probe/release policy), [`sse`] (event-stream bodies and their
//! writers), [`supervisor`] (spawn, handshake, kill and reap, stderr tail),
//! [`access`] (scopes to toolsets, withheld toolsets, the redactor a
//! configuration calls for), [`auth`] (who may ask: the modes and their checks), [`identity`]
//! (principals, refusals, token digests), [`oauth`]
//! (JWT access tokens, the issuer's keys, the resource metadata), [`tls`]
//! (certificate, key, handshake, plaintext refused, self-signed certificates),
//! [`cors`] (preflights and exposed headers for configured origins),
//! [`trace`] (the message trace), [`logging`] (the redacting log writer),
//! [`private`] (secret files and the log file, owner-only), [`body`] (the
//! response body type all of them answer with).

#![warn(missing_docs)]

pub mod access;
pub mod auth;
pub mod body;
pub mod check;
pub mod config;
pub mod cors;
pub mod hello;
pub mod http;
pub mod identity;
pub mod lifetime;
pub mod logging;
pub mod logins;
pub mod oauth;
pub mod private;
pub mod replay;
pub mod request_state;
pub mod secret;
pub mod session;
pub mod sse;
pub mod supervisor;
pub mod tls;
pub mod tombstones;
pub mod trace;
pub mod views;

use config::Config;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Why the router could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Another process listens on the port.
    #[error("port {port} is in use; stop the other server with ./stop-server.sh {port} or choose another MCP_PORT")]
    PortInUse {
        /// The port asked for.
        port: u16,
    },
    /// The address could not be bound for another reason.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// The URL clients use for a listening address.
pub fn endpoint_url(addr: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    format!("{scheme}://{addr}{}", http::MCP_PATH)
}

/// The line `run` prints on standard output, once, when it made the bearer
/// token: the only place the token is ever shown.
pub const TOKEN_LINE: &str = "gsmcp bearer token ";

/// Binds the configured address, prints the listen line on stdout, and serves
/// until `shutdown` is cancelled; then ends every session (asking each worker to
/// exit, killing it after the grace period) before returning.
pub async fn run(mut config: Config, shutdown: CancellationToken) -> Result<(), RunError> {
    let addr = SocketAddr::new(config.bind, config.port);
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            return Err(RunError::PortInUse { port: config.port })
        }
        Err(source) => return Err(RunError::Bind { addr, source }),
    };
    let local = listener
        .local_addr()
        .map_err(|source| RunError::Bind { addr, source })?;
    let new_token = config.new_token.take();
    let config = Arc::new(config);
    let registry = session::Registry::new(config.clone(), local.port(), shutdown.clone());
    let state = Arc::new(http::AppState {
        config: config.clone(),
        registry,
        port: local.port(),
        stateless: Default::default(),
    });

    let url = endpoint_url(local, config.tls.is_some());
    {
        // Scripts and the test harness wait for exactly this line, and the
        // token line after it when a token was made.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "gsmcp listening on {url}");
        if let Some(token) = new_token {
            let _ = writeln!(out, "{TOKEN_LINE}{}", token.expose());
        }
        let _ = out.flush();
    }
    if config.insecure_remote {
        tracing::warn!(
            bind = %config.bind,
            tls = config.tls.is_some(),
            auth = config.auth.name(),
            "SERVING A NETWORK WITHOUT TLS AND AUTHENTICATION (MCP_ALLOW_INSECURE_REMOTE): \
             anyone who reaches this port can read traffic or use the repository"
        );
    }
    if let Some(trace) = config.trace {
        tracing::info!(
            limit = ?trace.limit,
            "message trace on: one line per message in and out, bodies only, redacted"
        );
    }
    tracing::info!(
        %url,
        max_sessions = ?config.max_sessions,
        toolsets = %config.toolsets.join(","),
        worker = %config.worker_bin.display(),
        logins = %config.logins.describe(),
        read_only = config.read_only,
        stone = %config.stone_description(),
        auth = config.auth.name(),
        tls = config.tls.is_some(),
        "listening"
    );
    http::serve(listener, state, shutdown).await;
    tracing::info!("stopped");
    Ok(())
}
