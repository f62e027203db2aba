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
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/vm.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::primitive::P;
use crate::interp::{BlockLoop, Unwind, Vm};
use crate::object::heap::{barrier_free, Body, Format, Object, F_INVARIANT};
use crate::object::value::{Oop, Value};
use crate::prims::hash_start;

/// `OrderedCollection`'s named slots (kernel/10-classes.gs).
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

/// Entries of `Vm::index_of_checked` beyond the two of `_indexOf:` (240,
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
            (400, 1) => self.oc_add_last(o, rp),
            (401, 0) => self.oc_remove(o, true),
            (402, 0) => self.oc_remove(o, false),
            (403, 1) => self.oc_at(o, rp),
            (404, 2) => self.oc_at_put(o, rp),
            (405..=407, 1) | (425, 2) => self.loop_prim(n, o, rp),
            (410, 2) => self.dictionary_at_if_absent(o, rp),
            (411, 2) => self.dictionary_at_put(o, rp),
            (412, 1) => self.set_add(o, rp),
            (413, 1) => self.set_includes(o, rp),
            (414, 1) => self.stream_next_put(o, rp),
            (415, 1) => self.stream_next_put_all(o, rp),
            (416 | 420 | 421, 0) => self.oc_size_test(o, n),
            (427 | 428, 0) => self.first_or_last(o, n == 428),
            (429, 0 | 1) => self.oc_new(o, rp, argc),
            _ => self.prim_collection_rest(n, o, rp, argc),
        }
    }

    /// The loops over a block, each in a function of its own, out of the
    /// dispatcher's way.
    #[inline(never)]
    extern "C-unwind" fn loop_prim(&mut self, n: u16, o: Oop, rp: usize) -> P {
        match n {
            405 => self.oc_do_prim(o, rp),
            406 | 407 => self.array_do_prim(o, rp, n == 407),
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
            (418 | 419, 1) => min_max(r, self.stack[rp + 1], n == 418),
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
            (422, 0) => self.rehash_ints(o, 240, None),
            (424, 1) => match self.stack[rp + 1] {
                Value::Int(size) if size > 0 => self.rehash_ints(o, 241, Some(size as usize)),
                _ => None,
            },
            (423, 1) => self.oc_initialize(o, self.stack[rp + 1]),
            (408, 0) => self.stream_grow_prim(o),
            (409, 0) => self.oc_view(o).and_then(|c| {
                self.oc_grow_at_end(o, c)?;
                Some(Value::Obj(o))
            }),
            (426, 2) if o == self.k.array => match self.stack[rp + 1] {
                Value::Int(n) if n >= 0 => {
                    let fill = self.stack[rp + 2];
                    self.can_allocate((n as usize).saturating_mul(16))
                        .then(|| self.new_array(vec![fill; n as usize]))
                }
                _ => None,
            },
            (417, 1..=6) if o == self.k.array => {
                let items = self.stack[rp + 1..=rp + argc].to_vec();
                Some(self.new_array(items))
            }
            (417, 1..=6) => self.oc_with(o, rp, argc)?,
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

    /// An OrderedCollection's array (an `Array` of exact class), first and
    /// last index, the array's size and whether both may be written.
    #[inline(always)]
    fn oc_view(&self, o: Oop) -> Option<Oc> {
        let obj = self.heap.get(o);
        let Body::Ptr(s) = &obj.body else {
            return None;
        };
        let (Value::Obj(array), Value::Int(first), Value::Int(last)) =
            (*s.get(OC_ARRAY)?, *s.get(OC_FIRST)?, *s.get(OC_LAST)?)
        else {
            return None;
        };
        let flags = obj.flags;
        let a = self.heap.get(array);
        let Body::Ptr(slots) = &a.body else {
            return None;
        };
        (a.class == self.k.array).then_some(Oc {
            array,
            first,
            last,
            len: slots.len() as i64,
            writable: (flags | a.flags) & F_INVARIANT == 0,
        })
    }

    /// An OrderedCollection's named slots and its Array's elements, both
    /// mutable, when the array is an `Array` of exact class and the barrier
    /// has nothing to do for either (one table lookup each).
    #[inline(always)]
    fn oc_plain(&mut self, o: Oop) -> Option<(&mut [Value], &mut [Value])> {
        let Body::Ptr(s) = &self.heap.get(o).body else {
            return None;
        };
        let Some(&Value::Obj(a)) = s.get(OC_ARRAY) else {
            return None;
        };
        let array_class = self.k.array;
        let (oc, arr) = self.heap.plain_pair_mut(o, a)?;
        if arr.class != array_class {
            return None;
        }
        match (&mut oc.body, &mut arr.body) {
            (Body::Ptr(s), Body::Ptr(e)) if s.len() > OC_LAST => Some((s, e)),
            _ => None,
        }
    }

    /// An OrderedCollection's named slots and its Array's elements, when the
    /// array is an `Array` of exact class (one table lookup each).
    #[inline(always)]
    fn oc_read(&self, o: Oop) -> Option<(&[Value], &[Value])> {
        let Body::Ptr(s) = &self.heap.get(o).body else {
            return None;
        };
        if s.len() <= OC_LAST {
            return None;
        }
        let Value::Obj(a) = s[OC_ARRAY] else {
            return None;
        };
        let arr = self.heap.get(a);
        match &arr.body {
            Body::Ptr(e) if arr.class == self.k.array => Some((s, e)),
            _ => None,
        }
    }

    /// An OrderedCollection's array (an `Array` of exact class), first and last index.
    fn oc_parts(&self, o: Oop) -> Option<(Oop, i64, i64)> {
        self.oc_view(o).map(|c| (c.array, c.first, c.last))
    }

    /// The element at 1-based `index` of the Array `a`.
    #[inline]
    fn array_get(&self, a: Oop, index: i64) -> Option<Value> {
        if index < 1 {
            return None;
        }
        self.ptr_slots(a)?.get(index as usize - 1).copied()
    }

    /// Copies element `i` (1-based) of `a`'s pointer slots into the loop
    /// block's first argument slot (the frame sized already), as one whole
    /// `Value`: read into registers and stored as two words, it was loaded
    /// back whole by the block's first read of the argument before both
    /// stores had landed (a failed store forward on every call). False,
    /// nothing written, when `a` has no such slot.
    #[inline(always)]
    fn array_arg(&mut self, l: &BlockLoop, a: Oop, i: i64) -> bool {
        if i < 1 {
            return false;
        }
        let Body::Ptr(s) = &self.heap.get(a).body else {
            return false;
        };
        let Some(e) = s.get(i as usize - 1) else {
            return false;
        };
        self.stack[l.base] = *e;
        true
    }

    /// Element `i` of Array `o` for an enumeration primitive; if the array
    /// shrank under the loop, `at:` is sent so it signals as it would.
    #[inline(always)]
    fn array_element(&mut self, l: &BlockLoop, o: Oop, i: i64) -> Result<Value, Unwind> {
        match self.array_get(o, i) {
            Some(e) => Ok(e),
            None => self.between_calls(l, |vm| {
                let at = vm.sels.at;
                vm.send_msg(Value::Obj(o), at, &[Value::Int(i)])
            }),
        }
    }

    /// `addLast:` / `add:` while the array has room at the end.
    ///
    /// The primitives here answer from their fast path straight into their
    /// result and leave every other path to a function answering a whole
    /// `P` (a tail call): a path that wrapped another function's answer
    /// shared a stack temporary with the fast path, which wrote it as one
    /// 16-byte store that the common exit read back in halves, a failed
    /// store forward on every call.
    #[inline(never)]
    extern "C-unwind" fn oc_add_last(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        if let Some((s, e)) = self.oc_plain(o) {
            if let Value::Int(last) = s[OC_LAST] {
                if last >= 0 && last < e.len() as i64 {
                    e[last as usize] = v;
                    s[OC_LAST] = Value::Int(last + 1);
                    return Ok(Some(v));
                }
            }
        }
        self.oc_add_last_barrier_prim(o, v)
    }

    #[inline(never)]
    extern "C-unwind" fn oc_add_last_barrier_prim(&mut self, o: Oop, v: Value) -> P {
        Ok(self.oc_add_last_barrier(o, v))
    }

    /// `add:` as `oc_with` makes it: on a collection and Array the barrier
    /// has nothing to do for, with room at the end, here; anything else
    /// (growth, a persistent or invariant object, odd slots) in
    /// `oc_add_last_barrier`.
    #[inline(always)]
    fn oc_add_last_in(&mut self, o: Oop, v: Value) -> Option<Value> {
        if let Some((s, e)) = self.oc_plain(o) {
            if let Value::Int(last) = s[OC_LAST] {
                if last >= 0 && last < e.len() as i64 {
                    e[last as usize] = v;
                    s[OC_LAST] = Value::Int(last + 1);
                    return Some(v);
                }
            }
        }
        self.oc_add_last_barrier(o, v)
    }

    #[inline(never)]
    fn oc_add_last_barrier(&mut self, o: Oop, v: Value) -> Option<Value> {
        let mut c = self.oc_view(o)?;
        if c.last < 0 || !c.writable {
            return None;
        }
        if c.last == c.len {
            // `lastIndex = array size ifTrue: [self _growAtEnd]`
            c = self.oc_add_last_grow(o, c)?;
        }
        if c.last >= c.len {
            return None;
        }
        // the array first: a refused store leaves the indexes as they were
        self.put_slot(c.array, c.last as usize, v)?;
        self.put_slot(o, OC_LAST, Value::Int(c.last + 1))?;
        Some(v)
    }

    /// `_growAtEnd` for `addLast:`, when the receiver's class answers it with
    /// the kernel's primitive 409.
    #[cold]
    #[inline(never)]
    fn oc_add_last_grow(&mut self, o: Oop, c: Oc) -> Option<Oc> {
        let class = self.heap.get(o).class;
        if !self.memo_holds(MEMO_OC_GROW, class) {
            let sel = self.intern("_growAtEnd");
            if self.lookup_primitive(class, sel)? != 409 {
                return None;
            }
            self.memo_set(MEMO_OC_GROW, class);
        }
        self.oc_grow_at_end(o, c)
    }

    /// `OrderedCollection>>_growAtEnd` — `newArray := Array new: array size *
    /// 2 + 4. newArray replaceFrom: firstIndex to: lastIndex with: array
    /// startingAt: firstIndex. array := newArray` — for indexes within the
    /// array; answers the collection's new parts.
    fn oc_grow_at_end(&mut self, o: Oop, c: Oc) -> Option<Oc> {
        let n = c.len * 2 + 4;
        if n > GROW_MAX
            || c.first < 1
            || c.last > c.len
            || c.last < c.first - 1
            || self.heap.is_invariant(o)
            || !self.can_allocate(n as usize * 16)
        {
            return None;
        }
        let mut slots = vec![Value::Nil; n as usize];
        let (from, to) = (c.first as usize - 1, c.last as usize);
        slots[from..to].copy_from_slice(&self.ptr_slots(c.array)?[from..to]);
        let array = self.new_array(slots);
        let Value::Obj(a) = array else { return None };
        self.put_slot(o, OC_ARRAY, array)?;
        Some(Oc {
            array: a,
            len: n,
            ..c
        })
    }

    /// `OrderedCollection class>>new` (`^ self new: 10`) and `new:` (`^ self
    /// basicNew _initialize: aCapacity`), when the receiver's `new:`,
    /// `basicNew` and `_initialize:` are the kernel's (429, 40, 423) and it
    /// makes pointer objects with the collection's three named slots.
    #[inline(never)]
    extern "C-unwind" fn oc_new(&mut self, class: Oop, rp: usize, argc: usize) -> P {
        let capacity = if argc == 0 {
            Value::Int(10)
        } else {
            self.stack[rp + 1]
        };
        let Value::Int(capacity) = capacity else {
            return Ok(None);
        };
        if capacity > GROW_MAX
            || (!self.memo_holds(MEMO_OC_NEW, class) && !self.oc_new_is_kernel(class))
        {
            return Ok(None);
        }
        let Some(inst_size) = self.heap.class_data(class).map(|d| d.inst_size) else {
            return Ok(None);
        };
        let size = capacity.max(4);
        if !self.can_allocate((size as usize + inst_size) * 16) {
            return Ok(None);
        }
        let array = self.new_array(vec![Value::Nil; size as usize]);
        let first = size / 3 + 1;
        let mut slots = vec![Value::Nil; inst_size];
        slots[OC_ARRAY] = array;
        slots[OC_FIRST] = Value::Int(first);
        slots[OC_LAST] = Value::Int(first - 1);
        Ok(Some(Value::Obj(self.heap.alloc(class, Body::Ptr(slots)))))
    }

    /// `Collection class>>with:` … `with:with:with:with:with:with:` (`^ self
    /// new add: first; …; yourself`) for a class whose `new`, `new:`,
    /// `basicNew`, `_initialize:`, `add:` and `yourself` are the kernel's:
    /// the collection `new` makes (capacity 10, so six elements need no
    /// growth) with the arguments added at its end, as `add:` does.
    #[inline(never)]
    extern "C-unwind" fn oc_with(&mut self, class: Oop, rp: usize, argc: usize) -> P {
        if !self.memo_holds(MEMO_OC_WITH, class) && !self.oc_with_is_kernel(class) {
            return Ok(None);
        }
        let Some(Value::Obj(o)) = self.oc_new(class, rp, 0)? else {
            return Ok(None);
        };
        for k in 1..=argc {
            let v = self.stack[rp + k];
            if self.oc_add_last_in(o, v).is_none() {
                // cannot happen for a fresh collection of capacity 10; the
                // body then makes its own (this one is garbage)
                return Ok(None);
            }
        }
        Ok(Some(Value::Obj(o)))
    }

    /// Whether `class` answers `with:` as the kernel's `Collection class>>with:`
    /// would with the primitives of `new` and `add:` (remembered until the
    /// methods change).
    #[cold]
    #[inline(never)]
    fn oc_with_is_kernel(&mut self, class: Oop) -> bool {
        if !self.oc_new_is_kernel(class) {
            return false;
        }
        let meta = self.class_of(Value::Obj(class));
        let (new, add, yourself) = (
            self.intern("new"),
            self.intern("add:"),
            self.intern("yourself"),
        );
        let object = self.k.object;
        let kernel = self.lookup_primitive(meta, new) == Some(429)
            && self.lookup_primitive(class, add) == Some(400)
            && self
                .lookup(class, yourself)
                .is_some_and(|m| m.class == object && m.primitive == 0);
        if kernel {
            self.memo_set(MEMO_OC_WITH, class);
        }
        kernel
    }

    /// Whether `class` makes its instances as the kernel's
    /// `OrderedCollection class>>new:` does (remembered until the methods change).
    #[cold]
    #[inline(never)]
    fn oc_new_is_kernel(&mut self, class: Oop) -> bool {
        let Some(d) = self.heap.class_data(class) else {
            return false;
        };
        if d.is_meta || d.format != Format::Ptr || d.inst_size <= OC_LAST {
            return false;
        }
        let meta = self.class_of(Value::Obj(class));
        let (new, basic_new, init) = (
            self.intern("new:"),
            self.intern("basicNew"),
            self.intern("_initialize:"),
        );
        let kernel = self.lookup_primitive(meta, new) == Some(429)
            && self.lookup_primitive(meta, basic_new) == Some(40)
            && self.lookup_primitive(class, init) == Some(423);
        if kernel {
            self.memo_set(MEMO_OC_NEW, class);
        }
        kernel
    }

    /// `removeFirst` / `removeLast` of a non-empty collection: on a
    /// collection and Array the barrier has nothing to do for here, anything
    /// else in `oc_remove_barrier` (answering as `oc_add_last` explains).
    #[inline(never)]
    extern "C-unwind" fn oc_remove(&mut self, o: Oop, first_end: bool) -> P {
        let Some((s, e)) = self.oc_plain(o) else {
            return self.oc_remove_barrier(o, first_end);
        };
        let (Value::Int(first), Value::Int(last)) = (s[OC_FIRST], s[OC_LAST]) else {
            return Ok(None);
        };
        if last < first || first < 1 {
            return Ok(None);
        }
        let (at, slot, next) = if first_end {
            (first, OC_FIRST, first + 1)
        } else {
            (last, OC_LAST, last - 1)
        };
        let Some(place) = e.get_mut(at as usize - 1) else {
            return Ok(None);
        };
        let element = std::mem::replace(place, Value::Nil);
        s[slot] = Value::Int(next);
        Ok(Some(element))
    }

    #[inline(never)]
    extern "C-unwind" fn oc_remove_barrier(&mut self, o: Oop, first_end: bool) -> P {
        Ok(self.oc_remove_through_barrier(o, first_end))
    }

    #[inline(always)]
    fn oc_remove_through_barrier(&mut self, o: Oop, first_end: bool) -> Option<Value> {
        let c = self.oc_view(o)?;
        if c.last < c.first || !c.writable {
            return None;
        }
        let at = if first_end { c.first } else { c.last };
        let element = self.array_get(c.array, at)?;
        self.put_slot(c.array, at as usize - 1, Value::Nil)?;
        if first_end {
            self.put_slot(o, OC_FIRST, Value::Int(c.first + 1))?;
        } else {
            self.put_slot(o, OC_LAST, Value::Int(c.last - 1))?;
        }
        Some(element)
    }

    /// `size` (416), `isEmpty` (420), `notEmpty` (421).
    #[inline(never)]
    extern "C-unwind" fn oc_size_test(&mut self, o: Oop, n: u16) -> P {
        // the bodies read the two indexes only (`^ lastIndex - firstIndex + 1`)
        let Body::Ptr(s) = &self.heap.get(o).body else {
            return Ok(None);
        };
        let (Some(&Value::Int(first)), Some(&Value::Int(last))) = (s.get(OC_FIRST), s.get(OC_LAST))
        else {
            return Ok(None);
        };
        Ok(match n {
            // indexes set out of range (`instVarAt:put:`) make a LargeInteger in the body
            416 => Value::small_int(last - first + 1),
            420 => Some(Value::bool(last < first)),
            _ => Some(Value::bool(last >= first)),
        })
    }

    /// `at:` with a SmallInteger index within `1 to: self size`.
    #[inline(never)]
    extern "C-unwind" fn oc_at(&mut self, o: Oop, rp: usize) -> P {
        let Value::Int(i) = self.stack[rp + 1] else {
            return Ok(None);
        };
        let Some((s, e)) = self.oc_read(o) else {
            return Ok(None);
        };
        let (Value::Int(first), Value::Int(last)) = (s[OC_FIRST], s[OC_LAST]) else {
            return Ok(None);
        };
        if i < 1 || i > last - first + 1 || first < 1 {
            return Ok(None);
        }
        Ok(e.get((first + i - 2) as usize).copied())
    }

    /// The collection's parts and the array index of 1-based `index`, when
    /// it is a SmallInteger within `1 to: self size`.
    #[inline(always)]
    fn oc_index(&self, o: Oop, index: Value) -> Option<(Oc, i64)> {
        let c = self.oc_view(o)?;
        let Value::Int(i) = index else { return None };
        if i < 1 || i > c.last - c.first + 1 {
            return None;
        }
        Some((c, c.first + i - 1))
    }

    /// `at:put:` with a SmallInteger index within `1 to: self size`.
    #[inline(never)]
    extern "C-unwind" fn oc_at_put(&mut self, o: Oop, rp: usize) -> P {
        let (index, v) = (self.stack[rp + 1], self.stack[rp + 2]);
        Ok(self.oc_index(o, index).and_then(|(c, i)| {
            if i > c.len {
                return None;
            }
            self.put_slot(c.array, usize::try_from(i - 1).ok()?, v)?;
            Some(v)
        }))
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

    /// `OrderedCollection>>do:` — `firstIndex to: lastIndex do: [:i | aBlock
    /// value: (array at: i)]`: the bounds are read once, the array at every step.
    fn oc_do(&mut self, o: Oop, rp: usize) -> P {
        let Some((_, first, last)) = self.oc_parts(o) else {
            return Ok(None);
        };
        self.block_loop(rp + 1, 1, |vm, block| {
            let at = vm.sels.at;
            for i in first..=last {
                let array = vm.heap.slot(o, OC_ARRAY);
                vm.block_loop_frame(block);
                let copied = match array {
                    Value::Obj(a) if vm.heap.get(a).class == vm.k.array => {
                        vm.array_arg(block, a, i)
                    }
                    _ => false,
                };
                if !copied {
                    // whatever the array became, ask it as the Smalltalk body would
                    let element =
                        vm.between_calls(block, |vm| vm.send_msg(array, at, &[Value::Int(i)]))?;
                    vm.block_loop_frame(block);
                    vm.stack[block.base] = element;
                }
                vm.block_loop_run(block, 1)?;
            }
            Ok(Some(Value::Obj(o)))
        })
    }

    /// `Array>>do:` / `Array>>doWithIndex:` — `1 to: self size do: [:i | aBlock
    /// value: (self at: i) (value: i)]` for an `Array` of exact class.
    fn array_do(&mut self, o: Oop, rp: usize, with_index: bool) -> P {
        if self.heap.get(o).class != self.k.array {
            return Ok(None);
        }
        let size = self.ptr_slots(o).map_or(0, |s| s.len()) as i64;
        let argc = if with_index { 2 } else { 1 };
        self.block_loop(rp + 1, argc, |vm, block| {
            for i in 1..=size {
                vm.block_loop_frame(block);
                if !vm.array_arg(block, o, i) {
                    let element = vm.array_element(block, o, i)?;
                    vm.block_loop_frame(block);
                    vm.stack[block.base] = element;
                }
                if with_index {
                    vm.stack[block.base + 1] = Value::Int(i);
                }
                vm.block_loop_run(block, argc)?;
            }
            Ok(Some(Value::Obj(o)))
        })
    }

    /// The receiver's bucket Array and tally, when its class's `_indexOf:` is
    /// the kernel primitive `prim` (240: Set, 241: Dictionary).
    #[inline]
    fn hashed_parts(&mut self, o: Oop, prim: u16) -> Option<(Oop, i64)> {
        let class = self.heap.get(o).class;
        // the answer holds until a method changes (`epoch`); one class per primitive
        let memo = (prim - 240) as usize;
        if self.index_of_checked[memo] != (self.epoch + 1, class) && !self.index_of_is(class, prim)
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
        self.index_of_checked[(prim - 240) as usize] = (self.epoch + 1, class);
        true
    }

    /// The probe `_indexOf:` makes for a SmallInteger `key` in the Set (240)
    /// or Dictionary (241) `o`, with its tally and bucket Array.
    #[inline(always)]
    fn hashed_find(&mut self, o: Oop, key: Value, prim: u16) -> Option<Found> {
        let Value::Int(k) = key else {
            return None;
        };
        let dict = prim == 241;
        let (int_hash, assoc_key, _) = self.kernel_hashing();
        let class = self.heap.get(o).class;
        // the answer holds until a method changes (`epoch`); one class per primitive
        let memo = (prim - 240) as usize;
        if !int_hash
            || (dict && !assoc_key)
            || (self.index_of_checked[memo] != (self.epoch + 1, class)
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

    /// Whether the memo `slot` holds `class` for the current methods.
    #[inline(always)]
    fn memo_holds(&self, slot: usize, class: Oop) -> bool {
        self.index_of_checked[slot] == (self.epoch + 1, class)
    }

    /// Remembers that `class` passed the check of memo `slot` until the methods change.
    fn memo_set(&mut self, slot: usize, class: Oop) {
        self.index_of_checked[slot] = (self.epoch + 1, class);
    }

    /// `SequenceableCollection>>first` (`^ self at: 1`) and `last` (`^ self
    /// at: self size`) when the receiver's `at:` (and for `last`, `size`) are
    /// the kernel's primitives — OrderedCollection's 403/416, or Object's
    /// 22/21 on indexable objects other than Rust-backed dictionaries — and
    /// the element exists; an empty receiver runs the body, which signals.
    /// (The other receivers are answered by `indexed_first_or_last`, as
    /// `oc_add_last` explains.)
    #[inline(never)]
    extern "C-unwind" fn first_or_last(&mut self, o: Oop, last: bool) -> P {
        let class = self.heap.get(o).class;
        let (oc_slot, indexed_slot) = if last {
            (MEMO_LAST_OC, MEMO_LAST_INDEXED)
        } else {
            (MEMO_FIRST_OC, MEMO_FIRST_INDEXED)
        };
        let oc = if self.memo_holds(oc_slot, class) {
            true
        } else if self.memo_holds(indexed_slot, class) {
            false
        } else {
            match self.first_or_last_kind(class, last) {
                Some(oc) => oc,
                None => return Ok(None),
            }
        };
        if !oc {
            return self.indexed_first_or_last(o, last);
        }
        let Some((s, e)) = self.oc_read(o) else {
            return Ok(None);
        };
        let (Value::Int(first_index), Value::Int(last_index)) = (s[OC_FIRST], s[OC_LAST]) else {
            return Ok(None);
        };
        if last_index < first_index || first_index < 1 {
            return Ok(None);
        }
        let at = if last { last_index } else { first_index };
        Ok(e.get(at as usize - 1).copied())
    }

    /// `first_or_last` of an indexable object whose `at:` and `size` are
    /// Object's primitives.
    #[inline(never)]
    extern "C-unwind" fn indexed_first_or_last(&mut self, o: Oop, last: bool) -> P {
        if matches!(self.heap.get(o).body, Body::Dict(_)) {
            return Ok(None);
        }
        let n = self.basic_size(Value::Obj(o));
        if n == 0 {
            return Ok(None);
        }
        Ok(self.basic_at(Value::Obj(o), if last { n - 1 } else { 0 }))
    }

    /// Which of `first_or_last`'s two cases `class` is (true: an
    /// OrderedCollection's), remembered until the methods change; None when
    /// its `at:` or `size` is not a kernel primitive.
    #[cold]
    #[inline(never)]
    fn first_or_last_kind(&mut self, class: Oop, last: bool) -> Option<bool> {
        let at = self.lookup_primitive(class, self.sels.at)?;
        // `first` sends no `size`
        let size = if last {
            Some(self.lookup_primitive(class, self.sels.size)?)
        } else {
            None
        };
        let oc = match (at, size) {
            (403, None | Some(416)) => true,
            (22, None | Some(21)) => false,
            _ => return None,
        };
        let slot = match (last, oc) {
            (false, true) => MEMO_FIRST_OC,
            (false, false) => MEMO_FIRST_INDEXED,
            (true, true) => MEMO_LAST_OC,
            (true, false) => MEMO_LAST_INDEXED,
        };
        self.memo_set(slot, class);
        Some(oc)
    }

    /// `Dictionary>>at:ifAbsent:`: the value of a present key, else the value
    /// of the block (a niladic block; anything else runs the body).
    #[inline(never)]
    extern "C-unwind" fn dictionary_at_if_absent(&mut self, o: Oop, rp: usize) -> P {
        let (key, block) = (self.stack[rp + 1], self.stack[rp + 2]);
        let Some(f) = self.hashed_find(o, key, 241) else {
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
    extern "C-unwind" fn dictionary_at_put(&mut self, o: Oop, rp: usize) -> P {
        let (key, v) = (self.stack[rp + 1], self.stack[rp + 2]);
        Ok(self.dictionary_at_put_in(o, key, v))
    }

    #[inline(always)]
    fn dictionary_at_put_in(&mut self, o: Oop, key: Value, v: Value) -> Option<Value> {
        let f = self.hashed_find(o, key, 241)?;
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
    extern "C-unwind" fn set_add(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        Ok(self.set_add_in(o, v))
    }

    #[inline(always)]
    fn set_add_in(&mut self, o: Oop, v: Value) -> Option<Value> {
        if v.is_nil() {
            return Some(v);
        }
        let f = self.hashed_find(o, v, 240)?;
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
    extern "C-unwind" fn set_includes(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        if v.is_nil() {
            return Ok(Some(Value::False));
        }
        Ok(self
            .hashed_find(o, v, 240)
            .map(|f| Value::bool(!f.element.is_nil())))
    }

    /// The bytes of a String or Symbol of exact class.
    #[inline(always)]
    fn plain_bytes(&self, v: Value) -> Option<&[u8]> {
        let Value::Obj(o) = v else { return None };
        let obj = self.heap.try_get(o)?;
        if obj.class != self.k.string && obj.class != self.k.symbol {
            return None;
        }
        match &obj.body {
            Body::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// A WriteStream's collection (a String or Array of exact class), position,
    /// read limit and write limit, when the stream and collection may be written.
    #[inline(always)]
    fn stream_parts(&self, o: Oop) -> Option<(Oop, i64, i64, i64)> {
        let stream = self.heap.try_get(o)?;
        let Body::Ptr(s) = &stream.body else {
            return None;
        };
        let (Value::Obj(c), Value::Int(pos), Value::Int(read), Value::Int(write)) = (
            *s.get(WS_COLLECTION)?,
            *s.get(WS_POSITION)?,
            *s.get(WS_READ_LIMIT)?,
            *s.get(WS_WRITE_LIMIT)?,
        ) else {
            return None;
        };
        let flags = stream.flags;
        let coll = self.heap.try_get(c)?;
        if (coll.class != self.k.string && coll.class != self.k.array)
            || pos < 0
            || (flags | coll.flags) & F_INVARIANT != 0
        {
            return None;
        }
        Some((c, pos, read, write))
    }

    /// Sets position (and the read limit when passed) after writing up to
    /// `end`, through one pass of the write barrier.
    #[inline(always)]
    fn stream_advance(&mut self, o: Oop, end: i64, read: i64) -> Option<()> {
        let Body::Ptr(s) = &mut self.heap.write(o)?.body else {
            return None;
        };
        if s.len() <= WS_READ_LIMIT {
            return None;
        }
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        Some(())
    }

    /// `WriteStream>>nextPut:` while the collection has room.
    ///
    /// Into a stream and collection the barrier has nothing to do for, below
    /// the write limit, here; anything else in `stream_next_put_barrier`
    /// (answering as `oc_add_last` explains).
    #[inline(never)]
    extern "C-unwind" fn stream_next_put(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        let Some((s, c)) = self.stream_plain(o) else {
            return self.stream_next_put_barrier_prim(o, v);
        };
        let (Value::Int(pos), Value::Int(read), Value::Int(write)) =
            (s[WS_POSITION], s[WS_READ_LIMIT], s[WS_WRITE_LIMIT])
        else {
            return Ok(None);
        };
        if pos < 0 || pos >= write {
            return self.stream_next_put_barrier_prim(o, v);
        }
        let at = pos as usize;
        match (&mut c.body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(e), _) if at < e.len() => e[at] = v,
            _ => return Ok(None),
        }
        s[WS_POSITION] = Value::Int(pos + 1);
        if pos + 1 > read {
            s[WS_READ_LIMIT] = Value::Int(pos + 1);
        }
        Ok(Some(v))
    }

    #[inline(never)]
    extern "C-unwind" fn stream_next_put_barrier_prim(&mut self, o: Oop, v: Value) -> P {
        Ok(self.stream_next_put_barrier(o, v))
    }

    /// A WriteStream's named slots and its collection (a String or Array of
    /// exact class), both mutable, when the barrier has nothing to do for
    /// either (one table lookup each).
    #[inline(always)]
    fn stream_plain(&mut self, o: Oop) -> Option<(&mut [Value], &mut Object)> {
        let Body::Ptr(s) = &self.heap.try_get(o)?.body else {
            return None;
        };
        let Some(&Value::Obj(c)) = s.get(WS_COLLECTION) else {
            return None;
        };
        let (string, array) = (self.k.string, self.k.array);
        let (stream, coll) = self.heap.plain_pair_mut(o, c)?;
        if coll.class != string && coll.class != array {
            return None;
        }
        match &mut stream.body {
            Body::Ptr(s) if s.len() > WS_WRITE_LIMIT => Some((s, coll)),
            _ => None,
        }
    }

    #[inline(never)]
    fn stream_next_put_barrier(&mut self, o: Oop, v: Value) -> Option<Value> {
        let (c, pos, read, write) = self.stream_parts(o)?;
        if pos >= write {
            return self.stream_next_put_grow(o, v, pos, read);
        }
        let at = pos as usize;
        match (&mut self.heap.write(c)?.body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(s), _) if at < s.len() => s[at] = v,
            _ => return None,
        }
        self.stream_advance(o, pos + 1, read)?;
        Some(v)
    }

    /// `nextPut:` at the write limit: `self _grow` once, then the store.
    #[cold]
    #[inline(never)]
    fn stream_next_put_grow(&mut self, o: Oop, v: Value, pos: i64, read: i64) -> Option<Value> {
        let (mut body, size) = self.stream_grown(o, pos + 1, true)?;
        let at = pos as usize;
        match (&mut body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(s), _) if at < s.len() => s[at] = v,
            _ => return None,
        }
        self.stream_replace(o, body, size, pos + 1, read)?;
        Some(v)
    }

    /// The collection the kernel's `_grow` (primitive 408; one step when
    /// `once`, else as many as `[end > writeLimit] whileTrue: [self _grow]`
    /// takes) would put in the stream `o`, and its size, when `end` elements
    /// fit in it; None when the class's `_grow` is not the kernel's or the
    /// body would do anything else.
    fn stream_grown(&mut self, o: Oop, end: i64, once: bool) -> Option<(Body, i64)> {
        let class = self.heap.get(o).class;
        if !self.memo_holds(MEMO_STREAM_GROW, class) {
            let sel = self.intern("_grow");
            if self.lookup_primitive(class, sel)? != 408 {
                return None;
            }
            self.memo_set(MEMO_STREAM_GROW, class);
        }
        let Value::Obj(c) = self.ptr_slots(o)?.get(WS_COLLECTION).copied()? else {
            return None;
        };
        let coll = self.heap.get(c);
        let len = match &coll.body {
            Body::Bytes(b) if coll.class == self.k.string => b.len(),
            Body::Ptr(s) if coll.class == self.k.array => s.len(),
            _ => return None,
        } as i64;
        // `collection size * 2 max: 16`, until the end fits
        let mut size = len;
        loop {
            size = (size * 2).max(16);
            if size >= end || once || size > GROW_MAX {
                break;
            }
        }
        if size < end || size > GROW_MAX || !self.can_allocate(size as usize * 16) {
            return None;
        }
        // `String new:` fills with spaces, `Array new:` with nil
        let body = match &self.heap.get(c).body {
            Body::Bytes(b) => {
                let mut grown = Vec::with_capacity(size as usize);
                grown.extend_from_slice(b);
                grown.resize(size as usize, b' ');
                Body::Bytes(grown)
            }
            Body::Ptr(s) => {
                let mut grown = Vec::with_capacity(size as usize);
                grown.extend_from_slice(s);
                grown.resize(size as usize, Value::Nil);
                Body::Ptr(grown)
            }
            _ => return None,
        };
        Some((body, size))
    }

    /// Puts a grown collection (`body` of `size` elements, the class of the
    /// old one) in the stream with the write limit at its size, position at
    /// `end` and the read limit at least there, in one write-barrier pass.
    fn stream_replace(&mut self, o: Oop, body: Body, size: i64, end: i64, read: i64) -> Option<()> {
        let Value::Obj(old) = self.ptr_slots(o)?.get(WS_COLLECTION).copied()? else {
            return None;
        };
        let class = self.heap.get(old).class;
        if self.heap.refuses(o) || self.heap.is_invariant(o) {
            // the store below fails the same way; nothing is allocated first
            self.heap.write(o)?;
        }
        let c = Value::Obj(self.heap.alloc(class, body));
        let Body::Ptr(s) = &mut self.heap.write(o)?.body else {
            return None;
        };
        if s.len() <= WS_WRITE_LIMIT {
            return None;
        }
        s[WS_COLLECTION] = c;
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        s[WS_WRITE_LIMIT] = Value::Int(size);
        Some(())
    }

    /// `WriteStream>>_grow` on its own (primitive 408).
    fn stream_grow_prim(&mut self, o: Oop) -> Option<Value> {
        let s = self.ptr_slots(o)?;
        let (Value::Int(pos), Value::Int(read)) = (*s.get(WS_POSITION)?, *s.get(WS_READ_LIMIT)?)
        else {
            return None;
        };
        // one step: any end up to the collection's size fits; position and
        // read limit stay as they are
        let (body, size) = self.stream_grown(o, 0, true)?;
        self.stream_replace(o, body, size, pos, pos.max(read))?;
        Some(Value::Obj(o))
    }

    /// `WriteStream>>nextPutAll:` of a byte String into a String, while it fits.
    #[inline(never)]
    extern "C-unwind" fn stream_next_put_all(&mut self, o: Oop, rp: usize) -> P {
        self.stream_next_put_all_in(o, rp)
    }

    /// `nextPutAll:` of a String or Symbol (of exact class) into a String
    /// below the write limit, when the barrier has nothing to do for the
    /// stream and its String: the bytes are copied straight from the
    /// argument. Anything else goes to `stream_next_put_all_barrier`.
    ///
    /// The argument is matched where it lies on the value stack and copied
    /// whole only for the answer, at the end: copied out whole first, it was
    /// read back before the two stores that had just pushed it landed.
    #[inline(always)]
    fn stream_next_put_all_in(&mut self, o: Oop, rp: usize) -> P {
        let Value::Obj(arg) = self.stack[rp + 1] else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let stream = self.heap.get(o);
        let Body::Ptr(s) = &stream.body else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        if !barrier_free(stream.flags) {
            return self.stream_next_put_all_barrier_prim(o, rp);
        }
        let (Some(&Value::Obj(c)), Some(&Value::Int(pos)), Some(&Value::Int(read))) = (
            s.get(WS_COLLECTION),
            s.get(WS_POSITION),
            s.get(WS_READ_LIMIT),
        ) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let Some(&Value::Int(write)) = s.get(WS_WRITE_LIMIT) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let (string, symbol) = (self.k.string, self.k.symbol);
        // the argument is read where it lies; the same String as the
        // collection takes the other path (which copies it first)
        let Some((coll, from)) = self.heap.plain_mut_and_get(c, arg) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let (Body::Bytes(b), Body::Bytes(src)) = (&mut coll.body, &from.body) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let end = pos + src.len() as i64;
        if coll.class != string
            || (from.class != string && from.class != symbol)
            || pos < 0
            || end > write
            || end as usize > b.len()
        {
            return self.stream_next_put_all_barrier_prim(o, rp);
        }
        copy_bytes(&mut b[pos as usize..end as usize], src);
        // the stream: a plain object with these slots, as checked above
        let Some(s) = self.heap.plain_slots_mut(o) else {
            return Ok(None);
        };
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        Ok(Some(self.stack[rp + 1]))
    }

    #[inline(never)]
    extern "C-unwind" fn stream_next_put_all_barrier_prim(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        Ok(self.stream_next_put_all_barrier(o, v))
    }

    #[inline(never)]
    fn stream_next_put_all_barrier(&mut self, o: Oop, v: Value) -> Option<Value> {
        let (c, pos, read, write) = self.stream_parts(o)?;
        // copied out first (the argument may be the collection itself); short
        // strings, the common case, on the Rust stack
        let mut short = [0u8; 32];
        let mut long = Vec::new();
        let src: &[u8] = {
            let bytes = self.plain_bytes(v)?;
            if pos + bytes.len() as i64 > write {
                return self.stream_next_put_all_grow(o, v, pos, read);
            }
            if bytes.len() <= short.len() {
                let part = &mut short[..bytes.len()];
                part.copy_from_slice(bytes);
                part
            } else {
                long.extend_from_slice(bytes);
                &long
            }
        };
        let end = pos as usize + src.len();
        match &mut self.heap.write(c)?.body {
            Body::Bytes(b) if end <= b.len() => b[pos as usize..end].copy_from_slice(src),
            _ => return None,
        }
        self.stream_advance(o, end as i64, read)?;
        Some(v)
    }

    /// `nextPutAll:` past the write limit: `[end > writeLimit] whileTrue:
    /// [self _grow]`, then the copy.
    #[cold]
    #[inline(never)]
    fn stream_next_put_all_grow(&mut self, o: Oop, v: Value, pos: i64, read: i64) -> Option<Value> {
        let n = self.plain_bytes(v)?.len();
        let end = pos + n as i64;
        let (mut body, size) = self.stream_grown(o, end, false)?;
        let Body::Bytes(b) = &mut body else {
            return None;
        };
        let (from, to) = (pos as usize, end as usize);
        if to > b.len() {
            return None;
        }
        b[from..to].copy_from_slice(self.plain_bytes(v)?);
        self.stream_replace(o, body, size, end, read)?;
        Some(v)
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

impl Vm {
    /// `OrderedCollection>>_initialize:` — an empty collection with room for
    /// `aCapacity max: 4` elements, a third of it before the first.
    fn oc_initialize(&mut self, o: Oop, capacity: Value) -> Option<Value> {
        let Value::Int(c) = capacity else { return None };
        if self.ptr_slots(o)?.len() <= OC_LAST || self.heap.is_invariant(o) || c > 1 << 24 {
            return None;
        }
        let size = c.max(4);
        let array = self.new_array(vec![Value::Nil; size as usize]);
        let first = size / 3 + 1;
        self.heap.store(o, OC_ARRAY, array);
        self.heap.store(o, OC_FIRST, Value::Int(first));
        self.heap.store(o, OC_LAST, Value::Int(first - 1));
        Some(Value::Obj(o))
    }

    /// `Set>>_grow` (twice the buckets; `new_size` None) and
    /// `Dictionary>>_rehashInto:` (`new_size` buckets) when every element
    /// (association key) is a SmallInteger: the elements are placed as
    /// `_store:` / `_indexOf:` would place them, in the same order.
    fn rehash_ints(&mut self, o: Oop, prim: u16, new_size: Option<usize>) -> Option<Value> {
        let (b, _) = self.hashed_parts(o, prim)?;
        let dict = prim == 241;
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

impl Vm {
    /// `Collection>>detect:ifNone:` for an `Array` of exact class — `self do:
    /// [:each | (aBlock value: each) ifTrue: [^ each]]. ^ exceptionBlock value`:
    /// a non-Boolean answer is sent `mustBeBoolean` as the inlined `ifTrue:`
    /// does, and the exception block is sent `value` unless it is a block.
    fn array_detect(&mut self, o: Oop, rp: usize) -> P {
        if self.heap.get(o).class != self.k.array {
            return Ok(None);
        }
        let size = self.ptr_slots(o).map_or(0, |s| s.len()) as i64;
        let mut found = None;
        let looped = self.block_loop(rp + 1, 1, |vm, block| {
            for i in 1..=size {
                let element = vm.array_element(block, o, i)?;
                match vm.block_loop_call(block, &[element])? {
                    Value::True => {
                        found = Some(element);
                        break;
                    }
                    Value::False => {}
                    other => {
                        let sel = vm.sels.must_be_boolean;
                        vm.between_calls(block, |vm| vm.send_msg(other, sel, &[]))?;
                    }
                }
            }
            Ok(Some(Value::Nil))
        })?;
        if looped.is_none() {
            return Ok(None);
        }
        if found.is_some() {
            return Ok(found);
        }
        let none = self.stack[rp + 2];
        if self.is_block_of(none, 0) {
            let bp = self.stack.len();
            self.stack.push(none);
            return self.call_block(bp, 0);
        }
        self.send_str(none, "value", &[]).map(Some)
    }
}
