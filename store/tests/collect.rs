//! Garbage collection through the public API: what a collection deletes and
//! gives back, how a commit of a session that may hold collected objects is
//! answered, when a collection is due, and that the file shrinks afterwards.
//! Objects here are text: `name>ref,ref` names the OOPs it refers to.

mod common;

use std::collections::HashSet;

use common::{fresh, login};
use gsmcp_store::{StoreError, StoreSession, COLLECT_AFTER};

fn object(name: &str, refs: &[u64]) -> Vec<u8> {
    let refs: Vec<String> = refs.iter().map(u64::to_string).collect();
    format!("{name}>{}", refs.join(",")).into_bytes()
}

fn references(_oop: u64, data: &[u8]) -> Result<Vec<u64>, String> {
    let text = std::str::from_utf8(data).map_err(|e| e.to_string())?;
    let (_, refs) = text.split_once('>').ok_or("no reference list")?;
    refs.split(',')
        .filter(|r| !r.is_empty())
        .map(|r| r.parse().map_err(|_| format!("bad reference {r}")))
        .collect()
}

/// The caller's half of a collection: mark from root 1 at the session's view.
fn mark(s: &StoreSession) -> (HashSet<u64>, u64) {
    let mut all = std::collections::HashMap::new();
    s.scan(|oop, data| {
        all.insert(oop, references(oop, data).expect("decodable"));
    })
    .expect("scan");
    let mut live: HashSet<u64> = HashSet::new();
    let mut stack = vec![1u64];
    while let Some(o) = stack.pop() {
        if live.insert(o) {
            stack.extend(all.get(&o).into_iter().flatten().copied());
        }
    }
    let dead = all.keys().copied().filter(|o| !live.contains(o)).collect();
    (dead, live.len() as u64)
}

fn collect(s: &mut StoreSession) -> gsmcp_store::Collection {
    let (dead, live) = mark(s);
    s.collect(dead, live, &mut references).expect("collect")
}

fn put(s: &mut StoreSession, writes: &[(u64, Vec<u8>)]) -> u64 {
    s.commit(writes.iter().map(|(o, d)| (*o, Some(d.as_slice()))))
        .expect("commit")
        .commit
}

#[test]
fn a_collection_deletes_what_no_root_reaches_and_keeps_the_rest() {
    let (_dir, repo) = fresh("collect-basic");
    let mut s = login(&repo);
    let o = s.allocate_oops(4).unwrap();
    // 1 → a → b; c → d unreachable; a cycle c ↔ d
    put(
        &mut s,
        &[
            (1, object("root", &[o[0]])),
            (o[0], object("a", &[o[1]])),
            (o[1], object("b", &[])),
            (o[2], object("c", &[o[3]])),
            (o[3], object("d", &[o[2]])),
        ],
    );
    let report = collect(&mut s);
    assert_eq!(report.collected, 2, "{report:?}");
    assert_eq!(report.rescued, 0);
    assert!(!report.superseded);
    assert_eq!(s.view(), report.commit.unwrap());
    for (oop, alive) in [(o[0], true), (o[1], true), (o[2], false), (o[3], false)] {
        assert_eq!(s.read(oop).unwrap().is_some(), alive, "object {oop}");
    }
    // with nobody else logged in, prune drops the tombstones and every version
    repo.prune().expect("prune");
    let stats = repo.statistics().unwrap();
    assert_eq!((stats.live_objects, stats.versions), (3, 3), "{stats:?}");
    // a second collection finds nothing
    let again = collect(&mut s);
    assert_eq!((again.commit, again.collected), (None, 0), "{again:?}");
}

#[test]
fn a_commit_after_the_mark_gives_back_what_it_reaches() {
    let (_dir, repo) = fresh("collect-rescue");
    let mut gc = login(&repo);
    let mut other = login(&repo);
    let o = other.allocate_oops(5).unwrap();
    put(
        &mut other,
        &[
            (1, object("root", &[])),
            (o[0], object("x", &[o[1]])),
            (o[1], object("y", &[])),
            (o[2], object("z", &[])),
            (o[3], object("w", &[])),
        ],
    );
    gc.abort().unwrap();
    let (dead, live) = mark(&gc);
    assert_eq!(dead.len(), 4);
    // after the mark: the root names x again (which reaches y), and w is rewritten
    put(
        &mut other,
        &[(1, object("root", &[o[0]])), (o[3], object("w2", &[]))],
    );
    let report = gc.collect(dead, live, &mut references).expect("collect");
    assert_eq!((report.collected, report.rescued), (1, 3), "{report:?}");
    other.abort().unwrap();
    for (oop, alive) in [(o[0], true), (o[1], true), (o[2], false), (o[3], true)] {
        assert_eq!(other.read(oop).unwrap().is_some(), alive, "object {oop}");
    }
}

#[test]
fn a_session_that_may_hold_collected_objects_is_told_before_it_commits() {
    let (_dir, repo) = fresh("collect-told");
    let mut gc = login(&repo);
    let mut old = login(&repo);
    let o = old.allocate_oops(2).unwrap();
    put(
        &mut old,
        &[(1, object("root", &[])), (o[0], object("garbage", &[]))],
    );
    gc.abort().unwrap();
    let before = old.view();
    put(&mut old, &[(o[1], object("unrelated", &[]))]);
    let report = collect(&mut gc);
    // the old session's view predates the collection: refused, nothing written,
    // and it names the collected objects (not the unrelated one)
    let err = old
        .commit([(1, Some(object("root", &[o[0]])))])
        .expect_err("a commit over a collection it was not told of");
    let StoreError::Collected { oops, through } = err else {
        panic!("expected Collected, got {err:?}");
    };
    assert!(oops.contains(&o[0]) && !oops.contains(&o[1]), "{oops:?}");
    assert_eq!(through, report.commit.unwrap());
    assert!(
        !old.must_abort(),
        "being told of a collection is no conflict"
    );
    assert!(old.view() > before);
    // the caller stores the object afresh and commits again
    let fresh_oop = old.allocate_oop().unwrap();
    old.acknowledge_collections(through);
    put(
        &mut old,
        &[
            (1, object("root", &[fresh_oop])),
            (fresh_oop, object("garbage", &[])),
        ],
    );
    assert_eq!(old.read(o[0]).unwrap(), None);
    assert!(old.read(fresh_oop).unwrap().is_some());
    // a session logged in after the collection is never told
    let mut later = login(&repo);
    put(&mut later, &[(1, object("root", &[]))]);
}

#[test]
fn a_collection_is_due_once_the_objects_written_exceed_the_live_ones() {
    let (_dir, repo) = fresh("collect-due");
    let mut s = login(&repo);
    put(&mut s, &[(1, object("root", &[]))]);
    let oops = s.allocate_oops(COLLECT_AFTER as usize).unwrap();
    let batch = |from: usize, to: usize| -> Vec<(u64, Vec<u8>)> {
        oops[from..to]
            .iter()
            .map(|&o| (o, object("g", &[])))
            .collect()
    };
    let half = COLLECT_AFTER as usize / 2;
    let first = s
        .commit(batch(0, half).iter().map(|(o, d)| (*o, Some(d.as_slice()))))
        .unwrap();
    assert!(!first.collect_due);
    let second = s
        .commit(
            batch(half, 2 * half)
                .iter()
                .map(|(o, d)| (*o, Some(d.as_slice()))),
        )
        .unwrap();
    assert!(second.collect_due, "{} objects written", 2 * half + 1);
    // claimed: the next commit is not told again while the collection runs
    let third = s.commit([(1, Some(object("root", &[oops[0]])))]).unwrap();
    assert!(!third.collect_due);
    let report = collect(&mut s);
    assert_eq!(report.collected, 2 * half as u64 - 1, "{report:?}");
    // two live objects now: the next one is due after COLLECT_AFTER writes again
    let fourth = s.commit([(1, Some(object("root", &[])))]).unwrap();
    assert!(!fourth.collect_due);
}

#[test]
fn a_collection_after_another_since_its_mark_deletes_nothing() {
    let (_dir, repo) = fresh("collect-superseded");
    let mut a = login(&repo);
    let mut b = login(&repo);
    let o = a.allocate_oop().unwrap();
    put(&mut a, &[(1, object("root", &[])), (o, object("g", &[]))]);
    b.abort().unwrap();
    let (dead_b, live_b) = mark(&b);
    assert_eq!(collect(&mut a).collected, 1);
    let report = b.collect(dead_b, live_b, &mut references).unwrap();
    assert!(report.superseded && report.collected == 0, "{report:?}");
}

#[test]
fn an_undecodable_object_stops_the_collection_with_nothing_deleted() {
    let (_dir, repo) = fresh("collect-corrupt");
    let mut gc = login(&repo);
    let mut other = login(&repo);
    let o = other.allocate_oops(2).unwrap();
    put(
        &mut other,
        &[(1, object("root", &[])), (o[0], object("g", &[]))],
    );
    gc.abort().unwrap();
    let (dead, live) = mark(&gc);
    put(&mut other, &[(o[1], b"no reference list".to_vec())]);
    let err = gc
        .collect(dead, live, &mut references)
        .expect_err("an object the caller cannot read");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    other.abort().unwrap();
    assert!(other.read(o[0]).unwrap().is_some());
}

#[test]
fn the_file_shrinks_back_after_a_collection() {
    let (dir, repo) = fresh("collect-shrink");
    let mut s = login(&repo);
    let oops = s.allocate_oops(4000).unwrap();
    let payload = "x".repeat(2000);
    let mut writes: Vec<(u64, Vec<u8>)> = vec![(1, object("root", &oops))];
    writes.extend(oops.iter().map(|&o| (o, object(&payload, &[]))));
    put(&mut s, &writes);
    let full = std::fs::metadata(dir.path("repo.db")).unwrap().len();
    put(&mut s, &[(1, object("root", &[]))]);
    assert_eq!(collect(&mut s).collected, 4000);
    drop(s);
    repo.prune().unwrap();
    let after = std::fs::metadata(dir.path("repo.db")).unwrap().len();
    assert!(
        after * 4 < full,
        "file {full} bytes with 8 MB of objects, {after} bytes after collecting them"
    );
}

#[test]
fn compact_converts_a_file_that_never_gave_pages_back() {
    let (dir, repo) = fresh("compact");
    let path = dir.path("repo.db");
    {
        // a file as builds before incremental vacuum made them
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA auto_vacuum = NONE; VACUUM;")
            .unwrap();
    }
    let mut s = login(&repo);
    let oops = s.allocate_oops(3000).unwrap();
    let payload = "y".repeat(2000);
    let mut writes: Vec<(u64, Vec<u8>)> = vec![(1, object("root", &oops))];
    writes.extend(oops.iter().map(|&o| (o, object(&payload, &[]))));
    put(&mut s, &writes);
    put(&mut s, &[(1, object("root", &[]))]);
    assert_eq!(collect(&mut s).collected, 3000);
    drop(s);
    repo.prune().unwrap();
    let kept = std::fs::metadata(&path).unwrap().len();
    assert!(kept > 6_000_000, "an old file keeps its pages: {kept}");
    let done = repo.compact().expect("compact");
    assert!(done.converted, "{done:?}");
    assert!(done.bytes_after * 4 < kept, "{done:?}");
    let mode: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, 2, "incremental from now on");
    // the same repository, and a second compaction converts nothing
    let s = login(&repo);
    assert_eq!(s.read(1).unwrap(), Some(object("root", &[])));
    assert_eq!(s.read(oops[0]).unwrap(), None);
    drop(s);
    assert!(!repo.compact().unwrap().converted);
}
