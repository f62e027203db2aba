//! The refactorings that change a class's shape: `add_instance_variable`,
//! `remove_instance_variable` and `rename_instance_variable`, and
//! `rename_class` (a new version under the new name).
//!
//! GemStone changes a class's instance variables by making a new version of
//! the class, which starts with no methods, and leaves its subclasses under
//! the old version. So the change set is the class's new definition, a new
//! version of every subclass bound in the symbol list (each under its
//! superclass's new version), and the methods the change rewrites; applying
//! it makes the versions top-down and compiles every other method onto them
//! (the `reshape` expression), then writes the rewritten ones through the
//! compile path. Class variables, class-instance variables, pools,
//! dictionary, options, category and comment carry over.
//!
//! Preconditions, on every instance-side method of the class and its
//! subclasses before anything is written: a method that declares an argument
//! or temporary of the new name would no longer compile (GemStone refuses a
//! method-level name that shadows an instance variable); a method that
//! already uses the new name means a class variable or global by it, which the
//! instance variable would then hide; a removed variable must be used
//! nowhere. Existing instances stay instances of the old version (GemStone's
//! `migrateInstancesTo:` moves them, after a commit).

use super::{
    conclude, invalid, mode, preview_output, refused, st, token_with, write, Change, Literal,
};
use crate::tools::mutation::kernel_guarded;
use crate::tools::{evaluate_json, strings, Context, ErrorKind, ToolError, ToolOutput};
use gsmcp_smalltalk::extract::variable_name;
use gsmcp_smalltalk::rewrite::{free_uses, rename_variable, RewriteError};
use serde_json::{json, Value};

/// Which shape change.
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Add,
    Remove,
    Rename,
}

impl Edit {
    fn tool(self) -> &'static str {
        match self {
            Edit::Add => "add_instance_variable",
            Edit::Remove => "remove_instance_variable",
            Edit::Rename => "rename_instance_variable",
        }
    }
}

pub(super) fn add_instance_variable(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    reshape_ivars(cx, Edit::Add)
}

pub(super) fn remove_instance_variable(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    reshape_ivars(cx, Edit::Remove)
}

pub(super) fn rename_instance_variable(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    reshape_ivars(cx, Edit::Rename)
}

/// One class the shape change makes a new version of, as `shape_sites`
/// reads it.
pub(super) struct Shape {
    pub(super) name: String,
    pub(super) value: Value,
}

impl Shape {
    pub(super) fn own(&self) -> Vec<String> {
        strings(&self.value["instVarNames"])
            .into_iter()
            .map(String::from)
            .collect()
    }

    fn all(&self) -> Vec<&str> {
        strings(&self.value["allInstVarNames"])
    }

    pub(super) fn definition(&self) -> &str {
        self.value["definition"].as_str().unwrap_or_default()
    }

    pub(super) fn methods(&self) -> impl Iterator<Item = &Value> {
        self.value["methods"].as_array().into_iter().flatten()
    }
}

/// The class named `class` and the subclasses a new version of it carries
/// along, top-down.
pub(super) fn shapes(cx: &mut Context<'_>, class: &str) -> Result<Vec<Shape>, ToolError> {
    let answer = evaluate_json(
        cx.login,
        &st::ShapeSites {
            class_name: Literal::symbol(class),
        },
    )?;
    if answer.get("error").is_some() {
        let (k, m) = crate::tools::browsing::no_class(class);
        return Err(ToolError::new(k, m));
    }
    Ok(answer["classes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| Shape {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            value: c.clone(),
        })
        .collect())
}

/// The token of a reshape: its changes, and every method and definition of
/// the classes it makes new versions of (the apply copies them all).
fn reshape_token(cx: &Context<'_>, tool: &str, changes: &[Change], shapes: &[Shape]) -> String {
    let sources: Vec<&str> = shapes
        .iter()
        .flat_map(|s| s.methods().filter_map(|m| m["source"].as_str()))
        .chain(shapes.iter().map(Shape::definition))
        .collect();
    token_with(cx, tool, changes, &sources)
}

/// `definition` with its `instVarNames:` list replaced by `ivars` (for the
/// preview; the apply passes the names themselves).
pub(super) fn with_ivars(definition: &str, ivars: &[String]) -> String {
    let Some(at) = definition.find("instVarNames:") else {
        return definition.to_string();
    };
    let Some(open) = definition[at..].find('(').map(|o| at + o) else {
        return definition.to_string();
    };
    let Some(close) = definition[open..].find(')').map(|c| open + c) else {
        return definition.to_string();
    };
    format!(
        "{}{}{}",
        &definition[..=open],
        ivars.join(" "),
        &definition[close..]
    )
}

/// The refusal naming the methods a precondition found.
fn refuse_methods(why: &str, methods: &[String]) -> ToolError {
    let shown: Vec<&str> = methods.iter().take(10).map(String::as_str).collect();
    let more = methods.len().saturating_sub(shown.len());
    let mut err = refused(format!(
        "refused: {why}: {}{}; nothing was changed",
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ));
    err.details.insert("methods".into(), json!(methods));
    err
}

/// The kernel guard on a class whose definition would change.
pub(super) fn guard_kernel(cx: &Context<'_>, shapes: &[Shape]) -> Result<(), ToolError> {
    if let Some(k) = shapes.iter().find(|s| s.value["kernel"] == true) {
        if kernel_guarded(cx) {
            return Err(refused(format!(
                "refused: {} is a kernel class (bound in Globals under its own name), and this \
makes a new version of it; nothing was changed. Kernel classes are shared by everything in the \
repository (the Mutation.kernelGuard option); repeat the call with allowKernelEdits: true to do \
it anyway",
                k.name
            )));
        }
    }
    Ok(())
}

fn reshape_ivars(cx: &mut Context<'_>, edit: Edit) -> Result<ToolOutput, ToolError> {
    let tool = edit.tool();
    let class = cx.str_arg("className").unwrap_or_default().to_string();
    let name = cx.str_arg("name").unwrap_or_default().to_string();
    let new_name = match edit {
        Edit::Rename => cx.str_arg("newName").unwrap_or_default().to_string(),
        _ => name.clone(),
    };
    let given_token = mode(cx)?;
    for (arg, n) in [("name", &name), ("newName", &new_name)] {
        if edit != Edit::Remove && !variable_name(n) {
            return Err(invalid(format!(
                "argument '{arg}': {n:?} cannot name an instance variable (a lowercase letter \
or _, then letters, digits or _)"
            )));
        }
    }
    if edit == Edit::Rename && name == new_name {
        return Err(invalid("newName is the instance variable's name itself"));
    }
    let shapes = shapes(cx, &class)?;
    let target = &shapes[0];
    guard_kernel(cx, &shapes)?;
    if target.value["bytes"] == true && edit == Edit::Add {
        return Err(refused(format!(
            "refused: {class} is a byte class, which cannot have instance variables"
        )));
    }
    let own = target.own();
    let mut ivars = own.clone();
    match edit {
        Edit::Add => ivars.push(name.clone()),
        Edit::Remove | Edit::Rename => {
            let Some(at) = own.iter().position(|v| *v == name) else {
                let holder = if target.all().contains(&name.as_str()) {
                    " (it is inherited: change it in the superclass that defines it)"
                } else {
                    ""
                };
                return Err(ToolError::new(
                    ErrorKind::NotFound,
                    format!(
                        "{class} defines no instance variable {name}{holder}; its own: {}",
                        if own.is_empty() {
                            "none".to_string()
                        } else {
                            own.join(" ")
                        }
                    ),
                ));
            };
            if edit == Edit::Remove {
                ivars.remove(at);
            } else {
                ivars[at] = new_name.clone();
            }
        }
    }
    if edit != Edit::Remove {
        // the new name must not be an instance variable or class variable already
        if let Some(s) = shapes.iter().find(|s| {
            s.all().contains(&new_name.as_str())
                || strings(&s.value["classVarNames"]).contains(&new_name.as_str())
        }) {
            return Err(refused(format!(
                "refused: {} already has an instance or class variable named {new_name}; choose \
another name; nothing was changed",
                s.name
            )));
        }
    }
    let mut changes = Vec::new();
    let mut shadowing = Vec::new();
    let mut using = Vec::new();
    let mut captured = Vec::new();
    for s in &shapes {
        for m in s.methods().filter(|m| m["meta"] == false) {
            let selector = m["selector"].as_str().unwrap_or_default();
            let source = m["source"].as_str().unwrap_or_default();
            let label = format!("{}>>{selector}", s.name);
            let unparsable = |e: RewriteError| {
                refused(format!(
                    "refused: {label} cannot be analysed ({e}); nothing was changed"
                ))
            };
            if edit != Edit::Remove {
                let uses = free_uses(source, &new_name, "").map_err(unparsable)?;
                if uses.declared_by_method {
                    shadowing.push(label.clone());
                }
                if !uses.offsets.is_empty() {
                    using.push(label.clone());
                }
            }
            if edit == Edit::Remove {
                let uses = free_uses(source, &name, "").map_err(unparsable)?;
                if !uses.offsets.is_empty() {
                    using.push(label.clone());
                }
            }
            if edit == Edit::Rename {
                match rename_variable(source, &name, &new_name) {
                    Ok(r) if r.sends > 0 => changes.push(Change {
                        class: s.name.clone(),
                        meta: false,
                        selector: selector.to_string(),
                        new_selector: selector.to_string(),
                        category: m["category"].as_str().map(str::to_string),
                        kernel: false,
                        old: source.to_string(),
                        new: r.source,
                        sends: r.sends,
                    }),
                    Ok(_) => {}
                    Err(RewriteError::Captured { .. }) => captured.push(label),
                    Err(e) => return Err(unparsable(e)),
                }
            }
        }
    }
    if !shadowing.is_empty() {
        return Err(refuse_methods(
            &format!(
                "these methods declare an argument or temporary named {new_name}, which GemStone \
refuses once {new_name} is an instance variable; rename it in them first"
            ),
            &shadowing,
        ));
    }
    if !using.is_empty() {
        let why = match edit {
            Edit::Remove => format!(
                "these methods still use {name}, and would no longer compile; change them first"
            ),
            _ => format!(
                "these methods already use {new_name} (a class variable, pool variable or \
global), which the instance variable would hide"
            ),
        };
        return Err(refuse_methods(&why, &using));
    }
    if !captured.is_empty() {
        return Err(refuse_methods(
            &format!("in these methods a block declares {new_name} where {name} is used"),
            &captured,
        ));
    }
    let definitions: Vec<Value> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let new = if i == 0 {
                with_ivars(s.definition(), &ivars)
            } else {
                s.definition().to_string()
            };
            json!({
                "className": s.name,
                "old": s.definition(),
                "new": new,
                "kind": if i == 0 { "redefine" } else { "newVersion" },
            })
        })
        .collect();
    let token = reshape_token(cx, tool, &changes, &shapes);
    for c in &changes {
        cx.ledger.saw_method(&c.class, c.meta, &c.selector);
    }
    let subclasses: Vec<&str> = shapes[1..].iter().map(|s| s.name.as_str()).collect();
    let what = match edit {
        Edit::Add => format!("adding the instance variable {name} to {class}"),
        Edit::Remove => format!("removing the instance variable {name} from {class}"),
        Edit::Rename => format!("renaming the instance variable {name} of {class} to {new_name}"),
    };
    let extra = json!({
        "className": class,
        "instVarNames": ivars,
        "definitions": definitions,
        "newVersions": shapes.iter().map(|s| &s.name).collect::<Vec<_>>(),
    });
    conclude(
        given_token,
        token,
        |token| {
            let mut text = format!(
                "Preview: {what} makes a new version of {class}{}; {} method(s) rewritten, every \
other method copied onto the new versions. Existing instances stay instances of the old version \
until migrated. Nothing was written; to apply, repeat the call with dryRun false and token {token}.\n{}",
                if subclasses.is_empty() {
                    String::new()
                } else {
                    format!(" and of its subclasses {}", subclasses.join(", "))
                },
                changes.len(),
                super::diff::unified(
                    target.definition(),
                    &with_ivars(target.definition(), &ivars),
                    &format!("{class} (definition)")
                )
            );
            text.truncate(text.trim_end().len());
            preview_output(text, token, &changes, extra)
        },
        |cx| {
            apply_reshape(
                cx,
                &what,
                &shapes,
                &shapes.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
                &ivars,
                &changes,
            )?;
            Ok(ToolOutput {
                text: format!(
                    "{what}: new version(s) of {}; {} method(s) rewritten. Nothing was committed: \
commit keeps it, abort discards it.",
                    shapes
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    changes.len()
                ),
                structured: json!({
                    "dryRun": false,
                    "applied": true,
                    "className": class,
                    "instVarNames": ivars,
                    "newVersions": shapes.iter().map(|s| &s.name).collect::<Vec<_>>(),
                    "rewritten": changes.len(),
                    "committed": false,
                }),
            })
        },
        cx,
    )
}

/// Makes the new versions (the first class with `ivars`, the rest as they
/// are, each bound as `names` says) and copies their methods, then writes the
/// rewritten methods; a failure part way says what was written.
pub(super) fn apply_reshape(
    cx: &mut Context<'_>,
    what: &str,
    shapes: &[Shape],
    names: &[String],
    ivars: &[String],
    changes: &[Change],
) -> Result<(), ToolError> {
    let own: Vec<Vec<String>> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| if i == 0 { ivars.to_vec() } else { s.own() })
        .collect();
    let skip: Vec<[&str; 3]> = changes
        .iter()
        .filter(|c| !c.old.is_empty())
        .map(|c| {
            let old_name = shapes
                .iter()
                .zip(names)
                .find(|(_, n)| **n == c.class)
                .map_or(c.class.as_str(), |(s, _)| s.name.as_str());
            [
                old_name,
                if c.meta { "true" } else { "false" },
                c.selector.as_str(),
            ]
        })
        .collect();
    let answer = evaluate_json(
        cx.login,
        &st::Reshape {
            old_names: Literal::symbol_array(shapes.iter().map(|s| s.name.as_str())),
            new_names: Literal::symbol_array(names.iter().map(String::as_str)),
            inst_var_names: Literal::symbol_arrays(
                own.iter().map(|l| l.iter().map(String::as_str)),
            ),
            skip: Literal::symbol_arrays(skip.iter().map(|s| s.iter().copied())),
        },
    )?;
    if let Some(e) = answer.get("error") {
        return Err(ToolError::new(
            ErrorKind::Other,
            format!("{what} failed before anything was written: {e}"),
        ));
    }
    for n in names.iter().chain(shapes.iter().map(|s| &s.name)) {
        cx.ledger.wrote_class(n);
    }
    let failures: Vec<String> = answer["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{}{}>>{} ({})",
                f["className"].as_str().unwrap_or_default(),
                if f["meta"] == true { " class" } else { "" },
                f["selector"].as_str().unwrap_or_default(),
                f["text"].as_str().unwrap_or_default()
            )
        })
        .collect();
    let versions: Vec<String> = names
        .iter()
        .map(|n| format!("new version of {n}"))
        .collect();
    if !failures.is_empty() {
        let mut err = super::partial(
            what,
            &versions,
            ToolError::new(
                ErrorKind::Other,
                format!(
                    "{} method(s) did not compile onto the new versions: {}",
                    failures.len(),
                    failures.join("; ")
                ),
            ),
        );
        err.details.insert("failures".into(), json!(failures));
        return Err(err);
    }
    write(cx, what, changes).map_err(|e| {
        let mut e = e;
        e.message = format!(
            "{} (after the new version(s) of {})",
            e.message,
            names.join(", ")
        );
        e
    })?;
    Ok(())
}

/// Whether `name` may name a class: a letter, then letters, digits and
/// underscores.
fn class_name(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic())
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `definition` naming its class (`own`) or its superclass `new` instead of
/// `old`, for the preview.
fn renamed_definition(definition: &str, old: &str, new: &str, own: bool) -> String {
    if own {
        definition.replacen(&format!("'{old}'"), &format!("'{new}'"), 1)
    } else if let Some(rest) = definition.strip_prefix(old) {
        format!("{new}{rest}")
    } else {
        definition.to_string()
    }
}

pub(super) fn rename_class(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default().to_string();
    let new_name = cx.str_arg("newName").unwrap_or_default().to_string();
    let given_token = mode(cx)?;
    if !class_name(&new_name) {
        return Err(invalid(format!(
            "argument 'newName': {new_name:?} cannot name a class (a letter, then letters, \
digits or _)"
        )));
    }
    if class == new_name {
        return Err(invalid("newName is the class's name itself"));
    }
    let shapes = shapes(cx, &class)?;
    guard_kernel(cx, &shapes)?;
    let answer = evaluate_json(
        cx.login,
        &st::ClassReferences {
            class_name: Literal::symbol(&class),
            new_name: Literal::symbol(&new_name),
        },
    )?;
    if answer["bound"] == true {
        return Err(refused(format!(
            "refused: {new_name} is already bound in this session's symbol list; choose another \
name; nothing was changed"
        )));
    }
    let mut changes: Vec<Change> = Vec::new();
    let mut captured = Vec::new();
    let mut kernel = Vec::new();
    for m in answer["methods"].as_array().into_iter().flatten() {
        let owner = m["className"].as_str().unwrap_or_default();
        let meta = m["meta"] == true;
        let selector = m["selector"].as_str().unwrap_or_default();
        let source = m["source"].as_str().unwrap_or_default();
        let label = format!("{owner}{}>>{selector}", if meta { " class" } else { "" });
        let renamed = match rename_variable(source, &class, &new_name) {
            Ok(r) if r.sends > 0 => r,
            Ok(_) => continue,
            Err(RewriteError::Captured { .. }) => {
                captured.push(label);
                continue;
            }
            Err(e) => {
                return Err(refused(format!(
                    "refused: {label} cannot be rewritten ({e}); nothing was changed"
                )))
            }
        };
        if m["kernel"] == true {
            kernel.push(label);
        }
        changes.push(Change {
            // the renamed class's own methods go into its new version
            class: if owner == class {
                new_name.clone()
            } else {
                owner.to_string()
            },
            meta,
            selector: selector.to_string(),
            new_selector: selector.to_string(),
            category: m["category"].as_str().map(str::to_string),
            kernel: m["kernel"] == true,
            old: source.to_string(),
            new: renamed.source,
            sends: renamed.sends,
        });
    }
    if !captured.is_empty() {
        return Err(refuse_methods(
            &format!("these methods declare {new_name} where they refer to {class}"),
            &captured,
        ));
    }
    if !kernel.is_empty() && kernel_guarded(cx) {
        return Err(refuse_methods(
            "these kernel methods refer to the class (pass allowKernelEdits: true to rewrite them)",
            &kernel,
        ));
    }
    let names: Vec<String> = std::iter::once(new_name.clone())
        .chain(shapes[1..].iter().map(|s| s.name.clone()))
        .collect();
    let definitions: Vec<Value> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({
                "className": s.name,
                "old": s.definition(),
                "new": renamed_definition(s.definition(), &class, &new_name, i == 0),
                "kind": if i == 0 { "rename" } else { "newVersion" },
            })
        })
        .collect();
    let token = reshape_token(cx, "rename_class", &changes, &shapes);
    for c in &changes {
        let class_now = if c.class == new_name {
            &class
        } else {
            &c.class
        };
        cx.ledger.saw_method(class_now, c.meta, &c.selector);
    }
    let what = format!("renaming {class} to {new_name}");
    let subclasses: Vec<&str> = shapes[1..].iter().map(|s| s.name.as_str()).collect();
    let target = &shapes[0];
    let extra = json!({
        "className": class,
        "newName": new_name,
        "definitions": definitions,
        "newVersions": shapes.iter().map(|s| &s.name).collect::<Vec<_>>(),
    });
    conclude(
        given_token,
        token,
        |token| {
            let mut text = format!(
                "Preview: {what} makes {new_name}, a new version of {class} bound in its place (the \
old name is unbound){} and rewrites {} method(s) that refer to it. Existing instances stay instances of the \
old class. Nothing was written; to apply, repeat the call with dryRun false and token {token}.\n{}",
                if subclasses.is_empty() {
                    String::new()
                } else {
                    format!(", with new versions of its subclasses {}", subclasses.join(", "))
                },
                changes.len(),
                super::diff::unified(
                    target.definition(),
                    &renamed_definition(target.definition(), &class, &new_name, true),
                    &format!("{class} (definition)")
                )
            );
            text.truncate(text.trim_end().len());
            preview_output(text, token, &changes, extra)
        },
        |cx| {
            apply_reshape(cx, &what, &shapes, &names, &target.own(), &changes)?;
            Ok(ToolOutput {
                text: format!(
                    "renamed {class} to {new_name}; {} method(s) rewritten. Nothing was committed: \
commit keeps it, abort discards it.",
                    changes.len()
                ),
                structured: json!({
                    "dryRun": false,
                    "applied": true,
                    "className": class,
                    "newName": new_name,
                    "newVersions": names,
                    "rewritten": changes.len(),
                    "committed": false,
                }),
            })
        },
        cx,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ivar_names() {
        for (name, ok) in [
            ("count", true),
            ("_x1", true),
            ("Count", false),
            ("", false),
            ("a-b", false),
            ("self", false),
            ("1a", false),
        ] {
            assert_eq!(variable_name(name), ok, "{name:?}");
        }
    }

    #[test]
    fn definitions_get_their_new_ivars() {
        let def = "Object subclass: 'Acct'\n  instVarNames: #( a b)\n  classVars: #()";
        assert_eq!(
            with_ivars(def, &["a".into(), "c".into()]),
            "Object subclass: 'Acct'\n  instVarNames: #(a c)\n  classVars: #()"
        );
        assert_eq!(with_ivars("no list", &[]), "no list");
        assert_eq!(
            renamed_definition(def, "Acct", "Ledger", true),
            def.replace("'Acct'", "'Ledger'")
        );
        let sub = "Acct subclass: 'Sub'\n  instVarNames: #()";
        assert_eq!(
            renamed_definition(sub, "Acct", "Ledger", false),
            "Ledger subclass: 'Sub'\n  instVarNames: #()"
        );
    }

    #[test]
    fn class_names() {
        for (name, ok) in [
            ("Ledger", true),
            ("ledger2", true),
            ("_X", false),
            ("A b", false),
            ("", false),
        ] {
            assert_eq!(class_name(name), ok, "{name:?}");
        }
    }
}
