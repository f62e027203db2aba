//! The repository as MCP resources, served with the Browsing toolset: a class's
//! definition at `gemstone://class/{className}`, a method's source at
//! `gemstone://method/{className}/{selector}` (instance side) and
//! `gemstone://method/{className}/class/{selector}` (class side), each read in
//! the session's own view by the same expressions as `get_class_definition`
//! and `get_method_source`, with completion of class names and of a class's
//! selectors.
//!
//! A selector travels percent-encoded where it holds characters a URI path
//! segment cannot (`gemstone://method/Number/%2F%2F` is `Number>>//`). Reading
//! a resource is not a read in the blind-write sense: the client application
//! may read it without showing it to the model, so the ledger is not told.

use super::{definition_text, st};
use crate::backend::Login;
use crate::quote::Literal;
use crate::resources::{Body, Read, Template, Vars};
use crate::tools::template::Expression;
use crate::tools::{evaluate_json, strings};
use serde_json::{Map, Value};

/// Smalltalk source, as GemStone tools label it.
const SMALLTALK: &str = "text/x-smalltalk";

/// The Browsing toolset's resource templates.
pub static TEMPLATES: [Template; 3] = [
    Template {
        uri_template: "gemstone://class/{className}",
        name: "class",
        title: "Class definition",
        description: "A class's definition (the class-creation message, then its category) as \
this session sees it, uncommitted changes included.",
        mime_type: SMALLTALK,
        read: Read::Login(read_class),
        complete: Some(complete),
    },
    Template {
        uri_template: "gemstone://method/{className}/{selector}",
        name: "method",
        title: "Method source",
        description: "An instance-side method's source as this session sees it. A selector \
with characters a URI path cannot hold is percent-encoded (`//` is `%2F%2F`).",
        mime_type: SMALLTALK,
        read: Read::Login(|login, vars| read_method(login, vars, false)),
        complete: Some(complete),
    },
    Template {
        uri_template: "gemstone://method/{className}/class/{selector}",
        name: "class-method",
        title: "Class-side method source",
        description: "A class-side method's source as this session sees it.",
        mime_type: SMALLTALK,
        read: Read::Login(|login, vars| read_method(login, vars, true)),
        complete: Some(complete_class_side),
    },
];

/// The value of the variable `name`.
fn var<'v>(vars: &'v Vars<'_>, name: &str) -> &'v str {
    vars.iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Runs a browsing expression for a resource: `None` when it answers that the
/// class or method is not there.
fn answer(login: &mut dyn Login, expression: &impl Expression) -> Result<Option<Value>, String> {
    let d = evaluate_json(login, expression).map_err(|e| e.message)?;
    Ok(d.get("error").is_none().then_some(d))
}

fn read_class(login: &mut dyn Login, vars: &Vars<'_>) -> Result<Option<Body>, String> {
    let expression = st::GetClassDefinition {
        class_name: Literal::symbol(var(vars, "className")),
    };
    Ok(answer(login, &expression)?.map(|d| Body::Text(definition_text(&d))))
}

fn read_method(login: &mut dyn Login, vars: &Vars<'_>, meta: bool) -> Result<Option<Body>, String> {
    let expression = st::GetMethodSource {
        class_name: Literal::symbol(var(vars, "className")),
        selector: Literal::symbol(var(vars, "selector")),
        meta: Literal::boolean(meta),
    };
    Ok(answer(login, &expression)?
        .map(|d| Body::Text(d["source"].as_str().unwrap_or_default().to_string())))
}

fn complete(
    login: &mut dyn Login,
    name: &str,
    typed: &str,
    given: &Map<String, Value>,
) -> Result<(Vec<String>, usize), String> {
    complete_side(login, name, typed, given, false)
}

fn complete_class_side(
    login: &mut dyn Login,
    name: &str,
    typed: &str,
    given: &Map<String, Value>,
) -> Result<(Vec<String>, usize), String> {
    complete_side(login, name, typed, given, true)
}

/// Class names for `className`; for `selector`, the selectors of the class the
/// client already chose (none before it chose one), each beginning with what
/// was typed, sorted and without repeats.
fn complete_side(
    login: &mut dyn Login,
    name: &str,
    typed: &str,
    given: &Map<String, Value>,
    meta: bool,
) -> Result<(Vec<String>, usize), String> {
    let mut values: Vec<String> = match name {
        "className" => {
            let names = evaluate_json(login, &st::ClassNames).map_err(|e| e.message)?;
            strings(&names).into_iter().map(String::from).collect()
        }
        "selector" => {
            let Some(class) = given.get("className").and_then(Value::as_str) else {
                return Ok((Vec::new(), 0));
            };
            let expression = st::SelectorNames {
                class_name: Literal::symbol(class),
                meta: Literal::boolean(meta),
            };
            match answer(login, &expression)? {
                Some(d) => strings(&d["selectors"])
                    .into_iter()
                    .map(String::from)
                    .collect(),
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    values.retain(|v| v.starts_with(typed));
    values.sort();
    values.dedup();
    let total = values.len();
    values.truncate(crate::completion::MAX_VALUES);
    Ok((values, total))
}
