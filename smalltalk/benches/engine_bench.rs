//! Prints figures for the embedded stone: login (bootstrap) time, the latency of
//! a trivial evaluation, and a few interpreter workloads. Run with
//! `cargo bench -p gsmcp-smalltalk --bench engine_bench`.

use std::time::Instant;

use gsmcp_smalltalk::Session;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1000.0)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * p) as usize]
}

const WORKLOADS: &[(&str, &str)] = &[
    ("fib 27 (block recursion)", "| fib | fib := nil. fib := [:n | n < 2 ifTrue: [n] ifFalse: [(fib value: n - 1) + (fib value: n - 2)]]. fib value: 27"),
    ("fib 27 (method)", "EngBench new fib: 27"),
    ("loop 10M (to:do: + arithmetic)", "| s | s := 0. 1 to: 10000000 do: [:i | s := s + (i \\\\ 7)]. s"),
    ("sends 3M (getter/setter)", "| o | o := EngBench new. 1 to: 1000000 do: [:i | o count: o count + 1]. o count"),
    ("strings 100k concatenations", "| s | s := ''. 1 to: 100000 do: [:i | s := 'x', i printString]. s size"),
    ("exceptions 100k on:do:", "| n | n := 0. 1 to: 100000 do: [:i | n := n + ([1/0] on: ZeroDivide do: [:e | e return: 1])]. n"),
    ("LargeInteger 1000 factorial x20", "| r | 1 to: 20 do: [:i | r := 1000 factorial]. r printString size"),
];

const SETUP: &str = r#"
doit
Object subclass: 'EngBench' instVarNames: #(count) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals options: #()
%
method: EngBench
fib: n
  n < 2 ifTrue: [^ n].
  ^ (self fib: n - 1) + (self fib: n - 2)
%
method: EngBench
count
  ^ count ifNil: [0]
%
method: EngBench
count: n
  count := n
%
"#;

/// `ENGINE_BENCH_FILE=path.gs ENGINE_BENCH_RUN='BenchX new run'` times one workload
/// (for profiling) instead of the standard figures.
fn profile_one(path: &str, expr: &str) {
    let text = std::fs::read_to_string(path).expect("read workload");
    let mut s = Session::bootstrap().expect("bootstrap");
    s.file_in(&text).expect("file in workload");
    for _ in 0..5 {
        let (r, ms) = time(|| s.evaluate_print_string(expr));
        println!("{expr}: {ms:.0} ms ({r:?})");
    }
}

fn main() {
    if let (Ok(path), Ok(expr)) = (
        std::env::var("ENGINE_BENCH_FILE"),
        std::env::var("ENGINE_BENCH_RUN"),
    ) {
        return profile_one(&path, &expr);
    }
    let (s, ms) = time(|| Session::bootstrap_uncached().expect("bootstrap"));
    drop(s);
    println!("bootstrap (file in the kernel): {ms:.1} ms");
    let _ = Session::bootstrap().expect("bootstrap");
    let mut logins: Vec<f64> = (0..20)
        .map(|_| time(|| Session::bootstrap().expect("bootstrap")).1)
        .collect();
    println!(
        "login from the template: p50 {:.2} ms, max {:.2} ms",
        percentile(&mut logins, 0.5),
        percentile(&mut logins, 1.0)
    );

    let mut s = Session::bootstrap().expect("bootstrap");
    let mut lat: Vec<f64> = (0..2000)
        .map(|_| time(|| s.evaluate_print_string("3 + 4").unwrap()).1 * 1000.0)
        .collect();
    println!(
        "evaluate_print_string(\"3 + 4\"), engine thread: p50 {:.0} us, p99 {:.0} us",
        percentile(&mut lat, 0.5),
        percentile(&mut lat, 0.99)
    );
    s.run_on_caller_thread(true);
    let h = std::thread::Builder::new()
        .stack_size(Session::REQUIRED_STACK_BYTES)
        .spawn(move || {
            let mut lat: Vec<f64> = (0..2000)
                .map(|_| time(|| s.evaluate_print_string("3 + 4").unwrap()).1 * 1000.0)
                .collect();
            println!(
                "evaluate_print_string(\"3 + 4\"), caller thread: p50 {:.0} us, p99 {:.0} us",
                percentile(&mut lat, 0.5),
                percentile(&mut lat, 0.99)
            );
            s.file_in(SETUP).expect("setup");
            for (name, src) in WORKLOADS {
                let (r, ms) = time(|| s.evaluate_print_string(src));
                match r {
                    Ok(v) => println!(
                        "{name}: {ms:.0} ms (answer {})",
                        if v.len() > 20 { &v[..20] } else { &v }
                    ),
                    Err(e) => println!("{name}: failed: {e}"),
                }
            }
        })
        .unwrap();
    h.join().unwrap();
}
