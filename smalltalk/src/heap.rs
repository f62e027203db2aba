//! The object memory: an object table indexed by OOP, the bodies heap objects can
//! have, the symbol table, the single write barrier every store goes through, the
//! allocation budget, and a mark-and-sweep collector run at safe points (between
//! evaluations). The barrier also enforces a read-only session's rule: while
//! `guard_persistent` is set, a store into a persistent object is refused and
//! recorded in `refused` for the engine to signal. It must not interpret
//! Smalltalk: it knows shapes, not behaviour.

use std::sync::Arc;

use num_bigint::BigInt;

use crate::code::{BlockCode, Method};
use crate::value::{FxHashMap, Oop, Value};

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

#[derive(Debug, Clone)]
pub enum Body {
    /// Named instance variables followed by indexable slots.
    Ptr(Vec<Value>),
    Bytes(Vec<u8>),
    /// DoubleByte and QuadByte strings: code points.
    Wide(Vec<u32>),
    Big(BigInt),
    Dict(Box<SymDict>),
    Class(Box<ClassData>),
    Method(Arc<Method>),
    Block(Box<Closure>),
}

impl Body {
    fn approx_bytes(&self) -> usize {
        48 + match self {
            Body::Ptr(v) => v.len() * 16,
            Body::Bytes(b) => b.len(),
            Body::Wide(w) => w.len() * 4,
            Body::Big(b) => (b.bits() / 8) as usize,
            Body::Dict(d) => d.entries.len() * 40,
            Body::Class(_) => 512,
            Body::Method(_) => 256,
            Body::Block(_) => 64,
        }
    }
}

pub const F_DIRTY: u8 = 1;
pub const F_INVARIANT: u8 = 2;
const F_MARK: u8 = 4;
/// Set on objects the repository layer (`persist`) has given a repository OOP.
/// `alloc` starts every object with no flags, so a reused slot never carries it.
pub const F_PERSISTENT: u8 = 8;

#[derive(Debug, Clone)]
pub struct Object {
    pub class: Oop,
    pub flags: u8,
    pub body: Body,
}

/// The object table.
#[derive(Clone)]
pub struct Heap {
    objects: Vec<Option<Object>>,
    free: Vec<u64>,
    /// Approximate bytes held by live objects.
    pub bytes: usize,
    /// Allocation budget; past it the interpreter signals AlmostOutOfMemory.
    pub limit: usize,
    /// Bytes allocated since the last collection.
    pub allocated_since_gc: usize,
    /// Objects stored into since the last commit (the repository's write set).
    pub dirty: Vec<Oop>,
    symbols: FxHashMap<String, Oop>,
    /// Set by the repository layer for a session that may not change shared
    /// objects (a commit-disabled user): the barrier refuses every store into an
    /// object marked F_PERSISTENT.
    pub(crate) guard_persistent: bool,
    /// The persistent object of the last refused store, until the engine turns
    /// it into a Smalltalk error (`Vm::signal_refused_write`).
    pub(crate) refused: Option<Oop>,
    /// Where a refused `write_meta` writes: a copy of the object, thrown away, so
    /// callers that cannot fail still leave the real object untouched.
    scratch: Box<Object>,
}

impl Heap {
    pub fn new(limit: usize) -> Heap {
        Heap {
            objects: Vec::with_capacity(1 << 16),
            free: Vec::new(),
            bytes: 0,
            limit,
            allocated_since_gc: 0,
            dirty: Vec::new(),
            symbols: FxHashMap::default(),
            guard_persistent: false,
            refused: None,
            scratch: Box::new(Object {
                class: Oop(0),
                flags: 0,
                body: Body::Ptr(Vec::new()),
            }),
        }
    }

    pub fn alloc(&mut self, class: Oop, body: Body) -> Oop {
        let n = body.approx_bytes();
        self.bytes += n;
        self.allocated_since_gc += n;
        let obj = Some(Object {
            class,
            flags: 0,
            body,
        });
        if let Some(i) = self.free.pop() {
            self.objects[i as usize] = obj;
            Oop(i)
        } else {
            self.objects.push(obj);
            Oop(self.objects.len() as u64 - 1)
        }
    }

    /// Reserves an OOP whose object is filled in later (bootstrap cycles).
    pub fn reserve(&mut self) -> Oop {
        self.alloc(Oop(0), Body::Ptr(Vec::new()))
    }

    pub fn over_limit(&self) -> bool {
        self.bytes > self.limit
    }

    /// Whether `extra` more bytes would fit in the budget.
    pub fn can_allocate(&self, extra: usize) -> bool {
        self.bytes.saturating_add(extra) <= self.limit
    }

    #[inline]
    pub fn get(&self, oop: Oop) -> &Object {
        self.objects[oop.idx()].as_ref().expect("dangling OOP")
    }

    #[inline]
    pub fn try_get(&self, oop: Oop) -> Option<&Object> {
        self.objects.get(oop.idx()).and_then(|o| o.as_ref())
    }

    /// Whether the barrier refuses stores into `oop` (a persistent object in a
    /// read-only session). Operations that change several objects ask first, so
    /// a refusal leaves all of them untouched.
    #[inline]
    pub fn refuses(&self, oop: Oop) -> bool {
        self.guard_persistent
            && self
                .try_get(oop)
                .is_some_and(|o| o.flags & F_PERSISTENT != 0)
    }

    /// Records a refused store into `oop` (see [`Heap::refuses`]).
    #[cold]
    pub fn refuse(&mut self, oop: Oop) {
        self.refused = Some(oop);
    }

    /// The write barrier: the one way to obtain a mutable object. Marks the
    /// object dirty for the repository. Fails on invariant objects, and on
    /// persistent objects in a read-only session (recorded in `refused`).
    #[inline]
    pub fn write(&mut self, oop: Oop) -> Option<&mut Object> {
        if self.guard_persistent && self.refuses(oop) {
            self.refuse(oop);
            return None;
        }
        let o = self.objects[oop.idx()].as_mut().expect("dangling OOP");
        if o.flags & F_INVARIANT != 0 {
            return None;
        }
        if o.flags & F_DIRTY == 0 {
            o.flags |= F_DIRTY;
            self.dirty.push(oop);
        }
        Some(o)
    }

    /// Mutable access for VM bookkeeping that ignores invariance (class
    /// definitions, method dictionaries). Still marks the object dirty. In a
    /// read-only session a persistent object is refused: the caller gets a
    /// throw-away copy and `refused` is set for the engine to signal.
    pub fn write_meta(&mut self, oop: Oop) -> &mut Object {
        if self.guard_persistent && self.refuses(oop) {
            self.refuse(oop);
            *self.scratch = self.get(oop).clone();
            return &mut self.scratch;
        }
        let o = self.objects[oop.idx()].as_mut().expect("dangling OOP");
        if o.flags & F_DIRTY == 0 {
            o.flags |= F_DIRTY;
            self.dirty.push(oop);
        }
        o
    }

    /// Stores into a pointer slot (0-based) through the barrier.
    pub fn store(&mut self, oop: Oop, i: usize, v: Value) -> bool {
        match self.write(oop) {
            Some(Object {
                body: Body::Ptr(s), ..
            }) if i < s.len() => {
                s[i] = v;
                true
            }
            _ => false,
        }
    }

    /// Reads a pointer slot (0-based), nil when out of range or not pointers.
    #[inline]
    pub fn slot(&self, oop: Oop, i: usize) -> Value {
        match &self.get(oop).body {
            Body::Ptr(s) => s.get(i).copied().unwrap_or(Value::Nil),
            _ => Value::Nil,
        }
    }

    pub fn class_data(&self, oop: Oop) -> Option<&ClassData> {
        match &self.try_get(oop)?.body {
            Body::Class(c) => Some(c),
            _ => None,
        }
    }

    pub fn class_data_mut(&mut self, oop: Oop) -> &mut ClassData {
        match &mut self.write_meta(oop).body {
            Body::Class(c) => c,
            _ => panic!("not a class"),
        }
    }

    /// Mutable access to a class without the write barrier, for the
    /// repository layer materialising a method dictionary it loaded lazily
    /// (`Vm::ensure_methods`): bringing memory to the view is no change.
    pub(crate) fn class_data_quiet(&mut self, oop: Oop) -> Option<&mut ClassData> {
        match &mut self.objects.get_mut(oop.idx())?.as_mut()?.body {
            Body::Class(c) => Some(c),
            _ => None,
        }
    }

    pub fn set_class(&mut self, oop: Oop, class: Oop) {
        self.write_meta(oop).class = class;
    }

    pub fn set_body(&mut self, oop: Oop, body: Body) {
        let o = self.write_meta(oop);
        o.body = body;
    }

    pub fn set_invariant(&mut self, oop: Oop) {
        self.write_meta(oop).flags |= F_INVARIANT;
    }

    pub fn is_invariant(&self, oop: Oop) -> bool {
        self.get(oop).flags & F_INVARIANT != 0
    }

    /// Changes flag bits without the write barrier (the repository layer's
    /// bookkeeping: marking objects persistent, clearing F_DIRTY after a commit).
    pub(crate) fn set_flags_quiet(&mut self, oop: Oop, set: u8, clear: u8) {
        if let Some(Some(o)) = self.objects.get_mut(oop.idx()) {
            o.flags = (o.flags & !clear) | set;
        }
    }

    /// The symbol with these characters, if it exists.
    pub fn find_symbol(&self, s: &str) -> Option<Oop> {
        self.symbols.get(s).copied()
    }

    /// Interns a symbol; `symbol_class`/`wide_symbol_class` are the classes to use.
    pub fn intern(&mut self, s: &str, symbol_class: Oop, wide_symbol_class: Oop) -> Oop {
        if let Some(&o) = self.symbols.get(s) {
            return o;
        }
        let body = if s.chars().all(|c| (c as u32) < 256) {
            Body::Bytes(s.chars().map(|c| c as u8).collect())
        } else {
            Body::Wide(s.chars().map(|c| c as u32).collect())
        };
        let class = if matches!(body, Body::Bytes(_)) {
            symbol_class
        } else {
            wide_symbol_class
        };
        let o = self.alloc(class, body);
        self.set_invariant(o);
        self.symbols.insert(s.to_string(), o);
        o
    }

    pub fn live_objects(&self) -> usize {
        self.objects.len() - self.free.len()
    }

    /// Mark-and-sweep from `roots` (plus every symbol). Only call at a safe point:
    /// no Rust code may hold a `Value` that is not reachable from the roots.
    pub fn collect(&mut self, roots: &[Value]) -> usize {
        let mut stack: Vec<Oop> = roots.iter().filter_map(|v| v.oop()).collect();
        stack.extend(self.symbols.values().copied());
        while let Some(o) = stack.pop() {
            let Some(obj) = self.objects.get_mut(o.idx()).and_then(|x| x.as_mut()) else {
                continue;
            };
            if obj.flags & F_MARK != 0 {
                continue;
            }
            obj.flags |= F_MARK;
            let obj = self.objects[o.idx()].as_ref().unwrap();
            stack.push(obj.class);
            trace_body(&obj.body, &mut stack);
        }
        let mut freed = 0;
        for (i, slot) in self.objects.iter_mut().enumerate() {
            if let Some(obj) = slot {
                if obj.flags & F_MARK != 0 {
                    obj.flags &= !F_MARK;
                } else {
                    self.bytes = self.bytes.saturating_sub(obj.body.approx_bytes());
                    *slot = None;
                    self.free.push(i as u64);
                    freed += 1;
                }
            }
        }
        self.dirty.retain(|o| self.objects[o.idx()].is_some());
        self.allocated_since_gc = 0;
        freed
    }
}

fn push_val(v: Value, stack: &mut Vec<Oop>) {
    if let Value::Obj(o) = v {
        stack.push(o);
    }
}

fn trace_method(m: &Method, stack: &mut Vec<Oop>) {
    let own = m.oop.load(std::sync::atomic::Ordering::Relaxed);
    if own != 0 {
        stack.push(Oop(own));
    }
    stack.push(m.class);
    stack.push(m.selector);
    for &l in &m.literals {
        push_val(l, stack);
    }
}

fn trace_body(body: &Body, stack: &mut Vec<Oop>) {
    match body {
        Body::Ptr(s) => s.iter().for_each(|&v| push_val(v, stack)),
        Body::Bytes(_) | Body::Wide(_) | Body::Big(_) => {}
        Body::Dict(d) => {
            for (k, a) in d.iter() {
                push_val(k, stack);
                stack.push(a);
            }
        }
        Body::Class(c) => {
            stack.push(c.name);
            if let Some(s) = c.superclass {
                stack.push(s);
            }
            stack.push(c.this_class);
            stack.extend(c.ivar_names.iter().copied());
            for (&k, &v) in &c.methods {
                stack.push(k);
                stack.push(v);
            }
            for (&k, &v) in &c.categories {
                stack.push(k);
                stack.push(v);
            }
            if let Some(st) = &c.stored_methods {
                stack.extend(st.methods.iter().map(|&(k, _)| k));
                for &(k, v) in &st.categories {
                    stack.push(k);
                    stack.push(v);
                }
            }
            for &(k, a) in &c.class_vars {
                stack.push(k);
                stack.push(a);
            }
            c.pools.iter().for_each(|&v| push_val(v, stack));
            push_val(c.comment, stack);
            push_val(c.category, stack);
            push_val(c.dictionary, stack);
            stack.extend(c.subclasses.iter().copied());
            c.slots.iter().for_each(|&v| push_val(v, stack));
            stack.extend(c.history.iter().copied());
            stack.extend(c.options.iter().copied());
        }
        Body::Method(m) => trace_method(m, stack),

        Body::Block(b) => {
            push_val(b.receiver, stack);
            push_val(b.env, stack);
            trace_method(&b.method, stack);
        }
    }
}
