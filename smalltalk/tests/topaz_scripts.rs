//! The Smalltalk-level suite: runs the real `gsmcp-topaz -q` on every
//! `tests/scripts/*.tpz` and compares what it prints with the golden `*.out`
//! next to the script. `BLESS=1` rewrites the goldens from the current output.
//!
//! Besides the output, every run must exit with the number of `ERROR` lines it
//! printed (capped at 255): that is the CLI's exit-status contract.
//! Scripts named `*.tpz.pending` are features not working yet; they are not run.
//!
//! Each run happens in a fresh copy of the scripts directory, so files a script
//! writes (`output push`) never land in the source tree.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A script still running after this long is killed and reported as a failure.
/// It is a guard against a hang, not a speed requirement.
const HANG_GUARD: Duration = Duration::from_secs(300);

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("scripts")
}

fn scripts() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(scripts_dir())
        .expect("tests/scripts exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tpz"))
        .collect();
    found.sort();
    found
}

/// What one run of the CLI produced.
struct Run {
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

/// A private copy of the scripts directory, removed on drop.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(name: &str) -> WorkDir {
        // tests run in parallel and may run the same script at once
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("gsmcp-topaz-{}-{n}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a work directory");
        for entry in fs::read_dir(scripts_dir()).expect("tests/scripts exists") {
            let path = entry.expect("readable directory entry").path();
            if path.is_file() {
                fs::copy(&path, dir.join(path.file_name().expect("named")))
                    .expect("copy a script file");
            }
        }
        WorkDir(dir)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn run_topaz(script: &Path) -> Result<Run, String> {
    run_topaz_env(script, &[])
}

/// Runs a script with extra environment variables.
fn run_topaz_env(script: &Path, env: &[(&str, &str)]) -> Result<Run, String> {
    let name = script.file_name().expect("script has a name");
    let work = WorkDir::new(&name.to_string_lossy());
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
        .envs(env.iter().copied())
        .arg("-q")
        .arg(name)
        .current_dir(&work.0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start gsmcp-topaz: {e}"))?;
    // Drain both pipes on threads so a chatty script cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    let status = loop {
        match child
            .try_wait()
            .map_err(|e| format!("waiting for gsmcp-topaz: {e}"))?
        {
            Some(status) => break status,
            None if started.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {HANG_GUARD:?}; killed"));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let stdout = out
        .join()
        .expect("stdout reader")
        .map_err(|e| format!("stdout: {e}"))?;
    let stderr = err
        .join()
        .expect("stderr reader")
        .map_err(|e| format!("stderr: {e}"))?;
    Ok(Run {
        stdout,
        stderr,
        status: status.code(),
    })
}

/// The first line where `got` and `want` differ, shown side by side.
fn first_difference(got: &str, want: &str) -> String {
    let got_lines: Vec<&str> = got.lines().collect();
    let want_lines: Vec<&str> = want.lines().collect();
    let n = got_lines.len().max(want_lines.len());
    for i in 0..n {
        let g = got_lines.get(i).copied();
        let w = want_lines.get(i).copied();
        if g != w {
            return format!(
                "line {}:\n    want: {}\n    got:  {}",
                i + 1,
                w.unwrap_or("<end of output>"),
                g.unwrap_or("<end of output>")
            );
        }
    }
    "outputs differ only in line endings".into()
}

fn check(script: &Path, bless: bool) -> Result<(), String> {
    check_run(script, run_topaz(script)?, bless)
}

/// Compares a run with the script's golden and checks its exit status.
fn check_run(script: &Path, run: Run, bless: bool) -> Result<(), String> {
    let golden = script.with_extension("out");
    if bless {
        fs::write(&golden, &run.stdout)
            .map_err(|e| format!("cannot write {}: {e}", golden.display()))?;
    }
    let want = fs::read_to_string(&golden).map_err(|e| {
        format!(
            "no golden {} ({e}); run with BLESS=1 to create it",
            golden.display()
        )
    })?;
    if run.stdout != want {
        return Err(format!(
            "output differs from the golden, {}",
            first_difference(&run.stdout, &want)
        ));
    }
    let errors = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("ERROR "))
        .count()
        .min(255) as i32;
    if run.status != Some(errors) {
        return Err(format!(
            "exit status {:?} but {errors} ERROR lines were printed; stderr: {}",
            run.status, run.stderr
        ));
    }
    Ok(())
}

#[test]
fn every_script_prints_its_golden_output() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let scripts = scripts();
    assert!(
        !scripts.is_empty(),
        "no *.tpz scripts in {}",
        scripts_dir().display()
    );
    let mut failures = Vec::new();
    for script in &scripts {
        let name = script_name(script);
        match check(script, bless) {
            Ok(()) => eprintln!("ok      {name}"),
            Err(why) => {
                eprintln!("FAILED  {name}");
                failures.push(format!("{name}: {why}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scripts failed:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}

/// The collector's stress mode (`GSMCP_GC_STRESS`: collect during evaluations
/// at every safe point reached after an allocation, never reuse a freed slot, so an object the collector
/// missed panics as a dangling OOP instead of being silently reused) over every
/// script: each must still print its golden. The trace proves collections ran.
#[test]
fn every_script_prints_its_golden_output_while_collecting_at_every_safe_point() {
    let mut failures = Vec::new();
    let mut collections = 0;
    let scripts = scripts();
    for script in &scripts {
        let name = script_name(script);
        let env = [("GSMCP_GC_STRESS", "1"), ("GSMCP_GC_TRACE", "1")];
        let outcome = run_topaz_env(script, &env).and_then(|run| {
            let during = run
                .stderr
                .lines()
                .filter(|l| l.starts_with("gc: during"))
                .count();
            if name == "gc_rooting.tpz" && during < 1000 {
                return Err(format!("only {during} collections during evaluations"));
            }
            // both kinds ran: minor ones (the young generation, found through the
            // remembered set) and major ones
            for kind in ["gc: during minor", "gc: during major"] {
                if name == "gc_rooting.tpz" && !run.stderr.lines().any(|l| l.starts_with(kind)) {
                    return Err(format!("no {kind:?} line"));
                }
            }
            collections += during;
            let run = Run {
                stderr: run
                    .stderr
                    .lines()
                    .filter(|l| !l.starts_with("gc: "))
                    .collect::<Vec<_>>()
                    .join("\n"),
                ..run
            };
            check_run(script, run, false)
        });
        match outcome {
            Ok(()) => eprintln!("ok      {name}"),
            Err(why) => {
                eprintln!("FAILED  {name}");
                failures.push(format!("{name}: {why}"));
            }
        }
    }
    eprintln!("{collections} collections during evaluations");
    assert!(
        failures.is_empty(),
        "{} of {} scripts failed under GC stress:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}

/// Every script has a golden and every golden a script (a stray golden means a
/// renamed or deleted script whose expectations silently stopped running).
#[test]
fn goldens_and_scripts_pair_up() {
    let dir = scripts_dir();
    let mut strays = Vec::new();
    for entry in fs::read_dir(&dir).expect("tests/scripts exists") {
        let path = entry.expect("readable directory entry").path();
        if path.extension().is_some_and(|ext| ext == "out") {
            let tpz = path.with_extension("tpz");
            let pending = path.with_extension("tpz.pending");
            if !tpz.exists() && !pending.exists() {
                strays.push(path.display().to_string());
            }
        }
    }
    assert!(strays.is_empty(), "goldens without a script: {strays:?}");
}

/// Runs `gsmcp-topaz` with `args`, feeding `input` on standard input.
fn run_with_stdin(args: &[&str], input: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsmcp-topaz");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_string();
    // Write on a thread: a large input must not deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("wait for gsmcp-topaz");
    // A run refused before it reads anything closes the pipe: that is no error here.
    match writer.join().expect("stdin writer") {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            panic!("write stdin: {error}")
        }
        _ => {}
    }
    Run {
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
        status: output.status.code(),
    }
}

#[test]
fn exit_status_is_the_error_count_capped_at_255_or_the_exit_argument() {
    let table: Vec<(String, Option<i32>)> = vec![
        ("".into(), Some(0)),
        ("bogus\n".repeat(3), Some(3)),
        ("bogus\n".repeat(300), Some(255)),
        ("bogus\nexit 7\nbogus\n".into(), Some(7)),
        ("bogus\nexit\nbogus\n".into(), Some(1)),
    ];
    for (input, status) in table {
        let run = run_with_stdin(&["-q"], &input);
        assert_eq!(run.status, status, "input {input:?}, stderr {}", run.stderr);
    }
}

#[test]
fn without_q_the_cli_shows_a_banner_and_progress() {
    let run = run_with_stdin(&[], "printit\n3 + 4\n%\ncommit\nabort\nlogout\nlogin\n");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("gsmcp-topaz "), "banner: {:?}", lines);
    assert_eq!(
        &lines[1..],
        [
            "7",
            "Successful commit",
            "Aborted transaction",
            "Logged out",
            "Successful login"
        ],
        "stderr: {}",
        run.stderr
    );
    assert_eq!(run.status, Some(0));
}

#[test]
fn bad_command_lines_are_refused_before_running() {
    let table: [(&[&str], &str); 3] = [
        (&["--bogus"], "unknown option --bogus"),
        (&["-q", "--repo"], "--repo needs a repository file path"),
        (&["--create"], "--create needs --repo PATH"),
    ];
    for (args, message) in table {
        let run = run_with_stdin(args, "printit\n3 + 4\n%\n");
        assert_eq!(run.status, Some(255), "{args:?}");
        assert!(
            run.stdout.is_empty(),
            "{args:?}: nothing runs: {}",
            run.stdout
        );
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    let run = run_with_stdin(&["-q", "no-such-file.tpz"], "");
    assert_eq!(run.status, Some(1));
    assert!(
        run.stdout.starts_with("ERROR cannot read no-such-file.tpz"),
        "stdout: {}",
        run.stdout
    );
}

/// A script's file name, for reports.
fn script_name(script: &std::path::Path) -> String {
    script
        .file_name()
        .expect("named")
        .to_string_lossy()
        .into_owned()
}

/// `input` and `output push` take a relative name from the current
/// directory, as GemStone's topaz does (a project's loader `src/load.gs`
/// says `input src/a.gs`, run from the project's root), and replace
/// `$NAME` / `${NAME}` by the environment; an unset variable is an error.
#[test]
fn input_paths_are_taken_from_the_current_directory_with_variables() {
    let work = WorkDir::new("input-paths");
    let project = work.0.join("project");
    fs::create_dir_all(project.join("src")).expect("make project/src");
    fs::write(
        project.join("src/load.gs"),
        "input src/a.gs\ninput ${INPUT_TEST_DIR}/src/b.gs\n",
    )
    .expect("write load.gs");
    fs::write(project.join("src/a.gs"), "printit\n'from a'\n%\n").expect("write a.gs");
    fs::write(project.join("src/b.gs"), "printit\n'from b'\n%\n").expect("write b.gs");
    let dir = project.display().to_string();
    let run = |script: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
            .arg("-q")
            .env("INPUT_TEST_DIR", &dir)
            .env_remove("INPUT_TEST_UNSET")
            .current_dir(&project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start gsmcp-topaz");
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(script.as_bytes()).expect("write stdin");
        drop(stdin);
        let out = child.wait_with_output().expect("wait for gsmcp-topaz");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
        )
    };
    let (stdout, status) = run("input src/load.gs\n");
    assert_eq!(status, Some(0), "{stdout}");
    assert!(
        stdout.contains("'from a'") && stdout.contains("'from b'"),
        "{stdout}"
    );
    let (stdout, status) = run("input $INPUT_TEST_UNSET/a.gs\n");
    assert_eq!(status, Some(1), "{stdout}");
    assert!(stdout.contains("INPUT_TEST_UNSET is not set"), "{stdout}");
}
