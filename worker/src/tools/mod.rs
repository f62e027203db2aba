//! The tool registry: what a tool is, which toolsets a deployment serves, and how a
//! call's outcome becomes an MCP `CallToolResult`.
//!
//! A tool is a name, a title, a description, its parameters (from which the closed
//! input schema is rendered), annotations, its toolset and a handler. Each toolset
//! is a folder of its own, `tools/<toolset>/`, holding its Rust (`mod.rs`, a
//! `TOOLS` table and the handlers) beside its Smalltalk (`<toolset>.st`, one
//! `!tool NAME` section per expression). Arguments are validated here, before a
//! handler runs, so handlers see only well-typed arguments. Handlers never splice
//! client text into Smalltalk except `execute_code`'s `code`: the build turns
//! every expression into a type whose holes are [`Literal`] fields
//! ([`template`]), which only quote or render, and [`Context::run_json`]
//! evaluates only such a type. Smalltalk the toolsets share (the JSON string
//! writer, looking a class up or answering `notFound`, a finder's page) is
//! written once, in `tools/shared.st`, and included by the build.
//!
//! This module also owns the error kinds and the shaping of results, and the
//! `[session]` line every result gets while the session holds uncommitted
//! changes; [`paging`] the `limit`/`offset` rules, [`ledger`] the session's
//! blind-write [`Ledger`] (kept by the [`Registry`], which serves one session).
//! The opt-in Conformance fixtures (`conformance/`) are served only when a
//! deployment names them, and never run Smalltalk.
//!
//! A toolset's options (`MCP_TOOLSET_OPTIONS`) are declared in
//! [`gsmcp_ipc::toolsets`], the table the router validated them against; the
//! registry resolves the pairs the router sent and hands them to every handler
//! as [`Context::options`].

pub mod browsing;
#[cfg(test)]
mod census;
pub mod conformance;
pub mod execution;
pub mod ledger;
pub mod listing;
pub mod mutation;
pub mod paging;
pub mod refactoring;
pub mod search;
pub mod session;
pub mod stack;
pub mod template;
pub mod testing;
pub mod workflow;

use crate::backend::{Login, BETWEEN_CALLS};
use crate::notify::Notifier;
use crate::prompts::Prompts;
pub use crate::quote::Literal;
use crate::resources::Resources;
use crate::schema::{self, Param};
pub use gsmcp_ipc::toolsets::{Options, OptionsError, Toolset};
use gsmcp_smalltalk::EvalPolicy;
pub use ledger::Ledger;
pub use paging::{page_header, window, Page};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use template::Expression;

/// The behaviour hints a client may show; `openWorldHint` is always false (a tool
/// touches only the session's stone).
#[derive(Debug, Clone, Copy)]
pub struct Annotations {
    /// `readOnlyHint`: the tool changes nothing.
    pub read_only: bool,
    /// `destructiveHint`: the tool may discard or replace something.
    pub destructive: bool,
    /// `idempotentHint`: calling it again with the same arguments changes nothing more.
    pub idempotent: bool,
}

/// The annotations of a tool that only reads the repository.
pub const READ_ONLY: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
};

/// How many items a list-shaped tool answers when the call names no `limit`
/// and its toolset's `defaultLimit` option is not set.
pub const DEFAULT_LIMIT: usize = gsmcp_ipc::toolsets::DEFAULT_LIMIT as usize;

/// What went wrong in a tool, as the client sees it (`structuredContent.error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The code did not compile.
    CompileError,
    /// What the call names does not exist.
    NotFound,
    /// An argument is wrong.
    InvalidParams,
    /// The server will not do it (a guard, a precondition).
    Refused,
    /// Another session's commit came first.
    Conflict,
    /// Anything else (a Smalltalk error, an interrupted evaluation).
    Other,
}

impl ErrorKind {
    /// The kind's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::CompileError => "compileError",
            ErrorKind::NotFound => "notFound",
            ErrorKind::InvalidParams => "invalidParams",
            ErrorKind::Refused => "refused",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Other => "other",
        }
    }
}

/// A tool failure: a result with `isError: true`, never a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The message, the result's text.
    pub message: String,
    /// Extra fields of `structuredContent.error` (error number, class, position…).
    pub details: Map<String, Value>,
}

impl ToolError {
    /// A tool error without details.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ToolError {
        ToolError {
            kind,
            message: message.into(),
            details: Map::new(),
        }
    }
}

/// A tool's successful answer: the text a model reads and the same facts as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub text: String,
    /// The same as `structuredContent`.
    pub structured: Value,
}

/// What a handler gets: the login, the call's validated arguments, and the
/// call's voice towards the client (progress, logs).
pub struct Context<'a> {
    /// The session's login.
    pub login: &'a mut dyn Login,
    /// The call's arguments, already checked against the tool's schema.
    pub args: &'a Map<String, Value>,
    /// Progress, logs and server requests towards the client.
    pub notify: &'a Notifier,
    /// What this session has read or written (the blind-write guardrail).
    pub ledger: &'a mut Ledger,
    /// The deployment's toolset options (defaults where none was set).
    pub options: &'a Options,
    /// The toolset of the tool being called (whose options apply).
    pub toolset: Toolset,
    /// Whether this session may run code of its own (`execute_code` is served
    /// and granted): `file_in` runs a chunk of code only then.
    pub may_run_code: bool,
}

impl<'a> Context<'a> {
    /// A string argument the schema has already checked (absent → None).
    pub fn str_arg(&self, name: &str) -> Option<&'a str> {
        self.args.get(name).and_then(Value::as_str)
    }

    /// The strings of a string-array argument the schema has already
    /// checked (absent → none).
    pub fn strings_arg(&self, name: &str) -> Vec<&'a str> {
        self.args.get(name).map(strings).unwrap_or_default()
    }

    /// A boolean argument the schema has already checked (absent → false).
    pub fn bool_arg(&self, name: &str) -> bool {
        self.args
            .get(name)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// A count option of the called tool's toolset: `Some(n)`, or `None` when
    /// it is `none` (no limit) or the toolset does not declare it.
    pub fn count_option(&self, option: &str) -> Option<usize> {
        self.options
            .count(self.toolset.name(), option)
            .map(|n| n.min(usize::MAX as u64) as usize)
    }

    /// A flag option of the called tool's toolset (`default` if undeclared).
    pub fn flag_option(&self, option: &str, default: bool) -> bool {
        self.options.flag(self.toolset.name(), option, default)
    }

    /// Runs one tool expression (a type the build made of a `!tool` section,
    /// its holes filled with [`Literal`]s), evaluated as a doit answering a
    /// String of JSON, which is parsed.
    pub fn run_json<E: Expression>(&mut self, expression: &E) -> Result<Value, ToolError> {
        evaluate_json(self.login, expression)
    }
}

/// Evaluates one tool expression on `login` as a doit answering a String of
/// JSON, and parses it (for tools through [`Context::run_json`], and for
/// resources, which have no tool call).
pub fn evaluate_json<E: Expression>(
    login: &mut dyn Login,
    expression: &E,
) -> Result<Value, ToolError> {
    let text = expression.render();
    let answer = login
        .evaluate_string(text.as_str())
        .map_err(|e| from_st_error(&e))?;
    serde_json::from_str(&answer).map_err(|e| {
        ToolError::new(
            ErrorKind::Other,
            format!(
                "the stone answered the {} expression with text that is not JSON ({e}): {}",
                E::TOOL,
                clip(&answer)
            ),
        )
    })
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

/// Turns a tool expression's `{"error": KIND}` answer into a tool error with
/// `message`; answers the value unchanged otherwise.
pub fn check_error(
    value: Value,
    message: impl FnOnce(&str) -> (ErrorKind, String),
) -> Result<Value, ToolError> {
    match value.get("error").and_then(Value::as_str) {
        Some(kind) => {
            let (k, m) = message(kind);
            Err(ToolError::new(k, m))
        }
        None => Ok(value),
    }
}

/// The strings of a JSON array (anything else: none; non-strings skipped).
pub fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// What runs a tool.
pub type Handler = fn(&mut Context<'_>) -> Result<ToolOutput, ToolError>;

/// One tool.
pub struct Tool {
    /// The name the client calls.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// The toolset it belongs to.
    pub toolset: Toolset,
    /// Its parameters, from which its closed input schema is rendered.
    pub params: &'static [Param],
    /// Its behaviour hints.
    pub annotations: Annotations,
    /// Its handler.
    pub handler: Handler,
}

impl Tool {
    /// What this tool's evaluations may do. Only the tools whose purpose is to
    /// run a client's code do so (`execute_code`, and the Testing toolset, which
    /// asks test classes their SUnit protocol and runs their tests); every other
    /// tool reflects through the kernel's methods alone, so a method a client
    /// defined (a class-side `name`, a `printOn:`) cannot run in another
    /// client's session on a browsing tool's behalf (`file_in` raises the
    /// policy itself for its code chunks, only where `execute_code` is served
    /// and granted). Only `commit` commits.
    pub fn policy(&self) -> EvalPolicy {
        EvalPolicy {
            client_code: matches!(self.toolset, Toolset::Execution | Toolset::Testing),
            may_commit: self.toolset == Toolset::Session && self.name == "commit",
        }
    }

    /// The tool's entry in `tools/list`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": schema::input_schema(self.params),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.annotations.read_only,
                "destructiveHint": self.annotations.destructive,
                "idempotentHint": self.annotations.idempotent,
                "openWorldHint": false,
            },
        })
    }
}

/// Every tool this build has, in `tools/list` order.
pub fn all_tools() -> impl Iterator<Item = &'static Tool> {
    execution::TOOLS
        .iter()
        .chain(session::TOOLS.iter())
        .chain(listing::TOOLS.iter())
        .chain(browsing::TOOLS.iter())
        .chain(search::TOOLS.iter())
        .chain(mutation::TOOLS.iter())
        .chain(refactoring::TOOLS.iter())
        .chain(testing::TOOLS.iter())
}

/// The tools a read-only server (`MCP_READ_ONLY`) serves: each reads the
/// repository (or, `format_source`, touches nothing) and neither changes it nor runs code of the repository's
/// (`execute_code` and the test runners can change objects). Named one by
/// one, so a tool added later is not served read-only until it is added here.
pub const READ_TOOLS: &[&str] = &[
    // Session
    "status",
    // Listing
    "list_all_classes",
    "list_classes",
    "list_dictionaries",
    "list_dictionary_entries",
    // Browsing
    "describe_class",
    "export_class_source",
    "get_class_definition",
    "get_class_hierarchy",
    "get_method_source",
    "list_methods",
    // Search
    "find_implementors",
    "find_references_to",
    "find_senders",
    "search_method_source",
    // Testing
    "list_test_classes",
    // Mutation: lays text out, touches nothing
    "format_source",
];

/// Why a registry could not be built from the configured toolsets and options.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A toolset this build does not have.
    #[error("unknown toolset {name:?} (known: {})", Toolset::ALL.map(Toolset::name).join(", "))]
    UnknownToolset {
        /// The name as configured.
        name: String,
    },
    /// A toolset option that is not this build's or has a bad value.
    #[error("toolset options: {0}")]
    Options(#[from] OptionsError),
}

/// The tools one session serves.
pub struct Registry {
    tools: Vec<&'static Tool>,
    /// Served tools this session's principal may not use, with the refusal a
    /// call gets (`Hello::withheld`).
    withheld: Vec<(&'static Tool, String)>,
    /// Whether the opt-in Conformance toolset (its fixture tools, prompts and
    /// resources) is served.
    conformance: bool,
    /// Whether the Workflow toolset (prompts only) is served.
    workflow: bool,
    /// The session's blind-write ledgers (one registry serves one session).
    ledger: RefCell<Ledger>,
    options: Options,
}

impl Registry {
    /// The tools of the named toolsets; an empty list means every toolset
    /// (except the opt-in Conformance, served only when named). `options` are
    /// the `Toolset.option=value` pairs the router validated.
    pub fn new(toolsets: &[String], options: &[(String, String)]) -> Result<Registry, ConfigError> {
        let mut wanted = Vec::new();
        let mut conformance = false;
        for name in toolsets {
            match Toolset::parse(name) {
                Some(Toolset::Conformance) => conformance = true,
                Some(set) => wanted.push(set),
                None => return Err(ConfigError::UnknownToolset { name: name.clone() }),
            }
        }
        let every = toolsets.is_empty();
        let workflow = every || wanted.contains(&Toolset::Workflow);
        let tools = all_tools()
            .filter(|t| every || wanted.contains(&t.toolset))
            .collect();
        Ok(Registry {
            tools,
            withheld: Vec::new(),
            conformance,
            workflow,
            ledger: RefCell::new(Ledger::default()),
            options: Options::from_pairs(options)?,
        })
    }

    /// Takes the tools of `withheld` toolsets out of this session's list; a call
    /// of one is refused naming the scopes that would grant its toolset.
    pub fn withhold(&mut self, withheld: &[(String, Vec<String>)]) {
        for (toolset, scopes) in withheld {
            let message = |tool: &Tool| {
                format!(
                    "{} belongs to the {toolset} toolset, which the scopes of this session's \
                     access token do not grant; a token with the scope {} grants it",
                    tool.name,
                    scopes.join(" or ")
                )
            };
            let (out, kept): (Vec<_>, Vec<_>) = self
                .tools
                .iter()
                .partition(|t| t.toolset.name() == toolset.as_str());
            self.withheld
                .extend(out.into_iter().map(|t| (t, message(t))));
            self.tools = kept;
        }
    }

    /// Serves only the tools of [`READ_TOOLS`] (`MCP_READ_ONLY`): every other
    /// served tool, including any added later, is refused by subtraction, and
    /// the Conformance fixtures are not served.
    pub fn read_only(&mut self) {
        let (kept, out): (Vec<&'static Tool>, Vec<&'static Tool>) = self
            .tools
            .iter()
            .partition(|t| READ_TOOLS.contains(&t.name));
        self.withheld.extend(out.into_iter().map(|t| {
            let why = format!(
                "{} may change the repository or run code, and this server is read-only \
                 (MCP_READ_ONLY): it serves only tools that read; a server started without \
                 MCP_READ_ONLY serves {} too",
                t.name, t.name
            );
            (t, why)
        }));
        self.tools = kept;
        self.conformance = false;
    }

    /// The served tool named `name`.
    pub fn get(&self, name: &str) -> Option<&'static Tool> {
        self.tools.iter().copied().find(|t| t.name == name)
    }

    /// Whether the Conformance toolset is served.
    pub fn conformance(&self) -> bool {
        self.conformance
    }

    /// Runs the served tool `name` (validating `args` first) and answers its
    /// `CallToolResult` and whether the tool works on the login (the
    /// Conformance fixtures do not); `None` when no such tool is served.
    pub fn call_named(
        &self,
        name: &str,
        login: &mut dyn Login,
        args: &Map<String, Value>,
        notify: &Notifier,
    ) -> Option<(Value, bool)> {
        if let Some(tool) = self.get(name) {
            return Some((self.call(tool, login, args, notify), true));
        }
        if let Some(refused) = self.refusal(name) {
            return Some((refused, false));
        }
        self.fixture(name).map(|f| (f.call(notify, args), false))
    }

    /// The refused `CallToolResult` of a served tool this session may not use
    /// (its principal's scopes, a read-only server).
    pub fn refusal(&self, name: &str) -> Option<Value> {
        let (_, why) = self.withheld.iter().find(|(t, _)| t.name == name)?;
        Some(error_result(&ToolError::new(
            ErrorKind::Refused,
            why.clone(),
        )))
    }

    /// The prompts the served toolsets offer.
    pub fn prompts(&self) -> Prompts {
        let workflow = self
            .workflow
            .then_some(workflow::PROMPTS.iter())
            .into_iter()
            .flatten();
        let fixtures = self
            .conformance
            .then_some(conformance::PROMPTS.iter())
            .into_iter()
            .flatten();
        Prompts::new(workflow.chain(fixtures).collect())
    }

    /// The resources and resource templates the served toolsets offer: the
    /// repository's classes and methods while this session may browse
    /// (`get_method_source` is served and granted), and the Conformance
    /// fixtures.
    pub fn resources(&self) -> Resources {
        let browsing = self
            .get("get_method_source")
            .is_some()
            .then_some(browsing::TEMPLATES.iter())
            .into_iter()
            .flatten();
        let (fixed, fixtures) = match self.conformance {
            true => (
                conformance::RESOURCES.iter().collect(),
                conformance::TEMPLATES.iter(),
            ),
            false => (Vec::new(), [].iter()),
        };
        Resources::new(fixed, browsing.chain(fixtures).collect())
    }

    /// The Conformance fixture tool of that name, if the toolset is served.
    /// The client capability a served tool asks of the client (only
    /// conformance fixtures do).
    pub fn needed_capability(&self, name: &str) -> Option<&'static str> {
        self.fixture(name).and_then(|f| conformance::needs(f.name))
    }

    fn fixture(&self, name: &str) -> Option<&'static conformance::Fixture> {
        self.conformance.then(|| conformance::find(name)).flatten()
    }

    /// The `tools` array of `tools/list`.
    pub fn list_json(&self) -> Value {
        let fixtures = self
            .conformance
            .then_some(conformance::TOOLS.iter())
            .into_iter()
            .flatten()
            .map(|f| f.to_json());
        Value::Array(
            self.tools
                .iter()
                .map(|t| self.describe_options(t, t.to_json()))
                .chain(fixtures)
                .collect(),
        )
    }

    /// `tool`'s `tools/list` entry telling the limits this deployment set: the
    /// prose names the defaults (200 items, 50,000 characters), which options
    /// may change.
    fn describe_options(&self, tool: &Tool, mut json: Value) -> Value {
        let set = tool.toolset.name();
        let mut swaps: Vec<(String, String)> = Vec::new();
        if let Some(n) = self.options.count(set, "defaultLimit") {
            if n as usize != DEFAULT_LIMIT {
                swaps.push((format!("default {DEFAULT_LIMIT}"), format!("default {n}")));
            }
        }
        if let Some(n) = self.options.count(set, "maxResultChars") {
            if n as usize != execution::RESULT_CAP {
                swaps.push(("50,000".into(), n.to_string()));
            }
        }
        let swap = |text: &mut Value| {
            if let Some(t) = text.as_str() {
                let mut t = t.to_string();
                for (from, to) in &swaps {
                    t = t.replace(from.as_str(), to);
                }
                *text = Value::String(t);
            }
        };
        swap(&mut json["description"]);
        if let Some(limit) = json["inputSchema"]["properties"].get_mut("limit") {
            swap(&mut limit["description"]);
            if let Some(max) = self.options.count(set, "maxLimit") {
                if let Some(t) = limit["description"].as_str() {
                    limit["description"] = Value::String(format!("{t} At most {max}."));
                }
            }
        }
        json
    }

    /// Validates `args` and runs `tool`, answering the `CallToolResult`.
    fn call(
        &self,
        tool: &Tool,
        login: &mut dyn Login,
        args: &Map<String, Value>,
        notify: &Notifier,
    ) -> Value {
        let mut ledger = self.ledger.borrow_mut();
        let before = login.transaction_mark();
        let outcome = match schema::validate(tool.params, args) {
            Err(message) => Err(ToolError::new(ErrorKind::InvalidParams, message)),
            Ok(()) => {
                login.set_policy(tool.policy());
                let outcome = (tool.handler)(&mut Context {
                    login,
                    args,
                    notify,
                    ledger: &mut ledger,
                    options: &self.options,
                    toolset: tool.toolset,
                    may_run_code: self.get("execute_code").is_some(),
                });
                login.set_policy(BETWEEN_CALLS);
                outcome
            }
        };
        // Code the tool ran (execute_code's, a test's) may have moved the view or
        // aborted; the ledger follows the same rule as the Session tools, whether
        // or not the call succeeded.
        if let (Some(before), Some(after)) = (before, login.transaction_mark()) {
            ledger.follow(before, after);
        }
        match outcome {
            Ok(out) => json!({
                "content": [{"type": "text", "text": out.text}],
                "structuredContent": out.structured,
                "isError": false,
            }),
            Err(err) => error_result(&err),
        }
    }

    /// The session's view moved outside a tool (the router's `Refresh`): what the
    /// ledger holds may be stale.
    pub fn view_moved(&self) {
        self.ledger.borrow_mut().forget_reads();
    }

    /// Whether this session has read or written `class`'s definition.
    pub fn has_seen_class(&self, class: &str) -> bool {
        self.ledger.borrow().has_seen_class(class)
    }

    /// Whether this session has read or written `class>>selector`.
    pub fn has_seen_method(&self, class: &str, meta: bool, selector: &str) -> bool {
        self.ledger.borrow().has_seen_method(class, meta, selector)
    }
}

/// The line a result ends with while the session holds uncommitted changes:
/// it names the user whose changes they are (with per-user logins, the
/// principal's repository user).
pub fn session_note(user: &str) -> String {
    format!(
        "[session] this session (user {user}) holds uncommitted changes: commit makes them \
         permanent, abort discards them"
    )
}

/// Whether the session holds uncommitted changes (`System needsCommit`); a
/// stone that cannot say is taken as holding none. A tool result then ends
/// with [`session_note`] (added last, by `crate::mcp`).
pub fn holds_uncommitted_changes(login: &mut dyn Login) -> bool {
    matches!(
        login
            .evaluate_string("System needsCommit printString")
            .as_deref(),
        Ok("true")
    )
}

/// The `CallToolResult` for a tool failure.
pub fn error_result(err: &ToolError) -> Value {
    let mut error = Map::new();
    error.insert("kind".into(), Value::String(err.kind.as_str().into()));
    error.insert("message".into(), Value::String(err.message.clone()));
    for (k, v) in &err.details {
        error.insert(k.clone(), v.clone());
    }
    json!({
        "content": [{"type": "text", "text": err.message}],
        "structuredContent": {"error": error},
        "isError": true,
    })
}

/// The most characters of an error's message text or description a tool
/// error carries; the rest is cut with a marker saying how much.
pub const ERROR_TEXT_CAP: usize = 10_000;

/// The tool error for a Smalltalk failure: compile errors become `compileError`
/// with their position, everything else `other`; both carry GemStone's error
/// number, the exception class and its message text.
pub fn from_st_error(e: &gsmcp_smalltalk::StError) -> ToolError {
    use gsmcp_smalltalk::ErrorKind as St;
    let class = &e.class_name;
    // a message text is the program's own: it may be megabytes long, and it
    // appears up to three times in the answer
    let capped = |s: &str| execution::cap(s.to_string(), ERROR_TEXT_CAP).0;
    let message_text = e.message_text.as_deref().map(capped);
    let description = capped(&e.description);
    let text = message_text.as_deref().unwrap_or(&description);
    let (kind, message) = match e.kind {
        St::Compile => {
            let at = match (e.line, e.offset) {
                (Some(l), Some(o)) => format!(" at line {l}, offset {o}"),
                (None, Some(o)) => format!(" at offset {o}"),
                _ => String::new(),
            };
            (
                ErrorKind::CompileError,
                format!("compile error{at}: {text} (error {})", e.number),
            )
        }
        St::Break => (
            ErrorKind::Other,
            format!(
                "evaluation interrupted by a {} (error {})",
                break_reason(e.number),
                e.number
            ),
        ),
        _ => (
            ErrorKind::Other,
            format!("{class} (error {}): {text}", e.number),
        ),
    };
    let mut err = ToolError::new(kind, message);
    let d = &mut err.details;
    d.insert("number".into(), json!(e.number));
    d.insert("class".into(), json!(class));
    d.insert("messageText".into(), json!(message_text));
    d.insert("description".into(), json!(description));
    if e.kind == St::Compile {
        d.insert("line".into(), json!(e.line));
        d.insert("offset".into(), json!(e.offset));
    }
    if e.kind == St::Break {
        d.insert("reason".into(), json!(break_reason(e.number)));
    }
    err
}

fn break_reason(number: u32) -> &'static str {
    match number {
        6004 => "hard break",
        _ => "soft break",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_refuse_the_registry() {
        let bad = Registry::new(&[], &[("Execution.maxResultChars".into(), "1".into())]);
        assert!(matches!(bad, Err(ConfigError::Options(_))));
        let bad = Registry::new(&["Gardening".into()], &[]);
        assert!(matches!(bad, Err(ConfigError::UnknownToolset { .. })));
    }

    #[test]
    fn listed_prose_tells_the_configured_limits() {
        let pairs = [
            ("Search.defaultLimit".to_string(), "50".to_string()),
            ("Search.maxLimit".to_string(), "500".to_string()),
            ("Execution.maxResultChars".to_string(), "1000".to_string()),
        ];
        let r = Registry::new(&[], &pairs).unwrap();
        let listed = r.list_json();
        let tool = |name: &str| {
            listed
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .cloned()
                .unwrap()
        };
        let senders = tool("find_senders");
        let limit = senders["inputSchema"]["properties"]["limit"]["description"]
            .as_str()
            .unwrap();
        assert!(
            limit.contains("default 50") && limit.contains("At most 500."),
            "{limit}"
        );
        assert!(
            !senders["description"].as_str().unwrap().contains("200"),
            "{senders}"
        );
        let classes = tool("list_all_classes");
        let limit = classes["inputSchema"]["properties"]["limit"]["description"]
            .as_str()
            .unwrap();
        assert!(
            limit.contains("default 200") && !limit.contains("At most"),
            "{limit}"
        );
        let exec = tool("execute_code")["description"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(exec.contains("at most 1000 characters"), "{exec}");
        let plain = Registry::new(&[], &[]).unwrap().list_json();
        let all: Vec<Value> = all_tools().map(|t| t.to_json()).collect();
        assert_eq!(plain, Value::Array(all), "defaults leave the prose alone");
    }

    /// A read-only server serves exactly the allow-list, each tool of it
    /// annotated read-only, and refuses every other tool of every toolset.
    #[test]
    fn a_read_only_registry_is_its_allow_list() {
        let every: Vec<String> = Toolset::ALL.iter().map(|t| t.name().to_string()).collect();
        let mut r = Registry::new(&every, &[]).unwrap();
        assert!(r.conformance());
        r.read_only();
        assert!(!r.conformance(), "no fixtures on a read-only server");
        for name in READ_TOOLS {
            let tool = r
                .get(name)
                .unwrap_or_else(|| panic!("{name} is not a tool"));
            assert!(
                tool.annotations.read_only,
                "{name} is not annotated read-only"
            );
        }
        for tool in all_tools().filter(|t| !READ_TOOLS.contains(&t.name)) {
            assert!(r.get(tool.name).is_none(), "{} served", tool.name);
            let refused = r.refusal(tool.name).expect("refused");
            assert_eq!(refused["isError"], true);
            assert_eq!(refused["structuredContent"]["error"]["kind"], "refused");
            let text = refused["content"][0]["text"].as_str().unwrap_or("");
            assert!(text.contains("MCP_READ_ONLY"), "{text}");
        }
        let listed = r.list_json();
        assert_eq!(listed.as_array().unwrap().len(), READ_TOOLS.len());
    }

    #[test]
    fn registry_serves_only_named_toolsets() {
        let names = |r: &Registry| -> Vec<&str> { r.tools.iter().map(|t| t.name).collect() };
        let every: Vec<&str> = all_tools().map(|t| t.name).collect();
        assert_eq!(names(&Registry::new(&[], &[]).unwrap()), every);
        assert_eq!(
            names(&Registry::new(&["execution".into()], &[]).unwrap()),
            ["execute_code"]
        );
        assert_eq!(
            names(&Registry::new(&["Session".into()], &[]).unwrap()),
            ["abort", "commit", "refresh", "status"]
        );
        assert_eq!(
            names(&Registry::new(&["Listing".into()], &[]).unwrap()),
            [
                "list_all_classes",
                "list_classes",
                "list_dictionaries",
                "list_dictionary_entries"
            ]
        );
        assert_eq!(
            names(&Registry::new(&["Browsing".into()], &[]).unwrap()),
            [
                "describe_class",
                "export_class_source",
                "get_class_definition",
                "get_class_hierarchy",
                "get_method_source",
                "list_methods"
            ]
        );
        assert_eq!(
            names(&Registry::new(&["search".into()], &[]).unwrap()),
            [
                "find_implementors",
                "find_references_to",
                "find_senders",
                "search_method_source"
            ]
        );
        for set in Toolset::ALL
            .into_iter()
            .filter(|t| *t != Toolset::Conformance)
        {
            let r = Registry::new(&[set.name().to_string()], &[]).unwrap();
            assert!(r.tools.iter().all(|t| t.toolset == set), "{set}");
        }
        assert_eq!(
            names(&Registry::new(&["Testing".into()], &[]).unwrap()),
            [
                "list_test_classes",
                "run_test_class",
                "run_test_method",
                "list_failing_tests",
                "describe_test_failure"
            ]
        );
        let only_fixtures = Registry::new(&["conformance".into()], &[]).unwrap();
        assert!(names(&only_fixtures).is_empty() && only_fixtures.conformance());
        assert!(only_fixtures.fixture("test_simple_text").is_some());
        assert!(!Registry::new(&[], &[]).unwrap().conformance());
        assert!(Registry::new(&[], &[])
            .unwrap()
            .fixture("test_simple_text")
            .is_none());
        let err = Registry::new(&["Session".into(), "Bogus".into()], &[])
            .err()
            .expect("Bogus is refused");
        assert!(err.to_string().contains("\"Bogus\""), "{err}");
    }

    #[test]
    fn every_tool_is_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for tool in all_tools() {
            assert!(seen.insert(tool.name), "duplicate tool {}", tool.name);
            assert!(
                !tool.name.is_empty()
                    && tool.name.len() <= 128
                    && tool
                        .name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
                "tool name {:?} breaks the MCP naming guidance",
                tool.name
            );
            assert!(
                !tool.title.is_empty() && !tool.description.is_empty(),
                "{} lacks prose",
                tool.name
            );
            let json = tool.to_json();
            assert_eq!(
                json["inputSchema"]["additionalProperties"], false,
                "{}",
                tool.name
            );
            assert_eq!(json["annotations"]["openWorldHint"], false, "{}", tool.name);
            if tool.annotations.read_only {
                assert!(
                    !tool.annotations.destructive,
                    "{} is read-only and destructive",
                    tool.name
                );
            }
        }
    }

    fn st(
        kind: gsmcp_smalltalk::ErrorKind,
        number: u32,
        class: &str,
        text: Option<&str>,
    ) -> gsmcp_smalltalk::StError {
        gsmcp_smalltalk::StError {
            kind,
            number,
            class_name: class.into(),
            message_text: text.map(Into::into),
            description: format!("a {class} occurred (error {number})"),
            offset: None,
            line: None,
        }
    }

    #[test]
    fn smalltalk_errors_map_to_tool_errors() {
        use gsmcp_smalltalk::ErrorKind as St;
        let mut compile = st(
            St::Compile,
            1001,
            "CompileError",
            Some("expected an expression"),
        );
        compile.offset = Some(4);
        compile.line = Some(1);
        // (error, kind, substrings of the message, detail fields that must be set)
        let table = [
            (
                compile,
                "compileError",
                vec!["line 1, offset 4", "expected an expression", "1001"],
                vec!["line", "offset", "number"],
            ),
            (
                st(St::Runtime, 2026, "ZeroDivide", None),
                "other",
                vec!["ZeroDivide", "2026", "a ZeroDivide occurred"],
                vec!["number", "class", "description"],
            ),
            (
                st(
                    St::Runtime,
                    2010,
                    "MessageNotUnderstood",
                    Some("nil does not understand #foo"),
                ),
                "other",
                vec!["#foo"],
                vec!["messageText"],
            ),
            (
                st(St::Break, 6003, "ControlInterrupt", None),
                "other",
                vec!["soft break", "6003"],
                vec!["reason"],
            ),
            (
                st(St::Break, 6004, "ControlInterrupt", None),
                "other",
                vec!["hard break", "6004"],
                vec!["reason"],
            ),
            (
                st(St::Limit, 2111, "AlmostOutOfStack", None),
                "other",
                vec!["AlmostOutOfStack"],
                vec!["number"],
            ),
        ];
        for (e, kind, parts, fields) in table {
            let t = from_st_error(&e);
            assert_eq!(t.kind.as_str(), kind, "{e:?}");
            for p in parts {
                assert!(t.message.contains(p), "{:?} lacks {p:?}", t.message);
            }
            for f in fields {
                assert!(
                    !t.details.get(f).unwrap_or(&Value::Null).is_null(),
                    "{e:?}: detail {f} missing: {:?}",
                    t.details
                );
            }
        }
    }

    #[test]
    fn ledgers_record_what_was_seen() {
        let r = Registry::new(&[], &[]).unwrap();
        assert!(!r.has_seen_class("Foo"));
        r.ledger.borrow_mut().saw_class("Foo");
        r.ledger.borrow_mut().saw_method("Foo", true, "bar");
        assert!(r.has_seen_class("Foo") && !r.has_seen_class("Bar"));
        assert!(r.has_seen_method("Foo", true, "bar"));
        assert!(!r.has_seen_method("Foo", false, "bar"));
        r.ledger.borrow_mut().wrote_method("Foo", false, "mine");
        r.view_moved();
        assert!(!r.has_seen_class("Foo") && !r.has_seen_method("Foo", true, "bar"));
        assert!(r.has_seen_method("Foo", false, "mine"));
        r.ledger.borrow_mut().forget_all();
        assert!(!r.has_seen_method("Foo", false, "mine"));
    }

    #[test]
    fn error_results_carry_kind_message_and_details() {
        let mut err = ToolError::new(ErrorKind::CompileError, "bad");
        err.details.insert("line".into(), json!(2));
        let v = error_result(&err);
        assert_eq!(v["isError"], true);
        assert_eq!(v["content"][0], json!({"type": "text", "text": "bad"}));
        assert_eq!(
            v["structuredContent"]["error"],
            json!({"kind": "compileError", "message": "bad", "line": 2})
        );
    }
}
