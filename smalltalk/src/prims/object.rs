//! The object primitives (1..=29): identity, class, hash, indexed and named
//! slot access, shallow copies, `become:`-free structural operations, and the
//! engine's own printString of any object (`basic_print`), used where
//! Smalltalk printing cannot run.
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::{identity_hash, quote, selector_arity, symbol_print_body};
use crate::object::primitives::*;

use crate::interp::num::{self};
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::known::exc;
use crate::object::value::{Oop, Value};

impl Vm {
    pub(super) extern "C-unwind" fn prim_object(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        Ok(match n {
            OBJECT_IDENTICAL => Some(Value::bool(r.identical(self.arg(rp, 0)))),
            OBJECT_CLASS => Some(Value::Obj(self.class_of(r))),
            OBJECT_IDENTITY_HASH | OBJECT_HASH => Some(Value::Int(identity_hash(r))),
            OBJECT_BASIC_SIZE | OBJECT_SIZE => {
                if n == OBJECT_SIZE
                    && matches!(r, Value::Obj(o) if matches!(self.heap.get(o).body, Body::Dict(_)))
                {
                    return Ok(self.dict_entries(r).map(|e| Value::Int(e.len() as i64)));
                }
                Some(Value::Int(self.basic_size(r) as i64))
            }
            OBJECT_BASIC_AT | OBJECT_AT => {
                Self::one_based(self.arg(rp, 0)).and_then(|i| self.basic_at(r, i))
            }
            OBJECT_BASIC_AT_PUT | OBJECT_AT_PUT => {
                let (i, x) = (self.arg(rp, 0), self.arg(rp, 1));
                match Self::one_based(i) {
                    Some(i) if self.basic_at_put(r, i, x).is_ok() => Some(x),
                    _ => None,
                }
            }
            OBJECT_INST_VAR_AT => {
                let Value::Obj(o) = r else { return Ok(None) };
                let Some(i) = Self::one_based(self.arg(rp, 0)) else {
                    return Ok(None);
                };
                match &self.heap.get(o).body {
                    Body::Ptr(s) => s.get(i).copied(),
                    Body::Class(c) => c.slots.get(i).copied(),
                    _ => None,
                }
            }
            OBJECT_INST_VAR_AT_PUT => {
                let Value::Obj(o) = r else { return Ok(None) };
                let Some(i) = Self::one_based(self.arg(rp, 0)) else {
                    return Ok(None);
                };
                let x = self.arg(rp, 1);
                let ok = match &self.heap.get(o).body {
                    Body::Ptr(s) => i < s.len(),
                    Body::Class(c) => i < c.slots.len(),
                    _ => false,
                };
                if ok && self.ivar_set(o, i, x) {
                    Some(x)
                } else {
                    None
                }
            }
            OBJECT_SHALLOW_COPY => Some(match r {
                Value::Obj(o) => {
                    let obj = self.heap.get(o);
                    match &obj.body {
                        Body::Class(_) | Body::Method(_) => r,
                        _ if self.is_symbol(r) => r,
                        body => {
                            let (class, body) = (obj.class, body.clone());
                            Value::Obj(self.heap.alloc(class, body))
                        }
                    }
                }
                other => other,
            }),
            OBJECT_PERFORM => {
                // perform: sel with: ...
                let sel = self.arg(rp, 0);
                let Value::Obj(s) = sel else { return Ok(None) };
                if !self.is_symbol(sel) {
                    return Ok(None);
                }
                let args: Vec<Value> = self.stack[rp + 2..rp + 1 + argc].to_vec();
                if selector_arity(&self.string_of(sel).unwrap_or_default()) != args.len() {
                    return Ok(None);
                }
                Some(self.send_msg(r, s, &args)?)
            }
            OBJECT_PERFORM_WITH_ARGUMENTS => {
                let sel = self.arg(rp, 0);
                let Value::Obj(s) = sel else { return Ok(None) };
                let Some(args) = self.array_items(self.arg(rp, 1)) else {
                    return Ok(None);
                };
                if !self.is_symbol(sel)
                    || selector_arity(&self.string_of(sel).unwrap_or_default()) != args.len()
                {
                    return Ok(None);
                }
                Some(self.send_msg(r, s, &args)?)
            }
            OBJECT_IS_KIND_OF => {
                let c = self.arg(rp, 0);
                match c {
                    Value::Obj(co) if self.heap.class_data(co).is_some() => {
                        Some(Value::bool(self.is_kind_of(r, co)))
                    }
                    _ => Some(Value::False),
                }
            }
            OBJECT_RESPONDS_TO => {
                let Value::Obj(s) = self.arg(rp, 0) else {
                    return Ok(Some(Value::False));
                };
                let c = self.class_of(r);
                Some(Value::bool(self.lookup(c, s).is_some()))
            }
            OBJECT_PRINT_STRING => {
                let s = self.basic_print(r, 0);
                Some(self.new_string(&s))
            }
            OBJECT_NOT_IDENTICAL => Some(Value::bool(!r.identical(self.arg(rp, 0)))),
            OBJECT_EQUAL => Some(Value::bool(r.identical(self.arg(rp, 0)))),
            OBJECT_DISPLAY_STRING => {
                let s = match self.string_of(r) {
                    Some(s) => s,
                    None => self.basic_print(r, 0),
                };
                Some(self.new_string(&s))
            }
            OBJECT_IS_MEMBER_OF => {
                let c = self.arg(rp, 0);
                Some(Value::bool(
                    matches!(c, Value::Obj(co) if co == self.class_of(r)),
                ))
            }
            OBJECT_BECOME => {
                let (Value::Obj(a), Value::Obj(b)) = (r, self.arg(rp, 0)) else {
                    return Ok(None);
                };
                let special = |vm: &Vm, o: Oop| {
                    matches!(
                        vm.heap.get(o).body,
                        Body::Class(_) | Body::Method(_) | Body::Block(_)
                    )
                };
                if special(self, a)
                    || special(self, b)
                    || self.is_symbol(r)
                    || self.is_symbol(self.arg(rp, 0))
                {
                    return Ok(None);
                }
                if self.heap.refuses(a) || self.heap.refuses(b) {
                    self.heap.refuse(if self.heap.refuses(a) { a } else { b });
                    return Ok(None);
                }
                let oa = self.heap.get(a).clone();
                let ob = self.heap.get(b).clone();
                self.heap.set_body(a, ob.body);
                self.heap.set_class(a, ob.class);
                self.heap.set_body(b, oa.body);
                self.heap.set_class(b, oa.class);
                Some(r)
            }
            OBJECT_SIGNAL_ERROR => {
                // _signalError: number args: array
                let Value::Int(num) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                let class = self.class_for_error_number(num as u32);
                let ex = self.new_exception(class, None, None);
                if let Value::Obj(o) = ex {
                    self.heap.store(o, exc::NUMBER, Value::Int(num));
                    let a = self.arg(rp, 1);
                    self.heap.store(o, exc::ARGS, a);
                }
                Some(self.signal(ex)?)
            }
            OBJECT_SET_BASIC_SIZE => {
                let Value::Int(size) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                let Value::Obj(o) = r else { return Ok(None) };
                if size < 0 || !self.can_allocate(size as usize * 16) || self.is_symbol(r) {
                    return Ok(None);
                }
                let inst = self.inst_size_of(o);
                let size = size as usize;
                let Some(obj) = self.heap.write(o) else {
                    return Ok(None);
                };
                match &mut obj.body {
                    Body::Ptr(v) => v.resize(inst + size, Value::Nil),
                    Body::Bytes(b) => b.resize(size, 0),
                    Body::Wide(w) => w.resize(size, 0),
                    _ => return Ok(None),
                }
                Some(r)
            }
            OBJECT_DOES_NOT_UNDERSTAND => {
                let msg = self.arg(rp, 0);
                Some(self.signal_mnu(r, msg)?)
            }
            OBJECT_IS_INVARIANT => Some(Value::bool(match r {
                Value::Obj(o) => self.heap.is_invariant(o),
                _ => true,
            })),
            OBJECT_IMMEDIATE_INVARIANT => {
                if let Value::Obj(o) = r {
                    self.heap.set_invariant(o);
                }
                Some(r)
            }
            _ => None,
        })
    }

    /// The VM's own printString (used when Smalltalk printString is missing or fails).
    pub fn basic_print(&self, v: Value, depth: usize) -> String {
        match v {
            Value::Nil => "nil".into(),
            Value::True => "true".into(),
            Value::False => "false".into(),
            Value::Int(i) => i.to_string(),
            Value::Char(c) => format!("${}", char::from_u32(c).unwrap_or('?')),
            Value::Float(f) => num::float_print(f),
            Value::Obj(o) => {
                if let Some(n) = self.to_num(v) {
                    return self.num_print(&n);
                }
                let class = self.heap.get(o).class;
                if self.is_symbol(v) {
                    return format!(
                        "#{}",
                        symbol_print_body(&self.string_of(v).unwrap_or_default())
                    );
                }
                if let Some(s) = self.string_of(v) {
                    return quote(&s);
                }
                if let Some(d) = self.heap.class_data(o) {
                    let n = self.string_of(Value::Obj(d.name)).unwrap_or_default();
                    return if d.is_meta { format!("{n} class") } else { n };
                }
                if class == self.k.array && depth < 4 {
                    let n = self.basic_size(v);
                    let mut s = String::from("anArray(");
                    for i in 0..n.min(100) {
                        if i > 0 {
                            s.push(',');
                        }
                        s.push(' ');
                        s.push_str(
                            &self.basic_print(self.basic_at(v, i).unwrap_or(Value::Nil), depth + 1),
                        );
                    }
                    if n > 100 {
                        s.push_str(", ...");
                    }
                    s.push(')');
                    return s;
                }
                let cname = self.class_name(class);
                let article = if cname.starts_with(['A', 'E', 'I', 'O', 'U']) {
                    "an"
                } else {
                    "a"
                };
                format!("{article}{cname}")
            }
        }
    }

    /// `=` for the primitive collection helpers: identity, numbers, strings.
    pub fn values_equal(&self, a: Value, b: Value) -> bool {
        if a.identical(b) {
            return true;
        }
        if let (Some(x), Some(y)) = (self.to_num(a), self.to_num(b)) {
            return num::compare(&x, &y) == Some(std::cmp::Ordering::Equal);
        }
        if self.is_symbol(a) && self.is_symbol(b) {
            return false;
        }
        match (self.chars_of(a), self.chars_of(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }
}
