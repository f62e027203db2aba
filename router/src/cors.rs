//! Cross-origin access for browser clients from the origins a deployment names
//! (`MCP_ALLOWED_ORIGINS`): the answer to a preflight `OPTIONS`, and the
//! headers that let such a page read a response's MCP headers.
//!
//! Only configured origins get CORS headers. The loopback origins that the
//! Host/Origin check lets through (a page served from this machine) are not
//! given cross-origin reads unless they are configured too.

use crate::body::Body;
use crate::config::Config;
use hyper::header::{HeaderMap, HeaderValue, ORIGIN, VARY};
use hyper::{Response, StatusCode};

/// Request headers a browser client may send.
const ALLOW_HEADERS: &str =
    "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id";
/// Response headers a browser client may read.
const EXPOSE_HEADERS: &str = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate";
/// Verbs of the MCP endpoint.
const ALLOW_METHODS: &str = "GET, POST, DELETE";
/// How long a browser may cache a preflight's answer, in seconds.
const MAX_AGE: &str = "600";

/// The request's `Origin` when the deployment configured it, else `None`.
pub fn configured_origin(headers: &HeaderMap, config: &Config) -> Option<HeaderValue> {
    let value = headers.get(ORIGIN)?;
    let origin = value.to_str().ok()?.trim().to_ascii_lowercase();
    config
        .allowed_origins
        .contains(&origin)
        .then(|| value.clone())
}

/// The answer to a preflight from a configured origin: 204 with what it may do.
pub fn preflight(origin: HeaderValue) -> Response<Body> {
    let mut r = Response::new(crate::body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    h.insert("access-control-allow-origin", origin);
    h.insert(
        "access-control-allow-methods",
        HeaderValue::from_static(ALLOW_METHODS),
    );
    h.insert(
        "access-control-allow-headers",
        HeaderValue::from_static(ALLOW_HEADERS),
    );
    h.insert("access-control-max-age", HeaderValue::from_static(MAX_AGE));
    h.insert(VARY, HeaderValue::from_static("Origin"));
    r
}

/// Lets a configured origin's page read `response` and its MCP headers.
pub fn expose(response: &mut Response<Body>, origin: HeaderValue) {
    let h = response.headers_mut();
    h.insert("access-control-allow-origin", origin);
    h.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(EXPOSE_HEADERS),
    );
    h.insert(VARY, HeaderValue::from_static("Origin"));
}
