//! Building a fresh image: the bootstrap classes of `known::CLASSES` with their
//! metaclasses, the dictionaries `Globals`, `UserGlobals`, `Published`, the
//! symbol list, the user DataCurator, SessionTemps and Transcript; then the
//! kernel file-ins. It runs no Smalltalk itself.

use crate::interp::Interrupter;
use crate::interp::{Roots, Sels, Vm};
use crate::object::heap::{Body, ClassData, Format, Heap};
use crate::object::known::{Known, CLASSES};
use crate::object::value::{FxHashMap, Oop, Value};

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
    let mut vm = Vm::new(
        heap,
        k,
        roots,
        error_numbers,
        interrupter,
        &crate::prims::PRIMITIVES,
    );
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
