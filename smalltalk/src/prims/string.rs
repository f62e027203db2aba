//! The character and string primitives (160..=169, 200..=239): Character
//! values and classes, String, Symbol and ByteArray access, comparison,
//! searching, copying and conversion, with byte-level paths for one-byte
//! strings (`prim_string_bytes`) beside the code-point path they must agree
//! with.
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::{bytes_hash, quote, selector_arity, string_hash, symbol_print_body, BIG_COPY};
use crate::object::primitives::*;
use num_bigint::BigInt;

use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::{Body, Format};
use crate::object::value::Value;

impl Vm {
    pub(super) extern "C-unwind" fn prim_char(&mut self, n: u16, r: Value, rp: usize) -> P {
        if n == CHAR_WITH_VALUE {
            let c = match self.arg(rp, 0) {
                Value::Int(i) if (0..=0x10FFFF).contains(&i) => i as u32,
                _ => return Ok(None),
            };
            return Ok(Some(Value::Char(c)));
        }
        let Value::Char(c) = r else { return Ok(None) };
        let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
        Ok(Some(match n {
            CHAR_VALUE => Value::Int(c as i64),
            CHAR_IS_VOWEL => Value::bool("aeiouAEIOU".contains(ch)),
            CHAR_IS_LETTER => Value::bool(ch.is_alphabetic()),
            CHAR_IS_DIGIT => Value::bool(ch.is_ascii_digit()),
            CHAR_IS_SEPARATOR => Value::bool(ch.is_whitespace()),
            CHAR_AS_UPPERCASE => {
                Value::Char(ch.to_uppercase().next().map(|u| u as u32).unwrap_or(c))
            }
            CHAR_AS_LOWERCASE => {
                Value::Char(ch.to_lowercase().next().map(|u| u as u32).unwrap_or(c))
            }
            CHAR_IS_UPPERCASE => Value::bool(ch.is_uppercase()),
            CHAR_IS_LOWERCASE => Value::bool(ch.is_lowercase()),
            _ => return Ok(None),
        }))
    }

    pub(super) extern "C-unwind" fn prim_string(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        // A string primitive makes at most its receiver's and argument's size
        // in new objects, and its general path works on copies of their
        // characters four bytes each: both must fit the memory budget before
        // anything is copied, or the copies alone could take gigabytes.
        let work = self.byte_size(r)
            + if argc >= 1 {
                self.byte_size(self.arg(rp, 0))
            } else {
                0
            };
        if work >= BIG_COPY && !self.can_allocate(work) {
            return self.out_of_memory().map(Some);
        }
        // primitives valid on any indexable object
        match n {
            STRING_COPY_FROM_TO => {
                let (Some(from), Value::Int(to)) =
                    (Self::one_based(self.arg(rp, 0)), self.arg(rp, 1))
                else {
                    return Ok(None);
                };
                let Value::Obj(o) = r else { return Ok(None) };
                let size = self.basic_size(r);
                if to < 0 || from > to as usize || to as usize > size {
                    return Ok(None);
                }
                let to = to as usize;
                let inst = self.inst_size_of(o);
                let obj = self.heap.get(o);
                let mut class = obj.class;
                if self.is_symbol(r) {
                    class = match &obj.body {
                        Body::Wide(w) => self.wide_string_class(w),
                        _ => self.k.string,
                    };
                }
                let body = match &obj.body {
                    Body::Ptr(s) => {
                        let mut v = vec![Value::Nil; inst];
                        v.extend_from_slice(&s[inst + from..inst + to]);
                        Body::Ptr(v)
                    }
                    Body::Bytes(b) => Body::Bytes(b[from..to].to_vec()),
                    Body::Wide(w) => Body::Wide(w[from..to].to_vec()),
                    _ => return Ok(None),
                };
                return Ok(Some(Value::Obj(self.heap.alloc(class, body))));
            }
            STRING_INDEX_OF => {
                let x = self.arg(rp, 0);
                let size = self.basic_size(r);
                for i in 0..size {
                    let e = self.basic_at(r, i).unwrap_or(Value::Nil);
                    if e.identical(x) || self.values_equal(e, x) {
                        return Ok(Some(Value::Int(i as i64 + 1)));
                    }
                }
                return Ok(Some(Value::Int(0)));
            }
            STRING_REPLACE_FROM_TO => {
                // replaceFrom: start to: stop with: other startingAt: repStart
                let (Some(start), Value::Int(stop), other, Some(rs)) = (
                    Self::one_based(self.arg(rp, 0)),
                    self.arg(rp, 1),
                    self.arg(rp, 2),
                    Self::one_based(self.arg(rp, 3)),
                ) else {
                    return Ok(None);
                };
                let stop = stop as usize;
                if stop < start {
                    return Ok(Some(r));
                }
                let count = stop - start;
                if stop > self.basic_size(r) || rs + count > self.basic_size(other) {
                    return Ok(None);
                }
                if let Some(done) = self.replace_same_shape(r, start, count, other, rs) {
                    return Ok(done.then_some(r));
                }
                let vals: Vec<Value> = (0..count)
                    .map(|k| self.basic_at(other, rs + k).unwrap_or(Value::Nil))
                    .collect();
                for (k, v) in vals.into_iter().enumerate() {
                    if self.basic_at_put(r, start + k, v).is_err() {
                        return Ok(None);
                    }
                }
                return Ok(Some(r));
            }
            STRING_REVERSE => {
                let Value::Obj(o) = r else { return Ok(None) };
                let inst = self.inst_size_of(o);
                let obj = self.heap.get(o);
                let class = if self.is_symbol(r) {
                    self.k.string
                } else {
                    obj.class
                };
                let body = match &obj.body {
                    Body::Ptr(s) => {
                        let mut v = s[..inst].to_vec();
                        v.extend(s[inst..].iter().rev());
                        Body::Ptr(v)
                    }
                    Body::Bytes(b) => Body::Bytes(b.iter().rev().copied().collect()),
                    Body::Wide(w) => Body::Wide(w.iter().rev().copied().collect()),
                    _ => return Ok(None),
                };
                return Ok(Some(Value::Obj(self.heap.alloc(class, body))));
            }
            STRING_AS_BYTE_ARRAY => {
                let Value::Obj(o) = r else { return Ok(None) };
                return Ok(match &self.heap.get(o).body {
                    Body::Bytes(b) => {
                        let b = b.clone();
                        Some(Value::Obj(
                            self.heap.alloc(self.k.byte_array, Body::Bytes(b)),
                        ))
                    }
                    _ => None,
                });
            }
            STRING_OCCURRENCES_OF => {
                let x = self.arg(rp, 0);
                if let (Value::Obj(o), Value::Char(c)) = (r, x) {
                    let obj = self.heap.get(o);
                    if let Body::Bytes(b) = &obj.body {
                        if obj.class == self.k.string || self.is_char_class(obj.class) {
                            let n = match u8::try_from(c) {
                                Ok(c) => b.iter().filter(|&&e| e == c).count(),
                                Err(_) => 0,
                            };
                            return Ok(Some(Value::Int(n as i64)));
                        }
                    }
                }
                let size = self.basic_size(r);
                let mut count = 0;
                for i in 0..size {
                    let e = self.basic_at(r, i).unwrap_or(Value::Nil);
                    if e.identical(x) || self.values_equal(e, x) {
                        count += 1;
                    }
                }
                return Ok(Some(Value::Int(count)));
            }
            STRING_NEW_WITH_ALL => {
                // String class new: n withAll: aChar  (receiver is the class)
                let (Value::Obj(c), Value::Int(k), Value::Char(ch)) =
                    (r, self.arg(rp, 0), self.arg(rp, 1))
                else {
                    return Ok(None);
                };
                if k < 0 || !self.can_allocate(k as usize * 4) {
                    return Ok(None);
                }
                let Some(d) = self.heap.class_data(c) else {
                    return Ok(None);
                };
                let body = match d.format {
                    Format::Bytes if ch < 256 => Body::Bytes(vec![ch as u8; k as usize]),
                    Format::Dbyte | Format::Qbyte => Body::Wide(vec![ch; k as usize]),
                    _ => return Ok(None),
                };
                return Ok(Some(Value::Obj(self.heap.alloc(c, body))));
            }
            STRING_ENCODE_AS_UTF8 => {
                let Some(chars) = self.chars_of(r) else {
                    return Ok(None);
                };
                let s = Self::chars_to_string(&chars);
                return Ok(Some(Value::Obj(
                    self.heap
                        .alloc(self.k.byte_array, Body::Bytes(s.into_bytes())),
                )));
            }
            STRING_DECODE_FROM_UTF8 => {
                let Value::Obj(o) = r else { return Ok(None) };
                let Body::Bytes(b) = &self.heap.get(o).body else {
                    return Ok(None);
                };
                let Ok(s) = String::from_utf8(b.clone()) else {
                    return self
                        .signal_error(self.k.argument_error, "invalid UTF-8")
                        .map(Some);
                };
                return Ok(Some(self.new_string(&s)));
            }
            _ => {}
        }
        if n == STRING_CONCATENATE && !self.is_kind_of(r, self.k.character_collection) {
            // ByteArray , ByteArray
            let (Value::Obj(a), Value::Obj(b)) = (r, self.arg(rp, 0)) else {
                return Ok(None);
            };
            let (Body::Bytes(x), Body::Bytes(y)) = (&self.heap.get(a).body, &self.heap.get(b).body)
            else {
                return Ok(None);
            };
            let mut v = Vec::with_capacity(x.len() + y.len());
            v.extend_from_slice(x);
            v.extend_from_slice(y);
            let class = self.heap.get(a).class;
            return Ok(Some(Value::Obj(self.heap.alloc(class, Body::Bytes(v)))));
        }
        if n == STRING_INCLUDES_STRING && argc == 1 {
            if let Some(v) = self.includes_string_ascii(r, self.arg(rp, 0)) {
                return Ok(Some(v));
            }
        }
        if n == STRING_SIZE {
            // size: no need to copy the characters
            if let Value::Obj(o) = r {
                let obj = self.heap.get(o);
                if obj.class == self.k.string || self.is_char_class(obj.class) {
                    match &obj.body {
                        Body::Bytes(b) => return Ok(Some(Value::Int(b.len() as i64))),
                        Body::Wide(w) => return Ok(Some(Value::Int(w.len() as i64))),
                        _ => {}
                    }
                }
            }
        }
        if let Some(v) = self.prim_string_bytes(n, r, rp, argc) {
            return Ok(Some(v));
        }
        if work >= BIG_COPY / 4 && !self.can_allocate(work.saturating_mul(4)) {
            return self.out_of_memory().map(Some);
        }
        let Some(s) = self.chars_of(r) else {
            return Ok(None);
        };
        let arg_chars = if argc >= 1 {
            self.chars_of(self.arg(rp, 0))
        } else {
            None
        };
        Ok(Some(match n {
            STRING_CONCATENATE => {
                let Some(t) = arg_chars else { return Ok(None) };
                let mut v = s;
                v.extend(t);
                self.string_from_chars(v)
            }
            STRING_EQUAL => {
                let other = self.arg(rp, 0);
                if self.is_symbol(r) && self.is_symbol(other) {
                    return Ok(Some(Value::bool(r.identical(other))));
                }
                Value::bool(arg_chars.is_some_and(|t| t == s))
            }
            STRING_LESS | STRING_GREATER | STRING_LESS_OR_EQUAL | STRING_GREATER_OR_EQUAL => {
                let Some(t) = arg_chars else { return Ok(None) };
                let o = s.cmp(&t);
                use std::cmp::Ordering::*;
                Value::bool(match n {
                    STRING_LESS => o == Less,
                    STRING_GREATER => o == Greater,
                    STRING_LESS_OR_EQUAL => o != Greater,
                    _ => o != Less,
                })
            }
            STRING_HASH => Value::Int(string_hash(&s)),
            STRING_AS_SYMBOL => {
                let st = Self::chars_to_string(&s);
                self.sym(&st)
            }
            STRING_AS_STRING | STRING_AS_UNICODE => {
                if n == STRING_AS_STRING && !self.is_symbol(r) && self.class_of(r) == self.k.string
                {
                    return Ok(Some(r));
                }
                let v = self.string_from_chars(s);
                if n == STRING_AS_UNICODE {
                    if let Value::Obj(o) = v {
                        let chars = self.chars_of(v).unwrap_or_default();
                        let c = if chars.iter().all(|&c| c < 128) {
                            self.k.unicode7
                        } else if chars.iter().all(|&c| c <= 0xFFFF) {
                            self.k.unicode16
                        } else {
                            self.k.unicode32
                        };
                        if c != self.k.unicode7 {
                            if let Body::Bytes(b) = self.heap.get(o).body.clone() {
                                self.heap
                                    .set_body(o, Body::Wide(b.iter().map(|&x| x as u32).collect()));
                            }
                        }
                        self.heap.set_class(o, c);
                    }
                }
                v
            }
            STRING_INCLUDES_SUBSTRING
            | STRING_INCLUDES_STRING
            | STRING_SAME_AS
            | STRING_STARTS_WITH
            | STRING_ENDS_WITH => {
                let Some(t) = arg_chars else { return Ok(None) };
                let (a, b) = (Self::chars_to_string(&s), Self::chars_to_string(&t));
                Value::bool(match n {
                    STRING_INCLUDES_SUBSTRING => a.contains(&b),
                    STRING_INCLUDES_STRING => a.to_lowercase().contains(&b.to_lowercase()),
                    STRING_SAME_AS => a.to_lowercase() == b.to_lowercase(),
                    STRING_STARTS_WITH => a.starts_with(&b),
                    _ => a.ends_with(&b),
                })
            }
            STRING_AS_UPPERCASE | STRING_AS_LOWERCASE => {
                let st = Self::chars_to_string(&s);
                let t = if n == STRING_AS_UPPERCASE {
                    st.to_uppercase()
                } else {
                    st.to_lowercase()
                };
                if self.is_symbol(r) {
                    self.sym(&t)
                } else {
                    self.new_string(&t)
                }
            }
            STRING_PRINT_STRING => {
                let st = Self::chars_to_string(&s);
                let p = if self.is_symbol(r) {
                    format!("#{}", symbol_print_body(&st))
                } else {
                    quote(&st)
                };
                self.new_string(&p)
            }
            STRING_EVALUATE => {
                let src = Self::chars_to_string(&s);
                return self.evaluate_source(&src).map(Some);
            }
            STRING_DISPLAY_STRING => self.string_from_chars(s),
            STRING_AS_NUMBER | STRING_AS_INTEGER => {
                let st = Self::chars_to_string(&s);
                if n == STRING_AS_INTEGER {
                    let t = st.trim_start();
                    let (neg, t) = match t.strip_prefix('-') {
                        Some(x) => (true, x),
                        None => (false, t),
                    };
                    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
                    if digits.is_empty() {
                        Value::Nil
                    } else {
                        let b: BigInt = digits.parse().unwrap_or_default();
                        self.small_or_big(if neg { -b } else { b })
                    }
                } else {
                    match crate::syntax::parser::parse_number_literal(&st) {
                        Some(l) => self.literal_value(&l),
                        None => Value::Nil,
                    }
                }
            }
            STRING_FIND_STRING => {
                let (Some(t), Some(start)) = (arg_chars, Self::one_based(self.arg(rp, 1))) else {
                    return Ok(None);
                };
                let ic = matches!(self.arg(rp, 2), Value::True);
                let low = |v: &[u32]| -> Vec<u32> {
                    v.iter()
                        .map(|&c| {
                            char::from_u32(c)
                                .map(|ch| ch.to_lowercase().next().unwrap_or(ch) as u32)
                                .unwrap_or(c)
                        })
                        .collect()
                };
                let (hay, needle) = if ic { (low(&s), low(&t)) } else { (s, t) };
                let mut found = 0;
                if needle.is_empty() {
                    found = 0;
                } else if hay.len() >= needle.len() {
                    for i in start..=hay.len() - needle.len() {
                        if hay[i..i + needle.len()] == needle[..] {
                            found = i + 1;
                            break;
                        }
                    }
                }
                Value::Int(found as i64)
            }
            SYMBOL_NUM_ARGS => Value::Int(selector_arity(&Self::chars_to_string(&s)) as i64),
            STRING_SIZE => Value::Int(s.len() as i64),
            STRING_TRIM_SEPARATORS => {
                let st = Self::chars_to_string(&s);
                self.new_string(st.trim())
            }
            STRING_SUBSTRINGS | STRING_SUBSTRINGS_SEPARATED_BY => {
                let st = Self::chars_to_string(&s);
                let parts: Vec<String> = if n == STRING_SUBSTRINGS {
                    st.split_whitespace().map(String::from).collect()
                } else {
                    let seps: Vec<char> = match self.arg(rp, 0) {
                        Value::Char(c) => vec![char::from_u32(c).unwrap_or(' ')],
                        other => match self.string_of(other) {
                            Some(x) => x.chars().collect(),
                            None => return Ok(None),
                        },
                    };
                    st.split(|c| seps.contains(&c))
                        .filter(|p| !p.is_empty())
                        .map(String::from)
                        .collect()
                };
                let vals: Vec<Value> = parts.iter().map(|p| self.new_string(p)).collect();
                self.new_array(vals)
            }
            STRING_IS_SYMBOL => Value::bool(self.is_symbol(r)),
            STRING_MATCH_PATTERN => {
                let Some(pattern) = self.array_items(self.arg(rp, 0)) else {
                    return Ok(None);
                };
                let mut pat: Vec<PatItem> = vec![];
                for p in pattern {
                    match p {
                        Value::Char(c) if c == '*' as u32 => pat.push(PatItem::Star),
                        Value::Char(c) if c == '?' as u32 => pat.push(PatItem::One),
                        other => match self.chars_of(other) {
                            Some(cs) => pat.push(PatItem::Lit(cs)),
                            None => return Ok(None),
                        },
                    }
                }
                Value::bool(match_pattern(&pat, &s))
            }
            STRING_KEYWORDS => {
                let st = Self::chars_to_string(&s);
                let parts: Vec<String> = if st.contains(':') {
                    st.split_inclusive(':').map(String::from).collect()
                } else {
                    vec![st]
                };
                let vals: Vec<Value> = parts.iter().map(|p| self.new_string(p)).collect();
                self.new_array(vals)
            }
            _ => return Ok(None),
        }))
    }

    /// The string primitives for one-byte receivers (and arguments), on the
    /// bytes themselves: the same answers the general path in `prim_string`
    /// gives through code points, without building them. `None` where that
    /// general path has to decide (wide characters, a non-ASCII case change,
    /// a case-insensitive search, a printString of a Symbol, a failure).
    fn prim_string_bytes(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> Option<Value> {
        match (n, argc) {
            (STRING_CONCATENATE, 1) => {
                let joined = {
                    let (a, b) = (self.char_bytes(r)?, self.char_bytes(self.arg(rp, 0))?);
                    if !self.heap.can_allocate(a.len() + b.len()) {
                        return None;
                    }
                    let mut v = Vec::with_capacity(a.len() + b.len());
                    v.extend_from_slice(a);
                    v.extend_from_slice(b);
                    v
                };
                Some(Value::Obj(
                    self.heap.alloc(self.k.string, Body::Bytes(joined)),
                ))
            }
            (STRING_EQUAL, 1) => {
                let other = self.arg(rp, 0);
                if self.is_symbol(r) && self.is_symbol(other) {
                    return Some(Value::bool(r.identical(other)));
                }
                Some(Value::bool(self.char_bytes(r)? == self.char_bytes(other)?))
            }
            (STRING_LESS | STRING_GREATER | STRING_LESS_OR_EQUAL | STRING_GREATER_OR_EQUAL, 1) => {
                let o = self.char_bytes(r)?.cmp(self.char_bytes(self.arg(rp, 0))?);
                use std::cmp::Ordering::*;
                Some(Value::bool(match n {
                    STRING_LESS => o == Less,
                    STRING_GREATER => o == Greater,
                    STRING_LESS_OR_EQUAL => o != Greater,
                    _ => o != Less,
                }))
            }
            (STRING_HASH, 0) => Some(Value::Int(bytes_hash(self.char_bytes(r)?))),
            (STRING_AS_UPPERCASE | STRING_AS_LOWERCASE, 0) => {
                let b = self.char_bytes(r)?;
                if !b.is_ascii() {
                    return None;
                }
                let changed = if n == STRING_AS_UPPERCASE {
                    b.to_ascii_uppercase()
                } else {
                    b.to_ascii_lowercase()
                };
                if self.is_symbol(r) {
                    // ASCII bytes are UTF-8
                    let s = String::from_utf8(changed).ok()?;
                    Some(self.sym(&s))
                } else {
                    Some(Value::Obj(
                        self.heap.alloc(self.k.string, Body::Bytes(changed)),
                    ))
                }
            }
            (STRING_PRINT_STRING, 0) if !self.is_symbol(r) => {
                let quoted = {
                    let b = self.char_bytes(r)?;
                    let mut v = Vec::with_capacity(b.len() + 2);
                    v.push(b'\'');
                    for &c in b {
                        v.push(c);
                        if c == b'\'' {
                            v.push(c);
                        }
                    }
                    v.push(b'\'');
                    v
                };
                Some(Value::Obj(
                    self.heap.alloc(self.k.string, Body::Bytes(quoted)),
                ))
            }
            (STRING_FIND_STRING, 3) if !matches!(self.arg(rp, 2), Value::True) => {
                let start = Self::one_based(self.arg(rp, 1))?;
                let (hay, needle) = (self.char_bytes(r)?, self.char_bytes(self.arg(rp, 0))?);
                Some(Value::Int(
                    find_bytes(hay, needle, start).map_or(0, |i| i as i64 + 1),
                ))
            }
            _ => None,
        }
    }

    /// The bytes of a one-byte CharacterCollection (a String, Symbol or
    /// other character class with a byte body): the characters `chars_of`
    /// would answer, without copying them.
    #[inline]
    fn char_bytes(&self, v: Value) -> Option<&[u8]> {
        let Value::Obj(o) = v else { return None };
        let obj = self.heap.get(o);
        let Body::Bytes(b) = &obj.body else {
            return None;
        };
        (obj.class == self.k.string || obj.class == self.k.symbol || self.is_char_class(obj.class))
            .then_some(b.as_slice())
    }

    fn chars_to_string(chars: &[u32]) -> String {
        chars
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect()
    }

    /// `replaceFrom:to:with:startingAt:` between two Strings (the source may
    /// be a Symbol) or two Arrays, as one slice copy. The ranges are already
    /// checked. `None`: other shapes (the caller copies element by element);
    /// `Some(false)`: the receiver is invariant.
    fn replace_same_shape(
        &mut self,
        r: Value,
        start: usize,
        count: usize,
        other: Value,
        rs: usize,
    ) -> Option<bool> {
        let (Value::Obj(ro), Value::Obj(oo)) = (r, other) else {
            return None;
        };
        let (rc, oc) = (self.heap.get(ro).class, self.heap.get(oo).class);
        let k = &self.k;
        let strings = rc == k.string && (oc == k.string || oc == k.symbol);
        let arrays = rc == k.array && oc == k.array;
        if !strings && !arrays {
            return None;
        }
        let src = match &self.heap.get(oo).body {
            Body::Bytes(b) if strings => Body::Bytes(b.get(rs..rs + count)?.to_vec()),
            Body::Ptr(p) if arrays => Body::Ptr(p.get(rs..rs + count)?.to_vec()),
            _ => return None,
        };
        let Some(obj) = self.heap.write(ro) else {
            return Some(false);
        };
        match (&mut obj.body, src) {
            (Body::Bytes(d), Body::Bytes(b)) => {
                d.get_mut(start..start + count)?.copy_from_slice(&b)
            }
            (Body::Ptr(d), Body::Ptr(p)) => d.get_mut(start..start + count)?.copy_from_slice(&p),
            _ => return None,
        }
        Some(true)
    }
}

/// The 0-based index of the first occurrence of a non-empty `needle` in
/// `hay` at or after `start` (a vectorised substring search).
fn find_bytes(hay: &[u8], needle: &[u8], start: usize) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    memchr::memmem::find(hay.get(start..)?, needle).map(|i| i + start)
}

enum PatItem {
    Star,
    One,
    Lit(Vec<u32>),
}

fn match_pattern(pat: &[PatItem], s: &[u32]) -> bool {
    match pat.first() {
        None => s.is_empty(),
        Some(PatItem::Star) => (0..=s.len()).any(|i| match_pattern(&pat[1..], &s[i..])),
        Some(PatItem::One) => !s.is_empty() && match_pattern(&pat[1..], &s[1..]),
        Some(PatItem::Lit(l)) => s.starts_with(l) && match_pattern(&pat[1..], &s[l.len()..]),
    }
}
