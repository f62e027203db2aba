//! Source rewriting for refactorings: renaming a selector where a method sends
//! it (and, for an implementor, in its pattern), token by token, so that
//! everything else in the source — layout, comments, literals — stays as it
//! was written.
//!
//! Send sites come from the syntax tree (a symbol literal naming the selector
//! is not a send and is left alone); each keyword part of a site is the next
//! keyword token at the site's own nesting depth (a keyword message's
//! arguments cannot hold an unparenthesized keyword message, so the first
//! parts found are its own). The result is parsed again before it is answered.

use crate::syntax::ast::{BlockAst, Expr, Msg, Stmt};
use crate::syntax::parser::{parse_method, tokenize, SyntaxError, Tk, Token};

/// What renaming a selector in one method's source did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    /// The rewritten source.
    pub source: String,
    /// How many sends were renamed.
    pub sends: usize,
    /// Whether the method's own pattern was renamed.
    pub pattern: bool,
}

/// Why a rename could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RewriteError {
    /// The method's source does not parse.
    #[error("the method does not parse: {} (offset {})", .0.message, .0.offset)]
    Syntax(SyntaxError),
    /// The two selectors are not of the same kind and arity.
    #[error("{old} and {new} are not selectors of the same kind and number of arguments")]
    Shape {
        /// The selector renamed.
        old: String,
        /// Its new name.
        new: String,
    },
    /// The rewritten text would not parse (a defect; nothing is answered).
    #[error("the rewritten method would not parse")]
    Unsafe,
}

/// The parts of a selector as its tokens spell it: one part for a unary or
/// binary selector, one per keyword for a keyword selector.
fn parts(selector: &str) -> Vec<String> {
    if selector.ends_with(':') {
        selector.split_inclusive(':').map(str::to_string).collect()
    } else {
        vec![selector.to_string()]
    }
}

/// Unary, binary or keyword, and how many arguments.
fn kind(selector: &str) -> (u8, usize) {
    let first = selector.chars().next().unwrap_or(' ');
    if selector.ends_with(':') {
        (2, selector.matches(':').count())
    } else if first.is_alphabetic() || first == '_' {
        (0, 0)
    } else {
        (1, 1)
    }
}

/// Renames `old` to `new` in `source` (a method): every send of `old`, and the
/// pattern too when `pattern` is true and the method is named `old`.
pub fn rename_selector(
    source: &str,
    old: &str,
    new: &str,
    pattern: bool,
) -> Result<Renamed, RewriteError> {
    if kind(old) != kind(new) {
        return Err(RewriteError::Shape {
            old: old.into(),
            new: new.into(),
        });
    }
    let method = parse_method(source).map_err(RewriteError::Syntax)?;
    let chars: Vec<char> = source.chars().collect();
    let toks = tokenize(&chars).map_err(RewriteError::Syntax)?;
    let mut sites = Vec::new();
    stmts(&method.body, old, &mut sites);
    let new_parts = parts(new);
    let mut edits: Vec<(usize, usize, &str)> = Vec::new();
    let renames_pattern = pattern && method.selector == old;
    if renames_pattern {
        let pattern_toks: Vec<&Token> = toks
            .iter()
            .filter(|t| t.start < method.body_offset && t.tk != Tk::Eof)
            .collect();
        let heads: Vec<&Token> = if old.ends_with(':') {
            pattern_toks
                .into_iter()
                .filter(|t| matches!(t.tk, Tk::Keyword(_)))
                .collect()
        } else {
            pattern_toks.into_iter().take(1).collect()
        };
        for (t, part) in heads.iter().zip(&new_parts) {
            edits.push((t.start, t.end, part));
        }
    }
    for offset in &sites {
        let Some(first) = toks.iter().position(|t| t.start == *offset) else {
            return Err(RewriteError::Unsafe);
        };
        for (t, part) in site_parts(&toks, first, new_parts.len())
            .into_iter()
            .zip(&new_parts)
        {
            edits.push((t.start, t.end, part));
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(source.len() + 16);
    let mut at = 0;
    for (start, end, text) in &edits {
        out.extend(&chars[at..*start]);
        out.push_str(text);
        at = *end;
    }
    out.extend(&chars[at..]);
    let again = parse_method(&out).map_err(|_| RewriteError::Unsafe)?;
    let expected = if renames_pattern {
        new
    } else {
        &method.selector
    };
    if again.selector != expected {
        return Err(RewriteError::Unsafe);
    }
    Ok(Renamed {
        source: out,
        sends: sites.len(),
        pattern: renames_pattern,
    })
}

/// The tokens spelling the selector of the send whose first token is
/// `toks[first]`: that token, and for a keyword message the next keyword
/// tokens at its depth, `count` in all.
fn site_parts(toks: &[Token], first: usize, count: usize) -> Vec<&Token> {
    let mut found = vec![&toks[first]];
    if !matches!(toks[first].tk, Tk::Keyword(_)) {
        return found;
    }
    let mut depth = 0usize;
    for t in &toks[first + 1..] {
        if found.len() == count {
            break;
        }
        match t.tk {
            Tk::LParen | Tk::LBrack | Tk::LBrace | Tk::HashParen | Tk::HashBracket => depth += 1,
            Tk::RParen | Tk::RBrack | Tk::RBrace => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            Tk::Period | Tk::Semi | Tk::Eof if depth == 0 => break,
            Tk::Keyword(_) if depth == 0 => found.push(t),
            _ => {}
        }
    }
    found
}

fn stmts(body: &[Stmt], selector: &str, sites: &mut Vec<usize>) {
    for s in body {
        match s {
            Stmt::Expr(e) | Stmt::Return(e, _) => expr(e, selector, sites),
        }
    }
}

fn msg(m: &Msg, selector: &str, sites: &mut Vec<usize>) {
    if m.selector == selector {
        sites.push(m.offset);
    }
    for a in &m.args {
        expr(a, selector, sites);
    }
}

fn block(b: &BlockAst, selector: &str, sites: &mut Vec<usize>) {
    stmts(&b.body, selector, sites);
}

fn expr(e: &Expr, selector: &str, sites: &mut Vec<usize>) {
    match e {
        Expr::Lit(..) | Expr::Var(..) => {}
        Expr::Assign(_, _, v) => expr(v, selector, sites),
        Expr::Send(s) => {
            expr(&s.recv, selector, sites);
            msg(&s.msg, selector, sites);
        }
        Expr::Cascade(recv, parts, _) => {
            expr(recv, selector, sites);
            for p in parts {
                msg(&p.msg, selector, sites);
                for m in &p.chain {
                    msg(m, selector, sites);
                }
            }
        }
        Expr::Block(b) => block(b, selector, sites),
        Expr::Brace(items, _) => {
            for i in items {
                expr(i, selector, sites);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_table() {
        // (source, old, new, pattern, expected source, sends)
        let table = [
            ("foo ^ self bar", "bar", "baz", true, "foo ^ self baz", 1),
            (
                "at: i put: v\n\t^ self at: i put: (v at: 1 put: 2)",
                "at:put:",
                "store:into:",
                true,
                "store: i into: v\n\t^ self store: i into: (v store: 1 into: 2)",
                2,
            ),
            (
                "foo\n\tx at: 1 put: [:e | e at: 2 put: 3]; at: 4 put: #(at: put:)",
                "at:put:",
                "set:to:",
                true,
                "foo\n\tx set: 1 to: [:e | e set: 2 to: 3]; set: 4 to: #(at: put:)",
                3,
            ),
            (
                "bar\n\t\"calls bar\" ^ #bar -> (self perform: #bar)",
                "bar",
                "qux",
                false,
                "bar\n\t\"calls bar\" ^ #bar -> (self perform: #bar)",
                0,
            ),
            (
                "+ x ^ self + (x + 1)",
                "+",
                "&",
                true,
                "& x ^ self & (x & 1)",
                2,
            ),
            (
                "foo ^ a if: 1 then: (b if: 2 then: 3) else: 4",
                "if:then:",
                "when:do:",
                false,
                "foo ^ a if: 1 then: (b when: 2 do: 3) else: 4",
                1,
            ),
        ];
        for (source, old, new, pattern, expected, sends) in table {
            let got = rename_selector(source, old, new, pattern).unwrap();
            assert_eq!(got.source, expected, "{source:?}");
            assert_eq!(got.sends, sends, "{source:?}");
        }
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            rename_selector("foo ^ 1", "foo", "foo:", true),
            Err(RewriteError::Shape { .. })
        ));
        assert!(matches!(
            rename_selector("foo ^ 1", "+", "bar", true),
            Err(RewriteError::Shape { .. })
        ));
        assert!(matches!(
            rename_selector("foo ^", "foo", "bar", true),
            Err(RewriteError::Syntax(_))
        ));
    }
}
