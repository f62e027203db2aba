//! Renders client-supplied text as Smalltalk literals: [`Literal`], the only
//! thing a tool expression's holes can be filled with.
//!
//! Client text reaches Smalltalk only as a quoted literal, never as code (the one
//! exception is the `code` argument of `execute_code`). The compiler holds every
//! tool to it: a [`Literal`] can only be made by quoting text or by rendering a
//! number, a boolean or `nil`, so no path exists from a client's string to a
//! hole but through the quoting. (Smalltalk the tools share, such as the JSON
//! string writer, is never a hole's content: the build includes it in the
//! expressions, `tools/shared.st`.)

use std::borrow::Cow;

/// A piece of Smalltalk source fit for a hole of a tool expression. Its field
/// is private: the constructors are the only ways to make one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal(Cow<'static, str>);

impl Literal {
    /// A string literal holding exactly `text`.
    pub fn string(text: &str) -> Literal {
        Literal(string_literal(text).into())
    }

    /// A quoted symbol literal for `text`.
    pub fn symbol(text: &str) -> Literal {
        Literal(symbol_literal(text).into())
    }

    /// A symbol literal for `text`, or `nil` for none.
    pub fn optional_symbol(text: Option<&str>) -> Literal {
        text.map_or_else(Literal::nil, Literal::symbol)
    }

    /// A literal Array of symbols: `#(#'a' #'b')`.
    pub fn symbol_array<'a>(texts: impl IntoIterator<Item = &'a str>) -> Literal {
        let items: Vec<String> = texts.into_iter().map(symbol_literal).collect();
        Literal(format!("#({})", items.join(" ")).into())
    }

    /// A literal Array of symbol Arrays: `#(#(#'a' #'b') #())`.
    pub fn symbol_arrays<'a, I>(lists: impl IntoIterator<Item = I>) -> Literal
    where
        I: IntoIterator<Item = &'a str>,
    {
        let items: Vec<Literal> = lists.into_iter().map(Literal::symbol_array).collect();
        let texts: Vec<&str> = items.iter().map(Literal::as_str).collect();
        Literal(format!("#({})", texts.join(" ")).into())
    }

    /// A SmallInteger literal (a count, an offset, a limit).
    pub fn integer(n: usize) -> Literal {
        Literal(n.to_string().into())
    }

    /// `true` or `false`.
    pub fn boolean(b: bool) -> Literal {
        Literal(Cow::Borrowed(if b { "true" } else { "false" }))
    }

    /// `nil`.
    pub fn nil() -> Literal {
        Literal(Cow::Borrowed("nil"))
    }

    /// The source text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A Smalltalk string literal holding exactly `text`: the text between single
/// quotes, with every embedded single quote doubled. Any other character,
/// including newlines and `"`, stands for itself inside a string literal.
fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// A Smalltalk quoted-symbol literal (`#'...'`) for `text`, with embedded single
/// quotes doubled. Quoting always, even for plain identifiers, keeps one rule for
/// every name a client sends.
fn symbol_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 3);
    out.push('#');
    out.push_str(&string_literal(text));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes a string literal the way a Smalltalk scanner does, so the tests check
    /// the round trip and not only the rendering.
    fn scan_string_literal(lit: &str) -> Option<String> {
        let inner = lit.strip_prefix('\'')?.strip_suffix('\'')?;
        let mut out = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                // Inside the literal a quote must be doubled; a lone one would end it.
                if chars.next() != Some('\'') {
                    return None;
                }
            }
            out.push(c);
        }
        Some(out)
    }

    #[test]
    fn string_literals() {
        let table = [
            ("", "''"),
            ("abc", "'abc'"),
            ("it's", "'it''s'"),
            ("'", "''''"),
            ("''", "''''''"),
            ("a\nb", "'a\nb'"),
            ("say \"hi\"", "'say \"hi\"'"),
            (
                "'); System commitTransaction. ('",
                "'''); System commitTransaction. ('''",
            ),
            ("ünïcödé 😀", "'ünïcödé 😀'"),
        ];
        for (text, expected) in table {
            let lit = string_literal(text);
            assert_eq!(lit, expected, "rendering {text:?}");
            assert_eq!(
                scan_string_literal(&lit).as_deref(),
                Some(text),
                "round trip of {text:?}"
            );
        }
    }

    #[test]
    fn symbol_literals() {
        let table = [
            ("Foo", "#'Foo'"),
            ("at:put:", "#'at:put:'"),
            ("a'b", "#'a''b'"),
            ("", "#''"),
        ];
        for (text, expected) in table {
            assert_eq!(symbol_literal(text), expected, "rendering {text:?}");
        }
    }

    #[test]
    fn literals_of_every_kind() {
        let table = [
            (Literal::string("it's"), "'it''s'"),
            (Literal::symbol("at:put:"), "#'at:put:'"),
            (Literal::optional_symbol(Some("A")), "#'A'"),
            (Literal::optional_symbol(None), "nil"),
            (Literal::symbol_array(["a", "b'c"]), "#(#'a' #'b''c')"),
            (Literal::symbol_array([]), "#()"),
            (
                Literal::symbol_arrays([vec!["a", "b"], vec![]]),
                "#(#(#'a' #'b') #())",
            ),
            (Literal::integer(42), "42"),
            (Literal::boolean(true), "true"),
            (Literal::boolean(false), "false"),
        ];
        for (literal, expected) in table {
            assert_eq!(literal.as_str(), expected);
        }
    }

    #[test]
    fn every_rendered_literal_scans_back() {
        // A small exhaustive sweep over short strings of quote-heavy characters.
        let alphabet = ['\'', 'a', '"', '\n', '#'];
        let mut stack = vec![String::new()];
        while let Some(s) = stack.pop() {
            assert_eq!(
                scan_string_literal(&string_literal(&s)).as_deref(),
                Some(s.as_str())
            );
            if s.chars().count() < 4 {
                for c in alphabet {
                    let mut next = s.clone();
                    next.push(c);
                    stack.push(next);
                }
            }
        }
    }
}
