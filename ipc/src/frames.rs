//! The closed set of frames: what the router says to a worker ([`ToWorker`]) and
//! what a worker says to the router ([`ToRouter`]).
//!
//! A client's message reaches the worker as data the router has already read
//! ([`ToWorker::Call`] carries a [`Request`], [`ToWorker::ClientResponse`] a
//! [`Json`] tree), so the worker never parses it again; what the worker writes
//! for the client ([`ToRouter::Reply`], [`ToRouter::Outbound`]) is the finished
//! JSON-RPC text. Everything else is what the two processes need to coordinate. Secrets (passwords) are inside [`Hello`] and never appear in
//! a `Debug` rendering.

use crate::json::Json;
use crate::jsonrpc::Request;
use bincode::{Decode, Encode};
use std::fmt;

/// Router -> worker.
// `Hello` is far larger than the other variants, but it is sent once per worker:
// boxing it would only add an allocation to every other frame's type.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub enum ToWorker {
    /// First frame on a new socket: the worker's whole configuration.
    Hello(Hello),
    /// One JSON-RPC request (or notification) of the client, as the router read it.
    Call {
        /// The router's number for this call, unique within the session; every
        /// frame about the call names it.
        call_id: u64,
        /// The request itself.
        request: Request,
    },
    /// The client cancelled this call (`notifications/cancelled`).
    Cancel {
        /// The call to cancel.
        call_id: u64,
    },
    /// Interrupt the evaluation in progress: soft (a catchable error, 6003) or
    /// hard (unconditional unwind, 6004).
    Break {
        /// Hard rather than soft.
        hard: bool,
    },
    /// Between calls: move the session's view forward keeping uncommitted work.
    Refresh,
    /// A JSON-RPC response from the client (its id restored to the worker's) to a
    /// request the worker sent through [`ToRouter::Outbound`] (sampling,
    /// elicitation, ping), or the router's error response when the client could
    /// not be asked or did not answer in time.
    ClientResponse {
        /// The whole response message.
        response: Json,
    },
    /// Finish the current call if any, log out and exit.
    Shutdown,
    /// Between calls: abort the session's transaction. A commit of it failed,
    /// so only an abort can move its view, and the view has been stuck far
    /// behind longer than the deployment allows, keeping the repository from
    /// reclaiming history; the next tool result says what was discarded and
    /// why.
    Reclaim {
        /// How long the view was stuck, in seconds, for that note.
        stuck_secs: u64,
    },
}

/// Worker -> router.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub enum ToRouter {
    /// Answer to [`Hello`]: the worker is logged in and ready for calls.
    Ready(Ready),
    /// Login or start-up failed; the worker exits after sending this.
    Failed {
        /// What failed, for `data.kind` (`login`, `config`, `protocol`, ...).
        kind: String,
        /// What happened and the fix, for the client and the log.
        message: String,
    },
    /// The JSON-RPC response to a call, as text. Exactly one per call.
    Reply {
        /// The call answered.
        call_id: u64,
        /// The complete response, forwarded to the client untouched.
        message: String,
        /// How the call ended, for the router's log line.
        outcome: Outcome,
    },
    /// Progress of a running call (`notifications/progress`).
    Progress {
        /// The call reporting.
        call_id: u64,
        /// How far it is.
        progress: f64,
        /// Out of how much, when known.
        total: Option<f64>,
        /// A line saying what it is doing.
        message: Option<String>,
    },
    /// A log line for the client (`notifications/message`) or, with no call, for
    /// the router's own log.
    Log {
        /// The call it belongs to, if any.
        call_id: Option<u64>,
        /// A syslog level name (`debug` ... `emergency`).
        level: String,
        /// The line.
        text: String,
    },
    /// A JSON-RPC message the worker sends to the client while a call runs
    /// (a server request such as `sampling/createMessage`, or a notification).
    /// With no call it goes to the session's standalone stream.
    Outbound {
        /// The call it belongs to, if any.
        call_id: Option<u64>,
        /// The message, as JSON-RPC text.
        message: String,
    },
    /// How far the session's view is behind the newest commit, and whether it
    /// holds uncommitted changes.
    ViewStatus {
        /// Commits made by others since the view; `None` where the stone
        /// cannot say (GCI, an in-memory image).
        commits_behind: Option<u64>,
        /// The session holds changes not yet committed.
        needs_commit: bool,
        /// A commit failed and only an abort clears it: the view cannot move
        /// until then (the embedded stone on a file says so; else `false`).
        must_abort: bool,
    },
    /// Close the connection of the event stream carrying call `call_id`
    /// without ending the stream (the client reconnects with
    /// `Last-Event-ID` and the stream resumes): the polling the session era's
    /// transport allows, which the conformance fixture `test_reconnection`
    /// exercises.
    ReleaseStream {
        /// The running call whose stream it is.
        call_id: u64,
    },
    /// How far the session's view lags behind the newest commit, when no call
    /// reports it: while a call runs or the session is idle, sent when it
    /// changed. Only a stone that can say sends it (the embedded stone on a
    /// file).
    ViewLag {
        /// Commits made by others since the view.
        commits_behind: u64,
    },
}

/// How a call ended, as the router's line for the call names it: never any of
/// the call's content.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub enum Outcome {
    /// A result.
    Ok,
    /// A tool result with `isError: true`, and its `structuredContent.error.kind`.
    ToolError(String),
    /// A JSON-RPC error, and its code.
    RpcError(i64),
}

impl Outcome {
    /// The outcome of a response about to be written.
    pub fn of(response: &Result<serde_json::Value, crate::jsonrpc::RpcError>) -> Outcome {
        match response {
            Err(e) => Outcome::RpcError(e.code),
            Ok(v) if v.get("isError") == Some(&serde_json::Value::Bool(true)) => {
                let kind = v
                    .pointer("/structuredContent/error/kind")
                    .and_then(|k| k.as_str())
                    .unwrap_or("other");
                Outcome::ToolError(kind.chars().take(64).collect())
            }
            Ok(_) => Outcome::Ok,
        }
    }

    /// Whether the response is an error of either kind.
    pub fn is_error(&self) -> bool {
        !matches!(self, Outcome::Ok)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::ToolError(kind) => write!(f, "toolError:{kind}"),
            Outcome::RpcError(code) => write!(f, "rpcError:{code}"),
        }
    }
}

/// The worker's configuration, sent once.
#[derive(Clone, PartialEq, Encode, Decode)]
pub struct Hello {
    /// The router's [`crate::PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The full MCP session id (the worker logs only its first 8 characters).
    pub session_id: String,
    /// The router's port, for the process title.
    pub port: u16,
    /// What to log in to, and as whom.
    pub backend: Backend,
    /// Toolset names the deployment serves.
    pub toolsets: Vec<String>,
    /// Toolset options as (`Toolset.option`, value) pairs, already validated by
    /// the router against [`crate::toolsets`].
    pub options: Vec<(String, String)>,
    /// `serverInfo.name` for `initialize`.
    pub server_name: String,
    /// `serverInfo.version`.
    pub server_version: String,
    /// `serverInfo.title` (`MCP_TITLE`).
    pub title: Option<String>,
    /// The deployment's `instructions` (`MCP_INSTRUCTIONS_FILE`); none: the default text.
    pub instructions: Option<String>,
    /// The `tracing` filter the worker logs to stderr with.
    pub log_filter: String,
    /// The worker's memory ceiling in bytes (`MCP_WORKER_MEMORY`): the
    /// embedded stone's object memory budget, with an address-space limit of
    /// the process behind it ([`address_space_for`]).
    pub memory: u64,
    /// Served toolsets this session's principal may not use, each with the
    /// scopes that would grant it (`MCP_SCOPE_TOOLSETS`): their tools are not
    /// listed, and calling one is refused naming those scopes.
    pub withheld: Vec<(String, Vec<String>)>,
    /// `MCP_READ_ONLY`: serve only the worker's allow-list of read tools;
    /// every other tool is refused, saying how to get a writable server.
    pub read_only: bool,
    /// The login serves one stateless call and ends with it: a result that
    /// leaves uncommitted changes says they end with the call.
    pub one_shot: bool,
}

/// The address space (`RLIMIT_AS`) a worker with a memory ceiling of
/// `memory` bytes runs under: room for the budget four times over (the
/// engine's transient copies, a vector's growth) plus 2 GiB for the
/// program, its libraries and its threads' stacks. Past it an allocation
/// fails and the worker ends, alone.
pub fn address_space_for(memory: u64) -> u64 {
    memory.saturating_mul(4).saturating_add(2 << 30)
}

/// Which stone the worker logs in to.
#[derive(Clone, PartialEq, Encode, Decode)]
pub enum Backend {
    /// The embedded stone. `repository` is the repository path; `None` means a
    /// fresh in-memory image (tests and the language-only mode).
    Embedded {
        /// The repository file.
        repository: Option<String>,
        /// The GemStone user to log in as.
        user: String,
        /// What proves the login is that user's.
        credential: Credential,
    },
    /// A GemStone/S 64 stone through libgcits, loaded at run time.
    Gci {
        /// `GEMSTONE`: the product directory the library is found under.
        gemstone: Option<String>,
        /// An explicit library path, which overrides the search.
        library: Option<String>,
        /// The stone's network resource string.
        stone: String,
        /// The gem service's network resource string.
        gem_nrs: String,
        /// A NetLDI name or port for every NRS (`GEMSTONE_NRS_ALL`).
        netldi: Option<String>,
        /// The host account the gem runs as (none: the NetLDI's, guest mode).
        host_user: Option<String>,
        /// That account's password.
        host_password: Option<String>,
        /// The GemStone user to log in as.
        user: String,
        /// Its password, or the session's access token for a stone that
        /// verifies JWT logins (per-user workers); never a ticket.
        credential: Credential,
    },
}

/// What a login proves its user with.
#[derive(Clone, PartialEq, Encode, Decode)]
pub enum Credential {
    /// The user's password (`MCP_WORKER_PASSWORD_FILE`…).
    Password(String),
    /// A one-time login ticket the router made for this session's principal
    /// with the repository's login key: it logs in once, as that user, and
    /// expires within minutes (`gsmcp_smalltalk::tickets`). Embedded only.
    Ticket(String),
    /// The session's OAuth access token, a JSON Web Token the stone verifies
    /// itself against the user's JWT settings and the keys it trusts
    /// (GemStone 3.7.4.1's `GCI_JWT_PASSWORD`).
    Jwt(String),
}

impl Credential {
    /// The secret itself, for the redaction layer.
    pub fn secret(&self) -> &str {
        match self {
            Credential::Password(s) | Credential::Ticket(s) | Credential::Jwt(s) => s,
        }
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Credential::Password(_) => "Password(<redacted>)",
            Credential::Ticket(_) => "Ticket(<redacted>)",
            Credential::Jwt(_) => "Jwt(<redacted>)",
        })
    }
}

impl Backend {
    /// The secrets this backend was given, for the worker's redaction layer.
    pub fn secrets(&self) -> Vec<&str> {
        match self {
            Backend::Embedded { credential, .. } => vec![credential.secret()],
            Backend::Gci {
                credential,
                host_password,
                ..
            } => std::iter::once(credential.secret())
                .chain(host_password.as_deref())
                .collect(),
        }
    }
}

/// What a worker reports once it is logged in.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct Ready {
    /// The worker's [`crate::PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The worker's process id.
    pub pid: u32,
    /// The user the login belongs to.
    pub user: String,
    /// The stone's name (the repository path for the embedded stone).
    pub stone: String,
    /// The `tools` array of `tools/list`, as JSON text.
    pub tools_json: String,
}

impl fmt::Debug for Hello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hello")
            .field("protocol", &self.protocol)
            .field(
                "session_id",
                &self.session_id.get(..8).unwrap_or(&self.session_id),
            )
            .field("port", &self.port)
            .field("backend", &self.backend)
            .field("toolsets", &self.toolsets)
            .field("options", &self.options)
            .field("server_name", &self.server_name)
            .field("server_version", &self.server_version)
            .field("title", &self.title)
            .field("instructions", &self.instructions.as_ref().map(|s| s.len()))
            .field("log_filter", &self.log_filter)
            .finish()
    }
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Embedded {
                repository,
                user,
                credential,
            } => f
                .debug_struct("Embedded")
                .field("repository", repository)
                .field("user", user)
                .field("credential", credential)
                .finish(),
            Backend::Gci {
                gemstone,
                library,
                stone,
                gem_nrs,
                netldi,
                host_user,
                user,
                credential,
                ..
            } => f
                .debug_struct("Gci")
                .field("gemstone", gemstone)
                .field("library", library)
                .field("stone", stone)
                .field("gem_nrs", gem_nrs)
                .field("netldi", netldi)
                .field("host_user", host_user)
                .field("host_password", &"<redacted>")
                .field("user", user)
                .field("credential", credential)
                .finish(),
        }
    }
}
