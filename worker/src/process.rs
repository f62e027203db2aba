//! The worker as an OS process: the death signal tied to the router, the process
//! name, the panic hook, the address-space limit, and the IPC socket the router
//! passed as a descriptor (taken as `gsmcp_ipc::startup` says).
//!
//! Nothing here knows about MCP or Smalltalk.

use std::io;
use std::os::unix::net::UnixStream;

/// Why the process cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessError {
    /// `PR_SET_PDEATHSIG` was refused.
    #[error("cannot ask for SIGKILL on the router's death: {0}")]
    DeathSignal(io::Error),
    /// The router was already gone.
    #[error("the router exited before the worker started")]
    Orphaned,
    /// The IPC socket the router passed is unusable.
    #[error(transparent)]
    Socket(#[from] gsmcp_ipc::startup::StartupError),
}

/// Limits this process's address space (`RLIMIT_AS`) to `bytes`, or to the
/// hard limit it already has if that is lower: an allocation past it fails
/// and ends this worker only. Answers the limit now in force.
pub fn limit_address_space(bytes: u64) -> io::Result<u64> {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid rlimit structure.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // (rlim_t is u64 on Linux, the only system a worker runs on)
    let limit: libc::rlim_t = bytes.min(current.rlim_max);
    let wanted = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: as above.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &wanted) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(limit)
}

/// Asks the kernel to SIGKILL this process when its parent (the router) dies, and
/// closes the race where the parent died before the request was made.
pub fn set_death_signal() -> Result<(), ProcessError> {
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and no pointers.
    let rc = unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    if rc != 0 {
        return Err(ProcessError::DeathSignal(io::Error::last_os_error()));
    }
    // A parent that died before the prctl took effect left us with init (or a
    // subreaper) as parent; the router never runs as pid 1.
    // SAFETY: getppid has no preconditions.
    if unsafe { libc::getppid() } == 1 {
        return Err(ProcessError::Orphaned);
    }
    Ok(())
}

/// Sets the main thread's name (what `top` and `/proc/<pid>/comm` show; at most 15 bytes).
pub fn set_thread_name(name: &str) {
    let mut buf = [0u8; 16];
    let n = name.len().min(15);
    buf[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: buf is a NUL-terminated buffer of 16 bytes that outlives the call.
    unsafe { libc::prctl(libc::PR_SET_NAME, buf.as_ptr() as libc::c_ulong, 0, 0, 0) };
}

/// Makes every panic end the process at once with a non-zero status, after
/// logging it to stderr (which the router keeps). A worker that panicked must not
/// hang with its other thread still reading: the router notices the exit and tells
/// the client `sessionGone`.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        let backtrace = std::backtrace::Backtrace::capture();
        // One write, so the router's log keeps the report together.
        let report = format!("gsmcp-worker: panic in thread '{name}': {info}\n{backtrace}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), report.as_bytes());
        // SAFETY: _exit ends the process without running atexit handlers or
        // destructors, which could block on locks the panicking thread holds.
        unsafe { libc::_exit(70) };
    }));
}

/// Takes ownership of the IPC socket the router passed (`gsmcp_ipc::startup`).
pub fn ipc_stream() -> Result<UnixStream, ProcessError> {
    Ok(gsmcp_ipc::startup::ipc_socket()?)
}
