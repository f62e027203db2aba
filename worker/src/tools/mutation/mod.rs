//! The Mutation toolset: `add_dictionary`, `compile_class_definition`,
//! `compile_method`, `delete_class`, `delete_method`, `remove_dictionary` and
//! `set_class_comment`, the tools that change the repository.
//!
//! None of them commits: every change stays in the session's transaction until
//! `commit`, and `abort` discards it. Their Smalltalk lives in
//! `mutation.st` beside this file; every argument enters it only as a quoted
//! literal (names as symbols, text as strings, name lists as Array literals of
//! symbols), so no client text is ever evaluated as code.
//!
//! `file_in` (`filein.rs`) files topaz text in chunk by chunk through the same
//! compile path and guards.
//!
//! The blind-write guardrail lives here: a tool that would overwrite an existing
//! method (`compile_method`) or class definition (`compile_class_definition`,
//! `set_class_comment`) refuses unless the session's [`super::Ledger`] records
//! that this session read or wrote it. Every successful write is recorded too.

use super::browsing::no_class;
use super::{
    check_error, strings, Annotations, Context, ErrorKind, Tool, ToolError, ToolOutput, Toolset,
};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use serde_json::{json, Map, Value};

use expressions as st;

mod filein;

/// This toolset's expressions, cut from `mutation.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/mutation.rs"));
}

const WRITES: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: false,
};

const DESTROYS: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: false,
};

const CLASS: Param = Param {
    name: "className",
    ty: ParamType::String,
    description: "The name of a class bound in the session's symbol list (case-sensitive).",
    required: true,
};

const META: Param = Param {
    name: "meta",
    ty: ParamType::Boolean,
    description: "true for the class side (default false: the instance side).",
    required: false,
};

const DICTIONARY_NAME: Param = Param {
    name: "dictionaryName",
    ty: ParamType::String,
    description: "The name of a dictionary of the session's symbol list (e.g. `UserGlobals`).",
    required: true,
};

/// The per-call override of the kernel guard.
const ALLOW_KERNEL_EDITS: Param = Param::allow_kernel_edits(
    "Change what a kernel class (one bound in Globals under its own name) already \
has — an existing method, its definition, comment or binding — anyway (default false). Adding a \
new method to a kernel class needs no override.",
);

const fn names(name: &'static str, description: &'static str) -> Param {
    Param {
        name,
        ty: ParamType::StringArray,
        description,
        required: false,
    }
}

/// The Mutation tools.
pub static TOOLS: [Tool; 9] = [
    Tool {
        name: "add_dictionary",
        title: "Add a dictionary",
        description: "Appends a new, empty SymbolDictionary of that name to the end of the \
session's symbol list. The name must be an identifier (a letter or underscore, then letters, \
digits or underscores; at most 256 characters) that no dictionary of the symbol list binds yet: a \
dictionary named like a class or global would shadow it. Does not commit: commit keeps it, \
abort discards it.",
        toolset: Toolset::Mutation,
        params: &[DICTIONARY_NAME],
        annotations: WRITES,
        handler: add_dictionary,
    },
    Tool {
        name: "compile_class_definition",
        title: "Define or redefine a class",
        description: "Defines a class, or redefines an existing one, from named parts (no code \
is evaluated): superclass (default: the current one, else Object), instance variables, class \
variables, class-instance variables and pool dictionaries as arrays of names, the dictionary to \
bind it in (default: where it is bound now, else UserGlobals) and class options (e.g. \
`modifiable`). A redefinition that changes the shape makes a new class version: the methods are \
recompiled onto it (unless recompileMethods is false) and the ones that no longer compile are \
reported; it is refused while the class has subclasses. Redefining an existing class requires \
that this session has read its definition (describe_class, get_class_definition or \
export_class_source) or written it. Does not commit.",
        toolset: Toolset::Mutation,
        params: &[
            CLASS,
            Param {
                name: "superclassName",
                ty: ParamType::String,
                description: "The superclass's name (default: the class's current superclass, \
else Object).",
                required: false,
            },
            names(
                "instVarNames",
                "The instance variables the class itself adds, in order.",
            ),
            names("classVars", "The class variables."),
            names("classInstVars", "The class-instance variables."),
            names(
                "poolDictionaries",
                "The names of pool dictionaries the class shares.",
            ),
            Param {
                name: "dictionary",
                ty: ParamType::String,
                description: "The symbol-list dictionary to bind the class in (default: the one \
binding it now, else UserGlobals).",
                required: false,
            },
            names(
                "options",
                "Class options, e.g. `modifiable`, `subclassesDisallowed`, `dbTransient`.",
            ),
            Param {
                name: "recompileMethods",
                ty: ParamType::Boolean,
                description: "On a shape change, recompile the old version's methods onto the \
new one (default true).",
                required: false,
            },
            ALLOW_KERNEL_EDITS,
        ],
        annotations: WRITES,
        handler: compile_class_definition,
    },
    Tool {
        name: "compile_method",
        title: "Compile a method",
        description: "Compiles a method's source (selector pattern first) into a class, on the \
instance side or with meta on the class side, in a method category (default: the category \
the method has now, else `as yet unclassified`). A compile error fails with kind compileError, \
its line, offset and text. Replacing an existing method requires that this session has read it \
(get_method_source or export_class_source) or written it. A new method may be added to a kernel \
class; replacing one of its existing methods needs allowKernelEdits. Does not commit.",
        toolset: Toolset::Mutation,
        params: &[
            CLASS,
            Param {
                name: "source",
                ty: ParamType::String,
                description: "The whole method: the selector pattern, then temporaries and \
statements.",
                required: true,
            },
            Param {
                name: "category",
                ty: ParamType::String,
                description: "The method category (default: the method's current category, \
else `as yet unclassified`).",
                required: false,
            },
            META,
            ALLOW_KERNEL_EDITS,
            Param {
                name: "format",
                ty: ParamType::Boolean,
                description: "Lay the source out in the formatter's GemStone style before \
compiling it (default true, unless the server turned Mutation.formatOnCompile off); false \
compiles it exactly as given.",
                required: false,
            },
        ],
        annotations: WRITES,
        handler: compile_method,
    },
    Tool {
        name: "delete_class",
        title: "Delete a class",
        description: "Removes the class's binding from the dictionary that holds it (refused \
while it has subclasses). Does not commit: abort brings it back.",
        toolset: Toolset::Mutation,
        params: &[CLASS, ALLOW_KERNEL_EDITS],
        annotations: DESTROYS,
        handler: delete_class,
    },
    Tool {
        name: "delete_method",
        title: "Delete a method",
        description: "Removes one method the class defines itself (meta: the class side). Does \
not commit: abort brings it back.",
        toolset: Toolset::Mutation,
        params: &[
            CLASS,
            Param {
                name: "selector",
                ty: ParamType::String,
                description: "The method's selector (e.g. `at:put:`).",
                required: true,
            },
            META,
            ALLOW_KERNEL_EDITS,
        ],
        annotations: DESTROYS,
        handler: delete_method,
    },
    Tool {
        name: "file_in",
        title: "File in topaz text",
        description: "Files topaz file-in text (what export_class_source answers, or a \
GemStone .gs file-out) into the session's transaction, chunk by chunk: `method:` / \
`classmethod:` bodies compile as compile_method does (same guards), in the category of the last \
`category:` line; `removeallmethods` / `removeallclassmethods` empty one side of a class the \
session has read; `run` / `doit` chunks that define a class or set its comment or category run \
under the same guards as compile_class_definition; any other `run` / `doit` chunk is code, run \
only when this session may use execute_code. The whole text is parsed first: a malformed line or \
a session command (`commit`, `abort`, `login`, `input`, `output`…) refuses the call with nothing \
changed. Answers per chunk its line, what it defined or why it failed (with the line of the \
original text); stops at the first failure unless stopOnError is false. Does not commit: \
commit keeps what was filed in, abort discards it.",
        toolset: Toolset::Mutation,
        params: &[
            Param {
                name: "source",
                ty: ParamType::String,
                description: "The topaz text: chunks opened by `run`, `doit`, `printit`, \
`method: CLASS` or `classmethod: CLASS` and closed by a line holding `%`, with `category:`, \
`removeallmethods`, `set class`, `expectvalue` and `!` comment lines between them.",
                required: true,
            },
            Param {
                name: "stopOnError",
                ty: ParamType::Boolean,
                description: "Stop at the first chunk that fails (default true); false files \
in the rest and reports every failure.",
                required: false,
            },
            ALLOW_KERNEL_EDITS,
        ],
        annotations: WRITES,
        handler: filein::file_in,
    },
    Tool {
        name: "format_source",
        title: "Format method source",
        description: "Answers a method's source laid out the way compile_method lays it out \
(GemStone style: the pattern, then pragmas, temporaries and one statement per line one tab in; \
one-line blocks stay on one line; comments, literal forms and the author's line breaks inside \
statements are kept), without compiling anything. The result parses to the same method. Source \
that does not parse is a compileError with its line and offset.",
        toolset: Toolset::Mutation,
        params: &[Param {
            name: "source",
            ty: ParamType::String,
            description: "The whole method: the selector pattern, then temporaries and \
statements.",
            required: true,
        }],
        annotations: super::READ_ONLY,
        handler: format_source,
    },
    Tool {
        name: "remove_dictionary",
        title: "Remove a dictionary",
        description: "Removes the named dictionary from the session's symbol list, and with it \
every name it binds. Globals and UserGlobals are never removed. Does not commit: abort brings \
it back.",
        toolset: Toolset::Mutation,
        params: &[DICTIONARY_NAME],
        annotations: DESTROYS,
        handler: remove_dictionary,
    },
    Tool {
        name: "set_class_comment",
        title: "Set a class comment",
        description: "Replaces the class's comment. Requires that this session has read the \
class (describe_class, get_class_definition or export_class_source) or written it. Does not \
commit.",
        toolset: Toolset::Mutation,
        params: &[
            CLASS,
            Param {
                name: "comment",
                ty: ParamType::String,
                description: "The new comment, any text.",
                required: true,
            },
            ALLOW_KERNEL_EDITS,
        ],
        annotations: WRITES,
        handler: set_class_comment,
    },
];

/// The dictionaries no tool removes: the kernel's and the user's default.
const KEPT_DICTIONARIES: [&str; 2] = ["Globals", "UserGlobals"];

/// Whether this call leaves what kernel classes have alone: the deployment's
/// `Mutation.kernelGuard`, unless the call passes `allowKernelEdits`.
fn kernel_guard(cx: &Context<'_>) -> Literal {
    Literal::boolean(kernel_guarded(cx))
}

/// Whether this call leaves kernel classes' existing methods and definitions
/// alone: the deployment's `Mutation.kernelGuard` (whichever toolset's tool
/// writes), unless the call passes `allowKernelEdits`.
pub(in crate::tools) fn kernel_guarded(cx: &Context<'_>) -> bool {
    cx.options
        .flag(Toolset::Mutation.name(), "kernelGuard", true)
        && !cx.bool_arg("allowKernelEdits")
}

/// Whether this deployment refuses blind overwrites (`Mutation.blindWriteGuard`).
fn blind_write_guard(cx: &Context<'_>) -> bool {
    cx.options
        .flag(Toolset::Mutation.name(), "blindWriteGuard", true)
}

/// The refusal for a change to what kernel class `class` already has
/// (`what`: its method, definition…) while the kernel guard is on.
fn refused_kernel(class: &str, what: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Refused,
        format!(
            "refused: {class} is a kernel class (bound in Globals under its own name), and this \
would change {what}; nothing was changed. Kernel code is shared by everything in the repository, \
so the server leaves it alone (the Mutation.kernelGuard option): adding a new method to a kernel \
class is allowed, or put the behaviour in a class of your own (e.g. a subclass); to change it \
anyway, repeat the call with allowKernelEdits: true"
        ),
    )
}

fn refused_unseen_class(class: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Refused,
        format!(
            "refused: {class} already exists and this session has not read its current \
definition, so this would overwrite it unseen; read it first with describe_class, \
get_class_definition or export_class_source, then repeat the call"
        ),
    )
}

/// A Smalltalk literal Array of symbols for the string-array argument `name`.
fn symbol_array(cx: &Context<'_>, name: &str) -> Literal {
    let items = cx.args.get(name).and_then(Value::as_array);
    Literal::symbol_array(items.into_iter().flatten().filter_map(Value::as_str))
}

/// Whether `name` is a Smalltalk identifier (a letter or `_`, then letters,
/// digits or `_`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The pseudo-variables: identifiers no variable may be named, since no
/// method could refer to it.
const RESERVED: [&str; 6] = ["self", "super", "nil", "true", "false", "thisContext"];

fn check_identifiers(cx: &Context<'_>, arg: &str) -> Result<(), ToolError> {
    let items = cx.args.get(arg).and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        let name = item.as_str().unwrap_or_default();
        if !is_identifier(name) {
            return Err(ToolError::new(
                ErrorKind::InvalidParams,
                format!("argument '{arg}': {name:?} is not a Smalltalk identifier"),
            ));
        }
        if arg != "options" && RESERVED.contains(&name) {
            return Err(ToolError::new(
                ErrorKind::InvalidParams,
                format!(
                    "argument '{arg}': {name:?} is a reserved word (a pseudo-variable) and cannot name a variable"
                ),
            ));
        }
    }
    Ok(())
}

/// The class options a definition may name (GemStone's list).
const OPTIONS: [&str; 10] = [
    "noInheritOptions",
    "subclassesDisallowed",
    "disallowGciStore",
    "modifiable",
    "traverseByCallback",
    "selfCanBeSpecial",
    "logCreation",
    "dbTransient",
    "instancesNonPersistent",
    "instancesInvariant",
];

/// Unknown class options and names given twice in one list are `invalidParams`.
fn check_options(cx: &Context<'_>) -> Result<(), ToolError> {
    let list = |name: &str| cx.strings_arg(name);
    for option in list("options") {
        if !OPTIONS.contains(&option) {
            return Err(ToolError::new(
                ErrorKind::InvalidParams,
                format!(
                    "argument 'options': unknown class option {option:?} (known: {})",
                    OPTIONS.join(", ")
                ),
            ));
        }
    }
    for arg in [
        "instVarNames",
        "classVars",
        "classInstVars",
        "poolDictionaries",
        "options",
    ] {
        let names = list(arg);
        if let Some((_, dup)) = names
            .iter()
            .enumerate()
            .find(|(i, n)| names[..*i].contains(n))
        {
            return Err(ToolError::new(
                ErrorKind::InvalidParams,
                format!("argument '{arg}': {dup:?} is named twice"),
            ));
        }
    }
    Ok(())
}

/// An optional string argument as a symbol literal, or `nil`.
fn optional_symbol(cx: &Context<'_>, name: &str) -> Literal {
    Literal::optional_symbol(cx.str_arg(name))
}

fn add_dictionary(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let name = cx.str_arg("dictionaryName").unwrap_or_default();
    if let Some(why) = not_a_dictionary_name(name) {
        return Err(ToolError::new(
            ErrorKind::InvalidParams,
            format!("argument 'dictionaryName' {why}"),
        ));
    }
    let answer = cx.run_json(&st::AddDictionary {
        dictionary_name: Literal::symbol(name),
    })?;
    let d = check_error(answer, |kind| {
        let why = if kind == "exists" {
            format!("the symbol list already has a dictionary named '{name}'")
        } else {
            format!(
                "'{name}' is bound in the symbol list already (a class or global of that name); \
a dictionary of that name would shadow it"
            )
        };
        (
            ErrorKind::Refused,
            format!("refused: {why}; list_dictionaries names the dictionaries there are"),
        )
    })?;
    let position = d["position"].as_u64().unwrap_or(0);
    Ok(ToolOutput {
        text: format!("added dictionary {name} at position {position} of the symbol list"),
        structured: json!({"dictionaryName": name, "position": position}),
    })
}

/// The longest dictionary name `add_dictionary` accepts.
const MAX_DICTIONARY_NAME: usize = 256;

/// Why `name` cannot name a new dictionary (None: it can): it must be a
/// Smalltalk identifier, as GemStone's names of dictionaries are.
fn not_a_dictionary_name(name: &str) -> Option<String> {
    let mut chars = name.chars();
    match chars.next() {
        None => Some("must not be empty".into()),
        Some(_) if name.chars().count() > MAX_DICTIONARY_NAME => {
            Some(format!("is longer than {MAX_DICTIONARY_NAME} characters"))
        }
        Some(first) if !(first.is_alphabetic() || first == '_') => Some(format!(
            "must start with a letter or an underscore, not {first:?}: a dictionary's name is \
an identifier"
        )),
        Some('_') if name.len() == 1 => Some("must not be a lone underscore".into()),
        Some(_) => chars
            .find(|&c| !(c.is_alphanumeric() || c == '_'))
            .map(|c| {
                format!(
                    "may hold only letters, digits and underscores, not {c:?}: a dictionary's \
name is an identifier"
                )
            }),
    }
}

fn remove_dictionary(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let name = cx.str_arg("dictionaryName").unwrap_or_default();
    if KEPT_DICTIONARIES.contains(&name) {
        return Err(ToolError::new(
            ErrorKind::Refused,
            format!("refused: {name} is never removed (the session cannot work without it)"),
        ));
    }
    let answer = cx.run_json(&st::RemoveDictionary {
        dictionary_name: Literal::symbol(name),
    })?;
    let d = check_error(answer, |_| {
        (
            ErrorKind::NotFound,
            format!(
                "no dictionary named '{name}' in this session's symbol list; list_dictionaries \
names them"
            ),
        )
    })?;
    let size = d["size"].as_u64().unwrap_or(0);
    Ok(ToolOutput {
        text: format!("removed dictionary {name} ({size} entries) from the symbol list"),
        structured: json!({"dictionaryName": name, "size": size}),
    })
}

/// The selector of a method's source, read from its pattern (after leading
/// white space and comments), or None when the pattern is not well formed (the
/// compiler then reports the error).
pub fn selector_of(source: &str) -> Option<String> {
    let mut rest = source;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('"') {
            rest = &after[after.find('"')? + 1..];
        } else {
            break;
        }
    }
    let ident_len = |s: &str| {
        let mut n = 0;
        for (i, c) in s.char_indices() {
            let ok = if i == 0 {
                c.is_ascii_alphabetic() || c == '_'
            } else {
                c.is_ascii_alphanumeric() || c == '_'
            };
            if !ok {
                break;
            }
            n = i + c.len_utf8();
        }
        n
    };
    let first = rest.chars().next()?;
    if first.is_ascii_alphabetic() || first == '_' {
        let n = ident_len(rest);
        if !rest[n..].starts_with(':') || rest[n..].starts_with(":=") {
            return Some(rest[..n].to_string());
        }
        // Keyword pattern: (keyword: arg)+
        let mut selector = String::new();
        loop {
            let n = ident_len(rest);
            if n == 0 || !rest[n..].starts_with(':') || rest[n..].starts_with(":=") {
                break;
            }
            selector.push_str(&rest[..=n]);
            rest = rest[n + 1..].trim_start();
            let arg = ident_len(rest);
            if arg == 0 {
                return None;
            }
            rest = rest[arg..].trim_start();
        }
        return Some(selector);
    }
    const BINARY: &str = "+-*/\\<>=~@%|&?,";
    let n = rest.chars().take_while(|c| BINARY.contains(*c)).count();
    (n > 0).then(|| rest[..n].to_string())
}

/// 1-based line and column of the 1-based character `offset` of `source`.
fn line_and_column(source: &str, offset: u64) -> (u64, u64) {
    let (mut line, mut column) = (1, 1);
    for c in source.chars().take(offset.saturating_sub(1) as usize) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

fn compile_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let given = cx.str_arg("source").unwrap_or_default();
    let meta = cx.bool_arg("meta");
    let category = cx.str_arg("category");
    let wanted = cx.flag_option("formatOnCompile", true)
        && cx.args.get("format").and_then(Value::as_bool) != Some(false);
    // source that does not parse is compiled as given, so its compile error shows
    let formatted = wanted
        .then(|| gsmcp_smalltalk::format::format_method(given).ok())
        .flatten();
    let source = formatted.as_deref().unwrap_or(given);
    let mut result = compile(cx, class, meta, source, category);
    if formatted.is_some() && matches!(&result, Err(e) if e.kind == ErrorKind::CompileError) {
        // report the compile error at the lines and offsets of the text as given
        result = compile(cx, class, meta, given, category);
    }
    let mut answer = result?;
    let side = if meta { " class" } else { "" };
    let compiled = answer["selector"].as_str().unwrap_or_default().to_string();
    let category = answer["category"]
        .as_str()
        .unwrap_or("as yet unclassified")
        .to_string();
    answer["formatted"] = json!(formatted.as_deref().is_some_and(|f| f != given));
    let mut text = format!("compiled {class}{side}>>{compiled} in category '{category}'");
    if answer["formatted"] == true {
        text.push_str(" (source laid out by the formatter; get_method_source shows it)");
    }
    Ok(ToolOutput {
        text,
        structured: answer,
    })
}

fn format_source(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    use gsmcp_smalltalk::format::{format_method, FormatError};
    let source = cx.str_arg("source").unwrap_or_default();
    match format_method(source) {
        Ok(formatted) => Ok(ToolOutput {
            structured: json!({"source": formatted, "changed": formatted != source}),
            text: formatted,
        }),
        Err(FormatError::Syntax(e)) => {
            let offset = e.offset as u64 + 1;
            let (line, column) = line_and_column(source, offset);
            let mut err = ToolError::new(
                ErrorKind::CompileError,
                format!(
                    "the source does not parse as a method: line {line}, column {column} \
(offset {offset}): {}",
                    e.message
                ),
            );
            err.details.insert("line".into(), json!(line));
            err.details.insert("offset".into(), json!(offset));
            Err(err)
        }
        Err(e @ FormatError::Unsafe) => Err(ToolError::new(ErrorKind::Other, e.to_string())),
    }
}

/// Compiles `source` into `class` (its metaclass when `meta`) in `category`
/// (None: the method's current one, else `as yet unclassified`) under both
/// guards, records the write in the ledger and answers the expression's
/// `{className, selector, category}`: the one compile path of `compile_method`
/// and `file_in` (and the refactorings' writes).
pub(in crate::tools) fn compile(
    cx: &mut Context<'_>,
    class: &str,
    meta: bool,
    source: &str,
    category: Option<&str>,
) -> Result<Value, ToolError> {
    let selector = selector_of(source);
    let may_overwrite = !blind_write_guard(cx)
        || selector
            .as_deref()
            .is_some_and(|s| cx.ledger.has_seen_method(class, meta, s));
    let answer = cx.run_json(&st::CompileMethod {
        class_name: Literal::symbol(class),
        meta: Literal::boolean(meta),
        selector: Literal::optional_symbol(selector.as_deref()),
        may_overwrite: Literal::boolean(may_overwrite),
        source: Literal::string(source),
        category: category.map_or_else(Literal::nil, Literal::string),
        kernel_guard: kernel_guard(cx),
    })?;
    let side = if meta { " class" } else { "" };
    match answer.get("error").and_then(Value::as_str) {
        None => {}
        Some("compileError") => {
            let details = answer["details"].as_array().cloned().unwrap_or_default();
            let mut errors = Vec::new();
            let mut lines = Vec::new();
            for d in &details {
                let offset = d["offset"].as_u64();
                let (line, column) = offset
                    .map(|o| line_and_column(source, o))
                    .map_or((None, None), |(l, c)| (Some(l), Some(c)));
                let text = d["text"].as_str().unwrap_or("compile error");
                let at = match (line, column) {
                    (Some(l), Some(c)) => {
                        format!("line {l}, column {c} (offset {}): ", offset.unwrap_or(0))
                    }
                    _ => String::new(),
                };
                lines.push(format!("{at}{text}"));
                errors.push(json!({
                    "number": d["number"], "offset": offset, "line": line, "column": column,
                    "text": text, "name": d["name"],
                }));
            }
            let first = errors.first().cloned().unwrap_or(Value::Null);
            let mut err = ToolError::new(
                ErrorKind::CompileError,
                format!(
                    "the method does not compile in {class}{side}, nothing was changed:\n{}",
                    lines.join("\n")
                ),
            );
            let d: &mut Map<String, Value> = &mut err.details;
            d.insert("line".into(), first["line"].clone());
            d.insert("offset".into(), first["offset"].clone());
            d.insert("number".into(), first["number"].clone());
            d.insert("errors".into(), Value::Array(errors));
            return Err(err);
        }
        Some("kernel") => {
            let sel = selector.as_deref().unwrap_or("?");
            return Err(refused_kernel(
                class,
                &format!("its existing method {class}{side}>>{sel}"),
            ));
        }
        Some("unseen") => {
            let sel = selector.unwrap_or_default();
            return Err(ToolError::new(
                ErrorKind::Refused,
                format!(
                    "refused: {class}{side}>>{sel} already exists and this session has not read \
its current source, so this would overwrite it unseen; read it first with get_method_source \
(className {class}, selector {sel}{}) or export_class_source, then repeat the call",
                    if meta { ", meta true" } else { "" }
                ),
            ));
        }
        Some(_) => {
            let (k, m) = no_class(class);
            return Err(ToolError::new(k, m));
        }
    }
    let compiled = answer["selector"].as_str().unwrap_or_default();
    cx.ledger.wrote_method(class, meta, compiled);
    Ok(answer)
}

fn delete_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let selector = cx.str_arg("selector").unwrap_or_default();
    let meta = cx.bool_arg("meta");
    let side = if meta { " class" } else { "" };
    let answer = cx.run_json(&st::DeleteMethod {
        class_name: Literal::symbol(class),
        selector: Literal::symbol(selector),
        meta: Literal::boolean(meta),
        kernel_guard: kernel_guard(cx),
    })?;
    if answer["error"] == "kernel" {
        return Err(refused_kernel(
            class,
            &format!("its existing method {class}{side}>>{selector}"),
        ));
    }
    check_error(answer, |kind| match kind {
        "noMethod" => (
            ErrorKind::NotFound,
            format!(
                "{class}{side} has no method '{selector}' of its own; list_methods names its \
selectors"
            ),
        ),
        _ => no_class(class),
    })?;
    Ok(ToolOutput {
        text: format!("deleted {class}{side}>>{selector}"),
        structured: json!({"className": class, "selector": selector, "meta": meta}),
    })
}

fn delete_class(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let answer = cx.run_json(&st::DeleteClass {
        class_name: Literal::symbol(class),
        kernel_guard: kernel_guard(cx),
    })?;
    if answer["error"] == "kernel" {
        return Err(refused_kernel(class, "its binding (deleting the class)"));
    }
    if answer["error"] == "hasSubclasses" {
        let subs = strings(&answer["subclasses"]);
        return Err(ToolError::new(
            ErrorKind::Refused,
            format!(
                "refused: {class} has subclasses ({}); delete them first",
                subs.join(" ")
            ),
        ));
    }
    let d = check_error(answer, |_| no_class(class))?;
    let dict = d["dictionary"].as_str().unwrap_or("").to_string();
    Ok(ToolOutput {
        text: format!("deleted class {class} (removed from {dict})"),
        structured: json!({"className": class, "dictionary": dict}),
    })
}

fn set_class_comment(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let comment = cx.str_arg("comment").unwrap_or_default();
    if blind_write_guard(cx) && !cx.ledger.has_seen_class(class) {
        let exists = cx.run_json(&st::ClassExists {
            class_name: Literal::symbol(class),
            kernel_guard: kernel_guard(cx),
        })?;
        if exists["exists"] != true {
            let (k, m) = no_class(class);
            return Err(ToolError::new(k, m));
        }
        if exists["kernel"] == true {
            return Err(refused_kernel(class, "its comment"));
        }
        return Err(refused_unseen_class(class));
    }
    let answer = cx.run_json(&st::SetClassComment {
        class_name: Literal::symbol(class),
        comment: Literal::string(comment),
        kernel_guard: kernel_guard(cx),
    })?;
    if answer["error"] == "kernel" {
        return Err(refused_kernel(class, "its comment"));
    }
    check_error(answer, |_| no_class(class))?;
    cx.ledger.wrote_class(class);
    Ok(ToolOutput {
        text: format!("set the comment of {class}"),
        structured: json!({"className": class, "comment": comment}),
    })
}

fn compile_class_definition(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    if !is_identifier(class) || !class.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Err(ToolError::new(
            ErrorKind::InvalidParams,
            format!("argument 'className': {class:?} is not a class name (an identifier starting with a capital letter)"),
        ));
    }
    for arg in ["instVarNames", "classVars", "classInstVars", "options"] {
        check_identifiers(cx, arg)?;
    }
    check_options(cx)?;
    if blind_write_guard(cx) && !cx.ledger.has_seen_class(class) {
        let exists = cx.run_json(&st::ClassExists {
            class_name: Literal::symbol(class),
            kernel_guard: kernel_guard(cx),
        })?;
        if exists["kernel"] == true {
            return Err(refused_kernel(class, "its definition"));
        }
        if exists["error"] == "notClass" {
            return Err(ToolError::new(
                ErrorKind::Refused,
                format!("refused: '{class}' is bound to an object that is not a class; a class definition would replace it"),
            ));
        }
        if exists["exists"] == true {
            return Err(refused_unseen_class(class));
        }
    }
    let recompile = cx
        .args
        .get("recompileMethods")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let definition = st::CompileClassDefinition {
        class_name: Literal::symbol(class),
        superclass_name: optional_symbol(cx, "superclassName"),
        dictionary: optional_symbol(cx, "dictionary"),
        inst_var_names: symbol_array(cx, "instVarNames"),
        class_vars: symbol_array(cx, "classVars"),
        class_inst_vars: symbol_array(cx, "classInstVars"),
        pool_dictionaries: symbol_array(cx, "poolDictionaries"),
        options: symbol_array(cx, "options"),
        recompile: Literal::boolean(recompile),
        kernel_guard: kernel_guard(cx),
    };
    let answer = cx.run_json(&definition)?;
    if let Some(kind) = answer["error"].as_str() {
        let name = answer["name"].as_str().unwrap_or("");
        if kind == "kernel" {
            let dictionary_named = cx.str_arg("dictionary").unwrap_or("");
            return Err(if dictionary_named == "Globals" {
                ToolError::new(
                    ErrorKind::Refused,
                    "refused: Globals is the kernel's dictionary, and this server does not add \
classes to it (the Mutation.kernelGuard option); define the class in UserGlobals or a dictionary \
of your own, or repeat the call with allowKernelEdits: true",
                )
            } else {
                refused_kernel(class, "its definition")
            });
        }
        let (k, m) = match kind {
            "notClass" => (
                ErrorKind::Refused,
                format!("refused: '{class}' is bound to an object that is not a class"),
            ),
            "noSuperclass" => (
                ErrorKind::NotFound,
                format!("no class named '{name}' to be the superclass; list_all_classes names the classes there are"),
            ),
            "noDictionary" => (
                ErrorKind::NotFound,
                format!("no dictionary named '{name}' in the symbol list; list_dictionaries names them, add_dictionary adds one"),
            ),
            "noPool" => (
                ErrorKind::NotFound,
                format!("no pool dictionary named '{name}' in the symbol list"),
            ),
            "hasSubclasses" => {
                let subs = strings(&answer["subclasses"]);
                (
                    ErrorKind::Refused,
                    format!(
                        "refused: this redefinition changes {class}'s shape, which would make a new \
class version, and {class} has subclasses ({}) that would stay on the old one; change or delete \
the subclasses first, or keep the shape",
                        subs.join(" ")
                    ),
                )
            }
            other => (ErrorKind::Other, format!("the definition failed: {other}")),
        };
        return Err(ToolError::new(k, m));
    }
    cx.ledger.wrote_class(class);
    let failures = answer["failures"].as_array().cloned().unwrap_or_default();
    for f in &failures {
        // A method that no longer compiles is gone from the new version; the
        // session knows that, so recompiling it is not a blind write.
        cx.ledger.wrote_method(
            class,
            f["meta"] == true,
            f["selector"].as_str().unwrap_or(""),
        );
    }
    let mut text = if answer["created"] == true {
        format!(
            "defined class {class} in {}",
            answer["dictionary"].as_str().unwrap_or("")
        )
    } else if answer["newVersion"] == true {
        format!(
            "redefined {class} as a new class version; {} method(s) recompiled onto it",
            answer["recompiled"]
        )
    } else {
        format!("redefined {class} in place")
    };
    if !failures.is_empty() {
        text.push_str(&format!(
            "\n{} method(s) no longer compile and are not in the new version:",
            failures.len()
        ));
        for f in &failures {
            text.push_str(&format!(
                "\n  {}{}: {}",
                f["selector"].as_str().unwrap_or(""),
                if f["meta"] == true {
                    " (class side)"
                } else {
                    ""
                },
                f["text"].as_str().unwrap_or("")
            ));
        }
    }
    Ok(ToolOutput {
        text,
        structured: answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_names_are_identifiers() {
        // (name, accepted)
        let table = [
            ("Scratch", true),
            ("scratch_2", true),
            ("_private", true),
            ("Wörterbuch", true),
            ("", false),
            ("_", false),
            ("2nd", false),
            ("a b", false),
            ("a\u{0}b", false),
            ("it's", false),
            ("a.b", false),
            ("x😀", false),
        ];
        for (name, accepted) in table {
            assert_eq!(not_a_dictionary_name(name).is_none(), accepted, "{name:?}");
        }
        assert!(not_a_dictionary_name(&"a".repeat(MAX_DICTIONARY_NAME)).is_none());
        assert!(not_a_dictionary_name(&"a".repeat(MAX_DICTIONARY_NAME + 1)).is_some());
    }

    #[test]
    fn selectors_are_read_from_patterns() {
        let table: [(&str, Option<&str>); 9] = [
            ("foo\n\t^ 1", Some("foo")),
            ("  \"a comment\" bar ^ 2", Some("bar")),
            ("at: i put: v\n\t^ v", Some("at:put:")),
            ("+ other ^ self", Some("+")),
            ("<= other ^ true", Some("<=")),
            ("x_1: a", Some("x_1:")),
            ("", None),
            ("at: ^ 1", None),
            ("\"unterminated", None),
        ];
        for (source, expected) in table {
            assert_eq!(selector_of(source).as_deref(), expected, "{source:?}");
        }
    }

    #[test]
    fn offsets_map_to_lines() {
        let src = "foo\n\t^ 1 +\n";
        assert_eq!(line_and_column(src, 1), (1, 1));
        assert_eq!(line_and_column(src, 5), (2, 1));
        assert_eq!(line_and_column(src, 8), (2, 4));
    }

    #[test]
    fn identifiers() {
        for (name, ok) in [
            ("a", true),
            ("_x1", true),
            ("1a", false),
            ("a b", false),
            ("", false),
            ("a'", false),
        ] {
            assert_eq!(is_identifier(name), ok, "{name:?}");
        }
    }
}
