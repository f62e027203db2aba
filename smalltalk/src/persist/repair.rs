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
//! covers the ones the creation made (`security`). A kernel class the
//! repository never had — it was made by an earlier build — is defined, with
//! every method, and recorded as the kernel's too, so a repair brings an older
//! repository up to this build's kernel (`Session::repair_kernel`). What it
//! cannot restore (a kernel class that is gone, a superclass that changed, a
//! name a user's own object holds) it reports.

use crate::interp::Vm;
use crate::object::heap::{Body, Format};
use crate::object::value::{FxHashMap, Oop, Value};

use super::PersistError;

/// What a kernel repair changed (each line names one change), and what it
/// found damaged and could not restore.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KernelRepair {
    /// Kernel classes defined because the repository predates them.
    pub classes: Vec<String>,
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
        self.classes.is_empty()
            && self.bindings.is_empty()
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
    /// How to define each kernel class a class message can make, superclasses
    /// first: (name, the definition's Smalltalk)
    definitions: Vec<(String, String)>,
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
        let definitions = self.kernel_definitions(&globals);
        Shipped {
            sides,
            classes,
            globals,
            definitions,
        }
    }

    /// The class definitions of the kernel classes Globals binds under their
    /// own names whose instances a class message can shape (pointers,
    /// indexable pointers, bytes), superclasses first.
    fn kernel_definitions(&self, globals: &[(String, Named)]) -> Vec<(String, String)> {
        let names = |vm: &Vm, syms: &[Oop]| -> String {
            syms.iter()
                .filter_map(|&s| vm.string_of(Value::Obj(s)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut out: Vec<(usize, String, String)> = vec![];
        for c in self.roots.kernel.iter().copied() {
            let Some(d) = self.heap.class_data(c) else {
                continue;
            };
            let Some(name) = self.class_name_of(c).filter(|_| !d.is_meta) else {
                continue;
            };
            let bound = globals
                .iter()
                .any(|(g, n)| g == &name && matches!(n, Named::Class(k) if k == &name));
            let Some(sup) = d.superclass.and_then(|s| self.class_name_of(s)) else {
                continue;
            };
            let ivars = names(self, &d.ivar_names);
            let class_vars: Vec<Oop> = d.class_vars.iter().map(|&(k, _)| k).collect();
            let cvars = names(self, &class_vars);
            let civars = self
                .heap
                .class_data(self.heap.get(c).class)
                .map(|m| names(self, &m.ivar_names))
                .unwrap_or_default();
            let shape = match d.format {
                Format::Ptr => format!("subclass: '{name}' instVarNames: #({ivars})"),
                Format::IdxPtr => format!("indexableSubclass: '{name}' instVarNames: #({ivars})"),
                Format::Bytes if ivars.is_empty() => format!("byteSubclass: '{name}'"),
                _ => continue,
            };
            if !bound {
                continue;
            }
            let mut depth = 0;
            let mut up = d.superclass;
            while let Some(u) = up {
                depth += 1;
                up = self.heap.class_data(u).and_then(|x| x.superclass);
            }
            out.push((
                depth,
                name,
                format!(
                    "{sup} {shape} classVars: #({cvars}) classInstVars: #({civars}) \
                     poolDictionaries: #() inDictionary: Globals"
                ),
            ));
        }
        out.sort();
        out.into_iter().map(|(_, n, d)| (n, d)).collect()
    }

    /// The kernel classes of `shipped` this repository lacks altogether,
    /// with their definitions, superclasses first; a name Globals binds to
    /// an object of a user's is reported in `out` and left alone.
    pub(crate) fn missing_kernel_classes(
        &mut self,
        shipped: &Shipped,
        out: &mut KernelRepair,
    ) -> Vec<(String, String)> {
        let here: Vec<String> = self
            .roots
            .kernel
            .iter()
            .filter_map(|&c| self.class_name_of(c))
            .collect();
        let globals = self.roots.globals;
        let mut missing = vec![];
        for (name, definition) in &shipped.definitions {
            if here.contains(name) {
                continue;
            }
            let key = self.sym(name);
            if self.dict_assoc(Value::Obj(globals), key).is_some() {
                out.not_restored.push(format!(
                    "the kernel class {name} is not defined: Globals binds {name} to an object \
                     that is not the kernel's"
                ));
                continue;
            }
            missing.push((name.clone(), definition.clone()));
        }
        missing
    }

    /// Makes the class Globals binds to `name`, just defined by a repair,
    /// the kernel's, and records it so at commit. Answers whether there was
    /// such a class.
    pub(crate) fn adopt_kernel_class(&mut self, name: &str) -> bool {
        let key = self.sym(name);
        let Some(c) = self
            .dict_assoc(Value::Obj(self.roots.globals), key)
            .and_then(|a| self.heap.slot(a, 1).oop())
            .filter(|&c| self.heap.class_data(c).is_some())
        else {
            return false;
        };
        self.mark_kernel_class(c);
        let meta = self.heap.get(c).class;
        let repo = self.repo_state();
        repo.restored_classes.push(c);
        repo.restored_classes.push(meta);
        true
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

#[cfg(test)]
mod tests {
    use super::super::{KernelRecord, KERNEL_CLASS, KERNEL_OOP};
    use crate::Session;
    use gsmcp_store::{LoginOptions, Repository};

    /// Makes the repository at `path` look made by a build before `names`
    /// existed: Globals binds none of them and the kernel record names
    /// neither them nor their metaclasses (nor any class, with `every`: a
    /// repository from before the record named its classes).
    fn forget_kernel_classes(path: &std::path::Path, names: &[&str], every: bool) {
        let mut su = Session::login(path, "SystemUser", "swordfish").unwrap();
        let owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let oops: Vec<u64> = su
            .run_on_eval_thread(move |vm| {
                let mut out = vec![];
                for name in &owned {
                    let key = vm.sym(name);
                    let c = vm
                        .dict_assoc(crate::object::value::Value::Obj(vm.roots.globals), key)
                        .and_then(|a| vm.heap.slot(a, 1).oop())
                        .expect("a kernel class");
                    let meta = vm.heap.get(c).class;
                    let repo = vm.repo().unwrap();
                    out.extend(repo.map.store_of(vm, c));
                    out.extend(repo.map.store_of(vm, meta));
                }
                out
            })
            .unwrap();
        assert_eq!(oops.len(), names.len() * 2);
        let unbind: String = names
            .iter()
            .map(|n| format!("Globals removeKey: #{n}. "))
            .collect();
        su.evaluate_print_string(&format!("{unbind}System commitTransaction"))
            .unwrap();
        su.logout().unwrap();
        let repo = Repository::open(path).unwrap();
        let mut store = repo.login(LoginOptions::new()).unwrap();
        let mut kernel = KernelRecord::decode(&store.read(KERNEL_OOP).unwrap().unwrap()).unwrap();
        kernel
            .entries
            .retain(|(n, o)| !(n == KERNEL_CLASS && (every || oops.contains(o))));
        store.commit([(KERNEL_OOP, Some(kernel.encode()))]).unwrap();
        store.logout().unwrap();
    }

    #[test]
    fn a_repair_defines_the_kernel_classes_an_older_repository_lacks() {
        let dir = std::env::temp_dir().join(format!("gsmcp-repair-new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("older.repository");
        Session::create_repository(&path).unwrap();
        forget_kernel_classes(&path, &["JwtSecurityData", "GsTlsPublicKey"], false);
        let mut dev = Session::login(&path, "Developer", "swordfish").unwrap();
        let e = dev
            .evaluate_print_string("JwtSecurityData new")
            .unwrap_err();
        assert!(e.description.contains("JwtSecurityData"), "{e:?}");
        dev.logout().unwrap();

        let dry = Session::repair_kernel(&path, true).unwrap();
        assert_eq!(dry.classes, ["GsTlsPublicKey", "JwtSecurityData"]);
        assert!(!dry.committed);
        let done = Session::repair_kernel(&path, false).unwrap();
        assert_eq!(done.classes, ["GsTlsPublicKey", "JwtSecurityData"]);
        assert!(done.not_restored.is_empty(), "{:?}", done.not_restored);
        assert!(done
            .methods
            .iter()
            .any(|m| m == "JwtSecurityData>>validate"));
        assert!(done.committed);

        // the classes work, and are the kernel's: a developer may not change them
        let mut dev = Session::login(&path, "Developer", "swordfish").unwrap();
        assert_eq!(
            dev.evaluate_print_string(
                "(JwtSecurityData new addUserId: 'a'; addIssuer: #*; addAudience: #*; yourself) validate"
            )
            .unwrap(),
            "true"
        );
        let e = dev
            .evaluate_print_string("JwtSecurityData compileMethod: 'validate ^ false'")
            .unwrap_err();
        assert_eq!(e.number, 2108, "{e:?}");
        dev.logout().unwrap();
        // and a second repair finds nothing to do
        let again = Session::repair_kernel(&path, false).unwrap();
        assert!(again.is_clean(), "{again:?}");

        // a repository whose record names no class takes every class it
        // holds as the kernel's (the unbound class object included, so the
        // repair binds it again); the repair records no class there, and
        // every class stays the kernel's
        let oldest = dir.join("oldest.repository");
        Session::create_repository(&oldest).unwrap();
        forget_kernel_classes(&oldest, &["JwtSecurityData"], true);
        let done = Session::repair_kernel(&oldest, false).unwrap();
        assert!(done.not_restored.is_empty(), "{:?}", done.not_restored);
        assert!(!done.is_clean());
        let mut dev = Session::login(&oldest, "Developer", "swordfish").unwrap();
        for code in [
            "Object compileMethod: 'printString ^ 1'",
            "JwtSecurityData compileMethod: 'validate ^ false'",
        ] {
            let e = dev.evaluate_print_string(code).unwrap_err();
            assert_eq!(e.number, 2108, "{code}: {e:?}");
        }
        dev.logout().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
