//! Kernel repair: restores the shipped kernel into an existing repository
//! whose kernel a privileged user (SystemUser, DataCurator) damaged, keeping
//! every user class, global, extension method and object. The shipped kernel
//! is this program's own (the bootstrap plus `repository.gs`, as a creation
//! makes it); the repository's kernel classes are the ones its kernel record
//! names, found whatever Globals says now.
//!
//! What is restored: Globals' bindings of the kernel's names (each kernel
//! class, Globals, Published, Transcript); every shipped method whose source
//! or category differs or that is missing, compiled from the shipped source;
//! methods added to a kernel class that override a method the shipped kernel
//! defines in a superclass (removed); each user's binding of its UserGlobals
//! and a symbol list that holds Globals. Methods it compiles are recorded in
//! the kernel record as the kernel's, so the kernel guard covers them as it
//! covers the ones the creation made (`security`). What it cannot restore (a
//! kernel class that is gone, a superclass that changed) it reports.

use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::value::{FxHashMap, Oop, Value};

use super::PersistError;

/// What a kernel repair changed (each line names one change), and what it
/// found damaged and could not restore.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KernelRepair {
    /// Globals' and the users' bindings put back.
    pub bindings: Vec<String>,
    /// Kernel methods compiled again from the shipped source.
    pub methods: Vec<String>,
    /// Methods in kernel classes that overrode an inherited kernel method.
    pub removed: Vec<String>,
    /// Users whose symbol list was mended.
    pub symbol_lists: Vec<String>,
    /// Damage found and left as it is.
    pub not_restored: Vec<String>,
    /// Whether the repair was committed (false for a dry run or when there
    /// was nothing to change).
    pub committed: bool,
}

impl KernelRepair {
    /// Whether the repair changed nothing.
    pub fn is_clean(&self) -> bool {
        self.bindings.is_empty()
            && self.methods.is_empty()
            && self.removed.is_empty()
            && self.symbol_lists.is_empty()
    }
}

/// One side (instance or class) of a shipped class: selector → (source, category).
type Side = FxHashMap<String, (String, String)>;

/// The shipped kernel, as names and text (it outlives the VM it came from).
pub(crate) struct Shipped {
    /// (class name, is the metaclass side) → its methods
    sides: FxHashMap<(String, bool), Side>,
    /// (class name, name of its superclass)
    classes: Vec<(String, Option<String>)>,
    /// Globals' kernel bindings: name → what it names
    globals: Vec<(String, Named)>,
}

/// What a kernel name in Globals is bound to.
enum Named {
    Class(String),
    Globals,
    Published,
    Transcript,
}

impl Vm {
    fn class_name_of(&self, c: Oop) -> Option<String> {
        let d = self.heap.class_data(c)?;
        let this = self.heap.class_data(d.this_class)?;
        self.string_of(Value::Obj(this.name))
    }

    pub(crate) fn shipped_kernel(&mut self) -> Shipped {
        let mut sides = FxHashMap::default();
        let mut classes = vec![];
        let kernel: Vec<Oop> = self.roots.kernel.iter().copied().collect();
        for c in kernel {
            let Some(d) = self.heap.class_data(c) else {
                continue;
            };
            let (is_meta, sup) = (d.is_meta, d.superclass);
            let Some(name) = self.class_name_of(c) else {
                continue;
            };
            if !is_meta {
                classes.push((name.clone(), sup.and_then(|s| self.class_name_of(s))));
            }
            let mut side = Side::default();
            let methods: Vec<(Oop, Oop)> = d.methods.iter().map(|(&s, &m)| (s, m)).collect();
            for (sel, mo) in methods {
                let (Some(sel_name), Some(src)) =
                    (self.string_of(Value::Obj(sel)), self.method_source(mo))
                else {
                    continue;
                };
                side.insert(sel_name, (src, self.category_of(c, sel)));
            }
            sides.insert((name, is_meta), side);
        }
        let mut globals = vec![];
        let entries = self
            .dict_entries(Value::Obj(self.roots.globals))
            .unwrap_or_default();
        for (key, a) in entries {
            let value = self.heap.slot(a, 1);
            let Some(name) = self.string_of(key) else {
                continue;
            };
            let named = match value {
                Value::Obj(o) if o == self.roots.globals => Named::Globals,
                Value::Obj(o) if o == self.roots.published => Named::Published,
                Value::Obj(o) if o == self.roots.transcript => Named::Transcript,
                Value::Obj(o) if self.roots.kernel.contains(&o) => match self.class_name_of(o) {
                    Some(n) => Named::Class(n),
                    None => continue,
                },
                _ => continue,
            };
            globals.push((name, named));
        }
        Shipped {
            sides,
            classes,
            globals,
        }
    }

    fn category_of(&self, class: Oop, sel: Oop) -> String {
        self.heap
            .class_data(class)
            .and_then(|d| d.categories.get(&sel).copied())
            .and_then(|c| self.string_of(Value::Obj(c)))
            .unwrap_or_default()
    }

    /// Binds `name` to `value` in dictionary `d` unless it is bound so;
    /// answers whether it changed anything.
    fn rebind(&mut self, d: Oop, name: &str, value: Value) -> bool {
        let key = self.sym(name);
        let now = self
            .dict_assoc(Value::Obj(d), key)
            .map(|a| self.heap.slot(a, 1));
        if now.is_some_and(|v| v.identical(value)) {
            return false;
        }
        self.dict_at_put(d, key, value);
        true
    }

    /// Restores the shipped kernel in this (privileged) repository session.
    pub(crate) fn repair_kernel(
        &mut self,
        shipped: &Shipped,
    ) -> Result<KernelRepair, PersistError> {
        let mut out = KernelRepair::default();
        let mut here: FxHashMap<String, Oop> = FxHashMap::default();
        for c in self.roots.kernel.iter().copied().collect::<Vec<_>>() {
            if self.heap.class_data(c).is_some_and(|d| !d.is_meta) {
                if let Some(n) = self.class_name_of(c) {
                    here.insert(n, c);
                }
            }
        }
        let globals = self.roots.globals;
        for (name, named) in &shipped.globals {
            let target = match named {
                Named::Globals => globals,
                Named::Published => self.roots.published,
                Named::Transcript => self.roots.transcript,
                Named::Class(n) => match here.get(n) {
                    Some(&c) => c,
                    None => continue,
                },
            };
            if self.rebind(globals, name, Value::Obj(target)) {
                out.bindings.push(format!("Globals at: #{name}"));
            }
        }
        let dicts = vec![globals, self.roots.published];
        for (name, sup) in &shipped.classes {
            let Some(&c) = here.get(name) else {
                out.not_restored
                    .push(format!("the kernel class {name} is missing"));
                continue;
            };
            let now = self
                .heap
                .class_data(c)
                .and_then(|d| d.superclass)
                .and_then(|s| self.class_name_of(s));
            if &now != sup {
                out.not_restored.push(format!(
                    "{name}'s superclass is {} (shipped: {})",
                    now.as_deref().unwrap_or("nil"),
                    sup.as_deref().unwrap_or("nil")
                ));
            }
            let meta = self.heap.get(c).class;
            for (side_class, is_meta) in [(c, false), (meta, true)] {
                let label = if is_meta {
                    format!("{name} class")
                } else {
                    name.clone()
                };
                let empty = Side::default();
                let side = shipped
                    .sides
                    .get(&(name.clone(), is_meta))
                    .unwrap_or(&empty);
                self.ensure_methods(side_class);
                let mut selectors: Vec<&String> = side.keys().collect();
                selectors.sort();
                for sel_name in selectors {
                    let (src, cat) = &side[sel_name];
                    let sel = self.intern(sel_name);
                    let mo = self
                        .heap
                        .class_data(side_class)
                        .and_then(|d| d.methods.get(&sel).copied());
                    let same = mo.is_some_and(|mo| {
                        self.method_source(mo).as_deref() == Some(src.as_str())
                            && self.category_of(side_class, sel) == *cat
                    });
                    if same {
                        continue;
                    }
                    match self.compile_method(side_class, src, cat, dicts.clone()) {
                        Ok(_) => {
                            if let Some(m) = self
                                .heap
                                .class_data(side_class)
                                .and_then(|d| d.methods.get(&sel).copied())
                            {
                                self.repo_state().restored.push(m);
                            }
                            out.methods.push(format!("{label}>>{sel_name}"));
                        }
                        Err(e) => out
                            .not_restored
                            .push(format!("{label}>>{sel_name} does not compile: {e:?}")),
                    }
                }
                // methods that override a shipped method of a kernel superclass
                let mine: Vec<Oop> = self
                    .heap
                    .class_data(side_class)
                    .map(|d| d.methods.keys().copied().collect())
                    .unwrap_or_default();
                for sel in mine {
                    let Some(sel_name) = self.string_of(Value::Obj(sel)) else {
                        continue;
                    };
                    if side.contains_key(&sel_name) {
                        continue;
                    }
                    let mut up = self.heap.class_data(side_class).and_then(|d| d.superclass);
                    while let Some(s) = up {
                        let Some(d) = self.heap.class_data(s) else {
                            break;
                        };
                        let (is_meta_s, next) = (d.is_meta, d.superclass);
                        let shipped_here = self.roots.kernel.contains(&s)
                            && self.class_name_of(s).is_some_and(|n| {
                                shipped
                                    .sides
                                    .get(&(n, is_meta_s))
                                    .is_some_and(|m| m.contains_key(&sel_name))
                            });
                        if shipped_here {
                            let cd = self.heap.class_data_mut(side_class);
                            cd.methods.remove(&sel);
                            cd.categories.remove(&sel);
                            self.methods_changed();
                            out.removed.push(format!("{label}>>{sel_name}"));
                            break;
                        }
                        up = next;
                    }
                }
            }
        }
        self.repair_users(&mut out)?;
        Ok(out)
    }

    /// Each user's binding of its UserGlobals and a symbol list of
    /// dictionaries that holds Globals.
    fn repair_users(&mut self, out: &mut KernelRepair) -> Result<(), PersistError> {
        let records = self.repo_state().users.0.clone();
        let globals = self.roots.globals;
        for rec in records {
            let (Some(profile), Some(ug)) = (
                self.repo_object(rec.profile)?,
                self.repo_object(rec.user_globals)?,
            ) else {
                out.not_restored
                    .push(format!("the objects of user {} are missing", rec.user_id));
                continue;
            };
            if self.rebind(ug, "UserGlobals", Value::Obj(ug)) {
                out.bindings
                    .push(format!("UserGlobals at: #UserGlobals of {}", rec.user_id));
            }
            let list = self.heap.slot(profile, 1);
            let entries: Option<Vec<Value>> = list.oop().and_then(|l| {
                let o = self.heap.get(l);
                match &o.body {
                    Body::Ptr(v) if o.class == self.k.symbol_list => Some(v.clone()),
                    _ => None,
                }
            });
            // no symbol list at all: the one a new user gets
            let mut kept: Vec<Value> = entries.clone().unwrap_or_else(|| {
                vec![
                    Value::Obj(ug),
                    Value::Obj(globals),
                    Value::Obj(self.roots.published),
                ]
            });
            kept.retain(|v| {
                v.oop()
                    .is_some_and(|d| matches!(self.heap.get(d).body, Body::Dict(_)))
            });
            if kept.is_empty() {
                kept.push(Value::Obj(ug));
            }
            if !kept.iter().any(|v| v.identical(Value::Obj(globals))) {
                kept.push(Value::Obj(globals));
            }
            let same = entries.as_ref().is_some_and(|e| {
                e.len() == kept.len() && e.iter().zip(&kept).all(|(a, b)| a.identical(*b))
            });
            if same {
                continue;
            }
            match (list, entries.is_some()) {
                (Value::Obj(l), true) => {
                    if let Some(o) = self.heap.write(l) {
                        o.body = Body::Ptr(kept);
                    }
                }
                _ => {
                    let l = self.heap.alloc(self.k.symbol_list, Body::Ptr(kept));
                    self.heap.store(profile, 1, Value::Obj(l));
                }
            }
            out.symbol_lists.push(rec.user_id.clone());
        }
        Ok(())
    }
}
