//! The Search toolset: `find_implementors`, `find_senders`,
//! `find_references_to` and `search_method_source`, which methods of the
//! session's classes define, send, refer to or contain something.
//!
//! Their Smalltalk lives in `search.st` beside this file; selectors, names and
//! patterns enter it only as quoted literals. The finders page in Smalltalk
//! (only the window is serialised) and answer the true total; the source search
//! stops one hit past the requested page and reports "at least" that many.
//! Hits come in the order the stone answers them (ClassOrganizer's, by class
//! name on the embedded stone; the source search's own scan order). These
//! tools only read.

use super::listing::{no_dictionary, LIMIT, OFFSET};
use super::template::Expression;
use super::{
    check_error, page_header, window, Context, ErrorKind, Page, Tool, ToolError, ToolOutput,
    Toolset, DEFAULT_LIMIT, READ_ONLY,
};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use serde_json::{json, Value};

use expressions as st;

/// This toolset's expressions, cut from `search.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/search.rs"));
}

const SELECTOR: Param = Param {
    name: "selector",
    ty: ParamType::String,
    description: "A selector, e.g. `printOn:` or `at:put:`.",
    required: true,
};

/// The Search tools.
pub static TOOLS: [Tool; 4] = [
    Tool {
        name: "find_implementors",
        title: "Find implementors",
        description: "Lists the methods named by a selector, in every class of the session's \
symbol list (both sides), in the class organizer's order. Paged with limit/offset (default \
200); the header gives the true total.",
        toolset: Toolset::Search,
        params: &[SELECTOR, LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: find_implementors,
    },
    Tool {
        name: "find_references_to",
        title: "Find references to a global",
        description: "Lists the methods that refer to the object a global name is bound to (a \
class, a dictionary or any global, resolved through the session's symbol list), in the class \
organizer's order. Paged with limit/offset (default 200); the header gives the true total.",
        toolset: Toolset::Search,
        params: &[
            Param {
                name: "name",
                ty: ParamType::String,
                description:
                    "A global name bound in the session's symbol list, e.g. `OrderedCollection`.",
                required: true,
            },
            LIMIT,
            OFFSET,
        ],
        annotations: READ_ONLY,
        handler: find_references_to,
    },
    Tool {
        name: "find_senders",
        title: "Find senders",
        description: "Lists the methods that send a selector, in every class of the session's \
symbol list (both sides), in the class organizer's order. Paged with limit/offset (default \
200); the header gives the true total.",
        toolset: Toolset::Search,
        params: &[SELECTOR, LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: find_senders,
    },
    Tool {
        name: "search_method_source",
        title: "Search method source",
        description: "Lists the methods whose source contains a text, ignoring case, scanning \
the dictionaries of the symbol list in order (or only dictionaryName), classes by name, \
instance side then class side. Hits come in scan order, paged with limit/offset (default 200); \
the scan stops one hit past the page, so the header says \"of at least N\" while more may \
follow (limit 0 scans everything and answers the exact count).",
        toolset: Toolset::Search,
        params: &[
            Param {
                name: "pattern",
                ty: ParamType::String,
                description: "The text to look for in method sources (not empty; case is ignored).",
                required: true,
            },
            Param {
                name: "dictionaryName",
                ty: ParamType::String,
                description: "Only scan the classes of this dictionary of the symbol list.",
                required: false,
            },
            LIMIT,
            OFFSET,
        ],
        annotations: READ_ONLY,
        handler: search_method_source,
    },
];

/// One method a search found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    class: String,
    meta: bool,
    selector: String,
    category: Option<String>,
}

impl Hit {
    fn from_json(v: &Value) -> Option<Hit> {
        Some(Hit {
            class: v.get(0)?.as_str()?.to_string(),
            meta: v.get(1)?.as_bool()?,
            selector: v.get(2)?.as_str()?.to_string(),
            category: v.get(3)?.as_str().map(String::from),
        })
    }

    fn to_json(&self) -> Value {
        json!({
            "className": self.class,
            "meta": self.meta,
            "selector": self.selector,
            "category": self.category,
        })
    }

    fn line(&self) -> String {
        let side = if self.meta { " class" } else { "" };
        match &self.category {
            Some(c) => format!("{}{side}>>{} ({c})", self.class, self.selector),
            None => format!("{}{side}>>{}", self.class, self.selector),
        }
    }
}

fn hits(v: &Value) -> Vec<Hit> {
    v.as_array()
        .map(|a| a.iter().filter_map(Hit::from_json).collect())
        .unwrap_or_default()
}

/// The largest offset or limit handed to Smalltalk (a SmallInteger on every
/// stone); a larger window is the same as this one.
const WINDOW_CAP: usize = 1 << 40;

/// The `{{offset}}` and `{{limit}}` of a finder's page.
fn window_literals(page: Page) -> (Literal, Literal) {
    (
        Literal::integer(page.offset.min(WINDOW_CAP)),
        Literal::integer(page.limit.min(WINDOW_CAP)),
    )
}

/// A finder's `{"total": N, "hits": [...]}`: the window's hits and the total.
fn paged_hits(v: &Value) -> (Vec<Hit>, usize) {
    let total = v["total"].as_u64().unwrap_or(0) as usize;
    (hits(&v["hits"]), total)
}

/// The answer of a paged search: header, one line per hit, and the same as JSON.
fn answer(page: Page, shown: &[Hit], total: usize, at_least: bool, what: Value) -> ToolOutput {
    let mut text = page_header(page, shown.len(), total, at_least, "methods");
    for h in shown {
        text.push('\n');
        text.push_str(&h.line());
    }
    let mut structured = what;
    structured["total"] = json!(total);
    structured["totalIsLowerBound"] = json!(at_least);
    structured["offset"] = json!(page.offset);
    structured["methods"] = Value::Array(shown.iter().map(Hit::to_json).collect());
    ToolOutput { text, structured }
}

/// Runs a finder (`finder` makes its expression from the selector and the
/// window) for the selector argument and pages its hits.
fn find_by_selector<E: Expression>(
    cx: &mut Context<'_>,
    finder: fn(Literal, (Literal, Literal)) -> E,
) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let selector = cx.str_arg("selector").unwrap_or_default();
    if selector.is_empty() {
        return Err(ToolError::new(
            ErrorKind::InvalidParams,
            "argument 'selector' must not be empty",
        ));
    }
    let v = cx.run_json(&finder(Literal::symbol(selector), window_literals(page)))?;
    let (shown, total) = paged_hits(&v);
    Ok(answer(
        page,
        &shown,
        total,
        false,
        json!({"selector": selector}),
    ))
}

fn find_implementors(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    find_by_selector(cx, |selector, (offset, limit)| st::FindImplementors {
        selector,
        offset,
        limit,
    })
}

fn find_senders(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    find_by_selector(cx, |selector, (offset, limit)| st::FindSenders {
        selector,
        offset,
        limit,
    })
}

fn find_references_to(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let name = cx.str_arg("name").unwrap_or_default();
    let (offset, limit) = window_literals(page);
    let v = cx.run_json(&st::FindReferencesTo {
        name: Literal::symbol(name),
        offset,
        limit,
    })?;
    let v = check_error(v, |_| {
        (
            ErrorKind::NotFound,
            format!(
                "no global named '{name}' in this session's symbol list; list_all_classes and \
list_dictionary_entries name the globals there are (names are case-sensitive)"
            ),
        )
    })?;
    let (shown, total) = paged_hits(&v);
    Ok(answer(page, &shown, total, false, json!({"name": name})))
}

fn search_method_source(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let pattern = cx.str_arg("pattern").unwrap_or_default();
    if pattern.is_empty() {
        return Err(ToolError::new(
            ErrorKind::InvalidParams,
            "argument 'pattern' must not be empty",
        ));
    }
    let dictionary = cx.str_arg("dictionaryName");
    // One hit past the page tells whether more follow; limit 0 counts them all.
    let stop = (page.limit > 0).then(|| page.offset.saturating_add(page.limit).saturating_add(1));
    let v = cx.run_json(&st::SearchMethodSource {
        pattern: Literal::string(pattern),
        stop: stop.map_or_else(Literal::nil, Literal::integer),
        dictionary_name: dictionary.map_or_else(Literal::nil, Literal::symbol),
    })?;
    let v = check_error(v, |_| no_dictionary(dictionary.unwrap_or_default()))?;
    let all = hits(&v["hits"]);
    let complete = v["complete"].as_bool().unwrap_or(true);
    let shown = window(&all, page);
    Ok(answer(
        page,
        &shown,
        all.len(),
        !complete,
        json!({"pattern": pattern, "dictionaryName": dictionary}),
    ))
}
