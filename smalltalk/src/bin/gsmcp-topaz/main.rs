//! `gsmcp-topaz`: a topaz-compatible command line for the embedded stone.
//!
//! `gsmcp-topaz [-q] [--repo PATH [--create]] [FILE…]` runs topaz scripts (or
//! standard input) against a fresh in-memory image or a persistent repository
//! and exits with the number of errors (capped at 255);
//! `--repo PATH --repair-kernel [--dry-run]` restores the shipped kernel into
//! a damaged repository instead (`Session::repair_kernel`), and
//! `--repo PATH --collect-garbage` collects its unreachable objects now
//! (`collect_garbage`). Ctrl-C breaks the
//! running evaluation (`sigint`) and never ends the run. This file only reads
//! the arguments and prepares the repository file; the topaz language itself is
//! the library's (`gsmcp_smalltalk::topaz`).

mod sigint;

use std::path::PathBuf;

/// The interpreter allocates an object body per Smalltalk object and frees
/// nothing until the collector runs between evaluations; mimalloc serves that
/// pattern with far fewer instructions and page faults than the system
/// allocator (bench/interp/RESULTS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::process::ExitCode;

use gsmcp_smalltalk::topaz::{self, Backend, Flow, Runner};
use gsmcp_smalltalk::Session;

const USAGE: &str = "\
usage: gsmcp-topaz [-q] [--repo PATH [--create]] [FILE...]
       gsmcp-topaz --repo PATH --repair-kernel [--dry-run]
       gsmcp-topaz --repo PATH --collect-garbage

Runs topaz commands from each FILE in turn (or from standard input when no
FILE is given, or for -) against the embedded stone.

  -q, --quiet     print only results and errors
  --repo PATH     work in the repository file PATH: what a script commits is
                  there for the next login, in this process or another
  --create        with --repo: create PATH (holding the kernel, and the users
                  DataCurator, SystemUser and Developer, password swordfish)
                  when it does not exist; without --create a missing PATH is
                  an error
  --repair-kernel with --repo: restore the shipped kernel into PATH (Globals'
                  kernel bindings, kernel methods whose source differs or that
                  are missing, overrides of kernel methods added to kernel
                  classes, each user's UserGlobals binding and symbol list),
                  keeping user classes, globals, extension methods and data;
                  prints each change and commits them as SystemUser. For a
                  kernel a privileged user (SystemUser, DataCurator) damaged.
                  Exits 0 when the kernel is whole, 1 when something could not
                  be restored, 255 on an error
  --dry-run       with --repair-kernel: print the changes, commit nothing
  --collect-garbage
                  with --repo: delete the objects of PATH that no root (the
                  kernel, the users' profiles and UserGlobals) reaches, now,
                  while other sessions work, and prune what no view reads.
                  Commits collect on their own as objects accrue; this is for
                  an operator who wants it at once. Prints what it did; exits
                  0, or 255 on an error (nothing is deleted then)
  -h, --help      show this text

Without --repo every login is a new in-memory image and nothing outlives the
process.

Logging in: `set user NAME` and `set password PW` choose the login (default
DataCurator / swordfish); `set gemstone` is accepted and ignored. `login` logs
in, `logout` ends the login (uncommitted work is lost) and `login` again starts
a new one. A script that never mentions logging in is logged in implicitly at
its first command that needs a session, so `gsmcp-topaz -q --repo R < load.gs`
files code in like `topaz -l`. With --repo, once a script has said `set user`,
`set password`, `login` or `logout`, a command that needs a session before the
next `login` is an error (\"not logged in\"), as in topaz.

Transactions: `commit` commits (silent with -q). A commit that conflicts with
another session's commit (both wrote the same object) or that the user may
not make (a commit-disabled user) is an ERROR line and counts as an error;
after a conflict the session must `abort` before it commits again. `abort`
discards the transaction's changes and shows the latest committed state.
Work not committed when the script logs out or ends is lost.

Ctrl-C during an evaluation is a soft break: the evaluation ends with ERROR
6003 (unless the code handles it) and the next command runs. A second Ctrl-C
within 2 seconds is a hard break (ERROR 6004), which code cannot handle.
Ctrl-C at the prompt or between commands is ignored.

The exit status is the number of ERROR lines, at most 255 (or the argument of
`exit N`). A usage error, or a --repo PATH that is missing (without --create)
or a directory, exits with 255 before running anything; a file that is not a
repository is an ERROR at login and ends the run.";

/// What the command line asked for.
#[derive(Debug)]
struct Args {
    quiet: bool,
    repo: Option<PathBuf>,
    create: bool,
    /// `--repair-kernel`, and whether `--dry-run`.
    repair: Option<bool>,
    /// `--collect-garbage`.
    collect: bool,
    /// `None` stands for standard input.
    inputs: Vec<Option<PathBuf>>,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut quiet = false;
    let mut repo = None;
    let mut create = false;
    let (mut repair, mut dry_run, mut collect) = (false, false, false);
    let mut inputs = Vec::new();
    let mut options_done = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--" if !options_done => options_done = true,
            "-q" | "--quiet" if !options_done => quiet = true,
            "--create" if !options_done => create = true,
            "--repair-kernel" if !options_done => repair = true,
            "--dry-run" if !options_done => dry_run = true,
            "--collect-garbage" if !options_done => collect = true,
            "--repo" if !options_done => match args.next() {
                Some(path) if !path.is_empty() => repo = Some(PathBuf::from(path)),
                _ => return Err("--repo needs a repository file path".into()),
            },
            option if option.starts_with("--repo=") && !options_done => {
                let path = &option["--repo=".len()..];
                if path.is_empty() {
                    return Err("--repo needs a repository file path".into());
                }
                repo = Some(PathBuf::from(path));
            }
            "-h" | "--help" if !options_done => return Ok(None),
            "-" => inputs.push(None),
            option if option.starts_with('-') && !options_done => {
                return Err(format!("unknown option {option}"))
            }
            path => inputs.push(Some(PathBuf::from(path))),
        }
    }
    if create && repo.is_none() {
        return Err("--create needs --repo PATH".into());
    }
    if repair && (repo.is_none() || create || !inputs.is_empty()) {
        return Err(
            "--repair-kernel needs --repo PATH of an existing repository and no FILE".into(),
        );
    }
    if collect && (repo.is_none() || create || repair || !inputs.is_empty()) {
        return Err(
            "--collect-garbage needs --repo PATH of an existing repository, no FILE and no \
             --repair-kernel"
                .into(),
        );
    }
    if dry_run && !repair {
        return Err("--dry-run needs --repair-kernel".into());
    }
    if inputs.is_empty() {
        inputs.push(None);
    }
    Ok(Some(Args {
        quiet,
        repo,
        create,
        repair: repair.then_some(dry_run),
        collect,
        inputs,
    }))
}

/// Makes sure the repository file is there (creating it with `--create`);
/// answers whether this run created it. Whether it is a repository at all is
/// found out by the login, which reports it.
fn prepare_repository(path: &std::path::Path, create: bool) -> Result<bool, String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(format!(
            "repository {} is a directory, not a repository file",
            path.display()
        )),
        Ok(_) => Ok(false),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if !create {
                return Err(format!(
                    "repository {} does not exist (use --create to create it)",
                    path.display()
                ));
            }
            Session::create_repository_if_missing(path).map_err(|error| {
                format!(
                    "cannot create repository {}: {}",
                    path.display(),
                    topaz::error_text(&error)
                )
            })
        }
        Err(error) => Err(format!("repository {}: {error}", path.display())),
    }
}

fn main() -> ExitCode {
    // Before anything starts a thread: every thread inherits the blocked SIGINT.
    if let Err(message) = sigint::install() {
        eprintln!("gsmcp-topaz: {message}; Ctrl-C will end the run");
    }
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("gsmcp-topaz: {message}\n{USAGE}");
            return ExitCode::from(255);
        }
    };
    if let (Some(dry_run), Some(path)) = (args.repair, &args.repo) {
        return repair_kernel(path, dry_run);
    }
    if let (true, Some(path)) = (args.collect, &args.repo) {
        return collect(path);
    }
    let mut created_now = false;
    let backend = match &args.repo {
        None => Backend::Memory,
        Some(path) => match prepare_repository(path, args.create) {
            Ok(created) => {
                created_now = created;
                Backend::Repository(path.clone())
            }
            Err(message) => {
                eprintln!("gsmcp-topaz: {message}");
                return ExitCode::from(255);
            }
        },
    };
    let mut runner = Runner::new(args.quiet, backend).breakable_by(|i| Box::new(sigint::during(i)));
    runner.banner();
    if let (true, Some(path)) = (created_now, &args.repo) {
        runner.say(&format!("Created repository {}", path.display()));
    }
    for input in &args.inputs {
        let flow = match input {
            Some(path) => runner.run_file(path),
            None => runner.run_stdin(),
        };
        if let Flow::Exit(code) = flow {
            runner.flush_transcript();
            let status = code.map_or(runner.status(), |c| c.clamp(0, 255) as u8);
            return ExitCode::from(status);
        }
    }
    runner.flush_transcript();
    ExitCode::from(runner.status())
}

/// `--collect-garbage`: one line saying what the collection did.
fn collect(path: &std::path::Path) -> ExitCode {
    if let Err(message) = prepare_repository(path, false) {
        eprintln!("gsmcp-topaz: {message}");
        return ExitCode::from(255);
    }
    match gsmcp_smalltalk::collect_garbage(path) {
        Ok(report) => {
            println!("collected {}: {report}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "gsmcp-topaz: cannot collect {}: {}",
                path.display(),
                topaz::error_text(&error)
            );
            ExitCode::from(255)
        }
    }
}

/// `--repair-kernel`: one line per change, then what could not be restored.
fn repair_kernel(path: &std::path::Path, dry_run: bool) -> ExitCode {
    if let Err(message) = prepare_repository(path, false) {
        eprintln!("gsmcp-topaz: {message}");
        return ExitCode::from(255);
    }
    let report = match Session::repair_kernel(path, dry_run) {
        Ok(r) => r,
        Err(error) => {
            eprintln!(
                "gsmcp-topaz: cannot repair {}: {}",
                path.display(),
                topaz::error_text(&error)
            );
            return ExitCode::from(255);
        }
    };
    let verb = if dry_run { "would restore" } else { "restored" };
    for name in &report.classes {
        let verb = if dry_run { "would define" } else { "defined" };
        println!("{verb} the kernel class {name} (new in this build)");
    }
    for line in &report.bindings {
        println!("{verb} binding {line}");
    }
    for line in &report.methods {
        println!("{verb} method {line}");
    }
    for line in &report.removed {
        let verb = if dry_run { "would remove" } else { "removed" };
        println!("{verb} override {line}");
    }
    for user in &report.symbol_lists {
        println!("{verb} the symbol list of {user}");
    }
    for line in &report.not_restored {
        println!("not restored: {line}");
    }
    if report.is_clean() {
        println!("the kernel of {} is whole", path.display());
    } else if report.committed {
        println!("committed the repair of {}", path.display());
    }
    ExitCode::from(u8::from(!report.not_restored.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Args>, String> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn arguments() {
        let args = parse(&["-q", "a.tpz", "-", "b.tpz"]).unwrap().unwrap();
        assert!(args.quiet);
        assert_eq!(
            args.inputs,
            vec![
                Some(PathBuf::from("a.tpz")),
                None,
                Some(PathBuf::from("b.tpz"))
            ]
        );
        let args = parse(&[]).unwrap().unwrap();
        assert!(!args.quiet);
        assert_eq!(args.inputs, vec![None]);
        let args = parse(&["--", "-q"]).unwrap().unwrap();
        assert!(!args.quiet);
        assert_eq!(args.inputs, vec![Some(PathBuf::from("-q"))]);
        assert!(parse(&["--help"]).unwrap().is_none());
        let args = parse(&["-q", "--repo", "r.db", "--create", "a.tpz"])
            .unwrap()
            .unwrap();
        assert_eq!(args.repo, Some(PathBuf::from("r.db")));
        assert!(args.create);
        assert_eq!(args.inputs, vec![Some(PathBuf::from("a.tpz"))]);
        let args = parse(&["--repo=r.db"]).unwrap().unwrap();
        assert_eq!(args.repo, Some(PathBuf::from("r.db")));
        assert!(!args.create);
        assert_eq!(args.inputs, vec![None]);
        let refused = [
            (&["--repo"][..], "--repo needs"),
            (&["--repo="][..], "--repo needs"),
            (&["--create"][..], "--create needs --repo"),
            (&["--bogus"][..], "unknown option --bogus"),
            (&["--repair-kernel"][..], "--repair-kernel needs"),
            (
                &["--repo", "r", "--repair-kernel", "a.tpz"][..],
                "--repair-kernel needs",
            ),
            (&["--repo", "r", "--dry-run"][..], "--dry-run needs"),
            (&["--collect-garbage"][..], "--collect-garbage needs"),
            (
                &["--repo", "r", "--collect-garbage", "--repair-kernel"][..],
                "--collect-garbage needs",
            ),
            (
                &["--repo", "r", "--create", "--collect-garbage"][..],
                "--collect-garbage needs",
            ),
        ];
        for (args, message) in refused {
            let error = parse(args).unwrap_err();
            assert!(error.contains(message), "{args:?}: {error}");
        }
    }
}
