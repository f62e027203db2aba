//! The formatter over every method of the shipped kernel (`kernel/**/*.gs`,
//! read with the topaz parser): each formats without falling back (so its
//! syntax tree and comments are kept, which `format_method` checks itself),
//! and formatting the result again changes nothing.

use gsmcp_smalltalk::format::format_method;
use gsmcp_smalltalk::topaz::{parse_all, CommandKind};
use std::path::{Path, PathBuf};

fn kernel_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            kernel_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "gs") {
            out.push(path);
        }
    }
}

#[test]
fn every_kernel_method_formats_keeping_its_tree_and_formats_once() {
    let mut files = Vec::new();
    kernel_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel"),
        &mut files,
    );
    let mut methods = 0;
    let mut changed = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a kernel file");
        let commands = parse_all(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for command in commands {
            let CommandKind::Method { source, .. } = command.kind else {
                continue;
            };
            methods += 1;
            let where_ = format!("{}:{}", file.display(), command.line);
            let once = format_method(&source).unwrap_or_else(|e| panic!("{where_}: {e}"));
            let twice = format_method(&once).unwrap_or_else(|e| panic!("{where_} again: {e}"));
            assert_eq!(twice, once, "{where_}: formatting is not idempotent");
            if once != source {
                changed += 1;
            }
        }
    }
    assert!(methods > 1_000, "only {methods} kernel methods found");
    eprintln!("{methods} kernel methods formatted, {changed} laid out differently");
}
