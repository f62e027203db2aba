//! The public face of the embedded stone: [`Session`] (one login), [`StError`]
//! (a Smalltalk failure as a value) and [`Interrupter`] (soft/hard break from
//! another thread). Workers and `gsmcp-topaz` use nothing else.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

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
    pub kind: ErrorKind,
    pub number: u32,
    pub class_name: String,
    pub message_text: Option<String>,
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
        let _ = self.flag.compare_exchange(NONE, SOFT, Ordering::SeqCst, Ordering::SeqCst);
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

/// One login to the embedded stone.
pub struct Session {
    interrupter: Interrupter,
}

impl Session {
    /// Logs in to a freshly bootstrapped in-memory image as `DataCurator`.
    pub fn bootstrap() -> Result<Session, StError> {
        Ok(Session { interrupter: Interrupter::default() })
    }

    /// The handle another thread uses to break an evaluation of this session.
    pub fn interrupter(&self) -> Interrupter {
        self.interrupter.clone()
    }

    /// Compiles `source` as a doit and runs it, answering the result's `printString`.
    pub fn evaluate_print_string(&mut self, source: &str) -> Result<String, StError> {
        let _ = source;
        Err(StError {
            kind: ErrorKind::Runtime,
            number: 2010,
            class_name: "MessageNotUnderstood".into(),
            message_text: None,
            description: "the interpreter is not built yet".into(),
            offset: None,
            line: None,
        })
    }

    /// Compiles `source` as a doit and runs it; the result must be a String (or
    /// Symbol), whose characters are answered. Tools answer JSON this way.
    pub fn evaluate_string(&mut self, source: &str) -> Result<String, StError> {
        self.evaluate_print_string(source)
    }

    /// The login's user id (`System myUserProfile userId`).
    pub fn user_id(&self) -> String {
        "DataCurator".into()
    }

    /// The stone's name (`System stoneName`).
    pub fn stone_name(&self) -> String {
        "gs64stone".into()
    }
}
