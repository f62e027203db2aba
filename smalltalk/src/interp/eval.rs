//! The tree walker: evaluating a method's resolved tree, node by node —
//! variables, assignments, literals, cascades, the inlined control
//! structures, sends with their frameless fast paths (special selectors,
//! getters, setters) — and the helpers of the hot path.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::*;
use crate::object::code::*;
use crate::object::heap::{Body, Object};
use crate::object::value::{Oop, Value};

/// The activation a node is evaluated in.
pub struct Frame<'a> {
    pub recv: Value,
    pub base: usize,
    pub env: Value,
    pub home: u64,
    pub method: &'a Arc<Method>,
}

impl Vm {
    /// The context `depth` levels out from `env` (inlined: called out of
    /// line, its `Value` argument went through memory, read back whole
    /// while its halves were still being stored).
    #[inline(always)]
    fn env_at(&self, env: Value, depth: u16) -> Oop {
        let mut e = env;
        for _ in 0..depth {
            e = match e {
                Value::Obj(o) => self.heap.slot(o, 0),
                _ => Value::Nil,
            };
        }
        match e {
            Value::Obj(o) => o,
            _ => Oop(0),
        }
    }

    /// Resets an inlined block's temporary to nil (see [`write_nil`]).
    #[inline(always)]
    fn nil_slot(&mut self, s: Slot, f: &Frame) {
        match s {
            Slot::Stack(i) => write_nil(&mut self.stack[f.base + i as usize]),
            env => self.set_slot(env, Value::Nil, f),
        }
    }

    #[inline(always)]
    fn set_slot(&mut self, s: Slot, v: Value, f: &Frame) {
        match s {
            Slot::Stack(i) => self.stack[f.base + i as usize] = v,
            Slot::Env(d, i) => {
                let e = self.env_at(f.env, d);
                self.heap.store(e, i as usize, v);
            }
        }
    }

    /// Evaluates a node. Control structures continue with their chosen
    /// branch (or a sequence with its last statement) in the same call, so
    /// inlined code does not nest Rust frames; statements and conditions go
    /// through `eval_leaf`, which answers variables, constants and sends
    /// without re-entering this function.
    pub extern "C-unwind" fn eval(&mut self, n: &Node, f: &Frame) -> R {
        let mut n = n;
        loop {
            return match n {
                Node::Send(s) => self.send_node(s, f),
                Node::Const(v) => Ok(*v),
                Node::SelfRef => Ok(f.recv),
                Node::Temp(i) => Ok(self.stack[f.base + *i as usize]),
                Node::EnvVar(d, i) => {
                    let e = self.env_at(f.env, *d);
                    Ok(self.heap.slot(e, *i as usize))
                }
                Node::IVar(i) => Ok(match f.recv {
                    Value::Obj(o) => self.ivar_get(o, *i as usize),
                    _ => Value::Nil,
                }),
                Node::SetSlot(Slot::Stack(i), e) => {
                    let v = self.eval_leaf(e, f)?;
                    self.stack[f.base + *i as usize] = v;
                    Ok(v)
                }
                Node::Seq(nodes, temps) => {
                    for &t in temps {
                        self.nil_slot(t, f);
                    }
                    match nodes.split_last() {
                        None => Ok(Value::Nil),
                        Some((last, rest)) => {
                            for x in rest {
                                self.eval_leaf(x, f)?;
                            }
                            n = last;
                            continue;
                        }
                    }
                }
                Node::If(parts, site, off) => {
                    let (c, t, e) = &**parts;
                    n = match self.eval_leaf(c, f)? {
                        Value::True => t,
                        Value::False => e,
                        other => return self.non_boolean(other, *site, *off),
                    };
                    // the `nil` of a missing branch answers without another dispatch
                    if let Node::Const(v) = n {
                        return Ok(*v);
                    }
                    continue;
                }
                Node::And(parts, site, off) => {
                    let (a, b) = &**parts;
                    match self.eval_leaf(a, f)? {
                        Value::True => n = b,
                        Value::False => return Ok(Value::False),
                        other => return self.non_boolean(other, *site, *off),
                    }
                    continue;
                }
                Node::Or(parts, site, off) => {
                    let (a, b) = &**parts;
                    match self.eval_leaf(a, f)? {
                        Value::True => return Ok(Value::True),
                        Value::False => n = b,
                        other => return self.non_boolean(other, *site, *off),
                    }
                    continue;
                }
                // a block without outer references: its one closure (`at:ifAbsent: [0]`)
                Node::Block(code) if code.simple_site.is_some() => {
                    let site = code.simple_site.unwrap_or_default();
                    Ok(self.simple_block(code, site, f))
                }
                // `^` in an inlined block of a method (`x ifTrue: [^ y]`)
                Node::Return(e) => {
                    let v = self.eval_leaf(e, f)?;
                    self.frames.return_home = f.home;
                    Err(self.unwind_return(v))
                }
                _ => self.eval_cold(n, f),
            };
        }
    }

    /// The less frequent node kinds, kept out of `eval` so its frame stays small.
    #[inline(never)]
    extern "C-unwind" fn eval_cold(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Global(a) => Ok(self.heap.slot(*a, 1)),
            Node::SetSlot(s, e) => {
                let v = self.eval_leaf(e, f)?;
                self.set_slot(*s, v, f);
                Ok(v)
            }
            Node::SetIVar(i, e) => {
                let v = self.eval_leaf(e, f)?;
                if let Value::Obj(o) = f.recv {
                    if !self.ivar_set(o, *i as usize, v) || self.heap.refused.is_some() {
                        return self.ivar_store_failed();
                    }
                }
                Ok(v)
            }
            Node::SetGlobal(a, e) => {
                let v = self.eval(e, f)?;
                if !self.heap.store(*a, 1, v) && self.heap.refused.is_some() {
                    return self.signal_refused_write();
                }
                Ok(v)
            }
            Node::Cascade(recv, parts) => {
                let r = self.eval(recv, f)?;
                let mut last = Value::Nil;
                for p in parts {
                    last = self.cascade_send(r, p, f)?;
                    for c in &p.chain {
                        last = self.cascade_send(last, c, f)?;
                    }
                }
                Ok(last)
            }
            Node::Block(code) => Ok(self.block_closure(code, f)),
            Node::Brace(items) => {
                // the elements wait on the value stack, where the collector sees them
                let sp = self.stack.len();
                for i in items {
                    match self.eval(i, f) {
                        Ok(v) => self.stack.push(v),
                        Err(e) => {
                            self.stack.truncate(sp);
                            return Err(e);
                        }
                    }
                }
                let vals: Vec<Value> = self.stack.drain(sp..).collect();
                Ok(self.new_array(vals))
            }
            Node::NonLocalReturn(e) => {
                let v = self.eval(e, f)?;
                if self.frames.homes.iter().rev().any(|&h| h == f.home) {
                    self.frames.return_home = f.home;
                    Err(self.unwind_return(v))
                } else {
                    let ex = self.new_exception(
                        self.k.cannot_return,
                        None,
                        Some("the home context of this block has already returned"),
                    );
                    self.signal(ex)
                }
            }
            Node::While(parts, until, off) => {
                let (cond, body) = &**parts;
                loop {
                    let c = self.eval_cond(cond, f)?;
                    match (c, *until) {
                        (Value::True, true) | (Value::False, false) => {}
                        (Value::True, false) | (Value::False, true) => break,
                        (other, _) => {
                            self.non_boolean(other, u32::MAX, *off)?;
                        }
                    }
                    self.run_body(body, f)?;
                    self.check_interrupt()?;
                }
                Ok(Value::Nil)
            }
            Node::Repeat(body, _) => loop {
                self.run_body(body, f)?;
                self.check_interrupt()?;
            },
            Node::TimesRepeat(parts, _) => {
                let (count, body) = &**parts;
                let n = self.eval(count, f)?;
                let Value::Int(n) = n else {
                    return self.signal_error(
                        self.k.argument_type_error,
                        "timesRepeat: needs a SmallInteger receiver",
                    );
                };
                for _ in 0..n.max(0) {
                    self.run_body(body, f)?;
                    self.check_interrupt()?;
                }
                Ok(n.into_value())
            }
            Node::ToDo(t) => self.eval_to_do(t, f),
            Node::IfNil(parts) => {
                let (v, nil_branch, not_nil) = &**parts;
                let v = self.eval(v, f)?;
                if v.is_nil() {
                    match nil_branch {
                        Some(b) => self.eval(b, f),
                        None => Ok(Value::Nil),
                    }
                } else {
                    match not_nil {
                        Some((slot, b)) => {
                            if let Some(s) = slot {
                                self.set_slot(*s, v, f);
                            }
                            self.eval(b, f)
                        }
                        None => Ok(v),
                    }
                }
            }
            _ => Ok(Value::Nil),
        }
    }

    /// The error for an assignment to an instance variable that was not
    /// stored: refused by the write barrier, or an invariant receiver.
    #[cold]
    #[inline(never)]
    fn ivar_store_failed(&mut self) -> R {
        if self.heap.refused.is_some() {
            return self.signal_refused_write();
        }
        self.signal_error(
            self.k.improper_operation,
            "attempt to modify an invariant object",
        )
    }

    /// The value of a block expression: a simple block's one closure, or a
    /// new closure over frame `f`.
    #[inline(never)]
    extern "C-unwind" fn block_closure(&mut self, code: &Arc<BlockCode>, f: &Frame) -> Value {
        if let Some(site) = code.simple_site {
            return self.simple_block(code, site, f);
        }
        Value::Obj(self.new_closure(code, f))
    }

    /// A new closure of `code` over frame `f` (its method, receiver,
    /// environment and home).
    #[inline(always)]
    fn new_closure(&mut self, code: &Arc<BlockCode>, f: &Frame) -> Oop {
        self.heap
            .alloc_block(self.k.exec_block, code, f.method, f.recv, f.env, f.home)
    }

    /// The one closure of a simple block, made on first use. The cache entry
    /// names the code it belongs to: doit sites are reused after the doit ends.
    extern "C-unwind" fn simple_block(
        &mut self,
        code: &Arc<BlockCode>,
        site: u32,
        f: &Frame,
    ) -> Value {
        let key = Oop(Arc::as_ptr(code) as u64);
        if let Some(c) = self.sends.site(site) {
            if c.selector == SIMPLE_BLOCK && c.class == key && !c.block.is_nil() {
                return c.block;
            }
        }
        let v = Value::Obj(self.new_closure(code, f));
        if let Some(c) = self.sends.site_mut(site) {
            *c = Cache {
                class: key,
                selector: SIMPLE_BLOCK,
                method: None,
                class2: NO_CLASS,
                method2: None,
                block: v,
                getter: 0,
            };
        }
        v
    }

    /// Pushes a receiver and its evaluated arguments for a send; answers the
    /// receiver's stack index. An argument that fails leaves the stack as it was.
    #[inline(always)]
    fn push_send(&mut self, r: Value, args: &[Node], f: &Frame) -> Result<usize, Unwind> {
        let rp = self.stack.len();
        self.stack.push(r);
        for a in args {
            match self.eval_leaf(a, f) {
                Ok(v) => self.stack.push(v),
                Err(e) => {
                    self.stack.truncate(rp);
                    return Err(e);
                }
            }
        }
        Ok(rp)
    }

    /// Sends one cascade message to `r`.
    extern "C-unwind" fn cascade_send(&mut self, r: Value, p: &CascadePart, f: &Frame) -> R {
        let rp = self.push_send(r, &p.args, f)?;
        self.frames.pos = p.offset as u32;
        self.send_at_site(p.selector, rp, p.site)
    }

    /// Runs an inlined loop body whose value is not used: a sequence's
    /// statements one after another, without entering `eval` for it.
    #[inline(always)]
    fn run_body(&mut self, n: &Node, f: &Frame) -> Result<(), Unwind> {
        match n {
            Node::Seq(nodes, temps) => {
                for &t in temps {
                    self.nil_slot(t, f);
                }
                for x in nodes {
                    self.block_stmt(x, f)?;
                }
                Ok(())
            }
            other => self.block_stmt(other, f).map(|_| ()),
        }
    }

    /// The value of an inlined loop condition: a sequence of one statement
    /// without temporaries is evaluated as that statement.
    #[inline(always)]
    fn eval_cond(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Seq(nodes, temps) if temps.is_empty() && nodes.len() == 1 => {
                self.eval_leaf(&nodes[0], f)
            }
            other => self.eval_leaf(other, f),
        }
    }

    extern "C-unwind" fn eval_to_do(&mut self, t: &ToDoNode, f: &Frame) -> R {
        let from = self.eval(&t.from, f)?;
        let to = self.eval(&t.to, f)?;
        let by = match &t.by {
            Some(b) => self.eval(b, f)?,
            None => Value::Int(1),
        };
        if let (Value::Int(a), Value::Int(b), Value::Int(s)) = (from, to, by) {
            if s == 0 {
                return self.signal_error(self.k.argument_error, "to:by:do: step must not be zero");
            }
            let mut i = a;
            while (s > 0 && i <= b) || (s < 0 && i >= b) {
                // the counter goes straight into its slot: made in a
                // temporary and copied whole, its two halves were read back
                // while still being stored (a failed store forward)
                match t.var {
                    Slot::Stack(k) => self.stack[f.base + k as usize] = Value::Int(i),
                    var => self.set_slot(var, Value::Int(i), f),
                }
                self.run_body(&t.body, f)?;
                self.check_interrupt()?;
                i += s;
            }
            return Ok(from);
        }
        // general numbers: use sends
        let mut i = from;
        let positive = matches!(self.send_str(by, ">", &[Value::Int(0)])?, Value::True);
        loop {
            let cmp = if positive { "<=" } else { ">=" };
            if !matches!(self.send_str(i, cmp, &[to])?, Value::True) {
                break;
            }
            self.set_slot(t.var, i, f);
            self.eval(&t.body, f)?;
            self.check_interrupt()?;
            i = self.send_str(i, "+", &[by])?;
        }
        Ok(from)
    }

    #[cold]
    pub(super) extern "C-unwind" fn non_boolean(&mut self, v: Value, _site: u32, _off: usize) -> R {
        let sel = self.sels.must_be_boolean;
        self.send_msg(v, sel, &[])
    }

    #[inline(never)]
    extern "C-unwind" fn eval_send(&mut self, s: &SendNode, f: &Frame) -> R {
        let r = self.eval_leaf(&s.recv, f)?;
        if s.args.len() == 1 && s.special != Special::None {
            let a = self.eval_leaf(&s.args[0], f)?;
            if let Some(v) = fast_special(s.special, r, a) {
                return Ok(v);
            }
            let rp = self.stack.len();
            self.stack.push(r);
            self.stack.push(a);
            self.frames.pos = s.offset as u32;
            if s.super_of.is_none() {
                return self.send_at_site(s.selector, rp, s.site);
            }
            return self.send(s.selector, rp, Some(s.site), s.super_of);
        }
        let rp = self.push_send(r, &s.args, f)?;
        self.frames.pos = s.offset as u32;
        if s.super_of.is_none() {
            return self.send_at_site(s.selector, rp, s.site);
        }
        self.send(s.selector, rp, Some(s.site), s.super_of)
    }

    /// `eval` with the leaf nodes (variables, globals, constants) answered in place,
    /// saving a call for the commonest receivers and arguments.
    #[inline(always)]
    pub(super) fn eval_leaf(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Temp(i) => Ok(self.stack[f.base + *i as usize]),
            Node::Const(v) => Ok(*v),
            Node::SelfRef => Ok(f.recv),
            Node::IVar(i) => Ok(match f.recv {
                Value::Obj(o) => self.ivar_get(o, *i as usize),
                _ => Value::Nil,
            }),
            Node::Send(s) => self.send_node(s, f),
            Node::EnvVar(d, i) => {
                let e = self.env_at(f.env, *d);
                Ok(self.heap.slot(e, *i as usize))
            }
            // a global (`OrderedCollection new`): its Association's value
            Node::Global(a) => Ok(self.heap.slot(*a, 1)),
            // a block argument (`do: [:x | ...]`), without entering `eval`
            Node::Block(code) => Ok(self.block_closure(code, f)),
            // an assignment of a send's answer to a temporary (`i := i + 1`)
            Node::SetSlot(Slot::Stack(i), e) if matches!(**e, Node::Send(_)) => {
                self.assign_send(*i, e, f)
            }
            // the same for an instance variable (`count := count + 1`)
            Node::SetIVar(i, e) if matches!(**e, Node::Send(_)) => self.assign_ivar_send(*i, e, f),
            _ => self.eval(n, f),
        }
    }

    /// `temp := <send>`: the send's answer stored in the frame's slot `i`.
    #[inline(never)]
    extern "C-unwind" fn assign_send(&mut self, i: u16, e: &Node, f: &Frame) -> R {
        let Node::Send(s) = e else {
            return self.eval(e, f);
        };
        let v = self.send_node(s, f)?;
        self.stack[f.base + i as usize] = v;
        Ok(v)
    }

    /// `ivar := <send>`: the send's answer stored in the receiver's
    /// instance variable `i` (through the write barrier, as `eval_cold` does).
    #[inline(never)]
    extern "C-unwind" fn assign_ivar_send(&mut self, i: u16, e: &Node, f: &Frame) -> R {
        let Node::Send(s) = e else {
            return self.eval(e, f);
        };
        let v = self.send_node(s, f)?;
        if let Value::Obj(o) = f.recv {
            if !self.ivar_set(o, i as usize, v) || self.heap.refused.is_some() {
                return self.ivar_store_failed();
            }
        }
        Ok(v)
    }

    /// A send node: SmallInteger/Float arithmetic and comparisons between
    /// variables and constants are answered in place, anything else goes
    /// through `eval_send`.
    #[inline(always)]
    fn send_node(&mut self, s: &SendNode, f: &Frame) -> R {
        if s.leaf_special {
            let r = self.leaf_value(&s.recv, f);
            let a = self.leaf_value(&s.args[0], f);
            if let Some(v) = fast_special(s.special, r, a) {
                return Ok(v);
            }
        }
        if s.leaf_unary {
            if let Some(v) = self.cached_getter(s, f) {
                return Ok(v);
            }
        }
        self.eval_send(s, f)
    }

    /// The answer of unary send `s` (its receiver a variable) when the
    /// site's cache holds a getter (`^ ivar`) for the receiver's class: the
    /// instance variable, read without pushing the receiver or entering
    /// `eval_send` (whose prologue and epilogue cost more than the read).
    /// The site's `getter` mark is tested first, so any other send pays one
    /// load and branch here. Anything else (a miss, another kind of method,
    /// a class or a non-object receiver) answers None and takes the general
    /// path, which then answers the same.
    #[inline(always)]
    fn cached_getter(&self, s: &SendNode, f: &Frame) -> Option<Value> {
        let c = self.sends.site(s.site)?;
        if c.getter == 0 {
            return None;
        }
        let Value::Obj(o) = self.leaf_value(&s.recv, f) else {
            return None;
        };
        let obj = self.heap.get(o);
        if c.class != obj.class || c.selector != s.selector {
            return None;
        }
        match &obj.body {
            Body::Ptr(slots) => Some(
                slots
                    .get(c.getter as usize - 1)
                    .copied()
                    .unwrap_or(Value::Nil),
            ),
            _ => None,
        }
    }

    /// The value of a variable or constant node (nil for anything else,
    /// which `leaf_special` and `leaf_unary` rule out).
    #[inline(always)]
    fn leaf_value(&self, n: &Node, f: &Frame) -> Value {
        match n {
            Node::Temp(i) => self.stack[f.base + *i as usize],
            Node::Const(v) => *v,
            Node::SelfRef => f.recv,
            Node::IVar(i) => match f.recv {
                Value::Obj(o) => self.ivar_get(o, *i as usize),
                _ => Value::Nil,
            },
            Node::EnvVar(d, i) => {
                let e = self.env_at(f.env, *d);
                self.heap.slot(e, *i as usize)
            }
            _ => Value::Nil,
        }
    }

    #[inline]
    pub extern "C-unwind" fn ivar_get(&self, o: Oop, i: usize) -> Value {
        match &self.heap.get(o).body {
            Body::Ptr(s) => s.get(i).copied().unwrap_or(Value::Nil),
            Body::Class(c) => c.slots.get(i).copied().unwrap_or(Value::Nil),
            _ => Value::Nil,
        }
    }

    /// Stores instance variable `i` of `o` through the write barrier; false
    /// only when `o` is invariant (a refused store answers true and leaves
    /// `heap.refused` set, as `Heap::store` does).
    #[inline]
    pub extern "C-unwind" fn ivar_set(&mut self, o: Oop, i: usize, v: Value) -> bool {
        self.heap.store_plain(o, i, v) || self.ivar_set_barrier(o, i, v)
    }

    /// `ivar_set` of an object the write barrier has a say in (invariant,
    /// persistent) or that is not a plain pointer object (a class).
    #[inline(never)]
    extern "C-unwind" fn ivar_set_barrier(&mut self, o: Oop, i: usize, v: Value) -> bool {
        if let Body::Class(_) = &self.heap.get(o).body {
            return self.class_ivar_set(o, i, v);
        }
        match self.heap.write(o) {
            Some(Object {
                body: Body::Ptr(s), ..
            }) => {
                if let Some(slot) = s.get_mut(i) {
                    *slot = v;
                }
                true
            }
            Some(_) => true,
            None => !self.heap.is_invariant(o),
        }
    }

    /// `ivar_set` on a class: its class-side instance variables, whatever
    /// its invariance (class definitions are VM bookkeeping).
    #[cold]
    fn class_ivar_set(&mut self, o: Oop, i: usize, v: Value) -> bool {
        let c = self.heap.class_data_mut(o);
        if i < c.slots.len() {
            c.slots[i] = v;
        }
        true
    }

    /// Wraps a method's Arc in a GsNMethod object (once).
    pub fn method_object(&mut self, m: &Arc<Method>) -> Oop {
        let cur = m.oop.load(Ordering::Relaxed);
        if cur != 0 {
            return Oop(cur);
        }
        // old at birth: `m.oop` names it, and old closures and methods share `m`
        // without going through the write barrier
        let o = self.heap.alloc_old(self.k.method, Body::Method(m.clone()));
        m.oop.store(o.0, Ordering::Relaxed);
        o
    }
}

trait IntoValue {
    fn into_value(self) -> Value;
}
impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::Int(self)
    }
}

/// Writes nil into a value-stack slot as one 16-byte store of zeros (the
/// tag of `Nil` is 0). A plain `Value::Nil` store writes the tag word only,
/// and the next whole read of the slot (a temporary's first use, a copy)
/// then straddles that store and older memory: a failed store-to-load
/// forward.
#[inline(always)]
pub(super) fn write_nil(slot: *mut Value) {
    // SAFETY: `Value` is `repr(u64)` with `Nil` as discriminant 0, so two
    // zero words are a valid `Nil`; callers pass a slot inside the value
    // stack's allocation (possibly not yet initialised).
    unsafe { slot.cast::<[u64; 2]>().write([0, 0]) }
}

/// Reads a `Value` out of memory as two 8-byte words into registers. A
/// plain `*v` lets rustc move it with one 16-byte load: after the value
/// was stored as two words (a push from registers) that load cannot be
/// forwarded from the store buffer, and copied into a 16-byte temporary
/// that is read back in halves it stalls the same way (most of `prim_at`'s
/// samples sat on such a reload). The reads are volatile so they are not
/// merged into one wide load again.
#[inline(always)]
pub(crate) fn load_value(v: &Value) -> Value {
    use std::mem::MaybeUninit;
    let p = (v as *const Value).cast::<MaybeUninit<u64>>();
    // SAFETY: a `Value` is 16 bytes, so both words lie inside `*v`; they
    // are read as `MaybeUninit` (a tag without payload leaves the second
    // word uninitialised) and put back together unchanged, so the result
    // is the same valid `Value`.
    unsafe {
        let w = [p.read_volatile(), p.add(1).read_volatile()];
        std::mem::transmute::<[MaybeUninit<u64>; 2], Value>(w)
    }
}

/// The expression of an inlined branch that is only `^ expr` (`[^ expr]`).
#[inline(always)]
pub(super) fn return_only(n: &Node) -> Option<&Node> {
    match n {
        Node::Seq(nodes, temps) if temps.is_empty() && nodes.len() == 1 => match &nodes[0] {
            Node::Return(e) => Some(e),
            _ => None,
        },
        Node::Return(e) => Some(e),
        _ => None,
    }
}

/// Whether a double is a SmallDouble (see VM.md, Decisions).
pub fn is_small_double(f: f64) -> bool {
    if f == 0.0 {
        return true;
    }
    if !f.is_finite() {
        return false;
    }
    let exp = ((f.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    (-126..=127).contains(&exp)
}

#[inline(always)]
fn fast_special(sp: Special, r: Value, a: Value) -> Option<Value> {
    use crate::object::value::Value::Int;
    match (sp, r, a) {
        (Special::IdEq, _, _) => Some(Value::bool(r.identical(a))),
        (Special::IdNe, _, _) => Some(Value::bool(!r.identical(a))),
        (_, Int(x), Int(y)) => match sp {
            Special::Add => Value::small_int(x + y),
            Special::Sub => Value::small_int(x - y),
            Special::Mul => x.checked_mul(y).and_then(Value::small_int),
            Special::Lt => Some(Value::bool(x < y)),
            Special::Gt => Some(Value::bool(x > y)),
            Special::Le => Some(Value::bool(x <= y)),
            Special::Ge => Some(Value::bool(x >= y)),
            Special::Eq => Some(Value::bool(x == y)),
            Special::Ne => Some(Value::bool(x != y)),
            Special::IntDiv if y != 0 => Some(Int(floor_div(x, y))),
            Special::Mod if y != 0 => Some(Int(((x % y) + y) % y)),
            Special::BitAnd => Some(Int(x & y)),
            Special::BitOr => Some(Int(x | y)),
            _ => None,
        },
        (_, Value::Float(x), Value::Float(y)) => match sp {
            Special::Add => Some(Value::Float(x + y)),
            Special::Sub => Some(Value::Float(x - y)),
            Special::Mul => Some(Value::Float(x * y)),
            Special::Lt => Some(Value::bool(x < y)),
            Special::Gt => Some(Value::bool(x > y)),
            Special::Le => Some(Value::bool(x <= y)),
            Special::Ge => Some(Value::bool(x >= y)),
            Special::Eq => Some(Value::bool(x == y)),
            Special::Ne => Some(Value::bool(x != y)),
            _ => None,
        },
        _ => None,
    }
}

/// Floor division of SmallIntegers (`//`).
pub fn floor_div(x: i64, y: i64) -> i64 {
    let q = x / y;
    if x % y != 0 && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    }
}
