//! WriteStream's fast paths on Strings and Arrays: `nextPut:`,
//! `nextPutAll:`, and growing the collection it writes into.
// the primitive dispatchers and their arms are `extern "C-unwind"` so that
// they answer in two registers (see `interp/mod.rs`); their types never leave Rust
#![allow(improper_ctypes_definitions)]

use super::*;
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::{barrier_free, Body, Object, F_INVARIANT};
use crate::object::value::{Oop, Value};

impl Vm {
    /// The bytes of a String or Symbol of exact class.
    #[inline(always)]
    fn plain_bytes(&self, v: Value) -> Option<&[u8]> {
        let Value::Obj(o) = v else { return None };
        let obj = self.heap.try_get(o)?;
        if obj.class != self.k.string && obj.class != self.k.symbol {
            return None;
        }
        match &obj.body {
            Body::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// A WriteStream's collection (a String or Array of exact class), position,
    /// read limit and write limit, when the stream and collection may be written.
    #[inline(always)]
    fn stream_parts(&self, o: Oop) -> Option<(Oop, i64, i64, i64)> {
        let stream = self.heap.try_get(o)?;
        let Body::Ptr(s) = &stream.body else {
            return None;
        };
        let (Value::Obj(c), Value::Int(pos), Value::Int(read), Value::Int(write)) = (
            *s.get(WS_COLLECTION)?,
            *s.get(WS_POSITION)?,
            *s.get(WS_READ_LIMIT)?,
            *s.get(WS_WRITE_LIMIT)?,
        ) else {
            return None;
        };
        let flags = stream.flags;
        let coll = self.heap.try_get(c)?;
        if (coll.class != self.k.string && coll.class != self.k.array)
            || pos < 0
            || (flags | coll.flags) & F_INVARIANT != 0
        {
            return None;
        }
        Some((c, pos, read, write))
    }

    /// Sets position (and the read limit when passed) after writing up to
    /// `end`, through one pass of the write barrier.
    #[inline(always)]
    fn stream_advance(&mut self, o: Oop, end: i64, read: i64) -> Option<()> {
        let Body::Ptr(s) = &mut self.heap.write(o)?.body else {
            return None;
        };
        if s.len() <= WS_READ_LIMIT {
            return None;
        }
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        Some(())
    }

    /// `WriteStream>>nextPut:` while the collection has room.
    ///
    /// Into a stream and collection the barrier has nothing to do for, below
    /// the write limit, here; anything else in `stream_next_put_barrier`
    /// (answering as `oc_add_last` explains).
    #[inline(never)]
    pub(super) extern "C-unwind" fn stream_next_put(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        let Some((s, c)) = self.stream_plain(o) else {
            return self.stream_next_put_barrier_prim(o, v);
        };
        let (Value::Int(pos), Value::Int(read), Value::Int(write)) =
            (s[WS_POSITION], s[WS_READ_LIMIT], s[WS_WRITE_LIMIT])
        else {
            return Ok(None);
        };
        if pos < 0 || pos >= write {
            return self.stream_next_put_barrier_prim(o, v);
        }
        let at = pos as usize;
        match (&mut c.body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(e), _) if at < e.len() => e[at] = v,
            _ => return Ok(None),
        }
        s[WS_POSITION] = Value::Int(pos + 1);
        if pos + 1 > read {
            s[WS_READ_LIMIT] = Value::Int(pos + 1);
        }
        Ok(Some(v))
    }

    #[inline(never)]
    extern "C-unwind" fn stream_next_put_barrier_prim(&mut self, o: Oop, v: Value) -> P {
        Ok(self.stream_next_put_barrier(o, v))
    }

    /// A WriteStream's named slots and its collection (a String or Array of
    /// exact class), both mutable, when the barrier has nothing to do for
    /// either (one table lookup each).
    #[inline(always)]
    fn stream_plain(&mut self, o: Oop) -> Option<(&mut [Value], &mut Object)> {
        let Body::Ptr(s) = &self.heap.try_get(o)?.body else {
            return None;
        };
        let Some(&Value::Obj(c)) = s.get(WS_COLLECTION) else {
            return None;
        };
        let (string, array) = (self.k.string, self.k.array);
        let (stream, coll) = self.heap.plain_pair_mut(o, c)?;
        if coll.class != string && coll.class != array {
            return None;
        }
        match &mut stream.body {
            Body::Ptr(s) if s.len() > WS_WRITE_LIMIT => Some((s, coll)),
            _ => None,
        }
    }

    #[inline(never)]
    fn stream_next_put_barrier(&mut self, o: Oop, v: Value) -> Option<Value> {
        let (c, pos, read, write) = self.stream_parts(o)?;
        if pos >= write {
            return self.stream_next_put_grow(o, v, pos, read);
        }
        let at = pos as usize;
        match (&mut self.heap.write(c)?.body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(s), _) if at < s.len() => s[at] = v,
            _ => return None,
        }
        self.stream_advance(o, pos + 1, read)?;
        Some(v)
    }

    /// `nextPut:` at the write limit: `self _grow` once, then the store.
    #[cold]
    #[inline(never)]
    fn stream_next_put_grow(&mut self, o: Oop, v: Value, pos: i64, read: i64) -> Option<Value> {
        let (mut body, size) = self.stream_grown(o, pos + 1, true)?;
        let at = pos as usize;
        match (&mut body, v) {
            (Body::Bytes(b), Value::Char(ch)) if ch < 256 && at < b.len() => b[at] = ch as u8,
            (Body::Ptr(s), _) if at < s.len() => s[at] = v,
            _ => return None,
        }
        self.stream_replace(o, body, size, pos + 1, read)?;
        Some(v)
    }

    /// The collection the kernel's `_grow` (primitive 408; one step when
    /// `once`, else as many as `[end > writeLimit] whileTrue: [self _grow]`
    /// takes) would put in the stream `o`, and its size, when `end` elements
    /// fit in it; None when the class's `_grow` is not the kernel's or the
    /// body would do anything else.
    fn stream_grown(&mut self, o: Oop, end: i64, once: bool) -> Option<(Body, i64)> {
        let class = self.heap.get(o).class;
        if !self.memo_holds(MEMO_STREAM_GROW, class) {
            let sel = self.intern("_grow");
            if self.lookup_primitive(class, sel)? != STREAM_GROW {
                return None;
            }
            self.memo_set(MEMO_STREAM_GROW, class);
        }
        let Value::Obj(c) = self.ptr_slots(o)?.get(WS_COLLECTION).copied()? else {
            return None;
        };
        let coll = self.heap.get(c);
        let len = match &coll.body {
            Body::Bytes(b) if coll.class == self.k.string => b.len(),
            Body::Ptr(s) if coll.class == self.k.array => s.len(),
            _ => return None,
        } as i64;
        // `collection size * 2 max: 16`, until the end fits
        let mut size = len;
        loop {
            size = (size * 2).max(16);
            if size >= end || once || size > GROW_MAX {
                break;
            }
        }
        if size < end || size > GROW_MAX || !self.can_allocate(size as usize * 16) {
            return None;
        }
        // `String new:` fills with spaces, `Array new:` with nil
        let body = match &self.heap.get(c).body {
            Body::Bytes(b) => {
                let mut grown = Vec::with_capacity(size as usize);
                grown.extend_from_slice(b);
                grown.resize(size as usize, b' ');
                Body::Bytes(grown)
            }
            Body::Ptr(s) => {
                let mut grown = Vec::with_capacity(size as usize);
                grown.extend_from_slice(s);
                grown.resize(size as usize, Value::Nil);
                Body::Ptr(grown)
            }
            _ => return None,
        };
        Some((body, size))
    }

    /// Puts a grown collection (`body` of `size` elements, the class of the
    /// old one) in the stream with the write limit at its size, position at
    /// `end` and the read limit at least there, in one write-barrier pass.
    fn stream_replace(&mut self, o: Oop, body: Body, size: i64, end: i64, read: i64) -> Option<()> {
        let Value::Obj(old) = self.ptr_slots(o)?.get(WS_COLLECTION).copied()? else {
            return None;
        };
        let class = self.heap.get(old).class;
        if self.heap.refuses(o) || self.heap.is_invariant(o) {
            // the store below fails the same way; nothing is allocated first
            self.heap.write(o)?;
        }
        let c = Value::Obj(self.heap.alloc(class, body));
        let Body::Ptr(s) = &mut self.heap.write(o)?.body else {
            return None;
        };
        if s.len() <= WS_WRITE_LIMIT {
            return None;
        }
        s[WS_COLLECTION] = c;
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        s[WS_WRITE_LIMIT] = Value::Int(size);
        Some(())
    }

    /// `WriteStream>>_grow` on its own (primitive 408).
    pub(super) fn stream_grow_prim(&mut self, o: Oop) -> Option<Value> {
        let s = self.ptr_slots(o)?;
        let (Value::Int(pos), Value::Int(read)) = (*s.get(WS_POSITION)?, *s.get(WS_READ_LIMIT)?)
        else {
            return None;
        };
        // one step: any end up to the collection's size fits; position and
        // read limit stay as they are
        let (body, size) = self.stream_grown(o, 0, true)?;
        self.stream_replace(o, body, size, pos, pos.max(read))?;
        Some(Value::Obj(o))
    }

    /// `WriteStream>>nextPutAll:` of a byte String into a String, while it fits.
    #[inline(never)]
    pub(super) extern "C-unwind" fn stream_next_put_all(&mut self, o: Oop, rp: usize) -> P {
        self.stream_next_put_all_in(o, rp)
    }

    /// `nextPutAll:` of a String or Symbol (of exact class) into a String
    /// below the write limit, when the barrier has nothing to do for the
    /// stream and its String: the bytes are copied straight from the
    /// argument. Anything else goes to `stream_next_put_all_barrier`.
    ///
    /// The argument is matched where it lies on the value stack and copied
    /// whole only for the answer, at the end: copied out whole first, it was
    /// read back before the two stores that had just pushed it landed.
    #[inline(always)]
    fn stream_next_put_all_in(&mut self, o: Oop, rp: usize) -> P {
        let Value::Obj(arg) = self.stack[rp + 1] else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let stream = self.heap.get(o);
        let Body::Ptr(s) = &stream.body else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        if !barrier_free(stream.flags) {
            return self.stream_next_put_all_barrier_prim(o, rp);
        }
        let (Some(&Value::Obj(c)), Some(&Value::Int(pos)), Some(&Value::Int(read))) = (
            s.get(WS_COLLECTION),
            s.get(WS_POSITION),
            s.get(WS_READ_LIMIT),
        ) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let Some(&Value::Int(write)) = s.get(WS_WRITE_LIMIT) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let (string, symbol) = (self.k.string, self.k.symbol);
        // the argument is read where it lies; the same String as the
        // collection takes the other path (which copies it first)
        let Some((coll, from)) = self.heap.plain_mut_and_get(c, arg) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let (Body::Bytes(b), Body::Bytes(src)) = (&mut coll.body, &from.body) else {
            return self.stream_next_put_all_barrier_prim(o, rp);
        };
        let end = pos + src.len() as i64;
        if coll.class != string
            || (from.class != string && from.class != symbol)
            || pos < 0
            || end > write
            || end as usize > b.len()
        {
            return self.stream_next_put_all_barrier_prim(o, rp);
        }
        copy_bytes(&mut b[pos as usize..end as usize], src);
        // the stream: a plain object with these slots, as checked above
        let Some(s) = self.heap.plain_slots_mut(o) else {
            return Ok(None);
        };
        s[WS_POSITION] = Value::Int(end);
        if end > read {
            s[WS_READ_LIMIT] = Value::Int(end);
        }
        Ok(Some(self.stack[rp + 1]))
    }

    #[inline(never)]
    extern "C-unwind" fn stream_next_put_all_barrier_prim(&mut self, o: Oop, rp: usize) -> P {
        let v = self.stack[rp + 1];
        Ok(self.stream_next_put_all_barrier(o, v))
    }

    #[inline(never)]
    fn stream_next_put_all_barrier(&mut self, o: Oop, v: Value) -> Option<Value> {
        let (c, pos, read, write) = self.stream_parts(o)?;
        // copied out first (the argument may be the collection itself); short
        // strings, the common case, on the Rust stack
        let mut short = [0u8; 32];
        let mut long = Vec::new();
        let src: &[u8] = {
            let bytes = self.plain_bytes(v)?;
            if pos + bytes.len() as i64 > write {
                return self.stream_next_put_all_grow(o, v, pos, read);
            }
            if bytes.len() <= short.len() {
                let part = &mut short[..bytes.len()];
                part.copy_from_slice(bytes);
                part
            } else {
                long.extend_from_slice(bytes);
                &long
            }
        };
        let end = pos as usize + src.len();
        match &mut self.heap.write(c)?.body {
            Body::Bytes(b) if end <= b.len() => b[pos as usize..end].copy_from_slice(src),
            _ => return None,
        }
        self.stream_advance(o, end as i64, read)?;
        Some(v)
    }

    /// `nextPutAll:` past the write limit: `[end > writeLimit] whileTrue:
    /// [self _grow]`, then the copy.
    #[cold]
    #[inline(never)]
    fn stream_next_put_all_grow(&mut self, o: Oop, v: Value, pos: i64, read: i64) -> Option<Value> {
        let n = self.plain_bytes(v)?.len();
        let end = pos + n as i64;
        let (mut body, size) = self.stream_grown(o, end, false)?;
        let Body::Bytes(b) = &mut body else {
            return None;
        };
        let (from, to) = (pos as usize, end as usize);
        if to > b.len() {
            return None;
        }
        b[from..to].copy_from_slice(self.plain_bytes(v)?);
        self.stream_replace(o, body, size, end, read)?;
        Some(v)
    }
}
