//! The interpreter: a session's evaluation state ([`Vm`]: the value stack,
//! activations, send caches, handler and signal stacks, interrupts) and the
//! evaluation of the compiled tree (`vm`), the exception machinery
//! (`exceptions`), the numeric tower (`num`), the object-level protocol every
//! layer above shares (`access`: indexed slots, strings, dictionaries, the
//! symbol list), the collector's driver (`collect`), and how evaluation ends
//! for a caller (`error`).
//!
//! The interpreter sits below the compiler, the primitives, the image and the
//! repository, and calls none of them by name: it reaches the primitives
//! through the table every [`Vm`] is given when it is made (`primitive`), and
//! the repository a login is attached to through the operations that
//! attachment brings (`repository`). So the engine's module graph has no
//! cycle: each layer uses only the layers below it.

pub(crate) mod access;
pub(crate) mod collect;
pub(crate) mod error;
pub(crate) mod exceptions;
pub(crate) mod num;
pub(crate) mod primitive;
pub(crate) mod refusal;
pub(crate) mod repository;
mod vm;

pub use error::{ErrorKind, Interrupter, StError};
pub(crate) use vm::*;
