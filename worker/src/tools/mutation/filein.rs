//! `file_in`: topaz file-in text (what `export_class_source` answers, or a
//! GemStone `.gs` file-out) filed into the session's transaction chunk by
//! chunk, answering per chunk what it defined or why it failed, with line
//! numbers of the original text.
//!
//! The text is read by the same topaz parser `gsmcp-topaz` uses; the whole of
//! it is parsed before anything runs, so a malformed line or a session command
//! a file-in must not hold (`commit`, `abort`, `login`, `input`, `output`…)
//! refuses the call with nothing changed. Then each chunk runs on its own:
//!
//! * `method:` / `classmethod:` chunks compile through the same path as
//!   `compile_method` (both guards apply: a new method may extend a kernel
//!   class, replacing an existing kernel method needs `allowKernelEdits`, an
//!   existing method this session has not seen is not overwritten), in the
//!   category of the last `category:` line;
//! * `removeallmethods` / `removeallclassmethods` empty one side of a class
//!   (refused for a kernel class, and for a class this session has not read);
//! * `run` / `doit` / `printit` chunks are Smalltalk. A *declarative* chunk —
//!   one message to a class with literal arguments: a class definition
//!   (`… subclass: 'Name' …`), `comment:` or `category:` — is guarded like
//!   `compile_class_definition` and `set_class_comment` and runs on the
//!   kernel's methods alone. Any other chunk is code: it runs only in a
//!   session that may use `execute_code` (Execution served and granted), and
//!   like `execute_code` it is not guarded.
//!
//! Nothing commits. A chunk that fails stops the file-in unless the call
//! passed `stopOnError: false`; a cancelled call stops after the chunk that
//! is running. Chunks that ran stay in the transaction either way, and the
//! answer says so.

use super::{
    blind_write_guard, compile, kernel_guard, refused_kernel, refused_unseen_class, st, Literal,
};
use crate::tools::execution::cap;
use crate::tools::{
    error_result, from_st_error, Context, ErrorKind, ToolError, ToolOutput, ERROR_TEXT_CAP,
};
use gsmcp_smalltalk::census::{literal_message, LiteralMessage};
use gsmcp_smalltalk::topaz::{self, CommandKind, Show, Target};
use gsmcp_smalltalk::{ErrorKind as StKind, EvalPolicy};
use serde_json::{json, Value};

/// The most characters of a `run` chunk's printString a chunk's entry carries.
const RESULT_CHARS: usize = 1_000;

/// The most chunk entries an answer lists one by one (failures are always
/// listed); the rest are counted.
const LISTED_CHUNKS: usize = 1_000;

/// The class-side messages a declarative chunk may send besides a class
/// definition.
const DECLARATIVE: [&str; 2] = ["comment:", "category:"];

/// Whether `selector` creates a class (`subclass:…`, `byteSubclass:…`,
/// `indexableSubclass:…`, …), judged by its first keyword.
fn defines_class(selector: &str) -> bool {
    selector
        .split(':')
        .next()
        .is_some_and(|k| k == "subclass" || k.ends_with("Subclass"))
}

/// A chunk that ran (or failed), as the answer lists it.
struct Outcome {
    line: usize,
    command: &'static str,
    result: Result<Done, ToolError>,
    /// The line of the original text a failure points at: where the compiler
    /// or the error put it, else the chunk's own line.
    error_line: usize,
}

/// What a chunk that succeeded did.
struct Done {
    /// `Foo>>bar`, `Foo class>>new`, `class Foo`, `comment of Foo`…
    what: Option<String>,
    /// A `run`/`printit` chunk's printString.
    printed: Option<String>,
}

fn done(what: impl Into<String>) -> Done {
    Done {
        what: Some(what.into()),
        printed: None,
    }
}

/// The `file_in` handler.
pub(super) fn file_in(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let text = cx.str_arg("source").unwrap_or_default();
    let stop_on_error = cx.args.get("stopOnError").and_then(Value::as_bool) != Some(false);
    let commands = topaz::parse_all(text).map_err(|e| {
        let mut err = ToolError::new(
            ErrorKind::InvalidParams,
            format!(
                "argument 'source': line {}: {}; nothing was filed in",
                e.line, e.message
            ),
        );
        err.details.insert("line".into(), json!(e.line));
        err
    })?;
    check_commands(&commands)?;
    // Code chunks run the client's code only where execute_code could.
    cx.login.set_policy(EvalPolicy {
        client_code: cx.may_run_code,
        may_commit: false,
    });
    let chunks = commands
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                CommandKind::Evaluate { .. }
                    | CommandKind::Method { .. }
                    | CommandKind::RemoveAllMethods { .. }
            )
        })
        .count();
    let mut state = State::default();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut stopped: Option<String> = None;
    for command in &commands {
        if let Some(why) = cx.notify.interrupted() {
            stopped = Some(format!("the call was {}", why.describe()));
            break;
        }
        let Some(outcome) = state.run(cx, command) else {
            continue;
        };
        // at most one progress notification per percent of the chunks
        let n = outcomes.len() + 1;
        if n * 100 / chunks.max(1) != (n - 1) * 100 / chunks.max(1) {
            let _ = cx.notify.progress(
                n as f64,
                Some(chunks as f64),
                Some(&format!("line {}", command.line)),
            );
        }
        let failed = outcome.result.is_err();
        let broke = state.broke;
        outcomes.push(outcome);
        if broke {
            stopped = Some("the evaluation was interrupted".into());
            break;
        }
        if failed && stop_on_error {
            stopped = Some("a chunk failed (stopOnError)".into());
            break;
        }
    }
    answer(&outcomes, chunks, stopped)
}

/// Refuses, before anything runs, a text holding a command that has no place
/// in a file-in.
fn check_commands(commands: &[topaz::Command]) -> Result<(), ToolError> {
    for command in commands {
        let why = match &command.kind {
            CommandKind::Commit | CommandKind::Abort => {
                "a file-in does not end the transaction; call the commit or abort tool after it"
            }
            CommandKind::Login
            | CommandKind::Logout
            | CommandKind::SetUser(_)
            | CommandKind::SetPassword(_) => "the session is already logged in",
            CommandKind::Exit(_) => "a file-in cannot end the session",
            CommandKind::Input(_) => "a file-in cannot read files on the server; pass their text",
            CommandKind::OutputPush { .. } | CommandKind::OutputPop => {
                "a file-in cannot write files on the server"
            }
            CommandKind::ErrorCount => "the answer counts the failures",
            _ => continue,
        };
        let word = command_word(&command.kind);
        let mut err = ToolError::new(
            ErrorKind::InvalidParams,
            format!(
                "argument 'source': line {}: `{word}` has no place in a file-in ({why}); nothing \
was filed in",
                command.line
            ),
        );
        err.details.insert("line".into(), json!(command.line));
        return Err(err);
    }
    Ok(())
}

/// The topaz word a refused command was written with.
fn command_word(kind: &CommandKind) -> &'static str {
    match kind {
        CommandKind::Commit => "commit",
        CommandKind::Abort => "abort",
        CommandKind::Login => "login",
        CommandKind::Logout => "logout",
        CommandKind::SetUser(_) => "set user",
        CommandKind::SetPassword(_) => "set password",
        CommandKind::Exit(_) => "exit",
        CommandKind::Input(_) => "input",
        CommandKind::OutputPush { .. } => "output push",
        CommandKind::OutputPop => "output pop",
        CommandKind::ErrorCount => "errorcount",
        _ => "?",
    }
}

/// The file-in's settings as the text goes: `category:`, `set class`, a
/// pending `expectvalue`.
#[derive(Default)]
struct State {
    category: Option<String>,
    class: Option<String>,
    expect: Option<String>,
    /// The last chunk was interrupted (a break): the file-in stops.
    broke: bool,
}

impl State {
    /// Runs one command: a chunk answers its outcome, a setting None.
    fn run(&mut self, cx: &mut Context<'_>, command: &topaz::Command) -> Option<Outcome> {
        let line = command.line;
        let (name, result) = match &command.kind {
            CommandKind::Category(name) => {
                self.category = Some(name.clone());
                return None;
            }
            CommandKind::SetClass(name) => {
                self.class = Some(name.clone());
                return None;
            }
            CommandKind::ExpectValue(value) => {
                self.expect = Some(value.clone());
                return None;
            }
            CommandKind::Method {
                target,
                meta,
                source,
            } => {
                let name = if *meta { "classmethod" } else { "method" };
                let result = self.class_of(target).and_then(|class| {
                    let answer = compile(cx, &class, *meta, source, self.category.as_deref())?;
                    let side = if *meta { " class" } else { "" };
                    Ok(done(format!(
                        "{class}{side}>>{}",
                        answer["selector"].as_str().unwrap_or_default()
                    )))
                });
                (name, result)
            }
            CommandKind::RemoveAllMethods { target, meta } => {
                let name = if *meta {
                    "removeallclassmethods"
                } else {
                    "removeallmethods"
                };
                let result = self
                    .class_of(target)
                    .and_then(|class| remove_all_methods(cx, &class, *meta));
                (name, result)
            }
            CommandKind::Evaluate { source, show } => {
                let name = match show {
                    Show::PrintString => "run",
                    Show::Nothing => "doit",
                };
                (name, self.evaluate(cx, source, *show))
            }
            _ => return None,
        };
        // a body's line 1 is the line after the command's
        let error_line = match &result {
            Err(e) => e
                .details
                .get("line")
                .and_then(Value::as_u64)
                .map_or(line, |inner| line + inner as usize),
            Ok(_) => line,
        };
        Some(Outcome {
            line,
            command: name,
            result,
            error_line,
        })
    }

    /// The class a method command names, or the one `set class` chose.
    fn class_of(&self, target: &Target) -> Result<String, ToolError> {
        match target {
            Target::Named(name) => Ok(name.clone()),
            Target::Current => self.class.clone().ok_or_else(|| {
                ToolError::new(
                    ErrorKind::InvalidParams,
                    "no class named on the command line and none chosen with `set class`",
                )
            }),
        }
    }

    /// A `run`/`doit` chunk: guarded when declarative, refused when it is code
    /// this session may not run; a pending `expectvalue` is checked.
    fn evaluate(
        &mut self,
        cx: &mut Context<'_>,
        source: &str,
        show: Show,
    ) -> Result<Done, ToolError> {
        let expect = self.expect.take();
        let declared = literal_message(source)
            .filter(|m| defines_class(&m.selector) || DECLARATIVE.contains(&m.selector.as_str()));
        let what = match &declared {
            Some(message) => Some(guard_declaration(cx, message)?),
            None if !cx.may_run_code => {
                return Err(ToolError::new(
                    ErrorKind::Refused,
                    "refused: this chunk is Smalltalk code, and this session may not run code \
(execute_code is not served or not granted to it); a file-in without code runs method, \
category and removeallmethods chunks and class definitions, comments and categories",
                ));
            }
            None => None,
        };
        let printed = cx.login.evaluate_print_string(source).map_err(|e| {
            self.broke = e.kind == StKind::Break;
            from_st_error(&e)
        })?;
        if let Some(class) = declared.as_ref().filter(|m| defines_class(&m.selector)) {
            if let Some(name) = &class.first {
                cx.ledger.wrote_class(name);
            }
        }
        if let Some(expected) = expect.filter(|e| topaz::checks_print_string(e)) {
            if expected != printed {
                return Err(ToolError::new(
                    ErrorKind::Other,
                    format!(
                        "expectvalue {expected}, got {}",
                        cap(printed, ERROR_TEXT_CAP).0
                    ),
                ));
            }
        }
        Ok(Done {
            what,
            printed: (show == Show::PrintString).then(|| cap(printed, RESULT_CHARS).0),
        })
    }
}

/// Checks a declarative chunk against the kernel and blind-write guards and
/// answers what it defines.
fn guard_declaration(cx: &mut Context<'_>, message: &LiteralMessage) -> Result<String, ToolError> {
    let (class, what, changes) = if defines_class(&message.selector) {
        let name = message.first.clone().ok_or_else(|| {
            ToolError::new(
                ErrorKind::InvalidParams,
                "a class definition names its class with a string or symbol literal",
            )
        })?;
        (name.clone(), format!("class {name}"), "its definition")
    } else {
        let name = message.receiver.clone();
        let (what, changes) = match message.selector.as_str() {
            "comment:" => (format!("comment of {name}"), "its comment"),
            _ => (format!("category of {name}"), "its category"),
        };
        (name, what, changes)
    };
    let exists = cx.run_json(&st::ClassExists {
        class_name: Literal::symbol(&class),
        kernel_guard: kernel_guard(cx),
    })?;
    if exists["kernel"] == true {
        return Err(refused_kernel(&class, changes));
    }
    if exists["error"] == "notClass" {
        return Err(ToolError::new(
            ErrorKind::Refused,
            format!("refused: '{class}' is bound to an object that is not a class"),
        ));
    }
    if exists["exists"] == true && blind_write_guard(cx) && !cx.ledger.has_seen_class(&class) {
        return Err(refused_unseen_class(&class));
    }
    Ok(what)
}

/// `removeallmethods`: empties one side of a class under both guards.
fn remove_all_methods(cx: &mut Context<'_>, class: &str, meta: bool) -> Result<Done, ToolError> {
    let may_overwrite = !blind_write_guard(cx) || cx.ledger.has_seen_class(class);
    let answer = cx.run_json(&st::RemoveAllMethods {
        class_name: Literal::symbol(class),
        meta: Literal::boolean(meta),
        may_overwrite: Literal::boolean(may_overwrite),
        kernel_guard: kernel_guard(cx),
    })?;
    let side = if meta { " class" } else { "" };
    match answer["error"].as_str() {
        Some("kernel") => Err(refused_kernel(class, "its existing methods")),
        Some("unseen") => Err(refused_unseen_class(class)),
        Some(_) => {
            let (k, m) = super::no_class(class);
            Err(ToolError::new(k, m))
        }
        None => Ok(done(format!(
            "removed {} method(s) of {class}{side}",
            answer["removed"]
        ))),
    }
}

/// The answer: every chunk (up to [`LISTED_CHUNKS`]), the failures, what was
/// not run; a tool error when any chunk failed.
fn answer(
    outcomes: &[Outcome],
    chunks: usize,
    stopped: Option<String>,
) -> Result<ToolOutput, ToolError> {
    let ran = outcomes.len();
    let failures: Vec<&Outcome> = outcomes.iter().filter(|o| o.result.is_err()).collect();
    let filed = ran - failures.len();
    let not_run = chunks - ran;
    let entry = |o: &Outcome| {
        let mut e = json!({"line": o.line, "command": o.command, "ok": o.result.is_ok()});
        match &o.result {
            Ok(d) => {
                if let Some(what) = &d.what {
                    e["defined"] = json!(what);
                }
                if let Some(printed) = &d.printed {
                    e["result"] = json!(printed);
                }
            }
            Err(err) => {
                let error = &error_result(err)["structuredContent"]["error"];
                e["error"] = error.clone();
                e["errorLine"] = json!(o.error_line);
            }
        }
        e
    };
    let listed: Vec<Value> = outcomes.iter().take(LISTED_CHUNKS).map(entry).collect();
    let structured = json!({
        "chunks": listed,
        "omittedChunks": ran.saturating_sub(LISTED_CHUNKS),
        "filedIn": filed,
        "failed": failures.len(),
        "notRun": not_run,
        "failures": failures.iter().map(|o| entry(o)).collect::<Vec<_>>(),
        "stopped": stopped,
        "committed": false,
    });
    let mut text = format!("filed in {filed} of {chunks} chunk(s)");
    let defined: Vec<&str> = outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().ok()?.what.as_deref())
        .filter(|w| w.starts_with("class "))
        .collect();
    if !defined.is_empty() {
        text.push_str(&format!(" ({})", defined.join(", ")));
    }
    for o in &failures {
        if let Err(err) = &o.result {
            let at = o.error_line;
            text.push_str(&format!("\nline {at} ({}): {}", o.command, err.message));
        }
    }
    if not_run > 0 {
        text.push_str(&format!(
            "\n{not_run} chunk(s) not run: {}",
            stopped.as_deref().unwrap_or("stopped")
        ));
    }
    text.push_str("\nNothing was committed: commit keeps what was filed in, abort discards it.");
    match failures.first() {
        None => Ok(ToolOutput { text, structured }),
        Some(first) => {
            let kind = first
                .result
                .as_ref()
                .err()
                .map_or(ErrorKind::Other, |e| e.kind);
            let mut err = ToolError::new(kind, text);
            if let Value::Object(fields) = structured {
                err.details.extend(fields);
            }
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_creating_selectors() {
        let table = [
            ("subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:", true),
            ("byteSubclass:classVars:classInstVars:poolDictionaries:inDictionary:options:", true),
            ("indexableSubclass:instVarNames:inDictionary:", true),
            ("subclass:", true),
            ("comment:", false),
            ("subclasses", false),
            ("at:put:", false),
        ];
        for (selector, creates) in table {
            assert_eq!(defines_class(selector), creates, "{selector}");
        }
    }

    #[test]
    fn session_commands_are_refused_before_anything_runs() {
        let table = [
            ("commit\n", 1),
            ("category: 'x'\nabort\n", 2),
            ("run\n1\n%\nlogin\n", 4),
            ("input other.gs\n", 1),
            ("output push /tmp/x\n", 1),
            ("set user DataCurator\n", 1),
            ("exit\n", 1),
        ];
        for (text, line) in table {
            let commands = topaz::parse_all(text).unwrap();
            let err = check_commands(&commands).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidParams, "{text:?}");
            assert_eq!(err.details["line"], json!(line), "{text:?}");
            assert!(err.message.contains("nothing was filed in"), "{text:?}");
        }
        let fine =
            "set compile_env: 0\nexpectvalue /Class\ndoit\nObject\n%\nremoveallmethods Foo\n\
                    category: 'a'\nmethod: Foo\nfoo\n%\nfileformat utf8\n";
        assert!(check_commands(&topaz::parse_all(fine).unwrap()).is_ok());
    }
}
