//! Hashing as the kernel's hashed collections see it: the identity and
//! string hashes, the first bucket of a key, and the `_indexOf:` primitives
//! (240, 241) and probes the collection fast paths share, valid only while
//! the kernel's own `hash`, `key` and `value:` are the ones in use (checked
//! once per method epoch).
// the primitive arms are `extern "C-unwind"` so that they answer in two
// registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::primitives::*;
use crate::object::value::{Oop, Value};

impl Vm {
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
        let (epoch, int_hash, assoc_key, assoc_set) = self.memos.hashing_checked;
        if epoch == self.sends.epoch() + 1 {
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
            .is_some_and(|m| m.primitive == NUMBER_HASH);
        let assoc_key = self
            .lookup(self.k.association, key_sel)
            .is_some_and(|m| matches!(m.trivial, crate::object::code::Trivial::IVar(0)));
        let assoc_set = self
            .lookup(self.k.association, set_sel)
            .is_some_and(|m| matches!(m.trivial, crate::object::code::Trivial::SetIVar(1)));
        self.memos.hashing_checked = (self.sends.epoch() + 1, int_hash, assoc_key, assoc_set);
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

/// `string_hash` of a one-byte string's characters (the same value).
pub fn bytes_hash(s: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in s {
        h ^= c as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h & ((1 << 30) - 1)) as i64
}

pub fn string_hash(s: &[u32]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in s {
        h ^= c as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h & ((1 << 30) - 1)) as i64
}
