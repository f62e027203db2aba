//! gsmcp-smalltalk is the embedded stone: a GemStone/S 64 3.7-compatible Smalltalk
//! (parser, compiler to a resolved tree, interpreter, kernel class library filed in
//! from `kernel/`) joined to its persistent, multi-session, transactional
//! repository (`persist`, over the `gsmcp-store` file).
//!
//! It does no network I/O and has no async runtime: a [`Session`] is one login,
//! driven by one thread; another thread may interrupt it through an
//! [`Interrupter`]. Every Smalltalk failure is returned as an [`StError`] value,
//! never a panic.
//!
//! The engine is laid out by layer, each using only the layers below it (a
//! test holds the module graph to this order):
//! 1. `syntax`: lexer, parser, syntax tree;
//! 2. `object`: immediates, compiled code, the heap and its collector;
//! 3. `interp`: evaluation, exceptions, numbers, the shared object protocol,
//!    and the two tables through which it reaches the layers above
//!    (primitives, the attached repository);
//! 4. `compiler`: syntax tree to compiled code;
//! 5. `prims`: the primitive families;
//! 6. `image`: bootstrap and file-in;
//! 7. `persist`: a session's heap joined to the repository;
//! 8. `api`: the public face, [`Session`], and its object-level part for GCI
//!    clients;
//! 9. `topaz`: GemStone's command-line language over a `Session`, which the
//!    `gsmcp-topaz` binary runs.

#![warn(missing_docs)]

mod api;
mod compiler;
mod image;
mod interp;
mod object;
mod persist;
mod prims;
mod syntax;
pub mod topaz;

pub use api::objects::{ExecError, Object, Shape};
pub use api::{ErrorKind, EvalPolicy, Interrupter, Session, StError};
pub use compiler::MAX_PRIMITIVE;
pub use interp::primitive::is_known_primitive;
pub use persist::{collect_garbage, tickets, GarbageReport, KernelRepair, TransactionMark};
pub use syntax::{census, extract, format, inline, parser, rewrite};
