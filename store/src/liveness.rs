//! Is the process that registered a view still alive?
//!
//! The repository is one machine's file, so a session's owner is a local process.
//! This module owns the identity of a process and the liveness test. The identity
//! is the pid, its start time (so a recycled pid is not mistaken for the original
//! owner) and the "host": the kernel boot id plus the pid namespace (so a row
//! written before a reboot is known dead, and a row written from another
//! container, whose pids mean nothing here, is never judged dead by mistake). It
//! must not decide what to do with a dead session: the registry does that.

/// Identity of a process as recorded next to a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcessId {
    pub pid: u32,
    /// Start time in clock ticks since boot (Linux `/proc/<pid>/stat` field 22),
    /// 0 when unknown.
    pub start: u64,
    /// `<boot id>/<pid namespace>`, empty when unknown.
    pub host: String,
}

/// What a liveness check concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Liveness {
    Alive,
    Dead,
    /// Registered from another pid namespace on this boot: the pid cannot be
    /// checked from here, so the view is kept (never pruned under).
    Unknown,
}

impl ProcessId {
    /// The calling process.
    pub fn current() -> ProcessId {
        let pid = std::process::id();
        ProcessId {
            pid,
            start: start_time(pid).unwrap_or(0),
            host: host(),
        }
    }

    /// Whether the process still exists and is the same one that registered.
    pub fn liveness(&self) -> Liveness {
        let here = host();
        if !self.host.is_empty() && !here.is_empty() && self.host != here {
            let boot = |h: &str| h.split('/').next().unwrap_or("").to_string();
            return if boot(&self.host) != boot(&here) {
                Liveness::Dead
            } else {
                Liveness::Unknown
            };
        }
        if self.pid == 0 || self.pid > i32::MAX as u32 {
            return Liveness::Dead;
        }
        // SAFETY: kill with signal 0 sends nothing; it only checks existence and
        // permission, and has no memory-safety preconditions.
        let rc = unsafe { libc::kill(self.pid as libc::pid_t, 0) };
        if rc != 0 {
            let errno = std::io::Error::last_os_error().raw_os_error();
            // EPERM: the process exists but belongs to another user.
            if errno != Some(libc::EPERM) {
                return Liveness::Dead;
            }
        }
        match (self.start, start_time(self.pid)) {
            (0, _) | (_, None) => Liveness::Alive,
            (recorded, Some(now)) if recorded == now => Liveness::Alive,
            _ => Liveness::Dead,
        }
    }
}

/// Start time of `pid` from `/proc`, if readable.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is parenthesised and may contain spaces or
    // parentheses itself, so parse from the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name come fields 3.. ; start time is field 22, i.e. index 19 here.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// `<boot id>/<pid namespace>` of the calling process, empty if either is unknown.
fn host() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok();
    let ns = std::fs::read_link("/proc/self/ns/pid").ok();
    match (boot, ns) {
        (Some(boot), Some(ns)) => format!("{}/{}", boot.trim(), ns.display()),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_process_is_alive() {
        let me = ProcessId::current();
        assert_eq!(me.pid, std::process::id());
        assert_eq!(me.liveness(), Liveness::Alive);
    }

    #[test]
    fn identities_that_cannot_be_the_owner_are_judged() {
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("spawn true");
        let exited = child.id();
        child.wait().expect("wait");
        let me = ProcessId::current();
        let with = |pid: u32, start: u64, host: &str| ProcessId {
            pid,
            start,
            host: host.to_string(),
        };
        let mut cases = vec![
            (with(exited, 0, &me.host), Liveness::Dead),
            (with(0, 0, ""), Liveness::Dead),
            (with(me.pid, 0, ""), Liveness::Alive),
        ];
        if me.start != 0 {
            cases.push((with(me.pid, me.start + 1, &me.host), Liveness::Dead));
        }
        if let Some((boot, ns)) = me.host.split_once('/') {
            cases.push((
                with(me.pid, me.start, &format!("{boot}/pid:[1]")),
                Liveness::Unknown,
            ));
            cases.push((
                with(me.pid, me.start, &format!("another-boot/{ns}")),
                Liveness::Dead,
            ));
        }
        for (id, want) in cases {
            assert_eq!(id.liveness(), want, "{id:?}");
        }
    }
}
