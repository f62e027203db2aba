//! The pure part of `build.rs` that holds the named primitive numbers
//! (`src/object/primitives.rs`) and the kernel's `<primitive: N>` methods to
//! each other. No I/O, so the engine's tests include it too
//! (`object/primitives.rs`) and feed it broken tables.

use std::collections::BTreeMap;

/// Checks the named primitive numbers against the kernel's uses (`users`);
/// answers the numbers named, or every disagreement.
pub fn check_numbers(
    text: &str,
    users: &BTreeMap<usize, Vec<String>>,
) -> Result<Vec<usize>, Vec<String>> {
    let mut problems = Vec::new();
    let mut named: BTreeMap<usize, String> = Default::default();
    let mut doc = String::new();
    for line in text.lines() {
        if let Some(d) = line.strip_prefix("///") {
            doc.push_str(d.trim());
            doc.push(' ');
            continue;
        }
        if let Some(rest) = line.strip_prefix("pub const ") {
            let (name, value) = rest.split_once(": u16 = ").unwrap_or((rest, ""));
            let Ok(n) = value.trim_end_matches(';').parse::<usize>() else {
                problems.push(format!("{name}: not `pub const NAME: u16 = N;`"));
                continue;
            };
            if n >= 500 {
                problems.push(format!("{name} = {n}: primitive numbers stop at 499"));
                continue;
            }
            if let Some(other) = named.insert(n, name.to_string()) {
                problems.push(format!("{name} and {other} are both {n}"));
            }
            let using = users.get(&n).map(Vec::as_slice).unwrap_or(&[]);
            let cited: Vec<&str> = doc.split('`').skip(1).step_by(2).collect();
            for m in cited.iter().filter(|m| m.contains(">>")) {
                if !using.iter().any(|u| u == m) {
                    problems.push(format!(
                        "{name} ({n}) names {m}, which does not use <primitive: {n}>"
                    ));
                }
            }
            if using.is_empty() && !doc.contains("(no kernel method") {
                problems.push(format!("{name} ({n}): no kernel method uses it; say \"(no kernel method: ...)\" or remove it"));
            }
            if !using.is_empty() && !cited.iter().any(|m| using.iter().any(|u| u == m)) {
                problems.push(format!(
                    "{name} ({n}): name a method that uses it, e.g. `{}`",
                    using[0]
                ));
            }
            doc.clear();
        } else if !line.trim().is_empty() {
            doc.clear();
        }
    }
    for (n, methods) in users {
        if !named.contains_key(n) {
            problems.push(format!(
                "{} uses <primitive: {n}>, which has no constant",
                methods[0]
            ));
        }
    }
    match problems.is_empty() {
        true => Ok(named.into_keys().collect()),
        false => Err(problems),
    }
}
