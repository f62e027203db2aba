//! The process table as tests need it: processes by argv (`/proc/*/cmdline`),
//! their parent and state (`/proc/*/stat`), to check which workers exist and that
//! none is left behind or left a zombie.

use std::path::Path;

/// One process.
#[derive(Debug, Clone, PartialEq)]
pub struct Proc {
    /// Process id.
    pub pid: i32,
    /// Parent process id.
    pub ppid: i32,
    /// Process group id.
    pub pgrp: i32,
    /// `R`, `S`, `Z` (zombie), ...
    pub state: char,
    /// Empty for zombies and kernel threads.
    pub argv: Vec<String>,
}

impl Proc {
    /// Whether it has exited and waits to be reaped.
    pub fn is_zombie(&self) -> bool {
        self.state == 'Z'
    }
}

fn read_proc(pid: i32) -> Option<Proc> {
    let dir = Path::new("/proc").join(pid.to_string());
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    // "pid (comm) S ppid ...": comm may contain spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    let argv = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    Some(Proc {
        pid,
        ppid,
        pgrp,
        state,
        argv,
    })
}

/// Every process visible in /proc.
pub fn processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read_proc)
        .collect()
}

/// Live workers started for the router on `port`: argv `gsmcp-worker <port> <sid8> <user>`.
pub fn workers_of(port: u16) -> Vec<Proc> {
    let port = port.to_string();
    processes()
        .into_iter()
        .filter(|p| {
            p.argv.first().is_some_and(|a| {
                Path::new(a)
                    .file_name()
                    .is_some_and(|n| n == "gsmcp-worker")
            }) && p.argv.get(1) == Some(&port)
        })
        .collect()
}

/// The worker of one session (by the first 8 characters of its id).
pub fn worker_of_session(port: u16, sid: &str) -> Option<Proc> {
    let sid8 = &sid[..sid.len().min(8)];
    workers_of(port)
        .into_iter()
        .find(|p| p.argv.get(2).map(String::as_str) == Some(sid8))
}

/// Children of `pid`, zombies included.
pub fn children_of(pid: u32) -> Vec<Proc> {
    processes()
        .into_iter()
        .filter(|p| p.ppid == pid as i32)
        .collect()
}
