//! Set's and Dictionary's fast paths for SmallInteger keys: finding a key
//! (the kernel's `_indexOf:`), `at:ifAbsent:`, `at:put:`, `add:`,
//! `includes:`, and rehashing into a grown table.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::*;
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::{Body, F_INVARIANT};
use crate::object::value::{Oop, Value};
use crate::prims::hash_start;

impl Vm {
    /// The receiver's bucket Array and tally, when its class's `_indexOf:` is
    /// the kernel primitive `prim` (240: Set, 241: Dictionary).
    #[inline]
    fn hashed_parts(&mut self, o: Oop, prim: u16) -> Option<(Oop, i64)> {
        let class = self.heap.get(o).class;
        // the answer holds until a method changes (`epoch`); one class per primitive
        let memo = (prim - SET_INDEX_OF) as usize;
        if self.memos.index_of_checked[memo] != (self.sends.epoch() + 1, class)
            && !self.index_of_is(class, prim)
        {
            return None;
        }
        let s = self.ptr_slots(o)?;
        let (Value::Int(tally), Value::Obj(b)) = (*s.get(HASHED_TALLY)?, *s.get(HASHED_BUCKETS)?)
        else {
            return None;
        };
        Some((b, tally))
    }

    /// Whether `class` answers `_indexOf:` with primitive `prim` (remembered
    /// for `hashed_parts` until the methods change).
    #[cold]
    #[inline(never)]
    fn index_of_is(&mut self, class: Oop, prim: u16) -> bool {
        let sel = self.sels.index_of;
        if self.lookup(class, sel).is_none_or(|m| m.primitive != prim) {
            return false;
        }
        self.memos.index_of_checked[(prim - SET_INDEX_OF) as usize] =
            (self.sends.epoch() + 1, class);
        true
    }

    /// The probe `_indexOf:` makes for a SmallInteger `key` in the Set (240)
    /// or Dictionary (241) `o`, with its tally and bucket Array.
    #[inline(always)]
    fn hashed_find(&mut self, o: Oop, key: Value, prim: u16) -> Option<Found> {
        let Value::Int(k) = key else {
            return None;
        };
        let dict = prim == DICTIONARY_INDEX_OF;
        let (int_hash, assoc_key, _) = self.kernel_hashing();
        let class = self.heap.get(o).class;
        // the answer holds until a method changes (`epoch`); one class per primitive
        let memo = (prim - SET_INDEX_OF) as usize;
        if !int_hash
            || (dict && !assoc_key)
            || (self.memos.index_of_checked[memo] != (self.sends.epoch() + 1, class)
                && !self.index_of_is(class, prim))
        {
            return None;
        }
        let obj = self.heap.get(o);
        let Body::Ptr(s) = &obj.body else {
            return None;
        };
        let (Value::Int(tally), Value::Obj(buckets)) =
            (*s.get(HASHED_TALLY)?, *s.get(HASHED_BUCKETS)?)
        else {
            return None;
        };
        let flags = obj.flags;
        let b = self.heap.get(buckets);
        let Body::Ptr(slots) = &b.body else {
            return None;
        };
        if b.class != self.k.array {
            return None;
        }
        let (index, element) = self.probe_ints(slots, k, dict)?;
        Some(Found {
            buckets,
            tally,
            n: slots.len() as i64,
            index,
            element,
            writable: (flags | b.flags) & F_INVARIANT == 0,
        })
    }

    /// `Dictionary>>at:ifAbsent:`: the value of a present key, else the value
    /// of the block (a niladic block; anything else runs the body).
    #[inline(never)]
    pub(super) extern "C-unwind" fn dictionary_at_if_absent(&mut self, o: Oop, rp: usize) -> P {
        let (key, block) = (self.stack[rp + 1], self.stack[rp + 2]);
        let Some(f) = self.hashed_find(o, key, DICTIONARY_INDEX_OF) else {
            return Ok(None);
        };
        match f.element {
            // the probe checked the association's class
            Value::Obj(assoc) => Ok(self.ptr_slots(assoc).and_then(|s| s.get(1).copied())),
            Value::Nil if self.is_block_of(block, 0) => {
                let bp = self.stack.len();
                self.stack.push(block);
                self.call_block(bp, 0)
            }
            _ => Ok(None),
        }
    }

    /// `Dictionary>>at:put:` without growing the bucket array.
    #[inline(never)]
    pub(super) extern "C-unwind" fn dictionary_at_put(&mut self, o: Oop, rp: usize) -> P {
        let (key, v) = (self.stack[rp + 1], self.stack[rp + 2]);
        Ok(self.dictionary_at_put_in(o, key, v))
    }

    #[inline(always)]
    fn dictionary_at_put_in(&mut self, o: Oop, key: Value, v: Value) -> Option<Value> {
        let f = self.hashed_find(o, key, DICTIONARY_INDEX_OF)?;
        match f.element {
            Value::Obj(assoc) => {
                // `assoc value: aValue`: the association exists; its setter is
                // the kernel's (an invariant association fails the store and
                // the body signals)
                if !self.kernel_hashing().2 {
                    return None;
                }
                if !self.heap.store_plain(assoc, 1, v) {
                    self.put_slot(assoc, 1, v)?;
                }
                Some(v)
            }
            Value::Nil => {
                if f.tally * 4 >= f.n * 3 || !f.writable {
                    return None;
                }
                let assoc = self.new_object(self.k.association, vec![key, v]);
                self.hashed_insert(o, &f, assoc)?;
                Some(v)
            }
            _ => None,
        }
    }

    /// `Set>>add:` for a SmallInteger while the buckets have room.
    #[inline(never)]
    pub(super) extern "C-unwind" fn set_add(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        Ok(self.set_add_in(o, v))
    }

    #[inline(always)]
    fn set_add_in(&mut self, o: Oop, v: Value) -> Option<Value> {
        if v.is_nil() {
            return Some(v);
        }
        let f = self.hashed_find(o, v, SET_INDEX_OF)?;
        // the body grows first whenever the tally is at three quarters
        if f.tally * 4 >= f.n * 3 || !f.writable {
            return None;
        }
        if f.element.is_nil() {
            self.hashed_insert(o, &f, v)?;
        }
        Some(v)
    }

    /// Stores `element` into the empty bucket `f` found in the Set or
    /// Dictionary `o` and counts it: both objects through one lookup each
    /// when the barrier has nothing to do for them, else through the
    /// barrier (the buckets first: a refused store leaves the tally as it was).
    #[inline(always)]
    fn hashed_insert(&mut self, o: Oop, f: &Found, element: Value) -> Option<()> {
        let at = f.index as usize - 1;
        if let Some((set, buckets)) = self.heap.plain_pair_mut(o, f.buckets) {
            if let (Body::Ptr(s), Body::Ptr(b)) = (&mut set.body, &mut buckets.body) {
                if s.len() > HASHED_TALLY && at < b.len() {
                    b[at] = element;
                    s[HASHED_TALLY] = Value::Int(f.tally + 1);
                    return Some(());
                }
            }
        }
        self.put_slot(f.buckets, at, element)?;
        self.put_slot(o, HASHED_TALLY, Value::Int(f.tally + 1))
    }

    /// `Set>>includes:` for a SmallInteger (or nil).
    #[inline(never)]
    pub(super) extern "C-unwind" fn set_includes(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        if v.is_nil() {
            return Ok(Some(Value::False));
        }
        Ok(self
            .hashed_find(o, v, SET_INDEX_OF)
            .map(|f| Value::bool(!f.element.is_nil())))
    }
}

impl Vm {
    /// `Set>>_grow` (twice the buckets; `new_size` None) and
    /// `Dictionary>>_rehashInto:` (`new_size` buckets) when every element
    /// (association key) is a SmallInteger: the elements are placed as
    /// `_store:` / `_indexOf:` would place them, in the same order.
    pub(super) fn rehash_ints(
        &mut self,
        o: Oop,
        prim: u16,
        new_size: Option<usize>,
    ) -> Option<Value> {
        let (b, _) = self.hashed_parts(o, prim)?;
        let dict = prim == DICTIONARY_INDEX_OF;
        let (int_hash, assoc_key, _) = self.kernel_hashing();
        if !int_hash || (dict && !assoc_key) || self.heap.is_invariant(o) {
            return None;
        }
        let old = self.ptr_slots(b)?;
        let n = new_size.unwrap_or(old.len() * 2);
        if n == 0 || n > 1 << 26 {
            return None;
        }
        let mut buckets = vec![Value::Nil; n];
        let mut keys = vec![None::<i64>; n];
        let mut tally = 0i64;
        // nothing is stored before every element has been checked
        for &v in old {
            let k = match v {
                Value::Nil => continue,
                Value::Int(k) if !dict => k,
                Value::Obj(a) if dict => self.int_assoc_key(a)?,
                _ => return None,
            };
            let mut index = hash_start(k, n);
            while let Some(other) = keys[index] {
                if other == k {
                    break;
                }
                index += 1;
                if index == n {
                    index = 0;
                }
            }
            // `_rehashInto:` counts every association it places; `_store:`
            // keeps the first of equal elements
            if keys[index].is_none() || dict {
                tally += 1;
            } else {
                continue;
            }
            keys[index] = Some(k);
            buckets[index] = v;
        }
        let nb = self.new_array(buckets);
        self.heap.store(o, HASHED_BUCKETS, nb);
        self.heap.store(o, HASHED_TALLY, Value::Int(tally));
        Some(Value::Obj(o))
    }
}
