//! The session's side of the object-memory collector: the roots a collection
//! starts from (`Vm::gc_roots`), the collection between evaluations
//! (`Vm::collect_garbage`) and during one (`Vm::collect_during_evaluation`,
//! which reads the native stack through `stack_roots`), and the allocation
//! check against the memory budget (`Vm::can_allocate`).

use super::Vm;
use crate::object::value::{Oop, Value};

impl Vm {
    /// Everything the collector must keep.
    pub fn gc_roots(&self) -> Vec<Value> {
        let r = &self.roots;
        let mut v: Vec<Value> = vec![
            r.globals,
            r.user_globals,
            r.published,
            r.symbol_list,
            r.user_profile,
            r.session_temps,
            r.transcript,
        ]
        .into_iter()
        .map(Value::Obj)
        .collect();
        v.extend(r.all_classes.iter().map(|&c| Value::Obj(c)));
        v.extend(self.exports.iter().map(|&o| Value::Obj(o)));
        v.push(self.last_exception);
        v.extend(self.stack.iter().copied());
        v
    }

    /// Runs the collector during an evaluation, at a safe point (the interrupt
    /// check): the roots are those of [`Vm::gc_roots`], the per-evaluation
    /// state (handlers, signals, the methods of running activations and of the
    /// send caches, closures of simple blocks) and every word of the
    /// evaluation's native stack that names an object. Caches are left as they
    /// are: activations run methods through borrowed pointers. Answers false
    /// (nothing done) when this thread's native stack cannot be scanned.
    #[inline(never)]
    pub fn collect_during_evaluation(&mut self) -> bool {
        let bound = self.heap.table_len();
        let mut oops: Vec<Oop> = Vec::with_capacity(1024);
        let scanned = crate::object::stack_roots::scan(&mut |w| {
            if w < bound {
                oops.push(Oop(w as u64));
            }
        });
        if !scanned {
            return false;
        }
        let mut roots = self.gc_roots();
        for h in &self.handling.handlers {
            roots.push(h.selector);
            roots.push(h.block);
        }
        roots.extend(self.handling.signals.iter().map(|s| s.exception));
        self.sends.roots(&mut roots, &mut oops);
        for a in &self.frames.acts {
            if !a.method.is_null() {
                // SAFETY: an activation record's method is alive while the
                // record is on `acts` (see `Act`).
                crate::object::heap::method_refs(unsafe { &*a.method }, &mut oops);
            }
        }
        self.heap.collect_from(&roots, oops, true);
        true
    }

    /// Whether `extra` more bytes fit in the budget, collecting first (if this
    /// thread's stack can be scanned) when they do not: the bytes counted since
    /// the last collection include garbage. Only for primitives, which run
    /// inside a send: the rule that makes a safe point safe holds there.
    pub fn can_allocate(&mut self, extra: usize) -> bool {
        if self.heap.can_allocate(extra) {
            return true;
        }
        // all garbage counts here, the old generation's too
        self.heap.request_major();
        self.collect_during_evaluation() && self.heap.can_allocate(extra)
    }

    /// Runs the collector (only between evaluations).
    pub fn collect_garbage(&mut self) -> usize {
        let roots = self.gc_roots();
        // caches may hold methods whose objects are about to go; no activation
        // is running here, so the methods kept alive for borrowed sends can go
        // with the caches that referred to them
        self.sends.empty_for_collection();
        self.methods_changed();
        self.heap.collect(&roots)
    }
}
