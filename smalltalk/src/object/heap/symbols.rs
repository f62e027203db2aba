//! The symbol table: one object per symbol's characters, old at birth and
//! kept by every collection.

use super::*;
use crate::object::value::Oop;

impl Heap {
    /// The symbol with these characters, if it exists.
    pub fn find_symbol(&self, s: &str) -> Option<Oop> {
        self.symbols.get(s).copied()
    }

    /// Interns a symbol; `symbol_class`/`wide_symbol_class` are the classes to use.
    pub fn intern(&mut self, s: &str, symbol_class: Oop, wide_symbol_class: Oop) -> Oop {
        if let Some(&o) = self.symbols.get(s) {
            return o;
        }
        let body = if s.chars().all(|c| (c as u32) < 256) {
            Body::Bytes(s.chars().map(|c| c as u8).collect())
        } else {
            Body::Wide(s.chars().map(|c| c as u32).collect())
        };
        let class = if matches!(body, Body::Bytes(_)) {
            symbol_class
        } else {
            wide_symbol_class
        };
        let o = self.alloc(class, body);
        // old at birth: the symbol table keeps every symbol, and characters
        // reference nothing a minor collection would have to find
        self.set_flags_quiet(o, F_INVARIANT | F_OLD | F_UNSEEN, 0);
        self.symbols.insert(s.to_string(), o);
        o
    }
}
