//! `generate_accessors`: a getter (`name ^ name`) and a setter
//! (`name: anObject name := anObject`) for instance variables a class defines
//! itself, previewed like every refactoring; an accessor the class already
//! has is kept, never overwritten.

use super::{conclude, invalid, mode, preview_output, st, token_of, write, Change, Literal};
use crate::tools::{evaluate_json, strings, Context, ToolError, ToolOutput};
use serde_json::json;

/// The category accessors go in unless the call names one.
const CATEGORY: &str = "accessing";

/// The setter of `var`, whose argument shadows none of the class's
/// instance variables (`all`).
fn setter(var: &str, all: &[&str]) -> String {
    let arg = ["anObject", "aValue", "newValue"]
        .into_iter()
        .map(String::from)
        .chain((1..).map(|n| format!("anObject{n}")))
        .find(|a| !all.contains(&a.as_str()))
        .unwrap_or_default();
    format!("{var}: {arg}\n\t{var} := {arg}")
}

pub(super) fn generate_accessors(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let given_token = mode(cx)?;
    let answer = evaluate_json(
        cx.login,
        &st::AccessorSites {
            class_name: Literal::symbol(class),
        },
    )?;
    if answer.get("error").is_some() {
        let (k, m) = crate::tools::browsing::no_class(class);
        return Err(ToolError::new(k, m));
    }
    let own: Vec<String> = strings(&answer["instVarNames"])
        .into_iter()
        .map(String::from)
        .collect();
    let selectors = strings(&answer["selectors"]);
    let all = strings(&answer["allInstVarNames"]);
    let wanted: Vec<String> = match cx.args.get("instVarNames") {
        Some(_) => cx
            .strings_arg("instVarNames")
            .into_iter()
            .map(String::from)
            .collect(),
        None => own.clone(),
    };
    if let Some(stranger) = wanted.iter().find(|v| !own.contains(v)) {
        return Err(invalid(format!(
            "argument 'instVarNames': {stranger:?} is not an instance variable {class} defines \
itself (its own: {})",
            if own.is_empty() {
                "none".to_string()
            } else {
                own.join(" ")
            }
        )));
    }
    let category = cx.str_arg("category").unwrap_or(CATEGORY).to_string();
    let mut changes = Vec::new();
    let mut kept = Vec::new();
    for var in &wanted {
        for (selector, source) in [
            (var.clone(), format!("{var}\n\t^ {var}")),
            (format!("{var}:"), setter(var, &all)),
        ] {
            if selectors.contains(&selector.as_str()) {
                kept.push(selector);
                continue;
            }
            changes.push(Change {
                class: class.to_string(),
                meta: false,
                new_selector: selector.clone(),
                selector,
                category: Some(category.clone()),
                kernel: answer["kernel"] == true,
                old: String::new(),
                new: source,
                sends: 0,
            });
        }
    }
    let token = token_of(cx, "generate_accessors", &changes);
    conclude(
        given_token,
        token,
        |token| {
            let text = format!(
                "Preview: {} accessor(s) for {class} in category '{category}'{}. Nothing was \
written; to apply, repeat the call with dryRun false and token {token}.",
                changes.len(),
                if kept.is_empty() {
                    String::new()
                } else {
                    format!("; kept as they are: {}", kept.join(" "))
                }
            );
            preview_output(
                text,
                token,
                &changes,
                json!({"className": class, "kept": kept}),
            )
        },
        |cx| {
            let written = write(cx, "generating accessors", &changes)?;
            Ok(ToolOutput {
                text: format!(
                    "generated {} accessor(s) for {class}: {}. Nothing was committed.",
                    written.len(),
                    if written.is_empty() {
                        "none needed".to_string()
                    } else {
                        written.join(", ")
                    }
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
