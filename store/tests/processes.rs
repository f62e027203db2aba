//! Several OS processes on one repository file: snapshots and conflicts across
//! processes, concurrent increments that must lose no update, dead processes'
//! views being reaped, and commits surviving SIGKILL at random points.
//!
//! The other processes are the `gsmcp-store` binary (`shell`, `counter`,
//! `exercise`), so these tests exercise exactly what a second worker would do.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{payload, tool, Guard, Rng, Scratch, Shell};
use gsmcp_store::{LoginOptions, Repository};

fn new_repo(dir: &Scratch) -> std::path::PathBuf {
    let path = dir.path("repo.db");
    drop(Repository::create(&path).expect("create repository"));
    path
}

#[test]
fn two_processes_get_snapshots_and_conflicts() {
    let dir = Scratch::new("two");
    let path = new_repo(&dir);
    let mut seed = Shell::start(&path, &[]);
    let script: &[(&str, &str)] = &[
        ("alloc", "oop 1024"),
        ("write 1 r0", "ok"),
        ("write 1024 x0", "ok"),
    ];
    for (cmd, want) in script {
        assert_eq!(seed.ask(cmd), *want, "{cmd}");
    }
    assert_eq!(seed.ask("commit"), "committed 1 changed -");
    seed.quit();

    let mut a = Shell::start(&path, &["--label", "A"]);
    let mut b = Shell::start(&path, &["--label", "B"]);
    let mut ro = Shell::start(&path, &["--read-only"]);
    // (shell, command, expected answer), in the order the two processes act.
    let steps: &[(char, &str, &str)] = &[
        ('a', "view", "view 1"),
        ('b', "view", "view 1"),
        ('a', "write 1 r-a", "ok"),
        ('a', "write 1024 x-a", "ok"),
        ('a', "commit", "committed 2 changed -"),
        ('b', "read 1", "text r0"),
        ('b', "behind", "behind 1"),
        ('b', "write 1024 x-b", "ok"),
        ('b', "commit", "error conflict 1024"),
        ('b', "commit", "error refused"),
        ('b', "continue", "error refused"),
        ('b', "read 1", "text r0"),
        ('b', "abort", "aborted 2 changed 1,1024"),
        ('b', "read 1", "text r-a"),
        ('b', "write 1024 x-b", "ok"),
        ('b', "commit", "committed 3 changed -"),
        ('a', "behind", "behind 1"),
        ('a', "read 1024", "text x-a"),
        ('a', "continue", "continued 3 changed 1024"),
        ('a', "read 1024", "text x-b"),
        ('a', "write 1 r2", "ok"),
        ('b', "write 5 five", "ok"),
        ('a', "commit", "committed 4 changed -"),
        ('b', "commit", "committed 5 changed 1"),
        ('r', "read 5", "none"),
        ('r', "write 5 mine", "ok"),
        ('r', "commit", "error read-only"),
        ('r', "abort", "aborted 5 changed 1,5,1024"),
        ('r', "read 5", "text five"),
    ];
    for (who, cmd, want) in steps {
        let shell = match who {
            'a' => &mut a,
            'b' => &mut b,
            _ => &mut ro,
        };
        assert_eq!(shell.ask(cmd), *want, "{who}: {cmd}");
    }
    a.quit();
    b.quit();
    ro.quit();
    let repo = Repository::open(&path).unwrap();
    assert!(
        repo.sessions().unwrap().is_empty(),
        "clean exits leave the registry"
    );
}

#[test]
fn concurrent_processes_lose_no_increment() {
    let dir = Scratch::new("counter");
    let path = new_repo(&dir);
    let (procs, times) = (3u64, 40u64);
    let children: Vec<Guard> = (0..procs)
        .map(|_| {
            Guard(
                Command::new(tool())
                    .args(["counter"])
                    .arg(&path)
                    .args(["--oop", "7", "--times", &times.to_string()])
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("spawn counter"),
            )
        })
        .collect();
    let mut conflicts = 0u64;
    for mut child in children {
        let mut out = String::new();
        child
            .0
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let status = child.0.wait().unwrap();
        assert!(status.success(), "counter exited with {status}: {out}");
        let words: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(
            words[..3],
            ["done", &times.to_string()[..], "conflicts"],
            "{out}"
        );
        conflicts += words[3].parse::<u64>().unwrap();
    }
    eprintln!("{conflicts} conflicts detected across processes and retried");
    let repo = Repository::open(&path).unwrap();
    let s = repo.login(LoginOptions::new()).unwrap();
    assert_eq!(
        s.read(7).unwrap(),
        Some((procs * times).to_string().into_bytes())
    );
    assert_eq!(
        repo.latest_commit().unwrap(),
        procs * times,
        "one commit per increment, none lost"
    );
}

#[test]
fn a_killed_process_view_is_reaped_and_stops_pinning_versions() {
    let dir = Scratch::new("reap");
    let path = new_repo(&dir);
    let repo = Repository::open(&path).unwrap();
    let mut w = repo.login(LoginOptions::new()).unwrap();
    w.commit([(1u64, Some(b"v1"))]).unwrap();

    let mut victim = Shell::start(&path, &["--label", "victim"]);
    assert_eq!(victim.ask("view"), "view 1");
    let pid = victim.pid();
    for i in 2..=4 {
        w.commit([(1u64, Some(format!("v{i}").into_bytes()))])
            .unwrap();
    }
    let report = repo.prune().unwrap();
    assert_eq!(
        (report.bound, report.versions, report.sessions_reaped),
        (1, 0, 0)
    );

    victim.kill();
    let listed = repo.sessions().unwrap();
    let dead = listed
        .iter()
        .find(|s| s.pid == pid)
        .expect("the victim's row is still registered");
    assert!(
        !dead.alive && dead.label == "victim" && dead.view == 1,
        "{dead:?}"
    );

    let report = repo.prune().unwrap();
    assert_eq!(report.sessions_reaped, 1);
    assert_eq!(report.bound, 4);
    assert_eq!(
        report.versions, 3,
        "v1..v3 of OOP 1 are no longer readable by anyone"
    );
    assert!(repo.sessions().unwrap().iter().all(|s| s.pid != pid));
    assert_eq!(w.read(1).unwrap(), Some(b"v4".to_vec()));
}

/// One line `exercise` printed: commit number, tag, the fresh OOPs it wrote.
struct Reported {
    commit: u64,
    tag: u64,
    oops: Vec<u64>,
}

fn parse_reported(line: &str) -> Reported {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(
        words.len() == 4 && words[0] == "committed",
        "unexpected line {line:?}"
    );
    Reported {
        commit: words[1].parse().unwrap(),
        tag: words[2].parse().unwrap(),
        oops: words[3].split(',').map(|o| o.parse().unwrap()).collect(),
    }
}

/// The tag in an `exercise` object's header.
fn tag_of(data: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(&data[..data.len().min(40)]);
    text.split(':')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("bad header in {text:?}"))
}

#[test]
fn answered_commits_survive_sigkill_and_partial_ones_never_show() {
    const ROUNDS: u64 = 100;
    // Each commit spans many WAL pages (80 objects of up to 700 bytes), so kills
    // land in the middle of writing one, not only between commits.
    const OBJECTS: u64 = 40;
    let dir = Scratch::new("crash");
    let path = new_repo(&dir);
    let mut rng = Rng::seeded();
    let mut all_reported: Vec<Reported> = Vec::new();
    let mut root_tag: Option<u64> = None;
    let mut durable_unreported = 0u64;

    for round in 0..ROUNDS {
        let tag_base = 1 + round * 100_000;
        let mut child = Guard(
            Command::new(tool())
                .arg("exercise")
                .arg(&path)
                .args([
                    "--objects",
                    &OBJECTS.to_string(),
                    "--tag-base",
                    &tag_base.to_string(),
                ])
                .stdout(Stdio::piped())
                .spawn()
                .expect("spawn exercise"),
        );
        let mut out = BufReader::new(child.0.stdout.take().unwrap());
        let mut lines = Vec::new();
        // Let it answer a few commits, then kill it somewhere in the next ones.
        for _ in 0..rng.below(4) {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                break;
            }
            lines.push(line);
        }
        std::thread::sleep(Duration::from_micros(rng.below(2000)));
        child.0.kill().unwrap();
        child.0.wait().unwrap();
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        // A line without its newline was cut by the kill: not a report.
        lines.extend(
            rest.split_inclusive('\n')
                .filter(|l| l.ends_with('\n'))
                .map(str::to_string),
        );
        let round_reports: Vec<Reported> = lines.iter().map(|l| parse_reported(l)).collect();

        let repo =
            Repository::open(&path).unwrap_or_else(|e| panic!("round {round}: reopen failed: {e}"));
        let s = repo.login(LoginOptions::new()).unwrap();
        let latest = s.view();

        // Every answered commit is there with its exact data.
        for r in &round_reports {
            assert!(
                r.commit <= latest,
                "round {round}: answered commit {} missing (latest {latest})",
                r.commit
            );
            for (j, &oop) in r.oops.iter().enumerate() {
                assert_eq!(
                    s.read(oop).unwrap(),
                    Some(payload(r.tag, j as u64)),
                    "round {round}, tag {}",
                    r.tag
                );
            }
        }

        // All-or-nothing: every commit's fresh objects are all present or none is,
        // there is one commit number per visible tag, and the roots all carry the
        // newest tag.
        let mut fresh: BTreeMap<u64, u64> = BTreeMap::new();
        s.for_each_object(|oop, data| {
            if oop >= gsmcp_store::FIRST_ALLOCATED_OOP {
                *fresh.entry(tag_of(data)).or_default() += 1;
            }
        })
        .unwrap();
        for (tag, count) in &fresh {
            assert_eq!(
                *count, OBJECTS,
                "round {round}: tag {tag} is partially committed"
            );
        }
        assert_eq!(
            fresh.len() as u64,
            latest,
            "round {round}: commits and visible tags disagree"
        );
        let roots = s.read_many(&(1..=OBJECTS).collect::<Vec<_>>()).unwrap();
        let newest = fresh.keys().next_back().copied();
        for (j, root) in roots.iter().enumerate() {
            match (root, newest) {
                (None, None) => {}
                (Some(data), Some(tag)) => {
                    assert_eq!(data, &payload(tag, OBJECTS + j as u64), "round {round}")
                }
                other => panic!(
                    "round {round}: roots and fresh objects disagree: {:?}",
                    other.1
                ),
            }
        }

        // The durable state is the reported commits plus at most the one in flight.
        let reported_max = round_reports.iter().map(|r| r.tag).max();
        if let Some(tag) = newest {
            match reported_max {
                Some(max) => assert!(
                    tag == max || tag == max + 1,
                    "round {round}: newest {tag}, reported {max}"
                ),
                None => assert!(
                    Some(tag) == root_tag || tag == tag_base,
                    "round {round}: newest {tag}"
                ),
            }
            if Some(tag) != reported_max && Some(tag) != root_tag {
                durable_unreported += 1;
            }
        }
        root_tag = newest;
        all_reported.extend(round_reports);
    }

    // Earlier rounds' commits are all still there after every later crash.
    let repo = Repository::open(&path).unwrap();
    let s = repo.login(LoginOptions::new()).unwrap();
    for r in &all_reported {
        for (j, &oop) in r.oops.iter().enumerate() {
            assert_eq!(s.read(oop).unwrap(), Some(payload(r.tag, j as u64)));
        }
    }
    let tags: BTreeSet<u64> = all_reported.iter().map(|r| r.tag).collect();
    assert_eq!(tags.len(), all_reported.len());
    drop(s);
    assert!(repo.integrity_check().unwrap().is_empty());
    let report = repo.prune().unwrap();
    assert!(
        repo.sessions().unwrap().is_empty(),
        "every killed child's view was reaped"
    );
    eprintln!(
        "{ROUNDS} kills: {} answered commits checked, {durable_unreported} in-flight commits landed, \
         {} dead views reaped",
        all_reported.len(),
        report.sessions_reaped
    );
}
