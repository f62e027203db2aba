//! The interpreter: a session's evaluation state ([`Vm`], `state`: the value
//! stack, activation records, send caches, handler and signal stacks,
//! interrupts) and the evaluation of the compiled tree, one file per part:
//! `eval` the tree walker and its frameless fast paths, `send` lookup and the
//! send caches, `activation` entering a method (interrupt check, frame,
//! primitive first, limits), `blocks` closures and the loops primitives run
//! them in, `unwind` how a frame is left other than by answering, `objects`
//! the objects the engine makes and tests itself. Beside them: the exception
//! machinery (`exceptions`), the numeric tower (`num`), the object-level
//! protocol every layer above shares (`access`: indexed slots, strings,
//! dictionaries, the symbol list), the collector's driver (`collect`), and
//! how evaluation ends for a caller (`error`). Nothing here may panic on
//! Smalltalk input: every failure is an [`Unwind`].
//!
//! The interpreter sits below the compiler, the primitives, the image and the
//! repository, and calls none of them by name: it reaches the primitives
//! through the table every [`Vm`] is given when it is made (`primitive`), and
//! the repository a login is attached to through the operations that
//! attachment brings (`repository`). So the engine's module graph has no
//! cycle: each layer uses only the layers below it.
//!
//! The functions of the send and evaluation path that are not inlined (here
//! and the primitive dispatchers) are `extern "C-unwind"`: under that calling
//! convention a `Value`, an `R` or an `Option<Value>` (16 bytes, both words of
//! integer class) comes back in two registers, where the Rust convention
//! returns it through memory — written in halves by the callee and read back
//! whole by the caller, a failed store-to-load forward on nearly every send
//! (kernel/VM.md §7). "C-unwind" keeps panics unwinding as they would through
//! a Rust function.

pub(crate) mod access;
mod activation;
mod blocks;
pub(crate) mod collect;
pub(crate) mod error;
mod eval;
pub(crate) mod exceptions;
pub(crate) mod num;
mod objects;
pub(crate) mod primitive;
pub(crate) mod refusal;
pub(crate) mod repository;
mod send;
mod state;
mod unwind;

pub(crate) use blocks::BlockLoop;
pub use error::{ErrorKind, Interrupter, StError};
pub(crate) use eval::*;
pub(crate) use send::*;
pub(crate) use state::*;
pub(crate) use unwind::*;
