//! Unified diffs of method sources for refactoring previews: line by line
//! (a longest common subsequence), hunks with three lines of context, headers
//! naming the method.

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Above this many line pairs the diff is one hunk replacing everything (a
/// method that long is rare; the table would be large).
const MAX_TABLE: usize = 4_000_000;

/// One line of an edit script.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Same(usize, usize),
    Del(usize),
    Add(usize),
}

fn script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    if n * m > MAX_TABLE {
        return (0..n).map(Op::Del).chain((0..m).map(Op::Add)).collect();
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..]
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(n + m));
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(Op::Del(i));
            i += 1;
        } else {
            ops.push(Op::Add(j));
            j += 1;
        }
    }
    ops
}

/// The unified diff turning `old` into `new`, headed `--- label` / `+++ label`;
/// empty when they are equal.
pub fn unified(old: &str, new: &str, label: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = script(&a, &b);
    let mut out = format!("--- {label}\n+++ {label}\n");
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        // a hunk: changes no further apart than twice the context
        let start = changed[k].saturating_sub(CONTEXT);
        let mut last = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= last + 2 * CONTEXT {
            k += 1;
            last = changed[k];
        }
        let end = (last + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        let a_start = hunk
            .iter()
            .find_map(|op| match op {
                Op::Same(i, _) | Op::Del(i) => Some(*i),
                Op::Add(_) => None,
            })
            .unwrap_or(0);
        let b_start = hunk
            .iter()
            .find_map(|op| match op {
                Op::Same(_, j) | Op::Add(j) => Some(*j),
                Op::Del(_) => None,
            })
            .unwrap_or(0);
        let a_len = hunk.iter().filter(|op| !matches!(op, Op::Add(_))).count();
        let b_len = hunk.iter().filter(|op| !matches!(op, Op::Del(_))).count();
        out.push_str(&format!(
            "@@ -{},{a_len} +{},{b_len} @@\n",
            a_start + 1,
            b_start + 1
        ));
        for op in hunk {
            let line = match op {
                Op::Same(i, _) => format!(" {}", a[*i]),
                Op::Del(i) => format!("-{}", a[*i]),
                Op::Add(j) => format!("+{}", b[*j]),
            };
            out.push_str(&line);
            out.push('\n');
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_table() {
        // (old, new, expected)
        let table = [
            ("a\nb\nc", "a\nb\nc", ""),
            (
                "foo\n\t^ self bar",
                "foo\n\t^ self baz",
                "--- M\n+++ M\n@@ -1,2 +1,2 @@\n foo\n-\t^ self bar\n+\t^ self baz\n",
            ),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12",
                "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve",
                "--- M\n+++ M\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n\
                 @@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
            ),
            ("a", "a\nb", "--- M\n+++ M\n@@ -1,1 +1,2 @@\n a\n+b\n"),
        ];
        for (old, new, expected) in table {
            assert_eq!(unified(old, new, "M"), expected, "{old:?} -> {new:?}");
        }
    }
}
