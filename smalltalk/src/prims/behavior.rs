//! Classes and code management: defining and redefining classes (new class
//! versions when the shape changes), compiling and installing methods, the
//! reflective primitives of Behavior (40..78) and evaluating doits. It owns the
//! class/method bookkeeping; it must not parse or interpret by itself.
// `prim_behavior` answers in two registers (`extern "C-unwind"`, see
// `interp/mod.rs`); its types never leave Rust
#![allow(improper_ctypes_definitions)]

use crate::object::primitives::*;
use std::sync::Arc;

use crate::compiler::{CompileErr, Compiler};
use crate::interp::primitive::P;
use crate::interp::{Unwind, Vm, R};
use crate::object::code::Method;
use crate::object::heap::{Body, ClassData, Format};
use crate::object::known::exc;
use crate::object::value::{FxHashMap, Oop, Value};

/// Parameters of a class definition message.
pub struct ClassDef {
    pub superclass: Option<Oop>,
    pub name: String,
    pub ivars: Vec<String>,
    pub class_vars: Vec<String>,
    pub class_inst_vars: Vec<String>,
    pub pools: Vec<Value>,
    pub dictionary: Option<Oop>,
    pub options: Vec<Oop>,
    pub format: Format,
    /// The class this definition makes a new version of (`newVersionOf:`),
    /// whatever its name; `None`: the class bound under the name, if any.
    pub version_of: Option<Oop>,
}

impl Vm {
    /// Creates a class and its metaclass (no dictionary binding).
    pub fn make_class(&mut self, def: &ClassDef) -> Oop {
        let name = self.intern(&def.name);
        let (meta_super, super_inst, super_meta_inst) = match def.superclass {
            Some(s) => {
                let m = self.heap.get(s).class;
                let si = self.heap.class_data(s).map(|d| d.inst_size).unwrap_or(0);
                let smi = self.heap.class_data(m).map(|d| d.inst_size).unwrap_or(0);
                (m, si, smi)
            }
            None => (self.k.class, 0, 0),
        };
        let civ: Vec<Oop> = def.class_inst_vars.iter().map(|n| self.intern(n)).collect();
        let iv: Vec<Oop> = def.ivars.iter().map(|n| self.intern(n)).collect();
        let meta_data = ClassData {
            name,
            superclass: Some(meta_super),
            is_meta: true,
            this_class: Oop(0),
            format: Format::Special,
            inst_size: super_meta_inst + civ.len(),
            ivar_names: civ,
            methods: FxHashMap::default(),
            categories: FxHashMap::default(),
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
        let slots = vec![Value::Nil; meta_data.inst_size];
        let meta = self
            .heap
            .alloc(self.k.metaclass, Body::Class(Box::new(meta_data)));
        let mut class_vars = vec![];
        for n in &def.class_vars {
            let k = self.intern(n);
            let a = self.heap.alloc(
                self.k.symbol_association,
                Body::Ptr(vec![Value::Obj(k), Value::Nil]),
            );
            class_vars.push((k, a));
        }
        let data = ClassData {
            name,
            superclass: def.superclass,
            is_meta: false,
            this_class: Oop(0),
            format: def.format,
            inst_size: super_inst + iv.len(),
            ivar_names: iv,
            methods: FxHashMap::default(),
            categories: FxHashMap::default(),
            class_vars,
            pools: def.pools.clone(),
            comment: Value::Nil,
            category: Value::Nil,
            subclasses: vec![],
            slots,
            history: vec![],
            options: def.options.clone(),
            dictionary: def.dictionary.map(Value::Obj).unwrap_or(Value::Nil),
            stored_methods: None,
        };
        let cls = self.heap.alloc(meta, Body::Class(Box::new(data)));
        self.heap.class_data_mut(meta).this_class = cls;
        let cd = self.heap.class_data_mut(cls);
        cd.this_class = cls;
        cd.history = vec![cls];
        if let Some(s) = def.superclass {
            // bookkeeping, permitted in a kernel superclass too
            self.heap.past_kernel_guard(|h| {
                h.class_data_mut(s).subclasses.push(cls);
                h.class_data_mut(meta_super).subclasses.push(meta);
            });
        }
        self.roots.all_classes.push(cls);
        cls
    }

    /// The class-definition message: answers the existing class when the shape is
    /// unchanged, else a new version bound in the dictionary.
    pub fn define_class(&mut self, mut def: ClassDef) -> Result<Oop, String> {
        if def.name.is_empty()
            || !def.name.chars().next().is_some_and(|c| c.is_alphabetic())
            || !def.name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            return Err(format!("invalid class name '{}'", def.name));
        }
        if let Some(s) = def.superclass {
            let sf = self
                .heap
                .class_data(s)
                .map(|d| d.format)
                .unwrap_or(Format::Ptr);
            def.format = match (sf, def.format) {
                (Format::IdxPtr, Format::Ptr) => Format::IdxPtr,
                (Format::Bytes | Format::Dbyte | Format::Qbyte | Format::Dict, _) => sf,
                (Format::Special, f) => f,
                (_, f) => f,
            };
            if matches!(def.format, Format::Bytes)
                && (!def.ivars.is_empty()
                    || self.heap.class_data(s).map(|d| d.inst_size).unwrap_or(0) > 0)
            {
                return Err("a byte class cannot have instance variables".into());
            }
        }
        // duplicate names
        let inherited = match def.superclass {
            Some(s) => self.all_ivar_names(s),
            None => vec![],
        };
        let mut seen = inherited.clone();
        for n in &def.ivars {
            if seen.contains(n) {
                return Err(format!("instance variable {n} is already defined"));
            }
            if !n
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            {
                return Err(format!("invalid instance variable name '{n}'"));
            }
            seen.push(n.clone());
        }
        let sym = self.intern(&def.name);
        let existing = def
            .version_of
            .or_else(|| {
                def.dictionary
                    .and_then(|d| self.dict_assoc(Value::Obj(d), Value::Obj(sym)))
                    .map(|a| self.heap.slot(a, 1))
                    .and_then(|v| v.oop())
            })
            .filter(|o| self.heap.class_data(*o).is_some_and(|d| !d.is_meta));
        if let Some(old) = existing {
            let od = self.heap.class_data(old).unwrap();
            let old_ivars: Vec<String> = od
                .ivar_names
                .iter()
                .map(|s| self.string_of(Value::Obj(*s)).unwrap_or_default())
                .collect();
            let meta = self.heap.get(old).class;
            let old_civ: Vec<String> = self
                .heap
                .class_data(meta)
                .unwrap()
                .ivar_names
                .iter()
                .map(|s| self.string_of(Value::Obj(*s)).unwrap_or_default())
                .collect();
            if od.superclass == def.superclass
                && od.name == sym
                && old_ivars == def.ivars
                && old_civ == def.class_inst_vars
                && od.format == def.format
            {
                // same shape: merge class variables, update pools/options
                let mut add = vec![];
                for n in &def.class_vars {
                    let k = self.intern(n);
                    if !self
                        .heap
                        .class_data(old)
                        .unwrap()
                        .class_vars
                        .iter()
                        .any(|(x, _)| *x == k)
                    {
                        let a = self.heap.alloc(
                            self.k.symbol_association,
                            Body::Ptr(vec![Value::Obj(k), Value::Nil]),
                        );
                        add.push((k, a));
                    }
                }
                let cd = self.heap.class_data_mut(old);
                cd.class_vars.extend(add);
                cd.pools = def.pools;
                cd.options = def.options;
                return Ok(old);
            }
            let history = self.heap.class_data(old).unwrap().history.clone();
            let (comment, category) = {
                let d = self.heap.class_data(old).unwrap();
                (d.comment, d.category)
            };
            let cls = self.make_class(&def);
            // a class variable the new version keeps is the same binding, value and all
            let old_vars = self.heap.class_data(old).unwrap().class_vars.clone();
            for (k, a) in &mut self.heap.class_data_mut(cls).class_vars {
                if let Some((_, kept)) = old_vars.iter().find(|(o, _)| o == k) {
                    *a = *kept;
                }
            }
            let mut h = history;
            h.push(cls);
            for &v in &h {
                self.heap.class_data_mut(v).history = h.clone();
            }
            let cd = self.heap.class_data_mut(cls);
            cd.comment = comment;
            cd.category = category;
            if let Some(s) = def.superclass {
                self.heap.past_kernel_guard(|h| {
                    h.class_data_mut(s).subclasses.retain(|&c| c != old);
                });
            }
            if let Some(d) = def.dictionary {
                self.dict_at_put(d, Value::Obj(sym), Value::Obj(cls));
            }
            self.methods_changed();
            return Ok(cls);
        }
        let cls = self.make_class(&def);
        if let Some(d) = def.dictionary {
            self.dict_at_put(d, Value::Obj(sym), Value::Obj(cls));
        }
        Ok(cls)
    }

    /// Compiles `src` into `class` and installs it.
    pub fn compile_method(
        &mut self,
        class: Oop,
        src: &str,
        category: &str,
        dicts: Vec<Oop>,
    ) -> Result<Arc<Method>, CompileErr> {
        let cat = self.sym(category);
        let compiled = Compiler::new(self, Some(class), dicts).compile(src, false, cat)?;
        let m = compiled.method;
        let mo = self.method_object(&m);
        let cat_sym = cat.oop().unwrap();
        self.ensure_methods(class);
        self.change_method(class, m.selector, |cd| {
            cd.methods.insert(m.selector, mo);
            cd.categories.insert(m.selector, cat_sym);
        });
        self.methods_changed();
        Ok(m)
    }

    /// Changes `class`'s entry for `selector` through the write barrier — past
    /// the kernel guard when it is an extension method of a kernel class
    /// (`persist::security`), so only the kernel's own methods are refused.
    fn change_method(&mut self, class: Oop, selector: Oop, f: impl FnOnce(&mut ClassData)) {
        if self.is_extension_of_kernel(class, selector) {
            self.heap.past_kernel_guard(|h| f(h.class_data_mut(class)));
        } else {
            f(self.heap.class_data_mut(class));
        }
    }

    /// Runs a compiled doit (receiver at `rp`). The collector finds a running
    /// method's literals through its activation record, which `activate` makes
    /// after its interrupt check (a safe point); so for that moment `keep`
    /// holds the doit, as it holds every method `lookup` finds.
    pub fn invoke_doit(&mut self, m: &Arc<Method>, rp: usize) -> R {
        self.sends.keep_running(m);
        let r = self.invoke(m, rp);
        self.sends.release_running(m);
        r
    }

    /// Compiles and runs a doit with receiver nil in the session's symbol list.
    pub fn evaluate_source(&mut self, src: &str) -> R {
        let dicts = self.symbol_list_dicts();
        match Compiler::new(self, None, dicts).compile(src, true, Value::Nil) {
            Ok(c) => {
                let rp = self.stack.len();
                self.stack.push(Value::Nil);
                self.invoke_doit(&c.method, rp)
            }
            Err(e) => self.signal_compile_error(src, &[e]),
        }
    }

    /// Signals CompileError with GemStone's errorDetails tuples in gsArgs.
    pub fn signal_compile_error(&mut self, src: &str, errs: &[CompileErr]) -> R {
        let details = self.error_details(src, errs);
        let first = errs.first().map(|e| e.message.clone()).unwrap_or_default();
        let ex = self.new_exception(self.k.compile_error, None, Some(&first));
        if let Value::Obj(o) = ex {
            let args = self.new_array(vec![details]);
            self.heap.store(o, exc::ARGS, args);
        }
        self.signal(ex)
    }

    /// `{ {number. offset. text. nil. symbol} ... }` with 1-based character offsets.
    pub fn error_details(&mut self, _src: &str, errs: &[CompileErr]) -> Value {
        let mut tuples = vec![];
        for e in errs {
            let text = self.new_string(&e.message);
            let sym = match &e.symbol {
                Some(s) => self.sym(s),
                None => Value::Nil,
            };
            tuples.push(self.new_array(vec![
                Value::Int(e.number as i64),
                Value::Int(e.offset as i64 + 1),
                text,
                Value::Nil,
                sym,
            ]));
        }
        self.new_array(tuples)
    }

    fn symbols_array(&mut self, syms: Vec<Oop>) -> Value {
        self.new_array(syms.into_iter().map(Value::Obj).collect())
    }

    fn string_list(&self, v: Value) -> Option<Vec<String>> {
        if let Some(s) = self.string_of(v) {
            return Some(s.split_whitespace().map(String::from).collect());
        }
        let o = v.oop()?;
        match &self.heap.get(o).body {
            Body::Ptr(items) => items.iter().map(|&i| self.string_of(i)).collect(),
            _ => None,
        }
    }

    /// The class definition text, GemStone form (no category).
    pub fn class_definition(&self, c: Oop) -> String {
        let d = self.heap.class_data(c).unwrap();
        let sup = d
            .superclass
            .map(|s| self.class_name(s))
            .unwrap_or_else(|| "nil".into());
        let kw = match d.format {
            Format::Bytes => "byteSubclass:",
            Format::IdxPtr
                if d.superclass
                    .and_then(|s| self.heap.class_data(s))
                    .map(|sd| sd.format)
                    != Some(Format::IdxPtr) =>
            {
                "indexableSubclass:"
            }
            _ => "subclass:",
        };
        let names = |v: &[Oop]| {
            v.iter()
                .map(|s| self.string_of(Value::Obj(*s)).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let meta = self.heap.get(c).class;
        let civ = names(
            &self
                .heap
                .class_data(meta)
                .map(|m| m.ivar_names.clone())
                .unwrap_or_default(),
        );
        let cvs = names(&d.class_vars.iter().map(|(k, _)| *k).collect::<Vec<_>>());
        let dict_name = match d.dictionary {
            Value::Obj(dd) => self.dict_name(dd).unwrap_or_else(|| "UserGlobals".into()),
            _ => "UserGlobals".into(),
        };
        let opts = d
            .options
            .iter()
            .map(|o| format!("#{}", self.string_of(Value::Obj(*o)).unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(" ");
        let ivars = if d.format == Format::Bytes {
            String::new()
        } else {
            format!("\n  instVarNames: #({})", names(&d.ivar_names))
        };
        format!(
            "{sup} {kw} '{}'{ivars}\n  classVars: #({cvs})\n  classInstVars: #({civ})\n  poolDictionaries: #()\n  inDictionary: {dict_name}\n  options: #({opts})",
            self.class_name(c)
        )
    }

    /// The name a dictionary is bound to in itself or in the symbol list.
    pub fn dict_name(&self, d: Oop) -> Option<String> {
        for dd in self.symbol_list_dicts() {
            if let Body::Dict(t) = &self.heap.get(dd).body {
                for (k, a) in t.iter() {
                    if self.heap.slot(a, 1).identical(Value::Obj(d)) {
                        return self.string_of(k);
                    }
                }
            }
        }
        None
    }

    /// `basicNew` / `basicNew:` (primitives 40, 41, 77, 78) of class `c`.
    fn basic_new(&mut self, c: Oop, format: Format, inst_size: usize, n: u16, a0: Value) -> P {
        let size = if n == BEHAVIOR_BASIC_NEW_SIZED || n == BEHAVIOR_NEW_SIZED {
            match a0 {
                Value::Int(i) if i >= 0 => i as usize,
                _ => return Ok(None),
            }
        } else {
            0
        };
        if !self.can_allocate(size.saturating_mul(16)) {
            return self.out_of_memory().map(Some);
        }
        let body = match format {
            Format::Ptr if size == 0 => Body::Ptr(vec![Value::Nil; inst_size]),
            Format::Ptr => return Ok(None),
            Format::IdxPtr => Body::Ptr(vec![Value::Nil; inst_size + size]),
            Format::Bytes => Body::Bytes(vec![if self.is_char_class(c) { b' ' } else { 0 }; size]),
            Format::Dbyte | Format::Qbyte => Body::Wide(vec![32; size]),
            Format::Dict => Body::Dict(Box::default()),
            Format::Special => return Ok(None),
        };
        let o = self.heap.alloc(c, body);
        if self.inherits(c, self.k.abstract_exception) {
            let num = self.default_error_number(c);
            self.heap.store(o, exc::NUMBER, Value::Int(num as i64));
        }
        Ok(Some(Value::Obj(o)))
    }

    pub(crate) extern "C-unwind" fn prim_behavior(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> P {
        let Value::Obj(c) = r else { return Ok(None) };
        if matches!(
            n,
            BEHAVIOR_SELECTORS
                ..=BEHAVIOR_CATEGORY_OF_SELECTOR
                    | BEHAVIOR_MOVE_METHOD_TO_CATEGORY
                    | BEHAVIOR_REMOVE_ALL_METHODS
        ) {
            // these read or change the method dictionary or the categories:
            // a class loaded from a repository fills them on first use
            self.ensure_methods(c);
        }
        // the reads a scan repeats per class or method, without copying the class
        let arg = if argc > 0 {
            self.stack[rp + 1]
        } else {
            Value::Nil
        };
        if let Some(answer) = self.behavior_read(n, c, arg) {
            return answer;
        }
        let Some(d) = self.heap.class_data(c) else {
            return Ok(None);
        };
        if let BEHAVIOR_BASIC_NEW | BEHAVIOR_NEW | BEHAVIOR_BASIC_NEW_SIZED | BEHAVIOR_NEW_SIZED = n
        {
            // instance creation is hot: it needs two fields, not a copy of the class
            let (format, inst_size) = (d.format, d.inst_size);
            let a0 = if argc > 0 {
                self.stack[rp + 1]
            } else {
                Value::Nil
            };
            return self.basic_new(c, format, inst_size, n, a0);
        }
        let d = d.clone();
        let args: Vec<Value> = self.stack[rp + 1..rp + 1 + argc].to_vec();
        let a = |i: usize| args.get(i).copied().unwrap_or(Value::Nil);
        let a0 = a(0);
        Ok(Some(match n {
            BEHAVIOR_NAME => Value::Obj(d.name),
            BEHAVIOR_SUPERCLASS => d.superclass.map(Value::Obj).unwrap_or(Value::Nil),
            BEHAVIOR_INST_VAR_NAMES => self.symbols_array(d.ivar_names.clone()),
            BEHAVIOR_ALL_INST_VAR_NAMES => {
                let names = self.all_ivar_names(c);
                let syms: Vec<Oop> = names.iter().map(|n| self.intern(n)).collect();
                self.symbols_array(syms)
            }
            BEHAVIOR_SELECTORS => {
                let mut s: Vec<Oop> = d.methods.keys().copied().collect();
                s.sort_by_key(|o| self.string_of(Value::Obj(*o)));
                self.symbols_array(s)
            }
            BEHAVIOR_COMPILE_METHOD => {
                let Some(src) = self.string_of(a0) else {
                    return Ok(None);
                };
                let dicts: Vec<Oop> = match a(1) {
                    Value::Nil => self.symbol_list_dicts(),
                    v => match self.array_items(v) {
                        Some(items) => items.into_iter().filter_map(|x| x.oop()).collect(),
                        None => return Ok(None),
                    },
                };
                let cat = self
                    .string_of(a(2))
                    .unwrap_or_else(|| "as yet unclassified".into());
                match self.compile_method(c, &src, &cat, dicts) {
                    Ok(m) => Value::Obj(self.method_object(&m)),
                    Err(e) => return self.signal_compile_error(&src, &[e]).map(Some),
                }
            }
            BEHAVIOR_REMOVE_SELECTOR => {
                let Value::Obj(s) = a0 else { return Ok(None) };
                if !d.methods.contains_key(&s) {
                    let name = self.string_of(a0).unwrap_or_default();
                    return self
                        .signal_error(
                            self.k.lookup_error,
                            &format!("selector #{name} not found in {}", self.class_name(c)),
                        )
                        .map(Some);
                }
                self.change_method(c, s, |cd| {
                    cd.methods.remove(&s);
                    cd.categories.remove(&s);
                });
                self.methods_changed();
                r
            }
            BEHAVIOR_SOURCE_CODE_AT | BEHAVIOR_COMPILED_METHOD_AT | BEHAVIOR_INCLUDES_SELECTOR => {
                let m = a0.oop().and_then(|s| d.methods.get(&s).copied());
                match (n, m) {
                    (BEHAVIOR_INCLUDES_SELECTOR, m) => Value::bool(m.is_some()),
                    (_, None) => Value::Nil,
                    (BEHAVIOR_SOURCE_CODE_AT, Some(m)) => {
                        self.ensure_method(m);
                        match &self.heap.get(m).body {
                            Body::Method(mm) => {
                                let src = mm.source.clone();
                                self.new_string(&src)
                            }
                            _ => Value::Nil,
                        }
                    }
                    (_, Some(m)) => Value::Obj(m),
                }
            }
            BEHAVIOR_CATEGORY_NAMES => {
                let mut cats: Vec<Oop> = d.categories.values().copied().collect();
                cats.sort();
                cats.dedup();
                cats.sort_by_key(|o| self.string_of(Value::Obj(*o)));
                self.symbols_array(cats)
            }
            BEHAVIOR_SELECTORS_IN => {
                let Some(cat) = self.string_of(a0) else {
                    return Ok(None);
                };
                let mut s: Vec<Oop> = d
                    .categories
                    .iter()
                    .filter(|(_, &cc)| self.string_of(Value::Obj(cc)).as_deref() == Some(&cat))
                    .map(|(&k, _)| k)
                    .collect();
                s.sort_by_key(|o| self.string_of(Value::Obj(*o)));
                self.symbols_array(s)
            }
            BEHAVIOR_CATEGORY_OF_SELECTOR => a0
                .oop()
                .and_then(|s| d.categories.get(&s).copied())
                .map(Value::Obj)
                .unwrap_or(Value::Nil),
            BEHAVIOR_SUBCLASSES => self.symbols_array(d.subclasses.clone()),
            BEHAVIOR_COMMENT => self
                .heap
                .class_data(d.this_class)
                .map(|x| x.comment)
                .unwrap_or(Value::Nil),
            BEHAVIOR_SET_COMMENT => {
                let t = d.this_class;
                self.heap.class_data_mut(t).comment = a0;
                r
            }
            BEHAVIOR_CATEGORY => self
                .heap
                .class_data(d.this_class)
                .map(|x| x.category)
                .unwrap_or(Value::Nil),
            BEHAVIOR_SET_CATEGORY => {
                let t = d.this_class;
                let v = match self.string_of(a0) {
                    Some(s) => self.sym(&s),
                    None => Value::Nil,
                };
                self.heap.class_data_mut(t).category = v;
                r
            }
            BEHAVIOR_CLASS_VAR_NAMES => {
                let vars: Vec<Oop> = self
                    .heap
                    .class_data(d.this_class)
                    .map(|x| x.class_vars.iter().map(|(k, _)| *k).collect())
                    .unwrap_or_default();
                self.symbols_array(vars)
            }
            CLASS_DEFINE_SUBCLASS | CLASS_DEFINE_SUBCLASS_VERSION => {
                // _subclass: name instVarNames: classVars: classInstVars: poolDictionaries: inDictionary: options: format: [newVersionOf:]
                if d.is_meta {
                    return Ok(None);
                }
                let Some(name) = self.string_of(a0) else {
                    return Ok(None);
                };
                let (Some(ivars), Some(cvars), Some(civars)) = (
                    self.string_list(a(1)),
                    self.string_list(a(2)),
                    self.string_list(a(3)),
                ) else {
                    return Ok(None);
                };
                let pools = self.array_items(a(4)).unwrap_or_default();
                let dict = match a(5) {
                    Value::Obj(o) if matches!(self.heap.get(o).body, Body::Dict(_)) => Some(o),
                    Value::Nil => None,
                    _ => return Ok(None),
                };
                let options: Vec<Oop> = self
                    .array_items(a(6))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|v| v.oop())
                    .collect();
                let format = match self.string_of(a(7)).as_deref() {
                    Some("indexable") => Format::IdxPtr,
                    Some("bytes") => Format::Bytes,
                    _ => Format::Ptr,
                };
                let def = ClassDef {
                    superclass: Some(c),
                    name,
                    ivars,
                    class_vars: cvars,
                    class_inst_vars: civars,
                    pools,
                    dictionary: dict,
                    options,
                    format,
                    version_of: match (n, a(8)) {
                        (CLASS_DEFINE_SUBCLASS, _) | (_, Value::Nil) => None,
                        (_, Value::Obj(o))
                            if self.heap.class_data(o).is_some_and(|x| !x.is_meta) =>
                        {
                            Some(o)
                        }
                        _ => return Ok(None),
                    },
                };
                // a read-only session may not bind a class in, or under, a
                // shared object; any user may subclass a kernel class
                let under = def
                    .superclass
                    .filter(|&o| self.heap.refuses_for(o, crate::object::heap::F_PERSISTENT));
                if let Some(o) = def.dictionary.filter(|&o| self.heap.refuses(o)).or(under) {
                    self.heap.refuse(o);
                    return Ok(None);
                }
                match self.define_class(def) {
                    Ok(k) => Value::Obj(k),
                    Err(msg) => return self.signal_error(self.k.argument_error, &msg).map(Some),
                }
            }
            BEHAVIOR_IS_META => Value::bool(d.is_meta),
            BEHAVIOR_INST_SIZE => Value::Int(d.inst_size as i64),
            BEHAVIOR_IS_BYTES => Value::bool(matches!(
                d.format,
                Format::Bytes | Format::Dbyte | Format::Qbyte
            )),
            BEHAVIOR_IS_INDEXABLE => Value::bool(d.format.is_indexable()),
            BEHAVIOR_LOOKUP_SELECTOR => {
                let Value::Obj(s) = a0 else { return Ok(None) };
                match self.lookup(c, s) {
                    Some(m) => Value::Obj(self.method_object(&m)),
                    None => Value::Nil,
                }
            }
            BEHAVIOR_THIS_CLASS => Value::Obj(d.this_class),
            BEHAVIOR_SHARED_POOLS => {
                let p = self
                    .heap
                    .class_data(d.this_class)
                    .map(|x| x.pools.clone())
                    .unwrap_or_default();
                self.new_array(p)
            }
            BEHAVIOR_MOVE_METHOD_TO_CATEGORY => {
                let (Value::Obj(s), Some(cat)) = (a0, self.string_of(a(1))) else {
                    return Ok(None);
                };
                if !d.methods.contains_key(&s) {
                    return Ok(None);
                }
                let cs = self.intern(&cat);
                self.change_method(c, s, |cd| {
                    cd.categories.insert(s, cs);
                });
                r
            }
            BEHAVIOR_CLASS_VAR_AT | BEHAVIOR_CLASS_VAR_AT_PUT => {
                let Value::Obj(k) = self.dict_key(a0) else {
                    return Ok(None);
                };
                let vars = self
                    .heap
                    .class_data(d.this_class)
                    .map(|x| x.class_vars.clone())
                    .unwrap_or_default();
                let Some(&(_, assoc)) = vars.iter().find(|(x, _)| *x == k) else {
                    return Ok(None);
                };
                if n == BEHAVIOR_CLASS_VAR_AT {
                    self.heap.slot(assoc, 1)
                } else {
                    let v = a(1);
                    self.heap.store(assoc, 1, v);
                    v
                }
            }
            BEHAVIOR_ALL_SUPERCLASSES => {
                let mut out = vec![];
                let mut s = d.superclass;
                while let Some(x) = s {
                    out.push(x);
                    s = self.heap.class_data(x).and_then(|y| y.superclass);
                }
                self.symbols_array(out)
            }
            BEHAVIOR_INHERITS_FROM => {
                let Value::Obj(other) = a0 else {
                    return Ok(Some(Value::False));
                };
                Value::bool(other != c && self.inherits(c, other))
            }
            BEHAVIOR_DEFINITION => {
                let t = self.class_definition(d.this_class);
                self.new_string(&t)
            }
            BEHAVIOR_CLASS_HISTORY => {
                let h = self
                    .heap
                    .class_data(d.this_class)
                    .map(|x| x.history.clone())
                    .unwrap_or_default();
                self.symbols_array(h)
            }
            BEHAVIOR_OPTIONS => {
                let options = self
                    .heap
                    .class_data(d.this_class)
                    .map(|x| x.options.clone())
                    .unwrap_or_default();
                self.symbols_array(options)
            }
            BEHAVIOR_REMOVE_ALL_METHODS => {
                let cd = self.heap.class_data_mut(c);
                cd.methods.clear();
                cd.categories.clear();
                self.methods_changed();
                r
            }
            _ => return Ok(None),
        }))
    }
}

#[allow(dead_code)]
fn _unused(_: Unwind) {}
