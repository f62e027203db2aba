//! The Refactoring toolset: changes computed over many methods at once,
//! previewed before anything is written: `rename_method` and
//! `change_method_signature` (`selectors.rs`),
//! `generate_accessors` (`accessors.rs`), `push_up_methods`,
//! `push_down_methods` and `move_method` (`moves.rs`), `add_instance_variable`,
//! `remove_instance_variable`, `rename_instance_variable` and `rename_class`
//! (`shape.rs`), `extract_temporary`, `inline_temporary`, `extract_method`
//! and `inline_method` (`local.rs`).
//!
//! Every refactoring runs in two calls. The first (`dryRun` true, the default)
//! reads the methods the change touches through this toolset's expressions
//! (`refactoring.st`), rewrites their source in the worker with the embedded
//! stone's parser (`gsmcp_smalltalk::rewrite`, `extract`, `inline`), and
//! answers the change set — per method a unified diff (`diff.rs`), per class
//! definition the old and the new — and a `token` naming exactly that change
//! set and the session's view. The second call repeats the arguments
//! with `dryRun: false` and the token: the change set is computed again, and
//! written only if its token is the same (no affected method changed, the view
//! did not move); the writes go through the Mutation toolset's compile path.
//! Nothing commits.
//!
//! The guard runs on the whole change set before anything is written: a change
//! to an existing method or the definition of a kernel class refuses the
//! refactoring whole
//! unless the call passes `allowKernelEdits` (or the deployment turned
//! `Mutation.kernelGuard` off).

use super::mutation::compile;
use super::{evaluate_json, Annotations, Context, ErrorKind, Tool, ToolError, ToolOutput, Toolset};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use serde_json::{json, Value};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

mod accessors;
mod diff;
mod local;
mod moves;
mod selectors;
mod shape;

use expressions as st;

/// This toolset's expressions, cut from `refactoring.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/refactoring.rs"));
}

/// How many changes a preview's text shows with their diffs (all are in
/// `structuredContent`).
const SHOWN_DIFFS: usize = 50;

/// The Refactoring tools.
pub static TOOLS: [Tool; 14] = [
    Tool {
        name: "rename_method",
        title: "Rename a method",
        description:
            "Renames a selector within a scope: every implementor is recompiled under the \
new selector (and the old method removed), and every send of it in the scope's methods is \
rewritten, keyword part by keyword part; layout and comments are kept, a symbol naming the \
selector (#foo in perform:) is not a send and is listed as not rewritten. The new selector must \
take the same arguments (unary, binary, or the same number of keywords) and no implementor's \
class may have it already. By default (dryRun true) nothing is written: the answer is the change \
set — each method with a unified diff — and a token. Repeat the call with the same arguments, \
dryRun false and that token to write exactly that change set; it is refused if an affected \
method changed or the session's view moved since. A change to an existing method of a kernel \
class (bound in Globals under its own name) refuses the whole rename unless allowKernelEdits is \
true. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            Param {
                name: "selector",
                ty: ParamType::String,
                description: "The selector to rename (e.g. `total` or `at:put:`).",
                required: true,
            },
            Param {
                name: "newSelector",
                ty: ParamType::String,
                description:
                    "Its new name, taking the same arguments (e.g. `sum` or `store:into:`).",
                required: true,
            },
            SCOPE,
            SCOPE_CLASS,
            SCOPE_DICTIONARY,
            DRY_RUN,
            TOKEN,
            KERNEL_SENDERS,
        ],
        annotations: REWRITES,
        handler: selectors::rename_method,
    },
    Tool {
        name: "change_method_signature",
        title: "Change a method's signature",
        description: "Changes a selector's keyword parts and arguments within a scope: every \
implementor gets the new pattern (an old argument keeps its name, a new one gets its name from \
argumentNames) and every send in the scope passes the old arguments in their new places and each \
new argument's default expression (`nil` unless defaults says). permutation gives, for each \
argument of newSelector, the position (1-based) of the old argument it takes, or 0 for a new \
one; without it the old arguments keep their order and surplus ones are new (or the last old \
ones are dropped). Unary and keyword selectors only. Refused if an implementor uses an argument \
that is dropped, a send passes a dropped argument (or two reordered ones) that sends messages, \
a new argument's name is taken, or an implementor's class already has newSelector. Previewed \
first (dryRun true, the default: the diffs and a token); repeat with dryRun false and the \
token to write. The kernel guard is rename_method's. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            Param {
                name: "selector",
                ty: ParamType::String,
                description: "The selector to change (e.g. `at:put:` or `total`).",
                required: true,
            },
            Param {
                name: "newSelector",
                ty: ParamType::String,
                description: "The new selector (e.g. `put:at:`, `totalWith:`).",
                required: true,
            },
            Param {
                name: "permutation",
                ty: ParamType::IntegerArray,
                description: "For each argument of newSelector, the 1-based position of the old \
argument it takes, or 0 for a new argument (e.g. [2, 1] swaps two).",
                required: false,
            },
            Param {
                name: "defaults",
                ty: ParamType::StringArray,
                description: "For each new argument, in order, the expression the senders pass \
(default `nil`).",
                required: false,
            },
            Param {
                name: "argumentNames",
                ty: ParamType::StringArray,
                description: "For each new argument, in order, its name in the implementors \
(default newArgument1, newArgument2, ...).",
                required: false,
            },
            SCOPE,
            SCOPE_CLASS,
            SCOPE_DICTIONARY,
            DRY_RUN,
            TOKEN,
            KERNEL_SENDERS,
        ],
        annotations: REWRITES,
        handler: selectors::change_method_signature,
    },
    Tool {
        name: "generate_accessors",
        title: "Generate accessors",
        description: "Adds a getter (`name ^ name`) and a setter (`name: anObject name := \
anObject`) for instance variables the class defines itself (all of them unless instVarNames \
names some), in the category `accessing` unless another is given. An accessor the class already \
has is kept, never overwritten, and listed. By default (dryRun true) nothing is written: the \
answer is the new methods and a token; repeat the call with dryRun false and that token to \
write them. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            Param {
                name: "className",
                ty: ParamType::String,
                description: "The class (instance side).",
                required: true,
            },
            Param {
                name: "instVarNames",
                ty: ParamType::StringArray,
                description: "The instance variables to generate accessors for (default: every \
one the class defines itself).",
                required: false,
            },
            Param {
                name: "category",
                ty: ParamType::String,
                description: "The method category (default `accessing`).",
                required: false,
            },
            DRY_RUN,
            TOKEN,
        ],
        annotations: EDITS,
        handler: accessors::generate_accessors,
    },
    Tool {
        name: "push_up_methods",
        title: "Push methods up",
        description: "Moves methods a class defines itself (instance side, or the class side \
with meta) to its superclass: each is compiled there, in its category, and removed from the \
class. Refused whole if the superclass already defines one, if one uses an instance variable the \
superclass lacks, or sends to super (which would then reach another class); removing a method \
from a kernel class needs allowKernelEdits. The superclass's other subclasses inherit the moved \
methods. Previewed first (dryRun true, the default: the diffs and a token); repeat with dryRun \
false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: MOVE_PARAMS,
        annotations: REWRITES,
        handler: moves::push_up_methods,
    },
    Tool {
        name: "push_down_methods",
        title: "Push methods down",
        description: "Moves methods a class defines itself (instance side, or the class side \
with meta) into each of its direct subclasses that does not define them itself (those keep \
their own, listed as kept), and removes them from the class. Refused whole if one sends to super \
(which would then reach another class), or the class has no subclasses; removing a method from \
a kernel class needs allowKernelEdits. Previewed first (dryRun true, the default: the diffs and \
a token); repeat with dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: MOVE_PARAMS,
        annotations: REWRITES,
        handler: moves::push_down_methods,
    },
    Tool {
        name: "move_method",
        title: "Move a method to another class",
        description: "Moves a method a class defines itself to another class, on the same side: \
it is compiled there, in its category, and removed from the class. Refused if the other class \
defines the selector already, if the method uses an instance variable that class lacks, or sends \
to super; removing a method from a kernel class needs allowKernelEdits. Sends of the selector \
are not rewritten (the preview says so): move a method to where its receivers are, or to a \
superclass. Previewed first (dryRun true, the default: the diffs and a token); repeat with \
dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            METHOD_CLASS,
            METHOD_SELECTOR,
            METHOD_META,
            Param {
                name: "targetClassName",
                ty: ParamType::String,
                description: "The class to move it to.",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_METHOD,
        ],
        annotations: REWRITES,
        handler: moves::move_method,
    },
    Tool {
        name: "add_instance_variable",
        title: "Add an instance variable",
        description: "Adds an instance variable to a class's own definition. GemStone makes a \
new version of the class for it (and of each subclass, under the new version) and every method \
is compiled onto the new versions; existing instances stay instances of the old version until \
migrated. Refused if the class or a subclass already has an instance or class variable of that \
name, if a method declares an argument or temporary of that name, or if a method already uses \
it as a global. Previewed first (dryRun true, the default: the definition diff and a token); \
repeat with dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[CLASS_OF_SHAPE, IVAR, DRY_RUN, TOKEN, KERNEL_SHAPE],
        annotations: EDITS,
        handler: shape::add_instance_variable,
    },
    Tool {
        name: "remove_instance_variable",
        title: "Remove an instance variable",
        description: "Removes an instance variable the class defines itself, making new versions \
of the class and its subclasses as add_instance_variable does. Refused while any method of the \
class or its subclasses still uses it (they are named). Previewed first (dryRun true, the \
default); repeat with dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[CLASS_OF_SHAPE, IVAR, DRY_RUN, TOKEN, KERNEL_SHAPE],
        annotations: REWRITES,
        handler: shape::remove_instance_variable,
    },
    Tool {
        name: "rename_instance_variable",
        title: "Rename an instance variable",
        description: "Renames an instance variable the class defines itself: new versions of the \
class and its subclasses as add_instance_variable makes, with every use in their instance-side \
methods rewritten (a block's own variable of the same name is left alone). Refused if the new \
name is taken by an instance or class variable, declared by a method, already used as a global, \
or declared by a block around a use. Previewed first (dryRun true, the default: the definition \
diff, the method diffs and a token); repeat with dryRun false and the token to write. Does not \
commit.",
        toolset: Toolset::Refactoring,
        params: &[
            CLASS_OF_SHAPE,
            IVAR,
            Param {
                name: "newName",
                ty: ParamType::String,
                description: "Its new name.",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_SHAPE,
        ],
        annotations: REWRITES,
        handler: shape::rename_instance_variable,
    },
    Tool {
        name: "rename_class",
        title: "Rename a class",
        description: "Renames a class: a new version of it under the new name, bound in the \
dictionary that binds the class now (the old name is unbound; class variables keep their values), with new versions of its subclasses under \
it, every method carried over, and every method of the symbol list that refers to the class \
rewritten to the new name (a name in a comment, string or symbol is not a reference). Existing \
instances stay instances of the old class. Refused if the new name is bound already, or a \
method declares it where it refers to the class. Previewed first (dryRun true, the default: \
the definition diff, the method diffs and a token); repeat with dryRun false and the token to \
write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            Param {
                name: "className",
                ty: ParamType::String,
                description: "The class to rename.",
                required: true,
            },
            Param {
                name: "newName",
                ty: ParamType::String,
                description: "Its new name.",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_SHAPE,
        ],
        annotations: REWRITES,
        handler: shape::rename_class,
    },
    Tool {
        name: "extract_temporary",
        title: "Extract a temporary",
        description: "Replaces an expression of a method (a 1-based, inclusive character range \
of its source as get_method_source answers it) by a new temporary, assigned the expression just \
before the statement holding it and declared in the method or in the block that statement is \
in. Refused if the range is not one whole expression, the name is taken, or the statement \
assigns a variable the expression reads before it. Previewed first (dryRun true, the default: \
the diff and a token); repeat with dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            METHOD_CLASS,
            METHOD_SELECTOR,
            METHOD_META,
            START,
            STOP,
            Param {
                name: "newName",
                ty: ParamType::String,
                description: "The new temporary's name.",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_METHOD,
        ],
        annotations: EDITS,
        handler: local::extract_temporary,
    },
    Tool {
        name: "inline_temporary",
        title: "Inline a temporary",
        description: "Replaces each read of a temporary by the value it is assigned, and removes \
the assignment and the declaration. The temporary must be assigned exactly once, by a statement \
of its own where it is declared, before any read. Refused when that would change what the method \
does: a value that sends messages read more than once or inside a block (it would be evaluated \
at each read), or a variable the value reads assigned before a read. Previewed first (dryRun \
true, the default); repeat with dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            METHOD_CLASS,
            METHOD_SELECTOR,
            METHOD_META,
            Param {
                name: "name",
                ty: ParamType::String,
                description: "The temporary to inline.",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_METHOD,
        ],
        annotations: EDITS,
        handler: local::inline_temporary,
    },
    Tool {
        name: "extract_method",
        title: "Extract a method",
        description: "Moves an expression or a run of whole statements of a method (a 1-based, \
inclusive character range of its source as get_method_source answers it) into a new method of \
the same class and side, and sends it to self in their place. The new method's arguments are \
the method's variables the selection reads, in order of first use, so newSelector must take \
that many; a temporary only the selection uses moves into it; an extracted expression is \
answered (^). Refused if the selection returns (^), uses thisContext, or assigns a variable the \
method uses outside it, or if the class already understands newSelector or a subclass \
implements it. Previewed first (dryRun true, the default: the diffs and a token); repeat with \
dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            METHOD_CLASS,
            METHOD_SELECTOR,
            METHOD_META,
            START,
            STOP,
            Param {
                name: "newSelector",
                ty: ParamType::String,
                description: "The new method's selector (e.g. `total` or `write:on:`).",
                required: true,
            },
            DRY_RUN,
            TOKEN,
            KERNEL_METHOD,
        ],
        annotations: EDITS,
        handler: local::extract_method,
    },
    Tool {
        name: "inline_method",
        title: "Inline a method",
        description: "Replaces a send to self or super in a method (the 1-based, inclusive \
character range of the whole send, receiver included, in the source get_method_source answers) \
by the body of the method it reaches: arguments that are variables or literals are substituted, \
others are assigned once to a new temporary; the inlined method's temporaries are declared in \
the caller (renamed where the caller uses the name); its answer takes the send's place. The \
inlined method stays. Refused if it is a primitive, returns (^) before its end, uses \
thisContext or (from another class) super, if a subclass implements the selector too (for a \
send to self), or if the send sits inside a larger expression and the method has more than \
one statement. Previewed first (dryRun true, the default: the diff and a token); repeat with \
dryRun false and the token to write. Does not commit.",
        toolset: Toolset::Refactoring,
        params: &[
            METHOD_CLASS,
            METHOD_SELECTOR,
            METHOD_META,
            START,
            STOP,
            DRY_RUN,
            TOKEN,
            KERNEL_METHOD,
        ],
        annotations: EDITS,
        handler: local::inline_method,
    },
];

/// The class of the method a method-local refactoring edits.
const METHOD_CLASS: Param = Param {
    name: "className",
    ty: ParamType::String,
    description: "The class of the method.",
    required: true,
};

/// The method a method-local refactoring edits.
const METHOD_SELECTOR: Param = Param {
    name: "selector",
    ty: ParamType::String,
    description: "The method's selector.",
    required: true,
};

const METHOD_META: Param = Param {
    name: "meta",
    ty: ParamType::Boolean,
    description: "true for a class-side method (default false).",
    required: false,
};

const START: Param = Param {
    name: "start",
    ty: ParamType::Integer,
    description: "The selection's first character: a 1-based position in the method's source as \
get_method_source answers it.",
    required: true,
};

const STOP: Param = Param {
    name: "stop",
    ty: ParamType::Integer,
    description: "The selection's last character (1-based, inclusive).",
    required: true,
};

/// Changing an existing kernel method.
const KERNEL_METHOD: Param =
    Param::allow_kernel_edits("Change a method of a kernel class too (default false).");

/// A refactoring that adds or edits methods without removing any.
const EDITS: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: false,
};

/// Where a selector refactoring rewrites.
const SCOPE: Param = Param {
    name: "scope",
    ty: ParamType::String,
    description: "Where to rewrite: `class` (that class, both sides), `hierarchy` (the class, its \
superclasses and its subclasses), `dictionary` (the classes a dictionary binds) or `system` \
(every class of the symbol list; the default).",
    required: false,
};

const SCOPE_CLASS: Param = Param {
    name: "className",
    ty: ParamType::String,
    description: "The class of a `class` or `hierarchy` scope.",
    required: false,
};

const SCOPE_DICTIONARY: Param = Param {
    name: "dictionaryName",
    ty: ParamType::String,
    description: "The dictionary of a `dictionary` scope.",
    required: false,
};

/// Changing kernel methods in a selector refactoring.
const KERNEL_SENDERS: Param = Param::allow_kernel_edits(
    "Change existing methods of kernel classes too (default false: such a change \
refuses the whole change set).",
);

/// The class whose definition a shape refactoring changes.
const CLASS_OF_SHAPE: Param = Param {
    name: "className",
    ty: ParamType::String,
    description: "The class (its instance side).",
    required: true,
};

/// The instance variable a shape refactoring adds, removes or renames.
const IVAR: Param = Param {
    name: "name",
    ty: ParamType::String,
    description: "The instance variable's name.",
    required: true,
};

/// Changing a kernel class's definition.
const KERNEL_SHAPE: Param =
    Param::allow_kernel_edits("Make a new version of a kernel class too (default false).");

/// The parameters of the tools that move methods.
const MOVE_PARAMS: &[Param] = &[
    Param {
        name: "className",
        ty: ParamType::String,
        description: "The class whose methods move.",
        required: true,
    },
    Param {
        name: "selectors",
        ty: ParamType::StringArray,
        description: "The selectors of the methods to move (each defined by the class itself).",
        required: true,
    },
    Param {
        name: "meta",
        ty: ParamType::Boolean,
        description: "true for the class side (default false: the instance side).",
        required: false,
    },
    DRY_RUN,
    TOKEN,
    Param::allow_kernel_edits("Remove methods from a kernel class too (default false)."),
];

/// A refactoring that may remove or replace methods or class versions.
const REWRITES: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: false,
};

/// Every refactoring's choice between preview and apply.
const DRY_RUN: Param = Param {
    name: "dryRun",
    ty: ParamType::Boolean,
    description: "true (the default): answer the change set and its token, write nothing; \
false: write the change set the token names.",
    required: false,
};

/// The token that names a previewed change set.
const TOKEN: Param = Param {
    name: "token",
    ty: ParamType::String,
    description: "The token a preview (dryRun true) answered; needed with dryRun false.",
    required: false,
};

/// A preview's answer: `summary`, then the diffs of the first
/// [`SHOWN_DIFFS`] changes; in `structuredContent` the token, every change
/// and the fields of `extra`.
fn preview_output(summary: String, token: String, changes: &[Change], extra: Value) -> ToolOutput {
    let mut text = summary;
    for c in changes.iter().take(SHOWN_DIFFS) {
        text.push('\n');
        text.push_str(&diff::unified(&c.old, &c.new, &c.name()));
    }
    if changes.len() > SHOWN_DIFFS {
        text.push_str(&format!(
            "\n… and {} more (every diff is in structuredContent.changes)",
            changes.len() - SHOWN_DIFFS
        ));
    }
    let mut structured = json!({
        "dryRun": true,
        "token": token,
        "changes": changes.iter().map(Change::json).collect::<Vec<_>>(),
    });
    if let (Value::Object(fields), Value::Object(more)) = (&mut structured, extra) {
        fields.extend(more);
    }
    ToolOutput { text, structured }
}

/// One method a refactoring changes.
struct Change {
    class: String,
    meta: bool,
    /// The method's selector now.
    selector: String,
    /// Its selector afterwards (an implementor renamed), or the same.
    new_selector: String,
    category: Option<String>,
    kernel: bool,
    old: String,
    new: String,
    sends: usize,
}

impl Change {
    fn name(&self) -> String {
        let side = if self.meta { " class" } else { "" };
        format!("{}{side}>>{}", self.class, self.selector)
    }

    fn json(&self) -> Value {
        let kind = match (self.selector != self.new_selector, self.sends > 0) {
            _ if self.old.is_empty() => "add",
            _ if self.new.is_empty() => "remove",
            (true, true) => "renameAndRewrite",
            (true, false) => "rename",
            _ => "rewrite",
        };
        json!({
            "className": self.class,
            "meta": self.meta,
            "selector": self.selector,
            "newSelector": self.new_selector,
            "category": self.category,
            "kind": kind,
            "sends": self.sends,
            "kernel": self.kernel,
            "diff": diff::unified(&self.old, &self.new, &self.name()),
        })
    }
}

/// What a selector is: unary, binary or keyword, and how many arguments.
fn selector_shape(selector: &str) -> Option<(&'static str, usize)> {
    let ident = |s: &str| {
        let mut c = s.chars();
        matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
            && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some(body) = selector.strip_suffix(':') {
        return body
            .split(':')
            .all(ident)
            .then(|| ("keyword", selector.matches(':').count()));
    }
    if ident(selector) {
        return Some(("unary", 0));
    }
    const BINARY: &str = "+-*/\\<>=~@%|&?,";
    (!selector.is_empty() && selector.chars().all(|c| BINARY.contains(c))).then_some(("binary", 1))
}

fn refused(message: String) -> ToolError {
    ToolError::new(ErrorKind::Refused, message)
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorKind::InvalidParams, message)
}

/// The token of a change set: the call's arguments, the session's view and
/// every change's old and new source.
fn token_of(cx: &Context<'_>, tool: &str, changes: &[Change]) -> String {
    token_with(cx, tool, changes, &[])
}

/// [`token_of`] naming also `more`: what else the change set depends on
/// (sources it copies, definitions it replaces).
fn token_with(cx: &Context<'_>, tool: &str, changes: &[Change], more: &[&str]) -> String {
    let mut h = DefaultHasher::new();
    more.hash(&mut h);
    let mut args: Vec<(&String, String)> = cx
        .args
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "dryRun" | "token"))
        .map(|(k, v)| (k, v.to_string()))
        .collect();
    args.sort();
    args.hash(&mut h);
    format!("{:?}", cx.login.transaction_mark()).hash(&mut h);
    for c in changes {
        (&c.class, c.meta, &c.selector, &c.old, &c.new).hash(&mut h);
    }
    format!("{tool}.{:016x}", h.finish())
}

/// The call's mode: a preview (`dryRun` true, the default), or the token to
/// apply, which must then be given.
fn mode<'a>(cx: &Context<'a>) -> Result<Option<&'a str>, ToolError> {
    if cx.args.get("dryRun").and_then(Value::as_bool) != Some(false) {
        return Ok(None);
    }
    cx.str_arg("token").map(Some).ok_or_else(|| {
        invalid(
            "dryRun false writes the change set a preview named: pass the token the preview \
(the same call with dryRun true) answered",
        )
    })
}

/// A refactoring's end: the preview, the refusal of a stale token, or the
/// apply.
fn conclude<'a, 'b>(
    given: Option<&str>,
    token: String,
    preview: impl FnOnce(String) -> ToolOutput,
    apply: impl FnOnce(&mut Context<'b>) -> Result<ToolOutput, ToolError>,
    cx: &'a mut Context<'b>,
) -> Result<ToolOutput, ToolError> {
    match given {
        None => Ok(preview(token)),
        Some(given) if given != token => Err(stale()),
        Some(_) => apply(cx),
    }
}

/// The refusal of a token that no longer names the change set.
fn stale() -> ToolError {
    refused(
        "refused: the change set is no longer the one the token names — an affected \
method changed, or the session's view moved (refresh, abort, commit), since the preview; \
nothing was changed. Preview again (dryRun true) and apply the new token"
            .into(),
    )
}

/// Writes a change set: every change with new source is compiled through the
/// Mutation toolset's compile path, then every method a change removes (no
/// new source) or renames is removed; on a failure part way, says what was
/// written before it.
fn write(cx: &mut Context<'_>, what: &str, changes: &[Change]) -> Result<Vec<String>, ToolError> {
    let mut written: Vec<String> = Vec::new();
    for c in changes.iter().filter(|c| !c.new.is_empty()) {
        if let Err(e) = compile(cx, &c.class, c.meta, &c.new, c.category.as_deref()) {
            return Err(partial(what, &written, e));
        }
        written.push(c.name());
    }
    for c in changes
        .iter()
        .filter(|c| c.new.is_empty() || c.selector != c.new_selector)
    {
        let answer = evaluate_json(
            cx.login,
            &st::RemoveMethod {
                class_name: Literal::symbol(&c.class),
                selector: Literal::symbol(&c.selector),
                meta: Literal::boolean(c.meta),
            },
        );
        match answer {
            Ok(a) if a.get("error").is_none() => {
                cx.ledger.wrote_method(&c.class, c.meta, &c.selector);
                written.push(format!("removed {}", c.name()));
            }
            Ok(a) => {
                let e = ToolError::new(
                    ErrorKind::Other,
                    format!("removing {} failed: {}", c.name(), a["error"]),
                );
                return Err(partial(what, &written, e));
            }
            Err(e) => return Err(partial(what, &written, e)),
        }
    }
    Ok(written)
}

/// A failure part way through writing a change set.
fn partial(what: &str, written: &[String], e: ToolError) -> ToolError {
    let mut err = ToolError::new(
        e.kind,
        format!(
            "{what} stopped part way: {}; {} change(s) were written before it and stay in the \
transaction (abort discards them): {}",
            e.message,
            written.len(),
            written.join(", ")
        ),
    );
    err.details.insert("written".into(), json!(written));
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_shapes() {
        let table = [
            ("foo", Some(("unary", 0))),
            ("at:put:", Some(("keyword", 2))),
            ("x_1:", Some(("keyword", 1))),
            ("+", Some(("binary", 1))),
            ("<=", Some(("binary", 1))),
            ("", None),
            ("at:put", None),
            ("1foo", None),
            ("foo bar", None),
            (":", None),
            ("a::", None),
        ];
        for (selector, shape) in table {
            assert_eq!(selector_shape(selector), shape, "{selector:?}");
        }
    }
}
