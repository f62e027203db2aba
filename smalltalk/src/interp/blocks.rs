//! Blocks: calling a closure, its statements and its non-local return, and
//! [`BlockLoop`], a block entered once and called over and over by a looping
//! primitive.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use super::*;
use crate::object::code::*;
use crate::object::heap::{Body, Closure};
use crate::object::value::Value;

/// A block that a primitive calls in a loop, checked once (see
/// [`Vm::block_loop`]).
pub struct BlockLoop {
    cl: *const Closure,
    /// Where the block's frame starts, and ends.
    pub(crate) base: usize,
    frame: usize,
    /// Whether the frame holds temporaries besides the arguments.
    temps: bool,
    /// The send offset in the primitive's activation (what its record on
    /// `Vm::frames.acts` says it was called from).
    caller_pos: u32,
}

impl Vm {
    /// Evaluates a block closure with the arguments on the stack above `rp`
    /// (the block itself is at `rp`). `None` when the argument count is wrong.
    pub extern "C-unwind" fn call_block(
        &mut self,
        rp: usize,
        argc: usize,
    ) -> Result<Option<Value>, Unwind> {
        let Value::Obj(bo) = self.stack[rp] else {
            return Ok(None);
        };
        let Body::Block(cl) = &self.heap.get(bo).body else {
            return Ok(None);
        };
        if cl.code.num_args != argc {
            return Ok(None);
        }
        let clp: *const Closure = &**cl;
        // SAFETY: the closure is boxed inside the block object, which stays at
        // `self.stack[rp]` for the whole call. Heap objects are only freed by the
        // collector at safe points, `become:` moves the box without dropping it,
        // and closures are never rewritten in place (nor loaded from the
        // repository), so the box and the Arcs it owns outlive this call.
        let cl: &Closure = unsafe { &*clp };
        let r = self.run_block(cl, rp, rp + 1);
        self.stack.truncate(rp);
        r.map(Some)
    }

    /// Runs closure `cl` (the block object at `self.stack[bp]`) with its
    /// arguments at `self.stack[base..]`: the interrupt and depth checks, the
    /// activation record, the temporaries and environment, the statements.
    /// Leaves the stack at `base + frame_size` or above; the caller truncates.
    #[inline(always)]
    fn run_block(&mut self, cl: &Closure, bp: usize, base: usize) -> R {
        self.check_interrupt()?;
        self.frames.depth += 1;
        if self.frames.depth > self.frames.depth_limit || crate::object::native_stack::low() {
            if let Err(e) = self.stack_overflow() {
                self.frames.depth -= 1;
                return Err(e);
            }
        }
        self.grow_frame(base + cl.code.frame_size);
        let r = self.block_body(cl, bp, base);
        self.frames.depth -= 1;
        r
    }

    /// The part of a block call every call needs once its frame is on the
    /// stack (sized, arguments written, temporaries nil) and the depth is
    /// counted: the activation record, the environment, the statements.
    #[inline(always)]
    fn block_body(&mut self, cl: &Closure, bp: usize, base: usize) -> R {
        self.frames.acts.push(Act {
            method: std::ptr::null(),
            rp: bp as u32,
            caller_pos: self.frames.pos,
        });
        let result = self.block_statements(cl, base);
        self.frames.pos = self.frames.acts.pop().map_or(0, |a| a.caller_pos);
        result
    }

    /// A block's environment (if it has one of its own) and statements, with
    /// its frame at `base`.
    #[inline(always)]
    fn block_statements(&mut self, cl: &Closure, base: usize) -> R {
        let code = &*cl.code;
        let env = if code.env_size > 0 {
            let mut slots = vec![Value::Nil; code.env_size];
            slots[0] = cl.env;
            for &(a, e) in &code.arg_env {
                slots[e as usize] = self.stack[base + a as usize];
            }
            Value::Obj(self.heap.alloc(self.k.variable_context, Body::Ptr(slots)))
        } else {
            cl.env
        };
        let f = Frame {
            recv: cl.receiver,
            base,
            env,
            home: cl.home,
            method: &cl.method,
        };
        match code.body.split_last() {
            Some((last, rest)) => {
                for stmt in rest {
                    self.block_stmt(stmt, &f)?;
                }
                self.block_stmt(last, &f)
            }
            None => Ok(Value::Nil),
        }
    }

    /// One statement of a real block or an inlined loop's body, the
    /// commonest kinds answered without entering `eval`: an assignment to a
    /// stack temporary, and a conditional (`each > limit ifTrue: [^ each]`)
    /// whose constant branch (the `nil` of a missing `ifFalse:`) answers in
    /// place.
    #[inline(always)]
    pub(super) fn block_stmt(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::SetSlot(Slot::Stack(i), e) => {
                let v = self.eval_leaf(e, f)?;
                self.stack[f.base + *i as usize] = v;
                Ok(v)
            }
            Node::If(parts, site, off) => {
                let (c, t, e) = &**parts;
                let branch = match self.eval_leaf(c, f)? {
                    Value::True => t,
                    Value::False => e,
                    other => return self.non_boolean(other, *site, *off),
                };
                match branch {
                    Node::Const(v) => Ok(*v),
                    other => self.eval(other, f),
                }
            }
            _ => self.eval_leaf(n, f),
        }
    }

    /// Runs `body` as a primitive's loop over the block at `self.stack[bp]`
    /// (`do:` and its kin); `Ok(None)` (the primitive fails) unless it is a
    /// block taking `argc` arguments. What is the same for every call is
    /// done once here: the closure is found and checked, the depth counted
    /// and checked against the limits, the frame put on the stack, the
    /// block's activation record pushed (it stays for the loop: `body` runs
    /// anything other than a block call through [`Vm::between_calls`]). The
    /// block object must stay at `bp` until the loop ends; the block's frame
    /// stays on the stack above the primitive's between calls (the
    /// primitive's own return truncates it), so anything `body` pushes
    /// between calls goes above it and must be popped again.
    #[inline(always)]
    pub fn block_loop(
        &mut self,
        bp: usize,
        argc: usize,
        body: impl FnOnce(&mut Vm, &BlockLoop) -> super::primitive::P,
    ) -> super::primitive::P {
        let Value::Obj(bo) = self.stack[bp] else {
            return Ok(None);
        };
        let l = match &self.heap.get(bo).body {
            Body::Block(cl) if cl.code.num_args == argc => {
                let base = self.stack.len();
                BlockLoop {
                    cl: &**cl,
                    base,
                    frame: base + cl.code.frame_size,
                    temps: cl.code.frame_size > argc,
                    caller_pos: self.frames.pos,
                }
            }
            _ => return Ok(None),
        };
        self.frames.depth += 1;
        if self.frames.depth > self.frames.depth_limit || crate::object::native_stack::low() {
            if let Err(e) = self.stack_overflow() {
                self.frames.depth -= 1;
                return Err(e);
            }
        }
        self.grow_frame(l.frame);
        self.frames.acts.push(Act {
            method: std::ptr::null(),
            rp: bp as u32,
            caller_pos: l.caller_pos,
        });
        let records = self.frames.acts.len();
        let r = body(self, &l);
        // every activation above the loop's record has popped its own by now
        // (on every way out); the loop's may be off already (`between_calls`)
        self.frames.acts.truncate(records - 1);
        self.frames.pos = l.caller_pos;
        self.frames.depth -= 1;
        r
    }

    /// One call of a loop's block with `args` (as many as it takes): what
    /// `value:` does, without finding and checking the closure, counting
    /// the depth, sizing the frame or pushing the activation record again.
    /// The arguments are written into the frame here, in the primitive's
    /// loop, one slot at a time: passed on as a slice they were read back
    /// as whole values while their halves were still being stored, which
    /// stalls the load (a failed store-to-load forward) on every call.
    #[inline(always)]
    pub fn block_loop_call(&mut self, l: &BlockLoop, args: &[Value]) -> R {
        // the frame stays between calls: only its arguments and temporaries
        // are written again (the arguments before the interrupt check, which
        // may collect: the value stack is where the collector sees them)
        self.block_loop_frame(l);
        for (k, &a) in args.iter().enumerate() {
            self.stack[l.base + k] = a;
        }
        self.block_loop_run(l, args.len())
    }

    /// Sizes a loop block's frame again when the last call (or a send made
    /// between calls) left the value stack otherwise.
    #[inline(always)]
    pub fn block_loop_frame(&mut self, l: &BlockLoop) {
        if self.stack.len() > l.frame {
            self.stack.truncate(l.frame);
        } else {
            self.grow_frame(l.frame);
        }
    }

    /// The rest of [`Vm::block_loop_call`] once the `argc` arguments are in
    /// the frame (sized by [`Vm::block_loop_frame`]): the temporaries, the
    /// interrupt check, the statements.
    #[inline(never)]
    pub extern "C-unwind" fn block_loop_run(&mut self, l: &BlockLoop, argc: usize) -> R {
        // SAFETY: as in `call_block`: the block object stays at its stack
        // index for the loop (`block_loop`'s contract), so its boxed closure
        // outlives every call.
        let cl: &Closure = unsafe { &*l.cl };
        if l.temps {
            for t in &mut self.stack[l.base + argc..l.frame] {
                write_nil(t);
            }
        }
        if self.interrupts.interrupter.pending() || self.heap.gc_due() {
            self.between_calls(l, |vm| vm.check_interrupt())?;
        }
        let r = self.block_statements(cl, l.base);
        self.frames.pos = l.caller_pos;
        r
    }

    /// Runs `f` in a block loop's primitive between two calls of its block
    /// (an `at:` the primitive sends, `mustBeBoolean`, the interrupt check):
    /// without the block's activation record and depth, so a stack report
    /// made meanwhile shows the primitive as the innermost activation.
    #[cold]
    #[inline(never)]
    pub fn between_calls<T>(
        &mut self,
        l: &BlockLoop,
        f: impl FnOnce(&mut Vm) -> Result<T, Unwind>,
    ) -> Result<T, Unwind> {
        let record = self.frames.acts.pop();
        self.frames.depth -= 1;
        let r = f(self);
        self.frames.depth += 1;
        if let Some(a) = record {
            self.frames.acts.push(a);
        }
        self.frames.pos = l.caller_pos;
        r
    }

    /// Calls a block (or anything answering `value…`) from Rust.
    pub fn call_value(&mut self, block: Value, args: &[Value]) -> R {
        let rp = self.stack.len();
        self.stack.push(block);
        self.stack.extend_from_slice(args);
        if let Some(v) = self.call_block(rp, args.len())? {
            return Ok(v);
        }
        self.stack.truncate(rp);
        let sel = match args.len() {
            0 => "value",
            1 => "value:",
            2 => "value:value:",
            3 => "value:value:value:",
            _ => "value:value:value:value:",
        };
        self.send_str(block, sel, args)
    }
}
