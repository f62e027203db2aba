//! MCP prompts: the prompt templates a toolset offers, and `prompts/list` and
//! `prompts/get` over them.
//!
//! A prompt declares its arguments (all strings, as MCP has it) and renders its
//! messages with a plain function once the arguments are checked here: unknown
//! prompts, missing required arguments, unknown arguments and non-string values
//! are `-32602` before any rendering. Prompts do not evaluate Smalltalk.

use crate::notify::Notifier;
use gsmcp_ipc::jsonrpc::{self, RpcError};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One argument of a prompt.
pub struct PromptArg {
    /// The argument's name.
    pub name: &'static str,
    /// What it is for.
    pub description: &'static str,
    /// Whether `prompts/get` must name it.
    pub required: bool,
    /// Values `completion/complete` offers for this argument.
    pub suggestions: &'static [&'static str],
}

/// Checked prompt arguments, by name.
pub type Arguments = BTreeMap<String, String>;

/// Renders a prompt's messages, or says why it cannot (an argument's value
/// is unusable, or the client's input it asked for through the notifier is
/// missing: then the request's answer asks for it, whatever this says).
pub type Render = fn(&Arguments, &Notifier) -> Result<Vec<Value>, String>;

/// One prompt.
pub struct Prompt {
    /// The prompt's name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it is for.
    pub description: &'static str,
    /// Its arguments.
    pub arguments: &'static [PromptArg],
    /// Renders the `messages` of `prompts/get` for checked arguments; an `Err`
    /// is a message for a -32602 answer (an argument's value is unusable).
    pub render: Render,
}

impl Prompt {
    /// The prompt's entry in `prompts/list`.
    pub fn to_json(&self) -> Value {
        let args: Vec<Value> = self
            .arguments
            .iter()
            .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
            .collect();
        let mut v =
            json!({"name": self.name, "title": self.title, "description": self.description});
        if !args.is_empty() {
            v["arguments"] = Value::Array(args);
        }
        v
    }
}

/// A `{role, content}` prompt message.
pub fn message(role: &str, content: Value) -> Value {
    json!({"role": role, "content": content})
}

/// The prompts one session serves.
#[derive(Default)]
pub struct Prompts {
    prompts: Vec<&'static Prompt>,
}

impl Prompts {
    /// The prompts of the served toolsets.
    pub fn new(prompts: Vec<&'static Prompt>) -> Prompts {
        Prompts { prompts }
    }

    /// Whether no toolset offers a prompt.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The prompt named `name`.
    pub fn find(&self, name: &str) -> Option<&'static Prompt> {
        self.prompts.iter().copied().find(|p| p.name == name)
    }

    /// Answers `prompts/list` (one page: the list is short).
    pub fn list(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if !matches!(params.get("cursor"), None | Some(Value::Null)) {
            return Err(invalid("invalid cursor: prompts/list has a single page"));
        }
        Ok(json!({"prompts": self.prompts.iter().map(|p| p.to_json()).collect::<Vec<_>>()}))
    }

    /// Answers `prompts/get`: the prompt's messages with the arguments filled
    /// in; a prompt that needs the client's input asks through `n`.
    pub fn get(&self, params: &Map<String, Value>, n: &Notifier) -> Result<Value, RpcError> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n,
            Some(_) => return Err(invalid("prompts/get: name must be a string")),
            None => return Err(invalid("prompts/get needs params.name")),
        };
        let prompt = self
            .find(name)
            .ok_or_else(|| invalid(format!("unknown prompt: {name}")))?;
        let mut args = BTreeMap::new();
        match params.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::Object(given)) => {
                for (k, v) in given {
                    if !prompt.arguments.iter().any(|a| a.name == k) {
                        return Err(invalid(format!("prompt {name} has no argument {k:?}")));
                    }
                    let Value::String(s) = v else {
                        return Err(invalid(format!("prompt argument {k:?} must be a string")));
                    };
                    args.insert(k.clone(), s.clone());
                }
            }
            Some(_) => return Err(invalid("prompts/get: arguments must be an object")),
        }
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|a| a.required && !args.contains_key(a.name))
        {
            return Err(invalid(format!(
                "prompt {name} needs the argument {:?}",
                missing.name
            )));
        }
        let messages = (prompt.render)(&args, n).map_err(invalid)?;
        Ok(json!({"description": prompt.description, "messages": messages}))
    }
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(jsonrpc::INVALID_PARAMS, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    static GREET: Prompt = Prompt {
        name: "greet",
        title: "Greet",
        description: "Greets someone.",
        arguments: &[
            PromptArg {
                name: "who",
                description: "whom to greet",
                required: true,
                suggestions: &[],
            },
            PromptArg {
                name: "how",
                description: "manner",
                required: false,
                suggestions: &[],
            },
        ],
        render: |args, _| {
            if args["who"].is_empty() {
                return Err("who must not be empty".into());
            }
            Ok(vec![message(
                "user",
                json!({"type": "text", "text": format!("hello {}", args["who"])}),
            )])
        },
    };

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn get_checks_arguments_before_rendering() {
        let p = Prompts::new(vec![&GREET]);
        let ok = p
            .get(
                &params(json!({"name": "greet", "arguments": {"who": "Ann"}})),
                &crate::notify::detached_notifier(json!({})),
            )
            .unwrap();
        assert_eq!(ok["messages"][0]["content"]["text"], "hello Ann");
        let bad = [
            json!({"name": "nope"}),
            json!({"name": 1}),
            json!({}),
            json!({"name": "greet"}),
            json!({"name": "greet", "arguments": {"who": 1}}),
            json!({"name": "greet", "arguments": {"who": "x", "extra": "y"}}),
            json!({"name": "greet", "arguments": ["who"]}),
            json!({"name": "greet", "arguments": {"who": ""}}),
        ];
        for b in bad {
            assert_eq!(
                p.get(
                    &params(b.clone()),
                    &crate::notify::detached_notifier(json!({}))
                )
                .unwrap_err()
                .code,
                jsonrpc::INVALID_PARAMS,
                "{b}"
            );
        }
    }

    #[test]
    fn list_shows_names_descriptions_and_arguments() {
        let l = Prompts::new(vec![&GREET]).list(&Map::new()).unwrap();
        assert_eq!(l["prompts"][0]["description"], "Greets someone.");
        assert_eq!(
            l["prompts"][0]["arguments"][0],
            json!({"name": "who", "description": "whom to greet", "required": true})
        );
    }
}
