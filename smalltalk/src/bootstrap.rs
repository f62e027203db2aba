//! Building a fresh image: the bootstrap classes of `known::CLASSES` with their
//! metaclasses, the dictionaries `Globals`, `UserGlobals`, `Published`, the
//! symbol list, the user DataCurator, SessionTemps and Transcript; then the
//! kernel file-ins. It also holds the session's side of the object-memory
//! collector: the roots a collection starts from (`Vm::gc_roots`), the
//! collection between evaluations (`Vm::collect_garbage`) and during one
//! (`Vm::collect_during_evaluation`, which reads the native stack through
//! `stack_roots`), and the allocation check against the memory budget. It runs
//! no Smalltalk itself.

use crate::api::Interrupter;
use crate::heap::{Body, ClassData, Format, Heap};
use crate::interp::{Roots, Sels, Vm, DEFAULT_DEPTH_LIMIT};
use crate::known::{Known, CLASSES};
use crate::value::{FxHashMap, Oop, Value};

/// Default object memory budget (bytes, approximate).
pub const DEFAULT_MEMORY_LIMIT: usize = 1 << 30;

pub fn new_vm(interrupter: Interrupter, memory_limit: usize) -> Vm {
    let mut heap = Heap::new(memory_limit);
    let mut oops: FxHashMap<&'static str, (Oop, Oop)> = FxHashMap::default();
    for spec in CLASSES {
        let c = heap.reserve();
        let m = heap.reserve();
        oops.insert(spec.name, (c, m));
    }
    let k = Known::from_lookup(|n| oops[n].0);
    let mut roots = Roots::default();
    let mut error_numbers = FxHashMap::default();
    for spec in CLASSES {
        let (c, m) = oops[spec.name];
        let name = heap.intern(spec.name, k.symbol, k.quad_byte_symbol);
        let sup = spec.superclass.map(|s| oops[s].0);
        let meta_sup = spec.superclass.map(|s| oops[s].1).unwrap_or(k.class);
        let sup_inst = sup
            .and_then(|s| heap.class_data(s))
            .map(|d| d.inst_size)
            .unwrap_or(0);
        let ivars: Vec<Oop> = spec
            .ivars
            .iter()
            .map(|n| heap.intern(n, k.symbol, k.quad_byte_symbol))
            .collect();
        let meta_data = ClassData {
            name,
            superclass: Some(meta_sup),
            is_meta: true,
            this_class: c,
            format: Format::Special,
            ivar_names: vec![],
            inst_size: 0,
            methods: Default::default(),
            categories: Default::default(),
            class_vars: vec![],
            pools: vec![],
            comment: Value::Nil,
            category: Value::Nil,
            subclasses: vec![],
            slots: vec![],
            history: vec![],
            options: vec![],
            dictionary: Value::Nil,
            stored_methods: None,
        };
        heap.set_body(m, Body::Class(Box::new(meta_data)));
        heap.set_class(m, k.metaclass);
        let data = ClassData {
            name,
            superclass: sup,
            is_meta: false,
            this_class: c,
            format: spec.format,
            inst_size: sup_inst + ivars.len(),
            ivar_names: ivars,
            methods: Default::default(),
            categories: Default::default(),
            class_vars: vec![],
            pools: vec![],
            comment: Value::Nil,
            category: Value::Nil,
            subclasses: vec![],
            slots: vec![],
            history: vec![c],
            options: vec![],
            dictionary: Value::Nil,
            stored_methods: None,
        };
        heap.set_body(c, Body::Class(Box::new(data)));
        heap.set_class(c, m);
        if spec.error_number != 0 {
            error_numbers.insert(c, spec.error_number);
        }
        roots.all_classes.push(c);
    }
    for spec in CLASSES {
        let (c, m) = oops[spec.name];
        if let Some(s) = spec.superclass {
            let (sc, sm) = oops[s];
            heap.class_data_mut(sc).subclasses.push(c);
            heap.class_data_mut(sm).subclasses.push(m);
        } else {
            heap.class_data_mut(k.class).subclasses.push(m);
        }
    }
    let mut vm = Vm {
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
        repo: None,
        exports: Default::default(),
        last_exception: Value::Nil,
        kernel_only: false,
        may_commit: true,
    };
    // dictionaries
    let sd = vm.k.symbol_dictionary;
    let globals = vm.heap.alloc(sd, Body::Dict(Box::default()));
    let user_globals = vm.heap.alloc(sd, Body::Dict(Box::default()));
    let published = vm.heap.alloc(sd, Body::Dict(Box::default()));
    let session_temps = vm
        .heap
        .alloc(vm.k.session_temps, Body::Dict(Box::default()));
    for (name, d) in [
        ("Globals", globals),
        ("UserGlobals", user_globals),
        ("Published", published),
    ] {
        let key = vm.sym(name);
        vm.dict_at_put(d, key, Value::Obj(d));
    }
    for spec in CLASSES {
        if spec.name == "VariableContext" {
            continue;
        }
        let (c, _) = oops[spec.name];
        let key = vm.sym(spec.name);
        vm.dict_at_put(globals, key, Value::Obj(c));
        vm.heap.class_data_mut(c).dictionary = Value::Obj(globals);
    }
    let transcript = vm.heap.alloc(vm.k.transcript_stream, Body::Ptr(vec![]));
    let key = vm.sym("Transcript");
    vm.dict_at_put(globals, key, Value::Obj(transcript));
    let symbol_list = vm.heap.alloc(
        vm.k.symbol_list,
        Body::Ptr(vec![
            Value::Obj(user_globals),
            Value::Obj(globals),
            Value::Obj(published),
        ]),
    );
    let user_id = vm.new_string("DataCurator");
    let user_profile = vm.heap.alloc(
        vm.k.user_profile,
        Body::Ptr(vec![user_id, Value::Obj(symbol_list)]),
    );
    vm.roots.globals = globals;
    vm.roots.user_globals = user_globals;
    vm.roots.published = published;
    vm.roots.symbol_list = symbol_list;
    vm.roots.user_profile = user_profile;
    vm.roots.session_temps = session_temps;
    vm.roots.transcript = transcript;
    vm.sels = Sels {
        does_not_understand: vm.intern("doesNotUnderstand:"),
        print_string: vm.intern("printString"),
        default_action: vm.intern("defaultAction"),
        description: vm.intern("description"),
        is_resumable: vm.intern("isResumable"),
        handles: vm.intern("handles:"),
        must_be_boolean: vm.intern("mustBeBoolean"),
        hash: vm.intern("hash"),
        key: vm.intern("key"),
        index_of: vm.intern("_indexOf:"),
        at: vm.intern("at:"),
        value_set: vm.intern("value:"),
        size: vm.intern("size"),
    };
    vm
}

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
        let scanned = crate::stack_roots::scan(&mut |w| {
            if w < bound {
                oops.push(Oop(w as u64));
            }
        });
        if !scanned {
            return false;
        }
        let mut roots = self.gc_roots();
        for h in &self.handlers {
            roots.push(h.selector);
            roots.push(h.block);
        }
        roots.extend(self.signals.iter().map(|s| s.exception));
        roots.extend(self.caches.iter().map(|c| c.block));
        for m in &self.keep {
            crate::heap::method_refs(m, &mut oops);
        }
        for a in &self.acts {
            if !a.method.is_null() {
                // SAFETY: an activation record's method is alive while the
                // record is on `acts` (see `Act`).
                crate::heap::method_refs(unsafe { &*a.method }, &mut oops);
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
        // caches may hold methods whose objects are about to go
        for c in &mut self.caches {
            c.class = crate::interp::NO_CLASS;
            c.method = None;
            c.method2 = None;
            c.class2 = crate::interp::NO_CLASS;
            c.block = Value::Nil;
        }
        self.methods_changed();
        // no activation is running here: the methods kept alive for borrowed
        // sends can go with the caches that referred to them
        self.keep.clear();
        self.heap.collect(&roots)
    }
}
