//! Workers: starting one — a process (as `gsmcp_ipc::startup` says: socketpair
//! as fd 3, own process group, parent-death signal), or, for tests, a thread of
//! this process over a socketpair ([`Launcher`]) — the handshake, the frame
//! pumps between the socket and the session, killing and reaping, and the tail
//! of the worker's stderr.
//!
//! A [`WorkerGuard`] owns each child: dropping it kills the child's whole process
//! group and makes sure the child is reaped, so no path leaves an orphan or a
//! zombie. This module knows nothing about HTTP or JSON-RPC and never interprets
//! the messages it carries.

use gsmcp_ipc::startup;
use gsmcp_ipc::{read_frame_async, write_frame_async, Hello, IpcError, Ready, ToRouter, ToWorker};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;

/// How much of a worker's stderr the router keeps for its log.
pub const STDERR_TAIL: usize = 4096;

/// Why a worker could not be started or did not become ready.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The socketpair could not be made.
    #[error("cannot create the worker socket: {0}")]
    Socket(std::io::Error),
    /// The worker could not be started.
    #[error("cannot start the worker {path}: {source}")]
    Exec {
        /// The worker binary (or what was being started).
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// No `Ready` (or `Failed`) within the handshake timeout.
    #[error("worker did not answer the handshake within {0:?}")]
    HandshakeTimeout(Duration),
    /// The worker answered `Failed`: its login or set-up failed.
    #[error("worker refused to start ({kind}): {message}")]
    Refused {
        /// What failed (`login`, `config`, ...).
        kind: String,
        /// What happened, and the fix.
        message: String,
    },
    /// The socket ended during the handshake.
    #[error("worker closed its socket during the handshake: {0}")]
    Closed(IpcError),
    /// A frame other than `Ready` or `Failed` came first.
    #[error("worker answered the handshake with an unexpected frame: {0}")]
    Unexpected(String),
    /// The session's login could not be made (a ticket without randomness…).
    #[error("cannot make the worker's login: {0}")]
    Login(String),
    /// The worker speaks another frame protocol version.
    #[error("worker speaks frame protocol {theirs}, the router speaks {ours}")]
    Protocol {
        /// The worker's version.
        theirs: u32,
        /// The router's.
        ours: u32,
    },
}

impl SpawnError {
    /// The `data.kind` a client sees for this failure.
    pub fn kind(&self) -> &'static str {
        match self {
            SpawnError::Refused { .. } => "workerRefused",
            _ => "workerFailed",
        }
    }
}

/// The kept end of a worker's stderr.
#[derive(Debug, Default)]
pub struct StderrTail {
    bytes: VecDeque<u8>,
}

impl StderrTail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let excess = self.bytes.len().saturating_sub(STDERR_TAIL);
        self.bytes.drain(..excess);
    }

    /// The kept text, lossily decoded.
    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut all = Vec::with_capacity(a.len() + b.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        String::from_utf8_lossy(&all).trim_end().to_string()
    }
}

/// Owns one worker. For a child process, dropping it kills the child's process
/// group (if the child was not reaped yet) and reaps the child. For a worker
/// served on a thread of this process ([`Launcher::InProcess`]), killing it
/// shuts its end of the socket, which ends its serve loop.
#[derive(Debug)]
pub struct WorkerGuard {
    child: Option<Child>,
    /// Process id, which is also the process group id (the child calls
    /// setpgid(0, 0)); 0 for a worker in this process.
    pid: u32,
    /// An in-process worker: its end of the socket, and its end.
    thread: Option<InProcess>,
}

#[derive(Debug)]
struct InProcess {
    theirs: StdUnixStream,
    /// The serve thread's exit status, once it has ended.
    ended: watch::Receiver<Option<ExitStatus>>,
}

/// What an in-process worker whose thread ended without a status (it
/// panicked) counts as: the worker binary's exit status after a panic.
fn panicked() -> ExitStatus {
    ExitStatus::from_raw(70 << 8)
}

impl WorkerGuard {
    /// The worker's process id (0 for a worker served in this process).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Sends SIGKILL to the worker's process group, unless it was already reaped
    /// (then the pid may belong to someone else); an in-process worker has its
    /// socket shut instead.
    pub fn kill(&mut self) {
        if let Some(child) = &mut self.child {
            if child.id().is_some() {
                kill_group(self.pid);
            }
        }
        if let Some(t) = &self.thread {
            let _ = t.theirs.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Waits for the worker to exit and reaps it. Cancel-safe.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(t) = &mut self.thread {
            let ended = t.ended.wait_for(Option::is_some).await;
            return Ok(ended.ok().and_then(|s| *s).unwrap_or_else(panicked));
        }
        match &mut self.child {
            Some(child) => child.wait().await,
            None => Err(std::io::Error::other("worker already released")),
        }
    }

    /// The exit status if the worker has exited (reaping it).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if let Some(t) = &self.thread {
            return *t.ended.borrow();
        }
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }
}

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        if let Some(t) = &self.thread {
            let _ = t.theirs.shutdown(std::net::Shutdown::Both);
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        kill_group(self.pid);
        // Reap: on the runtime if there is one, else synchronously (SIGKILL makes
        // this quick).
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(async move {
                    let _ = child.wait().await;
                });
            }
            Err(_) => {
                // SAFETY: plain waitpid on our own child's pid, which is not yet reaped.
                unsafe {
                    libc::waitpid(self.pid as i32, std::ptr::null_mut(), 0);
                }
            }
        }
    }
}

fn kill_group(pid: u32) {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
}

/// A started worker: its guard, the frame channels and the stderr tail.
pub struct Worker {
    /// Owns the worker's process (or thread).
    pub guard: WorkerGuard,
    /// Frames to the worker; a writer task owns the socket's write half.
    pub to_worker: mpsc::UnboundedSender<ToWorker>,
    /// Frames from the worker; a reader task owns the read half. The last item
    /// before the channel closes is the reason the socket ended.
    pub from_worker: mpsc::Receiver<Result<ToRouter, IpcError>>,
    /// The end of what the worker wrote to stderr.
    pub stderr: Arc<Mutex<StderrTail>>,
}

/// Serves one worker on a thread of this process, given its end of the
/// socket: it runs the worker's handshake and serve loop there and answers
/// what the worker's process would exit with (0: served to the end).
pub type ServeInProcess = dyn Fn(StdUnixStream) -> i32 + Send + Sync;

/// How the router starts a session's worker.
#[derive(Clone)]
pub enum Launcher {
    /// The worker binary, as a process of its own: what `gsmcp` always does.
    Process(PathBuf),
    /// A worker served on a thread of this process over a socketpair, by the
    /// function given: the session actor's own tests, without processes.
    InProcess(Arc<ServeInProcess>),
}

impl std::fmt::Debug for Launcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Launcher::Process(bin) => f.debug_tuple("Process").field(bin).finish(),
            Launcher::InProcess(_) => f.write_str("InProcess"),
        }
    }
}

/// Starts a session's worker as `launcher` says.
pub fn launch(
    launcher: &Launcher,
    port: u16,
    sid8: &str,
    user: &str,
) -> Result<Worker, SpawnError> {
    match launcher {
        Launcher::Process(bin) => spawn(bin, port, sid8, user),
        Launcher::InProcess(serve) => {
            let (ours, theirs) = StdUnixStream::pair().map_err(SpawnError::Socket)?;
            let kept = theirs.try_clone().map_err(SpawnError::Socket)?;
            let (done, ended) = watch::channel(None);
            let serve = serve.clone();
            std::thread::Builder::new()
                .name(format!("worker-{sid8}"))
                .spawn(move || {
                    let code = serve(theirs);
                    let _ = done.send(Some(ExitStatus::from_raw(code << 8)));
                })
                .map_err(|source| SpawnError::Exec {
                    path: "an in-process worker thread".into(),
                    source,
                })?;
            let guard = WorkerGuard {
                child: None,
                pid: 0,
                thread: Some(InProcess {
                    theirs: kept,
                    ended,
                }),
            };
            attach(ours, guard, None)
        }
    }
}

/// Starts a worker process: argv `[port, sid8, user]` (what a process
/// listing shows of it; never a secret), the socket as fd 3,
/// the environment [`startup::worker_may_see`] allows (see [`startup`]).
///
/// Must be called on a runtime worker thread, never from `spawn_blocking`: the
/// parent-death signal fires when the *thread* that forked exits, and runtime
/// worker threads live as long as the router.
pub fn spawn(bin: &Path, port: u16, sid8: &str, user: &str) -> Result<Worker, SpawnError> {
    let (ours, theirs) = StdUnixStream::pair().map_err(SpawnError::Socket)?;
    let their_fd = theirs.as_raw_fd();
    let parent = std::process::id() as i32;

    let mut cmd = Command::new(bin);
    cmd.args(startup::worker_args(port, sid8, user))
        .env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| startup::worker_may_see(k)))
        .env(startup::IPC_FD_ENV, startup::IPC_FD.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    // SAFETY: the closure runs in the forked child before exec, as
    // `prepare_child` requires.
    unsafe {
        cmd.pre_exec(move || startup::prepare_child(their_fd, parent));
    }
    let mut child = cmd.spawn().map_err(|source| SpawnError::Exec {
        path: bin.display().to_string(),
        source,
    })?;
    drop(theirs);
    let pid = child.id().unwrap_or(0);
    let stderr_pipe = child.stderr.take();
    let guard = WorkerGuard {
        child: Some(child),
        pid,
        thread: None,
    };
    attach(ours, guard, stderr_pipe)
}

/// The frame pumps between the router's end of a worker's socket and the
/// session: a writer task, a reader task and, for a process, the stderr tail.
fn attach(
    ours: StdUnixStream,
    guard: WorkerGuard,
    stderr_pipe: Option<tokio::process::ChildStderr>,
) -> Result<Worker, SpawnError> {
    ours.set_nonblocking(true).map_err(SpawnError::Socket)?;
    let stream = tokio::net::UnixStream::from_std(ours).map_err(SpawnError::Socket)?;
    let (mut read_half, mut write_half) = stream.into_split();

    let (to_worker, mut outbox) = mpsc::unbounded_channel::<ToWorker>();
    tokio::spawn(async move {
        while let Some(frame) = outbox.recv().await {
            if let Err(e) = write_frame_async(&mut write_half, &frame).await {
                tracing::debug!(error = %e, "worker socket closed for writing");
                break;
            }
        }
    });

    let (inbox, from_worker) = mpsc::channel(64);
    tokio::spawn(async move {
        loop {
            let frame = read_frame_async::<ToRouter, _>(&mut read_half).await;
            let end = frame.is_err();
            if inbox.send(frame).await.is_err() || end {
                break;
            }
        }
    });

    let stderr = Arc::new(Mutex::new(StderrTail::default()));
    if let Some(mut pipe) = stderr_pipe {
        let tail = stderr.clone();
        let span = tracing::Span::current();
        tokio::spawn(
            async move {
                let mut buf = [0u8; 2048];
                loop {
                    match pipe.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let chunk = &buf[..n];
                            for line in String::from_utf8_lossy(chunk).lines() {
                                tracing::debug!(target: "gsmcp_worker", "{line}");
                            }
                            if let Ok(mut t) = tail.lock() {
                                t.push(chunk);
                            }
                        }
                    }
                }
            }
            .instrument(span),
        );
    }

    Ok(Worker {
        guard,
        to_worker,
        from_worker,
        stderr,
    })
}

/// Sends `hello` and waits for `Ready` (or `Failed`) within `timeout`.
pub async fn handshake(
    worker: &mut Worker,
    hello: Hello,
    timeout: Duration,
) -> Result<Ready, SpawnError> {
    let ours = hello.protocol;
    if worker.to_worker.send(ToWorker::Hello(hello)).is_err() {
        return Err(SpawnError::Closed(IpcError::Closed));
    }
    let first = tokio::time::timeout(timeout, worker.from_worker.recv())
        .await
        .map_err(|_| SpawnError::HandshakeTimeout(timeout))?;
    match first {
        Some(Ok(ToRouter::Ready(ready))) if ready.protocol == ours => Ok(ready),
        Some(Ok(ToRouter::Ready(ready))) => Err(SpawnError::Protocol {
            theirs: ready.protocol,
            ours,
        }),
        Some(Ok(ToRouter::Failed { kind, message })) => Err(SpawnError::Refused { kind, message }),
        Some(Ok(other)) => Err(SpawnError::Unexpected(frame_name(&other).into())),
        Some(Err(e)) => Err(SpawnError::Closed(e)),
        None => Err(SpawnError::Closed(IpcError::Closed)),
    }
}

/// A short name of a frame for logs (never its contents).
pub fn frame_name(frame: &ToRouter) -> &'static str {
    match frame {
        ToRouter::Ready(_) => "Ready",
        ToRouter::Failed { .. } => "Failed",
        ToRouter::Reply { .. } => "Reply",
        ToRouter::Progress { .. } => "Progress",
        ToRouter::Log { .. } => "Log",
        ToRouter::Outbound { .. } => "Outbound",
        ToRouter::ViewStatus { .. } => "ViewStatus",
        ToRouter::ReleaseStream { .. } => "ReleaseStream",
        ToRouter::ViewLag { .. } => "ViewLag",
    }
}

/// Describes an exit status for logs: `exit code 3` or `killed by SIGKILL`.
pub fn describe_exit(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        format!("exit code {code}")
    } else if let Some(sig) = status.signal() {
        match nix::sys::signal::Signal::try_from(sig) {
            Ok(s) => format!("killed by {s}"),
            Err(_) => format!("killed by signal {sig}"),
        }
    } else {
        "unknown status".into()
    }
}

/// Waits up to `bound` for the worker to exit, then kills it; answers how it
/// ended.
pub async fn reap(worker: &mut Worker, bound: Duration) -> String {
    match tokio::time::timeout(bound, worker.guard.wait()).await {
        Ok(Ok(status)) => describe_exit(&status),
        Ok(Err(e)) => format!("unknown ({e})"),
        Err(_) => {
            worker.guard.kill();
            match worker.guard.wait().await {
                Ok(status) => describe_exit(&status),
                Err(e) => format!("unknown ({e})"),
            }
        }
    }
}

/// The tail of what the worker wrote to stderr.
pub async fn stderr_tail(worker: &Worker) -> String {
    // Give the stderr pump a moment to drain what the worker wrote last.
    tokio::time::sleep(Duration::from_millis(20)).await;
    worker.stderr.lock().map(|t| t.text()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_end() {
        let mut tail = StderrTail::default();
        tail.push(&vec![b'a'; STDERR_TAIL]);
        tail.push(b"the end\n");
        let text = tail.text();
        assert_eq!(text.len(), STDERR_TAIL - 1);
        assert!(text.ends_with("the end"));
    }
}
