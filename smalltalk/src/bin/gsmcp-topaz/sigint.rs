//! Ctrl-C for `gsmcp-topaz`, as topaz gives it: SIGINT during an evaluation is a
//! soft break (error 6003, which the script may handle; topaz prints the error
//! and goes on with the next command), a second SIGINT within
//! [`HARD_BREAK_WINDOW`] of the first is a hard break (6004, which nothing can
//! handle), and SIGINT anywhere else (at the prompt, reading a file, between
//! commands) is ignored rather than ending the run.
//!
//! SIGINT is blocked in every thread (the mask is set before any thread exists
//! and is inherited) and taken by one thread that waits for it with `sigwait`,
//! so the reaction runs as ordinary code instead of inside a signal handler. It
//! reaches the evaluation through the session's [`Interrupter`], registered for
//! exactly as long as an evaluation runs ([`during`]).

use gsmcp_smalltalk::Interrupter;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How soon after a soft break a second Ctrl-C turns into a hard break.
pub const HARD_BREAK_WINDOW: Duration = Duration::from_secs(2);

struct State {
    /// The interrupter of the evaluation running now, if any.
    running: Option<Interrupter>,
    /// When this evaluation last got a soft break.
    soft_at: Option<Instant>,
}

static STATE: Mutex<State> = Mutex::new(State {
    running: None,
    soft_at: None,
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Blocks SIGINT in this thread (and so in every thread it starts later) and
/// starts the thread that takes it. Call first thing in `main`, before any
/// other thread exists.
pub fn install() -> Result<(), String> {
    // SAFETY: sigset_t is plain data initialised by sigemptyset before use, and
    // pthread_sigmask only changes the calling thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if rc != 0 {
            return Err(format!("cannot block SIGINT (error {rc})"));
        }
        set
    };
    std::thread::Builder::new()
        .name("sigint".into())
        .spawn(move || loop {
            let mut signal = 0;
            // SAFETY: `set` holds SIGINT, which every thread blocks, so sigwait
            // is the one taker; it writes the signal number into `signal`.
            let rc = unsafe { libc::sigwait(&set, &mut signal) };
            if rc == 0 && signal == libc::SIGINT {
                interrupt(Instant::now());
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the SIGINT thread: {e}"))
}

/// What one Ctrl-C does at `now`.
fn interrupt(now: Instant) {
    let mut s = state();
    let recent = s
        .soft_at
        .is_some_and(|at| now.duration_since(at) <= HARD_BREAK_WINDOW);
    let Some(running) = s.running.clone() else {
        // At the prompt or between commands: Ctrl-C does not end topaz.
        return;
    };
    if recent {
        running.hard_break();
        s.soft_at = None;
    } else {
        running.soft_break();
        s.soft_at = Some(now);
    }
}

/// Registers the evaluation about to run on `interrupter`'s session for as
/// long as the answer lives.
#[must_use]
pub fn during(interrupter: Interrupter) -> Running {
    let mut s = state();
    s.running = Some(interrupter);
    s.soft_at = None;
    Running(())
}

/// An evaluation Ctrl-C may break; dropping it ends that.
pub struct Running(());

impl Drop for Running {
    fn drop(&mut self) {
        let mut s = state();
        if let Some(done) = s.running.take() {
            // A Ctrl-C that came as the evaluation ended must not break the next one.
            let _ = done.take();
        }
        s.soft_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_interrupt_soon_after_is_hard() {
        let i = Interrupter::default();
        let t0 = Instant::now();
        interrupt(t0);
        assert_eq!(i.take(), None, "nothing runs: ignored");
        {
            let _running = during(i.clone());
            interrupt(t0);
            assert_eq!(i.take(), Some(false));
            interrupt(t0 + Duration::from_millis(300));
            assert_eq!(i.take(), Some(true));
            interrupt(t0 + Duration::from_millis(400));
            assert_eq!(
                i.take(),
                Some(false),
                "after a hard break the next is soft again"
            );
            interrupt(t0 + HARD_BREAK_WINDOW * 2);
            assert_eq!(i.take(), Some(false), "too late to be a second press");
            interrupt(t0 + HARD_BREAK_WINDOW * 2);
        }
        assert_eq!(
            i.take(),
            None,
            "a pending break is dropped with the evaluation"
        );
    }
}
