//! Which repository a stone's network resource string names, and the login
//! to it. A stone name is a repository file under `$GEMSTONE/data/`
//! (`gs64stone` is `data/gs64stone.repository`), created with the kernel on
//! first login; a name with a `/` is the file itself; `:memory:` is a fresh,
//! unsaved image per login (for tests and experiments). The embedded stone
//! runs inside the client's process, so an NRS naming another host is refused
//! as GemStone refuses a stone it cannot find.

use gsmcp_gci_abi::{self as abi, GciErrSType};
use gsmcp_smalltalk::Session;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stone {
    Memory,
    File(PathBuf),
}

/// The `(host, resource name)` of a network resource string such as
/// `gs64stone`, `!@oboe!devstone` or `!tcp@oboe#netldi:ldi!devstone`.
pub fn split_nrs(nrs: &str) -> (String, String) {
    let nrs = nrs.trim();
    if !nrs.starts_with('!') {
        return (String::new(), nrs.to_string());
    }
    let Some(last) = nrs.rfind('!').filter(|&i| i > 0) else {
        return (String::new(), nrs[1..].to_string());
    };
    let header = &nrs[1..last];
    let name = nrs[last + 1..].to_string();
    let host = match header.find('@') {
        Some(at) => header[at + 1..].split('#').next().unwrap_or("").to_string(),
        None => String::new(),
    };
    (host, name)
}

fn is_local(host: &str) -> bool {
    if host.is_empty() || host == "localhost" || host == "127.0.0.1" || host == "::1" {
        return true;
    }
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    ok && {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let me = String::from_utf8_lossy(&buf[..end]);
        me.eq_ignore_ascii_case(host) || me.split('.').next() == Some(host)
    }
}

/// The product directory: `$GEMSTONE`, else the directory above the one this
/// library was loaded from (`<dir>/lib/libgcits-…so`).
pub fn product_dir() -> Option<PathBuf> {
    if let Some(g) = std::env::var_os("GEMSTONE").filter(|g| !g.is_empty()) {
        return Some(PathBuf::from(g));
    }
    // SAFETY: Dl_info is plain data for which all zero bytes are a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address of a function of this library.
    let found = unsafe { libc::dladdr(product_dir as *const libc::c_void, &mut info) } != 0;
    if !found || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr answered a NUL-terminated path.
    let file = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let lib = Path::new(std::ffi::OsStr::from_bytes(file.to_bytes()));
    lib.parent()?.parent().map(Path::to_path_buf)
}

/// The stone a login's stone NRS names (`None`: the default, `gs64stone`).
pub fn resolve(nrs: Option<&str>) -> Result<Stone, GciErrSType> {
    let nrs = nrs.unwrap_or(abi::DEFAULT_STONE);
    let (host, name) = split_nrs(nrs);
    if !is_local(&host) {
        return Err(GciErrSType::gemstone(
            abi::NET_ERR_NO_SUCH_STN,
            &format!(
                "stone {name} on host {host} not found: this library serves only stones on this \
                 host (the embedded stone runs inside the client process)"
            ),
        ));
    }
    if name.is_empty() {
        return Err(GciErrSType::gemstone(
            abi::NET_ERR_NO_SUCH_STN,
            "the stone name is empty",
        ));
    }
    if name == ":memory:" {
        return Ok(Stone::Memory);
    }
    if name.contains('/') {
        return Ok(Stone::File(PathBuf::from(name)));
    }
    let Some(dir) = product_dir() else {
        return Err(GciErrSType::gemstone(
            abi::NET_ERR_NO_SUCH_STN,
            &format!("stone {name} not found: GEMSTONE is not set and the library's own directory is unknown"),
        ));
    };
    Ok(Stone::File(
        dir.join("data").join(format!("{name}.repository")),
    ))
}

/// How often, and how far apart, a login is retried while the repository file
/// cannot be read yet (another process is still writing its first commit).
const LOGIN_RETRIES: u32 = 50;
const LOGIN_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

fn text_of(e: &gsmcp_smalltalk::StError) -> String {
    e.message_text
        .clone()
        .unwrap_or_else(|| e.description.clone())
}

/// What a login proves its user with, as the login flags say.
pub enum Proof {
    /// The user's password.
    Password(String),
    /// A JSON Web Token (`GCI_JWT_PASSWORD`).
    Jwt(String),
}

/// Logs in as `user`, creating the repository file first if there is none.
pub fn login(stone: &Stone, user: &str, proof: &Proof) -> Result<Session, GciErrSType> {
    let path = match stone {
        Stone::Memory => {
            if matches!(proof, Proof::Jwt(_)) {
                return Err(GciErrSType::gemstone(
                    abi::GS_ERR_LOGIN_DENIAL,
                    "login denied: an in-memory stone has no users enabled for JWT logins",
                ));
            }
            if user != "DataCurator" {
                return Err(GciErrSType::gemstone(
                    abi::GS_ERR_LOGIN_DENIAL,
                    &format!(
                        "login denied: an in-memory stone has no user {user:?}, only DataCurator"
                    ),
                ));
            }
            return Session::bootstrap()
                .map_err(|e| GciErrSType::gemstone(abi::ERR_IN_LOGIN, &text_of(&e)));
        }
        Stone::File(p) => p,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Err(GciErrSType::gemstone(
                abi::NET_ERR_NO_SUCH_STN,
                &format!(
                    "stone {} not found: cannot create {} ({e})",
                    path.display(),
                    dir.display()
                ),
            ));
        }
    }
    if let Err(e) = Session::create_repository_if_missing(path) {
        return Err(GciErrSType::gemstone(
            abi::NET_ERR_NO_SUCH_STN,
            &format!(
                "stone {} cannot be started: {}",
                path.display(),
                text_of(&e)
            ),
        ));
    }
    let mut attempt = 1;
    loop {
        let attempt_login = match proof {
            Proof::Password(password) => Session::login(path, user, password),
            Proof::Jwt(token) => Session::login_with_jwt(path, user, token),
        };
        match attempt_login {
            Ok(s) => return Ok(s),
            Err(e) if e.number == abi::GS_ERR_LOGIN_DENIAL as u32 => {
                // a token's refusal says which check failed; a password's
                // says no more than GemStone's
                let why = match proof {
                    Proof::Jwt(_) => text_of(&e),
                    Proof::Password(_) => "the user id or password is not valid".into(),
                };
                return Err(GciErrSType::gemstone(
                    abi::GS_ERR_LOGIN_DENIAL,
                    &format!("login denied for user {user:?}: {why}"),
                ));
            }
            Err(_) if attempt < LOGIN_RETRIES => {
                attempt += 1;
                std::thread::sleep(LOGIN_RETRY_PAUSE);
            }
            Err(e) => {
                return Err(GciErrSType::gemstone(
                    abi::ERR_IN_LOGIN,
                    &format!("login to {} failed: {}", path.display(), text_of(&e)),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_resource_strings() {
        let table = [
            ("gs64stone", "", "gs64stone"),
            ("!@oboe!devstone", "oboe", "devstone"),
            ("!tcp@oboe#netldi:ldi!devstone", "oboe", "devstone"),
            (
                "!@localhost#netldi:54321!gs64stone",
                "localhost",
                "gs64stone",
            ),
            ("!#netldi:ldi!gs64stone", "", "gs64stone"),
            ("/tmp/x.repository", "", "/tmp/x.repository"),
        ];
        for (nrs, host, name) in table {
            assert_eq!(
                split_nrs(nrs),
                (host.to_string(), name.to_string()),
                "{nrs}"
            );
        }
    }

    #[test]
    fn remote_hosts_are_refused() {
        let e = resolve(Some("!@far.example.org!gs64stone")).unwrap_err();
        assert_eq!(e.number, abi::NET_ERR_NO_SUCH_STN);
        assert_eq!(
            resolve(Some("!@localhost!:memory:")).unwrap(),
            Stone::Memory
        );
    }
}
