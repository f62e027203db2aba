//! Figures for the repository file: the disk's fsync cost, login, reads, durable
//! commit latency, refresh cost against what changed, the lag query, a full scan
//! and prune, on a repository the size of a real class library.
//!
//! `cargo run --release -p gsmcp-store --example bench [-- --objects N --dir DIR]`
//! prints a table; it asserts nothing (the tests do that).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gsmcp_store::{LoginOptions, Repository, StoreSession};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let objects: usize = arg("--objects")
        .and_then(|v| v.parse().ok())
        .unwrap_or(60_000);
    let dir =
        PathBuf::from(arg("--dir").unwrap_or_else(|| std::env::temp_dir().display().to_string()))
            .join(format!("gsmcp-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create bench dir");
    let result = std::panic::catch_unwind(|| run(&dir, objects));
    let _ = std::fs::remove_dir_all(&dir);
    if result.is_err() {
        std::process::exit(1);
    }
}

/// Median and 99th percentile of a sample.
fn stats(mut sample: Vec<Duration>) -> (Duration, Duration) {
    sample.sort();
    let at = |q: f64| sample[((sample.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

fn row(what: &str, sample: Vec<Duration>) {
    let n = sample.len();
    let (median, p99) = stats(sample);
    println!(
        "{what:<64} median {:>10.3} ms   p99 {:>10.3} ms   (n={n})",
        ms(median),
        ms(p99)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Deterministic object bodies of 200..2000 bytes.
fn body(oop: u64, round: u64) -> Vec<u8> {
    let len = 200 + ((oop * 2_654_435_761 + round * 97) % 1801) as usize;
    (0..len)
        .map(|i| ((oop as usize + i * 7 + round as usize) % 256) as u8)
        .collect()
}

fn fsync_cost(dir: &Path) -> Vec<Duration> {
    let path = dir.join("fsync-probe");
    let mut f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .expect("probe file");
    let block = vec![0x5au8; 4096];
    let sample = (0..200)
        .map(|_| {
            let t = Instant::now();
            f.write_all(&block).expect("write");
            f.sync_data().expect("fsync");
            t.elapsed()
        })
        .collect();
    let _ = std::fs::remove_file(path);
    sample
}

fn run(dir: &Path, objects: usize) {
    println!(
        "gsmcp-store figures ({} objects of 200..2000 bytes) in {}",
        objects,
        dir.display()
    );
    row("disk: write 4 KiB + fdatasync", fsync_cost(dir));

    let path = dir.join("bench.db");
    let repo = Repository::create(&path).expect("create");
    let mut writer = repo
        .login(LoginOptions::new().label("bench writer"))
        .expect("login");
    let oops = writer.allocate_oops(objects).expect("allocate");
    let t = Instant::now();
    let mut bytes = 0usize;
    for chunk in oops.chunks(5000) {
        let writes: Vec<(u64, Option<Vec<u8>>)> =
            chunk.iter().map(|&o| (o, Some(body(o, 0)))).collect();
        bytes += writes
            .iter()
            .map(|w| w.1.as_ref().map_or(0, Vec::len))
            .sum::<usize>();
        writer.commit(writes).expect("load commit");
    }
    let load = t.elapsed();
    println!(
        "{:<64} {:>10.1} ms total, {:.0} objects/s, {:.1} MB",
        "load (5,000-object commits)",
        ms(load),
        objects as f64 / load.as_secs_f64(),
        bytes as f64 / 1e6
    );

    row(
        "open repository + login (view taken)",
        (0..50)
            .map(|_| {
                let t = Instant::now();
                let r = Repository::open(&path).expect("open");
                let s = r.login(LoginOptions::new()).expect("login");
                let d = t.elapsed();
                drop(s);
                d
            })
            .collect(),
    );
    row(
        "login on an open repository",
        (0..50)
            .map(|_| {
                let t = Instant::now();
                let s = repo.login(LoginOptions::new()).expect("login");
                let d = t.elapsed();
                drop(s);
                d
            })
            .collect(),
    );

    let reader = repo.login(LoginOptions::new()).expect("login");
    // (dropped before prune, so its old view does not pin versions)
    let mut x = 12345u64;
    row(
        "read one object (random OOP)",
        (0..5000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let oop = oops[(x >> 33) as usize % oops.len()];
                let t = Instant::now();
                let got = reader.read(oop).expect("read");
                let d = t.elapsed();
                assert!(got.is_some());
                d
            })
            .collect(),
    );

    row(
        "commit 1 object (durable)",
        (0..300u64)
            .map(|i| {
                let oop = oops[i as usize % oops.len()];
                let t = Instant::now();
                writer
                    .commit([(oop, Some(body(oop, i + 1)))])
                    .expect("commit");
                t.elapsed()
            })
            .collect(),
    );
    row(
        "commit 1,000 objects (durable)",
        (0..20u64)
            .map(|i| {
                let base = (i as usize * 1000) % (oops.len() - 1000);
                let writes: Vec<(u64, Option<Vec<u8>>)> = oops[base..base + 1000]
                    .iter()
                    .map(|&o| (o, Some(body(o, 1000 + i))))
                    .collect();
                let t = Instant::now();
                writer.commit(writes).expect("commit");
                t.elapsed()
            })
            .collect(),
    );

    row("disk again: write 4 KiB + fdatasync", fsync_cost(dir));

    let mut refresher = repo.login(LoginOptions::new()).expect("login");
    let refresh = |refresher: &mut StoreSession| {
        let t = Instant::now();
        let changed = refresher.abort().expect("abort");
        let fresh = refresher.read_many(changed.oops()).expect("read changed");
        (t.elapsed(), fresh.len())
    };
    for (label, changes) in [
        ("0 objects", 0usize),
        ("100 objects (1 commit)", 100),
        ("1,000 objects (1 commit)", 1000),
    ] {
        let mut sample = Vec::new();
        for i in 0..20u64 {
            if changes > 0 {
                let base = (i as usize * 997) % (oops.len() - changes);
                writer
                    .commit(
                        oops[base..base + changes]
                            .iter()
                            .map(|&o| (o, Some(body(o, 5000 + i)))),
                    )
                    .expect("commit");
            }
            let (d, n) = refresh(&mut refresher);
            assert_eq!(n, changes);
            sample.push(d);
        }
        row(
            &format!("refresh (abort + read changed), {label} changed"),
            sample,
        );
    }
    let mut sample = Vec::new();
    for i in 0..20u64 {
        for k in 0..100usize {
            let oop = oops[(i as usize * 131 + k * 7) % oops.len()];
            writer
                .commit([(oop, Some(body(oop, 9000 + i)))])
                .expect("commit");
        }
        sample.push(refresh(&mut refresher).0);
    }
    row(
        "refresh (abort + read changed), 100 commits of 1 object",
        sample,
    );

    let watch = refresher.watch();
    writer
        .commit([(oops[0], Some(body(oops[0], 77)))])
        .expect("commit");
    row(
        "commits_behind via ViewWatch",
        (0..10_000)
            .map(|_| {
                let t = Instant::now();
                let n = watch.commits_behind().expect("behind");
                let d = t.elapsed();
                assert_eq!(n, 1);
                d
            })
            .collect(),
    );

    drop(refresher);
    drop(reader);
    let t = Instant::now();
    let mut scanned_bytes = 0usize;
    let n = writer
        .for_each_object(|_, data| scanned_bytes += data.len())
        .expect("scan");
    println!(
        "{:<64} {:>10.1} ms for {n} objects ({:.1} MB)",
        "scan every object at the view",
        ms(t.elapsed()),
        scanned_bytes as f64 / 1e6
    );
    let before = repo.statistics().expect("stats");
    let t = Instant::now();
    let report = repo.prune().expect("prune");
    println!(
        "{:<64} {:>10.1} ms: {} versions and {} commit rows dropped",
        "prune",
        ms(t.elapsed()),
        report.versions,
        report.commits
    );
    let after = repo.statistics().expect("stats");
    println!(
        "{:<64} {} versions / {:.1} MB before prune, {} versions / {:.1} MB after (file keeps its pages)",
        "repository",
        before.versions,
        before.file_bytes as f64 / 1e6,
        after.versions,
        after.file_bytes as f64 / 1e6
    );
}
