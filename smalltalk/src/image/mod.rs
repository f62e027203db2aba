//! The image: a new session's kernel built from nothing (`bootstrap`: the
//! kernel classes, the system dictionaries, the engine with its primitives)
//! and GemStone topaz file-ins read into it (`filein`), which is how the
//! kernel's own methods arrive.

pub(crate) mod bootstrap;
pub(crate) mod filein;
