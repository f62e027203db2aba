//! Topaz-style file-in: `doit`/`run`/`printit` … `%`, `category:`,
//! `method:`/`classmethod:` … `%`, `set class`, `removeallmethods`,
//! `removeallclassmethods`, `!` comments; other topaz commands are accepted and
//! ignored. It drives the VM; it must not know Smalltalk semantics itself.

use crate::interp::{Failure, Unwind, Unwinding, Vm};
use crate::object::value::{Oop, Value};

/// Why a file-in stopped: the 1-based line of the chunk and what went wrong.
#[derive(Debug, Clone)]
pub struct FileInError {
    pub line: usize,
    pub message: String,
    pub failure: Option<Failure>,
}

const IGNORED: &[&str] = &[
    "expectvalue",
    "output",
    "errorcount",
    "commit",
    "abort",
    "level",
    "display",
    "omit",
    "iferr",
    "iferror",
    "time",
    "logout",
    "login",
    "exit",
    "status",
    "limit",
    "fileformat",
    "env",
    "input",
    "send",
    "print",
    "list",
    "break",
    "stk",
    "where",
    "obj",
    "begin",
    "quit",
    "inspect",
    "unset",
    "define",
    "outputpop",
    "outputpush",
    "pkgstatus",
    "gciversion",
    "hierarchy",
    "lookup",
    "senders",
    "implementors",
];

impl Vm {
    fn class_named(&mut self, name: &str) -> Option<Oop> {
        let sym = self.heap.find_symbol(name)?;
        for d in self.symbol_list_dicts() {
            if let Some(a) = self.dict_assoc(Value::Obj(d), Value::Obj(sym)) {
                if let Value::Obj(c) = self.heap.slot(a, 1) {
                    if self.heap.class_data(c).is_some() {
                        return Some(c);
                    }
                }
                return None;
            }
        }
        None
    }

    /// Files in topaz source. Stops at the first failing chunk.
    pub fn file_in(&mut self, text: &str) -> Result<(), FileInError> {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        let mut category = String::from("as yet unclassified");
        let mut current: Option<String> = None;
        let fail = |line: usize, message: String| {
            Err(FileInError {
                line,
                message,
                failure: None,
            })
        };
        while i < lines.len() {
            let line = lines[i].trim_end_matches('\r');
            let start = i + 1;
            i += 1;
            let t = line.trim();
            if t.is_empty() || t.starts_with('!') {
                continue;
            }
            let (cmd, rest) = match t.split_once(char::is_whitespace) {
                Some((c, r)) => (c, r.trim()),
                None => (t, ""),
            };
            let lc = cmd.to_ascii_lowercase();
            let mut chunk = || -> Result<String, FileInError> {
                let mut body = Vec::new();
                while i < lines.len() {
                    let l = lines[i].trim_end_matches('\r');
                    i += 1;
                    if l.trim_end() == "%" {
                        return Ok(body.join("\n"));
                    }
                    body.push(l);
                }
                Err(FileInError {
                    line: start,
                    message: "chunk not terminated by %".into(),
                    failure: None,
                })
            };
            match lc.as_str() {
                "doit" | "run" | "printit" | "nbrun" => {
                    let src = chunk()?;
                    self.reset_transient();
                    let r = self.evaluate_source(&src);
                    let r = self.finish_evaluation(r);
                    if let Err(f) = r {
                        return Err(FileInError {
                            line: start,
                            message: f.description.clone(),
                            failure: Some(f),
                        });
                    }
                }
                "category:" => {
                    category = rest.trim_matches('\'').to_string();
                }
                "method:" | "classmethod:" | "method" | "classmethod" => {
                    let cname = if rest.is_empty() {
                        current.clone()
                    } else {
                        Some(rest.to_string())
                    };
                    let src = chunk()?;
                    let Some(cname) = cname else {
                        return fail(start, "method: without a class".into());
                    };
                    let Some(mut class) = self.class_named(&cname) else {
                        return fail(start, format!("class {cname} not found"));
                    };
                    if lc.starts_with("classmethod") {
                        class = self.heap.get(class).class;
                    }
                    let dicts = self.symbol_list_dicts();
                    if let Err(e) = self.compile_method(class, &src, &category, dicts) {
                        let (l, col) = line_col(&src, e.offset);
                        return fail(start + l, format!("compile error {} in {cname}: {} (line {} column {col} of the method)", e.number, e.message, l));
                    }
                    if self.heap.refused.take().is_some() {
                        return fail(
                            start,
                            format!("{cname} is shared and this user may not change it"),
                        );
                    }
                }
                "set" => {
                    let mut parts = rest.split_whitespace();
                    if parts.next().map(|p| p.eq_ignore_ascii_case("class")) == Some(true) {
                        current = parts.next().map(String::from);
                    }
                }
                "removeallmethods" | "removeallclassmethods" => {
                    let cname = if rest.is_empty() {
                        current.clone()
                    } else {
                        Some(rest.to_string())
                    };
                    let Some(cname) = cname else {
                        return fail(start, "removeallmethods without a class".into());
                    };
                    let Some(mut class) = self.class_named(&cname) else {
                        return fail(start, format!("class {cname} not found"));
                    };
                    if lc == "removeallclassmethods" {
                        class = self.heap.get(class).class;
                    }
                    self.ensure_methods(class);
                    let cd = self.heap.class_data_mut(class);
                    cd.methods.clear();
                    cd.categories.clear();
                    if self.heap.refused.take().is_some() {
                        return fail(
                            start,
                            format!("{cname} is shared and this user may not change it"),
                        );
                    }
                    self.methods_changed();
                }
                c if IGNORED.contains(&c) => {}
                _ => return fail(start, format!("unknown file-in command '{cmd}'")),
            }
        }
        Ok(())
    }

    /// Turns an evaluation result into a value or a failure, and cleans up.
    pub fn finish_evaluation(&mut self, r: Result<Value, Unwind>) -> Result<Value, Failure> {
        let out = match r {
            Ok(v) => Ok(v),
            Err(Unwind(u)) => match *u {
                Unwinding::Abort(f) => Err(*f),
                Unwinding::Return(v) => Ok(v),
                other => Err(Failure {
                    kind: crate::interp::ErrorKind::Runtime,
                    number: 2717,
                    class_name: "ImproperOperation".into(),
                    message_text: None,
                    description: format!("control left the evaluation unexpectedly ({other:?})"),
                }),
            },
        };
        self.reset_transient();
        out
    }
}

/// 1-based line and column of a 0-based character offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    for (i, c) in src.chars().enumerate() {
        if i == offset {
            break;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}
