//! The response body every answer of the router has: a boxed body, so that a
//! whole JSON answer and a streamed event stream share one type. The service,
//! the trace and the CORS answers all build on it.

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use std::convert::Infallible;

/// The response body type.
pub type Body = BoxBody<Bytes, Infallible>;

/// An empty body.
pub fn empty() -> Body {
    Full::new(Bytes::new()).boxed()
}

/// A body holding `bytes`.
pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}
