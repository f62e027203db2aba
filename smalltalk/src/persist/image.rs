//! Moving objects between the heap and the repository: the mapping of heap
//! OOPs to repository OOPs ([`OopMap`]), materialising stored records as heap
//! objects ([`Loader`]: login, refresh after abort/continue/commit, faulting in
//! an object first referenced by a refreshed one, reading a method's record
//! when the method is first used) and encoding the write set of
//! a commit ([`collect_writes`]: dirty persistent objects plus every temporary
//! object newly reachable from them). It must not decide transaction policy;
//! `mod.rs` does.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use gsmcp_store::StoreSession;

use super::codec::{big_from_bytes, big_to_bytes, Record, SBody, SClass, SVal};
use super::PersistError;
use crate::compiler::Compiler;
use crate::interp::Vm;
use crate::object::code::Method;
use crate::object::heap::{
    Body, ClassData, Format, StoredMethods, SymDict, F_DIRTY, F_INVARIANT, F_PERSISTENT,
};
use crate::object::value::{FxHashMap, Oop, Value};

/// Heap OOP ↔ repository OOP. An entry is valid only while its heap object
/// carries F_PERSISTENT: a slot freed by the collector and reused by `alloc`
/// starts without it, so stale entries are never believed.
#[derive(Default)]
pub struct OopMap {
    to_store: FxHashMap<Oop, u64>,
    to_heap: FxHashMap<u64, Oop>,
    /// Symbols are never collected, and two repository OOPs may hold the same
    /// symbol (created by two sessions at once): both map to the one interned object.
    symbols: FxHashMap<u64, Oop>,
}

impl OopMap {
    pub fn store_of(&self, vm: &Vm, o: Oop) -> Option<u64> {
        let obj = vm.heap.try_get(o)?;
        if obj.flags & F_PERSISTENT == 0 {
            return None;
        }
        self.to_store.get(&o).copied()
    }

    pub fn heap_of(&self, vm: &Vm, s: u64) -> Option<Oop> {
        if let Some(&o) = self.to_heap.get(&s) {
            if self.store_of(vm, o) == Some(s) {
                return Some(o);
            }
        }
        self.symbols.get(&s).copied()
    }

    /// Makes room for `n` more objects (a login knows how many it will bind).
    pub fn reserve(&mut self, n: usize) {
        self.to_store.reserve(n);
        self.to_heap.reserve(n);
    }

    pub fn bind(&mut self, vm: &mut Vm, o: Oop, s: u64) {
        self.to_store.insert(o, s);
        self.to_heap.insert(s, o);
        vm.heap.set_flags_quiet(o, F_PERSISTENT, 0);
    }

    /// Repository OOP `s` was collected (it was garbage at a collection's
    /// mark): the heap object this session holds for it, if any, becomes a
    /// temporary object, so a commit that refers to it stores it afresh.
    pub fn forget(&mut self, vm: &mut Vm, s: u64) {
        for o in [self.to_heap.remove(&s), self.symbols.remove(&s)]
            .into_iter()
            .flatten()
        {
            if self.store_of(vm, o) == Some(s) {
                self.to_store.remove(&o);
                vm.heap.set_flags_quiet(o, 0, F_PERSISTENT);
            }
        }
    }

    fn bind_symbol(&mut self, vm: &mut Vm, o: Oop, s: u64) {
        self.symbols.insert(s, o);
        if self.store_of(vm, o).is_none() {
            self.bind(vm, o, s);
        }
    }
}

pub fn format_code(f: Format) -> u8 {
    match f {
        Format::Ptr => 0,
        Format::IdxPtr => 1,
        Format::Bytes => 2,
        Format::Dbyte => 3,
        Format::Qbyte => 4,
        Format::Dict => 5,
        Format::Special => 6,
    }
}

fn format_of(c: u8) -> Result<Format, PersistError> {
    Ok(match c {
        0 => Format::Ptr,
        1 => Format::IdxPtr,
        2 => Format::Bytes,
        3 => Format::Dbyte,
        4 => Format::Qbyte,
        5 => Format::Dict,
        6 => Format::Special,
        _ => return Err(PersistError::Corrupt(format!("unknown class format {c}"))),
    })
}

/// A stored method whose code is compiled later: when the loader finishes
/// (refresh) or on first use (login, see `Vm::ensure_method`). A method a
/// class's method dictionary names at login is not even read then: its record
/// is read on first use, at the session's view (`Loader::read_code`).
pub struct PendingMethod {
    oop: Oop,
    /// Its repository OOP, so a heap slot reused after a collection is never compiled.
    store: u64,
    class: Oop,
    selector: Oop,
    /// Category and source; `None` until the record is read.
    code: Option<(Value, String)>,
}

impl PendingMethod {
    /// Method object `oop`, bound to repository OOP `store`, named by `class`'s
    /// method dictionary under `selector`; its record is read on first use.
    pub fn unread(oop: Oop, store: u64, class: Oop, selector: Oop) -> PendingMethod {
        PendingMethod {
            oop,
            store,
            class,
            selector,
            code: None,
        }
    }

    pub fn oop(&self) -> Oop {
        self.oop
    }

    /// The same method, to be read and compiled again (see `RepoState::stand_ins`).
    pub fn again(&self) -> PendingMethod {
        PendingMethod::unread(self.oop, self.store, self.class, self.selector)
    }

    /// Turns the stand-in [`Self::fail`] installed back into an uncompiled
    /// method object, unless its object stands for another method by now.
    pub fn undo_stand_in(&self, vm: &mut Vm, map: &OopMap) -> bool {
        if map.store_of(vm, self.oop) != Some(self.store)
            || !matches!(vm.heap.get(self.oop).body, Body::Method(_))
        {
            return false;
        }
        set_body_unchanged(vm, self.oop, Body::Ptr(Vec::new()));
        true
    }

    /// The repository OOP of the method.
    pub fn store(&self) -> u64 {
        self.store
    }

    /// Whether the method object still stands for this method and is not
    /// compiled yet (a refresh may have compiled a newer version meanwhile).
    pub fn is_wanted(&self, vm: &Vm, map: &OopMap) -> bool {
        map.store_of(vm, self.oop) == Some(self.store)
            && !matches!(vm.heap.get(self.oop).body, Body::Method(_))
    }

    /// Whether the record still has to be read (see `Loader::read_code`).
    pub fn is_unread(&self) -> bool {
        self.code.is_none()
    }

    /// The stored source, once the record is read and while the method object
    /// still holds this method uncompiled (the test `compile` makes first).
    pub fn current_source(&self, vm: &Vm, map: &OopMap) -> Option<&str> {
        if !self.is_wanted(vm, map) {
            return None;
        }
        self.code.as_ref().map(|(_, source)| source.as_str())
    }

    /// Compiles the method into its object, unless that object is compiled
    /// already or is not this method any more. A method that no longer
    /// compiles becomes a method that signals why (see [`Self::fail`]) and is
    /// described in the answer.
    pub fn compile(self, vm: &mut Vm, map: &OopMap) -> Option<String> {
        if !self.is_wanted(vm, map) {
            return None;
        }
        let Some((category, source)) = &self.code else {
            let why = format!("its record {} was not read before compiling", self.store);
            return Some(self.fail(vm, &why));
        };
        let dicts = vm.symbol_list_dicts();
        let (category, source) = (*category, source.clone());
        match Compiler::new(vm, Some(self.class), dicts).compile(&source, false, category) {
            Ok(c) => {
                self.install(vm, c.method);
                None
            }
            Err(e) => {
                let why = format!("it does not compile any more: {}", e.message);
                Some(self.fail(vm, &why))
            }
        }
    }

    /// Puts compiled code into the method object without making it a change
    /// of this session: compiling stored code is not something to commit.
    fn install(&self, vm: &mut Vm, method: Arc<Method>) {
        method.oop.store(self.oop.0, Ordering::Relaxed);
        set_body_unchanged(vm, self.oop, Body::Method(method));
    }

    /// A stored method that cannot be read or compiled (`why`) becomes, for
    /// this session, a method of the same selector whose every send signals an
    /// Error naming the class, the selector and the cause — never a silent
    /// `doesNotUnderstand`. Its source stays the stored one when that was read,
    /// so a recompilation never replaces it with the stand-in. Nothing of this
    /// is committed. Answers the load warning.
    pub fn fail(self, vm: &mut Vm, why: &str) -> String {
        let class_name = vm.class_name(self.class);
        let sel = vm.string_of(Value::Obj(self.selector)).unwrap_or_default();
        let text = format!("repository error: {class_name}>>{sel} cannot be used: {why}");
        let ivars = vm.all_ivar_names(self.class);
        let arg = |i: usize| {
            let mut n = format!("arg{i}");
            while ivars.contains(&n) {
                n.insert(0, 'x');
            }
            n
        };
        let pattern = match crate::prims::selector_arity(&sel) {
            0 => sel.clone(),
            1 if !sel.ends_with(':') => format!("{sel} {}", arg(1)),
            _ => sel
                .split_terminator(':')
                .enumerate()
                .map(|(i, k)| format!("{k}: {}", arg(i + 1)))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let stand_in = format!(
            "{pattern}\n\t\"The repository cannot supply this method: sending it signals why.\"\n\t^ Error new signal: '{}'",
            text.replace('\'', "''")
        );
        let category = self.code.as_ref().map_or(Value::Nil, |(c, _)| *c);
        let dicts = vm.symbol_list_dicts();
        if let Ok(mut c) =
            Compiler::new(vm, Some(self.class), dicts).compile(&stand_in, false, category)
        {
            if let (Some(m), Some((_, source))) = (Arc::get_mut(&mut c.method), &self.code) {
                m.source = source.clone();
            }
            self.install(vm, c.method);
        }
        text
    }
}

/// Gives method object `o` a new body without making that a change of this
/// session (compiled code, or its absence, is not something to commit).
fn set_body_unchanged(vm: &mut Vm, o: Oop, body: Body) {
    let was_dirty = vm.heap.get(o).flags & F_DIRTY != 0;
    vm.heap.set_body(o, body);
    if !was_dirty {
        vm.heap.set_flags_quiet(o, 0, F_DIRTY);
        if vm.heap.dirty.last() == Some(&o) {
            vm.heap.dirty.pop();
        }
    }
}

/// Records read in bulk (a login's scan) by repository OOP, their bytes in
/// one buffer: a login holds thousands, and one allocation per record cost
/// more than decoding it.
#[derive(Default)]
pub struct Prefetched {
    bytes: Vec<u8>,
    at: FxHashMap<u64, (usize, usize)>,
}

impl Prefetched {
    pub fn insert(&mut self, s: u64, data: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.at.insert(s, (start, data.len()));
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    fn contains(&self, s: u64) -> bool {
        self.at.contains_key(&s)
    }

    /// The bytes of `s`, forgotten unless `keep`.
    fn get(&mut self, s: u64, keep: bool) -> Option<&[u8]> {
        let (a, n) = if keep {
            *self.at.get(&s)?
        } else {
            self.at.remove(&s)?
        };
        Some(&self.bytes[a..a + n])
    }
}

/// Materialises records as heap objects.
pub struct Loader<'a> {
    pub vm: &'a mut Vm,
    pub map: &'a mut OopMap,
    store: &'a StoreSession,
    /// Records already read in bulk (login); others are read one by one.
    prefetched: Prefetched,
    queue: Vec<(Oop, Record)>,
    methods: Vec<PendingMethod>,
    /// Loading a login's fresh heap: every binding in the map was made by
    /// this loader and nothing is collected meanwhile, so a binding needs no
    /// check; and every class's method dictionary is left as stored
    /// (`StoredMethods`), materialised on first use. Otherwise only a class
    /// not in memory yet, or one whose dictionary was never used, is left so;
    /// a class whose dictionary is in use is refreshed in full.
    pub login: bool,
    /// Classes (not metaclasses) materialised by this loader.
    pub classes: Vec<Oop>,
    pub warnings: Vec<String>,
    /// The methods this loader replaced by stand-ins (see `RepoState::stand_ins`).
    pub stand_ins: Vec<PendingMethod>,
}

impl<'a> Loader<'a> {
    pub fn new(
        vm: &'a mut Vm,
        map: &'a mut OopMap,
        store: &'a StoreSession,
        prefetched: Prefetched,
    ) -> Loader<'a> {
        Loader {
            vm,
            map,
            store,
            prefetched,
            queue: vec![],
            methods: vec![],
            login: false,
            classes: vec![],
            warnings: vec![],
            stand_ins: vec![],
        }
    }

    fn read(&mut self, s: u64) -> Result<Option<Record>, PersistError> {
        self.read_keeping(s, false)
    }

    fn read_keeping(&mut self, s: u64, keep: bool) -> Result<Option<Record>, PersistError> {
        let decoded = match self.prefetched.get(s, keep) {
            Some(b) => Record::decode(b),
            None => match self.store.read(s)? {
                Some(b) => Record::decode(&b),
                None => return Ok(None),
            },
        };
        decoded
            .map(Some)
            .map_err(|e| PersistError::Corrupt(format!("object {s}: {}", e.0)))
    }

    /// The heap object for repository OOP `s`, reserving (and queueing) it when
    /// it is not in memory yet. Symbols are interned at once.
    pub fn resolve(&mut self, s: u64) -> Result<Oop, PersistError> {
        let known = if self.login {
            let m = &self.map;
            m.to_heap.get(&s).or_else(|| m.symbols.get(&s)).copied()
        } else {
            self.map.heap_of(self.vm, s)
        };
        if let Some(o) = known {
            return Ok(o);
        }
        let Some(rec) = self.read(s)? else {
            return Err(PersistError::Corrupt(format!(
                "a stored object refers to object {s}, which the repository does not hold"
            )));
        };
        if let SBody::Symbol(text) = &rec.body {
            let o = self.vm.intern(text);
            self.map.bind_symbol(self.vm, o, s);
            return Ok(o);
        }
        let o = self.vm.heap.reserve();
        self.map.bind(self.vm, o, s);
        self.queue.push((o, rec));
        Ok(o)
    }

    /// The stored record of `s`, leaving it for a later `resolve`.
    pub fn peek(&mut self, s: u64) -> Result<Option<Record>, PersistError> {
        let rec = self.read_keeping(s, true)?;
        if let Some(r) = &rec {
            if !self.prefetched.contains(s) {
                self.prefetched.insert(s, &r.encode());
            }
        }
        Ok(rec)
    }

    /// Gives the existing heap object `o` the identity and contents of stored `s`.
    pub fn adopt(&mut self, o: Oop, s: u64) -> Result<(), PersistError> {
        let Some(rec) = self.read(s)? else {
            return Err(PersistError::Corrupt(format!(
                "the repository does not hold object {s}"
            )));
        };
        self.map.bind(self.vm, o, s);
        self.queue.push((o, rec));
        Ok(())
    }

    /// Re-reads `s` into its heap object, if that object is in memory.
    pub fn refresh(&mut self, s: u64) -> Result<(), PersistError> {
        let Some(o) = self.map.heap_of(self.vm, s) else {
            return Ok(());
        };
        if self.map.symbols.contains_key(&s) {
            // a symbol never changes; one in a changed set was collected
            if self.store.read(s)?.is_none() {
                self.map.forget(self.vm, s);
            }
            return Ok(());
        }
        match self.read(s)? {
            Some(rec) => self.queue.push((o, rec)),
            // given an OOP in an aborted transaction and never stored: a
            // temporary again, so a later commit stores it afresh
            None => self.vm.heap.set_flags_quiet(o, 0, F_PERSISTENT),
        }
        Ok(())
    }

    fn val(&mut self, v: SVal) -> Result<Value, PersistError> {
        Ok(match v {
            SVal::Nil => Value::Nil,
            SVal::True => Value::True,
            SVal::False => Value::False,
            SVal::Int(i) => Value::small_int(i)
                .ok_or_else(|| PersistError::Corrupt(format!("SmallInteger {i} out of range")))?,
            SVal::Char(c) => Value::Char(c),
            SVal::Float(f) => Value::Float(f),
            SVal::Ref(s) => Value::Obj(self.resolve(s)?),
        })
    }

    // (by value: collecting into the same allocation)
    fn vals(&mut self, vs: Vec<SVal>) -> Result<Vec<Value>, PersistError> {
        vs.into_iter().map(|v| self.val(v)).collect()
    }

    fn oops(&mut self, os: Vec<u64>) -> Result<Vec<Oop>, PersistError> {
        os.into_iter().map(|s| self.resolve(s)).collect()
    }

    fn pairs(&mut self, ps: &[(u64, u64)]) -> Result<FxHashMap<Oop, Oop>, PersistError> {
        let mut m = FxHashMap::default();
        for &(a, b) in ps {
            let a = self.resolve(a)?;
            m.insert(a, self.resolve(b)?);
        }
        Ok(m)
    }

    fn fill(&mut self, o: Oop, rec: Record) -> Result<(), PersistError> {
        let class = self.resolve(rec.class)?;
        let body = match rec.body {
            SBody::Ptr(vs) => Body::Ptr(self.vals(vs)?),
            SBody::Bytes(b) => Body::Bytes(b),
            SBody::Wide(w) => Body::Wide(w),
            SBody::Big(b) => Body::Big(Box::new(big_from_bytes(&b))),
            SBody::Dict(es) => {
                let mut d = SymDict::default();
                for (k, a) in es {
                    let k = self.val(k)?;
                    d.insert(k, self.resolve(a)?);
                }
                Body::Dict(Box::new(d))
            }
            SBody::Class(c) => {
                let data = self.class_data(o, *c)?;
                if !data.is_meta {
                    self.classes.push(o);
                }
                Body::Class(Box::new(data))
            }
            SBody::Method {
                class: mc,
                selector,
                category,
                source,
            } => {
                let class = self.resolve(mc)?;
                let selector = self.resolve(selector)?;
                let category = self.val(category)?;
                let store = self.map.store_of(self.vm, o).unwrap_or(0);
                self.methods.push(PendingMethod {
                    oop: o,
                    store,
                    class,
                    selector,
                    code: Some((category, source)),
                });
                // the body arrives when the method is compiled
                self.vm.heap.set_class(o, self.vm.k.method);
                return Ok(());
            }
            SBody::Symbol(_) => return Ok(()),
        };
        self.vm.heap.set_class(o, class);
        self.vm.heap.set_body(o, body);
        let inv = if rec.invariant { F_INVARIANT } else { 0 };
        self.vm.heap.set_flags_quiet(o, inv, F_INVARIANT ^ inv);
        Ok(())
    }

    /// The method object a class's method dictionary names. One not in memory
    /// yet becomes a placeholder whose record is read when it is first used:
    /// a login does not read the code it never runs.
    fn resolve_method(&mut self, class: Oop, selector: Oop, s: u64) -> Result<Oop, PersistError> {
        if let Some(o) = self.map.heap_of(self.vm, s) {
            return Ok(o);
        }
        if self.prefetched.contains(s) {
            return self.resolve(s);
        }
        let o = placeholder(self.vm, self.map, s);
        self.methods
            .push(PendingMethod::unread(o, s, class, selector));
        Ok(o)
    }

    /// Reads the record of a method left unread at login, at the session's view.
    pub fn read_code(&mut self, p: &mut PendingMethod) -> Result<(), PersistError> {
        if p.code.is_some() {
            return Ok(());
        }
        let Some(rec) = self.read(p.store)? else {
            return Err(PersistError::Corrupt(format!(
                "a method dictionary names object {}, which the repository does not hold",
                p.store
            )));
        };
        let SBody::Method {
            category, source, ..
        } = rec.body
        else {
            return Err(PersistError::Corrupt(format!(
                "a method dictionary names object {}, which is not a method",
                p.store
            )));
        };
        let category = self.val(category)?;
        self.drain()?;
        p.code = Some((category, source));
        Ok(())
    }

    fn class_data(&mut self, o: Oop, c: SClass) -> Result<ClassData, PersistError> {
        // a dictionary in use stays in use: its methods are refreshed at once
        let in_use = !self.login
            && self
                .vm
                .heap
                .class_data(o)
                .is_some_and(|d| d.stored_methods.is_none());
        let (methods, categories, stored_methods) = if in_use {
            let mut m = FxHashMap::default();
            for &(sel, meth) in &c.methods {
                let sel = self.resolve(sel)?;
                let meth = self.resolve_method(o, sel, meth)?;
                m.insert(sel, meth);
            }
            (m, self.pairs(&c.categories)?, None)
        } else {
            let mut st = StoredMethods {
                methods: Vec::with_capacity(c.methods.len()),
                categories: Vec::with_capacity(c.categories.len()),
            };
            for &(sel, meth) in &c.methods {
                st.methods.push((self.resolve(sel)?, meth));
            }
            for &(sel, cat) in &c.categories {
                st.categories.push((self.resolve(sel)?, self.resolve(cat)?));
            }
            (
                FxHashMap::default(),
                FxHashMap::default(),
                Some(Box::new(st)),
            )
        };
        let superclass = match c.superclass {
            Some(s) => Some(self.resolve(s)?),
            None => None,
        };
        let mut class_vars = vec![];
        for &(k, a) in &c.class_vars {
            let k = self.resolve(k)?;
            class_vars.push((k, self.resolve(a)?));
        }
        Ok(ClassData {
            name: self.resolve(c.name)?,
            superclass,
            is_meta: c.is_meta,
            this_class: self.resolve(c.this_class)?,
            format: format_of(c.format)?,
            ivar_names: self.oops(c.ivar_names)?,
            inst_size: c.inst_size as usize,
            methods,
            categories,
            class_vars,
            pools: self.vals(c.pools)?,
            comment: self.val(c.comment)?,
            category: self.val(c.category)?,
            subclasses: self.oops(c.subclasses)?,
            slots: self.vals(c.slots)?,
            history: self.oops(c.history)?,
            options: self.oops(c.options)?,
            dictionary: self.val(c.dictionary)?,
            stored_methods,
        })
    }

    /// Fills every queued object (faulting in what they refer to).
    pub fn drain(&mut self) -> Result<(), PersistError> {
        while let Some((o, rec)) = self.queue.pop() {
            self.fill(o, rec)?;
        }
        Ok(())
    }

    /// Compiles the methods read so far, in the session's symbol list, reading
    /// the records of those a class named.
    pub fn compile_methods(&mut self) {
        for mut p in std::mem::take(&mut self.methods) {
            if !p.is_wanted(self.vm, self.map) {
                continue;
            }
            let again = p.again();
            if let Err(e) = self.read_code(&mut p) {
                let w = p.fail(self.vm, &format!("its record cannot be read: {e}"));
                self.warnings.push(w);
                self.stand_ins.push(again);
                continue;
            }
            if let Some(w) = p.compile(self.vm, self.map) {
                self.warnings.push(w);
                self.stand_ins.push(again);
            }
        }
        self.vm.methods_changed();
    }

    /// The methods read so far, left for compilation on first use.
    pub fn take_methods(&mut self) -> Vec<PendingMethod> {
        std::mem::take(&mut self.methods)
    }
}

/// A method object for stored method `s` whose record is read on first use:
/// an empty GsNMethod bound to `s`. Allocated with its class, so it is no
/// change to record.
pub fn placeholder(vm: &mut Vm, map: &mut OopMap, s: u64) -> Oop {
    let o = vm.heap.alloc(vm.k.method, Body::Ptr(Vec::new()));
    map.bind(vm, o, s);
    o
}

/// Clears the write barrier's record: nothing in memory differs from the view.
pub fn clear_dirty(vm: &mut Vm) {
    for o in std::mem::take(&mut vm.heap.dirty) {
        vm.heap.set_flags_quiet(o, 0, F_DIRTY);
    }
}

/// What a commit writes, before it is known to have succeeded.
pub struct WriteSet {
    pub writes: Vec<(u64, Vec<u8>)>,
    /// Temporary objects that become persistent with these OOPs on success.
    pub new: Vec<(Oop, u64)>,
}

/// Encodes every dirty persistent object and every temporary newly reachable
/// from one. Fails with 2407 on an object that cannot be stored.
pub fn collect_writes(
    vm: &Vm,
    map: &OopMap,
    store: &mut StoreSession,
    also: &[Oop],
) -> Result<WriteSet, PersistError> {
    let mut work: Vec<Oop> = vm
        .heap
        .dirty
        .iter()
        .copied()
        .chain(also.iter().copied())
        .filter(|&o| map.store_of(vm, o).is_some())
        .collect();
    work.sort();
    work.dedup();
    let mut new: FxHashMap<Oop, u64> = FxHashMap::default();
    let mut new_order = vec![];
    let mut writes = vec![];
    let mut i = 0;
    while i < work.len() {
        let o = work[i];
        i += 1;
        let s = match map.store_of(vm, o) {
            Some(s) => s,
            None => new[&o],
        };
        let mut refs = vec![];
        let rec = encode(vm, o, &mut |r: Oop| {
            refs.push(r);
            0
        })?;
        // assign OOPs to the temporaries this object refers to, then encode for real
        for r in refs {
            if map.store_of(vm, r).is_none() && !new.contains_key(&r) {
                let s = store.allocate_oop()?;
                new.insert(r, s);
                new_order.push((r, s));
                work.push(r);
            }
        }
        drop(rec);
        let rec = encode(vm, o, &mut |r: Oop| {
            map.store_of(vm, r)
                .or_else(|| new.get(&r).copied())
                .unwrap_or(0)
        })?;
        writes.push((s, rec.encode()));
    }
    Ok(WriteSet {
        writes,
        new: new_order,
    })
}

fn cannot_commit(vm: &Vm, o: Oop, why: &str) -> PersistError {
    let class = vm.heap.get(o).class;
    let name = vm
        .heap
        .class_data(class)
        .and_then(|d| vm.string_of(Value::Obj(d.name)))
        .unwrap_or_else(|| "an object".into());
    PersistError::NotCommittable(format!("an instance of {name} cannot be committed ({why})"))
}

/// The record of heap object `o`, naming other objects through `oop_of`.
pub fn encode(vm: &Vm, o: Oop, oop_of: &mut dyn FnMut(Oop) -> u64) -> Result<Record, PersistError> {
    let obj = vm.heap.get(o);
    let k = &vm.k;
    if obj.class == k.session_temps {
        return Err(cannot_commit(vm, o, "session state is transient"));
    }
    let val = |v: Value, f: &mut dyn FnMut(Oop) -> u64| match v {
        Value::Nil => SVal::Nil,
        Value::True => SVal::True,
        Value::False => SVal::False,
        Value::Int(i) => SVal::Int(i),
        Value::Char(c) => SVal::Char(c),
        Value::Float(x) => SVal::Float(x),
        Value::Obj(r) => SVal::Ref(f(r)),
    };
    let is_symbol_class = obj.class == k.symbol
        || obj.class == k.quad_byte_symbol
        || obj.class == k.double_byte_symbol;
    let body = match &obj.body {
        Body::Bytes(_) | Body::Wide(_) if is_symbol_class => match vm.string_of(Value::Obj(o)) {
            Some(s) if vm.heap.find_symbol(&s) == Some(o) => SBody::Symbol(s),
            _ => match &obj.body {
                Body::Bytes(b) => SBody::Bytes(b.clone()),
                Body::Wide(w) => SBody::Wide(w.clone()),
                _ => unreachable!("guarded by the outer match"),
            },
        },
        Body::Ptr(vs) => SBody::Ptr(vs.iter().map(|&v| val(v, oop_of)).collect()),
        Body::Bytes(b) => SBody::Bytes(b.clone()),
        Body::Wide(w) => SBody::Wide(w.clone()),
        Body::Big(b) => SBody::Big(big_to_bytes(b)),
        Body::Dict(d) => SBody::Dict(
            d.iter()
                .map(|(key, a)| (val(key, oop_of), oop_of(a)))
                .collect(),
        ),
        Body::Class(c) => {
            let pairs = |m: &FxHashMap<Oop, Oop>, f: &mut dyn FnMut(Oop) -> u64| {
                let mut v: Vec<(Oop, Oop)> = m.iter().map(|(&a, &b)| (a, b)).collect();
                v.sort();
                v.into_iter().map(|(a, b)| (f(a), f(b))).collect::<Vec<_>>()
            };
            let (methods, categories) = match &c.stored_methods {
                // never used in this session: written back as it was read
                Some(st) => (
                    st.methods
                        .iter()
                        .map(|&(sel, m)| (oop_of(sel), m))
                        .collect(),
                    st.categories
                        .iter()
                        .map(|&(sel, cat)| (oop_of(sel), oop_of(cat)))
                        .collect(),
                ),
                None => (pairs(&c.methods, oop_of), pairs(&c.categories, oop_of)),
            };
            SBody::Class(Box::new(SClass {
                name: oop_of(c.name),
                superclass: c.superclass.map(&mut *oop_of),
                is_meta: c.is_meta,
                this_class: oop_of(c.this_class),
                format: format_code(c.format),
                ivar_names: c.ivar_names.iter().map(|&x| oop_of(x)).collect(),
                inst_size: c.inst_size as u64,
                methods,
                categories,
                class_vars: c
                    .class_vars
                    .iter()
                    .map(|&(a, b)| (oop_of(a), oop_of(b)))
                    .collect(),
                pools: c.pools.iter().map(|&v| val(v, oop_of)).collect(),
                comment: val(c.comment, oop_of),
                category: val(c.category, oop_of),
                subclasses: c.subclasses.iter().map(|&x| oop_of(x)).collect(),
                slots: c.slots.iter().map(|&v| val(v, oop_of)).collect(),
                history: c.history.iter().map(|&x| oop_of(x)).collect(),
                options: c.options.iter().map(|&x| oop_of(x)).collect(),
                dictionary: val(c.dictionary, oop_of),
            }))
        }
        Body::Method(m) => SBody::Method {
            class: oop_of(m.class),
            selector: oop_of(m.selector),
            category: val(m.category, oop_of),
            source: m.source.clone(),
        },
        Body::Block(_) => {
            return Err(cannot_commit(
                vm,
                o,
                "blocks are not stored in the repository",
            ));
        }
    };
    Ok(Record {
        class: oop_of(obj.class),
        invariant: obj.flags & F_INVARIANT != 0,
        body,
    })
}
