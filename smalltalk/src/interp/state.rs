//! A session's evaluation state: [`Vm`] and the records it keeps — the
//! activation records a stack report is read from ([`Act`]), the handler and
//! signal stacks, the roots of the session's image, the selectors the engine
//! sends itself — and how a `Vm` is made for a new image or a new login.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use std::sync::Arc;

use super::error::Interrupter;
use super::primitive::Primitives;
use super::repository::Attached;
use super::*;
use crate::object::code::*;
use crate::object::heap::Heap;
use crate::object::known::Known;
use crate::object::value::{FxHashMap, Oop, Value};

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
pub(super) const KEEP_PRUNE_AT: usize = 1 << 16;
pub(super) const DEPTH_HEADROOM: usize = 1_000;
/// `activate` measures the native stack when the depth is a multiple of this.
pub(super) const NATIVE_CHECK_EVERY: usize = 8;
/// Sites `Vm::filled` lists before a method change empties all sites instead.
pub(super) const FILLED_MAX: usize = 1 << 16;

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
    /// primitives (`prims/collection/mod.rs`, `MEMO_*`).
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
}
