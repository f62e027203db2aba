//! gsmcp-worker owns one MCP session's login: it receives its configuration from
//! the router over the IPC socket, logs in to a backend (the embedded stone, or
//! GemStone over GCI), answers the session's JSON-RPC requests one at a time with
//! the tools of the toolsets it was told to serve, and exits when told to or when
//! the router goes away.
//!
//! It must not know HTTP or the Streamable HTTP transport (the router owns those),
//! and it must not commit or move the session's view except through the tools whose
//! job that is. A Smalltalk failure is a value that becomes a tool error; nothing a
//! client sends may panic the worker.
//!
//! Code map: [`process`] sets up the OS process (death signal, name, panic hook,
//! the IPC descriptor); [`serve`] runs the handshake, the IPC reader and the
//! engine thread over the socket or any stream pair; [`mcp`] answers the
//! requests the router has already read (`gsmcp_ipc::jsonrpc::Request`);
//! [`tools`] is the tool registry with one folder per toolset; [`schema`]
//! validates tool arguments; [`backend`] is the login abstraction over the
//! stones, the embedded stone's login and, in [`backend::gci`], the GCI
//! backend (a GemStone library loaded at run time); [`quote`] renders client
//! text as Smalltalk literals; [`notify`] is a running call's voice towards the client
//! (progress, logs, server requests and waiting for their answers);
//! [`prompts`], [`resources`] and [`completion`] answer the prompt, resource and
//! completion methods over what the served toolsets offer.

#![warn(missing_docs)]

pub mod backend;
pub mod completion;
pub mod mcp;
pub mod notify;
pub mod process;
pub mod prompts;
pub mod quote;
pub mod resources;
pub mod rounds;
pub mod schema;
pub mod serve;
pub mod stateless;
pub mod tools;
pub mod watch;

pub use serve::{read_hello, serve, serve_over, ServeError};
