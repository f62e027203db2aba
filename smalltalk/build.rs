//! Embeds the kernel's file-ins into the library so the binary needs no kernel
//! files at run time, in load order: `kernel/definitions.gs` (the
//! class-definition protocol and every class the kernel adds), then one file
//! per class, `kernel/classes/*.gs`, by class name, and derives from them how
//! many arguments each primitive reads (a file of its own): the fewest that any kernel method (or
//! method of `src/persist/repository.gs`) using it takes (`PRIMITIVE_ARITY`,
//! 255 for a primitive no kernel method uses). A method with fewer arguments
//! than its primitive reads is compiled to run its fallback code instead.
//!
//! It also holds the named primitive numbers (`src/object/primitives.rs`)
//! and the kernel to each other, failing the build when a kernel method uses a
//! number that has no constant, when a constant's doc names a method that does
//! not use its number, or when a constant no kernel method uses does not say so
//! ("(no kernel method"); and it writes which numbers exist
//! (`KNOWN_PRIMITIVES`, exactly the constants) for the compiler.

use std::{env, fs, path::PathBuf};

#[path = "build/primitives.rs"]
mod primitives;
use primitives::check_numbers;

fn main() {
    let dir =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("kernel");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed={}", dir.join("classes").display());
    let mut classes: Vec<PathBuf> = fs::read_dir(dir.join("classes"))
        .expect("read kernel/classes")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "gs"))
        .collect();
    classes.sort();
    let files: Vec<PathBuf> = std::iter::once(dir.join("definitions.gs"))
        .chain(classes)
        .collect();
    let mut out = String::from("/// The kernel file-ins, in load order: (file name, contents).\npub static KERNEL_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f
            .strip_prefix(&dir)
            .unwrap_or(f)
            .to_string_lossy()
            .to_string();
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            name,
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    let mut arity = [u8::MAX; 500];
    // number -> the methods using it, as `Class>>selector` / `Class class>>selector`
    let mut users: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    // the kernel, and the repository's own methods filed in at login
    let repository_gs = dir
        .with_file_name("src")
        .join("persist")
        .join("repository.gs");
    println!("cargo:rerun-if-changed={}", repository_gs.display());
    for f in files.iter().chain([&repository_gs]) {
        let text = fs::read_to_string(f).expect("read a kernel file");
        let mut pattern_args: Option<u8> = None;
        let mut next_is_pattern = false;
        let mut class = String::new();
        let mut method = String::new();
        for line in text.lines() {
            let t = line.trim();
            if next_is_pattern {
                pattern_args = Some(args_of_pattern(t));
                method = format!("{class}>>{}", selector_of_pattern(t));
                next_is_pattern = false;
            } else if let Some(c) = t.strip_prefix("classmethod:") {
                class = format!("{} class", c.trim());
                next_is_pattern = true;
            } else if let Some(c) = t.strip_prefix("method:") {
                class = c.trim().to_string();
                next_is_pattern = true;
            } else if t == "%" {
                pattern_args = None;
            } else if let (Some(n), Some(a)) = (t.strip_prefix("<primitive:"), pattern_args) {
                if let Ok(n) = n.trim_end_matches('>').trim().parse::<usize>() {
                    if n < arity.len() {
                        arity[n] = arity[n].min(a);
                    }
                    users.entry(n).or_default().push(method.clone());
                }
            }
        }
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(out_dir.join("kernel_files.rs"), out).expect("write kernel_files.rs");
    let arity = format!(
        "/// Per primitive number, the fewest arguments a kernel method using it takes.\npub static PRIMITIVE_ARITY: [u8; 500] = {arity:?};\n"
    );
    fs::write(out_dir.join("primitive_arity.rs"), arity).expect("write primitive_arity.rs");
    let numbers = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
        .join("src/object/primitives.rs");
    println!("cargo:rerun-if-changed={}", numbers.display());
    println!("cargo:rerun-if-changed=build/primitives.rs");
    let text = fs::read_to_string(&numbers).expect("read src/object/primitives.rs");
    let known = match check_numbers(&text, &users) {
        Ok(known) => known,
        Err(problems) => panic!(
            "\nsrc/object/primitives.rs and the kernel disagree:\n  {}\n",
            problems.join("\n  ")
        ),
    };
    let mut table = [false; 500];
    for n in known {
        table[n] = true;
    }
    let known = format!(
        "/// Per primitive number, whether the engine implements it (a constant of `numbers`).\npub static KNOWN_PRIMITIVES: [bool; 500] = {table:?};\n"
    );
    fs::write(out_dir.join("primitive_known.rs"), known).expect("write primitive_known.rs");
}

/// The selector a method pattern line declares (`size`, `+`, `at:put:`).
fn selector_of_pattern(pattern: &str) -> String {
    let first = pattern.chars().next().unwrap_or(' ');
    if first.is_alphabetic() || first == '_' {
        let keywords: String = pattern
            .split_whitespace()
            .filter(|w| w.ends_with(':'))
            .collect();
        if keywords.is_empty() {
            pattern.split_whitespace().next().unwrap_or("").to_string()
        } else {
            keywords
        }
    } else {
        pattern.split_whitespace().next().unwrap_or("").to_string()
    }
}

/// How many arguments a method pattern line declares (`size` 0, `+ x` 1,
/// `at: i put: v` 2).
fn args_of_pattern(pattern: &str) -> u8 {
    let first = pattern.chars().next().unwrap_or(' ');
    if first.is_alphabetic() || first == '_' {
        pattern
            .split_whitespace()
            .filter(|w| w.ends_with(':'))
            .count() as u8
    } else {
        1
    }
}
