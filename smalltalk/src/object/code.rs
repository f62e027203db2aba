//! Compiled code: the resolved tree the compiler produces and the interpreter
//! walks. Variables are slots, globals are Associations, sends carry a cache
//! site number, control structures with literal blocks are inlined. Trees are
//! immutable after compilation (caches live in the interpreter), so they can be
//! shared through `Arc` and sent across threads with the session.

use crate::object::primitives::*;
use std::sync::Arc;

use crate::object::value::{Oop, Value};

/// Where a variable lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A slot on the value stack, relative to the frame base.
    Stack(u16),
    /// Slot `idx` of the environment `depth` hops out from the frame's own.
    Env(u16, u16),
}

/// Sends the interpreter may answer without a lookup when both operands are
/// SmallIntegers (or, for `==`/`~~`, always).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Special {
    None,
    Add,
    Sub,
    Mul,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    IdEq,
    IdNe,
    IntDiv,
    Mod,
    BitAnd,
    BitOr,
}

impl Special {
    pub fn of(sel: &str) -> Special {
        match sel {
            "+" => Special::Add,
            "-" => Special::Sub,
            "*" => Special::Mul,
            "<" => Special::Lt,
            ">" => Special::Gt,
            "<=" => Special::Le,
            ">=" => Special::Ge,
            "=" => Special::Eq,
            "~=" => Special::Ne,
            "==" => Special::IdEq,
            "~~" => Special::IdNe,
            "//" => Special::IntDiv,
            "\\\\" => Special::Mod,
            "bitAnd:" => Special::BitAnd,
            "bitOr:" => Special::BitOr,
            _ => Special::None,
        }
    }
}

#[derive(Debug)]
#[allow(dead_code)] // offsets are kept for positions in error reports
pub struct SendNode {
    pub recv: Node,
    pub selector: Oop,
    pub args: Vec<Node>,
    pub site: u32,
    /// For `super` sends: the class whose superclass starts the lookup.
    pub super_of: Option<Oop>,
    pub special: Special,
    /// A special selector whose receiver and argument are variables or
    /// constants: the interpreter tries `fast_special` before evaluating
    /// anything else (reading them again has no effect).
    pub leaf_special: bool,
    /// A unary send (not to `super`) whose receiver is a variable: the
    /// interpreter answers a getter found in the site's cache in place,
    /// without entering `eval_send` (see `Vm::cached_getter`).
    pub leaf_unary: bool,
    /// 0-based source offset of the selector.
    pub offset: usize,
}

#[derive(Debug)]
#[allow(dead_code)]
pub struct CascadePart {
    pub selector: Oop,
    pub args: Vec<Node>,
    pub site: u32,
    pub offset: usize,
    /// Messages sent in turn to this part's answer (`x foo; bar baz`: `baz`).
    pub chain: Vec<CascadePart>,
}

#[derive(Debug)]
#[allow(dead_code)]
pub struct ToDoNode {
    pub var: Slot,
    pub from: Node,
    pub to: Node,
    pub by: Option<Node>,
    pub body: Node,
    pub offset: usize,
}

#[derive(Debug)]
#[allow(dead_code)]
#[repr(u8)]
pub enum Node {
    Const(Value),
    SelfRef,
    Temp(u16),
    EnvVar(u16, u16),
    IVar(u16),
    /// Reads the value of an Association (a global, class or pool variable).
    Global(Oop),
    SetSlot(Slot, Box<Node>),
    SetIVar(u16, Box<Node>),
    SetGlobal(Oop, Box<Node>),
    Send(Box<SendNode>),
    Cascade(Box<Node>, Vec<CascadePart>),
    Block(Arc<BlockCode>),
    Brace(Vec<Node>),
    /// `^` in the method itself (or in a block inlined into it).
    Return(Box<Node>),
    /// `^` inside a real block: returns from the home method.
    NonLocalReturn(Box<Node>),
    /// Statements of an inlined block; answers the last value (nil if empty).
    /// The slots listed are reset to nil on entry (the block's own temporaries).
    Seq(Vec<Node>, Vec<Slot>),
    If(Box<(Node, Node, Node)>, u32, usize),
    And(Box<(Node, Node)>, u32, usize),
    Or(Box<(Node, Node)>, u32, usize),
    /// condition, body (Const nil if none), loop while condition is this value
    While(Box<(Node, Node)>, bool, usize),
    Repeat(Box<Node>, usize),
    ToDo(Box<ToDoNode>),
    TimesRepeat(Box<(Node, Node)>, usize),
    /// value, nil branch (None: answer the value), not-nil branch with its arg slot
    IfNil(Box<IfNilParts>),
}

#[derive(Debug)]
#[allow(dead_code)]
pub struct BlockCode {
    pub num_args: usize,
    /// Stack slots (args first).
    pub frame_size: usize,
    /// Environment size including the outer link (0: the block has no env of its own).
    pub env_size: usize,
    /// (argument index, env index) for arguments captured by inner blocks.
    pub arg_env: Vec<(u16, u16)>,
    pub body: Vec<Node>,
    pub offset: usize,
    /// For a simple block (no `self`, instance variables, outer temporaries or
    /// `^`): the cache site where the interpreter keeps its one closure.
    pub simple_site: Option<u32>,
}

/// A trivial method body the interpreter answers without a frame.
#[derive(Debug, Clone, Copy)]
#[repr(u8)]
pub enum Trivial {
    No,
    SelfReturn,
    IVar(u16),
    Const(Value),
    /// `ivar := argument` (answers the receiver): a setter.
    SetIVar(u16),
}

/// How a send runs a method, worked out once when it is compiled: the
/// primitives with their own fast path, any other primitive, a frameless
/// body, or a frame. One byte tag (with the instance variable index of a
/// getter or setter), so a send makes one dispatch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Dispatch {
    /// A real activation (`activate`).
    Frame,
    /// `^ self` (or an empty body).
    SelfReturn,
    /// `^ ivar`.
    IVar(u16),
    /// `^ constant` (the constant is `Method::trivial`'s).
    Const,
    /// `ivar := argument` (one argument).
    SetIVar(u16),
    /// Primitive 250 (a block's `value…`).
    Block,
    /// Primitives 5 and 22 with one argument (`basicAt:`, `at:`).
    At,
    /// Primitives 6 and 23 with two arguments (`basicAt:put:`, `at:put:`).
    AtPut,
    /// Primitives 4 and 21 without arguments (`basicSize`, `size`).
    Size,
    /// Primitives 405..407 and 425 (loops that call a block).
    Loop,
    /// The other collection primitives (400..429).
    Collection,
    /// Any other primitive.
    Prim,
}

impl Dispatch {
    /// The dispatch of a method with this primitive (0: none), argument
    /// count and frameless body.
    pub fn of(primitive: u16, num_args: usize, trivial: Trivial) -> Dispatch {
        match (primitive, num_args) {
            (0, _) => match trivial {
                Trivial::No => Dispatch::Frame,
                Trivial::SelfReturn => Dispatch::SelfReturn,
                Trivial::IVar(i) => Dispatch::IVar(i),
                Trivial::Const(_) => Dispatch::Const,
                Trivial::SetIVar(i) if num_args == 1 => Dispatch::SetIVar(i),
                Trivial::SetIVar(_) => Dispatch::Frame,
            },
            (BLOCK_VALUE, _) => Dispatch::Block,
            (OBJECT_BASIC_AT | OBJECT_AT, 1) => Dispatch::At,
            (OBJECT_BASIC_AT_PUT | OBJECT_AT_PUT, 2) => Dispatch::AtPut,
            (OBJECT_BASIC_SIZE | OBJECT_SIZE, 0) => Dispatch::Size,
            (OC_DO | SEQ_DO | SEQ_DO_WITH_INDEX | COLLECTION_DETECT_IF_NONE, _) => Dispatch::Loop,
            // the collection fast paths' family
            (400..=429, _) => Dispatch::Collection,
            _ => Dispatch::Prim,
        }
    }
}

#[derive(Debug)]
pub struct Method {
    pub selector: Oop,
    pub class: Oop,
    pub category: Value,
    pub source: String,
    pub num_args: usize,
    pub frame_size: usize,
    pub env_size: usize,
    pub arg_env: Vec<(u16, u16)>,
    pub body: Vec<Node>,
    pub primitive: u16,
    /// Literal objects and selectors the method references (for the collector and reflection).
    pub literals: Vec<Value>,
    pub sends: Vec<Oop>,
    pub ivars_used: Vec<Oop>,
    pub trivial: Trivial,
    /// How a send runs it (`Dispatch::of` its primitive, argument count and `trivial`).
    pub dispatch: Dispatch,
    /// Whether this is a doit (reported as `Executed Code`).
    pub doit: bool,
    /// Whether a block in the method returns with `^` (the activation then needs an id).
    pub needs_home: bool,
    /// The GsNMethod object wrapping this method (0 for doits before wrapping).
    pub oop: std::sync::atomic::AtomicU64,
}

/// value, nil branch (None: answer the value), not-nil branch with its argument slot.
pub type IfNilParts = (Node, Option<Node>, Option<(Option<Slot>, Node)>);
