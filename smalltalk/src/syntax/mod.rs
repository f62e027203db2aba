//! The language's syntax, below everything else: the lexer and parser that turn
//! GemStone Smalltalk text into a syntax tree (`parser`, `ast`), and the census
//! of the names a doit uses, the method formatter (`format`) and the source
//! rewriting refactorings use (`rewrite` across methods, `extract` and
//! `inline` inside one). Nothing here touches objects or runs code.

pub(crate) mod ast;
pub mod census;
pub mod extract;
pub mod format;
pub mod inline;
pub mod parser;
pub mod rewrite;
