//! The Session toolset: `abort`, `commit`, `refresh` and `status`. These tools
//! report or move the session's transaction state; `commit` is the only tool of
//! the whole surface that commits, and these are the only tools that move the
//! session's view. Their Smalltalk lives in `session.st` beside this file.

use super::testing::gate::Gate;
use super::{
    from_st_error, strings, Annotations, Context, ErrorKind, Tool, ToolError, ToolOutput, Toolset,
};
use crate::schema::{Param, ParamType};
use gsmcp_smalltalk::EvalPolicy;
use serde_json::{json, Value};

use expressions as st;

/// This toolset's expressions, cut from `session.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/session.rs"));
}

/// The unary messages these tools send to System itself
/// ([`crate::backend::Login::system_print_string`]), never through the
/// symbol list: abort, commit, and the two facts of `status`.
pub const SYSTEM_MESSAGES: [&str; 4] = [ABORT, COMMIT, SESSION, NEEDS_COMMIT];
const ABORT: &str = "abortTransaction";
const COMMIT: &str = "commitTransaction";
const SESSION: &str = "session";
const NEEDS_COMMIT: &str = "needsCommit";

/// `commit`'s test gate: the tests it runs first, committing only when all pass.
const GATE: [Param; 3] = [
    Param {
        name: "testClasses",
        ty: ParamType::StringArray,
        description: "Test classes (TestCase subclasses, by name) to run before committing; the \
commit is made only when every one of their tests passes.",
        required: false,
    },
    Param {
        name: "testClassPattern",
        ty: ParamType::String,
        description: "Also run the test classes whose names match this glob (`*` any run of \
characters, `?` one), e.g. `Bank*Test`.",
        required: false,
    },
    Param {
        name: "testDictionary",
        ty: ParamType::String,
        description: "Also run the test classes bound in this dictionary of the symbol list \
(with testClassPattern: those of them whose names match it).",
        required: false,
    },
];

/// What a commit's own tests may do: run the test classes' code, never commit.
const TESTS_POLICY: EvalPolicy = EvalPolicy {
    client_code: true,
    may_commit: false,
};

/// The commit tool's own policy ([`Tool::policy`]), restored after its tests.
const COMMIT_POLICY: EvalPolicy = EvalPolicy {
    client_code: false,
    may_commit: true,
};

/// The Session tools.
pub static TOOLS: [Tool; 4] = [
    Tool {
        name: "abort",
        title: "Abort the transaction",
        description:
            "Discards every uncommitted change of this session (methods compiled, classes \
defined, globals set since the last commit or abort) and moves its view to the newest commit, so \
work other sessions committed becomes visible. This cannot be undone. After a commit refused for a \
conflict, abort is the way to go on.",
        toolset: Toolset::Session,
        params: &[],
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: true,
        },
        handler: abort,
    },
    Tool {
        name: "commit",
        title: "Commit the transaction",
        description: "Makes this session's uncommitted changes permanent and visible to other \
sessions, and moves its view to the newest commit. The only tool that commits. If another \
session committed a change to the same objects first, the commit is refused with error kind \
`conflict` naming what conflicted; nothing is committed and the session must then abort (losing \
its changes) before it can commit again. With testClasses, testClassPattern or testDictionary it \
first runs those tests in this session's transaction and commits only when all pass; otherwise \
it is refused (kind `refused`, the failures listed) and the transaction is left as it was, to be \
repaired. Tests run in the transaction, so what they change is committed with it.",
        toolset: Toolset::Session,
        params: &GATE,
        annotations: Annotations {
            read_only: false,
            destructive: false,
            idempotent: false,
        },
        handler: commit,
    },
    Tool {
        name: "refresh",
        title: "Refresh the view",
        description: "Moves this session's view to the newest commit while keeping its own \
uncommitted changes, so work other sessions committed becomes visible without losing this \
session's work. Nothing is committed or discarded. Refused after a failed commit (abort first).",
        toolset: Toolset::Session,
        params: &[],
        annotations: Annotations {
            read_only: false,
            destructive: false,
            idempotent: true,
        },
        handler: refresh,
    },
    Tool {
        name: "status",
        title: "Session status",
        description: "Reports this session's login: the user, the session number, the stone, \
whether the session holds uncommitted changes (which only the commit tool makes permanent and \
abort discards), and how many commits of other sessions its view is behind (null for an \
in-memory stone).",
        toolset: Toolset::Session,
        params: &[],
        annotations: Annotations {
            read_only: true,
            destructive: false,
            idempotent: true,
        },
        handler: status,
    },
];

fn abort(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    cx.login
        .system_print_string(ABORT)
        .map_err(|e| from_st_error(&e))?;
    cx.ledger.forget_all();
    let behind = cx.login.commits_behind();
    Ok(ToolOutput {
        text: "aborted: uncommitted changes discarded; the view is at the newest commit".into(),
        structured: json!({"aborted": true, "commitsBehind": behind}),
    })
}

/// Runs a commit's test gate, if it has one: the report when every test
/// passed, else the refusal listing what did not pass.
fn run_gate(cx: &mut Context<'_>) -> Result<Option<super::testing::gate::Report>, ToolError> {
    let Some(gate) = Gate::from_args(cx) else {
        return Ok(None);
    };
    let max_classes = cx
        .options
        .count(Toolset::Testing.name(), "maxTestClasses")
        .map(|n| n.min(usize::MAX as u64) as usize);
    // the tests run the classes' own code and may not commit; the commit
    // itself then runs under this tool's policy again
    cx.login.set_policy(TESTS_POLICY);
    let report = gate.run(cx, max_classes);
    cx.login.set_policy(COMMIT_POLICY);
    let report = report?;
    if report.failures.is_empty() {
        return Ok(Some(report));
    }
    let mut text = format!(
        "commit refused: {} of {} tests did not pass. Nothing was committed; the transaction is \
         as it was (with whatever the tests changed), so fix the code and commit again, or abort",
        report.failures.len(),
        report.run
    );
    for f in report.failures.iter().take(20) {
        text.push_str(&format!(
            "\n{}>>#{}: {}: {}",
            f["class"].as_str().unwrap_or(""),
            f["selector"].as_str().unwrap_or(""),
            f["kind"].as_str().unwrap_or(""),
            f["messageText"].as_str().unwrap_or("")
        ));
    }
    if report.failures.len() > 20 {
        text.push_str(&format!("\n… and {} more", report.failures.len() - 20));
    }
    let mut err = ToolError::new(ErrorKind::Refused, text);
    err.details.insert("committed".into(), json!(false));
    if let Value::Object(fields) = report.to_json() {
        err.details.extend(fields);
    }
    Err(err)
}

fn commit(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let gated = run_gate(cx)?;
    let reason = match cx.login.system_print_string(COMMIT) {
        Ok(answer) if answer == "true" => {
            // The view moved to the newest commit, which may hold other sessions' versions.
            cx.ledger.forget_reads();
            let mut structured = json!({"committed": true});
            let mut text =
                "committed: this session's changes are permanent and visible to other sessions"
                    .to_string();
            if let Some(report) = gated {
                text.push_str(&format!(
                    ", after all {} tests of {} classes passed",
                    report.run,
                    report.classes.len()
                ));
                if let (Value::Object(s), Value::Object(r)) = (&mut structured, report.to_json()) {
                    s.extend(r);
                }
            }
            return Ok(ToolOutput { text, structured });
        }
        Ok(_) => None,
        Err(e) => Some(
            e.message_text
                .clone()
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| e.description.clone()),
        ),
    };
    // what conflicted, if the stone can still say (a client may have broken
    // the symbol list this expression compiles against: then nothing is named)
    let conflicts: Vec<String> = cx
        .run_json(&st::Conflicts)
        .map(|v| strings(&v).into_iter().map(String::from).collect())
        .unwrap_or_default();
    match reason {
        // a commit refused with an error and no conflict behind it (a read-only user)
        Some(reason) if conflicts.is_empty() => {
            let text = if reason.starts_with("commit refused") {
                format!("{reason}. Nothing was committed")
            } else {
                format!("commit refused: {reason}. Nothing was committed")
            };
            Err(ToolError::new(ErrorKind::Refused, text))
        }
        Some(reason) => Err(conflict_error(&reason, conflicts)),
        None => Err(conflict_error(
            "a write-write conflict with another session's commit",
            conflicts,
        )),
    }
}

/// The `conflict` error for a refused commit, naming what conflicted.
fn conflict_error(reason: &str, conflicts: Vec<String>) -> ToolError {
    // a commit tried again after a conflict fails with the error's own text
    // ("commit refused: a previous commit failed, ..."); the conflicts listed
    // are the earlier commit's
    let (reason, again) = match reason.strip_prefix("commit refused: ") {
        Some(r) => (r, true),
        None => (reason, false),
    };
    let what = match conflicts.len() {
        0 => String::new(),
        n => {
            let named: Vec<&str> = conflicts.iter().take(5).map(String::as_str).collect();
            let more = if n > 5 {
                format!(" and {} more", n - 5)
            } else {
                String::new()
            };
            if again {
                format!(
                    " (the refused commit conflicted on {}{more})",
                    named.join(", ")
                )
            } else {
                format!(" on {}{more}", named.join(", "))
            }
        }
    };
    let mut err = ToolError::new(
        ErrorKind::Conflict,
        format!(
            "commit refused: {reason}{what}. Nothing was committed; call abort (which discards \
this session's uncommitted changes and shows the other session's work), then redo the change \
and commit again"
        ),
    );
    err.details.insert("conflicts".into(), json!(conflicts));
    err
}

fn refresh(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    cx.login.refresh().map_err(|e| {
        let mut err = from_st_error(&e);
        err.message
            .push_str(" (after a refused commit the session must abort before it can refresh)");
        err
    })?;
    cx.ledger.forget_reads();
    let behind = cx.login.commits_behind();
    Ok(ToolOutput {
        text: "refreshed: the view is at the newest commit; uncommitted changes kept".into(),
        structured: json!({"refreshed": true, "commitsBehind": behind}),
    })
}

fn status(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let mut ask = |selector: &str| {
        cx.login
            .system_print_string(selector)
            .map_err(|e| from_st_error(&e))
    };
    let answer = format!("{} {}", ask(SESSION)?, ask(NEEDS_COMMIT)?);
    let (session, needs_commit) = parse_status(&answer).ok_or_else(|| {
        ToolError::new(
            ErrorKind::Other,
            format!("the stone answered an unreadable status: {answer:?}"),
        )
    })?;
    let user = cx.login.user();
    let stone = cx.login.stone();
    let behind = cx.login.commits_behind();
    let changes = if needs_commit {
        "uncommitted changes"
    } else {
        "no uncommitted changes"
    };
    let view = match behind {
        Some(0) => ", view at the newest commit".to_string(),
        Some(1) => ", view 1 commit behind (abort or commit to move it)".to_string(),
        Some(n) => format!(", view {n} commits behind (abort or commit to move it)"),
        None => String::new(),
    };
    let text = format!("user {user}, session {session}, stone {stone}, {changes}{view}");
    let structured = json!({
        "user": user,
        "session": session,
        "stone": stone,
        "needsCommit": needs_commit,
        "commitsBehind": behind,
    });
    Ok(ToolOutput { text, structured })
}

fn parse_status(answer: &str) -> Option<(u64, bool)> {
    let mut words = answer.split_whitespace();
    let session = words.next()?.parse().ok()?;
    let needs_commit = match words.next()? {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    words.next().is_none().then_some((session, needs_commit))
}

#[cfg(test)]
mod tests {
    use super::{conflict_error, parse_status, COMMIT_POLICY, TOOLS};

    #[test]
    fn the_commit_policy_is_the_commit_tools() {
        let commit = TOOLS.iter().find(|t| t.name == "commit").unwrap();
        assert_eq!(commit.policy(), COMMIT_POLICY);
    }

    #[test]
    fn conflict_messages_name_what_conflicted_and_the_remedy() {
        // (commit answer, substrings of the message, conflicts reported)
        let table = [
            (
                ("a write-write conflict", vec!["class Foo"]),
                vec!["a write-write conflict on class Foo", "abort"],
                1,
            ),
            (
                ("x", vec!["a", "b", "c", "d", "e", "f", "g"]),
                vec!["on a, b, c, d, e and 2 more", "abort"],
                7,
            ),
            (
                ("the commit was refused", vec![]),
                vec!["the commit was refused.", "abort"],
                0,
            ),
            // committing again before aborting: the error's text, said once
            (
                (
                    "commit refused: a previous commit failed, abort the transaction first",
                    vec!["an instance of SymbolAssociation"],
                ),
                vec![
                    "commit refused: a previous commit failed, abort the transaction first (the refused commit conflicted on an instance of SymbolAssociation). Nothing",
                    "abort",
                ],
                1,
            ),
        ];
        for ((reason, conflicts), parts, n) in table {
            let conflicts = conflicts.into_iter().map(String::from).collect();
            let e = conflict_error(reason, conflicts);
            assert_eq!(e.kind.as_str(), "conflict");
            assert_eq!(
                e.message.matches("commit refused").count(),
                1,
                "{}",
                e.message
            );
            for p in parts {
                assert!(e.message.contains(p), "{:?} lacks {p:?}", e.message);
            }
            assert_eq!(e.details["conflicts"].as_array().map(Vec::len), Some(n));
        }
    }

    #[test]
    fn status_answers() {
        let table = [
            ("1 false", Some((1, false))),
            ("12 true", Some((12, true))),
            (" 3  true ", Some((3, true))),
            ("x true", None),
            ("1 maybe", None),
            ("1", None),
            ("1 true extra", None),
            ("", None),
        ];
        for (input, expected) in table {
            assert_eq!(parse_status(input), expected, "{input:?}");
        }
    }
}
