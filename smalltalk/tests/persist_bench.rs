//! Figures for the repository (printed, never asserted): login time on a
//! repository holding the kernel and then also N user classes × 10 methods,
//! durable commit latency for one object and for 1,000 methods, and the time an
//! abort takes to refresh 100 objects another session changed, and a senders
//! search right after a login (which reads and compiles every stored method).
//! Logins are measured with the allocator of the binaries that log in. The
//! correctness of what it measures is asserted. N is 200 by default; set
//! GSMCP_PERSIST_BENCH_CLASSES=2000 (and use `--release`) for the full figures:
//! `cargo test --release -p gsmcp-smalltalk --test persist_bench -- --nocapture`.

use std::path::Path;
use std::time::{Duration, Instant};

use gsmcp_smalltalk::Session;

// the allocator of the binaries that log in (gsmcp-worker, gsmcp-topaz)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn login(path: &Path) -> Session {
    Session::login(path, "DataCurator", "swordfish").unwrap()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Login times of `runs` logins (each logged out before the next): the
/// median, the fastest and the slowest, as text.
fn login_time(path: &Path, runs: usize) -> String {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let s = login(path);
            let d = t.elapsed();
            s.logout().unwrap();
            d
        })
        .collect();
    v.sort();
    format!(
        "{} (median of {runs}; {} .. {})",
        ms(v[v.len() / 2]),
        ms(v[0]),
        ms(v[v.len() - 1])
    )
}

#[test]
fn repository_figures() {
    let classes: usize = std::env::var("GSMCP_PERSIST_BENCH_CLASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let dir = std::env::temp_dir().join(format!("gsmcp-persist-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("repository.db");

    let t = Instant::now();
    Session::create_repository(&path).unwrap();
    let create = t.elapsed();
    let kernel_login = login_time(&path, 15);

    let mut a = login(&path);
    // one object, durable
    let mut one = vec![];
    for i in 0..30 {
        a.evaluate_print_string(&format!("UserGlobals at: #One put: {i}"))
            .unwrap();
        let t = Instant::now();
        assert!(a.commit_transaction().unwrap());
        one.push(t.elapsed());
    }
    // 1,000 methods in 100 classes
    a.evaluate_print_string(
        "1 to: 100 do: [:i | Object subclass: ('Bench', i printString) instVarNames: #('a' 'b') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals]. true",
    )
    .unwrap();
    assert!(a.commit_transaction().unwrap());
    a.evaluate_print_string(
        "1 to: 100 do: [:i | | c | c := UserGlobals at: ('Bench', i printString) asSymbol. 1 to: 10 do: [:j | c compileMethod: 'm', j printString, ' ^ a isNil ifTrue: [', j printString, '] ifFalse: [b]' dictionaries: System myUserProfile symbolList category: 'bench']]. true",
    )
    .unwrap();
    let t = Instant::now();
    assert!(a.commit_transaction().unwrap());
    let thousand = t.elapsed();

    // refresh: another session changes 100 objects
    a.evaluate_print_string("UserGlobals at: #Hundred put: ((1 to: 100) collect: [:i | OrderedCollection with: i]) asArray. true").unwrap();
    assert!(a.commit_transaction().unwrap());
    let mut b = login(&path);
    let mut refresh = vec![];
    for round in 0..10 {
        a.evaluate_print_string(&format!(
            "(UserGlobals at: #Hundred) do: [:oc | oc addLast: {round}]. true"
        ))
        .unwrap();
        assert!(a.commit_transaction().unwrap());
        let t = Instant::now();
        b.abort_transaction().unwrap();
        refresh.push(t.elapsed());
        assert_eq!(
            b.evaluate_print_string("(UserGlobals at: #Hundred) last size")
                .unwrap(),
            (round + 2).to_string()
        );
    }
    let mut nothing = vec![];
    for _ in 0..10 {
        let t = Instant::now();
        b.abort_transaction().unwrap();
        nothing.push(t.elapsed());
    }

    let mut eval_nil = vec![];
    for _ in 0..10 {
        let t = Instant::now();
        b.evaluate_print_string("nil").unwrap();
        eval_nil.push(t.elapsed());
    }

    // N classes x 10 methods
    let t = Instant::now();
    let mut defined = 0;
    while defined < classes {
        let upto = (defined + 100).min(classes);
        a.evaluate_print_string(&format!(
            "{from} to: {upto} do: [:i | | c | c := Object subclass: ('User', i printString) instVarNames: #('x' 'y') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. 1 to: 10 do: [:j | c compileMethod: 'sel', j printString, ': arg ^ (x ifNil: [arg]) + ', j printString dictionaries: System myUserProfile symbolList category: 'generated']]. true",
            from = defined + 1
        ))
        .unwrap();
        assert!(a.commit_transaction().unwrap());
        defined = upto;
    }
    let load = t.elapsed();
    let big_login = login_time(&path, 15);
    let mut c = login(&path);
    assert_eq!(
        c.evaluate_print_string(&format!("(User{classes} new sel10: 5)"))
            .unwrap(),
        "15"
    );
    // a senders search right after a login reads and compiles every method
    let mut d = login(&path);
    let senders = |s: &mut Session| {
        let t = Instant::now();
        let n = s
            .evaluate_print_string("(ClassOrganizer new sendersOf: #+) first size")
            .unwrap();
        (t.elapsed(), n)
    };
    let (first_search, found) = senders(&mut d);
    let (second_search, again) = senders(&mut d);
    assert_eq!(found, again);
    let size = std::fs::metadata(&path).unwrap().len();

    println!("repository figures ({classes} user classes x 10 methods)");
    println!("  create repository (kernel, commit 1)     {}", ms(create));
    println!("  login, kernel only                       {kernel_login}");
    println!(
        "  commit 1 object, durable (median of 30)  {}",
        ms(median(one))
    );
    println!(
        "  commit 1,000 methods in 100 classes      {}",
        ms(thousand)
    );
    println!(
        "  abort, 100 objects changed elsewhere     {} (median of 10)",
        ms(median(refresh))
    );
    println!(
        "  abort, nothing changed                   {} (median of 10)",
        ms(median(nothing))
    );
    println!(
        "  for comparison: evaluate `nil`           {} (median of 10)",
        ms(median(eval_nil))
    );
    println!(
        "  define + commit {classes} classes x 10 methods {}",
        ms(load)
    );
    println!("  login with them                          {big_login}");
    println!(
        "  sendersOf: after a login: first {}, again {} ({found} found)",
        ms(first_search),
        ms(second_search)
    );
    println!(
        "  repository file                          {:.1} MB",
        size as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&dir);
}
