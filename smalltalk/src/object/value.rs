//! Values as the interpreter passes them around: immediates (SmallInteger,
//! SmallDouble, Character, true/false/nil) carried inline, everything else an
//! [`Oop`] into the object table owned by `heap`. This module owns the value
//! representation only; it must not know about classes or methods.

use std::hash::{BuildHasherDefault, Hasher};

/// Smallest SmallInteger (GemStone: -2^60).
pub const SMALLINT_MIN: i64 = -(1i64 << 60);
/// Largest SmallInteger (GemStone: 2^60 - 1).
pub const SMALLINT_MAX: i64 = (1i64 << 60) - 1;

/// The identity of a heap object: its index in the object table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Oop(pub u64);

impl Oop {
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// One Smalltalk value. `Copy`, 16 bytes; never owns heap memory.
///
/// The tag is a whole word and every payload sits at offset 8: with the
/// default layout `Char`'s payload shared the tag's word, so copies of a
/// value of unknown kind moved it in pieces (4 + 8 + 4 bytes) that a later
/// 8- or 16-byte load straddled, stalling on a failed store-to-load
/// forward. `Option<Value>` and `R` stay 16 bytes (the tag's unused values
/// are their niche).
#[derive(Copy, Clone, Debug)]
#[repr(u64)]
pub enum Value {
    Nil,
    True,
    False,
    /// A SmallInteger; always within `SMALLINT_MIN ..= SMALLINT_MAX`.
    Int(i64),
    Char(u32),
    Float(f64),
    Obj(Oop),
}

// the layout the interpreter's copies rely on (kernel/VM.md §7): 16 bytes,
// with a spare tag value left for `Option`
const _: () =
    assert!(std::mem::size_of::<Value>() == 16 && std::mem::size_of::<Option<Value>>() == 16);

impl Value {
    #[inline]
    pub fn bool(b: bool) -> Value {
        if b {
            Value::True
        } else {
            Value::False
        }
    }

    /// Identity (`==`): immediates by value (floats by bit pattern), objects by OOP.
    #[inline]
    pub fn identical(self, other: Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil)
            | (Value::True, Value::True)
            | (Value::False, Value::False) => true,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Char(a), Value::Char(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Obj(a), Value::Obj(b)) => a == b,
            _ => false,
        }
    }

    #[inline]
    pub fn oop(self) -> Option<Oop> {
        match self {
            Value::Obj(o) => Some(o),
            _ => None,
        }
    }

    #[inline]
    pub fn is_nil(self) -> bool {
        matches!(self, Value::Nil)
    }

    /// A small integer fits; otherwise `None` (the caller makes a LargeInteger).
    #[inline]
    pub fn small_int(i: i64) -> Option<Value> {
        if (SMALLINT_MIN..=SMALLINT_MAX).contains(&i) {
            Some(Value::Int(i))
        } else {
            None
        }
    }

    /// A hashable identity key (for identity dictionaries and caches).
    pub fn identity_key(self) -> (u8, u64) {
        match self {
            Value::Nil => (0, 0),
            Value::True => (1, 0),
            Value::False => (2, 0),
            Value::Int(i) => (3, i as u64),
            Value::Char(c) => (4, c as u64),
            Value::Float(f) => (5, f.to_bits()),
            Value::Obj(o) => (6, o.0),
        }
    }
}

/// A fast, non-cryptographic hasher for OOP- and symbol-keyed tables (FxHash's
/// multiply-rotate scheme). Keys here are never attacker-chosen strings.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.hash = (self.hash.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = std::collections::HashSet<K, FxBuild>;
