//! The primitives (`<primitive: N>`, numbered as in `kernel/VM.md`): object
//! access, numbers, characters, strings and symbols, blocks, exceptions,
//! SymbolDictionary, System and Transcript. A primitive answers `Ok(Some(v))`,
//! fails with `Ok(None)` (the method's Smalltalk body then runs) or unwinds.
//! Primitives must never panic on bad arguments.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::heap::{Body, Format, SymDict};
use crate::interp::{Unwind, Vm, R};
use crate::known::exc;
use crate::num::{self, Num, NumErr, Op};
use crate::value::{Oop, Value};

pub type P = Result<Option<Value>, Unwind>;

/// Whether `n` is a primitive number the VM implements.
pub fn is_known_primitive(n: u16) -> bool {
    matches!(n,
        1..=24 | 26..=29 |
        40..=78 |
        90..=98 |
        100..=159 |
        160..=169 |
        200..=241 |
        250..=260 |
        270..=280 | 285..=287 |
        300..=304 | 310..=319 | 320..=331 | 340 | 341 | 360..=364 | 380..=399 |
        400..=429)
}

/// `foo`, `foo:bar:`, `+` print bare after `#`; anything else is quoted.
pub fn symbol_print_body(s: &str) -> String {
    let ident_like = {
        let mut ok = !s.is_empty();
        let mut expect_start = true;
        for c in s.chars() {
            if expect_start {
                if !(c.is_alphabetic() || c == '_') {
                    ok = false;
                    break;
                }
                expect_start = false;
            } else if c == ':' {
                expect_start = true;
            } else if !(c.is_alphanumeric() || c == '_') {
                ok = false;
                break;
            }
        }
        ok && (expect_start == s.ends_with(':'))
    };
    let binary = !s.is_empty() && s.chars().all(|c| "+-*/\\<>=~@%|&?,".contains(c));
    if ident_like || binary {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Objects a primitive copies below this many bytes are not checked against
/// the memory budget first (the collector sees them at the next safe point).
const BIG_COPY: usize = 1 << 20;

impl Vm {
    #[inline]
    fn arg(&self, rp: usize, i: usize) -> Value {
        self.stack[rp + 1 + i]
    }

    fn one_based(v: Value) -> Option<usize> {
        match v {
            Value::Int(i) if i >= 1 => Some(i as usize - 1),
            _ => None,
        }
    }

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

    /// Code points of a character collection (any width).
    /// The bytes of `v`'s body if it is a byte or character object (a
    /// String, Symbol, ByteArray…), else 0.
    pub fn byte_size(&self, v: Value) -> usize {
        let Some(o) = v.oop() else { return 0 };
        match &self.heap.get(o).body {
            Body::Bytes(b) => b.len(),
            Body::Wide(w) => w.len() * 4,
            _ => 0,
        }
    }

    /// Signals AlmostOutOfMemory (3140) where an object too big for the
    /// memory budget was about to be made.
    pub fn out_of_memory(&mut self) -> R {
        let ex = self.new_exception(
            self.k.almost_out_of_memory,
            None,
            Some("object memory limit reached"),
        );
        self.signal(ex)
    }

    pub fn chars_of(&self, v: Value) -> Option<Vec<u32>> {
        let o = v.oop()?;
        let obj = self.heap.get(o);
        if !self.is_char_class(obj.class) {
            return None;
        }
        match &obj.body {
            Body::Bytes(b) => Some(b.iter().map(|&c| c as u32).collect()),
            Body::Wide(w) => Some(w.clone()),
            _ => None,
        }
    }

    /// `Set>>_indexOf:` (240) and `Dictionary>>_indexOf:` (241) for a
    /// SmallInteger key: the same probe the Smalltalk fallback does (hash
    /// spread `hash \\ 16r3FFFFFFF * 40503 \\ size + 1`, linear probing to
    /// the matching or first empty bucket), answered without sends. Fails
    /// (the Smalltalk body runs) when the key is not a SmallInteger, when a
    /// probed element (Set) or association key (Dictionary) is anything but a
    /// SmallInteger — its `=` could be user code — or when `hash` for
    /// SmallIntegers or `key` for Associations is not the kernel's.
    /// Whether `SmallInteger>>hash` and `Association>>key` are still the
    /// kernel's (primitive 114, the `key` getter), worked out once per method
    /// epoch: every change of a method moves the epoch.
    #[inline]
    pub(crate) fn kernel_hashing(&mut self) -> (bool, bool, bool) {
        let (epoch, int_hash, assoc_key, assoc_set) = self.hashing_checked;
        if epoch == self.epoch + 1 {
            return (int_hash, assoc_key, assoc_set);
        }
        self.kernel_hashing_check()
    }

    /// `kernel_hashing` when the methods changed since the last check.
    #[cold]
    #[inline(never)]
    fn kernel_hashing_check(&mut self) -> (bool, bool, bool) {
        let (hash_sel, key_sel, set_sel) = (self.sels.hash, self.sels.key, self.sels.value_set);
        let int_hash = self
            .lookup(self.k.small_integer, hash_sel)
            .is_some_and(|m| m.primitive == 114);
        let assoc_key = self
            .lookup(self.k.association, key_sel)
            .is_some_and(|m| matches!(m.trivial, crate::code::Trivial::IVar(0)));
        let assoc_set = self
            .lookup(self.k.association, set_sel)
            .is_some_and(|m| matches!(m.trivial, crate::code::Trivial::SetIVar(1)));
        self.hashing_checked = (self.epoch + 1, int_hash, assoc_key, assoc_set);
        (int_hash, assoc_key, assoc_set)
    }

    pub(crate) fn hashed_index_of(&mut self, r: Value, key: Value, dict: bool) -> Option<Value> {
        let (Value::Obj(o), Value::Int(k)) = (r, key) else {
            return None;
        };
        let Value::Obj(b) = self.heap.slot(o, 1) else {
            return None;
        };
        self.hashed_probe(b, k, dict).map(Value::Int)
    }

    /// The key of `a` when it is a kernel Association whose key is a
    /// SmallInteger (all the SmallInteger-keyed Dictionary paths handle),
    /// else None.
    #[inline(always)]
    pub(crate) fn int_assoc_key(&self, a: Oop) -> Option<i64> {
        let assoc = self.heap.get(a);
        if assoc.class != self.k.association {
            return None;
        }
        match &assoc.body {
            Body::Ptr(s) => match s.first() {
                Some(Value::Int(k)) => Some(*k),
                _ => None,
            },
            _ => None,
        }
    }

    /// The 1-based bucket index `_indexOf:` answers for SmallInteger key `k`
    /// in bucket Array `b` (see `probe_ints`).
    fn hashed_probe(&mut self, b: Oop, k: i64, dict: bool) -> Option<i64> {
        let (int_hash, assoc_key, _) = self.kernel_hashing();
        if !int_hash || (dict && !assoc_key) {
            return None;
        }
        let obj = self.heap.get(b);
        if obj.class != self.k.array {
            return None;
        }
        let Body::Ptr(buckets) = &obj.body else {
            return None;
        };
        self.probe_ints(buckets, k, dict).map(|(index, _)| index)
    }

    /// The probe itself, once `SmallInteger>>hash` and (for a Dictionary)
    /// `Association>>key` are known to be the kernel's: the 1-based index of
    /// the bucket holding `k` or of the empty bucket where it would go, and
    /// that bucket's element. None for an empty or full table, or an element
    /// that is not a SmallInteger (Set) or an Association with a SmallInteger
    /// key (Dictionary).
    #[inline(always)]
    pub(crate) fn probe_ints(&self, buckets: &[Value], k: i64, dict: bool) -> Option<(i64, Value)> {
        let n = buckets.len();
        if n == 0 {
            return None;
        }
        let mut i = hash_start(k, n);
        for _ in 0..n {
            let element = buckets[i];
            match element {
                Value::Nil => return Some((i as i64 + 1, element)),
                Value::Int(s) if !dict => {
                    if s == k {
                        return Some((i as i64 + 1, element));
                    }
                }
                Value::Obj(a) if dict => {
                    if self.int_assoc_key(a)? == k {
                        return Some((i as i64 + 1, element));
                    }
                }
                _ => return None,
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
        None
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

    /// The string primitives for one-byte receivers (and arguments), on the
    /// bytes themselves: the same answers the general path in `prim_string`
    /// gives through code points, without building them. `None` where that
    /// general path has to decide (wide characters, a non-ASCII case change,
    /// a case-insensitive search, a printString of a Symbol, a failure).
    fn prim_string_bytes(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> Option<Value> {
        match (n, argc) {
            (200, 1) => {
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
            (201, 1) => {
                let other = self.arg(rp, 0);
                if self.is_symbol(r) && self.is_symbol(other) {
                    return Some(Value::bool(r.identical(other)));
                }
                Some(Value::bool(self.char_bytes(r)? == self.char_bytes(other)?))
            }
            (202..=205, 1) => {
                let o = self.char_bytes(r)?.cmp(self.char_bytes(self.arg(rp, 0))?);
                use std::cmp::Ordering::*;
                Some(Value::bool(match n {
                    202 => o == Less,
                    203 => o == Greater,
                    204 => o != Greater,
                    _ => o != Less,
                }))
            }
            (206, 0) => Some(Value::Int(bytes_hash(self.char_bytes(r)?))),
            (212 | 213, 0) => {
                let b = self.char_bytes(r)?;
                if !b.is_ascii() {
                    return None;
                }
                let changed = if n == 212 {
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
            (214, 0) if !self.is_symbol(r) => {
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
            (221, 3) if !matches!(self.arg(rp, 2), Value::True) => {
                let start = Self::one_based(self.arg(rp, 1))?;
                let (hay, needle) = (self.char_bytes(r)?, self.char_bytes(self.arg(rp, 0))?);
                Some(Value::Int(
                    find_bytes(hay, needle, start).map_or(0, |i| i as i64 + 1),
                ))
            }
            _ => None,
        }
    }

    fn chars_to_string(chars: &[u32]) -> String {
        chars
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect()
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

    fn zero_divide(&mut self, recv: Value) -> P {
        let text = format!("attempt to divide {} by zero", self.basic_print(recv, 0));
        let ex = self.new_exception(self.k.zero_divide, None, Some(&text));
        if let Value::Obj(o) = ex {
            let args = self.new_array(vec![recv]);
            self.heap.store(o, exc::ARGS, args);
        }
        self.signal(ex).map(Some)
    }

    fn num_result(&mut self, recv: Value, r: Result<Num, NumErr>) -> P {
        match r {
            Ok(n) => Ok(Some(self.num_value(n))),
            Err(NumErr::ZeroDivide) => self.zero_divide(recv),
            Err(NumErr::Domain(msg)) => self.signal_error(self.k.argument_error, msg).map(Some),
        }
    }

    fn small_or_big(&mut self, i: BigInt) -> Value {
        self.int_value(&i)
    }

    fn array_items(&self, v: Value) -> Option<Vec<Value>> {
        let o = v.oop()?;
        match &self.heap.get(o).body {
            Body::Ptr(s) => Some(s[self.inst_size_of(o).min(s.len())..].to_vec()),
            _ => None,
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

    // ----- SymbolDictionary -----

    fn dict_key(&mut self, k: Value) -> Value {
        if !self.is_symbol(k) {
            if let Some(s) = self.string_of(k) {
                return self.sym(&s);
            }
        }
        k
    }

    pub fn dict_assoc(&mut self, d: Value, key: Value) -> Option<Oop> {
        let key = self.dict_key(key);
        match &self.heap.get(d.oop()?).body {
            Body::Dict(t) => t.get(key),
            _ => None,
        }
    }

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

    // ----- the dispatcher -----

    /// `SmallInteger>>printString` (primitives 122, 148): a new String of its digits.
    #[inline(never)]
    extern "C-unwind" fn small_int_string(&mut self, x: i64) -> Value {
        Value::Obj(self.heap.alloc(self.k.string, Body::Bytes(int_digits(x))))
    }

    pub extern "C-unwind" fn prim(&mut self, n: u16, rp: usize, argc: usize) -> P {
        // the answer stays in registers: kept in a local across the check
        // below, the arms' answers met in one stack slot, stored in halves
        // and copied out whole (a failed store forward on every primitive)
        let result = self.prim_table(n, rp, argc);
        if self.heap.refused.is_some() {
            // the write barrier refused a store into a persistent object
            return self.refused_in_primitive(result);
        }
        result
    }

    /// The primitive table behind [`Vm::prim`].
    #[inline(never)]
    extern "C-unwind" fn prim_table(&mut self, n: u16, rp: usize, argc: usize) -> P {
        let r = self.stack[rp];
        match n {
            1..=29 => self.prim_object(n, r, rp, argc),
            40..=78 => self.prim_behavior(n, r, rp, argc),
            90..=98 => self.prim_method(n, r),
            // `printString` of a SmallInteger, the common case, straight away
            122 | 148 => match r {
                Value::Int(x) => Ok(Some(self.small_int_string(x))),
                _ => self.prim_number(n, r, rp, argc),
            },
            100..=159 => self.prim_number(n, r, rp, argc),
            160..=169 => self.prim_char(n, r, rp),
            200..=239 => self.prim_string(n, r, rp, argc),
            240 | 241 => Ok(self.hashed_index_of(r, self.arg(rp, 0), n == 241)),
            400..=429 => self.prim_collection(n, r, rp, argc),
            250..=260 => self.prim_block(n, r, rp, argc),
            286 | 287 => self.prim_stack_report(n, r, rp, argc),
            270..=285 => self.prim_exception(n, r, rp, argc),
            313..=316 if self.repo.is_some() => self.persist_prim(n, rp, argc),
            360..=364 => self.prim_finder(n, rp, argc),
            380..=399 => self.persist_prim(n, rp, argc),
            300..=349 => self.prim_system(n, r, rp, argc),
            _ => Ok(None),
        }
    }

    extern "C-unwind" fn prim_object(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
        Ok(match n {
            1 => Some(Value::bool(r.identical(self.arg(rp, 0)))),
            2 => Some(Value::Obj(self.class_of(r))),
            3 | 17 => Some(Value::Int(identity_hash(r))),
            4 | 21 => {
                if n == 21
                    && matches!(r, Value::Obj(o) if matches!(self.heap.get(o).body, Body::Dict(_)))
                {
                    return Ok(self.dict_entries(r).map(|e| Value::Int(e.len() as i64)));
                }
                Some(Value::Int(self.basic_size(r) as i64))
            }
            5 | 22 => Self::one_based(self.arg(rp, 0)).and_then(|i| self.basic_at(r, i)),
            6 | 23 => {
                let (i, x) = (self.arg(rp, 0), self.arg(rp, 1));
                match Self::one_based(i) {
                    Some(i) if self.basic_at_put(r, i, x).is_ok() => Some(x),
                    _ => None,
                }
            }
            7 => {
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
            8 => {
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
            9 => Some(match r {
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
            10 => {
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
            11 => {
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
            12 => {
                let c = self.arg(rp, 0);
                match c {
                    Value::Obj(co) if self.heap.class_data(co).is_some() => {
                        Some(Value::bool(self.is_kind_of(r, co)))
                    }
                    _ => Some(Value::False),
                }
            }
            13 => {
                let Value::Obj(s) = self.arg(rp, 0) else {
                    return Ok(Some(Value::False));
                };
                let c = self.class_of(r);
                Some(Value::bool(self.lookup(c, s).is_some()))
            }
            14 => {
                let s = self.basic_print(r, 0);
                Some(self.new_string(&s))
            }
            15 => Some(Value::bool(!r.identical(self.arg(rp, 0)))),
            16 => Some(Value::bool(r.identical(self.arg(rp, 0)))),
            18 => {
                let s = match self.string_of(r) {
                    Some(s) => s,
                    None => self.basic_print(r, 0),
                };
                Some(self.new_string(&s))
            }
            19 => {
                let c = self.arg(rp, 0);
                Some(Value::bool(
                    matches!(c, Value::Obj(co) if co == self.class_of(r)),
                ))
            }
            20 => {
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
            24 => {
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
            29 => {
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
            28 => {
                let msg = self.arg(rp, 0);
                Some(self.signal_mnu(r, msg)?)
            }
            26 => Some(Value::bool(match r {
                Value::Obj(o) => self.heap.is_invariant(o),
                _ => true,
            })),
            27 => {
                if let Value::Obj(o) = r {
                    self.heap.set_invariant(o);
                }
                Some(r)
            }
            _ => None,
        })
    }

    pub fn class_for_error_number(&self, n: u32) -> Oop {
        self.error_numbers
            .iter()
            .find(|(_, &v)| v == n)
            .map(|(&k, _)| k)
            .unwrap_or(self.k.error)
    }

    extern "C-unwind" fn prim_method(&mut self, n: u16, r: Value) -> P {
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

    extern "C-unwind" fn prim_number(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
        // SmallInteger fast paths: no big-integer arithmetic for the common cases
        if let Value::Int(x) = r {
            let y = if argc >= 1 {
                self.arg(rp, 0)
            } else {
                Value::Nil
            };
            let fast = match (n, y) {
                (100, Value::Int(y)) => Value::small_int(x + y),
                (101, Value::Int(y)) => Value::small_int(x - y),
                (102, Value::Int(y)) => x.checked_mul(y).and_then(Value::small_int),
                (104, Value::Int(y)) if y != 0 => Some(Value::Int(crate::interp::floor_div(x, y))),
                (105, Value::Int(y)) if y != 0 => Some(Value::Int(
                    x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 },
                )),
                (106, Value::Int(y)) if y != 0 => Some(Value::Int(x / y)),
                (107, Value::Int(y)) if y != 0 => Some(Value::Int(x % y)),
                (108, Value::Int(y)) => Some(Value::bool(x < y)),
                (109, Value::Int(y)) => Some(Value::bool(x > y)),
                (110, Value::Int(y)) => Some(Value::bool(x <= y)),
                (111, Value::Int(y)) => Some(Value::bool(x >= y)),
                (112, Value::Int(y)) => Some(Value::bool(x == y)),
                (113, Value::Int(y)) => Some(Value::bool(x != y)),
                (114, _) => Some(Value::Int(x)),
                (115, _) => Value::small_int(-x),
                (116, _) => Value::small_int(x.abs()),
                (117, _) => Some(Value::Float(x as f64)),
                (118..=121 | 149, _) => Some(r),
                (126, Value::Int(y)) => Some(Value::Int(x & y)),
                (127, Value::Int(y)) => Some(Value::Int(x | y)),
                (128, Value::Int(y)) => Some(Value::Int(x ^ y)),
                (144, _) => Some(Value::bool(x == 0)),
                (145, _) => Some(Value::Int(x.signum())),
                (157, _) => Some(Value::bool(x < 0)),
                (159, _) => Some(Value::bool(x % 2 == 0)),
                (122 | 148, _) => return Ok(Some(self.small_int_string(x))),
                _ => None,
            };
            if fast.is_some() {
                return Ok(fast);
            }
        }
        let Some(a) = self.to_num(r) else {
            return Ok(None);
        };
        let b = if argc >= 1 {
            self.to_num(self.arg(rp, 0))
        } else {
            None
        };
        macro_rules! bin {
            ($op:expr) => {{
                let Some(b) = b else { return Ok(None) };
                let res = num::arith($op, &a, &b);
                return self.num_result(r, res);
            }};
        }
        macro_rules! cmp {
            ($f:expr) => {{
                let Some(b) = b else { return Ok(None) };
                return Ok(num::compare(&a, &b)
                    .map(|o| Value::bool($f(o)))
                    .or(Some(Value::False)));
            }};
        }
        use std::cmp::Ordering::*;
        let int = match &a {
            Num::I(i) => Some(i.clone()),
            _ => None,
        };
        let bint = match &b {
            Some(Num::I(i)) => Some(i.clone()),
            _ => None,
        };
        match n {
            100 => bin!(Op::Add),
            101 => bin!(Op::Sub),
            102 => bin!(Op::Mul),
            103 => bin!(Op::Div),
            104 => bin!(Op::IntDiv),
            105 => bin!(Op::Mod),
            106 => bin!(Op::Quo),
            107 => bin!(Op::Rem),
            108 => cmp!(|o| o == Less),
            109 => cmp!(|o| o == Greater),
            110 => cmp!(|o| o != Greater),
            111 => cmp!(|o| o != Less),
            112 => {
                let Some(b) = b else {
                    return Ok(Some(Value::False));
                };
                Ok(Some(Value::bool(num::compare(&a, &b) == Some(Equal))))
            }
            113 => {
                let Some(b) = b else {
                    return Ok(Some(Value::True));
                };
                Ok(Some(Value::bool(num::compare(&a, &b) != Some(Equal))))
            }
            114 => Ok(Some(Value::Int(match &a {
                Num::F(f) if f.fract() == 0.0 && f.abs() < 1e18 => *f as i64 & ((1 << 60) - 1),
                Num::F(f) => (f.to_bits() >> 4) as i64 & ((1 << 60) - 1),
                other => match other.ratio() {
                    Some((n, d)) if d.is_one() => {
                        (&n & BigInt::from((1i64 << 60) - 1)).to_i64().unwrap_or(0)
                    }
                    Some((n, d)) => ((&n ^ &d) & BigInt::from((1i64 << 60) - 1))
                        .to_i64()
                        .unwrap_or(0),
                    None => 0,
                },
            }))),
            115 => {
                let z = Num::I(BigInt::zero());
                let res = num::arith(Op::Sub, &z, &a);
                // keep the receiver's kind for floats and scaled decimals
                let res = match (&a, res) {
                    (Num::F(f), _) => Ok(Num::F(-f)),
                    (Num::Scaled(n, d, s), _) => Ok(Num::Scaled(-n, d.clone(), *s)),
                    (_, r) => r,
                };
                self.num_result(r, res)
            }
            116 => {
                let res = match &a {
                    Num::F(f) => Num::F(f.abs()),
                    Num::I(i) => Num::I(i.abs()),
                    Num::Frac(n, d) => Num::Frac(n.abs(), d.clone()),
                    Num::Scaled(n, d, s) => Num::Scaled(n.abs(), d.clone(), *s),
                };
                self.num_result(r, Ok(res))
            }
            117 => Ok(Some(Value::Float(a.to_f64()))),
            118 | 149 | 119 | 120 | 121 => {
                let res = match &a {
                    Num::F(f) => {
                        let g = match n {
                            119 => f.round(),
                            120 => f.floor(),
                            121 => f.ceil(),
                            _ => f.trunc(),
                        };
                        num::f_to_big(g).map(Num::I)
                    }
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        use num_integer::Integer;
                        Ok(Num::I(match n {
                            119 => {
                                let twice = &p * 2
                                    + if p.is_negative() {
                                        -q.clone()
                                    } else {
                                        q.clone()
                                    };
                                twice / (&q * 2)
                            }
                            120 => p.div_floor(&q),
                            121 => -((-p).div_floor(&q)),
                            _ => p / q,
                        }))
                    }
                };
                self.num_result(r, res)
            }
            122 | 148 => {
                let s = self.num_print(&a);
                Ok(Some(self.new_string(&s)))
            }
            123 => {
                let Some(i) = int else { return Ok(None) };
                let Value::Int(radix) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                if !(2..=36).contains(&radix) {
                    return Ok(None);
                }
                let s = num::int_print_radix(&i, radix as u32);
                Ok(Some(self.new_string(&s)))
            }
            124 | 125 => {
                let (Some(x), Some(y)) = (int, bint) else {
                    return Ok(None);
                };
                use num_integer::Integer;
                let v = if n == 124 { x.gcd(&y) } else { x.lcm(&y) };
                Ok(Some(self.small_or_big(v)))
            }
            126..=128 => {
                let (Some(x), Some(y)) = (int, bint) else {
                    return Ok(None);
                };
                let v = match n {
                    126 => x & y,
                    127 => x | y,
                    _ => x ^ y,
                };
                Ok(Some(self.small_or_big(v)))
            }
            129 => {
                let (Some(x), Value::Int(s)) = (int, self.arg(rp, 0)) else {
                    return Ok(None);
                };
                if s > 100_000 {
                    return self
                        .signal_error(self.k.argument_error, "bitShift: amount too large")
                        .map(Some);
                }
                if s > 0 && x.bits() + s as u64 > num::MAX_INT_BITS {
                    return self.num_result(r, Err(num::TOO_LARGE));
                }
                let v = if s >= 0 {
                    x << (s as usize)
                } else {
                    x >> ((-s).min(1 << 20) as usize)
                };
                Ok(Some(self.small_or_big(v)))
            }
            130 => {
                if let Some(i) = &int {
                    if !i.is_negative() {
                        let s = i.sqrt();
                        if &(&s * &s) == i {
                            return Ok(Some(self.small_or_big(s)));
                        }
                    }
                }
                let f = a.to_f64();
                if f < 0.0 {
                    return self
                        .signal_error(self.k.argument_error, "sqrt of a negative number")
                        .map(Some);
                }
                Ok(Some(Value::Float(f.sqrt())))
            }
            131 => {
                let Some(b) = b else { return Ok(None) };
                match (&a, &b) {
                    (_, Num::I(e)) if !matches!(a, Num::F(_)) => {
                        let Some(e) = e.to_i64() else { return Ok(None) };
                        if e.unsigned_abs() > u32::MAX as u64 {
                            return self
                                .signal_error(self.k.argument_error, "exponent too large")
                                .map(Some);
                        }
                        let (p, q) = a.ratio().unwrap();
                        if num::power_bits(&p).max(num::power_bits(&q)) * e.unsigned_abs() as f64
                            > num::MAX_INT_BITS as f64
                        {
                            return self.num_result(r, Err(num::TOO_LARGE));
                        }
                        let (p, q) = (
                            p.pow(e.unsigned_abs() as u32),
                            q.pow(e.unsigned_abs() as u32),
                        );
                        let res = if e >= 0 {
                            match &a {
                                Num::Scaled(_, _, s) => Ok(Num::Scaled(p, q, *s)),
                                _ => num::arith(Op::Div, &Num::I(p), &Num::I(q)),
                            }
                        } else {
                            num::arith(Op::Div, &Num::I(q), &Num::I(p))
                        };
                        self.num_result(r, res)
                    }
                    _ => Ok(Some(Value::Float(a.to_f64().powf(b.to_f64())))),
                }
            }
            132 => {
                let Some(i) = int else { return Ok(None) };
                let Some(k) = i.to_u64() else {
                    return self
                        .signal_error(
                            self.k.argument_error,
                            "factorial of a negative or huge number",
                        )
                        .map(Some);
                };
                if k > 20_000 {
                    return self
                        .signal_error(self.k.argument_error, "factorial argument too large")
                        .map(Some);
                }
                let mut acc = BigInt::one();
                for j in 2..=k {
                    acc *= j;
                }
                Ok(Some(self.small_or_big(acc)))
            }
            133 => {
                let res = match &a {
                    Num::F(f) => float_to_fraction(*f),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        Ok(Num::Frac(p, q))
                    }
                };
                self.num_result(r, res)
            }
            134 => {
                let Value::Int(s) = self.arg(rp, 0) else {
                    return Ok(None);
                };
                if !(0..=1000).contains(&s) {
                    return Ok(None);
                }
                let res = match &a {
                    Num::F(f) => float_to_fraction(*f).map(|fr| {
                        let (p, q) = fr.ratio().unwrap();
                        Num::Scaled(p, q, s as u32)
                    }),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        Ok(Num::Scaled(p, q, s as u32))
                    }
                };
                self.num_result(r, res)
            }
            135 | 136 => {
                let Some((p, q)) = a.ratio() else {
                    return Ok(None);
                };
                Ok(Some(self.small_or_big(if n == 135 { p } else { q })))
            }
            137..=143 => {
                let x = a.to_f64();
                let v = match n {
                    137 => x.ln(),
                    138 => x.exp(),
                    139 => x.sin(),
                    140 => x.cos(),
                    141 => x.tan(),
                    142 => x.atan(),
                    _ => {
                        let Some(b) = b else { return Ok(None) };
                        x.ln() / b.to_f64().ln()
                    }
                };
                Ok(Some(Value::Float(v)))
            }
            144 => Ok(Some(Value::bool(a.is_zero()))),
            145 => Ok(Some(Value::Int(if a.is_zero() {
                0
            } else if a.is_negative() {
                -1
            } else {
                1
            }))),
            146 => {
                let Some(i) = int else { return Ok(None) };
                Ok(Some(Value::Int(i.bits() as i64)))
            }
            147 => {
                let Some(c) = int.and_then(|i| i.to_u32()) else {
                    return Ok(None);
                };
                if c > 0x10FFFF {
                    return Ok(None);
                }
                Ok(Some(Value::Char(c)))
            }
            150 => Ok(Some(Value::Int(match a {
                Num::Scaled(_, _, s) => s as i64,
                _ => 0,
            }))),
            151 | 152 => {
                let Some(b) = b else { return Ok(None) };
                let q = num::arith(Op::Div, &a, &b);
                let q = match q {
                    Ok(q) => q,
                    Err(e) => return self.num_result(r, Err(e)),
                };
                let qv = self.num_value(q);
                let sel = if n == 151 { "rounded" } else { "truncated" };
                let qi = self.send_str(qv, sel, &[])?;
                let bv = self.arg(rp, 0);
                Ok(Some(self.send_str(qi, "*", &[bv])?))
            }
            153 | 154 => {
                let res = match &a {
                    Num::F(f) => Ok(Num::F(if n == 153 { f.fract() } else { f.trunc() })),
                    other => {
                        let (p, q) = other.ratio().unwrap();
                        let ip = &p / &q;
                        if n == 154 {
                            Ok(match other {
                                Num::Scaled(_, _, s) => Num::Scaled(ip, BigInt::one(), *s),
                                _ => Num::I(ip),
                            })
                        } else {
                            num::arith(Op::Sub, other, &Num::I(ip))
                        }
                    }
                };
                self.num_result(r, res)
            }
            155 => Ok(Some(Value::bool(matches!(a, Num::F(f) if f.is_nan())))),
            156 => Ok(Some(Value::bool(matches!(a, Num::F(f) if f.is_infinite())))),
            157 => Ok(Some(Value::bool(a.is_negative()))),
            158 => {
                let res = num::arith(Op::Mul, &a, &a);
                self.num_result(r, res)
            }
            159 => {
                let Some(i) = int else { return Ok(None) };
                Ok(Some(Value::bool((&i % 2u32).is_zero())))
            }
            _ => Ok(None),
        }
    }

    extern "C-unwind" fn prim_char(&mut self, n: u16, r: Value, rp: usize) -> P {
        if n == 161 {
            let c = match self.arg(rp, 0) {
                Value::Int(i) if (0..=0x10FFFF).contains(&i) => i as u32,
                _ => return Ok(None),
            };
            return Ok(Some(Value::Char(c)));
        }
        let Value::Char(c) = r else { return Ok(None) };
        let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
        Ok(Some(match n {
            160 => Value::Int(c as i64),
            162 => Value::bool("aeiouAEIOU".contains(ch)),
            163 => Value::bool(ch.is_alphabetic()),
            164 => Value::bool(ch.is_ascii_digit()),
            165 => Value::bool(ch.is_whitespace()),
            166 => Value::Char(ch.to_uppercase().next().map(|u| u as u32).unwrap_or(c)),
            167 => Value::Char(ch.to_lowercase().next().map(|u| u as u32).unwrap_or(c)),
            168 => Value::bool(ch.is_uppercase()),
            169 => Value::bool(ch.is_lowercase()),
            _ => return Ok(None),
        }))
    }

    extern "C-unwind" fn prim_string(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
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
            209 => {
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
            210 => {
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
            222 => {
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
            225 => {
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
            230 => {
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
            231 => {
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
            234 => {
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
            215 => {
                let Some(chars) = self.chars_of(r) else {
                    return Ok(None);
                };
                let s = Self::chars_to_string(&chars);
                return Ok(Some(Value::Obj(
                    self.heap
                        .alloc(self.k.byte_array, Body::Bytes(s.into_bytes())),
                )));
            }
            216 => {
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
        if n == 200 && !self.is_kind_of(r, self.k.character_collection) {
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
        if n == 229 && argc == 1 {
            if let Some(v) = self.includes_string_ascii(r, self.arg(rp, 0)) {
                return Ok(Some(v));
            }
        }
        if n == 224 {
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
            200 => {
                let Some(t) = arg_chars else { return Ok(None) };
                let mut v = s;
                v.extend(t);
                self.string_from_chars(v)
            }
            201 => {
                let other = self.arg(rp, 0);
                if self.is_symbol(r) && self.is_symbol(other) {
                    return Ok(Some(Value::bool(r.identical(other))));
                }
                Value::bool(arg_chars.is_some_and(|t| t == s))
            }
            202..=205 => {
                let Some(t) = arg_chars else { return Ok(None) };
                let o = s.cmp(&t);
                use std::cmp::Ordering::*;
                Value::bool(match n {
                    202 => o == Less,
                    203 => o == Greater,
                    204 => o != Greater,
                    _ => o != Less,
                })
            }
            206 => Value::Int(string_hash(&s)),
            207 => {
                let st = Self::chars_to_string(&s);
                self.sym(&st)
            }
            208 | 233 => {
                if n == 208 && !self.is_symbol(r) && self.class_of(r) == self.k.string {
                    return Ok(Some(r));
                }
                let v = self.string_from_chars(s);
                if n == 233 {
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
            211 | 229 | 235 | 236 | 237 => {
                let Some(t) = arg_chars else { return Ok(None) };
                let (a, b) = (Self::chars_to_string(&s), Self::chars_to_string(&t));
                Value::bool(match n {
                    211 => a.contains(&b),
                    229 => a.to_lowercase().contains(&b.to_lowercase()),
                    235 => a.to_lowercase() == b.to_lowercase(),
                    236 => a.starts_with(&b),
                    _ => a.ends_with(&b),
                })
            }
            212 | 213 => {
                let st = Self::chars_to_string(&s);
                let t = if n == 212 {
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
            214 => {
                let st = Self::chars_to_string(&s);
                let p = if self.is_symbol(r) {
                    format!("#{}", symbol_print_body(&st))
                } else {
                    quote(&st)
                };
                self.new_string(&p)
            }
            217 => {
                let src = Self::chars_to_string(&s);
                return self.evaluate_source(&src).map(Some);
            }
            218 => self.string_from_chars(s),
            219 | 220 => {
                let st = Self::chars_to_string(&s);
                if n == 220 {
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
                    match crate::parser::parse_number_literal(&st) {
                        Some(l) => self.literal_value(&l),
                        None => Value::Nil,
                    }
                }
            }
            221 => {
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
            223 => Value::Int(selector_arity(&Self::chars_to_string(&s)) as i64),
            224 => Value::Int(s.len() as i64),
            226 => {
                let st = Self::chars_to_string(&s);
                self.new_string(st.trim())
            }
            227 | 228 => {
                let st = Self::chars_to_string(&s);
                let parts: Vec<String> = if n == 227 {
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
            232 => Value::bool(self.is_symbol(r)),
            238 => {
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
            239 => {
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

    extern "C-unwind" fn prim_block(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
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

    /// Interrupt check for loops run by primitives.
    pub fn poll(&mut self) -> Result<(), Unwind> {
        self.check_interrupt()
    }

    extern "C-unwind" fn prim_exception(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
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

    extern "C-unwind" fn prim_system(&mut self, n: u16, r: Value, rp: usize, argc: usize) -> P {
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
}

pub fn identity_hash(v: Value) -> i64 {
    let (t, x) = v.identity_key();
    ((x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8) as i64 ^ t as i64) & ((1 << 30) - 1)
}

/// The 0-based bucket where the kernel's probe for SmallInteger `k` starts in
/// a table of `n` (> 0) buckets: `k hash \\ 16r3FFFFFFF * 40503 \\ n`.
#[inline(always)]
pub(crate) fn hash_start(k: i64, n: usize) -> usize {
    // SmallInteger>>hash (primitive 114) is the value modulo 2^60
    let h = (k & ((1i64 << 60) - 1)) as u64;
    let spread = h % 0x3FFF_FFFF * 40503;
    // `\\ n` of a non-negative value; the kernel's tables are powers of two
    if n.is_power_of_two() {
        (spread & (n as u64 - 1)) as usize
    } else {
        (spread % n as u64) as usize
    }
}

/// The decimal digits of a SmallInteger (with a leading `-`), as a String's
/// bytes: counted first, then written from the end into a vector of exactly
/// that length.
fn int_digits(x: i64) -> Vec<u8> {
    let mut m = x.unsigned_abs();
    let mut len = usize::from(x < 0) + 1;
    let mut rest = m;
    while rest >= 10 {
        rest /= 10;
        len += 1;
    }
    let mut v = vec![b'-'; len];
    for d in v.iter_mut().rev() {
        *d = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    v
}

/// `string_hash` of a one-byte string's characters (the same value).
pub fn bytes_hash(s: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in s {
        h ^= c as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h & ((1 << 30) - 1)) as i64
}

/// The 0-based index of the first occurrence of a non-empty `needle` in
/// `hay` at or after `start` (a vectorised substring search).
fn find_bytes(hay: &[u8], needle: &[u8], start: usize) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    memchr::memmem::find(hay.get(start..)?, needle).map(|i| i + start)
}

pub fn string_hash(s: &[u32]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in s {
        h ^= c as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h & ((1 << 30) - 1)) as i64
}

pub fn selector_arity(s: &str) -> usize {
    if s.is_empty() {
        return 0;
    }
    if s.chars().all(|c| "+-*/\\<>=~@%|&?,".contains(c)) {
        return 1;
    }
    s.chars().filter(|&c| c == ':').count()
}

fn float_to_fraction(f: f64) -> Result<Num, NumErr> {
    if !f.is_finite() {
        return Err(NumErr::Domain(
            "cannot convert a non-finite Float to a Fraction",
        ));
    }
    let bits = f.to_bits();
    let neg = bits >> 63 != 0;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = if exp == 0 {
        (bits & ((1 << 52) - 1)) << 1
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    };
    let e = exp - 1075;
    let mut n = BigInt::from(mant);
    let mut d = BigInt::one();
    if e > 0 {
        n <<= e as usize;
    } else {
        d <<= (-e) as usize;
    }
    if neg {
        n = -n;
    }
    num::arith(Op::Div, &Num::I(n), &Num::I(d))
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

#[allow(dead_code)]
fn unused(_: SymDict) {}
