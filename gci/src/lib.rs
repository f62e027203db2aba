//! A GemStone-compatible thread-safe GCI library over the embedded stone:
//! installed as `<dir>/lib/libgcits-3.7.5-64.so`, it lets any GCI client —
//! gsmcp's own GCI backend, a Python or Node binding, a C program — log in
//! to the embedded stone with `GEMSTONE=<dir>` exactly as to a GemStone stone.
//!
//! It exports the `GciTs*` functions real clients use, with GemStone's
//! signatures, error struct and OOP encoding (`gsmcp-gci-abi`). Each login is
//! one embedded-stone session on a thread of its own (`session.rs`); stone
//! names resolve to repository files (`stone.rs`); objects are named by
//! GemStone-style OOPs (`oops.rs`). Every function catches panics at the
//! boundary: a failure is an error report and a failure sentinel, never an
//! unwind into C.
//!
//! Where GemStone's behaviour is not published, what this library does is
//! written down in `gci/BEHAVIOUR.md`.

// Every call's error is GemStone's fixed 2 KB `GciErrSType`, copied out once
// into the caller's struct; boxing it would add an allocation to each failure.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

mod calls;
mod oops;
mod session;
mod stone;

pub use calls::*;
