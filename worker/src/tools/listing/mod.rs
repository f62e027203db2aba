//! The Listing toolset: `list_all_classes`, `list_classes`, `list_dictionaries`
//! and `list_dictionary_entries`, what the session's symbol list binds.
//!
//! Their Smalltalk lives in `listing.st` beside this file and answers whole lists
//! as JSON; this module sorts and pages them. These tools only read: they never
//! commit, never move the view and install nothing.

use super::{
    check_error, page_header, strings, window, Context, ErrorKind, Tool, ToolError, ToolOutput,
    Toolset, DEFAULT_LIMIT, READ_ONLY,
};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use serde_json::{json, Value};

use expressions as st;

/// This toolset's expressions, cut from `listing.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/listing.rs"));
}

/// The `limit` parameter of a list-shaped tool.
pub const LIMIT: Param = Param {
    name: "limit",
    ty: ParamType::Integer,
    description: "How many items to answer (default 200); 0 answers the count alone.",
    required: false,
};

/// The `offset` parameter of a list-shaped tool.
pub const OFFSET: Param = Param {
    name: "offset",
    ty: ParamType::Integer,
    description: "How many items to skip (default 0); the header line names the next offset.",
    required: false,
};

const DICTIONARY: Param = Param {
    name: "dictionaryName",
    ty: ParamType::String,
    description: "The name of a dictionary of the session's symbol list (e.g. `UserGlobals`), as list_dictionaries answers it.",
    required: true,
};

/// The Listing tools.
pub static TOOLS: [Tool; 4] = [
    Tool {
        name: "list_all_classes",
        title: "List all classes",
        description: "Lists every class name bound in the dictionaries of this session's symbol \
list, sorted by name, each with the dictionary binding it (a name bound in two dictionaries is \
listed twice; the first dictionary wins at compile time). Paged with limit/offset.",
        toolset: Toolset::Listing,
        params: &[LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: list_all_classes,
    },
    Tool {
        name: "list_classes",
        title: "List the classes of a dictionary",
        description: "Lists the names of the classes bound in one dictionary of the symbol list, \
sorted. Paged with limit/offset.",
        toolset: Toolset::Listing,
        params: &[DICTIONARY, LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: list_classes,
    },
    Tool {
        name: "list_dictionaries",
        title: "List the dictionaries",
        description: "Lists the dictionaries of this session's symbol list in lookup order (the \
order in which the compiler resolves a global name), each with its number of entries.",
        toolset: Toolset::Listing,
        params: &[],
        annotations: READ_ONLY,
        handler: list_dictionaries,
    },
    Tool {
        name: "list_dictionary_entries",
        title: "List the entries of a dictionary",
        description: "Lists every key of one dictionary of the symbol list, sorted, each tagged \
`class` (with its category) or `global` (with the class of its value). Paged with limit/offset.",
        toolset: Toolset::Listing,
        params: &[DICTIONARY, LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: list_dictionary_entries,
    },
];

/// The `notFound` error for a dictionary name the symbol list lacks.
pub fn no_dictionary(name: &str) -> (ErrorKind, String) {
    (
        ErrorKind::NotFound,
        format!(
            "no dictionary named '{name}' in this session's symbol list; list_dictionaries \
names the ones there are"
        ),
    )
}

fn list_dictionaries(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let answer = cx.run_json(&st::ListDictionaries)?;
    let dicts = answer.as_array().cloned().unwrap_or_default();
    let mut text = format!("{} dictionaries, in lookup order", dicts.len());
    for d in &dicts {
        text.push_str(&format!(
            "\n{} ({} entries)",
            d["name"].as_str().unwrap_or(""),
            d["size"]
        ));
    }
    Ok(ToolOutput {
        text,
        structured: json!({"dictionaries": dicts}),
    })
}

fn list_all_classes(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let answer = cx.run_json(&st::ListAllClasses)?;
    let dicts: Vec<String> = answer["dictionaries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| d.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut classes: Vec<(String, usize)> = answer["classes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|pair| {
                    Some((
                        pair.get(0)?.as_str()?.to_string(),
                        pair.get(1)?.as_u64()? as usize,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    classes.sort();
    let shown = window(&classes, page);
    let mut text = page_header(page, shown.len(), classes.len(), false, "classes");
    let entries: Vec<Value> = shown
        .iter()
        .map(|(name, index)| {
            let dict = dicts
                .get(index.wrapping_sub(1))
                .map(String::as_str)
                .unwrap_or("");
            text.push_str(&format!("\n{name} ({dict})"));
            json!({"name": name, "dictionary": dict})
        })
        .collect();
    Ok(ToolOutput {
        text,
        structured: json!({
            "total": classes.len(),
            "offset": page.offset,
            "classes": entries,
        }),
    })
}

fn list_classes(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let name = cx.str_arg("dictionaryName").unwrap_or_default();
    let answer = cx.run_json(&st::ListClasses {
        dictionary_name: Literal::symbol(name),
    })?;
    let answer = check_error(answer, |_| no_dictionary(name))?;
    let mut classes: Vec<String> = strings(&answer).into_iter().map(String::from).collect();
    classes.sort();
    let shown = window(&classes, page);
    let mut text = page_header(page, shown.len(), classes.len(), false, "classes");
    for c in &shown {
        text.push('\n');
        text.push_str(c);
    }
    Ok(ToolOutput {
        text,
        structured: json!({
            "dictionary": name,
            "total": classes.len(),
            "offset": page.offset,
            "classes": shown,
        }),
    })
}

fn list_dictionary_entries(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let name = cx.str_arg("dictionaryName").unwrap_or_default();
    let answer = cx.run_json(&st::ListDictionaryEntries {
        dictionary_name: Literal::symbol(name),
    })?;
    let answer = check_error(answer, |_| no_dictionary(name))?;
    let mut entries: Vec<Value> = answer.as_array().cloned().unwrap_or_default();
    entries.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let shown = window(&entries, page);
    let mut text = page_header(page, shown.len(), entries.len(), false, "entries");
    for e in &shown {
        let n = e["name"].as_str().unwrap_or("");
        let line = if e["kind"] == "class" {
            match e["category"].as_str() {
                Some(cat) => format!("\n{n}: class (category {cat})"),
                None => format!("\n{n}: class"),
            }
        } else {
            format!(
                "\n{n}: global ({})",
                e["valueClass"].as_str().unwrap_or("?")
            )
        };
        text.push_str(&line);
    }
    Ok(ToolOutput {
        text,
        structured: json!({
            "dictionary": name,
            "total": entries.len(),
            "offset": page.offset,
            "entries": shown,
        }),
    })
}
