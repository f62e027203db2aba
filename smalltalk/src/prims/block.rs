//! The block and exception primitives (250..=260, 270..=285): evaluating
//! blocks with their arguments, `numArgs`, `whileTrue:`-style loops the
//! compiler did not inline, and the exception protocol (`signal`, `on:do:`,
//! `ensure:`, `ifCurtailed:`, `retry`, `pass`, `outer`, `resume:`,
//! `return:`, ...) over the handler stack of `interp::exceptions`.
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::primitive::P;
use crate::interp::{Unwind, Vm};
use crate::object::heap::Body;
use crate::object::known::exc;
use crate::object::value::Value;

impl Vm {
    pub(super) extern "C-unwind" fn prim_block(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        match n {
            250 => self.call_block(rp, argc),
            251 => {
                let Some(args) = self.array_items(self.arg(rp, 0)) else {
                    return Ok(None);
                };
                let Value::Obj(b) = r else { return Ok(None) };
                let Body::Block(c) = &self.heap.get(b).body else {
                    return Ok(None);
                };
                if c.code.num_args != args.len() {
                    return Ok(None);
                }
                Ok(Some(self.call_value(r, &args)?))
            }
            252 => {
                let Value::Obj(b) = r else { return Ok(None) };
                let Body::Block(c) = &self.heap.get(b).body else {
                    return Ok(None);
                };
                Ok(Some(Value::Int(c.code.num_args as i64)))
            }
            253 => {
                let (sel, h) = (self.arg(rp, 0), self.arg(rp, 1));
                Ok(Some(self.on_do(r, sel, h)?))
            }
            254 => {
                let f = self.arg(rp, 0);
                Ok(Some(self.ensure(r, f)?))
            }
            255 => {
                let f = self.arg(rp, 0);
                Ok(Some(self.if_curtailed(r, f)?))
            }
            // the loops run only on blocks: anything else would loop forever
            256 | 257 | 260 if !self.is_block_of(r, 0) => Ok(None),
            258 | 259 if !(self.is_block_of(r, 0) && self.is_block_of(self.arg(rp, 0), 0)) => {
                Ok(None)
            }
            256 | 257 => {
                let want = n == 256;
                loop {
                    let v = self.call_value(r, &[])?;
                    if matches!(v, Value::True) != want {
                        return Ok(Some(Value::Nil));
                    }
                    self.poll()?;
                }
            }
            258 | 259 => {
                let want = n == 258;
                let body = self.arg(rp, 0);
                loop {
                    let v = self.call_value(r, &[])?;
                    if matches!(v, Value::True) != want {
                        return Ok(Some(Value::Nil));
                    }
                    self.call_value(body, &[])?;
                    self.poll()?;
                }
            }
            260 => loop {
                self.call_value(r, &[])?;
                self.poll()?;
            },
            _ => Ok(None),
        }
    }

    pub(super) extern "C-unwind" fn prim_exception(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        if !self.is_kind_of(r, self.k.abstract_exception) {
            return Ok(None);
        }
        let a0 = if argc > 0 {
            self.arg(rp, 0)
        } else {
            Value::Nil
        };
        Ok(Some(match n {
            270 => self.signal(r)?,
            271 => {
                if let Value::Obj(o) = r {
                    self.heap.store(o, exc::MESSAGE_TEXT, a0);
                }
                self.signal(r)?
            }
            272 => self.ex_return(r, a0)?,
            273 => self.ex_retry(r, None)?,
            274 => self.ex_retry(r, Some(a0))?,
            275 => self.ex_pass(r)?,
            276 => self.ex_outer(r)?,
            277 => self.ex_resume(r, a0)?,
            278 => self.ex_resignal_as(r, a0)?,
            279 => self.ex_is_nested(r)?,
            280 => return Err(self.unhandled(r)),
            285 => {
                let d = self.basic_description(r);
                self.new_string(&d)
            }
            _ => return Ok(None),
        }))
    }

    /// Interrupt check for loops run by primitives.
    pub fn poll(&mut self) -> Result<(), Unwind> {
        self.check_interrupt()
    }
}
