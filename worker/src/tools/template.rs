//! Tool expressions as types: what the worker's build makes of the toolsets'
//! Smalltalk, and the only way a tool's Smalltalk becomes text to evaluate.
//!
//! `worker/build.rs` cuts every `!tool NAME` section of `tools/<toolset>/
//! <toolset>.st` (its `!include`s expanded from `tools/shared.st`, comments
//! dropped), checks it and splits it at its `{{holes}}` once, at build time.
//! Each section becomes a struct in its toolset's `expressions` module with
//! one [`Literal`] field per hole, so a tool fills every hole of its
//! expression or does not compile, and a hole can only hold a `Literal`:
//! quoted client text, a number, a boolean or `nil`. [`Rendered`] is the text
//! a tool evaluates; only [`render`] makes one, from the build's `'static`
//! pieces and those literals.

pub use crate::quote::Literal;

/// A tool expression of this build (a struct the build generated).
pub trait Expression {
    /// The `!tool` name of the section it was cut from.
    const TOOL: &'static str;
    /// The expression's text with its holes filled.
    fn render(&self) -> Rendered;
}

/// Smalltalk ready to evaluate: pieces of this build joined by literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered(String);

impl Rendered {
    /// The source text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Joins `pieces` (text of this build) with `holes` between them: piece 0,
/// hole 0, piece 1, … (the generated expressions call it with one piece more
/// than holes).
pub fn render(pieces: &[&'static str], holes: &[&Literal]) -> Rendered {
    debug_assert_eq!(pieces.len(), holes.len() + 1);
    let size = pieces.iter().map(|p| p.len()).sum::<usize>()
        + holes.iter().map(|h| h.as_str().len()).sum::<usize>();
    let mut out = String::with_capacity(size);
    for (i, piece) in pieces.iter().enumerate() {
        out.push_str(piece);
        if let Some(hole) = holes.get(i) {
            out.push_str(hole.as_str());
        }
    }
    Rendered(out)
}

/// One tool expression as the build cut it, holes in place (for the census and
/// the tests).
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// The file it was cut from, relative to `tools/`.
    pub file: &'static str,
    /// Its `!tool` name.
    pub tool: &'static str,
    /// Its text, includes expanded, holes as `{{name}}`.
    pub text: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/tools/sources.rs"));

/// The build's cutter, tested here on broken files.
#[cfg(test)]
#[path = "../../build/cut.rs"]
mod cut;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_holes_alternate() {
        let a = Literal::string("it's {{b}}");
        let two = Literal::integer(2);
        // (pieces, holes, expected)
        let table: [(&[&'static str], Vec<&Literal>, &str); 4] = [
            (&["x "], vec![], "x "),
            (&["x ", " y"], vec![&a], "x 'it''s {{b}}' y"),
            (&["", "", ""], vec![&two, &two], "22"),
            (&["{ ", " }"], vec![&two], "{ 2 }"),
        ];
        for (pieces, holes, expected) in table {
            assert_eq!(render(pieces, &holes).as_str(), expected);
        }
    }

    #[test]
    fn broken_tool_files_fail_the_build_naming_the_place() {
        let shared = "! shared\n!fragment theClass\ncls := {{className}}.\n\n";
        let fragments = cut::fragments(shared).expect("shared.st cuts");
        // (tool file, the error names)
        let table = [
            (
                "x := 1.\n!tool a\n^ 1",
                "t.st:1: text before the first !tool section",
            ),
            ("!tool a\n!tool a\n^ 1", "t.st:2: a is defined twice"),
            (
                "!tool a\n!tol b\n^ 1",
                "t.st:2: unknown directive \"!tol b\"",
            ),
            ("!tool a-b\n^ 1", "t.st:1: !tool needs a name"),
            ("!tool a\n! only a comment\n", "t.st:1: a has no expression"),
            (
                "!tool a\n!include nothing\n",
                "t.st:2: no fragment \"nothing\"",
            ),
            (
                "!tool a\n^ '{{x}}'",
                "t.st:1 (the section starting there): a hole inside a string",
            ),
            ("!tool a\n\"{{x}}\" ^ 1", "a hole inside a comment"),
            ("!tool a\n^ ${{x}}", "a hole right after `$`"),
            ("!tool a\n^ {{x y}}", "`{{x y}}` does not open a hole"),
            ("!tool a\n^ {{1. 2}. 3}", "does not open a hole"),
            ("!tool a\n^ {{x", "`{{x` does not open a hole"),
            ("!tool a\n^ {{_x}}", "does not open a hole"),
            ("!tool a\n^ {{1x}}", "does not open a hole"),
            ("!tool a\n^ 'open", "a string literal is never closed"),
            ("!tool a\n^ \"open", "a comment is never closed"),
        ];
        for (text, expected) in table {
            match cut::cut(text, "t.st", &fragments) {
                Ok(_) => panic!("{text:?} was accepted"),
                Err(e) => assert!(e.contains(expected), "{text:?}: {e}"),
            }
        }
        // what is fine: holes in code, braces that are not holes, `$'`, quotes
        // doubled in a string, a fragment's hole becoming the tool's
        let good = "! c\n!tool fine\n!include theClass\n^ { {{a}}. ${. $'. 'it''s {'. { {1} } }\n";
        let cuts = cut::cut(good, "t.st", &fragments).expect("accepted");
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0].tool, "fine");
        assert_eq!(
            cuts[0].text,
            "cls := {{className}}.\n^ { {{a}}. ${. $'. 'it''s {'. { {1} } }"
        );
        assert!(
            cuts[0].code.contains("pub struct Fine {"),
            "{}",
            cuts[0].code
        );
        assert!(cuts[0]
            .code
            .contains("pub class_name: crate::tools::template::Literal"));
        assert!(
            cuts[0].code.contains("[&self.class_name, &self.a]"),
            "{}",
            cuts[0].code
        );
        let fragments = cut::fragments("!fragment a\n!include b\n");
        let broken = cut::cut("!tool x\n!include a\n", "t.st", &fragments.expect("cut"));
        assert!(broken.is_err_and(|e| e.contains("a fragment cannot include another")));
    }

    #[test]
    fn every_expression_is_cut_whole() {
        assert!(SOURCES.len() >= 25, "{} expressions", SOURCES.len());
        let mut seen = std::collections::HashSet::new();
        for s in SOURCES {
            assert!(seen.insert((s.file, s.tool)), "{} twice", s.tool);
            assert!(!s.text.trim().is_empty(), "{}: empty", s.tool);
            for line in s.text.lines() {
                assert!(!line.starts_with('!'), "{}: directive left: {line}", s.tool);
            }
        }
        let describe = SOURCES
            .iter()
            .find(|s| s.tool == "describe_class")
            .expect("describe_class");
        assert_eq!(describe.file, "browsing/browsing.st");
        assert!(describe.text.contains("json := [:text |"), "json included");
        assert!(
            describe
                .text
                .contains("objectNamed: {{className}}.\n(cls isNil or: [cls isBehavior not])"),
            "theClass included"
        );
    }
}
