//! The names a doit depends on: every selector it sends (inlined control
//! messages included: GemStone's compiler inlines the same ones) and every
//! global it reads or assigns (an identifier no temporary, argument or
//! pseudo-variable declares). The worker's census test uses it to hold every
//! tool's Smalltalk to the table of names GemStone 3.7 is known to have.
//!
//! It also recognises a *declarative* doit ([`literal_message`]): one message
//! to a global whose arguments are literals or globals, the shape of a class
//! definition in a topaz file-out (`Object subclass: 'Foo' instVarNames: #(a)
//! … inDictionary: UserGlobals`), so a file-in can tell it from code.
//!
//! It reads the syntax tree only; it resolves nothing and runs nothing.

use crate::syntax::ast::{BlockAst, Expr, Lit, Msg, Stmt};
use crate::syntax::parser::{parse_doit, parse_method, SyntaxError};
use std::collections::BTreeSet;

/// The selectors and globals of one doit.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Names {
    /// Every selector the doit sends.
    pub selectors: BTreeSet<String>,
    /// Every global name it reads (in a method: instance variables too).
    pub globals: BTreeSet<String>,
    /// Whether it sends to `super`.
    pub super_sends: bool,
}

const PSEUDO: &[&str] = &["self", "super", "nil", "true", "false", "thisContext"];

/// The names `source`, a doit, depends on.
pub fn names_in_doit(source: &str) -> Result<Names, SyntaxError> {
    let doit = parse_doit(source)?;
    let mut walk = Walk {
        names: Names::default(),
        scopes: vec![doit.temps.iter().map(|(n, _)| n.clone()).collect()],
    };
    walk.stmts(&doit.body);
    Ok(walk.names)
}

/// The names `source`, a method, depends on: its arguments and temporaries
/// are declared, so `globals` holds the instance variables, class variables
/// and globals it names.
pub fn names_in_method(source: &str) -> Result<Names, SyntaxError> {
    let method = parse_method(source)?;
    let declared = method.args.iter().chain(&method.temps);
    let mut walk = Walk {
        names: Names::default(),
        scopes: vec![declared.map(|(n, _)| n.clone()).collect()],
    };
    walk.stmts(&method.body);
    Ok(walk.names)
}

/// A doit that is one message to a global with literal or global arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralMessage {
    /// The global the message is sent to (e.g. `Object`).
    pub receiver: String,
    /// The message's selector (e.g. `subclass:instVarNames:…`).
    pub selector: String,
    /// The first argument when it is a string or symbol literal (a class
    /// definition's new class name, a comment).
    pub first: Option<String>,
}

/// `source` as a [`LiteralMessage`], or None when it is anything else: temporaries,
/// more than one statement, a cascade, a block, a send or assignment among
/// the arguments, a syntax error.
pub fn literal_message(source: &str) -> Option<LiteralMessage> {
    let doit = parse_doit(source).ok()?;
    let ([Stmt::Expr(Expr::Send(send))] | [Stmt::Return(Expr::Send(send), _)]) =
        doit.body.as_slice()
    else {
        return None;
    };
    if !doit.temps.is_empty() {
        return None;
    }
    let Expr::Var(receiver, _) = &send.recv else {
        return None;
    };
    let global = |name: &str| !PSEUDO.contains(&name);
    let plain = |e: &Expr| match e {
        Expr::Lit(..) => true,
        Expr::Var(name, _) => global(name),
        _ => false,
    };
    if !global(receiver) || !send.msg.args.iter().all(plain) {
        return None;
    }
    let first = match send.msg.args.first() {
        Some(Expr::Lit(Lit::Str(text) | Lit::Sym(text), _)) => Some(text.clone()),
        _ => None,
    };
    Some(LiteralMessage {
        receiver: receiver.clone(),
        selector: send.msg.selector.clone(),
        first,
    })
}

struct Walk {
    names: Names,
    scopes: Vec<Vec<String>>,
}

impl Walk {
    fn declared(&self, name: &str) -> bool {
        PSEUDO.contains(&name) || self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }

    fn variable(&mut self, name: &str) {
        if !self.declared(name) {
            self.names.globals.insert(name.to_string());
        }
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::Expr(e) | Stmt::Return(e, _) => self.expr(e),
            }
        }
    }

    fn msg(&mut self, m: &Msg) {
        self.names.selectors.insert(m.selector.clone());
        for a in &m.args {
            self.expr(a);
        }
    }

    fn block(&mut self, b: &BlockAst) {
        let scope = b
            .args
            .iter()
            .chain(&b.temps)
            .map(|(n, _)| n.clone())
            .collect();
        self.scopes.push(scope);
        self.stmts(&b.body);
        self.scopes.pop();
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(..) => {}
            Expr::Var(name, _) => {
                self.names.super_sends |= name == "super";
                self.variable(name)
            }
            Expr::Assign(name, _, value) => {
                self.variable(name);
                self.expr(value);
            }
            Expr::Send(s) => {
                self.expr(&s.recv);
                self.msg(&s.msg);
            }
            Expr::Cascade(recv, parts, _) => {
                self.expr(recv);
                for p in parts {
                    self.msg(&p.msg);
                    for m in &p.chain {
                        self.msg(m);
                    }
                }
            }
            Expr::Block(b) => self.block(b),
            Expr::Brace(items, _) => {
                for i in items {
                    self.expr(i);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_globals_of_a_doit() {
        let table: &[(&str, &[&str], &[&str])] = &[
            ("3 + 4", &["+"], &[]),
            (
                "| a | a := Array new: 3. a at: 1 put: Foo",
                &["new:", "at:put:"],
                &["Array", "Foo"],
            ),
            (
                "[:x | | y | y := x. y printString] value: Bar",
                &["printString", "value:"],
                &["Bar"],
            ),
            (
                "Transcript show: 'a'; cr; yourself",
                &["show:", "cr", "yourself"],
                &["Transcript"],
            ),
            (
                "x ifTrue: [self] ifFalse: [nil]",
                &["ifTrue:ifFalse:"],
                &["x"],
            ),
            ("{ System. 1 }", &[], &["System"]),
            ("Global := 3", &[], &["Global"]),
        ];
        for &(src, sels, globals) in table {
            let n = names_in_doit(src).unwrap();
            let want_s: BTreeSet<String> = sels.iter().map(|s| s.to_string()).collect();
            let want_g: BTreeSet<String> = globals.iter().map(|s| s.to_string()).collect();
            assert_eq!((n.selectors, n.globals), (want_s, want_g), "{src}");
        }
    }

    #[test]
    fn names_of_a_method() {
        let n = names_in_method("at: i put: v | t | t := items. ^ super at: i put: (t , Extra)")
            .unwrap();
        let globals: Vec<&str> = n.globals.iter().map(String::as_str).collect();
        assert_eq!(globals, ["Extra", "items"]);
        assert!(n.super_sends);
        assert!(!names_in_method("foo ^ self").unwrap().super_sends);
    }

    #[test]
    fn literal_messages() {
        // (doit, receiver, selector, first argument); None: not a literal message
        type Expected = Option<(&'static str, &'static str, Option<&'static str>)>;
        let table: &[(&str, Expected)] = &[
            (
                "Object subclass: 'Foo'\n  instVarNames: #( a b)\n  classVars: #()\n  \
                 inDictionary: UserGlobals\n  options: #()\n",
                Some((
                    "Object",
                    "subclass:instVarNames:classVars:inDictionary:options:",
                    Some("Foo"),
                )),
            ),
            (
                "Foo comment: \n'It''s a foo'",
                Some(("Foo", "comment:", Some("It's a foo"))),
            ),
            (
                "^ Foo category: #Bar",
                Some(("Foo", "category:", Some("Bar"))),
            ),
            (
                "Foo removeAllMethods",
                Some(("Foo", "removeAllMethods", None)),
            ),
            ("Foo at: 1 put: Bar", Some(("Foo", "at:put:", None))),
            ("Foo comment: 'a'. Foo halt", None),
            ("Foo comment: 'a' , 'b'", None),
            ("Foo comment: Bar new", None),
            ("Foo comment: 'a'; halt", None),
            ("Foo comment: [1]", None),
            ("self comment: 'a'", None),
            ("Foo comment: self", None),
            ("| x | Foo comment: 'a'", None),
            ("Foo", None),
            ("Foo comment: (", None),
        ];
        for &(src, want) in table {
            let got = literal_message(src);
            let want = want.map(|(r, s, f)| LiteralMessage {
                receiver: r.into(),
                selector: s.into(),
                first: f.map(String::from),
            });
            assert_eq!(got, want, "{src}");
        }
    }
}
