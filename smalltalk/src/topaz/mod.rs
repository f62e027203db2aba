//! Topaz, GemStone's command-line language, over a [`Session`](crate::Session):
//! `script` parses topaz input into commands (public, so a file-in elsewhere
//! reads topaz text exactly as `gsmcp-topaz` does), `runner` executes them (login,
//! `printit`/`run`, `method:`, `commit`, `expectvalue`, output, ...) and
//! `smalltalk` builds the Smalltalk they send, with script text only ever
//! inside quoted literals. It uses the public API alone; `gsmcp-topaz` is the
//! command line over it (arguments, the repository file, Ctrl-C).

mod runner;
mod script;
mod smalltalk;

pub use runner::{error_text, Backend, Breakable, Flow, Runner};
pub use script::{
    checks_print_string, parse_all, Command, CommandKind, ParseError, Parser, Show, Target,
};
