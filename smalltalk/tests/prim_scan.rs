//! Every primitive, called the wrong way, fails into its method's fallback
//! code or signals a Smalltalk error; none panics or runs on unbounded.
//! Numbers 0–1000 the VM does not implement do not compile. Each known one is compiled into a unary, a binary, a one- and a two-keyword method
//! of Object, and each is sent to nil, a SmallInteger, a String and an Array
//! with each of them as arguments. A panic anywhere (the worker would die of
//! it) is recorded by a panic hook and fails the test with the primitive's
//! number and the call.

use gsmcp_smalltalk::Session;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A call still running after this is broken and counted as a failure.
const CALL_BOUND: Duration = Duration::from_secs(3);

/// The selectors (source pattern, call with `r` receiver and `a` argument).
const SHAPES: &[(&str, &str)] = &[
    ("probeU", "{r} probeU"),
    ("%% x", "{r} %% {a}"),
    ("probeK: x", "{r} probeK: {a}"),
    ("probeK: x with: y", "{r} probeK: {a} with: {a}"),
];

const VALUES: &[&str] = &["nil", "3", "'abc'", "#(1 $a 'b')"];

#[test]
fn no_primitive_panics_whatever_it_is_given() {
    let panics: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = panics.clone();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        seen.lock().unwrap().push(info.to_string());
    }));
    let mut s = Session::bootstrap().expect("bootstrap");
    s.set_memory_limit(256 << 20);
    // the watchdog: a call past CALL_BOUND is broken (and then reported)
    let running: Arc<Mutex<Option<Instant>>> = Arc::default();
    let (watched, breaker) = (running.clone(), s.interrupter());
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        if watched
            .lock()
            .unwrap()
            .is_some_and(|t| t.elapsed() > CALL_BOUND)
        {
            breaker.hard_break();
        }
    });
    let mut failures = Vec::new();
    for n in 0..=1000u16 {
        let known =
            n as u32 <= gsmcp_smalltalk::MAX_PRIMITIVE && gsmcp_smalltalk::is_known_primitive(n);
        if !known {
            // a number the VM does not implement is a compile error
            let r = s.evaluate_print_string(&format!(
                "Object compileMethod: 'probeU <primitive: {n}> ^ 1' category: 'probe'"
            ));
            if r.is_ok() {
                failures.push(format!("primitive {n} is unknown but compiled"));
            }
            continue;
        }
        if std::env::var_os("PRIM_SCAN_TRACE").is_some() {
            eprintln!("primitive {n}");
        }
        for (pattern, call) in SHAPES {
            let source = format!("{pattern} <primitive: {n}> ^ #fellBack");
            let compiled = s.evaluate_print_string(&format!(
                "Object compileMethod: '{}' category: 'probe'",
                source.replace('\'', "''")
            ));
            if let Err(e) = compiled {
                failures.push(format!("primitive {n}: compiling {source:?}: {e}"));
                continue;
            }
            for r in VALUES {
                for a in VALUES {
                    if !call.contains("{a}") && *a != "nil" {
                        continue;
                    }
                    let expr = call.replace("{r}", r).replace("{a}", a);
                    let before = panics.lock().unwrap().len();
                    let started = Instant::now();
                    *running.lock().unwrap() = Some(started);
                    let _ = s.evaluate_print_string(&format!(
                        "[{expr}. nil] on: Error do: [:e | e return: nil]"
                    ));
                    *running.lock().unwrap() = None;
                    if started.elapsed() > CALL_BOUND {
                        failures.push(format!(
                            "primitive {n}: {expr}: still running after {CALL_BOUND:?}"
                        ));
                    }
                    let after = panics.lock().unwrap();
                    if after.len() > before {
                        failures.push(format!("primitive {n}: {expr}: {}", after[before]));
                    }
                    drop(after);
                    let _ = s.evaluate_print_string("System abortTransaction");
                }
            }
        }
    }
    std::panic::set_hook(quiet);
    assert!(
        failures.is_empty(),
        "{} calls panicked or did not compile:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
