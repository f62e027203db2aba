//! Allocation: placing a new body in the object table (reusing freed slots
//! outside stress mode), the pool of freed closure boxes new blocks reuse, the
//! memory budget and when the next collection is due.

use std::sync::Arc;

use super::*;
use crate::object::code::{BlockCode, Method};
use crate::object::value::{Oop, Value};

impl Heap {
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
    pub(super) fn reset_trigger(&mut self) {
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
}

/// The most freed closure boxes kept for reuse (about 64 bytes each): about
/// as many objects as a collection during an evaluation frees (~78 000 per
/// `GC_EVERY` in the benchmarks).
pub(super) const CLOSURE_POOL: usize = 1 << 16;
