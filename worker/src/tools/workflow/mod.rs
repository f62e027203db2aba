//! The Workflow toolset: no tools, four MCP prompts that put a GemStone
//! developer's way of working into the protocol — test-first development, a
//! safe change to a method and its callers, transaction hygiene, and
//! exploring an unfamiliar repository. Each is a short, ordered list of the
//! tools to call; rendering evaluates nothing. Its own toolset, so a
//! deployment can leave it out (`MCP_TOOLSETS`).

use crate::notify::Notifier;
use crate::prompts::{message, Arguments, Prompt, PromptArg};
use serde_json::json;

const CLASS: PromptArg = PromptArg {
    name: "className",
    description: "The class to work on (e.g. BankAccount).",
    required: true,
    suggestions: &[],
};

const SELECTOR: PromptArg = PromptArg {
    name: "selector",
    description: "The method's selector (e.g. deposit:).",
    required: true,
    suggestions: &[],
};

const DICTIONARY: PromptArg = PromptArg {
    name: "dictionary",
    description: "The symbol-list dictionary the work belongs in (default UserGlobals).",
    required: false,
    suggestions: &["UserGlobals"],
};

/// The Workflow prompts.
pub static PROMPTS: [Prompt; 4] = [
    Prompt {
        name: "gemstone-tdd",
        title: "Test-first development",
        description: "Red, green, then a commit gated on the tests: locate the class and its \
tests, write a failing test, make it pass, check the rest, commit only when green.",
        arguments: &[
            CLASS,
            PromptArg {
                required: false,
                ..SELECTOR
            },
            DICTIONARY,
        ],
        render: tdd,
    },
    Prompt {
        name: "gemstone-safe-refactor",
        title: "A safe change to a method",
        description: "A green baseline, the impact through implementors, senders and \
references, the change previewed and applied, the tests run again, a gated commit.",
        arguments: &[CLASS, SELECTOR],
        render: safe_refactor,
    },
    Prompt {
        name: "gemstone-transaction-hygiene",
        title: "Transaction hygiene",
        description: "How this session's transaction works and how to keep it clean: status, \
refresh, re-read, then commit or abort.",
        arguments: &[],
        render: transaction_hygiene,
    },
    Prompt {
        name: "gemstone-explore",
        title: "Explore the repository",
        description: "Reading an unfamiliar repository with the read tools only: the symbol \
list, a dictionary's classes, one class in depth, how it is used and tested.",
        arguments: &[
            DICTIONARY,
            PromptArg {
                required: false,
                ..CLASS
            },
        ],
        render: explore,
    },
];

/// An argument's value, checked to be a Smalltalk name of the kind `what`
/// (it is shown to the model as code, so nothing else is accepted).
fn name<'a>(args: &'a Arguments, key: &str, what: &str) -> Result<Option<&'a str>, String> {
    let Some(v) = args.get(key).map(String::as_str) else {
        return Ok(None);
    };
    let ok = !v.is_empty()
        && v.len() <= 1024
        && v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    match ok {
        true => Ok(Some(v)),
        false => Err(format!("{key} {v:?} is not {what}")),
    }
}

fn class(args: &Arguments) -> Result<Option<&str>, String> {
    let c = name(args, "className", "a class name")?;
    match c {
        Some(c) if c.contains(':') => Err(format!("className {c:?} is not a class name")),
        c => Ok(c),
    }
}

fn dictionary(args: &Arguments) -> Result<&str, String> {
    Ok(name(args, "dictionary", "a dictionary name")?.unwrap_or("UserGlobals"))
}

fn user(text: String) -> Vec<serde_json::Value> {
    vec![message("user", json!({"type": "text", "text": text}))]
}

fn tdd(args: &Arguments, _: &Notifier) -> Result<Vec<serde_json::Value>, String> {
    let class = class(args)?.unwrap_or_default();
    let dict = dictionary(args)?;
    let target = match name(args, "selector", "a selector")? {
        Some(s) => format!("{class}>>#{s}"),
        None => class.to_string(),
    };
    Ok(user(format!(
        "Work test-first on {target} in this GemStone session. Everything you change stays in \
this session's transaction, unseen by other sessions, until the commit tool commits it.

1. Locate. Call status (your user; whether the session already holds uncommitted changes). \
Call describe_class for {class} and get_method_source for the method if it exists. Call \
list_test_classes to find its tests (often {class}Test).
2. Red. Without a test class, make one: compile_class_definition with className {class}Test, \
superclassName TestCase, dictionary {dict}. Write one test with compile_method: a unary \
selector beginning with `test` that asserts the behaviour you want (`self assert: … equals: …`). \
Run it with run_test_method and check it fails for the reason you expect; \
describe_test_failure shows where.
3. Green. Change the code with compile_method — read a method with get_method_source before \
you replace it — and run the test again until it passes.
4. Check the rest. run_test_class on the test class, then list_failing_tests with classNames \
naming every test class near your change.
5. Commit gated on the tests: commit with testClasses [\"{class}Test\"] runs them once more in \
this transaction and commits only if all pass. Refused means red: fix and commit again, or \
abort to discard the whole transaction."
    )))
}

fn safe_refactor(args: &Arguments, _: &Notifier) -> Result<Vec<serde_json::Value>, String> {
    let class = class(args)?.unwrap_or_default();
    let sel = name(args, "selector", "a selector")?.unwrap_or_default();
    Ok(user(format!(
        "Change {class}>>#{sel} without breaking its callers.

1. Baseline. Find the tests that exercise it (list_test_classes; find_senders of {sel} \
shows test methods among its callers) and run them with run_test_class or \
list_failing_tests. Note what already fails before you change anything.
2. Impact. find_implementors of {sel}: every class defining it — a change to the protocol may \
need them all. find_senders of {sel}: every caller whose expectations you must keep. \
find_references_to {class}: the code that names the class itself.
3. Preview. Read every method you will touch with get_method_source and set out its old and \
new source before compiling anything. The kernel guard refuses changes to what a kernel class \
already has unless you pass allowKernelEdits: prefer your own classes (a subclass, an \
extension method).
4. Apply with compile_method, one method at a time (a method keeps its category unless you \
give one). To rename the selector, rename_method does it in one step: its first call (dryRun, \
the default) answers every method's diff and a token, and the same call with dryRun false and \
that token writes exactly that. Without the Refactoring toolset, compile the new method, update \
each sender, then delete_method the old one.
5. Re-test. Run the baseline again; a newly failing test is this change's. Then commit with \
testClasses naming those test classes; a refused commit leaves everything in place to fix, or \
abort to drop it all."
    )))
}

fn transaction_hygiene(_: &Arguments, _: &Notifier) -> Result<Vec<serde_json::Value>, String> {
    Ok(user(
        "Keep this GemStone session's transaction clean. Everything you change — compiled \
methods, class definitions, objects changed by execute_code or a test — stays in this session's \
own transaction: later calls of this session see it, other sessions do not, until commit. \
abort discards all of it at once.

1. status: your user, whether the session holds uncommitted changes, how many commits of \
other sessions the view is behind.
2. Behind? refresh moves the view to the newest commit and keeps your changes. Then re-read \
what you are about to change (get_method_source, describe_class): the server refuses to \
overwrite what this session has not read since its view moved.
3. Commit a finished, tested unit of work, gated on its tests (commit with testClasses). A \
`conflict` means another session committed the same objects first: abort (your uncommitted \
changes are lost), read the new state, redo the change, commit.
4. Do not leave work uncommitted when you stop: commit or abort. The server releases a \
session that stays idle too long, and its uncommitted changes with it."
            .to_string(),
    ))
}

fn explore(args: &Arguments, _: &Notifier) -> Result<Vec<serde_json::Value>, String> {
    let dict = dictionary(args)?;
    let focus = match class(args)? {
        Some(c) => format!("describe_class {c}"),
        None => "describe_class on the class that matters most".to_string(),
    };
    Ok(user(format!(
        "Explore this GemStone repository with the read tools only; nothing here changes \
anything.

1. list_dictionaries: the symbol list, in the order names are looked up.
2. list_classes for {dict}: the application's classes (list_all_classes for every class).
3. {focus}: its definition, comment, variables and selectors by category; \
get_class_hierarchy for its superclasses and subclasses.
4. list_methods and get_method_source to read its methods; export_class_source for the whole \
class as topaz file-in.
5. find_senders, find_implementors, find_references_to and search_method_source to follow how \
it is used.
6. list_test_classes, then run_test_class on its tests, to see what is specified and green.

Finish with a short summary: what the classes are for, how they collaborate, and where their \
tests stand."
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> Arguments {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn text(p: &Prompt, a: &[(&str, &str)]) -> Result<String, String> {
        (p.render)(&args(a), &crate::notify::detached_notifier(json!({})))
            .map(|m| m[0]["content"]["text"].as_str().unwrap().to_string())
    }

    /// Every prompt renders, names the tools it asks for (each one a tool of
    /// this build), and refuses an argument that is not a name.
    #[test]
    fn prompts_render_and_name_real_tools() {
        let tools: Vec<&str> = crate::tools::all_tools().map(|t| t.name).collect();
        let full = [
            ("className", "BankAccount"),
            ("selector", "deposit:"),
            ("dictionary", "Bank"),
        ];
        for p in &PROMPTS {
            let given: Vec<(&str, &str)> = full
                .iter()
                .copied()
                .filter(|(k, _)| p.arguments.iter().any(|a| a.name == *k))
                .collect();
            let t = text(p, &given).unwrap();
            let named: Vec<&str> = tools.iter().copied().filter(|n| t.contains(n)).collect();
            assert!(named.len() >= 3, "{}: {named:?}", p.name);
            for a in p.arguments {
                let bad = text(p, &[(a.name, "x y'; System commitTransaction")]);
                assert!(bad.is_err(), "{} {}", p.name, a.name);
            }
        }
        let t = text(
            &PROMPTS[0],
            &[("className", "BankAccount"), ("selector", "deposit:")],
        )
        .unwrap();
        assert!(
            t.contains("BankAccount>>#deposit:") && t.contains("testClasses"),
            "{t}"
        );
        assert!(text(&PROMPTS[0], &[("className", "a:b")]).is_err());
    }
}
