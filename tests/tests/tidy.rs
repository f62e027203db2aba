//! House rules checked on the whole workspace's Rust sources: every file opens
//! with a `//!` doc saying what it owns; no source file outside the test
//! directories is longer than [`MAX_LINES`]; nothing is skipped with an ignore
//! attribute and no debugging macro is left behind.

use std::path::{Path, PathBuf};

/// The longest a non-test source file may be.
const MAX_LINES: usize = 1_500;

/// The crates' directories, relative to the workspace root.
const CRATES: &[&str] = &[
    "ipc",
    "router",
    "worker",
    "smalltalk",
    "store",
    "gci-abi",
    "gci",
    "tests",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            // build output and installed client dependencies are not ours
            if !matches!(name, "target" | ".deps" | "node_modules") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Every Rust file of the workspace, as (path relative to the root, text).
fn sources() -> Vec<(String, String)> {
    let root = workspace();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate), &mut files);
    }
    rust_files(&root.join("bench"), &mut files);
    let sources: Vec<(String, String)> = files
        .into_iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read_to_string(&f).expect("read source"))
        })
        .collect();
    assert!(sources.len() > 100, "found only {} files", sources.len());
    sources
}

/// Whether `rel` is test code (a crate's tests, examples or the shared test crate's).
fn is_test_code(rel: &str) -> bool {
    rel.split('/')
        .any(|part| matches!(part, "tests" | "examples"))
        && !rel.starts_with("tests/src/")
}

#[test]
fn every_module_opens_with_a_doc_comment() {
    let missing: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! doc: {missing:?}"
    );
}

#[test]
fn no_source_file_is_too_long() {
    let mut too_long = Vec::new();
    for (rel, text) in sources() {
        let lines = text.lines().count();
        if !is_test_code(&rel) && lines > MAX_LINES {
            too_long.push(format!("{rel} ({lines} lines)"));
        }
    }
    assert!(
        too_long.is_empty(),
        "longer than {MAX_LINES} lines: {too_long:?}; split them by what they own"
    );
}

#[test]
fn nothing_is_skipped_or_left_for_debugging() {
    // spelt in pieces so that this file does not find itself
    let forbidden = [concat!("#[", "ignore"), concat!("dbg", "!(")];
    let mut found = Vec::new();
    for (rel, text) in sources() {
        for (n, line) in text.lines().enumerate() {
            for f in forbidden {
                if line.contains(f) {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn the_test_code_rule_reads_paths_as_meant() {
    let table = [
        ("router/src/http.rs", false),
        ("tests/src/harness.rs", false),
        ("tests/tests/http.rs", true),
        ("store/tests/session.rs", true),
        ("smalltalk/examples/login_history.rs", true),
        ("ipc/src/frames.rs", false),
    ];
    for (rel, test) in table {
        assert_eq!(is_test_code(rel), test, "{rel}");
    }
}
