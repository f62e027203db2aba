//! JSON-RPC 2.0 as the router needs it: classifying one incoming message
//! (request, notification or response) and building the error bodies the router
//! answers by itself.
//!
//! The router never rewrites a message it forwards: classification only reads the
//! envelope (`jsonrpc`, `id`, `method`, `result`/`error`), and the original text
//! travels to the worker untouched. This module knows nothing about HTTP.

use serde_json::{json, Map, Value};

/// JSON-RPC: the body is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: valid JSON, but not a valid JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: the parameters are not valid for the method.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed internally.
pub const INTERNAL_ERROR: i64 = -32603;
/// Transport-level refusals (bad headers, not acceptable, ...), as the TypeScript SDK uses it.
pub const TRANSPORT_ERROR: i64 = -32000;
/// The session is gone, unknown or could not be opened; `data.kind` says which.
pub const SESSION_ERROR: i64 = -32001;
/// The client cancelled the request before it ran.
pub const REQUEST_CANCELLED: i64 = -32800;

/// One classified JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it gets exactly one response with the same `id`.
    Request { id: Value, method: String },
    /// A notification: no `id`, never answered.
    Notification { method: String },
    /// The client's response to a request the server sent.
    Response { id: Value },
}

impl Message {
    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method } => Some(method),
            Message::Response { .. } => None,
        }
    }
}

/// Why a body is not a JSON-RPC message. Each maps to one error code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClassifyError {
    /// Not UTF-8 or not JSON at all (`-32700`).
    #[error("parse error: {0}")]
    Parse(String),
    /// JSON, but not a JSON-RPC 2.0 message (`-32600`). `id` is the message's id
    /// when it could be read, so the error can still be correlated.
    #[error("invalid request: {reason}")]
    Invalid { reason: String, id: Option<Value> },
}

impl ClassifyError {
    /// The JSON-RPC error code for this failure.
    pub fn code(&self) -> i64 {
        match self {
            ClassifyError::Parse(_) => PARSE_ERROR,
            ClassifyError::Invalid { .. } => INVALID_REQUEST,
        }
    }

    /// The complete JSON-RPC error response for this failure.
    pub fn to_body(&self) -> String {
        let id = match self {
            ClassifyError::Invalid { id: Some(id), .. } => id.clone(),
            _ => Value::Null,
        };
        error_body(Some(&id), self.code(), &self.to_string(), None)
    }
}

fn invalid(reason: impl Into<String>, id: Option<Value>) -> ClassifyError {
    ClassifyError::Invalid {
        reason: reason.into(),
        id,
    }
}

/// A request id must be a string or an integer (never null, never a fraction).
fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// Classifies one message body. Batches (JSON arrays) are refused: MCP removed
/// batching in revision 2025-06-18.
pub fn classify(body: &[u8]) -> Result<Message, ClassifyError> {
    let text = std::str::from_utf8(body)
        .map_err(|e| ClassifyError::Parse(format!("body is not UTF-8: {e}")))?;
    let value: Value = serde_json::from_str(text).map_err(|e| ClassifyError::Parse(explain(&e)))?;
    let obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return Err(invalid(
                "batches are not supported; send one message per request",
                None,
            ))
        }
        _ => return Err(invalid("a JSON-RPC message must be a JSON object", None)),
    };
    classify_object(&obj)
}

/// The JSON parser's complaint, with what it means for the two refusals a
/// client does not expect from valid-looking JSON: a `\uD800`-`\uDFFF`
/// escape that is not half of a surrogate pair (it names no Unicode
/// character, so no string can hold it), and nesting deeper than the parser
/// follows.
fn explain(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.contains("hex escape") || text.contains("surrogate") {
        format!(
            "{text} (a \\u escape between D800 and DFFF must be one half of a surrogate pair: a lone surrogate is not a Unicode character)"
        )
    } else if text.contains("recursion limit") {
        format!("{text} (arrays and objects nested more than 128 deep)")
    } else {
        text
    }
}

fn classify_object(obj: &Map<String, Value>) -> Result<Message, ClassifyError> {
    // Keep the id only if it is well-formed, so an error about something else can
    // still carry it.
    let id = obj.get("id").filter(|id| valid_id(id)).cloned();
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => return Err(invalid("\"jsonrpc\" must be \"2.0\"", id)),
    }
    if let Some(method) = obj.get("method") {
        let Value::String(method) = method else {
            return Err(invalid("\"method\" must be a string", id));
        };
        if obj.contains_key("result") || obj.contains_key("error") {
            return Err(invalid(
                "a request cannot carry \"result\" or \"error\"",
                id,
            ));
        }
        match obj.get("params") {
            None | Some(Value::Object(_)) | Some(Value::Array(_)) => {}
            Some(_) => return Err(invalid("\"params\" must be an object", id)),
        }
        return match obj.get("id") {
            None => Ok(Message::Notification {
                method: method.clone(),
            }),
            Some(raw) if valid_id(raw) => Ok(Message::Request {
                id: raw.clone(),
                method: method.clone(),
            }),
            Some(Value::Null) => Err(invalid("a request id must not be null", None)),
            Some(_) => Err(invalid("a request id must be a string or an integer", None)),
        };
    }
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    if has_result || has_error {
        if has_result && has_error {
            return Err(invalid(
                "a response carries either \"result\" or \"error\", not both",
                id,
            ));
        }
        if has_error && !matches!(obj.get("error"), Some(Value::Object(_))) {
            return Err(invalid("\"error\" must be an object", id));
        }
        return match id {
            Some(id) => Ok(Message::Response { id }),
            None => Err(invalid("a response needs a string or integer id", None)),
        };
    }
    Err(invalid(
        "not a request, notification or response (no \"method\", \"result\" or \"error\")",
        id,
    ))
}

/// A JSON-RPC error response. `id: None` leaves the id out (the form MCP allows
/// when no message could be correlated); `Some(Value::Null)` writes `"id": null`.
pub fn error_body(id: Option<&Value>, code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut body = json!({ "jsonrpc": "2.0", "error": error });
    if let Some(id) = id {
        body["id"] = id.clone();
    }
    body.to_string()
}

/// The error a request gets when its session's worker is gone.
pub fn session_gone(id: &Value, detail: &str) -> String {
    error_body(
        Some(id),
        SESSION_ERROR,
        &format!("session is gone: {detail}; start a new session with initialize"),
        Some(json!({ "kind": "sessionGone" })),
    )
}

/// Reads `result.protocolVersion` from an `initialize` response, if it is a success.
pub fn negotiated_version(response: &str) -> Option<String> {
    let value: Value = serde_json::from_str(response).ok()?;
    value
        .get("result")?
        .get("protocolVersion")?
        .as_str()
        .map(str::to_owned)
}

/// True when the response text is a JSON-RPC error response.
pub fn is_error_response(response: &str) -> bool {
    serde_json::from_str::<Value>(response)
        .map(|v| v.get("error").is_some())
        .unwrap_or(true)
}

/// The `params.requestId` of a `notifications/cancelled` message, if well-formed.
pub fn cancelled_request_id(message: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(message).ok()?;
    let id = value.get("params")?.get("requestId")?;
    valid_id(id).then(|| id.clone())
}

/// The `params._meta.progressToken` of a request, if it has a valid one
/// (a string or an integer).
pub fn progress_token(message: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(message).ok()?;
    let token = value.get("params")?.get("_meta")?.get("progressToken")?;
    valid_id(token).then(|| token.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_table() {
        use Message::*;
        let ok: &[(&str, Message)] = &[
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                Request {
                    id: json!(1),
                    method: "ping".into(),
                },
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{}}"#,
                Request {
                    id: json!("a"),
                    method: "x".into(),
                },
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Notification {
                    method: "notifications/initialized".into(),
                },
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
                Response { id: json!(7) },
            ),
            (
                r#"{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}"#,
                Response { id: json!("s") },
            ),
        ];
        for (text, expect) in ok {
            assert_eq!(&classify(text.as_bytes()).unwrap(), expect, "{text}");
        }
        let bad: &[(&[u8], i64)] = &[
            (b"{", PARSE_ERROR),
            (b"", PARSE_ERROR),
            (b"\xff\xfe", PARSE_ERROR),
            (b"[]", INVALID_REQUEST),
            (
                br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
            ),
            (b"42", INVALID_REQUEST),
            (br#"{"id":1,"method":"ping"}"#, INVALID_REQUEST),
            (
                br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (br#"{"jsonrpc":"2.0","id":1,"method":3}"#, INVALID_REQUEST),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#,
                INVALID_REQUEST,
            ),
            (br#"{"jsonrpc":"2.0","id":1}"#, INVALID_REQUEST),
            (br#"{"jsonrpc":"2.0","result":{}}"#, INVALID_REQUEST),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
                INVALID_REQUEST,
            ),
            (br#"{"jsonrpc":"2.0","id":1,"error":"x"}"#, INVALID_REQUEST),
        ];
        for (text, code) in bad {
            let err = classify(text).unwrap_err();
            assert_eq!(err.code(), *code, "{}", String::from_utf8_lossy(text));
            let body: Value = serde_json::from_str(&err.to_body()).unwrap();
            assert_eq!(body["error"]["code"], json!(code));
        }
    }

    /// Valid-looking JSON the parser refuses is a parse error that says why.
    #[test]
    fn parse_errors_explain_lone_surrogates_and_deep_nesting() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let table: &[(&[u8], &str)] = &[
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
                "lone surrogate",
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"\udc00x"}"#,
                "lone surrogate",
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"\ud800\u0041"}"#,
                "lone surrogate",
            ),
            (deep.as_bytes(), "nested more than 128 deep"),
        ];
        for (text, says) in table {
            let err = classify(text).unwrap_err();
            assert_eq!(err.code(), PARSE_ERROR);
            assert!(err.to_string().contains(says), "{err}");
        }
        // a pair is a character
        assert!(classify(br#"{"jsonrpc":"2.0","id":1,"method":"\ud83d\ude00"}"#).is_ok());
    }

    #[test]
    fn invalid_request_keeps_a_readable_id() {
        let err = classify(br#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#).unwrap_err();
        let body: Value = serde_json::from_str(&err.to_body()).unwrap();
        assert_eq!(body["id"], json!(9));
    }

    #[test]
    fn reads_negotiated_version_and_cancel_ids() {
        let reply = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}"#;
        assert_eq!(negotiated_version(reply).as_deref(), Some("2025-06-18"));
        assert_eq!(
            negotiated_version(r#"{"jsonrpc":"2.0","id":1,"error":{}}"#),
            None
        );
        assert!(is_error_response(r#"{"jsonrpc":"2.0","id":1,"error":{}}"#));
        assert!(!is_error_response(reply));
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1"}}"#;
        assert_eq!(cancelled_request_id(cancel), Some(json!("r1")));
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#;
        assert_eq!(progress_token(call), Some(json!("p")));
        assert_eq!(
            progress_token(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#),
            None
        );
    }
}
