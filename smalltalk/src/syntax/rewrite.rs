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

use crate::syntax::ast::{BlockAst, Expr, MethodAst, Msg, Stmt};
use crate::syntax::parser::{parse_method, parse_method_layout, tokenize, SyntaxError, Tk, Token};

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
    /// A unary send that becomes a keyword one is a cascade part that more
    /// messages follow, which a keyword message cannot take.
    #[error("a cascade sends {0} followed by more messages; split the cascade first")]
    Cascade(String),
    /// A new argument's name is one the implementor already uses or declares.
    #[error("it already uses or declares {0}, the name of a new argument")]
    NameTaken(String),
    /// A signature change would drop an argument the implementor uses.
    #[error("it uses the argument {0}, which the new signature drops")]
    DroppedArgumentUsed(String),
    /// A signature change would drop, or reorder, an argument expression
    /// that sends messages at a send site (its effects would be lost or run
    /// in another order).
    #[error("a send passes {0}, which sends messages and would be dropped or evaluated in another order")]
    Effects(String),
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

/// A change of a method's signature: the selector, and which old argument
/// each new one takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The selector now (unary or keyword).
    pub old: String,
    /// The new selector (unary or keyword).
    pub new: String,
    /// For each argument of `new`, the old argument (0-based) it takes, or
    /// none for a new argument.
    pub permutation: Vec<Option<usize>>,
    /// For each new argument, in order: the expression senders pass.
    pub defaults: Vec<String>,
    /// For each new argument, in order: its name in the implementors.
    pub names: Vec<String>,
}

/// Changes `sig.old` to `sig.new` in `source` (a method): at every send the
/// keyword parts and the arguments as the permutation says (a new argument
/// gets its default), and in the pattern too when `pattern` is true and the
/// method is named `sig.old`.
pub fn change_signature(
    source: &str,
    sig: &Signature,
    pattern: bool,
) -> Result<Renamed, RewriteError> {
    let shape = |s: &str| kind(s).0;
    if shape(&sig.old) == 1 || shape(&sig.new) == 1 {
        return Err(RewriteError::Shape {
            old: sig.old.clone(),
            new: sig.new.clone(),
        });
    }
    let method = parse_method(source).map_err(RewriteError::Syntax)?;
    let chars: Vec<char> = source.chars().collect();
    let toks = tokenize(&chars).map_err(RewriteError::Syntax)?;
    let old_parts = parts(&sig.old);
    let new_parts = if sig.new.ends_with(':') {
        parts(&sig.new)
    } else {
        vec![]
    };
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let renames_pattern = pattern && method.selector == sig.old;
    if renames_pattern {
        for (j, p) in sig.permutation.iter().enumerate() {
            if p.is_none() && sig.names.get(new_index(&sig.permutation, j)).is_none() {
                return Err(RewriteError::Unsafe);
            }
        }
        // arguments the new signature drops must be unused
        for (i, (name, _)) in method.args.iter().enumerate() {
            if !sig.permutation.contains(&Some(i)) && uses_argument(&method, name) {
                return Err(RewriteError::DroppedArgumentUsed(name.clone()));
            }
        }
        for name in &sig.names {
            let declared = method
                .args
                .iter()
                .chain(&method.temps)
                .any(|(n, _)| n == name);
            if declared || !uses_in(&method, name, "").offsets.is_empty() {
                return Err(RewriteError::NameTaken(name.clone()));
            }
        }
        let first = toks.first().map_or(0, |t| t.start);
        let last = toks
            .iter()
            .rfind(|t| t.start < method.body_offset && t.tk != Tk::Eof)
            .map_or(0, |t| t.end);
        let text = if new_parts.is_empty() {
            sig.new.clone()
        } else {
            new_parts
                .iter()
                .enumerate()
                .map(|(j, part)| {
                    let name = match sig.permutation[j] {
                        Some(i) => method.args[i].0.clone(),
                        None => sig.names[new_index(&sig.permutation, j)].clone(),
                    };
                    format!("{part} {name}")
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        edits.push((first, last, text));
    }
    let mut text = apply_edits(&chars, edits)?;
    let mut sends = 0;
    // one send at a time, innermost first, parsing again after each: an
    // outer send's arguments then carry its inner sends already changed
    loop {
        let (method, layout) = parse_method_layout(&text).map_err(|_| RewriteError::Unsafe)?;
        let chars: Vec<char> = text.chars().collect();
        let toks = tokenize(&chars).map_err(|_| RewriteError::Unsafe)?;
        let mut sites = Vec::new();
        stmts(&method.body, &sig.old, &mut sites);
        if sites.is_empty() {
            break;
        }
        sends += 1;
        if sends > MAX_SITES {
            return Err(RewriteError::Unsafe);
        }
        let mut chosen = None;
        for offset in &sites {
            let edits = site_edits(&chars, &toks, &layout, *offset, sig, &old_parts, &new_parts)?;
            let (lo, hi) = edits
                .iter()
                .fold((usize::MAX, 0), |(lo, hi), e| (lo.min(e.0), hi.max(e.1)));
            if !sites.iter().any(|o| o != offset && (lo..hi).contains(o)) {
                chosen = Some(edits);
                break;
            }
        }
        text = apply_edits(&chars, chosen.ok_or(RewriteError::Unsafe)?)?;
    }
    let out = text;
    let again = parse_method(&out).map_err(|_| RewriteError::Unsafe)?;
    let expected = if renames_pattern {
        &sig.new
    } else {
        &method.selector
    };
    if again.selector != *expected {
        return Err(RewriteError::Unsafe);
    }
    Ok(Renamed {
        source: out,
        sends,
        pattern: renames_pattern,
    })
}

/// The most sends of one selector a method may hold for a signature change.
const MAX_SITES: usize = 10_000;

/// `chars` with `edits` (start, end, text) made; they must not overlap.
fn apply_edits(
    chars: &[char],
    mut edits: Vec<(usize, usize, String)>,
) -> Result<String, RewriteError> {
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(chars.len() + 16);
    let mut at = 0;
    for (start, end, text) in &edits {
        if *start < at {
            return Err(RewriteError::Unsafe);
        }
        out.extend(&chars[at..*start]);
        out.push_str(text);
        at = *end;
    }
    out.extend(&chars[at..]);
    Ok(out)
}

/// The edits that change the send of `sig.old` whose selector begins at
/// `offset`.
fn site_edits(
    chars: &[char],
    toks: &[Token],
    layout: &crate::syntax::parser::Layout,
    offset: usize,
    sig: &Signature,
    old_parts: &[String],
    new_parts: &[String],
) -> Result<Vec<(usize, usize, String)>, RewriteError> {
    let old_keyword = sig.old.ends_with(':');
    let mut edits = Vec::new();
    let Some(first) = toks.iter().position(|t| t.start == offset) else {
        return Err(RewriteError::Unsafe);
    };
    let kws = site_parts(toks, first, old_parts.len());
    if kws.len() != old_parts.len() {
        return Err(RewriteError::Unsafe);
    }
    // each old argument's text: from after its keyword to the next
    // keyword, or to the end of the message
    let mut args: Vec<(usize, usize)> = Vec::new();
    if old_keyword {
        let ends = message_end(toks, first, &kws);
        for (k, kw) in kws.iter().enumerate() {
            let end = kws.get(k + 1).map_or(ends, |next| {
                toks.iter()
                    .rev()
                    .find(|t| t.end <= next.start)
                    .map_or(next.start, |t| t.end)
            });
            let start = toks
                .iter()
                .find(|t| t.start >= kw.end)
                .map_or(kw.end, |t| t.start);
            args.push((start, end.max(start)));
        }
    }
    let text_of = |r: (usize, usize)| chars[r.0..r.1].iter().collect::<String>();
    // dropping or reordering an argument that sends messages loses or
    // reorders its effects
    let kept: Vec<usize> = sig.permutation.iter().flatten().copied().collect();
    for (i, r) in args.iter().enumerate() {
        if !kept.contains(&i) && !simple(toks, *r) {
            return Err(RewriteError::Effects(text_of(*r)));
        }
    }
    let reordered = kept.windows(2).any(|w| w[0] > w[1]);
    if reordered && kept.iter().filter(|&&i| !simple(toks, args[i])).count() > 1 {
        let shown: Vec<String> = kept.iter().map(|&i| text_of(args[i])).collect();
        return Err(RewriteError::Effects(shown.join(", ")));
    }
    let message = if new_parts.is_empty() {
        sig.new.clone()
    } else {
        new_parts
            .iter()
            .enumerate()
            .map(|(j, part)| {
                let arg = match sig.permutation[j] {
                    Some(i) => text_of(args[i]),
                    None => sig.defaults[new_index(&sig.permutation, j)].clone(),
                };
                format!("{part} {arg}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (start, end) = if old_keyword {
        (kws[0].start, args.last().map_or(kws[0].end, |a| a.1))
    } else {
        (kws[0].start, kws[0].end)
    };
    let in_cascade = first > 0 && toks[first - 1].tk == Tk::Semi;
    let ends_there = matches!(
        toks.get(first + 1).map(|t| &t.tk),
        None | Some(Tk::Period | Tk::Semi | Tk::RParen | Tk::RBrack | Tk::RBrace | Tk::Eof)
    );
    if !old_keyword && !new_parts.is_empty() && in_cascade && !ends_there {
        return Err(RewriteError::Cascade(sig.old.clone()));
    }
    if !old_keyword && !new_parts.is_empty() && !in_cascade && !stands_alone(toks, layout, first) {
        // a unary send becoming a keyword one: parenthesize it with its receiver
        let recv = layout
            .exprs
            .iter()
            .filter(|(s, e)| *e == end && *s < start)
            .map(|(s, _)| *s)
            .max()
            .ok_or(RewriteError::Unsafe)?;
        edits.push((recv, recv, "(".into()));
        edits.push((start, end, format!("{message})")));
    } else {
        edits.push((start, end, message));
    }
    Ok(edits)
}

/// Which new argument (counting only new ones) position `j` is.
fn new_index(permutation: &[Option<usize>], j: usize) -> usize {
    permutation[..j].iter().filter(|p| p.is_none()).count()
}

/// Whether the method's body uses its argument `name`.
fn uses_argument(method: &MethodAst, name: &str) -> bool {
    let mut uses = FreeUses::default();
    let mut walker = Uses {
        name,
        also: "",
        uses: &mut uses,
    };
    walker.stmts(&method.body, &mut Vec::new());
    !uses.offsets.is_empty()
}

/// Where a keyword message whose parts are `kws` ends: the end of the last
/// token before the first period, cascade, closing bracket or end at its
/// depth after its last part.
pub(crate) fn message_end(toks: &[Token], first: usize, kws: &[&Token]) -> usize {
    let last_kw = kws.last().map_or(first, |k| {
        toks.iter()
            .position(|t| t.start == k.start)
            .unwrap_or(first)
    });
    let mut depth = 0usize;
    let mut end = kws.last().map_or(0, |k| k.end);
    for t in &toks[last_kw + 1..] {
        match t.tk {
            Tk::LParen | Tk::LBrack | Tk::LBrace | Tk::HashParen | Tk::HashBracket => depth += 1,
            Tk::RParen | Tk::RBrack | Tk::RBrace if depth == 0 => break,
            Tk::RParen | Tk::RBrack | Tk::RBrace => depth -= 1,
            Tk::Period | Tk::Semi | Tk::Eof if depth == 0 => break,
            _ => {}
        }
        end = t.end;
    }
    end
}

/// Whether the tokens of `range` are one variable, one literal or a block:
/// evaluating them has no effect.
fn simple(toks: &[Token], range: (usize, usize)) -> bool {
    let inside: Vec<&Token> = toks
        .iter()
        .filter(|t| t.start >= range.0 && t.end <= range.1 && t.tk != Tk::Eof)
        .collect();
    match inside.as_slice() {
        [one] => matches!(one.tk, Tk::Ident(_) | Tk::Lit(_)),
        [minus, Token { tk: Tk::Lit(_), .. }] => matches!(&minus.tk, Tk::Binary(b) if b == "-"),
        [open, .., close] => {
            matches!(
                (&open.tk, &close.tk),
                (Tk::LBrack, Tk::RBrack)
                    | (Tk::HashParen, Tk::RParen)
                    | (Tk::HashBracket, Tk::RBrack)
            ) && {
                // the brackets enclose the whole range
                let mut depth = 0i32;
                inside.iter().enumerate().all(|(i, t)| {
                    match t.tk {
                        Tk::LBrack | Tk::LParen | Tk::LBrace | Tk::HashParen | Tk::HashBracket => {
                            depth += 1
                        }
                        Tk::RBrack | Tk::RParen | Tk::RBrace => depth -= 1,
                        _ => {}
                    }
                    depth > 0 || i + 1 == inside.len()
                })
            }
        }
        _ => false,
    }
}

/// Whether the unary send whose selector is `toks[at]` stands where a
/// keyword message may replace it without parentheses: its receiver begins
/// a statement, a return, an assignment's value or a parenthesis, and the
/// statement or parenthesis ends right after it.
fn stands_alone(toks: &[Token], layout: &crate::syntax::parser::Layout, at: usize) -> bool {
    let end = toks[at].end;
    let Some(recv) = layout
        .exprs
        .iter()
        .filter(|(s, e)| *e == end && *s < toks[at].start)
        .map(|(s, _)| *s)
        .max()
    else {
        return false;
    };
    let before = toks.iter().rev().find(|t| t.end <= recv).map(|t| &t.tk);
    let after = toks.get(at + 1).map(|t| &t.tk);
    let starts_statement = layout.sequences.iter().flatten().any(|s| s.0 == recv);
    (starts_statement
        || matches!(
            before,
            Some(Tk::Caret | Tk::Assign | Tk::LParen | Tk::LBrace)
        ))
        && matches!(
            after,
            None | Some(Tk::Period | Tk::Semi | Tk::RParen | Tk::RBrack | Tk::RBrace | Tk::Eof)
        )
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
    Ok(uses_in(&method, name, also))
}

/// [`free_uses`] over a method already parsed.
fn uses_in(method: &MethodAst, name: &str, also: &str) -> FreeUses {
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
    uses
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
    let before = parse_method(source).map_err(RewriteError::Syntax)?;
    let uses = uses_in(&before, old, new);
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
pub(crate) fn site_parts(toks: &[Token], first: usize, count: usize) -> Vec<&Token> {
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

    fn sig(
        old: &str,
        new: &str,
        permutation: &[Option<usize>],
        defaults: &[&str],
        names: &[&str],
    ) -> Signature {
        Signature {
            old: old.into(),
            new: new.into(),
            permutation: permutation.to_vec(),
            defaults: defaults.iter().map(|s| s.to_string()).collect(),
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn signatures_table() {
        let table = [
            (
                "at: i put: v\n\t^ self at: i put: (v at: 1 put: 2)",
                sig("at:put:", "put:at:", &[Some(1), Some(0)], &[], &[]),
                "put: v at: i\n\t^ self put: (v put: 2 at: 1) at: i",
            ),
            (
                "show: x\n\tself show: x + 1. ^ x",
                sig(
                    "show:",
                    "show:on:",
                    &[Some(0), None],
                    &["Transcript"],
                    &["aStream"],
                ),
                "show: x on: aStream\n\tself show: x + 1 on: Transcript. ^ x",
            ),
            (
                "total\n\t^ self total + (self total)",
                sig("total", "totalWith:", &[None], &["0"], &["discount"]),
                "totalWith: discount\n\t^ (self totalWith: 0) + (self totalWith: 0)",
            ),
            (
                "go\n\tself total. x := self total. ^ self total",
                sig("total", "totalWith:", &[None], &["0"], &["d"]),
                "go\n\tself totalWith: 0. x := self totalWith: 0. ^ self totalWith: 0",
            ),
            (
                "f\n\t^ self new foo; total",
                sig("total", "totalWith:", &[None], &["0"], &["d"]),
                "f\n\t^ self new foo; totalWith: 0",
            ),
            (
                "f\n\tx total; foo. x + y total; foo",
                sig("total", "totalWith:", &[None], &["0"], &["d"]),
                "f\n\tx totalWith: 0; foo. x + (y totalWith: 0); foo",
            ),
            (
                "add: a to: b\n\t^ self add: 1 to: [:k | k]",
                sig("add:to:", "add:", &[Some(0)], &[], &[]),
                "add: a\n\t^ self add: 1",
            ),
        ];
        for (source, s, expected) in table {
            let got =
                change_signature(source, &s, true).unwrap_or_else(|e| panic!("{source:?}: {e}"));
            assert_eq!(got.source, expected, "{source:?}");
        }
        let refusals = [
            (
                "add: a to: b\n\t^ a + b",
                sig("add:to:", "add:", &[Some(0)], &[], &[]),
                "uses the argument b",
            ),
            (
                "f\n\t^ self add: 1 to: self next",
                sig("add:to:", "add:", &[Some(0)], &[], &[]),
                "self next",
            ),
            (
                "f\n\t^ self add: self a to: self b",
                sig("add:to:", "to:add:", &[Some(1), Some(0)], &[], &[]),
                "self b, self a",
            ),
            (
                "f: x\n\t^ x + y",
                sig("f:", "f:g:", &[Some(0), None], &["1"], &["y"]),
                "declares y",
            ),
            (
                "+ x\n\t^ x",
                sig("+", "plus:", &[Some(0)], &[], &[]),
                "same kind",
            ),
            (
                "f\n\t^ self new foo; total / 0",
                sig("total", "totalWith:", &[None], &["0"], &["d"]),
                "split the cascade",
            ),
        ];
        for (source, s, words) in refusals {
            let err = change_signature(source, &s, true).unwrap_err();
            assert!(err.to_string().contains(words), "{source:?}: {err}");
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
