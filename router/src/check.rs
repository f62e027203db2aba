//! `gsmcp --check`: proves a deployment's settings work before anyone relies
//! on them. After the configuration passed its checks, one worker is started
//! exactly as for a session (same supervisor, same `Hello`), logs in, and
//! answers two evaluations: `3 + 4`, timed, and a probe of whether the user
//! may change the repository (a store into its UserGlobals, aborted at once:
//! nothing is committed). The router still runs no Smalltalk itself. Per-user
//! workers on GemStone log in only with a client's access token, so there
//! `--check` stops after the settings and says so.

use crate::config::Config;
use crate::hello::hello_for;
use crate::supervisor::{self, describe_exit};
use gsmcp_ipc::{Request, ToRouter, ToWorker};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How long one probe evaluation may take.
const CALL_BOUND: Duration = Duration::from_secs(60);

/// What `--check` found: the report on success, or every problem with its fix.
pub async fn run(config: &Config) -> Result<String, Vec<String>> {
    let mut report = vec![format!("backend    {}", config.stone_description())];
    if let Some(g) = &config.gci {
        report.push(format!(
            "library    {} (GemStone {})",
            g.library_found.0.display(),
            g.library_found.1
        ));
    }
    report.push(format!("logins     {}", config.logins.describe()));
    if config.read_only {
        report.push("read-only  only the tools that read are served (MCP_READ_ONLY)".into());
    }
    if !config.logins.checkable() {
        // the library's version was checked with the settings
        report.push(
            "login      not tried: each per-user worker logs in with its client's access \
             token as a JWT login, which the stone verifies; --check has no token"
                .into(),
        );
        return Ok(report.join("\n"));
    }
    let login = config
        .logins
        .for_principal(None)
        .map_err(|e| vec![format!("cannot make the worker's login: {e}")])?;
    let mut worker =
        supervisor::spawn(&config.worker_bin, 0, "check000", &login.user).map_err(|e| {
            vec![format!(
                "cannot start the worker {}: {e} (check MCP_WORKER_BIN)",
                config.worker_bin.display()
            )]
        })?;
    let mut hello = hello_for(
        config,
        "check0000000000000000000000000000",
        0,
        &crate::identity::Principal::Anonymous,
        login,
    );
    hello.toolsets = vec!["Execution".into()];
    hello.options.retain(|(k, _)| k.starts_with("Execution."));
    let started = Instant::now();
    let ready = match supervisor::handshake(&mut worker, hello, config.handshake_timeout).await {
        Ok(r) => r,
        Err(e) => {
            // a refusal is the worker's own report; anything else, how it ended
            let refused = matches!(e, supervisor::SpawnError::Refused { .. });
            worker.guard.kill();
            let status = worker
                .guard
                .wait()
                .await
                .map(|s| describe_exit(&s))
                .unwrap_or_default();
            let how = if refused {
                String::new()
            } else {
                format!(" (the worker {status})")
            };
            return Err(vec![format!("the worker could not log in: {e}{how}")]);
        }
    };
    let login_ms = started.elapsed().as_millis();
    report.push(format!("stone      {}", ready.stone));
    report.push(format!("user       {}", ready.user));
    report.push(format!(
        "login      {login_ms} ms (worker pid {})",
        ready.pid
    ));
    let mut problems = Vec::new();
    let t = Instant::now();
    match evaluate(&mut worker, 1, "3 + 4").await {
        Ok(answer) if answer == "7" => report.push(format!(
            "3 + 4      7 ({:.1} ms round trip)",
            t.elapsed().as_secs_f64() * 1e3
        )),
        Ok(answer) => problems.push(format!(
            "3 + 4 answered {answer:?}, not 7: the stone's kernel is not one gsmcp knows"
        )),
        Err(e) => problems.push(format!("3 + 4 failed: {e}")),
    }
    match evaluate(&mut worker, 2, gsmcp_ipc::CHECK_WRITE_PROBE).await {
        Ok(a) if a == "true" => report.push("commits    allowed (the user may change the repository)".into()),
        Ok(_) => report.push("commits    refused: a read-only user (clients can read, evaluate and search, not change)".into()),
        Err(e) => problems.push(format!("the write probe failed: {e}")),
    }
    let _ = worker.to_worker.send(ToWorker::Shutdown);
    if tokio::time::timeout(config.shutdown_grace, worker.guard.wait())
        .await
        .is_err()
    {
        worker.guard.kill();
        let _ = worker.guard.wait().await;
    }
    if problems.is_empty() {
        Ok(report.join("\n"))
    } else {
        Err(problems)
    }
}

/// Runs `code` with `execute_code` and answers its result text.
async fn evaluate(worker: &mut supervisor::Worker, id: u64, code: &str) -> Result<String, String> {
    let request = Request::new(
        Some(json!(id)),
        "tools/call".into(),
        Some(json!({"name": "execute_code", "arguments": {"code": code}})),
    );
    worker
        .to_worker
        .send(ToWorker::Call {
            call_id: id,
            request,
        })
        .map_err(|_| "the worker is gone".to_string())?;
    let deadline = Instant::now() + CALL_BOUND;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let frame = tokio::time::timeout(left, worker.from_worker.recv())
            .await
            .map_err(|_| format!("no answer within {CALL_BOUND:?}"))?;
        match frame {
            Some(Ok(ToRouter::Reply { message, .. })) => {
                let v: Value = serde_json::from_str(&message).map_err(|e| e.to_string())?;
                let r = &v["result"];
                if r["isError"] == json!(true) {
                    return Err(r["content"][0]["text"]
                        .as_str()
                        .unwrap_or("an error")
                        .to_string());
                }
                return r["structuredContent"]["result"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("an unexpected answer: {message}"));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("the worker's socket failed: {e}")),
            None => return Err("the worker exited".into()),
        }
    }
}
