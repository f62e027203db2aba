//! Login time against history: does a login cost what the repository holds
//! live, or everything it ever held? Two repositories are made side by side,
//! one with a single commit of `--objects` new objects and one with
//! `--commits` such commits, each making the previous commit's objects
//! garbage (as an application that rebuilds a large structure does); the
//! repositories' own collections and pruning run as they do for any user.
//! Logins to the two are then timed alternately, so both see the same machine
//! load, and the medians, their ratio and the files' sizes are printed.
//!
//!   cargo run --release -p gsmcp-smalltalk --example login_history -- \
//!       [--commits 100] [--objects 200000] [--logins 15]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gsmcp_smalltalk::Session;
use gsmcp_store::Repository;

struct Options {
    commits: usize,
    objects: usize,
    logins: usize,
}

fn options() -> Options {
    let mut o = Options {
        commits: 100,
        objects: 200_000,
        logins: 15,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = || -> usize {
            pair.get(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{} needs a number", pair[0]))
        };
        match pair[0].as_str() {
            "--commits" => o.commits = value(),
            "--objects" => o.objects = value(),
            "--logins" => o.logins = value(),
            other => panic!("unknown option {other}"),
        }
    }
    o
}

fn login(path: &Path) -> Session {
    Session::login(path, "DataCurator", "swordfish").expect("login")
}

/// Makes a repository at `path` and commits `commits` times a new structure
/// of `objects` objects in place of the previous one.
fn build(path: &Path, commits: usize, objects: usize) -> Duration {
    let started = Instant::now();
    Session::create_repository(path).expect("create");
    let mut s = login(path);
    for i in 0..commits {
        let code = format!(
            "UserGlobals at: #Data put: ((1 to: {objects}) collect: [:k | Array with: k with: {i}]). \
             System commitTransaction"
        );
        let done = s.evaluate_print_string(&code).expect("commit");
        assert_eq!(done, "true", "commit {i}");
        if (i + 1) % 10 == 0 {
            eprintln!("  {} commits of {objects} objects", i + 1);
        }
    }
    s.logout().expect("logout");
    started.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The database file's and its WAL's sizes.
fn file_bytes(path: &Path) -> [u64; 2] {
    ["", "-wal"].map(|suffix| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len())
    })
}

fn main() {
    let o = options();
    let dir = std::env::temp_dir().join(format!("gsmcp-login-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let one = dir.join("one.db");
    let many = dir.join("many.db");
    eprintln!(
        "building: 1 commit, then {} commits, of {} objects",
        o.commits, o.objects
    );
    let built_one = build(&one, 1, o.objects);
    let built_many = build(&many, o.commits, o.objects);
    let mut times = [vec![], vec![]];
    for _ in 0..o.logins {
        for (k, path) in [&one, &many].into_iter().enumerate() {
            let t = Instant::now();
            let s = login(path);
            times[k].push(t.elapsed());
            s.logout().unwrap();
        }
    }
    let [t_one, t_many] = times.map(median);
    println!(
        "{:<38} {:>12} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "repository", "login p50", "file", "WAL", "live objs", "versions", "built"
    );
    for (name, path, t, built) in [
        ("after 1 commit".to_string(), &one, t_one, built_one),
        (
            format!("after {} commits", o.commits),
            &many,
            t_many,
            built_many,
        ),
    ] {
        let stats = Repository::open(path).unwrap().statistics().unwrap();
        let [db, wal] = file_bytes(path);
        println!(
            "{:<38} {:>9.1} ms {:>7.1} MB {:>7.1} MB {:>10} {:>10} {:>6.1} s",
            format!("{name} of {} objects", o.objects),
            t.as_secs_f64() * 1e3,
            db as f64 / 1e6,
            wal as f64 / 1e6,
            stats.live_objects,
            stats.versions,
            built.as_secs_f64()
        );
    }
    println!(
        "login after {} commits / after 1: {:.2}× (target ≤ 2×)",
        o.commits,
        t_many.as_secs_f64() / t_one.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
