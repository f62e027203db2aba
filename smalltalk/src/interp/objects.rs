//! Making and reading the objects the engine itself needs: symbols, strings,
//! arrays and plain instances, and class tests (`class_of`, `inherits`,
//! `is_kind_of`) over the heap.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use super::*;
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};

impl Vm {
    pub fn intern(&mut self, s: &str) -> Oop {
        // a symbol of 16-bit characters is a DoubleByteSymbol, as in GemStone
        let wide = if s.is_ascii() || s.chars().all(|c| (c as u32) <= 0xFFFF) {
            self.k.double_byte_symbol
        } else {
            self.k.quad_byte_symbol
        };
        self.heap.intern(s, self.k.symbol, wide)
    }

    pub fn sym(&mut self, s: &str) -> Value {
        Value::Obj(self.intern(s))
    }

    pub fn new_string(&mut self, s: &str) -> Value {
        let (class, body) = self.string_parts(s);
        Value::Obj(self.heap.alloc(class, body))
    }

    /// The class and body of a new string of these characters: a String when
    /// every one is below 256, else the narrowest wide class.
    pub fn string_parts(&self, s: &str) -> (Oop, Body) {
        if s.is_ascii() {
            // the common case: the UTF-8 bytes are the characters
            (self.k.string, Body::Bytes(s.as_bytes().to_vec()))
        } else if s.chars().all(|c| (c as u32) < 256) {
            (
                self.k.string,
                Body::Bytes(s.chars().map(|c| c as u8).collect()),
            )
        } else {
            let chars: Vec<u32> = s.chars().map(|c| c as u32).collect();
            (self.wide_string_class(&chars), Body::Wide(chars))
        }
    }

    /// An Array of `items` (see [`crate::object::heap::Heap::alloc_ptr`]).
    #[inline(always)]
    pub fn new_array(&mut self, items: Vec<Value>) -> Value {
        Value::Obj(self.heap.alloc_ptr(self.k.array, items))
    }

    #[inline(always)]
    pub fn new_object(&mut self, class: Oop, slots: Vec<Value>) -> Value {
        Value::Obj(self.heap.alloc_ptr(class, slots))
    }

    /// The class of a value. Objects and SmallIntegers are tested first with
    /// plain branches; the other immediates go out of line, so a send's
    /// class test is no jump table of its own (an indirect branch per send).
    #[inline]
    pub fn class_of(&self, v: Value) -> Oop {
        match v {
            Value::Obj(o) => self.heap.get(o).class,
            Value::Int(_) => self.k.small_integer,
            other => self.immediate_class(other),
        }
    }

    /// `class_of` an immediate other than a SmallInteger.
    #[inline(never)]
    extern "C-unwind" fn immediate_class(&self, v: Value) -> Oop {
        match v {
            Value::Obj(o) => self.heap.get(o).class,
            Value::Int(_) => self.k.small_integer,
            Value::Nil => self.k.undefined,
            Value::True => self.k.true_class,
            Value::False => self.k.false_class,
            Value::Char(_) => self.k.character,
            Value::Float(f) => {
                if is_small_double(f) {
                    self.k.small_double
                } else {
                    self.k.float
                }
            }
        }
    }

    /// The characters of a String/Symbol (any width), if `v` is one.
    pub fn string_of(&self, v: Value) -> Option<String> {
        let o = v.oop()?;
        let obj = self.heap.get(o);
        if !self.is_char_class(obj.class) {
            return None;
        }
        match &obj.body {
            Body::Bytes(b) => Some(b.iter().map(|&c| c as char).collect()),
            Body::Wide(w) => Some(
                w.iter()
                    .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
                    .collect(),
            ),
            _ => None,
        }
    }

    pub fn is_char_class(&self, class: Oop) -> bool {
        self.inherits(class, self.k.character_collection)
    }

    pub fn is_symbol(&self, v: Value) -> bool {
        match v {
            Value::Obj(o) => {
                let c = self.heap.get(o).class;
                c == self.k.symbol || c == self.k.quad_byte_symbol || c == self.k.double_byte_symbol
            }
            _ => false,
        }
    }

    /// Whether `class` is `ancestor` or inherits from it.
    pub fn inherits(&self, class: Oop, ancestor: Oop) -> bool {
        let mut c = Some(class);
        while let Some(cc) = c {
            if cc == ancestor {
                return true;
            }
            c = self.heap.class_data(cc).and_then(|d| d.superclass);
        }
        false
    }

    pub fn is_kind_of(&self, v: Value, class: Oop) -> bool {
        self.inherits(self.class_of(v), class)
    }

    pub fn class_name(&self, class: Oop) -> String {
        match self.heap.class_data(class) {
            Some(d) => {
                let n = self.string_of(Value::Obj(d.name)).unwrap_or_default();
                if d.is_meta {
                    format!("{n} class")
                } else {
                    n
                }
            }
            None => "?".into(),
        }
    }
}
