//! The syntax tree the parser produces: GemStone Smalltalk methods and doits with
//! a source offset (0-based byte offset) on every node. It owns the shape of the
//! source only; names are resolved later by `compiler`.

use num_bigint::BigInt;

/// A literal constant as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Nil,
    True,
    False,
    Int(BigInt),
    Float(f64),
    /// numerator, denominator, scale
    Scaled(BigInt, BigInt, u32),
    Char(char),
    Str(String),
    Sym(String),
    Array(Vec<Lit>),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
pub enum Expr {
    Lit(Lit, usize),
    Var(String, usize),
    Assign(String, usize, Box<Expr>),
    Send(Box<Send>),
    /// The first message's receiver, then each cascade part (each part's first
    /// message goes to that receiver).
    Cascade(Box<Expr>, Vec<CascadeMsg>, usize),
    Block(Box<BlockAst>),
    Brace(Vec<Expr>, usize),
}

impl Expr {
    pub fn offset(&self) -> usize {
        match self {
            Expr::Lit(_, o)
            | Expr::Var(_, o)
            | Expr::Assign(_, o, _)
            | Expr::Cascade(_, _, o)
            | Expr::Brace(_, o) => *o,
            Expr::Send(s) => s.recv.offset(),
            Expr::Block(b) => b.offset,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Msg {
    pub selector: String,
    pub args: Vec<Expr>,
    /// Offset of the (first keyword of the) selector.
    pub offset: usize,
}

/// One part of a cascade: a message to the cascade's receiver, then any
/// further messages each sent to the previous one's answer (`x foo; bar baz`
/// sends `bar` to x and `baz` to what `bar` answered).
#[derive(Debug, Clone)]
pub struct CascadeMsg {
    pub msg: Msg,
    pub chain: Vec<Msg>,
}

#[derive(Debug, Clone)]
pub struct Send {
    pub recv: Expr,
    pub msg: Msg,
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    Return(Expr, usize),
}

#[derive(Debug, Clone)]
pub struct BlockAst {
    pub args: Vec<(String, usize)>,
    pub temps: Vec<(String, usize)>,
    pub body: Vec<Stmt>,
    pub offset: usize,
}

#[derive(Debug, Clone)]
pub struct MethodAst {
    pub selector: String,
    pub args: Vec<(String, usize)>,
    pub temps: Vec<(String, usize)>,
    pub primitive: Option<(u32, usize)>,
    pub body: Vec<Stmt>,
    /// Offset where the body (temporaries/statements) begins.
    pub body_offset: usize,
}
