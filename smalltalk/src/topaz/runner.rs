//! Executes topaz commands against a login to the embedded stone: a fresh
//! in-memory image, or a persistent repository file (`--repo`).
//!
//! The runner owns the CLI's state (login and its user/password, current class
//! and category, pending `expectvalue`, output redirection, error count) and the
//! printed forms of results and errors. It must not parse topaz syntax (that is `script`) nor
//! build Smalltalk from script text by hand (that is `smalltalk`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::{ErrorKind, Interrupter, Session, StError};

use super::script::{checks_print_string, Command, CommandKind, Parser, Show, Target};
use super::smalltalk;

/// How deep `input` may nest before the runner refuses (a file that inputs itself).
const MAX_INPUT_DEPTH: usize = 32;

/// Topaz's category for methods compiled before any `category:` line.
const DEFAULT_CATEGORY: &str = "as yet unclassified";

/// The user a repository login uses when the script sets none, as in GemStone.
const DEFAULT_USER: &str = "DataCurator";
/// The password a repository login gives when the script sets none.
const DEFAULT_PASSWORD: &str = "swordfish";

/// What makes an evaluation breakable from outside for as long as the value
/// it answers is kept (the command line's Ctrl-C handler, for instance).
pub type Breakable = fn(Interrupter) -> Box<dyn std::any::Any>;

/// What `login` logs in to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A new in-memory image per login; commits keep nothing beyond the process.
    Memory,
    /// The repository file at this path (it exists when the runner starts).
    Repository(PathBuf),
}

/// Whether processing goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next command.
    Continue,
    /// `exit`: stop everything, with this status (or the error count when `None`).
    Exit(Option<i32>),
}

/// A file that output is copied to (`output push`).
struct Sink {
    file: File,
    path: PathBuf,
    /// Output stops here instead of also reaching the targets below.
    only: bool,
}

/// Where printed lines go: the pushed files, top first, then standard output.
struct Output {
    stack: Vec<Sink>,
    stdout: io::Stdout,
}

impl Output {
    fn line(&mut self, text: &str) {
        for sink in self.stack.iter_mut().rev() {
            if let Err(error) = writeln!(sink.file, "{text}") {
                eprintln!(
                    "gsmcp-topaz: cannot write to {}: {error}",
                    sink.path.display()
                );
            }
            if sink.only {
                return;
            }
        }
        let mut out = self.stdout.lock();
        // A closed stdout (a pipe reader gone) must not kill the run halfway.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// Where the lines being executed come from, for messages.
struct Source {
    name: String,
}

/// The state of one `gsmcp-topaz` run.
pub struct Runner {
    quiet: bool,
    backend: Backend,
    session: Option<Session>,
    /// Whether the next command that needs a session may log in by itself.
    /// True until the script logs out, or (for a repository) until it sets a
    /// user or password or says `login`: such a script is expected to log in.
    implicit_login: bool,
    user: Option<String>,
    password: Option<String>,
    /// The repository file is unusable (not a repository, unreadable): the
    /// run stops after the command that found out.
    unusable: bool,
    errors: u32,
    category: String,
    class: Option<String>,
    expect: Option<String>,
    output: Output,
    depth: usize,
    /// How many characters of the session's Transcript have been shown.
    transcript_seen: usize,
    /// Transcript text after its last line end, held until the line completes.
    transcript_partial: String,
    /// Held around every evaluation (see [`Runner::breakable_by`]).
    breakable: Option<Breakable>,
}

impl Runner {
    /// A runner that logs in to `backend` when a command first needs a
    /// session; `quiet` leaves out the banner and the echo of results.
    pub fn new(quiet: bool, backend: Backend) -> Runner {
        Runner {
            quiet,
            backend,
            session: None,
            implicit_login: true,
            user: None,
            password: None,
            unusable: false,
            errors: 0,
            category: DEFAULT_CATEGORY.to_string(),
            class: None,
            expect: None,
            output: Output {
                stack: Vec::new(),
                stdout: io::stdout(),
            },
            depth: 0,
            transcript_seen: 0,
            transcript_partial: String::new(),
            breakable: None,
        }
    }

    /// Makes every evaluation breakable through `during`, which is given the
    /// session's interrupter and whose answer is held while it runs.
    pub fn breakable_by(mut self, during: Breakable) -> Runner {
        self.breakable = Some(during);
        self
    }

    /// The process exit status: the error count, capped at 255.
    pub fn status(&self) -> u8 {
        self.errors.min(255) as u8
    }

    /// Prints the banner (not in quiet mode).
    pub fn banner(&mut self) {
        if !self.quiet {
            let text = format!(
                "gsmcp-topaz {}: topaz for the embedded stone",
                env!("CARGO_PKG_VERSION")
            );
            self.output.line(&text);
        }
    }

    /// Runs the commands in a file.
    pub fn run_file(&mut self, path: &Path) -> Flow {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) => {
                self.error(&format!("cannot read {}: {error}", path.display()));
                return Flow::Continue;
            }
        };
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let source = Source { name };
        self.run_lines(BufReader::new(file), &source, false)
    }

    /// Runs the commands on standard input, prompting when it is a terminal.
    pub fn run_stdin(&mut self) -> Flow {
        let stdin = io::stdin();
        let prompt = !self.quiet && stdin.is_terminal();
        let source = Source {
            name: "stdin".into(),
        };
        self.run_lines(stdin.lock(), &source, prompt)
    }

    fn run_lines(&mut self, mut reader: impl BufRead, source: &Source, prompt: bool) -> Flow {
        let mut parser = Parser::new();
        let mut line = String::new();
        loop {
            if prompt {
                let mut out = io::stdout().lock();
                let _ = write!(out, "{}", if parser.in_body() { "" } else { "topaz> " });
                let _ = out.flush();
            }
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) => {
                    self.error(&format!("cannot read {}: {error}", source.name));
                    break;
                }
            }
            let text = line.strip_suffix('\n').unwrap_or(&line);
            match parser.feed(text) {
                None => {}
                Some(Err(error)) => self.error(&format!(
                    "line {} of {}: {}",
                    error.line, source.name, error.message
                )),
                Some(Ok(command)) => {
                    if let Flow::Exit(code) = self.execute(command) {
                        return Flow::Exit(code);
                    }
                }
            }
        }
        if let Err(error) = parser.finish() {
            self.error(&format!(
                "line {} of {}: {}",
                error.line, source.name, error.message
            ));
        }
        Flow::Continue
    }

    fn execute(&mut self, command: Command) -> Flow {
        let touches_session = matches!(
            command.kind,
            CommandKind::Evaluate { .. }
                | CommandKind::Method { .. }
                | CommandKind::RemoveAllMethods { .. }
                | CommandKind::Commit
                | CommandKind::Abort
        );
        let flow = self.execute_command(command);
        if touches_session {
            self.show_transcript();
        }
        if self.unusable {
            return Flow::Exit(None);
        }
        flow
    }

    /// Prints what Smalltalk wrote to `Transcript` since the last look, as topaz
    /// does for a linked session: whole lines only, the rest when it completes.
    fn show_transcript(&mut self) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let Ok(answer) =
            session.evaluate_string(&smalltalk::transcript_since(self.transcript_seen))
        else {
            return;
        };
        let Some((size, text)) = answer.split_once(' ') else {
            return;
        };
        let Ok(size) = size.parse::<usize>() else {
            return;
        };
        self.transcript_seen = size;
        self.transcript_partial.push_str(text);
        while let Some(end) = self.transcript_partial.find('\n') {
            let line: String = self.transcript_partial.drain(..=end).collect();
            self.output.line(line.trim_end_matches(['\r', '\n']));
        }
    }

    /// Shows Transcript text still waiting for its line end (at the end of the run).
    pub fn flush_transcript(&mut self) {
        if !self.transcript_partial.is_empty() {
            let rest = std::mem::take(&mut self.transcript_partial);
            self.output.line(&rest);
        }
    }

    fn execute_command(&mut self, command: Command) -> Flow {
        match command.kind {
            CommandKind::Evaluate { source: code, show } => self.evaluate(&code, show),
            CommandKind::Method {
                target,
                meta,
                source: code,
            } => {
                if let Some(class) = self.target(target) {
                    self.compile_method(&class, meta, &code);
                }
            }
            CommandKind::Category(name) => self.category = name,
            CommandKind::SetClass(name) => self.class = Some(name),
            CommandKind::SetUser(name) => {
                self.user = Some(name);
                self.expect_explicit_login();
            }
            CommandKind::SetPassword(password) => {
                self.password = Some(password);
                self.expect_explicit_login();
            }
            CommandKind::SetIgnored(_) | CommandKind::Ignored(_) => {}
            CommandKind::RemoveAllMethods { target, meta } => {
                if let Some(class) = self.target(target) {
                    self.run_quietly(&smalltalk::remove_all_methods(&class, meta));
                }
            }
            CommandKind::Input(path) => return self.input(&path),
            CommandKind::Commit => self.commit(),
            CommandKind::Abort => self.abort(),
            CommandKind::Login => self.login(),
            CommandKind::Logout => self.logout(),
            CommandKind::Exit(code) => return Flow::Exit(code),
            CommandKind::ExpectValue(value) => self.expect = Some(value),
            CommandKind::OutputPush { path, append, only } => self.push_output(&path, append, only),
            CommandKind::OutputPop => {
                if self.output.stack.pop().is_none() {
                    self.error("output pop: no output file was pushed");
                }
            }
            CommandKind::ErrorCount => {
                let text = self.errors.to_string();
                self.output.line(&text);
            }
        }
        Flow::Continue
    }

    /// `printit` / `run` / `doit`, checking a pending `expectvalue`.
    fn evaluate(&mut self, code: &str, show: Show) {
        let expected = self.expect.take();
        let breakable = self.breakable;
        let Some(session) = self.session() else {
            return;
        };
        let answer = {
            let _breakable = breakable.map(|during| during(session.interrupter()));
            session.evaluate_print_string(code)
        };
        match answer {
            Ok(text) => {
                if show == Show::PrintString {
                    self.output.line(&text);
                }
                if let Some(expected) = expected {
                    if checks_print_string(&expected) && expected != text {
                        self.error(&format!("expectvalue {expected}, got {text}"));
                    }
                }
            }
            Err(error) => self.smalltalk_error(&error),
        }
    }

    /// `method:` / `classmethod:`: a compile error is reported with its line and offset.
    fn compile_method(&mut self, class: &str, meta: bool, code: &str) {
        let doit = smalltalk::compile_method(class, meta, &self.category, code);
        let Some(session) = self.session() else {
            return;
        };
        match session.evaluate_string(&doit) {
            Ok(answer) => {
                if let Some((offset, text)) = smalltalk::compile_outcome(&answer) {
                    let place = if offset > 0 {
                        format!(
                            " (line {}, offset {offset})",
                            smalltalk::line_of(code, offset)
                        )
                    } else {
                        String::new()
                    };
                    self.error(&format!(
                        "1001, a CompileError occurred (error 1001), {text}{place}"
                    ));
                }
            }
            Err(error) => self.smalltalk_error(&error),
        }
    }

    /// Runs generated code whose result is of no interest; answers whether it succeeded.
    fn run_quietly(&mut self, code: &str) -> bool {
        let Some(session) = self.session() else {
            return false;
        };
        match session.evaluate_print_string(code) {
            Ok(_) => true,
            Err(error) => {
                self.smalltalk_error(&error);
                false
            }
        }
    }

    /// `commit`: a repository session commits through the engine's transaction
    /// API, so a conflict (`false`) and a refused commit (TransactionError) are
    /// told apart; an in-memory image runs `System commitTransaction`.
    fn commit(&mut self) {
        let Some(session) = self.session() else {
            return;
        };
        if session.is_persistent() {
            match session.commit_transaction() {
                Ok(true) => self.say("Successful commit"),
                Ok(false) => {
                    let answer = session.evaluate_string(smalltalk::CONFLICTS).ok();
                    self.error(&smalltalk::conflict_message(answer.as_deref()));
                }
                Err(error) => self.smalltalk_error(&error),
            }
            return;
        }
        match session.evaluate_print_string(smalltalk::COMMIT) {
            Ok(answer) if answer == "true" => self.say("Successful commit"),
            Ok(answer) => self.error(&format!(
                "commit failed (System commitTransaction answered {answer})"
            )),
            Err(error) => self.smalltalk_error(&error),
        }
    }

    /// `abort`: discards the transaction's changes (and, for a repository,
    /// moves the view to the latest commit).
    fn abort(&mut self) {
        let Some(session) = self.session() else {
            return;
        };
        if session.is_persistent() {
            // What the aborted work wrote to the Transcript is shown first; the
            // Transcript then goes back to its committed state.
            self.show_transcript();
            let Some(session) = self.session.as_mut() else {
                return;
            };
            match session.abort_transaction() {
                Ok(()) => {
                    self.sync_transcript();
                    self.say("Aborted transaction");
                }
                Err(error) => self.smalltalk_error(&error),
            }
            return;
        }
        if self.run_quietly(smalltalk::ABORT) {
            self.say("Aborted transaction");
        }
    }

    /// A repository login waits for an explicit `login` from now on.
    fn expect_explicit_login(&mut self) {
        if matches!(self.backend, Backend::Repository(_)) && self.session.is_none() {
            self.implicit_login = false;
        }
    }

    fn login(&mut self) {
        if self.session.is_some() {
            self.say("Already logged in");
            return;
        }
        self.implicit_login = false;
        if self.open_session() {
            self.say("Successful login");
        }
    }

    /// `logout`: ends the login; uncommitted work is lost, as in topaz.
    fn logout(&mut self) {
        self.flush_transcript();
        self.transcript_seen = 0;
        self.implicit_login = false;
        match self.session.take() {
            None => self.say("Not logged in"),
            Some(session) => match session.logout() {
                Ok(()) => self.say("Logged out"),
                Err(error) => self.smalltalk_error(&error),
            },
        }
    }

    /// The login, made on first use while that is allowed; `None` (after
    /// reporting) when there is none.
    fn session(&mut self) -> Option<&mut Session> {
        if self.session.is_none() {
            if !self.implicit_login {
                self.error("not logged in (use login)");
                return None;
            }
            // One implicit attempt: after a failure the script must say `login`.
            self.implicit_login = false;
            if !self.open_session() {
                return None;
            }
        }
        self.session.as_mut()
    }

    /// Logs in to the backend; answers whether that worked (a failure is reported).
    fn open_session(&mut self) -> bool {
        let opened = match &self.backend {
            Backend::Memory => Session::bootstrap(),
            Backend::Repository(path) => Session::login(
                path,
                self.user.as_deref().unwrap_or(DEFAULT_USER),
                self.password.as_deref().unwrap_or(DEFAULT_PASSWORD),
            ),
        };
        match opened {
            Ok(session) => {
                self.session = Some(session);
                self.sync_transcript();
                true
            }
            Err(error) => {
                // A wrong password leaves the script free to log in again; a
                // file that is no repository makes every later command fail.
                self.unusable = error.class_name == "RepositoryError";
                self.smalltalk_error(&error);
                false
            }
        }
    }

    /// Marks everything the Transcript holds now as seen: a repository's
    /// Transcript holds what earlier sessions committed, which is not this run's output.
    fn sync_transcript(&mut self) {
        self.transcript_partial.clear();
        self.transcript_seen = 0;
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if !session.is_persistent() {
            return;
        }
        if let Ok(size) = session.evaluate_string(smalltalk::TRANSCRIPT_SIZE) {
            self.transcript_seen = size.trim().parse().unwrap_or(0);
        }
    }

    fn target(&mut self, target: Target) -> Option<String> {
        match target {
            Target::Named(name) => Some(name),
            Target::Current => {
                let class = self.class.clone();
                if class.is_none() {
                    self.error("no current class (use set class NAME or name the class)");
                }
                class
            }
        }
    }

    /// `input FILE` (a name as [`file_path`] reads it); an `exit` inside the
    /// file ends the whole run, as in topaz.
    fn input(&mut self, path: &str) -> Flow {
        if self.depth >= MAX_INPUT_DEPTH {
            self.error(&format!(
                "input {path}: files nest deeper than {MAX_INPUT_DEPTH}"
            ));
            return Flow::Continue;
        }
        let full = match file_path(path) {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("input {path}: {e}"));
                return Flow::Continue;
            }
        };
        self.depth += 1;
        let flow = self.run_file(&full);
        self.depth -= 1;
        flow
    }

    fn push_output(&mut self, path: &str, append: bool, only: bool) {
        let full = match file_path(path) {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("output push {path}: {e}"));
                return;
            }
        };
        let opened = if append {
            OpenOptions::new().create(true).append(true).open(&full)
        } else {
            File::create(&full)
        };
        match opened {
            Ok(file) => self.output.stack.push(Sink {
                file,
                path: full,
                only,
            }),
            Err(error) => self.error(&format!("output push {}: {error}", full.display())),
        }
    }

    /// A progress line shown only without `-q`.
    pub fn say(&mut self, text: &str) {
        if !self.quiet {
            self.output.line(text);
        }
    }

    /// Reports a failure of the CLI itself and counts it.
    fn error(&mut self, text: &str) {
        self.errors = self.errors.saturating_add(1);
        self.output.line(&format!("ERROR {text}"));
    }

    /// Reports a Smalltalk error and counts it.
    fn smalltalk_error(&mut self, error: &StError) {
        self.error(&error_text(error));
    }
}

/// A file name as topaz reads it: `$NAME` and `${NAME}` replaced by the
/// environment variable's value (an unset one is an error, not an empty
/// string), and a relative name taken from the current directory — not from
/// the including file's, so a project's loader (`input src/core/X.gs`, run
/// from the project's root) works as it does in GemStone's topaz.
pub fn file_path(name: &str) -> Result<PathBuf, String> {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (var, tail) = if let Some(braced) = after.strip_prefix('{') {
            let Some(close) = braced.find('}') else {
                return Err(format!("an unclosed ${{ in {name:?}"));
            };
            (&braced[..close], &braced[close + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if var.is_empty() {
            return Err(format!("a $ names no variable in {name:?}"));
        }
        match std::env::var(var) {
            Ok(value) => out.push_str(&value),
            Err(_) => return Err(format!("the environment variable {var} is not set")),
        }
        rest = tail;
    }
    out.push_str(rest);
    Ok(PathBuf::from(out))
}

/// `<number>, <description>` plus where a compile error is, on one line. A
/// compile error shows the compiler's message after GemStone's prefix, and its
/// place once, as `(line L, offset O)`.
pub fn error_text(error: &StError) -> String {
    let description = match (&error.kind, &error.message_text) {
        (ErrorKind::Compile, Some(text)) if error.offset.is_some() => {
            format!("a CompileError occurred (error {}), {text}", error.number)
        }
        _ => error.description.clone(),
    };
    let description = description.trim().replace(['\r', '\n'], " ");
    let place = match (error.line, error.offset) {
        (Some(line), Some(offset)) => format!(" (line {line}, offset {offset})"),
        (None, Some(offset)) => format!(" (offset {offset})"),
        (Some(line), None) => format!(" (line {line})"),
        (None, None) => String::new(),
    };
    format!("{}, {description}{place}", error.number)
}
