//! The two protocol eras one endpoint serves, and what both processes must
//! agree on about the stateless one (MCP 2026-07-28).
//!
//! In the session era (2025-03-26 .. 2025-11-25) a client opens a session
//! with `initialize` and names it in `Mcp-Session-Id`. In the stateless era
//! every request names its revision, its client's capabilities and (usually)
//! the client in `params._meta`, and state that spans requests travels in a
//! server-minted handle: [`OPEN_SESSION`] starts a login and answers a handle,
//! every tool takes it as its [`SESSION_ARG`] argument, [`CLOSE_SESSION`] ends
//! it. The router decides the era of each request and routes by the handle;
//! the worker shapes the results of the era (`resultType`, the server's
//! identity in `_meta`, caching hints) and lists the two handle tools.

use serde_json::Value;

/// The stateless revision.
pub const STATELESS: &str = "2026-07-28";
/// The stateless revisions served, newest first.
pub const STATELESS_VERSIONS: &[&str] = &[STATELESS];
/// The session-era revisions served, newest first.
pub const SESSION_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// Every revision served, stateless first: what discovery lists and what an
/// unsupported revision's error (`-32022`) names.
pub fn all_versions() -> Vec<&'static str> {
    STATELESS_VERSIONS
        .iter()
        .chain(SESSION_VERSIONS)
        .copied()
        .collect()
}

/// `_meta` key: the revision a stateless request speaks (required).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the capabilities the client declares for this request (required).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version (optional).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the least severe log level the client wants for this request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of a result: the server's name and version.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key of a notification on a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The tool that starts a login and answers its handle.
pub const OPEN_SESSION: &str = "open_session";
/// The tool that ends the login a handle names.
pub const CLOSE_SESSION: &str = "close_session";
/// The argument, on every tool that runs on a login, naming the handle.
pub const SESSION_ARG: &str = "session";

/// Multi round-trip requests: the methods whose result may be an
/// `InputRequiredResult` (the server asks the client for input, and the
/// client sends the request again with the answers).
pub const INPUT_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];
/// The `resultType` of a result that asks for client input.
pub const INPUT_REQUIRED: &str = "input_required";
/// The field of a retried request carrying the client's answers, by key.
pub const INPUT_RESPONSES: &str = "inputResponses";
/// The field of an `InputRequiredResult` asking for input, by key.
pub const INPUT_REQUESTS: &str = "inputRequests";
/// The field carrying state across the rounds of one request.
///
/// Between client and router it is an opaque, integrity-protected string.
/// Between router and worker it is plain JSON, since only the router holds
/// the key: on a request the router hands the worker the verified content
/// (`{"answers": {key: answer}}`; a worker never sees the client's string,
/// and a request whose string fails verification never reaches it), and an
/// `InputRequiredResult` the worker answers carries the same shape, with the
/// answers so far, which the router seals before the client sees it.
pub const REQUEST_STATE: &str = "requestState";

/// A required header is missing or malformed, or does not match the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// A request needs a client capability its `_meta` did not declare.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// A revision the server does not serve; `data` lists the ones it does.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// The methods of the stateless era a server with our surface answers. Any
/// other method of a stateless request is unknown (404 with `-32601`),
/// including the session era's `initialize`, `ping`, `logging/setLevel` and
/// `resources/subscribe`, which the revision removed.
pub const STATELESS_METHODS: &[&str] = &[
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// The `_meta` object of a request's params, if it has one.
pub fn meta(params: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// The revision a request's `_meta` names, if it names one as a string.
pub fn requested_version(params: Option<&Value>) -> Option<&str> {
    meta(params)?.get(META_PROTOCOL_VERSION)?.as_str()
}

/// Whether `version` is a stateless revision this server serves.
pub fn is_stateless(version: &str) -> bool {
    STATELESS_VERSIONS.contains(&version)
}

/// Whether a request (its params as the router forwarded them) was made in
/// the stateless era: its `_meta` names a stateless revision. The router
/// forwards only requests it validated, so the worker needs no more.
pub fn request_is_stateless(params: Option<&Value>) -> bool {
    requested_version(params).is_some_and(is_stateless)
}

/// What a stateless `tools/call` names as its `session` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionArg<'a> {
    /// None (absent or null): the call runs in a one-shot login.
    Absent,
    /// A handle.
    Handle(&'a str),
    /// Something that is not a string.
    NotAString,
}

/// The `session` argument of a stateless `tools/call`.
pub fn session_argument(params: Option<&Value>) -> SessionArg<'_> {
    let arg = params
        .and_then(|p| p.get("arguments"))
        .and_then(|a| a.get(SESSION_ARG));
    match arg {
        None | Some(Value::Null) => SessionArg::Absent,
        Some(Value::String(s)) => SessionArg::Handle(s),
        Some(_) => SessionArg::NotAString,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stateless_requests_are_told_by_their_meta() {
        let table = [
            (json!({"_meta": {META_PROTOCOL_VERSION: STATELESS}}), true),
            (
                json!({"_meta": {META_PROTOCOL_VERSION: "2025-11-25"}}),
                false,
            ),
            (json!({"_meta": {META_PROTOCOL_VERSION: 20260728}}), false),
            (json!({"_meta": {}}), false),
            (json!({"_meta": "2026-07-28"}), false),
            (json!({}), false),
        ];
        for (params, stateless) in table {
            assert_eq!(request_is_stateless(Some(&params)), stateless, "{params}");
        }
        assert!(!request_is_stateless(None));
    }

    #[test]
    fn the_session_argument() {
        let table = [
            (
                json!({"arguments": {"session": "abc"}}),
                SessionArg::Handle("abc"),
            ),
            (json!({"arguments": {"session": null}}), SessionArg::Absent),
            (json!({"arguments": {"code": "3"}}), SessionArg::Absent),
            (json!({"name": "x"}), SessionArg::Absent),
            (json!({"arguments": {"session": 7}}), SessionArg::NotAString),
        ];
        for (params, expected) in table {
            assert_eq!(session_argument(Some(&params)), expected, "{params}");
        }
    }
}
