//! The embedded stone's module graph has no cycle: `smalltalk/src` is laid out
//! in layers ([`LAYERS`], bottom first), and a layer's code may use only the
//! layers below it (and itself). Two kinds of use are checked:
//! - a path naming a layer (`crate::prims::…`);
//! - a call of a `Vm` method (`self.name(…)`, `vm.name(…)`) that only higher
//!   layers define: every layer adds methods to the interpreter's `Vm`, so a
//!   call is the dependency a `use` line does not show.
//!
//! Test modules (from the first `#[cfg(test)]` on) may use any layer.
//!
//! Every other crate's top-level modules form no cycle either: a module that
//! names another (`crate::name`, or `name` in a `use crate::{…}` list) depends
//! on it, and no chain of dependencies leads back to where it started.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The engine's layers, bottom first: the top-level modules of `smalltalk/src`.
const LAYERS: &[&str] = &[
    "syntax", "object", "interp", "compiler", "prims", "image", "persist", "api", "topaz",
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// A file's layer: its top directory under `src/` (a file at the top is a
/// layer of its own name).
fn layer_of(rel: &str) -> &str {
    let top = rel.split('/').next().unwrap_or(rel);
    top.strip_suffix(".rs").unwrap_or(top)
}

/// The code of a file without its test items: a `#[cfg(test)]` one-line
/// declaration (`mod census;`) is left out, and a `#[cfg(test)]` block (the
/// tests module, last by convention) ends the code.
fn without_tests(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        // the item it marks, past any further attributes
        let item = lines.by_ref().find(|l| !l.trim_start().starts_with("#["));
        match item {
            Some(item) if item.trim_end().ends_with(';') => {}
            _ => break,
        }
    }
    out
}

/// The names a text calls as `self.name(` or `vm.name(`.
fn method_calls(text: &str) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    for receiver in ["self.", "vm."] {
        let mut rest = text;
        while let Some(i) = rest.find(receiver) {
            let before = rest[..i].chars().next_back();
            rest = &rest[i + receiver.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(rest.len());
            if end > 0 && rest[end..].starts_with('(') {
                out.insert(&rest[..end]);
            }
        }
    }
    out
}

/// The functions defined inside the text's `impl Vm {` blocks.
fn vm_methods(text: &str) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest
        .match_indices("impl Vm {")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || rest[..i].ends_with('\n'))
    {
        let body = &rest[i + "impl Vm {".len()..];
        let mut depth = 1usize;
        let mut end = body.len();
        for (j, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let block = &body[..end];
        let mut words = block.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        while let Some(w) = words.next() {
            if w == "fn" {
                if let Some(name) = words.find(|w| !w.is_empty()) {
                    out.insert(name);
                }
            }
        }
        rest = &body[end..];
    }
    out
}

/// Source files: (path under `src/`, text).
type Files = Vec<(String, String)>;

/// Every use of a higher layer in `files`, as "file: what it uses"; files
/// outside the layers are reported too.
fn upward_uses(files: &[(String, String)]) -> Vec<String> {
    let mut problems = vec![];
    let mut defined: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (rel, text) in files {
        let Some(r) = rank(layer_of(rel)) else {
            problems.push(format!("{rel}: in no layer (add it to one, or to LAYERS)"));
            continue;
        };
        for name in vm_methods(&without_tests(text)) {
            defined.entry(name.to_string()).or_default().insert(r);
        }
    }
    for (rel, text) in files {
        let Some(own) = rank(layer_of(rel)) else {
            continue;
        };
        let code = without_tests(text);
        let code = code.as_str();
        for (i, _) in code.match_indices("crate::") {
            let path = &code[i + "crate::".len()..];
            let name = path
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if rank(name).is_some_and(|r| r > own) {
                problems.push(format!("{rel}: uses crate::{name}"));
            }
        }
        for name in method_calls(code) {
            if let Some(ranks) = defined.get(name) {
                if ranks.iter().all(|&r| r > own) {
                    let by = LAYERS[*ranks.iter().next().expect("a rank")];
                    problems.push(format!("{rel}: calls Vm::{name}, defined in {by}"));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Every `.rs` file under `dir` but `lib.rs` and `bin/` (binaries are clients of
/// the library, not part of its graph), as (path under `base`, text).
fn rust_sources(dir: &Path, base: &Path, out: &mut Files) {
    for entry in std::fs::read_dir(dir).expect("read a crate's src") {
        let path = entry.expect("dir entry").path();
        let rel = path
            .strip_prefix(base)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            // the binaries are clients of the library, not part of its graph
            if rel != "bin" {
                rust_sources(&path, base, out);
            }
        } else if rel.ends_with(".rs") && rel != "lib.rs" {
            out.push((rel, std::fs::read_to_string(&path).expect("read a source")));
        }
    }
}

#[test]
fn each_engine_layer_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../smalltalk/src");
    let mut files = vec![];
    rust_sources(&src, &src, &mut files);
    assert!(files.len() > 20, "the engine's sources were found");
    let problems = upward_uses(&files);
    assert!(
        problems.is_empty(),
        "the engine's layers ({}) must only use the layers below them:\n{}",
        LAYERS.join(" < "),
        problems.join("\n")
    );
}

#[test]
fn the_layer_check_sees_what_it_is_meant_to() {
    let file = |rel: &str, text: &str| (rel.to_string(), text.to_string());
    // (files, problems expected)
    let cases: &[(Files, &[&str])] = &[
        // a downward path and a call of a lower layer's method are fine
        (
            vec![
                file(
                    "object/heap.rs",
                    "//! h\nimpl Vm {\n    fn alloc(&mut self) {}\n}\n",
                ),
                file(
                    "prims/mod.rs",
                    "use crate::object::heap;\nfn f() { vm.alloc(); }\n",
                ),
            ],
            &[],
        ),
        // an upward path
        (
            vec![file("interp/vm.rs", "use crate::persist::RepoState;\n")],
            &["interp/vm.rs: uses crate::persist"],
        ),
        // a call of a method only a higher layer defines
        (
            vec![
                file(
                    "prims/mod.rs",
                    "impl Vm {\n    pub fn prim(&mut self) { x(); }\n}\n",
                ),
                file("interp/vm.rs", "fn send(&mut self) { self.prim(); }\n"),
            ],
            &["interp/vm.rs: calls Vm::prim, defined in prims"],
        ),
        // a method several layers define is named by the lowest of them
        (
            vec![
                file("api/mod.rs", "impl Vm {\n    fn new_string(&self) {}\n}\n"),
                file(
                    "interp/access.rs",
                    "impl Vm {\n    fn new_string(&self) {}\n}\n",
                ),
                file("object/heap.rs", "fn f() { vm.new_string(); }\n"),
            ],
            &["object/heap.rs: calls Vm::new_string, defined in interp"],
        ),
        // tests may use anything; a file outside the layers is reported
        (
            vec![
                file(
                    "object/value.rs",
                    "#[cfg(test)]\nmod t { use crate::api::Session; }\n",
                ),
                file("stray.rs", ""),
            ],
            &["stray.rs: in no layer (add it to one, or to LAYERS)"],
        ),
        // a test-only declaration early in a file does not hide what follows
        (
            vec![file(
                "interp/state.rs",
                "#[cfg(test)]\n#[path = \"x.rs\"]\nmod x;\nuse crate::persist::RepoState;\n",
            )],
            &["interp/state.rs: uses crate::persist"],
        ),
    ];
    for (files, expected) in cases {
        assert_eq!(upward_uses(files), *expected, "for {files:?}");
    }
}

/// The top-level modules of a crate's `src/` (a directory is one module with
/// its files; `lib.rs`, `main.rs` and `bin/` are the crate's roots, not
/// modules), each with the code of its files before their tests, comments cut.
fn crate_modules(src: &Path) -> BTreeMap<String, String> {
    let mut files = vec![];
    rust_sources(src, src, &mut files);
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (rel, text) in files {
        if rel == "main.rs" {
            continue;
        }
        let code: String = without_tests(&text)
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let module = layer_of(&rel).to_string();
        out.entry(module).or_default().push_str(&code);
    }
    out
}

/// The cycles among `modules` (each reported once, from its first module by
/// name), as "a -> b -> a".
fn module_cycles(modules: &BTreeMap<String, String>) -> Vec<String> {
    let names: Vec<&str> = modules.keys().map(String::as_str).collect();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, code) in modules {
        let used = edges.entry(module.as_str()).or_default();
        let mut mention = |path: &str| {
            let name = path
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if let Some(n) = names.iter().find(|n| **n == name && **n != module) {
                used.insert(*n);
            }
        };
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            match rest.strip_prefix('{') {
                Some(list) => {
                    let list = &list[..list.find('}').unwrap_or(list.len())];
                    for item in list.split(',') {
                        mention(item.trim());
                    }
                }
                None => mention(rest),
            }
        }
    }
    let mut cycles = BTreeSet::new();
    // depth-first from every module; a path that comes back to a module on it
    // is a cycle, recorded from its smallest name so each is reported once
    fn walk<'a>(
        at: &'a str,
        path: &mut Vec<&'a str>,
        edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        cycles: &mut BTreeSet<String>,
    ) {
        for &next in edges.get(at).into_iter().flatten() {
            if let Some(i) = path.iter().position(|m| *m == next) {
                let mut cycle: Vec<&str> = path[i..].to_vec();
                let start = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
                cycle.rotate_left(start);
                cycle.push(cycle[0]);
                cycles.insert(cycle.join(" -> "));
            } else if path.len() < 12 {
                path.push(next);
                walk(next, path, edges, cycles);
                path.pop();
            }
        }
    }
    for name in &names {
        walk(name, &mut vec![name], &edges, &mut cycles);
    }
    cycles.into_iter().collect()
}

#[test]
fn no_crates_modules_depend_on_each_other_in_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in [
        "ipc",
        "router",
        "worker",
        "store",
        "gci-abi",
        "gci",
        "smalltalk",
        "tests",
    ] {
        let src = root.join(krate).join("src");
        let modules = crate_modules(&src);
        assert!(!modules.is_empty(), "{krate}'s modules were found");
        let cycles = module_cycles(&modules);
        assert!(
            cycles.is_empty(),
            "{krate}'s modules depend on each other in a circle (move what both \
             need below them):\n{}",
            cycles.join("\n")
        );
    }
}

#[test]
fn the_cycle_check_sees_what_it_is_meant_to() {
    let crate_of = |files: &[(&str, &str)]| -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(m, code)| (m.to_string(), code.to_string()))
            .collect()
    };
    /// Modules and their code.
    type Modules<'a> = &'a [(&'a str, &'a str)];
    // (modules, cycles expected)
    let cases: &[(Modules, &[&str])] = &[
        (&[("a", "use crate::b::X;"), ("b", "fn f() {}")], &[]),
        (
            &[("a", "use crate::b::X;"), ("b", "use crate::a;")],
            &["a -> b -> a"],
        ),
        (
            &[
                ("a", "use crate::{b, c::Y};"),
                ("b", "fn f() { crate::c::g() }"),
                ("c", "use crate::{error::E, a::Z};"),
                ("error", ""),
            ],
            &["a -> b -> c -> a", "a -> c -> a"],
        ),
        // a module naming itself, or a name that is not a module, is no edge
        (&[("a", "use crate::a::X; use crate::abc;")], &[]),
    ];
    for (files, expected) in cases {
        assert_eq!(module_cycles(&crate_of(files)), *expected, "for {files:?}");
    }
}
