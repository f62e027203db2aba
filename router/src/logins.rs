//! Who a session's worker logs in as, and what proves it
//! (`MCP_WORKER_LOGIN`).
//!
//! * **shared**: every worker logs in as `MCP_WORKER_USER` with its password
//!   (`MCP_WORKER_PASSWORD_FILE` or `MCP_WORKER_PASSWORD`), the default
//!   without OAuth.
//! * **per-user**, the default with `MCP_AUTH=oauth`: each session's worker
//!   logs in as the repository user its access token names (the user claim,
//!   through `MCP_OAUTH_USER_MAP` when set). The router holds no password of
//!   those users. On the embedded stone it mints, for each session, a
//!   one-time login ticket with the repository's login key
//!   (`<repository>.login-key`, made here when missing, private to this
//!   user), which the stone checks, spends and never accepts again
//!   (`gsmcp_smalltalk::tickets`). On a GemStone stone (3.7.4.1 and later)
//!   the worker logs in with the session's access token itself as a JWT
//!   login, and the stone verifies it once more against the user's JWT
//!   settings and the keys it trusts; an older library is refused at
//!   start-up. An in-memory image, which has no users of its own, is refused.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use gsmcp_ipc::Credential;

use crate::identity::Principal;
use crate::secret::Secret;
use crate::secret::{hex, random, unhex, unix_now};

/// The environment variable holding the worker user's password.
pub const WORKER_PASSWORD_ENV: &str = "MCP_WORKER_PASSWORD";

/// The settings the logins are made from, as the command line gave them.
#[derive(Debug, Default)]
pub struct Settings<'a> {
    /// `MCP_WORKER_LOGIN`.
    pub mode: &'a str,
    /// `MCP_WORKER_USER`.
    pub user: Option<&'a str>,
    /// `MCP_WORKER_PASSWORD_FILE`.
    pub password_file: Option<&'a Path>,
    /// `MCP_WORKER_PASSWORD`.
    pub password: Option<Secret>,
}

/// What every ticket starts with; the stone reads the same format.
const TICKET_PREFIX: &str = "gsmcp-ticket.1.";

/// How long a ticket is valid: enough for a worker to start and log in on a
/// busy machine (a first login may create the repository), short enough that
/// one that leaked is soon worthless; it logs in only once anyway.
const TICKET_LIFETIME_SECS: u64 = 120;

/// The default worker login on an in-memory image and on GemStone: a new
/// stone's DataCurator and its password.
pub const DEFAULT_WORKER_USER: &str = "DataCurator";
/// The default worker login on an embedded repository: its developer user,
/// who may not change the kernel (a new repository has it, with the same
/// password).
pub const DEVELOPER_WORKER_USER: &str = "Developer";
/// The password a new repository and a new stone give both default users.
pub const DEFAULT_WORKER_PASSWORD: &str = "swordfish";

/// Where the workers log in, as far as their default user is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginTarget {
    /// an in-memory image: DataCurator only
    Memory,
    /// an embedded repository file: Developer by default
    Repository,
    /// a GemStone stone: DataCurator by default
    Gemstone {
        /// Its library takes a JWT as a login's password (3.7.4.1 and later).
        jwt_logins: bool,
    },
}

/// How the workers of this router log in.
#[derive(Debug)]
pub enum Logins {
    /// Every worker as one user, with its password.
    Shared {
        /// `MCP_WORKER_USER`.
        user: String,
        /// Its password.
        password: Secret,
    },
    /// Each worker as its principal's repository user.
    PerUser(PerUser),
}

/// What a per-user worker proves its user with.
#[derive(Debug)]
pub enum PerUser {
    /// A one-time ticket made with the embedded repository's login key.
    Ticket {
        /// The repository's login key.
        key: LoginKey,
        /// Who `--check` logs in as (`MCP_WORKER_USER`, default Developer).
        check_user: String,
    },
    /// The session's own access token, as a GemStone JWT login.
    Token,
}

/// One worker's login: the user and what proves it.
pub struct WorkerLogin {
    /// The repository user.
    pub user: String,
    /// Its password or a fresh ticket.
    pub credential: Credential,
}

impl Logins {
    /// The placeholder a configuration with problems carries.
    pub fn placeholder() -> Logins {
        Logins::Shared {
            user: DEFAULT_WORKER_USER.into(),
            password: Secret::new(DEFAULT_WORKER_PASSWORD),
        }
    }

    /// What the start-up log line and `--check` say about the logins.
    pub fn describe(&self) -> String {
        match self {
            Logins::Shared { user, .. } => format!("shared, as {user}"),
            Logins::PerUser(PerUser::Ticket { .. }) => "per-user, by one-time ticket".into(),
            Logins::PerUser(PerUser::Token) => {
                "per-user, by the client's access token (a JWT login the stone verifies)".into()
            }
        }
    }

    /// The secrets among the settings, for the redaction layer: the shared
    /// password, or the login key as its file spells it. (Access tokens are
    /// the client's, and redacted wherever they appear.)
    pub fn secrets(&self) -> Vec<Secret> {
        match self {
            Logins::Shared { password, .. } => vec![password.clone()],
            Logins::PerUser(PerUser::Ticket { key, .. }) => vec![Secret::new(hex(&key.0))],
            Logins::PerUser(PerUser::Token) => vec![],
        }
    }

    /// Whether `--check` can log in: not when each login needs a client's
    /// access token.
    pub fn checkable(&self) -> bool {
        !matches!(self, Logins::PerUser(PerUser::Token))
    }

    /// The login of a session `principal` opens, or why it may not log in.
    /// `None`: `--check`'s login.
    pub fn for_principal(&self, principal: Option<&Principal>) -> Result<WorkerLogin, String> {
        let per_user = match self {
            Logins::Shared { user, password } => {
                return Ok(WorkerLogin {
                    user: user.clone(),
                    credential: Credential::Password(password.expose().to_string()),
                })
            }
            Logins::PerUser(p) => p,
        };
        let (name, token) = match principal {
            Some(Principal::User { name, token, .. }) => (Some(name.as_str()), Some(token)),
            None => (None, None),
            Some(other) => {
                return Err(format!(
                    "per-user workers need an OAuth principal, not {}",
                    other.name()
                ))
            }
        };
        match (per_user, name, token) {
            (PerUser::Ticket { key, check_user }, name, _) => {
                let user = name.unwrap_or(check_user);
                Ok(WorkerLogin {
                    user: user.to_string(),
                    credential: Credential::Ticket(key.mint(user, unix_now())?),
                })
            }
            (PerUser::Token, Some(name), Some(token)) => Ok(WorkerLogin {
                user: name.to_string(),
                credential: Credential::Jwt(token.expose().to_string()),
            }),
            (PerUser::Token, _, _) => Err(
                "per-user workers log in to GemStone with a client's access token, and there \
                 is none here"
                    .into(),
            ),
        }
    }
}

/// `MCP_WORKER_LOGIN` with the settings it depends on: the target the
/// workers log in to, whether OAuth is on, and the repository file.
pub fn configure(
    cli: &Settings<'_>,
    target: LoginTarget,
    oauth: bool,
    repository: Option<&str>,
) -> Result<Logins, String> {
    let mode = cli.mode.trim().to_ascii_lowercase();
    let per_user = match mode.as_str() {
        "" => oauth,
        "shared" => false,
        "per-user" => true,
        other => {
            return Err(format!(
                "MCP_WORKER_LOGIN={other:?} is not a login mode: use shared (every worker as \
                 MCP_WORKER_USER) or per-user (each as the user its OAuth token names)"
            ))
        }
    };
    if !per_user {
        let (user, password) = shared_login(cli, target)?;
        return Ok(Logins::Shared { user, password });
    }
    if !oauth {
        return Err(
            "MCP_WORKER_LOGIN=per-user needs MCP_AUTH=oauth: the access token names \
                the repository user"
                .into(),
        );
    }
    if cli.password_file.is_some() || cli.password.is_some() {
        return Err(format!(
            "MCP_WORKER_PASSWORD_FILE and {WORKER_PASSWORD_ENV} are not used by per-user \
             workers, which log in as their principal's user: unset them"
        ));
    }
    let repository = match (target, repository) {
        (LoginTarget::Gemstone { jwt_logins: true }, _) => {
            return Ok(Logins::PerUser(PerUser::Token));
        }
        (LoginTarget::Gemstone { jwt_logins: false }, _) => {
            return Err(format!(
                "per-user workers over GCI log in with the client's access token as a JWT \
                 login, which GemStone's library takes from {} on; this library is older: \
                 use a newer client library, or set MCP_WORKER_LOGIN=shared to log every \
                 worker in as MCP_WORKER_USER",
                gsmcp_gci_abi::product::JWT_LOGINS_SINCE
            ))
        }
        (LoginTarget::Memory, _) | (_, None) => {
            return Err(
                "per-user workers need a repository file (MCP_REPOSITORY): an \
                in-memory image has no users of its own; or set \
                MCP_WORKER_LOGIN=shared"
                    .into(),
            )
        }
        (LoginTarget::Repository, Some(r)) => r,
    };
    let check_user = match cli.user.map(str::trim) {
        None => DEVELOPER_WORKER_USER.to_string(),
        Some(u) if u.is_empty() || u.chars().any(char::is_control) => {
            return Err("MCP_WORKER_USER is empty or contains control characters".into())
        }
        Some(u) => u.to_string(),
    };
    Ok(Logins::PerUser(PerUser::Ticket {
        key: LoginKey::load_or_make(Path::new(repository))?,
        check_user,
    }))
}

/// The repository's login key: 32 bytes whose holder may mint tickets for
/// any of its users. Never printed.
pub struct LoginKey([u8; 32]);

impl std::fmt::Debug for LoginKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LoginKey(<redacted>)")
    }
}

impl LoginKey {
    /// The key file of the repository at `repository`.
    pub fn path_for(repository: &Path) -> PathBuf {
        let mut name = repository.as_os_str().to_os_string();
        name.push(".login-key");
        PathBuf::from(name)
    }

    /// Reads the repository's key, making it (mode 0600) when there is none;
    /// an existing key file must be private to this user.
    pub fn load_or_make(repository: &Path) -> Result<LoginKey, String> {
        let path = LoginKey::path_for(repository);
        let shown = path.display();
        if !path.exists() {
            let key: [u8; 32] = random(&format!("the login key {shown}"))?;
            let made = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .and_then(|mut f| f.write_all(format!("{}\n", hex(&key)).as_bytes()));
            match made {
                Ok(()) => {
                    tracing::info!(key = %shown, "made the repository's login key");
                    return Ok(LoginKey(key));
                }
                // another router made it at the same moment: read theirs
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(format!(
                        "cannot make the login key {shown} ({e}): per-user workers need it \
                beside the repository"
                    ))
                }
            }
        }
        crate::private::check_private_file(&path, "the login key")?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("the login key {shown}: cannot read it ({e})"))?;
        unhex(text.lines().next().unwrap_or("").trim())
            .map(LoginKey)
            .ok_or_else(|| format!("the login key {shown} does not hold 64 hex digits"))
    }

    /// A ticket for `user`, valid from `now` (Unix seconds) for
    /// [`TICKET_LIFETIME_SECS`]: a fresh random nonce, the expiry, and the
    /// HMAC-SHA-256 of the format, user, nonce and expiry under the key.
    pub fn mint(&self, user: &str, now: u64) -> Result<String, String> {
        let nonce: [u8; 16] = random("a login ticket")?;
        Ok(self.mint_with(user, &nonce, now + TICKET_LIFETIME_SECS))
    }

    fn mint_with(&self, user: &str, nonce: &[u8; 16], expires: u64) -> String {
        let nonce_hex = hex(nonce);
        let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &self.0);
        let signed = format!("{TICKET_PREFIX}\n{user}\n{nonce_hex}\n{expires}");
        let mac = aws_lc_rs::hmac::sign(&key, signed.as_bytes());
        format!("{TICKET_PREFIX}{nonce_hex}.{expires}.{}", hex(mac.as_ref()))
    }
}

/// The worker login: `MCP_WORKER_USER` and its password from
/// `MCP_WORKER_PASSWORD_FILE` or `MCP_WORKER_PASSWORD` (not both). Without a
/// user, the target's default user (Developer on an embedded repository,
/// else DataCurator); without a password, a new repository's password for
/// either of them. Messages never contain the password.
fn shared_login(cli: &Settings<'_>, target: LoginTarget) -> Result<(String, Secret), String> {
    let default_user = match target {
        LoginTarget::Repository => DEVELOPER_WORKER_USER,
        LoginTarget::Memory | LoginTarget::Gemstone { .. } => DEFAULT_WORKER_USER,
    };
    let user = match cli.user.map(str::trim) {
        None => None,
        Some("") => {
            return Err(format!(
                "MCP_WORKER_USER is empty: name a repository user or leave it unset \
                ({default_user})"
            ))
        }
        Some(u) if u.chars().any(char::is_control) => {
            return Err("MCP_WORKER_USER contains control characters".into())
        }
        Some(u) => Some(u.to_string()),
    };
    let password = match (cli.password_file, &cli.password) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "both MCP_WORKER_PASSWORD_FILE and {WORKER_PASSWORD_ENV} are set: keep one"
            ))
        }
        (Some(path), None) => Some(read_password_file(path)?),
        (None, Some(secret)) => Some(secret.clone()),
        (None, None) => None,
    };
    let user = user.unwrap_or_else(|| default_user.into());
    if target == LoginTarget::Memory && user != DEFAULT_WORKER_USER {
        return Err(format!(
            "MCP_WORKER_USER={user} needs a repository file: an in-memory image \
             (MCP_REPOSITORY=:memory:) has only {DEFAULT_WORKER_USER}"
        ));
    }
    let password = match password {
        Some(p) => p,
        None if user == DEFAULT_WORKER_USER || user == DEVELOPER_WORKER_USER => {
            Secret::new(DEFAULT_WORKER_PASSWORD)
        }
        None => {
            return Err(format!(
                "MCP_WORKER_USER={user} needs its password: put it in a file named by \
                 MCP_WORKER_PASSWORD_FILE, or in {WORKER_PASSWORD_ENV}"
            ));
        }
    };
    Ok((user, password))
}

/// The first line of a password file, without its line end. The file must be
/// readable and not empty; its contents never appear in a message.
pub(crate) fn read_password_file(path: &Path) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "MCP_WORKER_PASSWORD_FILE {}: cannot read it ({e}): name a readable file holding the password",
            path.display()
        )
    })?;
    let line = text.lines().next().unwrap_or("");
    if line.is_empty() {
        return Err(format!(
            "MCP_WORKER_PASSWORD_FILE {}: the first line is empty: write the password on it",
            path.display()
        ));
    }
    Ok(Secret::new(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stone's test holds the same vector (`gsmcp_smalltalk::tickets`).
    #[test]
    fn tickets_have_the_stones_format() {
        assert_eq!(
            LoginKey([0x42; 32]).mint_with("alice", &[0x07; 16], 1_800_000_000),
            "gsmcp-ticket.1.07070707070707070707070707070707.1800000000.\
             5fcb2ab176f6d6fc9b40e25dbb6cec9c40fb7ed9fb94b7afbe460ba517dd5be1"
        );
        let key = LoginKey([1; 32]);
        assert_ne!(
            key.mint("a", 5).unwrap(),
            key.mint("a", 5).unwrap(),
            "fresh nonces"
        );
        assert_eq!(format!("{key:?}"), "LoginKey(<redacted>)");
    }

    #[test]
    fn the_key_is_made_once_and_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("gsmcp-loginkey-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let repo = dir.join("r.repository");
        let made = LoginKey::load_or_make(&repo).unwrap();
        let file = LoginKey::path_for(&repo);
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            LoginKey::load_or_make(&repo).unwrap().0,
            made.0,
            "read back, not remade"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = LoginKey::load_or_make(&repo).unwrap_err();
        assert!(e.contains("chmod 600"), "{e}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&file, "short\n").unwrap();
        let e = LoginKey::load_or_make(&repo).unwrap_err();
        assert!(e.contains("64 hex digits"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// (MCP_WORKER_LOGIN, oauth, target, repository, password set) -> the
    /// mode, or part of the refusal.
    #[test]
    fn login_modes() {
        use LoginTarget::{Memory, Repository};
        let (gemstone, old_gemstone) = (
            LoginTarget::Gemstone { jwt_logins: true },
            LoginTarget::Gemstone { jwt_logins: false },
        );
        let dir = std::env::temp_dir().join(format!("gsmcp-loginmode-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let repo = dir.join("r.repository").display().to_string();
        type Row<'a> = (
            &'a str,
            bool,
            LoginTarget,
            bool,
            bool,
            Result<&'a str, &'a str>,
        );
        let table: Vec<Row> = vec![
            (
                "",
                false,
                Repository,
                true,
                false,
                Ok("shared, as Developer"),
            ),
            ("", true, Repository, true, false, Ok("per-user")),
            (
                "shared",
                true,
                Repository,
                true,
                false,
                Ok("shared, as Developer"),
            ),
            ("Per-User", true, Repository, true, false, Ok("per-user")),
            (
                "per-user",
                false,
                Repository,
                true,
                false,
                Err("needs MCP_AUTH=oauth"),
            ),
            (
                "",
                true,
                gemstone,
                false,
                false,
                Ok("per-user, by the client's access token"),
            ),
            (
                "",
                false,
                gemstone,
                false,
                false,
                Ok("shared, as DataCurator"),
            ),
            (
                "",
                true,
                old_gemstone,
                false,
                false,
                Err("takes from 3.7.4.1 on; this library is older"),
            ),
            (
                "per-user",
                true,
                gemstone,
                false,
                true,
                Err("not used by per-user"),
            ),
            (
                "",
                true,
                Memory,
                false,
                false,
                Err("need a repository file"),
            ),
            (
                "",
                true,
                Repository,
                true,
                true,
                Err("not used by per-user"),
            ),
            (
                "each",
                true,
                Repository,
                true,
                false,
                Err("not a login mode"),
            ),
        ];
        for (mode, oauth, target, has_repo, password, want) in table {
            let cli = Settings {
                mode,
                password: password.then(|| Secret::new("pw")),
                ..Settings::default()
            };
            let got = configure(&cli, target, oauth, has_repo.then_some(repo.as_str()));
            match (got, want) {
                (Ok(l), Ok(part)) => assert!(l.describe().contains(part), "{mode}: {l:?}"),
                (Err(e), Err(part)) => assert!(e.contains(part), "{mode}: {e}"),
                (got, want) => panic!("{mode} {oauth} {target:?}: got {got:?}, want {want:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn shared_login_table() {
        let dir = std::env::temp_dir().join(format!("gsmcp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("password");
        std::fs::write(&file, "s3cret-word\nignored\n").unwrap();
        let empty = dir.join("empty");
        std::fs::write(&empty, "\n").unwrap();
        let missing = dir.join("missing");
        let p = |s: &str| Some(Secret::new(s));
        // (user, password file, MCP_WORKER_PASSWORD, target) -> Ok((user, password)) or Err(part of the message)
        type Case<'a> = (
            Option<&'a str>,
            Option<&'a Path>,
            Option<Secret>,
            LoginTarget,
            Result<(&'a str, &'a str), &'a str>,
        );
        use LoginTarget::{Memory, Repository};
        let gemstone = LoginTarget::Gemstone { jwt_logins: true };
        let table: Vec<Case> = vec![
            (None, None, None, Repository, Ok(("Developer", "swordfish"))),
            (None, None, None, Memory, Ok(("DataCurator", "swordfish"))),
            (None, None, None, gemstone, Ok(("DataCurator", "swordfish"))),
            (
                Some("DataCurator"),
                None,
                None,
                Repository,
                Ok(("DataCurator", "swordfish")),
            ),
            (
                Some("Developer"),
                None,
                None,
                gemstone,
                Ok(("Developer", "swordfish")),
            ),
            (
                None,
                None,
                p("other"),
                gemstone,
                Ok(("DataCurator", "other")),
            ),
            (
                Some("reader"),
                Some(&file),
                None,
                Repository,
                Ok(("reader", "s3cret-word")),
            ),
            (
                Some(" reader "),
                None,
                p("pw"),
                Repository,
                Ok(("reader", "pw")),
            ),
            (
                None,
                None,
                p("other"),
                Repository,
                Ok(("Developer", "other")),
            ),
            (
                Some("reader"),
                None,
                None,
                Repository,
                Err("needs its password"),
            ),
            (
                Some("reader"),
                None,
                p("pw"),
                Memory,
                Err("needs a repository file"),
            ),
            (
                Some(""),
                None,
                None,
                Repository,
                Err("MCP_WORKER_USER is empty"),
            ),
            (
                Some("reader"),
                Some(&file),
                p("pw"),
                Repository,
                Err("keep one"),
            ),
            (
                Some("reader"),
                Some(&missing),
                None,
                Repository,
                Err("cannot read it"),
            ),
            (
                Some("reader"),
                Some(&empty),
                None,
                Repository,
                Err("first line is empty"),
            ),
        ];
        for (user, file, env, target, expect) in table {
            let cli = Settings {
                user,
                password_file: file,
                password: env,
                ..Settings::default()
            };
            let got = shared_login(&cli, target);
            match (&got, expect) {
                (Ok((u, pw)), Ok((eu, ep))) => {
                    assert_eq!((u.as_str(), pw.expose()), (eu, ep), "{user:?}")
                }
                (Err(e), Err(part)) => {
                    assert!(e.contains(part), "{user:?}: {e}");
                    assert!(!e.contains("s3cret") && !e.contains("pw\""), "{e}");
                }
                _ => panic!("{user:?} {target:?}: got {got:?}, expected {expect:?}"),
            }
        }
        assert_eq!(format!("{:?}", Secret::new("s3cret")), "<redacted>");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
