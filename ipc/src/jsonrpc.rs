//! JSON-RPC 2.0 as both processes speak it: the error codes, the one
//! classification of a client's message (request, notification or response),
//! the error and response bodies, and [`Request`], the form in which the router
//! hands a classified request to a worker.
//!
//! The router parses each client message once, here; a worker receives the
//! request's id, method, params and progress token as data ([`Request`], inside
//! `ToWorker::Call`) and never parses it again. Responses travel back as the
//! finished text the worker wrote, which the router forwards untouched. This
//! module knows nothing about HTTP, sessions or tools.

use crate::json::Json;
use bincode::{Decode, Encode};
use serde_json::{json, Map, Value};

/// JSON-RPC: the body is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: valid JSON, but not a valid JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method (or not one this server offers).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the parameters are not valid for the method.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed internally.
pub const INTERNAL_ERROR: i64 = -32603;
/// Transport-level refusals (bad headers, not acceptable, ...), as the TypeScript SDK uses it.
pub const TRANSPORT_ERROR: i64 = -32000;
/// The session is gone, unknown or could not be opened; `data.kind` says which.
pub const SESSION_ERROR: i64 = -32001;
/// The client cancelled the request (the code LSP uses: MCP defines none,
/// because a cancelled request normally gets no answer, but the router owes
/// its client exactly one answer per request).
pub const REQUEST_CANCELLED: i64 = -32800;

/// One classified JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it gets exactly one response with the same `id`.
    Request {
        /// The id, a string or an integer, exactly as sent.
        id: Value,
        /// The method called.
        method: String,
        /// `params`: an object, an array, or absent.
        params: Option<Value>,
    },
    /// A notification: no `id`, never answered.
    Notification {
        /// The method notified.
        method: String,
        /// `params`, as for a request.
        params: Option<Value>,
    },
    /// The client's response to a request the server sent.
    Response {
        /// The id of the request answered.
        id: Value,
        /// The whole message.
        message: Value,
    },
}

impl Message {
    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            Message::Response { .. } => None,
        }
    }
}

/// A client's request (or notification) as the router hands it to a worker:
/// everything the worker needs, already read from the message.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct Request {
    /// The request's id exactly as the client sent it; `None` for a notification.
    pub id: Option<Json>,
    /// The method called.
    pub method: String,
    /// `params` as sent: an object, an array, or absent.
    pub params: Option<Json>,
    /// `params._meta.progressToken`, when the request carries a valid one.
    pub progress_token: Option<Json>,
}

impl Request {
    /// The request with id `id` (`None`: a notification) calling `method`.
    pub fn new(id: Option<Value>, method: String, params: Option<Value>) -> Request {
        let progress_token = params.as_ref().and_then(progress_token).map(Json::from);
        Request {
            id: id.map(Json::from),
            method,
            params: params.map(Json::from),
            progress_token,
        }
    }

    /// The request for a classified request or notification (`None` for a response).
    pub fn from_message(message: Message) -> Option<Request> {
        match message {
            Message::Request { id, method, params } => Some(Request::new(Some(id), method, params)),
            Message::Notification { method, params } => Some(Request::new(None, method, params)),
            Message::Response { .. } => None,
        }
    }
}

/// A JSON-RPC error: code, message and optional data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// One of this module's codes (or another JSON-RPC code).
    pub code: i64,
    /// What went wrong, in a sentence.
    pub message: String,
    /// Structured detail, e.g. `{"kind": ...}`.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with no data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602`: the params are not what the method takes.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    /// This error with `data: {"kind": kind}`, the field clients branch on.
    pub fn with_kind(mut self, kind: &str) -> RpcError {
        self.data = Some(json!({ "kind": kind }));
        self
    }

    /// The request was cancelled by its client.
    pub fn cancelled() -> RpcError {
        RpcError::new(REQUEST_CANCELLED, "request cancelled").with_kind("cancelled")
    }

    fn to_value(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }
}

/// The response text for `id` answering `outcome`.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> String {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(e) => json!({ "jsonrpc": "2.0", "id": id, "error": e.to_value() }),
    }
    .to_string()
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
    Invalid {
        /// What is wrong.
        reason: String,
        /// The message's id, when it could be read.
        id: Option<Value>,
    },
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
    classify_object(obj)
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

fn classify_object(mut obj: Map<String, Value>) -> Result<Message, ClassifyError> {
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
        let method = method.clone();
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
        let params = obj.remove("params");
        return match obj.get("id") {
            None => Ok(Message::Notification { method, params }),
            Some(raw) if valid_id(raw) => Ok(Message::Request {
                id: raw.clone(),
                method,
                params,
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
            Some(id) => Ok(Message::Response {
                id,
                message: Value::Object(obj),
            }),
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
    error_value(id, code, message, data).to_string()
}

/// [`error_body`] as a JSON value.
pub fn error_value(id: Option<&Value>, code: i64, message: &str, data: Option<Value>) -> Value {
    let error = RpcError {
        code,
        message: message.into(),
        data,
    };
    let mut body = json!({ "jsonrpc": "2.0", "error": error.to_value() });
    if let Some(id) = id {
        body["id"] = id.clone();
    }
    body
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

/// The `requestId` of a `notifications/cancelled` message's params, if well-formed.
pub fn cancelled_request_id(params: Option<&Value>) -> Option<Value> {
    let id = params?.get("requestId")?;
    valid_id(id).then(|| id.clone())
}

/// The `_meta.progressToken` of a request's params, if it has a valid one
/// (a string or an integer).
pub fn progress_token(params: &Value) -> Option<Value> {
    let token = params.get("_meta")?.get("progressToken")?;
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
                    params: None,
                },
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":[1]}}"#,
                Request {
                    id: json!("a"),
                    method: "x".into(),
                    params: Some(json!({"k": [1]})),
                },
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Notification {
                    method: "notifications/initialized".into(),
                    params: None,
                },
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
                Response {
                    id: json!(7),
                    message: json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
                },
            ),
            (
                r#"{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}"#,
                Response {
                    id: json!("s"),
                    message: json!({"jsonrpc": "2.0", "id": "s", "error": {"code": 1, "message": "m"}}),
                },
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
        let cancel = json!({"requestId": "r1"});
        assert_eq!(cancelled_request_id(Some(&cancel)), Some(json!("r1")));
        assert_eq!(
            cancelled_request_id(Some(&json!({"requestId": null}))),
            None
        );
        assert_eq!(cancelled_request_id(None), None);
        let params = json!({"_meta": {"progressToken": "p"}});
        assert_eq!(progress_token(&params), Some(json!("p")));
        assert_eq!(
            progress_token(&json!({"_meta": {"progressToken": 1.5}})),
            None
        );
        assert_eq!(progress_token(&json!({})), None);
    }

    /// A classified request reaches the worker as data: id, method, params and
    /// progress token, nothing left to parse.
    #[test]
    fn a_request_carries_what_the_worker_needs() {
        let body = br#"{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"t","_meta":{"progressToken":7}}}"#;
        let request = Request::from_message(classify(body).unwrap()).unwrap();
        assert_eq!(request.id, Some(Json::String("r".into())));
        assert_eq!(request.method, "tools/call");
        assert_eq!(request.progress_token, Some(Json::Int(7)));
        assert_eq!(
            Value::from(request.params.unwrap()),
            json!({"name": "t", "_meta": {"progressToken": 7}})
        );
        let note = classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let request = Request::from_message(note.unwrap()).unwrap();
        assert_eq!((request.id, request.params), (None, None));
        let response = classify(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
        assert_eq!(Request::from_message(response), None);
    }

    #[test]
    fn responses_keep_the_id_and_shape() {
        let v: Value = serde_json::from_str(&response(&json!("x"), Ok(json!({})))).unwrap();
        assert_eq!(v, json!({"jsonrpc": "2.0", "id": "x", "result": {}}));
        let e = RpcError::new(METHOD_NOT_FOUND, "nope");
        let v: Value = serde_json::from_str(&response(&json!(5), Err(e))).unwrap();
        assert_eq!(
            v,
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "nope"}})
        );
        let v: Value =
            serde_json::from_str(&response(&json!(5), Err(RpcError::cancelled()))).unwrap();
        assert_eq!(v["error"]["data"], json!({"kind": "cancelled"}));
        assert_eq!(v["error"]["code"], json!(REQUEST_CANCELLED));
    }
}
