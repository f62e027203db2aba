//! Objects and memory, the bottom of the engine: immediates and OOPs (`value`),
//! the compiled-code tree a method object holds (`code`), the object table with
//! its write barrier, symbol table and collector (`heap`), the OOPs of the
//! kernel classes the engine knows by name (`known`), the primitive numbers
//! by name (`primitives`), and the native stack guard and stack roots
//! (`native_stack`, `stack_roots`).
//!
//! Nothing here sends a message: the layers above read and write objects
//! through these types.

pub(crate) mod code;
pub(crate) mod heap;
pub(crate) mod known;
pub(crate) mod native_stack;
pub(crate) mod primitives;
pub(crate) mod stack_roots;
pub(crate) mod value;
