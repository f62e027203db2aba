//! The embedded stone's module graph has no cycle: `smalltalk/src` is laid out
//! in layers ([`LAYERS`], bottom first), and a layer's code may use only the
//! layers below it (and itself). Two kinds of use are checked:
//! - a path naming a layer (`crate::prims::…`);
//! - a call of a `Vm` method (`self.name(…)`, `vm.name(…)`) that only higher
//!   layers define: every layer adds methods to the interpreter's `Vm`, so a
//!   call is the dependency a `use` line does not show.
//!
//! Test modules (from the first `#[cfg(test)]` on) may use any layer.

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

/// The code of a file before its tests.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
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
    let mut defined: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (rel, text) in files {
        let Some(r) = rank(layer_of(rel)) else {
            problems.push(format!("{rel}: in no layer (add it to one, or to LAYERS)"));
            continue;
        };
        for name in vm_methods(without_tests(text)) {
            defined.entry(name).or_default().insert(r);
        }
    }
    for (rel, text) in files {
        let Some(own) = rank(layer_of(rel)) else {
            continue;
        };
        let code = without_tests(text);
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

fn engine_sources(dir: &Path, base: &Path, out: &mut Files) {
    for entry in std::fs::read_dir(dir).expect("read smalltalk/src") {
        let path = entry.expect("dir entry").path();
        let rel = path
            .strip_prefix(base)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            // the binaries are clients of the library, not part of its graph
            if rel != "bin" {
                engine_sources(&path, base, out);
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
    engine_sources(&src, &src, &mut files);
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
    ];
    for (files, expected) in cases {
        assert_eq!(upward_uses(files), *expected, "for {files:?}");
    }
}
