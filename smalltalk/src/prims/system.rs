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
use crate::object::primitives::*;
use crate::object::value::Value;

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
            TRANSCRIPT_SHOW => {
                let s = match self.string_of(a0) {
                    Some(s) => s,
                    None => self.basic_print(a0, 0),
                };
                self.transcript_write(&s);
                r
            }
            TRANSCRIPT_CR => {
                self.transcript_write("\n");
                r
            }
            TRANSCRIPT_TAB => {
                self.transcript_write("\t");
                r
            }
            TRANSCRIPT_SPACE => {
                self.transcript_write(" ");
                r
            }
            TRANSCRIPT_CONTENTS => {
                let t = self.transcript().to_string();
                self.new_string(&t)
            }
            SYSTEM_MY_USER_PROFILE => Value::Obj(self.roots.user_profile),
            SYSTEM_STONE_NAME => self.new_string("gs64stone"),
            SYSTEM_SESSION => Value::Int(self.session_id()),
            SYSTEM_COMMIT_TRANSACTION | SYSTEM_ABORT_TRANSACTION => Value::True,
            SYSTEM_IN_TRANSACTION => Value::True,
            SYSTEM_NEEDS_COMMIT => Value::bool(false),
            SYSTEM_MILLISECOND_CLOCK => Value::Int(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis() as i64)
                    .unwrap_or(0)
                    & ((1 << 60) - 1),
            ),
            SYSTEM_GC_NOW => r,
            SESSION_TEMPS_CURRENT => Value::Obj(self.roots.session_temps),
            SYMDICT_AT => {
                let Some(a) = self.dict_assoc(r, a0) else {
                    return Ok(None);
                };
                self.heap.slot(a, 1)
            }
            SYMDICT_AT_PUT => {
                let Value::Obj(d) = r else { return Ok(None) };
                let v = self.arg(rp, 1);
                match self.dict_at_put(d, a0, v) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            SYMDICT_ASSOCIATION_AT => match self.dict_assoc(r, a0) {
                Some(a) => Value::Obj(a),
                None => Value::Nil,
            },
            SYMDICT_REMOVE_KEY => {
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
            SYMDICT_INCLUDES_KEY => Value::bool(self.dict_assoc(r, a0).is_some()),
            SYMDICT_ASSOCIATIONS | SYMDICT_VALUES => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                let vals: Vec<Value> = es
                    .into_iter()
                    .map(|(_, a)| match n {
                        SYMDICT_ASSOCIATIONS => Value::Obj(a),
                        _ => self.heap.slot(a, 1),
                    })
                    .collect();
                self.new_array(vals)
            }
            SYMDICT_SIZE => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                Value::Int(es.len() as i64)
            }
            SYMDICT_NEW => {
                let Value::Obj(c) = r else { return Ok(None) };
                match self.heap.class_data(c) {
                    Some(d) if d.format == Format::Dict => {
                        Value::Obj(self.heap.alloc(c, Body::Dict(Box::default())))
                    }
                    _ => return Ok(None),
                }
            }
            SYMDICT_KEY_AT_VALUE => {
                let Some(es) = self.dict_entries(r) else {
                    return Ok(None);
                };
                es.into_iter()
                    .find(|(_, a)| self.heap.slot(*a, 1).identical(a0))
                    .map(|(k, _)| k)
                    .unwrap_or(Value::Nil)
            }
            SYMDICT_ADD => {
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
            OBJECT_SLEEP => {
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
            OBJECT_HALT => {
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
            METHOD_SELECTOR => Value::Obj(m.selector),
            METHOD_SOURCE_STRING => self.new_string(&m.source),
            METHOD_IN_CLASS => Value::Obj(m.class),
            METHOD_CATEGORY => m.category,
            METHOD_LITERALS => {
                let mut lits: Vec<Value> = m.literals.clone();
                lits.extend(m.sends.iter().map(|&s| Value::Obj(s)));
                self.new_array(lits)
            }
            METHOD_ENVIRONMENT_ID => Value::Int(0),
            METHOD_INST_VARS_ACCESSED => {
                let v = m.ivars_used.iter().map(|&s| Value::Obj(s)).collect();
                self.new_array(v)
            }
            METHOD_SELECTORS_SENT => {
                let v = m.sends.iter().map(|&s| Value::Obj(s)).collect();
                self.new_array(v)
            }
            METHOD_NUM_ARGS => Value::Int(m.num_args as i64),
            _ => return Ok(None),
        }))
    }
}
