//! gsmcp-ipc owns the frames that cross the process boundary between the router
//! (`gsmcp`) and one worker (`gsmcp-worker`), and their codec.
//!
//! A frame on the wire is a little-endian `u32` body length followed by a bincode
//! body (standard configuration, variable-length integers). The length is checked
//! against [`MAX_FRAME_LEN`] before anything is allocated, so a hostile or broken
//! peer cannot make the other side reserve gigabytes. The set of frames is closed:
//! a body that does not decode to one of them is an error, never a silent skip.
//!
//! The rest of the contract lives here too, once: [`jsonrpc`] is the JSON-RPC
//! envelope, its error codes and the one classification of a client message
//! (the router parses a message once and a worker receives it as a
//! [`jsonrpc::Request`], never as text to parse again; [`json`] is the tree
//! form a frame carries it in); [`toolsets`] the toolsets and the options each
//! declares, which the router validates and the worker obeys; [`startup`] how
//! a worker is started (its argv, its environment, the socket's descriptor);
//! [`era`] what both processes agree on about the stateless protocol era;
//! [`redact`] the one redaction layer every log line, trace line and error
//! text of either process passes through.
//!
//! This crate knows nothing about HTTP, sessions or Smalltalk.

#![warn(missing_docs)]

pub mod codec;
pub mod era;
pub mod frames;
pub mod json;
pub mod jsonrpc;
pub mod redact;
pub mod startup;
pub mod toolsets;

pub use codec::{decode_body, encode_frame, read_frame, write_frame, IpcError, MAX_FRAME_LEN};
#[cfg(feature = "tokio")]
pub use codec::{read_frame_async, write_frame_async};
pub use frames::*;
pub use json::Json;
pub use jsonrpc::Request;

/// Version of the frame set. The router sends it in [`Hello`]; a worker that speaks
/// another version answers nothing and exits, and the router reports the mismatch.
pub const PROTOCOL_VERSION: u32 = 11;

/// The Smalltalk `gsmcp --check` asks a worker to evaluate (with
/// `execute_code`) to learn whether its user may change the repository: a
/// store into the user's UserGlobals, aborted at once either way. It lives
/// here because both processes depend on it: the router sends it, and the
/// worker's census holds it to what GemStone 3.7 has.
pub const CHECK_WRITE_PROBE: &str = "[UserGlobals at: #GsmcpCheckProbe put: true. \
     System abortTransaction. true] on: Error do: [:e | System abortTransaction. false]";
