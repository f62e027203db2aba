//! Interrupt tests: another thread soft- or hard-breaks a running evaluation;
//! the evaluation ends with GemStone's break error, `ensure:` blocks run, and
//! the session keeps working.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use gsmcp_smalltalk::{ErrorKind, Session};

fn session() -> Session {
    Session::bootstrap().expect("bootstrap")
}

/// Breaks the evaluation of `src` once from another thread, 50 ms after it
/// starts. One request only: a second one could land in the handler or the
/// `ensure:` block that the first one set running, and turn a caught break
/// into an uncaught one. Every source given here runs until it is broken.
fn run_and_break(
    s: &mut Session,
    src: &str,
    hard: bool,
) -> Result<String, gsmcp_smalltalk::StError> {
    let it = s.interrupter();
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let breaker = thread::spawn(move || {
        for _ in 0..10 {
            thread::sleep(Duration::from_millis(5));
            if flag.load(Ordering::SeqCst) {
                return;
            }
        }
        if hard {
            it.hard_break();
        } else {
            it.soft_break();
        }
    });
    let r = s.evaluate_print_string(src);
    done.store(true, Ordering::SeqCst);
    breaker.join().unwrap();
    // a request that raced with the end of the evaluation must not hit the next one
    let _ = s.interrupter().take();
    r
}

#[test]
fn soft_break_ends_an_infinite_loop_and_the_session_survives() {
    let mut s = session();
    let e = run_and_break(&mut s, "[true] whileTrue", false).unwrap_err();
    assert_eq!(
        (e.kind, e.number, e.class_name.as_str()),
        (ErrorKind::Break, 6003, "Break")
    );
    assert_eq!(s.evaluate_print_string("3 + 4").unwrap(), "7");
}

#[test]
fn soft_break_is_catchable_and_runs_ensure() {
    let mut s = session();
    let r = run_and_break(
        &mut s,
        "[[true] whileTrue] on: Break do: [:e | #caught]",
        false,
    );
    assert_eq!(r.unwrap(), "#caught");
    let e = run_and_break(
        &mut s,
        "[[1 < 2] whileTrue: [3 + 4]] ensure: [UserGlobals at: #SoftRan put: true]",
        false,
    )
    .unwrap_err();
    assert_eq!(e.number, 6003);
    assert_eq!(
        s.evaluate_print_string("UserGlobals at: #SoftRan").unwrap(),
        "true"
    );
}

#[test]
fn hard_break_unwinds_uncatchably_but_runs_ensure() {
    let mut s = session();
    let e = run_and_break(
        &mut s,
        "[[[true] whileTrue] on: Error, Break do: [:e | #caught]] ensure: [UserGlobals at: #HardRan put: true]",
        true,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.number), (ErrorKind::Break, 6004));
    assert_eq!(
        s.evaluate_print_string("UserGlobals at: #HardRan").unwrap(),
        "true"
    );
    assert_eq!(s.evaluate_print_string("3 + 4").unwrap(), "7");
}

#[test]
fn breaks_reach_sends_loops_and_waits() {
    let mut s = session();
    for src in [
        "| b | b := nil. b := [:n | n > 0 ifTrue: [b value: n - 1] ifFalse: [0]]. [true] whileTrue: [b value: 500]",
        "| n | n := 0. [n := n + 1] repeat",
        "1 to: 1000000000000 do: [:i | i + 1]",
        "1000000000000 timesRepeat: [3 + 4]",
        "(Delay forSeconds: 100) wait",
        "| blk | blk := [true]. blk whileTrue",
        // the loops of the collection primitives check at every block call
        "| a | a := Array new: 1000. [true] whileTrue: [a do: [:e | e]]",
        "| a | a := Array new: 1000. [true] whileTrue: [a doWithIndex: [:e :i | i]]",
        "| a | a := Array new: 1000. [true] whileTrue: [a detect: [:e | false] ifNone: [nil]]",
        "| c | c := OrderedCollection new. 1 to: 1000 do: [:i | c add: i]. [true] whileTrue: [c do: [:e | e]]",
    ] {
        let e = run_and_break(&mut s, src, false).unwrap_err();
        assert_eq!(e.number, 6003, "{src}: {e:?}");
    }
    assert_eq!(s.evaluate_print_string("2 * 21").unwrap(), "42");
}

#[test]
fn a_soft_break_in_a_loop_primitive_is_caught_and_the_loop_can_resume() {
    let mut s = session();
    // the loop runs until it has been broken; the handler resumes it, so it
    // goes on after the break and ends by itself once its count is reached
    let r = run_and_break(
        &mut s,
        "| a n resumed | a := Array new: 1000. n := 0. resumed := false. [[resumed not or: [n < 3000000]] whileTrue: [a do: [:e | n := n + 1]]] on: Break do: [:e | resumed := true. e resume: nil]. {resumed. n >= 1000}",
        false,
    );
    assert!(matches!(r.as_deref(), Ok("anArray( true, true)")), "{r:?}");
    assert_eq!(s.evaluate_print_string("3 + 4").unwrap(), "7");
}
