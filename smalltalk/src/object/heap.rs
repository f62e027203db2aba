//! The object memory: an object table indexed by OOP, the bodies heap objects can
//! have, the symbol table, the single write barrier every store goes through, the
//! allocation budget, and a non-moving mark-and-sweep collector with two
//! generations. The collector runs at safe points: between evaluations, and
//! during one when enough has been allocated ([`Heap::gc_due`]); the roots are
//! given by the interpreter (see ARCHITECTURE.md, "The collector's rule"). An
//! object that survives a collection is old; a minor collection marks and
//! sweeps only the young objects, taking as extra roots the old objects the
//! barrier saw stored into since the last collection (the remembered set). A
//! stress mode (`GSMCP_GC_STRESS`) collects at every safe point (one in four
//! major) and never reuses a freed slot, so a stale OOP or a store the barrier
//! missed panics ("dangling OOP") instead of silently naming another object. The
//! barrier also enforces who may write what: a store into an object whose
//! flags meet `guard` (every persistent object for a read-only session, the
//! kernel's objects for a user without the privilege to change them) is
//! refused and recorded in `refused` for the engine to signal. It must not interpret
//! Smalltalk: it knows shapes, not behaviour.

use std::sync::Arc;

use num_bigint::BigInt;

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
    fn heap_ptr(&self) -> Option<*const u8> {
        match self {
            Body::Ptr(v) if v.capacity() > 0 => Some(v.as_ptr().cast()),
            Body::Bytes(b) if b.capacity() > 0 => Some(b.as_ptr()),
            Body::Wide(w) if w.capacity() > 0 => Some(w.as_ptr().cast()),
            Body::Block(b) => Some((&**b as *const Closure).cast()),
            _ => None,
        }
    }

    #[inline(always)]
    fn approx_bytes(&self) -> usize {
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
trait BodyVec: Sized {
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

/// What [`Body::approx_bytes`] counts for any object (its table slot), and
/// what it adds for a block's closure box.
const OBJECT_BYTES: usize = 48;
const BLOCK_BYTES: usize = 64;

pub const F_DIRTY: u8 = 1;
pub const F_INVARIANT: u8 = 2;
const F_MARK: u8 = 4;
/// Set on objects the repository layer (`persist`) has given a repository OOP.
/// `alloc` starts every object with no flags, so a reused slot never carries it.
pub const F_PERSISTENT: u8 = 8;
/// The old generation: set on an object that survived a collection (and on
/// the few made old at birth, [`Heap::alloc_old`]). A minor collection
/// neither marks nor frees an old object; a major one treats all alike.
const F_OLD: u8 = 16;
/// Set on an old object that is not in the remembered set: its next store
/// goes through the barrier ([`Heap::write`], [`Heap::write_meta`]), which
/// records it and clears this. [`Heap::store_plain`] tests it with the
/// invariant and persistent bits in one mask, so a store into a young or
/// already remembered object costs nothing more.
///
/// The rule for every write that skips [`Heap::write`] (a fast path holding
/// an object's body mutably): it may skip the barrier only for an object
/// whose flags carry none of `F_INVARIANT`, `F_PERSISTENT` and `F_UNSEEN`
/// ([`barrier_free`]); any other object goes through `write`, which
/// refuses, records in the write set, or records in the remembered set.
const F_UNSEEN: u8 = 32;
/// Set on the kernel's objects at login (`persist`): the kernel classes and
/// metaclasses, Globals and its bindings, the user profiles, each
/// UserGlobals' own binding. SystemUser's in GemStone: a user without the
/// privilege to change the kernel has it in `Heap::guard`. Kernel objects
/// are persistent, so the barrier already sees every store into them; it is
/// in [`barrier_free`]'s mask as well, so that stays true of any object.
pub const F_KERNEL: u8 = 64;

/// Whether a store into an object with these flags may skip the write
/// barrier, by the rule above: neither invariant nor persistent (nothing to
/// refuse, no dirty bit to set) and young or already remembered (nothing for
/// the collector to record). [`Heap::store_plain`] and the barrier-free
/// accessors (`Heap::plain_pair_mut`, `plain_mut_and_get`, `plain_slots_mut`)
/// ask it; a flag added later that needs the barrier to see a store belongs
/// in its mask.
#[inline(always)]
pub fn barrier_free(flags: u8) -> bool {
    flags & (F_INVARIANT | F_PERSISTENT | F_UNSEEN | F_KERNEL) == 0
}

#[derive(Debug, Clone)]
pub struct Object {
    pub class: Oop,
    pub flags: u8,
    pub body: Body,
}

// A table slot is 48 bytes: the body (32), the class and the flags.
const _: () = assert!(std::mem::size_of::<Body>() == 32);
const _: () = assert!(std::mem::size_of::<Option<Object>>() == 48);

/// Allocation (in [`Body`] bytes) between two collections during an
/// evaluation, when the budget leaves that much room (see VM.md §7): the
/// young generation's size. Small enough that the objects made since the
/// last collection and their table slots stay in the processor's caches.
pub const GC_EVERY: usize = 2 << 20;
/// The least promotion (bytes of objects made old by minor collections)
/// between two major collections during an evaluation; more when the old
/// generation was larger after the last major one (it may double).
pub const MAJOR_EVERY: usize = 8 << 20;
/// The least allocation between two collections during an evaluation, however
/// close the live objects are to the budget: a program whose live objects fill
/// the budget is judged (AlmostOutOfMemory) after this much more, not collected
/// at every safe point.
pub const GC_MIN: usize = 1 << 20;

/// What the collector has done, for benchmarks and tests (`GSMCP_GC_TRACE=1`
/// prints one line per collection).
#[derive(Clone, Debug, Default)]
pub struct GcStats {
    pub collections: u64,
    /// Collections run during an evaluation.
    pub during: u64,
    /// Major collections (every object marked and swept); the others were
    /// minor (the young generation only).
    pub major: u64,
    pub marked: u64,
    pub freed: u64,
    pub nanos: u64,
}

/// The object table.
#[derive(Clone)]
pub struct Heap {
    objects: Vec<Option<Object>>,
    /// Free slots: `free[..free_top]` are still free; `free[free_top..]`
    /// were taken by `alloc` since the last collection (young objects, with
    /// the slots appended from `young_from` on).
    free: Vec<u64>,
    free_top: usize,
    /// The table length at the last collection.
    young_from: usize,
    /// Old objects stored into since the last collection: the only old
    /// objects that may reference young ones (see [`F_UNSEEN`]).
    remembered: Vec<Oop>,
    /// Bytes of objects minor collections made old since the last major one,
    /// and the amount at which the next collection is a major one.
    promoted: usize,
    major_after: usize,
    /// Set by [`Heap::request_major`]: the next collection is a major one.
    major_next: bool,
    /// Stress mode (`GSMCP_GC_STRESS=n`, n ≥ 1): collect at every n-th safe
    /// point of an evaluation that comes after an allocation, never reuse a
    /// freed slot. 0: off.
    pub stress: u32,
    /// Safe points left until the next stress collection.
    pub stress_countdown: u32,
    /// Slots freed in stress mode (left empty for good).
    poisoned: usize,
    /// Stress mode: the slots that survived the last sweep, and the table
    /// length then (later slots are new objects).
    stress_live: Vec<u64>,
    stress_swept: usize,
    /// `allocated_since_gc` at which the next safe point collects (or, when it
    /// cannot, judges the budget).
    pub gc_trigger: usize,
    pub stats: GcStats,
    trace: bool,
    /// Approximate bytes held by live objects.
    pub bytes: usize,
    /// Allocation budget; past it the interpreter signals AlmostOutOfMemory.
    pub limit: usize,
    /// Bytes allocated since the last collection.
    pub allocated_since_gc: usize,
    /// Persistent objects stored into since the last commit (the repository's
    /// write set). A temporary object is never recorded: a commit finds the
    /// new objects it must write by tracing from these, and one that becomes
    /// persistent starts clean, so its next store records it.
    pub dirty: Vec<Oop>,
    symbols: FxHashMap<String, Oop>,
    /// Which objects this session may not change, as flag bits: set by the
    /// repository layer, `F_PERSISTENT` for a commit-disabled user (no shared
    /// object), `F_KERNEL` for a user without the privilege to change the
    /// kernel. The barrier refuses a store into an object whose flags meet it.
    pub(crate) guard: u8,
    /// The persistent object of the last refused store, until the engine turns
    /// it into a Smalltalk error (`Vm::signal_refused_write`).
    pub(crate) refused: Option<Oop>,
    /// Where a refused `write_meta` writes: a copy of the object, thrown away, so
    /// callers that cannot fail still leave the real object untouched.
    scratch: Box<Object>,
    /// Closure boxes of freed blocks, still holding their code and method
    /// (at most `CLOSURE_POOL`): most closures a program makes repeat the
    /// code and method of one it made before, and a box taken from here
    /// keeps them without touching their reference counts (see
    /// [`Heap::alloc_block`]). Emptied by a collection between evaluations.
    /// The boxes are the point: a block body is a `Box<Closure>`.
    #[allow(clippy::vec_box)]
    closure_pool: Vec<Box<Closure>>,
}

impl Heap {
    pub fn new(limit: usize) -> Heap {
        let stress = std::env::var("GSMCP_GC_STRESS")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0);
        let mut h = Heap {
            objects: Vec::with_capacity(1 << 16),
            free: Vec::new(),
            free_top: 0,
            young_from: 0,
            remembered: Vec::new(),
            promoted: 0,
            major_after: MAJOR_EVERY,
            major_next: false,
            stress,
            stress_countdown: stress,
            poisoned: 0,
            stress_live: Vec::new(),
            stress_swept: 0,
            gc_trigger: 0,
            stats: GcStats::default(),
            trace: std::env::var_os("GSMCP_GC_TRACE").is_some_and(|v| v != "0"),
            bytes: 0,
            limit,
            allocated_since_gc: 0,
            dirty: Vec::new(),
            symbols: FxHashMap::default(),
            guard: 0,
            refused: None,
            closure_pool: Vec::new(),
            scratch: Box::new(Object {
                class: Oop(0),
                flags: 0,
                body: Body::Ptr(Vec::new()),
            }),
        };
        h.reset_trigger();
        h
    }

    /// Sets the allocation budget (AlmostOutOfMemory past it).
    pub fn set_limit(&mut self, bytes: usize) {
        self.limit = bytes;
        self.reset_trigger();
    }

    /// Whether a safe point should collect (or judge the budget) now. The
    /// interpreter's interrupt check tests this inline: while it is false the
    /// heap is under its budget, or past it by less than `GC_MIN`.
    #[inline(always)]
    pub fn gc_due(&self) -> bool {
        self.allocated_since_gc >= self.gc_trigger
    }

    /// The next trigger after a collection: `GC_EVERY` of allocation, less when
    /// the budget has less room, never less than `GC_MIN` (1 in stress mode).
    fn reset_trigger(&mut self) {
        let room = self.limit.saturating_sub(self.bytes);
        self.gc_trigger = if self.stress > 0 {
            // every safe point with something allocated since the last collection
            1
        } else {
            room.clamp(GC_MIN, GC_EVERY)
        };
    }

    /// After a safe point that could not collect: come back when the budget is
    /// reached (at once if it is already passed), as before collections
    /// during evaluations existed.
    pub fn defer_trigger(&mut self) {
        let room = self.limit.saturating_sub(self.bytes);
        self.gc_trigger = self
            .allocated_since_gc
            .saturating_add(room.clamp(1, GC_EVERY));
        if self.bytes > self.limit {
            self.gc_trigger = self.allocated_since_gc;
        }
    }

    /// How many slots the object table has (the bound of an OOP that may name an object).
    pub fn table_len(&self) -> usize {
        self.objects.len()
    }

    /// Inlined into every caller: the body is built where it is stored, and
    /// its size estimate folds to a constant for most callers.
    #[inline(always)]
    pub fn alloc(&mut self, class: Oop, body: Body) -> Oop {
        // the bodies made most often go to the heap in registers (see
        // `alloc_ptr`); when the caller's variant is known this match folds
        match body {
            Body::Bytes(b) => self.alloc_bytes(class, b),
            body => self.alloc_body(class, body),
        }
    }

    /// `alloc` of any body, written into its slot whole.
    #[inline(always)]
    fn alloc_body(&mut self, class: Oop, body: Body) -> Oop {
        let n = body.approx_bytes();
        self.place_new(class, body, n)
    }

    /// `alloc` of a pointer object whose slots are `slots`. The vector is
    /// handed over in its three words, in registers: passed whole it went
    /// through memory, where the caller had just stored it word by word and
    /// `alloc` read it back 16 bytes at a time (a failed store forward, the
    /// hottest instruction of `Vm::new_array`).
    #[inline(always)]
    pub fn alloc_ptr(&mut self, class: Oop, slots: Vec<Value>) -> Oop {
        self.alloc_vec(class, slots)
    }

    /// `alloc` of a byte object (a String, Symbol or ByteArray body), handed
    /// over in registers as [`Heap::alloc_ptr`] does.
    #[inline(always)]
    pub fn alloc_bytes(&mut self, class: Oop, bytes: Vec<u8>) -> Oop {
        self.alloc_vec(class, bytes)
    }

    #[inline(always)]
    fn alloc_vec<T: BodyVec>(&mut self, class: Oop, v: Vec<T>) -> Oop {
        let mut v = std::mem::ManuallyDrop::new(v);
        let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
        // SAFETY: the parts of a vector given up here (`ManuallyDrop`)
        unsafe { self.alloc_vec_parts(class, ptr, len, cap) }
    }

    /// # Safety
    /// `ptr`, `len` and `cap` are the parts of a `Vec<T>` nothing else owns.
    #[inline(never)]
    unsafe fn alloc_vec_parts<T: BodyVec>(
        &mut self,
        class: Oop,
        ptr: *mut T,
        len: usize,
        cap: usize,
    ) -> Oop {
        // SAFETY: see the function's contract
        let v = unsafe { Vec::from_raw_parts(ptr, len, cap) };
        self.place_new(class, T::body(v), OBJECT_BYTES + len * T::BYTES)
    }

    /// Puts a new object made of `body` (counted as `n` bytes) into a free
    /// slot of the table, or appends it when there is none. Inlined into its
    /// callers (`alloc_body` and the register-handover paths) so that the
    /// object is written into its slot whole.
    #[inline(always)]
    fn place_new(&mut self, class: Oop, body: Body, n: usize) -> Oop {
        self.bytes += n;
        self.allocated_since_gc += n;
        if self.free_top == 0 {
            self.objects.push(Some(Object {
                class,
                flags: 0,
                body,
            }));
            return Oop(self.objects.len() as u64 - 1);
        }
        self.free_top -= 1;
        let i = self.free[self.free_top];
        // A free slot is empty: nothing to drop, so its old contents are not
        // read (the slot was last touched by the sweep, long ago). The object
        // is written into it whole, so the body's words go from where the
        // caller built them (registers, once this is inlined) to the slot:
        // moved through a copy on the stack, they were reloaded with wider
        // loads than they were stored with, which stalls the processor.
        let slot: *mut Option<Object> = &mut self.objects[i as usize];
        // SAFETY: `slot` is a valid, aligned element of the table; a slot on
        // the free list is `None` (the sweep took its object), so
        // overwriting it drops nothing.
        unsafe {
            std::ptr::write(
                slot,
                Some(Object {
                    class,
                    flags: 0,
                    body,
                }),
            );
        }
        if self.free_top > 0 {
            prefetch(&self.objects[self.free[self.free_top - 1] as usize]);
        }
        Oop(i)
    }

    /// Allocates a block closure. A box from `closure_pool` is reused when
    /// there is one; its code and method are replaced only if they differ,
    /// so a closure made again by the same block expression costs no atomic
    /// reference-count updates, no allocator call and no read of memory
    /// freed a collection ago.
    #[inline]
    pub fn alloc_block(
        &mut self,
        class: Oop,
        code: &Arc<BlockCode>,
        method: &Arc<Method>,
        receiver: Value,
        env: Value,
        home: u64,
    ) -> Oop {
        let n = self.closure_pool.len();
        if n >= 2 && !Arc::ptr_eq(&self.closure_pool[n - 1].code, code) {
            // the boxes come back in table order, the closures of a loop's
            // two or three block expressions mixed: one below the top that
            // holds this code saves two atomic count updates
            if Arc::ptr_eq(&self.closure_pool[n - 2].code, code) {
                self.closure_pool.swap(n - 1, n - 2);
            }
        }
        let b = match self.closure_pool.pop() {
            Some(mut b) => {
                if !Arc::ptr_eq(&b.code, code) {
                    b.code = code.clone();
                }
                if !Arc::ptr_eq(&b.method, method) {
                    b.method = method.clone();
                }
                b.receiver = receiver;
                b.env = env;
                b.home = home;
                if let [.., below, next] = &self.closure_pool[..] {
                    prefetch(&**next);
                    prefetch(&**below);
                }
                b
            }
            None => Box::new(Closure {
                code: code.clone(),
                method: method.clone(),
                receiver,
                env,
                home,
            }),
        };
        self.alloc_boxed_block(class, b)
    }

    /// `alloc` of a block body. The object is written into its free slot
    /// directly: neither the slot's old contents (cold: last touched by the
    /// sweep) nor a copy of the body built on the stack is read back.
    #[inline(always)]
    fn alloc_boxed_block(&mut self, class: Oop, b: Box<Closure>) -> Oop {
        if self.free_top == 0 {
            return self.alloc_body(class, Body::Block(b));
        }
        self.free_top -= 1;
        let i = self.free[self.free_top];
        const N: usize = OBJECT_BYTES + BLOCK_BYTES;
        self.bytes += N;
        self.allocated_since_gc += N;
        let slot: *mut Option<Object> = &mut self.objects[i as usize];
        // SAFETY: `slot` is a valid, aligned element of the table; a slot on
        // the free list is `None` (the sweep took its object, `alloc` pops
        // it before filling it), so overwriting it drops nothing.
        unsafe {
            std::ptr::write(
                slot,
                Some(Object {
                    class,
                    flags: 0,
                    body: Body::Block(b),
                }),
            );
        }
        if self.free_top > 0 {
            prefetch(&self.objects[self.free[self.free_top - 1] as usize]);
        }
        Oop(i)
    }

    /// Allocates an object in the old generation, recorded in the remembered
    /// set so that the next minor collection traces it. For objects that
    /// something other than a heap object refers to without the barrier: a
    /// method's object, named by its `Arc<Method>` (`Method::oop`), which
    /// old closures and methods share.
    pub fn alloc_old(&mut self, class: Oop, body: Body) -> Oop {
        let o = self.alloc(class, body);
        if let Some(obj) = self.objects[o.idx()].as_mut() {
            obj.flags |= F_OLD;
        }
        self.remembered.push(o);
        o
    }

    /// Makes the next collection a major one (every object marked and
    /// swept): for a primitive that needs room, which garbage in the old
    /// generation may be taking.
    pub fn request_major(&mut self) {
        self.major_next = true;
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

    #[inline(always)]
    pub fn get(&self, oop: Oop) -> &Object {
        self.objects[oop.idx()].as_ref().expect("dangling OOP")
    }

    #[inline]
    pub fn try_get(&self, oop: Oop) -> Option<&Object> {
        self.objects.get(oop.idx()).and_then(|o| o.as_ref())
    }

    /// Whether the barrier refuses stores into `oop` (a persistent object in a
    /// read-only session, a kernel object for an unprivileged user; see
    /// `guard`). Operations that change several objects ask first, so a
    /// refusal leaves all of them untouched.
    #[inline]
    pub fn refuses(&self, oop: Oop) -> bool {
        self.guard != 0 && self.refuses_for(oop, self.guard)
    }

    /// Whether `oop` carries one of the guard bits `mask` this session has.
    pub fn refuses_for(&self, oop: Oop, mask: u8) -> bool {
        self.guard & mask != 0
            && self
                .try_get(oop)
                .is_some_and(|o| o.flags & self.guard & mask != 0)
    }

    /// Whether `oop` is one of the kernel's objects (`F_KERNEL`).
    pub fn is_kernel_object(&self, oop: Oop) -> bool {
        self.try_get(oop).is_some_and(|o| o.flags & F_KERNEL != 0)
    }

    /// Runs `f` with the kernel guard lifted: the VM's own bookkeeping in a
    /// kernel object on behalf of a permitted change (a subclass joining its
    /// superclass's list, an extension method added to a kernel class).
    pub(crate) fn past_kernel_guard<T>(&mut self, f: impl FnOnce(&mut Heap) -> T) -> T {
        let guard = self.guard;
        self.guard &= !F_KERNEL;
        let r = f(self);
        self.guard = guard;
        r
    }

    /// Records a refused store into `oop` (see [`Heap::refuses`]).
    #[cold]
    pub fn refuse(&mut self, oop: Oop) {
        self.refused = Some(oop);
    }

    /// The write barrier: the one way to obtain a mutable object. Marks a
    /// persistent object dirty for the repository and records an old one in
    /// the remembered set (both out of line, in [`record_store`]: inlined
    /// into its callers, the barrier stays one test of the flags for a young
    /// temporary object). Fails on invariant objects, and on persistent
    /// objects in a read-only session (recorded in `refused`).
    #[inline]
    pub fn write(&mut self, oop: Oop) -> Option<&mut Object> {
        if self.guard != 0 && self.refuses(oop) {
            self.refuse(oop);
            return None;
        }
        let o = self.objects[oop.idx()].as_mut().expect("dangling OOP");
        if o.flags & F_INVARIANT != 0 {
            return None;
        }
        if o.flags & (F_PERSISTENT | F_UNSEEN) != 0 {
            record_store(oop, &mut o.flags, &mut self.dirty, &mut self.remembered);
        }
        Some(o)
    }

    /// Mutable access for VM bookkeeping that ignores invariance (class
    /// definitions, method dictionaries). Still marks a persistent object dirty. In a
    /// read-only session a persistent object is refused: the caller gets a
    /// throw-away copy and `refused` is set for the engine to signal.
    pub fn write_meta(&mut self, oop: Oop) -> &mut Object {
        if self.guard != 0 && self.refuses(oop) {
            self.refuse(oop);
            *self.scratch = self.get(oop).clone();
            return &mut self.scratch;
        }
        let o = self.objects[oop.idx()].as_mut().expect("dangling OOP");
        if o.flags & (F_PERSISTENT | F_UNSEEN) != 0 {
            record_store(oop, &mut o.flags, &mut self.dirty, &mut self.remembered);
        }
        o
    }

    /// Stores into pointer slot `i` (0-based) of `oop` when the barrier has
    /// nothing to do: a pointer object that is neither invariant nor
    /// persistent (a temporary object, the common case) and young or already
    /// remembered, found with one lookup. False, with nothing stored, for anything else; `i` out of
    /// range stores nothing and answers true, as `Vm::ivar_set` does.
    #[inline]
    pub fn store_plain(&mut self, oop: Oop, i: usize, v: Value) -> bool {
        match self.objects.get_mut(oop.idx()) {
            Some(Some(Object {
                flags,
                body: Body::Ptr(s),
                ..
            })) if barrier_free(*flags) => {
                if let Some(slot) = s.get_mut(i) {
                    *slot = v;
                }
                true
            }
            _ => false,
        }
    }

    /// Two distinct objects, both mutable, when the write barrier has nothing
    /// to do for either (`barrier_free`): the pairs a
    /// collection primitive reads and changes together (an OrderedCollection
    /// and its Array, a Set and its buckets, a stream and its String), with
    /// one table lookup each. None for anything else (the same object twice,
    /// a dangling OOP, a flagged object); the caller then takes the
    /// barrier's path.
    #[inline(always)]
    pub fn plain_pair_mut(&mut self, a: Oop, b: Oop) -> Option<(&mut Object, &mut Object)> {
        let (x, y) = self.distinct_mut(a, b)?;
        barrier_free(x.flags | y.flags).then_some((x, y))
    }

    /// Two distinct live objects, both mutable, with one table lookup each;
    /// None for the same object twice or a dangling OOP.
    #[inline(always)]
    fn distinct_mut(&mut self, a: Oop, b: Oop) -> Option<(&mut Object, &mut Object)> {
        let (i, j) = (a.idx(), b.idx());
        let n = self.objects.len();
        if i == j || i >= n || j >= n {
            return None;
        }
        let table = self.objects.as_mut_ptr();
        // SAFETY: `i` and `j` are distinct indexes within the table, so the
        // two references are to different elements and do not alias (what
        // `split_at_mut` would give, without ordering the indexes first:
        // the two table loads do not wait for a comparison).
        unsafe { Some(((*table.add(i)).as_mut()?, (*table.add(j)).as_mut()?)) }
    }

    /// The pointer slots of an object the write barrier has nothing to do
    /// for (`barrier_free`), mutable; None for anything else.
    #[inline(always)]
    pub fn plain_slots_mut(&mut self, oop: Oop) -> Option<&mut [Value]> {
        match self.objects.get_mut(oop.idx()) {
            Some(Some(Object {
                flags,
                body: Body::Ptr(s),
                ..
            })) if barrier_free(*flags) => Some(s),
            _ => None,
        }
    }

    /// An object to change, when the write barrier has nothing to do for it
    /// (`barrier_free`), and another, distinct one to read,
    /// with one table lookup each: a copy from one body into the other needs
    /// no buffer in between. None for anything else (the same object twice,
    /// a dangling OOP, a flagged object to change).
    #[inline(always)]
    pub fn plain_mut_and_get(&mut self, w: Oop, r: Oop) -> Option<(&mut Object, &Object)> {
        let (a, b) = self.distinct_mut(w, r)?;
        barrier_free(a.flags).then_some((a, &*b))
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
        let o = self.objects.get_mut(oop.idx())?.as_mut()?;
        if o.flags & F_UNSEEN != 0 {
            // the methods it is given may be young
            o.flags &= !F_UNSEEN;
            self.remembered.push(oop);
        }
        match &mut o.body {
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
        // old at birth: the symbol table keeps every symbol, and characters
        // reference nothing a minor collection would have to find
        self.set_flags_quiet(o, F_INVARIANT | F_OLD | F_UNSEEN, 0);
        self.symbols.insert(s.to_string(), o);
        o
    }

    pub fn live_objects(&self) -> usize {
        self.objects.len() - self.free_top - self.poisoned
    }

    /// Mark-and-sweep from `roots` (plus every symbol). Only call at a safe point:
    /// no Rust code may hold a `Value` that is not reachable from the roots.
    pub fn collect(&mut self, roots: &[Value]) -> usize {
        self.collect_from(roots, Vec::new(), false)
    }

    /// Mark-and-sweep from `roots`, the objects `oops` names (OOPs that may be
    /// stale or not name an object at all: words read from the native stack,
    /// methods' own OOPs), every symbol and every dirty persistent object (a
    /// change the next commit writes). Answers the number of objects freed.
    ///
    /// During an evaluation most collections are minor: they mark and sweep
    /// only the young objects (made since the last collection), taking every
    /// old one as live and the remembered old objects' references as roots;
    /// the young objects that survive become old. A collection is major (all
    /// objects) between evaluations, when asked ([`Heap::request_major`]),
    /// when the heap is past its budget (so the judgement counts no old
    /// garbage), and when minor ones have promoted `major_after` bytes.
    pub fn collect_from(&mut self, roots: &[Value], mut oops: Vec<Oop>, during: bool) -> usize {
        let started = std::time::Instant::now();
        let major = !during
            || self.major_next
            || self.bytes > self.limit
            || self.promoted >= self.major_after
            || (self.stress > 0 && self.stats.collections.is_multiple_of(4));
        oops.extend(roots.iter().filter_map(|v| v.oop()));
        if major {
            oops.extend(self.symbols.values().copied());
        } else {
            // symbols are old (`intern`): only the remembered objects' references
            for &r in &self.remembered {
                if let Some(obj) = &self.objects[r.idx()] {
                    oops.push(obj.class);
                    trace_body(&obj.body, &mut oops);
                }
            }
        }
        for &o in &self.dirty {
            if self
                .try_get(o)
                .is_some_and(|obj| obj.flags & F_PERSISTENT != 0)
            {
                oops.push(o);
            }
        }
        // a minor collection does not follow references into old objects
        let skip = if major { F_MARK } else { F_MARK | F_OLD };
        let mut stack = oops;
        let mut marked = 0u64;
        while let Some(o) = stack.pop() {
            let Some(obj) = self.objects.get_mut(o.idx()).and_then(|x| x.as_mut()) else {
                continue;
            };
            if obj.flags & skip != 0 {
                continue;
            }
            obj.flags |= F_MARK;
            marked += 1;
            let obj = &self.objects[o.idx()];
            if let Some(obj) = obj {
                stack.push(obj.class);
                trace_body(&obj.body, &mut stack);
            }
        }
        let freed = if self.stress > 0 {
            self.sweep_stress(major)
        } else if major {
            self.sweep_all()
        } else {
            self.sweep_young()
        };
        // after either kind no young object is left: no old object needs to
        // be remembered (a major sweep marked every survivor unseen already)
        for r in std::mem::take(&mut self.remembered) {
            if let Some(Some(obj)) = self.objects.get_mut(r.idx()) {
                obj.flags |= F_UNSEEN;
            }
        }
        self.young_from = self.objects.len();
        self.free_top = self.free.len();
        if major {
            self.promoted = 0;
            self.major_after = self.bytes.max(MAJOR_EVERY);
            self.major_next = false;
        }
        self.dirty.retain(|o| self.objects[o.idx()].is_some());
        if !during {
            // between evaluations: let go of the methods the boxes hold
            self.closure_pool = Vec::new();
        }
        self.allocated_since_gc = 0;
        self.reset_trigger();
        let nanos = started.elapsed().as_nanos() as u64;
        self.stats.collections += 1;
        self.stats.during += during as u64;
        self.stats.major += major as u64;
        self.stats.marked += marked;
        self.stats.freed += freed as u64;
        self.stats.nanos += nanos;
        if self.trace {
            eprintln!(
                "gc: {} {} marked {marked} freed {freed} live {} bytes {} in {:.3} ms",
                if during { "during" } else { "between" },
                if major { "major" } else { "minor" },
                self.live_objects(),
                self.bytes,
                nanos as f64 / 1e6
            );
        }
        freed
    }

    /// The sweep of a major collection: every slot of the table. The slots
    /// it frees join the free list.
    fn sweep_all(&mut self) -> usize {
        self.free.truncate(self.free_top);
        let mut freed = 0;
        let len = self.objects.len();
        for i in 0..len {
            // most of a table between two collections is garbage whose
            // bodies were made long ago: fetch them ahead of the drop
            self.prefetch_body(i + SWEEP_AHEAD);
            if self.sweep_slot(i, true) == Some(false) {
                self.free.push(i as u64);
                freed += 1;
            }
        }
        freed
    }

    /// The sweep of a minor collection: only the slots of young objects, those
    /// `alloc` took from the free list since the last collection and those it
    /// appended to the table.
    fn sweep_young(&mut self) -> usize {
        let taken = self.free.split_off(self.free_top);
        let mut freed = 0;
        // young bodies were made since the last collection, a young
        // generation ago: still in the caches, unlike their slots, whose
        // order in the free list the hardware does not follow
        for i in self.young_from..self.objects.len() {
            if self.sweep_slot(i, false) == Some(false) {
                self.free.push(i as u64);
                freed += 1;
            }
        }
        for (k, &i) in taken.iter().enumerate() {
            if let Some(&ahead) = taken.get(k + SWEEP_AHEAD) {
                if let Some(slot) = self.objects.get(ahead as usize) {
                    prefetch(slot);
                }
            }
            if self.sweep_slot(i as usize, false) == Some(false) {
                self.free.push(i);
                freed += 1;
            }
        }
        freed
    }

    /// The sweep in stress mode, where no slot is reused: the old objects are
    /// the survivors of earlier sweeps (`stress_live`), the young ones the
    /// slots appended since the last.
    fn sweep_stress(&mut self, major: bool) -> usize {
        let appended = self.stress_swept as u64..self.objects.len() as u64;
        let candidates: Vec<u64> = if major {
            std::mem::take(&mut self.stress_live)
                .into_iter()
                .chain(appended)
                .collect()
        } else {
            appended.collect()
        };
        let mut freed = 0;
        for i in candidates {
            match self.sweep_slot(i as usize, major) {
                Some(true) => self.stress_live.push(i),
                Some(false) => {
                    self.poisoned += 1;
                    freed += 1;
                }
                None => {}
            }
        }
        self.stress_swept = self.objects.len();
        freed
    }

    /// Fetches the body of the object in slot `i` (if any) ahead of its sweep.
    #[inline(always)]
    fn prefetch_body(&self, i: usize) {
        if let Some(Some(ahead)) = self.objects.get(i) {
            if let Some(p) = ahead.body.heap_ptr() {
                prefetch(p);
            }
        }
    }
}

impl Heap {
    /// Sweeps one slot: a marked object survives, old from now on and
    /// unseen by the barrier (`Some(true)`); an unmarked one is freed
    /// (`Some(false)`) unless the collection is minor and the object old
    /// (`Some(true)`: a minor collection does not mark old objects); `None`
    /// for an empty slot.
    #[inline(always)]
    fn sweep_slot(&mut self, i: usize, major: bool) -> Option<bool> {
        let slot = &mut self.objects[i];
        let obj = slot.as_mut()?;
        if obj.flags & F_MARK != 0 {
            if obj.flags & F_OLD == 0 {
                self.promoted += obj.body.approx_bytes();
            }
            obj.flags = (obj.flags & !F_MARK) | F_OLD | F_UNSEEN;
            return Some(true);
        }
        if !major && obj.flags & F_OLD != 0 {
            // made old at birth (`alloc_old`, symbols)
            return Some(true);
        }
        self.bytes = self.bytes.saturating_sub(obj.body.approx_bytes());
        if matches!(obj.body, Body::Block(_)) && self.closure_pool.len() < CLOSURE_POOL {
            if let Some(Object {
                body: Body::Block(b),
                ..
            }) = slot.take()
            {
                self.closure_pool.push(b);
            }
        } else {
            // dropped where it lies: the object is not copied out first
            *slot = None;
        }
        Some(false)
    }
}

/// The barrier's bookkeeping for a store into `oop` whose `flags` carry
/// `F_PERSISTENT` or `F_UNSEEN`: a persistent object joins the write set
/// (`dirty`) once, an old one the remembered set once per collection.
#[inline(never)]
fn record_store(oop: Oop, flags: &mut u8, dirty: &mut Vec<Oop>, remembered: &mut Vec<Oop>) {
    if *flags & (F_DIRTY | F_PERSISTENT) == F_PERSISTENT {
        *flags |= F_DIRTY;
        dirty.push(oop);
    }
    if *flags & F_UNSEEN != 0 {
        *flags &= !F_UNSEEN;
        remembered.push(oop);
    }
}

/// The most freed closure boxes kept for reuse (about 64 bytes each): about
/// as many objects as a collection during an evaluation frees (~78 000 per
/// `GC_EVERY` in the benchmarks).
const CLOSURE_POOL: usize = 1 << 16;

/// How many slots ahead of the one it frees the sweep fetches a body.
const SWEEP_AHEAD: usize = 8;

/// Asks the processor to fetch the cache line at `p` (a hint: no effect on
/// what the program computes, whatever `p` is).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults and reads nothing the program sees;
        // any address is allowed.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The OOPs a method keeps alive: its own object, class, selector and literals.
pub fn method_refs(m: &Method, out: &mut Vec<Oop>) {
    trace_method(m, out);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn heap(stress: u32) -> Heap {
        let mut h = Heap::new(64 << 20);
        h.stress = stress;
        h.stress_countdown = stress;
        h.reset_trigger();
        h
    }

    fn array(h: &mut Heap, items: Vec<Value>) -> Oop {
        h.alloc(Oop(0), Body::Ptr(items))
    }

    #[test]
    fn words_that_name_no_object_are_ignored_and_named_objects_survive() {
        for stress in [0, 1] {
            let mut h = heap(stress);
            let class = array(&mut h, vec![]);
            let kept = array(&mut h, vec![Value::Int(1)]);
            let inner = array(&mut h, vec![]);
            let outer = array(&mut h, vec![Value::Obj(inner)]);
            let lost = array(&mut h, vec![]);
            let words = vec![
                kept,
                outer,
                Oop(u64::MAX),
                Oop(h.table_len() as u64),
                Oop(h.table_len() as u64 + 5),
            ];
            let freed = h.collect_from(&[Value::Obj(class)], words, true);
            assert_eq!(freed, 1, "stress {stress}");
            assert!(h.try_get(lost).is_none());
            for o in [class, kept, inner, outer] {
                assert!(h.try_get(o).is_some(), "stress {stress}: {o:?} kept");
            }
            // a stale word naming the freed slot is harmless too (the
            // survivors are old now: only a major collection frees them)
            h.request_major();
            assert_eq!(h.collect_from(&[], vec![lost, class], true), 3);
        }
    }

    #[test]
    fn stress_mode_never_reuses_a_slot_and_sweeps_only_what_exists() {
        // every object's class is OOP 0, the first one made: it stays
        let mut h = heap(1);
        let _class = array(&mut h, vec![]);
        let a = array(&mut h, vec![]);
        let b = array(&mut h, vec![]);
        assert_eq!(h.collect_from(&[Value::Obj(a)], vec![], true), 1);
        let c = array(&mut h, vec![]);
        assert!(c.0 > b.0, "a freed slot is not reused under stress");
        assert!(h.try_get(b).is_none());
        assert_eq!(h.live_objects(), 3);
        h.request_major();
        assert_eq!(h.collect_from(&[Value::Obj(c)], vec![], true), 1);
        assert_eq!(h.live_objects(), 2);
        assert!(!h.gc_due());
        array(&mut h, vec![]);
        assert!(h.gc_due(), "stress mode is due after any allocation");
        let mut normal = heap(0);
        let _class = array(&mut normal, vec![]);
        let x = array(&mut normal, vec![]);
        let y = array(&mut normal, vec![]);
        normal.collect_from(&[Value::Obj(x)], vec![], true);
        let z = array(&mut normal, vec![]);
        assert_eq!(z, y, "outside stress mode the freed slot is reused");
    }

    #[test]
    fn the_write_set_holds_persistent_objects_only() {
        let mut h = heap(0);
        let temp = array(&mut h, vec![Value::Nil]);
        assert!(h.store(temp, 0, Value::Int(1)));
        h.write_meta(temp);
        assert!(h.dirty.is_empty(), "a temporary object is not recorded");
        assert_eq!(h.get(temp).flags & F_DIRTY, 0);
        let stored = array(&mut h, vec![Value::Nil]);
        h.set_flags_quiet(stored, F_PERSISTENT, 0);
        assert!(h.store(stored, 0, Value::Int(2)));
        h.write_meta(stored);
        assert!(h.store(stored, 0, Value::Int(3)));
        assert_eq!(h.dirty, vec![stored], "recorded once");
        assert_ne!(h.get(stored).flags & F_DIRTY, 0);
    }

    fn block_code() -> Arc<BlockCode> {
        Arc::new(BlockCode {
            num_args: 0,
            frame_size: 0,
            env_size: 0,
            arg_env: vec![],
            body: vec![],
            offset: 0,
            simple_site: None,
        })
    }

    fn box_of(h: &Heap, o: Oop) -> (*const Closure, Arc<BlockCode>, Arc<Method>) {
        match &h.get(o).body {
            Body::Block(b) => (&**b as *const Closure, b.code.clone(), b.method.clone()),
            _ => panic!("not a block"),
        }
    }

    /// A method with no statements, for closures that are never run.
    fn empty_method() -> Arc<Method> {
        Arc::new(Method {
            selector: Oop(0),
            class: Oop(0),
            category: Value::Nil,
            source: String::new(),
            num_args: 0,
            frame_size: 0,
            env_size: 0,
            arg_env: vec![],
            body: vec![],
            primitive: 0,
            literals: vec![],
            sends: vec![],
            ivars_used: vec![],
            trivial: crate::object::code::Trivial::No,
            dispatch: crate::object::code::Dispatch::Frame,
            doit: false,
            needs_home: false,
            oop: std::sync::atomic::AtomicU64::new(0),
        })
    }

    #[test]
    fn a_freed_closure_box_is_reused_with_the_new_code_and_method() {
        let (c1, c2, m1, m2) = (block_code(), block_code(), empty_method(), empty_method());
        let mut h = heap(0);
        let class = array(&mut h, vec![]);
        let first = h.alloc_block(class, &c1, &m1, Value::Int(1), Value::Nil, 7);
        let (first_box, ..) = box_of(&h, first);
        assert_eq!(Arc::strong_count(&c1), 2);
        assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
        // the box went to the pool, its references with it
        assert_eq!(Arc::strong_count(&c1), 2);
        let same = h.alloc_block(class, &c1, &m2, Value::Int(2), Value::Nil, 8);
        let (b, code, meth) = box_of(&h, same);
        assert_eq!(b, first_box, "the freed box is reused");
        assert!(Arc::ptr_eq(&code, &c1) && Arc::ptr_eq(&meth, &m2));
        assert_eq!(Arc::strong_count(&m1), 1, "the replaced method is let go");
        drop((code, meth));
        match &h.get(same).body {
            Body::Block(b) => assert!(matches!((b.receiver, b.home), (Value::Int(2), 8))),
            _ => unreachable!(),
        }
        assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
        let other = h.alloc_block(class, &c2, &m2, Value::Nil, Value::Nil, 9);
        let (_, code, _) = box_of(&h, other);
        assert!(Arc::ptr_eq(&code, &c2));
        drop(code);
        assert_eq!(Arc::strong_count(&c1), 1, "the replaced code is let go");
        // a collection between evaluations empties the pool
        h.collect(&[Value::Obj(class)]);
        assert_eq!(Arc::strong_count(&c2), 1);
        assert_eq!(Arc::strong_count(&m2), 1);
    }

    #[test]
    fn a_pooled_box_just_below_the_top_with_the_same_code_is_taken_first() {
        let m = empty_method();
        let (c1, c2, c3) = (block_code(), block_code(), block_code());
        let mut h = heap(0);
        let class = array(&mut h, vec![]);
        let a = h.alloc_block(class, &c1, &m, Value::Nil, Value::Nil, 1);
        let b = h.alloc_block(class, &c2, &m, Value::Nil, Value::Nil, 2);
        let (a_box, b_box) = (box_of(&h, a).0, box_of(&h, b).0);
        assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 2);
        // the pool holds a's box under b's: c1 asks for the one below the top
        let x = h.alloc_block(class, &c1, &m, Value::Int(3), Value::Nil, 3);
        let (xb, code, _) = box_of(&h, x);
        assert_eq!(xb, a_box);
        assert!(Arc::ptr_eq(&code, &c1));
        drop(code);
        assert_eq!(Arc::strong_count(&c1), 2, "no count changed hands");
        let y = h.alloc_block(class, &c2, &m, Value::Int(4), Value::Nil, 4);
        assert_eq!(box_of(&h, y).0, b_box);
        assert_eq!(Arc::strong_count(&c2), 2);
        // neither box holds c3: the top one takes it and lets its code go
        assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 2);
        let z = h.alloc_block(class, &c3, &m, Value::Nil, Value::Nil, 5);
        let (_, code, _) = box_of(&h, z);
        assert!(Arc::ptr_eq(&code, &c3));
        drop(code);
        assert_eq!(Arc::strong_count(&c1) + Arc::strong_count(&c2), 3);
    }

    /// Each object is an array whose class is OOP 0 (the first one made).
    fn generations() -> (Heap, Oop) {
        let mut h = heap(0);
        let class = array(&mut h, vec![]);
        (h, class)
    }

    fn alive(h: &Heap, o: Oop) -> bool {
        h.try_get(o).is_some()
    }

    #[test]
    fn a_minor_collection_frees_young_garbage_only() {
        let (mut h, class) = generations();
        let old_garbage = array(&mut h, vec![]);
        let holder = array(&mut h, vec![Value::Obj(old_garbage)]);
        // both survive (young, reachable) and become old
        assert_eq!(
            h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
            0
        );
        assert!(h.store(holder, 0, Value::Nil));
        let young_garbage = array(&mut h, vec![]);
        assert_eq!(
            h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
            1
        );
        assert!(!alive(&h, young_garbage) && alive(&h, old_garbage));
        h.request_major();
        assert_eq!(
            h.collect_from(&[Value::Obj(class), Value::Obj(holder)], vec![], true),
            1
        );
        assert!(!alive(&h, old_garbage) && alive(&h, holder));
        assert_eq!((h.stats.collections, h.stats.major), (3, 1));
        // between evaluations every collection is major
        assert_eq!(h.collect(&[Value::Obj(class)]), 1);
        assert!(!alive(&h, holder));
    }

    #[test]
    fn a_young_object_stored_into_an_old_one_survives_a_minor_collection() {
        let (mut h, class) = generations();
        let roots = |holder: Oop| [Value::Obj(class), Value::Obj(holder)];
        let holder = array(&mut h, vec![Value::Nil, Value::Nil]);
        h.collect_from(&roots(holder), vec![], true);
        // the fast store refuses an old object the barrier has not seen
        let young = array(&mut h, vec![]);
        assert!(!h.store_plain(holder, 0, Value::Obj(young)));
        assert!(h.store(holder, 0, Value::Obj(young)));
        // remembered now: the fast store is allowed until the next collection
        let young2 = array(&mut h, vec![]);
        assert!(h.store_plain(holder, 1, Value::Obj(young2)));
        assert_eq!(h.collect_from(&roots(holder), vec![], true), 0);
        assert!(alive(&h, young) && alive(&h, young2));
        // a store through `write` and one through `write_meta`
        let young3 = array(&mut h, vec![]);
        match &mut h.write(holder).unwrap().body {
            Body::Ptr(s) => s[0] = Value::Obj(young3),
            _ => unreachable!(),
        }
        h.collect_from(&roots(holder), vec![], true);
        let young4 = array(&mut h, vec![]);
        h.write_meta(holder).class = young4;
        assert_eq!(h.collect_from(&roots(holder), vec![], true), 0);
        assert!(alive(&h, young3) && alive(&h, young4));
        assert!(
            !h.store_plain(holder, 1, Value::Nil),
            "unseen again after the collection"
        );
        // `young` (old since the first collection) lost its last reference
        h.request_major();
        assert_eq!(h.collect_from(&roots(holder), vec![], true), 1);
        assert!(!alive(&h, young) && alive(&h, young3));
    }

    #[test]
    fn objects_made_old_at_birth_keep_their_young_references_and_symbols_stay() {
        let (mut h, class) = generations();
        let literal = array(&mut h, vec![]);
        let m = empty_method();
        let method = h.alloc_old(class, Body::Ptr(vec![Value::Obj(literal)]));
        let sym = h.intern("aSymbol", class, class);
        let young = array(&mut h, vec![]);
        assert_eq!(h.collect_from(&[Value::Obj(class)], vec![], true), 1);
        assert!(alive(&h, method) && alive(&h, literal) && alive(&h, sym));
        assert!(!alive(&h, young));
        assert_eq!(h.intern("aSymbol", class, class), sym);
        h.request_major();
        h.collect_from(&[Value::Obj(class)], vec![], true);
        assert!(!alive(&h, method) && !alive(&h, literal) && alive(&h, sym));
        drop(m);
    }

    #[test]
    fn a_major_collection_follows_enough_promotion_or_a_full_budget() {
        let (mut h, class) = generations();
        let mut kept = Vec::new();
        while h.stats.major == 0 {
            // young objects that survive: promoted at the next collection
            for _ in 0..64 {
                kept.push(Value::Obj(array(&mut h, vec![Value::Nil; 1000])));
            }
            let mut roots = kept.clone();
            roots.push(Value::Obj(class));
            h.collect_from(&roots, vec![], true);
            assert!(h.stats.collections < 1000, "no major collection came");
        }
        assert!(h.stats.collections > 1, "the first ones were minor");
        // past the budget the next collection is major
        let before = h.stats.major;
        h.set_limit(h.bytes / 2);
        h.collect_from(&[Value::Obj(class)], vec![], true);
        assert_eq!(h.stats.major, before + 1);
    }

    #[test]
    fn the_trigger_follows_the_room_the_budget_leaves() {
        let mut h = heap(0);
        assert_eq!(h.gc_trigger, GC_EVERY);
        let between = (GC_MIN + GC_EVERY) / 2;
        h.set_limit(between);
        assert_eq!(h.gc_trigger, between);
        h.set_limit(1000);
        assert_eq!(h.gc_trigger, GC_MIN);
        h.allocated_since_gc = 10;
        h.bytes = 2000;
        h.defer_trigger();
        assert!(h.gc_due(), "past the budget, every safe point judges it");
    }
}
