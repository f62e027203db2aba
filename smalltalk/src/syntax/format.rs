//! The method formatter: lays a method's source out in one consistent,
//! GemStone-style way without changing a single token.
//!
//! The layout: the selector pattern on the first line; below it, one tab in,
//! the pragmas, the temporaries and each statement on a line of its own
//! (`^ x`, `a := b`, one space between tokens, none inside brackets or before
//! `.` and `;`); a block written over several lines keeps its arguments on its
//! opening line and its statements one tab deeper than the line it opens on,
//! its `]` after the last one; a block written on one line stays on one line.
//! Inside a statement the author's line breaks are kept (continuation lines one
//! tab deeper than the statement), and one blank line where the author left
//! one or more; and a comma written against its left operand (`'a', b`)
//! stays there. Comments stay where they were among the tokens (on a line of
//! their own, or after the code of their line); literals, literal arrays
//! included, are copied as written (`16r1F`, `#(a b)`, `1.5s2` keep their
//! forms).
//!
//! Formatting is safe by construction: the result is parsed again and must
//! give the same syntax tree (offsets aside) and the same comments, or
//! [`format_method`] answers [`FormatError::Unsafe`] and the caller keeps the
//! source as it was. Formatting a formatted method changes nothing.

use crate::syntax::ast::{BlockAst, Expr, MethodAst, Msg, Stmt};
use crate::syntax::parser::{parse_method, tokenize, SyntaxError, Tk, Token};
use std::fmt::Write;

/// Why a method could not be formatted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormatError {
    /// The source does not parse as a method.
    #[error("the method does not parse: {} (offset {})", .0.message, .0.offset)]
    Syntax(SyntaxError),
    /// The layout would not keep the method's syntax tree or comments as they
    /// were (a defect of the formatter); the source must be kept as it is.
    #[error("the formatted text would not keep the method as it was; it is left unformatted")]
    Unsafe,
}

/// `source`, a method, laid out as the module describes.
pub fn format_method(source: &str) -> Result<String, FormatError> {
    let before = parse_method(source).map_err(FormatError::Syntax)?;
    let chars: Vec<char> = source.chars().collect();
    let toks = tokenize(&chars).map_err(FormatError::Syntax)?;
    let body = toks
        .iter()
        .position(|t| t.start >= before.body_offset || t.tk == Tk::Eof)
        .unwrap_or(toks.len() - 1);
    let text = Layout::new(&chars, &toks).run(body);
    let after = parse_method(&text).map_err(|_| FormatError::Unsafe)?;
    let after_chars: Vec<char> = text.chars().collect();
    let after_toks = tokenize(&after_chars).map_err(|_| FormatError::Unsafe)?;
    if shape(&before) != shape(&after)
        || comments(&chars, &toks) != comments(&after_chars, &after_toks)
    {
        return Err(FormatError::Unsafe);
    }
    Ok(text)
}

/// The comments of a tokenized source, in order.
fn comments(src: &[char], toks: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    for t in toks {
        out.extend(gap(src, from, t.start).comments.into_iter().map(|c| c.text));
        from = t.end;
    }
    out
}

/// One comment between two tokens.
struct Comment {
    text: String,
    /// A line break comes before it (since the previous token or comment).
    own_line: bool,
    /// An empty line comes before it.
    blank: bool,
}

/// What lies between two tokens: comments and white space.
struct Gap {
    comments: Vec<Comment>,
    /// The white space right before the token holds a line break…
    newline: bool,
    /// …or an empty line.
    blank: bool,
}

/// The gap `src[from..to]` (white space and comments only, as the lexer left it).
fn gap(src: &[char], from: usize, to: usize) -> Gap {
    let mut comments = Vec::new();
    let mut breaks = 0;
    let mut i = from;
    while i < to {
        match src[i] {
            '"' => {
                let end = (i + 1..to).find(|&j| src[j] == '"').unwrap_or(to - 1);
                comments.push(Comment {
                    text: src[i..=end].iter().collect(),
                    own_line: breaks > 0,
                    blank: breaks > 1,
                });
                breaks = 0;
                i = end + 1;
            }
            '\n' => {
                breaks += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    Gap {
        comments,
        newline: breaks > 0,
        blank: breaks > 1,
    }
}

/// How a token is placed after what was written before it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Place {
    /// Right after it.
    Attach,
    /// After one space.
    Space,
    /// At the start of a new line this many tabs in.
    Break(usize),
}

/// Where in a sequence of statements the layout is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Frame {
    /// The method body: statements one per line, one tab in.
    Method,
    /// A block; `multi` when written over several lines, `indent` the tabs of
    /// its statements then.
    Block { multi: bool, indent: usize },
    /// Parentheses.
    Paren,
    /// A brace array: elements stay on one line.
    Brace,
}

/// What the tokens being read are, inside the innermost frame.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Normal,
    /// A block's arguments (`[:a :b |`).
    Header,
    /// Temporaries (`| a b |`).
    Temps,
    /// A pragma (`<primitive: 60>`).
    Pragma,
}

struct Layout<'a> {
    src: &'a [char],
    toks: &'a [Token],
    out: String,
    /// Tabs at the start of the line being written.
    line_indent: usize,
    at_line_start: bool,
    frames: Vec<Frame>,
    /// The next token starts a statement of the innermost frame.
    at_start: bool,
    mode: Mode,
}

impl<'a> Layout<'a> {
    fn new(src: &'a [char], toks: &'a [Token]) -> Layout<'a> {
        Layout {
            src,
            toks,
            out: String::with_capacity(src.len() + src.len() / 8),
            line_indent: 0,
            at_line_start: true,
            frames: vec![Frame::Method],
            at_start: true,
            mode: Mode::Normal,
        }
    }

    /// Lays the tokens out: the pattern (before token `body`) on one line,
    /// then the body.
    fn run(mut self, body: usize) -> String {
        let mut i = 0;
        while i < self.toks.len() {
            let t = &self.toks[i];
            let place = if i < body {
                if i == 0 {
                    Place::Attach
                } else {
                    Place::Space
                }
            } else {
                self.place(i)
            };
            let end = self.atom_end(i);
            self.emit(i, place, end);
            if i >= body {
                self.after(i);
            }
            if t.tk == Tk::Eof {
                break;
            }
            i = end + 1;
        }
        self.out
    }

    /// The last token of the atom starting at `i`: a literal array or byte
    /// array runs to its closing bracket (copied as written), anything else is
    /// one token.
    fn atom_end(&self, i: usize) -> usize {
        if !matches!(self.toks[i].tk, Tk::HashParen | Tk::HashBracket) {
            return i;
        }
        let mut depth = 0usize;
        for (j, t) in self.toks.iter().enumerate().skip(i) {
            match t.tk {
                Tk::HashParen | Tk::HashBracket | Tk::LParen | Tk::LBrack => depth += 1,
                Tk::RParen | Tk::RBrack => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                Tk::Eof => return j.saturating_sub(1).max(i),
                _ => {}
            }
        }
        i
    }

    fn top(&self) -> Frame {
        *self.frames.last().unwrap_or(&Frame::Method)
    }

    /// The tabs of the innermost statement: the method's, or a multi-line block's.
    fn statement_indent(&self) -> usize {
        self.frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Method => Some(1),
                Frame::Block {
                    multi: true,
                    indent,
                } => Some(*indent),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// Whether the token ends an operand (so a `-` after it is a binary operator).
    fn ends_operand(tk: &Tk) -> bool {
        matches!(
            tk,
            Tk::Ident(_) | Tk::Lit(_) | Tk::RParen | Tk::RBrack | Tk::RBrace
        )
    }

    fn place(&self, i: usize) -> Place {
        let t = &self.toks[i];
        let prev = &self.toks[i - 1];
        if matches!(
            t.tk,
            Tk::Eof | Tk::RParen | Tk::RBrack | Tk::RBrace | Tk::Period | Tk::Semi
        ) {
            return Place::Attach;
        }
        match self.mode {
            Mode::Header => {
                return match (&prev.tk, &t.tk) {
                    (Tk::LBrack, _) | (Tk::Colon, _) => Place::Attach,
                    _ => Place::Space,
                }
            }
            Mode::Temps => return Place::Space,
            Mode::Pragma => {
                return match (&prev.tk, &t.tk) {
                    (Tk::Binary(b), _) if b == "<" => Place::Attach,
                    (_, Tk::Binary(b)) if b == ">" => Place::Attach,
                    _ => Place::Space,
                }
            }
            Mode::Normal => {}
        }
        let newline = gap(self.src, prev.end, t.start).newline;
        let opens_temps = matches!(&t.tk, Tk::Binary(b) if b == "|" || b == "||");
        if self.at_start && opens_temps && matches!(self.top(), Frame::Block { .. }) {
            // a block's temporaries stay on its opening line
            return match prev.tk {
                Tk::LBrack => Place::Attach,
                _ => Place::Space,
            };
        }
        if self.at_start {
            return match self.top() {
                Frame::Method => Place::Break(1),
                Frame::Block {
                    multi: true,
                    indent,
                } => Place::Break(indent),
                Frame::Block { multi: false, .. } | Frame::Brace | Frame::Paren => match prev.tk {
                    Tk::LBrack | Tk::LBrace | Tk::LParen => Place::Attach,
                    _ => Place::Space,
                },
            };
        }
        if newline {
            return Place::Break(self.statement_indent() + 1);
        }
        match (&prev.tk, &t.tk) {
            (Tk::LParen | Tk::LBrack | Tk::LBrace | Tk::Colon, _) => Place::Attach,
            // `a, b` or `a , b`: the author's choice
            (_, Tk::Binary(comma)) if comma == "," && prev.end == t.start => Place::Attach,
            (Tk::Binary(minus), Tk::Lit(_))
                if minus == "-"
                    && prev.end == t.start
                    && !self.toks[..i - 1]
                        .last()
                        .is_some_and(|b| Self::ends_operand(&b.tk)) =>
            {
                Place::Attach
            }
            _ => Place::Space,
        }
    }

    /// Writes the comments before token `i`, then the tokens `i..=end` as
    /// written, placed by `place`.
    fn emit(&mut self, i: usize, place: Place, end: usize) {
        let from = if i == 0 { 0 } else { self.toks[i - 1].end };
        let g = gap(self.src, from, self.toks[i].start);
        let comment_indent = match place {
            Place::Break(n) => n,
            Place::Attach => self.statement_indent(),
            Place::Space => self.statement_indent() + 1,
        };
        for c in &g.comments {
            if c.own_line && !self.out.is_empty() {
                self.newline(comment_indent, c.blank);
            } else if !self.at_line_start {
                self.out.push(' ');
            }
            self.out.push_str(&c.text);
            self.at_line_start = false;
        }
        match place {
            Place::Break(n) => self.newline(n, g.blank),
            Place::Space if !self.at_line_start => self.out.push(' '),
            // a comment before the pattern keeps a space from it
            Place::Attach if i == 0 && !g.comments.is_empty() => self.out.push(' '),
            _ => {}
        }
        let text: String = self.src[self.toks[i].start..self.toks[end].end]
            .iter()
            .collect();
        if !text.is_empty() {
            self.out.push_str(&text);
            self.at_line_start = false;
        }
    }

    fn newline(&mut self, indent: usize, blank: bool) {
        while self.out.ends_with([' ', '\t']) {
            self.out.pop();
        }
        self.out.push('\n');
        if blank {
            self.out.push('\n');
        }
        for _ in 0..indent {
            self.out.push('\t');
        }
        self.line_indent = indent;
        self.at_line_start = true;
    }

    /// Whether the block opened at token `i` is laid out a statement per line:
    /// when its source breaks the line before its first statement (after its
    /// arguments and temporaries) or after one of its statements. A block
    /// whose line breaks all fall inside statements stays a one-line block
    /// with continuation lines.
    fn multi_line_block(&self, i: usize) -> bool {
        let toks = self.toks;
        let last = toks.len() - 1;
        let is = |j: usize, bar: &str| matches!(&toks[j].tk, Tk::Binary(b) if b == bar);
        let skip_temps = |mut j: usize| {
            while j < last && !is(j, "|") && toks[j].tk != Tk::RBrack {
                j += 1;
            }
            (j + 1).min(last)
        };
        let mut j = (i + 1).min(last);
        if toks[j].tk == Tk::Colon {
            while j < last && matches!(toks[j].tk, Tk::Colon | Tk::Ident(_)) {
                j += 1;
            }
            if is(j, "|") {
                j += 1;
            } else if is(j, "||") {
                j = skip_temps(j + 1);
            }
        }
        if is(j, "||") {
            j += 1;
        } else if is(j, "|") {
            j = skip_temps(j + 1);
        }
        let breaks = |k: usize| {
            k > 0 && k <= last && self.src[toks[k - 1].end..toks[k].start].contains(&'\n')
        };
        if breaks(j) {
            return true;
        }
        let mut depth = 0usize;
        for (k, t) in toks.iter().enumerate().skip(j) {
            match t.tk {
                Tk::LBrack | Tk::LParen | Tk::LBrace | Tk::HashParen | Tk::HashBracket => {
                    depth += 1
                }
                Tk::RBrack | Tk::RParen | Tk::RBrace => {
                    if depth == 0 {
                        return false;
                    }
                    depth -= 1;
                }
                Tk::Period if depth == 0 && breaks(k + 1) => return true,
                Tk::Eof => return false,
                _ => {}
            }
        }
        false
    }

    /// Moves the state past token `i`.
    fn after(&mut self, i: usize) {
        let tk = &self.toks[i].tk;
        match (self.mode, tk) {
            (Mode::Header, Tk::Binary(b)) if b == "|" => {
                self.mode = Mode::Normal;
                self.at_start = true;
                return;
            }
            (Mode::Header, Tk::Binary(b)) if b == "||" => {
                self.mode = Mode::Temps;
                return;
            }
            (Mode::Temps, Tk::Binary(b)) if b == "|" => {
                self.mode = Mode::Normal;
                self.at_start = true;
                return;
            }
            (Mode::Pragma, Tk::Binary(b)) if b == ">" => {
                self.mode = Mode::Normal;
                self.at_start = true;
                return;
            }
            (Mode::Header | Mode::Temps | Mode::Pragma, Tk::RBrack) => {}
            (Mode::Header | Mode::Temps | Mode::Pragma, _) => return,
            _ => {}
        }
        let starting = self.at_start;
        self.at_start = false;
        match tk {
            Tk::LBrack => {
                let multi = self.multi_line_block(i);
                self.frames.push(Frame::Block {
                    multi,
                    indent: self.line_indent + 1,
                });
                self.at_start = true;
                if self.toks.get(i + 1).is_some_and(|t| t.tk == Tk::Colon) {
                    self.mode = Mode::Header;
                }
            }
            Tk::LParen => {
                self.frames.push(Frame::Paren);
                self.at_start = true;
            }
            Tk::LBrace => {
                self.frames.push(Frame::Brace);
                self.at_start = true;
            }
            Tk::RBrack | Tk::RParen | Tk::RBrace => {
                self.mode = Mode::Normal;
                if self.frames.len() > 1 {
                    self.frames.pop();
                }
            }
            Tk::Period => {
                self.at_start = !matches!(self.top(), Frame::Paren);
            }
            Tk::Binary(b) if starting && b == "|" => self.mode = Mode::Temps,
            Tk::Binary(b) if starting && b == "||" => self.at_start = true,
            Tk::Binary(b) if starting && b == "<" && self.top() == Frame::Method => {
                self.mode = Mode::Pragma
            }
            _ => {}
        }
    }
}

/// A method's syntax tree as text, offsets left out: equal trees, equal shapes.
fn shape(m: &MethodAst) -> String {
    let names = |v: &[(String, usize)]| {
        v.iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = format!(
        "{} ({}) |{}| <{:?}>",
        m.selector,
        names(&m.args),
        names(&m.temps),
        m.primitive.map(|p| p.0)
    );
    stmts(&mut s, &m.body);
    s
}

fn stmts(s: &mut String, body: &[Stmt]) {
    for st in body {
        match st {
            Stmt::Expr(e) => expr(s, e),
            Stmt::Return(e, _) => {
                s.push('^');
                expr(s, e);
            }
        }
        s.push('.');
    }
}

fn msg(s: &mut String, m: &Msg) {
    let _ = write!(s, " {}", m.selector);
    for a in &m.args {
        s.push(' ');
        expr(s, a);
    }
}

fn block(s: &mut String, b: &BlockAst) {
    let names = |v: &[(String, usize)]| {
        v.iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = write!(s, "[{}|{}|", names(&b.args), names(&b.temps));
    stmts(s, &b.body);
    s.push(']');
}

fn expr(s: &mut String, e: &Expr) {
    match e {
        Expr::Lit(l, _) => {
            let _ = write!(s, "{l:?}");
        }
        Expr::Var(n, _) => s.push_str(n),
        Expr::Assign(n, _, v) => {
            let _ = write!(s, "({n} := ");
            expr(s, v);
            s.push(')');
        }
        Expr::Send(send) => {
            s.push('(');
            expr(s, &send.recv);
            msg(s, &send.msg);
            s.push(')');
        }
        Expr::Cascade(recv, parts, _) => {
            s.push_str("(cascade ");
            expr(s, recv);
            for p in parts {
                s.push(';');
                msg(s, &p.msg);
                for m in &p.chain {
                    msg(s, m);
                }
            }
            s.push(')');
        }
        Expr::Block(b) => block(s, b),
        Expr::Brace(items, _) => {
            s.push('{');
            for i in items {
                expr(s, i);
                s.push('.');
            }
            s.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        // (source, formatted)
        let table = [
            ("foo ^1", "foo\n\t^ 1"),
            ("foo\n^ 1", "foo\n\t^ 1"),
            (
                "at:i put:v |t| t:=v. ^t",
                "at: i put: v\n\t| t |\n\tt := v.\n\t^ t",
            ),
            (
                "foo \"says foo\"\n  ^ #(a b 1) , #[1 2]",
                "foo \"says foo\"\n\t^ #(a b 1) , #[1 2]",
            ),
            (
                "foo\n  \"A comment.\"\n\n  | a |\n  a := 16r1F + 1.5s2 - -3.\n  ^ a",
                "foo\n\t\"A comment.\"\n\n\t| a |\n\ta := 16r1F + 1.5s2 - -3.\n\t^ a",
            ),
            (
                "foo\n  x do: [:e |\n  e bar.\n    e baz ]",
                "foo\n\tx do: [:e |\n\t\te bar.\n\t\te baz]",
            ),
            (
                "foo ^ x collect: [ :e|e + 1 ]",
                "foo\n\t^ x collect: [:e | e + 1]",
            ),
            (
                "foo\n\tTranscript show: 'a' ; cr ;\n show: ( 3 printString )",
                "foo\n\tTranscript show: 'a'; cr;\n\t\tshow: (3 printString)",
            ),
            (
                "+ other <primitive: 1> ^ self error: 'x'",
                "+ other\n\t<primitive: 1>\n\t^ self error: 'x'",
            ),
            ("foo ^ {1. 2 . x}", "foo\n\t^ {1. 2. x}"),
            ("foo ^3-1", "foo\n\t^ 3 - 1"),
            ("foo ^'a', b , c ,d", "foo\n\t^ 'a', b , c , d"),
            ("foo ^ x--1", "foo\n\t^ x - -1"),
            (
                "foo\n\t^ 1 \"one\"\n\t\"trailing\"",
                "foo\n\t^ 1 \"one\"\n\t\"trailing\"",
            ),
            ("foo [:x] value: 1", "foo\n\t[:x] value: 1"),
            (
                "foo\n\t^ (a and: [b\n\t\tand: [c]])\n\tifTrue: [1]",
                "foo\n\t^ (a and: [b\n\t\tand: [c]])\n\t\tifTrue: [1]",
            ),
            (
                "foo\n\tx do: [:e | e bar.\n\te baz.\n]",
                "foo\n\tx do: [:e |\n\t\te bar.\n\t\te baz.]",
            ),
            (
                "foo\n\t[:x | | t |\n\tt := x.\n\tt] value: 1",
                "foo\n\t[:x | | t |\n\t\tt := x.\n\t\tt] value: 1",
            ),
        ];
        for (source, formatted) in table {
            let got = format_method(source);
            assert_eq!(got.as_deref(), Ok(formatted), "{source:?}");
            assert_eq!(
                format_method(formatted).as_deref(),
                Ok(formatted),
                "idempotent: {formatted:?}"
            );
        }
    }

    #[test]
    fn what_does_not_parse_is_a_syntax_error() {
        for source in ["", "foo ^", "foo [", "foo \"open"] {
            assert!(
                matches!(format_method(source), Err(FormatError::Syntax(_))),
                "{source:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn formatting_never_panics_and_is_idempotent(
            body in "[a-z0-9:#$'\"()\\[\\]{}^.;|<>=+\\-*/ \n\t]{0,60}"
        ) {
            let source = format!("foo\n{body}");
            if let Ok(once) = format_method(&source) {
                proptest::prop_assert_eq!(format_method(&once), Ok(once.clone()));
            }
        }
    }
}
