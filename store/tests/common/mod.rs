//! Shared pieces of the store's integration tests: scratch directories, a fresh
//! repository and a login to it, a small deterministic random source, and a
//! driver for the `gsmcp-store` binary.
//!
//! Nothing here asserts; the test files do.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// A directory removed when dropped.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gsmcp-store-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch { dir }
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// xorshift64*: enough randomness to pick kill points, reproducible from a seed.
pub struct Rng(u64);

impl Rng {
    pub fn seeded() -> Rng {
        let seed = std::env::var("GSMCP_STORE_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        eprintln!("random seed {seed} (set GSMCP_STORE_SEED to repeat)");
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn tool() -> &'static str {
    env!("CARGO_BIN_EXE_gsmcp-store")
}

/// A child process killed and reaped when dropped.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `gsmcp-store shell` child: one login in another OS process.
pub struct Shell {
    child: Guard,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Shell {
    /// Start a shell and wait for its login.
    pub fn start(repo: &Path, extra: &[&str]) -> Shell {
        let mut child = Command::new(tool())
            .arg("shell")
            .arg(repo)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn gsmcp-store shell");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut shell = Shell {
            child: Guard(child),
            stdin,
            stdout,
        };
        // Wait until it has logged in, so its view is taken at a known point.
        let answer = shell.ask("view");
        assert!(
            answer.starts_with("view "),
            "shell did not log in: {answer}"
        );
        shell
    }

    /// Send one command and answer the one line it prints.
    pub fn ask(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").expect("write to shell");
        self.stdin.flush().expect("flush shell");
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read from shell");
        assert!(n > 0, "shell exited before answering {command:?}");
        line.trim_end().to_string()
    }

    /// Quit and wait for a clean exit.
    pub fn quit(mut self) {
        let _ = writeln!(self.stdin, "quit");
        let status = self.child.0.wait().expect("wait for shell");
        assert!(status.success(), "shell exited with {status}");
    }

    /// SIGKILL the shell and reap it, as a crash would end it.
    pub fn kill(mut self) {
        self.child.0.kill().expect("kill shell");
        let _ = self.child.0.wait();
    }

    pub fn pid(&self) -> u32 {
        self.child.0.id()
    }
}

/// The deterministic contents `gsmcp-store exercise` writes for object `j` of a
/// commit tagged `tag` (the same formula as the binary's).
pub fn payload(tag: u64, j: u64) -> Vec<u8> {
    let mut bytes = format!("{tag}:{j}:").into_bytes();
    let len = 16 + (tag * 7 + j * 13) % 700;
    bytes.extend((0..len).map(|i| ((tag * 31 + j * 17 + i) % 251) as u8));
    bytes
}

/// A new repository in a scratch directory of its own.
pub fn fresh(name: &str) -> (Scratch, gsmcp_store::Repository) {
    let dir = Scratch::new(name);
    let repo = gsmcp_store::Repository::create(dir.path("repo.db")).expect("create repository");
    (dir, repo)
}

/// A read-write login with the default options.
pub fn login(repo: &gsmcp_store::Repository) -> gsmcp_store::StoreSession {
    repo.login(gsmcp_store::LoginOptions::new()).expect("login")
}
