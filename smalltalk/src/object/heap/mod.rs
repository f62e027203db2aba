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
//!
//! One file per part: `body` the shapes an object's body takes (pointers,
//! bytes, classes, methods, blocks, dictionaries); `alloc` allocation, the
//! budget and the collection trigger, the pool of closure boxes; `barrier`
//! the write barrier and every mutable path into an object; `symbols` the
//! symbol table; `collector` marking and sweeping. The object table and the
//! `Heap`'s fields are private to this module and its parts, so every store
//! into an object is one of the barrier's paths.

mod alloc;
mod barrier;
mod body;
mod collector;
mod symbols;
#[cfg(test)]
mod tests;

pub use barrier::barrier_free;
pub use body::*;
pub use collector::method_refs;

use alloc::CLOSURE_POOL;
use body::BodyVec;
use collector::prefetch;

use crate::object::value::{FxHashMap, Oop, Value};

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

    /// How many slots the object table has (the bound of an OOP that may name an object).
    pub fn table_len(&self) -> usize {
        self.objects.len()
    }

    #[inline(always)]
    pub fn get(&self, oop: Oop) -> &Object {
        self.objects[oop.idx()].as_ref().expect("dangling OOP")
    }

    #[inline]
    pub fn try_get(&self, oop: Oop) -> Option<&Object> {
        self.objects.get(oop.idx()).and_then(|o| o.as_ref())
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

    pub fn is_invariant(&self, oop: Oop) -> bool {
        self.get(oop).flags & F_INVARIANT != 0
    }

    pub fn live_objects(&self) -> usize {
        self.objects.len() - self.free_top - self.poisoned
    }
}
