//! The guard on the native (Rust) stack the interpreter recurses on. A
//! Smalltalk frame costs a varying amount of native stack — a method whose
//! expression tree is thousands of sends deep costs far more than its one
//! frame — so the frame count alone (the activations' `depth_limit`) cannot keep a deep
//! recursion from overflowing the thread's stack and killing the process.
//! Every evaluation marks how much native stack it may use ([`mark`]); an
//! activation below the soft floor signals `AlmostOutOfStack` like the frame
//! limit does, and one below the hard floor (the handler went deeper still)
//! ends the evaluation. It also records where an evaluation's frames begin
//! ([`evaluate`], [`top`]), the upper end of the range the collector scans for
//! values Rust frames hold (`stack_roots`). It owns no other policy.

use std::cell::Cell;

/// Native stack an evaluation may use before `AlmostOutOfStack` is signalled:
/// the least stack an evaluating thread has (`Session::REQUIRED_STACK_BYTES`)
/// less room for what runs above the mark, for the handler of the signal and
/// for one activation's expression tree (at most `parser::MAX_NESTED_SENDS`
/// deep).
pub const SOFT_BUDGET: usize = 176 << 20;
/// Further native stack a handler of `AlmostOutOfStack` may use before the
/// evaluation is ended.
pub const HARD_EXTRA: usize = 24 << 20;

thread_local! {
    /// The soft floor of this thread's evaluation (an address), 0 when none.
    static FLOOR: Cell<usize> = const { Cell::new(0) };
    /// An address above every frame of this thread's outermost evaluation, 0 when none.
    static TOP: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` as an evaluation: under a [`mark`], with its frames below the
/// address [`top`] answers while it runs. `f` runs in a frame of its own
/// (never inlined here), so all of its frames lie below this function's locals.
#[inline(never)]
pub fn evaluate<T>(f: impl FnOnce() -> T) -> T {
    let _mark = mark();
    let probe = 0usize;
    let here = std::hint::black_box(&probe) as *const usize as usize;
    let before = TOP.with(|t| t.get());
    if before == 0 {
        TOP.with(|t| t.set(here));
    }
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            TOP.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(before);
    let r = run_below(f);
    std::hint::black_box(&probe);
    r
}

#[inline(never)]
fn run_below<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// The upper end (exclusive) of the native stack the running evaluation of
/// this thread uses, or 0 when this thread is not evaluating ([`evaluate`]).
pub fn top() -> usize {
    TOP.with(|t| t.get())
}

/// An approximation of the current stack pointer.
#[inline(always)]
fn here() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

/// Restores the previous floor when an evaluation ends.
pub struct Mark(usize);

impl Drop for Mark {
    fn drop(&mut self) {
        FLOOR.with(|f| f.set(self.0));
    }
}

/// Starts an evaluation on this thread: it may use `SOFT_BUDGET` of native
/// stack from here. A nested mark (an evaluation inside one) keeps the outer,
/// lower-reaching floor's start: the budget counts from the outermost mark.
pub fn mark() -> Mark {
    let before = FLOOR.with(|f| f.get());
    if before == 0 {
        FLOOR.with(|f| f.set(here().saturating_sub(SOFT_BUDGET).max(1)));
    }
    Mark(before)
}

/// Whether the native stack is below the soft floor (stacks grow down).
#[inline]
pub fn low() -> bool {
    let floor = FLOOR.with(|f| f.get());
    floor != 0 && here() < floor
}

/// Whether the native stack is below the hard floor.
pub fn exhausted() -> bool {
    let floor = FLOOR.with(|f| f.get());
    floor != 0 && here() < floor.saturating_sub(HARD_EXTRA)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descend(n: usize) -> (bool, bool) {
        let pad = std::hint::black_box([0u8; 4096]);
        if n == 0 {
            return (low(), exhausted());
        }
        let r = descend(n - 1);
        std::hint::black_box(&pad);
        r
    }

    #[test]
    fn floors_are_reached_in_order_and_only_under_a_mark() {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(|| {
                assert_eq!(descend(10), (false, false), "no mark, no floor");
                let m = mark();
                assert_eq!(descend(10), (false, false));
                let pages = SOFT_BUDGET / 4096;
                assert!(descend(pages + 16).0, "below the soft floor");
                let deeper = (SOFT_BUDGET + HARD_EXTRA) / 4096 + 16;
                assert_eq!(descend(deeper), (true, true), "below the hard floor");
                drop(m);
                assert_eq!(descend(deeper), (false, false), "the mark is gone");
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
