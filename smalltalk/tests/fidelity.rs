//! The fidelity corpus (`tests/fidelity/corpus.tsv`): expressions with what
//! GemStone 3.7 answers, each row citing where that answer was seen. An `ok`
//! row must answer the same on the embedded stone; a `gap` row is a known
//! difference and must still differ, so that fixing it fails this test until
//! the row is marked `ok`.

use gsmcp_smalltalk::{ErrorKind, Session};

const CORPUS: &str = include_str!("fidelity/corpus.tsv");

/// One row of the corpus.
struct Row<'a> {
    line: usize,
    gap: bool,
    expression: &'a str,
    expected: &'a str,
}

fn rows() -> Vec<Row<'static>> {
    let mut rows = Vec::new();
    for (i, text) in CORPUS.lines().enumerate() {
        if text.starts_with('#') || text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split('\t').collect();
        let [status, expression, expected, source] = fields.as_slice() else {
            panic!(
                "line {}: four tab-separated fields, not {}",
                i + 1,
                fields.len()
            );
        };
        assert!(
            matches!(*status, "ok" | "gap"),
            "line {}: status {status:?} is not ok or gap",
            i + 1
        );
        assert!(!source.trim().is_empty(), "line {}: no source", i + 1);
        rows.push(Row {
            line: i + 1,
            gap: *status == "gap",
            expression,
            expected,
        });
    }
    rows
}

/// Whether the embedded stone answers `row` as GemStone does, and what it
/// answered.
fn answers(s: &mut Session, row: &Row<'_>) -> (bool, String) {
    let got = s.evaluate_print_string(row.expression);
    let shown = format!("{got:?}");
    let same = match (row.expected, &got) {
        ("compile", Err(e)) => e.kind == ErrorKind::Compile,
        (want, Ok(text)) if want.starts_with('=') => *text == want[1..],
        (want, Err(e)) if want.starts_with("error=") => e.description == want["error=".len()..],
        (want, Err(e)) if want.starts_with("class=") => e.class_name == want["class=".len()..],
        (want, _) => {
            assert!(
                ["=", "error=", "class="]
                    .iter()
                    .any(|p| want.starts_with(p))
                    || want == "compile",
                "line {}: expected {want:?} is not =…, error=…, class=… or compile",
                row.line
            );
            false
        }
    };
    (same, shown)
}

#[test]
fn the_embedded_stone_answers_as_gemstone_3_7_does() {
    let mut s = Session::bootstrap().expect("bootstrap");
    let rows = rows();
    assert!(rows.len() >= 5, "the corpus lost its rows");
    let mut bad = Vec::new();
    for row in &rows {
        let (same, got) = answers(&mut s, row);
        match (row.gap, same) {
            (false, false) => bad.push(format!(
                "line {}: {}\n    GemStone {}\n    here     {got}",
                row.line, row.expression, row.expected
            )),
            (true, true) => bad.push(format!(
                "line {}: {} now answers as GemStone does: mark the row ok",
                row.line, row.expression
            )),
            _ => {}
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
