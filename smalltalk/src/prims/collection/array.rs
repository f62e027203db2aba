//! Array's fast paths: reading an element, `do:` and `detect:ifNone:` over an
//! Array of exact class.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::primitive::P;
use crate::interp::{BlockLoop, Unwind, Vm};
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};

impl Vm {
    /// The element at 1-based `index` of the Array `a`.
    #[inline]
    pub(super) fn array_get(&self, a: Oop, index: i64) -> Option<Value> {
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
    pub(super) fn array_arg(&mut self, l: &BlockLoop, a: Oop, i: i64) -> bool {
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

    /// `Array>>do:` / `Array>>doWithIndex:` — `1 to: self size do: [:i | aBlock
    /// value: (self at: i) (value: i)]` for an `Array` of exact class.
    pub(super) fn array_do(&mut self, o: Oop, rp: usize, with_index: bool) -> P {
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
}

impl Vm {
    /// `Collection>>detect:ifNone:` for an `Array` of exact class — `self do:
    /// [:each | (aBlock value: each) ifTrue: [^ each]]. ^ exceptionBlock value`:
    /// a non-Boolean answer is sent `mustBeBoolean` as the inlined `ifTrue:`
    /// does, and the exception block is sent `value` unless it is a block.
    pub(super) fn array_detect(&mut self, o: Oop, rp: usize) -> P {
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
