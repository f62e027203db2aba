//! What a primitive is to the interpreter: its answer ([`P`]), which numbers
//! exist ([`is_known_primitive`]: exactly the ones `object::primitives` names,
//! held to the kernel by `build.rs`) and how many arguments each reads
//! ([`PRIMITIVE_ARITY`], derived from the kernel by `build.rs`), and the
//! table ([`Primitives`]) through which evaluation reaches the families that
//! implement them. The table is filled by the primitives layer and installed
//! in every [`Vm`] when it is made; the interpreter never names a family.
// a primitive entry is `extern "C-unwind"` so that it answers in two registers
// (see `interp/mod.rs`); its types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::{Unwind, Vm};
use crate::object::value::Value;

include!(concat!(env!("OUT_DIR"), "/primitive_arity.rs"));
include!(concat!(env!("OUT_DIR"), "/primitive_known.rs"));

/// A primitive's answer: `Ok(Some(v))`, `Ok(None)` when it fails (the
/// method's Smalltalk body then runs), or an unwind.
pub type P = Result<Option<Value>, Unwind>;

/// Whether `n` is a primitive number the VM implements: one
/// `object::primitives` names.
pub fn is_known_primitive(n: u16) -> bool {
    KNOWN_PRIMITIVES.get(n as usize).copied().unwrap_or(false)
}

/// The entry points of the primitive families, as evaluation calls them.
pub(crate) struct Primitives {
    /// Primitive `n` with the receiver at `stack[rp]` and `argc` arguments above it.
    pub any: extern "C-unwind" fn(&mut Vm, u16, usize, usize) -> P,
    /// One of the collection fast paths (400..=429), given the receiver.
    pub collection: extern "C-unwind" fn(&mut Vm, u16, Value, usize, usize) -> P,
}

impl Vm {
    /// Runs primitive `n` (receiver at `stack[rp]`, `argc` arguments above it).
    /// A store the write barrier refused during it ends it with SecurityError.
    #[inline]
    pub(crate) extern "C-unwind" fn prim(&mut self, n: u16, rp: usize, argc: usize) -> P {
        // the answer stays in registers: kept in a local across the check
        // below, the arms' answers met in one stack slot, stored in halves
        // and copied out whole (a failed store forward on every primitive)
        let result = (self.prims.any)(self, n, rp, argc);
        if self.heap.refused.is_some() {
            return self.refused_in_primitive(result);
        }
        result
    }

    /// Runs collection fast path `n` on receiver `r`.
    #[inline]
    pub(crate) fn prim_collection(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
        (self.prims.collection)(self, n, r, rp, argc)
    }
}
