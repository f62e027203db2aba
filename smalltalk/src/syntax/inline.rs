//! `inline_method`: a send to `self` or `super` in a method replaced by the
//! body of the method it reaches — arguments bound, temporaries declared in
//! the caller, the answer put where the send's value went — over the same
//! parsed parts as the other method-local refactorings (`extract`).

use super::extract::{not_an_expression, variable_name, ExtractError, Method, Result};
use crate::syntax::parser::{tokenize, Tk, Token};
use crate::syntax::rewrite::{message_end, site_parts};

/// A send to `self` or `super` a method makes, as [`send_at`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfSend {
    /// Whether it is sent to `super`.
    pub to_super: bool,
    /// Its selector.
    pub selector: String,
}

/// Where a send to `self` or `super` lies: the send, each argument's range,
/// and the whole send's range.
type SendSite = (SelfSend, Vec<(usize, usize)>, (usize, usize));

/// The send to `self` or `super` at `start`..`stop` of `source`, and its
/// arguments' ranges.
fn self_send(m: &Method, start: usize, stop: usize) -> Result<SendSite> {
    let range = m.range(start, stop)?;
    let range = if m.is_expr(range) {
        range
    } else {
        return Err(not_an_expression(m, range));
    };
    let toks = tokenize(&m.chars).map_err(|_| ExtractError::Unsafe)?;
    let i = toks
        .iter()
        .position(|t| t.start == range.0)
        .ok_or(ExtractError::Unsafe)?;
    let to_super = match &toks[i].tk {
        Tk::Ident(n) if n == "self" => false,
        Tk::Ident(n) if n == "super" => true,
        _ => {
            return Err(ExtractError::Range(
                "the range is not a message sent to self or super".into(),
            ))
        }
    };
    let first = i + 1;
    let not_one = || {
        ExtractError::Range(
            "the range is not one message sent to self or super (select the receiver and the \
whole message, e.g. `self total: x`)"
                .into(),
        )
    };
    let (selector, args, end): (String, Vec<(usize, usize)>, usize) =
        match toks.get(first).map(|t| &t.tk) {
            Some(Tk::Ident(sel)) => (sel.clone(), vec![], toks[first].end),
            Some(Tk::Binary(op)) => {
                let arg_start = toks.get(first + 1).ok_or_else(not_one)?.start;
                (op.clone(), vec![(arg_start, range.1)], range.1)
            }
            Some(Tk::Keyword(_)) => {
                let mut count = 0;
                let mut depth = 0i32;
                for t in &toks[first..] {
                    if t.start >= range.1 {
                        break;
                    }
                    match t.tk {
                        Tk::LParen | Tk::LBrack | Tk::LBrace | Tk::HashParen | Tk::HashBracket => {
                            depth += 1
                        }
                        Tk::RParen | Tk::RBrack | Tk::RBrace => depth -= 1,
                        Tk::Keyword(_) if depth == 0 => count += 1,
                        _ => {}
                    }
                }
                let kws: Vec<&Token> = site_parts(&toks, first, count);
                let end = message_end(&toks, first, &kws);
                let mut args = Vec::new();
                for (k, kw) in kws.iter().enumerate() {
                    let a_end = kws.get(k + 1).map_or(end, |next| {
                        toks.iter()
                            .rev()
                            .find(|t| t.end <= next.start)
                            .map_or(next.start, |t| t.end)
                    });
                    let a_start = toks
                        .iter()
                        .find(|t| t.start >= kw.end)
                        .map_or(kw.end, |t| t.start);
                    args.push((a_start, a_end.max(a_start)));
                }
                let selector: String = kws
                    .iter()
                    .map(|k| match &k.tk {
                        Tk::Keyword(w) => w.clone(),
                        _ => String::new(),
                    })
                    .collect();
                (selector, args, end)
            }
            _ => return Err(not_one()),
        };
    if end != range.1 {
        return Err(not_one());
    }
    Ok((SelfSend { to_super, selector }, args, range))
}

/// The send to `self` or `super` that `start`..`stop` of `source` selects
/// (for the worker to find the method it reaches).
pub fn send_at(source: &str, start: usize, stop: usize) -> Result<SelfSend> {
    let m = Method::parse(source)?;
    self_send(&m, start, stop).map(|(send, _, _)| send)
}

/// Inlines the send to `self` or `super` at `start`..`stop` of `caller`: the
/// method it reaches (`callee`, whose source this is) is copied in its place,
/// its arguments bound to the send's argument expressions (a variable or a
/// literal substituted, anything else assigned once to a new temporary), its
/// temporaries declared in the caller (renamed where the caller uses the
/// name), its answer put where the send's value went. The send must be a
/// statement of its own, a return's value or an assignment's value, unless
/// the callee is one `^ expression`. `taken` are names the caller's class
/// uses for instance variables.
pub fn inline_method(
    caller: &str,
    start: usize,
    stop: usize,
    callee: &str,
    taken: &[&str],
) -> Result<String> {
    let m = Method::parse(caller)?;
    let (send, args, range) = self_send(&m, start, stop)?;
    let c = Method::parse(callee)?;
    if c.ast.selector != send.selector {
        return Err(ExtractError::Unsafe);
    }
    let refuse = |why: String| Err(ExtractError::Refused(why));
    if c.ast.primitive.is_some() {
        return refuse(format!(
            "{} is a primitive; it has no Smalltalk body to inline",
            send.selector
        ));
    }
    let body = c.layout.sequences.last().cloned().unwrap_or_default();
    let last_return = c
        .scopes
        .returns
        .iter()
        .all(|&r| body.last().is_some_and(|s| s.0 == r));
    if !last_return {
        return refuse(format!(
            "{} returns (^) before its end, which inlined would return from the caller",
            send.selector
        ));
    }
    if c.scopes
        .occurrences
        .iter()
        .any(|o| o.name == "thisContext" && o.decl.is_none())
    {
        return refuse(format!("{} uses thisContext", send.selector));
    }
    // what the callee names freely must mean the same where it lands
    let around: Vec<&str> = m
        .scopes
        .decls
        .iter()
        .filter(|d| d.in_block && d.scope.0 < range.0 && range.1 <= d.scope.1)
        .map(|d| d.name.as_str())
        .collect();
    if let Some(o) = c
        .scopes
        .occurrences
        .iter()
        .find(|o| o.decl.is_none() && around.contains(&o.name.as_str()))
    {
        return refuse(format!(
            "{} uses {}, which a block of the caller declares around the send",
            send.selector, o.name
        ));
    }
    let mut fresh_names: Vec<String> = Vec::new();
    let fresh = |want: &str, fresh_names: &mut Vec<String>| -> String {
        let busy = |n: &str| {
            m.names(n)
                || taken.contains(&n)
                || fresh_names.iter().any(|f| f == n)
                || c.names(n) && n != want
        };
        let name = if !busy(want) {
            want.to_string()
        } else {
            (1..)
                .map(|k| format!("{want}{k}"))
                .find(|n| !busy(n))
                .unwrap_or_default()
        };
        fresh_names.push(name.clone());
        name
    };
    // the callee's temporaries, renamed where the caller uses the name
    let mut renamed: Vec<(usize, String)> = Vec::new();
    for (d, decl) in c.scopes.decls.iter().enumerate() {
        if !decl.in_block && !decl.argument {
            renamed.push((d, fresh(&decl.name, &mut fresh_names)));
        }
    }
    // each argument: substituted, or a temporary assigned once
    let mut replacement: Vec<(usize, String)> = Vec::new();
    let mut prefix: Vec<String> = Vec::new();
    for (k, (name, _)) in c.ast.args.iter().enumerate() {
        let text = m.text(args[k]);
        // a variable stays itself unless a name the callee keeps would capture it
        let simple_var = text.chars().all(|ch| ch.is_alphanumeric() || ch == '_')
            && !c.scopes.decls.iter().enumerate().any(|(d, decl)| {
                decl.in_block && decl.name == text
                    || renamed.iter().any(|(dd, n)| *dd == d && *n == text)
            });
        let literal = m.primary(args[k]) && !text.starts_with(['(', '[', '{']);
        let value =
            if simple_var || (literal && !text.chars().next().is_some_and(char::is_alphabetic)) {
                text
            } else {
                let t = fresh(name, &mut fresh_names);
                prefix.push(format!("{t} := {text}"));
                t
            };
        replacement.push((k, value));
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for o in &c.scopes.occurrences {
        let Some(d) = o.decl else { continue };
        let width = o.name.chars().count();
        if let Some((_, v)) = replacement.iter().find(|(k, _)| {
            c.scopes.decls[d].argument && !c.scopes.decls[d].in_block && c.ast.args[*k].0 == o.name
        }) {
            edits.push((o.offset, o.offset + width, v.clone()));
        } else if let Some((_, n)) = renamed.iter().find(|(dd, _)| *dd == d) {
            edits.push((o.offset, o.offset + width, n.clone()));
        }
    }
    let statement_text = |r: (usize, usize)| -> String {
        let mut out = String::new();
        let mut at = r.0;
        let mut inside: Vec<&(usize, usize, String)> =
            edits.iter().filter(|e| e.0 >= r.0 && e.1 <= r.1).collect();
        inside.sort_by_key(|e| e.0);
        for (s, e, t) in inside {
            out.extend(&c.chars[at..*s]);
            out.push_str(t);
            at = *e;
        }
        out.extend(&c.chars[at..r.1]);
        out
    };
    let mut statements: Vec<String> = body.iter().map(|r| statement_text(*r)).collect();
    let value = match (statements.last(), c.scopes.returns.is_empty()) {
        (Some(last), false) => {
            let v = last.trim_start_matches('^').trim().to_string();
            statements.pop();
            v
        }
        _ => "self".to_string(),
    };
    let mut lines: Vec<String> = prefix;
    lines.extend(statements);
    let (q, i) = m.statement_around(range).ok_or(ExtractError::Unsafe)?;
    let statement = m.layout.sequences[q][i];
    let lead: String = m.text((statement.0, range.0));
    let lead = lead.trim();
    let value_is_inert = value == "self"
        || Method::parse(&format!("f ^ {value}")).is_ok_and(|v| {
            let r = (4, v.chars.len());
            v.primary(r) && !value.starts_with(['(', '{'])
        });
    // where the send's value goes
    let place = if statement == range {
        Place::Statement
    } else if range.1 == statement.1 && lead == "^" {
        Place::Return
    } else if range.1 == statement.1
        && lead.ends_with(":=")
        && lead
            .split(":=")
            .next()
            .is_some_and(|v| variable_name(v.trim()))
    {
        Place::Assignment
    } else {
        Place::Nested
    };
    let wrap = |v: &str| -> String {
        if Method::parse(&format!("f ^ {v}")).is_ok_and(|p| p.binds_tightly((4, p.chars.len()))) {
            v.to_string()
        } else {
            format!("({v})")
        }
    };
    let sep = format!(".{}", m.statement_break(statement.0));
    let mut edits_caller: Vec<(usize, usize, String)> = Vec::new();
    let temps: Vec<String> = fresh_names.clone();
    if !temps.is_empty() {
        edits_caller.push(m.declare(&temps.join(" "), m.scopes.block_around(statement))?);
    }
    match place {
        Place::Statement | Place::Return | Place::Assignment => {
            let last = match place {
                Place::Statement if value_is_inert => None,
                Place::Statement => Some(value.clone()),
                Place::Return => Some(format!("^ {value}")),
                _ => Some(format!("{lead} {value}")),
            };
            lines.extend(last);
            if lines.is_empty() {
                lines.push("self".into());
            }
            edits_caller.push((statement.0, statement.1, lines.join(&sep)));
        }
        Place::Nested => {
            if !lines.is_empty() {
                return refuse(format!(
                    "{} has statements before its answer, and the send is inside a larger \
expression; make the send a statement, a return or an assignment of its own first \
(extract_temporary)",
                    send.selector
                ));
            }
            edits_caller.push((range.0, range.1, wrap(&value)));
        }
    }
    m.edit(edits_caller)
}

/// Where an inlined send's value goes.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// Nowhere: the send is a statement of its own.
    Statement,
    /// It is returned (`^ send`).
    Return,
    /// It is assigned (`v := send`).
    Assignment,
    /// Into a larger expression.
    Nested,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::extract::tests::at;

    #[test]
    fn methods_are_inlined() {
        // (caller, selection, callee, expected)
        let table = [
            (
                "total\n\t^ self subtotal + 1",
                "self subtotal",
                "subtotal\n\t^ items size",
                "total\n\t^ items size + 1",
            ),
            (
                "report\n\tself log: 'x' , name.\n\t^ self",
                "self log: 'x' , name",
                "log: aString\n\t| s |\n\ts := aString size.\n\tTranscript show: aString; show: s printString",
                "report\n\t| s aString |\n\taString := 'x' , name.\n\ts := aString size.\n\tTranscript show: aString; show: s printString.\n\t^ self",
            ),
            (
                "go\n\t| s |\n\ts := 3.\n\tx := self twice: s.\n\t^ x",
                "self twice: s",
                "twice: n\n\t| s |\n\ts := n + n.\n\t^ s",
                "go\n\t| s s1 |\n\ts := 3.\n\ts1 := s + s.\n\tx := s1.\n\t^ x",
            ),
            (
                "area\n\t^ super area * 2",
                "super area",
                "area\n\t^ w * h",
                "area\n\t^ (w * h) * 2",
            ),
        ];
        for (caller, selection, callee, expected) in table {
            let (s, e) = at(caller, selection);
            let got = inline_method(caller, s, e, callee, &[])
                .unwrap_or_else(|err| panic!("{caller:?}: {err}"));
            assert_eq!(got, expected, "{caller:?}");
        }
        let refusals = [
            (
                "f\n\t^ (self g) + 1",
                "self g",
                "g\n\t| t |\n\tt := 1.\n\t^ t",
                "before its answer",
            ),
            (
                "f\n\t^ self g",
                "self g",
                "g\n\tx ifTrue: [^ 1].\n\t^ 2",
                "before its end",
            ),
            (
                "f\n\t^ self g",
                "self g",
                "g\n\t<primitive: 1>\n\t^ 2",
                "primitive",
            ),
            (
                "f\n\t^ [:n | self g] value: 1",
                "self g",
                "g\n\t^ n",
                "declares around",
            ),
            (
                "f\n\t^ x g",
                "x g",
                "g\n\t^ 1",
                "not a message sent to self",
            ),
        ];
        for (caller, selection, callee, words) in refusals {
            let (s, e) = at(caller, selection);
            let err = inline_method(caller, s, e, callee, &[]).unwrap_err();
            assert!(err.to_string().contains(words), "{caller:?}: {err}");
        }
    }
}
