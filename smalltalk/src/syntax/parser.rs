//! The GemStone Smalltalk parser: a tokenizer and a recursive-descent parser for
//! methods and doits. Offsets are 0-based character indices into the source.
//! It must never panic on any input: every failure is a [`SyntaxError`].

use num_bigint::BigInt;
use num_traits::{One, Zero};

use crate::syntax::ast::*;

/// A syntax error: where (0-based character offset) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    /// Where, as a 0-based character offset into the source.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

type PResult<T> = Result<T, SyntaxError>;

const MAX_DEPTH: usize = 400;

/// The most message sends one statement may chain or nest (counted so that
/// the count bounds the height of its tree: summed within an expression, the
/// largest of a block's or brace's statements). A longer chain (`1+1+1…`)
/// would build a tree deeper than the compiler and the interpreter can walk
/// on their stacks; it is a compile error instead. Statements in sequence
/// do not add up, so a long doit of short statements is fine.
pub const MAX_NESTED_SENDS: usize = 10_000;

/// The most arguments and temporaries (of the method and all its blocks
/// together) one method or doit may declare: the compiler numbers their slots
/// in 16 bits, and no hand-written method comes near.
pub const MAX_VARIABLES: usize = 10_000;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tk {
    Ident(String),
    Keyword(String),
    Binary(String),
    Lit(Lit),
    HashParen,
    HashBracket,
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Colon,
    Caret,
    Period,
    Semi,
    Assign,
    Eof,
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tk: Tk,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

fn is_binary_char(c: char) -> bool {
    matches!(
        c,
        '+' | '-'
            | '*'
            | '/'
            | '\\'
            | '<'
            | '>'
            | '='
            | '~'
            | '@'
            | '%'
            | '|'
            | '&'
            | '?'
            | ','
            | '!'
    )
}

struct Lexer<'a> {
    s: &'a [char],
    i: usize,
}

fn err<T>(offset: usize, message: impl Into<String>) -> PResult<T> {
    Err(SyntaxError {
        offset,
        message: message.into(),
    })
}

impl<'a> Lexer<'a> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn skip_space(&mut self) -> PResult<()> {
        loop {
            match self.peek(0) {
                Some(c) if c.is_whitespace() => self.i += 1,
                Some('"') => {
                    let start = self.i;
                    self.i += 1;
                    loop {
                        match self.peek(0) {
                            None => return err(start, "unterminated comment"),
                            Some('"') => {
                                self.i += 1;
                                break;
                            }
                            Some(_) => self.i += 1,
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn ident_tail(&mut self) -> String {
        let start = self.i;
        while let Some(c) = self.peek(0) {
            if c.is_alphanumeric() || c == '_' {
                self.i += 1;
            } else {
                break;
            }
        }
        self.s[start..self.i].iter().collect()
    }

    fn string_body(&mut self, start: usize) -> PResult<String> {
        // self.i is just past the opening quote
        let mut out = String::new();
        loop {
            match self.peek(0) {
                None => return err(start, "unterminated string"),
                Some('\'') => {
                    if self.peek(1) == Some('\'') {
                        out.push('\'');
                        self.i += 2;
                    } else {
                        self.i += 1;
                        return Ok(out);
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn digits(&mut self, radix: u32) -> String {
        let start = self.i;
        while let Some(c) = self.peek(0) {
            if c.is_digit(radix) && (c.is_ascii_digit() || c.is_ascii_uppercase()) {
                self.i += 1;
            } else {
                break;
            }
        }
        self.s[start..self.i].iter().collect()
    }

    fn number(&mut self) -> PResult<Lit> {
        let start = self.i;
        let int_part = self.digits(10);
        let mut radix = 10u32;
        let mut negative = false;
        let mut mantissa = int_part.clone();
        if self.peek(0) == Some('r') {
            let r: u32 = int_part.parse().unwrap_or(0);
            if !(2..=36).contains(&r) {
                return err(start, "radix must be between 2 and 36");
            }
            radix = r;
            self.i += 1;
            if self.peek(0) == Some('-') {
                negative = true;
                self.i += 1;
            }
            mantissa = self.digits(radix);
            if mantissa.is_empty() {
                return err(self.i, "expected a digit after the radix");
            }
        }
        let mut frac = String::new();
        if self.peek(0) == Some('.')
            && self.peek(1).is_some_and(|c| {
                c.is_digit(radix) && (c.is_ascii_digit() || c.is_ascii_uppercase())
            })
        {
            self.i += 1;
            frac = self.digits(radix);
        }
        let mut exp: Option<i64> = None;
        let mut float_letter = false;
        if let Some(e) = self.peek(0) {
            if matches!(e, 'e' | 'd' | 'q') {
                let (neg, k) = if self.peek(1) == Some('-') {
                    (true, 2)
                } else {
                    (false, 1)
                };
                if self.peek(k).is_some_and(|c| c.is_ascii_digit()) {
                    self.i += k;
                    let ds = self.digits(10);
                    let v: i64 = ds.parse().unwrap_or(i64::MAX);
                    if v > 100_000 {
                        return err(start, "exponent too large");
                    }
                    exp = Some(if neg { -v } else { v });
                } else if !self
                    .peek(1)
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    // `2.0d` / `1.0e` alone: a float with exponent 0
                    self.i += 1;
                    exp = Some(0);
                    float_letter = true;
                }
            }
        }
        let mant = BigInt::parse_bytes(format!("{mantissa}{frac}").as_bytes(), radix)
            .unwrap_or_else(BigInt::zero);
        let mant = if negative { -mant } else { mant };
        // scaled decimal
        if exp.is_none()
            && self.peek(0) == Some('s')
            && !self.peek(1).is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            self.i += 1;
            let sd = self.digits(10);
            let scale: u32 = if sd.is_empty() {
                frac.len() as u32
            } else {
                sd.parse().unwrap_or(u32::MAX)
            };
            if scale > 1000 {
                return err(start, "scale too large");
            }
            let den = BigInt::from(radix).pow(frac.len() as u32);
            return Ok(Lit::Scaled(mant, den, scale));
        }
        if frac.is_empty() && !float_letter {
            // integer, maybe with exponent (1e10 is an Integer)
            return Ok(match exp {
                None => Lit::Int(mant),
                Some(e) if e >= 0 => Lit::Int(mant * BigInt::from(radix).pow(e as u32)),
                Some(e) => {
                    // negative exponent on an integer: a Fraction-valued literal; keep it a Float
                    let f = big_to_f64(&mant) * (radix as f64).powi(e as i32);
                    Lit::Float(f)
                }
            });
        }
        let e = exp.unwrap_or(0);
        let f = if radix == 10 {
            let text = format!(
                "{}{}.{}e{}",
                if negative { "-" } else { "" },
                if mantissa.is_empty() { "0" } else { &mantissa },
                if frac.is_empty() { "0" } else { &frac },
                e
            );
            text.parse::<f64>().unwrap_or(f64::NAN)
        } else {
            big_to_f64(&mant) * (radix as f64).powi(e as i32 - frac.len() as i32)
        };
        Ok(Lit::Float(f))
    }

    fn next(&mut self) -> PResult<Token> {
        self.skip_space()?;
        let start = self.i;
        let Some(c) = self.peek(0) else {
            return Ok(Token {
                tk: Tk::Eof,
                start,
                end: start,
            });
        };
        let tk = if c.is_alphabetic() || c == '_' {
            let name = self.ident_tail();
            if self.peek(0) == Some(':') && self.peek(1) != Some('=') {
                self.i += 1;
                Tk::Keyword(format!("{name}:"))
            } else {
                Tk::Ident(name)
            }
        } else if c.is_ascii_digit() {
            Tk::Lit(self.number()?)
        } else {
            self.i += 1;
            match c {
                '\'' => Tk::Lit(Lit::Str(self.string_body(start)?)),
                '$' => match self.peek(0) {
                    Some(ch) => {
                        self.i += 1;
                        Tk::Lit(Lit::Char(ch))
                    }
                    None => return err(start, "expected a character after $"),
                },
                '#' => match self.peek(0) {
                    Some('(') => {
                        self.i += 1;
                        Tk::HashParen
                    }
                    Some('[') => {
                        self.i += 1;
                        Tk::HashBracket
                    }
                    Some('\'') => {
                        self.i += 1;
                        Tk::Lit(Lit::Sym(self.string_body(start)?))
                    }
                    Some(ch) if ch.is_alphabetic() || ch == '_' => {
                        let mut name = String::new();
                        loop {
                            name.push_str(&self.ident_tail());
                            if self.peek(0) == Some(':') {
                                name.push(':');
                                self.i += 1;
                                if self.peek(0).is_some_and(|c| c.is_alphabetic() || c == '_') {
                                    continue;
                                }
                            }
                            break;
                        }
                        Tk::Lit(Lit::Sym(name))
                    }
                    Some(ch) if is_binary_char(ch) => {
                        let s = self.i;
                        while self.peek(0).is_some_and(is_binary_char) {
                            self.i += 1;
                        }
                        Tk::Lit(Lit::Sym(self.s[s..self.i].iter().collect()))
                    }
                    Some('#') => {
                        // ##foo is accepted as #foo
                        return self.next_after_hash(start);
                    }
                    _ => return err(start, "expected a literal after #"),
                },
                ':' => {
                    if self.peek(0) == Some('=') {
                        self.i += 1;
                        Tk::Assign
                    } else {
                        Tk::Colon
                    }
                }
                '^' => Tk::Caret,
                '.' => Tk::Period,
                ';' => Tk::Semi,
                '(' => Tk::LParen,
                ')' => Tk::RParen,
                '[' => Tk::LBrack,
                ']' => Tk::RBrack,
                '{' => Tk::LBrace,
                '}' => Tk::RBrace,
                c if is_binary_char(c) => {
                    let mut op = c.to_string();
                    while let Some(n) = self.peek(0) {
                        // `x--1`: a second `-` before a digit starts a negative literal
                        if !is_binary_char(n)
                            || (n == '-' && self.peek(1).is_some_and(|d| d.is_ascii_digit()))
                        {
                            break;
                        }
                        op.push(n);
                        self.i += 1;
                    }
                    Tk::Binary(op)
                }
                _ => return err(start, format!("unexpected character {c:?}")),
            }
        };
        Ok(Token {
            tk,
            start,
            end: self.i,
        })
    }

    fn next_after_hash(&mut self, start: usize) -> PResult<Token> {
        // we are at the second '#'; treat `##x` like `#x`
        let t = self.next()?;
        match t.tk {
            Tk::Lit(Lit::Sym(_)) | Tk::HashParen | Tk::HashBracket => Ok(Token { start, ..t }),
            _ => err(start, "expected a literal after #"),
        }
    }
}

fn big_to_f64(b: &BigInt) -> f64 {
    num_traits::ToPrimitive::to_f64(b).unwrap_or(f64::NAN)
}

/// Tokenizes the whole source.
pub(crate) fn tokenize(src: &[char]) -> PResult<Vec<Token>> {
    let mut lx = Lexer { s: src, i: 0 };
    let mut out = Vec::new();
    loop {
        let t = lx.next()?;
        let eof = t.tk == Tk::Eof;
        out.push(t);
        if eof {
            return Ok(out);
        }
    }
}

struct Parser {
    toks: Vec<Token>,
    p: usize,
    depth: usize,
    /// Sends counted towards [`MAX_NESTED_SENDS`] on the path being parsed.
    sends: usize,
    /// Arguments and temporaries declared so far, towards [`MAX_VARIABLES`].
    variables: usize,
    /// Where each expression and statement lies, when asked for.
    layout: Option<Layout>,
}

/// Where the parts of a method lie in its source, as character ranges
/// `start..end` (refactorings map a selected range to the syntax).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Every expression: each primary (a parenthesized one with its
    /// parentheses), each message send with its receiver, each assignment
    /// and cascade.
    pub exprs: Vec<(usize, usize)>,
    /// Every sequence of statements (the method's body, each block's body):
    /// where each statement lies (a return with its caret, without the
    /// period).
    pub sequences: Vec<Vec<(usize, usize)>>,
}

impl Parser {
    fn peek(&self) -> &Tk {
        &self.toks[self.p].tk
    }
    fn peek_at(&self, k: usize) -> &Tk {
        &self.toks[(self.p + k).min(self.toks.len() - 1)].tk
    }
    fn pos(&self) -> usize {
        self.toks[self.p].start
    }
    fn advance(&mut self) -> Token {
        let t = self.toks[self.p].clone();
        if self.p + 1 < self.toks.len() {
            self.p += 1;
        }
        t
    }
    /// Where the last token taken ends.
    fn last_end(&self) -> usize {
        self.toks[self.p.saturating_sub(1)].end
    }

    /// Records an expression from `start` to the last token taken.
    fn spans_expr(&mut self, start: usize) {
        if self.layout.is_none() {
            return;
        }
        let end = self.last_end();
        if let Some(l) = &mut self.layout {
            l.exprs.push((start, end));
        }
    }

    fn is_binary(&self, s: &str) -> bool {
        matches!(self.peek(), Tk::Binary(b) if b == s)
    }

    fn expect(&mut self, tk: Tk, what: &str) -> PResult<Token> {
        if *self.peek() == tk {
            Ok(self.advance())
        } else {
            err(self.pos(), format!("expected {what}"))
        }
    }

    fn temps(&mut self) -> PResult<Vec<(String, usize)>> {
        let mut temps = Vec::new();
        while self.is_binary("|") || self.is_binary("||") {
            if self.is_binary("||") {
                self.advance();
                continue;
            }
            self.advance();
            loop {
                match self.peek().clone() {
                    Tk::Ident(n) => {
                        let o = self.pos();
                        self.declare_at(o)?;
                        self.advance();
                        temps.push((n, o));
                    }
                    Tk::Binary(b) if b == "|" => {
                        self.advance();
                        break;
                    }
                    _ => return err(self.pos(), "expected a temporary name or |"),
                }
            }
        }
        Ok(temps)
    }

    /// Counts one declared argument or temporary.
    fn declare_at(&mut self, offset: usize) -> PResult<()> {
        self.variables += 1;
        if self.variables > MAX_VARIABLES {
            return err(
                offset,
                format!("too many variables: more than {MAX_VARIABLES} arguments and temporaries"),
            );
        }
        Ok(())
    }

    /// Counts one send that extends the tree of the statement being parsed.
    fn send_at(&mut self, offset: usize) -> PResult<()> {
        self.sends += 1;
        if self.sends > MAX_NESTED_SENDS {
            return err(
                offset,
                format!(
                    "statement too large: more than {MAX_NESTED_SENDS} message sends chained or nested in it"
                ),
            );
        }
        Ok(())
    }

    fn statements(&mut self, closer: Option<Tk>) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        let mut spans = Vec::new();
        // statements in sequence: the tree is as deep as its deepest one
        let base = self.sends;
        let mut deepest = base;
        let r = self.statements_into(closer, &mut out, &mut spans, base, &mut deepest);
        if let Some(l) = &mut self.layout {
            l.sequences.push(spans);
        }
        r.map(|()| out)
    }

    fn statements_into(
        &mut self,
        closer: Option<Tk>,
        out: &mut Vec<Stmt>,
        spans: &mut Vec<(usize, usize)>,
        base: usize,
        deepest: &mut usize,
    ) -> PResult<()> {
        loop {
            *deepest = (*deepest).max(self.sends);
            self.sends = base;
            while *self.peek() == Tk::Period {
                self.advance();
            }
            let t = self.peek().clone();
            if t == Tk::Eof || Some(&t) == closer.as_ref() {
                self.sends = *deepest;
                return Ok(());
            }
            let start = self.pos();
            if t == Tk::Caret {
                let o = self.pos();
                self.advance();
                let e = self.expr()?;
                out.push(Stmt::Return(e, o));
            } else {
                out.push(Stmt::Expr(self.expr()?));
            }
            if self.layout.is_some() {
                spans.push((start, self.last_end()));
            }
            match self.peek() {
                Tk::Period => {
                    self.advance();
                }
                t if *t == Tk::Eof || Some(t) == closer.as_ref() => {
                    self.sends = self.sends.max(*deepest);
                    return Ok(());
                }
                Tk::RParen | Tk::RBrack | Tk::RBrace => {
                    return err(self.pos(), "unmatched closing bracket")
                }
                _ => return err(self.pos(), "expected a period or the end of the statement"),
            }
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(self.pos(), "expression nested too deeply");
        }
        let start = self.pos();
        let r = self.expr_inner();
        self.depth -= 1;
        if r.is_ok() {
            self.spans_expr(start);
        }
        r
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        if let Tk::Ident(name) = self.peek().clone() {
            if *self.peek_at(1) == Tk::Assign {
                let o = self.pos();
                self.advance();
                self.advance();
                let value = self.expr()?;
                return Ok(Expr::Assign(name, o, Box::new(value)));
            }
        }
        let first = self.keyword_expr()?;
        if *self.peek() != Tk::Semi {
            return Ok(first);
        }
        let cascade_off = self.pos();
        let Expr::Send(send) = first else {
            return err(cascade_off, "cascade must follow a message send");
        };
        let Send { recv, msg } = *send;
        let mut msgs = vec![CascadeMsg { msg, chain: vec![] }];
        // the parts go to one receiver: the cascade is as deep as its deepest part
        let base = self.sends;
        let mut deepest = base;
        while *self.peek() == Tk::Semi {
            self.advance();
            self.sends = base;
            msgs.push(self.cascade_part()?);
            deepest = deepest.max(self.sends);
        }
        self.sends = deepest;
        Ok(Expr::Cascade(Box::new(recv), msgs, cascade_off))
    }

    /// One cascade part: a message, then (ANSI) any further messages sent to
    /// its answer, with the usual precedence: unary, then binary, then one
    /// keyword message.
    fn cascade_part(&mut self) -> PResult<CascadeMsg> {
        let o = self.pos();
        let mut msgs: Vec<Msg> = Vec::new();
        // unary messages
        while let Tk::Ident(sel) = self.peek().clone() {
            let so = self.pos();
            self.send_at(so)?;
            self.advance();
            msgs.push(Msg {
                selector: sel,
                args: vec![],
                offset: so,
            });
        }
        // binary messages, each with a unary-expression argument
        while let Tk::Binary(op) = self.peek().clone() {
            let so = self.pos();
            self.send_at(so)?;
            self.advance();
            let arg = self.binary_arg()?;
            msgs.push(Msg {
                selector: op,
                args: vec![arg],
                offset: so,
            });
        }
        // at most one keyword message, last
        if let Tk::Keyword(_) = self.peek() {
            let so = self.pos();
            self.send_at(so)?;
            let (sel, args) = self.keyword_parts()?;
            msgs.push(Msg {
                selector: sel,
                args,
                offset: so,
            });
        }
        if msgs.is_empty() {
            return err(o, "expected a message in the cascade");
        }
        let msg = msgs.remove(0);
        Ok(CascadeMsg { msg, chain: msgs })
    }

    fn keyword_parts(&mut self) -> PResult<(String, Vec<Expr>)> {
        let mut sel = String::new();
        let mut args = Vec::new();
        while let Tk::Keyword(k) = self.peek().clone() {
            self.advance();
            sel.push_str(&k);
            let start = self.pos();
            let mut a = self.binary_arg()?;
            while let Tk::Binary(op) = self.peek().clone() {
                let o = self.pos();
                self.send_at(o)?;
                self.advance();
                let b = self.binary_arg()?;
                a = Expr::Send(Box::new(Send {
                    recv: a,
                    msg: Msg {
                        selector: op,
                        args: vec![b],
                        offset: o,
                    },
                }));
                self.spans_expr(start);
            }
            args.push(a);
        }
        Ok((sel, args))
    }

    fn keyword_expr(&mut self) -> PResult<Expr> {
        let start = self.pos();
        let recv = self.binary_expr()?;
        if let Tk::Keyword(_) = self.peek() {
            let o = self.pos();
            self.send_at(o)?;
            let (sel, args) = self.keyword_parts()?;
            self.spans_expr(start);
            return Ok(Expr::Send(Box::new(Send {
                recv,
                msg: Msg {
                    selector: sel,
                    args,
                    offset: o,
                },
            })));
        }
        Ok(recv)
    }

    fn binary_expr(&mut self) -> PResult<Expr> {
        let start = self.pos();
        let mut e = self.unary_expr()?;
        while let Tk::Binary(op) = self.peek().clone() {
            let o = self.pos();
            self.send_at(o)?;
            self.advance();
            let arg = self.binary_arg()?;
            e = Expr::Send(Box::new(Send {
                recv: e,
                msg: Msg {
                    selector: op,
                    args: vec![arg],
                    offset: o,
                },
            }));
            self.spans_expr(start);
        }
        Ok(e)
    }

    /// A unary expression (the argument of a binary message).
    fn binary_arg(&mut self) -> PResult<Expr> {
        self.unary_expr()
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        let start = self.pos();
        let mut e = self.primary()?;
        while let Tk::Ident(sel) = self.peek().clone() {
            let o = self.pos();
            self.send_at(o)?;
            self.advance();
            e = Expr::Send(Box::new(Send {
                recv: e,
                msg: Msg {
                    selector: sel,
                    args: vec![],
                    offset: o,
                },
            }));
            self.spans_expr(start);
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(self.pos(), "expression nested too deeply");
        }
        let start = self.pos();
        let r = self.primary_inner();
        self.depth -= 1;
        if r.is_ok() {
            self.spans_expr(start);
        }
        r
    }

    fn primary_inner(&mut self) -> PResult<Expr> {
        let o = self.pos();
        match self.peek().clone() {
            Tk::Ident(name) => {
                self.advance();
                Ok(match name.as_str() {
                    "nil" => Expr::Lit(Lit::Nil, o),
                    "true" => Expr::Lit(Lit::True, o),
                    "false" => Expr::Lit(Lit::False, o),
                    _ => Expr::Var(name, o),
                })
            }
            Tk::Lit(l) => {
                self.advance();
                Ok(Expr::Lit(l, o))
            }
            Tk::Binary(b) if b == "-" => {
                // negative number literal: `-` directly followed by a number
                let t = &self.toks[self.p];
                let next = &self.toks[(self.p + 1).min(self.toks.len() - 1)];
                if let Tk::Lit(l) = &next.tk {
                    if next.start == t.end {
                        if let Some(n) = negate(l) {
                            self.advance();
                            self.advance();
                            return Ok(Expr::Lit(n, o));
                        }
                    }
                }
                err(o, "expected an expression")
            }
            Tk::LParen => {
                self.advance();
                let e = self.expr()?;
                self.expect(Tk::RParen, "a closing parenthesis")?;
                Ok(e)
            }
            Tk::LBrack => self.block().map(|b| Expr::Block(Box::new(b))),
            Tk::LBrace => {
                self.advance();
                let mut items = Vec::new();
                let base = self.sends;
                let mut deepest = base;
                loop {
                    while *self.peek() == Tk::Period {
                        self.advance();
                    }
                    if *self.peek() == Tk::RBrace {
                        self.advance();
                        break;
                    }
                    self.sends = base;
                    items.push(self.expr()?);
                    deepest = deepest.max(self.sends);
                    match self.peek() {
                        Tk::Period => {
                            self.advance();
                        }
                        Tk::RBrace => {}
                        _ => return err(self.pos(), "expected a period or }"),
                    }
                }
                self.sends = deepest;
                Ok(Expr::Brace(items, o))
            }
            Tk::HashParen => {
                self.advance();
                Ok(Expr::Lit(self.literal_array()?, o))
            }
            Tk::HashBracket => {
                self.advance();
                Ok(Expr::Lit(self.byte_array()?, o))
            }
            Tk::Eof => err(o, "expected an expression"),
            _ => err(o, "expected an expression"),
        }
    }

    fn block(&mut self) -> PResult<BlockAst> {
        let o = self.pos();
        self.advance(); // [
        let mut args = Vec::new();
        while *self.peek() == Tk::Colon {
            self.advance();
            match self.peek().clone() {
                Tk::Ident(n) => {
                    self.declare_at(self.pos())?;
                    args.push((n, self.pos()));
                    self.advance();
                }
                _ => return err(self.pos(), "expected a block argument name"),
            }
        }
        if !args.is_empty() {
            if self.is_binary("|") {
                self.advance();
            } else if self.is_binary("||") {
                // `[:x || t | ...]`: the second bar opens the temporaries
                let t = &mut self.toks[self.p];
                t.tk = Tk::Binary("|".into());
                t.start += 1;
            } else if *self.peek() != Tk::RBrack {
                return err(self.pos(), "expected | after the block arguments");
            }
        }
        let temps = self.temps()?;
        let body = self.statements(Some(Tk::RBrack))?;
        self.expect(Tk::RBrack, "a closing ]")?;
        Ok(BlockAst {
            args,
            temps,
            body,
            offset: o,
        })
    }

    fn literal_array(&mut self) -> PResult<Lit> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(self.pos(), "literal array nested too deeply");
        }
        let mut items = Vec::new();
        loop {
            let o = self.pos();
            match self.peek().clone() {
                Tk::RParen => {
                    self.advance();
                    break;
                }
                Tk::Eof => return err(o, "unterminated literal array"),
                Tk::Lit(l) => {
                    self.advance();
                    items.push(l);
                }
                Tk::Ident(n) => {
                    self.advance();
                    items.push(match n.as_str() {
                        "nil" => Lit::Nil,
                        "true" => Lit::True,
                        "false" => Lit::False,
                        _ => Lit::Sym(n),
                    });
                }
                Tk::Keyword(k) => {
                    let mut s = k;
                    let mut end = self.toks[self.p].end;
                    self.advance();
                    while let Tk::Keyword(k2) = self.peek().clone() {
                        if self.toks[self.p].start != end {
                            break;
                        }
                        end = self.toks[self.p].end;
                        s.push_str(&k2);
                        self.advance();
                    }
                    items.push(Lit::Sym(s));
                }
                Tk::Binary(b) => {
                    let t_end = self.toks[self.p].end;
                    let next = self.toks[(self.p + 1).min(self.toks.len() - 1)].clone();
                    if b == "-" {
                        if let Tk::Lit(l) = &next.tk {
                            if next.start == t_end {
                                if let Some(n) = negate(l) {
                                    self.advance();
                                    self.advance();
                                    items.push(n);
                                    continue;
                                }
                            }
                        }
                    }
                    self.advance();
                    items.push(Lit::Sym(b));
                }
                Tk::LParen | Tk::HashParen => {
                    self.advance();
                    items.push(self.literal_array()?);
                }
                Tk::LBrack | Tk::HashBracket => {
                    self.advance();
                    items.push(self.byte_array()?);
                }
                Tk::Caret => {
                    self.advance();
                    items.push(Lit::Sym("^".into()));
                }
                Tk::Semi => {
                    self.advance();
                    items.push(Lit::Sym(";".into()));
                }
                Tk::Period => {
                    self.advance();
                    items.push(Lit::Sym(".".into()));
                }
                Tk::Colon => {
                    self.advance();
                    items.push(Lit::Sym(":".into()));
                }
                _ => return err(o, "unexpected token in literal array"),
            }
        }
        self.depth -= 1;
        Ok(Lit::Array(items))
    }

    fn byte_array(&mut self) -> PResult<Lit> {
        let mut bytes = Vec::new();
        loop {
            let o = self.pos();
            match self.peek().clone() {
                Tk::RBrack => {
                    self.advance();
                    return Ok(Lit::Bytes(bytes));
                }
                Tk::Lit(Lit::Int(i)) => {
                    self.advance();
                    match u8::try_from(&i) {
                        Ok(b) => bytes.push(b),
                        Err(_) => return err(o, "byte array element must be between 0 and 255"),
                    }
                }
                Tk::Eof => return err(o, "unterminated byte array"),
                _ => return err(o, "byte array element must be an integer between 0 and 255"),
            }
        }
    }

    fn method_pattern(&mut self) -> PResult<(String, Vec<(String, usize)>)> {
        let o = self.pos();
        match self.peek().clone() {
            Tk::Ident(n) => {
                self.advance();
                Ok((n, vec![]))
            }
            Tk::Binary(op) => {
                self.advance();
                match self.peek().clone() {
                    Tk::Ident(a) => {
                        let ao = self.pos();
                        self.advance();
                        Ok((op, vec![(a, ao)]))
                    }
                    _ => err(self.pos(), "expected an argument name"),
                }
            }
            Tk::Keyword(_) => {
                let mut sel = String::new();
                let mut args = Vec::new();
                while let Tk::Keyword(k) = self.peek().clone() {
                    self.advance();
                    sel.push_str(&k);
                    match self.peek().clone() {
                        Tk::Ident(a) => {
                            self.declare_at(self.pos())?;
                            args.push((a, self.pos()));
                            self.advance();
                        }
                        _ => return err(self.pos(), "expected an argument name"),
                    }
                }
                Ok((sel, args))
            }
            _ => err(o, "expected a message pattern"),
        }
    }

    fn pragma(&mut self) -> PResult<Option<(u32, usize)>> {
        if !self.is_binary("<") {
            return Ok(None);
        }
        let o = self.pos();
        self.advance();
        let prim = match self.peek().clone() {
            Tk::Keyword(k) if k == "primitive:" => {
                self.advance();
                match self.peek().clone() {
                    Tk::Lit(Lit::Int(n)) => {
                        self.advance();
                        Some((
                            u32::try_from(&n).map_err(|_| SyntaxError {
                                offset: o,
                                message: "bad primitive number".into(),
                            })?,
                            o,
                        ))
                    }
                    _ => return err(self.pos(), "expected a primitive number"),
                }
            }
            Tk::Keyword(_) | Tk::Ident(_) => {
                // other pragmas (`<protected>`, `<category: 'x'>`): skip to `>`
                while !self.is_binary(">") {
                    if *self.peek() == Tk::Eof {
                        return err(o, "unterminated pragma");
                    }
                    self.advance();
                }
                None
            }
            _ => return err(self.pos(), "expected primitive:"),
        };
        if !self.is_binary(">") {
            return err(self.pos(), "expected >");
        }
        self.advance();
        Ok(prim)
    }
}

fn negate(l: &Lit) -> Option<Lit> {
    Some(match l {
        Lit::Int(i) => Lit::Int(-i),
        Lit::Float(f) => Lit::Float(-f),
        Lit::Scaled(n, d, s) => Lit::Scaled(-n, d.clone(), *s),
        _ => return None,
    })
}

fn parser_for(src: &str) -> PResult<Parser> {
    let chars: Vec<char> = src.chars().collect();
    Ok(Parser {
        toks: tokenize(&chars)?,
        p: 0,
        depth: 0,
        sends: 0,
        variables: 0,
        layout: None,
    })
}

/// Parses a method definition.
pub fn parse_method(src: &str) -> PResult<MethodAst> {
    let mut p = parser_for(src)?;
    method(&mut p)
}

/// Parses a method definition and answers where its expressions and
/// statements lie too.
pub fn parse_method_layout(src: &str) -> PResult<(MethodAst, Layout)> {
    let mut p = parser_for(src)?;
    p.layout = Some(Layout::default());
    let m = method(&mut p)?;
    Ok((m, p.layout.take().unwrap_or_default()))
}

fn method(p: &mut Parser) -> PResult<MethodAst> {
    let (selector, args) = p.method_pattern()?;
    let body_offset = p.pos();
    let mut primitive = p.pragma()?;
    let temps = p.temps()?;
    if primitive.is_none() {
        primitive = p.pragma()?;
    }
    while p.pragma()?.is_some() {}
    let body = p.statements(None)?;
    if *p.peek() != Tk::Eof {
        return err(p.pos(), "unexpected text after the method body");
    }
    Ok(MethodAst {
        selector,
        args,
        temps,
        primitive,
        body,
        body_offset,
    })
}

/// Parses a doit: temporaries and statements.
pub fn parse_doit(src: &str) -> PResult<MethodAst> {
    let mut p = parser_for(src)?;
    let temps = p.temps()?;
    let body = p.statements(None)?;
    if *p.peek() != Tk::Eof {
        return err(p.pos(), "unexpected text after the statements");
    }
    Ok(MethodAst {
        selector: "doit".into(),
        args: vec![],
        temps,
        primitive: None,
        body,
        body_offset: 0,
    })
}

/// Whether `s` is a valid Smalltalk number literal (used by `asNumber`).
pub fn parse_number_literal(s: &str) -> Option<Lit> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let chars: Vec<char> = body.chars().collect();
    if chars.first().is_none_or(|c| !c.is_ascii_digit()) {
        return None;
    }
    let mut lx = Lexer { s: &chars, i: 0 };
    let lit = lx.number().ok()?;
    if lx.i != chars.len() {
        return None;
    }
    if neg {
        negate(&lit)
    } else {
        Some(lit)
    }
}

#[allow(dead_code)]
fn one() -> BigInt {
    BigInt::one()
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
