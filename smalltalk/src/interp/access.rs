//! The object-level protocol every layer above the interpreter shares:
//! indexed slots of any shape (`basic_size`, `basic_at`, `basic_at_put`,
//! with a String widening in place to hold a wide character, as in
//! GemStone), the class a string of given code points takes, and the
//! SymbolDictionary entries and symbol list that name globals. These are the
//! kernel's `basicAt:` / `at:put:` semantics without a send; a failure is an
//! answer (`None`, `Err(())`), never a signal.
// `basic_at` is `extern "C-unwind"` so that it answers in two registers (see
// `interp/mod.rs`); its types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::Vm;
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};

impl Vm {
    /// How many named instance variables an object of `o`'s class has.
    #[inline]
    pub fn inst_size_of(&self, o: Oop) -> usize {
        let class = self.heap.get(o).class;
        if class == self.k.array {
            return 0;
        }
        self.heap
            .class_data(class)
            .map(|d| d.inst_size)
            .unwrap_or(0)
    }

    /// How many indexed slots (or bytes, or characters) `v` has.
    pub fn basic_size(&self, v: Value) -> usize {
        let Value::Obj(o) = v else { return 0 };
        let obj = self.heap.get(o);
        match &obj.body {
            Body::Ptr(s) => s.len().saturating_sub(self.inst_size_of(o)),
            Body::Bytes(b) => b.len(),
            Body::Wide(w) => w.len(),
            _ => 0,
        }
    }

    /// Indexed slot `i` (0-based) of `v`: a Character from a string, a
    /// SmallInteger from any other byte object.
    pub extern "C-unwind" fn basic_at(&self, v: Value, i: usize) -> Option<Value> {
        let Value::Obj(o) = v else { return None };
        let obj = self.heap.get(o);
        match &obj.body {
            Body::Ptr(s) => s.get(self.inst_size_of(o) + i).copied(),
            Body::Bytes(b) => {
                let c = *b.get(i)?;
                Some(
                    if obj.class == self.k.string || self.is_char_class(obj.class) {
                        Value::Char(c as u32)
                    } else {
                        Value::Int(c as i64)
                    },
                )
            }
            Body::Wide(w) => w.get(i).map(|&c| Value::Char(c)),
            _ => None,
        }
    }

    /// Stores into an indexable slot; `Err(())` when the index/value is bad or the object invariant.
    pub fn basic_at_put(&mut self, v: Value, i: usize, x: Value) -> Result<(), ()> {
        let Value::Obj(o) = v else { return Err(()) };
        let inst = self.inst_size_of(o);
        // pointer objects: no character checks needed
        if let Body::Ptr(_) = &self.heap.get(o).body {
            let Some(obj) = self.heap.write(o) else {
                return Err(());
            };
            let Body::Ptr(s) = &mut obj.body else {
                return Err(());
            };
            return match s.get_mut(inst + i) {
                Some(slot) => {
                    *slot = x;
                    Ok(())
                }
                None => Err(()),
            };
        }
        let class = self.heap.get(o).class;
        let is_chars = self.is_char_class(class);
        let is_sym = self.is_symbol(v);
        if is_sym {
            return Err(());
        }
        let widen = matches!((&self.heap.get(o).body, x), (Body::Bytes(_), Value::Char(c)) if is_chars && c > 255);
        if widen {
            // a String receiving a wide character becomes a DoubleByteString (or a
            // QuadByteString for a character above U+FFFF) in place, as in GemStone
            let Body::Bytes(b) = &self.heap.get(o).body else {
                return Err(());
            };
            if i >= b.len() || self.heap.is_invariant(o) {
                return Err(());
            }
            let Value::Char(c) = x else { return Err(()) };
            let unicode = class == self.k.unicode7;
            let wide_class = match (c > 0xFFFF, unicode) {
                (false, false) => self.k.double_byte_string,
                (true, false) => self.k.quad_byte_string,
                (false, true) => self.k.unicode16,
                (true, true) => self.k.unicode32,
            };
            let w: Vec<u32> = b.iter().map(|&c| c as u32).collect();
            self.heap.set_body(o, Body::Wide(w));
            self.heap.set_class(o, wide_class);
        } else if let (Body::Wide(w), Value::Char(c)) = (&self.heap.get(o).body, x) {
            // a DoubleByteString receiving a character above U+FFFF becomes a
            // QuadByteString in place; another 16-bit class cannot hold it
            if c > 0xFFFF && i < w.len() && !self.heap.is_invariant(o) {
                if class == self.k.double_byte_string {
                    self.heap.set_class(o, self.k.quad_byte_string);
                } else if class == self.k.unicode16 {
                    self.heap.set_class(o, self.k.unicode32);
                } else if self.is_kind_of(v, self.k.double_byte_string) {
                    return Err(());
                }
            }
        }
        let Some(obj) = self.heap.write(o) else {
            return Err(());
        };
        match (&mut obj.body, x) {
            (Body::Ptr(s), _) => {
                let j = inst + i;
                if j < s.len() {
                    s[j] = x;
                    return Ok(());
                }
                Err(())
            }
            (Body::Bytes(b), Value::Char(c)) if is_chars && c < 256 && i < b.len() => {
                b[i] = c as u8;
                Ok(())
            }
            (Body::Bytes(b), Value::Int(n))
                if !is_chars && (0..256).contains(&n) && i < b.len() =>
            {
                b[i] = n as u8;
                Ok(())
            }
            (Body::Wide(w), Value::Char(c)) if i < w.len() => {
                w[i] = c;
                Ok(())
            }
            _ => Err(()),
        }
    }

    /// A new String of these code points, of the narrowest class that holds them.
    pub fn string_from_chars(&mut self, chars: Vec<u32>) -> Value {
        if chars.iter().all(|&c| c < 256) {
            Value::Obj(self.heap.alloc(
                self.k.string,
                Body::Bytes(chars.into_iter().map(|c| c as u8).collect()),
            ))
        } else {
            let class = self.wide_string_class(&chars);
            Value::Obj(self.heap.alloc(class, Body::Wide(chars)))
        }
    }

    /// The narrowest wide string class GemStone gives these code points:
    /// DoubleByteString when every one fits in 16 bits, else QuadByteString.
    pub fn wide_string_class(&self, chars: &[u32]) -> Oop {
        if chars.iter().all(|&c| c <= 0xFFFF) {
            self.k.double_byte_string
        } else {
            self.k.quad_byte_string
        }
    }

    /// The dictionaries of the session's symbol list, in order.
    pub fn symbol_list_dicts(&self) -> Vec<Oop> {
        let up = self.roots.user_profile;
        let sl = self.heap.slot(up, 1);
        self.array_items(sl)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| v.oop())
            .filter(|o| matches!(self.heap.get(*o).body, Body::Dict(_)))
            .collect()
    }

    /// A dictionary key as SymbolDictionaries hold it: a String becomes its Symbol.
    pub(crate) fn dict_key(&mut self, k: Value) -> Value {
        if !self.is_symbol(k) {
            if let Some(s) = self.string_of(k) {
                return self.sym(&s);
            }
        }
        k
    }

    /// The association of `key` in SymbolDictionary `d`, if any.
    pub fn dict_assoc(&mut self, d: Value, key: Value) -> Option<Oop> {
        let key = self.dict_key(key);
        match &self.heap.get(d.oop()?).body {
            Body::Dict(t) => t.get(key),
            _ => None,
        }
    }

    /// Binds `key` to `v` in SymbolDictionary `d` (a new SymbolAssociation or
    /// the existing one updated); None when `d` is not one or may not be written.
    pub fn dict_at_put(&mut self, d: Oop, key: Value, v: Value) -> Option<Value> {
        let key = self.dict_key(key);
        let existing = match &self.heap.get(d).body {
            Body::Dict(t) => t.get(key),
            _ => return None,
        };
        match existing {
            Some(a) => {
                self.heap.store(a, 1, v);
            }
            None => {
                let a = self
                    .heap
                    .alloc(self.k.symbol_association, Body::Ptr(vec![key, v]));
                if let Some(obj) = self.heap.write(d) {
                    if let Body::Dict(t) = &mut obj.body {
                        t.insert(key, a);
                    }
                } else {
                    return None;
                }
            }
        }
        Some(v)
    }

    /// A dictionary's (key, association) entries; None for anything else.
    pub(crate) fn dict_entries(&self, d: Value) -> Option<Vec<(Value, Oop)>> {
        match &self.heap.get(d.oop()?).body {
            Body::Dict(t) => Some(t.iter().collect()),
            _ => None,
        }
    }

    /// The indexed slots of a pointer object (past its named ones); None for
    /// any other shape.
    pub(crate) fn array_items(&self, v: Value) -> Option<Vec<Value>> {
        let o = v.oop()?;
        match &self.heap.get(o).body {
            Body::Ptr(s) => Some(s[self.inst_size_of(o).min(s.len())..].to_vec()),
            _ => None,
        }
    }
}
