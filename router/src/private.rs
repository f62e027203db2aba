//! Files that hold secrets or what the router logs: checking that a secret's
//! file (token, TLS key) is the user's alone, and creating the log file and
//! other new files readable by their owner only, whatever the umask.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Writes a new file `path` (replacing one that is there) with `mode`.
pub fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    use std::io::Write;
    let _ = std::fs::remove_file(path);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|e| format!("{}: cannot create ({e})", path.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("{}: cannot write ({e})", path.display()))
}

/// Refuses a secret's file that others may read or that another user owns,
/// as ssh does with a private key. `what` names the setting in the message.
pub fn check_private_file(path: &Path, what: &str) -> Result<(), String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{what} {shown}: not a regular file"));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "{what} {shown}: its mode is {mode:04o}, so other users may read it; \
             `chmod 600 {shown}`"
        ));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(format!(
            "{what} {shown}: it belongs to user id {}, not to the user running gsmcp ({me})",
            meta.uid()
        ));
    }
    Ok(())
}

/// Opens `path` for appending, creating it readable by the user alone (its
/// directory must exist). An existing file that others may read is made
/// private.
pub fn open_private_append(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_files() {
        let dir = std::env::temp_dir().join(format!("gsmcp-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let log = dir.join("logs/gsmcp.log");
        assert!(
            open_private_append(&log).is_err(),
            "a missing directory is not made"
        );
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        let f = open_private_append(&log).unwrap();
        drop(f);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&log), 0o600);
        assert!(check_private_file(&log, "X").is_ok());
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = check_private_file(&log, "MCP_TOKEN_FILE").unwrap_err();
        assert!(e.contains("0644") && e.contains("chmod 600"), "{e}");
        open_private_append(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        assert!(check_private_file(&dir.join("none"), "X").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
