//! The closed set of frames: what the router says to a worker ([`ToWorker`]) and
//! what a worker says to the router ([`ToRouter`]).
//!
//! JSON-RPC messages travel as text inside [`ToWorker::Call`] and
//! [`ToRouter::Reply`]; the frames themselves carry only what the two processes
//! need to coordinate. Secrets (passwords) are inside [`Hello`] and never appear in
//! a `Debug` rendering.

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
    /// One JSON-RPC request (or notification) of the client, as text.
    Call { call_id: u64, message: String },
    /// The client cancelled this call (`notifications/cancelled`).
    Cancel { call_id: u64 },
    /// Interrupt the evaluation in progress: soft (a catchable error, 6003) or
    /// hard (unconditional unwind, 6004).
    Break { hard: bool },
    /// Between calls: move the session's view forward keeping uncommitted work.
    Refresh,
    /// A JSON-RPC response from the client to a request the worker sent through
    /// [`ToRouter::Outbound`] (sampling, elicitation, ping).
    ClientResponse { message: String },
    /// Finish the current call if any, log out and exit.
    Shutdown,
}

/// Worker -> router.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub enum ToRouter {
    /// Answer to [`Hello`]: the worker is logged in and ready for calls.
    Ready(Ready),
    /// Login or start-up failed; the worker exits after sending this.
    Failed { kind: String, message: String },
    /// The JSON-RPC response to a call, as text. Exactly one per call.
    Reply { call_id: u64, message: String },
    /// Progress of a running call (`notifications/progress`).
    Progress {
        call_id: u64,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A log line for the client (`notifications/message`) or, with no call, for
    /// the router's own log.
    Log {
        call_id: Option<u64>,
        level: String,
        text: String,
    },
    /// A JSON-RPC message the worker sends to the client while a call runs
    /// (a server request such as `sampling/createMessage`, or a notification).
    /// With no call it goes to the session's standalone stream.
    Outbound {
        call_id: Option<u64>,
        message: String,
    },
    /// How far the session's view is behind the newest commit, and whether it
    /// holds uncommitted changes.
    ViewStatus {
        commits_behind: u64,
        needs_commit: bool,
    },
}

/// The worker's configuration, sent once.
#[derive(Clone, PartialEq, Encode, Decode)]
pub struct Hello {
    pub protocol: u32,
    /// The full MCP session id (the worker logs only its first 8 characters).
    pub session_id: String,
    /// The router's port, for the process title.
    pub port: u16,
    pub backend: Backend,
    /// Toolset names the deployment serves.
    pub toolsets: Vec<String>,
    /// Toolset options as (`Toolset.option`, value) pairs, already validated by
    /// the router against [`crate::toolsets`].
    pub options: Vec<(String, String)>,
    pub server_name: String,
    pub server_version: String,
    pub title: Option<String>,
    pub instructions: Option<String>,
    /// The `tracing` filter the worker logs to stderr with.
    pub log_filter: String,
    /// The worker's memory ceiling in bytes (`MCP_WORKER_MEMORY`): the
    /// embedded stone's object memory budget, with an address-space limit of
    /// the process behind it ([`address_space_for`]).
    pub memory: u64,
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
        repository: Option<String>,
        user: String,
        password: String,
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
        host_password: Option<String>,
        user: String,
        password: String,
    },
}

/// What a worker reports once it is logged in.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct Ready {
    pub protocol: u32,
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
                repository, user, ..
            } => f
                .debug_struct("Embedded")
                .field("repository", repository)
                .field("user", user)
                .field("password", &"<redacted>")
                .finish(),
            Backend::Gci {
                gemstone,
                library,
                stone,
                gem_nrs,
                netldi,
                host_user,
                user,
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
                .field("password", &"<redacted>")
                .finish(),
        }
    }
}
