//! The object-level face of a [`Session`], for clients that hold objects
//! between calls the way a GCI client does: evaluate or send a message and get
//! an object back, read and write its body, make new ones, and keep them alive
//! through an export set until they are released.
//!
//! An [`Object`] is a value as such a client sees it: an immediate, or a
//! reference to a heap object. A reference stays valid while the object is in
//! the export set ([`Session::export`]); every object an evaluation or a send
//! answers, and every object made here, is exported. A reference to an object
//! that was released and collected answers "does not exist" (2101), never a
//! different object's body, as long as its slot was not reused: like a GemStone
//! OOP a client keeps without exporting it, it is the client's to protect.
//!
//! This module owns no policy about OOP numbers (the GCI library maps objects
//! to GemStone's encoding); it must not run Smalltalk outside an evaluation's
//! limits and break handling, which it shares with [`Session::evaluate_string`].

// an ExecError (the error, its exception, compile details) is made once per
// failed call and read by the caller at once
#![allow(clippy::result_large_err)]

use crate::api::{ErrorKind, Session, StError};
use crate::compiler::Compiler;
use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};

/// A Smalltalk value held by a client between calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Object {
    /// `nil`.
    Nil,
    /// `true`.
    True,
    /// `false`.
    False,
    /// A SmallInteger.
    SmallInteger(i64),
    /// A Character, by its code point.
    Character(u32),
    /// A SmallDouble or a Float (the embedded stone holds both inline).
    Double(f64),
    /// A heap object, by its index in the session's object table.
    Ref(u64),
}

impl Object {
    fn from_value(v: Value) -> Object {
        match v {
            Value::Nil => Object::Nil,
            Value::True => Object::True,
            Value::False => Object::False,
            Value::Int(i) => Object::SmallInteger(i),
            Value::Char(c) => Object::Character(c),
            Value::Float(f) => Object::Double(f),
            Value::Obj(o) => Object::Ref(o.0),
        }
    }
}

/// What an evaluation or a send that failed leaves for the client.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// The failure.
    pub error: StError,
    /// The exception that ended it (exported), or nil (a compile error of a
    /// doit, a limit, an internal error).
    pub exception: Object,
    /// For a compile error: the compiler's own error number, the 1-based
    /// offset and the message, as GemStone lists them in `errorDetails`.
    pub compile: Option<(u32, usize, String)>,
}

impl From<StError> for ExecError {
    fn from(error: StError) -> ExecError {
        ExecError {
            error,
            exception: Object::Nil,
            compile: None,
        }
    }
}

/// The shape of an object's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An immediate (SmallInteger, Character, nil, true, false, a double).
    Special,
    /// Named and indexed pointer slots.
    Pointers,
    /// Bytes (a String's characters below 256, a ByteArray, a Utf8).
    Bytes,
    /// Anything else (wide strings, classes, methods, dictionaries, blocks, LargeIntegers).
    Other,
}

fn not_found(what: &str) -> StError {
    StError {
        kind: ErrorKind::Runtime,
        number: 2101,
        class_name: "ObjectDoesNotExist".into(),
        message_text: None,
        description: format!("a reference to an object that does not exist ({what})"),
        offset: None,
        line: None,
    }
}

/// Refuses a store starting past `len` (one past the end may grow the body).
fn within(start: usize, len: usize) -> Result<(), StError> {
    if start > len {
        return Err(argument_error(
            2003,
            "OffsetError",
            format!("index {} is past the end ({len})", start + 1),
        ));
    }
    Ok(())
}

fn argument_error(number: u32, class: &str, text: String) -> StError {
    StError {
        kind: ErrorKind::Runtime,
        number,
        class_name: class.into(),
        message_text: Some(text.clone()),
        description: text,
        offset: None,
        line: None,
    }
}

impl Vm {
    /// The value an [`Object`] names, if it still exists.
    fn value_of(&self, o: Object) -> Result<Value, StError> {
        Ok(match o {
            Object::Nil => Value::Nil,
            Object::True => Value::True,
            Object::False => Value::False,
            Object::SmallInteger(i) => {
                if !(crate::object::value::SMALLINT_MIN..=crate::object::value::SMALLINT_MAX)
                    .contains(&i)
                {
                    return Err(argument_error(
                        2718,
                        "ArgumentError",
                        format!("{i} is outside the SmallInteger range"),
                    ));
                }
                Value::Int(i)
            }
            Object::Character(c) => {
                if char::from_u32(c).is_none() {
                    return Err(argument_error(
                        2718,
                        "ArgumentError",
                        format!("{c} is not a Unicode code point"),
                    ));
                }
                Value::Char(c)
            }
            Object::Double(f) => Value::Float(f),
            Object::Ref(i) => {
                let oop = Oop(i);
                if (i as usize) >= self.heap.table_len() || self.heap.try_get(oop).is_none() {
                    return Err(not_found(&format!("object {i}")));
                }
                Value::Obj(oop)
            }
        })
    }

    fn heap_ref(&self, o: Object) -> Result<Oop, StError> {
        match self.value_of(o)? {
            Value::Obj(oop) => Ok(oop),
            _ => Err(argument_error(
                2094,
                "ArgumentTypeError",
                "an immediate object has no body".into(),
            )),
        }
    }

    /// The body of `oop` to change through the write barrier, refused (without
    /// leaving a refusal for the next evaluation to signal) for an invariant
    /// object or a persistent one in a read-only session.
    fn writable(&mut self, oop: Oop) -> Result<Option<&mut Body>, StError> {
        if self.heap.refuses(oop) || self.heap.is_invariant(oop) {
            return Err(argument_error(
                2108,
                "SecurityError",
                "the object may not be changed".into(),
            ));
        }
        Ok(self.heap.write(oop).map(|o| &mut o.body))
    }

    fn exported(&mut self, v: Value) -> Object {
        if let Value::Obj(o) = v {
            self.export(o);
        }
        Object::from_value(v)
    }

    /// Runs `body` as one evaluation: the same reset, break clearing, cache
    /// pruning and collection as a doit, with the answer (or the exception)
    /// exported before anything can collect it.
    fn run_exported(
        &mut self,
        body: impl FnOnce(&mut Vm) -> Result<crate::interp::R, ExecError>,
    ) -> Result<Object, ExecError> {
        self.reset_transient();
        self.set_last_exception(Value::Nil);
        let sites_mark = self.sends.site_mark();
        let out = match body(self) {
            Err(e) => Err(e),
            Ok(r) => match self.finish_evaluation(r) {
                Ok(v) => Ok(self.exported(v)),
                Err(f) => {
                    let ex = self.last_exception();
                    Err(ExecError {
                        error: StError::from(f),
                        exception: self.exported(ex),
                        compile: None,
                    })
                }
            },
        };
        self.set_last_exception(Value::Nil);
        self.sends.release_doit_sites(sites_mark);
        self.prune_keep();
        if self.heap.allocated_since_gc > crate::api::GC_THRESHOLD || self.heap.over_limit() {
            self.collect_garbage();
        }
        out
    }
}

impl Session {
    /// Compiles `source` as a doit whose `self` is `context` (nil for none) and
    /// runs it; answers the result, exported.
    pub fn execute(&mut self, source: &str, context: Object) -> Result<Object, ExecError> {
        let src = source.to_string();
        let r = self.run_on_eval_thread(move |vm| {
            let receiver = vm.value_of(context)?;
            vm.run_exported(move |vm| {
                let class = match receiver {
                    Value::Nil => None,
                    v => Some(vm.class_of(v)),
                };
                let dicts = vm.symbol_list_dicts();
                let method = match Compiler::new(vm, class, dicts).compile(&src, true, Value::Nil) {
                    Ok(c) => c.method,
                    Err(e) => {
                        let (line, _) = crate::image::filein::line_col(&src, e.offset);
                        return Err(ExecError {
                            error: StError {
                                kind: ErrorKind::Compile,
                                number: 1001,
                                class_name: "CompileError".into(),
                                message_text: Some(e.message.clone()),
                                description: format!(
                                    "a CompileError occurred (error 1001), {} (error {} at offset {})",
                                    e.message,
                                    e.number,
                                    e.offset + 1
                                ),
                                offset: Some(e.offset + 1),
                                line: Some(line),
                            },
                            exception: Object::Nil,
                            compile: Some((e.number, e.offset + 1, e.message.clone())),
                        });
                    }
                };
                let rp = vm.stack.len();
                vm.stack.push(receiver);
                Ok(vm.invoke_doit(&method, rp))
            })
        });
        let _ = self.interrupter().take();
        r.map_err(ExecError::from)?
    }

    /// Sends `selector` with `args` to `receiver`; answers the result, exported.
    pub fn perform(
        &mut self,
        receiver: Object,
        selector: &str,
        args: &[Object],
    ) -> Result<Object, ExecError> {
        let selector = selector.to_string();
        let args = args.to_vec();
        let r = self.run_on_eval_thread(move |vm| {
            let recv = vm.value_of(receiver)?;
            let mut values = Vec::with_capacity(args.len());
            for a in &args {
                values.push(vm.value_of(*a)?);
            }
            let arity = crate::prims::selector_arity(&selector);
            if arity != values.len() {
                return Err(ExecError::from(argument_error(
                    2718,
                    "ArgumentError",
                    format!(
                        "the selector {selector:?} takes {arity} arguments, not {}",
                        values.len()
                    ),
                )));
            }
            vm.run_exported(move |vm| {
                // the receiver and the arguments are roots while the message runs
                vm.stack.push(recv);
                vm.stack.extend(values.iter().copied());
                let sel = vm.intern(&selector);
                Ok(vm.send_msg(recv, sel, &values))
            })
        });
        let _ = self.interrupter().take();
        r.map_err(ExecError::from)?
    }

    /// Adds `o` to the export set (nothing for an immediate).
    pub fn export(&mut self, o: Object) -> Result<(), StError> {
        let vm = self.vm_mut();
        if let Value::Obj(oop) = vm.value_of(o)? {
            vm.export(oop);
        }
        Ok(())
    }

    /// Takes `o` out of the export set; it may be collected after that.
    pub fn release(&mut self, o: Object) {
        if let Object::Ref(i) = o {
            self.vm_mut().release_export(Oop(i));
        }
    }

    /// Empties the export set.
    pub fn release_all(&mut self) {
        self.vm_mut().release_all_exports();
    }

    /// Whether `o` names an object that exists.
    pub fn exists(&self, o: Object) -> bool {
        self.vm_ref().value_of(o).is_ok()
    }

    /// The class of `o`.
    pub fn class_of(&self, o: Object) -> Result<Object, StError> {
        let vm = self.vm_ref();
        let v = vm.value_of(o)?;
        Ok(Object::Ref(vm.class_of(v).0))
    }

    /// Whether `o`'s class is `class` or inherits from it.
    pub fn is_kind_of(&self, o: Object, class: Object) -> Result<bool, StError> {
        let vm = self.vm_ref();
        let v = vm.value_of(o)?;
        let c = vm.heap_ref(class)?;
        if vm.heap.class_data(c).is_none() {
            return Err(argument_error(
                2094,
                "ArgumentTypeError",
                "the argument is not a class".into(),
            ));
        }
        Ok(vm.is_kind_of(v, c))
    }

    /// The shape of `o`'s body.
    pub fn shape(&self, o: Object) -> Result<Shape, StError> {
        let vm = self.vm_ref();
        Ok(match vm.value_of(o)? {
            Value::Obj(oop) => match &vm.heap.get(oop).body {
                Body::Ptr(_) => Shape::Pointers,
                Body::Bytes(_) => Shape::Bytes,
                _ => Shape::Other,
            },
            _ => Shape::Special,
        })
    }

    /// The number of named instance variables of `o`'s class.
    pub fn named_size(&self, o: Object) -> Result<usize, StError> {
        let vm = self.vm_ref();
        Ok(match vm.value_of(o)? {
            Value::Obj(oop) => match &vm.heap.get(oop).body {
                Body::Ptr(_) => vm.inst_size_of(oop),
                _ => 0,
            },
            _ => 0,
        })
    }

    /// How many bytes, characters or slots `o`'s body holds (named slots
    /// included), as GemStone counts an object's size.
    pub fn size(&self, o: Object) -> Result<usize, StError> {
        let vm = self.vm_ref();
        Ok(match vm.value_of(o)? {
            Value::Obj(oop) => match &vm.heap.get(oop).body {
                Body::Ptr(s) => s.len(),
                Body::Bytes(b) => b.len(),
                Body::Wide(w) => w.len(),
                _ => vm.basic_size(Value::Obj(oop)),
            },
            _ => 0,
        })
    }

    /// Up to `max` bytes of `o`'s body from 0-based `start`: the bytes of a
    /// byte object, or the characters of a wide string in the width of its
    /// class (2 bytes each for a DoubleByteString or Unicode16, 4 otherwise),
    /// native byte order.
    pub fn fetch_bytes(&self, o: Object, start: usize, max: usize) -> Result<Vec<u8>, StError> {
        let vm = self.vm_ref();
        let oop = vm.heap_ref(o)?;
        let obj = vm.heap.get(oop);
        match &obj.body {
            Body::Bytes(b) => Ok(b
                .get(start..)
                .map_or(vec![], |b| b[..b.len().min(max)].to_vec())),
            Body::Wide(w) => {
                let name = vm.class_name(obj.class);
                let two = name.contains("DoubleByte") || name == "Unicode16";
                let width = if two { 2 } else { 4 };
                let first = start / width;
                let mut out = Vec::new();
                for &c in w.iter().skip(first) {
                    if out.len() + width > max {
                        break;
                    }
                    if two {
                        out.extend_from_slice(&(c as u16).to_ne_bytes());
                    } else {
                        out.extend_from_slice(&c.to_ne_bytes());
                    }
                }
                Ok(out)
            }
            _ => Err(argument_error(
                2094,
                "ArgumentTypeError",
                format!("a {} has no byte body", vm.class_name(obj.class)),
            )),
        }
    }

    /// The characters of a String, Symbol or other character collection `o`.
    pub fn string_of(&self, o: Object) -> Result<Option<String>, StError> {
        let vm = self.vm_ref();
        let v = vm.value_of(o)?;
        Ok(vm.string_of(v))
    }

    /// Up to `max` pointer slots of `o` from 0-based `start` (named slots first).
    pub fn fetch_slots(&self, o: Object, start: usize, max: usize) -> Result<Vec<Object>, StError> {
        let vm = self.vm_ref();
        let oop = vm.heap_ref(o)?;
        match &vm.heap.get(oop).body {
            Body::Ptr(s) => Ok(s
                .iter()
                .skip(start)
                .take(max)
                .map(|v| Object::from_value(*v))
                .collect()),
            _ => Err(argument_error(
                2094,
                "ArgumentTypeError",
                "the object has no pointer slots".into(),
            )),
        }
    }

    /// Stores `values` into `o`'s pointer slots from 0-based `start`, growing
    /// an indexable object by at most its end (GemStone's store semantics).
    /// Refused for an invariant object, or a persistent one in a read-only session.
    pub fn store_slots(
        &mut self,
        o: Object,
        start: usize,
        values: &[Object],
    ) -> Result<(), StError> {
        let vm = self.vm_mut();
        let oop = vm.heap_ref(o)?;
        let mut vals = Vec::with_capacity(values.len());
        for v in values {
            vals.push(vm.value_of(*v)?);
        }
        let len = match &vm.heap.get(oop).body {
            Body::Ptr(s) => s.len(),
            _ => {
                return Err(argument_error(
                    2094,
                    "ArgumentTypeError",
                    "the object has no pointer slots".into(),
                ))
            }
        };
        within(start, len)?;
        let Some(Body::Ptr(body)) = vm.writable(oop)? else {
            unreachable!("a pointer body, checked above")
        };
        for (i, v) in vals.into_iter().enumerate() {
            if start + i < body.len() {
                body[start + i] = v;
            } else {
                body.push(v);
            }
        }
        Ok(())
    }

    /// Stores `bytes` into byte object `o` from 0-based `start` (growing it by
    /// at most its end).
    pub fn store_bytes(&mut self, o: Object, start: usize, bytes: &[u8]) -> Result<(), StError> {
        let vm = self.vm_mut();
        let oop = vm.heap_ref(o)?;
        let len = match &vm.heap.get(oop).body {
            Body::Bytes(b) => b.len(),
            _ => {
                return Err(argument_error(
                    2094,
                    "ArgumentTypeError",
                    "the object has no byte body".into(),
                ))
            }
        };
        within(start, len)?;
        let Some(Body::Bytes(body)) = vm.writable(oop)? else {
            unreachable!("a byte body, checked above")
        };
        for (i, b) in bytes.iter().enumerate() {
            if start + i < body.len() {
                body[start + i] = *b;
            } else {
                body.push(*b);
            }
        }
        Ok(())
    }

    /// A new String (or the narrowest wide string) of `text`, exported.
    pub fn new_string(&mut self, text: &str) -> Object {
        let vm = self.vm_mut();
        let v = vm.new_string(text);
        vm.exported(v)
    }

    /// The Symbol `text` (made if new), exported.
    pub fn new_symbol(&mut self, text: &str) -> Object {
        let vm = self.vm_mut();
        let v = vm.sym(text);
        vm.exported(v)
    }

    /// A new instance of the kernel class named `class_name` with `bytes` as
    /// its body (a ByteArray, a Utf8), exported.
    pub fn new_bytes(&mut self, class: Object, bytes: &[u8]) -> Result<Object, StError> {
        let vm = self.vm_mut();
        let c = vm.heap_ref(class)?;
        if vm.heap.class_data(c).is_none() {
            return Err(argument_error(
                2094,
                "ArgumentTypeError",
                "the argument is not a class".into(),
            ));
        }
        let v = Value::Obj(vm.heap.alloc_bytes(c, bytes.to_vec()));
        Ok(vm.exported(v))
    }

    /// A new Array of `items`, exported.
    pub fn new_array(&mut self, items: &[Object]) -> Result<Object, StError> {
        let vm = self.vm_mut();
        let mut vals = Vec::with_capacity(items.len());
        for i in items {
            vals.push(vm.value_of(*i)?);
        }
        let v = vm.new_array(vals);
        Ok(vm.exported(v))
    }

    /// A new instance of `class` (`class basicNew`), exported.
    pub fn new_instance(&mut self, class: Object) -> Result<Object, ExecError> {
        self.perform(class, "basicNew", &[])
    }

    /// The value of the global `name` in the session's symbol list, if bound.
    pub fn resolve(&mut self, name: &str) -> Result<Option<Object>, StError> {
        let vm = self.vm_mut();
        let key = vm.sym(name);
        for d in vm.symbol_list_dicts() {
            if let Some(assoc) = vm.dict_assoc(Value::Obj(d), key) {
                let v = vm.heap.slot(assoc, 1);
                return Ok(Some(vm.exported(v)));
            }
        }
        Ok(None)
    }

    /// Sends the unary `selector` to the kernel's System class itself and
    /// answers the result's printString. No symbol list is consulted, so it
    /// works whatever a client did to the session's (the transaction tools use
    /// it, as a GCI client sends to GemStone's System by its well-known OOP).
    pub fn system_print_string(&mut self, selector: &str) -> Result<String, StError> {
        let system = {
            let vm = self.vm_mut();
            let class = Value::Obj(vm.k.system);
            vm.exported(class)
        };
        let result = self.perform(system, selector, &[]).map_err(|e| e.error)?;
        let printed = self.perform(result, "printString", &[]);
        self.release(result);
        let printed = printed.map_err(|e| e.error)?;
        let text = self.string_of(printed);
        self.release(printed);
        Ok(text?.unwrap_or_default())
    }

    /// The name of class `o` (for a metaclass `Foo class`), if it is one.
    pub fn class_name_of(&self, o: Object) -> Result<Option<String>, StError> {
        let vm = self.vm_ref();
        let oop = vm.heap_ref(o)?;
        Ok(vm.heap.class_data(oop).map(|_| vm.class_name(oop)))
    }
}
