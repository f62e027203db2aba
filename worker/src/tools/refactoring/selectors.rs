//! The refactorings over a selector's implementors and senders in a scope:
//! `rename_method` and `change_method_signature`. Both read the scope's
//! implementors and senders with `rename_sites`, rewrite each method in the
//! worker (`gsmcp_smalltalk::rewrite`: `rename_selector`,
//! `change_signature`), guard the whole change set against kernel methods,
//! and preview and apply by token.

use super::{
    conclude, invalid, mode, preview_output, refused, selector_shape, st, token_of, write, Change,
    Literal,
};
use crate::tools::mutation::kernel_guarded;
use crate::tools::{evaluate_json, strings, Context, ErrorKind, ToolError, ToolOutput};
use gsmcp_smalltalk::extract::variable_name;
use gsmcp_smalltalk::rewrite::{
    change_signature, rename_selector, Renamed, RewriteError, Signature,
};
use serde_json::{json, Value};

/// The rename's change set, computed from the methods as they are now, and
/// the methods that name the selector without sending it.
fn rename_changes(
    cx: &mut Context<'_>,
    selector: &str,
    new_selector: &str,
    rewrite: &dyn Fn(&str, bool) -> Result<Renamed, RewriteError>,
) -> Result<Sites, ToolError> {
    let scope = cx.str_arg("scope").unwrap_or("system");
    let class = cx.str_arg("className");
    let dictionary = cx.str_arg("dictionaryName");
    let needed = match scope {
        "class" | "hierarchy" => class.is_none().then_some("className"),
        "dictionary" => dictionary.is_none().then_some("dictionaryName"),
        "system" => None,
        other => {
            return Err(invalid(format!(
                "argument 'scope': {other:?} is not a scope (class, hierarchy, dictionary or \
system)"
            )))
        }
    };
    if let Some(arg) = needed {
        return Err(invalid(format!(
            "argument '{arg}' is required for the scope {scope}"
        )));
    }
    let answer = evaluate_json(
        cx.login,
        &st::RenameSites {
            selector: Literal::symbol(selector),
            new_selector: Literal::symbol(new_selector),
            scope: Literal::symbol(scope),
            class_name: Literal::optional_symbol(class),
            dictionary_name: Literal::optional_symbol(dictionary),
        },
    )?;
    match answer["error"].as_str() {
        Some("noClass") => {
            let (k, m) = crate::tools::browsing::no_class(class.unwrap_or_default());
            return Err(ToolError::new(k, m));
        }
        Some("noDictionary") => {
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!(
                    "no dictionary named '{}' in this session's symbol list; \
list_dictionaries names them",
                    dictionary.unwrap_or_default()
                ),
            ))
        }
        Some(other) => return Err(ToolError::new(ErrorKind::Other, other.to_string())),
        None => {}
    }
    let clashes = strings(&answer["clashes"]);
    if !clashes.is_empty() {
        return Err(refused(format!(
            "refused: {} already implement{} {new_selector}, so renaming {selector} there would \
replace a method; nothing was changed. Choose another selector, or narrow the scope",
            clashes.join(", "),
            if clashes.len() == 1 { "s" } else { "" }
        )));
    }
    let sites = answer["sites"].as_array().cloned().unwrap_or_default();
    if !sites.iter().any(|s| s["role"] == "implementor") {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!(
                "no method named {selector} in the scope {scope}; find_implementors names the \
classes that implement it"
            ),
        ));
    }
    let mut changes: Vec<Change> = Vec::new();
    let mut mentions = Vec::new();
    for site in &sites {
        let class = site["className"].as_str().unwrap_or_default().to_string();
        let meta = site["meta"] == true;
        let method = site["selector"].as_str().unwrap_or_default().to_string();
        if changes
            .iter()
            .any(|c| c.class == class && c.meta == meta && c.selector == method)
        {
            continue; // an implementor that also sends it: one change
        }
        let old = site["source"].as_str().unwrap_or_default().to_string();
        let implementor = site["role"] == "implementor";
        let renamed = rewrite(&old, implementor).map_err(|e| {
            let side = if meta { " class" } else { "" };
            match e {
                RewriteError::Shape { .. } => invalid(e.to_string()),
                _ => refused(format!(
                    "refused: {class}{side}>>{method} cannot be rewritten safely ({e}); nothing \
was changed"
                )),
            }
        })?;
        if renamed.sends == 0 && !renamed.pattern {
            mentions.push(json!({"className": class, "meta": meta, "selector": method}));
            continue;
        }
        changes.push(Change {
            new_selector: if renamed.pattern {
                new_selector.to_string()
            } else {
                method.clone()
            },
            class,
            meta,
            selector: method,
            category: site["category"].as_str().map(str::to_string),
            kernel: site["kernel"] == true,
            old,
            new: renamed.source,
            sends: renamed.sends,
        });
    }
    Ok(Sites {
        changes,
        mentions,
        instance_variables: strings(&answer["instVarNames"])
            .into_iter()
            .map(String::from)
            .collect(),
    })
}

/// What a selector refactoring changes.
struct Sites {
    changes: Vec<Change>,
    /// The methods that name the selector without sending it.
    mentions: Vec<Value>,
    /// The instance variables the implementors' classes have.
    instance_variables: Vec<String>,
}

/// A selector's shape: unary, binary or keyword, and its argument count.
type Shape = (&'static str, usize);

/// The call's `selector` and `newSelector`, each with its shape.
fn selector_pair<'a>(cx: &Context<'a>) -> Result<(&'a str, &'a str, Shape, Shape), ToolError> {
    let selector = cx.str_arg("selector").unwrap_or_default();
    let new_selector = cx.str_arg("newSelector").unwrap_or_default();
    match (selector_shape(selector), selector_shape(new_selector)) {
        (Some(old), Some(new)) => Ok((selector, new_selector, old, new)),
        (None, _) => Err(invalid(format!(
            "argument 'selector': {selector:?} is not a selector"
        ))),
        (_, None) => Err(invalid(format!(
            "argument 'newSelector': {new_selector:?} is not a selector"
        ))),
    }
}

pub(super) fn rename_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let (selector, new_selector, old_shape, new_shape) = selector_pair(cx)?;
    if selector == new_selector {
        return Err(invalid("newSelector is the selector itself"));
    }
    if old_shape != new_shape {
        return Err(refused(format!(
            "refused: {selector} is a {} selector of {} argument(s) and {new_selector} a {} one \
of {}; a rename keeps the arguments, so both must be of the same kind and arity",
            old_shape.0, old_shape.1, new_shape.0, new_shape.1
        )));
    }
    let given_token = mode(cx)?;
    let Sites {
        changes, mentions, ..
    } = rename_changes(cx, selector, new_selector, &|source, pattern| {
        rename_selector(source, selector, new_selector, pattern)
    })?;
    guard_kernel_methods(cx, "renaming", selector, &changes)?;
    let token = token_of(cx, "rename_method", &changes);
    for c in &changes {
        // the preview shows every method it changes: they count as read
        cx.ledger.saw_method(&c.class, c.meta, &c.selector);
    }
    conclude(
        given_token,
        token,
        |token| preview(RENAME, selector, new_selector, &changes, &mentions, token),
        |cx| apply(cx, RENAME, selector, new_selector, &changes),
        cx,
    )
}

/// The kernel guard on a selector refactoring's whole change set: an
/// existing method of a kernel class in it refuses everything.
fn guard_kernel_methods(
    cx: &Context<'_>,
    doing: &str,
    selector: &str,
    changes: &[Change],
) -> Result<(), ToolError> {
    if kernel_guarded(cx) {
        let kernel: Vec<String> = changes
            .iter()
            .filter(|c| c.kernel)
            .map(Change::name)
            .collect();
        if !kernel.is_empty() {
            let shown = kernel
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = kernel.len().saturating_sub(10);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let mut err = refused(format!(
                "refused: {doing} {selector} would change existing methods of kernel classes \
(bound in Globals under their own names): {shown}{more}; nothing was changed. Kernel code is \
shared by everything in the repository (the Mutation.kernelGuard option): narrow the scope (class, \
hierarchy or dictionary) to your own classes, or repeat the call with allowKernelEdits: true"
            ));
            err.details.insert("kernelMethods".into(), json!(kernel));
            return Err(err);
        }
    }
    Ok(())
}

/// How a selector refactoring's answers name what it does: the preview's
/// gerund, the apply's past tense, and what a failure part way stops.
struct Verb {
    doing: &'static str,
    done: &'static str,
    what: &'static str,
}

const RENAME: Verb = Verb {
    doing: "renaming",
    done: "renamed",
    what: "the rename",
};

const SIGNATURE: Verb = Verb {
    doing: "changing the signature of",
    done: "changed the signature of",
    what: "the signature change",
};

fn preview(
    verb: Verb,
    selector: &str,
    new_selector: &str,
    changes: &[Change],
    mentions: &[Value],
    token: String,
) -> ToolOutput {
    let implementors = changes
        .iter()
        .filter(|c| c.selector != c.new_selector)
        .count();
    let mut text = format!(
        "Preview: {} {selector} to {new_selector} changes {} method(s): {implementors} \
implementor(s) renamed, {} method(s) with sends rewritten. Nothing was written; to apply, repeat \
the call with dryRun false and token {token}.",
        verb.doing,
        changes.len(),
        changes.iter().filter(|c| c.sends > 0).count()
    );
    if !mentions.is_empty() {
        text.push_str(&format!(
            "\n{} method(s) name {selector} without sending it (e.g. #{selector} given to \
perform:) and are not rewritten.",
            mentions.len()
        ));
    }
    preview_output(
        text,
        token,
        changes,
        json!({"selector": selector, "newSelector": new_selector, "notRewritten": mentions}),
    )
}

/// Writes the change set: implementors under the new selector and rewritten
/// senders through the compile path, then the old implementors removed.
fn apply(
    cx: &mut Context<'_>,
    verb: Verb,
    selector: &str,
    new_selector: &str,
    changes: &[Change],
) -> Result<ToolOutput, ToolError> {
    write(cx, verb.what, changes)?;
    let renamed = changes
        .iter()
        .filter(|c| c.selector != c.new_selector)
        .count();
    Ok(ToolOutput {
        text: format!(
            "{} {selector} to {new_selector}: {renamed} implementor(s) renamed, {} \
method(s) changed in all. Nothing was committed: commit keeps it, abort discards it.",
            verb.done,
            changes.len()
        ),
        structured: json!({
            "dryRun": false,
            "applied": true,
            "selector": selector,
            "newSelector": new_selector,
            "changes": changes.iter().map(|c| json!({
                "className": c.class, "meta": c.meta, "selector": c.selector,
                "newSelector": c.new_selector,
            })).collect::<Vec<_>>(),
            "committed": false,
        }),
    })
}

/// The permutation the call gives (1-based old positions, 0 for a new
/// argument), or the default one: the old arguments in order, then new ones.
fn permutation(cx: &Context<'_>, old: usize, new: usize) -> Result<Vec<Option<usize>>, ToolError> {
    let Some(given) = cx.args.get("permutation").and_then(Value::as_array) else {
        return Ok((0..new).map(|j| (j < old).then_some(j)).collect());
    };
    if given.len() != new {
        return Err(invalid(format!(
            "argument 'permutation' has {} entries; the new selector takes {new} argument(s)",
            given.len()
        )));
    }
    let mut out = Vec::with_capacity(new);
    for v in given {
        let k = v.as_f64().unwrap_or(-1.0);
        if k < 0.0 || k > old as f64 {
            return Err(invalid(format!(
                "argument 'permutation': {v} is not 0 (a new argument) or an old argument's \
position 1..{old}"
            )));
        }
        let k = k as usize;
        let entry = (k > 0).then(|| k - 1);
        if entry.is_some() && out.contains(&entry) {
            return Err(invalid(format!(
                "argument 'permutation' names old argument {k} twice"
            )));
        }
        out.push(entry);
    }
    Ok(out)
}

pub(super) fn change_method_signature(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let (selector, new_selector, old_shape, new_shape) = selector_pair(cx)?;
    if selector == new_selector {
        return Err(invalid(
            "newSelector is the selector itself; a new signature needs a new selector",
        ));
    }
    if old_shape.0 == "binary" || new_shape.0 == "binary" {
        return Err(refused(format!(
            "refused: change_method_signature changes unary and keyword selectors; {} is binary \
(rename_method renames a binary selector to another)",
            if old_shape.0 == "binary" {
                selector
            } else {
                new_selector
            }
        )));
    }
    let permutation = permutation(cx, old_shape.1, new_shape.1)?;
    let added = permutation.iter().filter(|p| p.is_none()).count();
    let defaults: Vec<String> = match cx.args.get("defaults") {
        Some(_) => cx
            .strings_arg("defaults")
            .into_iter()
            .map(String::from)
            .collect(),
        None => vec!["nil".to_string(); added],
    };
    if defaults.len() != added {
        return Err(invalid(format!(
            "argument 'defaults' has {} expression(s); the new signature adds {added} argument(s)",
            defaults.len()
        )));
    }
    if let Some(bad) = defaults
        .iter()
        .find(|d| gsmcp_smalltalk::parser::parse_doit(&format!("^ ({d})")).is_err())
    {
        return Err(invalid(format!(
            "argument 'defaults': {bad:?} is not one Smalltalk expression"
        )));
    }
    let names: Vec<String> = match cx.args.get("argumentNames") {
        Some(_) => cx
            .strings_arg("argumentNames")
            .into_iter()
            .map(String::from)
            .collect(),
        None => (1..=added).map(|k| format!("newArgument{k}")).collect(),
    };
    if names.len() != added {
        return Err(invalid(format!(
            "argument 'argumentNames' has {} name(s); the new signature adds {added} argument(s)",
            names.len()
        )));
    }
    if let Some(bad) = names.iter().find(|n| !variable_name(n)) {
        return Err(invalid(format!(
            "argument 'argumentNames': {bad:?} cannot name an argument"
        )));
    }
    let given_token = mode(cx)?;
    let sig = Signature {
        old: selector.to_string(),
        new: new_selector.to_string(),
        permutation,
        defaults,
        names,
    };
    let Sites {
        changes,
        mentions,
        instance_variables,
    } = rename_changes(cx, selector, new_selector, &|source, pattern| {
        change_signature(source, &sig, pattern)
    })?;
    if let Some(clash) = sig.names.iter().find(|n| instance_variables.contains(n)) {
        return Err(refused(format!(
            "refused: a new argument named {clash} would hide the instance variable of that name \
in an implementor's class (GemStone refuses it); pass other argumentNames; nothing was changed"
        )));
    }
    guard_kernel_methods(cx, "changing", selector, &changes)?;
    let token = token_of(cx, "change_method_signature", &changes);
    for c in &changes {
        cx.ledger.saw_method(&c.class, c.meta, &c.selector);
    }
    conclude(
        given_token,
        token,
        |token| {
            preview(
                SIGNATURE,
                selector,
                new_selector,
                &changes,
                &mentions,
                token,
            )
        },
        |cx| apply(cx, SIGNATURE, selector, new_selector, &changes),
        cx,
    )
}
