//! The MCP methods a worker answers: `initialize`, `ping`, `tools/list`,
//! `tools/call`, the prompt, resource and completion methods (when the served
//! toolsets offer any), and notifications.
//!
//! Input is one JSON-RPC message as text (the router forwards the client's text
//! verbatim); output is the complete JSON-RPC response text, or nothing for a
//! notification. Every request gets an answer carrying its own id, even one that
//! is malformed. Protocol faults are JSON-RPC errors; tool failures are tool
//! results (see [`crate::tools`]). A tool result ends with the view note (the
//! view was moved between calls) and, last, the `[session]` line while the
//! session holds uncommitted changes.

use crate::backend::Login;
use crate::notify::Link;
use crate::prompts::Prompts;
use crate::resources::Resources;
use crate::tools::{self, conformance, Registry};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Protocol revisions this worker speaks, newest first.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// JSON-RPC error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The client cancelled the request while it ran (the code LSP uses; MCP
    /// defines none because a cancelled request normally gets no answer, but our
    /// router owes its client exactly one answer per request).
    pub const REQUEST_CANCELLED: i64 = -32800;
}

/// The instructions sent when the deployment configures none.
pub const DEFAULT_INSTRUCTIONS: &str = "\
This server gives you a live GemStone/S Smalltalk session. Each MCP session is its own login with \
its own view of the repository. Everything you change (by execute_code or any other tool) stays \
in this session's open transaction: later calls of this session see it, other sessions do not, and \
nothing is committed unless you call the commit tool. The abort tool discards every uncommitted \
change. Use status to see whether the session holds uncommitted changes.";

/// Identity the worker reports in `initialize` (from the router's Hello).
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub instructions: Option<String>,
}

/// A parsed incoming message.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request: its id (kept exactly as sent), method and params.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification: no answer.
    Notification { method: String },
    /// A JSON-RPC response from the client; the router should have sent it as a
    /// `ClientResponse`, and no answer is owed.
    Response,
    /// Not a JSON-RPC message; answered with this error (and the id, if one could
    /// be read).
    Invalid {
        id: Value,
        code: i64,
        message: String,
    },
}

/// Classifies one message's text.
pub fn parse(text: &str) -> Incoming {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                code: code::PARSE_ERROR,
                message: format!("parse error: {e}"),
            }
        }
    };
    let Value::Object(obj) = value else {
        return Incoming::Invalid {
            id: Value::Null,
            code: code::INVALID_REQUEST,
            message: "a JSON-RPC message must be a JSON object".into(),
        };
    };
    let id = obj.get("id").cloned();
    let id_ok = matches!(id, Some(Value::String(_)) | Some(Value::Number(_)));
    let invalid = |message: &str| Incoming::Invalid {
        id: if id_ok {
            id.clone().unwrap_or(Value::Null)
        } else {
            Value::Null
        },
        code: code::INVALID_REQUEST,
        message: message.into(),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("the message lacks \"jsonrpc\": \"2.0\"");
    }
    match (obj.get("method"), id.clone()) {
        (Some(Value::String(method)), None) => Incoming::Notification {
            method: method.clone(),
        },
        (Some(Value::String(method)), Some(id)) if id_ok => Incoming::Request {
            id,
            method: method.clone(),
            params: obj.get("params").cloned(),
        },
        (Some(Value::String(_)), Some(_)) => invalid("a request id must be a string or an integer"),
        (Some(_), _) => invalid("\"method\" must be a string"),
        (None, _) if obj.contains_key("result") || obj.contains_key("error") => Incoming::Response,
        (None, _) => invalid("the message has no \"method\""),
    }
}

/// A JSON-RPC error: code, message and optional data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message)
    }
}

/// The response text for `id` answering `outcome`.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> String {
    let v = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => {
            let mut error = json!({"code": e.code, "message": e.message});
            if let Some(data) = e.data {
                error["data"] = data;
            }
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    };
    v.to_string()
}

/// One session's MCP state.
pub struct Server {
    info: ServerInfo,
    registry: Registry,
    negotiated: Option<String>,
    /// What the client declared at `initialize` (sampling, elicitation, ...).
    client_capabilities: Value,
    prompts: Prompts,
    resources: Resources,
    /// A line for the next tool result (the view was moved between calls).
    view_note: Option<String>,
}

impl Server {
    pub fn new(info: ServerInfo, registry: Registry) -> Server {
        let (prompts, resources) = if registry.conformance() {
            (
                Prompts::new(conformance::PROMPTS.iter().collect()),
                Resources::new(
                    conformance::RESOURCES.iter().collect(),
                    conformance::TEMPLATES.iter().collect(),
                ),
            )
        } else {
            (Prompts::default(), Resources::default())
        };
        Server {
            info,
            registry,
            negotiated: None,
            client_capabilities: Value::Null,
            prompts,
            resources,
            view_note: None,
        }
    }

    /// Adds `note` as a line of the next tool result (replacing an older note
    /// nobody has read yet).
    pub fn note_for_next_result(&mut self, note: String) {
        self.view_note = Some(note);
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The protocol version `initialize` settled on, once it has run.
    pub fn negotiated_version(&self) -> Option<&str> {
        self.negotiated.as_deref()
    }

    /// Answers one message of call `call_id`: the response text, or `None` for
    /// a notification. A running tool talks to the client through `link`.
    pub fn handle(
        &mut self,
        login: &mut dyn Login,
        link: &Arc<Link>,
        call_id: u64,
        text: &str,
    ) -> Option<String> {
        match parse(text) {
            Incoming::Request { id, method, params } => {
                let span = tracing::debug_span!("request", %method, %id);
                let _entered = span.enter();
                let cx = CallLink { link, call_id };
                let outcome = self.request(login, cx, &method, params);
                if let Err(e) = &outcome {
                    tracing::debug!(code = e.code, message = %e.message, "protocol error");
                }
                Some(response(&id, outcome))
            }
            Incoming::Notification { method } => {
                tracing::debug!(%method, "notification");
                None
            }
            Incoming::Response => {
                tracing::debug!("client response with no outstanding server request; dropped");
                None
            }
            Incoming::Invalid { id, code, message } => {
                Some(response(&id, Err(RpcError::new(code, message))))
            }
        }
    }

    fn request(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, RpcError> {
        let params = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(RpcError::invalid_params("params must be an object")),
        };
        match method {
            "initialize" => self.initialize(&params),
            "ping" => Ok(json!({})),
            "tools/list" => {
                if params.contains_key("cursor") {
                    return Err(RpcError::invalid_params(
                        "invalid cursor: tools/list has a single page",
                    ));
                }
                Ok(json!({"tools": self.registry.list_json()}))
            }
            "tools/call" => self.call_tool(login, cx, &params),
            "prompts/list" if !self.prompts.is_empty() => self.prompts.list(&params),
            "prompts/get" if !self.prompts.is_empty() => self.prompts.get(&params),
            "resources/list" if !self.resources.is_empty() => self.resources.list(&params),
            "resources/templates/list" if !self.resources.is_empty() => {
                self.resources.list_templates(&params)
            }
            "resources/read" if !self.resources.is_empty() => self.resources.read(&params),
            "resources/subscribe" if !self.resources.is_empty() => {
                self.resources.subscribe(&params)
            }
            "resources/unsubscribe" if !self.resources.is_empty() => {
                self.resources.unsubscribe(&params)
            }
            "completion/complete" if self.offers_completions() => {
                crate::completion::complete(&self.prompts, &self.resources, &params)
            }
            _ => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            )),
        }
    }

    fn initialize(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let requested = match params.get("protocolVersion") {
            Some(Value::String(v)) => v.as_str(),
            Some(_) => return Err(RpcError::invalid_params("protocolVersion must be a string")),
            None => {
                return Err(RpcError::invalid_params(
                    "initialize needs params.protocolVersion",
                ))
            }
        };
        let version = negotiate(requested);
        self.negotiated = Some(version.to_string());
        self.client_capabilities = match params.get("capabilities") {
            Some(c @ Value::Object(_)) => c.clone(),
            _ => json!({}),
        };
        let mut server_info = json!({"name": self.info.name, "version": self.info.version});
        if let Some(title) = &self.info.title {
            server_info["title"] = json!(title);
        }
        let instructions = self
            .info
            .instructions
            .as_deref()
            .unwrap_or(DEFAULT_INSTRUCTIONS);
        let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": false});
        }
        if !self.resources.is_empty() {
            capabilities["resources"] = json!({"subscribe": true, "listChanged": false});
        }
        if self.offers_completions() {
            capabilities["completions"] = json!({});
        }
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": server_info,
        });
        if !instructions.is_empty() {
            result["instructions"] = json!(instructions);
        }
        Ok(result)
    }

    fn offers_completions(&self) -> bool {
        !self.prompts.is_empty() || !self.resources.templates().is_empty()
    }

    fn call_tool(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "tools/call: name must be a string",
                ))
            }
            None => return Err(RpcError::invalid_params("tools/call needs params.name")),
        };
        let tool = self.registry.get(name);
        let fixture = self.registry.fixture(name);
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(a)) => a,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "tools/call: arguments must be an object",
                ))
            }
        };
        tracing::debug!(tool = %name, "tools/call");
        let progress_wanted = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .is_some_and(|t| t.is_string() || t.is_i64() || t.is_u64());
        let notifier = cx.link.notifier(
            cx.call_id,
            progress_wanted,
            self.client_capabilities.clone(),
        );
        let mut result = match (tool, fixture) {
            (Some(tool), _) => self.registry.call(tool, login, args, &notifier),
            (None, Some(fixture)) => fixture.call(&notifier, args),
            (None, None) => return Err(RpcError::invalid_params(format!("unknown tool: {name}"))),
        };
        if let Some(note) = self.view_note.take() {
            if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
                content.push(json!({"type": "text", "text": note}));
            }
        }
        // A result of a session holding uncommitted changes ends by saying so.
        if tool.is_some() && tools::holds_uncommitted_changes(login) {
            if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
                content.push(json!({"type": "text", "text": tools::SESSION_NOTE}));
            }
        }
        Ok(result)
    }
}

/// The running call a request belongs to, for tools that talk to the client.
#[derive(Clone, Copy)]
struct CallLink<'a> {
    link: &'a Arc<Link>,
    call_id: u64,
}

/// The version to answer for a requested one: the same if supported, else the newest.
pub fn negotiate(requested: &str) -> &'static str {
    SUPPORTED_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == requested)
        .unwrap_or(SUPPORTED_VERSIONS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_table() {
        let table = [
            ("2025-11-25", "2025-11-25"),
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2025-11-25"),
            ("2026-07-28", "2025-11-25"),
            ("", "2025-11-25"),
        ];
        for (requested, answered) in table {
            assert_eq!(negotiate(requested), answered, "{requested:?}");
        }
    }

    #[test]
    fn classification_table() {
        let req = |id: Value, m: &str| Incoming::Request {
            id,
            method: m.into(),
            params: None,
        };
        let inv = |id: Value, code| (id, code);
        type Expected = Result<Incoming, (Value, i64)>;
        let table: Vec<(&str, Expected)> = vec![
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                Ok(req(json!(1), "ping")),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
                Ok(req(json!("a"), "ping")),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Ok(Incoming::Notification {
                    method: "notifications/initialized".into(),
                }),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                Ok(Incoming::Response),
            ),
            ("{", Err(inv(Value::Null, code::PARSE_ERROR))),
            ("[1]", Err(inv(Value::Null, code::INVALID_REQUEST))),
            (
                r#"{"id":1,"method":"ping"}"#,
                Err(inv(json!(1), code::INVALID_REQUEST)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Err(inv(Value::Null, code::INVALID_REQUEST)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                Err(inv(Value::Null, code::INVALID_REQUEST)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":3}"#,
                Err(inv(json!(7), code::INVALID_REQUEST)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":7}"#,
                Err(inv(json!(7), code::INVALID_REQUEST)),
            ),
        ];
        for (text, expected) in table {
            let got = parse(text);
            match expected {
                Ok(e) => assert_eq!(got, e, "{text}"),
                Err((id, c)) => match got {
                    Incoming::Invalid {
                        id: gid, code: gc, ..
                    } => assert_eq!((gid, gc), (id, c), "{text}"),
                    other => panic!("{text}: expected an invalid message, got {other:?}"),
                },
            }
        }
    }

    #[test]
    fn responses_keep_the_id_and_shape() {
        let v: Value = serde_json::from_str(&response(&json!("x"), Ok(json!({})))).unwrap();
        assert_eq!(v, json!({"jsonrpc": "2.0", "id": "x", "result": {}}));
        let v: Value =
            serde_json::from_str(&response(&json!(5), Err(RpcError::new(-32601, "nope")))).unwrap();
        assert_eq!(
            v,
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "nope"}})
        );
    }
}
