//! The `Conformance` toolset: the fixed-name tools, resources, prompts and
//! completions the official MCP conformance suite exercises, so a deployment can
//! be checked against it end to end (router, worker, streams, server requests).
//!
//! It is served only when a deployment names it (`MCP_TOOLSETS=...,Conformance`);
//! none of it touches the login or evaluates Smalltalk. Its tools answer whole
//! `CallToolResult`s (images, audio, embedded resources), talk to the client
//! through a [`Notifier`] (progress, logs, sampling, elicitation) and stop early
//! when the call is cancelled or interrupted.

use super::{error_result, ErrorKind, ToolError};
use crate::notify::{Level, Notifier, RequestError};
use crate::prompts::{message, Arguments, Prompt, PromptArg};
use crate::resources::{base64, contents_json, Body, Read, Resource, Template};
use crate::schema::{self, Param, ParamType};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The pause between the steps of the logging and progress fixtures, so a client
/// sees its notifications arrive one by one before the result.
const STEP: Duration = Duration::from_millis(50);

/// A conformance tool: its answer is a complete `CallToolResult`.
pub struct Fixture {
    /// The fixed name the suite calls.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Its parameters (unless the schema is verbatim).
    pub params: &'static [Param],
    /// A schema published verbatim instead of the one rendered from `params`;
    /// such a fixture checks its own arguments.
    pub verbatim_schema: Option<fn() -> Value>,
    /// Runs it with the call's notifier and arguments.
    pub run: fn(&Notifier, &Map<String, Value>) -> Result<Value, ToolError>,
}

impl Fixture {
    /// The fixture's entry in `tools/list`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": match self.verbatim_schema {
                Some(schema) => schema(),
                None => schema::input_schema(self.params),
            },
            "annotations": {"title": self.title, "readOnlyHint": true, "destructiveHint": false,
                            "idempotentHint": true, "openWorldHint": false},
        })
    }

    /// Validates `args` and runs the fixture, answering the `CallToolResult`.
    pub fn call(&self, notifier: &Notifier, args: &Map<String, Value>) -> Value {
        let checked = match self.verbatim_schema {
            Some(_) => Ok(()),
            None => schema::validate(self.params, args),
        };
        let outcome = checked
            .map_err(|m| ToolError::new(ErrorKind::InvalidParams, m))
            .and_then(|()| (self.run)(notifier, args));
        outcome.unwrap_or_else(|e| error_result(&e))
    }
}

/// The client capability the fixture `name` asks of the client: a stateless
/// request that does not declare it is refused (-32021) before it runs.
pub fn needs(name: &str) -> Option<&'static str> {
    match name {
        "test_sampling" | "test_missing_capability" | "test_input_required_result_sampling" => {
            Some("sampling")
        }
        "test_elicitation"
        | "test_elicitation_sep1034_defaults"
        | "test_elicitation_sep1330_enums"
        | "test_streaming_elicitation"
        | "test_input_required_result_elicitation"
        | "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state"
        | "test_input_required_result_multi_round" => Some("elicitation"),
        "test_input_required_result_list_roots" => Some("roots"),
        _ => None,
    }
}

/// Three info-level log messages, 50 ms apart, then the answer.
fn log_three(n: &Notifier, _: &Map<String, Value>) -> Result<Value, ToolError> {
    for (i, line) in [
        "fixture started",
        "fixture half way",
        "fixture about to answer",
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            n.pause(STEP).map_err(|w| stopped(w.describe()))?;
        }
        n.log(Level::Info, line).map_err(stopped)?;
    }
    result(vec![text("Sent three log messages before this answer.")])
}

/// The fixture tool named `name`.
pub fn find(name: &str) -> Option<&'static Fixture> {
    TOOLS.iter().find(|t| t.name == name)
}

/// A real 1×1 PNG (one teal, partly transparent pixel).
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xd0, 0xaa, 0xbf, 0xf2,
    0x1f, 0x00, 0x04, 0xd1, 0x02, 0x7d, 0x3d, 0x64, 0xa1, 0x6a, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A real WAV file: 0.1 s of a 400 Hz square wave, 8 kHz, 8-bit mono PCM.
pub fn wav() -> Vec<u8> {
    const RATE: u32 = 8000;
    let samples: Vec<u8> = (0..RATE / 10)
        .map(|i| if (i / 10) % 2 == 0 { 0xa0 } else { 0x60 })
        .collect();
    let len = samples.len() as u32;
    let mut w = Vec::with_capacity(44 + samples.len());
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + len).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&RATE.to_le_bytes());
    w.extend_from_slice(&RATE.to_le_bytes()); // bytes per second
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&len.to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

fn image() -> Value {
    json!({"type": "image", "data": base64(PNG), "mimeType": "image/png"})
}

fn embedded(uri: &str) -> Value {
    let r = RESOURCES
        .iter()
        .find(|r| r.uri == uri)
        .expect("a fixture resource");
    json!({"type": "resource", "resource": contents_json(r.uri, r.mime_type, &(r.read)())})
}

fn result(content: Vec<Value>) -> Result<Value, ToolError> {
    Ok(json!({"content": content, "isError": false}))
}

fn stopped(e: impl std::fmt::Display) -> ToolError {
    ToolError::new(ErrorKind::Other, e.to_string())
}

fn asked(e: RequestError) -> ToolError {
    let kind = match e {
        RequestError::NotDeclared(_) => ErrorKind::Refused,
        _ => ErrorKind::Other,
    };
    ToolError::new(kind, e.to_string())
}

const NONE: &[Param] = &[];

/// The fixture tools the suite calls by name.
pub static TOOLS: [Fixture; 25] = [
    Fixture {
        name: "test_simple_text",
        title: "Plain text answer",
        description: "Answers one short text block. Takes no arguments.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| result(vec![text("Plain text from the gsmcp conformance fixtures.")]),
    },
    Fixture {
        name: "test_image_content",
        title: "Image answer",
        description: "Answers a one-pixel PNG image as an image content block.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| result(vec![image()]),
    },
    Fixture {
        name: "test_audio_content",
        title: "Audio answer",
        description: "Answers a tenth of a second of a square-wave tone as a WAV audio content block.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| result(vec![json!({"type": "audio", "data": base64(&wav()), "mimeType": "audio/wav"})]),
    },
    Fixture {
        name: "test_embedded_resource",
        title: "Embedded resource answer",
        description: "Answers the text resource test://embedded-resource embedded in the result.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| result(vec![embedded("test://embedded-resource")]),
    },
    Fixture {
        name: "test_multiple_content_types",
        title: "Mixed answer",
        description: "Answers three blocks at once: text, a PNG image and the JSON resource test://mixed-content-resource.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| {
            result(vec![
                text("Three kinds of content follow: this text, an image and a resource."),
                image(),
                embedded("test://mixed-content-resource"),
            ])
        },
    },
    Fixture {
        name: "test_tool_with_logging",
        title: "Answer after log messages",
        description: "Sends three info-level log messages, 50 ms apart, before it answers.",
        params: NONE,
        verbatim_schema: None,
        run: log_three,
    },
    Fixture {
        name: "test_logging_tool",
        title: "Answer after log messages (2026-07-28 name)",
        description: "Sends three info-level log messages, 50 ms apart, before it answers; a stateless request gets them only when its _meta asks for a log level.",
        params: NONE,
        verbatim_schema: None,
        run: log_three,
    },
    Fixture {
        name: "test_missing_capability",
        title: "Needs sampling",
        description: "Asks the client's model a fixed question (sampling/createMessage). A stateless request that does not declare the sampling capability is refused with -32021 before it runs.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}],
                "maxTokens": 20,
            });
            n.ask("hello", "sampling/createMessage", params).map_err(asked)?;
            result(vec![text("The client sampled, as declared.")])
        },
    },
    Fixture {
        name: "test_streaming_elicitation",
        title: "Progress, then ask the user",
        description: "Reports progress, then asks the user for a name (elicitation/create) and answers with it. In the session era the question is a server request on the call's stream; in 2026-07-28 the stream ends with an InputRequiredResult asking it, and the retry carrying the answer completes.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            n.progress(0.0, Some(1.0), Some("about to ask")).map_err(stopped)?;
            n.log(Level::Info, "asking the user for a name").map_err(stopped)?;
            elicit(n, json!({
                "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            }))
        },
    },
    Fixture {
        name: "test_error_handling",
        title: "Tool error",
        description: "Always fails: answers a tool error (isError true) explaining that it was asked to fail.",
        params: NONE,
        verbatim_schema: None,
        run: |_, _| Err(ToolError::new(ErrorKind::Other, "This fixture fails on purpose, to show how a tool error looks.")),
    },
    Fixture {
        name: "test_tool_with_progress",
        title: "Answer after progress",
        description: "Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request carries a progress token, then answers.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    n.pause(STEP).map_err(|w| stopped(w.describe()))?;
                }
                n.progress(p, Some(100.0), Some(&format!("{p} of 100"))).map_err(stopped)?;
            }
            result(vec![text("Progress reached 100 of 100.")])
        },
    },
    Fixture {
        name: "test_reconnection",
        title: "Answer after a reconnection",
        description: "Sends a log message, has the server close the connection of this call's event stream without ending the stream, waits, and answers: a client resumes the stream with Last-Event-ID to get the answer.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            n.log(Level::Info, "closing this call's stream connection; reconnect to get the answer").map_err(stopped)?;
            n.release_stream().map_err(stopped)?;
            n.pause(Duration::from_millis(300)).map_err(|w| stopped(w.describe()))?;
            result(vec![text("Answered after the stream's connection was closed: the client resumed it.")])
        },
    },
    Fixture {
        name: "test_sampling",
        title: "Ask the client's model",
        description: "Sends the prompt to the client's language model (sampling/createMessage, at most 100 tokens) and answers with what the model said. Needs a client that declared sampling.",
        params: &[Param { name: "prompt", ty: ParamType::String, description: "The text to send to the model.", required: true }],
        verbatim_schema: None,
        run: |n, args| {
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default();
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                "maxTokens": 100,
            });
            let answer = n.ask("model_answer", "sampling/createMessage", params).map_err(asked)?;
            result(vec![text(format!("The client's model answered: {}", said(&answer)))])
        },
    },
    Fixture {
        name: "test_elicitation",
        title: "Ask the user",
        description: "Asks the user, through the client (elicitation/create), for a username and an email address, and answers with the user's reply. Needs a client that declared elicitation.",
        params: &[Param { name: "message", ty: ParamType::String, description: "What to tell the user.", required: true }],
        verbatim_schema: None,
        run: |n, args| {
            let params = json!({
                "message": args.get("message").and_then(Value::as_str).unwrap_or_default(),
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "The name to sign in with."},
                        "email": {"type": "string", "description": "An address to write to."},
                    },
                    "required": ["username", "email"],
                },
            });
            elicit(n, params)
        },
    },
    Fixture {
        name: "test_elicitation_sep1034_defaults",
        title: "Ask the user, with defaults",
        description: "Asks the user for five values of different types (string, integer, number, enumeration, boolean), each with a default, and answers with the reply.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let params = json!({
                "message": "Check these details; every field already holds a suggestion.",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "Full name.", "default": "John Doe"},
                        "age": {"type": "integer", "description": "Age in years.", "minimum": 0, "default": 30},
                        "score": {"type": "number", "description": "A score out of 100.", "minimum": 0, "maximum": 100, "default": 95.5},
                        "status": {"type": "string", "description": "Account state.", "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "description": "Whether the address is confirmed.", "default": true},
                    },
                },
            });
            elicit(n, params)
        },
    },
    Fixture {
        name: "test_elicitation_sep1330_enums",
        title: "Ask the user to choose",
        description: "Asks the user to choose among listed values in every enumeration form: plain, titled, legacy enumNames, and plain or titled multi-select.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let params = json!({
                "message": "Pick from each list.",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "untitledSingle": {"type": "string", "description": "One plain value.",
                                           "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "description": "One titled value.",
                                         "oneOf": [{"const": "value1", "title": "First choice"},
                                                   {"const": "value2", "title": "Second choice"},
                                                   {"const": "value3", "title": "Third choice"}]},
                        "legacyEnum": {"type": "string", "description": "One value, titled the old way.",
                                       "enum": ["opt1", "opt2", "opt3"],
                                       "enumNames": ["Choice one", "Choice two", "Choice three"]},
                        "untitledMulti": {"type": "array", "description": "Any plain values.",
                                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "description": "Any titled values.",
                                        "items": {"anyOf": [{"const": "value1", "title": "First choice"},
                                                            {"const": "value2", "title": "Second choice"},
                                                            {"const": "value3", "title": "Third choice"}]}},
                    },
                },
            });
            elicit(n, params)
        },
    },
    Fixture {
        name: "test_input_required_result_elicitation",
        title: "Ask the user's name (in rounds)",
        description: "Asks the user's name under the key user_name (elicitation/create) and greets them. In 2026-07-28 the first answer is an InputRequiredResult; the retry with the answer completes.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let name = ask_text(n, "user_name", "What is your name?", "name")?;
            result(vec![text(format!("Hello, {name}!"))])
        },
    },
    Fixture {
        name: "test_input_required_result_sampling",
        title: "Ask the model (in rounds)",
        description: "Asks the client's model for the capital of France under the key capital_question (sampling/createMessage) and answers with what it said.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let answer = n
                .ask("capital_question", "sampling/createMessage", question("What is the capital of France?", 100))
                .map_err(asked)?;
            result(vec![text(format!("The client's model answered: {}", said(&answer)))])
        },
    },
    Fixture {
        name: "test_input_required_result_list_roots",
        title: "Ask the roots (in rounds)",
        description: "Asks the client's roots under the key client_roots (roots/list) and answers with their URIs.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let answer = n.ask("client_roots", "roots/list", json!({})).map_err(asked)?;
            result(vec![text(format!("The client's roots: {}", root_uris(&answer)))])
        },
    },
    Fixture {
        name: "test_input_required_result_request_state",
        title: "Confirm, with state",
        description: "Asks the user to confirm under the key confirm; the answer must come back with the requestState of the round that asked, and the result then says state-ok.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| confirm_with_state(n),
    },
    Fixture {
        name: "test_input_required_result_tampered_state",
        title: "Confirm, with protected state",
        description: "As test_input_required_result_request_state: a requestState that was altered, or issued for another request or principal, is refused with -32602 before the tool runs.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| confirm_with_state(n),
    },
    Fixture {
        name: "test_input_required_result_multiple_inputs",
        title: "Ask three things at once",
        description: "Asks, in one round, the user's name (user_name), a greeting from the model (greeting) and the client's roots (client_roots), and answers with all three.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let answers = n
                .ask_all(vec![
                    ("user_name", "elicitation/create", form("What is your name?", "name", "string")),
                    ("greeting", "sampling/createMessage", question("Generate a greeting", 50)),
                    ("client_roots", "roots/list", json!({})),
                ])
                .map_err(asked)?;
            let name = accepted(&answers[0], "name")?;
            result(vec![text(format!(
                "Name: {name}. Greeting: {}. Roots: {}.",
                said(&answers[1]),
                root_uris(&answers[2])
            ))])
        },
    },
    Fixture {
        name: "test_input_required_result_multi_round",
        title: "Ask in two rounds",
        description: "Asks the user's name (step1), then, in a second round, their favourite colour (step2), and answers with both: the second round's state carries the first answer.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let name = ask_text(n, "step1", "Step 1: What is your name?", "name")?;
            let color = ask_text(n, "step2", "Step 2: What is your favorite color?", "color")?;
            result(vec![text(format!("{name}'s favourite colour is {color}."))])
        },
    },
    Fixture {
        name: "test_input_required_result_capabilities",
        title: "Ask what the client can answer",
        description: "Asks the model a question if the request declared sampling and the user for a name if it declared elicitation, never anything else, and answers with what came back.",
        params: NONE,
        verbatim_schema: None,
        run: |n, _| {
            let mut asks = Vec::new();
            if n.client_has("sampling") {
                asks.push(("model", "sampling/createMessage", question("Say hello.", 20)));
            }
            if n.client_has("elicitation") {
                asks.push(("user", "elicitation/create", form("What is your name?", "name", "string")));
            }
            if asks.is_empty() {
                return result(vec![text("The client declared neither sampling nor elicitation: nothing was asked.")]);
            }
            let answers = n.ask_all(asks).map_err(asked)?;
            result(vec![text(format!("{} answer(s) came back.", answers.len()))])
        },
    },
    Fixture {
        name: "json_schema_2020_12_tool",
        title: "Schema keywords",
        description: "Publishes an input schema that uses JSON Schema 2020-12 keywords ($schema, $defs, $ref) and answers with the arguments it was given.",
        params: NONE,
        verbatim_schema: Some(schema_2020_12),
        run: |_, args| {
            check_2020_12(args).map_err(|m| ToolError::new(ErrorKind::InvalidParams, m))?;
            result(vec![text(format!("Arguments received: {}", Value::Object(args.clone())))])
        },
    },
];

/// The schema of `json_schema_2020_12_tool`: 2020-12 keywords a server must
/// pass through untouched (`$schema`, `$defs` with an `$anchor`, `$ref`,
/// `allOf`/`anyOf`, `if`/`then`/`else`, `additionalProperties`).
fn schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                },
            },
        },
        "properties": {
            "name": {"type": "string", "description": "A name."},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

/// Checks arguments against [`schema_2020_12`]: the field types, the
/// contact method's values, and a phone number when the contact method is
/// the phone, else an email address (which also gives the one of them the
/// `anyOf` asks).
fn check_2020_12(args: &Map<String, Value>) -> Result<(), String> {
    for (k, v) in args {
        match (k.as_str(), v) {
            ("name" | "phone" | "email", Value::String(_)) => {}
            ("contactMethod", Value::String(m)) if m == "phone" || m == "email" => {}
            ("contactMethod", _) => {
                return Err("contactMethod must be \"phone\" or \"email\"".into())
            }
            ("address", Value::Object(a)) => {
                for (ak, av) in a {
                    if !matches!(ak.as_str(), "street" | "city") || !av.is_string() {
                        return Err(format!("address.{ak} is not a known string field"));
                    }
                }
            }
            ("name" | "phone" | "email", _) => return Err(format!("{k} must be a string")),
            ("address", _) => return Err("address must be an object".into()),
            _ => return Err(format!("unknown argument {k:?}")),
        }
    }
    let by_phone = args.get("contactMethod").and_then(Value::as_str) == Some("phone");
    match (
        by_phone,
        args.contains_key("phone"),
        args.contains_key("email"),
    ) {
        (true, false, _) => Err("contactMethod is phone, so phone is required".into()),
        (false, _, false) => Err("email is required unless contactMethod is phone".into()),
        _ => Ok(()),
    }
}

/// What a sampling result says: its text, or its content as JSON.
fn said(answer: &Value) -> String {
    match answer.pointer("/content/text").and_then(Value::as_str) {
        Some(t) => t.to_owned(),
        None => answer
            .get("content")
            .map(Value::to_string)
            .unwrap_or_else(|| "(no content)".into()),
    }
}

/// Elicitation params: `message`, and a form of one required `field` of JSON type `ty`.
fn form(message: &str, field: &str, ty: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": { field: { "type": ty } },
            "required": [field],
        },
    })
}

/// The `field` of an accepted elicitation, as text; a tool error if the
/// user declined or cancelled.
fn accepted(answer: &Value, field: &str) -> Result<String, ToolError> {
    let action = answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("(none)");
    if action != "accept" {
        return Err(ToolError::new(
            ErrorKind::Refused,
            format!("The user chose to {action}; nothing was done."),
        ));
    }
    Ok(match answer.pointer(&format!("/content/{field}")) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "(not given)".into(),
    })
}

/// Asks the user, under `key`, for the one text `field` of a form saying
/// `message`, and answers what they gave.
fn ask_text(n: &Notifier, key: &str, message: &str, field: &str) -> Result<String, ToolError> {
    let answer = n
        .ask(key, "elicitation/create", form(message, field, "string"))
        .map_err(asked)?;
    accepted(&answer, field)
}

/// `sampling/createMessage` params: one user question, at most `max` tokens.
fn question(text: &str, max: u32) -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max,
    })
}

/// The root URIs of a `roots/list` result, comma-separated.
fn root_uris(answer: &Value) -> String {
    let uris: Vec<&str> = answer["roots"]
        .as_array()
        .map(|r| r.iter().filter_map(|r| r.get("uri")?.as_str()).collect())
        .unwrap_or_default();
    match uris.is_empty() {
        true => "(none)".into(),
        false => uris.join(", "),
    }
}

/// The confirmation the request-state fixtures ask, then whether the
/// retry brought back the state of the round that asked.
fn confirm_with_state(n: &Notifier) -> Result<Value, ToolError> {
    let answer = n
        .ask(
            "confirm",
            "elicitation/create",
            form("Please confirm", "ok", "boolean"),
        )
        .map_err(asked)?;
    let ok = accepted(&answer, "ok")?;
    if !n.resumed() {
        return Err(ToolError::new(
            ErrorKind::InvalidParams,
            "The answer came without the requestState of the round that asked for it: send it back with the answers.",
        ));
    }
    result(vec![text(format!(
        "state-ok: the requestState was verified; confirmed: {ok}"
    ))])
}

fn elicit(n: &Notifier, params: Value) -> Result<Value, ToolError> {
    let answer = n
        .ask("user_reply", "elicitation/create", params)
        .map_err(asked)?;
    let action = answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("(none)");
    let content = answer.get("content").cloned().unwrap_or(Value::Null);
    Ok(json!({
        "content": [text(format!("The user chose to {action}; their reply: {content}"))],
        "structuredContent": {"action": action, "content": content},
        "isError": false,
    }))
}

fn static_text() -> Body {
    Body::Text("Fixed text served by the gsmcp conformance fixtures.".into())
}

/// The fixed resources the suite reads.
pub static RESOURCES: [Resource; 6] = [
    Resource {
        uri: "test://static-text",
        name: "static-text",
        title: "Static text",
        description: "A plain-text resource whose content never changes.",
        mime_type: "text/plain",
        read: static_text,
    },
    Resource {
        uri: "test://static-binary",
        name: "static-binary",
        title: "Static image",
        description: "A one-pixel PNG image, served as a base64 blob.",
        mime_type: "image/png",
        read: || Body::Blob(PNG.to_vec()),
    },
    Resource {
        uri: "test://watched-resource",
        name: "watched-resource",
        title: "Watched text",
        description: "A text resource a client may subscribe to.",
        mime_type: "text/plain",
        read: || Body::Text("A resource clients subscribe to; its text stays the same.".into()),
    },
    Resource {
        uri: "test://example-resource",
        name: "example-resource",
        title: "Example text",
        description: "A text resource for prompts that embed one.",
        mime_type: "text/plain",
        read: || Body::Text("Example text, embedded in a prompt.".into()),
    },
    Resource {
        uri: "test://embedded-resource",
        name: "embedded-resource",
        title: "Embedded text",
        description: "The text resource test_embedded_resource embeds in its answer.",
        mime_type: "text/plain",
        read: || Body::Text("Text carried inside a tool result.".into()),
    },
    Resource {
        uri: "test://mixed-content-resource",
        name: "mixed-content-resource",
        title: "Embedded JSON",
        description: "The JSON resource test_multiple_content_types embeds in its answer.",
        mime_type: "application/json",
        read: || Body::Text(json!({"fixture": "mixed content", "parts": 3}).to_string()),
    },
];

/// The resource template the suite reads through.
pub static TEMPLATES: [Template; 1] = [Template {
    uri_template: "test://template/{id}/data",
    name: "template-data",
    title: "Data by id",
    description: "A JSON document naming the id it was read with.",
    mime_type: "application/json",
    read: Read::Plain(|vars| {
        let id = vars.first().map(|(_, v)| v.as_str()).unwrap_or_default();
        Body::Text(json!({"id": id, "note": format!("data for item {id}")}).to_string())
    }),
    complete: None,
}];

fn no_args(_: &Arguments, _: &Notifier) -> Result<Vec<Value>, String> {
    Ok(vec![message(
        "user",
        text("Say something friendly about Smalltalk."),
    )])
}

/// The prompts the suite gets.
pub static PROMPTS: [Prompt; 5] = [
    Prompt {
        name: "test_simple_prompt",
        title: "Simple prompt",
        description: "A prompt with no arguments: one user message.",
        arguments: &[],
        render: no_args,
    },
    Prompt {
        name: "test_prompt_with_arguments",
        title: "Prompt with arguments",
        description: "A prompt that places its two arguments in its message.",
        arguments: &[
            PromptArg {
                name: "arg1",
                description: "The first value.",
                required: true,
                suggestions: &["test", "testing", "another value"],
            },
            PromptArg {
                name: "arg2",
                description: "The second value.",
                required: true,
                suggestions: &[],
            },
        ],
        render: |args, _| {
            Ok(vec![message(
                "user",
                text(format!(
                    "First value: {}. Second value: {}.",
                    args["arg1"], args["arg2"]
                )),
            )])
        },
    },
    Prompt {
        name: "test_prompt_with_embedded_resource",
        title: "Prompt with a resource",
        description: "A prompt that embeds the named resource of this server, then asks about it.",
        arguments: &[PromptArg {
            name: "resourceUri",
            description: "The URI of a resource this server lists (e.g. test://example-resource).",
            required: true,
            suggestions: &[],
        }],
        render: |args, _| {
            let uri = &args["resourceUri"];
            let r = RESOURCES
                .iter()
                .find(|r| r.uri == *uri)
                .ok_or_else(|| format!("no resource {uri:?} (try test://example-resource)"))?;
            Ok(vec![
                message(
                    "user",
                    json!({"type": "resource", "resource": contents_json(r.uri, r.mime_type, &(r.read)())}),
                ),
                message("user", text("What does the resource above say?")),
            ])
        },
    },
    Prompt {
        name: "test_prompt_with_image",
        title: "Prompt with an image",
        description: "A prompt that shows a one-pixel PNG and asks about it.",
        arguments: &[],
        render: |_, _| {
            Ok(vec![
                message("user", image()),
                message("user", text("What colour is this pixel?")),
            ])
        },
    },
    Prompt {
        name: "test_input_required_result_prompt",
        title: "Prompt that asks first",
        description: "Asks the user, under the key user_context (elicitation/create), what context the prompt should use, and places it in its message.",
        arguments: &[],
        render: |_, n| {
            let context = ask_text(n, "user_context", "What context should the prompt use?", "context")
                .map_err(|e| e.message)?;
            Ok(vec![message("user", text(format!("With this context in mind: {context}. What follows from it?")))])
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2020_12_fixture_checks_what_its_schema_states() {
        let table = [
            (json!({"email": "a@b.c"}), true),
            (json!({"contactMethod": "phone", "phone": "1"}), true),
            (
                json!({"contactMethod": "email", "email": "a@b.c", "name": "n",
                    "address": {"street": "s", "city": "c"}}),
                true,
            ),
            (json!({}), false),
            (json!({"name": "n"}), false),
            (json!({"contactMethod": "phone", "email": "a@b.c"}), false),
            (json!({"contactMethod": "fax", "email": "a@b.c"}), false),
            (json!({"email": 1}), false),
            (json!({"email": "a@b.c", "address": {"zip": "1"}}), false),
            (json!({"email": "a@b.c", "other": 1}), false),
        ];
        for (args, ok) in table {
            assert_eq!(
                check_2020_12(args.as_object().unwrap()).is_ok(),
                ok,
                "{args}"
            );
        }
        let schema = schema_2020_12();
        for key in [
            "$schema",
            "$defs",
            "allOf",
            "if",
            "then",
            "else",
            "additionalProperties",
        ] {
            assert!(schema.get(key).is_some(), "{key}");
        }
        assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
        assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    }

    #[test]
    fn media_are_real_files() {
        assert_eq!(&PNG[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&PNG[12..16], b"IHDR");
        assert_eq!(&PNG[PNG.len() - 8..PNG.len() - 4], b"IEND");
        let w = wav();
        assert_eq!(&w[..4], b"RIFF");
        assert_eq!(
            u32::from_le_bytes(w[4..8].try_into().unwrap()) as usize,
            w.len() - 8
        );
        assert_eq!(&w[8..16], b"WAVEfmt ");
        assert_eq!(
            u32::from_le_bytes(w[40..44].try_into().unwrap()) as usize,
            w.len() - 44
        );
    }

    #[test]
    fn every_fixture_has_prose_and_a_closed_schema() {
        for t in &TOOLS {
            let j = t.to_json();
            assert!(
                !t.description.is_empty() && !t.title.is_empty(),
                "{}",
                t.name
            );
            assert_eq!(
                j["inputSchema"]["additionalProperties"], false,
                "{}",
                t.name
            );
        }
        for p in &PROMPTS {
            assert!(!p.description.is_empty(), "{}", p.name);
        }
        for r in &RESOURCES {
            assert!(
                !r.description.is_empty() && r.uri.starts_with("test://"),
                "{}",
                r.uri
            );
        }
    }
}
