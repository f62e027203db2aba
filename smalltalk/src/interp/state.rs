//! A session's evaluation state: [`Vm`] and the records it keeps — the
//! activation records a stack report is read from ([`Act`]), the handler and
//! signal stacks, the roots of the session's image, the selectors the engine
//! sends itself — and how a `Vm` is made for a new image or a new login.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use super::error::Interrupter;
use super::primitive::Primitives;
use super::repository::Attached;
use super::*;
use crate::object::code::*;
use crate::object::heap::Heap;
use crate::object::known::Known;
use crate::object::value::{FxHashMap, Oop, Value};

/// The record of one running activation (a method or a block), kept on
/// `Vm::frames.acts` from entry to exit so a stack report can be made when an
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
    /// whose methods a kernel-only evaluation runs (`Vm::kernel_only`).
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
            sends: SendCaches::new(),
            frames: Activations {
                acts: Vec::with_capacity(256),
                pos: 0,
                next_id: 0,
                depth: 0,
                depth_limit: DEFAULT_DEPTH_LIMIT,
                homes: vec![],
                return_home: 0,
                spare: None,
            },
            handling: Handling::default(),
            interrupts: Interrupts {
                interrupter,
                stack_signalled: false,
                memory_signalled: false,
                signal_nesting: (0, 0),
            },
            memos: Memos {
                hashing_checked: (0, false, false, false),
                index_of_checked: [(0, Oop(0)); 10],
            },
            transcript: String::new(),
            error_numbers,
            sels: Sels::default(),
            session_id: 1,
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
        vm.sends = self.sends.clone();
        vm.frames.next_id = self.frames.next_id;
        vm.frames.depth_limit = self.frames.depth_limit;
        vm.sels = self.sels.clone();
        vm.session_id = self.session_id;
        vm
    }
}

pub const DEFAULT_DEPTH_LIMIT: usize = 10_000;
/// `keep` is pruned between evaluations once it holds this many methods.
pub(super) const KEEP_PRUNE_AT: usize = 1 << 16;
pub(super) const DEPTH_HEADROOM: usize = 1_000;
/// `activate` measures the native stack when the depth is a multiple of this.
pub(super) const NATIVE_CHECK_EVERY: usize = 8;
/// Sites the send caches' `filled` lists before a method change empties all sites instead.
pub(super) const FILLED_MAX: usize = 1 << 16;

/// A session's evaluation state, in parts. The object memory, the kernel
/// classes the engine knows, the roots, the value stack and the selectors it
/// sends itself are shared with every layer above; each other part is owned
/// by the interpreter (its fields are visible only there, or only to the file
/// that keeps it) and the layers above go through its methods.
pub struct Vm {
    /// The object memory.
    pub heap: Heap,
    /// The kernel classes the engine knows by name.
    pub k: Known,
    /// The objects the session's image is rooted in.
    pub roots: Roots,
    /// The value stack: receivers, arguments and temporaries of the running
    /// activations.
    pub stack: Vec<Value>,
    /// Frequently used selectors.
    pub sels: Sels,
    /// The send caches (`send.rs`; fields private to it).
    pub(crate) sends: SendCaches,
    /// The running activations and the limits on them.
    pub(crate) frames: Activations,
    /// The handler stack and the signals being handled (`exceptions.rs`).
    pub(crate) handling: Handling,
    /// What stops or warns an evaluation: the interrupter and the
    /// once-per-evaluation warnings already given.
    pub(crate) interrupts: Interrupts,
    /// What the collection primitives and the hashing check have learnt of
    /// the kernel's methods (owned by `prims`).
    pub(crate) memos: Memos,
    /// Where `Transcript` writes go until the session takes them.
    pub(in crate::interp) transcript: String,
    /// GemStone's error number of each exception class that has one.
    pub(in crate::interp) error_numbers: FxHashMap<Oop, u32>,
    /// The session's number (`System session`).
    pub(in crate::interp) session_id: i64,
    /// The primitives, as the image layer installed them.
    pub(crate) prims: &'static Primitives,
    /// The repository this login is attached to (its store session, OOP
    /// mapping); None for an in-memory image. Only `interp::repository` reads it.
    pub(in crate::interp) repo: Option<Attached>,
    /// Objects a client holds between evaluations (the GCI export set): roots
    /// of every collection until released (`api/objects.rs`).
    pub(in crate::interp) exports: crate::object::value::FxHashSet<Oop>,
    /// The exception that ended the last evaluation, kept as a root from the
    /// moment it went unhandled until the next evaluation starts, so a client
    /// can still send it messages (`api/objects.rs`).
    pub(in crate::interp) last_exception: Value,
    /// Method lookup passes over every class outside `roots.kernel`: a send
    /// runs the kernel's method even where a class of the repository's own
    /// (or its metaclass) defines the selector, so an evaluation on a tool's
    /// behalf runs no code a client wrote ([`Vm::set_kernel_only`]).
    pub(in crate::interp) kernel_only: bool,
    /// Whether `System commitTransaction` may commit (false: it signals a
    /// TransactionError saying which path commits instead).
    pub(in crate::interp) may_commit: bool,
}

/// The running activations: their records, where the innermost one is, how
/// deep they go and may go, and how `^` finds its home.
pub(crate) struct Activations {
    /// The running activations, outermost first (see [`Act`]).
    pub(in crate::interp) acts: Vec<Act>,
    /// Source offset of the send in progress in the innermost activation.
    pub(in crate::interp) pos: u32,
    /// The last activation id given out.
    pub(in crate::interp) next_id: u64,
    /// How many activations are running.
    pub(in crate::interp) depth: usize,
    /// The most that may run (AlmostOutOfStack past it).
    pub(in crate::interp) depth_limit: usize,
    /// The ids of the activations a `^` may return to, innermost last.
    pub(in crate::interp) homes: Vec<u64>,
    /// The activation an `Unwinding::Return` in flight returns from.
    pub(in crate::interp) return_home: u64,
    /// A box for the next `^` unwind (reused: returns need no allocation).
    pub(in crate::interp) spare: Option<Box<Unwinding>>,
}

/// The ANSI handler stack and the signals whose handlers are running.
#[derive(Default)]
pub(crate) struct Handling {
    /// The handlers `on:do:` installed, innermost last.
    pub(in crate::interp) handlers: Vec<Handler>,
    /// The signals being handled, innermost last.
    pub(in crate::interp) signals: Vec<SignalRec>,
}

/// What stops an evaluation from outside (the interrupter), and the warnings
/// an evaluation gets once (AlmostOutOfStack, AlmostOutOfMemory).
pub(crate) struct Interrupts {
    /// Breaks from another thread.
    pub(in crate::interp) interrupter: Interrupter,
    /// AlmostOutOfStack was signalled in this evaluation.
    pub(in crate::interp) stack_signalled: bool,
    /// AlmostOutOfMemory was signalled in this evaluation.
    pub(in crate::interp) memory_signalled: bool,
    /// The activation depth of the innermost signal in progress, and how
    /// many signals are in progress one inside the other at that depth.
    pub(in crate::interp) signal_nesting: (usize, u32),
}

/// What the primitives have learnt of the kernel's methods, each with the
/// send caches' epoch it was learnt at (a method change invalidates them).
#[derive(Clone, Copy)]
pub(crate) struct Memos {
    /// `(epoch + 1, SmallInteger>>hash is the kernel's, Association>>key and
    /// Association>>value: are the kernel's)` as last worked out by
    /// `kernel_hashing` (epoch 0: never).
    pub(crate) hashing_checked: (u64, bool, bool, bool),
    /// The last class found to answer `_indexOf:` with primitive 240 (index 0)
    /// / 241 (index 1), with `epoch + 1` of that check (0: none yet); the
    /// other entries are the same kind of memo for other collection
    /// primitives (`prims/collection/mod.rs`, `MEMO_*`).
    pub(crate) index_of_checked: [(u64, Oop); 10],
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
    /// A new activation id.
    pub fn fresh_id(&mut self) -> u64 {
        self.frames.next_id += 1;
        self.frames.next_id
    }

    /// Clears per-evaluation state (stack, handlers, limits).
    pub fn reset_transient(&mut self) {
        self.stack.clear();
        self.handling.handlers.clear();
        self.handling.signals.clear();
        self.frames.homes.clear();
        self.frames.depth = 0;
        self.interrupts.stack_signalled = false;
        self.interrupts.memory_signalled = false;
        self.interrupts.signal_nesting = (0, 0);
    }

    /// How many activations may run before AlmostOutOfStack (at least 10).
    pub fn set_depth_limit(&mut self, frames: usize) {
        self.frames.depth_limit = frames.max(10);
    }

    /// Takes what `Transcript` was sent since the last take.
    pub fn take_transcript(&mut self) -> String {
        std::mem::take(&mut self.transcript)
    }

    /// Appends to what `Transcript` was sent.
    pub fn transcript_write(&mut self, text: &str) {
        self.transcript.push_str(text);
    }

    /// What `Transcript` was sent since the last take.
    pub fn transcript(&self) -> &str {
        &self.transcript
    }

    /// The session's number (`System session`).
    pub fn session_id(&self) -> i64 {
        self.session_id
    }

    /// Sets the session's number (at login: the store session's).
    pub fn set_session_id(&mut self, id: i64) {
        self.session_id = id;
    }

    /// The exception class GemStone signals with error number `n` (Error
    /// for a number no class has).
    pub fn class_for_error_number(&self, n: u32) -> Oop {
        self.error_numbers
            .iter()
            .find(|(_, &v)| v == n)
            .map(|(&k, _)| k)
            .unwrap_or(self.k.error)
    }

    /// Whether `System commitTransaction` may commit.
    pub fn may_commit(&self) -> bool {
        self.may_commit
    }

    /// Lets `System commitTransaction` commit, or not.
    pub fn set_may_commit(&mut self, yes: bool) {
        self.may_commit = yes;
    }

    /// Keeps `o` alive until released (the GCI export set).
    pub fn export(&mut self, o: Oop) {
        self.exports.insert(o);
    }

    /// Takes `o` out of the export set.
    pub fn release_export(&mut self, o: Oop) {
        self.exports.remove(&o);
    }

    /// Empties the export set.
    pub fn release_all_exports(&mut self) {
        self.exports.clear();
    }

    /// The exception that ended the last evaluation (nil when none).
    pub fn last_exception(&self) -> Value {
        self.last_exception
    }

    /// Sets or clears the exception kept for the client.
    pub fn set_last_exception(&mut self, ex: Value) {
        self.last_exception = ex;
    }
}
