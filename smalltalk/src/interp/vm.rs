//! The interpreter: the per-session VM state (`Vm`: object memory, value stack,
//! send caches, handler stack, limits) and the tree walker that evaluates
//! compiled code — sends with inline caches, blocks with non-local return,
//! inlined control structures, depth and interrupt checks. Primitives live in
//! `prims`, the exception machinery in `exceptions`. Nothing here may panic on
//! Smalltalk input: every failure is an [`Unwind`].
//!
//! The functions of the send and evaluation path that are not inlined are
//! `extern "C-unwind"`: under that calling convention a `Value`, an `R` or
//! an `Option<Value>` (16 bytes, both words of integer class) comes back in
//! two registers, where the Rust convention returns it through memory —
//! written in halves by the callee and read back whole by the caller, a
//! failed store-to-load forward on nearly every send (kernel/VM.md §7).
//! "C-unwind" keeps panics unwinding as they would through a Rust function.
// the types crossing those functions are not FFI types and never leave Rust;
// the convention is chosen for how it returns 16-byte values
#![allow(improper_ctypes_definitions)]

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::error::Interrupter;
use super::primitive::Primitives;
use super::repository::Attached;
use crate::object::code::*;
use crate::object::heap::{Body, Closure, Heap, Object};
use crate::object::known::Known;
use crate::object::value::{FxHashMap, Oop, Value};

/// Why evaluation is leaving a frame other than by answering a value. One
/// pointer, so that `R` is two words and every `eval` answers in registers
/// (`extern "C-unwind"`, see the module notes);
/// the boxes of `^` returns are recycled through `Vm::spare`.
#[derive(Debug)]
pub struct Unwind(pub Box<Unwinding>);

impl Unwind {
    /// The value this unwind carries, if any. Code that runs Smalltalk while
    /// holding an unwind (`ensure:`, `ifCurtailed:`) keeps it on the value
    /// stack meanwhile: the box is Rust heap memory the collector does not see.
    pub fn carried(&self) -> Option<Value> {
        match &*self.0 {
            Unwinding::Return(v) => Some(*v),
            Unwinding::ToHandler(b) => match &b.1 {
                HandlerAction::Return(v) | HandlerAction::RetryUsing(v) => Some(*v),
                HandlerAction::Retry => None,
            },
            Unwinding::Resume(b) => match &b.1 {
                Resumption::Value(v) | Resumption::Resignal(v) => Some(*v),
            },
            Unwinding::Abort(_) => None,
        }
    }

    pub fn abort(f: Box<Failure>) -> Unwind {
        Unwind(Box::new(Unwinding::Abort(f)))
    }
    pub fn to_handler(h: Box<(u64, HandlerAction)>) -> Unwind {
        Unwind(Box::new(Unwinding::ToHandler(h)))
    }
    pub fn resume(r: Box<(u64, Resumption)>) -> Unwind {
        Unwind(Box::new(Unwinding::Resume(r)))
    }
    pub fn is_abort(&self) -> bool {
        matches!(*self.0, Unwinding::Abort(_))
    }
}

/// What an [`Unwind`] carries.
#[derive(Debug)]
pub enum Unwinding {
    /// `^` — return `value` from the method activation whose id is in
    /// `Vm::return_home` (kept there so `R` stays small; code that runs
    /// Smalltalk while a return unwinds through it — `ensure:`,
    /// `ifCurtailed:` — saves and restores it).
    Return(Value),
    /// Leave to the `on:do:` with handler id `.0`.
    ToHandler(Box<(u64, HandlerAction)>),
    /// Back to the `signal` with signal id `.0`: resume with a value, or resignal another exception there.
    Resume(Box<(u64, Resumption)>),
    /// Ends the whole evaluation (unhandled error, hard break, limit); only `ensure:` blocks run.
    Abort(Box<Failure>),
}

#[derive(Debug)]
pub enum HandlerAction {
    Return(Value),
    Retry,
    RetryUsing(Value),
}

#[derive(Debug)]
pub enum Resumption {
    Value(Value),
    Resignal(Value),
}

/// An evaluation-ending failure, turned into an `StError` by the API.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: crate::interp::ErrorKind,
    pub number: u32,
    pub class_name: String,
    pub message_text: Option<String>,
    pub description: String,
}

pub type R = Result<Value, Unwind>;

// Every `eval` answers an `R`: two words, so it travels in registers.
const _: () = assert!(std::mem::size_of::<R>() == 16);

/// The record of one running activation (a method or a block), kept on
/// `Vm::acts` from entry to exit so a stack report can be made when an
/// exception is signalled. `method` borrows from the activation itself:
/// `activate` holds `&Arc<Method>` for as long as the record is on the
/// stack, and the record is popped before it returns. A block activation
/// needs no pointer: its closure sits at `Vm::stack[rp]` for the whole call.
#[derive(Clone, Copy)]
pub struct Act {
    /// The method of a method activation; null for a block activation.
    pub method: *const Method,
    /// Where the receiver (a method) or the block (a block) is on the value stack.
    pub rp: u32,
    /// Source offset (in the caller) of the send that started this activation.
    pub caller_pos: u32,
}

// SAFETY: an `Act` only points at a `Method`, which is
// immutable after compilation and already shared between threads through
// `Arc` (they are `Sync`), and it is only dereferenced while the activation
// that pushed it is running on the thread running that activation; moving a
// `Vm` to another thread (between evaluations, or with the evaluation) moves
// its records with it and does not end any activation.
unsafe impl Send for Act {}

/// A block that a primitive calls in a loop, checked once (see
/// [`Vm::block_loop`]).
pub struct BlockLoop {
    cl: *const Closure,
    /// Where the block's frame starts, and ends.
    pub(crate) base: usize,
    frame: usize,
    /// Whether the frame holds temporaries besides the arguments.
    temps: bool,
    /// The send offset in the primitive's activation (what its record on
    /// `Vm::acts` says it was called from).
    caller_pos: u32,
}

/// The activation a node is evaluated in.
pub struct Frame<'a> {
    pub recv: Value,
    pub base: usize,
    pub env: Value,
    pub home: u64,
    pub method: &'a Arc<Method>,
}

/// One send site's inline cache. An entry is valid while its class and
/// selector match: `methods_changed` empties every entry filled since the
/// last change (`Vm::filled`), so a hit compares no epoch.
#[derive(Clone)]
pub struct Cache {
    pub class: Oop,
    /// Sites of finished doits are reused, so the entry also names its selector.
    pub selector: Oop,
    pub method: Option<Arc<Method>>,
    /// The class seen before `class` at this send site and its method, valid
    /// under the same selector (`NO_CLASS`: none), so a site that alternates
    /// between two receiver classes keeps hitting.
    pub class2: Oop,
    pub method2: Option<Arc<Method>>,
    /// For a simple block's site: its closure (nil until made; emptied by the
    /// collector with the other cache contents).
    pub block: Value,
    /// 1 + the instance variable index when `method` is a getter (`^ ivar`,
    /// `Dispatch::IVar`), else 0: valid only with `class` and `selector`.
    pub getter: u32,
}

/// The `selector` of a cache entry that holds a simple block's closure (its
/// `class` is the address of the block's code).
pub const SIMPLE_BLOCK: Oop = Oop(u64::MAX - 1);

/// The `class`/`class2` of a cache entry that matches no receiver.
pub const NO_CLASS: Oop = Oop(u64::MAX);

pub struct Handler {
    pub id: u64,
    pub selector: Value,
    pub block: Value,
    pub disabled: bool,
}

#[allow(dead_code)] // the exception is kept for debugging and future `signalerContext`
pub struct SignalRec {
    pub id: u64,
    pub handler_index: usize,
    pub handler_id: u64,
    pub exception: Value,
}

/// Objects the session's image is rooted in.
#[derive(Default, Clone)]
pub struct Roots {
    pub globals: Oop,
    pub user_globals: Oop,
    pub published: Oop,
    pub symbol_list: Oop,
    pub user_profile: Oop,
    pub session_temps: Oop,
    pub transcript: Oop,
    /// Every class ever created (all versions), so the collector keeps them.
    pub all_classes: Vec<Oop>,
    /// The shipped kernel's classes and their metaclasses: the only classes
    /// whose methods a kernel-only evaluation runs ([`Vm::kernel_only`]).
    /// Made at bootstrap, recorded in a repository when it is created and
    /// read back at every login, so a class defined later never joins it.
    pub kernel: crate::object::value::FxHashSet<Oop>,
}

impl Vm {
    /// A new image's engine over `heap`, whose kernel classes are `k` and
    /// `roots.all_classes`, running `prims`; the image layer fills in the
    /// rest of the roots and the selectors.
    pub(crate) fn new(
        heap: Heap,
        k: Known,
        roots: Roots,
        error_numbers: FxHashMap<Oop, u32>,
        interrupter: Interrupter,
        prims: &'static Primitives,
    ) -> Vm {
        Vm {
            heap,
            k,
            roots,
            stack: Vec::with_capacity(4096),
            caches: vec![],
            filled: vec![],
            epoch: 1,
            gcache: FxHashMap::default(),
            keep: Vec::new(),
            return_home: 0,
            spare: None,
            handlers: vec![],
            signals: vec![],
            homes: vec![],
            acts: Vec::with_capacity(256),
            pos: 0,
            next_id: 0,
            depth: 0,
            depth_limit: DEFAULT_DEPTH_LIMIT,
            stack_signalled: false,
            memory_signalled: false,
            interrupter,
            transcript: String::new(),
            error_numbers,
            sels: Sels::default(),
            session_id: 1,
            sites_pinned: 0,
            hashing_checked: (0, false, false, false),
            index_of_checked: [(0, Oop(0)); 10],
            prims,
            repo: None,
            exports: Default::default(),
            last_exception: Value::Nil,
            kernel_only: false,
            may_commit: true,
        }
    }

    /// A copy of this image for a new login: same objects, fresh per-evaluation
    /// state, its own interrupter, no repository. Used to start sessions from a
    /// bootstrapped template instead of filing the kernel in again.
    pub fn fork(&self, interrupter: Interrupter) -> Vm {
        let mut vm = Vm::new(
            self.heap.clone(),
            self.k.clone(),
            self.roots.clone(),
            self.error_numbers.clone(),
            interrupter,
            self.prims,
        );
        // what the image has learnt: its send caches and the state they rest on
        vm.caches = self.caches.clone();
        vm.filled = self.filled.clone();
        vm.epoch = self.epoch;
        vm.gcache = self.gcache.clone();
        vm.keep = self.keep.clone();
        vm.next_id = self.next_id;
        vm.depth_limit = self.depth_limit;
        vm.sels = self.sels.clone();
        vm.session_id = self.session_id;
        vm.sites_pinned = self.sites_pinned;
        vm
    }
}

pub const DEFAULT_DEPTH_LIMIT: usize = 10_000;
/// `keep` is pruned between evaluations once it holds this many methods.
const KEEP_PRUNE_AT: usize = 1 << 16;
const DEPTH_HEADROOM: usize = 1_000;
/// `activate` measures the native stack when the depth is a multiple of this.
const NATIVE_CHECK_EVERY: usize = 8;
/// Sites `Vm::filled` lists before a method change empties all sites instead.
const FILLED_MAX: usize = 1 << 16;

pub struct Vm {
    pub heap: Heap,
    pub k: Known,
    pub roots: Roots,
    pub stack: Vec<Value>,
    pub caches: Vec<Cache>,
    /// The send sites filled since the last method change (at most
    /// `FILLED_MAX`; past it a change empties every site), emptied by
    /// `methods_changed`.
    pub filled: Vec<u32>,
    /// Moves at every method change (memos of kernel methods compare it).
    pub epoch: u64,
    pub gcache: FxHashMap<(Oop, Oop), Option<Arc<Method>>>,
    /// Every method `lookup` has found since the last collection. Sends run a
    /// cached method through a borrowed pointer (no reference-count traffic),
    /// so a method must stay allocated while it may be executing even if its
    /// cache entry is replaced or its class drops it; this list owns them until
    /// the next safe point (`collect_garbage`, between evaluations), which
    /// empties the caches and this list together.
    pub keep: Vec<Arc<Method>>,
    /// The activation an `Unwinding::Return` in flight returns from.
    pub return_home: u64,
    /// A box for the next `^` unwind (reused: returns need no allocation).
    pub spare: Option<Box<Unwinding>>,
    pub handlers: Vec<Handler>,
    pub signals: Vec<SignalRec>,
    pub homes: Vec<u64>,
    /// The running activations, outermost first (see [`Act`]).
    pub acts: Vec<Act>,
    /// Source offset of the send in progress in the innermost activation.
    pub pos: u32,
    pub next_id: u64,
    pub depth: usize,
    pub depth_limit: usize,
    pub stack_signalled: bool,
    pub memory_signalled: bool,
    pub interrupter: Interrupter,
    pub transcript: String,
    pub error_numbers: FxHashMap<Oop, u32>,
    /// Frequently used selectors.
    pub sels: Sels,
    pub session_id: i64,
    /// Send sites below this index belong to installed code; doit sites above it are reused.
    pub sites_pinned: usize,
    /// The primitives, as the image layer installed them.
    pub(crate) prims: &'static Primitives,
    /// The repository this login is attached to (its store session, OOP
    /// mapping); None for an in-memory image. Only `interp::repository` reads it.
    pub(in crate::interp) repo: Option<Attached>,
    /// `(epoch + 1, SmallInteger>>hash is the kernel's, Association>>key and
    /// Association>>value: are the kernel's)` as last worked out by
    /// `kernel_hashing` (epoch 0: never).
    pub hashing_checked: (u64, bool, bool, bool),
    /// The last class found to answer `_indexOf:` with primitive 240 (index 0)
    /// / 241 (index 1), with `epoch + 1` of that check (0: none yet); the
    /// other entries are the same kind of memo for other collection
    /// primitives (`prims/collection.rs`, `MEMO_*`).
    pub index_of_checked: [(u64, Oop); 10],
    /// Objects a client holds between evaluations (the GCI export set): roots
    /// of every collection until released (`api/objects.rs`).
    pub exports: crate::object::value::FxHashSet<Oop>,
    /// The exception that ended the last evaluation, kept as a root from the
    /// moment it went unhandled until the next evaluation starts, so a client
    /// can still send it messages (`api/objects.rs`).
    pub last_exception: Value,
    /// Method lookup passes over every class outside `roots.kernel`: a send
    /// runs the kernel's method even where a class of the repository's own
    /// (or its metaclass) defines the selector, so an evaluation on a tool's
    /// behalf runs no code a client wrote ([`Vm::set_kernel_only`]).
    pub kernel_only: bool,
    /// Whether `System commitTransaction` may commit (false: it signals a
    /// TransactionError saying which path commits instead).
    pub may_commit: bool,
}

#[derive(Default, Clone)]
pub struct Sels {
    pub does_not_understand: Oop,
    pub print_string: Oop,
    pub default_action: Oop,
    pub description: Oop,
    pub is_resumable: Oop,
    pub handles: Oop,
    pub must_be_boolean: Oop,
    pub hash: Oop,
    pub key: Oop,
    pub index_of: Oop,
    pub at: Oop,
    pub value_set: Oop,
    pub size: Oop,
}

impl Vm {
    pub fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    // ----- object helpers -----

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

    // ----- lookup -----

    /// The primitive number (0: none) of the method `class` answers `sel`
    /// with, `None` when it does not understand it. A global-cache hit reads
    /// the entry in place (no reference-count traffic); a miss is `lookup`.
    #[inline]
    pub fn lookup_primitive(&mut self, class: Oop, sel: Oop) -> Option<u16> {
        if let Some(m) = self.gcache.get(&(class, sel)) {
            return m.as_ref().map(|m| m.primitive);
        }
        self.lookup(class, sel).map(|m| m.primitive)
    }

    pub fn lookup(&mut self, class: Oop, sel: Oop) -> Option<Arc<Method>> {
        if let Some(m) = self.gcache.get(&(class, sel)) {
            return m.clone();
        }
        let mut c = Some(class);
        let mut found = None;
        while let Some(cc) = c {
            if self.kernel_only && !self.roots.kernel.contains(&cc) {
                c = self.heap.class_data(cc).and_then(|d| d.superclass);
                continue;
            }
            self.ensure_methods(cc);
            let Some(d) = self.heap.class_data(cc) else {
                break;
            };
            if let Some(&m) = d.methods.get(&sel) {
                let mo = m;
                self.ensure_method(mo);
                if let Body::Method(m) = &self.heap.get(mo).body {
                    found = Some(m.clone());
                }
                break;
            }
            c = d.superclass;
        }
        if let Some(m) = &found {
            self.keep.push(m.clone());
        }
        self.gcache.insert((class, sel), found.clone());
        found
    }

    /// Drops the methods `keep` holds that no cache refers to any more. Only
    /// at a safe point (no activation running): between evaluations.
    pub fn prune_keep(&mut self) {
        if self.keep.len() < KEEP_PRUNE_AT {
            return;
        }
        let mut seen: FxHashMap<usize, Arc<Method>> = FxHashMap::default();
        let cached = self
            .caches
            .iter()
            .flat_map(|c| c.method.iter().chain(c.method2.iter()));
        for m in cached.chain(self.gcache.values().flatten()) {
            seen.entry(Arc::as_ptr(m) as usize)
                .or_insert_with(|| m.clone());
        }
        self.keep = seen.into_values().collect();
    }

    /// Invalidates every send cache (a method or class changed).
    pub fn methods_changed(&mut self) {
        // send sites of installed methods must stay: later doits may not reuse them
        self.sites_pinned = self.caches.len();
        self.epoch += 1;
        self.gcache.clear();
        self.empty_sites();
    }

    /// Runs sends on the kernel's methods only (`yes`), or on every class's
    /// again. Between evaluations only: the caches are emptied as after a
    /// method change, without pinning the sites of finished doits.
    pub fn set_kernel_only(&mut self, yes: bool) {
        if self.kernel_only != yes {
            self.kernel_only = yes;
            self.epoch += 1;
            self.gcache.clear();
            self.empty_sites();
        }
    }

    /// Makes every class that exists now, and its metaclass, the kernel's.
    /// Called when the kernel has been filed in, before any client code.
    pub fn mark_kernel_classes(&mut self) {
        for c in self.roots.all_classes.clone() {
            self.mark_kernel_class(c);
        }
    }

    /// Makes class `c` and its metaclass the kernel's.
    pub fn mark_kernel_class(&mut self, c: Oop) {
        let meta = self.heap.get(c).class;
        self.roots.kernel.insert(c);
        self.roots.kernel.insert(meta);
    }

    /// Empties the send sites filled since the last change (all of them if
    /// more were filled than `filled` lists). A simple block's closure stays:
    /// it depends on no method.
    fn empty_sites(&mut self) {
        fn empty(c: &mut Cache) {
            if c.selector != SIMPLE_BLOCK {
                c.class = NO_CLASS;
                c.method = None;
                c.class2 = NO_CLASS;
                c.method2 = None;
            }
        }
        if self.filled.len() >= FILLED_MAX {
            self.caches.iter_mut().for_each(empty);
        } else {
            for &s in &self.filled {
                if let Some(c) = self.caches.get_mut(s as usize) {
                    empty(c);
                }
            }
        }
        self.filled.clear();
    }

    pub fn new_site(&mut self) -> u32 {
        self.caches.push(Cache {
            class: NO_CLASS,
            selector: Oop(u64::MAX),
            method: None,
            class2: NO_CLASS,
            method2: None,
            block: Value::Nil,
            getter: 0,
        });
        (self.caches.len() - 1) as u32
    }

    // ----- sending -----

    /// Sends `sel` to the receiver at `self.stack[rp]` with the `argc` arguments above it.
    pub extern "C-unwind" fn send(
        &mut self,
        sel: Oop,
        rp: usize,
        site: Option<u32>,
        super_of: Option<Oop>,
    ) -> R {
        let recv = self.stack[rp];
        let class = match super_of {
            Some(c) => match self.heap.class_data(c).and_then(|d| d.superclass) {
                Some(s) => s,
                None => {
                    return self.dnu(sel, rp);
                }
            },
            None => self.class_of(recv),
        };
        let mp: *const Method = match site {
            Some(s) if (s as usize) < self.caches.len() => {
                let c = &self.caches[s as usize];
                if c.class == class && c.selector == sel {
                    match &c.method {
                        Some(m) => Arc::as_ptr(m),
                        None => std::ptr::null(),
                    }
                } else {
                    self.send_miss(class, sel, s)
                }
            }
            _ => match self.lookup(class, sel) {
                Some(m) => Arc::as_ptr(&m),
                None => std::ptr::null(),
            },
        };
        if mp.is_null() {
            return self.dnu(sel, rp);
        }
        // SAFETY: `mp` comes from an `Arc<Method>` that `lookup` also stored in
        // `self.keep`, which is only emptied at safe points (no activation is
        // running); so the allocation outlives this activation. The
        // `ManuallyDrop` borrows that reference without changing its count.
        let m = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(mp) });
        self.invoke(&m, rp)
    }

    /// `send` from a send node of the tree: a cache site, no `super`. Inlined
    /// into `eval_send` together with `invoke`, so a cache hit on a
    /// primitive or frameless method makes no further call.
    #[inline(always)]
    fn send_at_site(&mut self, sel: Oop, rp: usize, site: u32) -> R {
        let class = self.class_of(self.stack[rp]);
        let mp: *const Method = match self.caches.get(site as usize) {
            Some(c) if c.class == class && c.selector == sel => match &c.method {
                Some(m) => Arc::as_ptr(m),
                None => std::ptr::null(),
            },
            Some(c) if c.class2 == class && c.selector == sel => match &c.method2 {
                Some(m) => Arc::as_ptr(m),
                None => std::ptr::null(),
            },
            Some(_) => self.send_miss(class, sel, site),
            None => return self.send(sel, rp, Some(site), None),
        };
        if mp.is_null() {
            return self.dnu(sel, rp);
        }
        // SAFETY: as in `send`: `mp` comes from an `Arc<Method>` that `lookup`
        // also stored in `self.keep`, emptied only at safe points.
        let m = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(mp) });
        self.invoke_inner(&m, rp)
    }

    #[cold]
    #[inline(never)]
    fn send_miss(&mut self, class: Oop, sel: Oop, s: u32) -> *const Method {
        let m = self.lookup(class, sel);
        let p = match &m {
            Some(m) => Arc::as_ptr(m),
            None => std::ptr::null(),
        };
        let old = &mut self.caches[s as usize];
        // a site filled afresh (or taken over from another selector) is
        // listed for the next method change to empty
        let listed = old.class != NO_CLASS && old.selector == sel;
        // the class this site saw last stays as the second entry
        let (class2, method2) = if listed && old.class != class {
            (old.class, old.method.take())
        } else {
            (NO_CLASS, None)
        };
        let getter = match m.as_ref().map(|m| m.dispatch) {
            Some(Dispatch::IVar(i)) => i as u32 + 1,
            _ => 0,
        };
        *old = Cache {
            class,
            selector: sel,
            method: m,
            class2,
            method2,
            block: Value::Nil,
            getter,
        };
        if !listed && self.filled.len() < FILLED_MAX {
            self.filled.push(s);
        }
        p
    }

    /// Sends from Rust: pushes receiver and arguments, sends, answers.
    pub fn send_msg(&mut self, recv: Value, sel: Oop, args: &[Value]) -> R {
        let rp = self.stack.len();
        self.stack.push(recv);
        self.stack.extend_from_slice(args);
        let r = self.send(sel, rp, None, None);
        self.stack.truncate(rp);
        r
    }

    pub fn send_str(&mut self, recv: Value, sel: &str, args: &[Value]) -> R {
        let s = self.intern(sel);
        self.send_msg(recv, s, args)
    }

    extern "C-unwind" fn dnu(&mut self, sel: Oop, rp: usize) -> R {
        let recv = self.stack[rp];
        let args: Vec<Value> = self.stack[rp + 1..].to_vec();
        self.stack.truncate(rp);
        let args_arr = self.new_array(args);
        let msg = self.new_object(self.k.message, vec![Value::Obj(sel), args_arr]);
        let class = self.class_of(recv);
        let dnu_sel = self.sels.does_not_understand;
        if sel != dnu_sel {
            if let Some(m) = self.lookup(class, dnu_sel) {
                self.stack.push(recv);
                self.stack.push(msg);
                return self.invoke(&m, rp);
            }
        }
        self.signal_mnu(recv, msg)
    }

    /// Signals MessageNotUnderstood for `recv`/`msg` (a Message).
    pub fn signal_mnu(&mut self, recv: Value, msg: Value) -> R {
        let sel = msg
            .oop()
            .map(|m| self.heap.slot(m, 0))
            .unwrap_or(Value::Nil);
        let sel_name = self.string_of(sel).unwrap_or_default();
        let cname = self.class_name(self.class_of(recv));
        let article = if cname.starts_with(['A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        };
        let details = format!(
            "{article} {cname} does not understand  #'{}'",
            sel_name.replace('\'', "''")
        );
        let ex = self.new_exception(self.k.message_not_understood, None, Some(&details));
        if let Value::Obj(o) = ex {
            self.heap
                .store(o, crate::object::known::exc::MNU_RECEIVER, recv);
            self.heap
                .store(o, crate::object::known::exc::MNU_MESSAGE, msg);
            let args = self.new_array(vec![recv, sel]);
            self.heap.store(o, crate::object::known::exc::ARGS, args);
        }
        self.signal(ex)
    }

    #[inline(always)]
    pub fn check_interrupt(&mut self) -> Result<(), Unwind> {
        // the common case in two tests; the rest lives out of line
        if !self.interrupter.pending() && !self.heap.gc_due() {
            return Ok(());
        }
        self.check_interrupt_slow()
    }

    #[cold]
    #[inline(never)]
    fn check_interrupt_slow(&mut self) -> Result<(), Unwind> {
        if self.interrupter.pending() {
            return self.take_interrupt();
        }
        if self.heap.gc_due() {
            if self.heap.stress > 0 {
                self.heap.stress_countdown = self.heap.stress_countdown.saturating_sub(1);
                if self.heap.stress_countdown == 0 {
                    self.heap.stress_countdown = self.heap.stress;
                    self.collect_during_evaluation();
                }
            } else if !self.collect_during_evaluation() {
                self.heap.defer_trigger();
            }
        }
        if self.memory_signalled
            && self.heap.bytes > self.heap.limit.saturating_add(self.heap.limit / 4)
        {
            // the program went on allocating after AlmostOutOfMemory: end it for good
            return Err(Unwind::abort(Box::new(Failure {
                kind: crate::interp::ErrorKind::Limit,
                number: 3140,
                class_name: "AlmostOutOfMemory".into(),
                message_text: None,
                description: "an AlmostOutOfMemory occurred (error 3140), the object memory limit was exceeded by more than a quarter".into(),
            })));
        }
        if self.heap.over_limit() && !self.memory_signalled {
            self.memory_signalled = true;
            let ex = self.new_exception(
                self.k.almost_out_of_memory,
                None,
                Some("object memory limit reached"),
            );
            self.signal(ex)?;
        }
        Ok(())
    }

    #[cold]
    fn take_interrupt(&mut self) -> Result<(), Unwind> {
        match self.interrupter.take() {
            Some(true) => Err(Unwind::abort(Box::new(Failure {
                kind: crate::interp::ErrorKind::Break,
                number: 6004,
                class_name: "Break".into(),
                message_text: None,
                description: "a Break occurred (error 6004), hard break".into(),
            }))),
            Some(false) => {
                let ex = self.new_exception(self.k.break_class, None, Some("soft break"));
                self.signal(ex).map(|_| ())
            }
            None => Ok(()),
        }
    }

    /// Runs a method with the receiver at `rp` and its arguments above it.
    #[inline]
    pub fn invoke(&mut self, m: &Arc<Method>, rp: usize) -> R {
        self.invoke_inner(m, rp)
    }

    #[inline(always)]
    fn invoke_inner(&mut self, m: &Arc<Method>, rp: usize) -> R {
        let r = match m.dispatch {
            Dispatch::Frame => return self.activate(m, rp),
            Dispatch::IVar(i) => {
                let r = match self.stack[rp] {
                    Value::Obj(o) => self.ivar_get(o, i as usize),
                    _ => Value::Nil,
                };
                self.stack.truncate(rp);
                return Ok(r);
            }
            Dispatch::SetIVar(i) => {
                // an invariant receiver takes the general path, which signals
                if let Value::Obj(o) = self.stack[rp] {
                    let v = self.stack[rp + 1];
                    if self.ivar_set(o, i as usize, v) {
                        self.stack.truncate(rp);
                        return Ok(Value::Obj(o));
                    }
                }
                return self.activate(m, rp);
            }
            Dispatch::SelfReturn => {
                let r = self.stack[rp];
                self.stack.truncate(rp);
                return Ok(r);
            }
            Dispatch::Const => {
                let Trivial::Const(c) = m.trivial else {
                    return self.activate(m, rp);
                };
                self.stack.truncate(rp);
                return Ok(c);
            }
            // the hottest primitives go straight to their implementation
            Dispatch::Block => self.call_block(rp, m.num_args),
            Dispatch::At => Ok(self.prim_at(rp)),
            Dispatch::AtPut => Ok(self.prim_at_put(rp)),
            Dispatch::Size => self.prim_size(rp, m.primitive),
            // loops that call blocks show in stack reports as their method
            Dispatch::Loop => {
                self.acts.push(Act {
                    method: &**m,
                    rp: rp as u32,
                    caller_pos: self.pos,
                });
                self.pos = 0;
                let r = self.prim(m.primitive, rp, m.num_args);
                self.pos = self.acts.pop().map_or(0, |a| a.caller_pos);
                r
            }
            // the collection fast paths, without the general dispatcher
            Dispatch::Collection => {
                let r = self.prim_collection(m.primitive, self.stack[rp], rp, m.num_args);
                if self.heap.refused.is_some() {
                    self.refused_in_primitive(r)
                } else {
                    r
                }
            }
            Dispatch::Prim => self.prim(m.primitive, rp, m.num_args),
        };
        match r {
            Ok(Some(v)) => {
                self.stack.truncate(rp);
                Ok(v)
            }
            // a failed primitive runs the method's statements
            Ok(None) => self.activate(m, rp),
            Err(e) => {
                self.stack.truncate(rp);
                Err(e)
            }
        }
    }

    /// Extends the value stack with nils up to `to` (a frame's temporaries);
    /// does nothing if it already reaches `to`. Inlined: `Vec::resize` is a
    /// call per activation.
    #[inline(always)]
    fn grow_frame(&mut self, to: usize) {
        let len = self.stack.len();
        if to > len {
            self.stack.reserve(to - len);
            let p = self.stack.as_mut_ptr();
            for i in len..to {
                // SAFETY: `reserve` made room for `to` values, so `p + i`
                // lies in the allocation; it is written before the length
                // covers it.
                write_nil(unsafe { p.add(i) });
            }
            // SAFETY: slots `len..to` were just initialised.
            unsafe { self.stack.set_len(to) };
        }
    }

    /// Runs a method's statements in a new activation (after its primitive,
    /// if any, failed). Interrupts and limits are checked here: primitives and
    /// trivial methods cannot loop by themselves.
    #[inline(never)]
    extern "C-unwind" fn activate(&mut self, m: &Arc<Method>, rp: usize) -> R {
        if let Err(e) = self.check_interrupt() {
            self.stack.truncate(rp);
            return Err(e);
        }
        self.depth += 1;
        // the native stack is measured at every eighth level: the soft floor
        // is tens of megabytes above the hard one, far more than eight frames
        if self.depth > self.depth_limit
            || (self.depth.is_multiple_of(NATIVE_CHECK_EVERY) && crate::object::native_stack::low())
        {
            if let Err(e) = self.stack_overflow() {
                self.depth -= 1;
                self.stack.truncate(rp);
                return Err(e);
            }
        }
        let recv = self.stack[rp];
        self.acts.push(Act {
            method: &**m,
            rp: rp as u32,
            caller_pos: self.pos,
        });
        let base = rp + 1;
        self.grow_frame(base + m.frame_size);
        let env = if m.env_size > 0 {
            let mut slots = vec![Value::Nil; m.env_size];
            for &(a, e) in &m.arg_env {
                slots[e as usize] = self.stack[base + a as usize];
            }
            Value::Obj(self.heap.alloc(self.k.variable_context, Body::Ptr(slots)))
        } else {
            Value::Nil
        };
        // only methods whose blocks use `^` need an identity for non-local return
        let home = if m.needs_home {
            let h = self.fresh_id();
            self.homes.push(h);
            h
        } else {
            0
        };
        let f = Frame {
            recv,
            base,
            env,
            home,
            method: m,
        };
        let mut result = Ok(recv);
        for stmt in &m.body {
            // a `^` statement of the method itself answers without unwinding
            let r = match stmt {
                Node::Return(e) => {
                    result = self.eval_leaf(e, &f);
                    break;
                }
                // so does the `^` of a guard (`n < 2 ifTrue: [^ n]`); any other
                // branch runs as `eval` would run it
                Node::If(parts, site, off) => {
                    let (c, t, e) = &**parts;
                    let branch = match self.eval_leaf(c, &f) {
                        Ok(Value::True) => t,
                        Ok(Value::False) => e,
                        Ok(other) => {
                            if let Err(e) = self.non_boolean(other, *site, *off) {
                                result = Err(e);
                                break;
                            }
                            continue;
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    };
                    if let Some(x) = return_only(branch) {
                        result = self.eval_leaf(x, &f);
                        break;
                    }
                    match branch {
                        // the `nil` of a guard's missing branch: nothing to run
                        Node::Const(_) => continue,
                        other => self.eval(other, &f),
                    }
                }
                // assignments to stack temporaries and conditional statements without entering `eval`
                other => self.block_stmt(other, &f),
            };
            if let Err(e) = r {
                result = Err(e);
                break;
            }
        }
        if m.needs_home {
            self.homes.pop();
        }
        self.pos = self.acts.pop().map_or(0, |a| a.caller_pos);
        self.depth -= 1;
        self.stack.truncate(rp);
        match result {
            Err(u) if self.return_home == home => match *u.0 {
                Unwinding::Return(v) => {
                    self.spare = Some(u.0);
                    Ok(v)
                }
                _ => Err(u),
            },
            other => other,
        }
    }

    /// `basicAt:` / `at:` (primitives 5 and 22) for the receiver at `rp`.
    /// An `Array` receiver is answered here; anything else goes to `basic_at`.
    #[inline(never)]
    extern "C-unwind" fn prim_at(&self, rp: usize) -> Option<Value> {
        // the receiver and index are matched where they lie: copied out
        // whole first, the copy was read back in halves while still being
        // stored (a failed store forward on every `at:`)
        let [r, i] = &self.stack[rp..rp + 2] else {
            return None;
        };
        let &Value::Int(i) = i else { return None };
        if i < 1 {
            return None;
        }
        let i = i as usize - 1;
        if let &Value::Obj(o) = r {
            let obj = self.heap.get(o);
            if obj.class == self.k.array {
                if let Body::Ptr(s) = &obj.body {
                    return s.get(i).map(load_value);
                }
            }
        }
        self.basic_at(*r, i)
    }

    /// `basicSize` / `size` (primitives 4 and 21) for the receiver at `rp`;
    /// `size` of a Rust-backed dictionary takes the general path.
    #[inline]
    fn prim_size(&mut self, rp: usize, n: u16) -> super::primitive::P {
        let r = self.stack[rp];
        if let Value::Obj(o) = r {
            if n == 21 && matches!(self.heap.get(o).body, Body::Dict(_)) {
                return self.prim(n, rp, 0);
            }
        }
        Ok(Some(Value::Int(self.basic_size(r) as i64)))
    }

    /// `basicAt:put:` / `at:put:` (primitives 6 and 23) for the receiver at `rp`.
    /// An `Array` receiver is stored into here (through the write barrier, as
    /// `basic_at_put` does); anything else goes to `basic_at_put`.
    #[inline(never)]
    extern "C-unwind" fn prim_at_put(&mut self, rp: usize) -> Option<Value> {
        // matched where they lie, as in `prim_at`
        let [r, i, x] = &self.stack[rp..rp + 3] else {
            return None;
        };
        if let (&Value::Obj(o), &Value::Int(n)) = (r, i) {
            let obj = self.heap.get(o);
            if n >= 1 && obj.class == self.k.array && matches!(obj.body, Body::Ptr(_)) {
                let Some(Object {
                    body: Body::Ptr(s), ..
                }) = self.heap.write(o)
                else {
                    return None;
                };
                // the argument was pushed in halves just before: read it
                // as two words (whole, its load straddled both stores)
                let v = load_value(x);
                let slot = s.get_mut(n as usize - 1)?;
                *slot = v;
                return Some(v);
            }
        }
        let (r, i, x) = (*r, *i, *x);
        match i {
            Value::Int(i) if i >= 1 && self.basic_at_put(r, i as usize - 1, x).is_ok() => Some(x),
            _ => None,
        }
    }

    /// The unwind for `^ v` (to `self.return_home`).
    #[inline]
    fn unwind_return(&mut self, v: Value) -> Unwind {
        match self.spare.take() {
            Some(mut b) => {
                *b = Unwinding::Return(v);
                Unwind(b)
            }
            None => Unwind(Box::new(Unwinding::Return(v))),
        }
    }

    #[cold]
    fn stack_overflow(&mut self) -> Result<(), Unwind> {
        // the frame limit, or the native stack running out (deep expression
        // trees cost native stack a frame count does not see)
        let hard = self.depth > self.depth_limit + DEPTH_HEADROOM
            || crate::object::native_stack::exhausted();
        if hard || self.stack_signalled {
            if hard {
                return Err(Unwind::abort(Box::new(Failure {
                    kind: crate::interp::ErrorKind::Limit,
                    number: 3139,
                    class_name: "AlmostOutOfStack".into(),
                    message_text: None,
                    description: format!(
                        "an AlmostOutOfStack occurred (error 3139), {}",
                        self.stack_exceeded(self.depth_limit + DEPTH_HEADROOM)
                    ),
                })));
            }
            return Ok(());
        }
        self.stack_signalled = true;
        let text = self.stack_exceeded(self.depth_limit);
        let ex = self.new_exception(self.k.almost_out_of_stack, None, Some(&text));
        self.signal(ex).map(|_| ())
    }

    /// What ran out: the frames, or the native stack before them.
    fn stack_exceeded(&self, limit: usize) -> String {
        if self.depth > limit {
            format!("the execution stack exceeded {limit} frames")
        } else {
            format!(
                "the execution stack ran out of native stack at {} frames (deeply nested expressions)",
                self.depth
            )
        }
    }

    /// Evaluates a block closure with the arguments on the stack above `rp`
    /// (the block itself is at `rp`). `None` when the argument count is wrong.
    pub extern "C-unwind" fn call_block(
        &mut self,
        rp: usize,
        argc: usize,
    ) -> Result<Option<Value>, Unwind> {
        let Value::Obj(bo) = self.stack[rp] else {
            return Ok(None);
        };
        let Body::Block(cl) = &self.heap.get(bo).body else {
            return Ok(None);
        };
        if cl.code.num_args != argc {
            return Ok(None);
        }
        let clp: *const Closure = &**cl;
        // SAFETY: the closure is boxed inside the block object, which stays at
        // `self.stack[rp]` for the whole call. Heap objects are only freed by the
        // collector at safe points, `become:` moves the box without dropping it,
        // and closures are never rewritten in place (nor loaded from the
        // repository), so the box and the Arcs it owns outlive this call.
        let cl: &Closure = unsafe { &*clp };
        let r = self.run_block(cl, rp, rp + 1);
        self.stack.truncate(rp);
        r.map(Some)
    }

    /// Runs closure `cl` (the block object at `self.stack[bp]`) with its
    /// arguments at `self.stack[base..]`: the interrupt and depth checks, the
    /// activation record, the temporaries and environment, the statements.
    /// Leaves the stack at `base + frame_size` or above; the caller truncates.
    #[inline(always)]
    fn run_block(&mut self, cl: &Closure, bp: usize, base: usize) -> R {
        self.check_interrupt()?;
        self.depth += 1;
        if self.depth > self.depth_limit || crate::object::native_stack::low() {
            if let Err(e) = self.stack_overflow() {
                self.depth -= 1;
                return Err(e);
            }
        }
        self.grow_frame(base + cl.code.frame_size);
        let r = self.block_body(cl, bp, base);
        self.depth -= 1;
        r
    }

    /// The part of a block call every call needs once its frame is on the
    /// stack (sized, arguments written, temporaries nil) and the depth is
    /// counted: the activation record, the environment, the statements.
    #[inline(always)]
    fn block_body(&mut self, cl: &Closure, bp: usize, base: usize) -> R {
        self.acts.push(Act {
            method: std::ptr::null(),
            rp: bp as u32,
            caller_pos: self.pos,
        });
        let result = self.block_statements(cl, base);
        self.pos = self.acts.pop().map_or(0, |a| a.caller_pos);
        result
    }

    /// A block's environment (if it has one of its own) and statements, with
    /// its frame at `base`.
    #[inline(always)]
    fn block_statements(&mut self, cl: &Closure, base: usize) -> R {
        let code = &*cl.code;
        let env = if code.env_size > 0 {
            let mut slots = vec![Value::Nil; code.env_size];
            slots[0] = cl.env;
            for &(a, e) in &code.arg_env {
                slots[e as usize] = self.stack[base + a as usize];
            }
            Value::Obj(self.heap.alloc(self.k.variable_context, Body::Ptr(slots)))
        } else {
            cl.env
        };
        let f = Frame {
            recv: cl.receiver,
            base,
            env,
            home: cl.home,
            method: &cl.method,
        };
        match code.body.split_last() {
            Some((last, rest)) => {
                for stmt in rest {
                    self.block_stmt(stmt, &f)?;
                }
                self.block_stmt(last, &f)
            }
            None => Ok(Value::Nil),
        }
    }

    /// One statement of a real block or an inlined loop's body, the
    /// commonest kinds answered without entering `eval`: an assignment to a
    /// stack temporary, and a conditional (`each > limit ifTrue: [^ each]`)
    /// whose constant branch (the `nil` of a missing `ifFalse:`) answers in
    /// place.
    #[inline(always)]
    fn block_stmt(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::SetSlot(Slot::Stack(i), e) => {
                let v = self.eval_leaf(e, f)?;
                self.stack[f.base + *i as usize] = v;
                Ok(v)
            }
            Node::If(parts, site, off) => {
                let (c, t, e) = &**parts;
                let branch = match self.eval_leaf(c, f)? {
                    Value::True => t,
                    Value::False => e,
                    other => return self.non_boolean(other, *site, *off),
                };
                match branch {
                    Node::Const(v) => Ok(*v),
                    other => self.eval(other, f),
                }
            }
            _ => self.eval_leaf(n, f),
        }
    }

    /// Runs `body` as a primitive's loop over the block at `self.stack[bp]`
    /// (`do:` and its kin); `Ok(None)` (the primitive fails) unless it is a
    /// block taking `argc` arguments. What is the same for every call is
    /// done once here: the closure is found and checked, the depth counted
    /// and checked against the limits, the frame put on the stack, the
    /// block's activation record pushed (it stays for the loop: `body` runs
    /// anything other than a block call through [`Vm::between_calls`]). The
    /// block object must stay at `bp` until the loop ends; the block's frame
    /// stays on the stack above the primitive's between calls (the
    /// primitive's own return truncates it), so anything `body` pushes
    /// between calls goes above it and must be popped again.
    #[inline(always)]
    pub fn block_loop(
        &mut self,
        bp: usize,
        argc: usize,
        body: impl FnOnce(&mut Vm, &BlockLoop) -> super::primitive::P,
    ) -> super::primitive::P {
        let Value::Obj(bo) = self.stack[bp] else {
            return Ok(None);
        };
        let l = match &self.heap.get(bo).body {
            Body::Block(cl) if cl.code.num_args == argc => {
                let base = self.stack.len();
                BlockLoop {
                    cl: &**cl,
                    base,
                    frame: base + cl.code.frame_size,
                    temps: cl.code.frame_size > argc,
                    caller_pos: self.pos,
                }
            }
            _ => return Ok(None),
        };
        self.depth += 1;
        if self.depth > self.depth_limit || crate::object::native_stack::low() {
            if let Err(e) = self.stack_overflow() {
                self.depth -= 1;
                return Err(e);
            }
        }
        self.grow_frame(l.frame);
        self.acts.push(Act {
            method: std::ptr::null(),
            rp: bp as u32,
            caller_pos: l.caller_pos,
        });
        let records = self.acts.len();
        let r = body(self, &l);
        // every activation above the loop's record has popped its own by now
        // (on every way out); the loop's may be off already (`between_calls`)
        self.acts.truncate(records - 1);
        self.pos = l.caller_pos;
        self.depth -= 1;
        r
    }

    /// One call of a loop's block with `args` (as many as it takes): what
    /// `value:` does, without finding and checking the closure, counting
    /// the depth, sizing the frame or pushing the activation record again.
    /// The arguments are written into the frame here, in the primitive's
    /// loop, one slot at a time: passed on as a slice they were read back
    /// as whole values while their halves were still being stored, which
    /// stalls the load (a failed store-to-load forward) on every call.
    #[inline(always)]
    pub fn block_loop_call(&mut self, l: &BlockLoop, args: &[Value]) -> R {
        // the frame stays between calls: only its arguments and temporaries
        // are written again (the arguments before the interrupt check, which
        // may collect: the value stack is where the collector sees them)
        self.block_loop_frame(l);
        for (k, &a) in args.iter().enumerate() {
            self.stack[l.base + k] = a;
        }
        self.block_loop_run(l, args.len())
    }

    /// Sizes a loop block's frame again when the last call (or a send made
    /// between calls) left the value stack otherwise.
    #[inline(always)]
    pub fn block_loop_frame(&mut self, l: &BlockLoop) {
        if self.stack.len() > l.frame {
            self.stack.truncate(l.frame);
        } else {
            self.grow_frame(l.frame);
        }
    }

    /// The rest of [`Vm::block_loop_call`] once the `argc` arguments are in
    /// the frame (sized by [`Vm::block_loop_frame`]): the temporaries, the
    /// interrupt check, the statements.
    #[inline(never)]
    pub extern "C-unwind" fn block_loop_run(&mut self, l: &BlockLoop, argc: usize) -> R {
        // SAFETY: as in `call_block`: the block object stays at its stack
        // index for the loop (`block_loop`'s contract), so its boxed closure
        // outlives every call.
        let cl: &Closure = unsafe { &*l.cl };
        if l.temps {
            for t in &mut self.stack[l.base + argc..l.frame] {
                write_nil(t);
            }
        }
        if self.interrupter.pending() || self.heap.gc_due() {
            self.between_calls(l, |vm| vm.check_interrupt())?;
        }
        let r = self.block_statements(cl, l.base);
        self.pos = l.caller_pos;
        r
    }

    /// Runs `f` in a block loop's primitive between two calls of its block
    /// (an `at:` the primitive sends, `mustBeBoolean`, the interrupt check):
    /// without the block's activation record and depth, so a stack report
    /// made meanwhile shows the primitive as the innermost activation.
    #[cold]
    #[inline(never)]
    pub fn between_calls<T>(
        &mut self,
        l: &BlockLoop,
        f: impl FnOnce(&mut Vm) -> Result<T, Unwind>,
    ) -> Result<T, Unwind> {
        let record = self.acts.pop();
        self.depth -= 1;
        let r = f(self);
        self.depth += 1;
        if let Some(a) = record {
            self.acts.push(a);
        }
        self.pos = l.caller_pos;
        r
    }

    /// Calls a block (or anything answering `value…`) from Rust.
    pub fn call_value(&mut self, block: Value, args: &[Value]) -> R {
        let rp = self.stack.len();
        self.stack.push(block);
        self.stack.extend_from_slice(args);
        if let Some(v) = self.call_block(rp, args.len())? {
            return Ok(v);
        }
        self.stack.truncate(rp);
        let sel = match args.len() {
            0 => "value",
            1 => "value:",
            2 => "value:value:",
            3 => "value:value:value:",
            _ => "value:value:value:value:",
        };
        self.send_str(block, sel, args)
    }

    // ----- the tree walker -----

    /// The context `depth` levels out from `env` (inlined: called out of
    /// line, its `Value` argument went through memory, read back whole
    /// while its halves were still being stored).
    #[inline(always)]
    fn env_at(&self, env: Value, depth: u16) -> Oop {
        let mut e = env;
        for _ in 0..depth {
            e = match e {
                Value::Obj(o) => self.heap.slot(o, 0),
                _ => Value::Nil,
            };
        }
        match e {
            Value::Obj(o) => o,
            _ => Oop(0),
        }
    }

    /// Resets an inlined block's temporary to nil (see [`write_nil`]).
    #[inline(always)]
    fn nil_slot(&mut self, s: Slot, f: &Frame) {
        match s {
            Slot::Stack(i) => write_nil(&mut self.stack[f.base + i as usize]),
            env => self.set_slot(env, Value::Nil, f),
        }
    }

    #[inline(always)]
    fn set_slot(&mut self, s: Slot, v: Value, f: &Frame) {
        match s {
            Slot::Stack(i) => self.stack[f.base + i as usize] = v,
            Slot::Env(d, i) => {
                let e = self.env_at(f.env, d);
                self.heap.store(e, i as usize, v);
            }
        }
    }

    /// Evaluates a node. Control structures continue with their chosen
    /// branch (or a sequence with its last statement) in the same call, so
    /// inlined code does not nest Rust frames; statements and conditions go
    /// through `eval_leaf`, which answers variables, constants and sends
    /// without re-entering this function.
    pub extern "C-unwind" fn eval(&mut self, n: &Node, f: &Frame) -> R {
        let mut n = n;
        loop {
            return match n {
                Node::Send(s) => self.send_node(s, f),
                Node::Const(v) => Ok(*v),
                Node::SelfRef => Ok(f.recv),
                Node::Temp(i) => Ok(self.stack[f.base + *i as usize]),
                Node::EnvVar(d, i) => {
                    let e = self.env_at(f.env, *d);
                    Ok(self.heap.slot(e, *i as usize))
                }
                Node::IVar(i) => Ok(match f.recv {
                    Value::Obj(o) => self.ivar_get(o, *i as usize),
                    _ => Value::Nil,
                }),
                Node::SetSlot(Slot::Stack(i), e) => {
                    let v = self.eval_leaf(e, f)?;
                    self.stack[f.base + *i as usize] = v;
                    Ok(v)
                }
                Node::Seq(nodes, temps) => {
                    for &t in temps {
                        self.nil_slot(t, f);
                    }
                    match nodes.split_last() {
                        None => Ok(Value::Nil),
                        Some((last, rest)) => {
                            for x in rest {
                                self.eval_leaf(x, f)?;
                            }
                            n = last;
                            continue;
                        }
                    }
                }
                Node::If(parts, site, off) => {
                    let (c, t, e) = &**parts;
                    n = match self.eval_leaf(c, f)? {
                        Value::True => t,
                        Value::False => e,
                        other => return self.non_boolean(other, *site, *off),
                    };
                    // the `nil` of a missing branch answers without another dispatch
                    if let Node::Const(v) = n {
                        return Ok(*v);
                    }
                    continue;
                }
                Node::And(parts, site, off) => {
                    let (a, b) = &**parts;
                    match self.eval_leaf(a, f)? {
                        Value::True => n = b,
                        Value::False => return Ok(Value::False),
                        other => return self.non_boolean(other, *site, *off),
                    }
                    continue;
                }
                Node::Or(parts, site, off) => {
                    let (a, b) = &**parts;
                    match self.eval_leaf(a, f)? {
                        Value::True => return Ok(Value::True),
                        Value::False => n = b,
                        other => return self.non_boolean(other, *site, *off),
                    }
                    continue;
                }
                // a block without outer references: its one closure (`at:ifAbsent: [0]`)
                Node::Block(code) if code.simple_site.is_some() => {
                    let site = code.simple_site.unwrap_or_default();
                    Ok(self.simple_block(code, site, f))
                }
                // `^` in an inlined block of a method (`x ifTrue: [^ y]`)
                Node::Return(e) => {
                    let v = self.eval_leaf(e, f)?;
                    self.return_home = f.home;
                    Err(self.unwind_return(v))
                }
                _ => self.eval_cold(n, f),
            };
        }
    }

    /// The less frequent node kinds, kept out of `eval` so its frame stays small.
    #[inline(never)]
    extern "C-unwind" fn eval_cold(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Global(a) => Ok(self.heap.slot(*a, 1)),
            Node::SetSlot(s, e) => {
                let v = self.eval_leaf(e, f)?;
                self.set_slot(*s, v, f);
                Ok(v)
            }
            Node::SetIVar(i, e) => {
                let v = self.eval_leaf(e, f)?;
                if let Value::Obj(o) = f.recv {
                    if !self.ivar_set(o, *i as usize, v) || self.heap.refused.is_some() {
                        return self.ivar_store_failed();
                    }
                }
                Ok(v)
            }
            Node::SetGlobal(a, e) => {
                let v = self.eval(e, f)?;
                if !self.heap.store(*a, 1, v) && self.heap.refused.is_some() {
                    return self.signal_refused_write();
                }
                Ok(v)
            }
            Node::Cascade(recv, parts) => {
                let r = self.eval(recv, f)?;
                let mut last = Value::Nil;
                for p in parts {
                    last = self.cascade_send(r, p, f)?;
                    for c in &p.chain {
                        last = self.cascade_send(last, c, f)?;
                    }
                }
                Ok(last)
            }
            Node::Block(code) => Ok(self.block_closure(code, f)),
            Node::Brace(items) => {
                // the elements wait on the value stack, where the collector sees them
                let sp = self.stack.len();
                for i in items {
                    match self.eval(i, f) {
                        Ok(v) => self.stack.push(v),
                        Err(e) => {
                            self.stack.truncate(sp);
                            return Err(e);
                        }
                    }
                }
                let vals: Vec<Value> = self.stack.drain(sp..).collect();
                Ok(self.new_array(vals))
            }
            Node::NonLocalReturn(e) => {
                let v = self.eval(e, f)?;
                if self.homes.iter().rev().any(|&h| h == f.home) {
                    self.return_home = f.home;
                    Err(self.unwind_return(v))
                } else {
                    let ex = self.new_exception(
                        self.k.cannot_return,
                        None,
                        Some("the home context of this block has already returned"),
                    );
                    self.signal(ex)
                }
            }
            Node::While(parts, until, off) => {
                let (cond, body) = &**parts;
                loop {
                    let c = self.eval_cond(cond, f)?;
                    match (c, *until) {
                        (Value::True, true) | (Value::False, false) => {}
                        (Value::True, false) | (Value::False, true) => break,
                        (other, _) => {
                            self.non_boolean(other, u32::MAX, *off)?;
                        }
                    }
                    self.run_body(body, f)?;
                    self.check_interrupt()?;
                }
                Ok(Value::Nil)
            }
            Node::Repeat(body, _) => loop {
                self.run_body(body, f)?;
                self.check_interrupt()?;
            },
            Node::TimesRepeat(parts, _) => {
                let (count, body) = &**parts;
                let n = self.eval(count, f)?;
                let Value::Int(n) = n else {
                    return self.signal_error(
                        self.k.argument_type_error,
                        "timesRepeat: needs a SmallInteger receiver",
                    );
                };
                for _ in 0..n.max(0) {
                    self.run_body(body, f)?;
                    self.check_interrupt()?;
                }
                Ok(n.into_value())
            }
            Node::ToDo(t) => self.eval_to_do(t, f),
            Node::IfNil(parts) => {
                let (v, nil_branch, not_nil) = &**parts;
                let v = self.eval(v, f)?;
                if v.is_nil() {
                    match nil_branch {
                        Some(b) => self.eval(b, f),
                        None => Ok(Value::Nil),
                    }
                } else {
                    match not_nil {
                        Some((slot, b)) => {
                            if let Some(s) = slot {
                                self.set_slot(*s, v, f);
                            }
                            self.eval(b, f)
                        }
                        None => Ok(v),
                    }
                }
            }
            _ => Ok(Value::Nil),
        }
    }

    /// The error for an assignment to an instance variable that was not
    /// stored: refused by the write barrier, or an invariant receiver.
    #[cold]
    #[inline(never)]
    fn ivar_store_failed(&mut self) -> R {
        if self.heap.refused.is_some() {
            return self.signal_refused_write();
        }
        self.signal_error(
            self.k.improper_operation,
            "attempt to modify an invariant object",
        )
    }

    /// The value of a block expression: a simple block's one closure, or a
    /// new closure over frame `f`.
    #[inline(never)]
    extern "C-unwind" fn block_closure(&mut self, code: &Arc<BlockCode>, f: &Frame) -> Value {
        if let Some(site) = code.simple_site {
            return self.simple_block(code, site, f);
        }
        Value::Obj(self.new_closure(code, f))
    }

    /// A new closure of `code` over frame `f` (its method, receiver,
    /// environment and home).
    #[inline(always)]
    fn new_closure(&mut self, code: &Arc<BlockCode>, f: &Frame) -> Oop {
        self.heap
            .alloc_block(self.k.exec_block, code, f.method, f.recv, f.env, f.home)
    }

    /// The one closure of a simple block, made on first use. The cache entry
    /// names the code it belongs to: doit sites are reused after the doit ends.
    extern "C-unwind" fn simple_block(
        &mut self,
        code: &Arc<BlockCode>,
        site: u32,
        f: &Frame,
    ) -> Value {
        let key = Oop(Arc::as_ptr(code) as u64);
        if let Some(c) = self.caches.get(site as usize) {
            if c.selector == SIMPLE_BLOCK && c.class == key && !c.block.is_nil() {
                return c.block;
            }
        }
        let v = Value::Obj(self.new_closure(code, f));
        if let Some(c) = self.caches.get_mut(site as usize) {
            *c = Cache {
                class: key,
                selector: SIMPLE_BLOCK,
                method: None,
                class2: NO_CLASS,
                method2: None,
                block: v,
                getter: 0,
            };
        }
        v
    }

    /// Pushes a receiver and its evaluated arguments for a send; answers the
    /// receiver's stack index. An argument that fails leaves the stack as it was.
    #[inline(always)]
    fn push_send(&mut self, r: Value, args: &[Node], f: &Frame) -> Result<usize, Unwind> {
        let rp = self.stack.len();
        self.stack.push(r);
        for a in args {
            match self.eval_leaf(a, f) {
                Ok(v) => self.stack.push(v),
                Err(e) => {
                    self.stack.truncate(rp);
                    return Err(e);
                }
            }
        }
        Ok(rp)
    }

    /// Sends one cascade message to `r`.
    extern "C-unwind" fn cascade_send(&mut self, r: Value, p: &CascadePart, f: &Frame) -> R {
        let rp = self.push_send(r, &p.args, f)?;
        self.pos = p.offset as u32;
        self.send_at_site(p.selector, rp, p.site)
    }

    /// Runs an inlined loop body whose value is not used: a sequence's
    /// statements one after another, without entering `eval` for it.
    #[inline(always)]
    fn run_body(&mut self, n: &Node, f: &Frame) -> Result<(), Unwind> {
        match n {
            Node::Seq(nodes, temps) => {
                for &t in temps {
                    self.nil_slot(t, f);
                }
                for x in nodes {
                    self.block_stmt(x, f)?;
                }
                Ok(())
            }
            other => self.block_stmt(other, f).map(|_| ()),
        }
    }

    /// The value of an inlined loop condition: a sequence of one statement
    /// without temporaries is evaluated as that statement.
    #[inline(always)]
    fn eval_cond(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Seq(nodes, temps) if temps.is_empty() && nodes.len() == 1 => {
                self.eval_leaf(&nodes[0], f)
            }
            other => self.eval_leaf(other, f),
        }
    }

    extern "C-unwind" fn eval_to_do(&mut self, t: &ToDoNode, f: &Frame) -> R {
        let from = self.eval(&t.from, f)?;
        let to = self.eval(&t.to, f)?;
        let by = match &t.by {
            Some(b) => self.eval(b, f)?,
            None => Value::Int(1),
        };
        if let (Value::Int(a), Value::Int(b), Value::Int(s)) = (from, to, by) {
            if s == 0 {
                return self.signal_error(self.k.argument_error, "to:by:do: step must not be zero");
            }
            let mut i = a;
            while (s > 0 && i <= b) || (s < 0 && i >= b) {
                // the counter goes straight into its slot: made in a
                // temporary and copied whole, its two halves were read back
                // while still being stored (a failed store forward)
                match t.var {
                    Slot::Stack(k) => self.stack[f.base + k as usize] = Value::Int(i),
                    var => self.set_slot(var, Value::Int(i), f),
                }
                self.run_body(&t.body, f)?;
                self.check_interrupt()?;
                i += s;
            }
            return Ok(from);
        }
        // general numbers: use sends
        let mut i = from;
        let positive = matches!(self.send_str(by, ">", &[Value::Int(0)])?, Value::True);
        loop {
            let cmp = if positive { "<=" } else { ">=" };
            if !matches!(self.send_str(i, cmp, &[to])?, Value::True) {
                break;
            }
            self.set_slot(t.var, i, f);
            self.eval(&t.body, f)?;
            self.check_interrupt()?;
            i = self.send_str(i, "+", &[by])?;
        }
        Ok(from)
    }

    #[cold]
    extern "C-unwind" fn non_boolean(&mut self, v: Value, _site: u32, _off: usize) -> R {
        let sel = self.sels.must_be_boolean;
        self.send_msg(v, sel, &[])
    }

    #[inline(never)]
    extern "C-unwind" fn eval_send(&mut self, s: &SendNode, f: &Frame) -> R {
        let r = self.eval_leaf(&s.recv, f)?;
        if s.args.len() == 1 && s.special != Special::None {
            let a = self.eval_leaf(&s.args[0], f)?;
            if let Some(v) = fast_special(s.special, r, a) {
                return Ok(v);
            }
            let rp = self.stack.len();
            self.stack.push(r);
            self.stack.push(a);
            self.pos = s.offset as u32;
            if s.super_of.is_none() {
                return self.send_at_site(s.selector, rp, s.site);
            }
            return self.send(s.selector, rp, Some(s.site), s.super_of);
        }
        let rp = self.push_send(r, &s.args, f)?;
        self.pos = s.offset as u32;
        if s.super_of.is_none() {
            return self.send_at_site(s.selector, rp, s.site);
        }
        self.send(s.selector, rp, Some(s.site), s.super_of)
    }

    /// `eval` with the leaf nodes (variables, globals, constants) answered in place,
    /// saving a call for the commonest receivers and arguments.
    #[inline(always)]
    fn eval_leaf(&mut self, n: &Node, f: &Frame) -> R {
        match n {
            Node::Temp(i) => Ok(self.stack[f.base + *i as usize]),
            Node::Const(v) => Ok(*v),
            Node::SelfRef => Ok(f.recv),
            Node::IVar(i) => Ok(match f.recv {
                Value::Obj(o) => self.ivar_get(o, *i as usize),
                _ => Value::Nil,
            }),
            Node::Send(s) => self.send_node(s, f),
            Node::EnvVar(d, i) => {
                let e = self.env_at(f.env, *d);
                Ok(self.heap.slot(e, *i as usize))
            }
            // a global (`OrderedCollection new`): its Association's value
            Node::Global(a) => Ok(self.heap.slot(*a, 1)),
            // a block argument (`do: [:x | ...]`), without entering `eval`
            Node::Block(code) => Ok(self.block_closure(code, f)),
            // an assignment of a send's answer to a temporary (`i := i + 1`)
            Node::SetSlot(Slot::Stack(i), e) if matches!(**e, Node::Send(_)) => {
                self.assign_send(*i, e, f)
            }
            // the same for an instance variable (`count := count + 1`)
            Node::SetIVar(i, e) if matches!(**e, Node::Send(_)) => self.assign_ivar_send(*i, e, f),
            _ => self.eval(n, f),
        }
    }

    /// `temp := <send>`: the send's answer stored in the frame's slot `i`.
    #[inline(never)]
    extern "C-unwind" fn assign_send(&mut self, i: u16, e: &Node, f: &Frame) -> R {
        let Node::Send(s) = e else {
            return self.eval(e, f);
        };
        let v = self.send_node(s, f)?;
        self.stack[f.base + i as usize] = v;
        Ok(v)
    }

    /// `ivar := <send>`: the send's answer stored in the receiver's
    /// instance variable `i` (through the write barrier, as `eval_cold` does).
    #[inline(never)]
    extern "C-unwind" fn assign_ivar_send(&mut self, i: u16, e: &Node, f: &Frame) -> R {
        let Node::Send(s) = e else {
            return self.eval(e, f);
        };
        let v = self.send_node(s, f)?;
        if let Value::Obj(o) = f.recv {
            if !self.ivar_set(o, i as usize, v) || self.heap.refused.is_some() {
                return self.ivar_store_failed();
            }
        }
        Ok(v)
    }

    /// A send node: SmallInteger/Float arithmetic and comparisons between
    /// variables and constants are answered in place, anything else goes
    /// through `eval_send`.
    #[inline(always)]
    fn send_node(&mut self, s: &SendNode, f: &Frame) -> R {
        if s.leaf_special {
            let r = self.leaf_value(&s.recv, f);
            let a = self.leaf_value(&s.args[0], f);
            if let Some(v) = fast_special(s.special, r, a) {
                return Ok(v);
            }
        }
        if s.leaf_unary {
            if let Some(v) = self.cached_getter(s, f) {
                return Ok(v);
            }
        }
        self.eval_send(s, f)
    }

    /// The answer of unary send `s` (its receiver a variable) when the
    /// site's cache holds a getter (`^ ivar`) for the receiver's class: the
    /// instance variable, read without pushing the receiver or entering
    /// `eval_send` (whose prologue and epilogue cost more than the read).
    /// The site's `getter` mark is tested first, so any other send pays one
    /// load and branch here. Anything else (a miss, another kind of method,
    /// a class or a non-object receiver) answers None and takes the general
    /// path, which then answers the same.
    #[inline(always)]
    fn cached_getter(&self, s: &SendNode, f: &Frame) -> Option<Value> {
        let c = self.caches.get(s.site as usize)?;
        if c.getter == 0 {
            return None;
        }
        let Value::Obj(o) = self.leaf_value(&s.recv, f) else {
            return None;
        };
        let obj = self.heap.get(o);
        if c.class != obj.class || c.selector != s.selector {
            return None;
        }
        match &obj.body {
            Body::Ptr(slots) => Some(
                slots
                    .get(c.getter as usize - 1)
                    .copied()
                    .unwrap_or(Value::Nil),
            ),
            _ => None,
        }
    }

    /// The value of a variable or constant node (nil for anything else,
    /// which `leaf_special` and `leaf_unary` rule out).
    #[inline(always)]
    fn leaf_value(&self, n: &Node, f: &Frame) -> Value {
        match n {
            Node::Temp(i) => self.stack[f.base + *i as usize],
            Node::Const(v) => *v,
            Node::SelfRef => f.recv,
            Node::IVar(i) => match f.recv {
                Value::Obj(o) => self.ivar_get(o, *i as usize),
                _ => Value::Nil,
            },
            Node::EnvVar(d, i) => {
                let e = self.env_at(f.env, *d);
                self.heap.slot(e, *i as usize)
            }
            _ => Value::Nil,
        }
    }

    #[inline]
    pub extern "C-unwind" fn ivar_get(&self, o: Oop, i: usize) -> Value {
        match &self.heap.get(o).body {
            Body::Ptr(s) => s.get(i).copied().unwrap_or(Value::Nil),
            Body::Class(c) => c.slots.get(i).copied().unwrap_or(Value::Nil),
            _ => Value::Nil,
        }
    }

    /// Stores instance variable `i` of `o` through the write barrier; false
    /// only when `o` is invariant (a refused store answers true and leaves
    /// `heap.refused` set, as `Heap::store` does).
    #[inline]
    pub extern "C-unwind" fn ivar_set(&mut self, o: Oop, i: usize, v: Value) -> bool {
        self.heap.store_plain(o, i, v) || self.ivar_set_barrier(o, i, v)
    }

    /// `ivar_set` of an object the write barrier has a say in (invariant,
    /// persistent) or that is not a plain pointer object (a class).
    #[inline(never)]
    extern "C-unwind" fn ivar_set_barrier(&mut self, o: Oop, i: usize, v: Value) -> bool {
        if let Body::Class(_) = &self.heap.get(o).body {
            return self.class_ivar_set(o, i, v);
        }
        match self.heap.write(o) {
            Some(Object {
                body: Body::Ptr(s), ..
            }) => {
                if let Some(slot) = s.get_mut(i) {
                    *slot = v;
                }
                true
            }
            Some(_) => true,
            None => !self.heap.is_invariant(o),
        }
    }

    /// `ivar_set` on a class: its class-side instance variables, whatever
    /// its invariance (class definitions are VM bookkeeping).
    #[cold]
    fn class_ivar_set(&mut self, o: Oop, i: usize, v: Value) -> bool {
        let c = self.heap.class_data_mut(o);
        if i < c.slots.len() {
            c.slots[i] = v;
        }
        true
    }

    /// Wraps a method's Arc in a GsNMethod object (once).
    pub fn method_object(&mut self, m: &Arc<Method>) -> Oop {
        let cur = m.oop.load(Ordering::Relaxed);
        if cur != 0 {
            return Oop(cur);
        }
        // old at birth: `m.oop` names it, and old closures and methods share `m`
        // without going through the write barrier
        let o = self.heap.alloc_old(self.k.method, Body::Method(m.clone()));
        m.oop.store(o.0, Ordering::Relaxed);
        o
    }
}

trait IntoValue {
    fn into_value(self) -> Value;
}
impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::Int(self)
    }
}

/// Writes nil into a value-stack slot as one 16-byte store of zeros (the
/// tag of `Nil` is 0). A plain `Value::Nil` store writes the tag word only,
/// and the next whole read of the slot (a temporary's first use, a copy)
/// then straddles that store and older memory: a failed store-to-load
/// forward.
#[inline(always)]
fn write_nil(slot: *mut Value) {
    // SAFETY: `Value` is `repr(u64)` with `Nil` as discriminant 0, so two
    // zero words are a valid `Nil`; callers pass a slot inside the value
    // stack's allocation (possibly not yet initialised).
    unsafe { slot.cast::<[u64; 2]>().write([0, 0]) }
}

/// Reads a `Value` out of memory as two 8-byte words into registers. A
/// plain `*v` lets rustc move it with one 16-byte load: after the value
/// was stored as two words (a push from registers) that load cannot be
/// forwarded from the store buffer, and copied into a 16-byte temporary
/// that is read back in halves it stalls the same way (most of `prim_at`'s
/// samples sat on such a reload). The reads are volatile so they are not
/// merged into one wide load again.
#[inline(always)]
pub(crate) fn load_value(v: &Value) -> Value {
    use std::mem::MaybeUninit;
    let p = (v as *const Value).cast::<MaybeUninit<u64>>();
    // SAFETY: a `Value` is 16 bytes, so both words lie inside `*v`; they
    // are read as `MaybeUninit` (a tag without payload leaves the second
    // word uninitialised) and put back together unchanged, so the result
    // is the same valid `Value`.
    unsafe {
        let w = [p.read_volatile(), p.add(1).read_volatile()];
        std::mem::transmute::<[MaybeUninit<u64>; 2], Value>(w)
    }
}

/// The expression of an inlined branch that is only `^ expr` (`[^ expr]`).
#[inline(always)]
fn return_only(n: &Node) -> Option<&Node> {
    match n {
        Node::Seq(nodes, temps) if temps.is_empty() && nodes.len() == 1 => match &nodes[0] {
            Node::Return(e) => Some(e),
            _ => None,
        },
        Node::Return(e) => Some(e),
        _ => None,
    }
}

/// Whether a double is a SmallDouble (see VM.md, Decisions).
pub fn is_small_double(f: f64) -> bool {
    if f == 0.0 {
        return true;
    }
    if !f.is_finite() {
        return false;
    }
    let exp = ((f.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    (-126..=127).contains(&exp)
}

#[inline(always)]
fn fast_special(sp: Special, r: Value, a: Value) -> Option<Value> {
    use crate::object::value::Value::Int;
    match (sp, r, a) {
        (Special::IdEq, _, _) => Some(Value::bool(r.identical(a))),
        (Special::IdNe, _, _) => Some(Value::bool(!r.identical(a))),
        (_, Int(x), Int(y)) => match sp {
            Special::Add => Value::small_int(x + y),
            Special::Sub => Value::small_int(x - y),
            Special::Mul => x.checked_mul(y).and_then(Value::small_int),
            Special::Lt => Some(Value::bool(x < y)),
            Special::Gt => Some(Value::bool(x > y)),
            Special::Le => Some(Value::bool(x <= y)),
            Special::Ge => Some(Value::bool(x >= y)),
            Special::Eq => Some(Value::bool(x == y)),
            Special::Ne => Some(Value::bool(x != y)),
            Special::IntDiv if y != 0 => Some(Int(floor_div(x, y))),
            Special::Mod if y != 0 => Some(Int(((x % y) + y) % y)),
            Special::BitAnd => Some(Int(x & y)),
            Special::BitOr => Some(Int(x | y)),
            _ => None,
        },
        (_, Value::Float(x), Value::Float(y)) => match sp {
            Special::Add => Some(Value::Float(x + y)),
            Special::Sub => Some(Value::Float(x - y)),
            Special::Mul => Some(Value::Float(x * y)),
            Special::Lt => Some(Value::bool(x < y)),
            Special::Gt => Some(Value::bool(x > y)),
            Special::Le => Some(Value::bool(x <= y)),
            Special::Ge => Some(Value::bool(x >= y)),
            Special::Eq => Some(Value::bool(x == y)),
            Special::Ne => Some(Value::bool(x != y)),
            _ => None,
        },
        _ => None,
    }
}

/// Floor division of SmallIntegers (`//`).
pub fn floor_div(x: i64, y: i64) -> i64 {
    let q = x / y;
    if x % y != 0 && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    }
}
