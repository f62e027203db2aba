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
use crate::object::primitives::*;
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
            BLOCK_VALUE => self.call_block(rp, argc),
            BLOCK_VALUE_WITH_ARGUMENTS => {
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
            BLOCK_NUM_ARGS => {
                let Value::Obj(b) = r else { return Ok(None) };
                let Body::Block(c) = &self.heap.get(b).body else {
                    return Ok(None);
                };
                Ok(Some(Value::Int(c.code.num_args as i64)))
            }
            BLOCK_ON_DO => {
                let (sel, h) = (self.arg(rp, 0), self.arg(rp, 1));
                Ok(Some(self.on_do(r, sel, h)?))
            }
            BLOCK_ENSURE => {
                let f = self.arg(rp, 0);
                Ok(Some(self.ensure(r, f)?))
            }
            BLOCK_IF_CURTAILED => {
                let f = self.arg(rp, 0);
                Ok(Some(self.if_curtailed(r, f)?))
            }
            // the loops run only on blocks: anything else would loop forever
            BLOCK_WHILE_TRUE | BLOCK_WHILE_FALSE | BLOCK_REPEAT if !self.is_block_of(r, 0) => {
                Ok(None)
            }
            BLOCK_WHILE_TRUE_DO | BLOCK_WHILE_FALSE_DO
                if !(self.is_block_of(r, 0) && self.is_block_of(self.arg(rp, 0), 0)) =>
            {
                Ok(None)
            }
            BLOCK_WHILE_TRUE | BLOCK_WHILE_FALSE => {
                let want = n == BLOCK_WHILE_TRUE;
                loop {
                    let v = self.call_value(r, &[])?;
                    if matches!(v, Value::True) != want {
                        return Ok(Some(Value::Nil));
                    }
                    self.poll()?;
                }
            }
            BLOCK_WHILE_TRUE_DO | BLOCK_WHILE_FALSE_DO => {
                let want = n == BLOCK_WHILE_TRUE_DO;
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
            BLOCK_REPEAT => loop {
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
            EXCEPTION_SIGNAL => self.signal(r)?,
            EXCEPTION_RETURN => self.ex_return(r, a0)?,
            EXCEPTION_RETRY => self.ex_retry(r, None)?,
            EXCEPTION_RETRY_USING => self.ex_retry(r, Some(a0))?,
            EXCEPTION_PASS => self.ex_pass(r)?,
            EXCEPTION_OUTER => self.ex_outer(r)?,
            EXCEPTION_RESUME => self.ex_resume(r, a0)?,
            EXCEPTION_RESIGNAL_AS => self.ex_resignal_as(r, a0)?,
            EXCEPTION_IS_NESTED => self.ex_is_nested(r)?,
            EXCEPTION_UNHANDLED => return Err(self.unhandled(r)),
            EXCEPTION_DESCRIPTION => {
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
