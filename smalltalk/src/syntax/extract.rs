//! The refactorings inside one method, over its source: `extract_temporary`
//! (an expression into a new temporary assigned just before its statement),
//! `inline_temporary` (a temporary assigned once replaced by its value) and
//! `extract_method` (an expression or a run of statements into a new method of
//! the same class, called in its place); `inline` builds `inline_method` on
//! the same parts.
//!
//! Each maps the selected character range onto the syntax with the parser's
//! [`Layout`] (where every expression and statement lies), finds every
//! variable occurrence and the declaration it binds to ([`Scopes`]), checks
//! that the change keeps the method's meaning, edits the text (everything
//! else — layout, comments — stays as written) and parses the result again.
//! Ranges are 1-based and inclusive, in characters, as the tools take them.

use crate::syntax::ast::{BlockAst, Expr, MethodAst, Msg, Stmt};
use crate::syntax::parser::{parse_method_layout, tokenize, Layout, SyntaxError, Tk};

/// Why a method-local refactoring could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    /// The method's source does not parse.
    #[error("the method does not parse: {} (offset {})", .0.message, .0.offset)]
    Syntax(SyntaxError),
    /// The selected range is not what the refactoring needs.
    #[error("{0}")]
    Range(String),
    /// A precondition failed: the change would alter what the method does.
    #[error("{0}")]
    Refused(String),
    /// The edited text would not parse (a defect; nothing is answered).
    #[error("the edited method would not parse")]
    Unsafe,
}

pub(super) type Result<T> = std::result::Result<T, ExtractError>;

/// A variable's declaration: an argument or temporary of the method or of a
/// block, and the range of text where it is visible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decl {
    pub(super) name: String,
    offset: usize,
    pub(super) argument: bool,
    /// The block's `[`..`]`, or the whole method.
    pub(super) scope: (usize, usize),
    /// Whether a block (not the method) declares it.
    pub(super) in_block: bool,
}

/// One read or assignment of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Occurrence {
    pub(super) name: String,
    pub(super) offset: usize,
    assigns: bool,
    /// The declaration it binds to (an index into `Scopes::decls`), or none:
    /// an instance variable, class variable, global or pseudo-variable.
    pub(super) decl: Option<usize>,
}

/// Every declaration and variable occurrence of a method, and where its
/// blocks lie.
pub(super) struct Scopes {
    pub(super) decls: Vec<Decl>,
    pub(super) occurrences: Vec<Occurrence>,
    /// Each block's `[`..`]` range.
    blocks: Vec<(usize, usize)>,
    /// Where each `^` is.
    pub(super) returns: Vec<usize>,
}

impl Scopes {
    fn of(method: &MethodAst, layout: &Layout, len: usize, chars: &[char]) -> Scopes {
        let mut s = Scopes {
            decls: Vec::new(),
            occurrences: Vec::new(),
            blocks: Vec::new(),
            returns: Vec::new(),
        };
        let mut visible: Vec<usize> = Vec::new();
        for (list, argument) in [(&method.args, true), (&method.temps, false)] {
            for (name, offset) in list {
                visible.push(s.decls.len());
                s.decls.push(Decl {
                    name: name.clone(),
                    offset: *offset,
                    argument,
                    scope: (0, len),
                    in_block: false,
                });
            }
        }
        let mut walk = Walk {
            s: &mut s,
            layout,
            chars,
        };
        walk.stmts(&method.body, &mut visible);
        s
    }

    /// The names used in `range` (free there) that bind to declarations
    /// outside it, in order of first use.
    fn outer_uses(&self, range: (usize, usize)) -> Vec<usize> {
        let mut out = Vec::new();
        for o in self.within(range) {
            if let Some(d) = o.decl {
                if !inside(self.decls[d].offset, range) && !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }

    fn within(&self, range: (usize, usize)) -> impl Iterator<Item = &Occurrence> {
        self.occurrences
            .iter()
            .filter(move |o| inside(o.offset, range))
    }

    /// The innermost block around `range`, or none (the method's body).
    pub(super) fn block_around(&self, range: (usize, usize)) -> Option<(usize, usize)> {
        self.blocks
            .iter()
            .filter(|b| b.0 < range.0 && range.1 <= b.1)
            .min_by_key(|b| b.1 - b.0)
            .copied()
    }
}

fn inside(offset: usize, range: (usize, usize)) -> bool {
    range.0 <= offset && offset < range.1
}

struct Walk<'a> {
    s: &'a mut Scopes,
    layout: &'a Layout,
    chars: &'a [char],
}

impl Walk<'_> {
    fn found(&mut self, name: &str, offset: usize, assigns: bool, visible: &[usize]) {
        let decl = visible
            .iter()
            .rev()
            .copied()
            .find(|&d| self.s.decls[d].name == name);
        self.s.occurrences.push(Occurrence {
            name: name.to_string(),
            offset,
            assigns,
            decl,
        });
    }

    fn stmts(&mut self, body: &[Stmt], visible: &mut Vec<usize>) {
        for st in body {
            match st {
                Stmt::Expr(e) => self.expr(e, visible),
                Stmt::Return(e, o) => {
                    self.s.returns.push(*o);
                    self.expr(e, visible);
                }
            }
        }
    }

    fn msg(&mut self, m: &Msg, visible: &mut Vec<usize>) {
        for a in &m.args {
            self.expr(a, visible);
        }
    }

    fn block(&mut self, b: &BlockAst, visible: &mut Vec<usize>) {
        // the block's extent: the shortest recorded expression from its `[`
        // that ends with `]`
        let end = self
            .layout
            .exprs
            .iter()
            .filter(|(s, e)| *s == b.offset && *e > *s && self.chars.get(e - 1) == Some(&']'))
            .map(|(_, e)| *e)
            .min()
            .unwrap_or(self.chars.len());
        let scope = (b.offset, end);
        self.s.blocks.push(scope);
        let mark = visible.len();
        for (list, argument) in [(&b.args, true), (&b.temps, false)] {
            for (name, offset) in list {
                visible.push(self.s.decls.len());
                self.s.decls.push(Decl {
                    name: name.clone(),
                    offset: *offset,
                    argument,
                    scope,
                    in_block: true,
                });
            }
        }
        self.stmts(&b.body, visible);
        visible.truncate(mark);
    }

    fn expr(&mut self, e: &Expr, visible: &mut Vec<usize>) {
        match e {
            Expr::Lit(..) => {}
            Expr::Var(n, o) => self.found(n, *o, false, visible),
            Expr::Assign(n, o, v) => {
                self.found(n, *o, true, visible);
                self.expr(v, visible);
            }
            Expr::Send(s) => {
                self.expr(&s.recv, visible);
                self.msg(&s.msg, visible);
            }
            Expr::Cascade(recv, parts, _) => {
                self.expr(recv, visible);
                for p in parts {
                    self.msg(&p.msg, visible);
                    for m in &p.chain {
                        self.msg(m, visible);
                    }
                }
            }
            Expr::Block(b) => self.block(b, visible),
            Expr::Brace(items, _) => {
                for i in items {
                    self.expr(i, visible);
                }
            }
        }
    }
}

/// A parsed method with what the refactorings ask of it.
pub(super) struct Method {
    pub(super) chars: Vec<char>,
    pub(super) ast: MethodAst,
    pub(super) layout: Layout,
    pub(super) scopes: Scopes,
}

impl Method {
    pub(super) fn parse(source: &str) -> Result<Method> {
        let chars: Vec<char> = source.chars().collect();
        let (ast, layout) = parse_method_layout(source).map_err(ExtractError::Syntax)?;
        let scopes = Scopes::of(&ast, &layout, chars.len(), &chars);
        Ok(Method {
            chars,
            ast,
            layout,
            scopes,
        })
    }

    pub(super) fn text(&self, range: (usize, usize)) -> String {
        self.chars[range.0..range.1].iter().collect()
    }

    /// The 1-based inclusive `start`..`stop` as a 0-based range, without the
    /// white space and a final period around it.
    pub(super) fn range(&self, start: usize, stop: usize) -> Result<(usize, usize)> {
        let len = self.chars.len();
        if start < 1 || stop < start || stop > len {
            return Err(ExtractError::Range(format!(
                "start {start} and stop {stop} are not a range of the method's {len} characters \
(1-based, inclusive)"
            )));
        }
        let (mut s, mut e) = (start - 1, stop);
        while s < e && self.chars[s].is_whitespace() {
            s += 1;
        }
        while e > s && (self.chars[e - 1].is_whitespace() || self.chars[e - 1] == '.') {
            e -= 1;
        }
        if s == e {
            return Err(ExtractError::Range("the range holds no code".into()));
        }
        Ok((s, e))
    }

    pub(super) fn is_expr(&self, range: (usize, usize)) -> bool {
        self.layout.exprs.contains(&range)
    }

    /// The innermost statement around `range`: its sequence and index.
    pub(super) fn statement_around(&self, range: (usize, usize)) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize, usize)> = None;
        for (q, seq) in self.layout.sequences.iter().enumerate() {
            for (i, st) in seq.iter().enumerate() {
                if st.0 <= range.0 && range.1 <= st.1 {
                    let size = st.1 - st.0;
                    if best.is_none_or(|b| size < b.2) {
                        best = Some((q, i, size));
                    }
                }
            }
        }
        best.map(|(q, i, _)| (q, i))
    }

    /// The white space to put a new statement before the statement at
    /// `at`: a line break and its indentation when it begins its line, else
    /// a space.
    pub(super) fn statement_break(&self, at: usize) -> String {
        let line_start = self.chars[..at]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |p| p + 1);
        let lead: String = self.chars[line_start..at].iter().collect();
        if lead.chars().all(|c| c == ' ' || c == '\t') {
            format!("\n{lead}")
        } else {
            " ".into()
        }
    }

    /// The edit that declares `name` a temporary of the block `block` (or of
    /// the method): after its last temporary, or a new `| name |` before its
    /// first statement.
    pub(super) fn declare(
        &self,
        name: &str,
        block: Option<(usize, usize)>,
    ) -> Result<(usize, usize, String)> {
        let toks = tokenize(&self.chars).map_err(|_| ExtractError::Unsafe)?;
        match block {
            None => {
                if let Some((t, o)) = self.ast.temps.last() {
                    return Ok((
                        o + t.chars().count(),
                        o + t.chars().count(),
                        format!(" {name}"),
                    ));
                }
                let seq = self.layout.sequences.last().ok_or(ExtractError::Unsafe)?;
                let first = seq.first().map_or(self.chars.len(), |s| s.0);
                // before the first statement (after any pragma, which GemStone allows)
                Ok((
                    first,
                    first,
                    format!("| {name} |{}", self.statement_break(first)),
                ))
            }
            Some((open, _)) => {
                let mut i = toks
                    .iter()
                    .position(|t| t.start == open)
                    .ok_or(ExtractError::Unsafe)?
                    + 1;
                let mut had_args = false;
                while toks[i].tk == Tk::Colon {
                    had_args = true;
                    i += 2;
                }
                let bar = |t: &Tk, b: &str| matches!(t, Tk::Binary(x) if x == b);
                let temps_open = if had_args {
                    if bar(&toks[i].tk, "||") {
                        Some(i)
                    } else if bar(&toks[i].tk, "|") {
                        i += 1;
                        bar(&toks[i].tk, "|").then_some(i)
                    } else {
                        None
                    }
                } else {
                    bar(&toks[i].tk, "|").then_some(i)
                };
                if let Some(j) = temps_open {
                    let close = toks[j + 1..]
                        .iter()
                        .find(|t| bar(&t.tk, "|"))
                        .ok_or(ExtractError::Unsafe)?;
                    return Ok((close.start, close.start, format!("{name} ")));
                }
                if had_args {
                    let at = toks[i - 1].end;
                    Ok((at, at, format!(" | {name} |")))
                } else {
                    Ok((open + 1, open + 1, format!("| {name} | ")))
                }
            }
        }
    }

    /// Applies `edits` (start, end, text), which must not overlap, and
    /// parses the result.
    pub(super) fn edit(&self, mut edits: Vec<(usize, usize, String)>) -> Result<String> {
        edits.sort_by_key(|e| (e.0, e.1));
        let mut out = String::with_capacity(self.chars.len() + 32);
        let mut at = 0;
        for (s, e, text) in &edits {
            if *s < at {
                return Err(ExtractError::Unsafe);
            }
            out.extend(&self.chars[at..*s]);
            out.push_str(text);
            at = *e;
        }
        out.extend(&self.chars[at..]);
        let again = parse_method_layout(&out).map_err(|_| ExtractError::Unsafe)?;
        if again.0.selector != self.ast.selector {
            return Err(ExtractError::Unsafe);
        }
        Ok(out)
    }

    /// Whether `name` is declared or used anywhere in the method.
    pub(super) fn names(&self, name: &str) -> bool {
        self.scopes.decls.iter().any(|d| d.name == name)
            || self.scopes.occurrences.iter().any(|o| o.name == name)
    }

    /// The parentheses right around `range`, when they enclose exactly it.
    fn parenthesized(&self, range: (usize, usize)) -> Option<(usize, usize)> {
        let open = self.chars[..range.0]
            .iter()
            .rposition(|c| !c.is_whitespace())?;
        let close = range.1
            + self.chars[range.1..]
                .iter()
                .position(|c| !c.is_whitespace())?;
        (self.chars[open] == '(' && self.chars[close] == ')' && self.is_expr((open, close + 1)))
            .then_some((open, close + 1))
    }

    /// Whether the expression at `range` is a primary or unary sends to
    /// one, which stand anywhere a variable does without parentheses.
    pub(super) fn binds_tightly(&self, range: (usize, usize)) -> bool {
        let Ok(toks) = tokenize(&self.chars[range.0..range.1]) else {
            return false;
        };
        let mut depth = 0i32;
        for t in &toks {
            match &t.tk {
                Tk::LParen | Tk::LBrack | Tk::LBrace | Tk::HashParen | Tk::HashBracket => {
                    depth += 1
                }
                Tk::RParen | Tk::RBrack | Tk::RBrace => depth -= 1,
                Tk::Keyword(_) | Tk::Binary(_) | Tk::Semi | Tk::Assign if depth == 0 => {
                    return false
                }
                _ => {}
            }
        }
        true
    }

    /// Whether the text of `range` is one primary (needs no parentheses
    /// wherever it goes).
    pub(super) fn primary(&self, range: (usize, usize)) -> bool {
        let text = self.text(range);
        let first = text.chars().next().unwrap_or(' ');
        let simple = text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        (simple && !text.contains('.'))
            || (matches!(first, '(' | '[' | '{')
                && self
                    .layout
                    .exprs
                    .iter()
                    .any(|&(s, e)| s == range.0 && e == range.1 && matching(&self.chars[s..e])))
            || (first == '\'' || first == '$' || first == '#') && !text.contains(' ')
    }
}

/// Whether `chars` opens with a bracket that closes at its very end.
fn matching(chars: &[char]) -> bool {
    let mut depth = 0i32;
    let mut in_string = false;
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\'' => in_string = !in_string,
            '(' | '[' | '{' if !in_string => depth += 1,
            ')' | ']' | '}' if !in_string => {
                depth -= 1;
                if depth == 0 && i + 1 != chars.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Whether `name` may name a variable (an argument, a temporary or an
/// instance variable): a lowercase letter or `_`, then letters, digits and
/// `_`, and not a pseudo-variable. A capitalized name reads as a global.
pub fn variable_name(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f.is_ascii_lowercase() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(
            name,
            "self" | "super" | "nil" | "true" | "false" | "thisContext"
        )
}

/// Extracts the expression at `start`..`stop` into a new temporary `name`,
/// assigned just before the statement holding it (declared in the method or
/// the block that statement belongs to). `taken` are names the method may
/// not use for it (the class's instance variables).
pub fn extract_temporary(
    source: &str,
    start: usize,
    stop: usize,
    name: &str,
    taken: &[&str],
) -> Result<String> {
    if !variable_name(name) {
        return Err(ExtractError::Refused(format!(
            "{name:?} cannot name a temporary (a lowercase letter or _, then letters, digits or _)"
        )));
    }
    let m = Method::parse(source)?;
    let range = m.range(start, stop)?;
    if !m.is_expr(range) {
        return Err(not_an_expression(&m, range));
    }
    if taken.contains(&name) || m.names(name) {
        return Err(ExtractError::Refused(format!(
            "{name} already names a variable this method can see; choose another name"
        )));
    }
    if m.scopes
        .occurrences
        .iter()
        .any(|o| o.offset == range.0 && o.assigns)
    {
        return Err(ExtractError::Range(
            "the range is an assignment; select the value assigned".into(),
        ));
    }
    let (q, i) = m.statement_around(range).ok_or(ExtractError::Unsafe)?;
    let statement = m.layout.sequences[q][i];
    // computing the expression first must not see a value the statement
    // changes before it
    let reads: Vec<&str> = m.scopes.within(range).map(|o| o.name.as_str()).collect();
    if let Some(o) = m.scopes.occurrences.iter().find(|o| {
        o.assigns
            && o.offset >= statement.0
            && o.offset < range.0
            && reads.contains(&o.name.as_str())
    }) {
        return Err(ExtractError::Refused(format!(
            "the statement assigns {} before the expression, so computing the expression first \
would change its value",
            o.name
        )));
    }
    let block = m.scopes.block_around(statement);
    let expr = m.text(range);
    let replaced = m.parenthesized(range).unwrap_or(range);
    // the declaration first: it may go where the new statement goes
    let edits = vec![
        m.declare(name, block)?,
        (
            statement.0,
            statement.0,
            format!("{name} := {expr}.{}", m.statement_break(statement.0)),
        ),
        (replaced.0, replaced.1, name.to_string()),
    ];
    m.edit(edits)
}

pub(super) fn not_an_expression(m: &Method, range: (usize, usize)) -> ExtractError {
    let text = m.text(range);
    let shown: String = text.chars().take(40).collect();
    ExtractError::Range(format!(
        "characters {}..{} ({shown:?}{}) are not one whole expression; select an expression \
exactly (get_method_source answers the source the range counts in)",
        range.0 + 1,
        range.1,
        if text.chars().count() > 40 { "…" } else { "" }
    ))
}

/// Inlines the temporary `name`: its one assignment (a statement of the
/// sequence that declares it) is removed, and each later read becomes the
/// value assigned.
pub fn inline_temporary(source: &str, name: &str) -> Result<String> {
    let m = Method::parse(source)?;
    let decls: Vec<usize> = (0..m.scopes.decls.len())
        .filter(|&d| m.scopes.decls[d].name == name)
        .collect();
    let d = match decls.as_slice() {
        [] => {
            return Err(ExtractError::Refused(format!(
                "the method declares no temporary named {name}"
            )))
        }
        [d] => *d,
        _ => {
            return Err(ExtractError::Refused(format!(
                "{name} is declared more than once in the method; rename one first"
            )))
        }
    };
    let decl = &m.scopes.decls[d];
    if decl.argument {
        return Err(ExtractError::Refused(format!(
            "{name} is an argument, not a temporary"
        )));
    }
    let uses: Vec<&Occurrence> = m
        .scopes
        .occurrences
        .iter()
        .filter(|o| o.decl == Some(d))
        .collect();
    let assignments: Vec<&&Occurrence> = uses.iter().filter(|o| o.assigns).collect();
    let [assignment] = assignments.as_slice() else {
        return Err(ExtractError::Refused(format!(
            "{name} is assigned {} times; only a temporary assigned exactly once can be inlined",
            assignments.len()
        )));
    };
    // the assignment must be a whole statement of the declaring sequence
    let statement = m
        .layout
        .sequences
        .iter()
        .flatten()
        .find(|s| s.0 == assignment.offset)
        .copied()
        .filter(|s| m.scopes.block_around(*s) == decl.in_block.then_some(decl.scope))
        .ok_or_else(|| {
            ExtractError::Refused(format!(
                "{name} is not assigned by a statement of its own (`{name} := value.`) where it \
is declared"
            ))
        })?;
    let reads: Vec<&&Occurrence> = uses.iter().filter(|o| !o.assigns).collect();
    if let Some(early) = reads.iter().find(|o| o.offset < statement.1) {
        return Err(ExtractError::Refused(format!(
            "{name} is read at offset {} before its assignment",
            early.offset + 1
        )));
    }
    if reads.is_empty() {
        return Err(ExtractError::Refused(format!(
            "{name} is never read; delete the assignment instead"
        )));
    }
    // the value: everything after `:=` in the statement
    let toks = tokenize(&m.chars).map_err(|_| ExtractError::Unsafe)?;
    let assign_tok = toks
        .iter()
        .find(|t| t.start > assignment.offset && t.tk == Tk::Assign)
        .ok_or(ExtractError::Unsafe)?;
    let mut value = (assign_tok.end, statement.1);
    while m.chars[value.0].is_whitespace() {
        value.0 += 1;
    }
    let value_text = m.text(value);
    let sends = m.layout.exprs.iter().any(|&(s, e)| {
        s >= value.0 && e <= value.1 && !m.primary((s, e)) && !m.chars[s..e].contains(&'[')
    }) || !m.primary(value);
    let repeated = reads.len() > 1
        || reads.iter().any(|r| {
            m.scopes.block_around((r.offset, r.offset + 1)) != m.scopes.block_around(statement)
        });
    if sends && repeated {
        return Err(ExtractError::Refused(format!(
            "{name}'s value sends messages and is read {} time(s){}; inlining would evaluate it \
at each read",
            reads.len(),
            if reads.len() == 1 {
                " inside a block"
            } else {
                ""
            }
        )));
    }
    // a variable the value reads must not change between the assignment and
    // the last read
    let last = reads.iter().map(|r| r.offset).max().unwrap_or(0);
    let value_reads: Vec<&str> = m.scopes.within(value).map(|o| o.name.as_str()).collect();
    if let Some(o) = m.scopes.occurrences.iter().find(|o| {
        o.assigns
            && o.offset > statement.1
            && o.offset < last
            && value_reads.contains(&o.name.as_str())
    }) {
        return Err(ExtractError::Refused(format!(
            "{} is assigned between {name}'s assignment and its use, so the value would change",
            o.name
        )));
    }
    let replacement = if m.binds_tightly(value) {
        value_text.clone()
    } else {
        format!("({value_text})")
    };
    let width = name.chars().count();
    let mut edits: Vec<(usize, usize, String)> = reads
        .iter()
        .map(|r| (r.offset, r.offset + width, replacement.clone()))
        .collect();
    // the statement, its period and the white space up to the next one
    let mut end = statement.1;
    while end < m.chars.len() && m.chars[end].is_whitespace() {
        end += 1;
    }
    if end < m.chars.len() && m.chars[end] == '.' {
        end += 1;
        while end < m.chars.len() && m.chars[end].is_whitespace() {
            end += 1;
        }
    }
    edits.push((statement.0, end, String::new()));
    edits.push(undeclare(&m, decl)?);
    m.edit(edits)
}

/// The edit that removes a temporary's declaration (and the bars when it was
/// the only one).
fn undeclare(m: &Method, decl: &Decl) -> Result<(usize, usize, String)> {
    let toks = tokenize(&m.chars).map_err(|_| ExtractError::Unsafe)?;
    let i = toks
        .iter()
        .position(|t| t.start == decl.offset)
        .ok_or(ExtractError::Unsafe)?;
    let bar = |k: usize| matches!(&toks[k].tk, Tk::Binary(b) if b == "|" || b == "||");
    let alone = i > 0 && bar(i - 1) && bar(i + 1);
    if alone {
        let (open, close) = (&toks[i - 1], &toks[i + 1]);
        if matches!(&open.tk, Tk::Binary(b) if b == "||") {
            // `[:x || t | ...]`: keep the bar that ends the arguments
            return Ok((open.start + 1, close.end, String::new()));
        }
        let mut end = close.end;
        while end < m.chars.len() && m.chars[end].is_whitespace() {
            end += 1;
        }
        return Ok((open.start, end, String::new()));
    }
    let t = &toks[i];
    let mut start = t.start;
    while start > 0 && m.chars[start - 1] == ' ' {
        start -= 1;
    }
    Ok((start, t.end, String::new()))
}

/// What [`extract_method`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The method's new source, calling the new one.
    pub caller: String,
    /// The new method's source.
    pub method: String,
    /// Its arguments: the variables of the method the selection reads.
    pub arguments: Vec<String>,
    /// The temporaries only the selection used, now the new method's.
    pub moved: Vec<String>,
}

/// Extracts the expression or the run of whole statements at `start`..`stop`
/// into a new method `selector` of the same class (sent to `self` in its
/// place). Its arguments are the method's variables the selection reads; a
/// temporary only the selection uses moves into the new method.
pub fn extract_method(
    source: &str,
    start: usize,
    stop: usize,
    selector: &str,
) -> Result<Extracted> {
    let m = Method::parse(source)?;
    let range = m.range(start, stop)?;
    let expression = m.is_expr(range);
    if !expression && !statements_run(&m, range) {
        return Err(ExtractError::Range(format!(
            "characters {}..{} are neither one whole expression nor whole statements of one \
sequence; select exactly an expression or statements",
            range.0 + 1,
            range.1
        )));
    }
    if m.scopes.returns.iter().any(|&r| inside(r, range)) {
        return Err(ExtractError::Refused(
            "the selection returns (^), which in a new method would return from that method \
instead"
                .into(),
        ));
    }
    if m.scopes
        .within(range)
        .any(|o| o.name == "thisContext" && o.decl.is_none())
    {
        return Err(ExtractError::Refused(
            "the selection uses thisContext, which is another context in a new method".into(),
        ));
    }
    let mut arguments = Vec::new();
    let mut moved = Vec::new();
    for d in m.scopes.outer_uses(range) {
        let decl = &m.scopes.decls[d];
        let assigned = m
            .scopes
            .within(range)
            .any(|o| o.decl == Some(d) && o.assigns);
        let used_outside = m
            .scopes
            .occurrences
            .iter()
            .any(|o| o.decl == Some(d) && !inside(o.offset, range));
        match (assigned, used_outside) {
            (_, false) if !decl.argument => moved.push(d),
            (false, _) => arguments.push(d),
            (true, _) => {
                return Err(ExtractError::Refused(format!(
                    "the selection assigns {}, which the method uses outside it too; a new \
method cannot change it",
                    decl.name
                )))
            }
        }
    }
    let names: Vec<String> = arguments
        .iter()
        .map(|&d| m.scopes.decls[d].name.clone())
        .collect();
    let parts: Vec<String> = if selector.ends_with(':') {
        selector.split_inclusive(':').map(str::to_string).collect()
    } else {
        vec![selector.to_string()]
    };
    let binary =
        !selector.ends_with(':') && !selector.starts_with(|c: char| c.is_alphabetic() || c == '_');
    let arity = if binary {
        1
    } else {
        selector.matches(':').count()
    };
    if arity != names.len() {
        return Err(ExtractError::Refused(format!(
            "the selection reads {} variable(s) of the method ({}), so the new selector must take \
{} argument(s); {selector} takes {arity}",
            names.len(),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            },
            names.len()
        )));
    }
    let message = |args: &[String]| -> String {
        if args.is_empty() {
            return selector.to_string();
        }
        parts
            .iter()
            .zip(args)
            .map(|(p, a)| format!("{p} {a}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut method = message(&names);
    if !moved.is_empty() {
        let temps: Vec<&str> = moved
            .iter()
            .map(|&d| m.scopes.decls[d].name.as_str())
            .collect();
        method.push_str(&format!("\n\t| {} |", temps.join(" ")));
    }
    let body = m.text(range);
    if expression {
        method.push_str(&format!("\n\t^ {body}"));
    } else {
        method.push('\n');
        method.push_str(&reindent(&body, m.column(range.0)));
    }
    let send = format!("self {}", message(&names));
    let whole_statement = m.layout.sequences.iter().flatten().any(|s| *s == range);
    let parens = m.parenthesized(range);
    let bracketed = parens.is_some();
    // a unary send binds tighter than anything around it
    let call = if expression && !whole_statement && !bracketed && arity > 0 {
        format!("({send})")
    } else {
        send
    };
    // parentheses the selection's own precedence needed are not the call's
    let replaced = match parens {
        Some(p) if arity == 0 => p,
        _ => range,
    };
    let mut edits = vec![(replaced.0, replaced.1, call)];
    for &d in &moved {
        edits.push(undeclare(&m, &m.scopes.decls[d])?);
    }
    let caller = m.edit(edits)?;
    let new_method = crate::syntax::parser::parse_method(&method)
        .map_err(|_| ExtractError::Unsafe)
        .map(|_| method)?;
    Ok(Extracted {
        caller,
        method: new_method,
        arguments: names,
        moved: moved
            .iter()
            .map(|&d| m.scopes.decls[d].name.clone())
            .collect(),
    })
}

/// Whether `range` is a run of whole statements of one sequence.
fn statements_run(m: &Method, range: (usize, usize)) -> bool {
    m.layout.sequences.iter().any(|seq| {
        let first = seq.iter().position(|s| s.0 == range.0);
        let last = seq.iter().position(|s| s.1 == range.1);
        matches!((first, last), (Some(f), Some(l)) if f <= l)
    })
}

impl Method {
    /// How far into its line `at` is, counting a tab as one column.
    fn column(&self, at: usize) -> usize {
        let line_start = self.chars[..at]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |p| p + 1);
        at - line_start
    }
}

/// `text` (statements whose first line began `column` characters into its
/// line) laid out one tab in: the indentation the first line had is taken
/// off every later line that has it.
fn reindent(text: &str, column: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = if i == 0 {
            line
        } else {
            let lead = line
                .chars()
                .take(column)
                .take_while(|c| *c == '\t' || *c == ' ')
                .count();
            &line[lead..]
        };
        if !trimmed.is_empty() {
            out.push('\t');
        }
        out.push_str(trimmed);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The 1-based inclusive range of the first `needle` in `source`.
    pub(crate) fn at(source: &str, needle: &str) -> (usize, usize) {
        let byte = source.find(needle).unwrap();
        let start = source[..byte].chars().count() + 1;
        (start, start + needle.chars().count() - 1)
    }

    #[test]
    fn temporaries_are_extracted() {
        // (source, selection, name, expected)
        let table = [
            (
                "area\n\t^ width * height * 2",
                "width * height",
                "size",
                "area\n\t| size |\n\tsize := width * height.\n\t^ size * 2",
            ),
            (
                "area\n\t| a |\n\ta := 1.\n\t^ a + (width max: 3)",
                "(width max: 3)",
                "w",
                "area\n\t| a w |\n\ta := 1.\n\tw := (width max: 3).\n\t^ a + w",
            ),
            (
                "sum: xs\n\t^ xs inject: 0 into: [:a :b | a + (b * 2)]",
                "b * 2",
                "twice",
                "sum: xs\n\t^ xs inject: 0 into: [:a :b | | twice | twice := b * 2. a + twice]",
            ),
            (
                "go\n\titems do: [:e | | t |\n\t\tt := e.\n\t\tself show: t size]",
                "t size",
                "n",
                "go\n\titems do: [:e | | t n |\n\t\tt := e.\n\t\tn := t size.\n\t\tself show: n]",
            ),
            (
                "go\n\t[self next] value",
                "self next",
                "x",
                "go\n\t[| x | x := self next. x] value",
            ),
        ];
        for (source, selection, name, expected) in table {
            let (s, e) = at(source, selection);
            let got = extract_temporary(source, s, e, name, &[])
                .unwrap_or_else(|err| panic!("{source:?}: {err}"));
            assert_eq!(got, expected, "{source:?}");
        }
    }

    #[test]
    fn extracting_a_temporary_is_refused_where_it_would_change_the_method() {
        let table = [
            (
                "area\n\t^ width * height * 2",
                "height * 2",
                "x",
                "not one whole expression",
            ),
            (
                "area\n\t^ width * height",
                "width * height",
                "width",
                "already names",
            ),
            ("area\n\t^ width * height", "width", "Size", "cannot name"),
            (
                "f\n\t^ (x := 3) + (x + 1)",
                "x + 1",
                "y",
                "assigns x before",
            ),
            ("f\n\t| x |\n\tx := 3", "x := 3", "y", "assignment"),
            ("f\n\t^ 1", "1", "y", ""),
        ];
        for (source, selection, name, words) in table {
            let (s, e) = at(source, selection);
            match extract_temporary(source, s, e, name, &["height"]) {
                Err(err) => assert!(err.to_string().contains(words), "{source:?}: {err}"),
                Ok(got) => assert!(words.is_empty(), "{source:?}: {got}"),
            }
        }
        assert!(matches!(
            extract_temporary("f ^ 1", 0, 3, "y", &[]),
            Err(ExtractError::Range(_))
        ));
    }

    #[test]
    fn temporaries_are_inlined() {
        let table = [
            (
                "area\n\t| size |\n\tsize := width * height.\n\t^ size * 2",
                "size",
                "area\n\t^ (width * height) * 2",
            ),
            (
                "area\n\t| a w |\n\ta := 1.\n\tw := width.\n\t^ a + w + w",
                "w",
                "area\n\t| a |\n\ta := 1.\n\t^ a + width + width",
            ),
            (
                "go\n\titems do: [:e || t | t := e size. self show: t]",
                "t",
                "go\n\titems do: [:e | self show: e size]",
            ),
        ];
        for (source, name, expected) in table {
            assert_eq!(
                inline_temporary(source, name).unwrap(),
                expected,
                "{source:?}"
            );
        }
    }

    #[test]
    fn inlining_is_refused_where_it_would_change_the_method() {
        let table = [
            ("f\n\t| t |\n\tt := self next.\n\t^ t + t", "t", "read 2"),
            (
                "f\n\t| t |\n\tt := self next.\n\t^ [t] value",
                "t",
                "inside a block",
            ),
            (
                "f\n\t| t |\n\tt := 1.\n\tt := 2.\n\t^ t",
                "t",
                "assigned 2 times",
            ),
            ("f: t\n\t^ t", "t", "argument"),
            ("f\n\t| t |\n\t^ t", "t", "assigned 0 times"),
            (
                "f\n\t| t |\n\tself x: (t := 1).\n\t^ t",
                "t",
                "statement of its own",
            ),
            (
                "f\n\t| t |\n\tt := a.\n\ta := 2.\n\t^ t",
                "t",
                "a is assigned between",
            ),
            ("f\n\t| t |\n\tt := 1", "t", "never read"),
            ("f\n\t^ 1", "t", "no temporary"),
        ];
        for (source, name, words) in table {
            let err = inline_temporary(source, name).unwrap_err();
            assert!(err.to_string().contains(words), "{source:?}: {err}");
        }
    }

    /// source, selection, selector, caller, new method, arguments
    type ExtractCase = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
    );

    #[test]
    fn methods_are_extracted() {
        let table: [ExtractCase; 4] = [
            (
                "total\n\t^ (items inject: 0 into: [:a :b | a + b]) * rate",
                "items inject: 0 into: [:a :b | a + b]",
                "sum",
                "total\n\t^ self sum * rate",
                "sum\n\t^ items inject: 0 into: [:a :b | a + b]",
                &[],
            ),
            (
                "report: stream\n\t| n |\n\tn := self count.\n\tstream nextPutAll: 'n='.\n\tstream print: n.\n\t^ stream",
                "stream nextPutAll: 'n='.\n\tstream print: n.",
                "write:count:",
                "report: stream\n\t| n |\n\tn := self count.\n\tself write: stream count: n.\n\t^ stream",
                "write: stream count: n\n\tstream nextPutAll: 'n='.\n\tstream print: n",
                &["stream", "n"],
            ),
            (
                "go\n\t| t |\n\tt := 3.\n\tself show: t.\n\t^ self",
                "t := 3.\n\tself show: t.",
                "showThree",
                "go\n\tself showThree.\n\t^ self",
                "showThree\n\t| t |\n\tt := 3.\n\tself show: t",
                &[],
            ),
            (
                "double: x\n\t^ self log: x + x",
                "x + x",
                "twice:",
                "double: x\n\t^ self log: (self twice: x)",
                "twice: x\n\t^ x + x",
                &["x"],
            ),
        ];
        for (source, selection, selector, caller, method, args) in table {
            let (s, e) = at(source, selection);
            let got = extract_method(source, s, e, selector).unwrap();
            assert_eq!(got.caller, caller, "{source:?}");
            assert_eq!(got.method, method, "{source:?}");
            assert_eq!(got.arguments, args, "{source:?}");
        }
    }

    #[test]
    fn extracting_a_method_is_refused_where_it_would_change_the_method() {
        let table = [
            ("f\n\t^ a + b", "^ a + b", "g", "returns"),
            ("f\n\t^ a + b * c", "b * c", "g", "neither"),
            ("f: x\n\t^ x + 1", "x + 1", "g", "must take 1"),
            ("f\n\t| t |\n\tt := 1.\n\t^ t", "t := 1.", "g", "assigns t"),
            (
                "f\n\t^ thisContext sender",
                "thisContext sender",
                "g",
                "thisContext",
            ),
        ];
        for (source, selection, selector, words) in table {
            let (s, e) = at(source, selection);
            let err = extract_method(source, s, e, selector).unwrap_err();
            assert!(err.to_string().contains(words), "{source:?}: {err}");
        }
    }
}
