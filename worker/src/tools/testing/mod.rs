//! The Testing toolset (SUnit): `list_test_classes`, `run_test_class`,
//! `run_test_method`, `list_failing_tests` and `describe_test_failure`.
//!
//! Their Smalltalk lives in `testing.st` beside this file. A class's tests are
//! run one evaluation per test selector, so `run_test_class` can report
//! progress between them. A name that is not bound to a class is `notFound`; a
//! class that is not a TestCase subclass is `invalidParams`; an abstract test
//! class is `refused`. Running a test may change objects but nothing here
//! commits, moves the view or installs anything.

use super::listing::{LIMIT, OFFSET};
use super::stack::{self, parse_frame, Frame};
use super::{
    check_error, page_header, strings, window, Annotations, Context, ErrorKind, Tool, ToolError,
    ToolOutput, Toolset, DEFAULT_LIMIT, READ_ONLY,
};
use crate::quote::Literal;
use crate::schema::{Param, ParamType};
use serde_json::{json, Value};

use expressions as st;

pub mod gate;

/// This toolset's expressions, cut from `testing.st` by the build.
mod expressions {
    include!(concat!(env!("OUT_DIR"), "/tools/testing.rs"));
}

/// Running tests executes repository code, which may change objects.
const RUNS_CODE: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: false,
};

const CLASS: Param = Param {
    name: "className",
    ty: ParamType::String,
    description: "The name of a concrete TestCase subclass, as list_test_classes answers it.",
    required: true,
};

const SELECTOR: Param = Param {
    name: "selector",
    ty: ParamType::String,
    description:
        "A test selector of the class (a unary selector starting with `test`, e.g. `testAdd`).",
    required: true,
};

const CLASS_NAMES: Param = Param {
    name: "classNames",
    ty: ParamType::StringArray,
    description: "The test classes to run (default: every test class of the symbol list).",
    required: false,
};

/// The Testing tools.
pub static TOOLS: [Tool; 5] = [
    Tool {
        name: "list_test_classes",
        title: "List the test classes",
        description: "Lists the concrete TestCase subclasses bound in this session's symbol list, \
sorted by name, each with its number of tests. Paged with limit/offset. Asks each class its \
SUnit protocol (isAbstract, testSelectors), which may be the class's own code.",
        toolset: Toolset::Testing,
        params: &[LIMIT, OFFSET],
        annotations: READ_ONLY,
        handler: list_test_classes,
    },
    Tool {
        name: "run_test_class",
        title: "Run a test class",
        description: "Runs every test of one TestCase subclass (each in a fresh instance: setUp, \
the test, tearDown) and answers the counts plus each failure (a TestFailure, e.g. a failed \
assert:) and error (any other Error) with its exception class and message. Reports progress per \
test when the request carries a progress token. A commit from a test is refused: nothing is committed.",
        toolset: Toolset::Testing,
        params: &[CLASS],
        annotations: RUNS_CODE,
        handler: run_test_class,
    },
    Tool {
        name: "run_test_method",
        title: "Run one test",
        description:
            "Runs one test selector of a TestCase subclass (setUp, the test, tearDown) and \
answers passed, failure or error, with the exception class and message. A commit from a test is refused: nothing is committed.",
        toolset: Toolset::Testing,
        params: &[CLASS, SELECTOR],
        annotations: RUNS_CODE,
        handler: run_test_method,
    },
    Tool {
        name: "list_failing_tests",
        title: "List the failing tests",
        description: "Runs the tests of the named classes (default: every test class, up to the \
server's limit of classes per call, 100 unless configured) and lists the failing and erroring \
ones as Class>>selector with their message. A commit from a test is refused: nothing is committed.",
        toolset: Toolset::Testing,
        params: &[CLASS_NAMES],
        annotations: RUNS_CODE,
        handler: list_failing_tests,
    },
    Tool {
        name: "describe_test_failure",
        title: "Describe a test failure",
        description: "Re-runs one test in isolation and describes how it ended: the exception \
class, its messageText and description, the phase it was raised in (setUp, the test method or \
tearDown) and, where the stone reports the signalling stack, the method that raised it and the \
calls from the test method down to it, with line numbers. A commit from a test is refused: nothing is committed.",
        toolset: Toolset::Testing,
        params: &[CLASS, SELECTOR],
        annotations: RUNS_CODE,
        handler: describe_test_failure,
    },
];

/// The error for a `{"error": KIND}` answer about class `class` (and `selector`).
fn class_error(kind: &str, class: &str, selector: Option<&str>) -> (ErrorKind, String) {
    match kind {
        "notTestCase" => (
            ErrorKind::InvalidParams,
            format!(
                "'{class}' is not a TestCase subclass; list_test_classes names the test classes"
            ),
        ),
        "abstract" => (
            ErrorKind::Refused,
            format!("'{class}' is an abstract test class; run its concrete subclasses instead"),
        ),
        "noSelector" => (
            ErrorKind::NotFound,
            format!(
                "'{class}' has no test selector '{}'; run_test_class lists its tests",
                selector.unwrap_or("")
            ),
        ),
        _ => (
            ErrorKind::NotFound,
            format!("no class named '{class}' in this session's symbol list"),
        ),
    }
}

/// The test selectors of `class`.
fn selectors(cx: &mut Context<'_>, class: &str) -> Result<Vec<String>, ToolError> {
    let answer = cx.run_json(&st::TestSelectors {
        class_name: Literal::symbol(class),
    })?;
    let answer = check_error(answer, |k| class_error(k, class, None))?;
    Ok(strings(&answer["selectors"])
        .into_iter()
        .map(String::from)
        .collect())
}

/// Runs one selector (or all, with `None`) of `class`: one result per test.
fn run(cx: &mut Context<'_>, class: &str, selector: Option<&str>) -> Result<Vec<Value>, ToolError> {
    run_with(cx, class, selector, false)
}

/// [`run`], answering also each defect's `stack` report when `with_stack`
/// and the stone's exceptions answer `stackReport`.
fn run_with(
    cx: &mut Context<'_>,
    class: &str,
    selector: Option<&str>,
    with_stack: bool,
) -> Result<Vec<Value>, ToolError> {
    let answer = cx.run_json(&st::RunTests {
        class_name: Literal::symbol(class),
        selector: selector.map_or_else(Literal::nil, Literal::symbol),
        with_stack: Literal::boolean(with_stack),
    })?;
    let answer = check_error(answer, |k| class_error(k, class, selector))?;
    Ok(answer["results"].as_array().cloned().unwrap_or_default())
}

/// One line naming a test's outcome and, for a defect, its exception.
fn outcome_line(class: &str, r: &Value) -> String {
    let sel = r["selector"].as_str().unwrap_or("");
    let outcome = r["outcome"].as_str().unwrap_or("");
    if outcome == "passed" {
        return format!("{class}>>#{sel}: passed");
    }
    let message = r["messageText"]
        .as_str()
        .or_else(|| r["description"].as_str())
        .unwrap_or("");
    format!(
        "{class}>>#{sel}: {outcome} ({}): {message}",
        r["exceptionClass"].as_str().unwrap_or("?")
    )
}

fn count(results: &[Value], outcome: &str) -> usize {
    results.iter().filter(|r| r["outcome"] == outcome).count()
}

fn summary(results: &[Value]) -> Value {
    json!({
        "run": results.len(),
        "passed": count(results, "passed"),
        "failures": count(results, "failure"),
        "errors": count(results, "error"),
    })
}

/// Every test class of the symbol list: `{name, tests, dictionary}`.
fn list_test_classes_json(cx: &mut Context<'_>) -> Result<Vec<Value>, ToolError> {
    let answer = cx.run_json(&st::ListTestClasses)?;
    Ok(answer.as_array().cloned().unwrap_or_default())
}

fn list_test_classes(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let page = cx.page(DEFAULT_LIMIT)?;
    let mut classes = list_test_classes_json(cx)?;
    classes.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let shown = window(&classes, page);
    let mut text = page_header(page, shown.len(), classes.len(), false, "test classes");
    for c in &shown {
        text.push_str(&format!(
            "\n{} ({} tests)",
            c["name"].as_str().unwrap_or(""),
            c["tests"]
        ));
    }
    Ok(ToolOutput {
        text,
        structured: json!({
            "total": classes.len(),
            "offset": page.offset,
            "classes": shown,
        }),
    })
}

fn run_test_class(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let all = selectors(cx, class)?;
    let total = all.len() as f64;
    let mut results = Vec::with_capacity(all.len());
    for (i, sel) in all.iter().enumerate() {
        if let Some(why) = cx.notify.interrupted() {
            return Err(ToolError::new(
                ErrorKind::Other,
                format!(
                    "the run stopped after {i} of {} tests: {}",
                    all.len(),
                    why.describe()
                ),
            ));
        }
        // A lost progress frame must not fail the run; the result still comes.
        let _ = cx
            .notify
            .progress(i as f64, Some(total), Some(&format!("{class}>>#{sel}")));
        results.extend(run_with(cx, class, Some(sel), true)?);
    }
    let _ = cx.notify.progress(total, Some(total), Some("done"));
    let s = summary(&results);
    let mut text = format!(
        "{class}: {} run, {} passed, {} failures, {} errors",
        s["run"], s["passed"], s["failures"], s["errors"]
    );
    for r in results.iter_mut() {
        let frames = defect_frames(r, class, false);
        if r["outcome"] != "passed" {
            text.push('\n');
            text.push_str(&outcome_line(class, r));
            text.push_str(&raised_at(&frames));
        }
    }
    let defects: Vec<&Value> = results
        .iter()
        .filter(|r| r["outcome"] != "passed")
        .collect();
    Ok(ToolOutput {
        text,
        structured: json!({
            "className": class,
            "summary": s,
            "defects": defects,
            "results": results,
        }),
    })
}

fn run_test_method(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let selector = cx.str_arg("selector").unwrap_or_default();
    let results = run_with(cx, class, Some(selector), true)?;
    let mut result = results.into_iter().next().unwrap_or(Value::Null);
    let frames = defect_frames(&mut result, class, false);
    Ok(ToolOutput {
        text: outcome_line(class, &result) + &raised_at(&frames),
        structured: json!({"className": class, "result": result}),
    })
}

/// Whether a frame is the exception or SUnit machinery that signals on a
/// method's behalf (`signal`, `assert:`, `fail`...), not the raising method.
fn is_machinery(f: &Frame) -> bool {
    let owner = f.owner.trim_end_matches(" class");
    matches!(owner, "TestCase" | "TestAsserter" | "TestResult")
        || owner.ends_with("Exception")
        || owner.ends_with("Error")
        || owner.ends_with("Failure")
        || owner.ends_with("Notification")
        || owner == "ExceptionSet"
}

/// The frames of a `stackReport` (lines innermost first) that belong to the
/// test: from the raising method out to the test's own `anchor` method (the
/// test selector, `setUp` or `tearDown` of a receiver of class `class`). What
/// lies inside the outermost exception or SUnit frame (the signal, `assert:`,
/// and any handler frames a report taken in a handler carries) is dropped, and
/// so are the SUnit and kernel frames that called the test method. Empty when
/// no such frame is found.
fn test_frames(report: &str, class: &str, anchor: &str) -> Vec<Frame> {
    let frames: Vec<Frame> = report.lines().filter_map(parse_frame).collect();
    let Some(end) = frames
        .iter()
        .position(|f| f.receiver == class && f.selector == anchor)
    else {
        return Vec::new();
    };
    let start = frames[..end]
        .iter()
        .rposition(is_machinery)
        .map_or(0, |i| i + 1);
    frames[start..=end].to_vec()
}

/// The frames of a defect result `r` of `class` (its `stack` read from the
/// raising method out to the test, setUp or tearDown), also set as its
/// `frames`; the raw report is kept as `stack` only when `keep_report`.
fn defect_frames(r: &mut Value, class: &str, keep_report: bool) -> Vec<Frame> {
    let selector = r["selector"].as_str().unwrap_or("").to_string();
    let frames = match (r["stack"].as_str(), r["phase"].as_str()) {
        (Some(report), Some(phase)) => {
            let anchor = if phase == "test" { &selector } else { phase };
            test_frames(report, class, anchor)
        }
        _ => Vec::new(),
    };
    if !frames.is_empty() {
        r["frames"] = stack::frames_json(&frames);
    }
    if !keep_report {
        if let Some(o) = r.as_object_mut() {
            o.remove("stack");
        }
    }
    frames
}

/// The text lines naming where a defect was raised: its innermost frames.
fn raised_at(frames: &[Frame]) -> String {
    frames
        .iter()
        .take(RAISED_AT_FRAMES)
        .map(|f| format!("\n    at {}", f.text))
        .collect()
}

/// How many frames a run's text names per defect.
const RAISED_AT_FRAMES: usize = 3;

fn describe_test_failure(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let class = cx.str_arg("className").unwrap_or_default();
    let selector = cx.str_arg("selector").unwrap_or_default();
    let results = run_with(cx, class, Some(selector), true)?;
    let mut r = results.into_iter().next().unwrap_or(Value::Null);
    let frames = defect_frames(&mut r, class, true);
    let text = if r["outcome"] == "passed" {
        format!("{class}>>#{selector} passed when re-run alone; there is no failure to describe")
    } else {
        let phase = match r["phase"].as_str().unwrap_or("") {
            "setUp" => "in setUp".to_string(),
            "tearDown" => "in tearDown".to_string(),
            _ => format!("in the test method {class}>>#{selector} (or a method it called)"),
        };
        let null = |v: &Value| v.as_str().map_or("(none)".to_string(), String::from);
        let mut text = format!(
            "{class}>>#{selector}: {}\nexception class: {}\nmessage text: {}\ndescription: {}\nraised {phase}",
            r["outcome"].as_str().unwrap_or(""),
            null(&r["exceptionClass"]),
            null(&r["messageText"]),
            null(&r["description"]),
        );
        if let Some((raiser, callers)) = frames.split_first() {
            text.push_str(&format!("\nraised in {}", raiser.text));
            for f in callers {
                text.push_str(&format!("\n  called from {}", f.text));
            }
        }
        text
    };
    Ok(ToolOutput {
        text,
        structured: json!({"className": class, "selector": selector, "result": r}),
    })
}

fn list_failing_tests(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let max_classes = cx.count_option("maxTestClasses");
    let named = cx.args.get("classNames").map(strings);
    let mut names: Vec<String> = match named {
        Some(a) => {
            let names: Vec<String> = a.into_iter().map(String::from).collect();
            if let Some(max) = max_classes.filter(|max| names.len() > *max) {
                return Err(ToolError::new(
                    ErrorKind::InvalidParams,
                    format!(
                        "argument 'classNames' names {} classes, more than the {max} this server \
runs in one call (Testing.maxTestClasses); split them over several calls",
                        names.len()
                    ),
                ));
            }
            names
        }
        None => {
            let mut n: Vec<String> = list_test_classes_json(cx)?
                .iter()
                .filter_map(|c| c["name"].as_str().map(String::from))
                .collect();
            n.sort();
            n
        }
    };
    let found = names.len();
    if let Some(max) = max_classes {
        names.truncate(max);
    }
    let mut failing = Vec::new();
    let mut run_count = 0;
    let mut lines = Vec::new();
    for class in &names {
        let results = run(cx, class, None)?;
        run_count += results.len();
        for r in results.into_iter().filter(|r| r["outcome"] != "passed") {
            lines.push(outcome_line(class, &r));
            let mut r = r;
            r["className"] = json!(class);
            failing.push(r);
        }
    }
    let mut text = format!(
        "{} failing of {run_count} tests in {} classes",
        failing.len(),
        names.len()
    );
    if found > names.len() {
        text.push_str(&format!(
            "\nonly the first {} of {found} test classes (by name) were run, the most this server \
runs in one call (Testing.maxTestClasses); pass classNames to run the others",
            names.len()
        ));
    }
    for l in lines {
        text.push('\n');
        text.push_str(&l);
    }
    Ok(ToolOutput {
        text,
        structured: json!({
            "classes": names.len(),
            "classesFound": found,
            "run": run_count,
            "failing": failing,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_reports_are_trimmed_to_the_test() {
        let report = "ZeroDivide (AbstractException) >> signal @2 line 3
SmallInteger (Number) >> _errorDivideByZero @4 line 2
SmallInteger >> / @3 line 5
Helper >> boom @2 line 3
CalcTest >> testDivide @3 line 4
CalcTest (TestCase) >> performTest @1 line 1
Executed code @5 line 9";
        let frames = test_frames(report, "CalcTest", "testDivide");
        let texts: Vec<&str> = frames.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "SmallInteger (Number) >> _errorDivideByZero @4 line 2",
                "SmallInteger >> / @3 line 5",
                "Helper >> boom @2 line 3",
                "CalcTest >> testDivide @3 line 4"
            ]
        );
        assert_eq!(frames[3].line, Some(4));
        assert_eq!(frames[2].owner, "Helper");

        // A failed assert: the SUnit frames that signalled are dropped, the
        // test method is the raising method.
        let report = "TestFailure (AbstractException) >> signal: @2 line 3
CalcTest (TestAsserter) >> assert: @4 line 2
CalcTest (TestCase) >> assert: @1 line 1
CalcTest >> testSum @3 line 7
CalcTest (TestCase) >> performTest @1 line 1";
        let frames = test_frames(report, "CalcTest", "testSum");
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].selector, "testSum");
        assert_eq!(frames[0].line, Some(7));

        // Raised in setUp, inherited from a superclass.
        let report = "Error (AbstractException) >> signal: @2 line 3
CalcTest (Object) >> error: @2 line 1
CalcTest (BaseTest) >> setUp @2 line 2
CalcTest (TestCase) >> runCase @1 line 1";
        let frames = test_frames(report, "CalcTest", "setUp");
        assert_eq!(frames.len(), 2, "{frames:?}");
        assert_eq!(frames[1].owner, "BaseTest");

        // A report taken in a handler: the handler's frames and the signal
        // machinery come first and are dropped.
        let report = "ExecBlock >> value: @1 line 1
ZeroDivide (AbstractException) >> _handlerFor: @9 line 20
ZeroDivide (AbstractException) >> signal @2 line 3
SmallInteger >> / @3 line 5
CalcTest >> testDivide @3 line 4
CalcTest (TestCase) >> performTest @1 line 1";
        let frames = test_frames(report, "CalcTest", "testDivide");
        let texts: Vec<&str> = frames.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "SmallInteger >> / @3 line 5",
                "CalcTest >> testDivide @3 line 4"
            ]
        );

        // No frame of the test: nothing is claimed.
        assert!(test_frames("Foo >> bar @1 line 1", "CalcTest", "testSum").is_empty());
        assert!(test_frames("", "CalcTest", "testSum").is_empty());
        assert!(parse_frame("not a frame").is_none());
        let tight = parse_frame("CalcTest(TestCase)>>performTest @1 line 1").unwrap();
        assert_eq!(
            (
                tight.receiver.as_str(),
                tight.owner.as_str(),
                tight.selector.as_str()
            ),
            ("CalcTest", "TestCase", "performTest")
        );
    }

    #[test]
    fn class_errors_name_the_class_intact() {
        for (kind, expected) in [
            ("notFound", ErrorKind::NotFound),
            ("notTestCase", ErrorKind::InvalidParams),
            ("abstract", ErrorKind::Refused),
            ("noSelector", ErrorKind::NotFound),
        ] {
            let (k, m) = class_error(kind, "Odd'Name 😀", Some("test%x"));
            assert_eq!(k, expected, "{kind}");
            assert!(m.contains("Odd'Name 😀"), "{m}");
        }
    }
}
