//! The end-to-end test harness: build and start the real binaries on free
//! ports ([`harness`]), talk raw HTTP to them ([`harness_http`]), inspect
//! the process table ([`harness_proc`]), and read event streams as they
//! arrive ([`harness_sse`]).
//!
//! Tests use only what a user could observe: the listen line, HTTP, the log file
//! and `/proc`. Nothing here links the router or the worker.

#![warn(missing_docs)]

pub mod harness;
pub mod harness_http;
pub mod harness_proc;
pub mod harness_sse;
pub mod jwt;

pub use harness::{
    gci_product_dir, initialize_body, request_body, test_backend_is_gci, wait_until, OpenSession,
    Server, ServerBuilder,
};
pub use harness_http::{format_request, HttpResponse, RawConn};
pub use harness_proc::{children_of, worker_of_session, workers_of, Proc};
pub use harness_sse::{SseConn, SseEvent};
