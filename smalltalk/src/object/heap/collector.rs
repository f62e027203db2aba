//! The collector: marking from the roots the interpreter gives (and every
//! symbol, the remembered set for a minor collection), and sweeping the object
//! table — all of it (major), the young objects (minor), or without reuse
//! (stress mode).

use super::*;
use crate::object::code::Method;
use crate::object::value::{Oop, Value};

impl Heap {
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

/// How many slots ahead of the one it frees the sweep fetches a body.
const SWEEP_AHEAD: usize = 8;

/// Asks the processor to fetch the cache line at `p` (a hint: no effect on
/// what the program computes, whatever `p` is).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
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
