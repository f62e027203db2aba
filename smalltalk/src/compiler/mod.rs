//! The compiler: turns a parsed method or doit into the resolved tree of
//! `code` — temporaries and arguments to stack or environment slots (boxed only
//! when a real block captures them), instance variables to indices, class/pool/
//! global variables to Associations bound at compile time, literal blocks of the
//! control selectors inlined. Errors are GemStone-style tuples (number, offset,
//! text, symbol). It must not run Smalltalk code.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::interp::Vm;
use crate::object::code::*;
use crate::object::heap::Body;
use crate::object::value::{Oop, Value};
use crate::syntax::ast::*;
use crate::syntax::parser::{self, SyntaxError};

/// One compile error: GemStone error number, 0-based character offset, text,
/// and the offending name (for undefined symbols).
#[derive(Debug, Clone, PartialEq)]
pub struct CompileErr {
    pub number: u32,
    pub offset: usize,
    pub message: String,
    pub symbol: Option<String>,
}

pub const ERR_SYNTAX: u32 = 1001;
pub const ERR_UNDEFINED: u32 = 1031;
pub const ERR_STORE_INTO_ARG: u32 = 1033;
pub const ERR_DUPLICATE: u32 = 1034;
pub const ERR_SHADOW_IVAR: u32 = 1030;
pub const ERR_PRIMITIVE: u32 = 1035;
pub const ERR_RESERVED: u32 = 1036;

impl From<SyntaxError> for CompileErr {
    fn from(e: SyntaxError) -> Self {
        CompileErr {
            number: ERR_SYNTAX,
            offset: e.offset,
            message: e.message,
            symbol: None,
        }
    }
}

type CResult<T> = Result<T, CompileErr>;

/// The tree's 16-bit index of instance variable `i`: a class with more named
/// instance variables than that has some no method can reach, and saying so
/// beats reading the wrong one.
fn ivar_index(i: usize, name: &str, off: usize) -> CResult<u16> {
    u16::try_from(i).or_else(|_| {
        cerr(
            ERR_SYNTAX,
            off,
            format!(
                "instance variable {name} is number {}, past the {} a method can use",
                i + 1,
                u16::MAX as usize + 1
            ),
            Some(name),
        )
    })
}

fn cerr<T>(
    number: u32,
    offset: usize,
    message: impl Into<String>,
    symbol: Option<&str>,
) -> CResult<T> {
    Err(CompileErr {
        number,
        offset,
        message: message.into(),
        symbol: symbol.map(String::from),
    })
}

/// Highest primitive number the VM implements.
pub const MAX_PRIMITIVE: u32 = 499;
// build.rs sizes `PRIMITIVE_ARITY` to cover every number up to it
const _: () = assert!((MAX_PRIMITIVE as usize) < crate::interp::primitive::PRIMITIVE_ARITY.len());

// ----- inlining decisions (shared by both passes) -----

#[derive(Copy, Clone, PartialEq, Debug)]
enum Inline {
    IfTrue,
    IfFalse,
    IfTrueIfFalse,
    IfFalseIfTrue,
    And,
    Or,
    WhileTrue,
    WhileFalse,
    WhileTrue0,
    WhileFalse0,
    Repeat,
    ToDo,
    ToByDo,
    TimesRepeat,
    IfNil,
    IfNotNil,
    IfNilIfNotNil,
    IfNotNilIfNil,
}

fn block_args(e: &Expr, n: usize) -> bool {
    matches!(e, Expr::Block(b) if b.args.len() == n)
}

fn block_args_upto1(e: &Expr) -> bool {
    matches!(e, Expr::Block(b) if b.args.len() <= 1)
}

fn inline_kind(recv: &Expr, msg: &Msg) -> Option<Inline> {
    let a = &msg.args;
    Some(match msg.selector.as_str() {
        "ifTrue:" if block_args(&a[0], 0) => Inline::IfTrue,
        "ifFalse:" if block_args(&a[0], 0) => Inline::IfFalse,
        "ifTrue:ifFalse:" if block_args(&a[0], 0) && block_args(&a[1], 0) => Inline::IfTrueIfFalse,
        "ifFalse:ifTrue:" if block_args(&a[0], 0) && block_args(&a[1], 0) => Inline::IfFalseIfTrue,
        "and:" if block_args(&a[0], 0) => Inline::And,
        "or:" if block_args(&a[0], 0) => Inline::Or,
        "whileTrue:" if block_args(recv, 0) && block_args(&a[0], 0) => Inline::WhileTrue,
        "whileFalse:" if block_args(recv, 0) && block_args(&a[0], 0) => Inline::WhileFalse,
        "whileTrue" if block_args(recv, 0) => Inline::WhileTrue0,
        "whileFalse" if block_args(recv, 0) => Inline::WhileFalse0,
        "repeat" if block_args(recv, 0) => Inline::Repeat,
        "to:do:" if block_args(&a[1], 1) && !loop_var_captured(&a[1]) => Inline::ToDo,
        "to:by:do:"
            if block_args(&a[2], 1) && is_number_lit(&a[1]) && !loop_var_captured(&a[2]) =>
        {
            Inline::ToByDo
        }
        "timesRepeat:" if block_args(&a[0], 0) => Inline::TimesRepeat,
        "ifNil:" if block_args(&a[0], 0) => Inline::IfNil,
        "ifNotNil:" if block_args_upto1(&a[0]) => Inline::IfNotNil,
        "ifNil:ifNotNil:" if block_args(&a[0], 0) && block_args_upto1(&a[1]) => {
            Inline::IfNilIfNotNil
        }
        "ifNotNil:ifNil:" if block_args_upto1(&a[0]) && block_args(&a[1], 0) => {
            Inline::IfNotNilIfNil
        }
        _ => return None,
    })
}

/// Whether a nested block of a loop body refers to the loop's own variables: then
/// the loop is not inlined, so every iteration gets its own binding for closures.
fn loop_var_captured(e: &Expr) -> bool {
    let Expr::Block(b) = e else { return false };
    let names: Vec<&str> = b
        .args
        .iter()
        .chain(b.temps.iter())
        .map(|(n, _)| n.as_str())
        .collect();
    b.body.iter().any(|s| match s {
        Stmt::Expr(x) | Stmt::Return(x, _) => mentions_in_nested_block(x, &names, false),
    })
}

fn mentions_in_nested_block(e: &Expr, names: &[&str], inside: bool) -> bool {
    match e {
        Expr::Lit(..) => false,
        Expr::Var(n, _) => inside && names.contains(&n.as_str()),
        Expr::Assign(n, _, v) => {
            (inside && names.contains(&n.as_str())) || mentions_in_nested_block(v, names, inside)
        }
        Expr::Send(s) => {
            // the literal blocks of an inlined send (`and:`, `ifTrue:`, an
            // inner loop) make no closures: they are not nested blocks
            let inlined = inline_kind(&s.recv, &s.msg).is_some();
            let part = |x: &Expr| match x {
                Expr::Block(b) if inlined => b.body.iter().any(|st| match st {
                    Stmt::Expr(y) | Stmt::Return(y, _) => {
                        mentions_in_nested_block(y, names, inside)
                    }
                }),
                _ => mentions_in_nested_block(x, names, inside),
            };
            part(&s.recv) || s.msg.args.iter().any(part)
        }
        Expr::Cascade(r, msgs, _) => {
            mentions_in_nested_block(r, names, inside)
                || msgs.iter().any(|c| {
                    std::iter::once(&c.msg).chain(&c.chain).any(|m| {
                        m.args
                            .iter()
                            .any(|a| mentions_in_nested_block(a, names, inside))
                    })
                })
        }
        Expr::Block(b) => b.body.iter().any(|s| match s {
            Stmt::Expr(x) | Stmt::Return(x, _) => mentions_in_nested_block(x, names, true),
        }),
        Expr::Brace(items, _) => items
            .iter()
            .any(|i| mentions_in_nested_block(i, names, inside)),
    }
}

/// See `Compiler::is_simple_block`. `bound` holds the names the block (and
/// the blocks inside it) declare, innermost last.
fn simple_block(b: &BlockAst, bound: &mut Vec<String>, outer: &dyn Fn(&str) -> bool) -> bool {
    let mark = bound.len();
    bound.extend(b.args.iter().chain(&b.temps).map(|(n, _)| n.clone()));
    let ok = b.body.iter().all(|s| match s {
        Stmt::Return(..) => false,
        Stmt::Expr(e) => simple_expr(e, bound, outer),
    });
    bound.truncate(mark);
    ok
}

fn simple_expr(e: &Expr, bound: &mut Vec<String>, outer: &dyn Fn(&str) -> bool) -> bool {
    let name_ok = |n: &str, bound: &Vec<String>| bound.iter().any(|b| b == n) || !outer(n);
    match e {
        Expr::Lit(..) => true,
        Expr::Var(n, _) => name_ok(n, bound),
        Expr::Assign(n, _, v) => name_ok(n, bound) && simple_expr(v, bound, outer),
        Expr::Send(s) => {
            simple_expr(&s.recv, bound, outer)
                && s.msg.args.iter().all(|a| simple_expr(a, bound, outer))
        }
        Expr::Cascade(r, msgs, _) => {
            simple_expr(r, bound, outer)
                && msgs.iter().all(|c| {
                    std::iter::once(&c.msg)
                        .chain(&c.chain)
                        .all(|m| m.args.iter().all(|a| simple_expr(a, bound, outer)))
                })
        }
        Expr::Block(b) => simple_block(b, bound, outer),
        Expr::Brace(items, _) => items.iter().all(|i| simple_expr(i, bound, outer)),
    }
}

fn is_number_lit(e: &Expr) -> bool {
    matches!(e, Expr::Lit(Lit::Int(_) | Lit::Float(_), _))
}

// ----- pass 1: which declarations are captured by real blocks -----

struct Analysis {
    /// per declaration (in declaration order): captured by a real block?
    captured: Vec<bool>,
    /// per real scope (in creation order): does it own an environment?
    owns_env: Vec<bool>,
    decl_scope: Vec<usize>,
    names: Vec<(String, usize)>, // (name, decl id) visible
    real: Vec<usize>,            // stack of real scope ids
}

impl Analysis {
    fn declare(&mut self, name: &str) {
        let id = self.captured.len();
        self.captured.push(false);
        self.decl_scope.push(*self.real.last().unwrap());
        self.names.push((name.to_string(), id));
    }

    fn reference(&mut self, name: &str) {
        if let Some(&(_, id)) = self.names.iter().rev().find(|(n, _)| n == name) {
            let cur = *self.real.last().unwrap();
            if self.decl_scope[id] != cur {
                self.captured[id] = true;
                self.owns_env[self.decl_scope[id]] = true;
            }
        }
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::Expr(e) | Stmt::Return(e, _) => self.expr(e),
            }
        }
    }

    fn block(&mut self, b: &BlockAst, inlined: bool) {
        let mark = self.names.len();
        if !inlined {
            self.owns_env.push(false);
            self.real.push(self.owns_env.len() - 1);
        }
        for (a, _) in &b.args {
            self.declare(a);
        }
        for (t, _) in &b.temps {
            self.declare(t);
        }
        self.stmts(&b.body);
        self.names.truncate(mark);
        if !inlined {
            self.real.pop();
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(..) => {}
            Expr::Var(n, _) => self.reference(n),
            Expr::Assign(n, _, v) => {
                self.reference(n);
                self.expr(v);
            }
            Expr::Send(s) => {
                let inl = inline_kind(&s.recv, &s.msg);
                self.maybe_block(&s.recv, inl.is_some());
                for a in &s.msg.args {
                    self.maybe_block(a, inl.is_some());
                }
            }
            Expr::Cascade(r, msgs, _) => {
                self.expr(r);
                for c in msgs {
                    for m in std::iter::once(&c.msg).chain(&c.chain) {
                        for a in &m.args {
                            self.expr(a);
                        }
                    }
                }
            }
            Expr::Block(b) => self.block(b, false),
            Expr::Brace(items, _) => items.iter().for_each(|i| self.expr(i)),
        }
    }

    fn maybe_block(&mut self, e: &Expr, inlined: bool) {
        match e {
            Expr::Block(b) if inlined => self.block(b, true),
            _ => self.expr(e),
        }
    }
}

// ----- pass 2: code generation -----

struct Var {
    name: String,
    slot: Slot,
    real: usize, // index into the real-scope stack
    is_arg: bool,
}

struct RealScope {
    id: usize,
    owns_env: bool,
    next_stack: u16,
    next_env: u16,
}

pub struct Compiler<'a> {
    vm: &'a mut Vm,
    class: Option<Oop>,
    /// Dictionaries to resolve globals in (the symbol list), in order.
    dicts: Vec<Oop>,
    an: Analysis,
    decl_counter: usize,
    real_counter: usize,
    vars: Vec<Var>,
    reals: Vec<RealScope>,
    literals: Vec<Value>,
    sends: Vec<Oop>,
    ivars_used: Vec<Oop>,
    ivar_names: Vec<String>,
    in_block: usize,
    has_nlr: bool,
}

/// What a compilation produces.
pub struct Compiled {
    pub method: Arc<Method>,
}

impl<'a> Compiler<'a> {
    pub fn new(vm: &'a mut Vm, class: Option<Oop>, dicts: Vec<Oop>) -> Compiler<'a> {
        let ivar_names = match class {
            Some(c) => vm.all_ivar_names(c),
            None => vec![],
        };
        Compiler {
            vm,
            class,
            dicts,
            an: Analysis {
                captured: vec![],
                owns_env: vec![],
                decl_scope: vec![],
                names: vec![],
                real: vec![],
            },
            decl_counter: 0,
            real_counter: 0,
            vars: vec![],
            reals: vec![],
            literals: vec![],
            sends: vec![],
            ivars_used: vec![],
            ivar_names,
            in_block: 0,
            has_nlr: false,
        }
    }

    /// Compiles a method (`doit == false`) or a doit.
    pub fn compile(mut self, src: &str, doit: bool, category: Value) -> CResult<Compiled> {
        let ast = if doit {
            parser::parse_doit(src)?
        } else {
            parser::parse_method(src)?
        };
        // checks
        let mut seen: Vec<&str> = vec![];
        for (n, o) in ast.args.iter().chain(ast.temps.iter()) {
            if seen.contains(&n.as_str()) {
                return cerr(
                    ERR_DUPLICATE,
                    *o,
                    format!("duplicate variable name {n}"),
                    Some(n),
                );
            }
            if is_reserved(n) {
                return cerr(ERR_RESERVED, *o, format!("{n} is a reserved name"), Some(n));
            }
            if self.ivar_names.iter().any(|iv| iv == n) {
                return cerr(
                    ERR_SHADOW_IVAR,
                    *o,
                    format!("{n} shadows an instance variable"),
                    Some(n),
                );
            }
            seen.push(n);
        }
        let prim = match ast.primitive {
            Some((n, o)) => {
                if n == 0
                    || n > MAX_PRIMITIVE
                    || !crate::interp::primitive::is_known_primitive(n as u16)
                {
                    return cerr(ERR_PRIMITIVE, o, format!("unknown primitive {n}"), None);
                }
                // a method with fewer arguments than the primitive reads never
                // calls it: sends of it run the fallback code, as on a failure
                let reads = crate::interp::primitive::PRIMITIVE_ARITY[n as usize] as usize;
                if ast.args.len() < reads {
                    0
                } else {
                    n as u16
                }
            }
            None => 0,
        };
        // pass 1
        self.an.owns_env.push(false);
        self.an.real.push(0);
        for (a, _) in &ast.args {
            self.an.declare(a);
        }
        for (t, _) in &ast.temps {
            self.an.declare(t);
        }
        self.an.stmts(&ast.body);
        // pass 2
        self.push_real();
        for (a, _) in &ast.args {
            self.declare(a, true);
        }
        for (t, _) in &ast.temps {
            self.declare(t, false);
        }
        let mut arg_env = vec![];
        for (i, v) in self.vars.iter().enumerate().take(ast.args.len()) {
            if let Slot::Env(_, e) = v.slot {
                arg_env.push((i as u16, e));
            }
        }
        let mut body = Vec::with_capacity(ast.body.len());
        for s in &ast.body {
            body.push(self.stmt(s)?);
        }
        if doit {
            // a doit answers the value of its last statement
            if let Some(last) = body.pop() {
                body.push(match last {
                    Node::Return(e) => Node::Return(e),
                    other => Node::Return(Box::new(other)),
                });
            }
        }
        let scope = self.reals.pop().unwrap();
        let frame_size = scope.next_stack as usize;
        let env_size = if scope.owns_env {
            scope.next_env as usize
        } else {
            0
        };
        let trivial = if prim == 0 && !doit && ast.temps.is_empty() && env_size == 0 {
            trivial_of(&body)
        } else {
            Trivial::No
        };
        let class = self.class.unwrap_or(self.vm.k.undefined);
        let selector = self.vm.intern(&ast.selector);
        let method = Method {
            selector,
            class,
            category,
            source: src.to_string(),
            num_args: ast.args.len(),
            frame_size: frame_size.max(ast.args.len()),
            env_size,
            arg_env,
            body,
            primitive: prim,
            literals: self.literals,
            sends: self.sends,
            ivars_used: self.ivars_used,
            trivial,
            dispatch: Dispatch::of(prim, ast.args.len(), trivial),
            doit,
            needs_home: self.has_nlr,
            oop: AtomicU64::new(0),
        };
        Ok(Compiled {
            method: Arc::new(method),
        })
    }

    fn push_real(&mut self) {
        let id = self.real_counter;
        self.real_counter += 1;
        let owns = self.an.owns_env.get(id).copied().unwrap_or(false);
        self.reals.push(RealScope {
            id,
            owns_env: owns,
            next_stack: 0,
            next_env: 1,
        });
    }

    fn declare(&mut self, name: &str, is_arg: bool) -> Slot {
        let captured = self
            .an
            .captured
            .get(self.decl_counter)
            .copied()
            .unwrap_or(false);
        self.decl_counter += 1;
        let real = self.reals.len() - 1;
        let sc = self.reals.last_mut().unwrap();
        if is_arg {
            // arguments arrive on the stack; a captured one is copied into the env
            sc.next_stack += 1;
        }
        let slot = if captured {
            let s = Slot::Env(0, sc.next_env);
            sc.next_env += 1;
            s
        } else if is_arg {
            Slot::Stack(sc.next_stack - 1)
        } else {
            let s = Slot::Stack(sc.next_stack);
            sc.next_stack += 1;
            s
        };
        self.vars.push(Var {
            name: name.to_string(),
            slot,
            real,
            is_arg,
        });
        slot
    }

    /// The slot of a visible variable as seen from the current real scope.
    fn resolve_local(&self, name: &str) -> Option<(Slot, bool)> {
        let v = self.vars.iter().rev().find(|v| v.name == name)?;
        let cur = self.reals.len() - 1;
        let slot = match v.slot {
            Slot::Stack(i) => Slot::Stack(i),
            Slot::Env(_, idx) => {
                let hops = self.reals[v.real + 1..=cur]
                    .iter()
                    .filter(|r| r.owns_env)
                    .count();
                Slot::Env(hops as u16, idx)
            }
        };
        Some((slot, v.is_arg))
    }

    fn stmt(&mut self, s: &Stmt) -> CResult<Node> {
        Ok(match s {
            Stmt::Expr(e) => self.expr(e)?,
            Stmt::Return(e, _) => {
                let v = Box::new(self.expr(e)?);
                if self.in_block > 0 {
                    self.has_nlr = true;
                    Node::NonLocalReturn(v)
                } else {
                    Node::Return(v)
                }
            }
        })
    }

    fn literal(&mut self, l: &Lit) -> Value {
        let v = self.vm.literal_value(l);
        if let Value::Obj(_) = v {
            self.literals.push(v);
        }
        v
    }

    /// One message of a cascade part (the chained messages are added by the caller).
    fn cascade_part(&mut self, m: &Msg) -> CResult<CascadePart> {
        let mut args = Vec::new();
        for a in &m.args {
            args.push(self.expr(a)?);
        }
        let selector = self.vm.intern(&m.selector);
        self.note_send(selector);
        let site = self.vm.new_site();
        Ok(CascadePart {
            selector,
            args,
            site,
            offset: m.offset,
            chain: Vec::new(),
        })
    }

    fn expr(&mut self, e: &Expr) -> CResult<Node> {
        Ok(match e {
            Expr::Lit(l, _) => Node::Const(self.literal(l)),
            Expr::Var(name, off) => self.variable(name, *off)?,
            Expr::Assign(name, off, value) => {
                let v = Box::new(self.expr(value)?);
                self.assignment(name, *off, v)?
            }
            Expr::Send(s) => self.send(&s.recv, &s.msg)?,
            Expr::Cascade(recv, msgs, _) => {
                let (r, is_super) = match &**recv {
                    Expr::Var(n, _) if n == "super" => (Node::SelfRef, true),
                    other => (self.expr(other)?, false),
                };
                let mut parts = Vec::new();
                for c in msgs {
                    let mut part = self.cascade_part(&c.msg)?;
                    for m in &c.chain {
                        let next = self.cascade_part(m)?;
                        part.chain.push(next);
                    }
                    parts.push(part);
                }
                if is_super {
                    return cerr(
                        ERR_SYNTAX,
                        e.offset(),
                        "cascade to super is not supported",
                        None,
                    );
                }
                Node::Cascade(Box::new(r), parts)
            }
            Expr::Block(b) => self.real_block(b)?,
            Expr::Brace(items, _) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.expr(i)?);
                }
                Node::Brace(out)
            }
        })
    }

    fn note_send(&mut self, sel: Oop) {
        if !self.sends.contains(&sel) {
            self.sends.push(sel);
        }
    }

    /// Whether `b` is a simple block: it mentions no `self`/`super`/
    /// `thisContext`, no instance variable, no temporary or argument of an
    /// enclosing scope, and has no `^`. Such a block behaves the same whatever
    /// activation creates it, so one closure serves every evaluation.
    fn is_simple_block(&self, b: &BlockAst) -> bool {
        let outer = |n: &str| {
            matches!(n, "self" | "super" | "thisContext")
                || self.vars.iter().any(|v| v.name == n)
                || self.ivar_names.iter().any(|v| v == n)
        };
        let mut bound = Vec::new();
        simple_block(b, &mut bound, &outer)
    }

    fn real_block(&mut self, b: &BlockAst) -> CResult<Node> {
        check_block_names(b)?;
        let simple = self.is_simple_block(b);
        self.push_real();
        let mark = self.vars.len();
        for (a, _) in &b.args {
            self.declare(a, true);
        }
        for (t, _) in &b.temps {
            self.declare(t, false);
        }
        let mut arg_env = vec![];
        for (i, v) in self.vars[mark..].iter().enumerate().take(b.args.len()) {
            if let Slot::Env(_, e) = v.slot {
                arg_env.push((i as u16, e));
            }
        }
        self.in_block += 1;
        let mut body = Vec::new();
        let r = (|| {
            for s in &b.body {
                body.push(self.stmt(s)?);
            }
            Ok::<(), CompileErr>(())
        })();
        self.in_block -= 1;
        r?;
        self.vars.truncate(mark);
        let scope = self.reals.pop().unwrap();
        let code = BlockCode {
            num_args: b.args.len(),
            frame_size: (scope.next_stack as usize).max(b.args.len()),
            env_size: if scope.owns_env {
                scope.next_env as usize
            } else {
                0
            },
            arg_env,
            body,
            offset: b.offset,
            simple_site: if simple {
                Some(self.vm.new_site())
            } else {
                None
            },
        };
        let _ = scope.id;
        Ok(Node::Block(Arc::new(code)))
    }

    /// An inlined block: its args/temps become slots of the enclosing scope.
    fn inline_block(&mut self, e: &Expr) -> CResult<(Node, Option<Slot>)> {
        let Expr::Block(b) = e else {
            return cerr(ERR_SYNTAX, e.offset(), "expected a literal block", None);
        };
        check_block_names(b)?;
        let mark = self.vars.len();
        let mut arg_slot = None;
        let mut temps = vec![];
        for (a, _) in &b.args {
            arg_slot = Some(self.declare(a, false));
        }
        for (t, _) in &b.temps {
            temps.push(self.declare(t, false));
        }
        let mut body = Vec::new();
        let r = (|| {
            for s in &b.body {
                body.push(self.stmt(s)?);
            }
            Ok::<(), CompileErr>(())
        })();
        // slots as seen from here (depth 0 for env slots of this real scope)
        let temps_here: Vec<Slot> = temps;
        self.vars.truncate(mark);
        r?;
        // a block of one statement and no temporaries is that statement:
        // the interpreter then dispatches on it once, not on a sequence first
        if temps_here.is_empty() && body.len() == 1 {
            if let Some(only) = body.pop() {
                return Ok((only, arg_slot));
            }
        }
        Ok((Node::Seq(body, temps_here), arg_slot))
    }

    fn variable(&mut self, name: &str, off: usize) -> CResult<Node> {
        if let Some((slot, _)) = self.resolve_local(name) {
            return Ok(match slot {
                Slot::Stack(i) => Node::Temp(i),
                Slot::Env(d, i) => Node::EnvVar(d, i),
            });
        }
        match name {
            "self" | "super" => return Ok(Node::SelfRef),
            "thisContext" => {
                return cerr(
                    ERR_UNDEFINED,
                    off,
                    "thisContext is not supported",
                    Some(name),
                )
            }
            _ => {}
        }
        if let Some(i) = self.ivar_names.iter().position(|n| n == name) {
            let s = self.vm.intern(name);
            if !self.ivars_used.contains(&s) {
                self.ivars_used.push(s);
            }
            return Ok(Node::IVar(ivar_index(i, name, off)?));
        }
        match self.binding(name) {
            Some(a) => Ok(Node::Global(a)),
            None => cerr(
                ERR_UNDEFINED,
                off,
                format!("undefined symbol {name}"),
                Some(name),
            ),
        }
    }

    fn assignment(&mut self, name: &str, off: usize, v: Box<Node>) -> CResult<Node> {
        if let Some((slot, is_arg)) = self.resolve_local(name) {
            if is_arg {
                return cerr(
                    ERR_STORE_INTO_ARG,
                    off,
                    format!("cannot store into argument {name}"),
                    Some(name),
                );
            }
            return Ok(Node::SetSlot(slot, v));
        }
        if is_reserved(name) {
            return cerr(
                ERR_RESERVED,
                off,
                format!("cannot store into {name}"),
                Some(name),
            );
        }
        if let Some(i) = self.ivar_names.iter().position(|n| n == name) {
            let s = self.vm.intern(name);
            if !self.ivars_used.contains(&s) {
                self.ivars_used.push(s);
            }
            return Ok(Node::SetIVar(ivar_index(i, name, off)?, v));
        }
        match self.binding(name) {
            Some(a) => Ok(Node::SetGlobal(a, v)),
            None => cerr(
                ERR_UNDEFINED,
                off,
                format!("undefined symbol {name}"),
                Some(name),
            ),
        }
    }

    /// Class variables (own and inherited), pools, then the symbol list.
    fn binding(&mut self, name: &str) -> Option<Oop> {
        let sym = self.vm.heap.find_symbol(name)?;
        if let Some(cls) = self.class {
            let mut c = self.vm.heap.class_data(cls).map(|d| d.this_class);
            while let Some(cc) = c {
                let d = self.vm.heap.class_data(cc)?;
                if let Some(&(_, a)) = d.class_vars.iter().find(|(k, _)| *k == sym) {
                    self.literals.push(Value::Obj(a));
                    return Some(a);
                }
                let (pools, sup) = (d.pools.clone(), d.superclass);
                for p in pools {
                    if let Some(a) = self.vm.dict_assoc(p, Value::Obj(sym)) {
                        self.literals.push(Value::Obj(a));
                        return Some(a);
                    }
                }
                c = sup;
            }
        }
        for &d in &self.dicts {
            if let Some(a) = self.vm.dict_assoc(Value::Obj(d), Value::Obj(sym)) {
                self.literals.push(Value::Obj(a));
                return Some(a);
            }
        }
        None
    }

    fn send(&mut self, recv: &Expr, msg: &Msg) -> CResult<Node> {
        if let Some(kind) = inline_kind(recv, msg) {
            return self.inlined(kind, recv, msg);
        }
        let is_super = matches!(recv, Expr::Var(n, _) if n == "super");
        let r = if is_super {
            Node::SelfRef
        } else {
            self.expr(recv)?
        };
        let mut args = Vec::with_capacity(msg.args.len());
        for a in &msg.args {
            args.push(self.expr(a)?);
        }
        let selector = self.vm.intern(&msg.selector);
        self.note_send(selector);
        let super_of = if is_super {
            match self.class {
                Some(c) => Some(c),
                None => return cerr(ERR_SYNTAX, recv.offset(), "super outside a method", None),
            }
        } else {
            None
        };
        let special = if is_super {
            Special::None
        } else {
            Special::of(&msg.selector)
        };
        let site = self.vm.new_site();
        let leaf = |n: &Node| {
            matches!(
                n,
                Node::Temp(_) | Node::Const(_) | Node::SelfRef | Node::IVar(_) | Node::EnvVar(..)
            )
        };
        let leaf_special =
            special != Special::None && args.len() == 1 && leaf(&r) && leaf(&args[0]);
        let leaf_unary = args.is_empty()
            && super_of.is_none()
            && matches!(
                r,
                Node::Temp(_) | Node::SelfRef | Node::IVar(_) | Node::EnvVar(..)
            );
        Ok(Node::Send(Box::new(SendNode {
            recv: r,
            selector,
            args,
            site,
            super_of,
            special,
            leaf_special,
            leaf_unary,
            offset: msg.offset,
        })))
    }

    fn inlined(&mut self, kind: Inline, recv: &Expr, msg: &Msg) -> CResult<Node> {
        let a = &msg.args;
        let off = msg.offset;
        let nil = || Node::Const(Value::Nil);
        let site = self.vm.new_site();
        Ok(match kind {
            Inline::IfTrue | Inline::IfFalse | Inline::IfTrueIfFalse | Inline::IfFalseIfTrue => {
                let c = self.expr(recv)?;
                let (x, _) = self.inline_block(&a[0])?;
                let y = if a.len() > 1 {
                    self.inline_block(&a[1])?.0
                } else {
                    nil()
                };
                let (t, f) = match kind {
                    Inline::IfTrue | Inline::IfTrueIfFalse => (x, y),
                    _ => (y, x),
                };
                Node::If(Box::new((c, t, f)), site, off)
            }
            Inline::And | Inline::Or => {
                let c = self.expr(recv)?;
                let (b, _) = self.inline_block(&a[0])?;
                if kind == Inline::And {
                    Node::And(Box::new((c, b)), site, off)
                } else {
                    Node::Or(Box::new((c, b)), site, off)
                }
            }
            Inline::WhileTrue | Inline::WhileFalse | Inline::WhileTrue0 | Inline::WhileFalse0 => {
                let (c, _) = self.inline_block(recv)?;
                let body = if a.is_empty() {
                    nil()
                } else {
                    self.inline_block(&a[0])?.0
                };
                let until = matches!(kind, Inline::WhileTrue | Inline::WhileTrue0);
                Node::While(Box::new((c, body)), until, off)
            }
            Inline::Repeat => {
                let (b, _) = self.inline_block(recv)?;
                Node::Repeat(Box::new(b), off)
            }
            Inline::ToDo | Inline::ToByDo => {
                let from = self.expr(recv)?;
                let to = self.expr(&a[0])?;
                let by = if kind == Inline::ToByDo {
                    Some(self.expr(&a[1])?)
                } else {
                    None
                };
                let (body, slot) = self.inline_block(a.last().unwrap())?;
                let var = slot.unwrap_or(Slot::Stack(0));
                Node::ToDo(Box::new(ToDoNode {
                    var,
                    from,
                    to,
                    by,
                    body,
                    offset: off,
                }))
            }
            Inline::TimesRepeat => {
                let n = self.expr(recv)?;
                let (b, _) = self.inline_block(&a[0])?;
                Node::TimesRepeat(Box::new((n, b)), off)
            }
            Inline::IfNil | Inline::IfNotNil | Inline::IfNilIfNotNil | Inline::IfNotNilIfNil => {
                let v = self.expr(recv)?;
                let (nil_e, notnil_e) = match kind {
                    Inline::IfNil => (Some(&a[0]), None),
                    Inline::IfNotNil => (None, Some(&a[0])),
                    Inline::IfNilIfNotNil => (Some(&a[0]), Some(&a[1])),
                    _ => (Some(&a[1]), Some(&a[0])),
                };
                // compile in source order so declaration numbering matches pass 1
                let mut nil_branch = None;
                let mut not_nil = None;
                let order_nil_first = matches!(kind, Inline::IfNil | Inline::IfNilIfNotNil);
                if order_nil_first {
                    if let Some(e) = nil_e {
                        nil_branch = Some(self.inline_block(e)?.0);
                    }
                    if let Some(e) = notnil_e {
                        let (b, s) = self.inline_block(e)?;
                        not_nil = Some((s, b));
                    }
                } else {
                    if let Some(e) = notnil_e {
                        let (b, s) = self.inline_block(e)?;
                        not_nil = Some((s, b));
                    }
                    if let Some(e) = nil_e {
                        nil_branch = Some(self.inline_block(e)?.0);
                    }
                }
                if kind == Inline::IfNotNil {
                    // `x ifNotNil: [...]` answers nil when x is nil
                    nil_branch = Some(Node::Const(Value::Nil));
                }
                Node::IfNil(Box::new((v, nil_branch, not_nil)))
            }
        })
    }
}

fn check_block_names(b: &BlockAst) -> CResult<()> {
    let mut seen: Vec<&str> = vec![];
    for (n, o) in b.args.iter().chain(b.temps.iter()) {
        if seen.contains(&n.as_str()) {
            return cerr(
                ERR_DUPLICATE,
                *o,
                format!("duplicate variable name {n}"),
                Some(n),
            );
        }
        if is_reserved(n) {
            return cerr(ERR_RESERVED, *o, format!("{n} is a reserved name"), Some(n));
        }
        seen.push(n);
    }
    Ok(())
}

fn is_reserved(n: &str) -> bool {
    matches!(
        n,
        "self" | "super" | "nil" | "true" | "false" | "thisContext"
    )
}

fn trivial_of(body: &[Node]) -> Trivial {
    match body {
        [] => Trivial::SelfReturn,
        [Node::Return(e)] => match &**e {
            Node::SelfRef => Trivial::SelfReturn,
            Node::IVar(i) => Trivial::IVar(*i),
            Node::Const(v) if !matches!(v, Value::Obj(_)) => Trivial::Const(*v),
            _ => Trivial::No,
        },
        // a setter: its one statement stores the (only) argument
        [Node::SetIVar(i, e)] if matches!(**e, Node::Temp(0)) => Trivial::SetIVar(*i),
        _ => Trivial::No,
    }
}

impl Vm {
    /// The names of all instance variables of instances of `class`, inherited first.
    pub fn all_ivar_names(&self, class: Oop) -> Vec<String> {
        let mut chain = vec![];
        let mut c = Some(class);
        while let Some(cc) = c {
            let Some(d) = self.heap.class_data(cc) else {
                break;
            };
            chain.push(d.ivar_names.clone());
            c = d.superclass;
        }
        chain.reverse();
        chain
            .into_iter()
            .flatten()
            .map(|s| self.string_of(Value::Obj(s)).unwrap_or_default())
            .collect()
    }

    /// Creates the (invariant) object for a literal.
    pub fn literal_value(&mut self, l: &Lit) -> Value {
        match l {
            Lit::Nil => Value::Nil,
            Lit::True => Value::True,
            Lit::False => Value::False,
            Lit::Int(i) => self.int_value(i),
            Lit::Float(f) => Value::Float(*f),
            Lit::Scaled(n, d, s) => self.make_scaled(n.clone(), d.clone(), *s),
            Lit::Char(c) => Value::Char(*c as u32),
            Lit::Str(s) => {
                let v = self.new_string(s);
                if let Value::Obj(o) = v {
                    self.heap.set_invariant(o);
                }
                v
            }
            Lit::Sym(s) => self.sym(s),
            Lit::Array(items) => {
                let vals: Vec<Value> = items.iter().map(|i| self.literal_value(i)).collect();
                let v = self.new_array(vals);
                if let Value::Obj(o) = v {
                    self.heap.set_invariant(o);
                }
                v
            }
            Lit::Bytes(b) => {
                let o = self.heap.alloc(self.k.byte_array, Body::Bytes(b.clone()));
                self.heap.set_invariant(o);
                Value::Obj(o)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::bootstrap::new_vm;
    use crate::interp::Interrupter;

    fn vm() -> Vm {
        new_vm(Interrupter::default(), 1 << 30)
    }

    fn compile(vm: &mut Vm, src: &str, doit: bool) -> CResult<Compiled> {
        let dicts = vm.symbol_list_dicts();
        let class = if doit { None } else { Some(vm.k.association) };
        Compiler::new(vm, class, dicts).compile(src, doit, Value::Nil)
    }

    #[test]
    fn compile_errors_have_gemstone_numbers_and_offsets() {
        let mut v = vm();
        let table: &[(&str, bool, u32, usize)] = &[
            ("zork", true, ERR_UNDEFINED, 0),
            ("3 + zork", true, ERR_UNDEFINED, 4),
            ("foo ^ zork", false, ERR_UNDEFINED, 6),
            ("foo: a a := 3", false, ERR_STORE_INTO_ARG, 7),
            ("foo | a a | ^ 1", false, ERR_DUPLICATE, 8),
            ("foo | key | ^ 1", false, ERR_SHADOW_IVAR, 6),
            ("foo <primitive: 9999> ^ 1", false, ERR_PRIMITIVE, 4),
            ("self := 3", true, ERR_RESERVED, 0),
            ("[:a :a | a]", true, ERR_DUPLICATE, 5),
            ("thisContext", true, ERR_UNDEFINED, 0),
            ("3 +", true, ERR_SYNTAX, 3),
            ("[:x | x := 1]", true, ERR_SYNTAX, usize::MAX),
        ];
        let mut bad = vec![];
        for (src, doit, num, off) in table {
            match compile(&mut v, src, *doit) {
                Err(e) if e.number == *num && (e.offset == *off || *off == usize::MAX) => {}
                Err(_) if *off == usize::MAX => {}
                Ok(_) if *off == usize::MAX => {}
                Err(e) => bad.push(format!("{src}: want {num} at {off}, got {e:?}")),
                Ok(_) => bad.push(format!("{src}: want {num} at {off}, got success")),
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn captured_variables_get_environment_slots_only_when_needed() {
        let mut v = vm();
        let m = compile(&mut v, "| a b | a := 1. b := 2. a + b", true)
            .unwrap()
            .method;
        assert_eq!((m.env_size, m.frame_size), (0, 2));
        let m = compile(&mut v, "| a b | a := 1. b := [a]. b", true)
            .unwrap()
            .method;
        assert_eq!(m.env_size, 2, "outer link + a");
        assert_eq!(m.frame_size, 1, "only b stays on the stack");
        // inlined blocks do not capture
        let m = compile(
            &mut v,
            "| a | a := 0. 1 to: 3 do: [:i | a := a + i]. a",
            true,
        )
        .unwrap()
        .method;
        assert_eq!(m.env_size, 0);
        let m = compile(&mut v, "foo: x ^ [x]", false).unwrap().method;
        assert_eq!(m.arg_env, vec![(0, 1)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1500, ..Default::default() })]
        #[test]
        fn compiler_never_panics(s in "[a-z0-9:#$'()\\[\\]{}^.;| <>=+\\-*]{0,50}") {
            let mut v = vm();
            let _ = compile(&mut v, &s, true);
            let _ = compile(&mut v, &s, false);
        }
    }
}
