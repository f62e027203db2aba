//! How evaluation leaves a frame other than by answering a value: [`Unwind`]
//! (a `^` return in flight, a handler's action, a resumption, or an abort
//! that ends the evaluation) and [`R`], the answer of every evaluation step.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use crate::object::value::Value;

/// Why evaluation is leaving a frame other than by answering a value. One
/// pointer, so that `R` is two words and every `eval` answers in registers
/// (`extern "C-unwind"`, see the module notes);
/// the boxes of `^` returns are recycled through `Vm::frames.spare`.
#[derive(Debug)]
pub struct Unwind(pub Box<Unwinding>);

impl Unwind {
    /// The value this unwind carries, if any. Code that runs Smalltalk while
    /// holding an unwind (`ensure:`, `ifCurtailed:`) keeps it on the value
    /// stack meanwhile: the box is Rust heap memory the collector does not see.
    pub fn carried(&self) -> Option<Value> {
        match &*self.0 {
            Unwinding::Return(v) => Some(*v),
            Unwinding::ToHandler(b) => match &b.1 {
                HandlerAction::Return(v) | HandlerAction::RetryUsing(v) => Some(*v),
                HandlerAction::Retry => None,
            },
            Unwinding::Resume(b) => match &b.1 {
                Resumption::Value(v) | Resumption::Resignal(v) => Some(*v),
            },
            Unwinding::Abort(_) => None,
        }
    }

    /// Ends the evaluation with AlmostOutOfStack (3139) because `why`: past
    /// the point where a handler could still run.
    #[cold]
    pub fn out_of_stack(why: &str) -> Unwind {
        Unwind::abort(Box::new(Failure {
            kind: crate::interp::ErrorKind::Limit,
            number: 3139,
            class_name: "AlmostOutOfStack".into(),
            message_text: None,
            description: format!("a AlmostOutOfStack occurred (error 3139), {why}"),
        }))
    }

    pub fn abort(f: Box<Failure>) -> Unwind {
        Unwind(Box::new(Unwinding::Abort(f)))
    }
    pub fn to_handler(h: Box<(u64, HandlerAction)>) -> Unwind {
        Unwind(Box::new(Unwinding::ToHandler(h)))
    }
    pub fn resume(r: Box<(u64, Resumption)>) -> Unwind {
        Unwind(Box::new(Unwinding::Resume(r)))
    }
    pub fn is_abort(&self) -> bool {
        matches!(*self.0, Unwinding::Abort(_))
    }
}

/// What an [`Unwind`] carries.
#[derive(Debug)]
pub enum Unwinding {
    /// `^` — return `value` from the method activation whose id is in
    /// `Vm::frames.return_home` (kept there so `R` stays small; code that runs
    /// Smalltalk while a return unwinds through it — `ensure:`,
    /// `ifCurtailed:` — saves and restores it).
    Return(Value),
    /// Leave to the `on:do:` with handler id `.0`.
    ToHandler(Box<(u64, HandlerAction)>),
    /// Back to the `signal` with signal id `.0`: resume with a value, or resignal another exception there.
    Resume(Box<(u64, Resumption)>),
    /// Ends the whole evaluation (unhandled error, hard break, limit); only `ensure:` blocks run.
    Abort(Box<Failure>),
}

#[derive(Debug)]
pub enum HandlerAction {
    Return(Value),
    Retry,
    RetryUsing(Value),
}

#[derive(Debug)]
pub enum Resumption {
    Value(Value),
    Resignal(Value),
}

/// An evaluation-ending failure, turned into an `StError` by the API.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: crate::interp::ErrorKind,
    pub number: u32,
    pub class_name: String,
    pub message_text: Option<String>,
    pub description: String,
}

pub type R = Result<Value, Unwind>;

// Every `eval` answers an `R`: two words, so it travels in registers.
const _: () = assert!(std::mem::size_of::<R>() == 16);
