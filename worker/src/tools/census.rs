//! The census: every selector and global the worker's own Smalltalk sends —
//! each tool's expression (the shared fragments included), and the fixed expressions and
//! messages the worker and the GCI backend send — must be in the checked-in
//! table `tools/CENSUS.tsv`, with the evidence that GemStone 3.7 has
//! it. A name only the embedded stone's kernel offers is not admitted: the
//! tool is rewritten instead. The table holds nothing the Smalltalk no longer
//! sends, so it stays the list of what a real stone must answer.

use gsmcp_smalltalk::census::names_in_doit;
use std::collections::{BTreeMap, BTreeSet};

const TABLE: &str = include_str!("CENSUS.tsv");

/// Smalltalk the worker sends outside the tool files, and the messages the
/// GCI backend sends itself (`GciTsPerform`), written as one doit.
fn fixed_smalltalk() -> Vec<String> {
    let to_system = super::session::SYSTEM_MESSAGES.map(|m| format!("(System {m}) printString"));
    to_system
        .into_iter()
        .chain([
            "System needsCommit".into(),
            "System needsCommit printString".into(),
            "System myUserProfile userId".into(),
            "System stoneName".into(),
            "System continueTransaction".into(),
            "| x | x printString. x encodeAsUTF8. x class name. x messageText. x description"
                .into(),
            gsmcp_ipc::CHECK_WRITE_PROBE.into(),
        ])
        .collect()
}

/// Replaces every `{{hole}}` with `nil`: holes are filled with literals,
/// numbers or booleans.
fn unholed(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").map_or(rest.len(), |e| i + e + 2);
        out.push_str("nil");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `(where, source)` of every doit the census covers.
fn doits() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for source in super::template::SOURCES {
        out.push((
            format!("{} {}", source.file, source.tool),
            unholed(source.text),
        ));
    }
    for (i, s) in fixed_smalltalk().into_iter().enumerate() {
        out.push((format!("fixed expression {}", i + 1), s));
    }
    out
}

/// The table: `(kind, name) -> evidence`.
fn table() -> BTreeMap<(String, String), String> {
    let mut t = BTreeMap::new();
    for (n, line) in TABLE.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            cols.len() == 3,
            "CENSUS.tsv line {}: kind, name and evidence, tab separated",
            n + 1
        );
        assert!(
            matches!(cols[0], "selector" | "global"),
            "CENSUS.tsv line {}: kind {}",
            n + 1,
            cols[0]
        );
        assert!(
            !cols[2].trim().is_empty(),
            "CENSUS.tsv line {}: {} has no evidence",
            n + 1,
            cols[1]
        );
        let fresh = t
            .insert(
                (cols[0].to_string(), cols[1].to_string()),
                cols[2].to_string(),
            )
            .is_none();
        assert!(fresh, "CENSUS.tsv line {}: {} twice", n + 1, cols[1]);
    }
    t
}

#[test]
fn every_name_the_tools_send_is_in_the_census() {
    let table = table();
    let mut used: BTreeSet<(String, String)> = BTreeSet::new();
    let mut missing = Vec::new();
    for (where_, src) in doits() {
        let names =
            names_in_doit(&src).unwrap_or_else(|e| panic!("{where_} does not parse: {e:?}"));
        for (kind, set) in [("selector", names.selectors), ("global", names.globals)] {
            for name in set {
                let key = (kind.to_string(), name);
                if !table.contains_key(&key) {
                    missing.push(format!("{kind}\t{}\t(sent by {where_})", key.1));
                }
                used.insert(key);
            }
        }
    }
    missing.sort();
    missing.dedup_by(|a, b| a.split('\t').take(2).eq(b.split('\t').take(2)));
    assert!(
        missing.is_empty(),
        "names the tools send with no evidence that GemStone 3.7 has them (add a row with \
         evidence to worker/src/tools/CENSUS.tsv, or rewrite the tool):\n{}",
        missing.join("\n")
    );
    let stale: Vec<String> = table
        .keys()
        .filter(|k| !used.contains(*k))
        .map(|(k, n)| format!("{k}\t{n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "CENSUS.tsv rows nothing sends any more:\n{}",
        stale.join("\n")
    );
}
