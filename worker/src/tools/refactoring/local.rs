//! The refactorings inside one method: `extract_temporary`,
//! `inline_temporary`, `extract_method` and `inline_method`. The method is
//! read with the `method_site` expression (its source as `get_method_source`
//! answers it, the instance variables its side sees, who implements the new
//! selector), edited by the embedded stone's `gsmcp_smalltalk::extract` and
//! `gsmcp_smalltalk::inline`, and previewed and applied by token like every
//! refactoring.

use super::{
    conclude, invalid, mode, preview_output, refused, selector_shape, st, token_of, write, Change,
    Literal,
};
use crate::tools::mutation::kernel_guarded;
use crate::tools::{evaluate_json, strings, Context, ErrorKind, ToolError, ToolOutput};
use gsmcp_smalltalk::census::names_in_method;
use gsmcp_smalltalk::extract::{
    extract_method as extract, extract_temporary as extract_temp, inline_temporary as inline_temp,
    ExtractError,
};
use gsmcp_smalltalk::inline::{inline_method as inline, send_at};
use serde_json::{json, Value};

/// The method a call names, as `method_site` reads it.
struct Site {
    class: String,
    meta: bool,
    selector: String,
    answer: Value,
}

impl Site {
    fn read(cx: &mut Context<'_>, new_selector: Option<&str>) -> Result<Site, ToolError> {
        let class = cx.str_arg("className").unwrap_or_default().to_string();
        let meta = cx.bool_arg("meta");
        let selector = cx.str_arg("selector").unwrap_or_default().to_string();
        let answer = evaluate_json(
            cx.login,
            &st::MethodSite {
                class_name: Literal::symbol(&class),
                meta: Literal::boolean(meta),
                selector: Literal::symbol(&selector),
                new_selector: Literal::optional_symbol(new_selector),
            },
        )?;
        match answer["error"].as_str() {
            Some("noMethod") => Err(ToolError::new(
                ErrorKind::NotFound,
                format!(
                    "{class}{} has no method {selector}; list_methods names its selectors",
                    if meta { " class" } else { "" }
                ),
            )),
            Some(_) => {
                let (k, m) = crate::tools::browsing::no_class(&class);
                Err(ToolError::new(k, m))
            }
            None => Ok(Site {
                class,
                meta,
                selector,
                answer,
            }),
        }
    }

    fn source(&self) -> &str {
        self.answer["source"].as_str().unwrap_or_default()
    }

    fn category(&self) -> Option<String> {
        self.answer["category"].as_str().map(str::to_string)
    }

    fn ivars(&self) -> Vec<&str> {
        strings(&self.answer["instVarNames"])
    }

    fn name(&self) -> String {
        format!(
            "{}{}>>{}",
            self.class,
            if self.meta { " class" } else { "" },
            self.selector
        )
    }

    /// The change rewriting this method to `new`.
    fn rewrite(&self, new: String) -> Change {
        Change {
            class: self.class.clone(),
            meta: self.meta,
            selector: self.selector.clone(),
            new_selector: self.selector.clone(),
            category: self.category(),
            kernel: self.answer["kernel"] == true,
            old: self.source().to_string(),
            new,
            sends: 0,
        }
    }

    /// The kernel guard: an existing kernel method changes.
    fn guard(&self, cx: &Context<'_>) -> Result<(), ToolError> {
        if self.answer["kernel"] == true && kernel_guarded(cx) {
            return Err(refused(format!(
                "refused: {} is a method of a kernel class (bound in Globals under its own name); \
nothing was changed. Kernel code is shared by everything in the repository (the \
Mutation.kernelGuard option); repeat the call with allowKernelEdits: true to change it anyway",
                self.name()
            )));
        }
        Ok(())
    }
}

/// An `ExtractError` as the tool error it is.
fn extract_error(site: &Site, e: ExtractError) -> ToolError {
    match e {
        ExtractError::Range(m) => invalid(m),
        ExtractError::Refused(m) => refused(format!(
            "refused: {m} (in {}); nothing was changed",
            site.name()
        )),
        other => refused(format!(
            "refused: {} cannot be edited safely ({other}); nothing was changed",
            site.name()
        )),
    }
}

/// The 1-based `start` and `stop` of the call.
fn range(cx: &Context<'_>) -> Result<(usize, usize), ToolError> {
    let read = |name: &str| -> Result<usize, ToolError> {
        let v = cx.args.get(name).and_then(Value::as_f64).unwrap_or(0.0);
        if !(1.0..=1e9).contains(&v) {
            return Err(invalid(format!(
                "argument '{name}' must be a character position of the method's source, 1 or more"
            )));
        }
        Ok(v as usize)
    };
    Ok((read("start")?, read("stop")?))
}

/// Previews or applies `changes` to `site`: the preview's summary is
/// `summary`, the answer's `what`.
fn finish(
    cx: &mut Context<'_>,
    tool: &str,
    site: &Site,
    changes: Vec<Change>,
    summary: String,
    extra: Value,
) -> Result<ToolOutput, ToolError> {
    let given_token = mode(cx)?;
    let token = token_of(cx, tool, &changes);
    cx.ledger.saw_method(&site.class, site.meta, &site.selector);
    conclude(
        given_token,
        token,
        |token| {
            preview_output(
                format!(
                    "Preview: {summary}. Nothing was written; to apply, repeat the call with \
dryRun false and token {token}."
                ),
                token,
                &changes,
                extra.clone(),
            )
        },
        |cx| {
            let written = write(cx, tool, &changes)?;
            let mut structured = json!({
                "dryRun": false,
                "applied": true,
                "written": written,
                "committed": false,
            });
            if let (Value::Object(fields), Value::Object(more)) = (&mut structured, extra.clone()) {
                fields.extend(more);
            }
            Ok(ToolOutput {
                text: format!(
                    "{summary}: written ({}). Nothing was committed: commit keeps it, abort \
discards it.",
                    written.join(", ")
                ),
                structured,
            })
        },
        cx,
    )
}

pub(super) fn extract_temporary(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let (start, stop) = range(cx)?;
    let name = cx.str_arg("newName").unwrap_or_default().to_string();
    mode(cx)?;
    let site = Site::read(cx, None)?;
    site.guard(cx)?;
    let new = extract_temp(site.source(), start, stop, &name, &site.ivars())
        .map_err(|e| extract_error(&site, e))?;
    let summary = format!(
        "extracting characters {start}..{stop} of {} into the temporary {name}",
        site.name()
    );
    let changes = vec![site.rewrite(new)];
    finish(
        cx,
        "extract_temporary",
        &site,
        changes,
        summary,
        json!({"className": site.class, "selector": site.selector, "newName": name}),
    )
}

pub(super) fn inline_temporary(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let name = cx.str_arg("name").unwrap_or_default().to_string();
    mode(cx)?;
    let site = Site::read(cx, None)?;
    site.guard(cx)?;
    let new = inline_temp(site.source(), &name).map_err(|e| extract_error(&site, e))?;
    let summary = format!("inlining the temporary {name} of {}", site.name());
    let changes = vec![site.rewrite(new)];
    finish(
        cx,
        "inline_temporary",
        &site,
        changes,
        summary,
        json!({"className": site.class, "selector": site.selector, "name": name}),
    )
}

pub(super) fn extract_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let (start, stop) = range(cx)?;
    let new_selector = cx.str_arg("newSelector").unwrap_or_default().to_string();
    if selector_shape(&new_selector).is_none() {
        return Err(invalid(format!(
            "argument 'newSelector': {new_selector:?} is not a selector"
        )));
    }
    mode(cx)?;
    let site = Site::read(cx, Some(&new_selector))?;
    site.guard(cx)?;
    let side = if site.meta { " class" } else { "" };
    if let Some(owner) = site.answer["implementor"].as_str() {
        return Err(refused(format!(
            "refused: {}{side} already understands {new_selector} (implemented by {owner}{side}); \
the new method would replace or override it; choose another selector; nothing was changed",
            site.class
        )));
    }
    let overriders = strings(&site.answer["overriders"]);
    if !overriders.is_empty() {
        return Err(refused(format!(
            "refused: the subclass(es) {} implement {new_selector}, which would override the new \
method for their instances; choose another selector; nothing was changed",
            overriders.join(", ")
        )));
    }
    let made =
        extract(site.source(), start, stop, &new_selector).map_err(|e| extract_error(&site, e))?;
    let ivars = site.ivars();
    if let Some(clash) = made
        .arguments
        .iter()
        .chain(&made.moved)
        .find(|n| ivars.contains(&n.as_str()))
    {
        return Err(refused(format!(
            "refused: the new method would declare {clash}, which is an instance variable of \
{}{side} (a block may reuse the name, a method may not); rename that block variable first; \
nothing was changed",
            site.class
        )));
    }
    let summary = format!(
        "extracting characters {start}..{stop} of {} into {}{side}>>{new_selector}",
        site.name(),
        site.class
    );
    let changes = vec![
        site.rewrite(made.caller),
        Change {
            class: site.class.clone(),
            meta: site.meta,
            selector: new_selector.clone(),
            new_selector: new_selector.clone(),
            category: site.category(),
            kernel: site.answer["kernel"] == true,
            old: String::new(),
            new: made.method,
            sends: 0,
        },
    ];
    finish(
        cx,
        "extract_method",
        &site,
        changes,
        summary,
        json!({
            "className": site.class,
            "selector": site.selector,
            "newSelector": new_selector,
            "arguments": made.arguments,
        }),
    )
}

pub(super) fn inline_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let (start, stop) = range(cx)?;
    mode(cx)?;
    let site = Site::read(cx, None)?;
    site.guard(cx)?;
    let side = if site.meta { " class" } else { "" };
    let send = send_at(site.source(), start, stop).map_err(|e| extract_error(&site, e))?;
    let answer = evaluate_json(
        cx.login,
        &st::InlineSite {
            class_name: Literal::symbol(&site.class),
            meta: Literal::boolean(site.meta),
            selector: Literal::symbol(&send.selector),
            to_super: Literal::boolean(send.to_super),
        },
    )?;
    if answer.get("error").is_some() {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!(
                "no method {} is reached from {}{side}{}; nothing to inline",
                send.selector,
                site.class,
                if send.to_super { " through super" } else { "" }
            ),
        ));
    }
    let overriders = strings(&answer["overriders"]);
    if !send.to_super && !overriders.is_empty() {
        return Err(refused(format!(
            "refused: the subclass(es) {} implement {} too, and a send to self from their \
instances reaches theirs; inlining would change what they do; nothing was changed",
            overriders.join(", "),
            send.selector
        )));
    }
    let implementor = answer["implementor"].as_str().unwrap_or_default();
    let callee = answer["source"].as_str().unwrap_or_default();
    let names = names_in_method(callee).map_err(|e| {
        refused(format!(
            "refused: {implementor}>>{} does not parse ({}); nothing was changed",
            send.selector, e.message
        ))
    })?;
    if names.super_sends && implementor != site.class {
        return Err(refused(format!(
            "refused: {implementor}{side}>>{} sends to super, which from {}{side} would reach \
another class; nothing was changed",
            send.selector, site.class
        )));
    }
    let new = inline(site.source(), start, stop, callee, &site.ivars())
        .map_err(|e| extract_error(&site, e))?;
    let summary = format!(
        "inlining {implementor}{side}>>{} at characters {start}..{stop} of {}",
        send.selector,
        site.name()
    );
    let changes = vec![site.rewrite(new)];
    finish(
        cx,
        "inline_method",
        &site,
        changes,
        summary,
        json!({
            "className": site.class,
            "selector": site.selector,
            "inlined": {"className": implementor, "selector": send.selector},
        }),
    )
}
