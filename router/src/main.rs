//! The `gsmcp` binary: parses the configuration, sets up logging and the
//! runtime, turns SIGTERM/SIGINT into the shutdown token, and calls
//! [`gsmcp_router::run`]. Everything else lives in the library.

use anyhow::Context;
use clap::Parser;
use gsmcp_router::config::{Cli, Config};
use gsmcp_router::logging::Redacting;
use std::io::Write;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(dir) = &cli.make_self_signed {
        return make_self_signed(dir);
    }
    let mut config = match Config::from_cli(cli) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gsmcp: {e}");
            return ExitCode::from(2);
        }
    };
    if config.check {
        return check(config);
    }
    init_logging(
        &config.log_filter,
        config.log_file.take(),
        config.redactor.clone(),
    );
    match serve(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            let _ = writeln!(std::io::stderr(), "gsmcp: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// `--check`: the report on standard output and exit 0, or the problems on
/// standard error and exit 2.
fn check(config: Config) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "gsmcp: cannot start the async runtime: {e}"
            );
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(gsmcp_router::check::run(&config)) {
        Ok(report) => {
            let _ = writeln!(std::io::stdout(), "gsmcp --check: ok\n{report}");
            ExitCode::SUCCESS
        }
        Err(problems) => {
            let _ = writeln!(
                std::io::stderr(),
                "gsmcp --check: failed\n  - {}",
                problems.join("\n  - ")
            );
            ExitCode::from(2)
        }
    }
}

/// `--make-self-signed DIR`: the certificate, its key, and how to use and trust them.
fn make_self_signed(dir: &std::path::Path) -> ExitCode {
    match gsmcp_router::tls::make_self_signed(dir) {
        Ok((cert, key)) => {
            let (cert, key) = (cert.display(), key.display());
            let _ = writeln!(
                std::io::stdout(),
                "gsmcp: made a self-signed certificate for local use only\n  \
                 MCP_TLS_CERT={cert}\n  MCP_TLS_KEY={key}\n\
                 Clients must trust it: curl --cacert {cert}; Node.js clients (Claude Code) \
                 NODE_EXTRA_CA_CERTS={cert}; Python clients SSL_CERT_FILE={cert}; or the \
                 system store: sudo cp {cert} /usr/local/share/ca-certificates/gsmcp.crt \
                 && sudo update-ca-certificates"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gsmcp: {e}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(
    filter: &str,
    file: Option<std::fs::File>,
    redactor: std::sync::Arc<gsmcp_ipc::redact::Redactor>,
) {
    let sink: Box<dyn Write + Send> = match file {
        Some(f) => Box::new(f),
        None => Box::new(std::io::stderr()),
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(Redacting::new(sink, redactor))
        .with_ansi(false)
        // By default a failed write is reported with `eprintln!`, which panics
        // when stderr is a closed pipe and would take the logging task with it.
        .log_internal_errors(false)
        .init();
    // A panic's report goes through the log, so it is redacted like every line.
    std::panic::set_hook(Box::new(|info| {
        tracing::error!("panic: {info}");
    }));
}

fn serve(config: Config) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("gsmcp")
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        watch_signals(shutdown.clone())?;
        gsmcp_router::run(config, shutdown).await?;
        Ok(())
    })
}

/// First SIGTERM/SIGINT: graceful shutdown. A second one: exit at once (workers
/// die with the router through their parent-death signal).
fn watch_signals(shutdown: CancellationToken) -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot watch SIGINT")?;
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            if first {
                tracing::info!(signal = name, "shutting down");
                shutdown.cancel();
                first = false;
            } else {
                tracing::warn!(signal = name, "second signal: exiting at once");
                std::process::exit(130);
            }
        }
    });
    Ok(())
}
