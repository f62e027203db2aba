//! `push_up_methods`, `push_down_methods` and `move_method`: methods moved to
//! the superclass, copied into every direct subclass that does not define
//! them itself, or moved to another class, and removed from the class —
//! previewed and applied by token like every refactoring.
//!
//! Preconditions, checked on the whole set before anything is written: each
//! selector is defined by the class itself; a method sending to `super`
//! would mean something else one class up or down, so it is refused; pushing
//! up or moving, the receiving class must not define the selector already and
//! the method must not name an instance variable that class lacks. Removing a method
//! from a kernel class is a change to the kernel (the guard); adding one to a
//! kernel class is an extension.

use super::{
    conclude, invalid, mode, preview_output, refused, st, token_of, write, Change, Literal,
};
use crate::tools::mutation::kernel_guarded;
use crate::tools::{evaluate_json, strings, Context, ErrorKind, ToolError, ToolOutput};
use gsmcp_smalltalk::census::names_in_method;
use serde_json::{json, Value};

/// Which way methods move.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Up,
    Down,
    /// To the class `targetClassName` names.
    To,
}

pub(super) fn push_up_methods(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    push(cx, Way::Up)
}

pub(super) fn push_down_methods(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    push(cx, Way::Down)
}

pub(super) fn move_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    push(cx, Way::To)
}

fn push(cx: &mut Context<'_>, way: Way) -> Result<ToolOutput, ToolError> {
    let tool = match way {
        Way::Up => "push_up_methods",
        Way::Down => "push_down_methods",
        Way::To => "move_method",
    };
    let class = cx.str_arg("className").unwrap_or_default();
    let meta = cx.bool_arg("meta");
    let side = if meta { " class" } else { "" };
    let target_name = cx.str_arg("targetClassName").filter(|_| way == Way::To);
    let selectors = match way {
        Way::To => cx.str_arg("selector").into_iter().collect(),
        _ => cx.strings_arg("selectors"),
    };
    if target_name == Some(class) {
        return Err(invalid("targetClassName is the class itself"));
    }
    if selectors.is_empty() {
        return Err(invalid("argument 'selectors' names no selector"));
    }
    let given_token = mode(cx)?;
    let answer = evaluate_json(
        cx.login,
        &st::PushSites {
            class_name: Literal::symbol(class),
            meta: Literal::boolean(meta),
            selectors: Literal::symbol_array(selectors.iter().copied()),
            target_name: Literal::optional_symbol(target_name),
        },
    )?;
    match answer["error"].as_str() {
        Some("noTarget") => {
            let (k, m) = crate::tools::browsing::no_class(target_name.unwrap_or_default());
            return Err(ToolError::new(k, m));
        }
        Some(_) => {
            let (k, m) = crate::tools::browsing::no_class(class);
            return Err(ToolError::new(k, m));
        }
        None => {}
    }
    let own_vars = strings(&answer["instVarNames"]);
    let class_kernel = answer["class"]["kernel"] == true;
    let targets: Vec<&Value> = match way {
        Way::Up => match answer["superclass"] {
            Value::Null => {
                return Err(refused(format!(
                    "refused: {class} has no superclass to push methods up to"
                )))
            }
            ref s => vec![s],
        },
        Way::Down => {
            let subs: Vec<&Value> = answer["subclasses"]
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            if subs.is_empty() {
                return Err(refused(format!(
                    "refused: {class} has no subclasses to push methods down to"
                )));
            }
            subs
        }
        Way::To => vec![&answer["target"]],
    };
    // the instance variables a moved method may use: pushing up, the class's
    // own ones are what the superclass lacks; moving, all it has
    let own_vars = match way {
        Way::To => strings(&answer["class"]["allInstVarNames"]),
        _ => own_vars,
    };
    let mut changes = Vec::new();
    let mut kept = Vec::new();
    for m in answer["methods"].as_array().into_iter().flatten() {
        let selector = m["selector"].as_str().unwrap_or_default();
        let Some(source) = m["source"].as_str() else {
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!("{class}{side} has no method {selector} of its own; list_methods names its selectors"),
            ));
        };
        let names = names_in_method(source).map_err(|e| {
            refused(format!(
                "refused: {class}{side}>>{selector} does not parse ({} at offset {}); nothing was \
changed",
                e.message, e.offset
            ))
        })?;
        if names.super_sends {
            return Err(refused(format!(
                "refused: {class}{side}>>{selector} sends to super, which would reach another \
class once the method moves; nothing was changed. Move it with compile_method and adjust the \
super send yourself"
            )));
        }
        let category = m["category"].as_str().map(str::to_string);
        for target in &targets {
            let name = target["name"].as_str().unwrap_or_default();
            let has = strings(&target["selectors"]).contains(&selector);
            match (way, has) {
                (Way::Up | Way::To, true) => {
                    return Err(refused(format!(
                        "refused: {name}{side} already defines {selector}, so moving \
{class}{side}>>{selector} there would replace it; nothing was changed"
                    )))
                }
                (Way::Down, true) => {
                    kept.push(format!("{name}{side}>>{selector}"));
                    continue;
                }
                _ => {}
            }
            if way != Way::Down {
                let theirs = strings(&target["allInstVarNames"]);
                let missing: Vec<&str> = names
                    .globals
                    .iter()
                    .map(String::as_str)
                    .filter(|n| own_vars.contains(n) && !theirs.contains(n))
                    .collect();
                if !missing.is_empty() {
                    return Err(refused(format!(
                        "refused: {class}{side}>>{selector} uses the instance variable(s) {} \
that {name} does not have; nothing was changed",
                        missing.join(" ")
                    )));
                }
            }
            changes.push(Change {
                class: name.to_string(),
                meta,
                selector: selector.to_string(),
                new_selector: selector.to_string(),
                category: category.clone(),
                kernel: target["kernel"] == true,
                old: String::new(),
                new: source.to_string(),
                sends: 0,
            });
        }
        changes.push(Change {
            class: class.to_string(),
            meta,
            selector: selector.to_string(),
            new_selector: selector.to_string(),
            category,
            kernel: class_kernel,
            old: source.to_string(),
            new: String::new(),
            sends: 0,
        });
    }
    if class_kernel && kernel_guarded(cx) {
        return Err(refused(format!(
            "refused: {class} is a kernel class (bound in Globals under its own name), and this \
would remove its existing methods {}; nothing was changed. Kernel code is shared by everything in \
the repository (the Mutation.kernelGuard option); repeat the call with allowKernelEdits: true to \
do it anyway",
            selectors.join(" ")
        )));
    }
    let token = token_of(cx, tool, &changes);
    for c in changes.iter().filter(|c| !c.old.is_empty()) {
        cx.ledger.saw_method(&c.class, c.meta, &c.selector);
    }
    conclude(
        given_token,
        token,
        |token| {
            let mut text = format!(
                "Preview: {tool} changes {} method(s). Nothing was written; to apply, repeat the \
call with dryRun false and token {token}.",
                changes.len()
            );
            if !kept.is_empty() {
                text.push_str(&format!(
                    "\nKept, as they define it themselves: {}",
                    kept.join(", ")
                ));
            }
            if way == Way::To {
                text.push_str(&format!(
                    "\nSends of {} to instances of {class} are not rewritten: they fail once it \
moves unless {class} inherits it (find_senders names them).",
                    selectors.join(" ")
                ));
            }
            preview_output(
                text,
                token,
                &changes,
                json!({"className": class, "kept": kept}),
            )
        },
        |cx| {
            let what = match way {
                Way::Up => "pushing methods up",
                Way::Down => "pushing methods down",
                Way::To => "moving the method",
            };
            let written = write(cx, what, &changes)?;
            Ok(ToolOutput {
                text: format!(
                    "{what}: {}. Nothing was committed: commit keeps it, abort discards it.",
                    written.join(", ")
                ),
                structured: json!({
                    "dryRun": false,
                    "applied": true,
                    "className": class,
                    "written": written,
                    "kept": kept,
                    "committed": false,
                }),
            })
        },
        cx,
    )
}
