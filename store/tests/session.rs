//! Views, commits, conflicts, allocation, pruning and file identification, driven
//! through the public API in one process (several sessions on one file).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::{fresh, login, Rng, Scratch};
use gsmcp_store::{
    LoginOptions, Repository, RepositoryOptions, StoreError, StoreSession, FIRST_ALLOCATED_OOP,
    FORMAT_VERSION,
};

fn put(s: &mut StoreSession, writes: &[(u64, &str)]) -> u64 {
    s.commit(writes.iter().map(|&(o, t)| (o, Some(t.as_bytes()))))
        .expect("commit")
        .commit
}

fn text(s: &StoreSession, oop: u64) -> Option<String> {
    s.read(oop)
        .expect("read")
        .map(|b| String::from_utf8(b).expect("utf8"))
}

#[test]
fn a_view_is_a_snapshot_until_it_moves() {
    let (_dir, repo) = fresh("snapshot");
    let mut a = login(&repo);
    let mut b = login(&repo);
    assert_eq!((a.view(), b.view()), (0, 0));

    assert_eq!(put(&mut a, &[(1, "one")]), 1);
    assert_eq!(a.view(), 1);
    assert_eq!(text(&a, 1).as_deref(), Some("one"));
    assert_eq!(
        text(&b, 1),
        None,
        "B must not see A's commit before moving its view"
    );
    assert_eq!(b.commits_behind().unwrap(), 1);

    let changed = b.continue_view().unwrap();
    assert_eq!((changed.from_view(), changed.to_view()), (0, 1));
    assert_eq!(changed.oops(), &[1]);
    assert_eq!(text(&b, 1).as_deref(), Some("one"));
    assert_eq!(b.commits_behind().unwrap(), 0);

    put(&mut a, &[(1, "two")]);
    put(&mut a, &[(2, "other")]);
    assert_eq!(
        text(&b, 1).as_deref(),
        Some("one"),
        "old version stays visible at the old view"
    );
    assert_eq!(b.commits_behind().unwrap(), 2);
    let changed = b.abort().unwrap();
    assert_eq!(changed.oops(), &[1, 2]);
    assert_eq!(
        (text(&b, 1).as_deref(), text(&b, 2).as_deref()),
        (Some("two"), Some("other"))
    );
}

#[test]
fn write_write_conflict_names_the_oops_and_blocks_until_abort() {
    let (_dir, repo) = fresh("conflict");
    let mut seed = login(&repo);
    put(&mut seed, &[(1, "x0"), (2, "y0"), (3, "z0")]);
    let mut a = login(&repo);
    let mut b = login(&repo);

    put(&mut a, &[(1, "x-a"), (2, "y-a")]);
    match b.commit([(2, Some(&b"y-b"[..])), (3, Some(&b"z-b"[..]))]) {
        Err(StoreError::Conflict { oops }) => assert_eq!(oops, vec![2]),
        other => panic!("expected a conflict on OOP 2, got {other:?}"),
    }
    assert!(b.must_abort());
    assert_eq!(
        text(&b, 3).as_deref(),
        Some("z0"),
        "a failed commit writes nothing"
    );
    assert_eq!(repo.latest_commit().unwrap(), 2);

    // GemStone's 2409 state: commit (even an empty one) and continue are refused.
    let refused = b.commit([(3, Some(&b"z-b"[..]))]).unwrap_err();
    assert!(matches!(refused, StoreError::CommitRefused));
    assert_eq!(refused.gemstone_error_number(), Some(2409));
    assert!(matches!(
        b.commit(Vec::<(u64, Option<Vec<u8>>)>::new()),
        Err(StoreError::CommitRefused)
    ));
    assert!(matches!(b.continue_view(), Err(StoreError::CommitRefused)));
    assert_eq!(b.view(), 1, "a refused continue does not move the view");

    let changed = b.abort().unwrap();
    assert!(!b.must_abort());
    assert_eq!(changed.oops(), &[1, 2]);
    assert_eq!(put(&mut b, &[(2, "y-b"), (3, "z-b")]), 3);
    assert_eq!(text(&b, 2).as_deref(), Some("y-b"));
}

#[test]
fn disjoint_commits_both_succeed_and_report_each_other() {
    let (_dir, repo) = fresh("disjoint");
    let mut a = login(&repo);
    let mut b = login(&repo);
    let x = a.allocate_oop().unwrap();
    let y = b.allocate_oop().unwrap();
    assert_eq!(put(&mut a, &[(x, "x")]), 1);
    let c = b.commit([(y, Some(b"y"))]).unwrap();
    assert_eq!(c.commit, 2);
    assert_eq!(c.changed.oops(), &[x], "B's commit tells it what A changed");
    assert_eq!((c.changed.from_view(), c.changed.to_view()), (0, 2));
    assert_eq!(text(&b, x).as_deref(), Some("x"));
}

#[test]
fn continue_launders_a_stale_write_like_gemstone() {
    // The caller keeps its pending change across continue; the store only moves
    // the view, so the later commit no longer conflicts with what it saw.
    let (_dir, repo) = fresh("launder");
    let mut a = login(&repo);
    let mut b = login(&repo);
    put(&mut a, &[(7, "a1")]);
    let pending = (7u64, Some(b"from-b".to_vec()));
    let changed = b.continue_view().unwrap();
    assert!(changed.contains(7));
    put(&mut a, &[(8, "unrelated")]);
    let c = b.commit([pending]).unwrap();
    assert_eq!(c.changed.oops(), &[8]);
    assert_eq!(
        text(&a, 7).as_deref(),
        Some("a1"),
        "A still reads at its own view"
    );
    a.abort().unwrap();
    assert_eq!(text(&a, 7).as_deref(), Some("from-b"));
}

#[test]
fn empty_commit_moves_the_view_without_a_new_commit() {
    let (_dir, repo) = fresh("empty");
    let mut a = login(&repo);
    let mut b = login(&repo);
    put(&mut a, &[(1, "a")]);
    let c = b.commit(Vec::<(u64, Option<Vec<u8>>)>::new()).unwrap();
    assert_eq!(c.commit, 1);
    assert_eq!(c.changed.oops(), &[1]);
    assert_eq!(repo.latest_commit().unwrap(), 1);
}

#[test]
fn deletes_are_versions_too() {
    let (_dir, repo) = fresh("delete");
    let mut a = login(&repo);
    put(&mut a, &[(1, "alive")]);
    let mut b = login(&repo);
    let c = a.commit([(1u64, None::<Vec<u8>>)]).unwrap();
    assert_eq!(text(&a, 1), None);
    assert_eq!(text(&b, 1).as_deref(), Some("alive"));
    let changed = b.abort().unwrap();
    assert_eq!((changed.to_view(), changed.oops()), (c.commit, &[1u64][..]));
    assert_eq!(text(&b, 1), None);
}

#[test]
fn changed_sets_match_a_model_of_random_commits() {
    let (_dir, repo) = fresh("model");
    let mut rng = Rng::seeded();
    let mut writers: Vec<StoreSession> = (0..3).map(|_| login(&repo)).collect();
    let mut watcher = login(&repo);
    // model: the contents after each commit, and each commit's write set.
    let mut state: BTreeMap<u64, Option<String>> = BTreeMap::new();
    let mut history: Vec<BTreeSet<u64>> = vec![BTreeSet::new()]; // index = commit number
    for round in 0..150u64 {
        let w = rng.below(writers.len() as u64) as usize;
        let s = &mut writers[w];
        s.abort().unwrap(); // start from the latest, so the model's order holds
        let n = 1 + rng.below(6);
        let mut writes = BTreeMap::new();
        for _ in 0..n {
            let oop = 1 + rng.below(40);
            let value = if rng.below(5) == 0 {
                None
            } else {
                Some(format!("r{round}-o{oop}"))
            };
            writes.insert(oop, value);
        }
        let c = s
            .commit(
                writes
                    .iter()
                    .map(|(o, v)| (*o, v.as_deref().map(str::as_bytes))),
            )
            .unwrap();
        assert_eq!(c.commit as usize, history.len());
        history.push(writes.keys().copied().collect());
        state.extend(writes);

        if rng.below(4) == 0 {
            let from = watcher.view();
            let changed = watcher.abort().unwrap();
            let expected: BTreeSet<u64> = history[from as usize + 1..]
                .iter()
                .flatten()
                .copied()
                .collect();
            assert_eq!(
                changed.oops(),
                expected.into_iter().collect::<Vec<_>>().as_slice(),
                "round {round}"
            );
            for (oop, value) in &state {
                assert_eq!(&text(&watcher, *oop), value, "round {round}, oop {oop}");
            }
        }
    }
}

#[test]
fn oops_are_unique_across_sessions_and_never_reserved() {
    let (dir, repo) = fresh("alloc");
    let other_handle = Repository::open(dir.path("repo.db")).unwrap();
    let mut sessions = [
        repo.login(LoginOptions::new().oop_block(7)).unwrap(),
        repo.login(LoginOptions::new().oop_block(1)).unwrap(),
        other_handle
            .login(LoginOptions::new().oop_block(100))
            .unwrap(),
    ];
    let mut seen = BTreeSet::new();
    for i in 0..3000usize {
        let s = &mut sessions[i % 3];
        let oops = if i % 10 == 0 {
            s.allocate_oops(13).unwrap()
        } else {
            vec![s.allocate_oop().unwrap()]
        };
        for oop in oops {
            assert!(oop >= FIRST_ALLOCATED_OOP, "allocated reserved OOP {oop}");
            assert!(seen.insert(oop), "OOP {oop} handed out twice");
        }
    }
    // A new login after the others never repeats one either.
    let mut late = login(&repo);
    let oop = late.allocate_oop().unwrap();
    assert!(!seen.contains(&oop));
}

#[test]
fn invalid_oops_are_refused_without_blocking_the_session() {
    let (_dir, repo) = fresh("badoop");
    let mut s = login(&repo);
    let cases: &[(u64, &str)] = &[
        (0, "OOP 0"),
        (1 << 63, "largest"),
        (FIRST_ALLOCATED_OOP + 5, "never allocated"),
    ];
    for &(oop, reason) in cases {
        match s.commit([(oop, Some(b"x"))]) {
            Err(StoreError::InvalidOop {
                oop: got,
                reason: why,
            }) => {
                assert_eq!(got, oop);
                assert!(why.contains(reason), "{oop}: {why}");
            }
            other => panic!("{oop}: expected InvalidOop, got {other:?}"),
        }
        assert!(!s.must_abort());
    }
    assert!(matches!(s.read(0), Err(StoreError::InvalidOop { .. })));
    // Reserved root OOPs need no allocation.
    assert_eq!(put(&mut s, &[(5, "root")]), 1);
}

#[test]
fn read_only_sessions_cannot_commit_but_can_read_and_move() {
    let (_dir, repo) = fresh("readonly");
    let mut w = login(&repo);
    put(&mut w, &[(1, "v1")]);
    let mut r = repo
        .login(LoginOptions::new().read_only(true).label("reader"))
        .unwrap();
    assert!(r.is_read_only());
    assert!(matches!(
        r.commit([(1u64, Some(b"mine"))]),
        Err(StoreError::ReadOnly)
    ));
    assert!(matches!(
        r.commit(Vec::<(u64, Option<Vec<u8>>)>::new()),
        Err(StoreError::ReadOnly)
    ));
    assert!(!r.must_abort());
    put(&mut w, &[(1, "v2")]);
    assert_eq!(r.continue_view().unwrap().oops(), &[1]);
    assert_eq!(text(&r, 1).as_deref(), Some("v2"));
    let listed = repo.sessions().unwrap();
    assert!(listed
        .iter()
        .any(|s| s.read_only && s.label == "reader" && s.alive && s.view == 2));
}

#[test]
fn read_many_and_scan_answer_the_view() {
    let (_dir, repo) = fresh("scan");
    let mut a = login(&repo);
    put(&mut a, &[(1, "a"), (2, "b"), (3, "c")]);
    let b = login(&repo);
    a.commit([
        (2u64, None),
        (4u64, Some(b"d".to_vec())),
        (1u64, Some(b"a2".to_vec())),
    ])
    .unwrap();

    let got = b.read_many(&[3, 1, 4, 2]).unwrap();
    let want: Vec<Option<Vec<u8>>> = vec![
        Some(b"c".to_vec()),
        Some(b"a".to_vec()),
        None,
        Some(b"b".to_vec()),
    ];
    assert_eq!(got, want);

    let mut scanned = Vec::new();
    let n = a
        .for_each_object(|oop, data| scanned.push((oop, data.to_vec())))
        .unwrap();
    assert_eq!(n, 3);
    assert_eq!(
        scanned,
        vec![(1, b"a2".to_vec()), (3, b"c".to_vec()), (4, b"d".to_vec())]
    );
    let mut old = Vec::new();
    b.for_each_object(|oop, _| old.push(oop)).unwrap();
    assert_eq!(old, vec![1, 2, 3]);
}

#[test]
fn a_watch_reports_lag_from_another_thread() {
    let (_dir, repo) = fresh("watch");
    let mut a = login(&repo);
    let b = login(&repo);
    let watch = b.watch();
    for i in 0..5u64 {
        put(&mut a, &[(1, &format!("v{i}"))]);
    }
    let from_thread = std::thread::spawn(move || (watch.view(), watch.commits_behind().unwrap()));
    assert_eq!(from_thread.join().unwrap(), (0, 5));
    assert_eq!(repo.commits_behind(b.view()).unwrap(), 5);
    let mut b = b;
    let watch = b.watch();
    b.abort().unwrap();
    assert_eq!((watch.view(), watch.commits_behind().unwrap()), (5, 0));
}

#[test]
fn prune_keeps_what_live_views_read_and_drops_the_rest() {
    let (_dir, repo) = fresh("prune");
    let mut w = login(&repo);
    put(&mut w, &[(1, "v1"), (2, "doomed")]);
    let old = login(&repo); // holds view 1
    for i in 2..=5 {
        put(&mut w, &[(1, &format!("v{i}"))]);
    }
    w.commit([(2u64, None::<Vec<u8>>)]).unwrap();
    let before = repo.statistics().unwrap();
    assert_eq!(before.versions, 7);

    let report = repo.prune().unwrap();
    assert_eq!(report.bound, 1);
    assert_eq!(
        report.versions, 0,
        "nothing below view 1 is superseded there"
    );
    assert_eq!(
        report.commits, 1,
        "commit 1 is at the bound: no live view asks what it changed"
    );
    assert_eq!(text(&old, 1).as_deref(), Some("v1"));
    assert_eq!(text(&old, 2).as_deref(), Some("doomed"));

    drop(old);
    let report = repo.prune().unwrap();
    assert_eq!(report.bound, 6);
    // OOP 1: v1..v4 go, v5 stays. OOP 2: both versions go (the newest is a tombstone).
    assert_eq!(report.versions, 4 + 2);
    assert_eq!(report.commits, 5);
    let after = repo.statistics().unwrap();
    assert_eq!(
        (after.versions, after.live_objects, after.commit_rows),
        (1, 1, 0)
    );
    assert_eq!(text(&w, 1).as_deref(), Some("v5"));
    assert_eq!(text(&w, 2), None);

    // Views at the bound still get exact changed sets afterwards.
    let mut late = login(&repo);
    put(&mut w, &[(3, "new")]);
    assert_eq!(late.abort().unwrap().oops(), &[3]);
    assert_eq!(repo.prune().unwrap().commits, 1);
}

#[test]
fn commits_survive_reopening() {
    let dir = Scratch::new("reopen");
    let path = dir.path("repo.db");
    {
        let repo = Repository::create(&path).unwrap();
        let mut s = login(&repo);
        let oop = s.allocate_oop().unwrap();
        put(&mut s, &[(1, "root"), (oop, "child")]);
    }
    let repo = Repository::open(&path).unwrap();
    let s = login(&repo);
    assert_eq!(s.view(), 1);
    assert_eq!(text(&s, 1).as_deref(), Some("root"));
    assert_eq!(text(&s, FIRST_ALLOCATED_OOP).as_deref(), Some("child"));
    assert!(repo.integrity_check().unwrap().is_empty());
    // open_or_create on an existing file opens it.
    let again = Repository::open_or_create(&path).unwrap();
    assert_eq!(again.latest_commit().unwrap(), 1);
}

/// Closing the last connection checkpoints the WAL into the database file
/// but keeps the WAL file, so the next login need not create it.
#[test]
fn the_last_close_checkpoints_and_keeps_the_wal_file() {
    let dir = Scratch::new("persist-wal");
    let path = dir.path("repo.db");
    {
        let repo = Repository::create(&path).unwrap();
        let mut s = login(&repo);
        put(&mut s, &[(1, "root")]);
        s.logout().unwrap();
    }
    assert!(dir.path("repo.db-wal").exists(), "the WAL file is kept");
    // the database file alone holds the commit: the close checkpointed it
    let copy = dir.path("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    let repo = Repository::open(&copy).unwrap();
    assert_eq!(text(&login(&repo), 1).as_deref(), Some("root"));
    // and the kept WAL is reused
    let repo = Repository::open(&path).unwrap();
    let mut s = login(&repo);
    put(&mut s, &[(1, "again")]);
    assert_eq!(text(&s, 1).as_deref(), Some("again"));
    assert!(repo.integrity_check().unwrap().is_empty());
}

#[test]
fn a_held_write_lock_is_a_busy_error_not_a_hang() {
    let dir = Scratch::new("busy");
    let path = dir.path("repo.db");
    let options = RepositoryOptions {
        busy_timeout: Duration::from_millis(50),
    };
    let repo = Repository::create_with(&path, &options).unwrap();
    let mut s = repo.login(LoginOptions::new()).unwrap();
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    match s.commit([(1u64, Some(b"x"))]) {
        Err(StoreError::Busy { timeout_ms }) => assert_eq!(timeout_ms, 50),
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(!s.must_abort(), "busy is not a conflict");
    blocker.execute_batch("ROLLBACK").unwrap();
    assert_eq!(put(&mut s, &[(1, "x")]), 1);
}

#[test]
fn files_that_are_not_repositories_are_refused_clearly() {
    let dir = Scratch::new("foreign");
    let real = dir.path("real.db");
    {
        let repo = Repository::create(&real).unwrap();
        let mut s = login(&repo);
        put(&mut s, &[(1, &"x".repeat(5000))]);
    }
    let real_bytes = std::fs::read(&real).unwrap();

    let mut rng = Rng::seeded();
    let random: Vec<u8> = (0..8192).map(|_| rng.next() as u8).collect();
    let mut header_then_noise = b"SQLite format 3\0".to_vec();
    header_then_noise.extend_from_slice(&random[..4080]);

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "text.db",
            b"just some text\n".to_vec(),
            "not a SQLite database",
        ),
        ("random.db", random.clone(), "not a SQLite database"),
        ("header.db", header_then_noise, ""),
        ("truncated.db", real_bytes[..100].to_vec(), ""),
    ];
    for (name, bytes, want) in cases {
        let path = dir.path(name);
        std::fs::write(&path, &bytes).unwrap();
        match Repository::open(&path) {
            Ok(_) => panic!("{name}: opened as a repository"),
            Err(e @ (StoreError::NotARepository { .. } | StoreError::Corrupt { .. })) => {
                assert!(e.to_string().contains(want), "{name}: {e}");
            }
            Err(e) => panic!("{name}: unexpected error kind {e:?}"),
        }
    }

    let empty = dir.path("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let e = Repository::open(&empty).unwrap_err();
    assert!(
        matches!(e, StoreError::Uninitialised { .. }) && e.to_string().contains("empty"),
        "{e}"
    );

    // Another application's database is refused and left as it was.
    let foreign = dir.path("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let e = Repository::open(&foreign).unwrap_err();
    assert!(
        matches!(e, StoreError::NotARepository { .. })
            && e.to_string().contains("another application"),
        "{e}"
    );
    let mode: String = rusqlite::Connection::open(&foreign)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "a refused file must not be switched to WAL");

    assert!(matches!(
        Repository::open(dir.path("missing.db")),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        Repository::open(dir.path("")),
        Err(StoreError::NotARepository { .. })
    ));
    assert!(matches!(
        Repository::create(&real),
        Err(StoreError::AlreadyExists { .. })
    ));
}

#[test]
fn concurrent_open_or_create_agrees_on_one_repository() {
    let dir = Scratch::new("race");
    let path = dir.path("repo.db");
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let repo = Repository::open_or_create(&path).expect("open_or_create");
                let mut s = repo.login(LoginOptions::new()).expect("login");
                s.commit([(i + 1, Some(b"mine"))]).expect("commit").commit
            })
        })
        .collect();
    let mut numbers: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    numbers.sort();
    assert_eq!(
        numbers,
        vec![1, 2, 3, 4],
        "all four committed to the same file"
    );
}

#[test]
fn a_newer_format_is_refused_with_both_versions() {
    let dir = Scratch::new("format");
    let path = dir.path("repo.db");
    drop(Repository::create(&path).unwrap());
    for (stored, refused) in [
        (FORMAT_VERSION + 1, true),
        (0, true),
        (FORMAT_VERSION, false),
    ] {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'format_version'",
            [stored],
        )
        .unwrap();
        drop(c);
        match Repository::open(&path) {
            Err(StoreError::UnsupportedFormat { found, supported }) if refused => {
                assert_eq!((found, supported), (stored, FORMAT_VERSION));
            }
            Ok(_) if !refused => {}
            other => panic!("format {stored}: got {other:?}"),
        }
    }
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute("DELETE FROM meta WHERE key = 'format_version'", [])
        .unwrap();
    drop(c);
    let e = Repository::open(&path).unwrap_err();
    assert!(e.to_string().contains("no format version"), "{e}");
}

#[test]
fn logout_and_drop_leave_the_registry() {
    let (_dir, repo) = fresh("registry");
    let a = repo.login(LoginOptions::new().label("a")).unwrap();
    let b = repo.login(LoginOptions::new().label("b")).unwrap();
    assert_eq!(repo.sessions().unwrap().len(), 2);
    a.logout().unwrap();
    let left: Vec<String> = repo
        .sessions()
        .unwrap()
        .into_iter()
        .map(|s| s.label)
        .collect();
    assert_eq!(left, vec!["b".to_string()]);
    drop(b);
    assert!(repo.sessions().unwrap().is_empty());

    // A row removed by hand comes back when its session next moves its view.
    let mut c = repo.login(LoginOptions::new().label("c")).unwrap();
    assert!(repo.forget_session(c.id()).unwrap());
    assert!(!repo.forget_session(c.id()).unwrap());
    let mut w = login(&repo);
    put(&mut w, &[(1, "x")]);
    c.abort().unwrap();
    let rows = repo.sessions().unwrap();
    assert!(
        rows.iter()
            .any(|s| s.id == c.id() && s.label == "c" && s.view == 1),
        "{rows:?}"
    );
    assert!(matches!(
        repo.login(LoginOptions::new().oop_block(0)),
        Err(StoreError::InvalidArgument(_))
    ));
}

/// Every operation a login does, answering each outcome; a panic fails the test.
fn workload(path: &std::path::Path) -> Vec<Result<(), StoreError>> {
    let mut out = Vec::new();
    let repo = match Repository::open(path) {
        Ok(r) => r,
        Err(e) => return vec![Err(e)],
    };
    out.push(repo.latest_commit().map(drop));
    out.push(repo.sessions().map(drop));
    out.push(repo.statistics().map(drop));
    let mut s = match repo.login(LoginOptions::new()) {
        Ok(s) => s,
        Err(e) => {
            out.push(Err(e));
            return out;
        }
    };
    out.push(s.read(1).map(drop));
    out.push(s.read_many(&[1, 2, 1024, 1025]).map(drop));
    out.push(s.for_each_object(|_, _| {}).map(drop));
    // the scan reads through a memory mapping: damage is still an error
    out.push(s.scan(|_, _| {}).map(drop));
    out.push(s.read(1).map(drop));
    out.push(s.commits_behind().map(drop));
    let oop = s.allocate_oop();
    out.push(
        oop.as_ref()
            .map(drop)
            .map_err(|e| StoreError::InvalidArgument(e.to_string())),
    );
    out.push(s.commit([(2u64, Some(b"after damage"))]).map(drop));
    out.push(s.continue_view().map(drop));
    out.push(s.abort().map(drop));
    drop(s);
    out.push(repo.prune().map(drop));
    out
}

fn populated(dir: &Scratch) -> std::path::PathBuf {
    let path = dir.path("pristine.db");
    let repo = Repository::create(&path).unwrap();
    let mut s = login(&repo);
    let oops = s.allocate_oops(200).unwrap();
    for round in 0..5u64 {
        let writes: Vec<(u64, Option<Vec<u8>>)> = oops
            .iter()
            .map(|&o| (o, Some(vec![(o + round) as u8; 50 + (o % 300) as usize])))
            .collect();
        s.commit(writes).unwrap();
    }
    s.commit([(1u64, Some(b"root"))]).unwrap();
    path
}

#[test]
fn damaged_contents_are_errors_never_panics() {
    let dir = Scratch::new("damage");
    let pristine = populated(&dir);
    let damage: &[&str] = &[
        "UPDATE counters SET value = -1 WHERE name = 'last_commit'",
        "UPDATE counters SET value = 9223372036854775807 WHERE name = 'last_commit'",
        "UPDATE counters SET value = 'abc' WHERE name = 'last_commit'",
        "DELETE FROM counters WHERE name = 'next_oop'",
        "UPDATE counters SET value = 9223372036854775807 WHERE name = 'next_oop'",
        "UPDATE commits SET writes = x'ff00ff'",
        "UPDATE commits SET writes = 5",
        "UPDATE counters SET value = 2 WHERE name = 'last_commit'",
        "UPDATE objects SET data = 42",
        "INSERT INTO sessions (pid, start, host, view, read_only, label, login_ms, moved_ms) \
         VALUES (-5, -1, '', -3, 0, 'x', 0, 0)",
        "DROP TABLE sessions",
        "DROP TABLE objects",
        "DROP TABLE commits",
        "UPDATE meta SET value = 'one' WHERE key = 'format_version'",
    ];
    for sql in damage {
        let path = dir.path("damaged.db");
        std::fs::copy(&pristine, &path).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let outcomes = workload(&path);
        assert!(
            outcomes.iter().any(Result::is_err),
            "{sql}: damage went unnoticed"
        );
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_file(dir.path("damaged.db-wal"));
        let _ = std::fs::remove_file(dir.path("damaged.db-shm"));
    }
}

#[test]
fn flipped_bytes_are_errors_never_panics() {
    let dir = Scratch::new("flips");
    let pristine = populated(&dir);
    // Fold the WAL into the file so the flips land in the data itself.
    rusqlite::Connection::open(&pristine)
        .unwrap()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let bytes = std::fs::read(&pristine).unwrap();
    let mut rng = Rng::seeded();
    let mut errors = 0;
    for _ in 0..40 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.below(damaged.len() as u64) as usize;
            damaged[at] ^= 1 + rng.below(255) as u8;
        }
        let path = dir.path("flipped.db");
        std::fs::write(&path, &damaged).unwrap();
        let _ = std::fs::remove_file(dir.path("flipped.db-wal"));
        let _ = std::fs::remove_file(dir.path("flipped.db-shm"));
        errors += workload(&path).iter().filter(|r| r.is_err()).count();
    }
    eprintln!("{errors} typed errors from 40 damaged files, no panic");
}

/// `scan` (one pass, newest rows first) answers exactly the objects
/// `for_each_object` (OOP order) answers, for views old and new, over objects
/// rewritten and deleted many times, before and after a prune.
#[test]
fn scan_answers_what_for_each_object_answers_at_every_view() {
    let (_dir, repo) = fresh("scan-model");
    let mut writer = login(&repo);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let both = |s: &gsmcp_store::StoreSession| {
        let mut ordered = Vec::new();
        let n = s
            .for_each_object(|oop, data| ordered.push((oop, data.to_vec())))
            .unwrap();
        let mut scanned = Vec::new();
        let m = s
            .scan(|oop, data| scanned.push((oop, data.to_vec())))
            .unwrap();
        scanned.sort();
        assert_eq!(n, m);
        (ordered, scanned)
    };
    let mut readers = vec![];
    for round in 0..40u64 {
        let writes: Vec<(u64, Option<Vec<u8>>)> = (0..1 + next(6))
            .map(|_| {
                let oop = 1 + next(12);
                let data = (next(4) > 0).then(|| format!("{oop}@{round}").into_bytes());
                (oop, data)
            })
            .collect();
        writer.commit(writes).unwrap();
        if round % 7 == 3 {
            readers.push(login(&repo));
        }
        if round == 25 {
            repo.prune().unwrap();
        }
    }
    readers.push(writer);
    for s in &readers {
        let (ordered, scanned) = both(s);
        assert_eq!(ordered, scanned, "view {}", s.view());
    }
}

/// Commits reclaim history on their own: versions no live view can read go a
/// bounded batch at a time, so the file holds the live data and at most
/// about `AUTO_PRUNE_LAG` commits' worth of old versions; a live old view
/// keeps what it reads until it moves.
#[test]
fn commits_prune_what_no_view_can_read() {
    use gsmcp_store::session::AUTO_PRUNE_LAG;
    let (_dir, repo) = fresh("auto-prune");
    let mut w = login(&repo);
    let oops: Vec<u64> = (0..10).map(|_| w.allocate_oop().unwrap()).collect();
    let round = |w: &mut StoreSession, i: usize| {
        let text = format!("v{i}");
        let writes: Vec<(u64, &str)> = oops.iter().map(|&o| (o, text.as_str())).collect();
        put(w, &writes);
    };
    round(&mut w, 0);
    let old = login(&repo);
    for i in 1..=100 {
        round(&mut w, i);
    }
    // the old view pins everything above it
    let pinned = repo.statistics().unwrap();
    assert_eq!(pinned.versions, 10 * 101, "{pinned:?}");
    assert_eq!(text(&old, oops[0]).as_deref(), Some("v0"));
    drop(old);
    for i in 101..=300 {
        round(&mut w, i);
    }
    let after = repo.statistics().unwrap();
    let bound = 10 * (AUTO_PRUNE_LAG + 1);
    assert!(
        after.versions <= bound,
        "{after:?}: more than {bound} versions"
    );
    assert!(after.commit_rows <= AUTO_PRUNE_LAG + 1, "{after:?}");
    assert_eq!(text(&w, oops[9]).as_deref(), Some("v300"));
    let late = login(&repo);
    assert_eq!(text(&late, oops[3]).as_deref(), Some("v300"));
}

/// A new repository gives pages freed by pruning back to the file system: a
/// file whose objects are rewritten again and again stays near the size of
/// its live data.
#[test]
fn the_file_shrinks_back_as_history_is_pruned() {
    let (dir, repo) = fresh("auto-vacuum");
    let mut w = login(&repo);
    let oops: Vec<u64> = (0..8).map(|_| w.allocate_oop().unwrap()).collect();
    let live = 8 * 256 * 1024;
    for i in 0..200u8 {
        let body = vec![b'a' + i % 26; 256 * 1024];
        w.commit(oops.iter().map(|&o| (o, Some(body.as_slice()))))
            .unwrap();
    }
    let file = std::fs::metadata(dir.path("repo.db")).unwrap().len() as usize;
    let stats = repo.statistics().unwrap();
    // the old versions of at most AUTO_PRUNE_LAG + 1 commits remain for a
    // while, and the pages pruning frees go back to the file system: the file
    // stays within a few times the live data (it was 10× when only one page
    // went back per prune)
    let bound = live * 4;
    assert!(
        file < bound,
        "the file is {} MiB for {} MiB of live data ({stats:?})",
        file >> 20,
        live >> 20
    );
    eprintln!(
        "after 200 rewrites of {} MiB: file {} MiB, {} versions",
        live >> 20,
        file >> 20,
        stats.versions
    );
}

#[test]
fn a_login_ticket_is_spent_once_across_repositories_handles() {
    let (dir, repo) = fresh("tickets");
    let far = 4_000_000_000u64;
    let first = repo
        .login(LoginOptions::new().spend_ticket([7; 16], far))
        .expect("the first use of a ticket logs in");
    // another handle on the same file (as another process would open it)
    let other = Repository::open(dir.path("repo.db")).expect("open");
    for r in [&repo, &other] {
        match r.login(LoginOptions::new().spend_ticket([7; 16], far)) {
            Err(StoreError::TicketSpent) => {}
            other => panic!("a spent ticket must be refused, got {other:?}"),
        }
    }
    other
        .login(LoginOptions::new().spend_ticket([8; 16], far))
        .expect("another nonce logs in");
    // an expired record is dropped by the next spend, which then succeeds again:
    // the layer above refuses an expired credential before it gets here
    repo.login(LoginOptions::new().spend_ticket([9; 16], 1))
        .expect("a nonce recorded as expired");
    repo.login(LoginOptions::new().spend_ticket([9; 16], far))
        .expect("the expired record was dropped");
    assert_eq!(
        repo.sessions().expect("sessions").len(),
        1,
        "only the first is still logged in"
    );
    drop(first);
}
