//! The MCP methods a worker answers: `initialize`, `ping`, `tools/list`,
//! `tools/call`, the prompt, resource and completion methods (when the served
//! toolsets offer any), and notifications; in the stateless era (a request
//! whose `_meta` names 2026-07-28) `server/discover` too, with results shaped
//! by [`crate::stateless`].
//!
//! Input is one request as the router read it ([`Request`]: id, method,
//! params, progress token — the router classified the client's message, so a
//! malformed one never gets here); output is the complete JSON-RPC response
//! text, or nothing for a notification. Every request gets an answer carrying
//! its own id. Protocol faults are JSON-RPC errors; tool failures are tool
//! results (see [`crate::tools`]). A tool result ends with the view note (the
//! view was moved between calls) and, last, the `[session]` line while the
//! session holds uncommitted changes.

use crate::backend::Login;
use crate::notify::{Link, Notifier};
use crate::prompts::Prompts;
use crate::resources::Resources;
use crate::rounds::Round;
use crate::stateless;
use crate::tools::{self, Registry};
use gsmcp_ipc::era;
use gsmcp_ipc::jsonrpc::{self, response, Request, RpcError};
use gsmcp_ipc::redact::Redactor;
use gsmcp_ipc::Outcome;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// The session-era revisions `initialize` negotiates, newest first.
pub const SUPPORTED_VERSIONS: &[&str] = era::SESSION_VERSIONS;

/// The instructions sent when the deployment configures none.
pub const DEFAULT_INSTRUCTIONS: &str = "\
This server gives you a live GemStone/S Smalltalk session. Each MCP session is its own login with \
its own view of the repository. Everything you change (by execute_code or any other tool) stays \
in this session's open transaction: later calls of this session see it, other sessions do not, and \
nothing is committed unless you call the commit tool. The abort tool discards every uncommitted \
change. Use status to see whether the session holds uncommitted changes. The server ends a session \
that sends no request for its idle timeout (sooner, if the session holds no uncommitted changes and \
its client never opened or lost its event stream), and what it had not committed is then discarded: \
commit what you want to keep.";

/// Identity the worker reports in `initialize` (from the router's Hello).
#[derive(Debug, Clone)]
pub struct ServerInfo {
    /// The server's `serverInfo.name`.
    pub name: String,
    /// Its `serverInfo.version`.
    pub version: String,
    /// Its `serverInfo.title`, if the deployment set one.
    pub title: Option<String>,
    /// The `instructions` of `initialize`, if the deployment set them (else the built-in ones).
    pub instructions: Option<String>,
}

impl ServerInfo {
    /// `serverInfo`: name, version and, if set, title.
    pub fn to_json(&self) -> Value {
        let mut info = json!({"name": self.name, "version": self.version});
        if let Some(title) = &self.title {
            info["title"] = json!(title);
        }
        info
    }
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
    /// Hides the login's passwords in every error the client is sent.
    redactor: Redactor,
    /// Whether the session held uncommitted changes after the last tool
    /// call, as that call's result said; taken by the view status.
    needs_commit: Option<bool>,
    /// The login serves one stateless call and ends with it.
    one_shot: bool,
    /// The stone says how far a view lags, so a `subscriptions/listen`
    /// stream's login can follow commits (the stateless era's resource
    /// subscriptions are offered).
    follows_commits: bool,
}

impl Server {
    /// Says whether the stone tells how far a view lags (see `follows_commits`).
    pub fn set_follows_commits(&mut self, follows: bool) {
        self.follows_commits = follows;
    }

    /// Marks the login as serving one stateless call: a result that leaves
    /// uncommitted changes says they end with the call.
    pub fn set_one_shot(&mut self, one_shot: bool) {
        self.one_shot = one_shot;
    }

    /// Whether the session held uncommitted changes after the last tool call
    /// that ran on the login (known once per call: taking it forgets it).
    pub fn take_needs_commit(&mut self) -> Option<bool> {
        self.needs_commit.take()
    }

    /// A session's server: its identity and the tools it serves.
    pub fn new(info: ServerInfo, registry: Registry, redactor: Redactor) -> Server {
        let (prompts, resources) = (registry.prompts(), registry.resources());
        Server {
            info,
            registry,
            negotiated: None,
            needs_commit: None,
            one_shot: false,
            follows_commits: false,
            client_capabilities: Value::Null,
            prompts,
            resources,
            view_note: None,
            redactor,
        }
    }

    /// Adds `note` as a line of the next tool result (replacing an older note
    /// nobody has read yet).
    pub fn note_for_next_result(&mut self, note: String) {
        self.view_note = Some(note);
    }

    /// The session's tool registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The protocol version `initialize` settled on, once it has run.
    pub fn negotiated_version(&self) -> Option<&str> {
        self.negotiated.as_deref()
    }

    /// Answers one request of call `call_id`: the response text and how it
    /// ended, or `None` for a notification. A running tool talks to the client
    /// through `link`. An error's text passes the redaction layer.
    pub fn handle(
        &mut self,
        login: &mut dyn Login,
        link: &Arc<Link>,
        call_id: u64,
        request: Request,
    ) -> Option<(String, Outcome)> {
        let Request {
            id,
            method,
            params,
            progress_token,
        } = request;
        let Some(id) = id.map(Value::from) else {
            tracing::debug!(%method, "notification");
            return None;
        };
        let span = tracing::debug_span!("request", %method, %id);
        let _entered = span.enter();
        let cx = CallLink {
            link,
            call_id,
            progress_wanted: progress_token.is_some(),
        };
        let outcome = self.request(login, cx, &method, params.map(Value::from));
        if let Err(e) = &outcome {
            tracing::debug!(code = e.code, message = %e.message, "protocol error");
        }
        let kind = Outcome::of(&outcome);
        let text = response(&id, outcome);
        Some(match kind.is_error() {
            true => (self.redactor.redact(&text).into_owned(), kind),
            false => (text, kind),
        })
    }

    fn request(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, RpcError> {
        let stateless = era::request_is_stateless(params.as_ref());
        let params = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(RpcError::invalid_params("params must be an object")),
        };
        if stateless {
            let mut result = self.stateless_request(login, cx, method, params)?;
            stateless::shape(method, &mut result, &self.info.to_json());
            return Ok(result);
        }
        match method {
            "initialize" => self.initialize(&params),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": self.list_tools(&params)?})),
            "tools/call" => {
                let asking = Asking::session(self.client_capabilities.clone());
                self.call_tool(login, cx, &params, &asking)
            }
            "resources/subscribe" if !self.resources.is_empty() => {
                self.resources.subscribe(login, &params)
            }
            "resources/unsubscribe" if !self.resources.is_empty() => {
                self.resources.unsubscribe(&params)
            }
            _ => {
                let asking = Asking::session(self.client_capabilities.clone());
                self.either_era(login, cx, method, &params, &asking)
            }
        }
    }

    /// A request of the stateless era (the router checked its `_meta`).
    fn stateless_request(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        method: &str,
        mut params: Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let asking = Asking::stateless(&mut params, era::INPUT_METHODS.contains(&method));
        match method {
            "server/discover" => Ok(self.discover()),
            "tools/list" => Ok(json!({"tools": stateless::tools(self.list_tools(&params)?)})),
            "tools/call" => {
                stateless::without_session(&mut params);
                self.call_tool(login, cx, &params, &asking)
            }
            "initialize"
            | "ping"
            | "logging/setLevel"
            | "resources/subscribe"
            | "resources/unsubscribe" => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                format!(
                    "method not found: {method} is not part of {}",
                    era::STATELESS
                ),
            )),
            // the revision answers an unknown resource with invalid params
            _ => self
                .either_era(login, cx, method, &params, &asking)
                .map_err(|e| match e.code {
                    crate::resources::RESOURCE_NOT_FOUND => RpcError {
                        code: jsonrpc::INVALID_PARAMS,
                        ..e
                    },
                    _ => e,
                }),
        }
    }

    /// The tool list (one page).
    fn list_tools(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if params.contains_key("cursor") {
            return Err(RpcError::invalid_params(
                "invalid cursor: tools/list has a single page",
            ));
        }
        Ok(self.registry.list_json())
    }

    /// The methods both eras answer alike: prompts, resources, completion.
    fn either_era(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        method: &str,
        params: &Map<String, Value>,
        asking: &Asking,
    ) -> Result<Value, RpcError> {
        match method {
            "prompts/list" if !self.prompts.is_empty() => self.prompts.list(params),
            "prompts/get" if !self.prompts.is_empty() => {
                let got = self.prompts.get(params, &asking.notifier(cx));
                match asking.input_required() {
                    Some(ask) => Ok(ask),
                    None => got,
                }
            }
            "resources/list" if !self.resources.is_empty() => self.resources.list(params),
            "resources/templates/list" if !self.resources.is_empty() => {
                self.resources.list_templates(params)
            }
            "resources/read" if !self.resources.is_empty() => self.resources.read(login, params),
            "completion/complete" if self.offers_completions() => {
                crate::completion::complete(login, &self.prompts, &self.resources, params)
            }
            _ => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
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
        // a login that has run nothing yet holds nothing uncommitted
        self.needs_commit = Some(false);
        self.client_capabilities = match params.get("capabilities") {
            Some(c @ Value::Object(_)) => c.clone(),
            _ => json!({}),
        };
        let instructions = self
            .info
            .instructions
            .as_deref()
            .unwrap_or(DEFAULT_INSTRUCTIONS);
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(false),
            "serverInfo": self.info.to_json(),
        });
        if !instructions.is_empty() {
            result["instructions"] = json!(instructions);
        }
        Ok(result)
    }

    /// `server/discover`: the revisions served, the capabilities, the
    /// instructions (the server's identity is added to every result's `_meta`).
    fn discover(&self) -> Value {
        let instructions = self
            .info
            .instructions
            .as_deref()
            .unwrap_or(stateless::DEFAULT_INSTRUCTIONS);
        let mut result = json!({
            "supportedVersions": era::all_versions(),
            "capabilities": self.capabilities(true),
        });
        if !instructions.is_empty() {
            result["instructions"] = json!(instructions);
        }
        result
    }

    /// What this server offers. The stateless era subscribes to resources
    /// through `subscriptions/listen`, where commits can be followed.
    fn capabilities(&self, stateless: bool) -> Value {
        let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": false});
        }
        if !self.resources.is_empty() {
            let subscribe = !stateless || self.follows_commits;
            capabilities["resources"] = json!({"subscribe": subscribe, "listChanged": false});
        }
        if self.offers_completions() {
            capabilities["completions"] = json!({});
        }
        capabilities
    }

    fn offers_completions(&self) -> bool {
        !self.prompts.is_empty() || !self.resources.templates().is_empty()
    }

    fn call_tool(
        &mut self,
        login: &mut dyn Login,
        cx: CallLink<'_>,
        params: &Map<String, Value>,
        asking: &Asking,
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
        if asking.round.is_some() {
            if let Some(cap) = self.registry.needed_capability(name) {
                if asking.capabilities.get(cap).is_none_or(Value::is_null) {
                    return Err(RpcError {
                        code: era::MISSING_CLIENT_CAPABILITY,
                        message: format!(
                            "{name} needs the client capability {cap}, which this request's _meta did not declare"
                        ),
                        data: Some(json!({ "requiredCapabilities": { cap: {} } })),
                    });
                }
            }
        }
        let notifier = asking.notifier(cx);
        let Some((mut result, on_login)) = self.registry.call_named(name, login, args, &notifier)
        else {
            return Err(RpcError::invalid_params(format!("unknown tool: {name}")));
        };
        if on_login {
            self.needs_commit = Some(tools::holds_uncommitted_changes(login));
        }
        // A round that asked for what it lacks answers only the question;
        // the notes wait for the result of the round that completes.
        if let Some(ask) = asking.input_required() {
            return Ok(ask);
        }
        // A tool that may change the repository or move the view: the client
        // hears of every subscribed resource that is no longer what it was.
        if self
            .registry
            .get(name)
            .is_some_and(|t| !t.annotations.read_only)
        {
            for message in self.resource_updates(login) {
                if let Err(e) = cx.link.notify_session(message) {
                    tracing::debug!("resource update not sent: {e}");
                }
            }
        }
        if let Some(note) = self.view_note.take() {
            if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
                content.push(json!({"type": "text", "text": note}));
            }
        }
        // A result of a session holding uncommitted changes ends by saying so.
        if on_login && self.needs_commit == Some(true) {
            if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
                let note = match self.one_shot {
                    true => stateless::one_shot_note(&login.user()),
                    false => tools::session_note(&login.user()),
                };
                content.push(json!({"type": "text", "text": note}));
            }
        }
        Ok(result)
    }
}

impl Server {
    /// A `notifications/resources/updated` message for every subscribed
    /// resource whose content changed in this session's view since the client
    /// subscribed or was last told: after a tool that writes, and after the
    /// view moved (the router's `Refresh`).
    pub fn resource_updates(&mut self, login: &mut dyn Login) -> Vec<String> {
        self.resources
            .changed(login)
            .iter()
            .map(|uri| crate::resources::updated_notification(uri))
            .collect()
    }
}

/// The running call a request belongs to, for tools that talk to the client.
#[derive(Clone, Copy)]
struct CallLink<'a> {
    link: &'a Arc<Link>,
    call_id: u64,
    /// The request carried a progress token (the router read it).
    progress_wanted: bool,
}

/// How a request's call asks the client for input: with server requests
/// (the session era, under the capabilities of `initialize`) or in rounds
/// of a multi round-trip request (the stateless era, under the capabilities
/// of the request's `_meta`).
struct Asking {
    capabilities: Value,
    round: Option<Arc<Mutex<Round>>>,
}

impl Asking {
    fn session(capabilities: Value) -> Asking {
        Asking {
            capabilities,
            round: None,
        }
    }

    /// A stateless request's: its `_meta` capabilities, and (for a method
    /// that may answer an `InputRequiredResult`) the round its params
    /// describe, taken out of them. A method that may not ask still asks in
    /// a round of its own, which can never answer with a question.
    fn stateless(params: &mut Map<String, Value>, input_method: bool) -> Asking {
        let capabilities = params
            .get("_meta")
            .and_then(|m| m.get(era::META_CLIENT_CAPABILITIES))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let round = match input_method {
            true => Round::take(params),
            false => Round::default(),
        };
        Asking {
            capabilities,
            round: Some(Arc::new(Mutex::new(round))),
        }
    }

    /// The notifier of the call `cx`, asking as this request does.
    fn notifier(&self, cx: CallLink<'_>) -> Notifier {
        let n = cx
            .link
            .notifier(cx.call_id, cx.progress_wanted, self.capabilities.clone());
        match &self.round {
            Some(round) => n.in_round(round.clone()),
            None => n,
        }
    }

    /// The `InputRequiredResult` of a round that asked for what it lacks.
    fn input_required(&self) -> Option<Value> {
        let round = self.round.as_ref()?;
        let mut round = round.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *round).input_required()
    }
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
}
