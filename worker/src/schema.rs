//! Tool input schemas and argument validation.
//!
//! Every tool declares its parameters as a list of [`Param`]s; from that list this
//! module renders the closed JSON Schema `tools/list` publishes
//! (`type: object`, `properties`, `required`, `additionalProperties: false`) and
//! validates a call's arguments against it in Rust, before any Smalltalk runs. The
//! schema and the validator share one source, so they cannot disagree.

use serde_json::{json, Map, Value};

/// The JSON type of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// A JSON string.
    String,
    /// A JSON boolean.
    Boolean,
    /// A JSON integer (3.0 counts, as JSON Schema has it).
    Integer,
    /// An array of strings.
    StringArray,
    /// An array of integers.
    IntegerArray,
}

impl ParamType {
    fn schema(self) -> Value {
        match self {
            ParamType::String => json!({"type": "string"}),
            ParamType::Boolean => json!({"type": "boolean"}),
            ParamType::Integer => json!({"type": "integer"}),
            ParamType::StringArray => json!({"type": "array", "items": {"type": "string"}}),
            ParamType::IntegerArray => json!({"type": "array", "items": {"type": "integer"}}),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Boolean => "a boolean",
            ParamType::Integer => "an integer",
            ParamType::StringArray => "an array of strings",
            ParamType::IntegerArray => "an array of integers",
        }
    }

    fn accepts(self, value: &Value) -> bool {
        match self {
            ParamType::String => value.is_string(),
            ParamType::Boolean => value.is_boolean(),
            // JSON Schema's integer accepts 3.0 as well as 3.
            ParamType::Integer => {
                value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            ParamType::StringArray => value
                .as_array()
                .is_some_and(|items| items.iter().all(Value::is_string)),
            ParamType::IntegerArray => value
                .as_array()
                .is_some_and(|items| items.iter().all(|v| ParamType::Integer.accepts(v))),
        }
    }
}

/// One named parameter of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The argument's name.
    pub name: &'static str,
    /// Its JSON type.
    pub ty: ParamType,
    /// What it means, for the model.
    pub description: &'static str,
    /// Whether a call must give it.
    pub required: bool,
}

impl Param {
    /// The per-call override of the kernel guard (`allowKernelEdits`, an
    /// optional Boolean), with what it lets the tool that takes it do.
    pub const fn allow_kernel_edits(description: &'static str) -> Param {
        Param {
            name: "allowKernelEdits",
            ty: ParamType::Boolean,
            description,
            required: false,
        }
    }
}

/// The closed input schema for `params`.
pub fn input_schema(params: &[Param]) -> Value {
    let mut properties = Map::new();
    for p in params {
        let mut schema = p.ty.schema();
        schema["description"] = Value::String(p.description.into());
        properties.insert(p.name.into(), schema);
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    let mut schema = json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// The most characters a GemStone Symbol holds (`GCI_MAX_SYMBOL_SIZE`): no
/// class, selector, variable or dictionary can have a longer name.
pub const MAX_NAME_CHARS: usize = 1024;

/// The parameters, in every toolset, whose strings are Smalltalk names (symbols).
const NAME_PARAMS: [&str; 12] = [
    "className",
    "superclassName",
    "selector",
    "dictionaryName",
    "dictionary",
    "name",
    "instVarNames",
    "classVars",
    "classInstVars",
    "poolDictionaries",
    "classNames",
    "options",
];

/// A name longer than a Symbol holds, in `value` (a string or strings).
fn overlong_name(value: &Value) -> Option<usize> {
    let len = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
    match value {
        Value::Array(items) => items.iter().map(len).find(|&n| n > MAX_NAME_CHARS),
        v => Some(len(v)).filter(|&n| n > MAX_NAME_CHARS),
    }
}

/// Checks `args` against `params`; the error message names the offending argument.
/// Every problem is reported at once, in parameter order, unknown names last.
pub fn validate(params: &[Param], args: &Map<String, Value>) -> Result<(), String> {
    let mut problems = Vec::new();
    for p in params {
        match args.get(p.name) {
            None if p.required => problems.push(format!("missing required argument '{}'", p.name)),
            None => {}
            Some(v) if !p.ty.accepts(v) => problems.push(format!(
                "argument '{}' must be {}, not {}",
                p.name,
                p.ty.describe(),
                json_kind(v)
            )),
            Some(v) => {
                if let Some(n) = NAME_PARAMS
                    .contains(&p.name)
                    .then(|| overlong_name(v))
                    .flatten()
                {
                    problems.push(format!(
                        "argument '{}' holds a name of {n} characters; a Smalltalk name (a Symbol) has at most {MAX_NAME_CHARS}",
                        p.name
                    ));
                }
            }
        }
    }
    let mut unknown: Vec<&String> = args
        .keys()
        .filter(|k| !params.iter().any(|p| p.name == k.as_str()))
        .collect();
    unknown.sort();
    for name in unknown {
        let known: Vec<&str> = params.iter().map(|p| p.name).collect();
        problems.push(if known.is_empty() {
            format!("unknown argument '{name}': this tool takes no arguments")
        } else {
            format!("unknown argument '{name}' (expected: {})", known.join(", "))
        });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: &[Param] = &[
        Param {
            name: "code",
            ty: ParamType::String,
            description: "c",
            required: true,
        },
        Param {
            name: "meta",
            ty: ParamType::Boolean,
            description: "m",
            required: false,
        },
        Param {
            name: "limit",
            ty: ParamType::Integer,
            description: "l",
            required: false,
        },
        Param {
            name: "names",
            ty: ParamType::StringArray,
            description: "n",
            required: false,
        },
    ];

    fn args(v: Value) -> Map<String, Value> {
        v.as_object()
            .cloned()
            .expect("test arguments are an object")
    }

    /// Names are Symbols: longer than GemStone's symbol limit is refused before
    /// any Smalltalk runs; other strings (source, code) are not names.
    #[test]
    fn names_longer_than_a_symbol_are_refused() {
        let params = [
            Param {
                name: "className",
                ty: ParamType::String,
                description: "c",
                required: true,
            },
            Param {
                name: "instVarNames",
                ty: ParamType::StringArray,
                description: "i",
                required: false,
            },
            Param {
                name: "source",
                ty: ParamType::String,
                description: "s",
                required: false,
            },
        ];
        let long = "X".repeat(MAX_NAME_CHARS + 1);
        let max = "X".repeat(MAX_NAME_CHARS);
        let table = [
            (
                json!({"className": max, "instVarNames": [max], "source": long}),
                None,
            ),
            (
                json!({"className": long}),
                Some("'className' holds a name of 1025"),
            ),
            (
                json!({"className": "A", "instVarNames": ["a", long]}),
                Some("'instVarNames' holds a name of 1025"),
            ),
        ];
        for (a, want) in table {
            let got = validate(&params, &args(a.clone()));
            match want {
                None => assert_eq!(got, Ok(()), "{a}"),
                Some(w) => assert!(got.as_ref().unwrap_err().contains(w), "{a}: {got:?}"),
            }
        }
    }

    #[test]
    fn validation_table() {
        // (arguments, Ok or the substrings the error must contain)
        let table: Vec<(Value, Result<(), Vec<&str>>)> = vec![
            (json!({"code": "3 + 4"}), Ok(())),
            (
                json!({"code": "", "meta": true, "limit": 5, "names": ["A", "B"]}),
                Ok(()),
            ),
            (json!({"code": "x", "limit": 5.0}), Ok(())),
            (json!({"code": "x", "names": []}), Ok(())),
            (json!({}), Err(vec!["missing required argument 'code'"])),
            (json!({"code": "x".repeat(MAX_NAME_CHARS + 1)}), Ok(())),
            (
                json!({"code": 3}),
                Err(vec!["'code' must be a string, not an integer"]),
            ),
            (
                json!({"code": null}),
                Err(vec!["'code' must be a string, not null"]),
            ),
            (
                json!({"code": "x", "meta": "yes"}),
                Err(vec!["'meta' must be a boolean"]),
            ),
            (
                json!({"code": "x", "limit": 1.5}),
                Err(vec!["'limit' must be an integer, not a number"]),
            ),
            (
                json!({"code": "x", "names": ["A", 1]}),
                Err(vec!["'names' must be an array of strings"]),
            ),
            (
                json!({"code": "x", "cod": "y"}),
                Err(vec!["unknown argument 'cod'", "expected: code, meta"]),
            ),
            (
                json!({"zz": 1, "aa": 2}),
                Err(vec!["missing required argument 'code'", "'aa'", "'zz'"]),
            ),
        ];
        for (input, expected) in table {
            let got = validate(PARAMS, &args(input.clone()));
            match (got, expected) {
                (Ok(()), Ok(())) => {}
                (Err(msg), Err(parts)) => {
                    for part in parts {
                        assert!(
                            msg.contains(part),
                            "{input}: message {msg:?} lacks {part:?}"
                        );
                    }
                }
                (got, expected) => panic!("{input}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    #[test]
    fn unknown_argument_of_a_tool_without_parameters() {
        let err = validate(&[], &args(json!({"x": 1}))).unwrap_err();
        assert_eq!(err, "unknown argument 'x': this tool takes no arguments");
        assert_eq!(validate(&[], &Map::new()), Ok(()));
    }

    #[test]
    fn schema_is_closed_and_matches_the_params() {
        let schema = input_schema(PARAMS);
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["code"]));
        assert_eq!(schema["properties"]["code"]["type"], "string");
        assert_eq!(schema["properties"]["names"]["items"]["type"], "string");
        assert_eq!(
            schema["properties"].as_object().map(Map::len),
            Some(PARAMS.len())
        );
        let empty = input_schema(&[]);
        assert_eq!(
            empty,
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }
}
