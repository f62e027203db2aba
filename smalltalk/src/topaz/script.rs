//! The topaz input format: turns lines of topaz text into [`Command`]s.
//!
//! This module owns the syntax only (command words, arguments, bodies ended by
//! `%`, `!` comments). It knows nothing about the engine and never evaluates
//! anything: the runner decides what a command means.
//!
//! The parser is line-driven ([`Parser::feed`]) so the same code serves a file
//! read at once and an interactive terminal read line by line.

use std::fmt;

/// Which result an evaluation shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// `printit` / `run`: print the result's printString.
    PrintString,
    /// `doit`: print nothing.
    Nothing,
}

/// The class a method command targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `method: Foo`: the class named on the command line.
    Named(String),
    /// `method` alone: the class chosen by `set class`.
    Current,
}

/// One topaz command, with the line number (1-based) it started on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The 1-based line the command starts on (a body's opening line).
    pub line: usize,
    /// What it asks for.
    pub kind: CommandKind,
}

/// What a command asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandKind {
    /// `printit` / `run` / `doit` … `%`.
    Evaluate {
        /// The statements, the body's lines joined by `\n`.
        source: String,
        /// Which result it shows.
        show: Show,
    },
    /// `method[:] [CLASS]` / `classmethod[:] [CLASS]` … `%`.
    Method {
        /// The class.
        target: Target,
        /// Whether it is the class side (`classmethod`).
        meta: bool,
        /// The method's source, the body's lines joined by `\n`.
        source: String,
    },
    /// `category: NAME` (quotes around NAME are optional).
    Category(String),
    /// `set class NAME`.
    SetClass(String),
    /// `set user NAME`: the user the next `login` logs in as.
    SetUser(String),
    /// `set password PW`: the password the next `login` gives.
    SetPassword(String),
    /// `set gemstone|…`: accepted and ignored.
    SetIgnored(String),
    /// A topaz display or session setting with no meaning here (`fileformat`,
    /// `level`, `display`, `omit`, `iferr`, `limit`, `time`, `env`, `unset`):
    /// accepted and ignored so GemStone's own scripts run.
    Ignored(String),
    /// `removeallmethods [CLASS]` / `removeallclassmethods [CLASS]`.
    RemoveAllMethods {
        /// The class.
        target: Target,
        /// Whether it is the class side (`removeallclassmethods`).
        meta: bool,
    },
    /// `input FILE`.
    Input(String),
    /// `commit`.
    Commit,
    /// `abort`.
    Abort,
    /// `login`.
    Login,
    /// `logout`.
    Logout,
    /// `exit [N]`.
    Exit(Option<i32>),
    /// `expectvalue VALUE`: the next evaluation's printString must equal VALUE.
    ExpectValue(String),
    /// `output push|append FILE [only]`: copies output to FILE (`append` keeps
    /// what the file holds; `only` stops output reaching the previous target).
    OutputPush {
        /// The file.
        path: String,
        /// Whether what the file holds is kept.
        append: bool,
        /// Whether output stops reaching the previous target.
        only: bool,
    },
    /// `output pop`.
    OutputPop,
    /// `errorcount`: prints how many errors occurred so far.
    ErrorCount,
}

/// A line the parser cannot make a command of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Topaz settings that change nothing for the embedded stone.
const IGNORED: &[&str] = &[
    "fileformat",
    "level",
    "display",
    "omit",
    "iferr",
    "iferror",
    "limit",
    "time",
    "env",
    "unset",
];

/// A body being collected until its `%` line.
#[derive(Debug)]
struct Pending {
    line: usize,
    kind: BodyKind,
    lines: Vec<String>,
}

#[derive(Debug)]
enum BodyKind {
    Evaluate(Show),
    Method { target: Target, meta: bool },
}

/// Line-driven topaz parser. Feed it lines (without their terminator) in order.
#[derive(Debug, Default)]
pub struct Parser {
    line: usize,
    pending: Option<Pending>,
}

impl Parser {
    /// A parser at the first line.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Whether a body (`printit` … `%`) is open, i.e. the next line is source text.
    pub fn in_body(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes one line; answers a command when the line completes one.
    pub fn feed(&mut self, raw: &str) -> Option<Result<Command, ParseError>> {
        self.line += 1;
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(pending) = &mut self.pending {
            if is_terminator(text) {
                let pending = self.pending.take().expect("checked above");
                return Some(Ok(finish(pending)));
            }
            pending.lines.push(text.to_string());
            return None;
        }
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('!') {
            return None;
        }
        self.command(trimmed).transpose()
    }

    /// Ends the input: an unterminated body is an error.
    pub fn finish(&mut self) -> Result<(), ParseError> {
        match self.pending.take() {
            None => Ok(()),
            Some(pending) => Err(ParseError {
                line: pending.line,
                message: "input ended inside a body: missing the closing % line".into(),
            }),
        }
    }

    /// Parses a command line; a body-opening line answers `None` (its command
    /// is answered when the `%` line arrives).
    fn command(&mut self, text: &str) -> Result<Option<Command>, ParseError> {
        let line = self.line;
        let err = |message: String| ParseError { line, message };
        let (word, rest) = split_word(text);
        let lower = word.to_ascii_lowercase();
        let kind = match lower.as_str() {
            "printit" | "run" | "doit" => {
                no_argument(&lower, rest).map_err(err)?;
                let show = if lower == "doit" {
                    Show::Nothing
                } else {
                    Show::PrintString
                };
                self.open(BodyKind::Evaluate(show));
                return Ok(None);
            }
            "method" | "method:" | "classmethod" | "classmethod:" => {
                let meta = lower.starts_with("class");
                let target = optional_name(rest);
                self.open(BodyKind::Method { target, meta });
                return Ok(None);
            }
            "category" | "category:" => {
                let name = unquote(rest);
                if name.is_empty() {
                    return Err(err("category: needs a category name".into()));
                }
                CommandKind::Category(name)
            }
            "set" => set_command(rest).map_err(err)?,
            "removeallmethods" | "removeallclassmethods" => CommandKind::RemoveAllMethods {
                target: optional_name(rest),
                meta: lower == "removeallclassmethods",
            },
            "input" => {
                if rest.is_empty() {
                    return Err(err("input needs a file name".into()));
                }
                CommandKind::Input(rest.to_string())
            }
            "commit" => no_argument(&lower, rest)
                .map(|_| CommandKind::Commit)
                .map_err(err)?,
            "abort" => no_argument(&lower, rest)
                .map(|_| CommandKind::Abort)
                .map_err(err)?,
            "login" => CommandKind::Login,
            "logout" => no_argument(&lower, rest)
                .map(|_| CommandKind::Logout)
                .map_err(err)?,
            "exit" | "quit" => {
                if rest.is_empty() {
                    CommandKind::Exit(None)
                } else {
                    let code = rest
                        .parse::<i32>()
                        .map_err(|_| err(format!("exit needs an integer status, not {rest:?}")))?;
                    CommandKind::Exit(Some(code))
                }
            }
            "expectvalue" => {
                if rest.is_empty() {
                    return Err(err("expectvalue needs a value".into()));
                }
                CommandKind::ExpectValue(rest.to_string())
            }
            "output" => output_command(rest).map_err(err)?,
            "errorcount" => no_argument(&lower, rest)
                .map(|_| CommandKind::ErrorCount)
                .map_err(err)?,
            setting if IGNORED.contains(&setting) => CommandKind::Ignored(lower.clone()),
            _ => return Err(err(format!("unknown command {word:?}"))),
        };
        Ok(Some(Command { line, kind }))
    }

    fn open(&mut self, kind: BodyKind) {
        self.pending = Some(Pending {
            line: self.line,
            kind,
            lines: Vec::new(),
        });
    }
}

/// Parses a whole text; stops at the first malformed line.
pub fn parse_all(text: &str) -> Result<Vec<Command>, ParseError> {
    let mut parser = Parser::new();
    let mut commands = Vec::new();
    for line in text.lines() {
        if let Some(result) = parser.feed(line) {
            commands.push(result?);
        }
    }
    parser.finish()?;
    Ok(commands)
}

/// Whether an `expectvalue` argument is a printString to compare. Topaz's class
/// forms (`%String`: an instance of; `/Class`: a kind of) and oop form (`@123`)
/// are accepted so GemStone's own file-outs run, but not checked: the CLI sees
/// only the result's printString.
pub fn checks_print_string(expected: &str) -> bool {
    !expected.starts_with(['%', '/', '@'])
}

fn is_terminator(text: &str) -> bool {
    text.trim_end() == "%"
}

fn finish(pending: Pending) -> Command {
    let source = pending.lines.join("\n");
    let kind = match pending.kind {
        BodyKind::Evaluate(show) => CommandKind::Evaluate { source, show },
        BodyKind::Method { target, meta } => CommandKind::Method {
            target,
            meta,
            source,
        },
    };
    Command {
        line: pending.line,
        kind,
    }
}

/// Splits the command word from its argument text. `method:Foo` splits after the colon.
fn split_word(text: &str) -> (&str, &str) {
    let end = text
        .char_indices()
        .find(|&(_, c)| c.is_whitespace() || c == ':')
        .map(|(i, c)| if c == ':' { i + 1 } else { i })
        .unwrap_or(text.len());
    (&text[..end], text[end..].trim())
}

fn no_argument(word: &str, rest: &str) -> Result<(), String> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(format!("{word} takes no argument, got {rest:?}"))
    }
}

fn optional_name(rest: &str) -> Target {
    if rest.is_empty() {
        Target::Current
    } else {
        Target::Named(rest.to_string())
    }
}

/// `'Accessing'` → `Accessing`; doubled quotes inside are undoubled.
fn unquote(text: &str) -> String {
    let text = text.trim();
    if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') {
        text[1..text.len() - 1].replace("''", "'")
    } else {
        text.to_string()
    }
}

fn set_command(rest: &str) -> Result<CommandKind, String> {
    let (what, value) = split_word(rest);
    let what = what.trim_end_matches(':').to_ascii_lowercase();
    match what.as_str() {
        "class" => {
            if value.is_empty() {
                Err("set class needs a class name".into())
            } else {
                Ok(CommandKind::SetClass(value.to_string()))
            }
        }
        "user" | "username" => {
            if value.is_empty() {
                Err("set user needs a user name".into())
            } else {
                Ok(CommandKind::SetUser(unquote(value)))
            }
        }
        "password" => {
            if value.is_empty() {
                Err("set password needs a password".into())
            } else {
                Ok(CommandKind::SetPassword(value.to_string()))
            }
        }
        "" => Err("set needs a setting".into()),
        _ => Ok(CommandKind::SetIgnored(what)),
    }
}

fn output_command(rest: &str) -> Result<CommandKind, String> {
    let (what, args) = split_word(rest);
    let what = what.to_ascii_lowercase();
    match what.as_str() {
        "push" | "append" => {
            let (path, only) = match args.rsplit_once(char::is_whitespace) {
                Some((path, last)) if last.eq_ignore_ascii_case("only") => (path.trim(), true),
                _ => (args, false),
            };
            if path.is_empty() {
                return Err(format!("output {what} needs a file name"));
            }
            Ok(CommandKind::OutputPush {
                path: path.to_string(),
                append: what == "append",
                only,
            })
        }
        "pop" => no_argument("output pop", args).map(|_| CommandKind::OutputPop),
        _ => Err(format!(
            "output needs push FILE, append FILE or pop, got {rest:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(source: &str, show: Show) -> CommandKind {
        CommandKind::Evaluate {
            source: source.into(),
            show,
        }
    }

    fn method(target: Option<&str>, meta: bool, source: &str) -> CommandKind {
        let target = target.map_or(Target::Current, |t| Target::Named(t.into()));
        CommandKind::Method {
            target,
            meta,
            source: source.into(),
        }
    }

    #[test]
    fn commands_from_text() {
        let table: Vec<(&str, Vec<CommandKind>)> = vec![
            ("printit\n3 + 4\n%\n", vec![eval("3 + 4", Show::PrintString)]),
            (
                "RUN\n| a |\na := 1.\na\n%",
                vec![eval("| a |\na := 1.\na", Show::PrintString)],
            ),
            ("doit\nnil\n%  \n", vec![eval("nil", Show::Nothing)]),
            ("printit\n%\n", vec![eval("", Show::PrintString)]),
            (
                "! a comment\n\n   \nPrintIt\n1\n%\n",
                vec![eval("1", Show::PrintString)],
            ),
            ("printit\n'100%'\n% \n", vec![eval("'100%'", Show::PrintString)]),
            ("printit\r\n1\r\n%\r\n", vec![eval("1", Show::PrintString)]),
            (
                "printit\n! not a comment\n%\n",
                vec![eval("! not a comment", Show::PrintString)],
            ),
            (
                "category: 'accessing'\nmethod: Foo\nx\n  ^x\n%\n",
                vec![
                    CommandKind::Category("accessing".into()),
                    method(Some("Foo"), false, "x\n  ^x"),
                ],
            ),
            (
                "category: It''s mine\n",
                vec![CommandKind::Category("It''s mine".into())],
            ),
            (
                "category: 'It''s mine'\n",
                vec![CommandKind::Category("It's mine".into())],
            ),
            (
                "classmethod:Foo\nnew\n^super new\n%\n",
                vec![method(Some("Foo"), true, "new\n^super new")],
            ),
            (
                "set class Foo\nmethod\nx\n%\nclassmethod\ny\n%\n",
                vec![
                    CommandKind::SetClass("Foo".into()),
                    method(None, false, "x"),
                    method(None, true, "y"),
                ],
            ),
            ("set class: Bar\n", vec![CommandKind::SetClass("Bar".into())]),
            (
                "set user DataCurator\nset password swordfish\nset gemstone gs64stone\n",
                vec![
                    CommandKind::SetUser("DataCurator".into()),
                    CommandKind::SetPassword("swordfish".into()),
                    CommandKind::SetIgnored("gemstone".into()),
                ],
            ),
            (
                "removeallmethods Foo\nremoveallclassmethods\n",
                vec![
                    CommandKind::RemoveAllMethods {
                        target: Target::Named("Foo".into()),
                        meta: false,
                    },
                    CommandKind::RemoveAllMethods {
                        target: Target::Current,
                        meta: true,
                    },
                ],
            ),
            ("input lib/x.gs\n", vec![CommandKind::Input("lib/x.gs".into())]),
            (
                "commit\nabort\nlogin\nlogout\nerrorcount\n",
                vec![
                    CommandKind::Commit,
                    CommandKind::Abort,
                    CommandKind::Login,
                    CommandKind::Logout,
                    CommandKind::ErrorCount,
                ],
            ),
            ("exit\n", vec![CommandKind::Exit(None)]),
            (
                "fileformat utf8\nIFERR 1 stack\ndisplay oops\n",
                vec![
                    CommandKind::Ignored("fileformat".into()),
                    CommandKind::Ignored("iferr".into()),
                    CommandKind::Ignored("display".into()),
                ],
            ),
            ("EXIT 3\n", vec![CommandKind::Exit(Some(3))]),
            (
                "expectvalue 'a b'\n",
                vec![CommandKind::ExpectValue("'a b'".into())],
            ),
            (
                "output push out.txt\noutput append log.txt\noutput push a b.txt ONLY\noutput pop\n",
                vec![
                    CommandKind::OutputPush {
                        path: "out.txt".into(),
                        append: false,
                        only: false,
                    },
                    CommandKind::OutputPush {
                        path: "log.txt".into(),
                        append: true,
                        only: false,
                    },
                    CommandKind::OutputPush {
                        path: "a b.txt".into(),
                        append: false,
                        only: true,
                    },
                    CommandKind::OutputPop,
                ],
            ),
        ];
        for (input, expected) in table {
            let got: Vec<CommandKind> = parse_all(input)
                .unwrap_or_else(|e| panic!("{input:?} failed: {e}"))
                .into_iter()
                .map(|c| c.kind)
                .collect();
            assert_eq!(got, expected, "input {input:?}");
        }
    }

    #[test]
    fn line_numbers_point_at_the_opening_line() {
        let commands = parse_all("! header\n\nprintit\n1\n%\ncommit\n").unwrap();
        let lines: Vec<usize> = commands.iter().map(|c| c.line).collect();
        assert_eq!(lines, vec![3, 6]);
    }

    #[test]
    fn malformed_input_is_an_error_with_its_line() {
        let table: Vec<(&str, usize, &str)> = vec![
            ("printit\n1\n", 1, "missing the closing %"),
            ("frobnicate\n", 1, "unknown command"),
            ("\ncategory:\n", 2, "needs a category name"),
            ("exit now\n", 1, "integer status"),
            ("set class\n", 1, "needs a class name"),
            ("set user\n", 1, "needs a user name"),
            ("set password \n", 1, "needs a password"),
            ("commit please\n", 1, "takes no argument"),
            ("output sideways\n", 1, "output needs"),
            ("output push\n", 1, "needs a file name"),
            ("printit now\n1\n%\n", 1, "takes no argument"),
            ("expectvalue\n", 1, "needs a value"),
            ("input\n", 1, "needs a file name"),
        ];
        for (input, line, fragment) in table {
            let error = parse_all(input).expect_err(input);
            assert_eq!(error.line, line, "input {input:?}");
            assert!(
                error.message.contains(fragment),
                "input {input:?}: {}",
                error.message
            );
        }
    }

    #[test]
    fn parsing_continues_after_a_bad_line() {
        let mut parser = Parser::new();
        assert!(matches!(parser.feed("bogus"), Some(Err(_))));
        assert!(parser.feed("printit").is_none());
        assert!(parser.in_body());
        assert!(parser.feed("1").is_none());
        let done = parser.feed("%").unwrap().unwrap();
        assert_eq!(done.kind, eval("1", Show::PrintString));
        assert_eq!(done.line, 2);
    }
}
