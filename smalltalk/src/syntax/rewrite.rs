//! Source rewriting for refactorings: renaming a selector where a method sends
//! it (and, for an implementor, in its pattern), and renaming a variable the
//! method does not declare itself (an instance variable, a class variable, a
//! global such as a class name), token by token, so that everything else in
//! the source — layout, comments, literals — stays as it was written.
//!
//! A variable's free uses are the reads and assignments of its name that no
//! argument or temporary of the method or of an enclosing block declares;
//! renaming is refused when the new name is declared around one of them
//! (the use would be captured).
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
    /// The new name is declared (an argument or temporary) where the renamed
    /// variable is used, so the use would refer to that declaration instead.
    #[error("it declares {name} where it uses {old}, so the renamed use would refer to that declaration")]
    Captured {
        /// The variable renamed.
        old: String,
        /// The name its uses would take.
        name: String,
    },
}

/// Where a method uses a name it does not declare.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FreeUses {
    /// The character offset of every free use (read or assignment).
    pub offsets: Vec<usize>,
    /// How many of them assign it.
    pub assignments: usize,
    /// Whether the method declares the name as an argument or temporary.
    pub declared_by_method: bool,
    /// Whether a block of the method declares it.
    pub declared_by_block: bool,
    /// Whether `also` (see [`free_uses`]) is declared around a free use.
    pub captured: bool,
}

/// The free uses of `name` in `source` (a method); `captured` tells whether
/// `also` is declared by the method or a block around one of them.
pub fn free_uses(source: &str, name: &str, also: &str) -> Result<FreeUses, RewriteError> {
    let method = parse_method(source).map_err(RewriteError::Syntax)?;
    let mut uses = FreeUses::default();
    let declared = |list: &[(String, usize)], n: &str| list.iter().any(|(d, _)| d == n);
    uses.declared_by_method = declared(&method.args, name) || declared(&method.temps, name);
    let mut scopes: Vec<Vec<&str>> = vec![method
        .args
        .iter()
        .chain(&method.temps)
        .map(|(n, _)| n.as_str())
        .collect()];
    let mut walker = Uses {
        name,
        also,
        uses: &mut uses,
    };
    walker.stmts(&method.body, &mut scopes);
    Ok(uses)
}

/// The walk behind [`free_uses`]: `scopes` holds the names declared by the
/// method and each enclosing block.
struct Uses<'a> {
    name: &'a str,
    also: &'a str,
    uses: &'a mut FreeUses,
}

impl<'a> Uses<'a> {
    fn found(&mut self, n: &str, offset: usize, assigns: bool, scopes: &[Vec<&'a str>]) {
        if n != self.name || scopes.iter().any(|s| s.contains(&n)) {
            return;
        }
        self.uses.offsets.push(offset);
        self.uses.assignments += usize::from(assigns);
        if scopes.iter().any(|s| s.contains(&self.also)) {
            self.uses.captured = true;
        }
    }

    fn stmts(&mut self, body: &'a [Stmt], scopes: &mut Vec<Vec<&'a str>>) {
        for s in body {
            match s {
                Stmt::Expr(e) | Stmt::Return(e, _) => self.expr(e, scopes),
            }
        }
    }

    fn msg(&mut self, m: &'a Msg, scopes: &mut Vec<Vec<&'a str>>) {
        for a in &m.args {
            self.expr(a, scopes);
        }
    }

    fn expr(&mut self, e: &'a Expr, scopes: &mut Vec<Vec<&'a str>>) {
        match e {
            Expr::Lit(..) => {}
            Expr::Var(n, o) => self.found(n, *o, false, scopes),
            Expr::Assign(n, o, v) => {
                self.found(n, *o, true, scopes);
                self.expr(v, scopes);
            }
            Expr::Send(s) => {
                self.expr(&s.recv, scopes);
                self.msg(&s.msg, scopes);
            }
            Expr::Cascade(recv, parts, _) => {
                self.expr(recv, scopes);
                for p in parts {
                    self.msg(&p.msg, scopes);
                    for m in &p.chain {
                        self.msg(m, scopes);
                    }
                }
            }
            Expr::Block(b) => {
                let names: Vec<&str> = b
                    .args
                    .iter()
                    .chain(&b.temps)
                    .map(|(n, _)| n.as_str())
                    .collect();
                if names.contains(&self.name) {
                    self.uses.declared_by_block = true;
                }
                scopes.push(names);
                self.stmts(&b.body, scopes);
                scopes.pop();
            }
            Expr::Brace(items, _) => {
                for i in items {
                    self.expr(i, scopes);
                }
            }
        }
    }
}

/// Renames the free uses of the variable `old` in `source` (a method) to
/// `new`; refused when `new` is declared around one of them.
pub fn rename_variable(source: &str, old: &str, new: &str) -> Result<Renamed, RewriteError> {
    let uses = free_uses(source, old, new)?;
    if uses.captured {
        return Err(RewriteError::Captured {
            old: old.into(),
            name: new.into(),
        });
    }
    let chars: Vec<char> = source.chars().collect();
    let width = old.chars().count();
    let mut out = String::with_capacity(source.len() + 16);
    let mut at = 0;
    for &o in &uses.offsets {
        if chars
            .get(o..o + width)
            .is_none_or(|w| !w.iter().copied().eq(old.chars()))
        {
            return Err(RewriteError::Unsafe);
        }
        out.extend(&chars[at..o]);
        out.push_str(new);
        at = o + width;
    }
    out.extend(&chars[at..]);
    let before = parse_method(source).map_err(RewriteError::Syntax)?;
    let after = parse_method(&out).map_err(|_| RewriteError::Unsafe)?;
    if after.selector != before.selector {
        return Err(RewriteError::Unsafe);
    }
    Ok(Renamed {
        source: out,
        sends: uses.offsets.len(),
        pattern: false,
    })
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
    fn variables_table() {
        // (source, old, new, expected source or None when captured)
        let table = [
            (
                "total ^ total + count",
                "total",
                "sum",
                Some("total ^ sum + count"),
            ),
            (
                "reset\n\tcount := 0. \"count\" ^ #count -> 'count'",
                "count",
                "tally",
                Some("reset\n\ttally := 0. \"count\" ^ #count -> 'count'"),
            ),
            (
                "each ^ items collect: [:count | count + count] , {count}",
                "count",
                "n",
                Some("each ^ items collect: [:count | count + count] , {n}"),
            ),
            ("foo: n ^ count + n", "count", "n", None),
            ("foo ^ [:x | | n | count + n]", "count", "n", None),
            (
                "foo ^ [:n | n] value: count",
                "count",
                "n",
                Some("foo ^ [:n | n] value: n"),
            ),
            (
                "foo ^ Account new: Account",
                "Account",
                "Ledger",
                Some("foo ^ Ledger new: Ledger"),
            ),
        ];
        for (source, old, new, expected) in table {
            match (rename_variable(source, old, new), expected) {
                (Ok(got), Some(e)) => assert_eq!(got.source, e, "{source:?}"),
                (Err(RewriteError::Captured { .. }), None) => {}
                (got, _) => panic!("{source:?}: {got:?}"),
            }
        }
        let uses = free_uses(
            "foo: a | t | ^ [:b | x := a + b + x + t] value: 1",
            "x",
            "b",
        )
        .unwrap();
        assert_eq!(uses.offsets.len(), 2);
        assert_eq!(uses.assignments, 1);
        assert!(uses.captured);
        let uses = free_uses("foo: x ^ x", "x", "y").unwrap();
        assert!(uses.declared_by_method && uses.offsets.is_empty());
        let uses = free_uses("foo ^ [:x | x]", "x", "y").unwrap();
        assert!(uses.declared_by_block && !uses.declared_by_method);
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
