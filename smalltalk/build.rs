//! Embeds every `kernel/*.gs` file into the library (in lexical file-name order)
//! so the binary needs no kernel files at run time.

use std::{env, fs, path::PathBuf};

fn main() {
    let dir =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("kernel");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = match fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "gs"))
            .collect(),
        Err(_) => vec![],
    };
    files.sort();
    let mut out = String::from("/// The kernel file-ins, in load order: (file name, contents).\npub static KERNEL_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            name,
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("kernel_files.rs");
    fs::write(dest, out).expect("write kernel_files.rs");
}
