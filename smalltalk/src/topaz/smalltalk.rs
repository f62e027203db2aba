//! The Smalltalk text `gsmcp-topaz` sends for commands that are not plain
//! evaluations (method compiles, method removal, commit, abort).
//!
//! Text from the script (class names, categories, method source) reaches the
//! engine only inside correctly quoted string or symbol literals; this module
//! never splices it into code.

/// `text` as a Smalltalk string literal: `'…'` with every `'` doubled.
pub fn string_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// `text` as a quoted Smalltalk symbol literal: `#'…'`.
pub fn symbol_literal(text: &str) -> String {
    format!("#{}", string_literal(text))
}

/// Statements that bind the temp `cls` to the class (or metaclass) named
/// `class_name`, signalling an Error when no class has that name.
fn resolve_class(class_name: &str, meta: bool) -> String {
    let message = string_literal(&format!("no class named {class_name}"));
    let side = if meta { "cls := cls class.\n" } else { "" };
    format!(
        "cls := System myUserProfile symbolList objectNamed: {name}.\n\
         cls isBehavior ifFalse: [^ Error signal: {message}].\n{side}",
        name = symbol_literal(class_name),
    )
}

/// The doit that compiles `source` into a class (or its metaclass) under
/// `category`. It answers a String: empty when the method was installed, else
/// `<offset> <text>` from the first of the CompileError's `errorDetails`.
pub fn compile_method(class_name: &str, meta: bool, category: &str, source: &str) -> String {
    format!(
        "| cls |\n{resolve}^ [cls compileMethod: {source}\n\
         \t\tdictionaries: System myUserProfile symbolList\n\
         \t\tcategory: {category}\n\
         \t\tenvironmentId: 0.\n\
         \t'']\n\
         \ton: CompileError\n\
         \tdo: [:ex | | details |\n\
         \t\tdetails := ex errorDetails.\n\
         \t\tdetails isEmpty\n\
         \t\t\tifTrue: ['0 ' , ex description]\n\
         \t\t\tifFalse: [(details first at: 2) printString , ' ' , (details first at: 3) asString]]",
        resolve = resolve_class(class_name, meta),
        source = string_literal(source),
        category = symbol_literal(category),
    )
}

/// What a compile doit answered: `None` when the method was installed, else the
/// 1-based offset (0 when unknown) and the compiler's message.
pub fn compile_outcome(answer: &str) -> Option<(usize, String)> {
    if answer.is_empty() {
        return None;
    }
    match answer.split_once(' ') {
        Some((offset, text)) => Some((offset.parse().unwrap_or(0), text.to_string())),
        None => Some((0, answer.to_string())),
    }
}

/// The 1-based line holding the 1-based character `offset` of `source`.
pub fn line_of(source: &str, offset: usize) -> usize {
    source
        .chars()
        .take(offset.saturating_sub(1))
        .filter(|&c| c == '\n')
        .count()
        + 1
}

/// The doit behind `removeallmethods` / `removeallclassmethods`.
pub fn remove_all_methods(class_name: &str, meta: bool) -> String {
    format!(
        "| cls |\n{}cls removeAllMethods.\n^ nil",
        resolve_class(class_name, meta)
    )
}

/// A doit answering `<size> <text>`: the Transcript's size and what it holds
/// beyond the first `seen` characters (all of it when it shrank, i.e. was reset).
pub fn transcript_since(seen: usize) -> String {
    format!(
        "| all | all := Transcript contents.\n\
         ^ all size printString , ' ' , (all size >= {seen}\n\
         \tifTrue: [all copyFrom: {seen} + 1 to: all size]\n\
         \tifFalse: [all])"
    )
}

/// A doit answering the Transcript's size as a String.
pub const TRANSCRIPT_SIZE: &str = "^ Transcript contents size printString";

/// After a failed commit: a doit answering `<count> <descriptions>` of the
/// objects both this session and another commit wrote (`System
/// transactionConflicts`), at most five of them named: a class by its name,
/// anything else as `an instance of CLASS`.
pub const CONFLICTS: &str = "| conflicts objects stream |
conflicts := System transactionConflicts.
objects := conflicts isNil
\tifTrue: [#()]
\tifFalse: [conflicts at: #'Write-Write' ifAbsent: [#()]].
stream := WriteStream on: String new.
1 to: (objects size min: 5) do: [:i | | each |
\teach := objects at: i.
\ti > 1 ifTrue: [stream nextPutAll: ', '].
\teach isBehavior
\t\tifTrue: [stream nextPutAll: each name asString]
\t\tifFalse: [stream nextPutAll: 'an instance of '; nextPutAll: each class name asString]].
objects size > 5 ifTrue: [stream nextPutAll: ' and '; print: objects size - 5; nextPutAll: ' more'].
^ objects size printString , ' ' , stream contents";

/// The `ERROR` text for a commit that lost a write-write conflict, from what
/// [`CONFLICTS`] answered (`None` when that could not be asked).
pub fn conflict_message(answer: Option<&str>) -> String {
    let what = answer
        .and_then(|a| a.split_once(' '))
        .and_then(|(count, names)| {
            let count: usize = count.parse().ok()?;
            let noun = if count == 1 { "object" } else { "objects" };
            (count > 0).then(|| format!(" on {count} {noun} ({names})"))
        })
        .unwrap_or_default();
    format!(
        "commit failed: write-write conflict with another session's commit{what}; \
         abort to go on"
    )
}

pub const COMMIT: &str = "System commitTransaction";
pub const ABORT: &str = "System abortTransaction. ^ nil";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_double_their_quotes() {
        let table = [
            ("abc", "'abc'", "#'abc'"),
            ("", "''", "#''"),
            ("it's", "'it''s'", "#'it''s'"),
            ("''", "''''''", "#''''''"),
            ("a\nb", "'a\nb'", "#'a\nb'"),
        ];
        for (text, string, symbol) in table {
            assert_eq!(string_literal(text), string, "{text:?}");
            assert_eq!(symbol_literal(text), symbol, "{text:?}");
        }
    }

    #[test]
    fn compile_method_quotes_everything_it_is_given() {
        let code = compile_method("Foo'] halt. ['", true, "it's", "x\n  ^'y'");
        assert!(code.starts_with(
            "| cls |\n\
             cls := System myUserProfile symbolList objectNamed: #'Foo''] halt. ['''.\n\
             cls isBehavior ifFalse: [^ Error signal: 'no class named Foo''] halt. ['''].\n\
             cls := cls class.\n\
             ^ [cls compileMethod: 'x\n  ^''y'''\n"
        ));
        assert!(code.contains("category: #'it''s'\n"));
    }

    #[test]
    fn compile_outcomes_and_lines() {
        assert_eq!(compile_outcome(""), None);
        assert_eq!(
            compile_outcome("8 undefined symbol x"),
            Some((8, "undefined symbol x".into()))
        );
        assert_eq!(compile_outcome("oops"), Some((0, "oops".into())));
        let source = "bad\n\t^ undefinedThing";
        let table = [(1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (0, 1), (99, 2)];
        for (offset, line) in table {
            assert_eq!(line_of(source, offset), line, "offset {offset}");
        }
    }

    #[test]
    fn conflict_messages() {
        let table = [
            (
                Some("1 Account"),
                "commit failed: write-write conflict with another session's commit on 1 object \
                 (Account); abort to go on",
            ),
            (
                Some("2 Account, an instance of OrderedCollection"),
                "commit failed: write-write conflict with another session's commit on 2 objects \
                 (Account, an instance of OrderedCollection); abort to go on",
            ),
            (
                Some("0 "),
                "commit failed: write-write conflict with another session's commit; abort to go on",
            ),
            (
                Some("garbage"),
                "commit failed: write-write conflict with another session's commit; abort to go on",
            ),
            (
                None,
                "commit failed: write-write conflict with another session's commit; abort to go on",
            ),
        ];
        for (answer, message) in table {
            assert_eq!(conflict_message(answer), message, "{answer:?}");
        }
    }

    #[test]
    fn remove_all_methods_targets_the_right_side() {
        assert!(remove_all_methods("Foo", false).contains("'].\ncls removeAllMethods."));
        assert!(
            remove_all_methods("Foo", true).contains("cls := cls class.\ncls removeAllMethods.")
        );
    }
}
