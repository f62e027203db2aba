//! OrderedCollection's fast paths: creation, adding and removing at either
//! end, growth, indexing, `do:`, `first`/`last`.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::*;
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::{Body, Format, F_INVARIANT};
use crate::object::value::{Oop, Value};

impl Vm {
    /// An OrderedCollection's array (an `Array` of exact class), first and
    /// last index, the array's size and whether both may be written.
    #[inline(always)]
    pub(super) fn oc_view(&self, o: Oop) -> Option<Oc> {
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

    /// `addLast:` / `add:` while the array has room at the end.
    ///
    /// The primitives here answer from their fast path straight into their
    /// result and leave every other path to a function answering a whole
    /// `P` (a tail call): a path that wrapped another function's answer
    /// shared a stack temporary with the fast path, which wrote it as one
    /// 16-byte store that the common exit read back in halves, a failed
    /// store forward on every call.
    #[inline(never)]
    pub(super) extern "C-unwind" fn oc_add_last(&mut self, o: Oop, rp: usize) -> P {
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
            if self.lookup_primitive(class, sel)? != OC_GROW_AT_END {
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
    pub(super) fn oc_grow_at_end(&mut self, o: Oop, c: Oc) -> Option<Oc> {
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
    pub(super) extern "C-unwind" fn oc_new(&mut self, class: Oop, rp: usize, argc: usize) -> P {
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
    pub(super) extern "C-unwind" fn oc_with(&mut self, class: Oop, rp: usize, argc: usize) -> P {
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
        let kernel = self.lookup_primitive(meta, new) == Some(OC_NEW)
            && self.lookup_primitive(class, add) == Some(OC_ADD)
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
        let kernel = self.lookup_primitive(meta, new) == Some(OC_NEW)
            && self.lookup_primitive(meta, basic_new) == Some(BEHAVIOR_BASIC_NEW)
            && self.lookup_primitive(class, init) == Some(OC_INITIALIZE);
        if kernel {
            self.memo_set(MEMO_OC_NEW, class);
        }
        kernel
    }

    /// `removeFirst` / `removeLast` of a non-empty collection: on a
    /// collection and Array the barrier has nothing to do for here, anything
    /// else in `oc_remove_barrier` (answering as `oc_add_last` explains).
    #[inline(never)]
    pub(super) extern "C-unwind" fn oc_remove(&mut self, o: Oop, first_end: bool) -> P {
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
    pub(super) extern "C-unwind" fn oc_size_test(&mut self, o: Oop, n: u16) -> P {
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
            OC_SIZE => Value::small_int(last - first + 1),
            OC_IS_EMPTY => Some(Value::bool(last < first)),
            _ => Some(Value::bool(last >= first)),
        })
    }

    /// `at:` with a SmallInteger index within `1 to: self size`.
    #[inline(never)]
    pub(super) extern "C-unwind" fn oc_at(&mut self, o: Oop, rp: usize) -> P {
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
    pub(super) extern "C-unwind" fn oc_at_put(&mut self, o: Oop, rp: usize) -> P {
        let (index, v) = (self.stack[rp + 1], self.stack[rp + 2]);
        Ok(self.oc_index(o, index).and_then(|(c, i)| {
            if i > c.len {
                return None;
            }
            self.put_slot(c.array, usize::try_from(i - 1).ok()?, v)?;
            Some(v)
        }))
    }

    /// `OrderedCollection>>do:` — `firstIndex to: lastIndex do: [:i | aBlock
    /// value: (array at: i)]`: the bounds are read once, the array at every step.
    pub(super) fn oc_do(&mut self, o: Oop, rp: usize) -> P {
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

    /// `SequenceableCollection>>first` (`^ self at: 1`) and `last` (`^ self
    /// at: self size`) when the receiver's `at:` (and for `last`, `size`) are
    /// the kernel's primitives — OrderedCollection's 403/416, or Object's
    /// 22/21 on indexable objects other than Rust-backed dictionaries — and
    /// the element exists; an empty receiver runs the body, which signals.
    /// (The other receivers are answered by `indexed_first_or_last`, as
    /// `oc_add_last` explains.)
    #[inline(never)]
    pub(super) extern "C-unwind" fn first_or_last(&mut self, o: Oop, last: bool) -> P {
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
            (OC_AT, None | Some(OC_SIZE)) => true,
            (OBJECT_AT, None | Some(OBJECT_SIZE)) => false,
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
}

impl Vm {
    /// `OrderedCollection>>_initialize:` — an empty collection with room for
    /// `aCapacity max: 4` elements, a third of it before the first.
    pub(super) fn oc_initialize(&mut self, o: Oop, capacity: Value) -> Option<Value> {
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
}
