//! Renders client-supplied text as Smalltalk literals.
//!
//! Client text reaches Smalltalk only as a quoted literal, never as code (the one
//! exception is the `code` argument of `execute_code`). Every tool that puts an
//! argument into a Smalltalk expression goes through this module; nothing else
//! splices strings into source.

/// A Smalltalk string literal holding exactly `text`: the text between single
/// quotes, with every embedded single quote doubled. Any other character,
/// including newlines and `"`, stands for itself inside a string literal.
pub fn string_literal(text: &str) -> String {
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
pub fn symbol_literal(text: &str) -> String {
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
