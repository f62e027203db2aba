//! The gsmcp worker binary: started by the router, one per MCP session, as
//! `gsmcp-worker <port> <first 8 of the session id>` with its IPC socket on fd 3.
//! It sets up the process, reads the router's Hello, starts logging with the
//! filter given there, and serves the session (see the library's `serve`).

use anyhow::{bail, Context};
use gsmcp_worker::{process, read_hello, serve};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The interpreter allocates an object body per Smalltalk object and frees
/// nothing until the collector runs between evaluations; mimalloc serves that
/// pattern with far fewer instructions and page faults than the system
/// allocator (bench/interp/RESULTS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long the router has to send Hello once the worker runs.
const HELLO_TIMEOUT: Duration = Duration::from_secs(30);

/// Set once the tracing subscriber is installed; before that, errors go to stderr directly.
static LOGGING: AtomicBool = AtomicBool::new(false);

fn main() -> ExitCode {
    process::install_panic_hook();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if LOGGING.load(Ordering::Relaxed) {
                tracing::error!("{e:#}");
            } else {
                eprintln!("gsmcp-worker: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    process::set_death_signal()?;
    process::set_thread_name("gsmcp-worker");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (port, sid8) = match gsmcp_ipc::startup::parse_worker_args(&args) {
        Ok(a) => a,
        Err(usage) => bail!("{usage}"),
    };
    let mut stream = process::ipc_stream()?;
    let hello = read_hello(&mut stream, HELLO_TIMEOUT).context("handshake")?;
    init_logging(&hello.log_filter);
    let span = tracing::info_span!("session", session.id = %sid8, port = %port, worker.pid = std::process::id());
    let _guard = span.enter();
    tracing::debug!(?hello, "hello");
    // The embedded stone's objects live in this process: its budget is the
    // ceiling, and the address space behind it ends a leak here, alone. (A
    // GemStone login keeps its objects in its gem, not here.) Set here, for
    // the process, and not by `serve`, which may run inside another program.
    if matches!(hello.backend, gsmcp_ipc::Backend::Embedded { .. }) {
        let wanted = gsmcp_ipc::address_space_for(hello.memory);
        match process::limit_address_space(wanted) {
            Ok(limit) => tracing::debug!(limit, "address space limited"),
            Err(e) => tracing::warn!("cannot limit the address space to {wanted} bytes: {e}"),
        }
    }
    serve(stream, hello)?;
    tracing::debug!("exiting");
    Ok(())
}

/// Logs to stderr, which the router captures, with the filter from Hello (an
/// unusable filter falls back to `info` and says so).
fn init_logging(filter: &str) {
    use tracing_subscriber::EnvFilter;
    let (filter, bad) = match EnvFilter::try_new(filter) {
        Ok(f) => (f, None),
        Err(e) => (EnvFilter::new("info"), Some(e)),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    LOGGING.store(true, Ordering::Relaxed);
    if let Some(e) = bad {
        tracing::warn!("log filter from the router is unusable ({e}); logging at info");
    }
}
