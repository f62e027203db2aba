//! gsmcp-smalltalk is the embedded stone: a GemStone/S 64 3.7-compatible Smalltalk
//! (parser, compiler to a resolved tree, interpreter, kernel class library filed in
//! from `kernel/*.gs`) joined to its persistent, multi-session, transactional
//! repository (`persist`, over the `gsmcp-store` file).
//!
//! It does no network I/O and has no async runtime: a [`Session`] is one login,
//! driven by one thread; another thread may interrupt it through an
//! [`Interrupter`]. Every Smalltalk failure is returned as an [`StError`] value,
//! never a panic.
//!
//! Code map: `value` (immediates, OOPs) → `heap` (object table, write barrier,
//! collector) → `parser`/`ast` → `compiler` → `code` (resolved tree) →
//! `interp` (evaluation) with `exceptions`, `prims`, `num`, `behavior`;
//! `collprims`, `finder` (primitive fast paths and searches); `bootstrap`/`known`/
//! `filein` build an image; `persist` joins a session's heap to the repository;
//! `api` is the public face, `objects` its object-level part for GCI clients.

#![warn(missing_docs)]

mod api;
mod ast;
mod behavior;
mod bootstrap;
pub mod census;
mod code;
mod collprims;
mod compiler;
mod exceptions;
mod filein;
mod finder;
mod heap;
mod interp;
mod known;
mod native_stack;
mod num;
mod objects;
pub mod parser;
mod persist;
mod prims;
mod stack_roots;
mod value;

pub use api::{ErrorKind, EvalPolicy, Interrupter, Session, StError};
pub use compiler::MAX_PRIMITIVE;
pub use objects::{ExecError, Object, Shape};
pub use persist::{collect_garbage, GarbageReport, KernelRepair, TransactionMark};
pub use prims::is_known_primitive;
