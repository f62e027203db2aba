//! The Execution toolset: `execute_code`, the one tool whose argument is Smalltalk
//! code run as given.
//!
//! The answer is the result's printString, capped at the toolset's
//! `maxResultChars` option ([`RESULT_CAP`] unless the deployment sets it) so one
//! call cannot flood the client; the cap is reported, never silent. A request
//! carrying a progress token hears progress at the start and at the end. Code
//! that moves the session's view (`System abortTransaction`, ...) is noticed by
//! the registry, which updates the blind-write ledger as the Session tools do.

use super::{from_st_error, Annotations, Context, Tool, ToolError, ToolOutput, Toolset};
use crate::schema::{Param, ParamType};
use serde_json::json;

/// The most characters of a printString `execute_code` answers when the
/// deployment does not set `Execution.maxResultChars`.
pub const RESULT_CAP: usize = 50_000;

/// The Execution tool.
pub static TOOLS: [Tool; 1] = [Tool {
    name: "execute_code",
    title: "Execute Smalltalk code",
    description: "Evaluates GemStone Smalltalk code in this session and answers the printString of \
its result (at most 50,000 characters unless the server sets another cap; a longer result is cut \
and says how much was dropped). The code runs in the session's own transaction: changes \
it makes are visible to later calls of this session but are committed only by the commit tool \
(a commit from the code itself is refused) and discarded by abort. This tool, like the Testing \
tools, runs code of the repository's classes; the browsing, search and editing tools never do. A compile error or an unhandled Smalltalk error is answered as a tool \
error carrying GemStone's error number, class and message text, and an unhandled error also the stack where it was \
signalled (class, selector and line per frame, innermost first).",
    toolset: Toolset::Execution,
    params: &[Param {
        name: "code",
        ty: ParamType::String,
        description: "GemStone Smalltalk statements, as for a topaz printit (e.g. `3 + 4` or `| a | a := 3. a * 2`).",
        required: true,
    }],
    annotations: Annotations { read_only: false, destructive: true, idempotent: false },
    handler: execute_code,
}];

fn execute_code(cx: &mut Context<'_>) -> Result<ToolOutput, ToolError> {
    let code = cx.str_arg("code").unwrap_or_default();
    // Progress is best effort: a router that cannot take it will fail the reply too.
    let _ = cx.notify.progress(0.0, Some(1.0), Some("evaluating"));
    let printed = cx.login.evaluate_print_string(code);
    let _ = cx.notify.progress(1.0, Some(1.0), Some("evaluated"));
    let printed = printed.map_err(|e| {
        let mut err = from_st_error(&e);
        if let Some(report) = cx.login.last_error_stack() {
            super::stack::attach(&mut err, &report);
        }
        err
    })?;
    let limit = cx.count_option("maxResultChars").unwrap_or(RESULT_CAP);
    let (text, dropped) = cap(printed, limit);
    let structured = json!({
        "result": text,
        "truncated": dropped > 0,
        "droppedCharacters": dropped,
    });
    Ok(ToolOutput { text, structured })
}

/// Keeps the first `limit` characters of `s`; if any were cut, appends a marker
/// saying how many. Answers the text and the number of characters dropped.
pub fn cap(s: String, limit: usize) -> (String, usize) {
    match s.char_indices().nth(limit) {
        None => (s, 0),
        Some((cut, _)) => {
            let dropped = s[cut..].chars().count();
            let mut text = s;
            text.truncate(cut);
            text.push_str(&format!(
                "\n...[{dropped} more characters dropped: the result exceeded {limit} characters]"
            ));
            (text, dropped)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capping_table() {
        // (input, limit, expected kept prefix, dropped)
        let table: [(&str, usize, &str, usize); 6] = [
            ("", 3, "", 0),
            ("abc", 3, "abc", 0),
            ("abcd", 3, "abc", 1),
            ("ééééé", 2, "éé", 3),
            ("😀😀😀", 1, "😀", 2),
            ("abc", 0, "", 3),
        ];
        for (input, limit, kept, dropped) in table {
            let (text, n) = cap(input.to_string(), limit);
            assert_eq!(n, dropped, "{input:?} capped at {limit}");
            if dropped == 0 {
                assert_eq!(text, input);
            } else {
                assert!(
                    text.starts_with(kept),
                    "{text:?} should start with {kept:?}"
                );
                assert!(
                    text.contains(&format!("{dropped} more characters dropped")),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn cap_at_the_real_limit() {
        let (text, dropped) = cap("x".repeat(RESULT_CAP + 7), RESULT_CAP);
        assert_eq!(dropped, 7);
        assert!(text.starts_with(&"x".repeat(RESULT_CAP)));
        assert!(!text[RESULT_CAP..].starts_with('x'));
        assert_eq!(cap("y".repeat(RESULT_CAP), RESULT_CAP).1, 0);
    }
}
