//! The shapes an object's body takes: pointer slots, bytes, code points,
//! a class's data, a compiled method, a block's closure box, a
//! SymbolDictionary's entries, a large integer; and how many bytes each
//! counts for against the budget.

use std::sync::Arc;

use num_bigint::BigInt;

use super::*;
use crate::object::code::{BlockCode, Method};
use crate::object::value::{FxHashMap, Oop, Value};

/// How instances of a class are laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Named pointer instance variables only.
    Ptr,
    /// Named pointer instance variables plus indexable pointer slots.
    IdxPtr,
    /// Indexable bytes (String, Symbol, ByteArray).
    Bytes,
    /// Indexable 16-bit code points (DoubleByteString family).
    Dbyte,
    /// Indexable 32-bit code points (QuadByteString family).
    Qbyte,
    /// A Rust-backed hash table (SymbolDictionary family).
    Dict,
    /// Instances are made only by the VM (immediates, LargeIntegers, blocks, methods, classes).
    Special,
}

impl Format {
    pub fn is_indexable(self) -> bool {
        matches!(
            self,
            Format::IdxPtr | Format::Bytes | Format::Dbyte | Format::Qbyte
        )
    }
}

/// The reflective state of a class or metaclass.
#[derive(Debug, Clone)]
pub struct ClassData {
    pub name: Oop,
    pub superclass: Option<Oop>,
    pub is_meta: bool,
    /// For a metaclass: the class it describes. For a class: itself.
    pub this_class: Oop,
    pub format: Format,
    /// Own instance variable names (Symbols).
    pub ivar_names: Vec<Oop>,
    /// Total named instance variables including inherited ones.
    pub inst_size: usize,
    /// selector Symbol -> GsNMethod object.
    pub methods: FxHashMap<Oop, Oop>,
    /// selector Symbol -> category Symbol.
    pub categories: FxHashMap<Oop, Oop>,
    /// Class variables: name Symbol -> Association (non-meta side only).
    pub class_vars: Vec<(Oop, Oop)>,
    pub pools: Vec<Value>,
    pub comment: Value,
    pub category: Value,
    pub subclasses: Vec<Oop>,
    /// Values of class-instance variables (a class object's own named slots).
    pub slots: Vec<Value>,
    /// Class versions, oldest first (shared meaning: `classHistory`).
    pub history: Vec<Oop>,
    pub options: Vec<Oop>,
    pub dictionary: Value,
    /// The method dictionary and categories as the repository holds them, not
    /// materialised yet: while this is set, `methods` and `categories` are
    /// empty and mean nothing. Only a class loaded from a repository has it;
    /// every reader of `methods`/`categories` calls `Vm::ensure_methods` first,
    /// which fills both and clears this (see `smalltalk/PERSISTENCE.md`).
    pub stored_methods: Option<Box<StoredMethods>>,
}

/// A class's method dictionary as stored: each selector (an interned Symbol)
/// with the repository OOP of its method, and each selector's category.
#[derive(Debug, Clone, Default)]
pub struct StoredMethods {
    pub methods: Vec<(Oop, u64)>,
    pub categories: Vec<(Oop, Oop)>,
}

/// A Rust-backed SymbolDictionary: keys compared by identity after Strings are
/// made Symbols; values live in Associations so compiled code can bind them.
#[derive(Debug, Clone, Default)]
pub struct SymDict {
    pub entries: Vec<Option<(Value, Oop)>>,
    pub index: FxHashMap<(u8, u64), usize>,
    pub live: usize,
}

impl SymDict {
    pub fn get(&self, key: Value) -> Option<Oop> {
        self.index
            .get(&key.identity_key())
            .and_then(|&i| self.entries[i].map(|(_, a)| a))
    }

    pub fn insert(&mut self, key: Value, assoc: Oop) {
        let k = key.identity_key();
        if let Some(&i) = self.index.get(&k) {
            self.entries[i] = Some((key, assoc));
        } else {
            self.index.insert(k, self.entries.len());
            self.entries.push(Some((key, assoc)));
            self.live += 1;
        }
    }

    pub fn remove(&mut self, key: Value) -> Option<Oop> {
        let i = self.index.remove(&key.identity_key())?;
        let old = self.entries[i].take().map(|(_, a)| a);
        self.live -= 1;
        if self.entries.len() > 32 && self.live * 2 < self.entries.len() {
            let live: Vec<(Value, Oop)> = self.entries.drain(..).flatten().collect();
            self.index.clear();
            for (k, a) in live {
                self.index.insert(k.identity_key(), self.entries.len());
                self.entries.push(Some((k, a)));
            }
        }
        old
    }

    pub fn iter(&self) -> impl Iterator<Item = (Value, Oop)> + '_ {
        self.entries.iter().flatten().copied()
    }
}

/// A block closure: its code, the receiver and environment it closed over, and
/// the activation id of its home method (for `^`).
#[derive(Debug, Clone)]
pub struct Closure {
    pub code: Arc<BlockCode>,
    pub method: Arc<Method>,
    pub receiver: Value,
    pub env: Value,
    pub home: u64,
}

/// An object's contents. `#[repr(u8)]`: the tag is one byte read with one
/// load (otherwise rustc niche-encodes it in `BigInt`'s sign byte and every
/// `match` on a body decodes it first); `Big` is boxed so that the body stays
/// 32 bytes (a `Vec` and the tag).
#[derive(Debug, Clone)]
#[repr(u8)]
pub enum Body {
    /// Named instance variables followed by indexable slots.
    Ptr(Vec<Value>),
    Bytes(Vec<u8>),
    /// DoubleByte and QuadByte strings: code points.
    Wide(Vec<u32>),
    Big(Box<BigInt>),
    Dict(Box<SymDict>),
    Class(Box<ClassData>),
    Method(Arc<Method>),
    Block(Box<Closure>),
}

impl Body {
    /// The memory a drop of this body reads or frees first, if it has any.
    #[inline]
    pub(super) fn heap_ptr(&self) -> Option<*const u8> {
        match self {
            Body::Ptr(v) if v.capacity() > 0 => Some(v.as_ptr().cast()),
            Body::Bytes(b) if b.capacity() > 0 => Some(b.as_ptr()),
            Body::Wide(w) if w.capacity() > 0 => Some(w.as_ptr().cast()),
            Body::Block(b) => Some((&**b as *const Closure).cast()),
            _ => None,
        }
    }

    #[inline(always)]
    pub(super) fn approx_bytes(&self) -> usize {
        OBJECT_BYTES
            + match self {
                Body::Ptr(v) => v.len() * 16,
                Body::Bytes(b) => b.len(),
                Body::Wide(w) => w.len() * 4,
                Body::Big(b) => (b.bits() / 8) as usize,
                Body::Dict(d) => d.entries.len() * 40,
                Body::Class(_) => 512,
                Body::Method(_) => 256,
                Body::Block(_) => BLOCK_BYTES,
            }
    }
}

/// The element types of the bodies handed to the heap in registers
/// ([`Heap::alloc_ptr`], [`Heap::alloc_bytes`]): the body a vector of them
/// makes, and the bytes [`Body::approx_bytes`] counts per element.
pub(super) trait BodyVec: Sized {
    const BYTES: usize;
    fn body(v: Vec<Self>) -> Body;
}

impl BodyVec for Value {
    const BYTES: usize = 16;

    fn body(v: Vec<Value>) -> Body {
        Body::Ptr(v)
    }
}

impl BodyVec for u8 {
    const BYTES: usize = 1;

    fn body(v: Vec<u8>) -> Body {
        Body::Bytes(v)
    }
}
