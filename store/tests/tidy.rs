//! House rules checked on the crate's own sources: every Rust file opens with a
//! `//!` doc saying what it owns, and the public handles have the thread-safety
//! the layers above rely on.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_opens_with_a_doc_comment() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() >= 10, "found only {files:?}");
    let missing: Vec<_> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .expect("read source")
                .starts_with("//!")
        })
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! doc: {missing:?}"
    );
}

#[test]
fn handles_cross_threads_as_documented() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<gsmcp_store::Repository>();
    send_sync::<gsmcp_store::ViewWatch>();
    send_sync::<gsmcp_store::StoreError>();
    send::<gsmcp_store::StoreSession>();
}
