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
//! writers), [`supervisor`] (spawn, handshake, kill and reap, stderr tail).

#![warn(missing_docs)]

pub mod check;
pub mod config;
pub mod http;
pub mod lifetime;
pub mod session;
pub mod sse;
pub mod supervisor;

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
pub fn endpoint_url(addr: SocketAddr) -> String {
    format!("http://{addr}{}", http::MCP_PATH)
}

/// Binds the configured address, prints the listen line on stdout, and serves
/// until `shutdown` is cancelled; then ends every session (asking each worker to
/// exit, killing it after the grace period) before returning.
pub async fn run(config: Config, shutdown: CancellationToken) -> Result<(), RunError> {
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
    let config = Arc::new(config);
    let registry = session::Registry::new(config.clone(), local.port(), shutdown.clone());
    let state = Arc::new(http::AppState {
        config: config.clone(),
        registry,
        port: local.port(),
    });

    let url = endpoint_url(local);
    {
        // Scripts and the test harness wait for exactly this line.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "gsmcp listening on {url}");
        let _ = out.flush();
    }
    tracing::info!(
        %url,
        max_sessions = ?config.max_sessions,
        toolsets = %config.toolsets.join(","),
        worker = %config.worker_bin.display(),
        worker_user = %config.worker_user,
        stone = %config.stone_description(),
        "listening"
    );
    http::serve(listener, state, shutdown).await;
    tracing::info!("stopped");
    Ok(())
}
