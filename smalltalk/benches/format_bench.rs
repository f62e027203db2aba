//! Prints how long the method formatter takes over 10,000 methods (the
//! shipped kernel's methods, cycled, as written and with their layout
//! flattened onto one line), beside parsing the same methods, in the same
//! run, so a noisy machine shows in both columns. Run with
//! `cargo bench -p gsmcp-smalltalk --bench format_bench`.

use gsmcp_smalltalk::format::format_method;
use gsmcp_smalltalk::parser::parse_method;
use gsmcp_smalltalk::topaz::{parse_all, CommandKind};
use std::path::{Path, PathBuf};
use std::time::Instant;

const METHODS: usize = 10_000;
const ROUNDS: usize = 5;

fn kernel_methods(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the kernel directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            kernel_methods(&path, out);
        } else if path.extension().is_some_and(|x| x == "gs") {
            let text = std::fs::read_to_string(&path).expect("a kernel file");
            for c in parse_all(&text).expect("kernel topaz") {
                if let CommandKind::Method { source, .. } = c.kind {
                    out.push(source);
                }
            }
        }
    }
}

/// The source with every run of white space outside literals and comments
/// made one space (the layout an agent's one-line source has); kept as is
/// when that does not parse the same.
fn flattened(source: &str) -> String {
    let mut out = String::new();
    let (mut in_string, mut in_comment, mut space) = (false, false, false);
    for c in source.chars() {
        if !in_string && !in_comment && c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            '\'' if !in_comment => in_string = !in_string,
            '"' if !in_string => in_comment = !in_comment,
            _ => {}
        }
        out.push(c);
    }
    if format_method(&out).is_ok() {
        out
    } else {
        source.to_string()
    }
}

fn best_ms(mut f: impl FnMut()) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut kernel = Vec::new();
    kernel_methods(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel"),
        &mut kernel,
    );
    let as_written: Vec<String> = kernel.iter().cycle().take(METHODS).cloned().collect();
    let flat: Vec<String> = as_written.iter().map(|s| flattened(s)).collect();
    let chars: usize = as_written.iter().map(|s| s.chars().count()).sum();
    println!(
        "{METHODS} methods ({} distinct kernel methods cycled, {:.1} MB), best of {ROUNDS} rounds",
        kernel.len(),
        chars as f64 / 1e6
    );
    println!(
        "{:<28} {:>12} {:>12} {:>8}",
        "", "format ms", "parse ms", "ratio"
    );
    for (name, set) in [
        ("as written", &as_written),
        ("flattened to one line", &flat),
    ] {
        let format = best_ms(|| {
            for s in set {
                format_method(s).expect("the kernel formats");
            }
        });
        let parse = best_ms(|| {
            for s in set {
                parse_method(s).expect("the kernel parses");
            }
        });
        println!(
            "{name:<28} {format:>12.1} {parse:>12.1} {:>8.2}",
            format / parse
        );
    }
}
