//! How the interpreter's work ends other than with an answer, as its callers
//! see it: [`StError`] (a Smalltalk failure as a value, with its [`ErrorKind`])
//! and [`Interrupter`] (a soft or hard break requested from another thread).
//! The public API re-exports both; they live here, below every layer that
//! reports or polls them.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::Failure;

/// What kind of failure an [`StError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The source did not compile (GemStone error 1001 family).
    Compile,
    /// An error signalled during evaluation and not handled.
    Runtime,
    /// A soft (6003) or hard (6004) break ended the evaluation.
    Break,
    /// A limit (stack depth, memory) ended the evaluation.
    Limit,
}

/// A Smalltalk failure: GemStone's error number, the exception's class name, its
/// `messageText` (often nil in GemStone for kernel errors) and its `description`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{number}, {description}")]
pub struct StError {
    /// What kind of failure, for the caller's handling.
    pub kind: ErrorKind,
    /// GemStone's error number (2010, 2101, 6003, ...).
    pub number: u32,
    /// The exception's class name (`MessageNotUnderstood`, `CompileError`, ...).
    pub class_name: String,
    /// The exception's `messageText`, when it has one.
    pub message_text: Option<String>,
    /// The exception's `description`.
    pub description: String,
    /// For compile errors: 1-based character offset into the source.
    pub offset: Option<usize>,
    /// For compile errors: 1-based line in the source.
    pub line: Option<usize>,
}

const NONE: u8 = 0;
const SOFT: u8 = 1;
const HARD: u8 = 2;

/// A handle another thread uses to break the evaluation running in a [`Session`].
#[derive(Debug, Clone, Default)]
pub struct Interrupter {
    flag: Arc<AtomicU8>,
}

impl Interrupter {
    /// Requests a soft break: a catchable error (6003) at the next send or back-edge.
    pub fn soft_break(&self) {
        let _ = self
            .flag
            .compare_exchange(NONE, SOFT, Ordering::SeqCst, Ordering::SeqCst);
    }
    /// Requests a hard break: an uncatchable unwind (6004) that still runs `ensure:` blocks.
    pub fn hard_break(&self) {
        self.flag.store(HARD, Ordering::SeqCst);
    }
    /// Takes the pending request, if any: `Some(false)` soft, `Some(true)` hard.
    pub fn take(&self) -> Option<bool> {
        match self.flag.swap(NONE, Ordering::SeqCst) {
            SOFT => Some(false),
            HARD => Some(true),
            _ => None,
        }
    }
    /// Whether a request is pending, without taking it (cheap: for the hot path).
    #[inline]
    pub fn pending(&self) -> bool {
        self.flag.load(Ordering::Relaxed) != NONE
    }
}

impl From<Failure> for StError {
    fn from(f: Failure) -> StError {
        StError {
            kind: f.kind,
            number: f.number,
            class_name: f.class_name,
            message_text: f.message_text,
            description: f.description,
            offset: None,
            line: None,
        }
    }
}
