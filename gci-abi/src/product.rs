//! Where a GemStone/S 64 product directory keeps its thread-safe GCI library
//! (`$GEMSTONE/lib/libgcits-<version>-64.so`), and which versions gsmcp
//! speaks. Both the router (checking settings before it binds) and the
//! worker (loading the library) ask here, so they agree on the file.

use std::path::{Path, PathBuf};

/// The shared-library suffix of this platform.
pub const SUFFIX: &str = if cfg!(target_os = "macos") {
    "dylib"
} else {
    "so"
};

/// The GemStone versions whose thread-safe GCI this backend speaks.
pub fn supported(version: &str) -> bool {
    version.starts_with("3.6.") || version.starts_with("3.7.")
}

/// The first release whose logins take a JSON Web Token as the password
/// ([`crate::GCI_JWT_PASSWORD`]).
pub const JWT_LOGINS_SINCE: &str = "3.7.4.1";

/// Whether the library of `version` logs in with a JSON Web Token: 3.7.4.1
/// and later, compared part by part (`3.7.10` is after `3.7.4.1`).
pub fn has_jwt_logins(version: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(version) >= parts(JWT_LOGINS_SINCE)
}

/// The version in a library file name `libgcits-<version>-64.<suffix>`.
pub fn version_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let v = name
        .strip_prefix("libgcits-")?
        .strip_suffix(&format!("-64.{SUFFIX}"))?;
    let ok = !v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then(|| v.to_string())
}

/// The library to load: `explicit`, else the one `libgcits-*-64` file under
/// `$GEMSTONE/lib`. Checks the file and its version; loads nothing.
pub fn locate(gemstone: Option<&str>, explicit: Option<&str>) -> Result<(PathBuf, String), String> {
    let path = match (explicit, gemstone) {
        (Some(p), _) => {
            let p = PathBuf::from(p);
            if !p.is_file() {
                return Err(format!(
                    "the GCI library {} does not exist (check MCP_GCI_LIBRARY)",
                    p.display()
                ));
            }
            p
        }
        (None, Some(g)) => {
            let dir = Path::new(g).join("lib");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|e| {
                    format!(
                        "cannot read {} ({e}): set GEMSTONE to a GemStone/S 64 product directory \
                         (or name the library with MCP_GCI_LIBRARY)",
                        dir.display()
                    )
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| version_of(p).is_some())
                .collect();
            found.sort();
            match found.len() {
                0 => {
                    return Err(format!(
                        "no libgcits-<version>-64.{SUFFIX} in {}: set GEMSTONE to a GemStone/S 64 \
                         product directory (or name the library with MCP_GCI_LIBRARY)",
                        dir.display()
                    ))
                }
                1 => found.remove(0),
                _ => {
                    return Err(format!(
                        "{} holds several GCI libraries ({}): name one with MCP_GCI_LIBRARY",
                        dir.display(),
                        found
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        }
        (None, None) => {
            return Err(
                "the GCI backend needs GEMSTONE (the product directory) or MCP_GCI_LIBRARY".into(),
            )
        }
    };
    let Some(version) = version_of(&path) else {
        return Err(format!(
            "{} is not named libgcits-<version>-64.{SUFFIX}, so its version is unknown: \
             name the file as GemStone ships it",
            path.display()
        ));
    };
    if !supported(&version) {
        return Err(format!(
            "{} is GemStone {version}; this backend supports the thread-safe GCI of 3.6.x and \
             3.7.x: point GEMSTONE at a 3.6 or 3.7 client",
            path.display()
        ));
    }
    Ok((path, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_file_name() {
        let table = [
            ("libgcits-3.7.5-64.so", Some("3.7.5")),
            ("libgcits-3.7.4.1-64.so", Some("3.7.4.1")),
            ("libgcits-3.6.2-64.so", Some("3.6.2")),
            ("libgcits-64.so", None),
            ("libgcits-3.7.x-64.so", None),
            ("libgcirpc-3.7.5-64.so", None),
            ("libgcits-3.7.5-64.so.1", None),
        ];
        for (name, want) in table {
            let name = name.replace(".so", &format!(".{SUFFIX}"));
            assert_eq!(version_of(Path::new(&name)).as_deref(), want, "{name}");
        }
        assert!(supported("3.7.5") && supported("3.6.2"));
        assert!(!supported("3.5.8") && !supported("4.0.0"));
    }

    #[test]
    fn jwt_logins_start_with_3_7_4_1() {
        let table = [
            ("3.6.2", false),
            ("3.7.0", false),
            ("3.7.4", false),
            ("3.7.4.1", true),
            ("3.7.4.2", true),
            ("3.7.5", true),
            ("3.7.10", true),
        ];
        for (version, want) in table {
            assert_eq!(has_jwt_logins(version), want, "{version}");
        }
    }
}
