//! The login a worker holds, whatever stone is behind it.
//!
//! [`Login`] is the narrow surface the tools use: evaluate Smalltalk text and
//! answer its printString (or a String result), name the user and the stone, and
//! hand out a [`Breaker`] another thread uses to interrupt an evaluation. Tools are
//! written once, as Smalltalk both stones accept, so they never see which backend
//! answers. Only this module reaches a backend: the embedded stone's login is
//! here, the GCI backend (a GemStone library loaded at run time) is [`gci`],
//! and [`login`] makes the one a worker's configuration names.
//!
//! A login lives on the engine thread that created it (the embedded stone's
//! session is not `Send`); only its [`Breaker`] crosses threads.

pub mod gci;

use gsmcp_ipc::{Backend, Credential};
use gsmcp_smalltalk::{EvalPolicy, Interrupter, Session, StError, TransactionMark};
use std::path::Path;
use std::sync::Arc;

/// What the worker's own evaluations between tool calls may do: run the
/// kernel's code only, never commit.
pub const BETWEEN_CALLS: EvalPolicy = EvalPolicy {
    client_code: false,
    may_commit: false,
};

/// Why a login could not be made. `kind` is the `Failed` frame's kind.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// The backend (or a feature of it) is not available in this build.
    #[error("{0}")]
    Unsupported(String),
    /// The stone refused the login.
    #[error("login failed: {0}")]
    Refused(String),
    /// The GCI library could not be found, loaded or used.
    #[error("{0}")]
    Library(String),
}

impl LoginError {
    /// The `kind` the router reports for this failure.
    pub fn kind(&self) -> &'static str {
        match self {
            LoginError::Unsupported(_) => "unsupported",
            LoginError::Refused(_) => "login",
            LoginError::Library(_) => "library",
        }
    }
}

/// One login to a stone.
pub trait Login {
    /// Compiles `source` as a doit, runs it and answers the result's printString.
    fn evaluate_print_string(&mut self, source: &str) -> Result<String, StError>;
    /// Compiles `source` as a doit whose result is a String, and answers it.
    fn evaluate_string(&mut self, source: &str) -> Result<String, StError>;
    /// The stack report of the exception that ended the last evaluation
    /// (GemStone's lines, innermost first), when the stone gave one.
    fn last_error_stack(&self) -> Option<String>;
    /// The user the login belongs to.
    fn user(&self) -> String;
    /// The stone's name.
    fn stone(&self) -> String;
    /// The handle other threads use to interrupt this login's evaluations.
    fn breaker(&self) -> Arc<dyn Breaker>;
    /// Moves the view to the newest commit keeping this session's own changes
    /// (`System continueTransaction`); nothing to do without a shared repository.
    fn refresh(&mut self) -> Result<(), StError>;
    /// How many commits the session's view is behind the newest one; `None`
    /// when the stone has no shared repository (an in-memory image).
    fn commits_behind(&self) -> Option<u64>;
    /// A reader of [`Login::commits_behind`] other threads may call while an
    /// evaluation runs; `None` where the stone cannot say (an in-memory image,
    /// GCI, whose stone watches its own commit-record backlog).
    fn lag_reader(&self) -> Option<LagReader> {
        None
    }
    /// Whether a commit failed and only an abort clears it (the view cannot
    /// move until then); `false` where the stone does not say.
    fn must_abort(&self) -> bool {
        false
    }
    /// The session's view and abort count now, so a caller can tell whether an
    /// evaluation moved the view or discarded the session's changes; `None`
    /// when the stone has no shared repository.
    fn transaction_mark(&self) -> Option<TransactionMark>;
    /// Sends the unary `selector` to the stone's System class itself and
    /// answers the result's printString: not through the symbol list, which a
    /// client may have emptied, so the transaction tools (`abortTransaction`,
    /// `commitTransaction`, `needsCommit`, `session`) work whatever it holds.
    fn system_print_string(&mut self, selector: &str) -> Result<String, StError>;
    /// Sets what the following evaluations may do: run code the repository's
    /// classes define, commit. The embedded stone enforces it in its method
    /// lookup and its commit primitive; a GemStone stone has no such switch,
    /// so over GCI this does nothing and the stone's own rules apply.
    fn set_policy(&mut self, policy: EvalPolicy);
    /// Ends the login, releasing its view. Uncommitted changes are lost.
    fn logout(self: Box<Self>);
}

/// Reads a login's view, from any thread: the commit it reads at and how many
/// commits it is behind the newest.
pub type LagReader = Arc<dyn Fn() -> Option<(u64, u64)> + Send + Sync>;

/// Interrupts the evaluation running on a login, from another thread.
pub trait Breaker: Send + Sync {
    /// A soft break: a catchable error (6003) at the next send or loop back-edge.
    fn soft_break(&self);
    /// A hard break: an unconditional unwind (6004) that still runs `ensure:` blocks.
    fn hard_break(&self);
    /// Forgets a break request that no evaluation consumed, so it cannot hit the
    /// next call.
    fn clear(&self);
}

impl Breaker for Interrupter {
    fn soft_break(&self) {
        Interrupter::soft_break(self)
    }
    fn hard_break(&self) {
        Interrupter::hard_break(self)
    }
    fn clear(&self) {
        let _ = self.take();
    }
}

/// The embedded stone's login.
struct Embedded {
    session: Session,
    breaker: Arc<Interrupter>,
    /// What `stone()` answers: the repository path, or the image's stone name
    /// for an in-memory image.
    stone: String,
    /// Reads the view and how far it is behind; `None` for an in-memory image.
    behind: Option<LagReader>,
}

impl Login for Embedded {
    fn evaluate_print_string(&mut self, source: &str) -> Result<String, StError> {
        self.session.evaluate_print_string(source)
    }
    fn evaluate_string(&mut self, source: &str) -> Result<String, StError> {
        self.session.evaluate_string(source)
    }
    fn last_error_stack(&self) -> Option<String> {
        self.session.last_error_stack().map(String::from)
    }
    fn user(&self) -> String {
        self.session.user_id()
    }
    fn stone(&self) -> String {
        self.stone.clone()
    }
    fn breaker(&self) -> Arc<dyn Breaker> {
        self.breaker.clone()
    }
    fn refresh(&mut self) -> Result<(), StError> {
        if self.session.is_persistent() {
            self.session.continue_transaction()
        } else {
            Ok(())
        }
    }
    fn commits_behind(&self) -> Option<u64> {
        self.behind
            .as_ref()
            .and_then(|read| read())
            .map(|(_, behind)| behind)
    }
    fn lag_reader(&self) -> Option<LagReader> {
        self.behind.clone()
    }
    fn must_abort(&self) -> bool {
        self.session.must_abort()
    }
    fn transaction_mark(&self) -> Option<TransactionMark> {
        self.session.transaction_mark()
    }
    fn set_policy(&mut self, policy: EvalPolicy) {
        self.session.set_policy(policy)
    }
    fn system_print_string(&mut self, selector: &str) -> Result<String, StError> {
        self.session.system_print_string(selector)
    }
    fn logout(self: Box<Self>) {
        if let Err(e) = self.session.logout() {
            tracing::warn!("logout failed: {e}");
        }
    }
}

/// The stack of the thread that creates and drives a login: enough for the
/// embedded stone to interpret on it directly (deep Smalltalk recursion uses the
/// Rust stack and must end as a Smalltalk error, never as an overflow).
pub const ENGINE_STACK: usize = if Session::REQUIRED_STACK_BYTES > 256 << 20 {
    Session::REQUIRED_STACK_BYTES
} else {
    256 << 20
};

fn embedded(
    mut session: Session,
    stone: String,
    memory: u64,
) -> Result<Box<dyn Login>, LoginError> {
    let memory = usize::try_from(memory).unwrap_or(usize::MAX);
    let in_use = session.memory_in_use();
    if in_use > memory {
        return Err(LoginError::Refused(format!(
            "the stone's objects take {} MiB after login, more than the worker's memory ceiling \
             of {} MiB: raise MCP_WORKER_MEMORY",
            in_use >> 20,
            memory >> 20
        )));
    }
    session.set_memory_limit(memory);
    // The login lives on the engine thread, spawned with ENGINE_STACK, so the
    // interpreter may run right there instead of on a thread of its own per call.
    session.run_on_caller_thread(true);
    // until a tool says otherwise, the worker's own evaluations run kernel
    // code only and cannot commit
    session.set_policy(BETWEEN_CALLS);
    let breaker = Arc::new(session.interrupter());
    let behind = session.view_reader().map(LagReader::from);
    Ok(Box::new(Embedded {
        session,
        breaker,
        stone,
        behind,
    }))
}

/// Creates the repository file at `path` if there is none yet. Several workers
/// may race to do so; a loser finds the winner's file and logs in to it.
fn ensure_repository(path: &Path) -> Result<(), LoginError> {
    match Session::create_repository_if_missing(path) {
        Ok(true) => {
            tracing::info!(repository = %path.display(), "created a new repository");
            Ok(())
        }
        Ok(false) => Ok(()),
        Err(e) => Err(LoginError::Refused(format!(
            "cannot create the repository {}: {}",
            path.display(),
            e.message_text.as_deref().unwrap_or(&e.description)
        ))),
    }
}

/// GemStone's error for a login refused for its user id or password.
const LOGIN_DENIED: u32 = 4051;

/// Logs in to the repository at `path`, creating it first if there is none.
/// A file is put in place only whole, so a login that fails does so at once,
/// with the stone's reason (a refused user or ticket, a half-made or damaged
/// file).
fn login_repository(
    path: &Path,
    user: &str,
    credential: &Credential,
) -> Result<Session, LoginError> {
    ensure_repository(path)?;
    let login = match credential {
        Credential::Password(password) => Session::login(path, user, password),
        Credential::Ticket(ticket) => Session::login_with_ticket(path, user, ticket),
        Credential::Jwt(token) => Session::login_with_jwt(path, user, token),
    };
    login.map_err(|e| {
        if e.number == LOGIN_DENIED && matches!(credential, Credential::Password(_)) {
            // never the password: only which user the repository refused
            LoginError::Refused(format!(
                "the repository {} refused user {user:?}: the user id or password is not \
                 valid (check MCP_WORKER_USER and MCP_WORKER_PASSWORD or \
                 MCP_WORKER_PASSWORD_FILE)",
                path.display()
            ))
        } else {
            let why = e.message_text.as_deref().unwrap_or(&e.description);
            let shown = path.display().to_string();
            LoginError::Refused(if why.contains(&shown) {
                why.to_string()
            } else {
                format!("{why} ({shown})")
            })
        }
    })
}

/// The only user the embedded stone's fresh in-memory image has.
const EMBEDDED_USER: &str = "DataCurator";

/// Logs in to the stone `backend` names. Must run on a thread with
/// [`ENGINE_STACK`] of stack, which then drives the login for its whole life.
/// `memory` is the embedded stone's object memory budget (AlmostOutOfMemory
/// past it); a GemStone gem has its own.
pub fn login(backend: &Backend, memory: u64) -> Result<Box<dyn Login>, LoginError> {
    match backend {
        Backend::Embedded {
            repository: Some(path),
            user,
            credential,
        } => {
            let path = Path::new(path);
            let session = login_repository(path, user, credential)?;
            embedded(session, path.display().to_string(), memory)
        }
        Backend::Embedded {
            repository: None,
            user,
            credential,
        } => {
            // The in-memory image has one user and no password store; a login as
            // anyone else, or by ticket or token (nothing here could check
            // either), is refused rather than silently run as DataCurator.
            if !matches!(credential, Credential::Password(_)) {
                return Err(LoginError::Refused(
                    "an in-memory image has no users of its own: per-user logins need a \
                     repository file"
                        .into(),
                ));
            }
            if user != EMBEDDED_USER {
                return Err(LoginError::Refused(format!(
                    "the embedded stone has no user {user:?}; log in as {EMBEDDED_USER}"
                )));
            }
            let session = Session::bootstrap().map_err(|e| LoginError::Refused(e.to_string()))?;
            let stone = session.stone_name();
            embedded(session, stone, memory)
        }
        Backend::Gci {
            gemstone,
            library,
            stone,
            gem_nrs,
            netldi,
            host_user,
            host_password,
            user,
            credential,
        } => gci::login(&gci::Settings {
            gemstone: gemstone.as_deref(),
            library: library.as_deref(),
            stone,
            gem_nrs,
            netldi: netldi.as_deref(),
            host_user: host_user.as_deref(),
            host_password: host_password.as_deref(),
            user,
            credential,
        }),
    }
}
