//! Stack reports as the tools show them: a GemStone `stackReport` /
//! `stackReportToLevel:` text (one activation per line, innermost first,
//! `Receiver (Implementor) >> selector @step line N`, a doit as
//! `Executed Code @step line N`) read into frames, and a failed
//! evaluation's report attached to its tool error.

use serde_json::{json, Value};

use super::ToolError;

/// The most frames a tool error lists in its text.
const TEXT_FRAMES: usize = 20;

/// The most frames a tool error carries in its structured content (a runaway
/// recursion's report has one per activation); how many more there were is
/// said as `framesDropped`.
const MAX_FRAMES: usize = 200;

/// One line of a stack report.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The line as the stone wrote it.
    pub text: String,
    /// The receiver's class (empty for a doit).
    pub receiver: String,
    /// The class that implements the method (empty for a doit).
    pub owner: String,
    /// The method's selector (empty for a doit).
    pub selector: String,
    /// The line of the send in progress within the method's source.
    pub line: Option<u64>,
}

/// The line number after `line` in `words`.
fn line_of(words: &[&str]) -> Option<u64> {
    words
        .iter()
        .position(|w| *w == "line")
        .and_then(|i| words.get(i + 1))
        .and_then(|n| n.parse().ok())
}

/// Reads one report line: a method's (`Receiver (Owner) >> selector @ip
/// line N`, the owner shown only when it is not the receiver's class) or a
/// doit's (`[] in Executed Code @ip line N`); `None` for anything else.
pub fn parse_frame(text: &str) -> Option<Frame> {
    let Some((left, right)) = text.split_once(">>") else {
        let t = text.trim();
        let doit = t.strip_prefix("[] in ").unwrap_or(t);
        let rest = doit.strip_prefix("Executed Code")?;
        let words: Vec<&str> = rest.split_whitespace().collect();
        return Some(Frame {
            text: t.to_string(),
            receiver: String::new(),
            owner: String::new(),
            selector: String::new(),
            line: line_of(&words),
        });
    };
    let left = left.trim();
    let (receiver, owner) = match left.split_once('(') {
        Some((r, o)) => (r.trim(), o.trim_end_matches(')').trim()),
        None => (left, left),
    };
    let mut words = right.split_whitespace();
    let selector = words.next()?.to_string();
    let rest: Vec<&str> = words.collect();
    Some(Frame {
        text: text.trim().to_string(),
        receiver: receiver.to_string(),
        owner: owner.to_string(),
        selector,
        line: line_of(&rest),
    })
}

/// Frames as structured content: `frame`, `class` and `selector` (null for
/// a doit), `line`.
pub fn frames_json(frames: &[Frame]) -> Value {
    let or_null = |s: &str| if s.is_empty() { Value::Null } else { json!(s) };
    json!(frames
        .iter()
        .map(|f| json!({
            "frame": f.text,
            "class": or_null(&f.owner),
            "selector": or_null(&f.selector),
            "line": f.line,
        }))
        .collect::<Vec<_>>())
}

/// Adds a failed evaluation's stack report to its tool error: the frames in
/// the structured content and, innermost first, the first few in the text.
pub fn attach(err: &mut ToolError, report: &str) {
    let mut frames: Vec<Frame> = report.lines().filter_map(parse_frame).collect();
    if frames.is_empty() {
        return;
    }
    let dropped = frames.len().saturating_sub(MAX_FRAMES);
    frames.truncate(MAX_FRAMES);
    err.message.push_str("\nstack (innermost first):");
    for f in frames.iter().take(TEXT_FRAMES) {
        err.message.push_str("\n  ");
        err.message.push_str(&f.text);
    }
    if frames.len() + dropped > TEXT_FRAMES {
        err.message.push_str(&format!(
            "\n  ... {} more",
            frames.len() + dropped - TEXT_FRAMES
        ));
    }
    err.details.insert("frames".into(), frames_json(&frames));
    if dropped > 0 {
        err.details.insert("framesDropped".into(), json!(dropped));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ErrorKind;

    /// receiver, owner, selector, line number
    type Parsed<'a> = (&'a str, &'a str, &'a str, Option<u64>);

    #[test]
    fn report_lines_read_into_frames() {
        // (line, what it reads as); None: not a frame
        let table: &[(&str, Option<Parsed>)] = &[
            (
                "SmallInteger >> / @3 line 5",
                Some(("SmallInteger", "SmallInteger", "/", Some(5))),
            ),
            (
                "CalcTest (TestCase) >> performTest @1 line 1",
                Some(("CalcTest", "TestCase", "performTest", Some(1))),
            ),
            (
                "CalcTest(TestCase)>>performTest @1 line 1",
                Some(("CalcTest", "TestCase", "performTest", Some(1))),
            ),
            (
                "Foo class >> make: @2 line 3",
                Some(("Foo class", "Foo class", "make:", Some(3))),
            ),
            ("Executed Code @2 line 4", Some(("", "", "", Some(4)))),
            ("[] in Executed Code @1 line 1", Some(("", "", "", Some(1)))),
            ("not a frame", None),
            ("", None),
        ];
        for (text, want) in table {
            let got = parse_frame(text).map(|f| (f.receiver, f.owner, f.selector, f.line));
            let want = want.map(|(r, o, s, l)| (r.to_string(), o.to_string(), s.to_string(), l));
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn a_report_is_attached_to_the_error() {
        let mut err = ToolError::new(ErrorKind::Other, "ZeroDivide (error 2026): divide by zero");
        let report = "SmallInteger >> / @3 line 5\nFoo >> ratio @2 line 3\n[] in Executed Code @1 line 1\nExecuted Code @2 line 1\n";
        attach(&mut err, report);
        assert!(err.message.ends_with(
            "stack (innermost first):\n  SmallInteger >> / @3 line 5\n  Foo >> ratio @2 line 3\n  [] in Executed Code @1 line 1\n  Executed Code @2 line 1"
        ), "{}", err.message);
        let frames = &err.details["frames"];
        assert_eq!(
            frames[1],
            json!({"frame": "Foo >> ratio @2 line 3", "class": "Foo", "selector": "ratio", "line": 3})
        );
        assert_eq!(frames[3]["class"], Value::Null);
        let long: String = (0..30)
            .map(|i| format!("Foo >> m{i} @1 line 1\n"))
            .collect();
        let mut err = ToolError::new(ErrorKind::Other, "x");
        attach(&mut err, &long);
        assert!(err.message.ends_with("... 10 more"), "{}", err.message);
        assert_eq!(err.details["frames"].as_array().unwrap().len(), 30);
        let deep: String = (0..250)
            .map(|i| format!("Foo >> m{i} @1 line 1\n"))
            .collect();
        let mut err = ToolError::new(ErrorKind::Other, "x");
        attach(&mut err, &deep);
        assert!(err.message.ends_with("... 230 more"), "{}", err.message);
        assert_eq!(err.details["frames"].as_array().unwrap().len(), MAX_FRAMES);
        assert_eq!(err.details["framesDropped"], 50);
        let mut err = ToolError::new(ErrorKind::Other, "x");
        attach(&mut err, "nothing here");
        assert_eq!(err.message, "x");
        assert!(!err.details.contains_key("frames"));
    }
}
