//! The System, method and Transcript primitives (90..=98, 300..=349):
//! compiled-method access, the session's System messages (time, session id,
//! memory and stack limits, the transaction messages of an image without a
//! repository), Transcript output, and the class an error number names.
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::{Body, Format};
use crate::object::value::{Oop, Value};

impl Vm {
    pub(super) extern "C-unwind" fn prim_system(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        let a0 = if argc > 0 {
            self.arg(rp, 0)
        } else {
            Value::Nil
        };
        Ok(Some(match n {
            300 => {
                let s = match self.string_of(a0) {
                    Some(s) => s,
                    None => self.basic_print(a0, 0),
                };
                self.transcript.push_str(&s);
                r
            }
            301 => {
                self.transcript.push('\n');
                r
            }
            302 => {
                self.transcript.push('\t');
                r
            }
            303 => {
                self.transcript.push(' ');
                r
            }
            304 => {
                let t = self.transcript.clone();
                self.new_string(&t)
            }
            310 => Value::Obj(self.roots.user_profile),
            311 => self.new_string("gs64stone"),
            312 => Value::Int(self.session_id),
            313 | 314 => Value::True,
            315 => Value::True,
            316 => Value::bool(false),
            317 => Value::Int(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis() as i64)
                    .unwrap_or(0)
                    & ((1 << 60) - 1),
            ),
            318 => r,
            319 => Value::Obj(self.roots.session_temps),
            320 => {
                let Some(a) = self.dict_assoc(r, a0) else {
                    return Ok(None);
                };
                self.heap.slot(a, 1)
            }
            321 => {
                let Value::Obj(d) = r else { return Ok(None) };
                let v = self.arg(rp, 1);
                match self.dict_at_put(d, a0, v) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            322 => match self.dict_assoc(r, a0) {
                Some(a) => Value::Obj(a),
                None => Value::Nil,
            },
            323 => {
                let Value::Obj(d) = r else { return Ok(None) };
                let key = self.dict_key(a0);
                // removing a binding the kernel owns changes the binding
                if let Some(a) = self.dict_assoc(r, key).filter(|&a| self.heap.refuses(a)) {
                    self.heap.refuse(a);
                    return Ok(None);
                }
                let removed = match self.heap.write(d) {
                    Some(obj) => match &mut obj.body {
                        Body::Dict(t) => t.remove(key),
                        _ => None,
                    },
                    None => None,
                };
                match removed {
                    Some(a) => self.heap.slot(a, 1),
                    None => return Ok(None),
                }
            }
            324 => Value::bool(self.dict_assoc(r, a0).is_some()),
            325 | 327 | 328 => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                let vals: Vec<Value> = es
                    .into_iter()
                    .map(|(k, a)| match n {
                        325 => k,
                        327 => Value::Obj(a),
                        _ => self.heap.slot(a, 1),
                    })
                    .collect();
                self.new_array(vals)
            }
            326 => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                Value::Int(es.len() as i64)
            }
            329 => {
                let Value::Obj(c) = r else { return Ok(None) };
                match self.heap.class_data(c) {
                    Some(d) if d.format == Format::Dict => {
                        Value::Obj(self.heap.alloc(c, Body::Dict(Box::default())))
                    }
                    _ => return Ok(None),
                }
            }
            330 => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                es.into_iter()
                    .find(|(_, a)| self.heap.slot(*a, 1).identical(a0))
                    .map(|(k, _)| k)
                    .unwrap_or(Value::Nil)
            }
            331 => {
                let Value::Obj(d) = r else { return Ok(None) };
                let Value::Obj(a) = a0 else { return Ok(None) };
                if !self.is_kind_of(a0, self.k.association) {
                    return Ok(None);
                }
                let key = self.heap.slot(a, 0);
                let key = self.dict_key(key);
                match self.heap.write(d) {
                    Some(obj) => match &mut obj.body {
                        Body::Dict(t) => t.insert(key, a),
                        _ => return Ok(None),
                    },
                    None => return Ok(None),
                }
                a0
            }
            341 => {
                // sleep, interruptibly
                let ms = match a0 {
                    Value::Int(ms) if ms >= 0 => ms as u64,
                    _ => return Ok(None),
                };
                let until = std::time::Instant::now() + std::time::Duration::from_millis(ms);
                loop {
                    self.check_interrupt()?;
                    let now = std::time::Instant::now();
                    if now >= until {
                        break;
                    }
                    std::thread::sleep((until - now).min(std::time::Duration::from_millis(5)));
                }
                r
            }
            340 => {
                let ex = self.new_exception(self.k.halt, None, Some("halt"));
                self.signal(ex)?
            }
            _ => return Ok(None),
        }))
    }

    pub(super) extern "C-unwind" fn prim_method(&mut self, n: u16, r: Value) -> P {
        let Value::Obj(o) = r else { return Ok(None) };
        self.ensure_method(o);
        let Body::Method(m) = &self.heap.get(o).body else {
            return Ok(None);
        };
        let m = m.clone();
        Ok(Some(match n {
            90 => Value::Obj(m.selector),
            91 => self.new_string(&m.source),
            92 => Value::Obj(m.class),
            93 => m.category,
            94 => {
                let mut lits: Vec<Value> = m.literals.clone();
                lits.extend(m.sends.iter().map(|&s| Value::Obj(s)));
                self.new_array(lits)
            }
            95 => Value::Int(0),
            96 => {
                let v = m.ivars_used.iter().map(|&s| Value::Obj(s)).collect();
                self.new_array(v)
            }
            97 => {
                let v = m.sends.iter().map(|&s| Value::Obj(s)).collect();
                self.new_array(v)
            }
            98 => Value::Int(m.num_args as i64),
            _ => return Ok(None),
        }))
    }

    pub fn class_for_error_number(&self, n: u32) -> Oop {
        self.error_numbers
            .iter()
            .find(|(_, &v)| v == n)
            .map(|(&k, _)| k)
            .unwrap_or(self.k.error)
    }
}
