//! Fast paths for the kernel's hottest collection methods (primitives
//! 400..=429): `OrderedCollection` adding, removing, indexing and `do:`,
//! `Array` enumeration, `Dictionary at:ifAbsent:`/`at:put:` and `Set
//! add:`/`includes:` for SmallInteger keys, and `WriteStream`
//! `nextPut:`/`nextPutAll:` on Strings and Arrays.
//!
//! Each primitive does exactly what the Smalltalk body of its method does,
//! and only in the cases where that body's sends would all reach kernel
//! primitives (an `Array` of exact class, SmallInteger indexes and keys, the
//! kernel's `_indexOf:`). Anything else fails the primitive, so the
//! Smalltalk body runs and every override, error and growth step behaves as
//! written there. This module must not signal errors itself.
//!
//! `mod.rs` dispatches (400..=429) and holds what the families share: the
//! named slots they read, the per-class memos of checked methods, the loops
//! that call a block; `ordered` is OrderedCollection, `array` Array
//! enumeration, `hashed` Set and Dictionary with SmallInteger keys, `stream`
//! WriteStream writing and growth.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::primitives::*;
use crate::object::value::{Oop, Value};

mod array;
mod hashed;
mod ordered;
mod stream;

/// `OrderedCollection`'s named slots (kernel/definitions.gs).
const OC_ARRAY: usize = 0;
const OC_FIRST: usize = 1;
const OC_LAST: usize = 2;

/// `WriteStream`'s named slots (PositionableStream's, then its own).
const WS_COLLECTION: usize = 0;
const WS_POSITION: usize = 1;
const WS_READ_LIMIT: usize = 2;
const WS_WRITE_LIMIT: usize = 3;

/// `Set`'s and `Dictionary`'s named slots.
const HASHED_TALLY: usize = 0;
const HASHED_BUCKETS: usize = 1;

/// Entries of `Vm::memos.index_of_checked` beyond the two of `_indexOf:` (240,
/// 241): each holds `(epoch + 1, class)` for the last class that passed a
/// primitive's check of the methods it relies on.
const MEMO_FIRST_OC: usize = 2;
const MEMO_FIRST_INDEXED: usize = 3;
const MEMO_LAST_OC: usize = 4;
const MEMO_LAST_INDEXED: usize = 5;

/// A class whose `new`/`new:`, `basicNew` and `_initialize:` are the kernel's.
const MEMO_OC_NEW: usize = 6;

/// A class whose `_grow` (WriteStream) is the kernel's primitive 408.
const MEMO_STREAM_GROW: usize = 7;

/// A class whose `_growAtEnd` (OrderedCollection) is the kernel's primitive 409.
const MEMO_OC_GROW: usize = 8;

/// A class whose `new`, `add:` and `yourself` are the kernel's (429, 400 and
/// Object's), besides passing `MEMO_OC_NEW`'s check.
const MEMO_OC_WITH: usize = 9;

/// The most elements a growth or creation primitive makes room for; more is
/// left to the Smalltalk body.
const GROW_MAX: i64 = 1 << 24;

/// An OrderedCollection's parts as its primitives need them.
#[derive(Clone, Copy)]
struct Oc {
    /// The element Array (of exact class `Array`).
    array: Oop,
    first: i64,
    last: i64,
    /// The Array's size.
    len: i64,
    /// Neither the collection nor its Array is invariant.
    writable: bool,
}

/// What one probe for a SmallInteger key found in a Set or Dictionary.
#[derive(Clone, Copy)]
struct Found {
    buckets: Oop,
    tally: i64,
    /// The number of buckets.
    n: i64,
    /// The 1-based bucket index `_indexOf:` answers.
    index: i64,
    /// That bucket's element: nil, the SmallInteger (Set) or the Association (Dictionary).
    element: Value,
    /// Neither the collection nor its bucket Array is invariant.
    writable: bool,
}

impl Vm {
    /// The dispatcher. Every arm hands its arguments on unchanged, so each is
    /// a tail call and the dispatcher itself keeps no frame.
    pub(crate) extern "C-unwind" fn collection_primitive(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        let Value::Obj(o) = r else {
            return self.prim_immediate(n, r, rp, argc);
        };
        match (n, argc) {
            (OC_ADD, 1) => self.oc_add_last(o, rp),
            (OC_REMOVE_FIRST, 0) => self.oc_remove(o, true),
            (OC_REMOVE_LAST, 0) => self.oc_remove(o, false),
            (OC_AT, 1) => self.oc_at(o, rp),
            (OC_AT_PUT, 2) => self.oc_at_put(o, rp),
            (OC_DO | SEQ_DO | SEQ_DO_WITH_INDEX, 1) | (COLLECTION_DETECT_IF_NONE, 2) => {
                self.loop_prim(n, o, rp)
            }
            (DICTIONARY_AT_IF_ABSENT, 2) => self.dictionary_at_if_absent(o, rp),
            (DICTIONARY_AT_PUT, 2) => self.dictionary_at_put(o, rp),
            (SET_ADD, 1) => self.set_add(o, rp),
            (SET_INCLUDES, 1) => self.set_includes(o, rp),
            (STREAM_NEXT_PUT, 1) => self.stream_next_put(o, rp),
            (STREAM_NEXT_PUT_ALL, 1) => self.stream_next_put_all(o, rp),
            (OC_SIZE | OC_IS_EMPTY | OC_NOT_EMPTY, 0) => self.oc_size_test(o, n),
            (SEQ_FIRST | SEQ_LAST, 0) => self.first_or_last(o, n == SEQ_LAST),
            (OC_NEW, 0 | 1) => self.oc_new(o, rp, argc),
            _ => self.prim_collection_rest(n, o, rp, argc),
        }
    }

    /// The loops over a block, each in a function of its own, out of the
    /// dispatcher's way.
    #[inline(never)]
    extern "C-unwind" fn loop_prim(&mut self, n: u16, o: Oop, rp: usize) -> P {
        match n {
            OC_DO => self.oc_do_prim(o, rp),
            SEQ_DO | SEQ_DO_WITH_INDEX => self.array_do_prim(o, rp, n == SEQ_DO_WITH_INDEX),
            _ => self.array_detect_prim(o, rp),
        }
    }

    #[inline(never)]
    extern "C-unwind" fn oc_do_prim(&mut self, o: Oop, rp: usize) -> P {
        self.oc_do(o, rp)
    }

    #[inline(never)]
    extern "C-unwind" fn array_do_prim(&mut self, o: Oop, rp: usize, with_index: bool) -> P {
        self.array_do(o, rp, with_index)
    }

    #[inline(never)]
    extern "C-unwind" fn array_detect_prim(&mut self, o: Oop, rp: usize) -> P {
        self.array_detect(o, rp)
    }

    /// The primitives of this range on an immediate receiver: `max:`/`min:`.
    #[inline(never)]
    extern "C-unwind" fn prim_immediate(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
        Ok(match (n, argc) {
            (NUMBER_MAX | NUMBER_MIN, 1) => min_max(r, self.stack[rp + 1], n == NUMBER_MAX),
            _ => None,
        })
    }

    /// The primitives of this range that are not per-element.
    #[inline(never)]
    extern "C-unwind" fn prim_collection_rest(
        &mut self,
        n: u16,
        o: Oop,
        rp: usize,
        argc: usize,
    ) -> P {
        Ok(match (n, argc) {
            (SET_GROW, 0) => self.rehash_ints(o, SET_INDEX_OF, None),
            (DICTIONARY_REHASH_INTO, 1) => match self.stack[rp + 1] {
                Value::Int(size) if size > 0 => {
                    self.rehash_ints(o, DICTIONARY_INDEX_OF, Some(size as usize))
                }
                _ => None,
            },
            (OC_INITIALIZE, 1) => self.oc_initialize(o, self.stack[rp + 1]),
            (STREAM_GROW, 0) => self.stream_grow_prim(o),
            (OC_GROW_AT_END, 0) => self.oc_view(o).and_then(|c| {
                self.oc_grow_at_end(o, c)?;
                Some(Value::Obj(o))
            }),
            (ARRAY_NEW_WITH_ALL, 2) if o == self.k.array => match self.stack[rp + 1] {
                Value::Int(n) if n >= 0 => {
                    let fill = self.stack[rp + 2];
                    self.can_allocate((n as usize).saturating_mul(16))
                        .then(|| self.new_array(vec![fill; n as usize]))
                }
                _ => None,
            },
            (COLLECTION_WITH, 1..=6) if o == self.k.array => {
                let items = self.stack[rp + 1..=rp + argc].to_vec();
                Some(self.new_array(items))
            }
            (COLLECTION_WITH, 1..=6) => self.oc_with(o, rp, argc)?,
            _ => None,
        })
    }

    /// The pointer slots of `o`, if it has them.
    fn ptr_slots(&self, o: Oop) -> Option<&Vec<Value>> {
        match &self.heap.get(o).body {
            Body::Ptr(s) => Some(s),
            _ => None,
        }
    }

    /// Stores `v` into pointer slot `i` (0-based) of `o` through the write
    /// barrier; None (nothing stored) when `o` refuses it or has no such slot.
    #[inline(always)]
    fn put_slot(&mut self, o: Oop, i: usize, v: Value) -> Option<()> {
        match &mut self.heap.write(o)?.body {
            Body::Ptr(s) => {
                *s.get_mut(i)? = v;
                Some(())
            }
            _ => None,
        }
    }

    /// Whether `b` is a block taking `argc` arguments (so `value:` reaches primitive 250).
    pub(crate) fn is_block_of(&self, b: Value, argc: usize) -> bool {
        match b {
            Value::Obj(o) => {
                matches!(&self.heap.get(o).body, Body::Block(c) if c.code.num_args == argc)
            }
            _ => false,
        }
    }

    /// Whether the memo `slot` holds `class` for the current methods.
    #[inline(always)]
    fn memo_holds(&self, slot: usize, class: Oop) -> bool {
        self.memos.index_of_checked[slot] == (self.sends.epoch() + 1, class)
    }

    /// Remembers that `class` passed the check of memo `slot` until the methods change.
    fn memo_set(&mut self, slot: usize, class: Oop) {
        self.memos.index_of_checked[slot] = (self.sends.epoch() + 1, class);
    }
}

/// Copies `src` into `dst` (of the same length). The short copies of
/// `nextPutAll:` (words, printed numbers) are done in at most two overlapping
/// word moves instead of a call of the library's `memcpy`.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    debug_assert_eq!(
        n,
        dst.len(),
        "the caller slices `dst` to the source's length"
    );
    match n {
        0 => {}
        1..=3 => {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            let (a, b) = (word4(&src[..4]), word4(&src[n - 4..]));
            dst[..4].copy_from_slice(&a);
            dst[n - 4..].copy_from_slice(&b);
        }
        8..=16 => {
            let (a, b) = (word8(&src[..8]), word8(&src[n - 8..]));
            dst[..8].copy_from_slice(&a);
            dst[n - 8..].copy_from_slice(&b);
        }
        _ => dst.copy_from_slice(src),
    }
}

#[inline(always)]
fn word4(s: &[u8]) -> [u8; 4] {
    [s[0], s[1], s[2], s[3]]
}

#[inline(always)]
fn word8(s: &[u8]) -> [u8; 8] {
    [s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]
}

/// `Number>>max:` / `min:` (`self > aNumber ifTrue: [self] ifFalse: [aNumber]`)
/// for two SmallIntegers or two Floats, whose `>`/`<` the interpreter answers
/// without a send.
fn min_max(a: Value, b: Value, max: bool) -> Option<Value> {
    let first = match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        (Value::Float(x), Value::Float(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        _ => return None,
    };
    Some(if first { a } else { b })
}
