//! The collector's view of the native stack: the words of the running
//! evaluation's Rust frames, read conservatively. The interpreter keeps many
//! values in Rust locals for a moment (a receiver while its arguments are
//! evaluated, a frame's context, a result being passed up); rather than copy
//! each of them to a root stack, the collector treats every word between the
//! innermost frame and the evaluation's start ([`crate::object::native_stack::top`]) as
//! a possible OOP. Objects never move, so a word that names a live object only
//! keeps it (and what it references) alive one more cycle; nothing is rewritten.
//! Values held in Rust *heap* memory (a `Vec`, a `Box`) are not seen here:
//! those must be reachable from the VM's own roots (see ARCHITECTURE.md, the
//! collector's rule). This module owns the register spill and the word walk
//! only; what counts as an object is the heap's business.

/// Calls `each` with every 8-byte word of this thread's native stack from the
/// caller's frame up to [`crate::object::native_stack::top`], after storing the
/// callee-saved registers where the walk sees them. Answers false (and calls
/// nothing) when the thread is not running an evaluation or the target has no
/// register spill here: the caller must then not collect.
#[inline(never)]
pub fn scan(each: &mut dyn FnMut(usize)) -> bool {
    let top = crate::object::native_stack::top();
    if top == 0 || !SUPPORTED {
        return false;
    }
    let mut regs = [0usize; 12];
    spill(&mut regs);
    let regs = std::hint::black_box(&mut regs);
    let low = regs.as_ptr() as usize;
    if low >= top {
        return false;
    }
    let mut p = low & !7;
    while p + 8 <= top {
        // SAFETY: `p` lies between a local of this frame and a local of an
        // outer frame of the same thread (`native_stack::evaluate`), so it is
        // mapped, readable stack memory; the read is volatile and copies a
        // plain word, whatever the frame that owns it uses it for.
        each(unsafe { std::ptr::read_volatile(p as *const usize) });
        p += 8;
    }
    std::hint::black_box(regs);
    true
}

#[cfg(target_arch = "x86_64")]
const SUPPORTED: bool = true;
#[cfg(target_arch = "aarch64")]
const SUPPORTED: bool = true;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SUPPORTED: bool = false;

/// Stores the callee-saved registers in `regs`: a value a caller keeps only in
/// one of them is then in memory the walk covers.
#[inline(always)]
fn spill(regs: &mut [usize; 12]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: writes six words into `regs`, which has room for twelve; reads
    // registers only.
    unsafe {
        std::arch::asm!(
            "mov [{r}], rbx",
            "mov [{r} + 8], rbp",
            "mov [{r} + 16], r12",
            "mov [{r} + 24], r13",
            "mov [{r} + 32], r14",
            "mov [{r} + 40], r15",
            r = in(reg) regs.as_mut_ptr(),
            options(nostack, preserves_flags)
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: writes eleven words into `regs`, which has room for twelve; reads
    // registers only.
    unsafe {
        std::arch::asm!(
            "stp x19, x20, [{r}]",
            "stp x21, x22, [{r}, #16]",
            "stp x23, x24, [{r}, #32]",
            "stp x25, x26, [{r}, #48]",
            "stp x27, x28, [{r}, #64]",
            "str x29, [{r}, #80]",
            r = in(reg) regs.as_mut_ptr(),
            options(nostack, preserves_flags)
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = regs;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn holds_while_scanning(marker: usize) -> (bool, bool) {
        // in a register or a stack slot of this frame while `scan` runs
        let held = std::hint::black_box(marker);
        let mut found = false;
        let scanned = scan(&mut |w| found |= w == held);
        std::hint::black_box(held);
        (scanned, found)
    }

    #[test]
    fn a_word_a_caller_holds_is_seen_only_during_an_evaluation() {
        let marker = 0x5eed_0000_1234_5678usize;
        let seen = crate::object::native_stack::evaluate(|| holds_while_scanning(marker));
        assert_eq!(seen, (SUPPORTED, SUPPORTED));
        assert_eq!(
            crate::object::native_stack::top(),
            0,
            "the evaluation is over"
        );
        assert_eq!(holds_while_scanning(marker), (false, false));
    }
}
