//! The test gate of a commit: which test classes `commit`'s `testClasses`,
//! `testClassPattern` and `testDictionary` select, and running them all in
//! the session's transaction before anything is committed.
//!
//! The selection is the named classes plus the test classes of the symbol list
//! that match the pattern (a glob: `*` any run of characters, `?` one) and lie
//! in the dictionary, when either is given. A gate that selects no class
//! refuses the commit: a gate that ran nothing proved nothing.

use super::{list_test_classes_json, run};
use crate::tools::{Context, ErrorKind, ToolError};
use serde_json::{json, Value};

/// What a commit's arguments ask to run first.
#[derive(Debug, Default, PartialEq)]
pub struct Gate {
    classes: Vec<String>,
    pattern: Option<String>,
    dictionary: Option<String>,
}

/// The tests a gate ran and those that did not pass.
#[derive(Debug, Default)]
pub struct Report {
    /// The classes run, in order.
    pub classes: Vec<String>,
    /// Tests run.
    pub run: usize,
    /// Tests passed.
    pub passed: usize,
    /// `{class, selector, kind, messageText}` of each test that did not pass.
    pub failures: Vec<Value>,
}

impl Report {
    /// The report as the commit's `structuredContent` carries it.
    pub fn to_json(&self) -> Value {
        json!({
            "testClasses": self.classes,
            "testsRun": self.run,
            "passed": self.passed,
            "failures": self.failures,
        })
    }
}

impl Gate {
    /// The gate `commit`'s arguments ask for, if any.
    pub fn from_args(cx: &Context<'_>) -> Option<Gate> {
        let classes: Vec<String> = cx
            .args
            .get("testClasses")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let gate = Gate {
            classes,
            pattern: cx.str_arg("testClassPattern").map(String::from),
            dictionary: cx.str_arg("testDictionary").map(String::from),
        };
        (gate != Gate::default()).then_some(gate)
    }

    /// The classes this gate runs, in order, each once.
    fn select(&self, cx: &mut Context<'_>) -> Result<Vec<String>, ToolError> {
        let mut chosen: Vec<String> = Vec::new();
        for c in &self.classes {
            if !chosen.contains(c) {
                chosen.push(c.clone());
            }
        }
        if self.pattern.is_some() || self.dictionary.is_some() {
            let mut listed = list_test_classes_json(cx)?;
            listed.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            for c in listed {
                let name = c["name"].as_str().unwrap_or_default();
                let in_dictionary = self
                    .dictionary
                    .as_deref()
                    .is_none_or(|d| c["dictionary"].as_str() == Some(d));
                let matches = self.pattern.as_deref().is_none_or(|p| glob(p, name));
                if in_dictionary && matches && !chosen.iter().any(|n| n == name) {
                    chosen.push(name.to_string());
                }
            }
        }
        if chosen.is_empty() {
            return Err(ToolError::new(
                ErrorKind::Refused,
                format!(
                    "commit refused: no test class {}, so the tests that were to gate the commit \
                     did not run. Nothing was committed; list_test_classes shows the test classes",
                    self.describe()
                ),
            ));
        }
        Ok(chosen)
    }

    /// What the selection asked for, in words.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.pattern {
            parts.push(format!("matches the pattern {p:?}"));
        }
        if let Some(d) = &self.dictionary {
            parts.push(format!("is bound in the dictionary {d}"));
        }
        parts.join(" and ")
    }

    /// Runs every selected class's tests (at most `max_classes` classes).
    pub fn run(
        &self,
        cx: &mut Context<'_>,
        max_classes: Option<usize>,
    ) -> Result<Report, ToolError> {
        let classes = self.select(cx)?;
        if let Some(max) = max_classes.filter(|max| classes.len() > *max) {
            return Err(ToolError::new(
                ErrorKind::InvalidParams,
                format!(
                    "the commit's tests name {} test classes, more than the {max} this server runs \
                     in one call (Testing.maxTestClasses); narrow them. Nothing was committed",
                    classes.len()
                ),
            ));
        }
        let mut report = Report::default();
        for class in &classes {
            let results = run(cx, class, None).map_err(|mut e| {
                e.message = format!("commit refused: {} Nothing was committed", e.message);
                e
            })?;
            report.run += results.len();
            for r in results {
                if r["outcome"] == "passed" {
                    report.passed += 1;
                } else {
                    report.failures.push(json!({
                        "class": class,
                        "selector": r["selector"],
                        "kind": r["outcome"],
                        "messageText": r["messageText"].as_str().or_else(|| r["description"].as_str()),
                    }));
                }
            }
        }
        report.classes = classes;
        Ok(report)
    }
}

/// Whether `name` matches the glob `pattern` (`*` any run, `?` one character).
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // the classic two-pointer match with one backtrack point per `*`
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        let table = [
            ("*Test", "BankTest", true),
            ("*Test", "BankTests", false),
            ("Bank*", "BankAccountTest", true),
            ("B?nk*Test", "BankAccountTest", true),
            ("B?nk*Test", "Bnk", false),
            ("*", "", true),
            ("", "", true),
            ("", "A", false),
            ("*a*b*c*", "xaybzc", true),
            ("*a*b*c*", "xaybz", false),
            ("Exact", "Exact", true),
            ("exact", "Exact", false),
        ];
        for (p, n, want) in table {
            assert_eq!(glob(p, n), want, "{p:?} {n:?}");
        }
    }
}
