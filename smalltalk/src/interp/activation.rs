//! Activating a method: the interrupt check at every activation, block call
//! and loop back-edge; the frame on the value stack; primitives tried before
//! the method's body; the frame limit and the native-stack guard.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use crate::object::primitives::*;
use std::sync::Arc;

use super::*;
use crate::object::code::*;
use crate::object::heap::{Body, Object};
use crate::object::value::Value;

impl Vm {
    #[inline(always)]
    pub fn check_interrupt(&mut self) -> Result<(), Unwind> {
        // the common case in two tests; the rest lives out of line
        if !self.interrupts.interrupter.pending() && !self.heap.gc_due() {
            return Ok(());
        }
        self.check_interrupt_slow()
    }

    #[cold]
    #[inline(never)]
    fn check_interrupt_slow(&mut self) -> Result<(), Unwind> {
        if self.interrupts.interrupter.pending() {
            return self.take_interrupt();
        }
        if self.heap.gc_due() {
            if self.heap.stress > 0 {
                self.heap.stress_countdown = self.heap.stress_countdown.saturating_sub(1);
                if self.heap.stress_countdown == 0 {
                    self.heap.stress_countdown = self.heap.stress;
                    self.collect_during_evaluation();
                }
            } else if !self.collect_during_evaluation() {
                self.heap.defer_trigger();
            }
        }
        if self.interrupts.memory_signalled
            && self.heap.bytes > self.heap.limit.saturating_add(self.heap.limit / 4)
        {
            // the program went on allocating after AlmostOutOfMemory: end it for good
            return Err(Unwind::abort(Box::new(Failure {
                kind: crate::interp::ErrorKind::Limit,
                number: 3140,
                class_name: "AlmostOutOfMemory".into(),
                message_text: None,
                description: "a AlmostOutOfMemory occurred (error 3140), the object memory limit was exceeded by more than a quarter".into(),
            })));
        }
        if self.heap.over_limit() && !self.interrupts.memory_signalled {
            self.interrupts.memory_signalled = true;
            let ex = self.new_exception(
                self.k.almost_out_of_memory,
                None,
                Some("object memory limit reached"),
            );
            self.signal(ex)?;
        }
        Ok(())
    }

    #[cold]
    fn take_interrupt(&mut self) -> Result<(), Unwind> {
        match self.interrupts.interrupter.take() {
            Some(true) => Err(Unwind::abort(Box::new(Failure {
                kind: crate::interp::ErrorKind::Break,
                number: 6004,
                class_name: "Break".into(),
                message_text: None,
                description: "a Break occurred (error 6004), hard break".into(),
            }))),
            Some(false) => {
                let ex = self.new_exception(self.k.break_class, None, Some("soft break"));
                self.signal(ex).map(|_| ())
            }
            None => Ok(()),
        }
    }

    /// Runs a method with the receiver at `rp` and its arguments above it.
    #[inline]
    pub fn invoke(&mut self, m: &Arc<Method>, rp: usize) -> R {
        self.invoke_inner(m, rp)
    }

    #[inline(always)]
    pub(super) fn invoke_inner(&mut self, m: &Arc<Method>, rp: usize) -> R {
        let r = match m.dispatch {
            Dispatch::Frame => return self.activate(m, rp),
            Dispatch::IVar(i) => {
                let r = match self.stack[rp] {
                    Value::Obj(o) => self.ivar_get(o, i as usize),
                    _ => Value::Nil,
                };
                self.stack.truncate(rp);
                return Ok(r);
            }
            Dispatch::SetIVar(i) => {
                // an invariant receiver takes the general path, which signals
                if let Value::Obj(o) = self.stack[rp] {
                    let v = self.stack[rp + 1];
                    if self.ivar_set(o, i as usize, v) {
                        self.stack.truncate(rp);
                        return Ok(Value::Obj(o));
                    }
                }
                return self.activate(m, rp);
            }
            Dispatch::SelfReturn => {
                let r = self.stack[rp];
                self.stack.truncate(rp);
                return Ok(r);
            }
            Dispatch::Const => {
                let Trivial::Const(c) = m.trivial else {
                    return self.activate(m, rp);
                };
                self.stack.truncate(rp);
                return Ok(c);
            }
            // the hottest primitives go straight to their implementation
            Dispatch::Block => self.call_block(rp, m.num_args),
            Dispatch::At => Ok(self.prim_at(rp)),
            Dispatch::AtPut => Ok(self.prim_at_put(rp)),
            Dispatch::Size => self.prim_size(rp, m.primitive),
            // loops that call blocks show in stack reports as their method
            Dispatch::Loop => {
                self.frames.acts.push(Act {
                    method: &**m,
                    rp: rp as u32,
                    caller_pos: self.frames.pos,
                });
                self.frames.pos = 0;
                let r = self.prim(m.primitive, rp, m.num_args);
                self.frames.pos = self.frames.acts.pop().map_or(0, |a| a.caller_pos);
                r
            }
            // the collection fast paths, without the general dispatcher
            Dispatch::Collection => {
                let r = self.prim_collection(m.primitive, self.stack[rp], rp, m.num_args);
                if self.heap.refused.is_some() {
                    self.refused_in_primitive(r)
                } else {
                    r
                }
            }
            Dispatch::Prim => self.prim(m.primitive, rp, m.num_args),
        };
        match r {
            Ok(Some(v)) => {
                self.stack.truncate(rp);
                Ok(v)
            }
            // a failed primitive runs the method's statements
            Ok(None) => self.activate(m, rp),
            Err(e) => {
                self.stack.truncate(rp);
                Err(e)
            }
        }
    }

    /// Extends the value stack with nils up to `to` (a frame's temporaries);
    /// does nothing if it already reaches `to`. Inlined: `Vec::resize` is a
    /// call per activation.
    #[inline(always)]
    pub(super) fn grow_frame(&mut self, to: usize) {
        let len = self.stack.len();
        if to > len {
            self.stack.reserve(to - len);
            let p = self.stack.as_mut_ptr();
            for i in len..to {
                // SAFETY: `reserve` made room for `to` values, so `p + i`
                // lies in the allocation; it is written before the length
                // covers it.
                write_nil(unsafe { p.add(i) });
            }
            // SAFETY: slots `len..to` were just initialised.
            unsafe { self.stack.set_len(to) };
        }
    }

    /// Runs a method's statements in a new activation (after its primitive,
    /// if any, failed). Interrupts and limits are checked here: primitives and
    /// trivial methods cannot loop by themselves.
    #[inline(never)]
    extern "C-unwind" fn activate(&mut self, m: &Arc<Method>, rp: usize) -> R {
        if let Err(e) = self.check_interrupt() {
            self.stack.truncate(rp);
            return Err(e);
        }
        self.frames.depth += 1;
        // the native stack is measured at every eighth level: the soft floor
        // is tens of megabytes above the hard one, far more than eight frames
        if self.frames.depth > self.frames.depth_limit
            || (self.frames.depth.is_multiple_of(NATIVE_CHECK_EVERY)
                && crate::object::native_stack::low())
        {
            if let Err(e) = self.stack_overflow() {
                self.frames.depth -= 1;
                self.stack.truncate(rp);
                return Err(e);
            }
        }
        let recv = self.stack[rp];
        self.frames.acts.push(Act {
            method: &**m,
            rp: rp as u32,
            caller_pos: self.frames.pos,
        });
        let base = rp + 1;
        self.grow_frame(base + m.frame_size);
        let env = if m.env_size > 0 {
            let mut slots = vec![Value::Nil; m.env_size];
            for &(a, e) in &m.arg_env {
                slots[e as usize] = self.stack[base + a as usize];
            }
            Value::Obj(self.heap.alloc(self.k.variable_context, Body::Ptr(slots)))
        } else {
            Value::Nil
        };
        // only methods whose blocks use `^` need an identity for non-local return
        let home = if m.needs_home {
            let h = self.fresh_id();
            self.frames.homes.push(h);
            h
        } else {
            0
        };
        let f = Frame {
            recv,
            base,
            env,
            home,
            method: m,
        };
        let mut result = Ok(recv);
        for stmt in &m.body {
            // a `^` statement of the method itself answers without unwinding
            let r = match stmt {
                Node::Return(e) => {
                    result = self.eval_leaf(e, &f);
                    break;
                }
                // so does the `^` of a guard (`n < 2 ifTrue: [^ n]`); any other
                // branch runs as `eval` would run it
                Node::If(parts, site, off) => {
                    let (c, t, e) = &**parts;
                    let branch = match self.eval_leaf(c, &f) {
                        Ok(Value::True) => t,
                        Ok(Value::False) => e,
                        Ok(other) => {
                            if let Err(e) = self.non_boolean(other, *site, *off) {
                                result = Err(e);
                                break;
                            }
                            continue;
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    };
                    if let Some(x) = return_only(branch) {
                        result = self.eval_leaf(x, &f);
                        break;
                    }
                    match branch {
                        // the `nil` of a guard's missing branch: nothing to run
                        Node::Const(_) => continue,
                        other => self.eval(other, &f),
                    }
                }
                // assignments to stack temporaries and conditional statements without entering `eval`
                other => self.block_stmt(other, &f),
            };
            if let Err(e) = r {
                result = Err(e);
                break;
            }
        }
        if m.needs_home {
            self.frames.homes.pop();
        }
        self.frames.pos = self.frames.acts.pop().map_or(0, |a| a.caller_pos);
        self.frames.depth -= 1;
        self.stack.truncate(rp);
        match result {
            Err(u) if self.frames.return_home == home => match *u.0 {
                Unwinding::Return(v) => {
                    self.frames.spare = Some(u.0);
                    Ok(v)
                }
                _ => Err(u),
            },
            other => other,
        }
    }

    /// `basicAt:` / `at:` (primitives 5 and 22) for the receiver at `rp`.
    /// An `Array` receiver is answered here; anything else goes to `basic_at`.
    #[inline(never)]
    extern "C-unwind" fn prim_at(&self, rp: usize) -> Option<Value> {
        // the receiver and index are matched where they lie: copied out
        // whole first, the copy was read back in halves while still being
        // stored (a failed store forward on every `at:`)
        let [r, i] = &self.stack[rp..rp + 2] else {
            return None;
        };
        let &Value::Int(i) = i else { return None };
        if i < 1 {
            return None;
        }
        let i = i as usize - 1;
        if let &Value::Obj(o) = r {
            let obj = self.heap.get(o);
            if obj.class == self.k.array {
                if let Body::Ptr(s) = &obj.body {
                    return s.get(i).map(load_value);
                }
            }
        }
        self.basic_at(*r, i)
    }

    /// `basicSize` / `size` (primitives 4 and 21) for the receiver at `rp`;
    /// `size` of a Rust-backed dictionary takes the general path.
    #[inline]
    fn prim_size(&mut self, rp: usize, n: u16) -> super::primitive::P {
        let r = self.stack[rp];
        if let Value::Obj(o) = r {
            if n == OBJECT_SIZE && matches!(self.heap.get(o).body, Body::Dict(_)) {
                return self.prim(n, rp, 0);
            }
        }
        Ok(Some(Value::Int(self.basic_size(r) as i64)))
    }

    /// `basicAt:put:` / `at:put:` (primitives 6 and 23) for the receiver at `rp`.
    /// An `Array` receiver is stored into here (through the write barrier, as
    /// `basic_at_put` does); anything else goes to `basic_at_put`.
    #[inline(never)]
    extern "C-unwind" fn prim_at_put(&mut self, rp: usize) -> Option<Value> {
        // matched where they lie, as in `prim_at`
        let [r, i, x] = &self.stack[rp..rp + 3] else {
            return None;
        };
        if let (&Value::Obj(o), &Value::Int(n)) = (r, i) {
            let obj = self.heap.get(o);
            if n >= 1 && obj.class == self.k.array && matches!(obj.body, Body::Ptr(_)) {
                let Some(Object {
                    body: Body::Ptr(s), ..
                }) = self.heap.write(o)
                else {
                    return None;
                };
                // the argument was pushed in halves just before: read it
                // as two words (whole, its load straddled both stores)
                let v = load_value(x);
                let slot = s.get_mut(n as usize - 1)?;
                *slot = v;
                return Some(v);
            }
        }
        let (r, i, x) = (*r, *i, *x);
        match i {
            Value::Int(i) if i >= 1 && self.basic_at_put(r, i as usize - 1, x).is_ok() => Some(x),
            _ => None,
        }
    }

    /// The unwind for `^ v` (to `self.frames.return_home`).
    #[inline]
    pub(super) fn unwind_return(&mut self, v: Value) -> Unwind {
        match self.frames.spare.take() {
            Some(mut b) => {
                *b = Unwinding::Return(v);
                Unwind(b)
            }
            None => Unwind(Box::new(Unwinding::Return(v))),
        }
    }

    #[cold]
    pub(super) fn stack_overflow(&mut self) -> Result<(), Unwind> {
        // the frame limit, or the native stack running out (deep expression
        // trees cost native stack a frame count does not see)
        let hard = self.frames.depth > self.frames.depth_limit + DEPTH_HEADROOM
            || crate::object::native_stack::exhausted();
        if hard || self.interrupts.stack_signalled {
            if hard {
                return Err(Unwind::out_of_stack(
                    &self.stack_exceeded(self.frames.depth_limit + DEPTH_HEADROOM),
                ));
            }
            return Ok(());
        }
        self.interrupts.stack_signalled = true;
        let text = self.stack_exceeded(self.frames.depth_limit);
        let ex = self.new_exception(self.k.almost_out_of_stack, None, Some(&text));
        self.signal(ex).map(|_| ())
    }

    /// What ran out: the frames, or the native stack before them.
    fn stack_exceeded(&self, limit: usize) -> String {
        if self.frames.depth > limit {
            format!("the execution stack exceeded {limit} frames")
        } else {
            format!(
                "the execution stack ran out of native stack at {} frames (deeply nested expressions)",
                self.frames.depth
            )
        }
    }
}
