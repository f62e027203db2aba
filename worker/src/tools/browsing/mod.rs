//! The Browsing toolset: `describe_class`, `export_class_source`,
//! `get_class_definition`, `get_class_hierarchy`, `get_method_source` and
//! `list_methods`, what one class is and holds.
//!
//! Their Smalltalk lives beside this file in `browsing.st`; class names and
//! selectors enter it only as quoted symbol literals. These tools only read, but
//! the ones that show a current definition record it in the session's ledger
//! (the blind-write guardrail of the Mutation tools consults it).
//!
//! `resources.rs` serves the same reads as MCP resources (`gemstone://class/…`,
//! `gemstone://method/…`) with completion of class names and selectors.

use super::template::Expression;
use super::{
    check_error, strings, Context, ErrorKind, Tool, ToolError, ToolOutput, Toolset, READ_ONLY,
};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use expressions as st;
use serde_json::{json, Value};

mod resources;
pub use resources::TEMPLATES;

/// This toolset's expressions, cut from `browsing.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/browsing.rs"));
}

const CLASS: Param = Param {
    name: "className",
    ty: ParamType::String,
    description:
        "The name of a class bound in the session's symbol list (e.g. `OrderedCollection`).",
    required: true,
};

const SELECTOR: Param = Param {
    name: "selector",
    ty: ParamType::String,
    description: "The method's selector (e.g. `add:` or `at:put:`).",
    required: true,
};

const META: Param = Param {
    name: "meta",
    ty: ParamType::Boolean,
    description: "true for a class-side method (default false: an instance-side method).",
    required: false,
};

/// The Browsing tools.
pub static TOOLS: [Tool; 6] = [
    Tool {
        name: "describe_class",
        title: "Describe a class",
        description: "Describes a class: its superclass, instance variables (its own and all), \
class variables, class-instance variables, category, comment, and its selectors grouped by \
method category on the instance side and the class side.",
        toolset: Toolset::Browsing,
        params: &[CLASS],
        annotations: READ_ONLY,
        handler: describe_class,
    },
    Tool {
        name: "export_class_source",
        title: "Export a class as a file-in",
        description: "Answers the class as topaz file-in source: its definition followed by \
every method of both sides, as GemStone's fileOutClass writes it.",
        toolset: Toolset::Browsing,
        params: &[CLASS],
        annotations: READ_ONLY,
        handler: export_class_source,
    },
    Tool {
        name: "get_class_definition",
        title: "Get a class definition",
        description: "Answers the class-creation expression that defines the class (superclass, \
instance, class and class-instance variables, pool dictionaries, dictionary, options) and its \
category, which the definition text does not include.",
        toolset: Toolset::Browsing,
        params: &[CLASS],
        annotations: READ_ONLY,
        handler: get_class_definition,
    },
    Tool {
        name: "get_class_hierarchy",
        title: "Get a class hierarchy",
        description: "Answers the class's superclass chain from the root down, and its direct \
subclasses sorted by name.",
        toolset: Toolset::Browsing,
        params: &[CLASS],
        annotations: READ_ONLY,
        handler: get_class_hierarchy,
    },
    Tool {
        name: "get_method_source",
        title: "Get a method's source",
        description: "Answers the source and method category of one method the class itself \
defines (not an inherited one: find_implementors finds where a selector is defined). Set meta \
for a class-side method.",
        toolset: Toolset::Browsing,
        params: &[CLASS, SELECTOR, META],
        annotations: READ_ONLY,
        handler: get_method_source,
    },
    Tool {
        name: "list_methods",
        title: "List a class's methods",
        description: "Lists the selectors the class defines, grouped by method category, on the \
instance side and on the class side.",
        toolset: Toolset::Browsing,
        params: &[CLASS],
        annotations: READ_ONLY,
        handler: list_methods,
    },
];

/// The `notFound` error for a class name the symbol list does not bind to a class.
pub fn no_class(name: &str) -> (ErrorKind, String) {
    (
        ErrorKind::NotFound,
        format!(
            "no class named '{name}' in this session's symbol list; list_all_classes or \
list_classes name the classes there are (names are case-sensitive)"
        ),
    )
}

/// Runs a browsing expression on the class the call names.
fn run(cx: &mut Context<'_>, expression: &impl Expression) -> Result<Value, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let answer = cx.run_json(expression)?;
    check_error(answer, |kind| match kind {
        "noMethod" => {
            let side = if cx.bool_arg("meta") { " class" } else { "" };
            let selector = cx.str_arg("selector").unwrap_or_default();
            (
                ErrorKind::NotFound,
                format!(
                    "{class}{side} has no method '{selector}' of its own; list_methods names its \
selectors and find_implementors finds the classes that define it"
                ),
            )
        }
        _ => no_class(class),
    })
}

/// The class the call names, as a symbol literal.
fn class_literal(cx: &Context<'_>) -> Literal {
    Literal::symbol(cx.str_arg("className").unwrap_or_default())
}

/// Renders `[{category, selectors}]` as indented lines.
fn render_categories(text: &mut String, side: &str, cats: &Value) {
    let cats = cats.as_array().cloned().unwrap_or_default();
    if cats.is_empty() {
        text.push_str(&format!("\n{side}: no methods"));
        return;
    }
    text.push_str(&format!("\n{side}:"));
    for c in &cats {
        text.push_str(&format!(
            "\n  {}: {}",
            c["category"].as_str().unwrap_or(""),
            strings(&c["selectors"]).join(" ")
        ));
    }
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join(" ")
    }
}

fn describe_class(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let d = run(
        cx,
        &st::DescribeClass {
            class_name: class_literal(cx),
        },
    )?;
    let name = d["name"].as_str().unwrap_or("").to_string();
    cx.ledger.saw_class(&name);
    let mut text = format!(
        "{name}\nsuperclass: {}\ninstance variables: {}\nall instance variables: {}\nclass variables: {}\nclass-instance variables: {}\ncategory: {}\ncomment: {}",
        d["superclass"].as_str().unwrap_or("nil"),
        list_or_none(&strings(&d["instVarNames"])),
        list_or_none(&strings(&d["allInstVarNames"])),
        list_or_none(&strings(&d["classVarNames"])),
        list_or_none(&strings(&d["classInstVarNames"])),
        d["category"].as_str().unwrap_or("(none)"),
        d["comment"].as_str().unwrap_or("(none)"),
    );
    render_categories(&mut text, "instance side", &d["instanceSide"]);
    render_categories(&mut text, "class side", &d["classSide"]);
    Ok(ToolOutput {
        text,
        structured: d,
    })
}

fn list_methods(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let d = run(
        cx,
        &st::ListMethods {
            class_name: class_literal(cx),
        },
    )?;
    let mut text = d["name"].as_str().unwrap_or("").to_string();
    render_categories(&mut text, "instance side", &d["instanceSide"]);
    render_categories(&mut text, "class side", &d["classSide"]);
    Ok(ToolOutput {
        text,
        structured: d,
    })
}

fn get_class_definition(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let d = run(
        cx,
        &st::GetClassDefinition {
            class_name: class_literal(cx),
        },
    )?;
    cx.ledger.saw_class(d["name"].as_str().unwrap_or(""));
    Ok(ToolOutput {
        text: definition_text(&d),
        structured: d,
    })
}

/// The text of a `get_class_definition` answer: the class-creation message,
/// then its category as a comment.
fn definition_text(d: &Value) -> String {
    let mut text = d["definition"].as_str().unwrap_or("").to_string();
    if let Some(cat) = d["category"].as_str() {
        text.push_str(&format!("\n\"category: {cat}\""));
    }
    text
}

fn export_class_source(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let d = run(
        cx,
        &st::ExportClassSource {
            class_name: class_literal(cx),
        },
    )?;
    let name = d["name"].as_str().unwrap_or("").to_string();
    cx.ledger.saw_class(&name);
    for (side, meta) in [("instanceSelectors", false), ("classSelectors", true)] {
        for sel in strings(&d[side]) {
            cx.ledger.saw_method(&name, meta, sel);
        }
    }
    let text = d["source"].as_str().unwrap_or("").to_string();
    Ok(ToolOutput {
        text,
        structured: json!({"name": name, "source": d["source"]}),
    })
}

fn get_class_hierarchy(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let d = run(
        cx,
        &st::GetClassHierarchy {
            class_name: class_literal(cx),
        },
    )?;
    let name = d["name"].as_str().unwrap_or("");
    let mut chain = strings(&d["superclasses"]);
    chain.push(name);
    let text = format!(
        "{}\nsubclasses: {}",
        chain.join(" > "),
        list_or_none(&strings(&d["subclasses"]))
    );
    Ok(ToolOutput {
        text,
        structured: d,
    })
}

fn get_method_source(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let meta = cx.bool_arg("meta");
    let selector = cx.str_arg("selector").unwrap_or_default();
    let d = run(
        cx,
        &st::GetMethodSource {
            class_name: class_literal(cx),
            selector: Literal::symbol(selector),
            meta: Literal::boolean(meta),
        },
    )?;
    let class = d["className"].as_str().unwrap_or("").to_string();
    cx.ledger.saw_method(&class, meta, selector);
    let side = if meta { " class" } else { "" };
    let text = format!(
        "{class}{side}>>{selector} (category {})\n{}",
        d["category"].as_str().unwrap_or("(none)"),
        d["source"].as_str().unwrap_or("")
    );
    let mut structured = d;
    structured["meta"] = json!(meta);
    Ok(ToolOutput { text, structured })
}
