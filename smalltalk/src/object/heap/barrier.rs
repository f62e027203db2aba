//! The write barrier: every mutable path into an object. A store into an
//! invariant object is refused, one into a persistent object records it in the
//! write set (or is refused for a guarded session), one into an old object not
//! yet remembered records it for the next minor collection; the barrier-free
//! accessors hand out only objects for which none of that applies
//! ([`barrier_free`]).

use super::*;
use crate::object::value::{Oop, Value};

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

impl Heap {
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

    /// Changes flag bits without the write barrier (the repository layer's
    /// bookkeeping: marking objects persistent, clearing F_DIRTY after a commit).
    pub(crate) fn set_flags_quiet(&mut self, oop: Oop, set: u8, clear: u8) {
        if let Some(Some(o)) = self.objects.get_mut(oop.idx()) {
            o.flags = (o.flags & !clear) | set;
        }
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
