//! Sending: method lookup, the per-site inline caches and the (class,
//! selector) cache behind them, their invalidation when methods change, and
//! the send itself, `doesNotUnderstand:` included.
// the functions of the send and evaluation path are `extern "C-unwind"` so
// that they answer in two registers (see `interp/mod.rs`); their types never
// leave Rust
#![allow(improper_ctypes_definitions)]

use std::sync::Arc;

use super::*;
use crate::object::code::*;
use crate::object::heap::Body;
use crate::object::value::{FxHashMap, Oop, Value};

/// One send site's inline cache. An entry is valid while its class and
/// selector match: `methods_changed` empties every entry filled since the
/// last change (the send caches' `filled`), so a hit compares no epoch.
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

/// The send caches, a part of the [`Vm`] whose fields only this module
/// touches: one inline cache per send site, the (class, selector) cache
/// behind them, the methods kept alive for sends in progress, and the epoch
/// that moves at every method change.
#[derive(Clone)]
pub(crate) struct SendCaches {
    /// One inline cache per send site, indexed by the site number the
    /// compiler gave it.
    sites: Vec<Cache>,
    /// The send sites filled since the last method change (at most
    /// `FILLED_MAX`; past it a change empties every site), emptied by
    /// `methods_changed`.
    filled: Vec<u32>,
    /// Moves at every method change (memos of kernel methods compare it).
    epoch: u64,
    /// (class, selector) -> the method lookup found (None: not understood).
    global: FxHashMap<(Oop, Oop), Option<Arc<Method>>>,
    /// Every method `lookup` has found since the last collection. Sends run a
    /// cached method through a borrowed pointer (no reference-count traffic),
    /// so a method must stay allocated while it may be executing even if its
    /// cache entry is replaced or its class drops it; this list owns them until
    /// the next safe point (`collect_garbage`, between evaluations), which
    /// empties the caches and this list together.
    keep: Vec<Arc<Method>>,
    /// Send sites below this index belong to installed code; doit sites above
    /// it are reused.
    pinned: usize,
}

impl SendCaches {
    /// No sites, nothing cached.
    pub(crate) fn new() -> SendCaches {
        SendCaches {
            sites: vec![],
            filled: vec![],
            epoch: 1,
            global: FxHashMap::default(),
            keep: Vec::new(),
            pinned: 0,
        }
    }

    /// Moves at every method change: a memo of what a class's methods are
    /// holds while it was taken at the same epoch.
    #[inline(always)]
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Where the sites a doit is about to make begin.
    pub(crate) fn site_mark(&self) -> usize {
        self.sites.len()
    }

    /// Frees the sites a finished doit made since `mark` for the next doit
    /// (closures that outlive it stay correct: a cache entry also checks its
    /// selector); sites of installed code stay.
    pub(crate) fn release_doit_sites(&mut self, mark: usize) {
        let keep = mark.max(self.pinned);
        self.sites.truncate(keep);
    }

    /// Keeps `m` alive while it runs without a cache holding it (a doit).
    pub(crate) fn keep_running(&mut self, m: &Arc<Method>) {
        self.keep.push(m.clone());
    }

    /// Ends [`SendCaches::keep_running`] for `m`.
    pub(crate) fn release_running(&mut self, m: &Arc<Method>) {
        if let Some(i) = self.keep.iter().rposition(|k| Arc::ptr_eq(k, m)) {
            self.keep.swap_remove(i);
        }
    }

    /// The cache of send site `site`.
    #[inline(always)]
    pub(in crate::interp) fn site(&self, site: u32) -> Option<&Cache> {
        self.sites.get(site as usize)
    }

    /// The cache of send site `site`, to fill.
    #[inline(always)]
    pub(in crate::interp) fn site_mut(&mut self, site: u32) -> Option<&mut Cache> {
        self.sites.get_mut(site as usize)
    }

    /// What the caches keep alive, for the collector: the closures of simple
    /// blocks, and the objects the kept methods name.
    pub(in crate::interp) fn roots(&self, values: &mut Vec<Value>, oops: &mut Vec<Oop>) {
        values.extend(self.sites.iter().map(|c| c.block));
        for m in &self.keep {
            crate::object::heap::method_refs(m, oops);
        }
    }

    /// Empties every entry and the kept methods before a collection between
    /// evaluations (the caches may hold methods whose objects are about to
    /// go, and no activation is running).
    pub(in crate::interp) fn empty_for_collection(&mut self) {
        for c in &mut self.sites {
            c.class = NO_CLASS;
            c.method = None;
            c.method2 = None;
            c.class2 = NO_CLASS;
            c.block = Value::Nil;
        }
        self.keep.clear();
    }
}

impl Vm {
    /// The primitive number (0: none) of the method `class` answers `sel`
    /// with, `None` when it does not understand it. A global-cache hit reads
    /// the entry in place (no reference-count traffic); a miss is `lookup`.
    #[inline]
    pub fn lookup_primitive(&mut self, class: Oop, sel: Oop) -> Option<u16> {
        if let Some(m) = self.sends.global.get(&(class, sel)) {
            return m.as_ref().map(|m| m.primitive);
        }
        self.lookup(class, sel).map(|m| m.primitive)
    }

    pub fn lookup(&mut self, class: Oop, sel: Oop) -> Option<Arc<Method>> {
        if let Some(m) = self.sends.global.get(&(class, sel)) {
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
            self.sends.keep.push(m.clone());
        }
        self.sends.global.insert((class, sel), found.clone());
        found
    }

    /// Drops the methods `keep` holds that no cache refers to any more. Only
    /// at a safe point (no activation running): between evaluations.
    pub fn prune_keep(&mut self) {
        if self.sends.keep.len() < KEEP_PRUNE_AT {
            return;
        }
        let mut seen: FxHashMap<usize, Arc<Method>> = FxHashMap::default();
        let cached = self
            .sends
            .sites
            .iter()
            .flat_map(|c| c.method.iter().chain(c.method2.iter()));
        for m in cached.chain(self.sends.global.values().flatten()) {
            seen.entry(Arc::as_ptr(m) as usize)
                .or_insert_with(|| m.clone());
        }
        self.sends.keep = seen.into_values().collect();
    }

    /// Invalidates every send cache (a method or class changed).
    pub fn methods_changed(&mut self) {
        // send sites of installed methods must stay: later doits may not reuse them
        self.sends.pinned = self.sends.sites.len();
        self.sends.epoch += 1;
        self.sends.global.clear();
        self.empty_sites();
    }

    /// Runs sends on the kernel's methods only (`yes`), or on every class's
    /// again. Between evaluations only: the caches are emptied as after a
    /// method change, without pinning the sites of finished doits.
    pub fn set_kernel_only(&mut self, yes: bool) {
        if self.kernel_only != yes {
            self.kernel_only = yes;
            self.sends.epoch += 1;
            self.sends.global.clear();
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
        if self.sends.filled.len() >= FILLED_MAX {
            self.sends.sites.iter_mut().for_each(empty);
        } else {
            for &s in &self.sends.filled {
                if let Some(c) = self.sends.sites.get_mut(s as usize) {
                    empty(c);
                }
            }
        }
        self.sends.filled.clear();
    }

    pub fn new_site(&mut self) -> u32 {
        self.sends.sites.push(Cache {
            class: NO_CLASS,
            selector: Oop(u64::MAX),
            method: None,
            class2: NO_CLASS,
            method2: None,
            block: Value::Nil,
            getter: 0,
        });
        (self.sends.sites.len() - 1) as u32
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
            Some(s) if (s as usize) < self.sends.sites.len() => {
                let c = &self.sends.sites[s as usize];
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
        // `self.sends.keep`, which is only emptied at safe points (no activation is
        // running); so the allocation outlives this activation. The
        // `ManuallyDrop` borrows that reference without changing its count.
        let m = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(mp) });
        self.invoke(&m, rp)
    }

    /// `send` from a send node of the tree: a cache site, no `super`. Inlined
    /// into `eval_send` together with `invoke`, so a cache hit on a
    /// primitive or frameless method makes no further call.
    #[inline(always)]
    pub(super) fn send_at_site(&mut self, sel: Oop, rp: usize, site: u32) -> R {
        let class = self.class_of(self.stack[rp]);
        let mp: *const Method = match self.sends.sites.get(site as usize) {
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
        // also stored in `self.sends.keep`, emptied only at safe points.
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
        let old = &mut self.sends.sites[s as usize];
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
        if !listed && self.sends.filled.len() < FILLED_MAX {
            self.sends.filled.push(s);
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
        // `a UndefinedObject does not understand  #'foo'`: GemStone writes
        // `a` before every class name here
        let cname = self.class_name(self.class_of(recv));
        let details = format!(
            "a {cname} does not understand  #'{}'",
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
}
