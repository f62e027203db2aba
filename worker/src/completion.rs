//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable, filtered by the prefix the client has typed.
//!
//! A prompt argument's suggestions come from its declaration in
//! [`crate::prompts`]; a template variable's from its template's completer,
//! which may ask the login (class names, a class's selectors), given the
//! other variables the client already chose (`context.arguments`). A variable
//! with no completer completes to an empty list. This module checks the
//! request's shape and filters.

use crate::backend::Login;
use crate::prompts::Prompts;
use crate::resources::Resources;
use gsmcp_ipc::jsonrpc::{self, RpcError};
use serde_json::{json, Map, Value};

/// The most values one answer carries (the spec's cap).
pub const MAX_VALUES: usize = 100;

/// Answers `completion/complete`: the values of a prompt argument or a
/// resource template variable that begin with what the client typed, at most
/// [`MAX_VALUES`].
pub fn complete(
    login: &mut dyn Login,
    prompts: &Prompts,
    resources: &Resources,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let reference = params
        .get("ref")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("completion/complete needs params.ref (an object)"))?;
    let argument = params
        .get("argument")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("completion/complete needs params.argument (an object)"))?;
    let (Some(arg_name), Some(typed)) = (
        argument.get("name").and_then(Value::as_str),
        argument.get("value").and_then(Value::as_str),
    ) else {
        return Err(invalid(
            "params.argument needs string fields name and value",
        ));
    };
    let candidates: &[&str] = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid("a ref/prompt needs a string name"))?;
            let prompt = prompts
                .find(name)
                .ok_or_else(|| invalid(format!("unknown prompt: {name}")))?;
            let arg = prompt
                .arguments
                .iter()
                .find(|a| a.name == arg_name)
                .ok_or_else(|| invalid(format!("prompt {name} has no argument {arg_name:?}")))?;
            arg.suggestions
        }
        Some("ref/resource") => {
            let uri = reference
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid("a ref/resource needs a string uri"))?;
            let template = resources
                .templates()
                .iter()
                .find(|t| t.uri_template == uri)
                .ok_or_else(|| invalid(format!("unknown resource template: {uri}")))?;
            if !template.uri_template.contains(&format!("{{{arg_name}}}")) {
                return Err(invalid(format!(
                    "template {uri} has no variable {arg_name:?}"
                )));
            }
            let Some(completer) = template.complete else {
                return Ok(answer(Vec::new(), 0));
            };
            let empty = Map::new();
            let given = params
                .get("context")
                .and_then(|c| c.get("arguments"))
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let (values, total) = completer(login, arg_name, typed, given).map_err(|e| {
                RpcError::new(
                    jsonrpc::INTERNAL_ERROR,
                    format!("completing {arg_name} failed: {e}"),
                )
            })?;
            let values: Vec<String> = values.into_iter().take(MAX_VALUES).collect();
            return Ok(answer(values, total));
        }
        Some(other) => return Err(invalid(format!("unknown reference type {other:?}"))),
        None => return Err(invalid("params.ref needs a string type")),
    };
    let matching: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.starts_with(typed))
        .collect();
    let total = matching.len();
    let values = matching
        .into_iter()
        .take(MAX_VALUES)
        .map(String::from)
        .collect();
    Ok(answer(values, total))
}

/// A `completion/complete` result: `values` of `total` in all.
fn answer(values: Vec<String>, total: usize) -> Value {
    let more = total > values.len();
    json!({"completion": {"values": values, "total": total, "hasMore": more}})
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(jsonrpc::INVALID_PARAMS, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompts::{Prompt, PromptArg};
    use crate::resources::{Body, Read, Template};

    static P: Prompt = Prompt {
        name: "p",
        title: "P",
        description: "d",
        arguments: &[PromptArg {
            name: "colour",
            description: "c",
            required: false,
            suggestions: &["red", "rose", "blue"],
        }],
        render: |_, _| Ok(vec![]),
    };
    static T: Template = Template {
        uri_template: "x://{id}",
        name: "t",
        title: "T",
        description: "d",
        mime_type: "text/plain",
        read: Read::Plain(|_| Body::Text(String::new())),
        complete: None,
    };

    #[test]
    fn completion_table() {
        let prompts = Prompts::new(vec![&P]);
        let resources = Resources::new(vec![], vec![&T]);
        let prompt_ref = json!({"type": "ref/prompt", "name": "p"});
        // (params, Ok(values) or Err(code))
        let table: Vec<(Value, Result<Vec<&str>, i64>)> = vec![
            (
                json!({"ref": prompt_ref, "argument": {"name": "colour", "value": "r"}}),
                Ok(vec!["red", "rose"]),
            ),
            (
                json!({"ref": prompt_ref, "argument": {"name": "colour", "value": ""}}),
                Ok(vec!["red", "rose", "blue"]),
            ),
            (
                json!({"ref": prompt_ref, "argument": {"name": "colour", "value": "z"}}),
                Ok(vec![]),
            ),
            (
                json!({"ref": {"type": "ref/resource", "uri": "x://{id}"}, "argument": {"name": "id", "value": "1"}}),
                Ok(vec![]),
            ),
            (
                json!({"ref": prompt_ref, "argument": {"name": "size", "value": ""}}),
                Err(jsonrpc::INVALID_PARAMS),
            ),
            (
                json!({"ref": {"type": "ref/prompt", "name": "q"}, "argument": {"name": "colour", "value": ""}}),
                Err(jsonrpc::INVALID_PARAMS),
            ),
            (
                json!({"ref": {"type": "ref/resource", "uri": "x://{id}"}, "argument": {"name": "nope", "value": ""}}),
                Err(jsonrpc::INVALID_PARAMS),
            ),
            (
                json!({"ref": {"type": "ref/other"}, "argument": {"name": "colour", "value": ""}}),
                Err(jsonrpc::INVALID_PARAMS),
            ),
            (json!({"ref": prompt_ref}), Err(jsonrpc::INVALID_PARAMS)),
            (
                json!({"argument": {"name": "colour", "value": ""}}),
                Err(jsonrpc::INVALID_PARAMS),
            ),
        ];
        for (params, expected) in table {
            let login = &mut crate::resources::test_login::NoLogin;
            let got = complete(login, &prompts, &resources, params.as_object().unwrap());
            match expected {
                Ok(values) => assert_eq!(
                    got.unwrap()["completion"]["values"],
                    json!(values),
                    "{params}"
                ),
                Err(c) => assert_eq!(got.unwrap_err().code, c, "{params}"),
            }
        }
    }
}
