//! The primitives (`<primitive: N>`, numbered as in `kernel/VM.md`): object
//! access, numbers, characters, strings and symbols, blocks, exceptions,
//! SymbolDictionary, System and Transcript. A primitive answers `Ok(Some(v))`,
//! fails with `Ok(None)` (the method's Smalltalk body then runs) or unwinds.
//! Primitives must never panic on bad arguments.
//!
//! The interpreter reaches them through [`PRIMITIVES`], the table the image
//! layer installs in every `Vm`; `prim_table` here dispatches by range to one
//! file per family: `object` (1..=29), `behavior` (40..=80: classes,
//! compiling, doits), `system` (90..=98 methods, 300..=349 System and
//! Transcript), `number` (100..=159), `string` (160..=169, 200..=239),
//! `hashing` (240, 241), `block` (250..=260 blocks, 270..=285 exceptions),
//! `finder` (360..=364, ClassOrganizer's searches) and `collection`
//! (400..=429, the collection fast paths). The repository's primitives
//! (313..=316, 380..=399) are the attached repository's.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

pub(crate) mod behavior;
mod block;
pub(crate) mod collection;
pub(crate) mod finder;
mod hashing;
mod number;
mod object;
mod string;
mod system;

pub(crate) use hashing::{bytes_hash, hash_start, identity_hash, string_hash};

use crate::interp::primitive::{Primitives, P};
use crate::interp::{Vm, R};
use crate::object::heap::Body;
use crate::object::primitives::*;
use crate::object::value::Value;

/// The primitives as every `Vm` reaches them.
pub(crate) static PRIMITIVES: Primitives = Primitives {
    any: Vm::prim_table,
    collection: Vm::collection_primitive,
};

/// `foo`, `foo:bar:`, `+` print bare after `#`; anything else is quoted.
pub fn symbol_print_body(s: &str) -> String {
    let ident_like = {
        let mut ok = !s.is_empty();
        let mut expect_start = true;
        for c in s.chars() {
            if expect_start {
                if !(c.is_alphabetic() || c == '_') {
                    ok = false;
                    break;
                }
                expect_start = false;
            } else if c == ':' {
                expect_start = true;
            } else if !(c.is_alphanumeric() || c == '_') {
                ok = false;
                break;
            }
        }
        ok && (expect_start == s.ends_with(':'))
    };
    let binary = !s.is_empty() && s.chars().all(|c| "+-*/\\<>=~@%|&?,".contains(c));
    if ident_like || binary {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Objects a primitive copies below this many bytes are not checked against
/// the memory budget first (the collector sees them at the next safe point).
const BIG_COPY: usize = 1 << 20;

impl Vm {
    #[inline]
    fn arg(&self, rp: usize, i: usize) -> Value {
        self.stack[rp + 1 + i]
    }

    fn one_based(v: Value) -> Option<usize> {
        match v {
            Value::Int(i) if i >= 1 => Some(i as usize - 1),
            _ => None,
        }
    }

    /// Code points of a character collection (any width).
    /// The bytes of `v`'s body if it is a byte or character object (a
    /// String, Symbol, ByteArray…), else 0.
    pub fn byte_size(&self, v: Value) -> usize {
        let Some(o) = v.oop() else { return 0 };
        match &self.heap.get(o).body {
            Body::Bytes(b) => b.len(),
            Body::Wide(w) => w.len() * 4,
            _ => 0,
        }
    }

    /// Signals AlmostOutOfMemory (3140) where an object too big for the
    /// memory budget was about to be made.
    pub fn out_of_memory(&mut self) -> R {
        let ex = self.new_exception(
            self.k.almost_out_of_memory,
            None,
            Some("object memory limit reached"),
        );
        self.signal(ex)
    }

    pub fn chars_of(&self, v: Value) -> Option<Vec<u32>> {
        let o = v.oop()?;
        let obj = self.heap.get(o);
        if !self.is_char_class(obj.class) {
            return None;
        }
        match &obj.body {
            Body::Bytes(b) => Some(b.iter().map(|&c| c as u32).collect()),
            Body::Wide(w) => Some(w.clone()),
            _ => None,
        }
    }

    // ----- SymbolDictionary -----

    // ----- the dispatcher -----

    /// The primitive table behind [`Vm::prim`]: every family by its range.
    #[inline(never)]
    pub(crate) extern "C-unwind" fn prim_table(&mut self, n: u16, rp: usize, argc: usize) -> P {
        let r = self.stack[rp];
        match n {
            1..=29 => self.prim_object(n, r, rp, argc),
            40..=80 => self.prim_behavior(n, r, rp, argc),
            90..=98 => self.prim_method(n, r),
            // `printString` of a SmallInteger, the common case, straight away
            NUMBER_PRINT_STRING | NUMBER_PRINT_STRING_HELPER => match r {
                Value::Int(x) => Ok(Some(self.small_int_string(x))),
                _ => self.prim_number(n, r, rp, argc),
            },
            100..=159 => self.prim_number(n, r, rp, argc),
            160..=169 => self.prim_char(n, r, rp),
            200..=239 => self.prim_string(n, r, rp, argc),
            SET_INDEX_OF | DICTIONARY_INDEX_OF => {
                Ok(self.hashed_index_of(r, self.arg(rp, 0), n == DICTIONARY_INDEX_OF))
            }
            400..=429 => self.collection_primitive(n, r, rp, argc),
            250..=260 => self.prim_block(n, r, rp, argc),
            EXCEPTION_STACK_REPORT | PROCESS_STACK_REPORT_TO_LEVEL => {
                self.prim_stack_report(n, r, rp, argc)
            }
            270..=285 => self.prim_exception(n, r, rp, argc),
            313..=316 if self.has_repository() => self.repository_primitive(n, rp, argc),
            360..=364 => self.prim_finder(n, rp, argc),
            380..=399 => self.repository_primitive(n, rp, argc),
            300..=349 => self.prim_system(n, r, rp, argc),
            _ => Ok(None),
        }
    }
}

pub fn selector_arity(s: &str) -> usize {
    if s.is_empty() {
        return 0;
    }
    if s.chars().all(|c| "+-*/\\<>=~@%|&?,".contains(c)) {
        return 1;
    }
    s.chars().filter(|&c| c == ':').count()
}
