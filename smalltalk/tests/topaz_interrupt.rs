//! Ctrl-C in `gsmcp-topaz`: the real binary gets SIGINT while it evaluates
//! `[true] whileTrue` (a soft break: ERROR 6003, then the next command runs),
//! again and again while the code retries after every soft break (the second
//! press soon after a soft break is a hard break: ERROR 6004), and while it
//! waits for input (ignored: the run goes on).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// How long any one step may take before the test gives up (a hang, not a
/// measurement).
const HANG_GUARD: Duration = Duration::from_secs(120);

struct Topaz {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Topaz {
    fn start() -> Topaz {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
            .arg("-q")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gsmcp-topaz");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Topaz {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, script: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(script.as_bytes())
            .and_then(|_| stdin.flush())
            .expect("write to gsmcp-topaz");
    }

    fn next_line(&self) -> String {
        self.lines
            .recv_timeout(HANG_GUARD)
            .unwrap_or_else(|e| panic!("no output from gsmcp-topaz: {e}"))
    }

    fn interrupt(&self) {
        // SAFETY: kill only sends a signal to the child this test started.
        let rc = unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        assert_eq!(rc, 0, "kill -INT failed");
    }

    /// Waits until the process has taken the SIGINT sent to it (it is no
    /// longer pending), then a little longer for its reaction to run: a
    /// Ctrl-C meant for the prompt must not be handled only after the next
    /// command has started.
    fn wait_until_signal_taken(&self) {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
                .expect("read /proc status");
            let pending = status
                .lines()
                .filter(|l| l.starts_with("ShdPnd:") || l.starts_with("SigPnd:"))
                .any(|l| {
                    let mask = u64::from_str_radix(l.split_whitespace().nth(1).unwrap_or("0"), 16)
                        .unwrap_or(0);
                    mask & (1 << (libc::SIGINT - 1)) != 0
                });
            if !pending {
                break;
            }
            assert!(Instant::now() < deadline, "the SIGINT was never taken");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    /// CPU time the process has used, in clock ticks.
    fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("read /proc stat");
        // Fields after the command name (which ends with ')'): utime is the
        // 14th field overall, stime the 15th.
        let rest = &stat[stat.rfind(')').expect("comm") + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    /// Waits until the process has burnt a good deal of CPU since now: the
    /// busy loop it was sent is running.
    fn wait_until_looping(&self) {
        let start = self.cpu_ticks();
        let deadline = Instant::now() + HANG_GUARD;
        while self.cpu_ticks() < start + 30 {
            assert!(Instant::now() < deadline, "the loop never ran");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("wait for gsmcp-topaz").code()
    }
}

impl Drop for Topaz {
    fn drop(&mut self) {
        // A failed test must not leave a looping process behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn printit(code: &str) -> String {
    format!("printit\n{code}\n%\n")
}

#[test]
fn ctrl_c_breaks_the_evaluation_and_topaz_goes_on() {
    let mut t = Topaz::start();

    // Ctrl-C while topaz waits for input does not end it.
    t.send(&printit("'ready'"));
    assert_eq!(t.next_line(), "'ready'");
    t.interrupt();
    t.wait_until_signal_taken();
    t.send(&printit("3 + 4"));
    assert_eq!(t.next_line(), "7");

    // A soft break ends the loop with 6003; the next command runs.
    t.send(&printit("'looping'"));
    assert_eq!(t.next_line(), "'looping'");
    t.send(&printit("[true] whileTrue"));
    t.wait_until_looping();
    t.interrupt();
    let error = t.next_line();
    assert!(error.starts_with("ERROR 6003, "), "{error}");
    t.send(&printit("#after"));
    assert_eq!(t.next_line(), "#after");

    // Code that retries after every soft break is stopped by a second Ctrl-C
    // right after the first: a hard break, 6004.
    t.send(&printit("'retrying'"));
    assert_eq!(t.next_line(), "'retrying'");
    t.send(&printit("[[true] whileTrue] on: Break do: [:e | e retry]"));
    t.wait_until_looping();
    // Signals sent back to back may merge into one, so Ctrl-C is pressed
    // every few hundred milliseconds, as a person would, until topaz answers:
    // the press after a soft break is the hard one.
    let deadline = Instant::now() + HANG_GUARD;
    let error = loop {
        assert!(Instant::now() < deadline, "Ctrl-C never stopped the loop");
        t.interrupt();
        match t.lines.recv_timeout(Duration::from_millis(300)) {
            Ok(line) => break line,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(e) => panic!("gsmcp-topaz went away: {e}"),
        }
    };
    assert!(error.starts_with("ERROR 6004, "), "{error}");
    t.send(&printit("6 * 7"));
    assert_eq!(t.next_line(), "42");

    // Two errors were printed: the exit status counts them.
    assert_eq!(t.finish(), Some(2));
}
