//! How a worker process starts, written once for both ends: the router (and
//! any test that starts a worker binary) prepares the child with
//! [`worker_args`], [`worker_may_see`] and [`prepare_child`]; the worker takes
//! its socket with [`ipc_socket`].
//!
//! A worker runs as `gsmcp-worker <port> <first 8 of the session id>` (so `ps`
//! shows whose it is), with its end of a socketpair on descriptor [`IPC_FD`]
//! (named again in [`IPC_FD_ENV`]), in a process group of its own, killed by
//! the kernel when the thread that started it ends. Its configuration arrives
//! in the first frame, never in argv or the environment.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::net::UnixStream;

/// The descriptor a worker finds its IPC socket on.
pub const IPC_FD: RawFd = 3;

/// The environment variable naming the IPC descriptor (absent: [`IPC_FD`]).
pub const IPC_FD_ENV: &str = "GSMCP_IPC_FD";

/// A worker's arguments: the router's port, the session id's first 8
/// characters and the user it logs in as, so a process listing tells which
/// session and user each worker serves. Never a secret.
pub fn worker_args(port: u16, sid8: &str, user: &str) -> [String; 3] {
    [port.to_string(), sid8.to_string(), user.to_string()]
}

/// The worker's reading of [`worker_args`]: `(port, sid8)` (the user is for
/// the listing only; the login's own comes in the `Hello` frame).
pub fn parse_worker_args(args: &[String]) -> Result<(&str, &str), String> {
    match args {
        [port, sid8, _user] => Ok((port, sid8)),
        _ => Err(format!(
            "usage: gsmcp-worker <port> <session-id-prefix> <user>; gsmcp starts it with the IPC socket on descriptor {IPC_FD}"
        )),
    }
}

/// Whether a variable of the router's environment is passed to workers. A
/// worker gets its configuration, passwords included, in the `Hello` frame
/// only; from the environment it sees just what a process and a GemStone
/// client library need (the system's basics, locale, library paths,
/// `GEMSTONE*`/`GS_*`) and the `GSMCP_*` diagnostics. Everything else — every
/// `MCP_*` setting, tokens, keys — stays with the router.
pub fn worker_may_see(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TMPDIR",
        "TZ",
        "LANG",
        "HOSTNAME",
        "LD_LIBRARY_PATH",
        "DYLD_LIBRARY_PATH",
        "RUST_BACKTRACE",
        "RUST_MIN_STACK",
    ];
    const PREFIXES: &[&str] = &["LC_", "GEMSTONE", "GS_", "GSMCP_", "MIMALLOC_"];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// What a new worker process does between fork and exec: puts `their_fd` on
/// [`IPC_FD`] so that it survives exec, enters a process group of its own,
/// asks for SIGKILL when the forking thread ends, and checks that `parent`
/// (the starter's pid) did not exit in the meantime.
///
/// # Safety
/// Call it only in the child between fork and exec (`CommandExt::pre_exec`):
/// it uses only async-signal-safe functions and allocates nothing.
pub unsafe fn prepare_child(their_fd: RawFd, parent: libc::pid_t) -> io::Result<()> {
    let fail = || Err(io::Error::last_os_error());
    // SAFETY: plain system calls on descriptors and ids, no pointers, as the
    // caller's contract allows between fork and exec.
    unsafe {
        if their_fd == IPC_FD {
            // Already in place: just let it survive exec.
            let flags = libc::fcntl(IPC_FD, libc::F_GETFD);
            if flags < 0 || libc::fcntl(IPC_FD, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return fail();
            }
        } else if libc::dup2(their_fd, IPC_FD) < 0 {
            return fail();
        }
        if libc::setpgid(0, 0) < 0 {
            return fail();
        }
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return fail();
        }
        // The starter may have died between fork and prctl.
        if libc::getppid() != parent {
            return Err(io::Error::other("the router exited during worker start"));
        }
    }
    Ok(())
}

/// Why a worker cannot take its IPC socket.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartupError {
    /// The variable holds something other than a descriptor number.
    #[error("{IPC_FD_ENV}={0:?} is not a descriptor number")]
    BadFdVar(String),
    #[error(
        "descriptor {0} is not a socket: gsmcp-worker is started by gsmcp with its IPC socket on that descriptor, not by hand"
    )]
    /// Nothing open, or not a socket, on the descriptor.
    NotASocket(RawFd),
}

/// Worker side: takes ownership of the IPC socket the starter passed
/// ([`IPC_FD_ENV`], default [`IPC_FD`]), after checking it is one, and keeps
/// it from leaking into anything the worker might start.
pub fn ipc_socket() -> Result<UnixStream, StartupError> {
    let fd = match std::env::var(IPC_FD_ENV) {
        Ok(v) => v
            .trim()
            .parse::<RawFd>()
            .map_err(|_| StartupError::BadFdVar(v))?,
        Err(_) => IPC_FD,
    };
    if fd < 0 {
        return Err(StartupError::BadFdVar(fd.to_string()));
    }
    // SAFETY: fstat writes into a zeroed stat buffer we own; a bad fd yields -1.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::fstat(fd, &mut st) };
    if rc != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return Err(StartupError::NotASocket(fd));
    }
    // SAFETY: fcntl on a descriptor we checked is open.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    // SAFETY: the descriptor is an open socket that nothing else in this process owns.
    Ok(unsafe { UnixStream::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip_and_the_environment_is_filtered() {
        let args = worker_args(8000, "01234567", "alice").to_vec();
        assert_eq!(parse_worker_args(&args), Ok(("8000", "01234567")));
        assert!(parse_worker_args(&args[..1]).unwrap_err().contains("usage"));
        let table = [
            ("PATH", true),
            ("LC_ALL", true),
            ("GEMSTONE", true),
            ("GSMCP_IPC_FD", true),
            ("MCP_WORKER_PASSWORD", false),
            ("AWS_SECRET_ACCESS_KEY", false),
            ("PATHX", false),
        ];
        for (name, seen) in table {
            assert_eq!(worker_may_see(OsStr::new(name)), seen, "{name}");
        }
    }
}
